"""``bench/bench_check.py`` counts a contradiction as naming the source's value when the
note gives the value the set's source phrase holds ("source [8]: 4" for "default
`--parallel` raised from 2 to 4"), not only when it quotes the whole phrase - and never
when the note names another value or other words."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_check.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_check_under_test", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_value_inside_the_phrase_is_named() -> None:
    names = _bench().names_value
    assert names("draft: 8 concurrent uploads; source [8]: 4",
                 "default `--parallel` raised from 2 to 4")
    assert names("draft: still getting security patches; source [2]: end of life",
                 "v2.x reached end of life on 2024-05-31")
    assert names("draft: 22:30; source [3]: 21:30", "21:30")


def test_another_value_or_other_words_are_not() -> None:
    names = _bench().names_value
    assert not names("draft: 8 concurrent uploads; source [8]: 16",
                     "default `--parallel` raised from 2 to 4")
    assert not names("draft: keep using; source [9]: removed",
                     "Deprecated: `--exclude-caches` flag")
    assert not names("not stated: the fee", "The fee is £5")
