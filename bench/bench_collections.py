"""Collections figures: indexing speed, query latency, re-add, recall@10, memory.

Measured side by side with two BM25 libraries over the very same chunks (read back from
the collection's SQLite file): rank-bm25 (``BM25Okapi``, pure Python + NumPy) and bm25s
(sparse matrices). The corpus is Debian's Python 3.11 documentation (``python3.11-doc``),
converted once from HTML to plain ``.txt`` files and cached in a temp folder.

1. Indexing throughput of ``Collection.add`` on the plain-text corpus (MB/s of text,
   chunks/s; target >= 5 MB/s); index build time of the two baselines on its chunks.
2. Query latency p50/p95/max at ~100k chunks (the corpus indexed several times, from
   hard-linked copies in distinct folders; target p95 < 20 ms), FAQ questions plus
   random 2-4 word queries drawn from the corpus text.
3. A second ``add`` of an unchanged folder of 1,000 small .md/.txt files (target < 2 s).
4. recall@10 on question -> gold answer pairs from the Python FAQ pages (rule below).
5. Peak RSS of a fresh process indexing 1x, 2x and 4x the corpus (should stay flat).
6. Scale series at 100k, 300k and 1M chunks (``--scale``): the real corpus for the first
   size, then synthetic chunks drawn from its vocabulary and word frequencies (the
   output gives their share). At each size, in the same run: p50/p95 of deepcite's
   search (tantivy + re-score), of the FTS5 path it replaced and of bm25s over the same
   chunks (ranking alone with the query tokenised beforehand, as the target compares,
   and doing a search's whole work: tokenising, ranking, reading the chunks); index
   build MB/s and peak RSS (all and anonymous) of a fresh process adding that step;
   size on disk (SQLite file, inverted index) next to the text size; load.
   Targets: p95 <= 5 ms and below bm25s at ~100k, p95 <= 25 ms at 1M, >= 5 MB/s.

    .venv/bin/python bench/bench_collections.py [--quick] [--only-scale] [--scale N,N]

``--quick`` uses a small slice of the docs (FAQ, tutorial, howto) and smaller sizes, for a
smoke run in under a minute. Needs ``pip install rank-bm25 bm25s psutil`` and
``apt-get install python3.11-doc``. MB means 10^6 bytes of UTF-8 text.

Gold passages and the hit rule (recall@10): on each FAQ page every leaf ``<section>``
under an h2/h3/h4 heading is one question (the heading) and its answer (the section's
text up to the next heading). The question headings are *not* written to the corpus
(nor the page's local table of contents, nor ``contents.html``, the global one), so a
question cannot be found by matching its own title. A top-10 chunk is a hit when it comes
from the same FAQ file and its ``[start, end)`` span overlaps the answer's span by at
least half of the shorter of the two (so a chunk that merely carries the first or last
few words of an answer over a boundary does not count, while a chunk lying inside a long
answer, or one that contains a short answer whole, does).

Tokenisation for the baselines ("plain"): lower case, ``\\w+`` tokens, deepcite's own
English stopword list dropped, query terms de-duplicated (as deepcite does for queries).
deepcite's FTS5 index also stems (``porter unicode61``), so recall is reported a second
time for the baselines fed exactly FTS5's stemmed tokens of each chunk (read from the
index with ``fts5vocab``) and of each query ("porter"). Both baselines use k1=1.2,
b=0.75 like FTS5's ``bm25()``; deepcite additionally scores the document title column
(weight 2), which the baselines do not see.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import logging
import math
import os
import pstats
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

DOCS_DIR = Path("/usr/share/doc/python3.11/html")
CACHE_VERSION = "1"
MB = 1_000_000
K = 10
TARGET_MB_S = 5.0
TARGET_P95_MS = 20.0
TARGET_READD_S = 2.0

QUICK_PARTS = ("faq", "tutorial", "howto")
# Tables of contents and indexes: lists of titles (they would contain every FAQ question).
SKIP_PAGES = re.compile(r"^(contents|search|py-modindex|genindex.*)\.html$")

def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def say(*parts: object) -> None:
    print(*parts, flush=True)


# ============================================================================ corpus

_BLOCK_TAGS = frozenset({
    "p", "div", "section", "article", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr",
    "thead", "tbody", "blockquote", "figure", "figcaption", "caption", "header", "footer",
    "aside", "details", "summary", "br", "hr",
})
_CELL_TAGS = frozenset({"td", "th"})
_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "nav", "head", "form"})
_HEADINGS = {"h1": "=", "h2": "-", "h3": "~", "h4": "^", "h5": '"', "h6": "'"}


@dataclass(frozen=True)
class FaqItem:
    """One FAQ question and where its answer lies in the converted ``.txt`` file."""

    rel: str  # path of the .txt file relative to the corpus root
    question: str
    start: int
    end: int


class _Emitter:
    """HTML element tree -> blocks of text joined by blank lines, FAQ spans recorded."""

    def __init__(self, faq: bool) -> None:
        self.faq = faq
        self.blocks: list[str] = []
        self.inline: list[str] = []
        self.questions: list[tuple[str, int, int]] = []  # question, first block, end block

    def flush(self) -> None:
        text = " ".join("".join(self.inline).split())
        self.inline.clear()
        if text:
            self.blocks.append(text)

    @staticmethod
    def _heading(el: Any) -> Any:
        for child in el:
            if isinstance(child.tag, str):
                return child if child.tag in _HEADINGS else None
        return None

    def _question_heading(self, el: Any) -> Any:
        if not self.faq or el.tag != "section" or el.xpath(".//section"):
            return None
        heading = self._heading(el)
        if heading is None or heading.tag not in ("h2", "h3", "h4"):
            return None
        text = _heading_text(heading)
        return None if text.endswith("Questions") else heading

    def walk(self, el: Any) -> None:
        tag = el.tag
        if not isinstance(tag, str):  # comments, processing instructions
            return
        classes = (el.get("class") or "").split()
        if tag in _SKIP_TAGS or "headerlink" in classes or "contents" in classes:
            return
        if tag == "pre":
            self.flush()
            lines = [line.rstrip() for line in el.text_content().split("\n")]
            while lines and not lines[0].strip():
                lines.pop(0)
            while lines and not lines[-1].strip():
                lines.pop()
            if lines:
                self.blocks.append("\n".join(lines))
            return
        if tag in _HEADINGS:
            self.flush()
            text = _heading_text(el)
            if text:
                self.blocks.append(f"{text}\n{_HEADINGS[tag] * len(text)}")
            return
        question = self._question_heading(el)
        if question is not None:
            self.flush()
            first = len(self.blocks)
            self._children(el, skip=question)
            self.flush()
            if len(self.blocks) > first:
                self.questions.append((_heading_text(question), first, len(self.blocks)))
            return
        block = tag in _BLOCK_TAGS
        if block:
            self.flush()
        elif tag in _CELL_TAGS:
            self.inline.append(" ")
        self._children(el)
        if block:
            self.flush()
        elif tag in _CELL_TAGS:
            self.inline.append(" ")

    def _children(self, el: Any, skip: Any = None) -> None:
        if el.text:
            self.inline.append(el.text)
        for child in el:
            if child is not skip:
                self.walk(child)
            if child.tail:
                self.inline.append(child.tail)


def _heading_text(el: Any) -> str:
    return " ".join(el.text_content().replace("\u00b6", " ").split())


def convert_page(html_path: Path, faq: bool) -> tuple[str, list[tuple[str, int, int]]]:
    """Plain text of one Sphinx page's main body, plus FAQ (question, start, end) spans."""
    import lxml.html

    root = lxml.html.parse(str(html_path)).getroot()
    mains = root.xpath('//div[@role="main"]') or root.xpath("//body") or [root]
    emitter = _Emitter(faq)
    emitter.walk(mains[0])
    emitter.flush()
    starts = []
    pos = 0
    for block in emitter.blocks:
        starts.append(pos)
        pos += len(block) + 2
    spans = [(q, starts[a], starts[b - 1] + len(emitter.blocks[b - 1]))
             for q, a, b in emitter.questions]
    return "\n\n".join(emitter.blocks) + "\n", spans


def prepare_corpus(docs: Path, cache: Path) -> tuple[Path, list[FaqItem], float]:
    """Convert the docs once into ``cache/txt``; returns (root, FAQ items, seconds spent)."""
    root = cache / "txt"
    gold_file = cache / "faq.json"
    stamp = cache / "DONE"
    if stamp.is_file() and stamp.read_text() == CACHE_VERSION and gold_file.is_file():
        items = [FaqItem(**item) for item in json.loads(gold_file.read_text())]
        return root, items, 0.0
    started = time.perf_counter()
    shutil.rmtree(cache, ignore_errors=True)
    root.mkdir(parents=True)
    items: list[FaqItem] = []
    pages = sorted(p for p in docs.rglob("*.html")
                   if not p.relative_to(docs).parts[0].startswith("_")
                   and not SKIP_PAGES.match(p.relative_to(docs).as_posix()))
    for page in pages:
        rel_html = page.relative_to(docs)
        rel = rel_html.with_suffix(".txt").as_posix()
        text, spans = convert_page(page, faq=rel_html.parts[0] == "faq")
        out = root / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        items.extend(FaqItem(rel, q, s, e) for q, s, e in spans)
    gold_file.write_text(json.dumps([item.__dict__ for item in items], indent=0))
    stamp.write_text(CACHE_VERSION)
    return root, items, time.perf_counter() - started


def link_tree(src: Path, dst: Path, parts: Sequence[str] | None = None) -> None:
    """Mirror ``src`` (or only its top-level ``parts``) into ``dst`` with hard links."""
    for file in sorted(src.rglob("*.txt")):
        rel = file.relative_to(src)
        if parts is not None and rel.parts[0] not in parts:
            continue
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(file, target)
        except OSError:
            shutil.copy2(file, target)


def text_bytes(folders: Iterable[Path]) -> tuple[int, int]:
    """(bytes, files) of the .txt/.md files under ``folders``."""
    total = files = 0
    for folder in folders:
        for file in folder.rglob("*"):
            if file.suffix in (".txt", ".md") and file.is_file():
                total += file.stat().st_size
                files += 1
    return total, files


# ====================================================================== collections


def make_settings(data_dir: Path) -> Any:
    from deepcite.config import load_settings

    return load_settings({"data_dir": str(data_dir)}, config_files=[], environ={})


def new_collection(db: Path, settings: Any) -> Any:
    from deepcite.collections import Collection

    return Collection.create(db.stem.replace("_", "-"), db, settings=settings)


def open_collection(db: Path, settings: Any) -> Any:
    from deepcite.collections import Collection

    return Collection.open(db, settings=settings)


@dataclass
class ChunkRow:
    id: int
    path: str
    start: int
    end: int
    text: str


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]


def describe_schema(db: Path) -> tuple[str, str]:
    """(SELECT statement for id, path, start, end, text of every chunk, a description)."""
    with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
            "'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts%'")]
        cols = {t: _columns(conn, t) for t in tables}
    chunk_table = "chunks" if "chunks" in cols else next(
        (t for t in tables if {"text", "start"} <= set(cols[t])), None)
    doc_table = "documents" if "documents" in cols else next(
        (t for t in tables if "path" in cols[t] and t != chunk_table), None)
    if chunk_table is None or doc_table is None:
        raise SystemExit(f"bench: cannot find the chunk and document tables in {db}: {cols}")
    ccols = cols[chunk_table]

    def pick(options: Sequence[str], have: Sequence[str], what: str) -> str:
        for option in options:
            if option in have:
                return option
        raise SystemExit(f"bench: no {what} column in {chunk_table}{tuple(have)}")

    text = pick(("text", "content", "body", "chunk"), ccols, "text")
    link = pick(("doc_id", "document_id", "doc"), ccols, "document")
    start = pick(("start", "start_char", "char_start", "begin"), ccols, "start")
    end = pick(("end", "end_char", "char_end", "stop"), ccols, "end")
    path = pick(("path", "file", "source"), cols[doc_table], "path")
    sql = (f'SELECT c.rowid, d."{path}", c."{start}", c."{end}", c."{text}" '
           f'FROM "{chunk_table}" AS c JOIN "{doc_table}" AS d ON d.rowid = c."{link}" '
           f"ORDER BY c.rowid")
    return sql, f"{chunk_table}({', '.join(ccols)}); {doc_table}({', '.join(cols[doc_table])})"


def read_chunks(db: Path) -> list[ChunkRow]:
    sql, _ = describe_schema(db)
    with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as conn:
        return [ChunkRow(*row) for row in conn.execute(sql)]


# ====================================================================== tokenisation


def stopwords() -> frozenset[str]:
    """deepcite's own list, so the baselines drop exactly the words deepcite drops."""
    from deepcite.text.stopwords import QUERY_STOPWORDS

    return frozenset(QUERY_STOPWORDS)


_WORD = re.compile(r"\w+")


class PlainTokenizer:
    """Lower case, ``\\w+``, stopwords dropped; token strings interned to save memory."""

    def __init__(self) -> None:
        self.stop = stopwords()
        self.pool: dict[str, str] = {}
        self.by_text: dict[str, list[str]] = {}

    def doc(self, text: str) -> list[str]:
        cached = self.by_text.get(text)  # the latency corpus repeats every chunk
        if cached is not None:
            return cached
        pool = self.pool
        tokens = [pool.setdefault(t, t) for t in _WORD.findall(text.lower())
                  if t not in self.stop]
        self.by_text[text] = tokens
        return tokens

    def query(self, text: str) -> list[str]:
        seen: list[str] = []
        for token in _WORD.findall(text.lower()):
            if token not in self.stop and token not in seen:
                seen.append(token)
        return seen[:32]


def porter_doc_tokens(db: Path, ids: Sequence[int]) -> list[list[str]]:
    """Each chunk's tokens exactly as FTS5 indexed them (stemmed), via ``fts5vocab``."""
    position = {chunk_id: n for n, chunk_id in enumerate(ids)}
    tokens: list[list[str]] = [[] for _ in ids]
    conn = sqlite3.connect(db)
    try:
        fts = next(row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5(%'"))
        conn.execute(f"CREATE VIRTUAL TABLE temp.bench_vocab USING fts5vocab(main, {fts}, "
                     "instance)")
        for term, doc, col in conn.execute("SELECT term, doc, col FROM temp.bench_vocab"):
            n = position.get(doc)
            if n is not None and col == "text":
                tokens[n].append(term)
    finally:
        conn.close()
    return tokens


def porter_queries(queries: Sequence[list[str]]) -> list[list[str]]:
    """Stem query terms with FTS5's own ``porter unicode61`` tokenizer."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE q USING fts5(t, tokenize='porter unicode61')")
    conn.executemany("INSERT INTO q(rowid, t) VALUES (?, ?)",
                     [(n + 1, " ".join(terms)) for n, terms in enumerate(queries)])
    conn.execute("CREATE VIRTUAL TABLE qv USING fts5vocab(q, instance)")
    out: list[list[tuple[int, str]]] = [[] for _ in queries]
    for term, doc, offset in conn.execute("SELECT term, doc, offset FROM qv"):
        out[doc - 1].append((offset, term))
    conn.close()
    stemmed = []
    for pairs in out:
        terms: list[str] = []
        for _, term in sorted(pairs):
            if term not in terms:
                terms.append(term)
        stemmed.append(terms)
    return stemmed


# ======================================================================== baselines


class RankBM25:
    name = "rank-bm25"

    def __init__(self, tokens: list[list[str]]) -> None:
        from rank_bm25 import BM25Okapi

        self.bm = BM25Okapi(tokens, k1=1.2, b=0.75)

    def top(self, query: list[str], k: int = K) -> list[int]:
        import numpy as np

        if not query:
            return []
        scores = self.bm.get_scores(query)
        k = min(k, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [int(i) for i in best if scores[i] > 0]


class BM25S:
    name = "bm25s"

    def __init__(self, tokens: list[list[str]]) -> None:
        import bm25s

        self.size = len(tokens)
        self.bm = bm25s.BM25(k1=1.2, b=0.75)
        self.bm.index(tokens, show_progress=False)

    def top(self, query: list[str], k: int = K) -> list[int]:
        if not query:
            return []
        docs, scores = self.bm.retrieve([query], k=min(k, self.size), show_progress=False,
                                        n_threads=0)
        return [int(d) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


BASELINES: tuple[type[RankBM25] | type[BM25S], ...] = (RankBM25, BM25S)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


# ========================================================================== figures


@dataclass
class Row:
    section: str
    what: str
    value: str
    target: str = ""
    verdict: str = ""


ROWS: list[Row] = []


def record(section: str, what: str, value: str, target: str = "",
           ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    ROWS.append(Row(section, what, value, target, verdict))


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def latency_line(values_s: Sequence[float]) -> tuple[float, float, float]:
    ms = [v * 1000 for v in values_s]
    return pct(ms, 0.5), pct(ms, 0.95), max(ms)


def profile_top(fn: Callable[[], Any], lines: int = 18) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    fn()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(lines)
    text = out.getvalue()
    keep = [line for line in text.splitlines() if line.strip()]
    return "\n".join(keep[-(lines + 2):])


# ------------------------------------------------------------------- 1. throughput


def bench_throughput(
    root: Path, work: Path, settings: Any, profile: bool
) -> tuple[Path, list[ChunkRow]]:
    say("\n== 1. indexing throughput (plain text) ==")
    size, files = text_bytes([root])
    db = work / "docs1x.sqlite"
    collection = new_collection(db, settings)
    report, seconds = timed(lambda: collection.add(root))
    _, description = describe_schema(db)
    chunks = read_chunks(db)
    mb_s = size / MB / seconds
    say(f"schema: {description}")
    say(f"deepcite add: {files} files, {size / MB:.1f} MB, {len(chunks):,} chunks in "
        f"{seconds:.2f} s -> {mb_s:.2f} MB/s, {len(chunks) / seconds:,.0f} chunks/s "
        f"({report.summary()})")
    record("1 index", "deepcite add MB/s", f"{mb_s:.2f}", f">= {TARGET_MB_S}", mb_s >= TARGET_MB_S)
    record("1 index", "deepcite add chunks/s", f"{len(chunks) / seconds:,.0f}")
    record("1 index", "corpus", f"{files} files, {size / MB:.1f} MB, {len(chunks):,} chunks")
    if mb_s < TARGET_MB_S and profile:
        say("profile of a fresh add (cumulative):")
        db2 = work / "profile.sqlite"
        fresh = new_collection(db2, settings)
        say(profile_top(lambda: fresh.add(root)))
        db2.unlink()
    tokenizer = PlainTokenizer()
    tokens, tok_s = timed(lambda: [tokenizer.doc(c.text) for c in chunks])
    say(f"baseline tokenisation of the same chunks: {tok_s:.2f} s")
    for cls in BASELINES:
        _, build_s = timed(lambda cls=cls: cls(tokens))
        total = build_s + tok_s
        say(f"{cls.name} index build: {build_s:.2f} s (+ tokenisation {total:.2f} s) -> "
            f"{size / MB / total:.2f} MB/s, {len(chunks) / total:,.0f} chunks/s")
        record("1 index", f"{cls.name} build MB/s (incl. tokenise)", f"{size / MB / total:.2f}")
    return db, chunks


# ---------------------------------------------------------------------- 4. recall


def bench_recall(db: Path, chunks: list[ChunkRow], root: Path, faq: list[FaqItem],
                 settings: Any) -> None:
    say("\n== 4. recall@10 on Python FAQ question -> answer pairs ==")
    collection = open_collection(db, settings)
    gold = [(str((root / item.rel).resolve()), item.start, item.end) for item in faq]

    def hit(path: str, start: int, end: int, g: tuple[str, int, int]) -> bool:
        g_path, g_start, g_end = g
        if path != g_path:
            return False
        overlap = min(end, g_end) - max(start, g_start)
        return overlap > 0 and overlap >= 0.5 * min(end - start, g_end - g_start)

    # The removed question headings must really be gone from the corpus.
    corpus_lower = [c.text.lower() for c in chunks]
    leaked = sum(1 for item in faq if any(item.question.lower() in t for t in corpus_lower))
    say(f"{len(faq)} questions from {len({i.rel for i in faq})} FAQ pages; "
        f"{leaked} question texts still occur verbatim in some chunk")
    reachable = sum(1 for g in gold if any(hit(c.path, c.start, c.end, g) for c in chunks))
    say(f"{reachable} of {len(faq)} answers have at least one chunk that counts as a hit")

    results: dict[str, float] = {}
    found = 0
    for item, g in zip(faq, gold, strict=True):
        res = collection.search(item.question, k=K)
        if any(hit(r.metadata["path"], r.metadata["start"], r.metadata["end"], g) for r in res):
            found += 1
    results["deepcite (tantivy + Lucene-IDF re-score)"] = found / len(faq)
    from deepcite.collections.index import Index, rerank

    found = 0
    with Index(db).connect() as conn:  # the FTS5 path, used before the inverted index
        for item, g in zip(faq, gold, strict=True):
            res = rerank.search(conn, item.question, K)
            if any(hit(r.path, r.start, r.end, g) for r in res):
                found += 1
    results["deepcite FTS5 path (FTS5 bm25 + re-score)"] = found / len(faq)

    plain = PlainTokenizer()
    variants = {"plain": ([plain.doc(c.text) for c in chunks],
                          [plain.query(i.question) for i in faq])}
    try:
        ids = [c.id for c in chunks]
        porter_docs = porter_doc_tokens(db, ids)
        porter_qs = porter_queries([plain.query(i.question) for i in faq])
        variants["porter"] = (porter_docs, porter_qs)
    except (sqlite3.Error, StopIteration) as exc:
        say(f"(no porter variant: {exc})")
    for label, (doc_tokens, queries) in variants.items():
        for cls in BASELINES:
            engine = cls(doc_tokens)
            found = 0
            for query, g in zip(queries, gold, strict=True):
                top = [chunks[i] for i in engine.top(query)]
                if any(hit(c.path, c.start, c.end, g) for c in top):
                    found += 1
            results[f"{cls.name} ({label})"] = found / len(faq)
    for name, value in results.items():
        say(f"recall@10 {name}: {value:.3f}")
        record("4 recall", f"recall@10 {name}", f"{value:.3f}")


# ---------------------------------------------------------------------- 5. memory


def child_index(db: Path, folders: list[Path]) -> None:
    """Run in a fresh process: index ``folders`` into ``db``; print JSON figures."""
    import psutil

    settings = make_settings(db.parent / "data")
    collection = open_collection(db, settings) if db.exists() else new_collection(db, settings)
    proc = psutil.Process()
    base = proc.memory_info().rss
    peak = [base]
    stop = threading.Event()

    anon = [0]

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], proc.memory_info().rss)
            anon[0] = max(anon[0], rss_anon())
            stop.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    collection.add(folders)
    seconds = time.perf_counter() - started
    stop.set()
    sampler.join()
    peak[0] = max(peak[0], proc.memory_info().rss)
    chunks = collection.info().chunks
    print(json.dumps({"base": base, "peak": peak[0], "hwm": high_water_rss(),
                      "anon": anon[0], "seconds": seconds, "chunks": chunks}))


def rss_anon() -> int:
    """Resident anonymous memory (``RssAnon``: heap, not mapped files), 0 if unknown.

    RSS also counts pages of memory-mapped files read (tantivy maps its segments), which
    the kernel can drop at any time; the anonymous part is what the process holds."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def high_water_rss() -> int:
    """Peak RSS of this process image: ``VmHWM`` on Linux, else ``ru_maxrss``.

    ``ru_maxrss`` survives ``fork`` + ``exec``, so in a child it can report the parent's
    size; ``VmHWM`` belongs to the new address space and starts afresh at ``exec``.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin"
                                                                 else 1024)


def bench_memory(copies: list[Path], work: Path, factors: Sequence[int]) -> Path:
    say("\n== 5. peak RSS of a fresh process while indexing 1x/2x/4x the corpus ==")
    last_db = work
    for factor in factors:
        folders = copies[:factor]
        size, _ = text_bytes(folders)
        db = work / f"mem{factor}x.sqlite"
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--_child-index", str(db),
             *map(str, folders)], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"bench: indexing child failed:\n{proc.stderr[-3000:]}")
        fig = json.loads(proc.stdout.strip().splitlines()[-1])
        mib = 1024 * 1024
        say(f"{factor}x: {size / MB:.1f} MB, {fig['chunks']:,} chunks in {fig['seconds']:.1f} s "
            f"({size / MB / fig['seconds']:.2f} MB/s); RSS before add "
            f"{fig['base'] / mib:.0f} MiB, peak {fig['peak'] / mib:.0f} MiB "
            f"(+{(fig['peak'] - fig['base']) / mib:.0f} MiB, sampled every 20 ms); "
            f"process high-water mark {fig['hwm'] / mib:.0f} MiB")
        record("5 memory", f"peak RSS indexing {factor}x ({size / MB:.0f} MB)",
               f"{fig['peak'] / mib:.0f} MiB (+{(fig['peak'] - fig['base']) / mib:.0f}), "
               f"HWM {fig['hwm'] / mib:.0f}", "flat")
        record("5 memory", f"add MB/s at {factor}x", f"{size / MB / fig['seconds']:.2f}")
        last_db = db
    return last_db


# --------------------------------------------------------------------- 2. latency


def make_queries(faq: list[FaqItem], chunks: list[ChunkRow], n_random: int,
                 seed: int = 7) -> list[tuple[str, str]]:
    """FAQ questions plus random 2-4 word queries, words drawn by corpus frequency."""
    rng = random.Random(seed)
    stop = stopwords()
    queries = [("faq", item.question) for item in faq]
    made = 0
    while made < n_random:
        words: list[str] = []
        want = rng.randint(2, 4)
        for _ in range(200):
            tokens = _WORD.findall(rng.choice(chunks).text.lower())
            if not tokens:
                continue
            word = rng.choice(tokens)
            if len(word) >= 3 and not word.isdigit() and word not in stop and word not in words:
                words.append(word)
                if len(words) == want:
                    break
        if len(words) == want:
            queries.append(("random", " ".join(words)))
            made += 1
    return queries


def explain_latency(db: Path, questions: Sequence[str], n_chunks: int) -> None:
    """How many rows each query's MATCH selects, and what matching alone costs."""
    try:
        from deepcite.collections.index.query import build_match_query
    except ImportError as exc:
        say(f"(no latency breakdown: {exc})")
        return
    matches = [m for m in map(build_match_query, questions) if m]
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        fts = next(row[0] for row in conn.execute(
            "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5(%'"))
        counts, count_s, rank_s = [], [], []
        for match in matches:
            n, s = timed(lambda m=match: conn.execute(
                f"SELECT count(*) FROM {fts} WHERE {fts} MATCH ?", (m,)).fetchone()[0])
            counts.append(n)
            count_s.append(s)
            _, s = timed(lambda m=match: conn.execute(
                f"SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY bm25({fts}) LIMIT {K}",
                (m,)).fetchall())
            rank_s.append(s)
    except (sqlite3.Error, StopIteration) as exc:
        say(f"(no latency breakdown: {exc})")
        return
    finally:
        conn.close()
    c50, c95 = pct(counts, 0.5), pct(counts, 0.95)
    say(f"rows matched per query (OR of all terms): p50 {c50:,.0f} ({c50 / n_chunks:.0%}), "
        f"p95 {c95:,.0f} ({c95 / n_chunks:.0%}) of {n_chunks:,} chunks")
    m50, m95, _ = latency_line(count_s)
    r50, r95, _ = latency_line(rank_s)
    say(f"same MATCH, count(*) only (no ranking): p50 {m50:.1f} / p95 {m95:.1f} ms; "
        f"FTS table alone, bm25() ORDER BY LIMIT {K} (no joins): p50 {r50:.1f} / p95 {r95:.1f} ms")


def bench_latency(db: Path, copies: list[Path], used: int, target_chunks: int,
                  faq: list[FaqItem], sample_chunks: list[ChunkRow], settings: Any,
                  n_random: int, profile: bool) -> None:
    say(f"\n== 2. query latency at ~{target_chunks:,} chunks ==")
    collection = open_collection(db, settings)
    have = collection.info().chunks
    per_copy = max(1, have // max(1, used))
    need = max(0, math.ceil((target_chunks - have) / per_copy))
    extra = copies[used:used + need]
    if extra:
        report, seconds = timed(lambda: collection.add(extra))
        size, _ = text_bytes(extra)
        say(f"added {len(extra)} more copies ({size / MB:.1f} MB) in {seconds:.1f} s "
            f"({size / MB / seconds:.2f} MB/s, {report.summary()})")
    chunks = read_chunks(db)
    say(f"collection: {len(chunks):,} chunks from {used + len(extra)} copies of the corpus")
    record("2 latency", "chunks searched", f"{len(chunks):,}")
    queries = make_queries(faq, sample_chunks, n_random)
    kinds = [kind for kind, _ in queries]
    say(f"{len(queries)} queries: {kinds.count('faq')} FAQ questions, "
        f"{kinds.count('random')} random 2-4 word queries; k={K}")

    def report_latency(name: str, times: list[float]) -> None:
        p50, p95, worst = latency_line(times)
        by_kind = []
        for kind in ("faq", "random"):
            sel = [t for t, k in zip(times, kinds, strict=True) if k == kind]
            if sel:
                k50, k95, _ = latency_line(sel)
                by_kind.append(f"{kind} p50 {k50:.1f} / p95 {k95:.1f}")
        say(f"{name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {worst:.1f} ms "
            f"({'; '.join(by_kind)})")
        target = f"p95 < {TARGET_P95_MS:.0f} ms" if name == "deepcite search" else ""
        ok = p95 < TARGET_P95_MS if name == "deepcite search" else None
        record("2 latency", f"{name} p50/p95/max ms", f"{p50:.1f} / {p95:.1f} / {worst:.1f}",
               target, ok)

    for _, q in queries[:10]:  # warm the page cache
        collection.search(q, k=K)
    times = []
    for _, q in queries:
        _, seconds = timed(lambda q=q: collection.search(q, k=K))
        times.append(seconds)
    report_latency("deepcite search", times)
    if profile and pct(times, 0.95) * 1000 >= TARGET_P95_MS:
        slow = sorted(zip(times, queries, strict=True), reverse=True)[:5]
        say("slowest deepcite queries: " + "; ".join(
            f"{t * 1000:.0f} ms {q!r}" for t, (_, q) in slow))
        say("profile of all queries (cumulative):")
        say(profile_top(lambda: [collection.search(q, k=K) for _, q in queries], 14))
        explain_latency(db, [q for _, q in queries], len(chunks))

    tokenizer = PlainTokenizer()
    tokens, tok_s = timed(lambda: [tokenizer.doc(c.text) for c in chunks])
    query_tokens = [tokenizer.query(q) for _, q in queries]
    for cls in BASELINES:
        engine, build_s = timed(lambda cls=cls: cls(tokens))
        say(f"{cls.name}: index build {build_s:.1f} s (+ tokenisation {tok_s:.1f} s)")
        record("2 latency", f"{cls.name} build s at {len(chunks):,} chunks", f"{build_s:.1f}")
        for qt in query_tokens[:5]:
            engine.top(qt)
        times = []
        for qt in query_tokens:
            _, seconds = timed(lambda qt=qt, engine=engine: engine.top(qt))
            times.append(seconds)
        report_latency(f"{cls.name} top-10", times)
        del engine


# ------------------------------------------------------------------- 6. scale series


def write_synthetic(folder: Path, chunks: list[ChunkRow], n_bytes: int, seed: int) -> int:
    """Files of made-up paragraphs, ``n_bytes`` in all; returns the bytes written.

    Words are drawn from the real corpus's vocabulary with its word frequencies (so
    common words are as common as in the docs), paragraph lengths from its chunks.
    """
    import numpy as np

    counts: dict[str, int] = {}
    lengths = []
    for chunk in chunks:
        words = _WORD.findall(chunk.text.lower())
        lengths.append(max(8, len(words)))
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    vocab = list(counts)
    p = np.array([counts[w] for w in vocab], dtype=np.float64)
    p /= p.sum()
    rng = np.random.default_rng(seed)
    written = 0
    n_file = 0
    while written < n_bytes:
        sizes = rng.choice(lengths, size=100)
        idx = rng.choice(len(vocab), size=int(sizes.sum()), p=p)
        paragraphs, at = [], 0
        for size in sizes:
            words = [vocab[i] for i in idx[at:at + size]]
            at += size
            paragraphs.append(" ".join(words).capitalize() + ".")
        text = f"Synthetic {seed}-{n_file}\n\n" + "\n\n".join(paragraphs) + "\n"
        sub = folder / f"s{n_file // 500:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        data = text.encode()
        (sub / f"syn{n_file:05d}.txt").write_bytes(data)
        written += len(data)
        n_file += 1
    return written


def _child_add(db: Path, folders: list[Path]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--_child-index", str(db),
         *map(str, folders)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench: indexing child failed:\n{proc.stderr[-3000:]}")
    fig: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return fig


def disk_bytes(db: Path) -> tuple[int, int]:
    """(SQLite file + WAL, inverted index folder) in bytes."""
    sqlite_bytes = sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())
    side = Path(f"{db}-tantivy")
    side_bytes = sum(p.stat().st_size for p in side.rglob("*") if p.is_file()) \
        if side.is_dir() else 0
    return sqlite_bytes, side_bytes


def time_queries(fn: Callable[[str], Any], queries: Sequence[str]) -> list[float]:
    for q in queries[:10]:
        fn(q)
    times = []
    for q in queries:
        _, seconds = timed(lambda q=q: fn(q))
        times.append(seconds)
    return times


def _latencies(db: Path, work: Path, queries: list[str], query_tokens: list[list[str]]
               ) -> tuple[list[float], list[float], list[float], list[float], float]:
    """Query times of deepcite, of its FTS5 path, of bm25s (ranking only, the query
    tokenised beforehand) and of bm25s doing what a search does (tokenising the
    query, ranking, reading its chunks from the file), and bm25s's build time."""
    from deepcite.collections.index import Index, rerank

    collection = open_collection(db, make_settings(work / "data"))
    with Index(db).connect() as conn:
        fts5 = time_queries(lambda q: rerank.search(conn, q, K), queries)
    new = time_queries(lambda q: collection.search(q, k=K), queries)
    tokenizer = PlainTokenizer()
    ids: list[int] = []
    tokens = []
    for chunk in read_chunks(db):
        ids.append(chunk.id)
        tokens.append(tokenizer.doc(chunk.text))
    started = time.perf_counter()
    engine = BM25S(tokens)
    build_s = time.perf_counter() - started
    del tokens
    by_query = dict(zip(queries, query_tokens, strict=True))
    base = time_queries(lambda q: engine.top(by_query[q]), queries)
    from deepcite.collections.index.retrieval import hits_by_ids

    with Index(db).connect() as conn:  # what a search returns: tokenise, rank, read rows
        whole = time_queries(lambda q: hits_by_ids(
            conn, [ids[d] for d in engine.top(tokenizer.query(q))]), queries)
    return new, fts5, base, whole, build_s


def bench_scale(work: Path, real: list[Path], sizes: Sequence[int], faq: list[FaqItem],
                sample: list[ChunkRow], n_random: int) -> None:
    """p50/p95 of both designs and bm25s, build MB/s, size, peak RSS at each size."""
    say(f"\n== 6. scale series: {', '.join(f'{s:,}' for s in sizes)} chunks ==")
    db = work / "scale.sqlite"
    per_copy = max(1, len(sample))
    bytes_per_chunk = max(1.0, text_bytes(real[:1])[0] / per_copy)
    queries = [q for _, q in make_queries(faq, sample, n_random)]
    tokenizer = PlainTokenizer()
    query_tokens = [tokenizer.query(q) for q in queries]
    have = 0
    text_total = 0
    synthetic = 0
    mib = 1024 * 1024
    for n, size in enumerate(sizes):
        folders: list[Path] = []
        copies = min(len(real), max(1, round(size / per_copy)))
        if n == 0:
            folders = real[:copies]
            added = text_bytes(folders)[0]
        else:
            folder = work / f"synthetic{n}"
            added = write_synthetic(folder, sample, int((size - have) * bytes_per_chunk),
                                    seed=n)
            folders = [folder]
            synthetic += added
        fig = _child_add(db, folders)
        text_total += added
        have = fig["chunks"]
        sqlite_bytes, side_bytes = disk_bytes(db)
        build = added / MB / fig["seconds"]
        label = f"{have:,} chunks" + (f" ({synthetic / text_total:.0%} synthetic text)"
                                     if synthetic else " (real docs)")
        say(f"{label}: +{added / MB:.0f} MB indexed in {fig['seconds']:.1f} s -> "
            f"{build:.2f} MB/s; peak RSS {fig['peak'] / mib:.0f} MiB (anonymous "
            f"{fig.get('anon', 0) / mib:.0f} MiB); on disk: SQLite "
            f"{sqlite_bytes / MB:.0f} MB + inverted index {side_bytes / MB:.0f} MB for "
            f"{text_total / MB:.0f} MB of text; load {load()}")
        tag = f"{have // 1000:,}k"
        record("6 scale", f"{tag}: build MB/s", f"{build:.2f}", f">= {TARGET_MB_S}",
               build >= TARGET_MB_S)
        record("6 scale", f"{tag}: peak RSS indexing (anonymous)",
               f"{fig['peak'] / mib:.0f} MiB ({fig.get('anon', 0) / mib:.0f})", "flat")
        record("6 scale", f"{tag}: on disk (text)",
               f"{(sqlite_bytes + side_bytes) / MB:.0f} MB ({text_total / MB:.0f} MB), "
               f"index {side_bytes / MB:.0f} MB")
        if synthetic:
            record("6 scale", f"{tag}: synthetic share of text", f"{synthetic / text_total:.0%}")

        new, fts5, base, whole, build_s = _latencies(db, work, queries, query_tokens)
        target = 5.0 if size <= 150_000 else (25.0 if size >= 900_000 else None)
        rows = (("deepcite (tantivy + re-score)", new), ("FTS5 + re-score (before)", fts5),
                ("bm25s", base), ("bm25s + tokenise + read its chunks", whole))
        b50, b95, _ = latency_line(base)
        for name, times in rows:
            p50, p95, worst = latency_line(times)
            say(f"  {name}: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {worst:.1f} ms")
            ok, goal = None, ""
            if name.startswith("deepcite") and target:
                ok = p95 <= target and (size > 150_000 or (p50 < b50 and p95 < b95))
                goal = f"p95 <= {target:.0f}" + (", < bm25s" if size <= 150_000 else "")
            record("6 scale", f"{tag}: {name} p50/p95 ms", f"{p50:.1f} / {p95:.1f}", goal, ok)
        say(f"  bm25s index build {build_s:.1f} s; load average {load()}")
        record("6 scale", f"{tag}: load average", load())


# ---------------------------------------------------------------------- 3. re-add


def bench_readd(work: Path, sample: list[ChunkRow], settings: Any, n_files: int,
                profile: bool) -> None:
    say(f"\n== 3. second add of an unchanged folder of {n_files:,} small files ==")
    rng = random.Random(11)
    folder = work / "small"
    for n in range(n_files):
        sub = folder / f"d{n % 20:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(rng.choice(sample).text for _ in range(rng.randint(1, 3)))
        if n % 2:
            (sub / f"note{n:04d}.md").write_text(f"# Note {n}\n\n{body}\n", encoding="utf-8")
        else:
            (sub / f"note{n:04d}.txt").write_text(f"Note {n}\n{'=' * len(f'Note {n}')}\n\n"
                                                  f"{body}\n", encoding="utf-8")
    size, files = text_bytes([folder])
    collection = new_collection(work / "small.sqlite", settings)
    report, first = timed(lambda: collection.add(folder))
    say(f"first add: {files} files, {size / MB:.1f} MB in {first:.2f} s ({report.summary()})")
    seconds = []
    for _ in range(3):
        report, s = timed(lambda: collection.add(folder))
        seconds.append(s)
    say(f"second add (x3): {', '.join(f'{s:.3f}' for s in seconds)} s ({report.summary()})")
    worst = max(seconds)
    record("3 re-add", f"unchanged {files:,} files, worst of 3", f"{worst:.3f} s",
           f"< {TARGET_READD_S:.0f} s", worst < TARGET_READD_S)
    record("3 re-add", "first add of the same files", f"{first:.2f} s")
    if profile and worst >= TARGET_READD_S:
        say(profile_top(lambda: collection.add(folder)))


# ========================================================================= main


def check_requirements(docs: Path) -> None:
    if not (docs / "faq").is_dir():
        raise SystemExit(f"bench: no Python docs at {docs}: apt-get install python3.11-doc")
    missing = []
    for module, package in (("rank_bm25", "rank-bm25"), ("bm25s", "bm25s"),
                            ("psutil", "psutil"), ("lxml.html", "lxml")):
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    if missing:
        raise SystemExit(f"bench: missing packages: .venv/bin/pip install {' '.join(missing)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small corpus, smoke run")
    parser.add_argument("--docs", type=Path, default=DOCS_DIR, help="python3.11-doc HTML")
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "deepcite-bench-pydocs",
                        help="where the converted .txt corpus is cached")
    parser.add_argument("--latency-chunks", type=int, default=None,
                        help="collection size for query latency (default 100000, quick 8000)")
    parser.add_argument("--random-queries", type=int, default=100)
    parser.add_argument("--scale", default=None,
                        help="chunk counts of the scale series, comma-separated (default "
                             "100000,300000,1000000; quick 8000,20000,50000; 0 skips it)")
    parser.add_argument("--only-scale", action="store_true",
                        help="run only the scale series (and recall)")
    parser.add_argument("--small-files", type=int, default=1000)
    parser.add_argument("--no-profile", action="store_true",
                        help="do not profile deepcite when a target is missed")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--_child-index", nargs="+", dest="child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_index(Path(args.child[0]), [Path(p) for p in args.child[1:]])
        return
    check_requirements(args.docs)
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    started = time.perf_counter()
    profile = not args.no_profile
    latency_chunks = args.latency_chunks or (8_000 if args.quick else 100_000)
    scale = args.scale or ("8000,20000,50000" if args.quick else "100000,300000,1000000")
    scale_sizes = [int(n) for n in scale.split(",") if int(n) > 0]
    say(f"versions: deepcite {version('deepcite')}, rank-bm25 {version('rank-bm25')}, "
        f"bm25s {bm25s.__version__}, psutil {version('psutil')}, SQLite "
        f"{sqlite3.sqlite_version}, Python {sys.version.split()[0]}; {os.cpu_count()} CPUs")

    say(f"load average before: {load()} (other processes on this machine skew the timings)")
    full_root, faq, convert_s = prepare_corpus(args.docs, args.cache / f"v{CACHE_VERSION}")
    how = f"converted in {convert_s:.1f} s" if convert_s else "cached"
    say(f"corpus: {full_root} ({how})")
    work = Path(tempfile.mkdtemp(prefix="deepcite-bench-"))
    try:
        settings = make_settings(work / "data")
        if args.quick:
            root = work / "quick"
            link_tree(full_root, root, QUICK_PARTS)
        else:
            root = full_root
        say(f"mode: {'quick (' + ', '.join(QUICK_PARTS) + ')' if args.quick else 'full'}")

        db1, chunks1 = bench_throughput(root, work, settings, profile)
        bench_recall(db1, chunks1, root, faq, settings)

        per_copy = max(1, len(chunks1))
        n_copies = max(4, math.ceil(latency_chunks / per_copy))
        copies = []
        for n in range(n_copies):
            copy = work / "copies" / f"c{n:02d}"
            link_tree(root, copy)
            copies.append(copy)
        if not args.only_scale:
            db4 = bench_memory(copies, work, (1, 2, 4))
            bench_latency(db4, copies, 4, latency_chunks, faq, chunks1, settings,
                          args.random_queries, profile)
            bench_readd(work, chunks1, settings, args.small_files, profile)
        if scale_sizes:
            real = copies[:max(1, math.ceil(scale_sizes[0] / per_copy))]
            while len(real) < math.ceil(scale_sizes[0] / per_copy):
                copy = work / "copies" / f"c{len(real):02d}"
                link_tree(root, copy)
                real.append(copy)
            bench_scale(work, real, scale_sizes, faq, chunks1, args.random_queries)
    finally:
        if args.keep:
            say(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    say(f"\n== summary ({'quick' if args.quick else 'full'} run, "
        f"{time.perf_counter() - started:.0f} s; load average after: {load()}) ==")
    widths = [max(len(getattr(r, f)) for r in ROWS) for f in ("section", "what", "value", "target")]
    for r in sorted(ROWS, key=lambda row: row.section[0]):
        say(f"{r.section:<{widths[0]}}  {r.what:<{widths[1]}}  {r.value:>{widths[2]}}  "
            f"{r.target:<{widths[3]}}  {r.verdict}".rstrip())


if __name__ == "__main__":
    main()
