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


SHOP = [
    passage("Shop", "# The farm shop\n\nThe farm shop in Lesk is open from Wednesday to "
            "Sunday, 9:00 to 17:00. It is closed on Mondays and Tuesdays.\n\nThe bakery "
            "bakes about 400 loaves a day."),
]


def test_the_whole_week_counted_out_is_a_claim_for_all_days() -> None:
    from deepcite.factcheck.restrictions import scope_clash
    clash = scope_clash("The museum is open seven days a week.",
                        "The museum is open Wednesday to Sunday, 10:00 to 17:00.")
    assert clash is not None and clash.outcome == "contradicted"
    assert scope_clash("The cafe is open 7 days a week.", "The cafe is open Monday to "
                       "Sunday.") is None


def test_every_day_of_the_week_against_a_range_of_days_is_contradicted() -> None:
    # ranked by what the claim says beside its "every day", the shop's hours are its
    # subject, not the bakery's "a day"
    judgement, note = _judged("The shop is open every day of the week.", SHOP)
    assert judgement.verdict == "contradicted" and "Wednesday to Sunday" in note


FRAMES = [
    passage("Options", "## Animated images\n\nWhen the input is an animated GIF, the "
            "converter keeps all frames if the output format is GIF or WebP. For any "
            "other output format, only the first frame is written and a note is printed."),
]


def test_two_sentences_are_joined_only_on_one_line() -> None:
    from deepcite.factcheck.passages import Pool, line_mate
    pool = Pool(["- `--jobs N` - how many at once. The default is 4.\n- `--gpu` - use it."])
    first, _, third = pool.by_passage[0][:3]
    joined = line_mate(first, pool)
    assert joined is not None and joined.text.endswith("The default is 4.")
    assert line_mate(third, pool) is None


def test_a_split_into_cases_contradicts_always_naming_the_case_that_differs() -> None:
    judgement, note = _judged("Animated images are always flattened to their first "
                              "frame, whatever format you convert them to.", FRAMES)
    assert judgement.verdict == "contradicted" and "keeps all frames" in note
    judgement, note = _judged("Animated images always keep all their frames, whatever "
                              "format you convert them to.", FRAMES)
    assert judgement.verdict == "contradicted" and "first frame" in note


def test_a_claim_of_one_case_is_no_claim_of_all() -> None:
    judgement, _ = _judged("Animated images keep all frames when converted to GIF.", FRAMES)
    assert judgement.verdict != "contradicted"


def test_the_first_number_of_a_range_takes_the_unit_of_the_second() -> None:
    from deepcite.factcheck.passages import values_of
    read = [(v.kind, v.key, v.unit) for v in values_of(
        "It went up from seventy-five to ninety pounds in March 2023.")]
    assert read[:2] == [("money", "75", "gbp"), ("money", "90", "gbp")]
    assert [v.unit for v in values_of("between 20 and 30 minutes")] == ["minute", "minute"]
    # a clock time lends no "pm" to the number before it: "from 10 to 4 pm"
    assert next(v.unit for v in values_of("open from 10 to 4 pm")) != "clock"


def test_a_change_from_one_price_to_another_agrees_with_the_source_saying_both() -> None:
    plans = [passage("Plans", "The Annual plan was priced at £75 until March 2023, when "
                     "it rose to its current level of £90.")]
    judgement, _ = _judged("The yearly plan went up from seventy-five to ninety pounds in "
                           "March 2023.", plans)
    assert judgement.verdict != "contradicted"
    assert {"seventy-five", "ninety pounds"} <= set(judgement.stated)


def test_when_after_a_date_is_no_condition() -> None:
    from deepcite.factcheck.restrictions import restrictions
    assert restrictions("It was priced at £75 until March 2023, when it rose to £90.") == []
    assert restrictions("Entry is free when accompanied by an adult.") != []


def test_around_the_clock_against_a_range_of_hours_is_contradicted() -> None:
    from deepcite.factcheck.hours import hours_clash
    assert hours_clash("Every station is open around the clock.", "Stations in Eastfield "
                       "operate from 6:00 to 23:00 only; bikes cannot be taken out.") == (
        "around the clock", "Stations in Eastfield operate from 6:00 to 23:00 only")
    assert hours_clash("The gym is open 24/7.", "The gym is open 24 hours a day.") is None
    judgement, note = _judged("The cafe is open around the clock.", [passage(
        "Cafe", "The cafe is open from 7:00 to 19:00.")])
    assert judgement.verdict == "contradicted" and "7:00 to 19:00" in note


PLATFORMS = [
    passage("README", "## Supported platforms\n\n| Platform | Status |\n|---|---|\n"
            "| Linux | Supported |\n| macOS | Supported |\n| Windows | Not supported; use "
            "WSL2 |\n"),
]


def test_a_table_row_denying_one_of_the_things_a_claim_lists_contradicts_it() -> None:
    judgement, note = _judged("It runs natively on Linux, macOS and Windows.", PLATFORMS)
    assert judgement.verdict == "contradicted" and "Windows: Not supported" in note
    judgement, _ = _judged("It runs on Linux and macOS.", PLATFORMS)
    assert judgement.verdict != "contradicted"
    judgement, _ = _judged("It does not run on Windows.", PLATFORMS)
    assert judgement.verdict != "contradicted"


NESTED = [
    passage("Changelog", "## 3.1.0 (2024-03-05)\n\n### Added\n- SFTP storage backend.\n\n"
            "### Deprecated\n- The `--gzip` flag. Use `--compression gzip` instead. Will be "
            "removed in 4.0.\n\n## 3.0.0 (2023-10-02)\n\n### Changed\n- The default "
            "compression changed from gzip to zstd.\n"),
]


def test_a_release_heading_scopes_the_sections_under_it() -> None:
    text = NESTED[0].full_text or NESTED[0].snippet
    assert release_heading(text, text.index("SFTP"))[0] == "3.1"  # type: ignore[index]


def test_a_change_arriving_in_its_release_under_a_sub_heading_is_supported() -> None:
    judgement, _ = _judged("SFTP storage arrived in 3.1.0, released in March 2024.", NESTED)
    assert judgement.verdict == "supported"
    judgement, note = _judged("SFTP storage arrived in 3.0.", NESTED)
    assert judgement.verdict == "contradicted" and "3.1.0" in note


def test_an_item_naming_its_own_release_says_when_itself() -> None:
    judgement, note = _judged("The old --gzip flag was already dropped in 3.1.", NESTED)
    assert judgement.verdict == "contradicted" and "removed in 4.0" in note


def test_an_age_in_words_after_under_is_an_age() -> None:
    from deepcite.factcheck.agreement import agrees
    from deepcite.factcheck.passages import values_of
    [words] = values_of("Children under sixteen may not use the bikes.")
    [figures] = values_of("Kids younger than 16 can't ride the bikes.")
    assert words.bound == "max" and agrees(figures, words)


def test_kids_and_grown_ups_are_children_and_adults() -> None:
    assert terms_of("kids with a grown-up") == terms_of("children with an adult")
    assert "adult" not in terms_of("The tree has grown up fast.")


def test_even_when_is_no_condition_and_at_all_no_claim_of_all() -> None:
    from deepcite.factcheck.restrictions import restrictions, universal
    assert restrictions("Children under 16 may not ride, even when accompanied by an "
                        "adult.") == []
    assert restrictions("Children may ride when accompanied by an adult.") != []
    assert universal("Kids can't ride the bikes at all.") is None
    assert universal("All riders need a card.") is not None
    judgement, _ = _judged("Kids younger than 16 can't ride the bikes at all, not even "
                           "with a grown-up beside them.", [passage(
                               "Rules", "Members must be at least 16 years old. Children "
                               "under sixteen may not use the bikes, even when accompanied "
                               "by an adult.")])
    assert judgement.verdict == "supported"
