"""A claim the answer no longer makes, checked against what its document says now.

An answer built from the sources' own sentences (the bundled model's) cannot repeat a
sentence its document lost: the claim simply goes. The watch must still say that its
support was lost (or weakened) when the document it cited was edited, and only then -
a claim whose document is unchanged, or gone, is merely no longer made.
"""

from __future__ import annotations

from datetime import UTC, datetime

from deepcite.store import StoredRun
from deepcite.types import CitationCheck, ResearchResult, Source
from deepcite.watches.changes import watch_change

REDIS = "We decided to keep the cache in Redis with a one hour expiry."
TEAM = "The team meets on Tuesdays to plan the sprint."


def _source(number: int, name: str, text: str) -> Source:
    url = f"file:///notes/{name}"
    return Source(number=number, title=name, url=url, canonical_url=url, snippet=text,
                  engine="collection", full_text=text)


def _run(run_id: str, sources: list[Source], claims: list[tuple[str, int]]) -> StoredRun:
    checks = [CitationCheck(number=number, sentence=f"{sentence} [{number}]",
                            outcome="supported", method="exact")
              for sentence, number in claims]
    answer = " ".join(f"{sentence} [{number}]" for sentence, number in claims)
    return StoredRun(id=run_id, created_at=datetime(2026, 3, 1, tzinfo=UTC),
                     finished_at=None, status="completed", mode="quick", parent_id=None,
                     settings={}, events=[],
                     result=ResearchResult(question="q", answer=answer, strategy="s",
                                           handler="h", sources=sources,
                                           citation_checks=checks))


def test_a_claim_whose_document_was_edited_away_lost_its_support() -> None:
    before = _run("a", [_source(1, "cache.md", REDIS), _source(2, "team.md", TEAM)],
                  [(REDIS, 1), (TEAM, 2)])
    after = _run("b", [_source(1, "team.md", TEAM),
                       _source(2, "cache.md", "The cache question is still open.")],
                 [(TEAM, 1), ("The cache question is still open.", 2)])
    change = watch_change(before, after)
    assert [(c.sentence, c.a_numbers, c.b_support, c.b_numbers)
            for c in change.lost_support] == [(f"{REDIS} [1]", [1], "unsupported", [2])]
    assert change.dropped_claims == [] and change.weakened_claims == []
    assert [c.sentence for c in change.new_claims] == ["The cache question is still open. [2]"]
    assert change.summary().startswith("1 new claim, 1 claim lost its support since ")


def test_a_claim_not_repeated_from_an_unchanged_or_gone_document_is_no_longer_made() -> None:
    before = _run("a", [_source(1, "cache.md", REDIS), _source(2, "team.md", TEAM)],
                  [(REDIS, 1), (TEAM, 2)])
    unchanged = _run("b", [_source(1, "cache.md", REDIS), _source(2, "team.md", TEAM)],
                     [(TEAM, 2)])
    gone = _run("c", [_source(1, "team.md", TEAM)], [(TEAM, 1)])
    for after in (unchanged, gone):
        change = watch_change(before, after)
        assert [c.sentence for c in change.dropped_claims] == [f"{REDIS} [1]"]
        assert change.lost_support == [] and change.weakened_claims == []
    # named as a web download names it, never by the server's path (no collection in
    # these sources' metadata: "local")
    assert [s.url for s in watch_change(before, gone).vanished_sources] == [
        "collection:local/cache.md"]
