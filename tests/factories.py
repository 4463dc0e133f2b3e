"""Real files for tests, made on the spot."""

from __future__ import annotations

from pathlib import Path

import pytest


def make_pdf(path: Path, pages: list[str], title: str | None = None) -> Path:
    """A real PDF with one text line per page (an empty string makes a blank page)."""
    canvas_mod = pytest.importorskip("reportlab.pdfgen.canvas")
    pdf = canvas_mod.Canvas(str(path))
    if title:
        pdf.setTitle(title)
    for text in pages:
        if text:
            pdf.drawString(72, 720, text)
        pdf.showPage()
    pdf.save()
    return path
