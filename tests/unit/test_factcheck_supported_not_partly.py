"""Claims a source states in full that a check judged only partly stated: a sentence
opened by an adverb set off by a comma ("Overnight, ...") read as a name the sources
never say; a condition the source states in its own words ("When the alarm sounds"
against "In case of fire"); "no matter how many" for "however many"; "take precedence"
without "over"; "config" for "configuration"; a bare number counted in the unit the
claim names before it ("migraine days dropped by about 7"); a clause contradicted, alone,
only by a value the whole claim found stated; the subject a pronoun stood for, which the
sentence need not say; "won't" read as "will not", not "win"."""

from __future__ import annotations

from collections.abc import Sequence

from deepcite.factcheck.claimed_units import with_claimed_unit
from deepcite.factcheck.judge import judge
from deepcite.factcheck.names import capitalised_inside
from deepcite.factcheck.passages import values_of
from deepcite.factcheck.terms import terms_of
from tests.fakes import passage


def test_an_opening_word_set_off_by_a_comma_is_no_name() -> None:
    draft = ("The ferry leaves at 7 am. Evenings, from 6 pm to 9 pm, the kiosk sells "
             "tickets at half price. Evenings are quiet on the pier.")
    assert "evenings" not in capitalised_inside([draft])
    # a word capitalised at each opening it has, set off by no comma, is still a name
    assert "brindle" in capitalised_inside(["Brindle sells tickets. Brindle is a kiosk."])
    source = [passage("Kiosk", "Between 6 pm and 9 pm the pier kiosk sells tickets at "
                               "half price.")]
    judged = judge("Evenings, from 6 pm to 9 pm, the kiosk sells tickets at half price.",
                   source, names_known=frozenset(capitalised_inside([draft])))
    assert judged.verdict == "supported"


def test_a_condition_the_source_states_in_its_own_words_is_stated() -> None:
    source = [passage("Drill", "In case of flooding, pupils leave the classroom and gather "
                               "on the playing field behind the gym. Lunch is served at "
                               "noon in the hall.")]
    assert judge("When the flood siren sounds, everyone meets on the playing field behind "
                 "the gym.", source).verdict == "supported"
    # a condition sharing no word with the source's stays unstated
    assert judge("When the heating fails, everyone meets on the playing field behind "
                 "the gym.", source).verdict == "partly_supported"


def test_no_matter_how_says_however() -> None:
    source = [passage("Lockers", "Every pupil is given one locker in the sports hall, "
                                 "however many clubs they join. Lockers are emptied in July.")]
    assert judge("Each pupil gets one locker, no matter how many clubs they are in.",
                 source).verdict == "supported"


def test_taking_precedence_is_overriding_and_config_is_configuration() -> None:
    source = [passage("Options", "quillet keeps its options in `/etc/quillet.ini`. "
                                 "Environment variables override the file.")]
    assert judge("Environment variables take precedence.", source).verdict == "supported"
    configured = [passage("Setup", "The configuration file is read once at start-up.")]
    assert judge("The config file is read once at start-up.", configured).verdict == "supported"


def test_a_bare_number_counts_in_the_unit_the_claim_names_before_it() -> None:
    source = [passage("Filters", "Sick days fell by 5.2 days a year in schools with the new "
                                 "air filters and by 1.9 days in schools without them.")]
    judged = judge("With the new air filters, sick days fell by about 5 a year, against "
                   "about 2 in schools without them.", source)
    assert judged.verdict == "supported"
    assert judge("With the new air filters, sick days fell by about 9 a year.",
                 source).verdict != "supported"
    # a unit one of the claim's values has, or one named after the number, lends nothing
    for text in ("Sick days fell by 5 days, and by about 2 in the old schools.",
                 "About 2 of the pupils were off sick for days."):
        bare = [v for v in with_claimed_unit(text, values_of(text)) if v.key == "2"]
        assert [v.unit for v in bare] == [""], text


class _ClaimMeaning:
    """Closeness in meaning from a table of (claim, sentence) pairs, the others far."""

    def __init__(self, close: dict[tuple[str, str], float]) -> None:
        self.close = close

    def similarities(self, claim: str, sentences: Sequence[str]) -> list[float]:
        return [self.close.get((claim, sentence), 0.1) for sentence in sentences]


def test_a_clause_contradicted_only_by_a_value_the_whole_claim_found_is_stated() -> None:
    lessons = "Lessons at Brookfield Primary start at 8:45, and children learn in groups that " \
              "mix year levels."
    source = [passage("School", lessons),
              passage("Club", "The breakfast club opens at 7:30 and the school day starts for "
                              "its pupils straight after breakfast. Lunch is at noon.")]
    claim = ("At Brookfield Primary, the school day starts at 8:45, and pupils are taught in "
             "mixed-age classes.")
    # the whole claim is close in meaning to the lessons; its clause "the school day starts
    # at 8:45" alone meets the breakfast club's 7:30, which the whole claim's 8:45 settles
    meaning = _ClaimMeaning({(claim, lessons): 0.8,
                             ("pupils are taught in mixed-age classes.", lessons): 0.9})
    assert judge(claim, source, meaning=meaning).verdict == "supported"
    wrong = claim.replace("8:45", "9:15")
    assert judge(wrong, source, meaning=_ClaimMeaning({(wrong, lessons): 0.8})).verdict \
        != "supported"


def test_the_subject_a_pronoun_stood_for_is_no_word_the_sentence_must_say() -> None:
    # "It runs on Linux", "it" read as "The project": the sentence leaves its subject to
    # its heading, as the draft left it to "it"
    source = [passage("Platforms", "## Platforms\n\nSupported on Linux and on the Raspberry "
                                   "Pi. It needs Python 3.10 or newer."),
              passage("About", "quillet renames photos by the date they were taken.")]
    assert judge("The project runs on Linux.", source,
                 subject="The project").verdict == "supported"
    assert judge("The project runs on Windows.", source,
                 subject="The project").verdict != "supported"


def test_a_labelled_number_borrows_no_unit() -> None:
    text = "Within minutes of a call, route 14 is on its way."
    assert [v.unit for v in with_claimed_unit(text, values_of(text)) if v.key == "14"] == [""]
    text = "Waiting times in minutes fell by 4 and then by about 2."
    assert [v.unit for v in with_claimed_unit(text, values_of(text))] == ["minute", "minute"]


def test_wont_is_will_not() -> None:
    assert terms_of("Late entries won't be accepted.") == terms_of("Late entries are accepted.")
    assert terms_of("The team won the cup.") & terms_of("They win.")
    source = [passage("Rules", "Late entries are not accepted after 9 am. The race starts "
                               "at 10 am.")]
    assert judge("Late entries won\u2019t be accepted.", source).verdict == "supported"
