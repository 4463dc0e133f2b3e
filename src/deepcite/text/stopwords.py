"""English stop words: one set, and the named parts of it that some jobs use.

:data:`STOPWORDS` is what "a word that carries meaning" excludes everywhere a claim, a
question or a passage is compared (citations, key terms, outlines). A few jobs drop
fewer words on purpose, and each such subset is named here, beside the one set it is
taken from (a word outside :data:`STOPWORDS` is refused at import):

- :data:`QUERY_STOPWORDS`: a collection's full-text query keeps "use", "used", "one",
  "two", "may", "must" ... (a question about "use" or "may" must still find them);
- :data:`OVERLAP_STOPWORDS`: the ordering of a run's materials drops only the commonest
  function words;
- :data:`SEARCH_STOPWORDS`: an arXiv query drops function words and the operator-like
  ``andnot`` and ``vs``, which the arXiv API would misread;
- :data:`CJK_PARTICLES`: one-character Chinese, Japanese and Korean function words,
  which a CJK search query drops;
- :data:`TITLE_STOPWORDS`: a bibliography key's title word skips articles and
  prepositions ("via" too), so "The Art of X" gives ``art``.
"""

from __future__ import annotations

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers him his how i if in into is it its
    itself just me more most my no nor not now of off on once only or other our ours out over
    own same she should so some such than that the their theirs them then there these they
    this those through to too under until up very was we were what when where which while who
    whom why will with would you your yours use used using one two may might must shall
    """.split()  # noqa: SIM905 - a word block reads better than a 150-item literal
)
"""Words that say nothing of what a text is about."""


def _part(words: str) -> frozenset[str]:
    """The named subset ``words`` of :data:`STOPWORDS` (any other word is a mistake)."""
    part = frozenset(words.split())
    if not part <= STOPWORDS:
        raise ValueError(f"not stop words: {sorted(part - STOPWORDS)}")
    return part


QUERY_STOPWORDS = STOPWORDS - _part(
    "against also because may might must now one ours shall theirs two use used using yours")
"""Stop words of a collection's full-text query: all but a few that are also content."""

OVERLAP_STOPWORDS = _part(
    """a about an and are as at be by can did do does for from has have how in into is it of
    on or than that the then this to was were what when where which who why will with""")
"""The commonest function words, dropped when materials are ordered by overlap."""

SEARCH_STOPWORDS = _part(
    """a an and are as at be by can do does for from how in is it its not of on or the
    their there these this to was were what when where which who why with""") | {
    "andnot", "vs"}
"""Words left out of an arXiv query (``andnot`` and ``vs`` read as operators there)."""

CJK_PARTICLES = frozenset("的了是在和与或也吗呢吧啊のはがをにでともかへや이가은는을를의에")
"""One-character CJK function words: alone in a question they match nearly everything."""

TITLE_STOPWORDS = _part(
    "a an and are as at by for from how in is its of on the to what with") | {"via"}
"""Words a bibliography key's title word skips."""
