"""A material as search results, so it is ranked, numbered and cited like any source.

The content is cut into passages of at most ``max_chars`` characters at paragraph and
sentence boundaries (:func:`~deepcite.materials.chunking.passage_spans`); every
character other than the whitespace between passages is in exactly one passage, and
``content[start:end]`` of a passage is its snippet, so a citation can point at the
exact text. Passages never cross a page of a paged file, and carry that page's number.
The url is the one the user gave - it is shown and cited, never fetched.
"""

from __future__ import annotations

from deepcite.materials.chunking import passage_spans
from deepcite.materials.limits import PASSAGE_CHARS
from deepcite.materials.model import UserMaterial, is_local_path, url_label
from deepcite.types import SearchResult

ENGINE = "user_material"


def _regions(material: UserMaterial) -> list[tuple[int, int, int | None]]:
    """``(start, end, page)`` ranges covering the content: the pages, and what lies
    between or around them (page ``None``)."""
    regions: list[tuple[int, int, int | None]] = []
    cursor = 0
    for span in sorted(material.pages, key=lambda s: (s.start, s.end)):
        start = max(span.start, cursor)
        if start > cursor:
            regions.append((cursor, start, None))
        if span.end > start:
            regions.append((start, span.end, span.page))
            cursor = span.end
    if cursor < len(material.content):
        regions.append((cursor, len(material.content), None))
    return regions


def material_title(material: UserMaterial) -> str:
    """What a material is called in the sources: its title, a file's name, or its url."""
    if material.title:
        return material.title
    return url_label(material.url) if is_local_path(material.url) else material.url


def material_passages(material: UserMaterial, *, max_chars: int = PASSAGE_CHARS
                      ) -> list[SearchResult]:
    """The passages of ``material`` as :class:`~deepcite.types.SearchResult` records.

    ``metadata`` holds ``material_id``, ``content_time``, ``page`` (``None`` when
    unknown) and the ``start``/``end`` offsets of the passage in the content.
    """
    title = material_title(material)
    results: list[SearchResult] = []
    for region_start, region_end, page in _regions(material):
        for start, end in passage_spans(material.content, region_start, region_end, max_chars):
            results.append(SearchResult(
                title=title,
                url=material.url,
                snippet=material.content[start:end],
                engine=ENGINE,
                published=material.publish_time,
                metadata={
                    "material_id": material.material_id,
                    "content_time": material.content_time,
                    "page": page,
                    "start": start,
                    "end": end,
                },
            ))
    return results
