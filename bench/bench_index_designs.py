"""Designs for collection search, side by side: recall@10 and latency on one collection.

The figures behind the choice in docs/collections.md. One collection of the Python docs
(``--copies`` copies, default 1 for recall; 9 copies are ~105k chunks) is indexed once
by the current code, then every design answers the same queries from the same files:

- ``fts5``: the FTS5 path (FTS5 bm25 over the rarest terms, top 50 re-scored with the
  Lucene IDF): what every search used before the inverted index;
- ``tantivy``: tantivy's own BM25 top 10 (block-max WAND), no re-scoring;
- ``tantivy+title``: the same with the title field OR-ed in at weight 0.5;
- ``tantivy+rescore N``: tantivy's top N re-scored (what ``Collection.search`` does
  with N = 30).

    .venv/bin/python bench/bench_index_designs.py [--copies 9]

Needs what ``bench_collections.py`` needs (python3.11-doc, the converted corpus).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_collections as bc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--docs", type=Path, default=bc.DOCS_DIR)
    args = parser.parse_args()
    bc.check_requirements(args.docs)
    from deepcite.collections.index import Index, inverted, inverted_rescore, rerank, retrieval

    root, faq, _ = bc.prepare_corpus(args.docs, Path(tempfile.gettempdir())
                                     / "deepcite-bench-pydocs" / f"v{bc.CACHE_VERSION}")
    work = Path(tempfile.mkdtemp(prefix="deepcite-designs-"))
    try:
        copies = []
        for n in range(args.copies):
            copy = work / "copies" / f"c{n:02d}"
            bc.link_tree(root, copy)
            copies.append(copy)
        db = work / "designs.sqlite"
        collection = bc.new_collection(db, bc.make_settings(work / "data"))
        _, seconds = bc.timed(lambda: collection.add(copies))
        index = Index(db)
        chunks = bc.read_chunks(db)
        bc.say(f"{len(chunks):,} chunks ({args.copies} copies) indexed in {seconds:.1f} s; "
               f"load {bc.load()}")
        gold = [(str((copies[0] / item.rel).resolve()), item.start, item.end) for item in faq]
        where = {c.id: (c.path, c.start, c.end) for c in chunks}
        queries = [q for _, q in bc.make_queries(faq, chunks[:20_000], 100)]

        def hit(chunk_id: int, g: tuple[str, int, int]) -> bool:
            path, start, end = where[chunk_id]
            overlap = min(end, g[2]) - max(start, g[1])
            return path == g[0] and overlap > 0 and \
                overlap >= 0.5 * min(end - start, g[2] - g[1])

        with index.connect() as conn:
            searcher = inverted._current_searcher(conn, db)
            if conn.in_transaction:
                conn.execute("COMMIT")
            if searcher is None:
                raise SystemExit("bench: the inverted index is not in step with the file")
            _, avg = rerank.stats(conn)

            def plain(question: str, title: float = 0.0) -> list[int]:
                terms = inverted._terms(question) or []
                if not terms:
                    return []
                query = inverted._query("text", terms)
                if title:
                    query = inverted.tantivy.Query.boolean_query([
                        (inverted.tantivy.Occur.Should, query),
                        (inverted.tantivy.Occur.Should, inverted.tantivy.Query.boost_query(
                            inverted._query("title", terms), title))])
                return inverted._ids(searcher, query, bc.K)

            def rescored(question: str, pool: int) -> list[int]:
                terms = inverted._terms(question) or []
                if not terms:
                    return []
                ids = inverted._ids(searcher, inverted._query("text", terms), pool)
                by_id = {h.chunk_id: h for h in retrieval.hits_by_ids(conn, ids)}
                hits = [by_id[i] for i in ids if i in by_id]
                texts = {h.chunk_id: h.text for h in hits}
                titles = {h.chunk_id: h.title for h in hits}  # as search() re-scores
                best = inverted_rescore.rescore(
                    searcher, terms, texts, list(texts), avg, bc.K, titles,
                    inverted_rescore.dotted_heads(question))
                return [chunk_id for chunk_id, _ in best]

            designs: dict[str, Callable[[str], list[int]]] = {
                "fts5": lambda q: [h.chunk_id for h in rerank.search(conn, q, bc.K)],
                "tantivy": plain,
                "tantivy+title": lambda q: plain(q, 0.5),
                "tantivy+rescore 30": lambda q: rescored(q, 30),
                "tantivy+rescore 50": lambda q: rescored(q, 50),
            }
            for name, run in designs.items():
                found = sum(any(hit(c, g) for c in run(item.question))
                            for item, g in zip(faq, gold, strict=True))
                times = bc.time_queries(run, queries)
                p50, p95, worst = bc.latency_line(times)
                bc.say(f"{name:<20} recall@10 {found / len(faq):.3f}  p50 {p50:.2f} ms  "
                       f"p95 {p95:.2f} ms  max {worst:.2f} ms  (load {bc.load()})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    bc.say(f"done in {time.perf_counter() - started:.0f} s")
