"""deepcite.evaluation.metrics: the deterministic scores (no judge).

Known values follow the SQuAD evaluation script (normalisation, exact match, token F1)
and numpy's default linear percentile. Sources are real :class:`deepcite.types.Source`
objects shaped like the ones collections and the web produce.
"""

from __future__ import annotations

from typing import Any

import pytest

from deepcite.citations.cited_answer import NO_SOURCES_ANSWER
from deepcite.evaluation.metrics import (
    contains_gold,
    exact_match,
    holds_answer,
    is_gold,
    is_refusal,
    normalise,
    percentile,
    prediction,
    recall_at,
    source_names,
    token_f1,
    wrong_type_lead,
)
from deepcite.research.citation_step import NOT_ANSWERED_INTRO
from deepcite.types import Source


def make_source(number: int, url: str, *, title: str = "A title", canonical: str | None = None,
                **metadata: Any) -> Source:
    """A registered source; ``canonical`` defaults to ``url``."""
    return Source(number=number, title=title, url=url, canonical_url=canonical or url,
                  snippet="Some text.", engine="test", metadata=metadata)


# --- normalise --------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("The Denver Broncos", "denver broncos"),
    ("  Denver\n\tBroncos!  ", "denver broncos"),
    ("a cat and an apple", "cat and apple"),
    ("Theatre, anthem, Anna", "theatre anthem anna"),  # articles only as whole words
    ("\u201cDenver\u201d \u2018Broncos\u2019", "denver broncos"),  # curly quotes
    ("Denver \u2014 Broncos\u2026", "denver broncos"),  # dash and ellipsis
    ("\uff24\uff45\uff4e\uff56\uff45\uff52", "denver"),  # full-width letters (NFKC)
    ("", ""),
    ("The.", ""),
])
def test_normalise(text: str, expected: str) -> None:
    assert normalise(text) == expected


def test_normalise_deletes_punctuation_like_squad() -> None:
    assert normalise("U.S.") == "us"
    assert normalise("1,000") == "1000"
    assert exact_match("US", ["U.S."]) == 1.0
    assert exact_match("1000", ["1,000"]) == 1.0


# --- exact match and token F1 -------------------------------------------------------


def test_exact_match_after_normalisation() -> None:
    assert exact_match("the Denver Broncos", ["Denver Broncos"]) == 1.0
    assert exact_match("DENVER BRONCOS.", ["Denver Broncos"]) == 1.0
    assert exact_match("Broncos", ["Denver Broncos"]) == 0.0
    assert exact_match("Denver Broncos", []) == 0.0


def test_exact_match_any_gold() -> None:
    assert exact_match("Broncos", ["Denver Broncos", "Broncos"]) == 1.0
    assert exact_match("Carolina", ["Denver Broncos", "Broncos"]) == 0.0


def test_token_f1_known_values() -> None:
    assert token_f1("the Denver Broncos", ["Denver Broncos"]) == 1.0
    assert token_f1("Broncos", ["Denver Broncos"]) == pytest.approx(2 / 3)
    # 2 of 3 predicted tokens in the gold, 2 of 2 gold tokens: P 2/3, R 1 -> 0.8
    assert token_f1("Denver Broncos won", ["Denver Broncos"]) == pytest.approx(0.8)
    assert token_f1("Carolina Panthers", ["Denver Broncos"]) == 0.0


def test_token_f1_counts_repeated_tokens_once_each() -> None:
    # common = min(count) per token: "new" twice in the prediction, once in the gold
    # -> same 2 of 3 predicted, 2 of 2 gold -> 0.8
    assert token_f1("new new york", ["New York"]) == pytest.approx(0.8)


def test_token_f1_best_over_golds() -> None:
    golds = ["Carolina Panthers", "Denver Broncos", "Broncos"]
    assert token_f1("Broncos", golds) == 1.0
    assert token_f1("Denver", golds) == pytest.approx(2 / 3)


def test_empty_prediction_scores_zero() -> None:
    assert token_f1("", ["Denver Broncos"]) == 0.0
    assert exact_match("", ["Denver Broncos"]) == 0.0
    assert token_f1("the", ["Denver Broncos"]) == 0.0  # normalises to nothing
    assert token_f1("Denver", []) == 0.0


# --- prediction --------------------------------------------------------------------


def test_prediction_takes_the_leading_bold_short_answer() -> None:
    answer = "**Denver Broncos** [1]\n\nThe Denver Broncos won Super Bowl 50 [1]."
    assert prediction(answer) == "Denver Broncos"
    assert prediction("  __1887__ [2]. It was founded then.") == "1887"


def test_prediction_bold_later_in_the_text_is_not_a_short_answer() -> None:
    answer = "The winner was **Denver** [1]. They beat Carolina."
    assert prediction(answer) == "The winner was **Denver**."


def test_prediction_first_sentence_without_markers() -> None:
    answer = "The Broncos won Super Bowl 50 [1][2]. They beat the Panthers [3, 4]."
    assert normalise(prediction(answer)) == "broncos won super bowl 50"
    assert "[" not in prediction(answer)
    assert prediction("It was 1887 [2-3]! Next sentence.") == "It was 1887!"
    assert prediction("One sentence only [1]") == "One sentence only"
    assert prediction("") == ""
    assert prediction("   ") == ""


def test_prediction_does_not_split_inside_numbers_or_lowercase_continuations() -> None:
    assert prediction("Pi is 3.14 roughly. Next.") == "Pi is 3.14 roughly."
    assert prediction("It is approx. three metres. Next.") == "It is approx. three metres."


def test_prediction_marker_after_the_full_stop() -> None:
    assert prediction("Denver won. [1] The game was in 2016.") == "Denver won."


# --- contains_gold and holds_answer -------------------------------------------------------


def test_contains_gold_whole_words_only() -> None:
    assert contains_gold("It was founded in 1887 by him.", ["1887"])
    assert not contains_gold("It was founded in 1887 by him.", ["18"])
    assert not contains_gold("Broncos", ["Denver Broncos"])
    assert contains_gold("The DENVER broncos won.", ["Denver Broncos"])
    assert contains_gold("It was 1887.", ["1900", "1887"])
    assert not contains_gold("anything", ["the", ""])  # golds that normalise to nothing
    assert not contains_gold("anything", [])


QUESTION = "In what year was the Eiffel Tower completed in Paris?"


def test_holds_answer_needs_gold_and_question_words() -> None:
    assert holds_answer("The Eiffel Tower was completed in 1889.", QUESTION, ["1889"])
    # the gold alone, nothing of the question: chance
    assert not holds_answer("A bakery opened in 1889 in Lyon.", QUESTION, ["1889"])
    # the question's words without the gold
    assert not holds_answer("The Eiffel Tower in Paris was completed.", QUESTION, ["1889"])


def test_holds_answer_share_threshold() -> None:
    # question content words: year, eiffel, tower, completed, paris (5); 30% -> 1.5 words
    one = "Tower: 1889."
    two = "The tower was completed in 1889."
    assert not holds_answer(one, QUESTION, ["1889"])
    assert holds_answer(two, QUESTION, ["1889"])
    assert holds_answer(one, QUESTION, ["1889"], min_share=0.2)


def test_holds_answer_ignores_question_words_that_are_the_gold() -> None:
    # every content word of the question is in the gold: the gold alone answers it
    assert holds_answer("Denver Broncos.", "Denver Broncos?", ["Denver Broncos"])


# --- is_refusal --------------------------------------------------------------------


@pytest.mark.parametrize("answer", [
    NO_SOURCES_ANSWER,
    NOT_ANSWERED_INTRO + "\n\n> Some passage [1]",
    "I don't know.",
    "I do not know the answer.",
    "The sources do not mention when the tower was built.",
    "The source does not say.",
    "The sources don't answer this question.",
    "None of the sources give the year.",
    "Nothing was found about this.",
    "No relevant information was found.",
    "I could not find the answer in the sources.",
    "I cannot determine the year from these sources.",
    "The answer is not found in the provided passages.",
    "  **No sources were found.**",
])
def test_is_refusal_for_refusals(answer: str) -> None:
    assert is_refusal(answer)


@pytest.mark.parametrize("answer", [
    "The Eiffel Tower was completed in 1889 [1].",
    "**1889** [1]\n\nThe sources do not mention the month.",
    "It was completed in 1889; the original plans were not found until 1920 [2].",
    "Denver won. Nothing else was found.",
    "Knowledge of the year: 1889.",
    "",
])
def test_is_refusal_not_for_answers(answer: str) -> None:
    assert not is_refusal(answer)


@pytest.mark.parametrize("answer", [
    pytest.param("I don\u2019t know.", id="curly-apostrophe"),
    pytest.param("The sources don\u2019t mention it.", id="curly-apostrophe-sources"),
    pytest.param("The provided sources do not mention the year.", id="provided-sources"),
])
def test_is_refusal_common_model_variants(answer: str) -> None:
    assert is_refusal(answer)


# --- gold passages: source_names, is_gold, recall_at --------------------------------------


def test_source_names_and_is_gold_for_a_collection_chunk() -> None:
    source = make_source(1, "file:///data/squad/Super_Bowl_50.txt", title="Super Bowl 50",
                         path="/data/squad/Super_Bowl_50.txt", document_title="Super Bowl L")
    names = source_names(source)
    assert {"Super_Bowl_50.txt", "Super Bowl 50", "Super Bowl L",
            "file:///data/squad/Super_Bowl_50.txt"} <= names
    for gold in ("Super_Bowl_50.txt", "Super Bowl 50", "Super Bowl L",
                 "file:///data/squad/Super_Bowl_50.txt"):
        assert is_gold(source, gold)
    assert not is_gold(source, "Super_Bowl_50")
    assert not is_gold(source, "Bowl_50.txt")
    assert not is_gold(source, "")


def test_is_gold_by_file_name_of_the_path_even_when_the_url_is_encoded() -> None:
    source = make_source(1, "file:///data/My%20Doc.pdf#page=3", title="Report",
                         path="/data/My Doc.pdf")
    assert is_gold(source, "My Doc.pdf")
    assert is_gold(source, "My%20Doc.pdf")  # url tail, fragment dropped


def test_is_gold_by_url_tail_and_title_for_web_pages() -> None:
    source = make_source(2, "https://en.wikipedia.org/wiki/Eiffel_Tower/#History",
                         title="Eiffel Tower - Wikipedia",
                         canonical="https://en.wikipedia.org/wiki/Eiffel_Tower")
    assert is_gold(source, "Eiffel_Tower")
    assert is_gold(source, "Eiffel Tower - Wikipedia")
    assert is_gold(source, "https://en.wikipedia.org/wiki/Eiffel_Tower")
    assert not is_gold(source, "Eiffel Tower")
    assert not is_gold(source, "wiki")


def test_source_names_skip_empty_and_non_string_metadata() -> None:
    source = make_source(1, "https://x.example/", title="", path=None, document_title=3)
    names = source_names(source)
    assert "" not in names
    assert names == {"https://x.example/", "x.example"}


def _doc(number: int, name: str, chunk: int | None = None) -> Source:
    url = f"https://docs.example/{name}" + (f"#chunk-{chunk}" if chunk is not None else "")
    return make_source(number, url, title=name)


def test_recall_at_counts_distinct_documents() -> None:
    # five chunks of doc a, then b, c, d, e, gold: gold is the 6th source, 6th document
    sources = [*(_doc(i, "a", i) for i in range(1, 6)), _doc(6, "b"), _doc(7, "c"),
               _doc(8, "d"), _doc(9, "e"), _doc(10, "gold")]
    assert not recall_at(sources, "gold", 5)
    assert recall_at(sources, "gold", 6)
    # the same with a's chunks collapsed: gold is still the 6th document
    assert recall_at([*sources[:1], *sources[5:]], "gold", 6)
    assert not recall_at([*sources[:1], *sources[5:]], "gold", 5)


def test_recall_at_chunks_of_one_document_count_once() -> None:
    sources = [_doc(1, "a", 1), _doc(2, "a", 2), _doc(3, "a", 3), _doc(4, "gold", 1)]
    assert recall_at(sources, "gold", 2)
    assert not recall_at(sources, "gold", 1)
    assert recall_at(sources, "a", 1)


def test_recall_at_a_later_chunk_of_an_early_document_counts() -> None:
    sources = [_doc(1, "a", 1), _doc(2, "gold", 1), _doc(3, "a", 2), _doc(4, "gold", 2)]
    assert recall_at(sources, "gold", 2)
    assert not recall_at(sources, "gold", 1)


def test_recall_at_orders_by_source_number_and_handles_nothing() -> None:
    shuffled = [_doc(3, "gold"), _doc(1, "a"), _doc(2, "b")]
    assert not recall_at(shuffled, "gold", 2)
    assert recall_at(shuffled, "gold", 3)
    assert not recall_at([], "gold", 5)
    assert not recall_at(shuffled, "missing", 5)


def test_recall_at_fragment_of_canonical_url_is_ignored() -> None:
    # PDF pages keep #page=N in their canonical url; pages of one file are one document
    pages = [make_source(n, f"file:///d/a.pdf#page={n}", path="/d/a.pdf") for n in (1, 2, 3)]
    gold = make_source(4, "file:///d/gold.pdf#page=1", path="/d/gold.pdf")
    assert recall_at([*pages, gold], "gold.pdf", 2)
    assert not recall_at([*pages, gold], "gold.pdf", 1)


# --- percentile ----------------------------------------------------------------------


def test_percentile_linear_interpolation() -> None:
    values = [float(v) for v in range(10, 0, -1)]  # unsorted input
    assert percentile(values, 50) == pytest.approx(5.5)
    assert percentile(values, 95) == pytest.approx(9.55)
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 10.0
    assert percentile([1.0, 2.0, 3.0, 6.0], 95) == pytest.approx(5.55)
    assert percentile(iter([4.0]), 95) == 4.0


def test_percentile_of_nothing_is_zero() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([], 95) == 0.0


@pytest.mark.parametrize(("answer", "question", "expected"), [
    ("**1820** [1]\n\nThe town grew to 4,000 people by 1820 [1].",
     "How many people lived in the town?", True),
    ("**4,000 people** [1]\n\nThe town grew to 4,000 people by 1820 [1].",
     "How many people lived in the town?", False),
    ("**the Western Cape** [1]\n\nThe farms are in the Western Cape [1].",
     "Where are the farms?", False),
    ("The farms are in the Western Cape [1].", "Where are the farms?", None),
    ("**red** [1]\n\nThe flag is red [1].", "What colour is the flag?", None),
])
def test_a_lead_of_the_wrong_kind_is_counted(answer: str, question: str,
                                             expected: bool | None) -> None:
    assert wrong_type_lead(answer, question) is expected
