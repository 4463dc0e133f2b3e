"""The patterns of English short answers: dates, eras and centuries, amounts with their
units and currencies, counts, shares, ages, names of people and places, scores.

Kept apart from :mod:`deepcite.citations.answer_type`, which reads what a question asks
and picks among the candidates these patterns find, so the tables of units and words can
grow without touching how the choice is made (as :mod:`deepcite.citations.cjk_values`
is for Chinese, Japanese and Korean).
"""

from __future__ import annotations

import re

from deepcite.text.stopwords import STOPWORDS

_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October"
          r"|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?")
_YEAR = r"(?:1[0-9]{3}|20[0-9]{2})(?:\s?(?:AD|BC|BCE|CE))?"
_ORDINAL = (r"(?:\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh"
            r"|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth"
            r"|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-first)")
_BARE_YEARS = re.compile(rf"\b{_YEAR}\b")
_ERAS = re.compile(r"\b(?:the\s+)?(?:[A-Z][a-z]+\s+){1,2}(?:era|period|dynasty|age|Age|Era)\b"
                   r"|\bthe Middle Ages\b|\bthe Renaissance\b")
_DECADES = re.compile(r"\b(?:the\s+)?(?:(?:early|mid|late|mid-)[\s-]?)?"
                      r"(?:1[0-9]{2}0s|20[0-9]0s|'[0-9]0s)")
_CENTURIES = re.compile(rf"\b(?:the\s+)?(?:(?:early|mid|late)[\s-])?{_ORDINAL}"
                        rf"[\s-]centur(?:y|ies)(?:\s+(?:AD|BC|BCE|CE))?", re.IGNORECASE)
_DATE_PATTERNS = [
    # ranges first: "1963 to 1989", "1914-1918", "from 1963 until 1989"
    re.compile(rf"\b{_YEAR}\s*(?:-|\u2013|to|until|till|through)\s*{_YEAR}\b"),
    re.compile(rf"\b(?:\d{{1,2}}\s+{_MONTH},?\s+{_YEAR}|{_MONTH}\s+\d{{1,2}},?\s+{_YEAR}"
               rf"|{_MONTH},?\s+{_YEAR})\b"),
    # a season of the year: "from May through September", "November to March"
    re.compile(rf"\b{_MONTH}\s*(?:-|\u2013|to|until|till|through)\s*{_MONTH}(?!\s*\d)"),
    _DECADES,
    _CENTURIES,
    _ERAS,
    _BARE_YEARS,
]
# What local news and posts date things by when they give no year, used only where a
# sentence holds no date above: a day of a month ("14 May"), a month after a word that
# sets it in time ("in September"), a weekday ("reopened on Saturday") and days and
# seasons said from now ("yesterday", "next spring").
_FULL_MONTH = (r"(?:January|February|March|April|May|June|July|August|September"
               r"|October|November|December)")
_WEAK_DATES = [
    re.compile(rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_FULL_MONTH}"
               rf"|{_FULL_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?)\b(?!,?\s*\d)"),
    re.compile(rf"(?:(?<=\bin )|(?<=\bby )|(?<=\bfrom )|(?<=\buntil )|(?<=\bsince )"
               rf"|(?<=\bearly )|(?<=\blate )|(?<=\bnext )|(?<=\blast ))"
               rf"{_FULL_MONTH}\b(?!\s*\d)", re.IGNORECASE),
    re.compile(r"\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b",
               re.IGNORECASE),
    re.compile(r"\b(?:yesterday|today|tonight|tomorrow|(?:last|next|this) (?:spring|summer"
               r"|autumn|fall|winter|week|weekend|month|year|morning|evening|night))\b",
               re.IGNORECASE),
]
_NUMBER = (r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
           r"|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen"
           r"|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|a few|several"
           r"|a dozen|dozens of|hundreds of|thousands of)")
_SCALE = r"(?:\s+(?:hundred|thousand|million|billion|trillion))"
_CURRENCY = r"(?:US\$|A\$|C\$|\$|£|€|¥|₹|USD\s?|EUR\s?|GBP\s?)"
_UNIT_WORDS = (r"%|percent|per cent|dollars|pounds|euros|yen|francs|marks|rupees|pesos"
               r"|km2|km²|sq mi|square (?:miles|kilometres|kilometers|metres|meters|feet)"
               r"|km|kilometres|kilometers|miles|metres|meters|m|cm|mm|feet|ft|inches"
               r"|kg|kilograms|tonnes|tons|pounds|lb|lbs|acres|hectares|ha|mph|km/h|knots"
               r"|degrees|°C|°F|years|months|weeks|days|hours|minutes|seconds|litres|liters"
               r"|gallons|MW|GW|kW|watts|volts")
# A number written out ("nine metres", "a two-mile detour"): the measures of news and posts.
_WORD_NUMBER = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
                r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty"
                r"|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred|a few|several)"
                r"(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?")
# A measure as an adjective before its noun: "the 1.8-kilometre lane", "a two-mile detour".
_UNIT_SINGULAR = (r"kilometre|kilometer|metre|meter|mile|foot|inch|yard|hour|minute"
                  r"|second|day|week|month|year|acre|hectare|tonne|ton|litre|liter"
                  r"|gallon|storey|story|lap|page")
_PER = r"(?:\s+(?:per|a|an|each)\s+(?:year|annum|month|week|day|hour|person|head|capita))?"
_AMOUNT = [
    re.compile(rf"{_CURRENCY}\s?(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?{_SCALE}?"
               rf"(?:\s*(?:m|bn|k)\b)?{_PER}"),
    re.compile(rf"\b(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?{_SCALE}?\s*(?:{_UNIT_WORDS})"
               rf"(?![A-Za-z]){_PER}"),
    re.compile(rf"\b{_WORD_NUMBER}{_SCALE}?\s+(?:{_UNIT_WORDS})(?![A-Za-z]){_PER}",
               re.IGNORECASE),
    re.compile(rf"\b(?:(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?|{_WORD_NUMBER})"
               rf"-(?:{_UNIT_SINGULAR})(?![A-Za-z-])", re.IGNORECASE),
]
# A money question is answered by money (_MONEY), never by "25%".
_MONEY = [
    _AMOUNT[0],
    re.compile(rf"\b(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:\.\d+)?{_SCALE}?\s*"
               r"(?:dollars|pounds|euros|yen|francs|marks|rupees|pesos|yuan|roubles|rubles"
               rf"|lira|crowns|guilders|shillings|cents|pence)(?![A-Za-z]){_PER}"),
]
_COUNT = re.compile(rf"\b(?:{_NUMBER}){_SCALE}?(?!\w|,\d)", re.IGNORECASE)
_FRACTION = (r"(?:one|two|three|four|five|a)[\s-](?:half|third|thirds|quarter|quarters"
             r"|fifth|fifths|tenth|tenths)|half|\d+/\d+|(?:a|the) (?:majority|minority)")
_SHARE = [re.compile(r"\b\d+(?:\.\d+)?\s*(?:%|percent\b|per cent\b)"),
          re.compile(rf"\b(?:{_FRACTION})\b", re.IGNORECASE)]
# An age: the number of "at the age of 86", "aged 86", "86 years old", "an 86-year-old".
_AGE = re.compile(r"\b(?:age of|aged|ages of) (?P<n>\d{1,3})\b"
                  r"|\b(?P<m>\d{1,3})[\s-]years?[\s-]old\b")
_WEEKDAYS = frozenset({"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                       "Sunday"})
# Where one clause of a sentence ends and another, about something else, begins.
_CLAUSE = re.compile(r",?\s+(?:but|whereas|while|although|though|until|before|after"
                     r"|and then|which|when)\s+|;\s+|,\s+and\s+")
_NOUN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")  # a word that may be a counted noun
_BARE_YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})$")
# Capitalised words in Latin scripts with diacritics too ("Ögedei", "Émile", "Łódź").
_UPPER = "A-Z\u00C0-\u00D6\u00D8-\u00DE\u0100-\u024F"
_LOWER = "a-z\u00DF-\u00F6\u00F8-\u00FF\u0100-\u024F"
_CAP = rf"[{_UPPER}][{_LOWER}'\u2019]+(?:-[{_UPPER}][{_LOWER}]+)?"
_PARTICLE = r"(?:van|von|de|der|den|da|di|del|la|le|du|bin|ibn|of)"
_PERSON = re.compile(rf"\b{_CAP}(?:\s+(?:[A-Z]\.\s+)?(?:{_PARTICLE}\s+)*{_CAP}){{1,3}}\b")
_PLACE = re.compile(rf"\b(?:in|at|from|near|to|into)\s+(?P<place>(?:the\s+)?{_CAP}"
                    rf"(?:\s+(?:of\s+)?{_CAP}){{0,3}})")
_NAMED = re.compile(rf"\b(?:{_CAP}|[A-Z]{{2,}})(?:-[A-Za-z]+)*"
                    rf"(?:\s+(?:(?:of|for|de|del|du|la|the|&)\s+)*(?:{_CAP}|[A-Z]{{2,}}|\d+)"
                    rf"(?:-[A-Za-z]+)*)*")
_SCORE = re.compile(r"\b\d{1,3}\s*[-\u2013:]\s*\d{1,3}\b(?![-\u2013:]\d)")
# Words after a number that are no noun it counts: a count needs what it counts.
_NOT_COUNTED = STOPWORDS | {"percent", "per", "cent", "times", "am", "pm", "bc", "ad",
                            "ce", "bce"}
# Spans of time and measures: "13 years" counts years, so it answers "how many years",
# never "how many interceptions" ("at 13 years and 48 days"), whatever else it is.
_SPAN_NOUNS = frozenset({
    "seconds", "minutes", "hours", "days", "nights", "weeks", "months", "years",
    "decades", "centuries", "millennia", "seasons", "generations", "times", "percent",
    "degrees", "points", "miles", "kilometres", "kilometers", "km", "metres", "meters",
    "feet", "inches", "yards", "acres", "hectares", "kilograms", "kg", "tonnes", "tons",
    "pounds", "dollars", "euros", "cents"})
_NOT_NAMES = frozenset({"The", "This", "That", "These", "Those", "It", "In", "On", "At",
                        "During", "After", "Before", "However", "When", "While", "Since",
                        "His", "Her", "Their", "Its", "A", "An", "By", "From", "With"})
#: Words that make a capitalised run a place, a body or a thing rather than a person.
_NOT_PERSON = frozenset({
    "North", "South", "East", "West", "Central", "Northern", "Southern", "Eastern",
    "Western", "Upper", "Lower", "Greater", "New", "Asia", "Africa", "Europe", "America",
    "Americas", "Antarctica", "Oceania", "Ocean", "Sea", "Gulf", "Bay", "River", "Lake",
    "Mountains", "Mount", "Island", "Islands", "Peninsula", "Valley", "Desert", "Coast",
    "Kingdom", "Republic", "Empire", "States", "Union", "Province", "County", "City",
    "Street", "Avenue", "Road", "Square", "Park", "University", "College", "School",
    "Institute", "Museum", "Church", "Cathedral", "Company", "Corporation", "Party",
    "Association", "Society", "Foundation", "Organization", "Organisation", "Agency",
    "Commission", "Committee", "Federation", "Alliance", "Academy", "Assembly", "Senate",
    "Congress", "Administration", "Authority", "Office", "Service", "Club", "Group",
    "Library", "Hospital", "Center", "Centre", "Laboratory", "Laboratories", "Studios",
    "Army", "Navy", "Council", "Parliament", "Court", "Ministry", "Department", "Bank",
    "Bureau", "Board", "Cabinet", "Government", "Tribunal", "Executive", "Body",
    "Station", "Airport", "Bridge", "Tower", "Castle", "Palace", "Hall", "Stadium",
    # events, awards, works and laws: "the Seven Years' War" fought no one
    "War", "Wars", "Battle", "Siege", "Revolution", "Rebellion", "Uprising", "Crisis",
    "Treaty", "Act", "Bill", "Law", "Constitution", "Declaration", "Agreement",
    "Convention", "Accords", "Award", "Awards", "Prize", "Medal", "Cup", "Bowl", "Trophy",
    "Games", "Olympics", "Championship", "Championships", "Tournament", "League",
    "Festival", "Conference", "Summit", "Movement", "Campaign", "Expedition", "Dynasty",
    "Era", "Age", "Period", "Century", "Series", "Show", "Album", "Symphony", "Opera"})
#: Words right before a capitalised run that make it a place ("born in Central Asia").
_PLACE_CUES = frozenset({"in", "at", "from", "near", "into", "across", "throughout"})
_IRREGULAR_PLURALS = frozenset({"people", "men", "women", "children", "staff", "police",
                                "cattle", "sheep", "fish", "deer", "personnel", "troops",
                                "feet", "teeth", "mice", "geese", "crew", "infantry"})
_PEOPLE = frozenset({"people", "persons", "inhabitants", "residents", "citizens",
                     "population", "populations"})
_POSSESSIVE = re.compile(r"['\u2019]s?(?!\w)")
# A currency right before a number: what follows is money ("£43 million gallery").
_MONEY_BEFORE = re.compile(rf"{_CURRENCY}\s?$")
# A unit or counted people after a number: a quantity ("1015 tonnes"), not a year.
_MEASURED = re.compile(rf"\s*(?:{_UNIT_WORDS}|{'|'.join(sorted(_IRREGULAR_PLURALS))})"
                       r"(?![A-Za-z])")
_NAMED_NUMBER = re.compile(r"\b[A-Z][A-Za-z]+\s$")
# A clause before the question proper: "When a commission reached no decision, what
# happened?" asks what, not when; "In 1990, what was ..." asks what.
_LEADING_CLAUSE = re.compile(r"^(?:when|if|after|before|while|since|although|though|once"
                             r"|as|in|during|with|by|at)\b[^,?]*,\s*(?=(?:who|whom|whose"
                             r"|when|where|what|which|how|why)\b)")
_WH_WORD = re.compile(r"\b(?:who|whom|whose|when|where|what|which|how|why)\b")
_BARE_WH = re.compile(r"\b(?:who|whom|whose|when|where)\b")
_WH_NAME = re.compile(r"(?:Who|When|Where|Whom|Whose|How)(?![a-z])")
_MONTHS = frozenset(re.sub(r"[()?:\\.]", "", _MONTH).split("|"))
