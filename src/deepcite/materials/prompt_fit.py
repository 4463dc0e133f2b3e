"""Keeping the materials within the prompt budget, and the manifest that is never cut.

When the manifest and the summaries together estimate more than the budget, the
materials least related to the question (:func:`~deepcite.materials.lexical.overlap_score`;
ties: the later material first) are cut one by one to a one-line digest of
:data:`~deepcite.materials.limits.DIGEST_CHARS` characters until the rest fits. The
digest is made from the material's own text - no model call - so the same input always
gives the same prompt. The manifest (id, title, url, dates: one line per material) is
left whole whatever the budget: identifiers copied verbatim are what citations need.
"""

from __future__ import annotations

from deepcite.materials.lexical import overlap_score
from deepcite.materials.limits import DIGEST_CHARS
from deepcite.materials.prepared import MaterialItem
from deepcite.materials.tokens import estimate_tokens
from deepcite.security.terminal import one_line


def digest(text: str, limit: int = DIGEST_CHARS) -> str:
    """``text`` as one line of at most ``limit`` characters (``…`` marks a cut)."""
    line = one_line(text)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def manifest_line(item: MaterialItem) -> str:
    """``[M1] title | url | published ... | covers ... | summary kind`` on one line."""
    material = item.material
    fields = [f"[{item.material_id}] {one_line(material.title or '(untitled)')}",
              one_line(material.url)]
    if material.publish_time:
        fields.append(f"published {one_line(material.publish_time)}")
    if material.content_time:
        fields.append(f"covers {one_line(material.content_time)}")
    fields.append(f"{item.summary_kind}, ~{item.tokens:,} tokens")
    return " | ".join(fields)


def build_manifest(items: list[MaterialItem]) -> str:
    """One :func:`manifest_line` per item, in order."""
    return "\n".join(manifest_line(item) for item in items)


def prompt_tokens(items: list[MaterialItem], manifest: str) -> int:
    """Estimated tokens of the manifest plus every item's summary."""
    return estimate_tokens(manifest) + sum(item.summary_tokens for item in items)


def fit_budget(question: str, items: list[MaterialItem], budget_tokens: int
               ) -> tuple[list[MaterialItem], list[str]]:
    """``items`` with the least relevant cut to digests until they fit; and the cut ids.

    The manifest is counted with the digests already applied (a digest changes the
    kind shown in the manifest line, not its length much).
    """
    if prompt_tokens(items, build_manifest(items)) <= budget_tokens:
        return items, []
    order = sorted(
        range(len(items)),
        key=lambda i: (overlap_score(question, f"{items[i].material.title or ''} "
                                               f"{items[i].summary}"), -i),
    )
    items = list(items)
    downgraded: list[int] = []
    for index in order:
        if prompt_tokens(items, build_manifest(items)) <= budget_tokens:
            break
        item = items[index]
        if item.summary_kind == "digest":
            continue
        text = digest(item.summary or item.material.content)
        items[index] = item.model_copy(update={
            "summary": text, "summary_kind": "digest", "summary_tokens": estimate_tokens(text),
        })
        downgraded.append(index)
    return items, [items[i].material_id for i in sorted(downgraded)]


def share_out(lengths: list[int], budget: int) -> list[int]:
    """How many characters each of texts of ``lengths`` may keep within ``budget``.

    A fair share, filled like water: texts shorter than an equal share keep all of
    theirs and leave the rest to the longer ones, which are cut to the same size. So
    a short summary is never cut to make room, and no long one takes everything.
    """
    allotted = [0] * len(lengths)
    left = max(0, budget)
    pending = sorted(range(len(lengths)), key=lambda i: lengths[i])
    while pending:
        share = left // len(pending)
        index = pending[0]
        if lengths[index] <= share:
            allotted[index] = lengths[index]
            left -= lengths[index]
            pending.pop(0)
            continue
        for index in pending:
            allotted[index] = share
        break
    return allotted
