"""Token estimates and content hashes of materials.

Materials are sized before any model sees them, so the estimate must be cheap on
millions of characters and must not be fooled by scripts without spaces. The rule:
every CJK character (ideographs, kana, Hangul) counts as **one token**, and all other
text as **one token per four characters** (the usual figure for English with GPT-style
tokenizers), rounded up. A words-based rule would see a whole Chinese paragraph as one
word; a characters/4 rule would see it as a quarter of its real size.

The content hash (first 16 hex digits of the SHA-256 of the UTF-8 content) is the key
of deduplication and of the summary cache: two materials with the same text are the
same material, whatever their names.
"""

from __future__ import annotations

import hashlib
import math

# One CJK definition and one token counter for the whole package: the collections'
# chunker and this module must agree on what a token is.
from deepcite.collections.chunking import CHARS_PER_TOKEN
from deepcite.text.cjk import CJK_RUN

HASH_CHARS = 16


def content_hash(content: str) -> str:
    """First 16 hex digits of the SHA-256 of ``content`` (UTF-8); the identity of a text."""
    digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:HASH_CHARS]


def cjk_count(text: str) -> int:
    """How many CJK characters ``text`` holds (ASCII text: no regex at all)."""
    if text.isascii():
        return 0
    return sum(match.end() - match.start() for match in CJK_RUN.finditer(text))


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: CJK characters one each, other text four characters each."""
    if not text:
        return 0
    cjk = cjk_count(text)
    return cjk + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN)




#: Characters of a prompt budget one token stands for where the budget counts
#: characters (a little under :data:`CHARS_PER_TOKEN`, to stay on the safe side).
BUDGET_CHARS_PER_TOKEN = 3


def budget_size(text: str) -> int:
    """What ``text`` costs of a prompt budget counted in characters: its length, or
    three per estimated token when that is more (CJK text: a token per character), so
    a Chinese passage is not let in at four times the tokens an English one is."""
    return max(len(text), estimate_tokens(text) * BUDGET_CHARS_PER_TOKEN)
