"""Classes of claim a check judged wrongly in a person's email about a timetable (issue
48's fifteenth pass): a time said as minutes to or past the hour ("quarter to seven"),
the writer's judgement of a fact (", which is brutal"), "leaves" for a timetable's
"departure", and a value the sentence states otherwise whose words went uncounted, so
that the sentence seemed not to be on the claim's subject at all."""

from __future__ import annotations

from deepcite.factcheck.comments import without_comment
from deepcite.factcheck.judge import judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

_TIMETABLE = ("Trains on the Millbrook line run every half hour. First departure from "
              "Ashby to Millbrook: 05:50 on weekdays, 07:20 on Sundays. The station "
              "cafe opens at 06:00.")


def _judged(claim: str, source: str = _TIMETABLE) -> tuple[str, str]:
    judgement = judge(claim, [passage("Timetable", source)])
    return judgement.verdict, "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


def _clock(text: str) -> list[str]:
    return [v.key for v in extract_values(text) if v.dimension == "clock"]


def test_minutes_to_or_past_the_hour_are_times_of_the_clock() -> None:
    assert _clock("The first train leaves at ten to six.") == ["05:50"]
    assert _clock("It closes at quarter past nine in the evening.") == ["21:15"]
    assert _clock("Be there by twenty to eight.") == ["07:40"]
    assert _clock("Lessons run a quarter to four.") == ["03:45"]


def test_a_span_or_a_range_in_words_is_no_time() -> None:
    # "from ten to six" is a span of hours, "ten to twelve people" a range of people
    assert _clock("The office is open from ten to six.") == []
    assert _clock("Groups of ten to twelve people are welcome.") == []


def test_a_time_in_words_agrees_with_the_timetable() -> None:
    verdict, _ = _judged("The first train on a weekday leaves at ten to six.")
    assert verdict == "supported"


def test_another_time_in_words_contradicts_it_and_names_the_timetables() -> None:
    verdict, conflicts = _judged("The first train on a weekday leaves at quarter past six.")
    assert verdict == "contradicted"
    assert conflicts == "quarter past six / 05:50"


def test_the_writers_judgement_of_a_fact_is_no_claim() -> None:
    assert without_comment("The first train leaves at ten to six, which is brutal, but "
                           "nobody has to take it.") == "The first train leaves at ten to six."
    assert without_comment("Parking is £9 a day, which seems a bit steep.") == \
        "Parking is £9 a day."
    # a clause with a value, or one inside the sentence, is what the claim says
    assert without_comment("The pool is heated, which is 28 degrees.") == \
        "The pool is heated, which is 28 degrees."
    assert without_comment("The cafe, which is open daily, sells tea.") == \
        "The cafe, which is open daily, sells tea."


def test_a_judged_claim_is_checked_without_the_judgement() -> None:
    verdict, _ = _judged("The first train on a weekday leaves at ten to six, which is "
                         "brutal, but nobody has to take it.")
    assert verdict == "supported"


_FARES = ("Season tickets are sold at the station office. Students get a 15% discount on "
          "season tickets with a valid card. Dogs travel free.")


def test_a_price_cut_however_written_is_the_sources_discount() -> None:
    for claim in ("Students knock 15% off a season ticket with their card.",
                  "Students save 15% on season tickets with a valid card.",
                  "Students get season tickets 15% cheaper with their card."):
        verdict, _ = _judged(claim, _FARES)
        assert verdict == "supported", claim
    verdict, conflicts = _judged("Students get 25% off season tickets with their card.",
                                 _FARES)
    assert verdict == "contradicted"
    assert conflicts == "25% / 15%"
