"""A document check as a run request: the document it carries (capped, with a clear
error), what mode it needs, the label it gets in the history, the previous check it
may name, and its round trip through the store to ``deepcite rerun``."""

from __future__ import annotations

from pathlib import Path

import pytest

from deepcite.config import Settings
from deepcite.errors import InputError, RequestError
from deepcite.runs import RunRequest
from deepcite.runs.admission import Door, admit
from deepcite.runs.request import MAX_DOCUMENT_CHARS
from deepcite.runs.rerun import rerun_plan
from deepcite.store import HistoryStore
from deepcite.types import ResearchResult

DRAFT = "# Cache notes\n\nThe cache keeps entries for 30 days.\fThe team meets on Tuesdays.\n"


def _check(**fields: object) -> RunRequest:
    return RunRequest.parse(mode="check", document={"text": DRAFT, **fields})


def test_a_check_is_labelled_by_its_title_file_name_or_first_line() -> None:
    assert _check(title="  Cache\n draft ").question == "Check: Cache draft"
    assert _check(filename="C:\\drafts\\notes.md").question == "Check: notes.md"
    assert _check().question == "Check: Cache notes"
    asked = RunRequest.parse(question="Is the draft right?", mode="check",
                             document={"text": DRAFT})
    assert asked.question == "Is the draft right?"


def test_the_document_keeps_its_offsets_and_its_file_name_only() -> None:
    request = _check(filename="../../etc/draft.md")
    assert request.document is not None
    assert request.document.filename == "draft.md"
    # the form feed a PDF leaves between pages becomes a space: same length, same offsets
    assert len(request.document.text) == len(DRAFT)
    assert request.document.text == DRAFT.replace("\f", " ")


def test_a_too_long_or_empty_document_is_refused_with_what_to_do() -> None:
    with pytest.raises(InputError, match=r"at most 100,000 are checked at once - split it"):
        RunRequest.parse(mode="check", document={"text": "x " * MAX_DOCUMENT_CHARS})
    with pytest.raises(InputError, match="The document is empty"):
        RunRequest.parse(mode="check", document={"text": " \n\t "})


def test_check_mode_and_a_document_go_together() -> None:
    with pytest.raises(InputError, match=r"a check \(mode check\) needs the document"):
        RunRequest.parse(mode="check")
    with pytest.raises(InputError, match="a document is checked with mode check"):
        RunRequest.parse(question="Which cache?", document={"text": DRAFT})
    with pytest.raises(InputError, match="review_outline is for detailed reports"):
        RunRequest.parse(mode="check", document={"text": DRAFT}, review_outline=True)


def _stored(store: HistoryStore, settings: Settings, request: RunRequest,
            result: ResearchResult) -> str:
    run_id = store.begin(request.question, mode=request.mode, settings=settings,
                         request=request.stored(), parent_id=request.parent_id)
    store.finish(run_id, result)
    return run_id


def test_a_stored_check_is_run_again_on_the_same_document(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    request = _check(title="Cache draft").model_copy(update={"collections": ["notes"]})
    with HistoryStore.open(settings) as store:
        run_id = _stored(store, settings, request, ResearchResult(
            question=request.question, answer="annotated", strategy="check", handler="",
            mode="check"))
        plan = rerun_plan(store.get(run_id), settings)
    assert plan.request.mode == "check"
    assert plan.request.document == request.document
    assert plan.request.collections == ["notes"]


def test_previous_must_name_an_earlier_check(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    with HistoryStore.open(settings) as store:
        answer = RunRequest.parse(question="Which cache?")
        answer_id = _stored(store, settings, answer, ResearchResult(
            question="Which cache?", answer="Redis [1].", strategy="s", handler="h"))
        with pytest.raises(RequestError) as refused:
            admit(store, _check().model_copy(update={"parent_id": answer_id[:8]}), settings,
                  Door.LOCAL)
        assert refused.value.field == "parent_id"
        assert "is a quick run, not a document check" in str(refused.value)
        check_id = _stored(store, settings, _check(), ResearchResult(
            question="Check: Cache notes", answer="annotated", strategy="check",
            handler="", mode="check"))
        admitted = admit(store, _check().model_copy(update={"parent_id": check_id[:8]}),
                         settings, Door.LOCAL)
    assert admitted.request.parent_id == check_id  # named by full id from then on
    assert admitted.parent_result is not None and admitted.parent_result.mode == "check"
