"""Which language a question is written in, by its script: enough to answer in it.

An answer's frame (the "nothing answers this directly" intro, the notes, report
headings; :mod:`deepcite.text.frames`) is written in the question's language, and the
frame needs only to know the language, not to understand it. So the guess is by
script, which is certain where it speaks at all and needs no model:

- any kana (hiragana or katakana) -> ``ja`` (Japanese writes kanji with kana; Chinese
  never uses kana);
- Hangul -> ``ko``;
- Han ideographs without kana -> ``zh``;
- anything else -> ``en`` (the default, and what Latin-script questions get).

A question is counted by its letters, not its names: "Redis 的缓存保留多久?" is
Chinese, though "Redis" is Latin. A question with fewer CJK characters than
:data:`MIN_CJK` (a stray "の" in an English title) stays English.
"""

from __future__ import annotations

import re

DEFAULT = "en"
MIN_CJK = 2
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")
_LATIN = re.compile(r"[A-Za-z\u00C0-\u024F]+")


def detect(text: str) -> str:
    """The language code of ``text`` by its script: ``zh``, ``ja``, ``ko`` or ``en``.

    A CJK question counts as CJK when its CJK characters are at least as many as its
    Latin words (each name or number in it is one word, a sentence around them many
    characters).
    """
    if text.isascii():
        return DEFAULT
    kana = len(_KANA.findall(text))
    hangul = len(_HANGUL.findall(text))
    han = len(_HAN.findall(text))
    cjk = kana + hangul + han
    if cjk < MIN_CJK or cjk < len(_LATIN.findall(text)):
        return DEFAULT
    if kana:
        return "ja"
    if hangul > han:
        return "ko"
    return "zh"


__all__ = ["DEFAULT", "detect"]
