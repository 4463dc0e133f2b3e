"""Answer kinds of Chinese, Japanese and Korean questions, and the short answers of those kinds.

The same kinds as :mod:`deepcite.citations.answer_type` (a count, an amount, a date, a
person, a place ...), asked and answered in the way CJK writes them: a question word
inside the sentence ("条目保留多久", "何人が参加しましたか") and a number written with its
unit or classifier and no space ("三百秒", "300秒", "5分钟", "两个", "2000件"), in Arabic
or Chinese numerals. Korean asks with its own question words ("얼마나 오래", "몇 개",
"언제") and writes the number with its unit, with or without a space ("300초", "5분",
"삼백 초", "열두 개"), in Arabic, Sino-Korean or native Korean numerals.
:func:`question_kind` reads the kind, :func:`spans` finds the
candidates in a sentence; :mod:`deepcite.citations.answer_type` calls both for a
question in CJK, so the grounded answer leads with a short answer there as it does in
English.

Adding a language's kinds is adding its question words to :data:`_KIND_WORDS` and its
units or classifiers to the tables below.
"""

from __future__ import annotations

import re

from deepcite.citations.cjk_clock import Span, _clock_times, _dates, _hours_said
from deepcite.citations.cjk_rates import asked_rate, with_every
from deepcite.citations.cjk_values import (
    _ABOUT,
    _AGE,
    _AMOUNT,
    _BARE_NUMBER,
    _CLASSIFIERS,
    _COMPOUND_TIME,
    _COUNT,
    _HAN_DIGITS,
    _MEASURE,
    _MONEY,
    _NOT_FRACTION,
    _NUM,
    _PER,
    _PERSON,
    _PHONE,
    _PLACE,
    _SHARE,
    _TIME_SPAN,
    _UNIT_END,
)
from deepcite.text.cjk_synonyms import synonym_terms
from deepcite.text.cjk_terms import cjk_singles, cjk_terms

#: Question words of each kind, checked in this order (the first kind found decides):
#: "多少钱" is an amount before "多少" is a count, "几点" a date before "几" a count.
_KIND_WORDS: list[tuple[str, str]] = [
    ("age", "几岁|多大年纪|多少岁|何歳|いくつの時|몇\\s?살|나이"),
    ("share", "百分之几|多少比例|多大比例|多少百分比|百分比是多少|比例是多少|何パーセント|何割"
              "|몇\\s?퍼센트|비율은|비율이"),
    ("amount", "多久|多长时间|多少时间|多长|多少钱|多少秒|多少分钟|多少小时|多少天|多少年"
               "|几秒|几分钟|几小时|几天|几年|几个月|几周|どのくらい|どれくらい|どのぐらい"
               "|どれぐらい|いくら|何秒|何分間|何時間|何日間|何年間|何か月|何ヶ月|何週間"
               "|얼마나\\s?(?:오래|자주|걸리)|얼마\\s?동안|몇\\s?(?:초|분|시간|달|개월|주|년\\s?동안)"
               "|며칠|몇\\s?일|시간은\\s?얼마|기간은\\s?얼마|얼마나\\s?걸"),
    ("measure", "多大|多高|多远|多近|多重|多轻|多宽|多窄|多深|多浅|多厚|多薄|多快|多慢|多长"
                "|多短|多热|多冷|多低|多吵|多响|多亮|多少字节|多少内存|多少容量"
                "|얼마나\\s?(?:크|무거|멀|길|높|빠르)|(?:크기|무게|길이|높이|거리|용량)[는은가이]"
                "\\s?(?:얼마|몇)"),
    ("amount", "期間[はがの]?(?:何|どの)"),  # "保証期間は何年": how long, not which year
    # money asked by its noun ("每年要付多少费用", "定价是多少"): an amount, not a count
    ("amount", "多少(?:的)?(?:费用|价钱|价格)"
               "|(?:费用|价钱|价格|售价|定价)(?:是|为|要|大概|大约)*多少"
               # "超时以后怎么收钱": how the charge is made is its price or rate, not
               # steps (what the payer does, "怎么交费", stays a how-to)
               "|(?:怎么|怎样|如何)(?:样)?(?:收|计|算|扣)(?:钱|费)|(?:怎么|怎样|如何)(?:收取|计价)"),
    ("date", "什么时候|何时|哪年|哪一年|哪天|哪一天|哪个月|几月|几号|几点|什么时间|いつ|何年|何月"
             "|何日|何時|何曜日"
             "|언제|몇\\s?년도|몇\\s?년에|몇\\s?월|몇\\s?시에|무슨\\s?요일"),
    ("count", "多少|几|何種類|何か所|何[人個回件台本社枚冊匹頭名種つ]|いくつ|몇"),
    ("person", "谁|哪位|誰|だれ|何者|どなた|누가|누구"),
    ("place", "哪里|哪儿|在哪|什么地方|哪个城市|哪个国家|哪座|どこ|どの国|どの都市|どの町|어디"),
    ("amount", "얼마"),  # "대기 시간은 얼마입니까": an amount, of whatever unit is said
]
_KIND_PATTERNS = [(kind, re.compile(words)) for kind, words in _KIND_WORDS]

#: A question that asks by how much one thing differs from another ("比标准模式能*省多少*电",
#: "*快多少*", "*便宜多少*钱"): the sources answer with a share ("节省约百分之二十",
#: "快30%") as often as with an amount, never with a count of things.
_DIFFERENCE_ASKED = re.compile("(?:省|节省|节约|少|快|慢|高|低|便宜|贵|提高|降低|减少|增加"
                               "|提升|缩短|延长)了?(?:多少|几成)")
_MONEY_ASKED = re.compile("钱|いくら|费用|价格|售价|定价|値段|料金|가격|비용|요금|돈")
_TIME_ASKED = re.compile("多久|多长时间|多少时间|どのくらい|どれくらい|どのぐらい|どれぐらい"
                         "|時間|期間|얼마나\\s?(?:오래|자주|걸)|동안|시간|기간|며칠")
_COUNT_ASKED = re.compile(r"(?:多少|几|何)(?:[个個名位种種条項项件台次座本])?"
                          r"(?P<n>[\u4e00-\u9fff\u30a0-\u30ff]{2,6})")
_PHONE_ASKED = re.compile("电话|号码|热线|電話|番号|전화|번호")
_ARTICLE = re.compile(rf"一\s?(?:{_CLASSIFIERS})")
_SPANS_OF_TIME = (_AMOUNT, _TIME_SPAN)
_A_YEAR = re.compile(r"\d{4}\s?[年년]")
_NOT_PLACE = re.compile(rf"[点時时年月日天周秒分]|[{_HAN_DIGITS}]{{2,}}")

#: Units that say the same span of time or the same thing counted, as a question and its
#: source may write them differently ("几个小时" asked, "4小时" or "4時間" written;
#: "多少本书" asked, "15册" written).
_SAME_UNIT = [
    ("毫秒",), ("秒", "秒钟", "秒鐘"), ("分钟", "分鐘", "分間", "分"),
    ("小时", "个小时", "小時", "個小時", "時間"), ("天", "日", "日間", "个工作日", "工作日"),
    ("周", "星期", "个星期", "週間", "週"), ("个月", "月", "個月", "か月", "ヶ月", "カ月", "ケ月"),
    ("年", "年間"), ("本", "册", "冊"), ("次", "回"), ("张", "枚"), ("人", "名", "位"),
    ("公里", "千米", "km", "キロ"), ("米", "m", "メートル"), ("厘米", "cm"), ("毫米", "mm"),
    ("公斤", "千克", "kg"), ("元", "块", "块钱"), ("円",),
    # what a device's page measures, asked by its unit ("多少度", "几伏", "多少毫安")
    ("℃", "度", "摄氏度", "°C"), ("瓦", "瓦特", "W", "ワット"), ("千瓦", "kW"),
    ("伏", "伏特", "V", "ボルト"), ("毫安时", "毫安時", "毫安", "mAh"), ("升", "L", "リットル"),
    ("毫升", "mL", "ml"), ("克", "g", "グラム"), ("分贝", "分貝", "dB"), ("英寸", "寸", "インチ"),
    # a thing counted by its own classifier ("多少篇文章": "50篇", not the "3600种" beside)
    ("篇",), ("页",), ("条",), ("件",), ("台",), ("间",), ("层",), ("辆",), ("颗",), ("份",),
]
_UNIT_GROUP = {unit: group for group in _SAME_UNIT for unit in group}
_ASKED_UNIT = re.compile(
    "(?:多少|几|何)(?:个|個)?(?P<u>"
    + "|".join(sorted((u for u in _UNIT_GROUP if u not in ("个月", "个小时", "个星期")),
                      key=len, reverse=True)) + ")")
#: What a question measures by the noun it names ("电池的容量是多少"): the units that
#: answer it, so "5200毫安时" answers it and not the "800次" of a sentence that says 容量.
_DIMENSIONS = [
    (re.compile("容量|バッテリー容量"),
     "毫安时|毫安時|安时|mAh|Ah|千瓦时|千瓦時|kWh|瓦时|Wh|毫升|mL|ml|升|リットル|GB|TB"),
    (re.compile("功率|ワット数|消費電力"), "千瓦|kW|瓦特|瓦|W|ワット"),
    (re.compile("电压|電圧"), "伏特|伏|V|ボルト"),
    # a force a hand applies ("用力多大", "多大力"): a page writes it in grams or newtons
    # ("压力超过150克"), and a pressure asked may be given so too
    (re.compile("用力|力气|多大力|多大的力"), "千克|公斤|克|牛顿|牛|kg|N|g"),
    (re.compile("吸力|压力|压强|水压|气压|胎压|圧力|吸引力"),
     "兆帕|千帕|帕|MPa|kPa|Pa|パスカル|psi|PSI|bar|巴|千克|公斤|克|牛顿|牛|N"),
    (re.compile("噪音|噪声|音量|騒音|声音|多吵|多响"), "分贝|分貝|dB|デシベル"),
    (re.compile("速度|时速|多快|速さ|スピード"), "公里/小时|公里每小时|km/h|米/秒|m/s"),
    # "多少斤" asks a weight: the page's 公斤 answers it
    (re.compile("重量|多重|重さ|多少斤|几斤"), "公斤|千克|克|斤|吨|kg|キロ|グラム"),
    (re.compile("温度|多热|多冷"), "℃|度"),
    (re.compile("亮度|多亮|最亮"), "尼特|nits|流明|lm|坎德拉|cd"),
    # "要离它多近", "放多远": a length, not the "3秒" of the same instruction
    (re.compile("多远|多近|多高|多宽|多深|多厚|距离|高度|宽度|深度|厚度"),
     "公里|千米|厘米|毫米|米|km|cm|mm|m|メートル|センチ|ミリ"),
]


#: Question words that ask how long something lasts, in no unit of their own: a span of
#: time answers them, never the "32升" of a sentence about the same machine.
_DURATION_ASKED = re.compile("多久|多长时间|多少时间|多长的时间|多少天|多少年|多少小时|多少分钟"
                             "|多少秒|どのくらいの時間|どれくらいの時間|どのくらいの期間"
                             "|何時間|何日間|何年間|何分間|얼마나\\s?(?:오래|걸)|얼마\\s?동안|며칠")
#: The units of a span of time, for :func:`wanted_units` (a year alone is no span:
#: :func:`_in_units` drops "2016年").
_DURATION_UNITS = "|".join(sorted({unit for group in _SAME_UNIT[:8] for unit in group}
                                  | {"초", "분", "시간", "일", "주일", "주", "개월", "달", "년"},
                                  key=len, reverse=True))


def wanted_units(question: str) -> str | None:
    """The units that answer ``question``, as one regex alternation, ``None`` when it
    names none: the unit it asks in ("几分钟", "多少本", "何時間", with the other ways
    of writing it), a span of time for "多久"/"多长时间" (:data:`_DURATION_ASKED`), or
    the units of what it measures ("容量", "功率", "吸力")."""
    asked = _ASKED_UNIT.search(question)
    if asked:
        group = _UNIT_GROUP[asked.group("u")]
        return "|".join(sorted(group, key=len, reverse=True))
    rate = asked_rate(question)  # "一分钟震多少下": "42000次/分钟"
    if rate:
        return rate
    if _DURATION_ASKED.search(question):
        return _DURATION_UNITS
    if _MONEY_ASKED.search(question):
        return None  # "水压太高要装的减压阀多少钱": money (:func:`_spans`), not 兆帕
    for pattern, units in _DIMENSIONS:
        if pattern.search(question):
            return units
    return None


def _in_units(sentence: str, units: str) -> list[Span]:
    """The numbers of ``sentence`` written with one of ``units`` (a year is no span)."""
    pattern = re.compile(rf"{_COMPOUND_TIME}|(?:{_NUM}){_ABOUT}\s?(?:{units}){_PER}{_ABOUT}"
                         rf"{_UNIT_END}{_NOT_FRACTION}")
    return [s for s in _found(pattern, sentence) if not _A_YEAR.fullmatch(s[2])]


def fits(sentence: str, question: str) -> bool:
    """Whether ``sentence`` holds a number in the unit ``question`` asks for
    (:func:`wanted_units`): the sentence that says "5分钟" answers "冲洗几分钟" before
    one that says "30秒" about the same thing."""
    units = wanted_units(question)
    return units is not None and bool(_in_units(sentence, units))


def strict(question: str) -> bool:
    """Whether only a value in :func:`wanted_units` answers ``question``: it asks how
    long (:data:`_DURATION_ASKED`) or names the dimension it measures ("多重", "功率"),
    and a sentence with no such value has none to give - "有多重" is not answered by the
    "10400毫安时" of the battery sentence, "能烤多长时间" not by "32升"."""
    if _ASKED_UNIT.search(question):
        return False  # "几分钟": another span of time still says how long
    return bool(_DURATION_ASKED.search(question)) or (not _MONEY_ASKED.search(question) and any(
        pattern.search(question) for pattern, _ in _DIMENSIONS))


_NUMBER_OF = re.compile(r"\d+(?:\.\d+)?")
#: "多高", "多宽" ... and the noun a page writes for that dimension ("高度为1350毫米").
_DIMENSION_NOUN = {"高": "高度", "宽": "宽度", "深": "深度", "厚": "厚度", "长": "长度",
                   "重": "重量", "远": "距离", "亮": "亮度", "热": "温度", "冷": "温度"}
_HOW_ADJECTIVE = re.compile(f"多([{''.join(_DIMENSION_NOUN)}])")
#: Words for the ordinary case ("平常用能撑几天"), as a page labels it ("典型使用 | 14天",
#: "标准模式下"): the row or sentence of that case, of a page that gives one per use.
_ORDINARY = re.compile("平常|平时|正常|一般|通常|日常|普通|典型|标准|常规|默认|普段|標準")


def _quantities(text: str) -> set[str]:
    """The numbers ``text`` writes with a unit or classifier ("100寸" -> "100"; not the
    "60" of the name "AP-60")."""
    found = _found(_AMOUNT, text) + _found(_COUNT, text) + _found(_MEASURE, text)
    return {number for start, _, span in found for number in _NUMBER_OF.findall(span)[:1]
            if not re.match(r"[A-Za-z0-9.\-]", text[start - 1:start])}


def same_case(sentence: str, question: str) -> bool:
    """Whether ``sentence`` writes a quantity ``question`` states ("想投出**100寸**的画面"
    and "100英寸：约2.66米"): the question fixes the case it asks about, and of the
    sentences on the same thing ("最近可在1.06米处投出40英寸画面") the one of that case
    answers it, however close in meaning the others are. So does the one that names
    the dimension asked ("多高": "高度为1350毫米"), and the ordinary case
    (:data:`_ORDINARY`): "平常用能撑几天" is asked of the "典型使用" row, not the
    "重度使用" one."""
    asked = _quantities(question)
    if asked and asked & _quantities(sentence):
        return True
    adjective = _HOW_ADJECTIVE.search(question)
    if adjective and _DIMENSION_NOUN[adjective.group(1)] in sentence:
        return True  # "折叠起来有多高": "折叠后高度为1350毫米", not "留出2米空地"
    return bool(_ORDINARY.search(question) and _ORDINARY.search(sentence))


#: Question words that ask a dimension without naming it ("有**多重**", "**几斤**重",
#: "**多少度**的环境"), and the noun a page writes for it ("重量", "温度"): the
#: question is about that noun (:func:`asked_dimension`), which the question word cuts
#: out of its terms. Not "几度电" (electricity is counted in 度 too).
_ASKED_DIMENSION = [
    (re.compile("多重|多沉|几斤|多少斤|几公斤|多少公斤"), "重量"),
    (re.compile("多热|多冷|(?:多少|几)度(?!电)"), "温度"),
    (re.compile("多高"), "高度"), (re.compile("多宽"), "宽度"), (re.compile("多深"), "深度"),
    (re.compile("多厚"), "厚度"), (re.compile("多远|多近"), "距离"), (re.compile("多亮"), "亮度"),
    (re.compile("多吵|多响"), "噪音"),
]


def asked_dimension(question: str) -> str | None:
    """The noun of the dimension ``question`` asks by its question word alone ("AP-60
    有多重": "重量"; see :data:`_ASKED_DIMENSION`), ``None`` when it asks none or
    names the noun itself. A page answers with the noun or the unit ("净重6.8公斤"):
    :func:`implied_terms` gives the noun to a sentence that writes a number in the
    dimension's units, so "有多重" is about the weight line of the page, which shares
    no other word with it."""
    for pattern, noun in _ASKED_DIMENSION:
        if pattern.search(question) and noun not in question:
            return noun
    return None


#: Lengths a page names by a noun or by its first character before the number
#: ("高1800毫米", "宽908毫米"): a sentence naming one measures that one.
_LENGTHS = {noun: re.compile(noun[0] + r"\s*[:：]?\s*约?\d")
            for noun in ("高度", "宽度", "深度", "厚度", "长度", "距离")}


def _writes_length(sentence: str, noun: str) -> bool:
    """Whether ``sentence`` names the length ``noun`` (a key of :data:`_LENGTHS`): the
    noun itself, or its first character just before a number ("高1800毫米",
    "高：1800毫米")."""
    return noun in sentence or _LENGTHS[noun].search(sentence) is not None


def implied_terms(sentence: str, question: str) -> list[str]:
    """The terms of the dimension ``question`` asks about ("容量") when ``sentence``
    writes a number in its units ("使用5200毫安时的锂电池"): the unit says what is
    measured, as "capacity" is said by "mAh", so the sentence is about that word too.
    A dimension asked by a question word alone ("多重", :func:`asked_dimension`) is
    said by the noun the page would write ("重量")."""
    hours = _hours_said(sentence, question)
    if hours:
        return hours
    noun = asked_dimension(question)
    if noun in _LENGTHS and not _writes_length(sentence, noun) and any(
            _writes_length(sentence, other) for other in _LENGTHS if other != noun):
        return []  # "背面距离墙壁不少于50毫米" measures a distance, not the height asked
    for pattern, units in _DIMENSIONS:
        named = pattern.search(question)
        if named and _in_units(sentence, units):
            return [*cjk_terms(named.group(0)), *([noun] if noun and pattern.search(noun)
                                                  else [])]
    return []


def question_kind(question: str) -> str | None:
    """The answer kind a CJK question asks for, ``None`` when it has no kind's word."""
    for kind, pattern in _KIND_PATTERNS:
        if pattern.search(question):
            return kind
    return None


def _found(pattern: re.Pattern[str], sentence: str, group: int | str = 0) -> list[Span]:
    """The matches of ``pattern`` (its ``group``); a year ("2016年") is no span of time."""
    return [(m.start(group), m.end(group), m.group(group).strip())
            for m in pattern.finditer(sentence) if m.group(group).strip()
            and not (pattern in _SPANS_OF_TIME and _A_YEAR.fullmatch(m.group(group)))]


def _outside(spans: list[Span], taken: list[Span]) -> list[Span]:
    """``spans`` that overlap none of ``taken`` (a longer date already holds them)."""
    return [s for s in spans if not any(a < s[1] and s[0] < b for a, b, _ in taken)]


def _counted(sentence: str, question: str) -> list[Span]:
    """Numbers with their classifier, then the noun the question counts when it follows
    ("两千个条目" for "多少个条目"); a bare Arabic number when the sentence has none. A
    lone "一" with its classifier ("是一座小镇") is an article, no count."""
    asked = _COUNT_ASKED.search(question)
    noun = asked.group("n") if asked else ""
    found: list[Span] = []
    for start, end, text in _found(_COUNT, sentence):
        if _ARTICLE.fullmatch(text):
            continue
        same = next((i for i in range(len(noun), 1, -1)
                     if sentence.startswith(noun[:i], end)), 0)
        found.append((start, end + same, sentence[start:end + same]))
    # "超时时间是多少": a number with its unit answers, a bare number only without one
    found += _outside(_found(_AMOUNT, sentence), found)
    if found:
        return sorted(found)
    return [s for s in _found(_BARE_NUMBER, sentence)
            if not re.match(r"\s?[年月日号點点時时]", sentence[s[1]:])]


def spans(kind: str, sentence: str, question: str) -> list[Span]:
    """The candidates of ``kind`` in ``sentence`` as CJK writes them (see the module);
    an amount, measure or count written as a range ("5℃至38℃", "15至18分钟") is one
    candidate, the range (:func:`_ranges`), unless the question asks for its highest
    or lowest end (:func:`extreme`)."""
    found = with_every(sentence, _spans(kind, sentence, question), question, _TIME_SPAN)
    if kind in ("amount", "measure", "count") and not _extreme_asked(question):
        return _ranges(sentence, found)
    return found


#: What joins the two ends of a range: "5℃至38℃", "0.07到0.75兆帕", "2-3天", "8～10小时".
_RANGE_JOIN = re.compile(r"\s?(?:至|到|~|～|-|－|—|–)\s?")
#: A bare number before a range's joint, its unit written once after the other end.
_RANGE_START = re.compile(rf"(?<![\d.])(?:\d+(?:\.\d+)?|[{_HAN_DIGITS}]+){_RANGE_JOIN.pattern}$")


def _ranges(sentence: str, found: list[Span]) -> list[Span]:
    """``found`` with each range of amounts or measures made one span: the document
    states a range, and either end alone says less than it ("水温5℃至38℃" answers
    "能接多热的水" with both ends, not with the 5℃ it starts at). A count by its
    classifier stays apart: "0～12档" has 12 levels."""
    merged: list[Span] = []
    for start, end, text in sorted(found):
        if not (_AMOUNT.fullmatch(text) or _MEASURE.fullmatch(text)):
            merged.append((start, end, text))  # "0～12档": how many levels, its top
            continue
        joint = sentence[merged[-1][1]:start] if merged else "x"
        if merged and (_RANGE_JOIN.fullmatch(joint) or (not joint and text[:1] in "-－−")):
            begin = merged.pop()[0]
            merged.append((begin, end, sentence[begin:end]))
            continue
        lead = _RANGE_START.search(sentence[:start])
        if lead and not any(a < start and lead.start() < b for a, b, _ in merged):
            start = lead.start()
        merged.append((start, end, sentence[start:end]))
    return merged


#: Questions that ask for the highest or the largest value a page gives ("最热能调到
#: 多少度", "最多能放几公斤") and those that ask for the lowest or the smallest.
#: Not "最高档", "最低速": the setting a question names is its case, not the value's end.
_SETTING = "(?![档挡级速])"
_HIGHEST = re.compile(f"(?:最(?:多|高|大|长|久|远|热|重|晚|贵|快|强)|上限|封顶|至多){_SETTING}")
_LOWEST = re.compile(f"(?:最(?:少|低|小|短|近|冷|轻|早|便宜|慢|弱)|下限|至少){_SETTING}")
_SIGNED = re.compile(r"[-－−]?\d+(?:\.\d+)?")


def _extreme_asked(question: str) -> bool:
    return bool(_HIGHEST.search(question) or _LOWEST.search(question))


def extreme(question: str, text: str) -> float:
    """A sort key that puts the value ``question`` asks the extreme of first: the
    highest for "最热"/"最多" ("关闭、32℃、35℃、38℃四档" answers "最热能调到多少度"
    with 38℃), the lowest for "最低"/"最少"; 0 for any other question or a value
    written without Arabic digits."""
    number = _SIGNED.search(text)
    if not number:
        return 0.0
    value = float(number.group(0).replace("－", "-").replace("−", "-"))
    if _HIGHEST.search(question):
        return -value
    if _LOWEST.search(question):
        return value
    return 0.0


def _spans(kind: str, sentence: str, question: str) -> list[Span]:
    """The candidates of ``kind`` in ``sentence`` as CJK writes them, each end of a
    range alone (see :func:`spans`).

    A number, count or measure in the unit the question asks for (:func:`wanted_units`)
    is the only candidate when the sentence holds one: "几分钟" is answered by "5分钟",
    not by the "30秒" of the same sentence. A question that asks how long or names its
    dimension (:func:`strict`) has no other candidate at all."""
    units = wanted_units(question) if kind in ("amount", "measure", "count") else None
    if units:
        own = _in_units(sentence, units)
        if own or strict(question):
            return own
    if kind == "amount":
        pattern = (_MONEY if _MONEY_ASKED.search(question)
                   else _TIME_SPAN if _TIME_ASKED.search(question) else _AMOUNT)
        # money is answered by money only, "how long" by a span of time only (never
        # the "32升" of the machine it is asked of); a size by any amount
        amounts = _found(pattern, sentence)
        if pattern is _MONEY or _DURATION_ASKED.search(question):
            return amounts
        return amounts or _found(_AMOUNT, sentence)
    if kind == "measure":
        return _found(_MEASURE, sentence) or _found(_AMOUNT, sentence) or _counted(
            sentence, question)
    if kind == "count":
        if _PHONE_ASKED.search(question) and _found(_PHONE, sentence):
            return _found(_PHONE, sentence)  # "电话是多少": "6283-5122", not its "6283"
        if _DIFFERENCE_ASKED.search(question):
            return _found(_SHARE, sentence) or _found(_AMOUNT, sentence) or _counted(
                sentence, question)
        return _counted(sentence, question)
    if kind == "share":
        return _found(_SHARE, sentence)
    if kind == "age":
        return _found(_AGE, sentence)
    if kind == "date":
        return _clock_times(sentence, question, _dates(sentence))
    if kind == "person":
        found: list[Span] = []
        for pattern in _PERSON:
            found += _outside(_found(pattern, sentence, "p"), found)
        return found
    if kind == "place":
        places: list[Span] = []
        for pattern in _PLACE:
            places += _outside([s for s in _found(pattern, sentence, "p")
                                if not _NOT_PLACE.search(s[2])], places)
        return places
    return []


_CLAUSE = re.compile(r"[，,；;。！？!?、]")

#: A clause that sets the condition of what the sentence says ("在每天使用12小时的情况下",
#: "环境温度低于15℃时", "如果…"), or an aside in brackets ("（测试条件：30℃）"): its
#: number is the condition, not what the sentence states.
_CONDITION = re.compile(r"(?:情况|条件|前提|状态|情形)下$"
                        r"|(?:的时候|之时|(?<!小)时|(?<!小)時|場合|とき|際)$"
                        r"|^(?:如果|假如|假设|若是|若|当|如)")
_BRACKETS = re.compile(r"[（(][^（）()]*[）)]")
#: A question that asks for the condition itself ("电量剩多少的时候会自己回去充电"):
#: then the number of the condition clause ("电量低于15%时") is its answer.
_CONDITION_ASKED = re.compile(r"时候|(?<![小多长何])时(?![间长候])|情况下|条件下")


def _condition(sentence: str, begin: int, end: int, start: int) -> bool:
    """Whether the number at ``start`` stands in a condition or an aside (see
    :data:`_CONDITION`), the clause ``sentence[begin:end]`` holding it."""
    if any(m.start() < start < m.end() for m in _BRACKETS.finditer(sentence)):
        return True
    return bool(_CONDITION.search(sentence[begin:end].strip(" 　")))


_LABEL = re.compile(r"^[^，,。：:；;]{1,14}[：:](?=.*[，,；;])")
#: A question that asks for a whole ("一共", "总共", "加起来"), and a clause that gives one.
_TOTAL_ASKED = re.compile("一共|总共|总计|合计|共计|加起来|全部加")
_TOTAL_SAID = re.compile("总|共计|合计|一共|全部|合計")
_QUALIFIED = re.compile(r"的(?P<n>[\u4e00-\u9fff]{2,3}?)(?:有|是|共)?(?:多少|几)")


#: How much a word of a sentence's opening clause counts for a later clause of it
#: (see :func:`nearness`).
OPENING_SHARE = 0.5


def nearness(sentence: str, question: str, start: int) -> float:
    """How much of the question's CJK terms the clause of ``sentence`` holding
    ``start`` says: a candidate in the clause about the question comes first.

    A number in a clause that only sets a condition (:data:`_CONDITION`: "在每天使用
    12小时的情况下，建议每6个月更换一次") comes after every number of a clause that
    states something, however many of the question's words the condition repeats:
    "滤网能用多长时间" is answered "6个月", not "12小时". Not when the question asks
    for the condition itself (:data:`_CONDITION_ASKED`: "剩多少的时候会回去充电")."""
    # A list in brackets is part of its clause: "主要部件（电机、加热管）保修5年" is
    # one clause about 主要部件, not "加热管）保修5年" cut off from its subject.
    asides = [(m.start(), m.end()) for m in _BRACKETS.finditer(sentence)]
    cuts = [m.start() for m in _CLAUSE.finditer(sentence)
            if not any(a < m.start() < b for a, b in asides)]
    # a list item's label ("美白模式：先进行2分钟清洁，…，总时长为2分30秒") names what
    # all its clauses are about, as an opening clause does (see below)
    label = _LABEL.match(sentence)
    if label:
        cuts = sorted({*cuts, label.end() - 1})
    begin = max((c for c in cuts if c < start), default=-1) + 1
    end = min((c for c in cuts if c >= start), default=len(sentence))
    if _condition(sentence, begin, end, start) and not _CONDITION_ASKED.search(question):
        return -1
    clause = sentence[begin:end]
    # "洗涤时约48分贝，脱水时约70分贝" for "甩干的时候声音多大": the manual's word is
    # the user's (:mod:`deepcite.text.cjk_synonyms`)
    held = set(cjk_terms(clause)) | set(synonym_terms(clause))
    # A later word of the question weighs more ("手表的表带坏了保修多久": the 表带, not
    # the 手表 the page is about), and a one-character word counts inside a compound
    # ("开着降噪" and "开启降噪时为4.5小时", not "关闭降噪时为6小时").
    words = [*cjk_terms(question, question=True), *cjk_singles(question)]
    # The word of the dimension ("声音", "温度") says what every candidate measures, not
    # which case: "甩干的时候声音多大" is the clause of 脱水 (甩干), not the one after
    # the line's label "运行噪音：".
    words = [w for w in words if not any(p.search(w) for p, _ in _DIMENSIONS)]
    found = {w for w in words if (w in held if len(w) > 1 else w in clause)}
    score = sum(1 + question.find(w) / len(question) for w in found)
    # "一共刷多长时间": the clause of the whole ("总时长为2分30秒"), not of a part;
    # "能充电的座位有多少个": the clause of the kind qualified ("带插座的座位96个")
    if _TOTAL_ASKED.search(question) and _TOTAL_SAID.search(clause):
        score += 1
    qualified = _QUALIFIED.search(question)
    if qualified and "的" + qualified.group("n") in clause:
        score += 0.5
    # the length asked by its question word, written by its first character before the
    # number ("冰箱有多高": "宽908毫米，深685毫米，高1800毫米" is the clause of 高)
    noun = asked_dimension(question)
    if noun in _LENGTHS and _writes_length(clause, noun):
        score += 1
    # The sentence's opening clause names what its later clauses go on about ("客服
    # 热线工作日的服务时间为8:00至22:00，周末…为9:00至18:00"): its words count, at
    # half, for a later clause too, so the clause of the case asked ("周末") wins -
    # but not over the clause that says the question's verb itself ("连续使用超过
    # 6小时，建议关机休息30分钟" answers "用多久要歇一下" with 6小时).
    first = min((c for c in cuts if c > 0), default=len(sentence))
    if begin > first:
        opening = sentence[:first]
        said = set(cjk_terms(opening)) | set(synonym_terms(opening))
        score += sum(OPENING_SHARE * (1 + question.find(w) / len(question)) for w in words
                     if w not in found and (w in said if len(w) > 1 else w in opening))
    return score


def gap(sentence: str, question: str, start: int, end: int) -> int:
    """How many characters lie between the candidate ``sentence[start:end]`` and the
    nearest of the question's CJK terms in the sentence, before or after it: of two
    numbers in one clause, the one written beside what is asked comes first ("内置2GB
    内存和32GB存储": "32GB" for "存储空间有多大")."""
    words = [w for w in cjk_terms(question, question=True) if len(w) > 1]
    best = len(sentence)
    for word in words:
        for found in re.finditer(re.escape(word), sentence):
            if found.end() <= start:
                best = min(best, start - found.end())
            elif found.start() >= end:
                best = min(best, found.start() - end)
    return best


__all__ = ["asked_dimension", "extreme", "fits", "gap", "implied_terms", "nearness",
           "question_kind", "same_case",
           "spans", "strict", "wanted_units"]
