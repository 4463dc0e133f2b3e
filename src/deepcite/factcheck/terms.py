"""The content words of a text, as a claim and a source's sentence share them: stemmed
a little further than the shared stemmer ("operate"/"operat", "rowing"/"row"),
irregular verbs read as their base ("paid" is "pay"), a short table of words a draft
says for a source's ("started" for "founded"), no stop words, numbers or number words,
and the meaningful pairs of CJK runs.
"""

from __future__ import annotations

import re
from functools import lru_cache

from deepcite.factcheck.names import ABBREVIATIONS
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.stem import singular, stem
from deepcite.text.stopwords import STOPWORDS
from deepcite.text.words import WORD

__all__ = ["terms_of"]

_NUMBER_WORDS = frozenset("""zero one two three four five six seven eight nine ten eleven
    twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty
    fifty sixty seventy eighty ninety hundred dozen""".split())  # noqa: SIM905


# Words a draft says for a source's (stems, as :func:`~deepcite.text.stem.stem` gives
# them): "started by" is "founded by", "bought" is "acquired".
# Irregular verb forms, read as their base form before stemming ("paid" is "pay").
_IRREGULAR = {form: base for base, forms in (
    ("pay", "paid"), ("win", "won"), ("grow", "grew grown"), ("sell", "sold"),
    ("buy", "bought"), ("build", "built"), ("hold", "held"), ("lead", "led"),
    ("run", "ran"), ("begin", "began begun"), ("write", "wrote written"),
    ("spend", "spent"), ("send", "sent"), ("keep", "kept"), ("leave", "left"),
    ("meet", "met"), ("tell", "told"), ("rise", "rose risen"), ("fall", "fell fallen"),
    ("take", "took taken"), ("give", "gave given"), ("choose", "chose chosen"),
    ("teach", "taught"), ("bring", "brought"), ("think", "thought"),
    ("speak", "spoke spoken"), ("drive", "drove driven"), ("fly", "flew flown"),
    ("draw", "drew drawn"), ("lose", "lost"), ("shut", "shut"), ("cost", "cost"),
    # British spellings, read as the American ones a source may use ("released under
    # the MIT licence" against "licensed under the Apache License")
    ("license", "licence licences licenced"), ("color", "colour colours coloured"),
    ("center", "centre centres"), ("program", "programme programmes"),
    ("defense", "defence"), ("offense", "offence"), ("catalog", "catalogue catalogues"),
    ("organize", "organise organised organises organising"),
    ("analyze", "analyse analysed analyses analysing"),
    ("recognize", "recognise recognised"), ("authorize", "authorise authorised"),
) for form in forms.split()}


def _norm(term: str) -> str:
    """A stem a little further: "operate" and "operat", "swimm" and "swim", "rowing"
    and "row" are one word (the shared stemmer leaves them apart)."""
    if len(term) > 5 and term.endswith("ing"):
        term = term[:-3]
    elif len(term) > 6 and term.endswith("ment"):
        term = term[:-4]  # "payment" is "pay", "agreement" "agree"
    elif len(term) > 6 and term.endswith(("able", "ible")):
        term = term[:-4]
    elif len(term) > 4 and term.endswith("ed") and not term.endswith("eed"):
        term = term[:-2]
    if len(term) > 3 and term.endswith("e"):
        term = term[:-1]
    if len(term) > 3 and term[-1] == term[-2] and term[-1] not in "lsz":
        term = term[:-1]
    return term


_SYNONYMS = {_norm(word): _norm(group[0]) for group in (
    ("found", "start", "establish", "creat", "set"),
    ("releas", "launch", "ship", "shipp", "publish", "deliver", "dispatch"),
    ("buy", "bought", "acquir", "purchas"),
    ("allow", "permitt", "permit", "let", "welcom"),
    ("attend", "came", "come", "visit"),
    ("peopl", "person", "visitor", "attende", "guest", "spectator", "participant",
     "entrant", "competitor", "runner"),
    ("bicycl", "bike", "cycl"),
    ("standard", "regular", "normal", "usual"),
    ("ticket", "admission", "admiss", "entry", "entri", "entrance", "fare"),
    ("forbid", "forbidden", "prohibit", "bann", "ban"),
    ("price", "pric", "cost", "costs", "charg", "fee"),
    ("late", "later", "overdue"),
    ("need", "requir"),
    ("depend", "dependency", "dependenc"),
    ("base", "bas", "headquarter", "headquart", "locat", "seat"),
    ("lead", "led", "head", "manag"),
    ("big", "larg", "larger", "bigger"),
    ("small", "smaller", "littl"),
    ("fast", "quick", "faster", "quicker"),
    ("keep", "kept", "retain", "stor", "store", "hold", "held"),
    ("support", "run", "runs", "work", "works"),
    ("available", "exist", "offer", "provid"),
    ("evict", "remov", "delet", "drop", "dropp"),
    ("written", "wrote", "writ", "develop", "built", "build", "author"),
    ("employ", "employe", "staff", "worker", "personnel", "workforc"),
    ("tool", "program", "utility", "utiliti", "application"),
    ("cancel", "cancell", "stop", "stopp", "terminat"),
    ("meet", "gather"),
    ("child", "children", "kid", "kiddi"),
    ("reduc", "cut", "lessen"),
    # leaving and arriving, as a timetable and a person say them
    ("depart", "departur", "leav"),
    ("arriv", "arrival"),
    # a verb and its noun further apart than a suffix ("sign up" is register)
    ("register", "registration", "enrol", "enroll"),
    ("submit", "submission"),
    ("complet", "completion"),
    ("collect", "collection"),
    # a comparative and the verb of making it so ("a longer period" is one lengthened)
    ("longer", "lengthen"),
    ("shorter", "shorten"),
    # what a patient and a practice call one visit
    ("exam", "examination", "checkup"),
    # where files live, as people and manuals say it
    ("directory", "folder"),
    # the end of a day's opening, as a shop's door and a timetable say it
    ("clos", "shut"),
) for word in group}
# Verbs that say nothing of what is done ("uses" - "use" is a stop word already).
_EMPTY = frozenset({"uses", "make", "makes", "made", "get", "gets", "got", "take", "takes",
                    # quantities that name no amount
                    "several", "many", "various", "numerous", "any", "few", "lot", "lots",
                    "much", "certain",
                    # what is left of a contraction ("don't" is "don" and "t") and a
                    # reflexive pronoun: no word of what is said
                    "don", "doesn", "didn", "isn", "aren", "wasn", "weren", "hasn", "haven",
                    "hadn", "shouldn", "wouldn", "couldn", "mustn", "needn", "yourself",
                    "yourselves", "themselves", "itself", "himself", "herself", "myself",
                    "ourselves",
                    # adverbs of emphasis: "doesn't actually free", "it really is"
                    "actually", "really", "basically", "literally", "simply",
                    # naming what follows: "a folder called `public`" is the folder public
                    "called", "named"})
# ... and "go" in lower case ("children go free"; "Go" is a language's name).
_EMPTY_AS_WRITTEN = frozenset({"go", "goes"})




# "whenever you like" says what "at any time" says.
_ANY_TIME = re.compile(r"\bwhenever\s+(?:you|they|we|he|she|one|customers|members)\s+"
                       r"(?:like|likes|want|wants|wish|wishes|choose|chooses|please|"
                       r"pleases)\b|\banytime\b", re.IGNORECASE)


# Beyond the home country, however written: "elsewhere in Europe", "abroad", "outside
# the UK", "overseas" ("delivers elsewhere in Europe" against "does not ship outside the
# UK" is one scope, said and denied).
_ABROAD = re.compile(r"\b(?:elsewhere\s+in\s+[A-Z]\w+|abroad|overseas|internationally|"
                     r"outside\s+(?:the\s+)?(?:UK|US|USA|EU|country|[A-Z][a-z]+)|"
                     r"to\s+other\s+countries|(?:all\s+)?around\s+the\s+world|worldwide)\b")
# "back then", "at the time": when, said of a time the draft named before; no word of
# what is done.
_THEN = re.compile(r"\b(?:back then|at (?:that|the) time|in those days)\b", re.IGNORECASE)


# Phrases a draft writes for one word of its source: "the car park" for parking, "get
# in" for entry, "become a member" for join, "a dummy pill" for a placebo, "costs
# nothing" for free.
_PHRASES = tuple((re.compile(pattern, re.IGNORECASE), word) for pattern, word in (
    # "won't" is "will not", no form of "win" ("won")
    (r"\bwon['\u2019]t\b", "will not"),
    # "no matter how many", "regardless of how many" say "however many" (and "what",
    # "where", "when", "who" the same)
    (r"\b(?:no\s+matter|regardless\s+of|irrespective\s+of)\s+(how|what|where|when|who)\b",
     r"\1ever"),
    (r"\bcar\s+parks?\b", "parking"),
    # a ticket or trip "one way" is a single ("£38 one way", "a one-way ticket"); "one
    # way or another", "one way to", "either way", "by the way" say no word of it
    (r"\bone[\s-]way\b(?!\s+(?:or|to|of|is|that)\b)", "single"),
    (r"\b(?:one|either|any|no|the\s+other)\s+way\b|\bby\s+the\s+way\b|\banyway\b", " "),
    # a work appearing in a journal or paper by name is published there ("appeared in
    # the New England Journal of Medicine", "was published in The Lancet")
    (r"\bappear(?:s|ed|ing)?\s+in(?=\s+(?:the\s+)?[A-Z])", "published in"),
    (r"\b(?:get|gets|getting|got)\s+in\b", "entry"),
    (r"\bbecom(?:e|es|ing)\s+(?:a\s+)?members?\b", "join"),
    (r"\bdumm(?:y|ies)\s+pills?\b|\bsugar\s+pills?\b", "placebo"),
    # a drug against pain, however written: "pain medication", "pain relief", "analgesics"
    (r"\bpain\s*(?:relief|reliev(?:er|ers|ing\s+drugs?)|medications?|medicines?|"
     r"drugs?|killers?)\b|\banalgesics?\b", "painkiller"),
    # one setting winning over another, however written: "takes priority over", "wins
    # over", "beats", "trumps"
    (r"\b(?:tak(?:e|es|ing)|ha(?:s|ve))\s+(?:precedence|priority)(?:\s+over)?\b|"
     r"\bwin(?:s|ning)?\s+(?:over|against)\b|\bbeat(?:s|ing)?\b|\btrump(?:s|ing)?\b|"
     r"\boverrul(?:e|es|ing)\b", "override"),
    (r"\bno\s+(?:upper\s+)?limit\b|\bwithout\s+(?:any\s+)?limits?\b|\blimitless\b",
     "unlimited"),
    # what holds when nobody sets it, however written, is the default: "out of the
    # box", "if you don't set a quality yourself", "unless you choose otherwise"
    (r"\bout\s+of\s+the\s+box\b|\bunless\s+(?:you|they|we|users?)\s+(?:set|choose|"
     r"pick|specify|select|change|say)\s+(?:it\s+|one\s+)?otherwise\b|"
     r"\bif\s+(?:you|they|we|users?)\s+(?:do\s+not|don't|doesn't|does\s+not|never)\s+"
     r"(?:set|choose|pick|specify|select|give|change)\b[^,.;]*|"
     r"\bunless\s+(?:you|they|we|users?)\s+(?:change|override|configure|set|adjust)\s+"
     r"(?:it|that|this|them)\b", "default"),
    # bags carried on board and bags handed in, however written
    (r"\b(?:hand|carry-on|cabin)\s+(?:luggage|baggage|bags?)\b", "cabin baggage"),
    (r"\b(?:checked(?:-in)?|hold|checked-in)\s+(?:luggage|baggage|bags?)\b", "hold baggage"),
    # a price of nothing, however written, is the word "free"
    (r"\bcost(?:s|ing)?\s+nothing\b|\bwithout\s+(?:paying|payment|charge)\b|"
     r"\bfree\s+of\s+charge\b|\bat\s+no\s+(?:extra\s+|additional\s+)?(?:cost|charge)\b",
     "free"),
    # the days of the working week, however written, are "weekdays"
    (r"\b(?:from\s+)?Mondays?\s*(?:to|until|till|through|-|\u2013)\s*Fridays?\b|"
     r"\bworking\s+days\b", "weekdays"),
    (r"\bSaturdays?\s+and\s+Sundays?\b", "weekends"),
    # a grown person, however written
    (r"\bgrown-ups?\b|\bgrownups?\b", "adult"),
    # doing several things together, however written: "at once", "at the same time",
    # "simultaneously", "concurrently", "in parallel"
    (r"\bat\s+(?:once|the\s+same\s+time)\b|\bsimultaneous(?:ly)?\b|"
     r"\bconcurrent(?:ly)?\b|\bin\s+parallel\b", "parallel"),
    # something failing, however written: "blows up", "raises an error", "throws an
    # exception", "errors out"
    (r"\b(?:blows?|blew|blown|blowing)\s+up\b|\b(?:raises?|raised|raising|throws?|threw|"
     r"thrown|throwing)\s+(?:an?\s+)?(?:error|exception)s?\b|\berrors?\s+out\b", "fails"),
    # a price cut, however written: "10% off", "knock 10% off", "save 10%", "a 10%
    # reduction" are a discount
    (r"\bknock(?:s|ed|ing)?\b(?=[^.;]{0,25}?%\s*off\b)", " "),
    (r"(?<=%)\s*off\b", " discount"),
    (r"\bsav(?:e|es|ed|ing)\s+(?=\d[\d.]*\s*%)", "discount "),
    (r"(?<=%)\s+(?:reduction|cheaper)\b", " discount"),
    # going on: "the build carries on" is "continues"
    (r"\bcarr(?:y|ies|ied|ying)\s+on\b", "continues"),
    # a count equal to another, however written: "as many images ... as there are
    # cores", "how many images", "the number of images"
    (r"\bas\s+many\b(?=(?:\s+[\w-]+){1,6}\s+as\b)|\bhow\s+many\b", "number"),
    # what people say for the word a notice writes (phrasal verbs and idioms): "sign up"
    # is register, "turn up" arrive, "hand in" submit, "fill in" complete, "pick up"
    # collect, "your money back" a refund, "goes live" opens, "take cash" accepts it,
    # "kicks off" starts
    (r"\bsign(?:s|ed|ing)?\s+up\b", "register"),
    (r"\b(?:turn|show)(?:s|ed|ing)?\s+up\b", "arrive"),
    (r"\bhand(?:s|ed|ing)?\s+(?:it\s+|them\s+)?in\b", "submit"),
    (r"\bfill(?:s|ed|ing)?\s+(?:it\s+|them\s+)?(?:in|out)\b", "complete"),
    (r"\bpick(?:s|ed|ing)?\s+(?:it\s+|them\s+)?up\b", "collect"),
    (r"\b(?:(?:your|their|the|my|our|his|her)\s+)?money\s+back\b", "refund"),
    (r"\b(?:go|goes|went|gone|going)\s+live\b", "opens"),
    (r"\btak(?:e|es|ing)\s+(?=(?:cash|cards?|credit\s+cards?|debit\s+cards?|cheques?|"
     r"checks?|payments?|bookings?|reservations?|walk-ins?|contactless)\b)", "accept "),
    (r"\bkick(?:s|ed|ing)?\s+off\b", "starts"),
    # the machine itself, as an address and as a word: "127.0.0.1:9102" is localhost
    (r"(?<![\d.])127\.0\.0\.1(?![\d.])|\bloopback\b", " localhost "),
    # raising a setting, said loosely ("crank that up to 64", "bump it up to 16"): the
    # value says what the verb adds
    (r"\b(?:crank|bump)(?:s|ed|ing)?\s+(?:\w+\s+)?up\b", " "),
))


def _phrased(text: str) -> str:
    """``text`` with each phrase of :data:`_PHRASES` written as its one word."""
    for pattern, word in _PHRASES:
        text = pattern.sub(word, text)
    return text


@lru_cache(maxsize=4096)
def terms_of(text: str) -> frozenset[str]:
    """The content words of ``text`` (stemmed, no stop words, numbers or number words)
    and the meaningful pairs of its CJK runs: what a claim and a sentence share."""
    words = WORD.findall(_ABROAD.sub("abroad", _THEN.sub(
        "then", _ANY_TIME.sub("any time", _phrased(text)))))
    if any(word.lower() in ABBREVIATIONS for word in words):
        words = [part for word in words
                 for part in ABBREVIATIONS.get(word.lower(), word).split()]
    found = {_SYNONYMS.get(term, term) for term in (
        _norm(stem(singular(_IRREGULAR.get(word.lower(), word.lower())))) for word in words
        if word.lower() not in STOPWORDS and not word[0].isdigit()
        and word.lower() not in _NUMBER_WORDS and len(word) > 1
        and word.lower() not in _EMPTY and word not in _EMPTY_AS_WRITTEN)}
    found.update(cjk_terms(text))
    return frozenset(found)
