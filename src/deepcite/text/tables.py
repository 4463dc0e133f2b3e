"""The cells of a Markdown table row: one reading of "| a | b |" for every package.

A table row states one fact a row - a setting's default, a model's price, a step's
time - and several parts of deepcite read its cells: the grounded answer quotes a row,
the check compares a claim with a row's cells. Each used to split the row itself, and
one strip more or less (the line's spaces before its first bar) made their cells
disagree; this is the one split they share.
"""

from __future__ import annotations

__all__ = ["markdown_cells"]


def markdown_cells(line: str) -> list[str]:
    """The cells of the table row ``line``, without its outer bars and each stripped of
    its spaces ("| `x` | bool | false |" -> ["`x`", "bool", "false"]); a line without
    bars is one cell. An empty cell stays, as "", so cells line up with their columns."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]
