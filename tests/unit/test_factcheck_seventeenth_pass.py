"""Classes of claim a check judged wrongly in a patient's review of a dental practice
and a sysadmin's runbook for a chat server (issue 48's seventeenth pass): a path given
where the source gives another, a list of weekdays with one day changed, a comparative
against the verb the source denies ("a longer period" against "never lengthen it"), a
visit named as a patient names it, and a claim whose only stated part is a name."""

from __future__ import annotations

from deepcite.factcheck.agreement import agrees
from deepcite.factcheck.claims import clean_claim, split_claims
from deepcite.factcheck.judge import judge
from deepcite.factcheck.negation import negated
from deepcite.factcheck.other_words import other_of_kind
from deepcite.factcheck.passages import Pool, passage_spans, values_of
from deepcite.factcheck.paths import paths_in
from deepcite.factcheck.persons import person_before
from deepcite.factcheck.referents import resolve_pronouns
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.value_days import day_elsewhere
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


HOURS = ("## Opening hours\n\n| Day | Hours |\n|---|---|\n| Monday | 09:00 – 17:30 |\n"
         "| Friday | 09:00 – 16:00 |\n| Saturday | 10:00 – 13:00 |\n")


def test_half_an_hour_as_british_english_says_it() -> None:
    assert [v.key for v in values_of("They shut at half four.")] == ["04:30"]
    assert [v.key for v in values_of("Call by half two.")] == ["02:30"]
    # no time: a price, a duration
    assert not values_of("Tickets are at half price.")
    assert [v.key for v in values_of("It takes half four hours, roughly.")] != ["04:30"]


def test_a_time_without_am_or_pm_meets_the_afternoon_of_a_table_row() -> None:
    verdict, conflicts = _judged("Fridays they shut at half four.", HOURS)
    # the afternoon end the claim misread, not the morning opening
    assert verdict == "contradicted" and "16:00" in conflicts
    assert _judged("On Fridays they close at 4:00.", HOURS)[0] == "supported"
    assert _judged("On Fridays they shut at 4pm.", HOURS)[0] == "supported"
    # written on the 24-hour clock, 04:00 is the night's
    assert _judged("On Fridays they close at 04:00.", HOURS)[0] == "contradicted"


def test_she_or_his_stands_for_the_person_named_last_even_in_a_remark() -> None:
    draft = ("Our physio is great. Ines is lovely and very patient (thanks, Ines). "
             "She works Tuesdays, Thursdays and Fridays.")
    claims = split_claims(draft)
    said = resolve_pronouns(draft, claims)
    works = next(c for c in claims if c.text.startswith("She works"))
    assert said[works.number].text.startswith("Ines works Tuesdays")
    source = "**Ines Baptista** - Physiotherapist. Works Tuesday, Thursday and Saturday."
    assert _judged(said[works.number].text, source)[0] == "contradicted"
    # a sentence's subject before a place it names; a titled name first
    biography = "Marie Curie was born in Warsaw in 1867. She won two Nobel Prizes."
    assert person_before(biography, biography.index("She")) == "Marie Curie"
    clinic = "We met Dr Ana Silva at the clinic in Leeds. Her clinic opens at nine."
    assert person_before(clinic, clinic.index("Her")) == "Dr Ana Silva"
    assert person_before("The weather was fine. She left.", 23) is None


def test_a_line_of_names_that_the_next_line_goes_on_from_is_no_title() -> None:
    text = ("Hearthline requires PostgreSQL 14 or later. MySQL and MariaDB are not\n"
            "supported from version 4.0 onward.")
    assert [text[a:b] for a, b in passage_spans(text)][-1].startswith("MySQL and MariaDB")
    # a title line still stands alone
    titled = "Release Notes\nThe 4.0 release drops MySQL."
    assert [titled[a:b] for a, b in passage_spans(titled)] == [
        "Release Notes", "The 4.0 release drops MySQL."]


def test_a_decimal_written_the_same_is_the_same_release() -> None:
    source = ("Hearthline requires PostgreSQL 14 or later. MySQL and MariaDB are not\n"
              "supported from version 4.0 onward.")
    judgement = judge("MySQL has been unsupported since 4.0.", [passage("S", source)])
    assert "4.0" in judgement.stated and "4.0" not in judgement.missing


BRANCH_HOURS = ("## Opening hours\n\n| Branch | Monday to Friday | Saturday |\n|---|---|---|\n"
                "| Eastbrook | 10:00 to 18:00 (Thursday until 19:30) | 10:00 to 16:00 |\n"
                "| Westfield | 09:00 to 17:00 | Closed |\n")


def test_a_time_the_source_gives_for_another_weekday() -> None:
    verdict, conflicts = _judged(
        "Eastbrook opening hours run until half seven on Wednesdays.", BRANCH_HOURS)
    assert verdict == "contradicted" and "Thursday 19:30" in conflicts
    assert _judged("Eastbrook opening hours run until half seven on Thursdays.",
                   BRANCH_HOURS)[0] == "supported"


def test_a_range_of_days_covers_the_claims_day() -> None:
    row = next(s for s in Pool(["Open Monday to Friday 10:00 to 19:30."]).sentences)
    claim = "It is open on Wednesdays till half seven."
    assert day_elsewhere(claim, values_of(claim), {"half seven": row}) is None


def test_late_is_overdue() -> None:
    assert terms_of("late books") == terms_of("overdue books")
    fines = ("## Overdue charges\n\n| Item | Charge per day, per item | Maximum |\n|---|---|---|\n"
             "| Adult books | 20p | £6 |\n| DVDs | 50p | £6 |\n")
    verdict, conflicts = _judged("Late books cost 25p a day each.", fines)
    assert verdict == "contradicted" and "20p" in conflicts


def test_i_m_is_no_subject_an_it_stands_for() -> None:
    draft = ("I'm writing this from memory, so take it with a pinch of salt. "
             "It's MIT-licensed and has over 5,000 stars on GitHub.")
    said = resolve_pronouns(draft, split_claims(draft))
    assert not any("I'm writing" in referent.text for referent in said.values())


def test_the_writers_weighing_of_what_follows_is_no_part_of_the_claim() -> None:
    assert clean_claim("The big one is that it no longer touches your originals.") == (
        "it no longer touches your originals.")
    assert clean_claim("The good news is the pool opens at 7.") == "the pool opens at 7."
    # a superlative naming a thing states it
    assert clean_claim("The best one in town is the pool on Mill Lane.").startswith("The best")


def test_a_folder_is_a_directory() -> None:
    flags = ("| Flag | Default | Meaning |\n|---|---|---|\n"
             "| `--out-dir <path>` | `optimized/` | Output directory |\n"
             "| `--in-place` | off | Overwrite the original files |\n")
    assert _judged("The output folder defaults to `optimized/`.", flags)[0] == "supported"


def test_a_condition_that_something_does_not_happen_denies_nothing() -> None:
    # "as long as nobody ..." is "unless someone ..."
    assert not negated("you can renew them up to three times as long as nobody else "
                       "has reserved them")
    # what happens when the reader does not act
    assert not negated("If you don't check in within 15 minutes they give the room away")
    # a plain denial still is one
    assert negated("You can't renew them once somebody has reserved them")
    rooms = ("You must check in at the desk within **15 minutes** of the start of your "
             "booking. If you do not, the booking is cancelled and the room is released "
             "to other users.")
    assert _judged("If you don't check in within 15 minutes of your slot they give the "
                   "room to someone else.", rooms)[0] != "contradicted"


def test_a_bound_says_nothing_of_a_value_of_another_scale() -> None:
    week = values_of("You can book rooms up to a week ahead.")[0]
    assert not agrees(week, values_of("Check in within 15 minutes of your slot.")[0])
    # a value under the bound, of its scale, is what the bound allows
    assert agrees(week, values_of("Most people book 5 days ahead.")[0])
