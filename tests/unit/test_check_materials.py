"""A document check's materials answer its searches (``deepcite check --material``): cut
into the passages an answer would cite, ranked by the query's words, never a passage
that shares only a word or two with a long query."""

from __future__ import annotations

from deepcite.materials import UserMaterial
from deepcite.runs.material_engine import MaterialEngine

HANDBOOK = UserMaterial(
    url="/home/me/handbook.md", title="Team handbook", material_id="M1",
    content="# Backups\n\nThe nightly backup starts at 02:00 UTC and keeps 14 copies.\n")
HOLIDAYS = UserMaterial(
    url="/home/me/holidays.md", title="Holidays", material_id="M2",
    content="The office is closed between Christmas and New Year.\n")


def test_the_passage_holding_the_claims_words_comes_first() -> None:
    engine = MaterialEngine([HOLIDAYS, HANDBOOK])
    hits = engine.search("nightly backup starts at 04:00 UTC", max_results=5)
    assert hits and "nightly backup starts at 02:00 UTC" in hits[0].snippet
    first = hits[0]
    assert first.engine == "user_material" and first.title == "Team handbook"
    start, end = first.metadata["start"], first.metadata["end"]
    assert HANDBOOK.content[start:end] == first.snippet  # a citation points at the text
    assert all("Christmas" not in hit.snippet for hit in hits)


def test_nothing_is_found_for_what_the_materials_do_not_say() -> None:
    engine = MaterialEngine([HANDBOOK, HOLIDAYS])
    assert engine.search("The moon is made of green cheese", max_results=5) == []
    assert engine.search("   ", max_results=5) == []
    assert len(engine.search("office backup", max_results=1)) == 1
