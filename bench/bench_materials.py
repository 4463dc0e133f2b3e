"""User materials: validation, deduplication, hashing, token estimates and chunking at the limit.

50 materials totalling 5,000,000 characters (the request limit), half of them English
prose and half mixed Chinese/English, go through what a run does before any model call:
``normalize_materials`` (validate, dedupe by id/url/content hash, number), the content
hash and token estimate of each, and the map-reduce chunking (64,000-token chunks with
512 tokens of overlap). No model is called. Target: under 2 s in all. Two shapes: 50
equal materials, and one material of 2,550,000 characters beside 49 small ones (many
chunks). The time to cut everything into evidence passages (``material_passages``) is
printed apart.

    .venv/bin/python bench/bench_materials.py
"""

from __future__ import annotations

import random
import time

from deepcite.materials import (
    CHUNK_OVERLAP_TOKENS,
    CHUNK_TOKENS,
    MAX_MATERIALS,
    MAX_TOTAL_CHARS,
    chunk_spans,
    content_hash,
    estimate_tokens,
    material_passages,
    normalize_materials,
)

ENGLISH = ("solar", "panel", "prices", "fell", "sharply", "during", "the", "year", "while",
           "installed", "capacity", "grew", "across", "regions", "according", "to", "report")
CHINESE = "太阳能电池板价格在这一年大幅下降而装机容量在各地区持续增长根据报告显示"


def make_text(rng: random.Random, size: int, cjk: bool) -> str:
    parts: list[str] = []
    length = 0
    while length < size:
        if cjk and rng.random() < 0.6:
            sentence = "".join(rng.choice(CHINESE) for _ in range(rng.randint(15, 60))) + "。"
        else:
            sentence = " ".join(rng.choice(ENGLISH) for _ in range(rng.randint(8, 25))) + ". "
        if rng.random() < 0.1:
            sentence += "\n\n"
        parts.append(sentence)
        length += len(sentence)
    return "".join(parts)[:size]


def run(name: str, sizes: list[int]) -> None:
    rng = random.Random(7)
    materials = [
        {"url": f"/bench/material-{i}.txt", "content": make_text(rng, size, cjk=i % 2 == 1),
         "title": f"Material {i}"}
        for i, size in enumerate(sizes)
    ]
    total = sum(len(m["content"]) for m in materials)

    started = time.perf_counter()
    kept, dropped = normalize_materials(materials)
    normalised = time.perf_counter()
    hashes = [content_hash(m.content) for m in kept]
    tokens = [estimate_tokens(m.content) for m in kept]
    estimated = time.perf_counter()
    chunks = [chunk_spans(m.content, CHUNK_TOKENS, CHUNK_OVERLAP_TOKENS) for m in kept]
    chunked = time.perf_counter()
    passages = sum(len(material_passages(m)) for m in kept)
    passaged = time.perf_counter()

    print(f"{name}: {len(kept)} kept, {len(dropped)} dropped, {total:,} characters, "
          f"{sum(tokens):,} estimated tokens, {len(set(hashes))} distinct hashes")
    print(f"  normalise + dedupe:      {normalised - started:.3f} s")
    print(f"  hash + token estimate:   {estimated - normalised:.3f} s")
    print(f"  chunking ({sum(len(c) for c in chunks)} chunks):   {chunked - estimated:.3f} s")
    print(f"  total:                   {chunked - started:.3f} s (target < 2 s)")
    print(f"  evidence passages ({passages:,}, not in the total): {passaged - chunked:.3f} s")


def main() -> None:
    even = [MAX_TOTAL_CHARS // MAX_MATERIALS] * MAX_MATERIALS
    skewed = [50_000] * (MAX_MATERIALS - 1)
    skewed.insert(0, MAX_TOTAL_CHARS - sum(skewed))
    run("even (50 x 100,000 chars)", even)
    run(f"skewed (one of {skewed[0]:,} chars)", skewed)


if __name__ == "__main__":
    main()
