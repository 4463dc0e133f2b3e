"""Claims a check judged wrongly on unseen drafts (issue 48's twelfth pass): support
withdrawn ("was dropped", "no longer provided") denies a claim that it is supported, and
a name's short form ("Postgres") names what the source's long one does ("PostgreSQL")."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.shortnames import short_form_in
from deepcite.factcheck.withdrawn import as_denial
from tests.fakes import passage


def _verdict(claim: str, source: str) -> str:
    return judge(claim, [passage("Doc", source)]).verdict


def test_support_dropped_for_a_version_contradicts_a_claim_it_is_supported() -> None:
    source = "Support for PostgreSQL 11 was dropped in version 3.0."
    assert _verdict("keepsake supports PostgreSQL from version 11.", source) == "contradicted"
    assert _verdict("keepsake supports PostgreSQL 11.",
                    "- Dropped support for PostgreSQL 11.") == "contradicted"


def test_the_same_withdrawal_in_the_claim_agrees() -> None:
    source = "Support for PostgreSQL 11 was dropped in version 3.0."
    assert _verdict(source, source) == "supported"


def test_no_longer_provided_is_a_denial_but_no_longer_than_is_a_bound() -> None:
    assert _verdict("32-bit builds are provided.",
                    "32-bit builds are no longer provided.") == "contradicted"
    assert "not provided" in as_denial("Builds are no longer provided.")
    assert as_denial("Stays no longer than 30 days.") == "Stays no longer than 30 days."


def test_removing_something_else_than_support_is_no_denial() -> None:
    assert as_denial("Metadata is removed by default.") == "Metadata is removed by default."


def test_a_name_by_its_first_letters_is_the_same_name() -> None:
    assert _verdict("Incremental backups only work against Postgres.",
                    "Full backups for all supported databases, and incremental backups "
                    "for PostgreSQL only.") == "supported"
    assert short_form_in("Postgres", "backups of PostgreSQL databases")
    assert not short_form_in("Post", "backups of PostgreSQL databases")  # too short
    assert not short_form_in("Lund University", "Uppsala University")


def test_stopping_something_denies_it_as_no_longer_does() -> None:
    assert _verdict("Version 2.0 stopped providing 32-bit builds.",
                    "32-bit builds are no longer provided.") != "contradicted"
    assert _verdict("Version 2.0 still provides 32-bit builds.",
                    "32-bit builds are no longer provided.") == "contradicted"
