"""Classes of claim a check judged wrongly in a patient's review of a dental practice
and a sysadmin's runbook for a chat server (issue 48's seventeenth pass): a path given
where the source gives another, a list of weekdays with one day changed, a comparative
against the verb the source denies ("a longer period" against "never lengthen it"), a
visit named as a patient names it, and a claim whose only stated part is a name."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.other_words import other_of_kind
from deepcite.factcheck.paths import paths_in
from tests.fakes import passage


def _judged(claim: str, *sources: str) -> tuple[str, str]:
    judgement = judge(claim, [passage(f"Source {n}", text) for n, text in enumerate(sources)])
    return judgement.verdict, "; ".join(f"{c.draft} / {c.source}" for c in judgement.conflicts)


BACKUPS = (
    "## Snapshots\n\n`quarry snapshot` writes a compressed archive to `/srv/snapshots/quarry` "
    "by default. It keeps the newest five archives.\n\n"
    "| key | default |\n|---|---|\n| `store.path` | `/var/lib/quarry/store` |\n")


def test_paths_are_read_whole_and_not_from_urls() -> None:
    assert paths_in("Logs go to /var/log/quarry/ and ~/.config/quarry.") == [
        "/var/log/quarry", "~/.config/quarry"]
    assert paths_in("See https://example.org/docs/setup for more.") == []
    assert paths_in("It runs in 2/3 of the cases.") == []


def test_a_path_the_source_gives_otherwise_contradicts_the_claim() -> None:
    verdict, conflicts = _judged(
        "Snapshots land in /var/lib/quarry/snapshots by default.", BACKUPS)
    # the sentence on snapshots, not the store's row that shares as many path parts
    assert verdict == "contradicted" and "/srv/snapshots/quarry" in conflicts
    assert _judged("Snapshots land in /srv/snapshots/quarry by default.",
                   BACKUPS)[0] == "supported"


def test_a_list_of_weekdays_with_one_day_changed() -> None:
    assert other_of_kind("He works Tuesdays, Thursdays and Fridays.",
                         "Works Tuesday, Thursday and Saturday.") == ("friday", "saturday")
    assert other_of_kind("He works Tuesdays, Thursdays and Saturdays.",
                         "Works Tuesday, Thursday and Saturday.") is None
    source = ("**Ines Baptista** - Physiotherapist. Works Tuesday, Thursday and Saturday.")
    verdict, conflicts = _judged("Ines works Tuesdays, Thursdays and Fridays.", source)
    assert verdict == "contradicted" and "saturday" in conflicts


def test_a_comparative_against_the_verb_the_source_denies() -> None:
    source = ("Team owners can set a project-level quota. A project quota can only "
              "shorten the account's storage limit, never lengthen it.")
    assert _judged("Team owners can give a project a longer storage limit than the "
                   "account's.", source)[0] == "contradicted"


def test_a_visit_named_as_a_patient_names_it() -> None:
    source = ("- **£12 per month**, paid by direct debit;\n"
              "- includes **two examinations and one X-ray** each year;\n")
    assert _judged("The plan includes two check-ups and one X-ray a year.",
                   source)[0] == "supported"


def test_a_claim_whose_only_stated_part_is_a_name_is_not_found() -> None:
    source = ("- **Dr Lena Fischer** - Associate Dentist. Works Monday and Tuesday.\n"
              "- **Dr Omar Haddad** - Principal Dentist.\n")
    assert _judged("If you're anxious, Dr Fischer offers hypnotherapy.",
                   source)[0] == "not_found"
    # a name with what the sentence says of it stays stated
    assert _judged("Dr Fischer works Mondays and Tuesdays.", source)[0] == "supported"
