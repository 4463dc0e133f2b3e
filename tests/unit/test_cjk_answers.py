"""Chinese and Japanese questions get a grounded answer, and a frame, in their language."""

from __future__ import annotations

import pytest

from deepcite.citations.answer_type import answer_type, candidates
from deepcite.citations.grounded import grounded_answer, rank_sentences
from deepcite.citations.question_match import question_terms, terms_of
from deepcite.text.cjk_terms import cjk_terms
from deepcite.text.frames import ENGLISH, FRAMES, frame_for, variants
from deepcite.text.language import detect
from deepcite.types import Source

LIGHTHOUSE = (
    "# 灯塔数据库\n\n"
    "灯塔数据库是一个开源的时间序列数据库。它由陈立明于2016年创建。"
    "灯塔的写入缓冲区默认保留45秒，然后写入磁盘。"
    "每个集群最多可以包含12个节点。"
    "压缩任务每天凌晨两点运行。"
    "默认的查询超时时间为30秒。"
    "项目总部位于杭州。\n"
)
HERON = (
    "# アオサギ認証サーバー\n\n"
    "アオサギはオープンソースの認証サーバーです。"
    "アクセストークンの有効期間は十五分です。"
    "一つのアカウントに登録できるデバイスは最大で八台です。"
    "鍵のローテーションは毎週月曜日の午前三時に行われます。"
    "アオサギは2019年に公開されました。\n"
)


def _source(text: str, number: int = 1, title: str = "doc") -> Source:
    return Source(number=number, title=title, url=f"file:///doc{number}.md",
                  canonical_url=f"file:///doc{number}.md", snippet=text[:80],
                  engine="user_material", full_text=text)


@pytest.mark.parametrize(("question", "short", "sentence"), [
    ("灯塔的写入缓冲区默认保留多久？", "45秒", "灯塔的写入缓冲区默认保留45秒，然后写入磁盘"),
    ("每个集群最多可以包含几个节点？", "12个节点", "每个集群最多可以包含12个节点"),
    ("压缩任务什么时候运行？", "每天凌晨两点", "压缩任务每天凌晨两点运行"),
    ("灯塔数据库是哪一年创建的？", "2016年", "它由陈立明于2016年创建"),
    ("默认的查询超时时间是多少？", "30秒", "默认的查询超时时间为30秒"),
    ("灯塔数据库是谁创建的？", "陈立明", "它由陈立明于2016年创建"),
    ("灯塔项目的总部在哪里？", "杭州", "项目总部位于杭州"),
])
def test_a_chinese_question_gets_its_short_answer_and_sentence_cited(
        question: str, short: str, sentence: str) -> None:
    answer = grounded_answer(question, [_source(LIGHTHOUSE)])
    assert answer is not None
    assert answer.text.startswith(f"**{short}** [1]")
    assert f"{sentence} [1]" in answer.text


@pytest.mark.parametrize(("question", "short", "sentence"), [
    ("アクセストークンの有効期間はどのくらいですか？", "十五分", "有効期間は十五分です"),
    ("一つのアカウントに登録できるデバイスは何台ですか？", "八台", "デバイスは最大で八台です"),
    ("鍵のローテーションはいつ行われますか？", "午前三時", "毎週月曜日の午前三時に行われます"),
    ("アオサギは何年に公開されましたか？", "2019年", "アオサギは2019年に公開されました"),
])
def test_a_japanese_question_gets_its_short_answer_and_sentence_cited(
        question: str, short: str, sentence: str) -> None:
    answer = grounded_answer(question, [_source(HERON)])
    assert answer is not None
    lead = answer.text.split("\n\n")[0]
    assert short in lead and lead.startswith("**") and "[1]" in lead
    assert sentence in answer.text


def test_question_words_and_particles_are_not_terms() -> None:
    terms = question_terms("斑马缓存的条目保留多久？")
    assert {"斑马", "缓存", "条目", "保留"} <= terms
    assert not terms & {"多久", "留多", "的条", "存的"}
    japanese = question_terms("キャッシュのエントリはどのくらい保持されますか")
    assert {"キャ", "エン", "保持"} <= japanese
    assert not any(t in japanese for t in ("のエ", "され", "ます", "くら"))
    assert cjk_terms("可以是的") == []  # only function characters


def test_mixed_script_text_keeps_its_latin_words_and_numbers() -> None:
    terms = terms_of("Redis 缓存的条目保留300秒。")
    assert "redi" in terms or "redis" in terms
    assert "300" in terms and "缓存" in terms
    ranked = rank_sentences("Redis 缓存的条目保留多久？", [_source(
        "Redis 缓存的条目保留300秒。Memcached 缓存的条目保留60秒。Redis 支持持久化。")])
    assert ranked and ranked[0].text.startswith("Redis 缓存的条目保留300秒")


def test_english_questions_are_scored_as_before() -> None:
    assert question_terms("How many moons does Jupiter have?") == {"moon", "jupiter"}
    assert answer_type("How long are entries kept?") == "amount"
    answer = grounded_answer("How long are entries kept in the zebra cache?", [_source(
        "The zebra cache keeps entries for 300 seconds. It holds up to 2,000 entries. "
        "A cleanup job runs every night at 3 am.")])
    assert answer is not None and answer.text.startswith("**300 seconds** [1]")


@pytest.mark.parametrize(("question", "kind"), [
    ("条目保留多久？", "amount"), ("保留多长时间？", "amount"), ("有多少个节点？", "count"),
    ("有几个节点？", "count"), ("什么时候运行？", "date"), ("何时发布？", "date"),
    ("哪年创建的？", "date"), ("谁创建的？", "person"), ("总部在哪里？", "place"),
    ("いつ公開されましたか？", "date"), ("何人が参加しましたか？", "count"),
    ("いくつありますか？", "count"), ("本社はどこですか？", "place"),
    ("誰が作りましたか？", "person"), ("どのくらい保持されますか？", "amount"),
])
def test_cjk_question_words_say_the_kind_of_answer(question: str, kind: str) -> None:
    assert answer_type(question) == kind


def test_chinese_numerals_and_units_are_candidates() -> None:
    assert candidates("amount", "条目保留三百秒。", "条目保留多久？") == ["三百秒"]
    assert candidates("amount", "超时为5分钟。", "超时是多长时间？") == ["5分钟"]
    assert candidates("count", "桌上有两个苹果。", "桌上有几个苹果？") == ["两个苹果"]
    assert candidates("count", "它最多保存2000件。", "最多保存多少件？") == ["2000件"]
    # a year is no count, a number of seconds no count of nodes
    assert candidates("count", "集群于2016年建立。", "集群有多少个节点？") == []


def test_an_unanswered_chinese_question_gets_no_grounded_answer() -> None:
    assert grounded_answer("火星的首都叫什么名字？", [_source(LIGHTHOUSE)]) is None


def test_the_language_of_a_question_is_told_by_its_script() -> None:
    assert detect("斑马缓存的条目保留多久？") == "zh"
    assert detect("Redis 的缓存保留多久?") == "zh"
    assert detect("キャッシュはいつ消えますか") == "ja"
    assert detect("東京の人口は何人ですか") == "ja"
    assert detect("캐시는 얼마나 유지됩니까?") == "ko"
    assert detect("How long is the cache kept?") == "en"
    assert detect("What does the title 君の名は mean in English here?") == "en"


def test_every_language_of_the_frame_says_every_key() -> None:
    for language, table in FRAMES.items():
        assert set(table) == set(ENGLISH), language
    assert frame_for("not_answered", "斑马缓存的条目保留多久？").startswith("来源中没有句子")
    assert frame_for("not_answered", "キャッシュはいつ消えますか").startswith("この質問")
    assert frame_for("not_answered", "How long?") == ENGLISH["not_answered"]
    assert "来源" in variants("sources") and "出典" in variants("sources")


class _Model:
    """A small model that answers with a fragment of a source sentence."""

    prompt_budget_chars = 4000

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def complete(self, purpose: str, system: str, user: str, *,
                 max_tokens: int | None = None, enough: object = None) -> str:
        return self.reply


def test_a_model_fragment_never_leads_a_chinese_answer() -> None:
    answer = grounded_answer("灯塔的写入缓冲区是怎么工作的？", [_source(LIGHTHOUSE)],
                             _Model("灯塔的写入缓冲区"))
    assert answer is not None and answer.model_called
    assert answer.text.startswith("灯塔的写入缓冲区默认保留45秒，然后写入磁盘 [1]。")
    assert "model lead unusable" in answer.notes


def test_an_english_sentence_with_a_chinese_word_is_still_quoted() -> None:
    answer = grounded_answer("What does the Chinese word 自然 mean?", [_source(
        "Chinese has many loanwords. The Chinese word 自然 means nature or spontaneity. "
        "It is central to Daoist texts.")])
    assert answer is not None
    assert "The Chinese word 自然 means nature or spontaneity [1]." in answer.text


@pytest.mark.parametrize(("question", "text", "title"), [
    ("アオサギのライセンスは何ですか？", HERON, "アオサギ認証サーバー"),
    ("灯塔数据库离上海有多远？", LIGHTHOUSE, "灯塔数据库"),
    ("灯塔数据库的最新版本号是多少？", LIGHTHOUSE, "灯塔数据库"),
])
def test_a_question_that_shares_only_its_subject_is_not_answered(
        question: str, text: str, title: str) -> None:
    # every sentence is about the subject (its name, or the page's title); none says more
    assert grounded_answer(question, [_source(text, title=title)]) is None


def test_the_english_sentence_encoder_does_not_judge_chinese(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from deepcite.citations import sentence_meaning

    # MiniLM's cosines between two Chinese texts are high whatever they say: without the
    # multilingual encoder, the words alone decide
    monkeypatch.setattr(sentence_meaning, "e5_available", lambda: False)
    assert sentence_meaning.dense_similarity("斑马缓存的条目保留多久？",
                                             ["斑马缓存的条目保留三百秒。"]) is None


def test_money_is_answered_by_money_only() -> None:
    assert candidates("amount", "白杨每六小时备份一次。", "白杨的价格是多少钱？") == []
    assert candidates("amount", "白杨的专业版售价199元。", "白杨的价格是多少钱？") == ["199元"]


def test_a_verb_asked_with_one_complement_meets_it_said_with_another() -> None:
    text = ("# 石桥镇\n\n石桥镇现存古桥十二座。其中最古老的永安桥建于1368年。"
            "镇上每年举办一次庙会。\n")
    answer = grounded_answer("永安桥是哪一年建成的？", [_source(text, title="石桥镇")])
    assert answer is not None and answer.text.startswith("**1368年** [1]")
