"""Loaders: files on disk turned into the plain-text pages the chunker and index read.

One module per job: :mod:`.registry` maps each file suffix to its loader (the built-in
plain-text, Markdown, reStructuredText, HTML and PDF loaders, and the ``deepcite.loaders``
plugins) and holds :func:`load_document`; :mod:`.csv_file`, :mod:`.docx_file` and
:mod:`.epub_file` read those formats; :mod:`.html_text` gives an HTML page's visible
text, :mod:`.encoding` decodes text files of unknown encoding, and :mod:`.limits` stops
a file that expands too far while it is read. What a loader returns
(:class:`LoadedDocument`, :class:`PageText`, :class:`LoadError`) lives in
:mod:`deepcite.collections.documents` and is re-exported here.

Public for loader plugins and their authors: the names in ``__all__`` below, imported
from ``deepcite.collections.loaders``.
"""

# The registry's public names are this package's: one list, kept in registry.__all__.
from deepcite.collections.loaders.registry import *  # noqa: F403
from deepcite.collections.loaders.registry import __all__ as __all__
