"""Claims a source contradicts that were only "partly" stated: a claim of all times
against an exception bounding a range ("except between 8:00 and 10:00 on weekdays");
a claim that something is cancelled against a source saying it goes ahead; a claim that
a thing is free against a sentence pricing that thing, where the sentence closest in
words says "free" of something else; a claim that something goes on unchanged against
a source deprecating it."""

from __future__ import annotations

from deepcite.factcheck.continued import continued_against
from deepcite.factcheck.judge import judge
from deepcite.factcheck.restrictions import restrictions, scope_clash
from deepcite.factcheck.terms import terms_of
from tests.fakes import passage

_SCOOTERS = ("Scooters can be folded and carried on the ferry at no charge, except between "
             "8:00 and 10:00 on weekdays.")


def test_an_exception_between_two_times_is_one_clause_and_bounds_any_time() -> None:
    assert any(r.kind == "exclusive" and r.text.endswith("on weekdays")
               for r in restrictions(_SCOOTERS))
    clash = scope_clash("Scooters ride free at any time.", _SCOOTERS)
    assert clash is not None and clash.outcome == "contradicted"
    found = judge("Scooters can be carried on the ferry at any time.",
                  [passage("Ferry", _SCOOTERS)])
    assert found.verdict == "contradicted"


def test_an_event_said_to_go_ahead_is_not_cancelled() -> None:
    source = ("If the weather is foggy, the island boat tour goes ahead with a film show "
              "instead. The boat has 30 seats.")
    found = judge("In foggy weather the island boat tour is cancelled.",
                  [passage("Tours", source)])
    assert found.verdict == "contradicted"
    # saying the same agrees
    assert judge("In foggy weather the island boat tour goes ahead with a film show.",
                 [passage("Tours", source)]).verdict == "supported"


_FARES = [passage("Fares", "A day ticket costs 12 euros for adults; pupils under 6 "
                  "ride free. Parrots are welcome on boats for 3 euros each."),
          passage("Helpers", "Helpers get free rides on the boats for themselves but not "
                  "for their friends.")]


def test_a_thing_said_free_that_a_source_prices_is_contradicted() -> None:
    found = judge("Parrots ride free.", _FARES)
    assert found.verdict == "contradicted"
    assert [(c.draft, c.source) for c in found.conflicts] == [("free", "3 euros")]


def test_free_said_of_the_thing_itself_is_no_price_elsewhere() -> None:
    assert judge("Pupils under 6 ride free.", _FARES).verdict != "contradicted"


def test_a_claim_that_nothing_changes_against_a_deprecation() -> None:
    source = "Deprecated: `--keep-tmp` option; set `keep_tmp = true` in the settings file"
    assert continued_against("You can keep using `--keep-tmp`, nothing changes there.",
                             source) is not None
    found = judge("You can keep using the `--keep-tmp` option, nothing's changing there.",
                  [passage("CHANGELOG", source)])
    assert found.verdict == "contradicted"
    # a claim saying the deprecation itself, or another option: no conflict
    assert continued_against("`--keep-tmp` is deprecated but still works.", source) is None
    assert continued_against("You can keep using `--fast`.", source) is None


_MILL = [passage("Products", "The best-known product is the oatcake, a thin savoury biscuit; "
                 "the old mill bakes about 12,000 of them every week.")]


def test_a_count_of_them_counts_a_noun_the_sentence_names_without_a_count() -> None:
    found = judge("The old mill bakes around 2,000 oatcakes a week.", _MILL)
    assert found.verdict == "contradicted"
    assert [(c.draft, c.source) for c in found.conflicts] == [("2,000 oatcakes", "12,000")]
    assert judge("The old mill bakes around 12,000 oatcakes a week.",
                 _MILL).verdict == "supported"


def test_a_drug_against_pain_and_a_cut_are_the_words_a_denial_says_otherwise() -> None:
    assert terms_of("cut the use of painkillers") == terms_of("reduce the use of analgesics")
    source = ("Velmarin did not reduce the use of pain medication more than the dummy "
              "treatment did. Headaches fell by 3 days a month.")
    found = judge("Velmarin cut the use of painkillers compared with the dummy treatment.",
                  [passage("Results", source)])
    assert found.verdict == "contradicted"


def test_a_price_of_something_else_naming_the_thing_is_no_price_of_it() -> None:
    fares = [_FARES[1], passage("Shop", "A cage for parrots costs 30 euros in the shop. "
                                "Pupils under 6 ride free.")]
    assert judge("Parrots ride free.", fares).verdict != "contradicted"
