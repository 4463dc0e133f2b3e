"""The index side of a collection: how its chunks are stored, kept in sync and searched.

:mod:`.sqlite_index` is the collection's SQLite file (:class:`Index`: documents, chunks,
FTS5), with :mod:`.schema` (its tables and upgrades), :mod:`.writes` (write
transactions) and :mod:`.readers` (reused read connections). Lexical search is
:mod:`.inverted` (a tantivy index beside the file) or FTS5 through :mod:`.retrieval`,
with :mod:`.query` turning a question into an FTS5 query, :mod:`.cjk` the character
pairs that make Chinese, Japanese and Korean searchable, and :mod:`.rerank` the BM25
re-scoring. Dense retrieval is :mod:`.embeddings` (the sentence encoder),
:mod:`.vectors` (the stored vectors) and :mod:`.dense` (BM25 and vectors together),
merged by :mod:`.fusion` (reciprocal rank fusion, also used by research to merge the
results of many queries). :mod:`.elastic` mirrors a collection to Elasticsearch.

Nothing here is a public import path; :class:`Index` and its record types are
re-exported for the rest of :mod:`deepcite.collections`.
"""

from deepcite.collections.index.sqlite_index import (
    INDEXER_VERSION,
    SCHEMA_VERSION,
    DocumentRecord,
    Hit,
    Index,
    StoredDocument,
    split_heading_path,
)

__all__ = [
    "INDEXER_VERSION",
    "SCHEMA_VERSION",
    "DocumentRecord",
    "Hit",
    "Index",
    "StoredDocument",
    "split_heading_path",
]
