"""The detailed report builder: research once, outline, research each part, assemble.

One module per step of the build, read in this order:

- :mod:`~deepcite.research.report.builder`: ``DetailedReport``, the build itself
  (summary run, outline, parts, assembly, cancelling);
- :mod:`~deepcite.research.report.part_writing`: the parts written, each by its own
  run on the same Researcher from passages of its own, with the context cuts its
  writer sees;
- :mod:`~deepcite.research.report.assembly`: contents, Summary, numbered parts, no
  empty part, and the one result the store keeps;
- :mod:`~deepcite.research.report.outline`: the outline asked of the model, parsed
  leniently;
- :mod:`~deepcite.research.report.facets`: the outline built from the question's
  facets and the evidence found, each part with its passages (small models, and any
  model whose outline is unusable);
- :mod:`~deepcite.research.report.parts_ahead`: parts searched ahead of their writing,
  several at a time;
- :mod:`~deepcite.research.report.part_passages`: passages of its own for every part,
  none quoted twice.

Nothing is re-exported here: front ends reach the builder through :mod:`deepcite.runs`
only (the ``runs-own-runs`` import rule names
:mod:`deepcite.research.report.builder`); the command line's outline review reads
:mod:`~deepcite.research.report.outline` directly.
"""
