"""A table row's values read with their columns' headers (invented text, none of the
sets'): a cell's number counts its header's noun, a claim naming a column is compared
with that column's cell alone, and "one way" counts nothing."""

from __future__ import annotations

from deepcite.factcheck.judge import judge
from deepcite.factcheck.table_rows import header_of, row_cells, row_values
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.values import extract_values
from tests.fakes import passage

_BUSES = ("# Valley Buses\n\n"
          "## Lines\n\n"
          "| Line | Operator | Journey time | Weekday buses/day | Sunday buses/day |\n"
          "|---|---|---|---|---|\n"
          "| Oxley - Grantham Cross | Fenwick Coaches | 40 minutes | 12 | 4 |\n"
          "| Oxley - Millbeck | Dale Transit | 1 hour 10 minutes | 6 | 2 |\n\n"
          "Buses leave from stand C of the Oxley interchange.")
_FARES = ("# Fares\n\n"
          "## Single fares\n\n"
          "| Ticket | Oxley - Grantham Cross | Oxley - Millbeck |\n"
          "|---|---|---|\n"
          "| Adult | £3.20 | £5.60 |\n"
          "| Dog | £1.00 | not carried |\n\n"
          "Children under 5 travel free with a paying adult.")
_ROW = "| Oxley - Grantham Cross | Fenwick Coaches | 40 minutes | 12 | 4 |"


def _judge(claim: str, *sources: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    found = judge(claim, [passage(f"Page {n}", s) for n, s in enumerate(sources)])
    return found.verdict, tuple((c.draft, c.source) for c in found.conflicts)


def test_a_row_finds_its_tables_header() -> None:
    at = _BUSES.index(_ROW)
    assert header_of(_BUSES, at).startswith("| Line | Operator |")
    assert header_of(_BUSES, _BUSES.index("| Line |")) == ""  # the header row itself
    assert header_of(_BUSES, _BUSES.index("Buses leave")) == ""


def test_a_cells_number_counts_its_headers_noun_per_its_period() -> None:
    header = header_of(_BUSES, _BUSES.index(_ROW))
    read = row_cells(_ROW, header)
    twelve = next(v for v, _ in read if v.key == "12" and v.dimension != "period")
    assert twelve.unit == next(v for v in extract_values("12 buses")).unit
    assert _ROW[twelve.start:twelve.end] == "12"  # offsets are the row's
    assert any(v.dimension == "period" and v.amount == 86400.0 for v, _ in read)
    forty = next(v for v, _ in read if v.key == "40")
    assert forty.dimension == "time"  # a cell's own unit stays


def test_a_claim_naming_a_column_keeps_that_columns_cell() -> None:
    header = header_of(_BUSES, _BUSES.index(_ROW))
    counts = {v.key for v in row_values(_ROW, header, terms_of("buses on a Sunday"))
              if v.dimension != "period" and not v.dimension}
    assert counts == {"4"}
    both = {v.key for v in row_values(_ROW, header, terms_of("buses a day"))
            if v.dimension != "period" and not v.dimension}
    assert both == {"12", "4"}  # no column named: either


def test_a_cells_value_agrees_with_the_claim_naming_its_column() -> None:
    verdict, _ = _judge("On weekdays there are twelve buses a day from Oxley to Grantham "
                        "Cross.", _BUSES)
    assert verdict == "supported"


def test_another_value_in_the_named_column_contradicts_naming_the_cell() -> None:
    verdict, conflicts = _judge("On Sundays there are 5 buses a day from Oxley to Grantham "
                                "Cross.", _BUSES)
    assert verdict == "contradicted"
    assert conflicts == (("5 buses", "4"),)


def test_another_columns_value_does_not_agree_with_the_named_column() -> None:
    verdict, conflicts = _judge("On Sundays there are 12 buses a day from Oxley to Grantham "
                                "Cross.", _BUSES)
    assert verdict == "contradicted"
    assert conflicts == (("12 buses", "4"),)


def test_a_claim_on_one_column_is_not_contradicted_by_another() -> None:
    verdict, conflicts = _judge("On Sundays there are 4 buses a day from Oxley to Grantham "
                                "Cross.", _BUSES)
    assert verdict == "supported"
    assert conflicts == ()


def test_a_price_cell_under_a_route_header() -> None:
    verdict, _ = _judge("An adult single from Oxley to Millbeck is £5.60.", _FARES)
    assert verdict == "supported"
    verdict, conflicts = _judge("An adult single from Oxley to Millbeck is £3.20.", _FARES)
    assert verdict == "contradicted"
    assert conflicts == (("£3.20", "£5.60"),)


def test_a_price_with_no_route_named_is_stated_by_any_routes_cell() -> None:
    verdict, _ = _judge("A dog costs £1 one way.", _FARES)
    assert verdict == "supported"


def test_one_way_counts_nothing() -> None:
    for text in ("A dog costs £1 one way.", "a one-way ticket", "one way or another",
                 "either way it works", "there is no way round it", "a two-way radio"):
        assert not [v for v in extract_values(text) if v.unit in ("way", "ways")], text
    assert "singl" in terms_of("£1 one way") and "way" not in terms_of("either way")


def test_a_price_in_the_header_makes_a_bare_cell_money() -> None:
    header = "| Item | Price (£) | Stock |"
    read = row_cells("| Kettle | 24 | 7 |", header)
    kinds = {v.key: (v.kind, v.unit) for v, _ in read}
    assert kinds["24"] == ("money", "gbp")
    assert kinds["7"][0] == "number"


_SETTINGS = ("## Settings\n\n"
             "| Key | Default | Meaning |\n|---|---|---|\n"
             "| `retries` | 3 | how often a failed upload is tried again |\n"
             "| `listen_port` | 7070 | where the daemon listens |\n")


def test_a_bare_cell_is_named_by_its_rows_first_cell_too() -> None:
    verdict, conflicts = _judge("The daemon listens on port 9090 by default.", _SETTINGS)
    assert verdict == "contradicted"
    assert conflicts[0][1] == "7070"
    verdict, _ = _judge("The daemon listens on port 7070 by default.", _SETTINGS)
    assert verdict == "supported"


def test_a_slash_after_an_amount_is_per() -> None:
    values = extract_values("The Pro plan is $12/month.")
    assert [(v.unit, v.amount) for v in values if v.dimension == "period"] == [
        ("every", 2592000.0)]


_PASSES = ("## Passes\n\n"
           "| Pass | Monthly | Annual |\n|---|---|---|\n"
           "| Senior | £18 | £190 |\n\n"
           "## Kayaks\n\n"
           "| | Puffin | Gannet |\n|---|---|---|\n"
           "| Paddlers | 1 | 3 |\n")


def test_a_price_per_the_other_columns_period_contradicts() -> None:
    verdict, conflicts = _judge("A senior pass is £190 a month.", _PASSES)
    assert verdict == "contradicted"
    assert conflicts == (("£190", "£18"),)
    verdict, _ = _judge("A senior pass is £190 a year.", _PASSES)
    assert verdict == "supported"


def test_a_row_whose_first_cell_names_what_it_counts() -> None:
    verdict, conflicts = _judge("The Gannet seats 2 paddlers.", _PASSES)
    assert verdict == "contradicted"
    assert conflicts == (("2 paddlers", "3"),)
    verdict, _ = _judge("The Gannet seats 3 paddlers.", _PASSES)
    assert verdict == "supported"
