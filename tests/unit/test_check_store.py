"""A document check in the history: its claims stored with the run and read back, an
older store upgraded to keep them, its exports carrying the claims, and two checks
compared verdict by verdict."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from deepcite.config import Settings
from deepcite.export import ExportOptions, export_report
from deepcite.runs.compare import compare_runs
from deepcite.runs.compare_markdown import comparison_markdown
from deepcite.store import HistoryStore
from deepcite.store.engine import create_store_engine, sqlite_url
from deepcite.store.history import FILE_NAME
from deepcite.types import ClaimEvidence, ClaimVerdict, ResearchResult, Source

DOCUMENT = ("The cache keeps entries for 30 days. The team meets on Tuesdays. "
            "Backups run every night.")
SOURCE = Source(number=1, title="Cache decision", url="/notes/cache.md",
                canonical_url="/notes/cache.md", engine="local",
                snippet="We keep cache entries for 90 days.")


def _claim(number: int, text: str, verdict: str, note: str = "",
           cited: bool = True) -> ClaimVerdict:
    start = DOCUMENT.index(text)
    return ClaimVerdict.model_validate({
        "number": number, "text": text, "start": start, "end": start + len(text),
        "verdict": verdict, "citations": [1] if cited else [], "note": note,
        "evidence": [ClaimEvidence(number=1, quote="We keep cache entries for 90 days.",
                                   start=0, end=34)] if cited else []})


def _check(*claims: ClaimVerdict) -> ResearchResult:
    return ResearchResult(question="Check: draft.md", answer="The cache ... [1]",
                          strategy="check", handler="", mode="check", sources=[SOURCE],
                          claims=list(claims))


FIRST = _check(
    _claim(1, "The cache keeps entries for 30 days.", "contradicted",
           "draft: 30 days; source [1]: 90 days"),
    _claim(2, "The team meets on Tuesdays.", "not_found", cited=False))
SECOND = _check(
    _claim(1, "The cache keeps entries for 30 days.", "supported"),
    _claim(2, "Backups run every night.", "not_found", cited=False))


def _store_check(store: HistoryStore, settings: Settings, result: ResearchResult) -> str:
    run_id = store.begin(result.question, mode="check", settings=settings)
    store.finish(run_id, result)
    return run_id


def test_claims_are_stored_with_the_run_and_read_back(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with HistoryStore.open(settings) as store:
        run_id = _store_check(store, settings, FIRST)
        stored = store.get(run_id)
        listed = store.list(mode="check")
    assert stored.mode == "check" and stored.result.mode == "check"
    assert stored.result.claims == FIRST.claims
    assert [run.id for run in listed] == [run_id]


def test_a_store_from_before_claims_is_upgraded_and_its_runs_have_none(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with HistoryStore.open(settings) as store:
        old_id = store.begin("Which cache?", mode="quick", settings=settings)
        store.finish(old_id, ResearchResult(question="Which cache?", answer="Redis [1].",
                                            strategy="s", handler="h", sources=[SOURCE]))
    engine = create_store_engine(sqlite_url(tmp_path / FILE_NAME))
    with engine.begin() as connection:  # back to revision 0009, as an older deepcite left it
        connection.execute(sa.text("ALTER TABLE runs DROP COLUMN claims"))
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '0009'"))
    engine.dispose()
    with HistoryStore.open(settings) as store:
        assert store.get(old_id).result.claims == []
        new_id = _store_check(store, settings, FIRST)
        assert store.get(new_id).result.claims == FIRST.claims


def test_exports_of_a_check_carry_its_claims() -> None:
    options = ExportOptions()
    data = export_report(FIRST, "json", options).data.decode("utf-8")
    assert '"claims"' in data and "draft: 30 days; source [1]: 90 days" in data
    assert '"verdict": "contradicted"' in data
    markdown = export_report(FIRST.model_copy(update={"cancelled": True}), "markdown",
                             options).data.decode("utf-8")
    assert "claims after the last one marked were not checked" in markdown
    assert "Cache decision" in markdown  # the Sources block
    other = export_report(ResearchResult(question="q", answer="a", strategy="s", handler="h"),
                          "json", options).data.decode("utf-8")
    assert '"claims"' not in other  # an answer's JSON is as it was


def test_two_checks_are_compared_verdict_by_verdict(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with HistoryStore.open(settings) as store:
        a = store.get(_store_check(store, settings, FIRST))
        b = store.get(_store_check(store, settings, SECOND))
    comparison = compare_runs(a, b)
    changes = {change.text: change for change in comparison.verdicts_changed}
    changed = changes["The cache keeps entries for 30 days."]
    assert (changed.a_verdict, changed.b_verdict) == ("contradicted", "supported")
    assert changes["The team meets on Tuesdays."].b_verdict is None  # removed
    assert changes["Backups run every night."].a_verdict is None  # added
    assert comparison.verdicts_unchanged == 0
    markdown = comparison_markdown(comparison)
    assert "## Verdicts: 0 unchanged, 1 changed, 1 new claims, 1 removed" in markdown
    assert "contradicted → supported" in markdown
    same = compare_runs(a, a)
    assert same.verdicts_changed == [] and same.verdicts_unchanged == 2
