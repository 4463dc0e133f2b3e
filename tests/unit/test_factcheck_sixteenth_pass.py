"""Classes of claim a check judged wrongly in a student's chatty message about a
university's rules (issue 48's sixteenth pass): money as people say it ("forty quid", "a
tenner"), a date as "the 6th of January" or "Thursday the 24th", "at least a day", a
fact under "I think", two of a claim's values one sentence states together, a month
against another month, and "open around the clock" against another thing's hours."""

from __future__ import annotations

from deepcite.factcheck.claims import clean_claim, split_claims
from deepcite.factcheck.judge import judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage


def _judged(claim: str, *sources: str) -> tuple[str, str]:
    judgement = judge(claim, [passage(f"Source {n}", text) for n, text in enumerate(sources)])
    return judgement.verdict, "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


def _money(text: str) -> list[tuple[str, str]]:
    return [(v.key, v.unit) for v in extract_values(text) if v.kind == "money"]


def test_money_as_people_say_it() -> None:
    assert _money("It's thirty quid a night.") == [("30", "gbp")]
    assert _money("They want 5 bucks for a coffee.") == [("5", "usd")]
    assert _money("A new card costs a tenner.") == [("10", "gbp")]
    assert _money("Lockers take a fiver.") == [("5", "gbp")]


def test_a_price_in_slang_is_checked_against_the_source() -> None:
    source = "Day parking costs £30. A replacement permit costs £10."
    assert _judged("Parking for the day is thirty quid.", source)[0] == "supported"
    verdict, conflicts = _judged("Parking for the day is thirty-five quid.", source)
    assert verdict == "contradicted" and "£30" in conflicts
    assert _judged("A replacement permit is a tenner.", source)[0] == "supported"


def test_a_day_of_the_month_written_with_the() -> None:
    dates = [v.key for v in extract_values("Bookings open on the 3rd of March.")
             if v.kind == "date"]
    assert dates == ["--03-03"]
    assert [v.key for v in extract_values("It shuts on Tuesday the 14th at noon.")
            if v.kind == "date"] == ["---14"]
    # an ordinal before a noun is no date
    assert not [v for v in extract_values("The office is on the 3rd floor.")
                if v.kind == "date"]


def test_a_day_of_the_month_meets_the_full_date() -> None:
    source = "The enrolment window closes at 17:00 on Wednesday 14 May 2025."
    verdict, conflicts = _judged("Enrolment closes on Tuesday the 14th.", source)
    assert verdict == "contradicted" and "wednesday" in conflicts.lower()
    assert _judged("Enrolment closes on Wednesday the 14th.", source)[0] == "supported"


def test_at_least_a_day_is_a_period_with_its_bound() -> None:
    [value] = [v for v in extract_values("Book at least a day ahead.") if v.unit]
    assert value.amount == 86400 and value.bound == "min"
    [value] = [v for v in extract_values("Stays last at most a fortnight.") if v.unit]
    assert value.amount == 14 * 86400 and value.bound == "max"


def test_a_fact_the_writer_believes_is_a_claim() -> None:
    document = ("I think the night bus leaves at 23:40. I believe the menu is too long. "
                "As far as I know, Greyfield Library opens on Sundays.")
    texts = [c.text for c in split_claims(document)]
    assert texts == ["I think the night bus leaves at 23:40.",
                     "As far as I know, Greyfield Library opens on Sundays."]
    # the lead-in is no part of what a source must say
    assert clean_claim(texts[0]) == "the night bus leaves at 23:40."
    source = "The last night bus departs at 23:10."
    verdict, conflicts = _judged(texts[0], source)
    assert verdict == "contradicted" and "23:10" in conflicts


def test_two_values_one_sentence_states_together_are_stated_there() -> None:
    sources = ("A full-time learner enrols for between 20 and 24 hours of classes each week.",
               "Most courses take up 4 hours of classes a week.")
    verdict, _ = _judged("You need between 20 and 24 hours of classes a week, and most "
                         "courses are 4 hours each.", *sources)
    assert verdict != "contradicted"
    # one of them otherwise is still contradicted
    verdict, conflicts = _judged("A full-time learner enrols for between 20 and 30 hours "
                                 "of classes each week.", *sources)
    assert verdict == "contradicted" and "24" in conflicts


def test_a_month_against_another_month() -> None:
    source = "Repair workshops take place in September."
    verdict, conflicts = _judged("Repairs are in June.", source)
    assert verdict == "contradicted" and "september" in conflicts.lower()
    assert _judged("Repairs are in September.", source)[0] == "supported"


def test_around_the_clock_against_the_hours_of_another_thing() -> None:
    sources = ("## Getting help\nThe reception desk is in Room 4. Opening hours are "
               "08:00-18:00, Monday to Friday.",)
    verdict, _ = _judged("The gym stays open around the clock in January.", *sources)
    assert verdict != "contradicted"
    # the thing's own hours still contradict it
    verdict, _ = _judged("The reception desk stays open around the clock.", *sources)
    assert verdict == "contradicted"


def test_a_denial_of_permission_denies_its_subject() -> None:
    source = ("Payment is by card through the app. Cash is not accepted at any office, "
              "including the front desk.")
    verdict, conflicts = _judged("They'll take cash at the front desk as well.", source)
    assert verdict == "contradicted" and "Cash is not accepted" in conflicts
    # a denial saying the same is no contradiction
    assert _judged("Cash isn't an option: you pay by card.", source)[0] != "contradicted"
    # nor is a sentence denying another thing of the subject
    assert _judged("The pool is open in winter.", "The pool is not heated.")[0] \
        != "contradicted"


def test_a_number_word_opening_a_range_counts_the_range_noun() -> None:
    values = extract_values("Take 60 credits, which works out at four or five modules.")
    assert [v.unit for v in values if v.text == "four"] in ([], ["modul"])
    verdict, _ = _judged("You need 60 credits, which is four or five modules.",
                         "Full-time students take 60 credits. Most modules are worth 15 "
                         "credits.")
    assert verdict != "contradicted"


_SETTINGS = ("| Key | Type | Default | Notes |\n|---|---|---|---|\n"
             "| `prune_old` | bool | `false` | Remove snapshots past retention. |\n"
             "| `verify` | bool | `true` | Check each file after upload. |\n"
             "| `workers` | integer | `4` | Uploads at once, 1 to 32. |")


def test_a_setting_on_or_off_against_its_table_cell() -> None:
    verdict, conflicts = _judged("`prune_old` is switched on by default.", _SETTINGS)
    assert verdict == "contradicted" and "false" in conflicts
    verdict, conflicts = _judged("Verification is disabled by default: `verify` is off.",
                                 _SETTINGS)
    assert verdict == "contradicted" and "true" in conflicts
    assert _judged("`verify` is on by default.", _SETTINGS)[0] == "supported"
    # a claim naming no setting of the table is not judged by its rows
    assert _judged("Colour output is switched on by default.", _SETTINGS)[0] \
        != "contradicted"


def test_a_value_in_a_which_clause_is_the_value_of_what_it_follows() -> None:
    source = "`--timeout DURATION`: per-file upload timeout, default 30 seconds."
    verdict, conflicts = _judged("Big files sometimes hit the per-file timeout, which is a "
                                 "minute unless you change it.", source)
    assert verdict == "contradicted" and "30 seconds" in conflicts
    assert [v.key for v in extract_values("The limit is a week.") if v.unit] == ["1"]
    # "is a day ticket" is a kind of ticket, no time
    assert not [v for v in extract_values("This is a day ticket.") if v.unit]


_FLAGS = ("## Global flags\n\n- `-o PATH`, `--output PATH`: where the report is written.\n"
          "- `-q`, `--quiet`: print errors only.\n- `--jobs N`: how many files at once.")


def test_a_flag_said_to_be_the_short_form_of_another() -> None:
    assert _judged("`-q` is short for `--quiet`.", _FLAGS)[0] == "supported"
    assert _judged("If the log is too noisy, `-q` is the short form of `--quiet`.",
                   _FLAGS)[0] == "supported"
    verdict, conflicts = _judged("`-q` is the short form of `--output`.", _FLAGS)
    # (the note names the form the reference gives: `--output`'s short form is `-o`)
    assert verdict == "contradicted" and ("--quiet" in conflicts or "-o" in conflicts)
    # a flag the reference lists alone is neither
    assert _judged("`-j` is short for `--jobs`.", _FLAGS)[0] != "supported"


def test_a_range_with_one_end_the_same_and_the_other_not() -> None:
    source = "A `workers` value outside the range 1 to 32 is a configuration error."
    verdict, conflicts = _judged("Workers accepts values from 1 to 48.", source)
    assert verdict == "contradicted" and "32" in conflicts
    assert _judged("Workers accepts values from 1 to 32.", source)[0] == "supported"
