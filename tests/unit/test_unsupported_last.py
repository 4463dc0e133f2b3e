"""Supported sentences lead; unsupported ones follow below a flag
(``citations.supported_first.unsupported_last``).

A model's reply that mixes sentences its sources back with sentences none does used to
be shown as written, the unsupported ones only listed: read top-down, an invented
figure could sit between two cited facts. Here the model at the boundary writes such a
reply and the answer a user reads must put every supported sentence first, in order,
then the flag, then the rest - with every ``[n]`` still naming a listed source.
"""

from __future__ import annotations

from typing import Any

from deepcite.citations import cited_numbers
from deepcite.citations.attribution import sentence_claim
from deepcite.citations.supported_first import unsupported_last
from deepcite.research import Researcher
from deepcite.text.frames import frame
from tests.fakes import MemoryEngine, ScriptedChatModel, passage

FLAG_EN = frame("unsupported_below")
QUESTION = "How long does the heron cache keep entries and when is it flushed?"
KEEPS = "The heron cache keeps entries for 300 seconds."
FLUSHED = "The heron cache is flushed every night at two o'clock by the maintenance job."
INVENTED = "The heron cache was written in Rust by a team of four engineers in Oslo."
NOTES = passage("heron cache notes", f"{KEEPS} {FLUSHED} Operators watch its hit rate.")


def _run(make_settings: Any, reply: str) -> Any:
    settings = make_settings(**{"research.iterations": 1,
                                "research.questions_per_iteration": 0,
                                "research.max_sources": 3,
                                "citations.answer_mode": "abstractive"})
    model = ScriptedChatModel(script={"questions": [""], "synthesis": [reply]})
    with Researcher(settings, model, [MemoryEngine([NOTES])]) as researcher:
        return researcher.run(QUESTION)


def test_a_mixed_reply_puts_supported_sentences_first_then_the_flag(make_settings: Any) -> None:
    reply = f"{KEEPS[:-1]} [1]. {INVENTED} {FLUSHED[:-1]} [1]."
    result = _run(make_settings, reply)
    answer = result.answer
    above, flag, below = answer.partition(FLAG_EN)
    assert flag, answer
    assert above.index("300 seconds") < above.index("two o'clock"), answer
    assert "Rust" not in above and "Rust" in below, answer
    # every marker still names a listed source
    numbers = {source.number for source in result.sources}
    assert cited_numbers(answer) and set(cited_numbers(answer)) <= numbers


def test_an_all_supported_reply_is_unchanged(make_settings: Any) -> None:
    reply = f"{KEEPS[:-1]} [1]. {FLUSHED[:-1]} [1]."
    answer = _run(make_settings, reply).answer
    assert FLAG_EN not in answer
    assert answer.startswith(reply), answer


def test_markers_stay_with_their_sentence_and_lines_keep_their_order() -> None:
    answer = ("Entries live for 300 seconds. [1] The cache is written in Rust in Oslo.\n\n"
              "- Flushes run at two o'clock [2].\n- The team has four engineers in Oslo.")
    moved = unsupported_last(answer, ["The cache is written in Rust in Oslo.",
                                      "The team has four engineers in Oslo."], "How long?")
    above, _, below = moved.partition(FLAG_EN)
    assert above.strip() == ("Entries live for 300 seconds. [1]\n\n"
                             "- Flushes run at two o'clock [2].")
    assert "Rust" in below and "four engineers" in below and not cited_numbers(below)


def test_the_flag_is_in_the_questions_language() -> None:
    answer = "斑马缓存的条目保留三百秒[1]。它由奥斯陆的四名工程师编写。"
    moved = unsupported_last(answer, ["它由奥斯陆的四名工程师编写。"], "斑马缓存的条目保留多久？")
    assert moved.startswith("斑马缓存的条目保留三百秒[1]。")
    assert frame("unsupported_below", "zh") in moved and FLAG_EN not in moved
    assert moved.index("奥斯陆") > moved.index(frame("unsupported_below", "zh"))


def test_nothing_supported_left_is_left_to_supported_first() -> None:
    answer = "The cache is written in Rust in Oslo."
    assert unsupported_last(answer, [answer], "Who wrote it?") == answer


def test_a_moved_sentence_keeps_the_unverified_mark_the_flag_setting_promises() -> None:
    """With ``citations.unsupported = "flag"`` a refuted citation stays, marked: moved
    below the flag, the sentence keeps it (and its ``[n]`` still resolves)."""
    answer = ("Entries live for 300 seconds [1]. The cache was written in Rust [1]^(unverified)."
              "\n\n- Flushes run at two o'clock [2]. The team works in Oslo ^(unsupported).")
    listed = [sentence_claim("The cache was written in Rust [1]^(unverified)."),
              sentence_claim("The team works in Oslo ^(unsupported).")]
    moved = unsupported_last(answer, listed, "How long?")
    above, _, below = moved.partition(FLAG_EN)
    assert "Rust" not in above and "two o'clock [2]" in above, moved
    assert "> The cache was written in Rust [1]^(unverified)." in below, moved
    assert "> The team works in Oslo." in below and "^(unsupported)" not in moved, moved
