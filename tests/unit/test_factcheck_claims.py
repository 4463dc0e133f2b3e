"""A document's checkable claims: exact offsets, prose only, opinions and questions out."""

from __future__ import annotations

from deepcite.factcheck import split_claims
from deepcite.factcheck.claims import clean_claim

MARKDOWN = """---
title: Draft
---
# Osprey Labs

Osprey Labs was founded in 2011 by Maria Lindqvist. It employs 85 people in Uppsala.

## Product

- The sensor weighs **240 grams**.
- [x] Refunds are paid within 5 business days.
> The basic plan costs 12 euros per month.

| plan | price |
|------|-------|
| basic | 12 |

```python
limit = 30  # days of retention in the config
```

    indented = "code block with 42 numbers in it"

What does the premium plan cost? I think we should raise prices. We recommend the basic plan.
Hi team, thanks for reading. This note summarises the launch plan.
"""


def _texts(document: str) -> list[str]:
    claims = split_claims(document)
    for claim in claims:
        assert document[claim.start:claim.end] == claim.text
    assert [c.number for c in claims] == list(range(1, len(claims) + 1))
    return [claim.text for claim in claims]


def test_markdown_claims_keep_their_offsets_and_skip_what_is_not_prose() -> None:
    assert _texts(MARKDOWN) == [
        "Osprey Labs was founded in 2011 by Maria Lindqvist.",
        "It employs 85 people in Uppsala.",
        "The sensor weighs **240 grams**.",
        "Refunds are paid within 5 business days.",
        "The basic plan costs 12 euros per month.",
    ]


def test_questions_opinions_advice_and_greetings_are_not_claims() -> None:
    document = ("Does the cache expire? I believe the cache is too small. The cache should "
                "be larger. Thanks for the review! Perhaps we can meet on Friday. "
                "The cache keeps entries for 300 seconds.")
    assert _texts(document) == ["The cache keeps entries for 300 seconds."]


def test_a_sentence_of_two_claims_is_cut_at_its_semicolon() -> None:
    document = "The current version is 4.2.1; the project is distributed under the MIT license."
    assert _texts(document) == ["The current version is 4.2.1;",
                                "the project is distributed under the MIT license."]


def test_plain_text_under_a_setext_heading() -> None:
    document = "Release notes\n=============\n\nVersion 2 was released in March 2021.\n" \
               "It removed the legacy importer."
    assert _texts(document) == ["Version 2 was released in March 2021.",
                                "It removed the legacy importer."]


def test_chinese_and_japanese_sentences_split_without_spaces() -> None:
    document = "斑马缓存的条目保留三百秒。斑马缓存由奥斯陆团队开发！你觉得怎么样吗？\n\n" \
               "ハヤブサ図書館は1998年に開館した。私はそう思う。"
    texts = _texts(document)
    assert texts[:2] == ["斑马缓存的条目保留三百秒。", "斑马缓存由奥斯陆团队开发！"]
    assert "ハヤブサ図書館は1998年に開館した。" in texts
    assert not any("吗" in text for text in texts)


def test_clean_claim_keeps_the_words_a_source_would_say() -> None:
    assert clean_claim("The **sensor** weighs [240 grams](https://x.example) [2].") \
        == "The sensor weighs 240 grams ."


def test_a_sentence_may_start_with_a_name_in_lower_case() -> None:
    document = ("HTTP/2 support arrived in version 2.4.0. quillfetch can also upload files "
                "over FTP. Use e.g. pip to install it from the index server.")
    assert _texts(document)[:2] == ["HTTP/2 support arrived in version 2.4.0.",
                                    "quillfetch can also upload files over FTP."]


def test_a_reminder_wraps_a_claim_and_an_instruction_with_an_amount_is_one() -> None:
    # "Note that ..." and "Remember, ..." introduce a statement a source can confirm;
    # an instruction giving a price is a rule a source states; one that only points
    # elsewhere, or asks something of the reader without a value, is not a claim.
    document = ("Please note that the car park closes at 6pm. Remember, dogs must stay on "
                "a lead. Contact the office to book a stall for £35 a day. See page 4 for "
                "the 42 traders. Please call us. Note: this is a draft. Remember to bring "
                "ID. Do not forget to book early for the Summer Fair. Remember to bring 2 "
                "forms of ID.")
    # "Remember to ..." is an instruction, not a reminder of a statement: a claim only
    # with an amount, as any instruction
    assert _texts(document) == ["Please note that the car park closes at 6pm.",
                                "Remember, dogs must stay on a lead.",
                                "Contact the office to book a stall for £35 a day.",
                                "Remember to bring 2 forms of ID."]
