"""The limits of user materials, in one place.

The figures follow openJiuwen DeepSearch's user-materials design, which sized them for
long reports: a material short enough is passed through whole, a long one is
summarised in one call, a very long one in overlapping chunks plus one merging call,
and the prompt that carries them all stays within a fixed budget. Token figures are
*estimates* (:func:`deepcite.materials.tokens.estimate_tokens`), not tokenizer counts.

They are module constants rather than settings; :func:`~deepcite.materials.prepare_materials`
takes keyword overrides for the ones a caller may want to change per run.
"""

from __future__ import annotations

#: Materials kept after deduplication, in input order; the rest are dropped as ``over_limit``.
MAX_MATERIALS = 50
#: Total characters of content accepted in one request (all materials together).
MAX_TOTAL_CHARS = 5_000_000
#: A material this short (estimated tokens) is used whole: no model call.
DIRECT_TOKENS = 4_000
#: The most input one summary call gets; longer materials are summarised in chunks.
SINGLE_CALL_TOKENS = 96_000
#: Chunk size and overlap of the map-reduce summary of a very long material.
CHUNK_TOKENS = 64_000
CHUNK_OVERLAP_TOKENS = 512
#: Reply cap of every summary call (and the size of the head kept when one fails).
SUMMARY_MAX_TOKENS = 4_000
#: Estimated tokens the materials may take in a prompt (manifest plus summaries).
BUDGET_TOKENS = 200_000
#: Materials summarised at the same time.
MAX_CONCURRENCY = 5
#: Length of the one-line digest that replaces a material over the budget.
DIGEST_CHARS = 160
#: Characters of one evidence passage (:func:`~deepcite.materials.material_passages`).
PASSAGE_CHARS = 1_500
