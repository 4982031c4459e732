"""Prose answers read once more, for all three modes: a text answer (the parser's fallback)
against a numeric gold is the one number it states (``count-in-text``), against a gold that
is one option letter the option it states (``choice-in-text``), and otherwise it is checked
for an abstention ("I don't know"), which the result notes without scoring it.

The parser reads text into values; these readings need the gold, so a mode makes them after
both sides are parsed, from the parser's own number reading.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace
from fractions import Fraction
from typing import Any, Final

from ..parse import QUALIFIED_LINE_END, read_number
from ..results import ScoreResult
from .cjk import HANGUL, SPACELESS

__all__ = ["abstention", "chosen_option", "note_prose", "stated_choice", "stated_count"]


_COUNT_CHARS: Final = 24
# A number standing alone in prose: not part of an identifier (``CWC04013``, ``COMP-01``), a
# date or time (``2020-06-01``, ``10:30``), a version or a percentage, however written (``45%``,
# ``45 %``, ``45％``, LaTeX's ``45\%``, ``45‰``, ``45 percent``, ``45 per cent``, ``45 pct``;
# not ``0.24 percentage points``, a difference of two); ``1,234`` is one number.
# Nor an index or citation (``history[3]``, ``[1]``), a code argument (``limit=1``), a
# number (``#4``) or a compound word (``90-day``). A Han, kana or Hangul letter next to it is
# no part of it (``共有34个工单``, ``34件``, ``34개``: those scripts write no space there).
# The minus sign (U+2212) is a sign; a number right after an en dash or another dash is not
# read (a range, or a sign we cannot tell).
# A percent sign or word after a number, past any spaces (thin ones, LaTeX's ``\,``, ``~``):
# ``45%``, ``45\u2009%``, ``45٪``, ``$45\,\%$``, ``45\text{ percent}``, ``\SI{45}{\percent}``,
# ``45 per cent``, ``45 pct``, ``45パーセント``, ``45퍼센트``, ``45프로`` (not ``PCT``, an acronym).
_PERCENT: Final = (
    r"(?:[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000~]|\\[,;:! ]|\\q?quad\b|\\thinspace\b)*"
    r"(?:[%\uff05\ufe6a\u066a\u2030\u2031]|\\%|\}\{\\percent\}"
    r"|(?:\\(?:text|mathrm|textrm|mbox|rm)\{[ \t]*)?"
    r"(?:\\%|%|(?:(?i:percent|per[ \t\u00a0]?cent)|pct|Pct)\b)"
    r"|\u30d1\u30fc\u30bb\u30f3\u30c8|\ud37c\uc13c\ud2b8"  # パーセント, 퍼센트
    # 프로 (colloquial), joined to the number, but where it opens a loanword (프로그램
    # program, 프로젝트, 프로세스, 프로필, 프로토콜, 프로모션, 프로파일, 프로듀서, 프로야구,
    # 프로선수, 프로포즈, 프로게이머, 프로스포츠); 45 프로 선수 (pro players) is no per cent
    r"|(?<=\d)\ud504\ub85c(?![\uadf8\uc81d\uc138\ud544\ud1a0\ubaa8\ud30c\ub4c0\uc57c\uc120\ud3ec\uac8c\uc2a4]))"
)
_LONE_NUMBER = re.compile(
    rf"(?<![.,:/+\-\[=#\u2010-\u2015\u2212\ufe63\uff0d])(?<![^\W{SPACELESS}{HANGUL}])"
    r"([-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
    rf"(?![^\W{SPACELESS}{HANGUL}]|[%\]=]|[.,:/\-\u2010-\u2015\u2212]\d|-[^\W\d_]"
    rf"|{_PERCENT})"
)
# A list item's or heading's number opening its line ("1. I could not...", "### 2) Summary"):
# what comes before it on the line, and what follows it.
# Emphasis may hold the number or the item ("**1.** None", "**2. Nothing else.**"), and a
# no-break space may follow it.
_MARKER_BEFORE = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|>[ \t]*|[*+-][ \t]+)?(?:\*{1,3}|_{1,3})?")
_MARKER_AFTER = re.compile(r"(?:[.)](?:\*{1,3}|_{1,3})?|(?:\*{1,3}|_{1,3})[.)])[ \t\u00a0]+\S")
# The next number of a list with nothing after it (an answer cut off at "1. ...\n2." or
# "...\n2"): no count, where "34." alone on its line is one.
_MARKER_ENDS_LINE = re.compile(r"(?:[.)](?:\*{1,3}|_{1,3})?[ \t\u00a0]*(?:\r?\n|\Z)|\s*\Z)")
# What names a thing by its number rather than counting: a reference word (``step 17``,
# ``page 3``, ``version 2``) or a standard (``IEC 60599``, ``ISO 9001``; not ``USD 500``).
_LABEL_BEFORE = re.compile(
    r"(?:\b(?i:steps?|pages?|lines?|items?|sections?|chapters?|fig(?:ure)?s?\.?|tables?|rows?"
    r"|columns?|turns?|attempts?|iterations?|versions?|phases?|stages?|rules?|clauses?"
    r"|index|no\.|nr\.|eq\.|ref\.|errors?|codes?|status|releases?)"
    r"|\b(?:IEC|ISO|IEEE|ANSI|API|ASTM|ASME|NEC|NFPA|NEMA|DIN|EN|BS|UL|RFC|ITU|SAE|HTTP|ID)"
    r"|[\u7b2c\uc81c]|\u7f16\u53f7|\u7de8\u865f|\u756a\u53f7|\ubc88\ud638)"  # 第3, 제3, 编号 3
    r"[ \t]*$"
)
_LABEL_REACH: Final = 16  # characters before a number where its label may stand
# What makes a number no statement of the count: a negation or a bound before it ("not 3",
# "isn't 3", "more than 3", ">= 3"), a month before it (a date: "March 3"), and after it a
# bound ("3+", "3 or more", "15 and over"), a clock ("3 pm", "3 o'clock") or an error count
# of a tool; either end of a range ("1993 to 2023").
_NOT_STATED_BEFORE = re.compile(
    r"(?:(?i:\b(?:not|never|no|more|fewer|less|greater|over|under|above|below|exceed(?:s|ing)?"
    r"|at\s+(?:least|most)|up\s+to|cannot\s+be|can't\s+be)"
    r"|n't(?:\s+be)?|within|limited\s+to)"
    # (a month capitalised, "March 3" or "MARCH 3"; "march" and "may" are verbs too)
    r"|\b(?=[A-Z])(?i:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b\.?"
    r"(?:[ \t]+\d{1,2}(?:st|nd|rd|th)?,?)?"
    r"|[<>\u2264\u2265\u2248\u2260~]=?"
    # in Chinese and Japanese: not 3, more or fewer than 3, at least or at most 3 (至少, 最多,
    # 最低, 最高, 少なくとも)
    r"|\u4e0d\u662f|\u4e0d\u5230|\u4e0d\u8db3|[\u6ca1\u6c92]\u6709|\u8d85[\u8fc7\u904e]"
    r"|[\u591a\u5c11\u5927\u5c0f\u9ad8\u4f4e][\u4e8e\u65bc]|\u81f3[\u5c11\u591a]"
    r"|\u6700[\u591a\u5c11\u5927\u5c0f\u4f4e\u9ad8]|\u672a[\u6ee1\u6eff]|\u5c11\u306a\u304f\u3068\u3082"
    r"|\ucd5c\uc18c|\ucd5c\ub300|\uc801\uc5b4\ub3c4"
    r"|\u767e\u5206\u4e4b"  # 百分之45: 45 per cent
    # (and emphasis, "not **34**"; past a line break where _may_qualify lets it: "not\n34")
    r")[\s*_]*(?:(?i:than)[\s*_]+)?$"
)
# The upper end of a range ("1993 to 2023", "2 million to 3 million", "from 1 hundred
# thousand to 2 hundred thousand", "34~40个", "3万到4万"), its lower end's scale words
# included (three at most, as :func:`_scale` reads): looked for further back.
_RANGE_BEFORE = re.compile(
    r"\d(?:[ \t\u00a0\u202f*_]*(?i:hundred|thousand|million|billion|trillion|dozen)s?"
    r"|[\u4e07\u842c\u4ebf\u5104\u5343\u4edf\u767e\u4f70\ub9cc\uc5b5\ucc9c\ubc31]){0,3}"
    rf"(?:[ \t]*[{SPACELESS}{HANGUL}])?"  # (a counter: 34个~40个, 34 个 to 40 个)
    r"[ \t\u00a0\u202f*_]*(?:\b(?i:to|through|until|till)\b|[~\u301c\uff5e\u81f3\u5230])\s*$"
)
_RANGE_REACH: Final = 64
_NOT_STATED_AFTER = re.compile(
    rf"\+|[ \t]*(?:[{SPACELESS}{HANGUL}]?[ \t]*[~\u301c\uff5e\u81f3\u5230]\s*[-+\u2212]?\d"
    # (34~40, 34至40, 34个~40个; 34个 to 40个)
    rf"|[{SPACELESS}{HANGUL}][ \t]*(?i:to|through|until|till)\s+[-+\u2212]?\d"
    r"|(?i:(?:or|and)\s+(?:more|fewer|less|above|below|over|under|older|up|higher"
    r"|lower|greater)\b|(?:to|through|until|till)\s+[-+\u2212]?\d)|[ap]\.?m\.?(?!\w)"
    r"|[AP]\.?M\.?(?=[ \t]*(?:[.,;:!?)]|$))"
    r"|(?i:o'clock\b|validation\s+errors?\b)"
    # in Chinese, Japanese and Korean, a date or a clock (3月 March, 3日, 3号, 3时; not
    # 3日間, 3時間, 3시간: days, hours; 3点 and 3點 see _CLOCK_POINT), a bound or a negation
    # after it, or after its counter (3个以上 3 or more, 3件以下, 30多个 30-odd, 3ではない not 3)
    r"|[\u6708\u53f7\u865f\u756a\u65f6\uc6d4]|[\u65e5\u6642](?!\u9593)"
    # 点 as a score or a decimal point, not a count: 3点差 (a margin), 3点満点 (out of 3), 3点台
    # (in the threes), 3点目 (the third), 3点リード (a lead), 3点半 (half past), 3点5 (3.5)
    r"|[\u70b9\u9ede](?:[\u5dee\u6e80\u53f0\u76ee\u534a]|\u30ea\u30fc\u30c9|[ \t]*\d)"
    # an ordinal: a counter and 目 in Japanese (3回目 the third time, 3件目, 3人目, 3つ目,
    # 3年目, 3か月目; not 3項目, 3品目: items), and 째 in Korean (3번째, 3개째)
    r"|(?:[\u56de\u4ef6\u500b\u4eba\u53f0\u672c\u679a\u3064\u5ea6\u5e74\u9031\u884c\u5217\u6bb5"
    r"\u518a\u676f\u5468]|[\u304b\u30f6\u30ab\u30f5\u30b1]\u6708)\u76ee"
    rf"|[{HANGUL}]?\uc9f8"
    r"|[\uc77c\uc2dc](?!\uac04)|\u5e74(?=\d)|\ub144(?=[ \t]*\d)"  # (2024年3月: a date)
    # tenths: 3成, 3割, 3割り引き (not 割り当て, allocation)
    r"|[\u6210\u5272](?![\u5458\u54e1\u529f]|\u308a\u5f53)"
    # (also after a space, as Korean writes it: 34개 이상; or "or more": 34个或以上, 34个或更多,
    # 34개 또는 그 이상)
    rf"|[{SPACELESS}{HANGUL}]?[ \t]*"
    r"(?:\u6216\u8005?[ \t]*(?:\u4ee5[\u4e0a\u4e0b]|\u66f4[\u591a\u5c11])"
    r"|\ub610\ub294[ \t]*(?:\uadf8[ \t]*)?\uc774[\uc0c1\ud558]"
    r"|\u4ee5[\u4e0a\u4e0b\u5185\u5167]|\u672a[\u6e80\u6ee1\u6eff]"
    r"|[\u591a\u4f59\u9918]|\u3067\u306f\u306a|\u3067\u306f\u3042\u308a|\u3058\u3083\u306a"
    r"|\uc774[\uc0c1\ud558\ub0b4]|\ubbf8\ub9cc"
    # (in Japanese: 3件まで up to 3, 3件超 / 超え / 超過 over 3, not 3个超市, 3 supermarkets;
    # 3件を超える, を上回る, を下回る)
    r"|\u307e\u3067|\u8d85(?:[\u3048\u904e]|(?![\u3400-\u4dbf\u4e00-\u9fff]))"
    r"|\u3092(?:[\u8d85\u8d8a]\u3048|[\u4e0a\u4e0b]\u56de)))"
)
_NOT_STATED_REACH: Final = 24  # characters before a number where a negation or bound may stand
# 点 after a number: the hour in Chinese (下午3点, 3 pm), a counter of items or points in
# Japanese (商品は3点です, three articles), which clocks write with 時. So it is a count in a
# text written with kana (Japanese; not the middle dot and the long-vowel mark, which Chinese
# borrows). In a text of Han letters alone, which may be Chinese, it is a count after a verb
# of finding or getting or a word of a total (检测到3点, 共找到3点。, 发现3点异常, 收到3点意见,
# 共有3点问题: found, detected, received, three in all), unless a word that goes on with a
# time follows (检测到3点钟, 发现3点以后, 3点半, 3点的); else (商品3点, 他说了3点。 three
# points; 點 too) where it ends its clause, after no word of a time of day, a day or a time
# ("at", "from", "until": 下午3点, 今天3点, 时间：3点, 在3点, 到3点, 工作到3点), no verb of
# saying or copula (他说3点, he said three o'clock; 是3点, which may be either, states no
# count) and before no verb or word that goes on with a time (3点开始, 3点钟, 3点以后); else a
# clock.
_CLOCK_POINT = re.compile(r"[ \t]*[\u70b9\u9ede]")
_KANA = re.compile(r"[\u3041-\u3096\u30a1-\u30fa\u31f0-\u31ff\uff66-\uff9d]")
_POINT_ENDS_CLAUSE = re.compile(
    r"[ \t]*(?:[\u3002\uff0e.\uff0c,\u3001\uff1b;\uff01!)\uff09\]\u300d\u300f\n]|\Z)"
)
_FOUND_BEFORE = re.compile(
    # a verb and 到 that completes it: 找到 查到 搜到 遇到, (检/监/探/观/侦)测到, (观)察到,
    # (识)别到, (捕)获到, 捕捉到, 扫描到, 搜索到, 查询到, 记录到; 收到 达到 得到 (getting);
    # not 看到 nor 计到, which also last until a time (看到3点, watched until three; 预计到3点)
    r"(?:[\u627e\u67e5\u641c\u9047\u6d4b\u6e2c\u5bdf\u522b\u5225\u83b7\u7372\u6349\u63cf"
    r"\u7d22\u8be2\u8a62\u5f55\u9304\u6536\u8fbe\u9054\u5f97]\u5230"
    # 发现 發現, 检出 測出 查出 找出 识别出
    r"|[\u53d1\u767c][\u73b0\u73fe]|[\u68c0\u6aa2\u6d4b\u6e2c\u67e5\u627e\u522b\u5225]\u51fa"
    # 共有, 共计 合计 总计 累计, 共 (一共, 总共)
    r"|\u5171\u6709|[\u5171\u5408\u603b\u7e3d\u7d2f][\u8ba1\u8a08]|\u5171"
    r")[ \t:\uff1a]*$"
)
# after 点, what goes on with a time: 钟 鐘, 半, 整, 过 過, 多, 左右, 前, 后 後, 以后 以前, 之后,
# 开始 開始, 起, 到 至 (3点到4点), 时 時, 的, 正, 零, 刻 and the minutes in words (3点一刻,
# 3点二十)
_TIME_GOES_ON = re.compile(
    r"[ \t]*[\u949f\u9418\u534a\u6574\u8fc7\u904e\u591a\u5de6\u524d\u540e\u5f8c\u4ee5\u4e4b"
    r"\u5f00\u958b\u8d77\u5230\u81f3\u65f6\u6642\u7684\u6b63\u96f6\u523b"
    r"\u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d\u5341]"
)
_TIME_BEFORE = re.compile(
    # 上午 下午 中午, 早(上) 晚(上), 凌晨 清晨 早晨 傍晚 半夜 午夜 夜(里/间) 白天
    r"(?:[\u4e0a\u4e0b\u4e2d]\u5348|[\u65e9\u665a]\u4e0a?|\u51cc\u6668|\u6e05\u6668|\u5085\u665a"
    r"|\u534a\u591c|\u5348\u591c|\u591c|\u767d\u5929"
    # 今天 明天 昨天 前天 后天 當天 当天 每天, 今日 明日 昨日 每日 当日 當日
    r"|[\u4eca\u660e\u6628\u524d\u540e\u5f8c\u5f53\u7576\u6bcf][\u5929\u65e5]"
    # 时间 時間 时刻 時刻, 在 于 於 至 从 從 自 (现在 現在), 截至 截止
    r"|[\u65f6\u6642][\u95f4\u9593\u523b]|[\u5728\u4e8e\u65bc\u81f3\u4ece\u5f9e\u81ea]"
    r"|\u622a[\u81f3\u6b62]"
    # 到, until or to (到3点, 直到, 等到, 工作到, 推迟到; not after a verb of finding or
    # getting, see _FOUND_BEFORE)
    r"|\u5230"
    # a verb of saying, asking or telling, or a copula, right before it, where 3点 is a time
    # or either (他说3点。 he said three o'clock; 讲; 问, 告诉, 通知 and their object, 告诉我;
    # 是: 现在是3点; 改成 改为 changed to): no count (他说了3点。, he made three points, counts)
    r"|[\u8bf4\u8aaa\u8bb2\u8b1b\u662f]|\u6539[\u6210\u4e3a\u70ba]"
    r"|(?:[\u95ee\u554f]|\u544a[\u8bc9\u8a34]|\u901a\u77e5)"
    r"(?:[\u6211\u4f60\u60a8\u4ed6\u5979\u5b83][\u4eec\u5011]?)?"
    r")[ \t:\uff1a]*$"
)
_TIME_REACH: Final = 8
# The hour before a number: its minutes (3点5分, 3點05分, 3时5分, 3時5分, 3시 5분) or, after 点,
# its decimals (3点5, 3.5), never a count.
_CLOCK_BEFORE = re.compile(r"\d[ \t]*[\u70b9\u9ede\u65f6\u6642\uc2dc][ \t]*$")
_CLOCK_REACH: Final = 8
# Where a number is quoted rather than stated: code (a span or a fenced block) and a note of
# a cut ("...[truncated 69 chars]").
_QUOTED_SPAN = re.compile(
    r"```.*?(?:```|\Z)|`[^`\n]*`"
    r"|[\[(<][^\[\]()<>\n]*(?i:truncat|\bcut\b|omit|elid|snip|clip)[^\[\]()<>\n]*[\])>]",
    re.S,
)
# A tool's error echoed as the answer states no count ("Error executing tool x: 1 validation
# error ...").
_TOOL_ERROR = re.compile(r"\s*(?i:error\s+executing\s+tool\b|traceback\s+\(most\s+recent)")
_LABEL_GOES_ON = re.compile(  # after a plural label: "steps 4 and 5", "steps 4, 5, and 6"
    r"\s*(?:,\s*(?i:and|or)?|&|(?i:and|or|to|through)|-|\u2013|\u2014)\s*"
)


# Characters a model writes for ones the rules read: typographic apostrophes ("isn’t 34"),
# the no-break, thin and other fixed-width spaces ("not 34", "step 17" and "C because"
# typeset), the hyphen and the non-breaking hyphen ("90‑day", "T‑005"); and the invisible
# ones (zero-width spaces and joiners, the BOM, the soft hyphen), dropped.
_INVISIBLE_CHARS: Final = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_TYPOGRAPHY: Final[dict[str, str]] = {
    **dict.fromkeys("\u2018\u2019\u02bc", "'"),
    **dict.fromkeys("\u00a0\u202f\u205f\u3000", " "),
    **dict.fromkeys(map(chr, range(0x2000, 0x200B)), " "),
    **dict.fromkeys("\u2010\u2011", "-"),
    **dict.fromkeys(_INVISIBLE_CHARS, ""),
    **dict.fromkeys("\u2028\u2029\u0085", "\n"),  # (the line and paragraph separators)
    "\u2116": "No.",  # (the numero sign: "pump №17" names pump 17 as "No. 17" does)
    # full-width digits, letters and the marks the rules read ("＞３４个" as ">34个", "＃４",
    # "１．" a list item's; not "，", "？", "（" or "－", which the rules read as they are: a
    # number after "－" is not read), and the signs of a bound Japanese writes ("≧34", "≦34")
    **{chr(0xFF10 + digit): str(digit) for digit in range(10)},
    **{chr(code + 0xFEE0): chr(code) for code in range(ord("A"), ord("Z") + 1)},
    **{chr(code + 0xFEE0): chr(code) for code in range(ord("a"), ord("z") + 1)},
    **{chr(ord(mark) + 0xFEE0): mark for mark in "<>=+#./[]"},
    "\u2267": "\u2265",
    "\u2266": "\u2264",
    "\uff1a": ":",  # (between digits, a clock's: "１０：３０" as "10:30")
    # (between blanks, away from a number, a dash of prose: "3 failed \u2013 the cause...";
    # not one of a range, "3 \u2013 4")
    "\u2013": "\u2014",
}
# (a search: str.translate reads non-ASCII text a character at a time, several times slower)
_TYPESET: Final = re.compile(
    # (each alternative opening with its character, which the search skips to)
    "[{}]|\u2013(?<=\\s\u2013)(?<!\\d\\s\u2013)(?=\\s)(?!\\s\\d)|\uff1a(?<=\\d\uff1a)(?=\\d)".format(
        re.escape("".join(_TYPOGRAPHY).replace("\u2013", "").replace("\uff1a", ""))
    )
)


def _typeset(found: re.Match[str]) -> str:
    return _TYPOGRAPHY[found[0]]


# Markdown emphasis (bold, italic): a run of asterisks beside a word, a number or a mark
# ("**34** or more", "I could **not** determine", "第**3**章", "C is **correct**"); not one
# with a blank on both sides (a bullet, "3 * 4") nor one between two ASCII letters or digits
# ("3*4", "2**10"). A run of underscores only where it opens or closes a word ("__34__",
# "_not_"; not "T_005" nor a blank to fill, "____").
# (each opening with its mark, which the search skips to)
_STARS: Final = re.compile(
    r"\*(?:(?<=[^\s*0-9A-Za-z]\*)\**(?=[^\s*])|(?<=[^\s*]\*)\**(?=[^\s*0-9A-Za-z])"
    r"|(?<!\S\*)\**(?=[^\s*])|(?<=[^\s*]\*)\**(?!\S))"
)
_UNDERSCORES: Final = re.compile(r"_(?:(?<!\w_)_*(?=[^\s_])|(?<=[^\s_]_)_*(?!\w))")


# Text struck through ("~~34~~ 35", "The answer is ~~B~~ C."): what the model took back, so
# no part of the answer. Two tildes each side, not beside a letter or digit ("34~~40" is a
# range typed twice) nor in a fence's run of three; 200 characters at most (a bound on the
# search: unclosed tildes each looked that far, not to the end of the line).
_STRUCK: Final = re.compile(r"~~(?<![\w~]~~)(?=[^\s~])[^\n]{0,200}?(?<=[^\s~])~~(?![\w~])")


# HTML a model writes in Markdown: inline formatting tags, which show no text ("<b>34</b>":
# its ">" is no "greater than"), a line break or paragraph as a line break, code as a code
# span, deleted text as struck through (see :data:`_STRUCK`); then the entities of the marks
# the rules read ("&gt;34", "&ge; 34", "&nbsp;").
_HTML_TAG: Final = re.compile(
    r"<(?:(?P<struck>del|s|strike)\b[^<>\n]*>[^\n]{0,200}?</(?P=struck)\s*"
    r"|(?P<line>br|/?p|/?div)\b[^<>\n]*|(?P<code>/?code)\b[^<>\n]*"
    r"|/?(?:b|strong|i|em|u|mark|span|font|big|small|ins|tt)\b[^<>\n]*)>",
    re.I,
)
_APOSTROPHE_ENTITIES: Final = ("&#39;", "&#039;", "&#x27;", "&apos;", "&rsquo;", "&lsquo;")
_ENTITIES: Final = {
    "&gt;": ">",
    "&lt;": "<",
    "&ge;": "\u2265",
    "&le;": "\u2264",
    "&ne;": "\u2260",
    "&nbsp;": " ",
    # an apostrophe escaped ("isn&#39;t 34", "I don&#39;t know")
    **dict.fromkeys(_APOSTROPHE_ENTITIES, "'"),
}
_ENTITY: Final = re.compile("|".join(_ENTITIES))


# LaTeX math around a number or a letter ("not $34$", "\\(34\\)", "The answer is $C$."): its
# delimiters show nothing (a "$" pair as Pandoc reads one: "$34 and $45" are dollars; a
# display "\\[ 34 \\]" with a blank inside, so an escaped "\\[1\\]" stays a citation), and
# its relations are the marks they typeset ("$\\geq 34$" is "≥ 34", "$\\neq 34$" "≠ 34").
_MATH: Final = re.compile(
    r"\$\$(?P<display>[^$]*?)\$\$|\$(?P<inline>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?!\d)"
    r"|\\\((?P<paren>.{0,200}?)\\\)|\\\[(?P<bracket>\s.{0,200}?\s)\\\]"  # (bounded: linear)
    r"|\\(?P<relation>geqslant|leqslant|geq?|leq?|gt|lt|neq?|approx|sim)(?![A-Za-z])"
    r"|\\(?:text|textbf|mathrm|mathbf|rm)\{(?P<letter>[A-Z])\}",  # ("$\\text{C}$": C)
    re.S,
)
_RELATIONS: Final = {
    "ge": "\u2265",
    "geq": "\u2265",
    "geqslant": "\u2265",
    "le": "\u2264",
    "leq": "\u2264",
    "leqslant": "\u2264",
    "gt": ">",
    "lt": "<",
    "ne": "\u2260",
    "neq": "\u2260",
    "approx": "\u2248",
    "sim": "~",
}


# Inside math, text set in a text font reads as its words ("$\\text{not } 34$" is "not 34",
# "$\\text{at least } 34$" a bound), and a space command as a space ("3\\,\\text{million}" is
# "3 million"). (Outside math a "\\text{...}" stays: a box's "3\\,\\text{million}" reads so.)
_MATH_TEXT: Final = re.compile(
    r"\\(?:text(?:rm|bf|it|sf|normal)?|math(?:rm|bf|it|sf)|mbox|rm|emph)\{(?P<words>[^{}\\]*)\}"
    r"|(?P<space>\\[,;: ]|\\q?quad(?![A-Za-z]))"
)


def _math_text(found: re.Match[str]) -> str:
    return " " if found["space"] else found["words"]


def _typeset_math(found: re.Match[str]) -> str:
    relation = found["relation"]
    if relation:
        return _RELATIONS[relation]
    inside = next(part for part in found.groups() if part is not None)
    if len(inside) == 1 or "\\" not in inside:
        return inside
    return _MATH_TEXT.sub(_math_text, _MATH.sub(_typeset_math, inside))


def _entity(found: re.Match[str]) -> str:
    return _ENTITIES[found[0]]


def _untagged(found: re.Match[str]) -> str:
    return "\n" if found["line"] else "`" if found["code"] else ""


# A blockquote's marks opening a line ("> 34", "> > (C) Chiller 6"): a quote, not "greater
# than"; a ">" with no blank after it (">34") is still the sign.
_QUOTE_MARKS: Final = re.compile(r"^[ \t]*>(?:[ \t]*>)*[ \t]+", re.M)


# A line break inside a sentence, where a wrap broke it: after a word, before one in lower
# case ("Option C is\nnot suitable.", "How many failed in the\nlast 3 days?", "34\nor more").
# A line ending in a stop, a colon or a semicolon ends there, and one opening with a capital, a
# digit or a mark (a heading, an item, "34 to\n40") opens a line of its own.
# (Markdown's hard break, blanks ending the line, is kept.)
_SOFT_WRAP: Final = re.compile(r"\n(?<=[^\s.!?:;]\n)[ \t]*(?=[a-z])")


def _rendered(text: str) -> str:
    """``text`` as the count and choice readings read it: as it shows, typography (see
    :data:`_TYPOGRAPHY`), quote marks (:data:`_QUOTE_MARKS`), HTML (:data:`_HTML_TAG`), text
    struck through (:data:`_STRUCK`), LaTeX math (:data:`_MATH`) and emphasis
    (:data:`_STARS`, :data:`_UNDERSCORES`) aside, and a sentence wrapped as one line
    (:data:`_SOFT_WRAP`). A region of an answer reads as the same
    part of the answer read so; each step searches only a text holding its mark."""
    if not text.isascii():
        text = _TYPESET.sub(_typeset, text)
    if "\r" in text:  # (CRLF, CR: as LF)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\n" in text:
        text = _SOFT_WRAP.sub(" ", text)
    if ">" in text:
        text = _QUOTE_MARKS.sub("", text)
    if "<" in text:
        text = _HTML_TAG.sub(_untagged, text)
    if "&" in text:
        text = _ENTITY.sub(_entity, text)
    if "~~" in text:
        text = _STRUCK.sub("", text)
    if "$" in text or "\\" in text:
        text = _MATH.sub(_typeset_math, text)
    if "*" in text:
        text = _STARS.sub("", text)
    if "_" in text:
        text = _UNDERSCORES.sub("", text)
    return text


def _blanked(found: re.Match[str]) -> str:
    return " " * len(found[0])


def _opens_line(answer: Any, region: str) -> bool:
    """Whether ``region`` (a marker's region) begins a line of ``answer``: ``Final Answer:\n1.
    ...`` opens a list where ``Final Answer: 5. Five.`` states a count. Its first line is
    looked for as written (emphasis the parser took off may stand before it: ``**1. ...**``);
    unknown (False) when it is not found (a box)."""
    if isinstance(answer, (bytes, bytearray, memoryview)):
        answer = bytes(answer).decode("utf-8-sig", "replace")
    if not isinstance(answer, str):
        return False
    answer = _rendered(answer)  # (as the region was read)
    if region not in answer:  # as written, else by its first line (marks were taken off)
        region = region.partition("\n")[0]
    opens = False
    at = answer.find(region)
    for _ in range(_COPIES):  # every copy must open its line: which one is the region's?
        if at < 0:
            return opens
        if answer[answer.rfind("\n", 0, at) + 1 : at].strip(_LINE_MARKS):
            return False
        opens = True
        at = answer.find(region, at + 1)
    return opens


_COPIES: Final = 20  # copies of a region looked at (an answer repeating it more is prose)


_LINE_MARKS: Final = " \t*_`>"  # what may open a line before its text: emphasis, a quote


def stated_count(parsed: tuple[Any, str, bool], answer: Any) -> tuple[Any, str, bool]:
    """A prose answer to a count question ("There are 34 corrective work orders.") as the one
    number it states, method ``...count-in-text``; unchanged when it states none or several.
    ``answer`` is the text the region was read from (where the region's first line begins).

    Only against a numeric gold: against text gold ("Chiller 6") the words are the answer,
    and the parser alone cannot tell the two apart."""
    text, method, _ = parsed
    if not isinstance(text, str) or not method.endswith("text") or _TOOL_ERROR.match(text):
        return parsed
    found = _numbers_stated(text, method, answer, 1)
    if len(found) != 1:
        return parsed
    number, _, factor = found[0]
    if factor is None or len(number) > _COUNT_CHARS:  # (a long digit string: an id, a hash)
        return parsed
    value = read_number(number)
    if factor != 1:  # "1.5 million": exactly 1500000
        scaled = Fraction(number) * factor
        value = int(scaled) if scaled.denominator == 1 else float(scaled)
    return value, method[: -len("text")] + "count-in-text", True


# A scale word after a number multiplies it ("1.5 million", "3 thousand", "2 dozen", "3
# hundred thousand"; also in emphasis: "**3** million", "3 **thousand**", and in LaTeX text:
# "1.5 \text{ million}", "3\,\text{million}"), not in a compound ("3 million-dollar
# contracts" are 3). So does a Chinese, Japanese or Korean one right after it, exactly: 百
# (100), 千 (10³), 万 (10⁴), 亿/億 (10⁸) and 백, 천, 만, 억 ("3万" is 30000, "1.5亿" 150000000,
# "3百万" 3000000).
# An abbreviation of one ("3 M", "2 mn", "2 bn", "5 Mio", "2 lakh"), a scale word of another
# language ("3 Millionen", "3 millones", "3 mille"; not Spanish "mil", which English
# writes for thousandths of an inch, nor "miles"), an ordinal or a fraction ("2 millionths",
# "the 2 millionth customer"), 兆 (10¹² in Japan and Taiwan, 10⁶ in mainland units), 十, 십
# and 조 (also "group", "article"), 千 and 百 opening a unit (千克 kg, 千米 km, 千瓦 kW,
# 百分 per cent), a plural one before "of", which is vague ("3 thousands of units", "In 2020
# thousands of pumps failed"), or a capitalised one opening a name (see :data:`_NAME_AFTER`:
# "3 Thousand Oaks Blvd.") leave the number unread: the text then states no count we can tell.
_SCALE = re.compile(
    r"(?:\*{1,3}|_{1,3})?(?:"
    r"(?:[ \t\u00a0\u202f]{1,4}|(?:[ \t\u00a0\u202f]|\\[,;: ])*"
    r"\\(?:text|mathrm|textrm|mbox|rm)\{[ \t]*)(?:\*{1,3}|_{1,3})?"
    r"(?:(?i:(hundred|thousand|million|billion|trillion|dozen)(s?))(?![\w-])"
    r"|(?:M{1,2}|[Mm]n|mln|[Bb]n|bln|tn|Mio|Mrd"
    r"|(?i:lakhs?|crores?|milliards?|millionen|milliarden?|billionen|tausend|hunderte?"
    r"|mill[o\u00f3]n(?:es)?|(?:mil|miles\s+de)\s+(?:mill[o\u00f3]n(?:es)?|milh(?:\u00f5es|\u00e3o))"
    r"|mille|milliers?|milion[ei]?|miliard[oi]?"
    r"|milh(?:\u00f5es|\u00e3o)|bilh(?:\u00f5es|\u00e3o)|miljoen(?:en)?|miljard(?:en|er|i)?"
    r"|miljon(?:er|a)?|(?:hundred|thousand|million|billion|trillion)ths?))(?![\w-]))"
    r"|([\u4e07\u842c\u4ebf\u5104\u5343\u4edf\u767e\u4f70\ub9cc\uc5b5\ucc9c\ubc31])"
    r"(?![\u514b\u7c73\u74e6\u4f0f\u8d6b\u5e15\u7126\u5361\u5b57\u5206\u65a4\u5146])"
    r"|[\u5146\u5341\u62fe\uc2ed\uc870\u5343\u4edf\u767e\u4f70])"
)
_SCALES: Final = {
    "hundred": 100,
    "thousand": 1000,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
    "dozen": 12,
    "\u767e": 100,  # 百
    "\u4f70": 100,  # 佰
    "\ubc31": 100,  # 백
    "\u5343": 1000,  # 千
    "\u4edf": 1000,  # 仟
    "\ucc9c": 1000,  # 천
    "\u4e07": 10**4,  # 万
    "\u842c": 10**4,  # 萬
    "\ub9cc": 10**4,  # 만
    "\u4ebf": 10**8,  # 亿
    "\u5104": 10**8,  # 億
    "\uc5b5": 10**8,  # 억
}
_OF: Final = re.compile(r"(?:\*{1,3}|_{1,3})?[ \t\u00a0\u202f]+(?i:of)\b")
# A capitalised scale word ("Thousand", "THOUSAND") and the capitalised word after it open a
# proper name, not a count, where that word continues a name: the two are a place's name
# ("Thousand Oaks", "Thousand Palms", "Thousand Island", "Hundred Acre"; also in a compound,
# "Thousand Oaks-based"), or the words after the scale word, one to three of them capitalised,
# end in a street's designator, as an address writes them ("3 Thousand Lakes Rd", "3 Thousand
# Pine St."). Title Case alone is no name ("3 Million Euros", "5 Hundred Units Sold"; "3
# Thousand I think"), nor is a name in lower case ("3 thousand oaks were planted").
# Nor is a singular "Dollar" or "Pound" before another name word a unit: the three name a
# thing ("3 Million Dollar Baby", "The 6 Million Dollar Man", "2 Million Pound Drop"), a title
# or a compound whose number we cannot tell ("3 Million Dollar Budget" is one budget, "5
# Hundred Dollar Bills" five bills); "3 Million Dollars" and "3 Million Dollar budget" are
# 3000000.
# So is a number itself before such words: a house number ("350 Main St", "12 Oak Avenue",
# "1600 Pennsylvania Ave NW") counts nothing; "3 pumps on Main St" still states 3.
# A street's words are names: no function word ("3 Safeguards In Place", "3 Crews On The Way",
# "3 UNITS IN PLACE"), and upper case only before a designator in upper case ("350 MAIN ST";
# "3 Bushing CT failures" are current transformers). "St" and "Dr" before a name are a title
# ("3 Boeing St. Louis plants", "3 Faults Dr. Lee Confirmed"; not before a direction or a
# sentence's first word: "350 Main St NW", "350 Main St. There are 3 pumps"). A designator
# written out is a common noun too ("Drive", "Way", "Place", "Trail", "Square"): before a
# word that is no direction it names a kind of thing ("3 Hard Drive failures", "3 Variable
# Frequency Drive Faults", "3 Audit Trail gaps", "3 Two Way valves", "3 Times Square
# screens"), unless a verb or preposition that a street takes follows ("350 Main Street has
# 3 pumps", "350 Main Street in Springfield": a singular street with its verb; a count would
# have its noun in the plural, "3 Hard Drives are").
_NAME_GAP: Final = r"(?:\*{1,3}|_{1,3})?[ \t\u00a0\u202f]+(?:\*{1,3}|_{1,3})?"
_NAME_WORD: Final = re.compile(_NAME_GAP + r"([A-Z](?:[a-z]+|[A-Z]+))(?![\w'])")
_PLACE_NAMES: Final = {
    "thousand": frozenset(["oaks", "palms", "island"]),
    "hundred": frozenset(["acre"]),
}
_NO_NAME: Final = (  # a function word, which names nothing; or a sentence's first word
    r"(?!(?i:a|an|the|in|on|at|of|to|for|by|and|or|but|nor|so|as|if|with|from|per|into|onto"
    r"|near|is|are|was|were|be|it|its|this|that|these|those|there|here|we|i|you|he|she|they"
    r"|our|their|his|her|my|your|all|each|no|not)(?![\w'-]))"
)
_DIRECTION: Final = r"(?:[NS][EW]?|[EW]|(?i:(?:north|south)(?:east|west)?|east|west))(?![\w'-])"
_STREET_SHORT: Final = "Blvd|Ave|Rd|Ln|Ct|Pkwy|Hwy|Pl|Sq|Cir|Ter|Trl"
_STREET_WORDS: Final = (
    "Boulevard|Street|Avenue|Road|Drive|Lane|Way|Court|Parkway|Highway|Place|Plaza|Square"
    "|Circle|Terrace|Trail"
)
# (each designator as the rules above read it: "St" or "Dr" not before a name; a word not
# before another, but a direction or a verb or preposition a street takes)
_TITLE_OR_STREET: Final = rf"(?![\w'-])(?!\.?{_NAME_GAP}{_NO_NAME}(?!{_DIRECTION})[A-Z])\.?"
_COMMON_NOUN: Final = (
    rf"(?![\w'-])(?!{_NAME_GAP}(?!{_DIRECTION}"
    r"|(?i:is|was|has|had|in|at|on|near|off|where|which|that)(?![\w'-]))[^\W\d_])"
)
_ADDRESS: Final = re.compile(
    rf"(?:{_NAME_GAP}{_NO_NAME}[A-Z][A-Za-z]*){{1,3}}?{_NAME_GAP}"
    rf"(?:(?:St|Dr){_TITLE_OR_STREET}|(?:{_STREET_SHORT})\.?(?![\w'-])"
    rf"|(?:{_STREET_WORDS}){_COMMON_NOUN})"
    rf"|(?:{_NAME_GAP}{_NO_NAME}[A-Z]+){{1,3}}?{_NAME_GAP}"
    rf"(?:(?:ST|DR){_TITLE_OR_STREET}|(?:{_STREET_SHORT.upper()})\.?(?![\w'-])"
    rf"|(?:{_STREET_WORDS.upper()}){_COMMON_NOUN})"
)
_NAMED_MONEY: Final = re.compile(
    rf"{_NAME_GAP}(?:Dollar|Pound|DOLLAR|POUND){_NAME_GAP}{_NO_NAME}[A-Z]"
)


def _opens_name(text: str, end: int, word: str) -> bool:
    """Whether the scale word ``word``, ending at ``end``, opens a name with the words after
    it (see :data:`_PLACE_NAMES`, :data:`_ADDRESS`, :data:`_NAMED_MONEY`).

    A place is a name only where a number may stand before it: towns named without an
    article ("3 Thousand Oaks", "3 Thousand Palms") and a singular that cannot be what the
    number counts ("3 Thousand Island dressing"). "17 Thousand Islands" is 17000 islands
    (Indonesia's, in Title Case as "3 Million Euros"): the archipelago is "the Thousand
    Islands", never after a number, so against a gold of 17 it states no 17, and against
    17000 it is right.
    """
    if not (word.istitle() or word.isupper()):
        return False
    after = _NAME_WORD.match(text, end)
    if after is None:
        return False
    return (
        after[1].lower() in _PLACE_NAMES.get(word.lower(), ())
        or _ADDRESS.match(text, end) is not None
        or _NAMED_MONEY.match(text, end) is not None
    )


def _scale(text: str, end: int) -> tuple[int | None, int, list[str]]:
    """The factor the scale words right after a number ending at ``end`` give it (1 for none,
    None for an abbreviation, a plural before "of", a name or more than :data:`_SCALE_WORDS`
    of them, :data:`_SCALE`), where they end, and the words."""
    factor = 1
    words: list[str] = []
    while (word := _SCALE.match(text, end)) is not None:
        name = word[1] or word[3]
        end = word.end()
        if word[2] and _OF.match(text, end):  # "3 thousands of pumps": vague, no multiplier
            return None, end, [*words, word[0].strip(" \t\u00a0\u202f*_{\\,;:")]
        words.append(name or word[0].strip(" \t\u00a0\u202f*_{\\,;:").removeprefix("text{"))
        if name is None or len(words) > _SCALE_WORDS:
            return None, end, words
        if word[1] and _opens_name(text, end, name):  # "3 Thousand Oaks": a name
            return None, end, words
        factor *= _SCALES[name.lower()]
    return factor, end, words


_SCALE_WORDS: Final = 3  # "3 hundred thousand million" at most: more is no count


class _Quiet:
    """Where ``text`` states no count: code spans and blocks, cut notes (``quoted``), and the
    clauses that ask ("Is it 3?") or decline ("I could not determine how many failed in the
    last 3 days.", not "I don't know, but there are 34.", nor "3 failed; the cause cannot be
    determined."), each clause read once, whatever the numbers it holds."""

    def __init__(self, text: str) -> None:
        self.text = text
        quotes = "`" in text or "[" in text or "(" in text or "<" in text
        spans = [m.span() for m in _QUOTED_SPAN.finditer(text)] if quotes else []
        self.starts = [a for a, _ in spans]  # (in order, apart)
        self.stops = [b for _, b in spans]
        self.ends: list[int] | None = None  # where each clause ends
        self.silent: list[bool] = []  # whether it asks or declines

    def holds(self, start: int) -> bool:
        """Whether the number at ``start`` stands in such a place."""
        at = bisect_right(self.starts, start) - 1
        if at >= 0 and start < self.stops[at]:
            return True
        if self.ends is None:
            self.ends = []
            text = self.text
            if (
                "?" not in text
                and "\uff1f" not in text
                and "\u5417" not in text  # 吗
                and "\u55ce" not in text  # 嗎
                and "\u304b" not in text  # か
                and _ABSTAINING.search(text) is None
            ):
                return False  # (no clause asks or declines: the usual answer)
            wrapped = 0  # the clauses a wrap joins to this one: a question over lines
            for clause in _CLAUSES.finditer(text):
                said = clause[0]
                if said:
                    self.ends.append(clause.end())
                    said = said.rstrip()
                    asks = (
                        said.endswith("\uff1f")
                        or _CJK_ASKS.search(said) is not None
                        or (  # a question in CJK: "有3个吗？"
                            said.endswith("?")
                            and (
                                _ASKING.match(said) is not None
                                or _CJK_LETTER.match(said, len(said) - 2) is not None
                            )
                        )
                    )
                    if not asks and wrapped and said.endswith("?"):  # ("Is it\n3?")
                        opening = self.ends[-wrapped - 2] if len(self.ends) > wrapped + 1 else 0
                        if _ASKING.match(text[opening : clause.end()]) is not None:
                            asks = True
                            self.silent[-wrapped:] = [True] * wrapped
                    declines = _ABSTAINING.search(said) and not _STATES_ANYWAY.search(said)
                    self.silent.append(asks or bool(declines))
                    wrapped = wrapped + 1 if _WRAPPED.match(text, clause.end() - 2) else 0
        at = bisect_right(self.ends, start)
        return at < len(self.silent) and self.silent[at]


# A line break inside a sentence whatever the next line opens with: after a word, the next
# line not blank ("Is it\n3?": the question goes on; see :data:`_SOFT_WRAP`).
_WRAPPED = re.compile(r"[^\s.!?:;]\n(?=[ \t]*\S)")
# A question in Chinese or Japanese without a question mark: a clause ending in 吗 or 嗎
# ("有3个吗"), ですか or ますか ("3件ですか").
_CJK_ASKS = re.compile(r"(?:[\u5417\u55ce]|[\u3067\u307e]\u3059\u304b)[.!\u3002\uff01]*$")
_CLAUSES = re.compile(
    r"[^.!?\n;\u2014\u2026\u3002\uff01\uff1f\uff1b]*(?:[.!?\u2026\u3002\uff01\uff1f]+|[\n;\u2014\uff1b]|\Z)"
)
# A question opens with its verb or its question word ("Is it 3?", "How many failed in the
# last 3 days?"); "I found 3, shall I list them?" states 3.
_ASKING = re.compile(
    r"[ \t]*(?:[*_>#-]+[ \t]*)?(?:Q(?i:uestion)?[ \t]*:[ \t]*)?"
    r"(?:[\"'(\[\u201c\u00ab\u300c]+[ \t]*)?"  # (quoted: “Is it 3?”, "(Is it 3?)")
    r"(?i:is|are|was|were|do|does|did|how|what|which|can|could|should|would|will|shall|may"
    r"|might|has|have|had|why|where|when|who|whom|whose)\b"
)


def _stated(text: str, start: int, end: int, quiet: _Quiet) -> bool:
    """Whether the number at ``start`` (with its scale words up to ``end``) may state the
    count: not negated, bounded, a date or a clock, and not where ``quiet`` says the text
    states none."""
    if _NOT_STATED_AFTER.match(text, end) or quiet.holds(start):
        return False  # (the cheap tests first: a range or a bound rejects every number)
    point = _CLOCK_POINT.match(text, end)
    if point is not None and not _KANA.search(text) and _is_clock(text, start, point.end()):
        return False  # (下午3点: a clock, unless the text is Japanese; 商品3点 counts)
    if _CLOCK_BEFORE.search(text, max(0, start - _CLOCK_REACH), start):
        return False  # (3点5分, 3時5分: a clock's minutes)
    return not _may_qualify(text, start) or not (
        _NOT_STATED_BEFORE.search(text, max(0, start - _NOT_STATED_REACH), start)
        or _RANGE_BEFORE.search(text, max(0, start - _RANGE_REACH), start)
    )


def _is_clock(text: str, start: int, after: int) -> bool:
    """Whether the number at ``start``, its 点 ending at ``after``, in a text of Han letters
    alone, is the hour (see :data:`_CLOCK_POINT`)."""
    reach = max(0, start - _TIME_REACH)
    if _FOUND_BEFORE.search(text, reach, start):  # (检测到3点, 发现3点异常: a count)
        return _TIME_GOES_ON.match(text, after) is not None
    return (
        not _POINT_ENDS_CLAUSE.match(text, after)
        or _TIME_BEFORE.search(text, reach, start) is not None
    )


def _may_qualify(text: str, start: int) -> bool:
    """Whether the word before ``start`` in a :func:`_rendered` text is one
    :data:`_NOT_STATED_BEFORE` may end with: a test of one word, as most numbers follow none
    of them (the pattern is the costly part).
    Past a line break only a range's "to" or mark is such a word ("34 to\n40"), or, right
    above the number, a negation or a "than" (a sentence wrapped: "The total is not\n34.",
    see :data:`~pytest_structeval.parse.QUALIFIED_LINE_END`); a heading's "in March\n34"
    ends its line."""
    at = start
    while at and text[at - 1] in _BLANK_OR_EMPHASIS:  # ("not **34**", "**not** 34")
        at -= 1
    if at and text[at - 1] == "\n":  # (the text is rendered: CR and CRLF read as LF)
        below = at
        while at and text[at - 1] in _BLANK_OR_EMPHASIS + "\n":
            at -= 1
        if text.count("\n", at, below) == 1 and QUALIFIED_LINE_END.search(
            text, max(0, at - _NOT_STATED_REACH), at
        ):
            return True
        return text[at - 1 : at] in _RANGE_MARKS or bool(
            _RANGE_WORD.search(text, max(0, at - 8), at)
        )
    last = text[at - 1 : at]
    if last and _CJK_LETTER.match(last):
        return True  # (a word of Chinese or Japanese: the pattern reads its end)
    if last in _BOUND_SIGNS:
        return last != "," or text[at - 2 : at - 1].isdigit()  # "April 26, 2023"
    if last == ".":
        at -= 1
    elif not last.isalpha():
        return False  # (a digit, a bracket: the most of them)
    begin = at
    while (
        begin > at - _NOT_STATED_REACH
        and begin
        and (text[begin - 1].isalpha() or text[begin - 1] == "'")
    ):
        begin -= 1
    word = text[begin:at].lower()
    return word in _QUALIFYING_WORDS or word.endswith("n't")


_CJK_LETTER: Final = re.compile(rf"[{SPACELESS}{HANGUL}]")
_BLANK_OR_EMPHASIS: Final = " \t*_"
_BOUND_SIGNS: Final = frozenset(",=<>~\u2264\u2265\u2248\u2260\u301c\uff5e")
_RANGE_MARKS: Final = frozenset("~\u301c\uff5e\u81f3\u5230")  # ~ 〜 ～ 至 到
_RANGE_WORD: Final = re.compile(r"\b(?i:to|through|until|till)\Z")
_QUALIFYING_WORDS: Final = frozenset(
    [
        "not",
        "never",
        "no",
        "more",
        "fewer",
        "less",
        "greater",
        "over",
        "under",
        "above",
        "below",
        "exceed",
        "exceeds",
        "exceeding",
        "least",
        "most",
        "to",
        "through",
        "until",
        "till",
        "be",
        "than",
        "within",
        "jan",
        "january",
        "feb",
        "february",
        "mar",
        "march",
        "apr",
        "april",
        "may",
        "jun",
        "june",
        "jul",
        "july",
        "aug",
        "august",
        "sep",
        "sept",
        "september",
        "oct",
        "october",
        "nov",
        "november",
        "dec",
        "december",
    ]
)


def _numbers_stated(
    text: str, method: str, answer: Any, enough: int
) -> list[tuple[str, str, int | None]]:
    """The different numbers a prose answer states, in order, past ``enough`` of them at
    most one more: those no label names ("step 2") and no list item or heading opens. Each
    is its digits (``1234``, ``-1.5``), as shown (``1.5 million``) and its scale factor
    (see :func:`_scale`)."""
    text = _rendered(text)
    found: list[tuple[str, str, int | None]] = []
    values: list[float | Fraction | str] = []  # each one's value, or as shown when it has none
    labelled_to = -1  # where the last number a label names ends
    last_item = ""  # the number of the last list item met
    line_start = searched = 0  # the start of the line searched up to ``searched``
    quiet = _Quiet(text)
    scaled: dict[tuple[str, int], Fraction] = {}  # (each scaled number's value, once)
    for match in _LONE_NUMBER.finditer(text):
        start = match.start()
        word_end = start
        while word_end and text[word_end - 1] in " \t":
            word_end -= 1
        named = word_end and (text[word_end - 1].isalpha() or text[word_end - 1] == ".")
        label = named and _LABEL_BEFORE.search(text, max(0, start - _LABEL_REACH), start)
        if label:  # only a plural one ("steps", not "step 2, and 5 orders") names what follows
            word = label[0].rstrip()  # ("STEPS 4 AND 5" as "steps 4 and 5"; not "BS 5839")
            plural = word.endswith("s") or (word.endswith("S") and len(word) > 2)
            labelled_to = match.end() if plural else -1
            continue
        if labelled_to >= 0 and _LABEL_GOES_ON.fullmatch(text, labelled_to, start):
            labelled_to = match.end()
            continue
        line_start = text.rfind("\n", searched, start) + 1 or line_start  # (once per text)
        searched = start
        if (
            _MARKER_AFTER.match(text, match.end())
            and _MARKER_BEFORE.fullmatch(text, line_start, start)
            and (line_start or method == "text" or _opens_line(answer, text))  # (its first line)
        ):
            last_item = match[1]
            continue  # a list item or heading number: it counts nothing
        if (
            last_item.isdigit()
            and match[1] == str(int(last_item) + 1)
            and _MARKER_ENDS_LINE.match(text, match.end())
            and _MARKER_BEFORE.fullmatch(text, line_start, start)
        ):
            continue  # the list's next item, cut off before its text
        if match[1].isdigit() and _ADDRESS.match(text, match.end()):
            continue  # a house number ("350 Main St", "1600 Pennsylvania Ave NW"): no count
        number = match[1].replace(",", "").replace("\u2212", "-")
        factor, end, words = _scale(text, match.end())
        shown = " ".join([number, *words])
        if factor == 1:
            value: float | Fraction | str = float(number)  # (the cheap usual case)
        elif factor is None:
            value = shown
        else:
            value = scaled.get((number, factor)) or scaled.setdefault(
                (number, factor), Fraction(number) * factor
            )
        if value not in values and _stated(text, start, end, quiet):
            found.append((number, shown, factor))
            values.append(value)
            if len(found) > enough:
                break
    return found


# --- multiple choice ----------------------------------------------------------------------
#
# Against a gold that is one option letter, prose states its option in one of three ways,
# strongest first: a last line that is the option alone ("…\n\nC", "**C**", "Answer: (C)"),
# a conclusion ("the correct option is C.", "C is correct"), a mention ("option C", a line
# opening "(C) Chiller 6"). A capital standing in a sentence is never an option ("A pump
# failed", "I think so"): a letter counts only when the text marks it as one. Letters are
# capitals: "option c" is not read.

_UNMARKED: Final = str.maketrans("", "", "*_`")  # emphasis and code marks around a final line
_CHOICE_WINDOW_CHARS: Final = 2_000
# The answer named in Chinese, Japanese or Korean ("答案是", "正确答案：", "正解は", "정답은").
_CJK_ANSWER = (
    r"(?:(?:\u6700\u7ec8|\u6700\u7d42|\u6b63\u786e|\u6b63\u78ba)?"
    r"(?:\u7b54\u6848|\u7b54\u3048|\u6b63\u89e3|\u89e3\u7b54)(?:\u662f|\u4e3a|\u70ba|\u306f)?"
    r"|\uc815\ub2f5(?:\uc740|\ub294)?)\s*(?::\s*)?"
)
# "Option" in Chinese: 选项 (選項) before the letter, (选)项 after it ("选项C", "C项", "C选项";
# not 项目, an item or a project), and "is correct" after it (正确, 是正确的, 是对的; not 正确率,
# accuracy).
_CJK_OPTION_BEFORE: Final = r"[\u9009\u9078][\u9879\u9805]"
_CJK_OPTION_AFTER: Final = r"[\u9009\u9078]?[\u9879\u9805](?!\u76ee)"
# "I choose" in Chinese: 选, 选择 (應選, 故选; not 不选, 别选, 没选, "don't choose")
_CJK_CHOOSE: Final = (
    r"(?<![\u4e0d\u522b\u5225\u52ff\u672a\u6ca1\u6c92])[\u9009\u9078][\u62e9\u64c7]?\s*(?::\s*)?"
)
_CJK_CORRECT: Final = r"\u662f?(?:\u6b63[\u786e\u78ba](?!\u7387)|[\u5bf9\u5c0d]\u7684)"
# What may follow an option letter in Chinese, Japanese or Korean to state it: a copula
# ("正解はCです", "정답은 C입니다", "Cである"), "is correct" ("C是正确的"), "option" ("C项",
# "C选项", "C번입니다") or a reason ("答案是C因为..."). Nothing else: no
# conjunction ("C或D", "C和D", "CとD"), negation ("Cではありません", "C가 아닙니다"), "other
# than" ("C以外"), question particle ("C吗", "Cですか") or noun ("A类设备", class A).
# What makes a Japanese copula a condition: ら, なら, としたら, とすれば, としても (after
# だった/でした/だ: "if it were").
_IF: Final = (
    r"(?:\u3089|\u306a\u3089|\u3068(?:\u3057\u305f\u3089|\u3059\u308c\u3070|\u3057\u3066\u3082))"
)
_CJK_STATES: Final = (
    # です でした だ である (not だろ, maybe; nor a condition, "if": だったら, だったなら,
    # でしたら, だとしたら, だとすれば, だとしても, だったとしても; だと思います states it)
    rf"\u3067\u3059(?!\u304b)|\u3067\u3057\u305f(?!{_IF})"
    rf"|\u3060(?!\u308d|\u3063\u305f{_IF}|{_IF})"
    r"|\u3067\u3042\u308b"
    r"|[\u3068\u306b]\u306a(?:\u308a\u307e\u3059|\u308b)"  # となります/になる
    r"|\uc785\ub2c8\ub2e4|\uc774\ub2e4|\uc608\uc694|\uc774\uc5d0\uc694"  # 입니다 이다 예요 이에요
    r"|\ubc88(?:\uc785\ub2c8\ub2e4|\uc774\ub2e4|\uc774\uc5d0\uc694)"  # 번입니다
    r"|\u56e0[\u4e3a\u70ba]|\u7531[\u4e8e\u65bc]"  # 因为 由于
    # (选)项, ending its sentence or clause, or before a copula or reason: not 项吗 (asks),
    # 项以外 (other than), 项跟/以及/和 D项, 项/D项 (several)
    rf"|{_CJK_OPTION_AFTER}(?=[*_\u201d\u300d\u300f)\uff09\]]*[ \t]*"  # (closing marks)
    r"(?:[\u3002\uff0e.\uff01!;\uff1b\n\r]|\Z|\u2026+[ \t]*(?:[\u3002\n\r]|\Z)"
    r"|[,\uff0c](?![ \t]*[A-Z\uff21-\uff3a])|\u662f"
    r"|(?:[(\uff08:\uff1a][ \t]*)?(?:\u56e0|\u7531|\u89e3\u6790|\u7406\u7531)"  # (因为…), ：解析
    r"|[:\uff1a][ \t]*(?:[\n\r]|\Z)))"
    rf"|{_CJK_CORRECT}"
)
# An option letter in quotes, the marks paired: "C", 'C', “C”, ‘C’, «C», 「C」, 『C』
# (full-width ＂C＂ and ＇C＇ are read as ASCII first); and a full stop inside double quotes
# ("The answer is "C.""), which sets the letter off itself.
_QUOTED_LETTER: Final = (
    r"[\"'\u201c\u2018\u00ab\u300c\u300e]([A-Z])"
    r"(?:(?<=\"[A-Z])\"|(?<='[A-Z])'|(?<=\u201c[A-Z])\u201d|(?<=\u2018[A-Z])\u2019"
    r"|(?<=\u00ab[A-Z])\u00bb|(?<=\u300c[A-Z])\u300d|(?<=\u300e[A-Z])\u300f)"
)
_QUOTED_STOPPED: Final = r"[\"\u201c]([A-Z])[.!](?:(?<=\"[A-Z].)\"|(?<=\u201c[A-Z].)\u201d)"
_OPTION_LINE = re.compile(
    r"(?:(?i:(?:the\s+)?(?:final\s+|correct\s+|right\s+|best\s+)?(?:answer|option|choice)"
    rf"(?:\s+is)?\s*(?:[:=\-\u2013\u2014]\s*)?)|{_CJK_ANSWER}"  # ("Answer \u2014 C")
    rf"|{_CJK_OPTION_BEFORE}\s*(?::\s*)?)?"  # (选项：C; and C项 after it)
    rf"(?:\(([A-Z])\)|\[([A-Z])\]|([A-Z])(?:[).:]|{_CJK_OPTION_AFTER})?|{_QUOTED_LETTER}[.:]?"
    rf"|{_QUOTED_STOPPED})[.!]?"
)
# A letter set off as an option: wrapped ("(C)", "**C**") or followed by ")" or by
# punctuation ending a statement ("C.", "C;", "C, as the oil shows", "D, I think"; not the
# "U." of "U.S.", a "C, D" that lists several, nor a "C?" that asks), by the line's end, or
# by the reason for it ("C because ...", "C since ...").
_SET_OFF = (
    rf"[*_]*(?:\(([A-Z])\)|\[([A-Z])\]|{_QUOTED_STOPPED}"
    rf"|(?:([A-Z])|{_QUOTED_LETTER})(?=[*_]*(?:\)|[.;:!\u2026](?!\w)"
    r"|,(?![ \t]*(?:and[ \t]+)?(?!I\s+(?!and\b|or\b)[a-z])[\"'\u201c\u2018\u00ab\u300c\u300e]?[A-Z]"
    rf"(?![^\W{SPACELESS}{HANGUL}]))|[ \t]*(?:\n|\Z)"
    # or a reason given straight after it ("The answer is C because ...", "C (Motor)"; not
    # "C (or D)", "C (I'm not sure)")
    r"|[ \t]+(?i:because|since|as(?![ \t]+well\b)|given|due[ \t]+to)\b"
    r"|[ \t]+\((?=[A-Z][a-z]|\d)(?!I')"
    # or a dash going on to its reason ("C \u2014 the oil shows it", "C -- not B"; not "C \u2014 D")
    rf"|(?:[ \t]*\u2014|[ \t]+--?[ \t])(?![ \t]*[A-Z](?![^\W{SPACELESS}{HANGUL}]))"
    # or a word of Chinese, Japanese or Korean that states it (see _CJK_STATES), in a
    # sentence that does not ask ("答案是C还是D？")
    rf"|[ \t]*(?:{_CJK_STATES})(?=[^.!?\n]*(?:[.!\n]|\Z)))))"
)
_CORRECTING = r"(?:actually|wait|no|hmm|rather|on\s+second\s+thought)\b"
_DASH = r"\s*\u2014\s*|\s+--?\s+"  # ("Wait \u2014 it is D", "Actually -- D")
_PAUSE = rf"(?:,?\s+|{_DASH})"
_CONCLUSION = re.compile(
    r"(?i:\b(?:answer|option|choice)\s+(?:is|would\s+be|should\s+be)"
    r"(?:\s+(?:actually|really|definitely|clearly|indeed|therefore|instead))?\s*(?::\s*)?"
    rf"(?:(?:option|choice)\s+)?|\b(?:answer|correction)\s*:\s*"
    # a correction after a first conclusion ("The answer is C. Actually, it is D."): two
    # conclusions, so no one choice, as with "Correction: D"; a bare letter only where the
    # correction opens a sentence ("Actually, D."), never after a negation ("(no D)")
    rf"|\b{_CORRECTING}{_PAUSE}(?:I\s+think\s+)?"
    r"(?:it(?:'s|\s+is|\s+should\s+be|\s+must\s+be)|that(?:'s|\s+is))\s+"
    rf"(?:(?:option|choice)\s+)?|(?:^[ \t]*|(?<=[.!?] )){_CORRECTING}(?:,\s+|{_DASH})"
    r"(?:(?:option|choice)\s+)?"
    r"|\bI(?:'ll|'d|\s+will|\s+would)?\s+(?i:choose|pick|select|go\s+with)\s+"
    rf"(?:(?i:option|choice)\s+)?|{_CJK_ANSWER}|{_CJK_CHOOSE}){_SET_OFF}"
    r"|(?:^[ \t]*|(?<=[.!?;:,] )|(?i:\b(?:option|choice))\s+)[*_]*"
    rf"(?:\(?([A-Z])\)?|{_QUOTED_LETTER})[*_]*"
    r"\s+(?i:is\s+(?:the\s+)?(?:correct|right|best)\b|is\s+the\s+answer\b)"
    # in Chinese, "C项正确", "选项C是正确的", "C正确" opening a clause (not "数据A正确", nor one
    # of several listed, "C项、D项正确", "C和D正确"; nor a question, "C项正确吗", or a doubt,
    # "C项正确与否")
    r"|(?<![A-Za-z0-9])(?<![,\u548c\u4e0e\u8207\u53ca\u6216\u8ddf] )"
    r"(?<![\u548c\u4e0e\u8207\u53ca\u6216\u8ddf])[*_]*"
    rf"(?:{_CJK_OPTION_BEFORE}[ \t]*[*_]*([A-Z])|([A-Z])[*_]*{_CJK_OPTION_AFTER}"
    r"|(?:^|(?<=[.!?;:,\s]))\(?([A-Z])\)?)"
    rf"[*_]*[ \t]*{_CJK_CORRECT}(?!\u7684?[\u5417\u55ce]|[\u4e0e\u8207]\u5426)"
    r"(?=[^.!?\n]*(?:[.!\n]|\Z))",
    re.M,
)
# A sentence that rules an option out ("Option C is not suitable", "we can eliminate option
# C") mentions no choice (a conclusion, "the answer is C, not B", stands).
_RULED_OUT = re.compile(
    r"\b(?:not|no|never|isn't|aren't|wasn't|cannot|can't|eliminated?|exclude[ds]?|excluding"
    r"|rule[ds]?\s+out|ruling\s+out|incorrect|wrong|unsuitable|reject(?:ed|s)?|traps?"
    r"|distractors?|whether|unclear|unsure|uncertain)\b"
    # in Chinese: 不, 错 (错误), 排除, 并非, and "other than" (以外, 之外, 除了)
    r"|\u4e0d|[\u9519\u932f]|\u6392\u9664|[\u5e76\u4e26]\u975e|[\u4ee5\u4e4b]\u5916|\u9664",
    re.I,
)
# Before a conclusion in its clause, what makes it none: a condition or a doubt ("If the
# answer is C, ...", "I cannot tell whether the answer is C."; not "Even if the load is high,
# the answer is C.").
_HEDGED = re.compile(
    r"\b(?:if|whether|unless|unsure|unclear|uncertain|not\s+sure)\b"
    # 如果, 假如, 要是, 是否, 不确定 (不確定), 不清楚, もし, 만약
    r"|\u5982\u679c|\u5047\u5982|\u8981\u662f|\u662f\u5426|\u4e0d[\u786e\u78ba]\u5b9a|\u4e0d\u6e05\u695a"
    r"|\u3082\u3057|\ub9cc\uc57d",
    re.I,
)
# A sentence that asks: it ends in a question mark (also "？", read as "?"), or holds 吗.
_ASKS: Final = re.compile(r"\?[\s*_)\]\"'\u201d]*$|[\u5417\u55ce]")
# (an ellipsis before a word in lower case goes on with the sentence: "Option C... is not
# suitable", "Option C\u2026 is not suitable")
_SENTENCES = re.compile(
    r"[^.!?\u2026\n]*(?:(?:\.\.\.|\u2026)(?=[ \t]+[a-z])[^.!?\u2026\n]*)*(?:[.!?\u2026]+|\n|$)"
)
# An option's text in brackets after its letter: a word or a figure ("C (Motor)", "C (2 kW)")
_BRACKETED_TEXT: Final = r"[ \t]+\((?:[A-Z][a-z]|\d)"
_MENTION = re.compile(
    # "option I chose", "the choice I made": the pronoun, not option I
    r"(?i:\b(?:option|choice))\s+[*_]*(?:\(?([A-Z])\)?(?![\w'-]|(?<=I)[*_)]*\s+[a-z])"
    rf"|{_QUOTED_LETTER}(?![\w'-]))"
    r"|^[ \t]*(?:[-+*][ \t]+)?[*_]*(?:\(([A-Z])\)|\[([A-Z])\]|([A-Z])\))(?=\s|\Z)"
    # a line opening with the option and its text in brackets ("C (Motor)", "**C** (2 kW)";
    # not "C (or D)", "C (I'm not sure)", nor the pronoun: "I (Ian) checked")
    rf"|^[ \t]*(?:[-+*][ \t]+)?[*_]*(?!I\b)([A-Z])[*_]*(?={_BRACKETED_TEXT})"
    # option C in Chinese, anywhere ("C项（电机）", "选项C"; not "A项目", project A)
    rf"|{_CJK_OPTION_BEFORE}[ \t]*[*_]*([A-Z])(?![A-Za-z0-9])"
    rf"|(?<![A-Za-z0-9])([A-Z])[*_]*{_CJK_OPTION_AFTER}",
    re.M,
)
# Beside a mention, any other "(B)" names another option ("(A) and (B)"), or a unit ("Load
# current (A)"): either way the mention is no longer the one choice stated.
_PARENTHESISED = re.compile(r"(?<![\w(])\(([A-Z])\)(?![\w)])")
# So does a letter with its text in brackets, or a bracket closing it, that opens a line or
# follows "or", "and", a comma, a semicolon or a slash ("C (Motor) or D (Pump)", "C) Motor or
# D) Pump", "C) Motor, D) Pump", also "or maybe D) Pump"; not "Vitamin A (retinol)").
_OR_MAYBE: Final = r"(?:(?i:maybe|perhaps|possibly|even|else)[ \t]+)?"
_LISTED_WITH_TEXT = re.compile(
    rf"(?:^[ \t]*(?:[-+*][ \t]+)?|(?<=[,;/])[ \t]*|\b(?i:or|and)[ \t]+{_OR_MAYBE})"
    rf"[*_]*(?!I\b)([A-Z])[*_]*(?={_BRACKETED_TEXT}|\)[ \t])",
    re.M,
)
# After a conclusion, another option its sentence offers with "or" ("The answer is C (Motor)
# or D (Pump)", "... C) Motor or D) Pump", "... C, or maybe D."): a hedge, one more letter
# concluded, as "C or D" concludes none. The other option set off by its brackets, or its
# text in brackets, anywhere in the sentence but after a word ruling out ("C (Motor), not A
# (Pump) or B (Fan)"); a bare letter only right after the conclusion ("C, or D."; not "C
# since phase A or B."; but "C (Motor) or D.", past the conclusion's own text in brackets).
_IN_BRACKETS: Final = re.compile(r"\([^()\n]*\)")
_OR_ANOTHER = re.compile(
    rf"(?P<between>[^.!?\n]*?)\b(?i:or)[ \t]+{_OR_MAYBE}[*_]*"
    r"(?:\(([A-Z])\)|\[([A-Z])\]|(?!I\b)([A-Z])[*_]*(?:(?=\)|"
    rf"{_BRACKETED_TEXT})|(?P<bare>(?=[ \t]*(?:[.!?,;]|$)))))",
    re.M,
)
# After a marker ("Answer: C. Chiller 6") a region opening "C." states option C; prose that
# merely opens so ("I. Overview", "A. Smith reported...") does not.
_MARKED_OPENING = re.compile(r"[*_]*([A-Z])\.(?=\s)")
# A list numbered in Roman numerals ("(I) and (III)", "II) Inspect"): its "(I)" or "V)" is a
# numeral, so no mention beside one is a choice.
_ROMAN_ITEM = re.compile(r"(?:\(|^[ \t]*)(?:I{2,3}|IV|VI{1,3}|IX)\)", re.M)


def stated_choice(parsed: tuple[Any, str, bool]) -> tuple[Any, str, bool]:
    """A prose answer to a multiple-choice question as the option it states (see
    :func:`chosen_option`), method ``...choice-in-text``; unchanged when it states none, or
    several different ones. Only against a gold that is one capital letter."""
    text, method, _ = parsed
    if not isinstance(text, str) or not method.endswith("text"):
        return parsed
    letter = chosen_option(text, marked=method != "text")
    if letter is None:
        return parsed
    return letter, method[: -len("text")] + "choice-in-text", True


def chosen_option(text: str, *, marked: bool = False) -> str | None:
    """The option letter ``text`` states, or None.

    A last non-empty line that is only the option wins ("The answer is B?\\n\\nC" is C: a
    final line is the final answer). Otherwise the conclusions decide when they name one
    letter, and none when they name several: "the answer is C", "C is correct" (not in a
    sentence that makes it a condition or a doubt: "If the answer is C"), any line that is
    only the option ("**C**\\n\\nHope this helps!"), and when ``text`` is a marked answer
    region (``Answer: C\\n\\nBecause...``), a first line that is only the option. Without
    a conclusion, the mentions ("option C", a line opening "(C)", "C)" or "C (Motor)", a
    marked region opening "C.") decide the same way, any "(B)" (or a listed "D (Pump)")
    beside them counting as one more. So an answer that lists options or weighs two states
    no choice.
    Conclusions and mentions are read in the first and last :data:`_CHOICE_WINDOW_CHARS`
    characters, where an answer states and concludes, so the reading stays cheap.
    """
    text = _rendered(_ends(text))  # (the ends are all that is read: only they are rendered)
    if not text.isascii():  # "Answer: C。", "（C）", "Ｃ" as "Answer: C.", "(C)", "C"
        text = text.translate(_WIDE_FORMS)
    ending = text.rstrip().split("\n")[::-1]
    line = _end_option(ending) or _headed_option(ending)
    if line is not None:
        return line
    scanned = _ends(text)
    letters = _concluded(scanned)
    if _ABSTAINING.search(scanned) is None:  # (an option alone beside "I cannot answer" is
        letters.update(_lone_options(scanned))  # an echo of the question's)
    if marked:
        first = _end_option(text.lstrip().split("\n"))
        if first is not None:
            letters.add(first)
    if not letters:
        letters = _mentioned(scanned)
        opening = _MARKED_OPENING.match(text) if marked else None
        if opening is not None:
            letters.add(opening[1])
        if letters:
            letters |= _letters(_PARENTHESISED, scanned) | _letters(_LISTED_WITH_TEXT, scanned)
            if _ROMAN_ITEM.search(scanned):
                return None
    return letters.pop() if len(letters) == 1 else None


# Full-width forms as ASCII (``Ｃ``, ``（C）``, ``：``) and the ideographic space, comma and
# full stop as ``, `` and ``. `` (a full stop needs no space after it in CJK text); the
# typography was read first (:func:`_rendered`: "Option C isn’t suitable" rules C out).
_WIDE_FORMS: Final[dict[int, int | str]] = {
    **{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)},
    0x3001: ", ",
    0x3002: ". ",
    0xFF61: ". ",
    0xFF64: ", ",
}


def _option_line(line: str) -> str | None:
    """The option a line states alone ("C", "**(C)**", "Answer: C."), else None."""
    found = _OPTION_LINE.fullmatch(line.translate(_UNMARKED).strip())
    return None if found is None else str(next(filter(None, found.groups())))


# A list item's marker opening a line ("- C", "* **C**", "1. C", "2) C"), a Markdown table's
# row ("| C |", "| Answer | C |", "| Answer: | C |") and the rule under its header ("|---|",
# "| :-- | --: |").
_ITEM: Final = re.compile(r"[ \t]*(?:[-+*\u2022]|\d{1,3}[.)])[ \t]+")
_TABLE_ROW: Final = re.compile(r"[ \t]*\|(.*)\|[ \t]*")
_TABLE_RULE: Final = re.compile(r"[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|?)+")


def _end_option(lines: list[str]) -> str | None:
    """The option that ``lines[0]``, the last line of an answer (or the first of a marked
    region), states alone: as the line itself ("C", "**(C)**", "Answer: C."), as the one
    item of a list ("- C", "1. **C**") or the one row of a table ("| C |", "| Answer | C
    |", "| Answer: | C |"). ``lines[1:]`` are the lines away from it (up from the last line,
    down from the first): an item of a list of several, or a row of a table of several, is
    none ("Options:\n- A\n- B\n- C")."""
    line = lines[0]
    item = _ITEM.match(line)
    if item is not None:
        for other in lines[1:]:
            if _ITEM.match(other):
                return None  # (one of several items)
            if other.strip() and other[0] not in " \t":
                break  # (text that is no item ends the list; an indented line goes on with one)
        return _option_line(line[item.end() :])
    row = _TABLE_ROW.fullmatch(line)
    if row is None:
        return _option_line(line)
    for other in lines[1:]:
        if other.strip():
            if _TABLE_ROW.fullmatch(other) and not _TABLE_RULE.fullmatch(other):
                return None  # (one of several rows)
            break
    cells = row[1].split("|")
    if len(cells) == 2:  # a label and its value
        return _labelled_option(*cells)
    return _option_line(cells[0]) if len(cells) == 1 else None


def _labelled_option(label: str, value: str) -> str | None:
    """The option a table's cell ``value`` states under its ``label``, as the line "label:
    value" would ("Answer" and "C", "Answer:" and "C", "Answer" and "C (Motor)"), else None."""
    label = label.translate(_UNMARKED).strip()
    line = f"{label[:-1].rstrip() if label.endswith(':') else label}: {value.strip()}"
    letter = _option_line(line)
    if letter is None:
        letters = _concluded(line)
        letter = letters.pop() if len(letters) == 1 else None
    return letter


# A table's header naming the answer's column ("Answer", "Final answer", "Correct option",
# "答案"; not "Option" alone, which may head a list of options and their verdicts).
_ANSWER_HEADER: Final = re.compile(
    r"(?i:(?:final|correct|right|best)\s+)?(?i:answer)"
    r"|(?i:(?:final|correct|right|best|chosen|selected)\s+(?:option|choice))"
    rf"|{_CJK_ANSWER}"
)


def _headed_option(lines: list[str]) -> str | None:
    """The option a table ending an answer (``lines`` read up from its last) states in its
    one row under a header naming the answer ("| Answer | Explanation |\n|---|---|\n| C |
    because ... |"), else None: every such column must state the same one option."""
    if len(lines) < 3 or not _TABLE_RULE.fullmatch(lines[1]):
        return None
    row, header = _TABLE_ROW.fullmatch(lines[0]), _TABLE_ROW.fullmatch(lines[2])
    if row is None or header is None or (len(lines) > 3 and _TABLE_ROW.fullmatch(lines[3])):
        return None  # (no header, or a table of several rows)
    letters = {
        _labelled_option(label, cell)
        for label, cell in zip(header[1].split("|"), row[1].split("|"), strict=False)
        if _ANSWER_HEADER.fullmatch(label.translate(_UNMARKED).strip().rstrip(":").rstrip())
    }
    return letters.pop() if len(letters) == 1 else None


def _ends(text: str) -> str:
    """``text``, or of a long one its first and last :data:`_CHOICE_WINDOW_CHARS` characters
    cut at line breaks (else at spaces), joined so that no cut makes a line start."""
    if len(text) <= 2 * _CHOICE_WINDOW_CHARS:
        return text
    head, tail = text[:_CHOICE_WINDOW_CHARS], text[-_CHOICE_WINDOW_CHARS:]
    cut = head.rfind("\n")
    head = head[:cut] if cut >= 0 else head.rpartition(" ")[0]
    cut = tail.find("\n")
    if cut >= 0:
        return f"{head}\n{tail[cut + 1 :]}"
    return f"{head} {tail.partition(' ')[2]}"


def _lone_options(text: str) -> set[str]:
    """The options that stand alone on a line ("**C**\\n\\nHope this helps!"), outside code
    (a fenced block, an indented line)."""
    found: set[str] = set()
    fenced = False
    lines = text.split("\n")
    for at, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and not line.startswith(("    ", "\t")):
            if _ITEM.match(line) is None:
                letter = _option_line(line)
            else:  # (a list's only item, "- **C**"; not one of several, "- A\n- B")
                letter = _end_option(lines[at::-1])
                if letter is not None and _end_option(lines[at:]) is None:
                    letter = None
            if letter is not None:
                found.add(letter)
    return found


def _concluded(text: str) -> set[str]:
    """The letters ``text`` concludes on, leaving out a conclusion its sentence makes a
    condition or a doubt of, and with another option it offers with "or" (see
    :data:`_OR_ANOTHER`)."""
    letters: set[str] = set()
    for found in _CONCLUSION.finditer(text):
        start = found.start()
        opening = max(text.rfind(c, 0, start) for c in ".\n,;")  # (its clause)
        if _HEDGED.search(text, opening + 1, start):
            continue
        letters.update(letter for letter in found.groups() if letter)
        letters.update(_offered(text, found.end()))
    return letters


def _offered(text: str, end: int) -> list[str]:
    """The other option offered with "or" after a conclusion ending at ``end`` (see
    :data:`_OR_ANOTHER`), if any."""
    other = _OR_ANOTHER.match(text, end)
    if other is None or _RULED_OUT.search(other["between"]):
        return []
    if other["bare"] is not None and _IN_BRACKETS.sub("", other["between"]).strip(" \t,*_"):
        return []  # (a bare letter further on: "C since phase A or B")
    return [letter for letter in other.group(2, 3, 4) if letter]


def _letters(pattern: re.Pattern[str], text: str) -> set[str]:
    return {letter for found in pattern.finditer(text) for letter in found.groups() if letter}


def _mentioned(text: str) -> set[str]:
    """The letters mentioned as options, leaving out the sentences that rule one out or ask
    ("Is it option C?", "C项吗"; each sentence is searched in place, so a "line opening (C)"
    still means a line)."""
    return {
        letter
        for sentence in _SENTENCES.finditer(text)
        if not _RULED_OUT.search(sentence[0]) and not _ASKS.search(sentence[0])
        for found in _MENTION.finditer(text, sentence.start(), sentence.end())
        for letter in found.groups()
        if letter
    }


# --- abstention ---------------------------------------------------------------------------
#
# "I don't know" is not a wrong answer: a run should say how often its model declined. An
# answer abstains when it is short prose that says it cannot answer and states nothing
# else: no number, no hedge or contrast that goes on to give an answer anyway.

_ABSTENTION_CHARS: Final = 400  # longer prose that declines a detail is a partial answer
# (as :data:`_TYPOGRAPHY`, one character each: the words are split and joined at blanks)
_ONE_FOR_ONE: Final = re.compile("[\u2018\u2019\u02bc\u2010\u2011]")
_INVISIBLE: Final = re.compile(f"[{_INVISIBLE_CHARS}]")
_APOSTROPHE_ENTITY: Final = re.compile("|".join(_APOSTROPHE_ENTITIES))
_ABSTAINING = re.compile(
    r"\bI\s+(?:do\s+not|don't|did\s+not|didn't)\s+know\b"
    r"|\b(?:cannot|can\s+not|can't|could\s+not|couldn't|unable\s+to|not\s+able\s+to"
    r"|not\s+possible\s+to|impossible\s+to|no\s+way\s+to)\s+(?:be\s+)?"
    r"(?:determined?|answer(?:ed)?|tell|told|say|said|know|known|concluded?|assess(?:ed)?"
    r"|(?:provide|give)\s+(?:an?\s+|the\s+)?answer)\b"
    r"|(?:\binsufficient|(?:\bnot|n't)\s+(?:have\s+)?(?:enough|sufficient))\s+"
    r"(?:information|data|evidence)\b"
    r"|\b(?:information|data|evidence)\s+(?:is|are|was|were)\s+"
    r"(?:insufficient|not\s+sufficient|not\s+enough)\b",
    re.I,
)
# Declining the task itself ("not possible to detect anomalies", "cannot perform anomaly
# detection", "unable to produce results"): an abstention only where the answer says why
# there is nothing to work on, before it or in a because-clause after it. Without that it
# may be a finding ("could not detect any anomalies") or a constraint ("cannot be performed
# while energized").
_DECLINES_TASK = re.compile(
    r"\b(?:cannot|can\s+not|can't|could\s+not|couldn't|unable\s+to|not\s+able\s+to"
    r"|not\s+possible\s+to|impossible\s+to)\s+(?:be\s+)?"
    r"(?:detect(?:ed)?|perform(?:ed)?|produce\s+(?:any\s+)?results?)\b"
    r"(?!\s+(?:any|an?|no)\b)",
    re.I,
)
_BECAUSE: Final = re.compile(r"\b(?:because|due\s+to|since|as)\b", re.I)
# Why there is nothing to work on: no input ("there are no readings", "no sensor data",
# "returned nothing", "the data is missing", "could not be retrieved"), not a finding of
# absence ("no anomalies", "no abnormal readings", "no readings exceeded the limit").
_INPUT: Final = (
    r"(?:data|readings?|records?|measurements?|information|values|samples|results?|telemetry"
    r"|history)"
)
_NO_INPUT: Final = re.compile(
    r"\b(?:no|not\s+any|without|lacks?|lacking|lack\s+of|(?<!no\s)missing)\s+"
    r"(?:(?:the|any|its)\s+)?"
    r"(?:(?!(?:abnormal|anomal\w*|outliers?|unusual|unexpected|invalid|elevated|excessive"
    r"|critical|irregular|erroneous|missing|faulty|suspicious|spurious|high|low|in|of|the"
    r"|for|on|at|from|with|any|additional|\w+ing)\s)[\w-]+\s+){0,3}?"
    rf"{_INPUT}\b"
    r"(?!\s+(?:exceed(?:s|ed)?|show(?:s|ed)?|indicat(?:e|es|ed)|cross(?:es|ed)?|breach(?:es|ed)?"
    r"|violat(?:e|es|ed)|f[ae]ll|(?:is|are|was|were)\s+(?:above|below|outside|abnormal|out)))"
    r"|\b(?:returned|reported|has\s+not\s+reported|hasn't\s+reported)\s+(?:nothing|anything)\b"
    r"(?!\s+(?:abnormal|unusual|out|odd|strange|wrong|significant|notable|alarming|concerning))"
    rf"|\b{_INPUT}\s+(?:is|are|was|were)\s+(?:missing|unavailable|not\s+available|empty)\b"
    rf"|\b(?:the|its|any)\s+{_INPUT}\s+(?:could\s+not|couldn't|cannot|can't)\s+be\s+"
    r"(?:retrieved|found|loaded|read|fetched)\b",
    re.I,
)
# A number outside an identifier (3, 45%, 2024-01-06, -5; not T-020 or WO-B56D3391).
# (after a dash of any kind: "T\u2013005")
_STATES_NUMBER = re.compile(r"\d(?<!\w\d)(?<!\w[-\u2012-\u2015]\d)")  # a digit first: a fast scan
_STATES_ANYWAY = re.compile(
    r"\b(?:but|however|although|though|nevertheless|nonetheless|that\s+said|instead"
    r"|yet|probabl[ey]|likely|perhaps|maybe|possibly|approximately|roughly|estimated?"
    r"|I\s+(?:think|believe|guess|suspect)|(?:my|best)\s+(?:best\s+)?(?:guess|estimate))\b",
    re.I,
)
_SENTENCE_BREAK = re.compile(r"[.!?\u2026](?:\s|$)")
# What a sentence before an abstention may say: why there is no answer ("There are no
# readings for T-005.", "Sorry, the data is missing.").
_ABSENCE = re.compile(
    r"\b(?:no|not|none|nothing|missing|unavailable|lacks?|lacking|without|sorry"
    r"|unfortunately)\b|n't\b",
    re.I,
)
_QUOTED_CHARS: Final = 100


def abstention(text: str) -> str | None:
    """The sentence in which a prose answer declines to answer, or None when it does not.

    An abstention is at most :data:`_ABSTENTION_CHARS` characters of prose holding one of
    the phrases of :data:`_ABSTAINING` ("I don't know", "cannot be determined", "unable to
    answer", "insufficient information"...), and no number outside an identifier and no
    word that goes on to answer anyway ("but", "however", "probably", "I think"...):
    "I don't know the exact date, but it is 34" states a value and is not one.
    """
    if len(text) > 4 * _ABSTENTION_CHARS:  # bounds the work before the exact length
        return None
    if not text.isascii():
        text = _INVISIBLE.sub("", text)
    if "&" in text:
        text = _APOSTROPHE_ENTITY.sub("'", text)
    if "~~" in text:  # (what it took back is not quoted either)
        text = _STRUCK.sub("", text)
    written = " ".join(text.split())  # (quoted as written: I don’t know)
    flat = written  # (one character each: the offsets hold)
    if not flat.isascii():
        flat = _ONE_FOR_ONE.sub(_typeset, flat)
    if "*" in flat:  # ("I **don't** know": emphasis as blanks, so the offsets hold)
        flat = _STARS.sub(_blanked, flat)
    if "_" in flat:
        flat = _UNDERSCORES.sub(_blanked, flat)
    if len(flat) > _ABSTENTION_CHARS:
        return None
    if _STATES_NUMBER.search(flat):  # the cheapest test first: most answers state numbers
        return None
    found = _ABSTAINING.search(flat) or _declined_task(flat)
    if found is None or _STATES_ANYWAY.search(flat):
        return None
    start = max((b.end() for b in _SENTENCE_BREAK.finditer(flat, 0, found.start())), default=0)
    if not all(_ABSENCE.search(s) for s in _SENTENCES.findall(flat[:start]) if s.strip()):
        return None  # an answer first ("The cause is wear. The date cannot be determined.")
    stop = _SENTENCE_BREAK.search(flat, found.end())
    end = len(flat) if stop is None else stop.start() + 1
    while end < len(flat) and flat[end] == " " != written[end]:  # ("**I don't know.**")
        end += 1
    sentence = written[start:end].strip()
    if len(sentence) > _QUOTED_CHARS:
        sentence = sentence[: _QUOTED_CHARS - 3].rstrip() + "..."
    return sentence


def _declined_task(flat: str) -> re.Match[str] | None:
    """Where ``flat`` first declines the task (:data:`_DECLINES_TASK`) having said that there
    is no input (:data:`_NO_INPUT`): before it ("There are no readings. ... not possible to
    detect anomalies"), or in a because-clause of its sentence ("unable to produce results
    because there were no readings")."""
    for found in _DECLINES_TASK.finditer(flat):
        if _NO_INPUT.search(flat, 0, found.start()):
            return found
        stop = _SENTENCE_BREAK.search(flat, found.end())
        end = len(flat) if stop is None else stop.start()
        because = _BECAUSE.search(flat, found.end(), end)
        if because and _NO_INPUT.search(flat, because.end(), end):
            return found
    return None


def note_prose(result: ScoreResult, answer: Any, text: str | None = None) -> ScoreResult:
    """``result`` of a prose answer (``text``, else its model answer as parsed; ``answer``:
    the model answer as given), with what the prose says about the answer:
    ``metrics["abstained"] = True`` and a reason that opens with the abstaining sentence when
    it abstains (see :func:`abstention`; the score stays, an abstention is not a right
    answer), and against a numeric gold a note naming the numbers it states when there are
    several (none of them is read as the answer, see :func:`stated_count`). Modes call it
    for text answers only, so a structured answer costs nothing."""
    model = result.parsed_model if text is None else text
    if type(model) is not str:
        return result
    gold, method = result.parsed_gold, result.parse_method or "text"
    if (type(gold) is int or type(gold) is float) and method.endswith("text"):
        numbers = [shown for _, shown, _ in _numbers_stated(model, method, answer, _NUMBERS_NAMED)]
        if len(numbers) > 1:
            named = ", ".join(numbers[:_NUMBERS_NAMED]) + (
                ", ..." if len(numbers) > _NUMBERS_NAMED else ""
            )
            note = (
                f"several numbers stated ({named}): none read as the answer; a "
                "'Final Answer: N' line picks one"
            )
            notes = [*result.metrics.get("notes", ()), note]
            result = replace(result, metrics={**result.metrics, "notes": notes})
    said = abstention(model)
    if said is None:
        return result
    reason = f'model abstained: "{said}"' + (f"; {result.reason}" if result.reason else "")
    return replace(result, metrics={**result.metrics, "abstained": True}, reason=reason)


_NUMBERS_NAMED: Final = 3  # numbers a note on prose names
