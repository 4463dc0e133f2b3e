"""Claims a check judged wrongly on unseen drafts (issue 48's eleventh pass): a change
a changelog's release heading dates while its item names no version; two sentences of
one list item saying a claim together; opposites with no shared marker word."""

from __future__ import annotations

from deepcite.factcheck.judge import Judgement, judge
from deepcite.factcheck.releases import release_heading
from deepcite.factcheck.terms import terms_of
from tests.fakes import passage

CHANGELOG = [
    passage("Changelog", "## 2.1 (3 June 2024)\n\n- WebP output. Files can be written "
            "as WebP with `--format webp`.\n- `--quiet` now also hides the progress bar."),
    passage("Changelog", "## 1.8 (2 August 2023)\n\n- WebP input (read only).\n"
            "- New `--no-upscale` option."),
    passage("Changelog", "## 2.0 (14 March 2024)\n\n- 32-bit builds are no longer "
            "provided.\n- Folders are processed in alphabetical order."),
]
OPTIONS = [
    passage("Options", "## Performance\n\n- `--threads N` \u2013 how many files are "
            "converted at the same time. The default is the number of logical CPU "
            "cores; the maximum is 128.\n- `--cache DIR` \u2013 where thumbnails are kept."),
]


def _judged(claim: str, passages: list) -> tuple[Judgement, str]:  # type: ignore[type-arg]
    judgement = judge(claim, passages)
    return judgement, "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


def test_a_release_heading_scopes_the_items_under_it() -> None:
    text = "## 2.1 (3 June 2024)\n\n- WebP output.\n\n## Notes\n\n- Other."
    assert release_heading(text, text.index("WebP")) == ("2.1", "2.1 (3 June 2024)")
    assert release_heading(text, text.index("Other")) is None
    assert release_heading("## [v3.0.0] - 2024-01-02\n- x", 25)[0] == "3"  # type: ignore[index]


def test_a_change_dated_by_another_release_heading_is_contradicted() -> None:
    judgement, note = _judged("WebP output has been available since version 1.8.",
                              CHANGELOG)
    assert judgement.verdict == "contradicted" and "2.1" in note


def test_a_change_under_its_own_release_heading_is_not_contradicted() -> None:
    judgement, _ = _judged("WebP output has been available since version 2.1.", CHANGELOG)
    assert judgement.verdict == "supported"
    judgement, _ = _judged("Version 2.0 stopped providing 32-bit builds.", CHANGELOG)
    assert judgement.verdict != "contradicted"


def test_doing_things_at_once_is_one_word_however_written() -> None:
    assert "parallel" in terms_of("converts as many files at once as it can") \
        & terms_of("files are converted at the same time") \
        & terms_of("runs jobs simultaneously")
    assert "number" in terms_of("as many files at once as it has cores") \
        & terms_of("how many files are converted")


def test_two_sentences_of_one_list_item_say_a_claim_together() -> None:
    judgement, _ = _judged("Out of the box, it converts as many files at once as the "
                           "machine has logical CPU cores.", OPTIONS)
    assert judgement.verdict == "supported"
