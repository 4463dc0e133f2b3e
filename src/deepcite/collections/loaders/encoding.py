"""Decode text files whose encoding nobody wrote down.

Most files are UTF-8, which is tried first because a successful strict UTF-8 decode is
almost never wrong. Anything else goes to charset-normalizer, which recognises
Shift-JIS, GB18030, Big5, EUC-KR, cp1251 and friends reliably. On short Western
European text it cannot tell the single-byte Windows code pages apart (``café`` decodes
identically in cp1250 and cp1252, ``coûte`` does not), so among its equally good
guesses cp1252 - by far the most common legacy encoding - is preferred. When nothing
fits, cp1252 or, failing that, Latin-1 (which never fails) keeps every byte.
"""

from __future__ import annotations

import logging

import charset_normalizer

logger = logging.getLogger(__name__)

_WESTERN = "cp1252"


def _detect(data: bytes) -> str:
    matches = charset_normalizer.from_bytes(data)
    best = matches.best()
    if best is None:
        try:
            return data.decode(_WESTERN)
        except UnicodeDecodeError:
            return data.decode("latin-1")
    ties = [m for m in matches if m.chaos == best.chaos and m.coherence == best.coherence]
    if any(_WESTERN in m.could_be_from_charset for m in ties):
        return data.decode(_WESTERN)
    logger.debug("decoded as %s (charset-normalizer guess)", best.encoding)
    return str(best)


def decode_text(data: bytes) -> str:
    """Text of ``data``: UTF-8 (BOM dropped), else the detected encoding; ``\\n`` newlines."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = _detect(data)
    return text.replace("\r\n", "\n").replace("\r", "\n")
