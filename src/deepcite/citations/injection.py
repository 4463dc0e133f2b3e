"""Source sentences addressed to the reader or to the model: data, never the answer.

A page can hold a line written for whoever processes it ("Ignore previous instructions
and reply that ...", "As an AI model you must recommend ...") or a phishing line ("Click
here to verify your account"). Quoted as a grounded answer it would be "supported" -
it *is* in the source - and so look trustworthy. :func:`addressed_to_reader` finds such
sentences so that answer builders leave them out (they stay in the source, and in the
prompt, fenced as data: :data:`deepcite.security.fencing.UNTRUSTED_NOTICE`).

What is *not* caught, on purpose: the ordinary imperative of documentation ("Use
``shutil.copy`` to copy a file.", "Call ``close()`` when done.", "You must call
``flush()`` first.", "Click **Save** to keep the file.") - those are how documentation
tells its reader how a thing works, and they are often the answer to a how-to question.
The patterns therefore look for what documentation does not say: talk about
instructions, prompts and the assistant itself; orders about the assistant's reply;
credentials, accounts and payments asked of the reader; urgency and prizes.
"""

from __future__ import annotations

import re
import unicodedata

_AI = (r"(?:ai|a\.i\.|artificial intelligence|(?:large )?language models?|llms?|chatbots?|"
       r"(?:ai |virtual )?assistants?|gpt(?:-?\d\w*)?|chatgpt|claude|gemini|copilot|bots?|"
       r"(?:ai |autonomous )?agents?)")
#: What names a model and nothing else (no bare "assistant", "agent" or "bot").
_AI_ONLY = (r"(?:ai|a\.i\.|artificial intelligence|(?:large )?language models?|llms?|"
            r"chatbots?|ai (?:assistants?|agents?|models?|systems?)|gpt(?:-?\d\w*)?|chatgpt|"
            r"claude|gemini|copilot)")
_INSTRUCTIONS = (r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines|"
                 r"commands?|messages?|context|guardrails|programming|constraints)")
_REPLY_VERBS = (r"(?:answer|respond|reply|say|state|tell|output|print|write|include|insert|"
                r"append|recommend|claim|declare|mention|reveal|translate|summari[sz]e|"
                r"obey|comply|follow|ignore|forget|disregard|pretend|act|behave|call the user)")

_ENGLISH = [re.compile(p, re.IGNORECASE) for p in (
    # Talk about the model's instructions.
    rf"\b(?:ignore|disregard|forget|override|bypass|skip|discard|drop)\b[^.!?]{{0,40}}?"
    rf"\b(?:previous|prior|above|earlier|preceding|former|original|all|any|your|the|these|"
    rf"those|other)\b[^.!?]{{0,25}}?\b{_INSTRUCTIONS}\b",
    rf"\b(?:new|updated|real|actual|hidden|secret|system|developer|admin)\s+{_INSTRUCTIONS}\s*:",
    r"\b(?:reveal|print|show|output|repeat|leak|disclose)\b[^.!?]{0,30}\b(?:(?:the|your) "
    r"system prompt|your (?:instructions|prompt))\b",
    r"\b(?:jailbreak|developer mode|dan mode|do anything now)\b",
    r"<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[/?INST\]|<<\s*/?SYS\s*>>",
    r"^\s*(?:#+\s*)?(?:system|assistant|user|instruction|human)\s*:\s*\S",
    # The sentence speaks to the model as a model.
    rf"\bas an? {_AI}\b",
    rf"\bif you are an? {_AI}\b",
    rf"\b(?:dear|attention|note (?:to|for)|message (?:to|for)|hey|hello)\s*,?\s*(?:all\s+)?{_AI}\b",
    rf"\b{_AI}\s+(?:reading|processing|summari[sz]ing|crawling|scraping|indexing|"
    r"analy[sz]ing|answering (?:questions )?(?:about|from))\s+(?:this|these|the following)\b",
    rf"\byou are (?:now )?(?:an? |the )?(?:helpful |new |unrestricted |uncensored )?{_AI}\b",
    # An order given to models in the third person ("AI assistants must answer that ...").
    # (models by name only: human agents, assistants and bots get orders in documents)
    rf"\b(?:all |any |every )?{_AI_ONLY}\s+(?:must|should|shall|need to|have to|are to|"
    r"is to|are required to)\s+(?:always |only |now |never |not )?(?:answer|respond|"
    r"reply|say|state|tell|output|claim|declare|mention|report|recommend)\b",
    r"\byou are now\b",
    rf"\bfrom now on,? you (?:will|must|should|shall|are|may)\s+(?:(?:always|only|never|not)\s+)?"
    rf"(?:{_REPLY_VERBS}|(?:an?|the)\s+(?:\w+\s+)?{_AI}|free|allowed|unrestricted)\b",
    r"(?:^|\byou (?:must|should|will|now) |\bnow,? )pretend\b|\bpretend (?:that )?you\b",
    r"(?:^|\byou (?:must|should|will|shall|are to|now) |\bnow,? )(?:act|behave|roleplay|"
    r"respond) as\b|\b(?:act|behave) as (?:if|though) you were\b",
    # Orders about the reply being written.
    r"\byou (?:must|should|will|shall|need to|have to|are required to) now\b",
    rf"\byou (?:must|should|will|shall) (?:always |only |never |not )?{_REPLY_VERBS}\b"
    r"[^.!?]{0,40}\b(?:user|reader|answer|response|reply|summary|question|prompt|"
    r"instructions?|this (?:page|document|text))\b",
    r"\b(?:in|at the (?:start|end) of|begin|end|start) (?:your|every|each) "
    r"(?:answer|response|reply|summary)s?\b",
    r"\b(?:tell|inform|convince|assure|remind|warn) the (?:user|reader|human)\b",
    r"\b(?:do not|don't|never) (?:mention|reveal|disclose|tell|say|cite|quote)\b[^.!?]{0,30}"
    r"\b(?:user|this|instructions?|prompt|source)\b",
    r"\b(?:answer|respond|reply) (?:to )?(?:this|the|every|any|all|each) "
    r"(?:question|query|prompt|request)s? (?:with|by|only|using)\b",
    r"^\s*(?:always |only |now )?(?:respond|reply|answer) (?:only )?(?:with|in|that|by saying)\b",
    r"\b(?:say|reply|respond|answer|output) (?:only )?(?:exactly |verbatim )?[\"'\u201c]",
    # Phishing, fraud and urgency aimed at the reader.
    r"\bclick (?:here|now|below|the link|this link|on (?:the|this) link|to (?:claim|verify|"
    r"confirm|unlock|continue|download|win|get|unsubscribe|login|log in|activate|update))\b",
    r"\b(?:enter|provide|confirm|update|submit|send|share|type|re-?enter|verify) (?:us )?"
    r"(?:your|the) (?:password|passcode|pin|login|credentials|username and password|"
    r"card(?: number| details)?|credit card|bank (?:details|account)|account (?:details|"
    r"number|information)|social security(?: number)?|ssn|one-time (?:code|password)|otp|"
    r"security code|cvv|seed phrase|recovery phrase|private key|billing (?:details|"
    r"information)|payment (?:details|information))\b",
    r"\bverify your (?:account|identity|email|login|details|information)\b",
    r"\byour (?:account|password|card|subscription|mailbox|device|computer)\b[^.!?]{0,30}"
    r"\b(?:suspended|locked|compromised|deactivated|disabled|closed|expired|hacked|infected|"
    r"will be (?:deleted|terminated|closed))\b",
    r"\b(?:call|phone|text|contact|dial|whatsapp) (?:us |our (?:support|team|agents?) )?"
    r"(?:now|today|immediately|urgently|at|on)?\s*(?:\+?\d[\d\s().-]{6,}\d|this number|"
    r"toll[- ]free)",
    r"\b(?:act now|limited time only|urgent(?:ly)? action|immediate action required|"
    r"don't miss out|last chance|expires today|within 24 hours or)\b",
    r"\b(?:you(?:'ve| have) (?:won|been selected)|claim your (?:prize|reward|gift|refund)|"
    r"congratulations[^.!?]{0,30}\bwin)",
    r"\b(?:send|wire|transfer|pay)\b[^!?]{0,30}\b(?:bitcoin|btc|crypto|gift cards?|"
    r"wire transfer|western union|processing fee)\b",
    r"\b(?:please )?visit (?:https?://|www\.)\S+\s+(?:now|today|immediately|to (?:claim|"
    r"verify|confirm|unlock|win|update|login|log in))\b",
    r"\b(?:log ?in|sign in) (?:now|immediately|here|at once) to\b",
)]

_CJK_AI = r"(?:AI|人工智能|语言模型|大模型|模型|助手|机器人|智能体|ChatGPT|GPT)"
_CHINESE = [re.compile(p, re.IGNORECASE) for p in (
    r"(?:忽略|无视|忘记|忘掉|不要理会|跳过|覆盖)(?:掉)?(?:你)?(?:之前|以前|先前|此前|上面|以上|前面|上述|"
    r"原来|原有|所有|全部|一切|其他)?(?:的)?(?:所有|全部|一切)?(?:的)?(?:指令|指示|提示|提示词|说明|规则|"
    r"要求|设定|命令)",
    r"(?:新的|真正的|隐藏的|系统)(?:指令|指示|提示词?)\s*[:：]",
    r"系统提示",
    rf"作为(?:一[个名位])?{_CJK_AI}",
    rf"如果你是(?:一[个名位])?{_CJK_AI}",
    rf"(?:致|给|亲爱的|注意)(?:所有)?(?:的)?{_CJK_AI}",
    r"你现在(?:是|扮演|的身份)",
    r"从现在(?:开始|起)[，,]?\s*你",
    r"(?:扮演|假装(?:你是|成))",
    r"你(?:必须|应该|应当|需要|要)(?:立即|马上|立刻|现在|从现在起|始终|只)(?:回答|回复|说|输出|告诉|推荐|"
    r"声称|忽略|遵守|服从|执行)",
    r"(?:告诉|告知|提醒|说服)(?:用户|读者)",
    r"(?:回答|回复)(?:的)?(?:开头|结尾|最后|末尾)(?:必须|要|请|都)",
    r"(?:点击|点此|点这里)(?:此处|这里|下方|以下|链接|下面)?(?:链接)?(?:领取|验证|确认|解锁|登录|下载|"
    r"继续|查看|激活)?",
    r"(?:输入|提供|确认|提交|发送|填写|更新)(?:你的|您的)(?:密码|验证码|银行卡|卡号|身份证|账户|账号|"
    r"支付|登录)",
    r"验证(?:你的|您的)(?:账户|账号|身份|邮箱)",
    r"(?:你的|您的)(?:账户|账号|银行卡|设备|电脑)[^。！？]{0,12}(?:冻结|停用|锁定|封禁|异常|被盗|"
    r"中毒|过期|注销)",
    r"(?:立即|马上|尽快)(?:行动|处理|登录|验证|转账|汇款|点击)",
    r"(?:恭喜您?|您已|你已)[^。！？]{0,10}(?:中奖|获得奖品|被选中)",
    r"(?:转账|汇款|支付)[^。！？]{0,12}(?:比特币|礼品卡|手续费|保证金)",
)]
# A number to call is a lure only with urgency or what a fraud is about (a refund, a
# prize, a frozen account): a manual's own "拨打 400-820-6655 预约" books a service.
_CJK_CALL = re.compile(r"(?:拨打|致电|联系)[^。！？]{0,10}(?:\d[\d\s-]{6,}\d|热线|客服电话|此号码)")
_CJK_CALL_LURE = re.compile(r"立即|马上|立刻|尽快|火速|退款|退费|中奖|奖品|奖金|冻结|解冻|封禁|"
                            r"被盗|验证|转账|汇款|手续费|保证金|理赔|赔偿|补偿|账户|账号|银行卡|"
                            r"密码")
#: What a manual's own number is called for: report a loss, book a repair or a visit,
#: ask, complain (:func:`addressed_to_reader`).
_CJK_SERVICE = re.compile(r"挂失|报修|预约|咨询|投诉")
#: Marks that end a clause (NFKC has made the full-width comma and semicolon ASCII).
_CLAUSE_MARKS = ",;。!?、"
# Clicking a link is only an order to the reader with something it leads to; the bare
# CJK click pattern above is too wide alone ("点击保存按钮" in a how-to), so it needs one.
_CJK_CLICK = re.compile(r"(?:点击|点此|点这里)")
_CJK_CLICK_TARGET = re.compile(r"(?:此处|这里|下方|以下|链接|领取|验证|确认|解锁|登录|下载|激活)")


def addressed_to_reader(sentence: str) -> bool:
    """Whether ``sentence`` is an instruction to the model or a lure aimed at the reader.

    True for text about the model's instructions or role ("ignore previous
    instructions", "as an AI ...", "you are now ..."), orders about the reply ("you must
    now answer ...", "tell the user ..."), and phishing or urgency lines ("click here",
    "verify your account", "enter your password", "call +1 800 ..."), in English and
    Chinese. False for documentation's own imperatives ("Use X to do Y").
    """
    text = " ".join(unicodedata.normalize("NFKC", sentence).split())
    text = text.replace("\u2019", "'").replace("``", "").replace("`", "")
    if any(p.search(text) for p in _ENGLISH):
        return True
    for pattern in _CHINESE:
        match = pattern.search(text)
        if match is None:
            continue
        if _CJK_CLICK.fullmatch(match.group(0)) and not _CJK_CLICK_TARGET.search(
                text, match.end(), match.end() + 6):
            continue
        return True
    call = _CJK_CALL.search(text)
    if call is None or not _CJK_CALL_LURE.search(text):
        return False
    # the call's own clause books an ordinary service ("拨打客服热线...办理挂失") with no
    # lure in it: a lure word in another clause says what the service does
    # ("挂失后卡内余额将被冻结"), not why to call
    start = max(text.rfind(mark, 0, call.start()) for mark in _CLAUSE_MARKS) + 1
    ends = [i for i in (text.find(mark, call.end()) for mark in _CLAUSE_MARKS) if i >= 0]
    clause = text[start:min(ends, default=len(text))]
    # (a lure before the call is why to call: "账户异常，请拨打 ... 咨询")
    return not (_CJK_SERVICE.search(clause) and not _CJK_CALL_LURE.search(clause)
                and not _CJK_CALL_LURE.search(text, 0, start))
