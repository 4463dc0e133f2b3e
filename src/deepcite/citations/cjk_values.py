"""How Chinese, Japanese and Korean text writes the values a short answer quotes.

Numbers in Arabic, Chinese or Korean numerals with their units and classifiers
("三百秒", "5分钟", "1.58升/分钟", "两千余个", "삼백 초"), money, shares, ages, dates and
clock times ("周六8:00", "每天晚上10点"), and the phrases around a person's or a place's
name ("由张伟设计", "位于杭州"). Kept apart from :mod:`deepcite.citations.cjk_answers`,
which reads what a question asks and picks among these, so a table of units can grow
without touching how the choice is made.
"""

from __future__ import annotations

import re

_HAN_DIGITS = "零〇一二两三四五六七八九十百千万萬亿億"
_HANGUL = "\uac00-\ud7af"
# Korean numerals as words: Sino-Korean with a tens or larger place ("삼백", "이십오": a
# lone "이" or "일" is a particle or a noun far more often), or native ("열두", "세").
_KO_SINO = "(?:[일이삼사오육칠팔구]?[십백천만억])+[일이삼사오육칠팔구]?"
_KO_NATIVE = ("(?:(?:열|스물|서른|마흔|쉰|예순|일흔|여든|아흔)\\s?"
              "(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉)|한|두|세|네|다섯|여섯|일곱|여덟|아홉"
              "|열|스무|스물|서른|마흔|쉰)")
_KO_NUM = rf"(?<![{_HANGUL}])(?:{_KO_SINO}|{_KO_NATIVE})(?=\s?[{_HANGUL}])"
_MINUS = r"(?:(?<![\w.])[-－−](?=\d))?"  # "-20℃", not the hyphen of "AP-60" or "2-3天"
_NUM = (rf"{_MINUS}(?:\d{{1,3}}(?:,\d{{3}})+|[0-9０-９]+)(?:\.\d+)?(?:\s?[万萬亿億千만억])?"
        rf"|(?:[{_HAN_DIGITS}]+个)?半|[{_HAN_DIGITS}]+(?:点[{_HAN_DIGITS}]+)?|{_KO_NUM}")
# "三百多秒", "两千余个", "两年半" ("半小时" and "一个半小时" are numbers of :data:`_NUM`)
_ABOUT = r"(?:[多余半]|以上|左右)?"
_TIME_UNITS = ("个工作日|個工作日|工作日|営業日|"
               "毫秒|微秒|秒钟|秒鐘|秒|分钟|分鐘|分間|分|个小时|個小時|小时|小時|時間|个星期|星期|"
               "天|日間|日|个月|個月|か月|ヶ月|カ月|ケ月|月|周|週間|年間|年|"
               "밀리초|초|분|시간|일|주일|주|개월|달|년")
#: Units of power, energy, charge, pressure, loudness, volume and speed, longest first
#: (an alternation takes its first match: "毫安时" before "毫", "kWh" before "kW").
_DEVICE_UNITS = ("毫安时|毫安時|安时|mAh|Ah|千瓦时|千瓦時|kWh|瓦时|Wh|千瓦|kW|瓦特|瓦|W|伏特|伏|V|"
                 "兆帕|千帕|帕|MPa|kPa|Pa|psi|PSI|bar|分贝|分貝|dB|毫升|mL|ml|公里/小时|公里每小时|km/h|"
                 "米/秒|m/s|英寸|寸|インチ|尼特|流明|ワット|ボルト|デシベル|ミリリットル|リットル|"
                 # a flow ("220 m³/h": an air purifier's CADR, a pump's output)
                 "m³/h|m3/h|立方米/小时|立方米每小时|")
_MEASURE_UNITS = _DEVICE_UNITS + (
                  "千字节|兆字节|字节|バイト|KB|MB|GB|TB|kB|ms|km|cm|mm|kg|平方公里|平方千米|平方米|"
                  "公顷|平方キロメートル|平方キロ|ヘクタール|公里|千米|厘米|毫米|米|"
                  "メートル|キロ|公斤|千克|克|斤|吨|升|度|℃|倍|바이트|킬로미터|미터|센티미터|"
                  "밀리미터|킬로그램|그램|킬로|톤|리터|도|배|g|m")
_MONEY_UNITS = ("万元|亿元|美元|欧元|日元|英镑|人民币|元|块钱|块|円|ドル|ユーロ|"
                "만\\s?원|원|달러|유로|엔")
_SHARE_UNITS = "%|％|パーセント|퍼센트"
_CLASSIFIERS = ("种类|種類|人份|个|個|名|位|人|次|条|項|项|台|种|種|本|册|件|家|座|所|只|张|枚|部|"
                "篇|页|行|列|层|批|组|份|回|つ|冊|社|匹|頭|節|章|步|轮|级|款|类|類|棵|辆|艘|架|间|"
                "瓶|盒|袋|颗|圈|遍|档|"
                "가지|개|명|번|회|대|권|장|곳|건|줄|쪽|차례")
_UNIT_END = r"(?![A-Za-z])"
#: A rate's second unit ("1.58升/分钟", "380元/月"): part of the value, not another one.
_PER = r"(?:\s?/\s?(?:秒|分钟|分|小时|时|天|日|周|月|年|次|人|min|h|s)(?![A-Za-z]))?"
#: "四分之一圈" is a quarter, not four minutes ("分之" writes a fraction).
_NOT_FRACTION = r"(?!(?<=分)之)"
#: A span of time in two units, one value: "2分30秒", "1小时20分钟".
_COMPOUND_TIME = (r"\d{1,3}\s?(?:个小时|小时|小時|時間)\s?\d{1,2}\s?(?:分钟|分鐘|分)(?!之)"
                  r"|\d{1,3}\s?(?:分钟|分鐘|分)\s?\d{1,2}\s?(?:秒钟|秒)")
#: A telephone number as a page writes it: groups of digits joined by hyphens or spaces
#: ("6283-5122", "400-820-1234"), or one run of seven digits or more.
_PHONE = re.compile(r"(?<![\d.-])(?:\+?\d{2,4}[-\s])?\d{3,4}[-\s]\d{3,4}(?:[-\s]\d{3,4})?"
                    r"(?![\d.])|(?<![\d.])\d{7,12}(?![\d.])")
_AMOUNT = re.compile(
    rf"{_COMPOUND_TIME}|(?:{_NUM}){_ABOUT}\s?"
    rf"(?:{_TIME_UNITS}|{_MEASURE_UNITS}|{_MONEY_UNITS}|{_SHARE_UNITS}){_PER}{_ABOUT}{_UNIT_END}{_NOT_FRACTION}")
_TIME_SPAN = re.compile(rf"{_COMPOUND_TIME}|(?:{_NUM}){_ABOUT}\s?(?:{_TIME_UNITS}){_ABOUT}"
                        rf"{_NOT_FRACTION}")
_MONEY = re.compile(rf"(?:{_NUM}){_ABOUT}\s?(?:{_MONEY_UNITS})|[$¥￥€£]\s?(?:{_NUM})")
_MEASURE = re.compile(rf"(?:{_NUM}){_ABOUT}\s?(?:{_MEASURE_UNITS}|{_SHARE_UNITS}){_PER}{_UNIT_END}")
_SHARE = re.compile(rf"(?:\d+(?:\.\d+)?\s?(?:{_SHARE_UNITS})|百分之[{_HAN_DIGITS}]+"
                    rf"(?:点[{_HAN_DIGITS}]+)?|[{_HAN_DIGITS}\d]+[成割])")
_COUNT = re.compile(rf"(?:{_NUM}){_ABOUT}\s?(?:{_CLASSIFIERS})")
_BARE_NUMBER = re.compile(r"(?<![\d.])\d+(?:,\d{3})*(?:\.\d+)?(?![\d.%％])")
_AGE = re.compile(rf"(?:{_NUM})\s?(?:岁|歲|歳|才|살|세)")
_YEAR = r"(?:\d{4}|[〇零一二三四五六七八九]{4})\s?[年년]"
_MONTH_DAY = (rf"(?:\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s?[月월]"
              rf"(?:\s?(?:\d{{1,2}}|[{_HAN_DIGITS}]{{1,3}})\s?[日号號일])?")
_EVERY = (r"(?:每天|每日|每晚|每周[一二三四五六日天]?|每星期[一二三四五六日天]?|每月|每年"
          r"|毎日|毎朝|毎晩|毎週|毎月|毎年|매일|매주|매달|매월|매년|매시간)")
_DAYTIME = (r"(?:凌晨|清晨|早上|上午|中午|下午|傍晚|晚上|夜里|夜間|午前|午後|深夜|夜"
            r"|새벽|오전|오후|아침|점심|저녁|밤)")
_WEEKDAY = r"(?:(?:周|週|星期|礼拜)[一二三四五六日天]|[月火水木金土日]曜日?|[월화수목금토일]요일)"
_CLOCK = (rf"(?:{_EVERY}?\s?{_WEEKDAY}|{_EVERY})?[的の]?\s?{_DAYTIME}?\s?"
          rf"(?:\d{{1,2}}|[{_HAN_DIGITS}]{{1,3}})\s?[点點時시](?!간)"
          rf"(?:\s?반|半|\s?(?:\d{{1,2}}|[{_HAN_DIGITS}]{{1,3}})\s?[分분])?")
#: A time of day written as on a clock face ("8:00", "次日7:30"), as opening hours are.
_CLOCK_FACE = (rf"(?:{_EVERY}?\s?{_WEEKDAY}|{_EVERY})?[的の]?\s?{_DAYTIME}?\s?"
               r"(?<!\d)(?<!\d[:：])(?:[01]?\d|2[0-4])[:：][0-5]\d(?![\d:：])")
_DATES = [
    re.compile(rf"{_YEAR}(?:\s?{_MONTH_DAY})?|\d{{4}}-\d{{1,2}}-\d{{1,2}}"),
    re.compile(_MONTH_DAY),
    re.compile(_CLOCK_FACE),
    re.compile(_CLOCK),
    re.compile(rf"(?:\d{{1,4}}|[{_HAN_DIGITS}]{{1,3}})\s?(?:世纪|世紀|年代)"),
    re.compile(rf"{_EVERY}?{_WEEKDAY}(?:[的の]?{_DAYTIME})?|{_EVERY}(?:{_DAYTIME})?"),
]
# A name: Han characters that are not particles or common function words, or katakana.
_HAN_NAME = r"(?:(?![的了是在于由和与被将把对从向为这那个些每])[\u4e00-\u9fff]){2,4}?"
_KATAKANA_NAME = r"[\u30a0-\u30ff\u30fb\uff65]{2,}"
_LATIN_NAME = r"[A-Z][a-zA-Z.'-]+(?:\s[A-Za-z][a-zA-Z.'-]+){0,3}"
_DOING = ("设计|开发|创建|创立|创办|发明|编写|提出|发现|建立|负责|维护|领导|撰写|主持|实现|发布|"
          "设立|作曲|演唱|执导|提议|命名")
_PERSON = [
    re.compile(rf"(?:由|是|被|作者是|作者为|作者|发明人是|创始人是|创建者是)\s?"
               rf"(?P<p>{_LATIN_NAME}|{_KATAKANA_NAME}|{_HAN_NAME})\s?"
               rf"(?=于|在|\d|{_DOING}|[，。,.]|$)"),
    re.compile(rf"(?:^|[，。,])\s?(?P<p>{_LATIN_NAME}|{_KATAKANA_NAME}|{_HAN_NAME})\s?"
               rf"(?:于\S{{0,12}}?)?(?:{_DOING})"),
    re.compile(rf"(?P<p>{_LATIN_NAME}|{_KATAKANA_NAME}|{_HAN_NAME})(?:氏|さん|教授|博士)?"
               r"(?:が|によって|により)"),
    re.compile(rf"(?:したのは|作者は|開発者は|著者は|創設者は|発明者は|作者是|作者为|开发者是|"
               rf"创始人是|发明者是|设计者是)\s?(?P<p>{_LATIN_NAME}|{_KATAKANA_NAME}|{_HAN_NAME})"
               r"(?=で|です|だ|氏|さん|[、。，,.]|$)"),
]
_KO_WORD = r"[\uac00-\ud7af]{2,6}?"
_KO_DOING = "설계|개발|만들|만든|작성|발명|설립|창립|창업|제작|고안|제안|발견|이끌|관리|유지"
# "김민준이 설계했습니다", "이서연이 만든": a name, its subject particle, then what was done
_PERSON.append(re.compile(
    rf"(?<![\uac00-\ud7af])(?P<p>{_KO_WORD})(?:이|가|께서|에 의해|에 의하여)\s"
    rf"(?:\S+\s){{0,2}}?(?:{_KO_DOING})"))
_PLACE_NAME = (r"(?:(?![的了是在于由和与被将把对从向为这那个些每])"
               r"[\u4e00-\u9fff\u30a0-\u30ff]){2,10}?")
_PLACE = [
    re.compile(rf"(?:位于|坐落于|坐落在|设在|设于|存放在|保存在|存储在|存放于|保存于|部署在|部署于|"
               rf"总部在|总部位于|在|于)\s?(?P<p>{_LATIN_NAME}|{_PLACE_NAME})"
               r"(?=[的，。、；,.]|中|里|内|上|运行|举行|举办|召开|工作|出生|成立|$)"),
    re.compile(r"(?P<p>[\u4e00-\u9fff\u30a0-\u30ff]{2,10}?)に"
               r"(?:ある|あり|位置|保存|置か|設置|格納|住|本社)"),
    re.compile(r"(?P<p>[\u4e00-\u9fff\u30a0-\u30ff]{2,10}?)で(?:開催|行われ|実行|生まれ)"),
    # "부산에 있는", "서울 데이터 센터에서 운영됩니다": up to three words before 에/에서
    re.compile(r"(?<![\uac00-\ud7af])(?P<p>[\uac00-\ud7af]{2,8}?(?<![는은을를의가도])"
               r"(?:\s[\uac00-\ud7af]+(?<![는은을를의가도])){0,2}?)(?:에서\s(?:\S+\s)?(?:운영|열리|열린|개최|실행|"
               r"생산|태어|일하|근무|만들|보관|저장)|에\s(?:\S+\s)?(?:있|위치|복사|저장|보관|"
               r"설치|두|보내|살))"),
]
