"""Units a number is counted in, and their sizes: "2 weeks" and "14 days" are one
duration, "240 people" and "240 employees" one count, "$" and "dollars" one currency.

The tables are shared by :mod:`~deepcite.factcheck.values` (which reads a number's
unit) and :mod:`~deepcite.factcheck.names` (a unit is never a name).
"""

from __future__ import annotations

from deepcite.text.stem import singular, stem

__all__ = ["CURRENCIES", "DIMENSIONS", "FREE", "SAME_UNITS", "unit_of"]

CURRENCIES = {"$": "usd", "dollar": "usd", "usd": "usd", "\u20ac": "eur", "euro": "eur",
               "eur": "eur", "\u00a3": "gbp", "pound": "gbp", "gbp": "gbp",
               # what people say: "forty quid", "5 bucks"
               "quid": "gbp", "buck": "usd", "\u00a5": "jpy",
               "yen": "jpy", "jpy": "jpy", "yuan": "cny", "cny": "cny", "rmb": "cny",
               "\u5143": "cny", "\u5186": "jpy", "\uc6d0": "krw"}
# Units of one dimension, in a base unit: numbers of different units compare by size.
_UNIT_TABLES: dict[str, dict[tuple[str, ...], float]] = {
    "time": {("ms", "millisecond", "msec"): 0.001, ("s", "sec", "second", "secs"): 1,
             ("min", "minute", "mins"): 60, ("h", "hr", "hour", "hrs"): 3600,
             ("day",): 86400, ("week", "wk"): 604800, ("fortnight",): 1209600, ("month",): 2592000,
             ("year", "yr"): 31536000, ("decade",): 315360000, ("century",): 3153600000,
             ("\u79d2",): 1, ("\u5206",): 60,
             ("\u5929", "\u65e5"): 86400, ("\u5468", "星期"): 604800,
             ("\u4e2a\u6708", "ヶ月", "か月"): 2592000, ("分钟",): 60,
             ("小时", "時間"): 3600, ("秒钟",): 1, ("毫秒",): 0.001},
    "data": {("b", "byte"): 1, ("kb", "kilobyte", "kib"): 1e3,
             ("mb", "megabyte", "mib"): 1e6, ("gb", "gigabyte", "gib"): 1e9,
             ("tb", "terabyte", "tib"): 1e12},
    "length": {("mm", "millimetre", "millimeter"): 0.001,
               ("cm", "centimetre", "centimeter"): 0.01, ("m", "metre", "meter"): 1,
               ("km", "kilometre", "kilometer", "公里", "千米"): 1000, ("mile", "mi"): 1609.344},
    "voltage": {("v", "volt"): 1, ("kv", "kilovolt"): 1000},
    "power": {("w", "watt"): 1, ("kw", "kilowatt"): 1000, ("mw", "megawatt"): 1e6},
    "energy": {("wh", "watt-hour"): 1, ("kwh", "kilowatt-hour"): 1000,
               ("mwh", "megawatt-hour"): 1e6},
    "rate": {("kbit", "kbit/s", "kbps"): 1e3, ("mbit", "mbit/s", "mbps"): 1e6,
             ("gbit", "gbit/s", "gbps"): 1e9},
    "mass": {("g", "gram"): 1, ("kg", "kilogram", "kilo", "公斤", "千克"): 1000,
             ("t", "tonne", "ton"): 1e6, ("lb", "pound"): 453.6},
}
DIMENSIONS: dict[str, tuple[str, float]] = {
    name: (dimension, size) for dimension, table in _UNIT_TABLES.items()
    for names, size in table.items() for name in names}


# Words that count the same things ("240 people", "240 employees"). A draft counts
# people under its own noun - "540 people ran it" where the source has "340 runners",
# "420 helpers" for "420 volunteers" - so every noun of people is one unit: the wrong
# number is then contradicted and the right one stated.
SAME_UNITS = {word: group[0] for group in (
    ("people", "person", "persons", "employee", "employees", "staff", "worker", "workers",
     "visitor", "visitors", "attendee", "attendees", "guest", "guests", "spectator",
     "spectators", "participant", "participants", "inhabitant", "inhabitants",
     "resident", "residents", "runner", "runners", "entrant", "entrants", "competitor",
     "competitors", "volunteer", "volunteers", "helper", "helpers", "student", "students",
     "learner", "learners", "pupil", "pupils", "trainee", "trainees", "passenger",
     "passengers", "traveller", "travellers", "patient", "patients", "member", "members"),
    ("user", "users", "customer", "customers", "client", "clients"),
) for word in group}


def unit_of(word: str) -> str:
    lower = word.lower()
    if lower in SAME_UNITS:
        return SAME_UNITS[lower]
    if lower in DIMENSIONS or lower in CURRENCIES:
        return lower
    one = singular(lower)
    return one if one in DIMENSIONS or one in CURRENCIES else stem(lower)


#: The unit of a price of nothing ("free", "at no cost"): it compares with any currency.
FREE = "free"
