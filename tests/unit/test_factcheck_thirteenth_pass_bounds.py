"""A lower or upper bound the source states otherwise (issue 48's thirteenth pass): a
sentence naming the claim's very number without a bound ("Ruby 2.7 support was
removed") no longer decides a claim's "Ruby 2.7 or later" when another sentence gives
the bound of the same thing ("Ruby 3.1 or newer")."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.passages import Sentence
from deepcite.factcheck.restated_bounds import restated_bound
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

_SOURCE = ("## Installing\n\n- Ruby 3.1 or newer. Ruby 2.7 support was removed in "
           "release 4.0.\n- Runs on any Unix-like system.")


def _sentence(text: str) -> Sentence:
    return Sentence(0, 0, 0, len(text), text, frozenset())


def _judge(claim: str, source: str = _SOURCE) -> tuple[str, tuple[str, ...]]:
    found = judge(claim, [passage("Guide", source)])
    return found.verdict, tuple(c.source for c in found.conflicts)


def test_a_lower_bound_stated_otherwise_contradicts_the_claim() -> None:
    verdict, sources = _judge("It runs on Ruby 2.7 or later.")
    assert verdict == "contradicted"
    assert sources == ("Ruby 3.1 or newer",)


def test_the_same_lower_bound_is_no_contradiction() -> None:
    verdict, _ = _judge("It runs on Ruby 3.1 or newer.")
    assert verdict != "contradicted"


def test_only_a_bound_of_the_same_side_and_the_same_thing_counts() -> None:
    claim = extract_values("Ruby 2.7 or later")[0]
    later = [_sentence("Ruby 3.1 or newer.")]
    found = restated_bound(claim, later)
    assert found is not None and found[1].text == "3.1 or newer"
    assert restated_bound(claim, [_sentence("Node 3.1 or newer.")]) is None
    assert restated_bound(claim, [_sentence("Ruby 3.1 or older.")]) is None
    plain = extract_values("Ruby 2.7")[0]
    assert restated_bound(plain, later) is None
