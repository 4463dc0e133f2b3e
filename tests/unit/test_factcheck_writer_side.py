"""Claims of notes and emails (issue 48's twelfth pass): a number in words said as the
value ("the default is three"), a change a changelog writes in digits, and a version
named a few words before a changelog's item."""

from __future__ import annotations

from deepcite.factcheck.comments import writer_comment
from deepcite.factcheck.judge import Judgement, judge
from deepcite.factcheck.passages import values_of
from tests.fakes import passage

CHANGES = [
    passage("Changelog", "## 4.1.0 - 2025-03-02\n\n### Changed\n- `threads` default "
            "raised from 3 to 6.\n- Sitemaps list images too.\n\n## 4.0.0 - 2024-11-20\n\n"
            "### Added\n- `quill export --format pdf` for printing whole handbooks."),
]


def _note(judgement: Judgement) -> str:
    return "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


def test_a_number_in_words_said_as_the_value_is_read_as_one() -> None:
    assert [v.amount for v in values_of("The default number of threads is three.")] == [3.0]
    assert [v.amount for v in values_of("The retry count defaults to two")] == [2.0]
    # "is one of" counts nothing of its own
    assert values_of("Oslo is one of the stops.") == ()


def test_a_value_in_words_that_a_change_replaced_is_contradicted() -> None:
    judgement = judge("The default number of threads is three.", CHANGES)
    assert judgement.verdict == "contradicted", judgement
    assert "6" in _note(judgement)


def test_a_version_written_before_its_number_dates_a_changelog_item() -> None:
    judgement = judge("Handbooks can be exported to PDF since version 3.2.", CHANGES)
    assert judgement.verdict == "contradicted", judgement
    assert "4.0.0" in _note(judgement)
    said = judge("Handbooks can be exported to PDF since version 4.0.", CHANGES)
    assert said.verdict == "supported", said



def test_one_setting_winning_over_another_is_an_override_however_written() -> None:
    source = [passage("Config", "A command-line option always overrides the same key "
                      "in the settings file.")]
    for claim in ("A command-line option wins over the settings file.",
                  "A command-line option takes priority over the settings file.",
                  "A command-line option beats the settings file."):
        assert judge(claim, source).verdict == "supported", claim


def test_a_comment_naming_a_colleague_no_source_names_is_the_writers() -> None:
    source = [passage("Setup", "## Requirements\n\nNode 20 or newer is needed to build "
                      "the site. Windows is supported natively.")]
    judgement = judge("Building the site needs Node 20 or newer, so Marek can drop his "
                      "old workaround.", source)
    assert judgement.verdict == "supported", judgement
    # a name the sources have is no colleague: the clause stays part of the claim
    text = "It needs Node 20, so Windows builds need a licence key."
    assert writer_comment(text, lambda name: name != "Windows") is None
    assert writer_comment(text.replace("Windows", "Marek's"), lambda name: True) == 16
