"""One research result scored against its dataset item: a :class:`QuestionResult`.

Everything here is computed from what a user would see: the answer text and the
run's numbered sources. Fabricated citations are counted from the answer's own
markers against the sources, not read from the pipeline's counters, so a bug that let
a dangling ``[n]`` through would show here instead of being trusted away.
"""

from __future__ import annotations

from deepcite.citations.markers import cited_numbers
from deepcite.evaluation.bench_schema import RECALL_K, CitedSource, EvalItem, QuestionResult
from deepcite.evaluation.judge import Verdict
from deepcite.evaluation.metrics import (
    contains_gold,
    exact_match,
    is_gold,
    is_refusal,
    prediction,
    recall_at,
    token_f1,
    wrong_type_lead,
)
from deepcite.types import ResearchResult

#: Warning codes that mean the answer is quoted passages, not the model's answer.
FALLBACK_CODES = frozenset({"synthesis_fallback", "uncited_answer", "run_failed"})


def score(item: EvalItem, index: int, result: ResearchResult, *, seconds: float,
          verdict: Verdict | None = None, gold_in_collection: bool | None = None
          ) -> QuestionResult:
    """The per-question record of ``result``, the run's answer to ``item``."""
    answer = result.answer
    by_number = {s.number: s for s in result.sources}
    cited = cited_numbers(answer)
    resolved = [n for n in cited if n in by_number]
    counts = result.verification
    supported = counts.supported if counts else 0
    partial = counts.partial if counts else 0
    unsupported = counts.unsupported if counts else 0
    removed = counts.markers_removed if counts else 0
    valid = bool(resolved) and (counts is None or supported + partial > 0)
    gold = item.gold_passage
    metrics = result.metrics
    codes: list[str] = [notice.code for notice in result.warnings]
    return QuestionResult(
        id=item.id, index=index, question=item.question, gold=item.answers,
        gold_passage=gold, answer=answer,
        grade=verdict.grade if verdict else None,
        judge_error=verdict.error if verdict else None,
        em=exact_match(prediction(answer), item.answers),
        f1=token_f1(prediction(answer), item.answers),
        contains_gold=contains_gold(answer, item.answers),
        citation_hit=(any(is_gold(by_number[n], gold) for n in resolved)
                      if gold else None),
        recall_at_5=recall_at(result.sources, gold, RECALL_K) if gold else None,
        cited=[CitedSource(number=n, title=by_number[n].title, url=by_number[n].url)
               for n in resolved],
        citations=counts.markers_checked if counts else len(cited),
        supported=supported, partial=partial, unsupported=unsupported, removed=removed,
        fabricated_citations=len(cited) - len(resolved),
        unsupported_citations=unsupported,
        valid_citation=valid,
        refused=result.error is None and (not result.sources or is_refusal(answer)),
        wrong_type_lead=wrong_type_lead(answer, item.question),
        fallback=bool(FALLBACK_CODES & set(codes)),
        gold_in_collection=gold_in_collection,
        model_calls=metrics.model_calls, prompt_tokens=metrics.prompt_tokens,
        completion_tokens=metrics.completion_tokens,
        tokens=metrics.prompt_tokens + metrics.completion_tokens,
        cached_tokens=metrics.cached_tokens, searches=metrics.searches, seconds=round(seconds, 3),
        warning_codes=codes, error=result.error,
    )


def failed(item: EvalItem, index: int, error: str, *, seconds: float) -> QuestionResult:
    """The record of a question whose run raised instead of returning a result."""
    return QuestionResult(id=item.id, index=index, question=item.question, gold=item.answers,
                          gold_passage=item.gold_passage, answer="", error=error,
                          seconds=round(seconds, 3))
