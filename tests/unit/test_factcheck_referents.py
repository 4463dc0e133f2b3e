"""The sixth pass on issue 48's misses: a claim opening with "it" is searched and judged
for the subject it stands for; a weekday in the plural, a count after "a staff of", the
first hour, "whenever you like", a denial in the next sentence, and a claim of which
only its subject's name is stated."""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.factcheck.claims import split_claims
from deepcite.factcheck.judge import judge
from deepcite.factcheck.other_words import other_of_kind
from deepcite.factcheck.referents import resolve_pronouns
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

DRAFT = """# Harrow Mill Bakery

Harrow Mill Bakery was founded in 1998. It has a staff of twelve.
Today it sells bread in four towns. The county council has owned it since 2003.
Its oven burns wood. The lido belongs to the town council and is open in summer.
They are heated by solar panels. Each bench has its own sink.
"""


def _resolved() -> dict[str, str]:
    claims = split_claims(DRAFT)
    found = resolve_pronouns(DRAFT, claims)
    return {c.text: found[c.number].text for c in claims if c.number in found}


def test_an_opening_pronoun_stands_for_the_last_subject_named() -> None:
    resolved = _resolved()
    assert resolved["It has a staff of twelve."] == "Harrow Mill Bakery has a staff of twelve."
    # after a short opening, and not replaced by a claim naming it as an object
    assert resolved["Today it sells bread in four towns."] \
        == "Today, Harrow Mill Bakery sells bread in four towns."
    assert resolved["Its oven burns wood."] == "Harrow Mill Bakery's oven burns wood."
    # a subject with a second clause after it is its noun only
    assert resolved["They are heated by solar panels."] \
        == "The lido are heated by solar panels."
    # "its" inside a claim is no opening pronoun
    assert "Each bench has its own sink." not in resolved


def test_a_heading_names_the_subject_before_any_claim() -> None:
    draft = "# Notes on Quarry Park\n\nIt opened in 2016 with 640 spaces.\n"
    claims = split_claims(draft)
    assert resolve_pronouns(draft, claims)[1].text == "Quarry Park opened in 2016 with 640 spaces."


KESTREL = [
    passage("Kestrel Lane Coffee", "Kestrel Lane Coffee is a small roastery in Tallow "
            "Bridge, founded in 2014. The company has nine employees and roasts about 60 "
            "tonnes of coffee a year."),
    passage("Coffees", "Night Heron is a decaffeinated coffee from Colombia. The caffeine "
            "is removed with a sugarcane process rather than with methylene chloride. "
            "Every coffee is roasted on Tuesdays and Thursdays."),
    passage("Subscriptions", "A subscription sends a bag every two or four weeks and can be "
            "paused or cancelled at any time from the account page. The first 30 minutes "
            "are free for callers."),
]


def test_a_count_after_a_staff_of_is_a_count_of_people() -> None:
    [value] = extract_values("It has a staff of twelve.")
    assert (value.amount, value.unit) == (12.0, "people")
    judgement = judge("Kestrel Lane Coffee has a staff of twelve.", KESTREL,
                      subject="Kestrel Lane Coffee")
    assert judgement.verdict == "contradicted"
    assert "nine employees" in judgement.conflicts[0].source


def test_weekdays_in_the_plural_are_compared() -> None:
    assert other_of_kind("roasted on Mondays and Wednesdays",
                         "Every coffee is roasted on Tuesdays and Thursdays.") \
        == ("monday", "tuesday")
    assert other_of_kind("roasted on Tuesdays", "roasted on Tuesdays and Thursdays") is None


def test_the_next_sentence_denying_what_the_claim_adds_contradicts_it() -> None:
    judgement = judge("Night Heron is decaffeinated using methylene chloride.", KESTREL)
    assert judgement.verdict == "contradicted"
    assert "sugarcane" in judgement.conflicts[0].source


def test_whenever_you_like_is_at_any_time() -> None:
    assert terms_of("whenever you like") == terms_of("at any time")
    assert judge("A subscription can be stopped whenever you like.", KESTREL).verdict \
        == "supported"


def test_the_first_hour_is_one_hour() -> None:
    value, free = extract_values("The first hour is free for callers.")
    assert value.amount == 3600.0
    assert (free.kind, free.amount) == ("money", 0.0)  # "free": a price of nothing
    assert judge("The first hour is free for callers.", KESTREL).verdict == "contradicted"
    # which day, not how long: no duration of one day
    assert [v.dimension for v in extract_values("on the first day of the month")] == [""]
    assert [v.text for v in extract_values("Uptime was 99.5% last year.")] == ["99.5%"]


HOSPITAL = [
    passage("Concessions", "Blue badge holders park free of charge in 48 bays on level 1. "
            "They must register their badge at the main reception before leaving the "
            "hospital. The cashier's office is open on weekdays."),
    passage("Getting here", "Bus route 14 stops outside the main entrance every 12 minutes "
            "on its way from the railway station."),
]


def test_another_place_after_at_the_contradicts() -> None:
    judgement = judge("Blue badge holders must register their badge at the security office.",
                      HOSPITAL)
    assert judgement.verdict == "contradicted"
    assert judgement.conflicts[0].source == "main reception"
    # a place the passages name elsewhere is only not stated here
    assert judge("Blue badge holders must register their badge at the cashier's office.",
                 HOSPITAL).verdict != "contradicted"


def test_a_clause_added_after_and_that_nothing_states_is_partly_supported() -> None:
    judgement = judge("Bus route 14 runs from the railway station every 12 minutes and is "
                      "free for patients.", HOSPITAL)
    assert judgement.verdict == "partly_supported"
    assert judge("Bus route 14 runs from the railway station every 12 minutes.",
                 HOSPITAL).verdict == "supported"


class _Close:
    """Closeness in meaning from a table (others far)."""

    def __init__(self, close: dict[str, float]) -> None:
        self.close = close

    def similarities(self, claim: str, sentences: Sequence[str]) -> list[float]:
        return [self.close.get(sentence, 0.1) for sentence in sentences]


def test_a_claim_of_which_only_its_subjects_name_is_found_is_not_found() -> None:
    sentence = ("Kestrel Lane Coffee is a small roastery in Tallow Bridge, founded in "
                "2014.")
    close = _Close({sentence: 0.62})
    judgement = judge("Kestrel Lane runs a cafe at the roastery on Saturdays.", KESTREL,
                      meaning=close)
    assert judgement.verdict == "not_found"
    # a claim the same sentence states a value of stays partly supported
    assert judge("Kestrel Lane runs a cafe at the roastery, founded in 2014.", KESTREL,
                 meaning=close).verdict != "not_found"


def test_a_short_denying_clause_is_quoted_with_what_the_source_says_instead() -> None:
    paying = [passage("Paying", "Parking costs 2.50 pounds for two hours. The pay stations "
                      "take cards only, not cash.")]
    judgement = judge("The pay stations accept cash as well as cards.", paying)
    assert judgement.verdict == "contradicted"
    assert "cards only" in judgement.conflicts[0].source


def test_a_closing_it_stands_for_the_last_subject_named() -> None:
    draft = "# Notes\n\nThe first race was held in 1987. Back then 540 people ran it.\n"
    claims = split_claims(draft)
    assert resolve_pronouns(draft, claims)[2].text == "Back then 540 people ran the first race."


def test_back_then_and_participants_share_the_sources_words() -> None:
    # "back then" says when, not what; runners and entrants are people
    assert terms_of("Back then 540 people ran the first race.") \
        <= terms_of("The first race was run in 1987 with 340 runners.")


def test_it_never_stands_for_a_subject_a_plural_verb_spoke_of() -> None:
    # "Only the changed blocks ... are copied. It runs ..." speaks of the tool; "they"
    # may still stand for the last subject named, whatever its number
    draft = ("tidepool is a tool for mirroring buckets. Only the changed blocks of a file "
             "are copied, in 4 MiB blocks. It runs 8 transfers in parallel by default. "
             "The volunteers were trained in 2019. They meet twice a month.\n")
    claims = split_claims(draft)
    found = resolve_pronouns(draft, claims)
    resolved = {c.text: found[c.number].text for c in claims if c.number in found}
    assert resolved["It runs 8 transfers in parallel by default."] \
        == "tidepool runs 8 transfers in parallel by default."
    assert resolved["They meet twice a month."] == "The volunteers meet twice a month."


def test_a_subject_before_a_verb_with_no_auxiliary_is_named() -> None:
    draft = ("Backups are kept for 30 days. tidepool supports Amazon S3 and Azure Blob "
             "Storage. It runs on Linux and macOS.\n")
    claims = split_claims(draft)
    found = resolve_pronouns(draft, claims)
    [referent] = found.values()
    assert referent.text == "tidepool runs on Linux and macOS."
