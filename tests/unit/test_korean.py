"""Korean questions: particles stripped, question words left out, answers of their kind,
and the frame of the answer in Korean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import deepcite.runs.build
from deepcite.citations.answer_type import answer_type, candidates
from deepcite.cli import app
from deepcite.text.cjk_terms import cjk_chains, cjk_terms, korean_stem
from deepcite.text.frames import ENGLISH, KOREAN, frame_for, variants
from tests.fakes import ScriptedChatModel

MATERIAL = (
    "# 수달 캐시\n\n"
    "수달 캐시는 자주 읽는 데이터를 메모리에 보관하는 작은 서비스입니다. "
    "캐시의 항목은 기본적으로 450초 동안 유지됩니다. "
    "한 노드는 최대 64개의 연결을 받을 수 있습니다.\n"
    "이 프로젝트는 2018년에 처음 공개되었습니다.\n"
)
runner = CliRunner()


@pytest.mark.parametrize(("word", "stem"), [
    ("캐시는", "캐시"), ("캐시의", "캐시"), ("캐시를", "캐시"), ("서버에서", "서버"),
    ("설정으로", "설정"), ("항목이", "항목"), ("서버가", "서버"), ("유지됩니다", "유지"),
    ("유지됩니까", "유지"),
    # a syllable that is only a particle after the other kind of syllable stays
    ("평가", "평가"), ("국가", "국가"), ("캐시", "캐시"),
])
def test_a_korean_word_loses_its_particle_or_ending(word: str, stem: str) -> None:
    assert korean_stem(word) == stem


def test_a_korean_question_matches_its_sentence_by_stems_not_endings() -> None:
    question = "수달 캐시의 항목은 얼마나 오래 유지됩니까?"
    terms = cjk_terms(question, question=True)
    # the question words ("얼마나 오래") and the endings count for nothing
    assert "얼마" not in terms and "오래" not in terms and "니까" not in terms
    assert {"캐시", "항목", "유지"} <= set(terms)
    sentence = "캐시의 항목은 기본적으로 450초 동안 유지됩니다."
    assert {"캐시", "항목", "유지"} <= set(cjk_terms(sentence))
    # each Korean word is its own stretch: "수달 캐시" is two, as two English words are
    assert cjk_chains(question, question=True)[:2] == [["수달"], ["캐시"]]


@pytest.mark.parametrize(("question", "kind", "sentence", "short"), [
    ("항목은 얼마나 오래 유지됩니까?", "amount",
     "항목은 기본적으로 450초 동안 유지됩니다.", "450초"),
    ("조명은 몇 초 뒤에 꺼지나요?", "amount",
     "사람이 없으면 조명은 삼백 초 뒤에 꺼집니다.", "삼백 초"),
    ("메시지는 며칠 후에 삭제되나요?", "amount",
     "메시지는 7일이 지나면 삭제됩니다.", "7일"),
    ("연결을 몇 개까지 받을 수 있나요?", "count",
     "최대 64개의 연결을 받을 수 있습니다.", "64개"),
    ("전등을 몇 개 제어할 수 있나요?", "count",
     "장치 하나는 전등 열두 개를 제어합니다.", "열두 개"),
    ("몇 번까지 다시 시도되나요?", "count",
     "실패한 작업은 최대 5번까지 다시 시도됩니다.", "5번"),
    ("언제 처음 공개되었나요?", "date",
     "이 프로젝트는 2018년에 처음 공개되었습니다.", "2018년"),
    ("첫 버전은 언제 나왔나요?", "date",
     "첫 버전은 2019년 3월에 나왔습니다.", "2019년 3월"),
    ("언제 통계를 정리하나요?", "date",
     "큐는 매일 새벽 3시에 통계를 정리합니다.", "매일 새벽 3시"),
    ("최대 크기는 얼마인가요?", "measure",
     "메시지의 크기는 256KB를 넘을 수 없습니다.", "256KB"),
    ("누가 설계했나요?", "person",
     "이 프로젝트는 김민준이 설계했습니다.", "김민준"),
    ("어디에 복사되나요?", "place",
     "백업 파일은 부산에 있는 저장소에 복사됩니다.", "부산"),
])
def test_a_korean_question_gets_a_short_answer_of_its_kind(
        question: str, kind: str, sentence: str, short: str) -> None:
    assert answer_type(question) == kind
    assert candidates(kind, sentence, question)[0] == short


def test_no_number_is_read_into_korean_words_that_only_look_like_numerals() -> None:
    # "이" (this), "사람이" (person + particle) are no numbers: no count there
    assert candidates("count", "이 시간에는 사람이 없습니다.", "몇 명입니까?") == []


def test_the_korean_frame_has_every_key_and_is_chosen_for_a_korean_question() -> None:
    assert set(KOREAN) == set(ENGLISH)
    assert frame_for("not_answered", "캐시는 얼마나 유지됩니까?") == KOREAN["not_answered"]
    assert "출처" in variants("sources")


def _ask(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, question: str,
         model: ScriptedChatModel) -> str:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_CITATIONS_ANSWER_MODE", "grounded")
    monkeypatch.setenv("DEEPCITE_CITATIONS_SENTENCE_MEANING", "off")
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model", lambda settings: model)
    notes = tmp_path / "수달.md"
    notes.write_text(MATERIAL, encoding="utf-8")
    result = runner.invoke(app, ["ask", question, "--material", str(notes), "--offline",
                                 "-i", "1", "-q", "--json", "--no-save"])
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["answer"])


def test_a_korean_question_over_a_korean_material_is_answered_with_its_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the small model proposes a wrong value: the short answer is still the source's
    model = ScriptedChatModel(script={"grounded": ["30초"]})
    answer = _ask(tmp_path, monkeypatch, "수달 캐시의 항목은 얼마나 오래 유지됩니까?", model)
    assert answer.startswith("**450초** [1]")
    assert "캐시의 항목은 기본적으로 450초 동안 유지됩니다" in answer
    assert "30초" not in answer and "Unverified" not in answer


def test_an_unanswered_korean_question_says_so_in_korean(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedChatModel(script={"grounded": ["서울"]})
    answer = _ask(tmp_path, monkeypatch, "화성의 수도는 어디입니까?", model)
    assert answer.startswith(KOREAN["not_answered"])
    assert ENGLISH["not_answered"] not in answer and "서울" not in answer


def test_the_sources_block_of_a_korean_answer_labels_its_entries_in_korean(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPCITE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("DEEPCITE_CITATIONS_ANSWER_MODE", "grounded")
    monkeypatch.setenv("DEEPCITE_CITATIONS_SENTENCE_MEANING", "off")
    monkeypatch.setattr(deepcite.runs.build, "get_chat_model",
                        lambda settings: ScriptedChatModel(script={"grounded": ["450초"]}))
    notes = tmp_path / "수달.md"
    notes.write_text(MATERIAL, encoding="utf-8")
    result = runner.invoke(app, ["ask", "수달 캐시의 항목은 얼마나 오래 유지됩니까?", "--material",
                                 str(notes), "--offline", "-i", "1", "-q", "--no-save"])
    assert result.exit_code == 0, result.output
    block = result.stdout.split("## 출처", 1)[1]
    assert f"{KOREAN['your_material']}: M1" in block and "Your material" not in block
