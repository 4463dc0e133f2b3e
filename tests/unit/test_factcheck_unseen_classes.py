"""Kinds of draft error a check missed on drafts it had not seen (issue 48's
``check_dev28``): a negation whose small words hid the claim's word from it, a number
in words in a sentence of advice, a colour stated for the other thing of a two-clause
sentence, an opposite in the sentence closest in words when meaning ranked another
first, a count under another noun beside a second fact, "as often as they like"
against a limit, and meaning from the e5 encoder when MiniLM is not installed."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence

import pytest

from deepcite.citations import sentence_meaning
from deepcite.config import load_settings
from deepcite.factcheck.claims import split_claims
from deepcite.factcheck.judge import judge
from deepcite.factcheck.meaning import E5Meaning, load_meaning
from deepcite.factcheck.negation import denied
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

STUDIO = [
    passage("Kiln Street Pottery", "Kiln Street Pottery is a shared studio with 24 "
            "workbenches and is supervised by at least two tutors whenever members "
            "are working. Drinks may not be taken into the glazing room; they can be "
            "left on the shelf by the entrance. Stoneware clay goes into the blue bin; "
            "all other clay goes into the white bin."),
    passage("Opening and courses", "The studio is open to members from 10:00 to 18:00, "
            "Tuesday to Saturday. On Mondays it is reserved for firing the kilns and is "
            "closed to members. Places on the beginners' course cost 120 pounds; none "
            "are sold at the reception desk. Members who miss a class may repeat it "
            "once, within a month."),
]


class TableMeaning:
    """Closeness in meaning from a table: each sentence named in it is that close to
    every claim, the others far."""

    def __init__(self, close: dict[str, float]) -> None:
        self.close = close

    def similarities(self, claim: str, sentences: Sequence[str]) -> list[float]:
        return [self.close.get(sentence, 0.1) for sentence in sentences]


def _note(claim: str, meaning: TableMeaning | None = None) -> tuple[str, str]:
    judgement = judge(claim, STUDIO, meaning=meaning)
    return judgement.verdict, "; ".join(f"{c.draft} / {c.source}"
                                        for c in judgement.conflicts)


def test_a_negation_reaches_past_small_words() -> None:
    assert "reception desk" in denied("none are sold at the reception desk")[0]
    verdict, note = _note("Places on the beginners' course can be bought at the "
                          "reception desk.")
    assert verdict == "contradicted" and "none are sold" in note
    verdict, note = _note("Drinks are allowed in the glazing room.")
    assert verdict == "contradicted" and "may not" in note


def test_a_number_in_words_makes_advice_checkable() -> None:
    claims = split_claims("Burns should be cooled under running water for at least "
                          "fifteen minutes. You should enjoy it.")
    assert [c.text for c in claims] == ["Burns should be cooled under running water for "
                                        "at least fifteen minutes."]


def test_a_colour_is_compared_in_the_clause_about_the_claims_thing() -> None:
    verdict, note = _note("Stoneware clay is thrown into the white bin.")
    assert verdict == "contradicted" and note == "white / blue"
    assert _note("Stoneware clay is thrown into the blue bin.")[0] == "supported"


def test_an_opposite_in_the_sentence_closest_in_words_still_contradicts() -> None:
    # meaning ranks the weekday hours first; the Mondays sentence says "closed"
    close = TableMeaning({"The studio is open to members from 10:00 to 18:00, Tuesday to "
                          "Saturday.": 0.8,
                          "On Mondays it is reserved for firing the kilns and is closed "
                          "to members.": 0.55})
    verdict, note = _note("On Mondays the studio is open to members for free practice.",
                          close)
    assert verdict == "contradicted" and note == "open / closed"


def test_two_facts_of_the_best_sentence_count_under_another_noun() -> None:
    close = TableMeaning({"Kiln Street Pottery is a shared studio with 24 workbenches "
                          "and is supervised by at least two tutors whenever members are "
                          "working.": 0.65})
    claim = "It has 24 benches, and always at least two tutors keep an eye on everyone at work."
    assert _note(claim, close)[0] == "supported"
    # another count is no count under another noun, nor is "at least two" 30 benches
    assert _note(claim.replace("24", "30"), close)[0] != "supported"


def test_no_limit_against_a_limit_contradicts() -> None:
    verdict, note = _note("Members who miss a class can repeat it as often as they like.")
    assert verdict == "contradicted" and note == "as often as they like / once"
    assert _note("Members who miss a class may repeat it once.")[0] == "supported"


def test_without_minilm_the_e5_encoder_judges_meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.collections.index import embeddings

    monkeypatch.setattr(embeddings, "default_model_path", lambda: None)
    settings = load_settings({"data_dir": tempfile.mkdtemp()}, config_files=[], environ={})
    meaning = load_meaning(settings)
    assert isinstance(meaning, E5Meaning)
    near, far = meaning.similarities("Rubbish bins are emptied once a fortnight.",
                                     ["General waste is collected every two weeks.",
                                      "The recycling yard opened in 1998."])
    assert near > far
    monkeypatch.setattr(sentence_meaning, "e5_available", lambda: False)
    assert load_meaning(settings) is None


def test_a_sentence_nearly_on_the_subject_that_limits_the_claim_contradicts_it() -> None:
    rule = "Glazes are not allowed in the kiln room, apart from lead-free ones."
    sources = [*STUDIO, passage("Studio rules", f"{rule} Aprons hang by the sink.")]
    close = TableMeaning({rule: 0.6})
    claim = "Members may use any glaze they like."
    judgement = judge(claim, sources, meaning=close)
    assert judgement.verdict == "contradicted"
    assert judgement.quotes[0].text == rule
    # words alone, or a sentence far in meaning: nothing states it
    assert judge(claim, sources).verdict == "not_found"
    assert judge(claim, sources, meaning=TableMeaning({rule: 0.2})).verdict == "not_found"


def test_a_permission_against_a_clause_forbidding_it_contradicts() -> None:
    rule = "Photography of members' work is welcome, but flash is forbidden."
    sources = [*STUDIO, passage("Photographs", rule)]
    close = TableMeaning({rule: 0.6})
    judgement = judge("Visitors may take photographs with flash.", sources, meaning=close)
    assert judgement.verdict == "contradicted"
    assert judgement.conflicts[0].source == "flash is forbidden"
    # a ban of something else, or of the claim's thing only somewhere, is no contradiction
    for other in ("Photography of members' work is welcome, but tripods are forbidden.",
                  "Photography of members' work is welcome, but flash is forbidden in "
                  "the kiln room."):
        assert judge("Visitors may take photographs with flash.",
                     [*STUDIO, passage("Photographs", other)],
                     meaning=TableMeaning({other: 0.6})).verdict != "contradicted"


def test_an_opposite_after_its_noun_against_one_before_it() -> None:
    rule = "Classes that fall on a bank holiday move to the following day."
    sources = [*STUDIO, passage("Holidays", rule)]
    verdict = judge("When a bank holiday falls on a class, the class moves to the day "
                    "before.", sources)
    assert verdict.verdict == "contradicted"
    assert (verdict.conflicts[0].draft, verdict.conflicts[0].source) == ("before", "following")
    assert judge("When a bank holiday falls on a class, the class moves to the day after.",
                 sources).verdict != "contradicted"


def test_one_of_a_number_is_how_many_there_are() -> None:
    sources = [*STUDIO, passage("Awards", "In 2019 the studio was named a craft centre of "
                                "excellence, one of four in the region.")]
    verdict = judge("The studio became a craft centre of excellence in 2019, one of six in "
                    "the region.", sources)
    assert verdict.verdict == "contradicted"
    assert verdict.conflicts[0].source == "one of four"
    assert judge("In 2019 it was named a craft centre of excellence, one of four in the "
                 "region.", sources).verdict == "supported"
    # a noun after the number counts it as before
    assert [v.text for v in extract_values("one of five children")] == ["five children"]
