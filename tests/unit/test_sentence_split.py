"""Sentences end where a reader would end them, and none is printed twice."""

from __future__ import annotations

import pytest

from deepcite.citations.dedupe import dedupe_sentences, drop_repeated_sentences, sentence_key
from deepcite.text.sentences import sentence_spans, split_sentences

CASES = [
    # Abbreviations that never end a sentence.
    ("The U.K. Parliament passed the act in 1998. It took effect a year later.",
     ["The U.K. Parliament passed the act in 1998.", "It took effect a year later."]),
    ("Dr. Okafor and Mrs. Lindqvist met at St. Mary's Hospital. They agreed.",
     ["Dr. Okafor and Mrs. Lindqvist met at St. Mary's Hospital.", "They agreed."]),
    ("Some metals (e.g. Copper and Silver) conduct well, i.e. Electrons move freely. Glass "
     "does not.",
     ["Some metals (e.g. Copper and Silver) conduct well, i.e. Electrons move freely.",
      "Glass does not."]),
    ("The curve is shown in Fig. 4 and listed as No. 12 in the table. Vol. 3 has more.",
     ["The curve is shown in Fig. 4 and listed as No. 12 in the table.", "Vol. 3 has more."]),
    ("Garcia et al. Reported the effect first. The replication failed.",
     ["Garcia et al. Reported the effect first.", "The replication failed."]),
    ("The study by Garcia et al. The replication failed.",
     ["The study by Garcia et al.", "The replication failed."]),
    # Initials, decimals and version numbers.
    ("The novel by C. S. Lewis appeared in 1950. W. H. Auden reviewed it.",
     ["The novel by C. S. Lewis appeared in 1950.", "W. H. Auden reviewed it."]),
    ("The rate rose to 4.75 percent. Python 3.12.1 fixed the bug. Version 2. It was short.",
     ["The rate rose to 4.75 percent.", "Python 3.12.1 fixed the bug.", "Version 2.",
      "It was short."]),
    # An acronym at the end of a sentence still ends it when a sentence follows.
    ("She studied in the U.S. In 2004 she returned home.",
     ["She studied in the U.S.", "In 2004 she returned home."]),
    ("Prices include bread, milk, etc. The list is long.",
     ["Prices include bread, milk, etc.", "The list is long."]),
    # Quotations stay whole.
    ('The minister replied, "We tried. Nothing worked. We will try again." The vote followed.',
     ['The minister replied, "We tried. Nothing worked. We will try again."',
      "The vote followed."]),
    ("He wrote \u201cThe bridge is closed. Take the ferry.\u201d Nobody listened.",
     ["He wrote \u201cThe bridge is closed. Take the ferry.\u201d", "Nobody listened."]),
    ('"Stop!" she shouted. The car braked.', ['"Stop!" she shouted.', "The car braked."]),
    ("The law (passed in 1990. Amended later.) is still in force. Courts apply it.",
     ["The law (passed in 1990. Amended later.) is still in force.", "Courts apply it."]),
    # Footnote marks stay with their sentence.
    ("The dam was finished in 1936.[4][5] It is 221 m tall.",
     ["The dam was finished in 1936.[4][5]", "It is 221 m tall."]),
    # Enumerated lines and blank lines.
    ("1. The expression is evaluated. It gives a manager.\n\n2. The suite runs.",
     ["1. The expression is evaluated.", "It gives a manager.", "2. The suite runs."]),
    ("A paragraph without an end\n   \nThe next paragraph.",
     ["A paragraph without an end", "The next paragraph."]),
    # Chinese.
    ("长城始建于春秋时期。明朝进行了大规模修缮！它有多长？约两万公里。",
     ["长城始建于春秋时期。", "明朝进行了大规模修缮！", "它有多长？", "约两万公里。"]),
    ("他说：\u201c今天下雨。我们改天再去。\u201d大家都同意了。",
     ["他说：\u201c今天下雨。我们改天再去。\u201d", "大家都同意了。"]),
    ("报告写道：「项目已完成。预算未超支。」会议随后结束。",
     ["报告写道：「项目已完成。预算未超支。」", "会议随后结束。"]),
    # Answers with citation markers.
    ("Canberra is the capital [1]. It was chosen in 1908 [2].",
     ["Canberra is the capital [1].", "It was chosen in 1908 [2]."]),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_sentences_end_where_a_reader_ends_them(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_no_sentence_starts_inside_a_quotation() -> None:
    text = ('The bishop added "Archdeacon Price will preside. He has served for years." '
            "The service began at noon.")
    assert all(not s.startswith("He has") for s in split_sentences(text))


def test_an_unclosed_quote_does_not_swallow_the_paragraph() -> None:
    text = 'The sign read "Closed. Come back later. The shop reopened in May. Sales rose.'
    assert split_sentences(text)[-1] == "Sales rose."


def test_spans_point_at_the_sentences() -> None:
    text = "  First one here.   Second one, by Dr. Who. \n\n Third."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "First one here.", "Second one, by Dr. Who.", "Third."]


def test_the_same_sentence_is_recognised_despite_markers_and_markup() -> None:
    assert sentence_key("The dam is **221 m** tall [3].") == sentence_key(
        "the dam is 221 m tall \\[7\\]")
    assert sentence_key("The dam is tall.") != sentence_key("The dam is not tall.")


def test_dedupe_keeps_the_first_and_carries_across_parts() -> None:
    seen: set[str] = set()
    first = dedupe_sentences(["The dam is 221 m tall [1].", "It opened in 1936 [2].",
                              "The dam is 221 m tall [3]."], seen)
    assert first == ["The dam is 221 m tall [1].", "It opened in 1936 [2]."]
    second = dedupe_sentences(["It opened in 1936 [4].", "Its reservoir is Lake Mead."], seen)
    assert second == ["Its reservoir is Lake Mead."]
    assert dedupe_sentences(["See below.", "See below."]) == ["See below.", "See below."]


def test_report_parts_do_not_repeat_sentences_or_fallback_passages() -> None:
    seen: set[str] = set()
    part_one = ("The dam was finished in 1936 [1]. It is 221 m tall [1].\n\n"
                "- \u201cHoover Dam impounds Lake Mead.\u201d [2] (Hoover Dam)")
    part_two = ("It is 221 m tall [3]. Its turbines produce 2,080 MW [3].\n\n"
                "- \u201cHoover Dam impounds Lake Mead.\u201d [2] (Hoover Dam)\n\n"
                "```\nIt is 221 m tall.\n```")
    assert drop_repeated_sentences(part_one, seen) == part_one
    assert drop_repeated_sentences(part_two, seen) == (
        "Its turbines produce 2,080 MW [3].\n\n\n```\nIt is 221 m tall.\n```")
