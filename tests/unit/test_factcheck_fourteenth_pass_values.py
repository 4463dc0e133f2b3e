"""Classes of claim the check's fourteenth pass judges (invented text, none of the
sets'): a limit against a setting's default that the source bounds too, a setting
named by the words of its identifier, a thing said to go on that the source ended, a
comparison of speed, an old thing replaced, a licence named otherwise."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

_QUEUE = ("# Exports\n\n"
          "| Key | Default | Notes |\n|---|---|---|\n"
          "| `queue_wait` | `\"20m\"` | how long an export waits for the spool |\n"
          "| `cache_max` | `\"5GB\"` | size of the thumbnail cache |\n\n"
          "Only one export runs per album. A later export waits up to\n"
          "`queue_wait` (default 20 minutes) and then gives up with code 7.\n\n"
          "The thumbnail cache holds at most `cache_max` (default 5 GB) of images.")


def _judge(claim: str, source: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    found = judge(claim, [passage("Guide", source)])
    return found.verdict, tuple((c.draft, c.source) for c in found.conflicts)


def test_a_default_in_brackets_after_a_bounded_setting_is_bounded() -> None:
    value = next(v for v in extract_values("waits up to `queue_wait` (default 20 minutes)"))
    assert value.bound == "max"
    assert value.before == "wait"


def test_a_limit_against_another_limit_of_the_setting_contradicts() -> None:
    verdict, conflicts = _judge("A later export waits up to 60 minutes and then gives up.", _QUEUE)
    assert verdict == "contradicted"
    assert conflicts == (("60 minutes", "20 minutes"),)


def test_a_limit_against_a_bounded_default_contradicts() -> None:
    verdict, conflicts = _judge("The thumbnail cache holds at most 10 GB of images.", _QUEUE)
    assert verdict == "contradicted"
    assert conflicts == (("10 GB", "5 GB"),)


def test_the_same_limit_of_the_default_agrees() -> None:
    verdict, _ = _judge("The thumbnail cache holds at most 5 GB of images.", _QUEUE)
    assert verdict == "supported"


_PLATFORMS = ("Quillpad 5.0 runs on Linux, macOS and Haiku. Solaris support was dropped "
              "in this release.\n\n## Support\n\nv4.x reached end of life on 2025-01-31 and "
              "receives no further updates. Each major release receives security fixes "
              "for 24 months.")


def test_still_running_where_the_next_sentence_drops_it_contradicts() -> None:
    verdict, conflicts = _judge("Quillpad 5.0 still runs on Solaris.", _PLATFORMS)
    assert verdict == "contradicted"
    assert conflicts == (("still runs", "dropped"),)


def test_still_running_where_nothing_ended_is_supported() -> None:
    verdict, _ = _judge("Quillpad 5.0 still runs on Haiku.", _PLATFORMS)
    assert verdict == "supported"


def test_a_version_still_patched_past_its_end_of_life_contradicts() -> None:
    verdict, conflicts = _judge("The 4.x line is still getting security patches.", _PLATFORMS)
    assert verdict == "contradicted"
    assert conflicts == (("still getting security patches", "end of life"),)


_SPEED = ("Version 2 swaps the old hash index for a skip list. Insert throughput is about "
          "four times higher than in version 1, while lookups are roughly 15 % slower.")


def test_a_comparative_is_no_role() -> None:
    verdict, _ = _judge("Inserts are about four times faster than in version 1.", _SPEED)
    assert verdict != "contradicted"


def test_the_opposite_said_of_the_same_subject_contradicts() -> None:
    verdict, conflicts = _judge("Lookups are also faster than before.", _SPEED)
    assert verdict == "contradicted"
    assert conflicts == (("faster", "slower"),)


_REPLACED = "Version 3 replaces the old polling loop with an event queue."


def test_instead_of_agrees_with_replaces_with() -> None:
    verdict, _ = _judge("Version 3 uses an event queue instead of a polling loop.", _REPLACED)
    assert verdict != "contradicted"


def test_the_replaced_thing_said_in_use_contradicts() -> None:
    verdict, _ = _judge("Version 3 uses a polling loop.", _REPLACED)
    assert verdict == "contradicted"


_ABOUT = ("Quillpad is a note-taking app written in Go and released under the BSD-3-Clause "
          "licence. It syncs notes over WebDAV.")


def test_another_licence_contradicts() -> None:
    verdict, conflicts = _judge("It is licensed under the GPL.", _ABOUT)
    assert verdict == "contradicted"
    assert conflicts == (("GPL", "BSD-3-Clause"),)


def test_a_licence_where_the_sources_name_none_is_not_found() -> None:
    verdict, _ = _judge("The licence is MIT.", "Quillpad syncs notes over WebDAV.")
    assert verdict == "not_found"


def test_a_sentence_says_the_words_of_its_identifiers() -> None:
    from deepcite.factcheck.passages import Pool
    from deepcite.factcheck.terms import terms_of

    pool = Pool(["| `keep_weekly` | 4 |"])
    assert {"keep_weekly", "weekly"} <= pool.sentences[0].terms
    # a claim writing the identifier shares it whole, not its words as well
    assert "weekly" not in terms_of("`keep_weekly` is 4")


_SETTINGS = ("# Configuration\n\n## [sync]\n\n| Key | Default | Notes |\n|---|---|---|\n"
             "| `start` | `\"04:15\"` | local time of the host |\n"
             "| `spread` | `\"5m\"` | random delay of up to 5 minutes before starting |\n")


def test_a_table_row_says_its_header_and_heading() -> None:
    from deepcite.factcheck.passages import Pool

    row = next(s for s in Pool([_SETTINGS]).sentences if "`start`" in s.text)
    assert {"default", "sync"} <= row.terms


def test_a_default_said_by_the_column_and_the_section_is_supported() -> None:
    verdict, _ = _judge("The default sync kicks off at 4:15 in the morning, with up to five "
                         "minutes of random delay.", _SETTINGS)
    assert verdict == "supported"


def test_appeared_in_a_journal_is_published_there() -> None:
    source = "The findings were published in The Journal of Glass Studies in 2021."
    verdict, conflicts = _judge("The findings appeared in the Bulletin of Ceramics.", source)
    assert verdict == "contradicted"
    assert conflicts[0][0] == "Bulletin"


def test_a_warnings_lead_in_is_no_part_of_the_claim() -> None:
    from deepcite.factcheck.claims import clean_claim

    assert clean_claim("One thing to watch out for: the ferry skips Tuesdays.") \
        == "the ferry skips Tuesdays."
    assert clean_claim("Heads up: the ferry skips Tuesdays.") == "the ferry skips Tuesdays."
    # a lead-in that says something of its own stays
    assert clean_claim("The only catch is the fare: 5 pounds.") \
        == "The only catch is the fare: 5 pounds."


def test_still_doing_what_the_source_did_until_a_release_contradicts() -> None:
    source = ("## 3.0\n\n- `--purge` flag for `tidy`. Until this release, stale thumbnails "
              "were deleted automatically on every tidy; they are now kept until you purge "
              "them.")
    verdict, conflicts = _judge("A word of warning: `tidy` still deletes stale thumbnails "
                                "automatically.", source)
    assert verdict == "contradicted"
    assert conflicts == (("still deletes", "Until this release"),)


def test_an_obsolete_thing_named_is_no_end_the_claim_speaks_of() -> None:
    from deepcite.factcheck.continued import continued_against

    sentence = "Until this release, obsolete drafts were purged on every save."
    assert continued_against("Saving still purges obsolete drafts.", sentence) \
        == ("still purges", "Until this release")
    assert continued_against("It is obsolete but still works.", "Deprecated: it.") is None
