"""Values and scopes a check judged wrongly on drafts it had not seen (issue 48's tenth
pass): parts of a unit and hours of the clock in words, "costs nothing" as a price, a
range of days or months without "from", "weekdays" for "Monday to Friday", an always
claim against a pronoun sentence limiting it, a list against "X only", and versions of
a platform or a series."""

from __future__ import annotations

from deepcite.factcheck.agreement import agrees
from deepcite.factcheck.judge import Judgement, judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

AIRPORT = [
    passage("Airlines", "Three airlines operate scheduled services from Kestrel Field.\n\n"
            "| Airline | Destinations | When |\n|---|---|---|\n"
            "| Tern Air | Lisbon, Porto | Seasonal, early April to late September |\n"
            "| Gullwing | Leeds, Derry | All year, Monday to Friday only |\n"),
    passage("Terminal", "The terminal opens at 06:00 and closes at 22:00 every day."),
    passage("Parking", "In the short-stay car park the first 20 minutes are free, then "
            "parking costs 3 pounds per hour."),
    passage("Priority lane", "The priority lane lets you skip the main security queue. It "
            "costs 5 pounds per person and is available Monday to Friday, from 06:00 to "
            "10:00 only. It can be bought online or at the entrance to security."),
]
TOOL = [
    passage("Platforms", "Cinder runs on Linux, on Windows 10 and on macOS 13 or later. "
            "Versions follow semantic versioning from 3.0 onwards."),
    passage("Legacy", "Users on 32-bit systems can stay on 2.4, the last release with "
            "32-bit builds."),
    passage("Acceleration", "The --turbo flag does the encoding on the graphics card. "
            "Supported on Linux only, and it needs a recent driver."),
]


def _judged(claim: str, passages: list) -> tuple[Judgement, str]:  # type: ignore[type-arg]
    judgement = judge(claim, passages)
    return judgement, "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


def test_a_part_of_one_unit_is_an_amount_of_it() -> None:
    [quarter] = extract_values("It takes a quarter of an hour.")
    [minutes] = extract_values("It takes 15 minutes.")
    [three] = extract_values("It takes three quarters of an hour.")
    assert agrees(quarter, minutes) and not agrees(three, minutes)
    [share] = extract_values("A quarter of the land is forest.")
    assert share.unit == "%"
    judgement, note = _judged("In the short-stay car park the first quarter of an hour "
                              "costs nothing.", AIRPORT)
    assert judgement.verdict == "contradicted" and "20 minutes" in note
    assert judge("Parking in the short-stay car park costs nothing for the first twenty "
                 "minutes.", AIRPORT).verdict == "supported"


def test_hours_of_the_clock_in_words() -> None:
    five, eleven = extract_values("It opens at five in the morning and shuts at eleven at "
                                  "night.")
    assert (five.key, eleven.key) == ("05:00", "23:00")
    [half] = extract_values("The bus leaves at half past six in the evening.")
    assert half.key == "18:30"
    assert judge("The terminal opens at six in the morning and closes at ten at night.",
                 AIRPORT).verdict == "supported"
    judgement, note = _judged("The terminal opens at five in the morning.", AIRPORT)
    assert judgement.verdict == "contradicted" and "06:00" in note


def test_a_season_without_from_limits_all_year() -> None:
    judgement, note = _judged("Tern Air flies to Lisbon and Porto all year round.", AIRPORT)
    assert judgement.verdict == "contradicted" and "early April to late September" in note


def test_weekdays_are_monday_to_friday() -> None:
    assert judge("Gullwing serves Leeds and Derry on weekdays only.",
                 AIRPORT).verdict == "supported"
    judgement, note = _judged("Gullwing flies to Leeds and Derry at weekends only.", AIRPORT)
    assert judgement.verdict == "contradicted" and "Monday to Friday" in note


def test_any_day_against_a_pronoun_sentence_beside() -> None:
    judgement, note = _judged("The priority lane lets you skip the security queue on any "
                              "day of the week.", AIRPORT)
    assert judgement.verdict == "contradicted" and "Monday to Friday" in note


def test_a_list_against_one_item_only() -> None:
    judgement, note = _judged("The --turbo flag does the encoding on the graphics card on "
                              "Windows and macOS as well as on Linux.", TOOL)
    assert judgement.verdict == "contradicted" and "Linux only" in note
    assert judge("The --turbo flag does the encoding on the graphics card on Linux.",
                 TOOL).verdict == "supported"


def test_a_platform_version_is_no_product_version() -> None:
    assert judge("Cinder runs on Linux, on Windows 10 or newer and on macOS from version "
                 "13 onwards.", TOOL).verdict == "supported"
    judgement, note = _judged("Cinder runs on macOS from version 12 onwards.", TOOL)
    assert judgement.verdict == "contradicted" and "13" in note and "3.0" not in note


def test_a_release_series() -> None:
    [series] = extract_values("Stay on the 2.x series.")
    [last] = extract_values("Stay on 2.4.")
    [other] = extract_values("Stay on 3.1.")
    assert agrees(series, last) and not agrees(series, other)
    assert judge("Users on 32-bit systems can stay on the 2.x series.", TOOL).verdict \
        == "supported"


def test_a_condition_that_nothing_is_set_is_the_default() -> None:
    options = [passage("Options", "The --level option sets how hard files are compressed. "
                       "The default level is 6 for ZIP and 3 for GZIP.")]
    assert judge("If you don't set a level yourself, ZIP files get level 6.",
                 options).verdict == "supported"


def test_a_count_a_week_is_how_many_times() -> None:
    [two, _week] = extract_values("Flights, two a week, began in 1958.")[:2]
    [twice, _] = extract_values("It launched a twice-weekly route.")
    assert agrees(two, twice)
    ferry = [passage("History", "Services began in 1958, when Tern Air launched a "
                     "twice-weekly route to Jersey.")]
    judgement, note = _judged("Services to Jersey began in 1958, three a week.",
                              ferry)
    assert judgement.verdict == "contradicted" and "twice" in note


def test_initials_name_what_the_sources_name() -> None:
    field = [passage("History", "The airfield was laid out in 1941 as a training ground "
                     "for the Royal Air Force. Passenger flights began in 1958.")]
    judgement = judge("The airfield was laid out in 1941 as an RAF training ground.", field)
    assert judgement.verdict != "contradicted" and "RAF" in judgement.stated


def test_a_list_against_one_item_only_beside_a_loose_match() -> None:
    judgement, note = _judged("The --turbo flag speeds up encoding on Windows and macOS "
                              "as well as on Linux.", TOOL[1:])
    assert judgement.verdict == "contradicted" and "Linux only" in note


def test_a_value_the_source_says_was_changed() -> None:
    notes = [passage("Changes", "In version 3.0 the default compression level changed from "
                     "`fast` to `balanced`. The default compression level can be set with "
                     "--level.")]
    judgement, note = _judged("Since version 3.0 the default compression level has been "
                              "fast.", notes)
    assert judgement.verdict == "contradicted" and "balanced" in note
    assert judge("Until version 3.0 the default compression level was fast.",
                 notes).verdict != "contradicted"
