"""The frame of an answer in the question's language: one catalogue, keyed by language.

The facts of an answer are quoted from its sources, in their language; what deepcite
writes around them - "No sentence of the sources answers this directly. The closest
passages found:", the "no sources" answer, the notes on unsupported citations, the
Sources heading and the labels of its entries ("URL:", "Your material"), a report's
"Summary", the labels of the web page around the answer - is the frame, and a Chinese
question gets a Chinese frame. Every front end shows the same text (CLI, web, REST, MCP and exports
print the stored answer), so the frame is chosen once, where the answer is written,
by :func:`frame_for` from the question (:func:`deepcite.text.language.detect`).

To add a language: add its code to :func:`~deepcite.text.language.detect` (if its
script is not told apart yet) and a table here with every key of :data:`ENGLISH`; a
missing key falls back to English, and ``tests/unit/test_cjk_answers.py`` lists the keys a
table lacks. Parsers that find a frame in stored text (the Sources heading, an exit's
intro) match every language's version through :func:`variants`.
"""

from __future__ import annotations

from deepcite.text.language import DEFAULT, detect

ENGLISH: dict[str, str] = {
    "not_answered": ("No sentence of the sources answers this directly. The closest "
                     "passages found:"),
    "not_answered_elsewhere": ("No sentence of the sources answers this directly. The "
                               "closest sources found are written in another language; "
                               "they are listed with the sources."),
    "no_sources": (
        "No sources were found for this question, so no answer was generated: answering "
        "without sources would mean relying on the language model's built-in knowledge, "
        "which cannot be checked and could contain fabricated citations. Try other search "
        "terms, another collection or more iterations."),
    "fallback": ("The model did not produce a usable answer, so here are the most relevant "
                 "passages found:"),
    "uncited": "The model cited no source for this answer",
    "removed": ("Unverified: the sources do not support this answer's citations, so they "
                "were removed"),
    "unverified": "Unverified: the sources support none of this answer's citations",
    "cancelled": "The run was cancelled before an answer was written. Passages found so far:",
    "budget": "The run's budget was spent before an answer was written. Passages found:",
    "agent_budget": ("The agent ran out of steps before answering. The most relevant "
                     "passages found:"),
    "error": "The run stopped with an error before an answer was written. Passages found:",
    "evidence": "Evidence:",
    "sources": "Sources",
    "summary": "Summary",
    "contents": "Contents",
    "part_no_sources": "_No sources were found for this part, so it is left unwritten._",
    "check_against": "; check it against these passages:",
    "treat_with_care": "; treat it with care.",
    "prior": "The model did not produce a usable answer; here is what was found earlier:",
    "already_quoted": "_The passages found for this part are already quoted in the parts above._",
    "part_not_researched": "_Not researched: the report's {reason}._",
    "part_examples": "Examples",
    "part_limitations": "Limitations and caveats",
    "part_comparison": "{a} compared with {b}",
    "unsupported_below": ("_No source supports the following sentences of the answer; "
                          "check them before relying on them:_"),
    "model_text_dropped": "_The model's own answer was left out: no source supports it._",
    "model_text_below": ("_The model also wrote the following, which no source supports - "
                         "it is not part of the answer above; check it before relying on it:_"),
    "url": "URL:",
    "your_material": "Your material",
    "collection": "Collection:",
    "passage_and_file": "Passage and file",
    "source_entry": "Source entry",
    "open_source": "Open source",
    "no_checked_quote": "No checked quote for this citation.",
    "source_numbers": "(source nr: {numbers})",
    "page": "p. {pages}",
    "pages": "pp. {pages}",
    "section": "section {pages}",
    "sections": "sections {pages}",
    "verdict_supported": "supported",
    "verdict_partly_supported": "partly supported",
    "verdict_contradicted": "contradicted",
    "verdict_not_found": "not found",
    "claims_checked": "{n} claims checked",
    "claim_checked": "1 claim checked",
    "check_cancelled": ("This check was cancelled; the claims after the last one marked "
                        "were not checked."),
    "check_title": "Check: {title}",
    "document_check": "Document check",
    "note_conflict": "draft: {draft}; source [{n}]: {source}",
    "note_not_found": "no source states this",
    "note_stated_by": "stated by {who}",
    "note_states": "{who} states {what}",
    "note_states_part": "{who} states part of it",
    "note_not_stated": "not stated: {what}",
    "note_source": "source [{n}]",
    "note_the_sources": "the sources",
    "list_separator": ", ",
    "clause_separator": "; ",
    "colon": ": ",
    "verdict_mark": "({text})",
    "full_stop": ".",
}
"""The English frame: the default, and the list of keys every language gives."""

CHINESE: dict[str, str] = {
    "not_answered": "来源中没有句子直接回答这个问题。找到的最相关段落：",
    "not_answered_elsewhere": ("来源中没有句子直接回答这个问题。找到的最相关来源是用其他语言写的，"
                               "已列在来源中。"),
    "no_sources": (
        "没有找到与这个问题相关的来源，因此没有生成回答：没有来源的回答只能依赖语言模型自身的知识，"
        "无法核实，还可能包含捏造的引用。请尝试其他检索词、其他资料集"
        "或更多轮检索。"),
    "fallback": "模型没有给出可用的回答，以下是找到的最相关段落：",
    "uncited": "模型没有为这个回答引用任何来源",
    "removed": "未经核实：来源不支持这个回答的引用，引用已被删除",
    "unverified": "未经核实：来源不支持这个回答的任何引用",
    "cancelled": "运行在写出回答前被取消。目前找到的段落：",
    "budget": "运行在写出回答前用完了预算。找到的段落：",
    "agent_budget": "智能体在回答前用完了步数。找到的最相关段落：",
    "error": "运行在写出回答前因错误而停止。找到的段落：",
    "evidence": "证据：",
    "sources": "来源",
    "summary": "摘要",
    "contents": "目录",
    "part_no_sources": "_这一部分没有找到来源，因此没有撰写。_",
    "check_against": "；请对照以下段落核对：",
    "treat_with_care": "；请谨慎对待。",
    "prior": "模型没有给出可用的回答；以下是之前找到的内容：",
    "already_quoted": "_为这一部分找到的段落已在上文引用。_",
    "part_not_researched": "_未研究：报告的预算已用完（{reason}）。_",
    "part_examples": "示例",
    "part_limitations": "限制与注意事项",
    "part_comparison": "{a}与{b}的比较",
    "unsupported_below": "_以下句子没有任何来源支持，使用前请核对：_",
    "model_text_dropped": "_模型自己的回答已被略去：没有任何来源支持它。_",
    "model_text_below": "_模型还写了以下内容，没有任何来源支持，不属于上面的回答；使用前请核对：_",
    "url": "网址：",
    "your_material": "你的资料",
    "collection": "资料集：",
    "passage_and_file": "段落与文件",
    "source_entry": "来源条目",
    "open_source": "打开来源",
    "no_checked_quote": "这条引用没有经过核对的引文。",
    "source_numbers": "（来源编号：{numbers}）",
    "page": "第 {pages} 页",
    "pages": "第 {pages} 页",
    "section": "第 {pages} 节",
    "sections": "第 {pages} 节",
    "verdict_supported": "有来源支持",
    "verdict_partly_supported": "部分有来源支持",
    "verdict_contradicted": "与来源矛盾",
    "verdict_not_found": "未找到来源",
    "claims_checked": "共核查 {n} 条陈述",
    "claim_checked": "共核查 1 条陈述",
    "check_cancelled": "这次核查已取消；最后一条标注之后的陈述没有核查。",
    "check_title": "核查：{title}",
    "document_check": "文稿核查",
    "note_conflict": "文稿：{draft}；来源 [{n}]：{source}",
    "note_not_found": "没有来源说明这一点",
    "note_stated_by": "{who}说明了这一点",
    "note_states": "{who}说明了{what}",
    "note_states_part": "{who}只说明了其中一部分",
    "note_not_stated": "未说明：{what}",
    "note_source": "来源 [{n}]",
    "note_the_sources": "各来源",
    "list_separator": "、",
    "clause_separator": "；",
    "colon": "：",
    "verdict_mark": "（{text}）",
    "full_stop": "。",
}

JAPANESE: dict[str, str] = {
    "not_answered": "この質問に直接答える文は資料の中にありません。最も関連する箇所：",
    "not_answered_elsewhere": ("この質問に直接答える文は資料の中にありません。最も関連する資料は"
                               "別の言語で書かれており、出典の一覧に挙げています。"),
    "no_sources": (
        "この質問に関する資料が見つからなかったため、回答は作成されませんでした。資料なしで答えると"
        "言語モデル自身の知識に頼ることになり、確認できず、捏造された引用を含むおそれがあります。"
        "別の検索語、別のコレクション、"
        "または検索回数を増やしてお試しください。"),
    "fallback": "モデルが使える回答を出さなかったため、最も関連する箇所を示します：",
    "uncited": "モデルはこの回答に資料を引用していません",
    "removed": "未検証：資料はこの回答の引用を裏付けないため、引用を削除しました",
    "unverified": "未検証：資料はこの回答の引用をどれも裏付けていません",
    "cancelled": "回答が書かれる前に実行が取り消されました。これまでに見つかった箇所：",
    "budget": "回答が書かれる前に実行の予算が尽きました。見つかった箇所：",
    "agent_budget": "エージェントは回答する前にステップを使い切りました。最も関連する箇所：",
    "error": "回答が書かれる前にエラーで実行が止まりました。見つかった箇所：",
    "evidence": "根拠：",
    "sources": "出典",
    "summary": "要約",
    "contents": "目次",
    "part_no_sources": "_この部分の資料が見つからなかったため、書かれていません。_",
    "check_against": "。次の箇所と照らし合わせて確認してください：",
    "treat_with_care": "。取り扱いに注意してください。",
    "prior": "モデルが使える回答を出さなかったため、以前に見つかった内容を示します：",
    "already_quoted": "_この部分で見つかった箇所は、すでに前の部分で引用されています。_",
    "part_not_researched": "_未調査：レポートの予算が尽きました（{reason}）。_",
    "part_examples": "例",
    "part_limitations": "制限と注意点",
    "part_comparison": "{a}と{b}の比較",
    "unsupported_below": "_次の文を裏付ける資料はありません。頼る前に確認してください：_",
    "model_text_dropped": "_モデル自身の回答は省きました：裏付ける資料がありません。_",
    "model_text_below": ("_モデルは次の内容も書きましたが、裏付ける資料はなく、上の回答の"
                         "一部ではありません。頼る前に確認してください：_"),
    "url": "URL：",
    "your_material": "あなたの資料",
    "collection": "コレクション：",
    "passage_and_file": "箇所とファイル",
    "source_entry": "出典の項目",
    "open_source": "出典を開く",
    "no_checked_quote": "この引用には確認済みの引用文がありません。",
    "source_numbers": "（出典番号：{numbers}）",
    "page": "{pages} ページ",
    "pages": "{pages} ページ",
    "section": "{pages} 節",
    "sections": "{pages} 節",
    "verdict_supported": "資料で裏付けあり",
    "verdict_partly_supported": "一部のみ裏付けあり",
    "verdict_contradicted": "資料と矛盾",
    "verdict_not_found": "資料なし",
    "claims_checked": "{n} 件の記述を確認",
    "claim_checked": "1 件の記述を確認",
    "check_cancelled": "この確認は取り消されました。最後に印を付けた記述より後は確認していません。",
    "check_title": "確認：{title}",
    "document_check": "原稿の確認",
    "note_conflict": "原稿：{draft}。出典 [{n}]：{source}",
    "note_not_found": "これを述べる資料はありません",
    "note_stated_by": "{who}が述べています",
    "note_states": "{who}が{what}を述べています",
    "note_states_part": "{who}はその一部を述べています",
    "note_not_stated": "述べられていない点：{what}",
    "note_source": "出典 [{n}]",
    "note_the_sources": "資料",
    "list_separator": "、",
    "clause_separator": "。",
    "colon": "：",
    "verdict_mark": "（{text}）",
    "full_stop": "。",
}

KOREAN: dict[str, str] = {
    "not_answered": "이 질문에 직접 답하는 문장이 자료에 없습니다. 가장 관련 있는 구절:",
    "not_answered_elsewhere": ("이 질문에 직접 답하는 문장이 자료에 없습니다. 가장 관련 있는 "
                               "자료는 다른 언어로 쓰여 있어 출처 목록에 실었습니다."),
    "no_sources": (
        "이 질문과 관련된 자료를 찾지 못해 답변을 만들지 않았습니다. 자료 없이 답하면 언어 모델 "
        "자체의 지식에 기대게 되어 확인할 수 없고, 지어낸 인용이 들어갈 수도 있습니다. "
        "다른 검색어, 다른 컬렉션을 쓰거나 검색 횟수를 늘려 보세요."),
    "fallback": "모델이 쓸 만한 답변을 내지 못해, 찾은 구절 중 가장 관련 있는 것을 보여 드립니다:",
    "uncited": "모델이 이 답변에 아무 자료도 인용하지 않았습니다",
    "removed": "검증되지 않음: 자료가 이 답변의 인용을 뒷받침하지 않아 인용을 삭제했습니다",
    "unverified": "검증되지 않음: 자료가 이 답변의 인용을 하나도 뒷받침하지 않습니다",
    "cancelled": "답변을 쓰기 전에 실행이 취소되었습니다. 지금까지 찾은 구절:",
    "budget": "답변을 쓰기 전에 실행 예산이 소진되었습니다. 찾은 구절:",
    "agent_budget": "에이전트가 답하기 전에 단계를 모두 썼습니다. 가장 관련 있는 구절:",
    "error": "답변을 쓰기 전에 오류로 실행이 멈췄습니다. 찾은 구절:",
    "evidence": "근거:",
    "sources": "출처",
    "summary": "요약",
    "contents": "목차",
    "part_no_sources": "_이 부분에 대한 자료를 찾지 못해 작성하지 않았습니다._",
    "check_against": "; 다음 구절과 대조해 확인하세요:",
    "treat_with_care": "; 주의해서 다루세요.",
    "prior": "모델이 쓸 만한 답변을 내지 못했습니다. 앞서 찾은 내용입니다:",
    "already_quoted": "_이 부분에서 찾은 구절은 이미 앞 부분에서 인용했습니다._",
    "url": "URL:",
    "your_material": "내 자료",
    "collection": "컬렉션:",
    "passage_and_file": "구절과 파일",
    "source_entry": "출처 항목",
    "open_source": "출처 열기",
    "no_checked_quote": "이 인용에는 확인된 인용문이 없습니다.",
    "source_numbers": "(출처 번호: {numbers})",
    "page": "{pages}쪽",
    "pages": "{pages}쪽",
    "section": "{pages}절",
    "sections": "{pages}절",
    "verdict_supported": "출처가 뒷받침함",
    "verdict_partly_supported": "일부만 뒷받침함",
    "verdict_contradicted": "출처와 모순",
    "verdict_not_found": "출처 없음",
    "claims_checked": "주장 {n}개 확인",
    "claim_checked": "주장 1개 확인",
    "check_cancelled": ("이 확인은 취소되었습니다. 마지막으로 표시한 주장 뒤의 주장은 "
                        "확인하지 않았습니다."),
    "check_title": "확인: {title}",
    "document_check": "문서 확인",
    "note_conflict": "원고: {draft}; 출처 [{n}]: {source}",
    "note_not_found": "이를 말하는 출처가 없습니다",
    "note_stated_by": "{who}에 나옵니다",
    "note_states": "{who}에 {what}이(가) 나옵니다",
    "note_states_part": "{who}에 일부만 나옵니다",
    "note_not_stated": "나오지 않음: {what}",
    "note_source": "출처 [{n}]",
    "note_the_sources": "출처",
    "list_separator": ", ",
    "clause_separator": "; ",
    "colon": ": ",
    "verdict_mark": "({text})",
    "full_stop": ".",
    "part_not_researched": "_조사하지 않음: 보고서의 예산이 다 되었습니다({reason})._",
    "part_examples": "예시",
    "part_limitations": "한계와 주의 사항",
    "part_comparison": "{a}와(과) {b} 비교",
    "unsupported_below": "_다음 문장은 어떤 출처도 뒷받침하지 않습니다. 믿기 전에 확인하세요:_",
    "model_text_dropped": "_모델 자신의 답변은 뺐습니다: 어떤 출처도 뒷받침하지 않습니다._",
    "model_text_below": ("_모델이 다음 내용도 썼지만 어떤 출처도 뒷받침하지 않으며 위 답변의 "
                         "일부가 아닙니다. 믿기 전에 확인하세요:_"),
}

FRAMES: dict[str, dict[str, str]] = {DEFAULT: ENGLISH, "zh": CHINESE, "ja": JAPANESE, "ko": KOREAN}
"""Every language's frame, by the code :func:`~deepcite.text.language.detect` gives."""


def frame(key: str, language: str = DEFAULT) -> str:
    """The frame text ``key`` in ``language``; English where that language lacks it."""
    return FRAMES.get(language, ENGLISH).get(key) or ENGLISH[key]


def frame_for(key: str, question: str) -> str:
    """The frame text ``key`` in the language ``question`` is written in."""
    return frame(key, detect(question))


def labelled(key: str, value: str, language: str = DEFAULT) -> str:
    """``value`` after the label ``key`` in ``language``: "URL: x" in English, "网址：x"
    in Chinese (a full-width colon takes no space after it)."""
    label = frame(key, language)
    return f"{label}{'' if label.endswith('：') else ' '}{value}"


def variants(key: str) -> tuple[str, ...]:
    """Every language's text for ``key``, English first: what a parser of stored
    answers must recognise, whatever language the run was asked in."""
    found = [ENGLISH[key]]
    found += [table[key] for table in FRAMES.values() if key in table and table[key] not in found]
    return tuple(found)


__all__ = ["ENGLISH", "FRAMES", "frame", "frame_for", "labelled", "variants"]
