"""Classes of claim a check judged wrongly in a user's blog post about a tool (issue 48's
fourteenth pass): a name in code "now called" another than the source's rename, a
default stated as "X unless you turn it off" against "X is left out unless you pass
...", something that "keeps working until" a version against its deprecation, an
example illustrating a clause ("like `/a/b/`"), and a path whose "my" is no writer's."""

from __future__ import annotations

from deepcite.factcheck.comments import without_comment
from deepcite.factcheck.continued import continued_against
from deepcite.factcheck.judge import judge
from deepcite.factcheck.negation import denied
from deepcite.factcheck.order_kinds import order_kind_against
from deepcite.factcheck.passages import Pool
from deepcite.factcheck.renames import renames_in
from deepcite.factcheck.restrictions import scope_clash
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.unless_default import default_against
from tests.fakes import passage


def _judged(claim: str, source: str) -> tuple[str, str]:
    judgement = judge(claim, [passage("Doc", source)])
    return judgement.verdict, "; ".join(c.source for c in judgement.conflicts)


_RENAMES = ("Release notes for 3.0. The exporter hook `before_write` was renamed to "
            "`pre_export`. The `--quiet` flag was removed. Logging now goes to stderr.")


def test_a_rename_to_another_name_contradicts_the_claim() -> None:
    verdict, source = _judged("The `before_write` hook is now called `on_export`, so I "
                              "had to update my scripts.", _RENAMES)
    assert verdict == "contradicted"
    assert source == "The exporter hook `before_write` was renamed to `pre_export`."


def test_the_same_rename_is_no_contradiction() -> None:
    verdict, _ = _judged("The `before_write` hook is now called `pre_export`.", _RENAMES)
    assert verdict != "contradicted"


def test_renames_are_read_in_code_names_only() -> None:
    assert [(r.old, r.new) for r in renames_in(
        "The config file was renamed from `app.yaml` to `app.toml`.")] == [
        ("app.yaml", "app.toml")]
    assert [(r.old, r.new) for r in renames_in("We renamed `old_name` to `new_name`.")] == [
        ("old_name", "new_name")]
    # ordinary words are names of another kind, left to the names check
    assert not list(renames_in("The Blue Room is now called the Garden Room."))


_DEFAULTS = ("Hidden pages are kept out of the sitemap. Archived posts are skipped unless "
             "you set `archive.include` in the settings file. Tags get their own index page.")


def test_the_opposite_default_under_unless_contradicts_the_claim() -> None:
    verdict, source = _judged("Archived posts get published unless you explicitly switch "
                              "them off.", _DEFAULTS)
    assert verdict == "contradicted"
    assert source.startswith("Archived posts are skipped unless you set")


def test_the_same_default_or_a_condition_on_when_is_no_contradiction() -> None:
    assert default_against("Archived posts are skipped unless you turn them on.",
                           "Archived posts are skipped unless you set `archive.include`.") is None
    # a condition saying when, not a setting: "given unless you cancel late" may be the
    # same rule as "not given unless you cancel early"
    assert default_against("Refunds are given unless you cancel late.",
                           "Refunds are not given unless you cancel two days ahead.") is None
    # another subject
    assert default_against("Comments are shown unless you turn them off.",
                           "Archived posts are skipped unless you set `archive.include`.") is None


def test_keeping_on_until_a_version_speaks_of_its_end() -> None:
    sentence = ("Old `.ini` files are still read until version 4.0, but the tool prints a "
                "deprecation warning at every start.")
    assert continued_against("Your old ini file keeps working until 4.0, with a warning at "
                             "every start.", sentence) is None
    # with no end given, "nothing changes" is still denied by the deprecation
    assert continued_against("Your ini file keeps working, nothing changes at start.",
                             sentence) is not None


def test_an_example_of_the_clause_before_need_not_be_stated_alone() -> None:
    source = ("The `slug_style` option (default `\"/:year/:title/\"`) sets the pattern every "
              "article address follows.")
    verdict, _ = _judged("Every article address follows a year-then-title pattern by default, "
                         "like `/2023/hello-world/`.", source)
    assert verdict == "supported"


def test_my_inside_a_path_is_no_writer_speaking() -> None:
    # the writer's comment is cut though the claim's example path has a "my" in it
    assert without_comment("Addresses look like /blog/my-post/, which suits my old links.") \
        == "Addresses look like /blog/my-post/."
    # a claim the writer makes of themselves keeps its comment
    claim = "I moved my site last year, which was easy for me."
    assert without_comment(claim) == claim


def test_a_labelled_number_the_source_says_changed_is_its_past_value() -> None:
    source = ("Setting up. The viewer opens in your default browser. Changes in 2.0: the "
              "default port of the local viewer changed from 3000 to 5210, to avoid "
              "clashes with other tools.")
    verdict, said = _judged("Then open localhost in a browser tab on port 3000 and look "
                            "around.", source)
    assert verdict == "contradicted"
    assert said.endswith("changed from 3000 to 5210")
    # a claim naming the past itself is not
    assert _judged("The viewer used port 3000 before version 2.0 came out.", source)[0] \
        != "contradicted"


_INSTALL = ("Getting it. The package is published on PyPI as `quillpad-cli`, since the "
            "short name was taken:\n\n```\npip install quillpad-cli\n```\n\nPython 3.11 is "
            "needed. To build the docs, also run `pip install sphinx`.")


def test_an_install_line_naming_another_package_contradicts_the_claim() -> None:
    verdict, said = _judged("Installing takes one line, `pip install quillpad`, and that's "
                            "it.", _INSTALL)
    assert verdict == "contradicted"
    assert said.startswith("The package is published on PyPI as `quillpad-cli`")
    assert said.endswith("pip install quillpad-cli")


def test_the_same_package_or_another_installer_is_no_contradiction() -> None:
    assert _judged("Installing takes one line: `pip install quillpad-cli`.", _INSTALL)[0] \
        != "contradicted"
    # npm is another installer; sphinx no name of the claim's package
    assert _judged("Installing takes one line: `npm install quillpad`.", _INSTALL)[0] \
        != "contradicted"
    assert _judged("For the docs you need `pip install mkdocs` too.", _INSTALL)[0] \
        != "contradicted"


def test_a_denied_repetition_leaves_the_verb_said() -> None:
    assert denied("The watcher does not reload twice when a file is touched.") == [
        "twice when a file is touched"]
    source = "Fixed: the watcher no longer reloads twice when an editor saves a backup file."
    assert _judged("The watcher reloads the page every time you save a file.", source)[0] \
        != "contradicted"
    # the verb itself denied still contradicts
    assert _judged("The watcher reloads the page every time you save a file.",
                   "The watcher does not reload the page when you save a file.")[0] \
        == "contradicted"


def test_a_though_remark_of_the_writers_is_their_comment() -> None:
    assert without_comment("There is a plugin index with forty plugins, though I wrote "
                           "my own.") == "There is a plugin index with forty plugins."


def test_called_only_names_what_follows() -> None:
    assert terms_of("a folder called public") == terms_of("a folder public")
    assert terms_of("a branch named main") == terms_of("a branch main")


def test_failing_and_going_on_however_written() -> None:
    assert terms_of("if a step blows up") == terms_of("if a step fails")
    assert terms_of("when a step raises an error") == terms_of("when a step fails")
    assert terms_of("the rest of the run carries on") == terms_of("the rest of the run continues")
    # the claim's condition is the source's, in other words: no other condition
    assert scope_clash("If one of them blows up, pass --no-stop so the rest of the run "
                       "carries on.", "`--no-stop` - continue the run when a job raises an "
                       "exception; the failing job is skipped.") is None


_ORDER = ("Filters. Filters are applied in the order they are declared in `filters`, each "
          "getting the previous one's output. Tests run in parallel.")


def test_another_kind_of_order_for_the_same_doing_contradicts_the_claim() -> None:
    verdict, said = _judged("They're applied in alphabetical order, so I renamed mine.",
                            _ORDER)
    assert verdict == "contradicted"
    assert said == "Filters are applied in the order they are declared in `filters`"
    # the same kind, or an order of another doing, is no contradiction
    assert order_kind_against("They are applied in the order they are declared.",
                              Pool([_ORDER])) is None
    assert order_kind_against("They are sorted alphabetically.", Pool([_ORDER])) is None
