"""Classes of issue 48's thirteenth check pass: a count whose noun is left to a pronoun
("of which 30", "25 of them", "40 electric ones") counts what the earlier count of its
sentence counts; a bold line is a heading; a comment addressed to the reader is no part
of the claim; an order the sources state ("1. flags 2. environment variables", "A,
then B") decides a claim ranking two things."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

_SOURCE = ("The library lends 240 laptops, of which 30 are reserved for staff. The rest "
           "can be borrowed for a week.")


def _units(text: str) -> list[str]:
    return [v.unit for v in extract_values(text)]


def test_a_count_after_of_which_or_before_of_them_takes_the_earlier_noun() -> None:
    assert _units(_SOURCE.split(". ")[0]) == ["laptop", "laptop"]
    assert _units("The farm keeps 90 goats and milks 60 of them") == ["goat", "goat"]
    assert _units("a fleet of 64 trams including 40 electric ones") == ["tram", "tram"]


def test_a_count_with_its_own_noun_or_in_another_sentence_keeps_its_own() -> None:
    assert _units("It has 240 laptops and 30 tablets") == ["laptop", "tablet"]
    # the earlier count is in another sentence: nothing to refer to
    assert _units("It has 240 laptops. 30 of them are new") == ["laptop", ""]
    # a measure is no thing counted: "of which 5" stays a plain number
    assert _units("The walk takes 40 minutes, of which 5 are uphill")[1] == ""


def test_another_share_of_the_whole_contradicts_and_names_the_sources_count() -> None:
    found = judge("Its 240 laptops include 50 reserved ones for staff.",
                  [passage("Loans", _SOURCE)])
    assert found.verdict == "contradicted"
    assert [c.source for c in found.conflicts] == ["30"]
    assert judge("It lends 240 laptops, 30 of them reserved for staff.",
                 [passage("Loans", _SOURCE)]).verdict == "supported"


def test_a_line_all_in_bold_is_a_heading_not_part_of_the_claim_under_it() -> None:
    from deepcite.factcheck.claims import split_claims

    draft = "**Opening hours**\nThe pool opens at 7am on weekdays.\n"
    assert [c.text for c in split_claims(draft)] == ["The pool opens at 7am on weekdays."]
    assert [c.text for c in split_claims("*Prices:*\nA swim costs 4 pounds.")] == [
        "A swim costs 4 pounds."]


def test_a_comment_addressed_to_the_reader_is_no_part_of_the_claim() -> None:
    from deepcite.factcheck.comments import without_comment

    assert without_comment("Flags override the config file, so your cron job can change "
                           "anything per run.") == "Flags override the config file."
    assert without_comment("Anything you tag is kept, which sounds like what you want.") \
        == "Anything you tag is kept."
    # a comment of the tool's own (no "you", no "we") stays part of the claim
    assert without_comment("Flags override the config file, so one run can change it.") \
        == "Flags override the config file, so one run can change it."


_ORDERED = ("## Precedence\n\nOptions are resolved in this order, highest first:\n\n"
            "1. command-line options\n2. environment variables\n3. the settings file\n")


def test_an_order_the_source_lists_supports_the_same_order_and_contradicts_the_other() -> None:
    from deepcite.factcheck.precedence import claim_order

    assert claim_order("Whatever you pass on the command line beats environment variables.") \
        == ("Whatever you pass on the command line", "environment variables")
    assert judge("Whatever you pass on the command line beats environment variables.",
                 [passage("Config", _ORDERED)]).verdict == "supported"
    found = judge("Environment variables take precedence over command-line options.",
                  [passage("Config", _ORDERED)])
    assert found.verdict == "contradicted"
    assert "command-line options, then environment variables" in found.conflicts[0].source


def test_a_chain_with_then_orders_what_is_tried_first() -> None:
    source = ("## Tokens\n\nToken lookup order: the `--token-file` option, then the "
              "`ACME_TOKEN` environment variable, then a prompt.")
    wrong = judge("It checks the `ACME_TOKEN` environment variable first and only falls "
                  "back to `--token-file` if that is unset.", [passage("Tokens", source)])
    assert wrong.verdict == "contradicted"
    right = judge("It tries the `--token-file` option first, then the `ACME_TOKEN` "
                  "environment variable.", [passage("Tokens", source)])
    assert right.verdict != "contradicted"


def test_an_order_never_outweighs_a_value() -> None:
    # the same two teams in the same order, another score: the value decides
    source = "In the final, Rovers beat United 3-0 at the Park."
    assert judge("Rovers beat United 2-0 in the final.",
                 [passage("Final", source)]).verdict != "supported"


def test_a_share_said_in_the_next_sentence_still_meets_the_sources_share() -> None:
    # "of them" with no count before it in its own sentence stays a bare number, and
    # meets the source's share by what both say it counts
    source = "The choir has 64 singers, of whom 20 are tenors. It rehearses on Tuesdays."
    found = judge("About 25 of them are tenors.", [passage("Choir", source)])
    assert found.verdict == "contradicted"
    assert [c.source for c in found.conflicts] == ["20"]


def test_a_reminder_a_dash_remark_and_emphasis_are_no_words_of_the_claim() -> None:
    from deepcite.factcheck.claims import clean_claim
    from deepcite.factcheck.comments import without_comment
    from deepcite.factcheck.terms import terms_of

    assert clean_claim("Bear in mind that the ferry leaves at 9.") == "the ferry leaves at 9."
    assert without_comment("The ferry leaves at 9 — that surprises most visitors.") \
        == "The ferry leaves at 9."
    # a dash restating a value is part of the claim
    assert without_comment("The ferry costs a tenner — that is 10 pounds.") \
        == "The ferry costs a tenner — that is 10 pounds."
    assert "actually" not in terms_of("It doesn't actually close")


def test_free_as_a_verb_is_no_price() -> None:
    assert not [v for v in extract_values("Deleting files doesn't free any space")
                if v.unit == "free"]
    assert [v.unit for v in extract_values("Entry is free")] == ["free"]


def test_not_until_agrees_with_only_when() -> None:
    source = "The gate is only opened when the warden arrives."
    assert judge("The gate isn't opened until the warden arrives.",
                 [passage("Gate", source)]).verdict != "contradicted"
    assert judge("The gate is never opened.",
                 [passage("Gate", source)]).verdict == "contradicted"


def test_half_an_hour_said_the_british_way_is_a_clock_time() -> None:
    assert [v.key for v in extract_values("The job starts at half two in the morning")] \
        == ["02:30"]
    source = "The backup job starts at 03:30 and takes about an hour."
    assert judge("The backup job starts at half two in the morning, daily.",
                 [passage("Jobs", source)]).verdict != "supported"


def test_one_as_a_pronoun_counts_nothing() -> None:
    assert [v.text for v in extract_values("the second one waits for 30 minutes")] == [
        "30 minutes"]
    assert [v.text for v in extract_values("This one costs 5 pounds")] == ["5 pounds"]
    assert [v.text for v in extract_values("it takes one hour")] == ["one hour"]


def test_a_number_glued_to_m_is_minutes_where_the_line_speaks_of_waiting() -> None:
    row = '| `lock_wait` | `"30m"` | how long a queued job waits for the lock |'
    assert [(v.unit, v.amount) for v in extract_values(row)] == [("minute", 1800.0)]
    assert extract_values("The 100m sprint was won in 10 seconds")[0].unit == "m"
    assert [v.unit for v in extract_values("timeout = 30m")] == ["minute"]
