"""Chinese words a user says and the words a manual writes for the same thing.

People ask in everyday words ("甩干", "免费", "声音", "晚上", "坏了") and product pages,
rules and manuals answer in formal ones ("脱水", "不收费", "噪音", "夜间", "故障"). The
two share no character pair, so the sentence that answers holds none of the question's
words there: it ranks below a sentence that repeats another word of the question, and
in a sentence of two clauses ("洗涤时约48分贝，脱水时约70分贝") the clause that
answers does not win. Meaning (the embeddings extra) closes part of that gap, not
all of it, and not at all without the extra.

:data:`NEAR_SYNONYMS` is a small curated table of such groups, each word in one group
only: everyday words beside the formal words that documentation uses for them, and
no number in any (a value is what is asked, never a word to match). Only
words whose sense does not change with context belong here ("没电"/"电量耗尽"), never a
word with several common senses. :func:`synonym_terms` gives, for a text that writes
one word of a group, the character pairs of the group's other words: added to a
sentence's terms (:func:`deepcite.citations.question_match.terms_of`) they let the
question's word match the sentence that writes its synonym, in either direction,
without touching how the question itself is read.
"""

from __future__ import annotations

from functools import lru_cache

from deepcite.text.cjk import has_cjk
from deepcite.text.cjk_terms import cjk_terms

__all__ = ["NEAR_SYNONYMS", "synonym_terms", "synonyms_in"]

#: Groups of words that say one thing: what a user asks, what a page writes.
NEAR_SYNONYMS: tuple[tuple[str, ...], ...] = (
    # machines and devices
    ("甩干", "脱水"),
    ("吹干", "烘干", "风干"),
    ("声音", "噪音", "噪声", "音量"),
    ("工作", "运行", "运转"),
    ("开机", "启动", "开启"),
    ("关机", "关闭", "断电"),
    ("没电", "电量耗尽", "电量用尽", "电量用完", "电池耗尽"),
    ("充满", "满电", "充足电"),
    ("坏了", "损坏", "故障"),
    ("皱巴巴", "褶皱", "起皱"),
    ("脏了", "脏污", "污垢"),
    ("换新", "更换"),
    ("弄丢", "丢了", "遗失", "丢失"),
    ("清零", "归零"),
    ("容量", "容积", "能装", "装得下", "能盛"),
    ("零件", "部件", "配件", "零部件"),
    ("旁边", "四周", "周围", "周边"),
    ("背后", "背面", "后面", "后侧", "背部"),
    ("一次", "每次", "单次"),
    ("力度", "强度"),
    ("说明书", "使用手册", "用户手册"),
    # time words
    ("晚上", "夜间", "夜里", "夜晚"),
    ("白天", "日间"),
    ("周末", "周六", "周日", "星期六", "星期天"),
    ("马上", "立即", "立刻"),
    ("一天", "每天", "每日", "全天"),
    ("一周", "每周", "七天"),
    # money and rules
    ("免费", "不收费", "不收取费用", "无需付费", "不计费"),
    ("收钱", "收费", "计费", "扣费", "收取"),
    ("价钱", "价格", "费用", "售价"),
    ("退钱", "退款", "退费"),
    ("罚款", "罚金", "滞纳金", "违约金", "逾期费", "超期费"),
    ("逾期", "超期"),
    ("最多", "封顶", "上限", "最高", "至多", "最长", "最大", "不超过"),
    ("至少", "最少", "最低", "下限"),
    ("保修", "质保", "保固"),
    ("关门", "闭馆", "打烊", "停止营业"),
    ("开门", "开馆", "开始营业"),
    ("小孩", "儿童", "孩子", "少儿"),
    ("大人", "成人", "成年人"),
    ("老人", "老年人", "长者"),
    ("手续费", "服务费"),
    # service and energy
    ("客服", "客户服务", "服务热线", "客服热线", "人工服务"),
    ("度电", "千瓦时", "千瓦·时"),
)

_GROUP_OF: dict[str, tuple[str, ...]] = {word: group for group in NEAR_SYNONYMS
                                          for word in group}
_BY_LENGTH = sorted(_GROUP_OF, key=len, reverse=True)


@lru_cache(maxsize=8192)
def synonyms_in(text: str) -> tuple[str, ...]:
    """The words of :data:`NEAR_SYNONYMS` that ``text`` writes, longest first; a word
    inside a longer one found ("电量耗尽" holds no other) counts once."""
    if not has_cjk(text):
        return ()
    found: list[str] = []
    taken: list[tuple[int, int]] = []
    for word in _BY_LENGTH:
        start = text.find(word)
        while start >= 0:
            end = start + len(word)
            if not any(a < end and start < b for a, b in taken):
                taken.append((start, end))
                if word not in found:
                    found.append(word)
            start = text.find(word, start + 1)
    return tuple(found)


@lru_cache(maxsize=8192)
def synonym_terms(text: str) -> tuple[str, ...]:
    """The character pairs (:func:`~deepcite.text.cjk_terms.cjk_terms`) of the other
    words of each group ``text`` writes a word of, and none of its own: "脱水时约70分贝"
    gives the pairs of "甩干", so a question that says "甩干" holds a term of it."""
    own = set(cjk_terms(text))
    found: list[str] = []
    for word in synonyms_in(text):
        for other in _GROUP_OF[word]:
            if other == word:
                continue
            for pair in cjk_terms(other):
                if pair not in own and pair not in found:
                    found.append(pair)
    return tuple(found)
