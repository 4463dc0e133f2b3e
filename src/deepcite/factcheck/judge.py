"""One claim's verdict from the passages found for it, without a model.

1. **The same subject.** Every sentence of every passage is scored by the claim's
   content words it says, each weighted by how rare it is among the passages' sentences
   (a word every passage has - the product's name - tells little; "refund" tells
   much). A name the sentence leaves to a pronoun counts half when its passage names it.
   The best sentence below :data:`FOUND` means nothing states the subject: ``not_found``.
2. **The same values.** The claim's values (:mod:`deepcite.factcheck.values`) are
   looked up in the best sentence, its neighbours and the other sentences on the
   subject: a value one of them states agrees; a different value of the same slot in a
   sentence on the subject contradicts ("draft: 30 days; source [2]: 90 days"). Names
   the passage lacks, where its sentence names someone else, contradict too; a negation
   or an opposite ("enabled"/"disabled") in the clause that says the claim's words is
   the source stating the opposite.
3. **The verdict.** Any contradiction: ``contradicted``. Every value and name stated,
   and the sentence saying :data:`SUPPORTED` of the claim's words: ``supported``.
   Otherwise part of it: ``partly_supported``.

The quotes are sentences of the passages, with their offsets in the passage text, so
they are verbatim by construction.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from deepcite.factcheck.agreeing import with_denial
from deepcite.factcheck.agreement import agrees, agrees_as_count
from deepcite.factcheck.cases import case_split
from deepcite.factcheck.changes import labelled_past_value, past_value_in
from deepcite.factcheck.claimed_units import with_claimed_unit
from deepcite.factcheck.claims import clean_claim
from deepcite.factcheck.clauses import (
    claim_parts,
    quantified_elsewhere,
    unsaid_clause,
    with_antecedents,
    word_and_next,
)
from deepcite.factcheck.comments import without_comment
from deepcite.factcheck.conflicts import (
    denial_of,
    name_in_place,
    opposed,
    other_role,
    slots,
)
from deepcite.factcheck.continued import continued_against
from deepcite.factcheck.flag_aliases import judge_alias, only_alias
from deepcite.factcheck.hours import hours_among, hours_clash, hours_on_subject
from deepcite.factcheck.install_commands import install_against
from deepcite.factcheck.judgement import (
    DENIAL_CANDIDATES,
    FOUND,
    MAX_QUOTES,
    MEANING_FOUND,
    MEANING_MIN_WORDS,
    MEANING_SUPPORTED,
    MEANING_WEIGHT,
    MEANING_WITH_VALUES,
    NEAR_FLOOR,
    NEAR_SCORE,
    SLOT_BONUS,
    SUPPORTED,
    SUPPORTED_WITH_VALUES,
    Conflict,
    Judgement,
    Quote,
    quote_of_sentence,
)
from deepcite.factcheck.meaning import Meaning, closeness
from deepcite.factcheck.names import (
    capitalised_inside,
    initialisms,
    language_at,
    name_groups,
    spelled_out,
)
from deepcite.factcheck.negation import negated
from deepcite.factcheck.order_kinds import order_kind_against
from deepcite.factcheck.other_words import (
    forbidden,
    other_agent,
    other_holder,
    other_of_kind,
    other_place,
)
from deepcite.factcheck.outright import (
    denied_terms,
    limited,
)
from deepcite.factcheck.passages import (
    Pool,
    Sentence,
    line_mate,
    sentence_values,
    share_said,
    values_of,
)
from deepcite.factcheck.paths import other_path
from deepcite.factcheck.precedence import judge_order
from deepcite.factcheck.priced import priced_elsewhere
from deepcite.factcheck.renames import renamed_otherwise
from deepcite.factcheck.restrictions import (
    ScopeClash,
    always_span,
    limit_clash,
    period_beside,
    restated_conditions,
    rhythm_clash,
    scope_clash,
    start_clash,
    universal,
)
from deepcite.factcheck.rows import row_denial
from deepcite.factcheck.shortnames import short_form_in
from deepcite.factcheck.switch_cells import switch_clash
from deepcite.factcheck.terms import terms_of
from deepcite.factcheck.unfound import of_every, unfound
from deepcite.factcheck.units import FREE
from deepcite.factcheck.unless_default import unless_against
from deepcite.factcheck.value import Value
from deepcite.factcheck.value_days import day_elsewhere
from deepcite.factcheck.value_findings import Candidates, find_values
from deepcite.factcheck.values import bound_words
from deepcite.types import SearchResult, Verdict

# A clause of purpose ("to find a free berth elsewhere", "in order to save time").
_PURPOSE = re.compile(r"^(?:in\s+order\s+|so\s+as\s+)?to\s+"
                      r"(?!(?:the|a|an|its|their|and|or)\b)[a-z]+\b")
# An example of what the clause before says ("like `/posts/2024/`", "such as PNG", "e.g.
# `tool -v`").
_EXAMPLE = re.compile(r"^(?:like|such\s+as|for\s+example|for\s+instance|e\.\s?g\.)\s",
                      re.IGNORECASE)

__all__ = ["FOUND", "SUPPORTED", "Conflict", "Judgement", "Quote", "judge", "terms_of"]


def judge(claim: str, passages: Sequence[SearchResult], *,
          names_known: frozenset[str] = frozenset(),
          meaning: Meaning | None = None, subject: str = "") -> Judgement:
    """The verdict on ``claim`` from ``passages`` (see the module docs).

    ``names_known``: lower-cased words known to be names (capitalised mid-sentence in
    the checked document), so that one opening a sentence is read as a name too. A
    claim of several clauses the whole of which is not settled is judged clause by
    clause: one clause stated and another not is ``partly_supported``. ``meaning``: a
    sentence encoder's similarities, for claims worded otherwise than their source
    (words alone without it). ``subject``: what the claim's opening pronoun stands for,
    written into ``claim`` (:mod:`~deepcite.factcheck.referents`): a name of it the
    sentence does not say is not missing - the draft never said it there.
    """
    borrowed = terms_of(subject)
    pool = Pool([result.full_text or result.snippet for result in passages])
    # the writer's comment states nothing (nor one naming a colleague no passage names)
    text = without_comment(clean_claim(claim), lambda name: not terms_of(name) & pool.said)
    known = names_known | capitalised_inside(pool.texts)
    # "`on_save` is now called `after_save`" against a sentence renaming it otherwise,
    # which the claim's words (its new name no passage has) may not find
    # (and "published unless you turn them off" against "excluded unless you pass
    # `--drafts`": the opposite default, which its words may not find either)
    # (and "`pip install quill`" against "pip install quill-cli", "run in alphabetical
    # order" against "run in the order they are listed")
    renamed = renamed_otherwise(claim, pool) or unless_against(text, pool) \
        or install_against(claim, pool) or order_kind_against(text, pool)
    if renamed is not None:
        return renamed
    alias = judge_alias(text, pool)
    if alias is not None and (alias.verdict == "contradicted" or only_alias(text)):
        return alias  # "`-j` is the short form of `--concurrency`" against "`-j N`, ..."
    whole = _judge_text(text, pool, known, meaning, borrowed)
    if whole.verdict == "not_found":
        # "on port 8000" against "The default port ... changed from 8000 to 4173", which
        # the claim's other words ("point your browser at localhost") did not find
        changed = labelled_past_value(text, pool.sentences)
        if changed is not None:
            return Judgement("contradicted", whole.score, (quote_of_sentence(changed[0]),),
                             (Conflict(changed[1].old, changed[2], 0),))
    parts = with_antecedents(claim_parts(text))
    if len(parts) < 2 or whole.verdict == "contradicted" or whole.scoped or (
            whole.verdict == "supported" and not whole.meant):
        return whole
    judged = [_judge_text(part, pool, known, meaning, borrowed) for part in parts]
    if whole.verdict == "supported" and all(
            one.verdict in ("supported", "partly_supported") or _PURPOSE.match(part)
            or _EXAMPLE.match(part) for part, one in zip(parts, judged, strict=True)):
        # a claim of several clauses is as close in meaning to a sentence saying only
        # one of them: close, it is said when every clause is found
        # (but for what a clause of purpose adds - "to find a free berth elsewhere" -
        # which qualifies the others: worded otherwise, it finds nothing alone; nor
        # does an example of what the clause before says, "like `/posts/my-title/`")
        return whole
    for index, one in enumerate(judged):
        # a clause alone may find another sentence; a value the whole claim found
        # stated stays stated ("School starts at 8:45" alone meets the breakfast club)
        # (however the note writes it: "version 2.0" is the value 2.0)
        kept = tuple(c for c in one.conflicts if c.draft not in whole.stated
                     and not any(c.draft.partition(" ")[2] == said
                                 or (said[:1].isdigit() and c.draft.endswith(" " + said))
                                 for said in whole.stated))
        if one.verdict == "contradicted" and kept:
            return dataclasses.replace(one, conflicts=kept)
        if one.verdict == "contradicted" and not one.missing and one.score >= SUPPORTED:
            # ... so a clause a sentence says in words, contradicted by nothing else, is
            # stated ("under version 2.0 of the Apache licence" against "moved to Apache
            # 2.0 in version 1.8": the release's version, not the whole claim's 2.0)
            judged[index] = dataclasses.replace(one, verdict="supported", conflicts=())
    stated = [one for one in judged if one.verdict != "not_found"]
    if not stated:
        return whole
    # an example found nowhere alone is no clause the source must state: the clause it
    # illustrates is ("URLs follow the section, then the slug, like `/posts/my-title/`")
    shown = [index for index, (part, one) in enumerate(zip(parts, judged, strict=True))
            if one.verdict != "not_found" or not _EXAMPLE.match(part)]
    parts, judged = [parts[i] for i in shown], [judged[i] for i in shown]
    quotes = tuple(dict.fromkeys(q for one in stated for q in one.quotes))[:MAX_QUOTES]
    said = tuple(dict.fromkeys(v for one in stated for v in one.stated))
    missing = tuple(dict.fromkeys(
        [v for one in judged for v in one.missing]
        + [part for part, one in zip(parts, judged, strict=True) if one.verdict == "not_found"]))
    verdict: Verdict = "supported" if not missing and all(
        one.verdict == "supported" for one in judged) else "partly_supported"
    return Judgement(verdict, max(one.score for one in judged), quotes, (), said, missing)


def _judge_text(text: str, pool: Pool, known: frozenset[str] | set[str],
                meaning: Meaning | None = None,
                borrowed: frozenset[str] = frozenset()) -> Judgement:
    """The verdict on one claim or clause (already cleaned of markup): by its words,
    values and names, unless it states an order of two things the passages order
    (:mod:`~deepcite.factcheck.precedence`) - the other order contradicts it, the same
    order says what its words alone only partly found (where it gives no value)."""
    judged = _judge_words(text, pool, known, meaning, borrowed)
    if judged.verdict == "contradicted" or (judged.verdict == "supported"
                                            and not judged.meant):
        return judged
    order = judge_order(text, pool)
    if order is None or (order.verdict == "supported" and (
            values_of(text) or judged.conflicts)):
        return judged
    return order


def _judge_words(text: str, pool: Pool, known: frozenset[str] | set[str],
                 meaning: Meaning | None = None,
                 borrowed: frozenset[str] = frozenset()) -> Judgement:
    """The verdict on one claim or clause by its words, values and names."""
    values = with_claimed_unit(text, values_of(text))
    claim_terms = terms_of(text)
    groups = [text[a:b] for a, b in name_groups(text, known)]
    name_terms = frozenset(t for group in groups for t in terms_of(group))
    if not pool.sentences or not claim_terms:
        return Judgement("not_found", 0.0)

    # a name no passage has is either wrong or out of the sources' reach: the subject
    # is what the rest of the claim says
    # ("RAF" where the passages say "the Royal Air Force" is a name they have)
    everywhere = pool.said | initialisms(pool.texts)
    unknown = frozenset(t for group in groups if not terms_of(group) & everywhere
                        for t in terms_of(group))
    subject = claim_terms - unknown if len(claim_terms - unknown) >= 2 else claim_terms
    cosine = closeness(text, pool, meaning, MEANING_MIN_WORDS)

    def rank(score: float, sentence: Sentence) -> float:
        # a sentence's share of the claim's words, plus its closeness in meaning
        return score + MEANING_WEIGHT * cosine.get(id(sentence), 0.0)

    def found(score: float, sentence: Sentence) -> bool:
        # the claim's words, or its meaning with some of its words
        return score >= FOUND or score + cosine.get(id(sentence), 0.0) >= MEANING_FOUND

    def ranked(words: frozenset[str], of: Sequence[Value]) -> list[tuple[float, Sentence]]:
        # the sentences by their share of these words (a sentence denying the claim's
        # subject what it denies, in other words, says it), closest first
        return sorted(((share_said(words, name_terms - unknown, with_denial(text, s), pool,
                                   of), s) for s in pool.sentences),
                      key=lambda pair: (-rank(*pair), len(pair[1].text)))

    scored = ranked(subject, values)
    # "every day of the week", "all year round": the scope the claim gives its words,
    # which a source bounding them says otherwise ("open from Tuesday to Saturday"). Its
    # generic words ("day", "week") find unrelated sentences ("20 litres a day"), so the
    # sentences ranked by the rest of the claim's words are taken - when the first of
    # them bounds that scope; else the scope's words were what a source saying the same
    # writes ("Sailings run every day in summer")
    span = always_span(text)
    by = subject - terms_of(text[span[0]:span[1]]) if span is not None else subject
    if span is not None and len(by) >= 2:
        by_values = tuple(v for v in values if not span[0] <= v.start < span[1])
        by_rest = ranked(by, by_values)
        if found(*by_rest[0]) and _bounds_scope(text, by_rest[0][1].text):
            scored = by_rest
    if not any(found(score, s) for score, s in scored):
        return unfound(text, claim_terms, values, scored, pool, known, cosine)
    # of the sentences about as close, the one stating facts of the claim's kinds
    # (a number of its unit, another name where it names one no passage has)
    top = max(rank(score, s) for score, s in scored if found(score, s))
    close = [(rank(score, s) + SLOT_BONUS * slots(values, bool(unknown), s, known,
                                                  claim_terms), s)
             for score, s in scored if rank(score, s) >= top - SLOT_BONUS and found(score, s)]
    best = max(close, key=lambda pair: pair[0])[1]
    best_meaning = cosine.get(id(best), 0.0)
    best_score = next(score for score, s in scored if s is best)
    scored = [(score, s) for score, s in scored if s is best] + [
        (score, s) for score, s in scored if s is not best]
    near = [s for s in pool.by_passage[best.passage] if abs(s.index - best.index) == 1]
    on_subject = [best, *near, *(s for score, s in scored[1:] if found(score, s)
                                 and s not in near)]
    quotes: list[Quote] = []

    def quote_of(sentence: Sentence) -> int:
        quote = quote_of_sentence(sentence)
        if quote not in quotes:
            quotes.append(quote)
        return quotes.index(quote)

    # a value is looked up in the best sentence first: what it says decides; then its
    # neighbours and the sentences nearly as close to the claim; then the others
    own = {id(s): score for score, s in scored}
    close_by = [s for s in on_subject if s is best or s in near
                or own[id(s)] >= best_score - NEAR_SCORE]
    found_values = find_values(text, values, claim_terms, pool,
                               Candidates(best, close_by, on_subject, own), quote_of)
    conflicts, stated, missing = (found_values.conflicts, found_values.stated,
                                  found_values.missing)
    passage_terms = pool.context[best.passage]
    best_names = name_groups(best.text, known)
    for start, end in name_groups(text, known):
        group = text[start:end]
        words = terms_of(group)
        if words and words <= borrowed and not words <= best.terms:
            continue  # the subject a pronoun stood for: the draft did not name it here
        if words and (spelled_out(group, pool.texts[best.passage])
                      or short_form_in(group, best.text)):
            # ("Postgres" where the passage says "PostgreSQL": its short form)
            words = frozenset()  # "RAF" where the passage says "the Royal Air Force"
            stated.append(group)
        if not words or words <= best.terms:
            if words:
                stated.append(group)
            continue
        # another name where the claim's stands, and the claim's named nowhere in the
        # passages: a different name (a name found elsewhere is only not stated here;
        # one the passage has, with no other name in its place, is the sentence's "it")
        others = [(a, b) for a, b in best_names
                  if terms_of(best.text[a:b]) - claim_terms]
        placed = name_in_place(text, start, end, best.text, others)
        if any(words <= s.terms for s in near):
            # said by the sentence before or after ("... and moved to a former print
            # works on Mill Street"), as a value would be
            stated.append(group)
        elif placed is None and words <= passage_terms:
            stated.append(group)
        elif placed is not None and words - everywhere and best_score >= FOUND \
                and language_at(best.text, *placed) <= language_at(text, start, end):
            # (only a sentence the claim's words found: one chosen by meaning is on the
            # topic, not about the same thing - "can sync over Bluetooth" is closest to
            # "runs on Linux and macOS", whose Linux is no other name for it)
            # (a language where the claim names a place - "courses in Italian" against
            # "courses in Rome" - is another kind of name; "German" against
            # "Austrian" one of the same kind)
            # "Lund University" where the sentence says "Uppsala University": the
            # name's own word is in no passage
            conflicts.append(Conflict(group, best.text[placed[0]:placed[1]], quote_of(best)))
        else:
            missing.append(group)
    if not conflicts:
        role = other_role(text, best.text, best.terms) or other_of_kind(text, best.text) \
            or other_agent(text, best.text, everywhere) \
            or other_place(text, best.text, everywhere) \
            or other_holder(text, best.text, known)
        if role is not None:
            conflicts.append(Conflict(role[0], role[1], quote_of(best)))
    row = None if conflicts else row_denial(text, claim_terms, pool) \
        or priced_elsewhere(text, claim_terms, pool, best) \
        or switch_clash(text, claim_terms, pool) \
        or other_path(text, (best, *near, *(s for _, s in scored[:DENIAL_CANDIDATES])),
                      pool) \
        or day_elsewhere(text, values, found_values.decided_by)  # Thursday's 19:30
    if row is not None:  # "| Windows | Not supported |" against "runs on ... Windows"
        conflicts.append(Conflict(row[1], row[2], quote_of(row[0])))
    # a value the source says was replaced, given as holding now
    changed = None if conflicts else past_value_in(text, (best, *near, *(
        s for score, s in scored[:DENIAL_CANDIDATES] if score >= NEAR_FLOOR)), claim_terms)
    if changed is not None:
        conflicts.append(Conflict(changed[1].old, f"{changed[1].new} (changed from "
                                  f"{changed[1].old})", quote_of(changed[0])))
    denier = best
    denial = denial_of(text, best.text, claim_terms & best.terms)
    # ranked with meaning, the best sentence may not be the one closest in words; that
    # one denying the claim, or saying the opposite of its words, still contradicts it
    # ("open to students on Fridays" closest in meaning to "open to students Monday to
    # Thursday", in words to "On Fridays it ... is closed to students")
    score_in_words, closest = max(scored, key=lambda pair: (pair[0], -len(pair[1].text)))
    wordier = closest if cosine and closest is not best and score_in_words > best_score \
        else None
    if denial is None and wordier is not None:
        denial = denial_of(text, wordier.text, claim_terms & wordier.terms)
        denier = wordier
    if denial is None and not conflicts:
        # the claim's words the best sentence leaves out, denied by the sentence after
        # or before it ("Night Heron is a decaffeinated coffee. The caffeine is removed
        # with a sugarcane process rather than with methylene chloride.")
        for other in near:
            rest = (claim_terms & other.terms) - best.terms - borrowed
            # two of those words under the negation: it denies what the claim adds
            if len(denied_terms(other.text) & rest) >= 2 and other is not wordier:
                denial = denial_of(text, other.text, rest)
                if denial is not None and terms_of(denial[0]) & rest:
                    denier = other
                    break
    if denial is not None:
        # the sentence on the subject denies it: what other sentences say of its values
        # does not matter ("The men's team has never won it")
        conflicts = [c for c in conflicts if quotes[c.quote] == quote_of_sentence(denier)]
        conflicts.append(Conflict(denial[0], denial[1], quote_of(denier)))
    for opposer in (best, wordier):
        if not conflicts and opposer is not None:
            pair = opposed(text, opposer.text, claim_terms) \
                or forbidden(text, opposer.text, claim_terms)
            if pair is not None:
                conflicts.append(Conflict(pair[0], word_and_next(opposer.text, pair[1]),
                                          quote_of(opposer)))
    for other in near if not conflicts else ():
        # a ban in the sentence after or before ("The laser cutter can cut wood and
        # acrylic. It must never be used to cut PVC.")
        # (or the end of what the claim says goes on: "Larchdb still runs on Windows"
        # against "... runs on Linux and macOS. Windows support was dropped.")
        pair = forbidden(text, other.text, claim_terms) or continued_against(text, other.text)
        if pair is not None:
            conflicts.append(Conflict(pair[0], pair[1], quote_of(other)))
            break
    for other in (best, *near) if not conflicts else ():
        # "open around the clock" against "operate from 6:00 to 23:00 only" (a
        # neighbour's hours only where the claim speaks of every one: "every station")
        hours = hours_clash(text, other.text) if (other is best or universal(text)) and (
            hours_on_subject(text, claim_terms, other, pool)) else None
        if hours is not None:
            conflicts.append(Conflict(hours[0], hours[1], quote_of(other)))
            break
    among = None if conflicts else hours_among(text, claim_terms, scored, of_every(text), pool)
    if among is not None:
        # ... or of the next ranked sentences on its subject
        conflicts.append(Conflict(among[1][0], among[1][1], quote_of(among[0])))
    scoped = False
    if not conflicts:
        # the same words, another scope: "any replica" against "the primary only"
        clash = limit_clash(text, best.text) or (None if quantified_elsewhere(
            text, best.text, best.terms) else scope_clash(text, best.text)) \
            or rhythm_clash(text, best.text)
        clasher = best
        if clash is None or clash.outcome != "contradicted":
            # the sentence after or before it limiting what the claim says of all ("four
            # hides ... Three of the hides can be reached by wheelchair; the Heron Hide
            # can only be reached by a flight of steps")
            # (or, saying none of them, speaking of its subject by a pronoun: "It is
            # available Monday to Friday" against "on any day of the week")
            beside = next(((s, c) for s in near if (
                len(claim_terms & s.terms) >= 2
                and (c := limited(text, s.text, claim_terms)) is not None)
                or (c := period_beside(text, s.text)) is not None), None)
            if beside is not None:
                clasher, clash = beside
        if clash is None or clash.outcome != "contradicted":
            # a split into cases ("keeps all frames if the output is GIF. For any other
            # format, only the first frame ...") against the claim's "always"
            cased = next((k for s in (best, *near)
                          if (k := case_split(text, s, pool)) is not None), None)
            if cased is not None:
                clasher, clash = cased[2], ScopeClash("contradicted", cased[0], cased[1])
        # "since the day it opened" against a start the source dates later, in the
        # sentence or the one after or before it
        started = next(((s, c) for s in (best, *near)
                        if (c := start_clash(text, s.text)) is not None), None)
        if started is not None and (clash is None or clash.outcome != "contradicted"):
            conflicts.append(Conflict(started[1].draft, started[1].source,
                                      quote_of(started[0])))
        elif clash is not None and clash.outcome == "contradicted":
            conflicts.append(Conflict(clash.draft, clash.source, quote_of(clasher)))
        elif clash is not None:
            scoped = True
            missing.append(f"{clash.draft} (source: {clash.source})" if clash.source
                           else clash.draft)
    if conflicts:
        return Judgement("contradicted", best_score, tuple(quotes), tuple(conflicts),
                         tuple(stated), tuple(missing))
    quotes.insert(0, quotes.pop(quote_of(best)))
    if values and not any(v.text in stated for v in values if v.dimension != "period") \
            and best_score < SUPPORTED_WITH_VALUES and best_meaning < MEANING_SUPPORTED:
        # none of the claim's values stated, the subject only loosely: nothing found
        # (how often alone - "every spring" against "an annual bird count" - says
        # nothing of what happens)
        return Judgement("not_found", best_score)
    # the share of the claim's words alone (its values' agreement aside) decides how
    # much of the claim beyond its values the sentence says
    # (the words of its values - "an hour" against "55 minutes" - are the values')
    # ("around", "at least": how exact a value is, which the values compare)
    # ("free" is a value said in a word: the words decide how much of the claim is said)
    measured = [v for v in values if v.unit != FREE]
    value_words = frozenset(t for v in measured for t in terms_of(v.text)
                            | terms_of(bound_words(text, v))) - best.terms
    # (so are those of a condition the sentence states in its own words: "When the fire
    # alarm sounds" against "In case of fire")
    value_words |= restated_conditions(text, best.text)
    # (and those of the subject a pronoun stood for, which the sentence leaves to its own
    # "it" or its heading: the draft did not name it here)
    value_words |= borrowed - best.terms
    words = subject - value_words if len(subject - value_words) >= 1 else subject
    words_score = share_said(words, name_terms - unknown, with_denial(text, best), pool)
    enough = SUPPORTED if not measured else SUPPORTED_WITH_VALUES if not all(
        v.unit or v.kind in ("year", "date", "version", "money", "percent") for v in measured
    ) else FOUND
    # two or more of the claim's values, all in the one sentence, say it whatever
    # words carry them ("starts at 8:45 and finishes at 15:15", "runs from 8:45 to
    # 15:15")
    best_values = sentence_values(best, claim_terms)
    facts = [v for v in measured if v.dimension != "period"]  # "a month" only qualifies
    meant = best_meaning >= MEANING_SUPPORTED or (
        best_meaning >= MEANING_WITH_VALUES and bool(measured)
        and all(v.text in stated for v in measured))
    # (a count under another noun too, "48 benches" in "48 workbenches": one no other
    # value of the claim states, and no bound - "at least two tutors" counts no benches)
    all_in_best = len(facts) >= 2 and all(
        any(agrees(v, other) or (
            not other.bound and agrees_as_count(v, other)
            and not any(agrees(mine, other) for mine in values if mine is not v))
            for other in best_values)
        for v in measured)
    said_in_words = (best_score >= SUPPORTED and words_score >= FOUND) or words_score >= enough \
        or all_in_best
    joined = False
    mate = None if said_in_words else line_mate(best, pool)
    if mate is not None and not negated(mate.text[len(best.text):] if mate.start == best.start
                                        else mate.text[:best.start - mate.start]) \
            and share_said(words, name_terms - unknown, with_denial(text, mate), pool) >= enough:
        # two sentences of one list item or line say it together ("`--jobs N` - how many
        # images are processed at the same time. The default is the number of logical
        # CPU cores" for "works on as many images at once as it has CPU cores"; not one
        # denying something: "... and a MIG welder. TIG welding is not available.")
        # (a claim of several clauses is then judged clause by clause, as one supported
        # by meaning is: the two sentences may each say another clause's words)
        said_in_words = joined = True
    verdict: Verdict = "supported" if not missing and (said_in_words or meant) \
        else "partly_supported"
    unsaid = unsaid_clause(text, [best, *near], values)
    if verdict == "supported" and unsaid is not None:
        # "Bus route 14 runs every 12 minutes and is free for patients": the values
        # agree, yet what the clause after "and" adds no sentence there says
        verdict = "partly_supported"
        missing.append(unsaid)
    # the one thing stated is the name the claim opens with: its subject
    subject_only = len(stated) == 1 and text.startswith(stated[0])
    if verdict == "partly_supported" and (not stated or subject_only) and missing and all(
            terms_of(m) and terms_of(m) <= unknown for m in missing):
        # what the claim says beyond its subject is a name no passage has ("also runs
        # courses in Rome"): nothing of it is stated
        return Judgement("not_found", best_score)
    # (or only names, where none of its other words is the sentence's: "Dr Nowak does
    # sedation" against "Dr Tomasz Nowak - Associate Dentist")
    named_only = bool(stated) and set(stated) <= set(groups) and not (
        words - name_terms) & best.terms
    if verdict == "partly_supported" and (subject_only or named_only) and (
            best_score < FOUND or named_only) and best_meaning < MEANING_SUPPORTED:
        # a sentence close in meaning saying only the claim's subject by name ("Kestrel
        # Lane runs a cafe" against "Kestrel Lane Coffee is a small roastery"): none of
        # what the claim says of it is stated
        return Judgement("not_found", best_score)
    return Judgement(verdict, best_score, tuple(quotes[:MAX_QUOTES]), (), tuple(stated),
                     tuple(missing), scoped, (meant and not said_in_words) or joined)


def _bounds_scope(claim: str, sentence: str) -> bool:
    """Whether ``sentence`` says otherwise of the time the claim says holds always: a
    part of the week or year, a range of hours."""
    if hours_clash(claim, sentence) is not None:
        return True  # "around the clock" against "from 7:00 to 19:00"
    clash = limit_clash(claim, sentence) or scope_clash(claim, sentence) \
        or rhythm_clash(claim, sentence)
    return clash is not None and clash.outcome == "contradicted"
