"""Loaders and chunking of deepcite.collections, on real files."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
import trafilatura

from deepcite.collections.chunking import (
    OVERLAP_TOKENS,
    TARGET_TOKENS,
    Chunk,
    TokenCounter,
    chunk_document,
    chunk_text,
)
from deepcite.collections.headings import find_headings, heading_paths, leading_title
from deepcite.collections.loaders import (
    LOADERS,
    LoadedDocument,
    LoadError,
    PageText,
    load_document,
)
from deepcite.errors import CollectionError
from tests.factories import make_pdf

# ------------------------------------------------------------------------ loaders


def test_markdown_title_is_first_h1(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("Intro line\n\n```\n# not a title\n```\n\n# Real Title\n\nBody.\n")
    doc = load_document(path)
    assert doc.title == "Real Title"
    assert doc.kind == "markdown"
    assert doc.pages == [PageText(None, path.read_text())]


def test_markdown_without_heading_uses_stem(tmp_path: Path) -> None:
    path = tmp_path / "plain-notes.markdown"
    path.write_text("Just text.\n")
    assert load_document(path).title == "plain-notes"


def test_rst_title_with_overline(tmp_path: Path) -> None:
    path = tmp_path / "guide.rst"
    path.write_text("=========\nThe Guide\n=========\n\nSection\n-------\n\nText.\n")
    doc = load_document(path)
    assert (doc.title, doc.kind) == ("The Guide", "rst")


def test_txt_title_from_first_line_only(tmp_path: Path) -> None:
    titled = tmp_path / "a.txt"
    titled.write_text("\nMy Report\n=========\n\ntext\n")
    untitled = tmp_path / "b.txt"
    untitled.write_text("hello there\n\n# comment later\n")
    assert load_document(titled).title == "My Report"
    assert load_document(untitled).title == "b"
    assert load_document(untitled).kind == "text"


def test_text_falls_back_to_latin1_and_normalises_newlines(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes("caf\xe9 cr\xe8me\r\nline two\r\n".encode("latin-1"))
    doc = load_document(path)
    assert doc.pages[0].text == "café crème\nline two\n"


def test_utf8_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.md"
    path.write_bytes("\ufeff# Título\n\ntexto\n".encode())
    assert load_document(path).title == "Título"


ARTICLE = """<html><head><title>Growing Tomatoes &amp; Peppers</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Growing tomatoes</h1>
<p>Tomatoes need full sun, at least six to eight hours a day, and warm soil. Plant them
deep: roots grow along the buried stem, which makes the plant sturdier in wind.</p>
<p>Water deeply and regularly at the base of the plant. Uneven watering causes blossom
end rot and split fruit, two of the most common problems gardeners see each summer.</p>
<p>Stake or cage the plants early, before the fruit weighs the branches down, and prune
the suckers of indeterminate varieties to keep the plant open to air and light.</p>
</article><footer>Copyright 2024</footer></body></html>"""


def test_html_main_text_and_title(tmp_path: Path) -> None:
    path = tmp_path / "tomatoes.html"
    path.write_text(ARTICLE)
    doc = load_document(path)
    assert doc.title == "Growing Tomatoes & Peppers"
    assert doc.kind == "html"
    assert "blossom" in doc.pages[0].text
    assert "<p>" not in doc.pages[0].text


def test_html_fallback_when_trafilatura_finds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trafilatura, "extract", lambda *a, **k: None)
    path = tmp_path / "tiny.htm"
    path.write_text(
        "<html><head><title>Tiny</title><style>p{color:red}</style></head>"
        "<body><p>First para</p><script>var x = 1;</script><p>Second &lt;b&gt;</p></body></html>"
    )
    doc = load_document(path)
    assert doc.title == "Tiny"
    assert doc.pages[0].text == "Tiny\n\nFirst para\n\nSecond <b>"


def test_pdf_pages_are_numbered_and_blank_pages_warned(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "paper.pdf", ["alpha page one", "", "gamma page three"],
                    title="A Paper")
    doc = load_document(path)
    assert doc.title == "A Paper"
    assert doc.kind == "pdf"
    assert [p.page for p in doc.pages] == [1, 2, 3]
    assert "alpha" in doc.pages[0].text and "gamma" in doc.pages[2].text
    assert doc.warnings == ["page 2: no extractable text (scanned image?)"]


def test_pdf_without_metadata_title_uses_first_line_else_stem(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan-042.pdf", ["", "Rainfall in the Andes"])
    assert load_document(path).title == "Rainfall in the Andes"
    assert load_document(make_pdf(tmp_path / "scan-043.pdf", [""])).title == "scan-043"


def test_corrupt_pdf_raises_one_line_collection_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"this is not a pdf at all\n" * 3)
    with pytest.raises(CollectionError) as info:
        load_document(path)
    message = str(info.value)
    assert message.startswith(f"{path}: not a valid PDF")
    assert "\n" not in message
    assert isinstance(info.value, LoadError) and info.value.path == path


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = tmp_path / "data.xyz"
    path.write_bytes(b"x")
    with pytest.raises(LoadError, match=r"unsupported file type \.xyz; supported: .*\.md"):
        load_document(path)


def test_unreadable_file_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="cannot read file"):
        load_document(tmp_path / "missing.txt")


def test_registry_accepts_new_loaders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def load_odt(path: Path) -> LoadedDocument:
        return LoadedDocument(path, "doc", "odt", [PageText(None, path.read_text())])

    monkeypatch.setitem(LOADERS, ".odt", load_odt)
    path = tmp_path / "t.ODT"
    path.write_text("a,b\n1,2\n")
    assert load_document(path).kind == "odt"


# ---------------------------------------------------------------------- headings


def test_find_headings_markdown_and_rst() -> None:
    text = "# One\n\nbody\n\nTwo\n---\n\n    # indented comment\n\n## Three ##\n"
    assert [(h.text, h.style) for h in find_headings(text)] == [
        ("One", "markdown"), ("Two", "rst"), ("Three", "markdown"),
    ]
    assert leading_title("\n\n# Top\nrest") == "Top"
    assert leading_title("text\n# Later") is None


# ---------------------------------------------------------------------- chunking


def _random_text(rng: random.Random) -> str:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"]
    paragraphs = []
    for _ in range(rng.randint(0, 25)):
        kind = rng.random()
        if kind < 0.1:
            paragraphs.append(f"# Heading {rng.randint(1, 99)}")
        elif kind < 0.15:
            paragraphs.append("x" * rng.randint(900, 2600))  # one overlong "word"
        else:
            lines = []
            for _ in range(rng.randint(1, 12)):
                count = rng.randint(1, 60)
                lines.append(" ".join(rng.choice(words) for _ in range(count)))
            paragraphs.append("\n".join(lines))
    separators = ["\n\n", "\n \n", "\n\n\n\t", "\r\n\r\n"]
    text = ""
    for paragraph in paragraphs:
        text += paragraph + rng.choice(separators)
    return rng.choice(["", "  ", "\n"]) + text


def _check_chunks(text: str, chunks: list[Chunk], target: int = TARGET_TOKENS) -> None:
    count = TokenCounter(text)
    for chunk in chunks:
        assert text[chunk.start:chunk.end] == chunk.text
        assert chunk.text and chunk.text == chunk.text.strip()
        assert count.tokens(chunk.start, chunk.end) <= target + 5
        # Chunks start at a word boundary unless an overlong word was cut.
        if chunk.start > 0 and not text[chunk.start - 1].isspace():
            assert text[chunk.start - 1] == "x"
        if chunk.end < len(text) and not text[chunk.end].isspace():
            assert text[chunk.end] == "x"
    covered: set[int] = set()
    for chunk in chunks:
        covered.update(range(chunk.start, chunk.end))
    assert all(text[i].isspace() for i in range(len(text)) if i not in covered)
    for first, second in itertools.pairwise(chunks):
        assert first.start < second.start and first.end < second.end


@pytest.mark.parametrize("seed", range(40))
def test_chunk_offsets_are_exact_slices(seed: int) -> None:
    text = _random_text(random.Random(seed))
    _check_chunks(text, chunk_text(text, page=3))


def test_chunks_overlap_by_a_word_aligned_tail() -> None:
    paragraphs = [f"Paragraph {n} " + " ".join(f"word{n}_{i}" for i in range(40))
                  for n in range(12)]
    text = "\n\n".join(paragraphs)
    chunks = chunk_text(text)
    assert len(chunks) > 3
    for first, second in itertools.pairwise(chunks):
        overlap = first.end - second.start
        assert 0 < overlap <= OVERLAP_TOKENS * 4
        assert text[second.start - 1].isspace()


def test_paragraphs_are_not_split_when_they_fit() -> None:
    paragraphs = ["A" * 10 + " " + "b " * 300, "C" * 10 + " " + "d " * 300]
    text = "\n\n".join(p.strip() for p in paragraphs)
    chunks = chunk_text(text, overlap_tokens=0)
    assert [c.text for c in chunks] == [p.strip() for p in paragraphs]


def test_chunk_headings_follow_the_nearest_preceding_heading() -> None:
    text = ("# Install\n\n" + "pip install things. " * 60 + "\n\n## Usage\n\n"
            + "run the tool. " * 60 + "\n\nUnder usage still.")
    chunks = chunk_text(text)
    assert chunks[0].heading == "Install"
    assert chunks[-1].heading == "Usage"
    assert all(c.page is None for c in chunks)


def test_empty_text_has_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\n \t") == []


def test_chunk_document_keeps_page_numbers() -> None:
    doc = LoadedDocument(Path("x.pdf"), "x", "pdf",
                         [PageText(1, "first page"), PageText(2, ""), PageText(3, "third")])
    assert [(c.page, c.text) for c in chunk_document(doc)] == [(1, "first page"), (3, "third")]


# ------------------------------------------------------------------ heading paths


def test_heading_paths_nest_by_level() -> None:
    text = ("# Guide\n\n## Installation\n\n### On Linux\n\napt\n\n### On macOS\n\nbrew\n\n"
            "## Usage\n\nrun\n\n# Appendix\n\n#### Deep\n\nx\n")
    assert [p for p in heading_paths(find_headings(text))] == [
        ("Guide",), ("Guide", "Installation"), ("Guide", "Installation", "On Linux"),
        ("Guide", "Installation", "On macOS"), ("Guide", "Usage"), ("Appendix",),
        ("Appendix", "Deep"),
    ]


def test_rst_levels_follow_the_order_adornments_appear() -> None:
    text = ("=====\nBook\n=====\n\nPart\n----\n\nChapter\n~~~~~~~\n\ntext\n\n"
            "Second part\n-----------\n\nmore\n")
    headings = find_headings(text)
    assert [(h.text, h.level) for h in headings] == [
        ("Book", 1), ("Part", 2), ("Chapter", 3), ("Second part", 2)]
    assert heading_paths(headings)[-1] == ("Book", "Second part")


def test_every_chunk_lies_in_one_section_with_its_path() -> None:
    text = ("# Guide\n\n## Installation\n\n### On Linux\n\nUse apt.\n\n### On macOS\n\n"
            "Use brew.\n\nIntro words. " + "More words here. " * 80)
    chunks = chunk_text(text)
    assert [(c.heading_path, c.text.split("\n")[0]) for c in chunks[:2]] == [
        (("Guide", "Installation", "On Linux"), "# Guide"),  # leading headings stay
        (("Guide", "Installation", "On macOS"), "### On macOS"),
    ]
    assert chunks[0].heading == "On Linux"
    assert chunks[1].start == text.index("### On macOS")  # no overlap into a section
    assert all(c.heading_path == ("Guide", "Installation", "On macOS") for c in chunks[1:])
    assert len(chunks) > 2


def test_token_targets_are_configurable() -> None:
    text = " ".join(f"w{i:03d}" for i in range(2000))  # 5 characters per word
    small = chunk_text(text, target_tokens=50, overlap_tokens=0)
    large = chunk_text(text)
    assert all(len(c.text) <= 50 * 4 for c in small)
    assert all(len(c.text) <= TARGET_TOKENS * 4 for c in large)
    assert len(small) > 3 * len(large)
    with pytest.raises(ValueError):
        chunk_text(text, target_tokens=0)


@pytest.mark.parametrize("seed", range(30))
def test_long_lines_without_cjk_break_where_word_by_word_packing_does(seed: int) -> None:
    """The one-step packing of overlong plain lines (a speed path) cuts exactly where
    packing word by word does: same pieces, words whole, overlong words cut."""
    from deepcite.collections import chunking

    rng = random.Random(seed)
    words = ["a", "to", "index", "x" * rng.randint(5, 40), "y" * rng.randint(60, 200),
             "tab\tbed", "é", "ünïcode"]
    text = " " * rng.randint(0, 3) + "  ".join(
        " ".join(rng.choice(words) for _ in range(rng.randint(1, 30)))
        for _ in range(rng.randint(1, 40)))
    end = len(text.rstrip())
    start = len(text) - len(text.lstrip())
    count = TokenCounter(text)
    assert count.plain
    for limit in (1.0, 3.5, 10.0, 52.25, 260.0):
        fast = list(chunking._plain_words(text, start, end, limit))
        slow = list(chunking._counted_words(text, start, end, limit, count))
        assert fast == slow
        assert all(count.tokens(a, b) <= limit for a, b in fast)
