"""The parser's fast paths give exactly what the full cascade gives.

Each fast path is switched off in turn (or compared with the implementation it replaced) and
the two answers must be the same value with the same method, over generated texts.

Tag and marker strings are assembled at run time: hypothesis mines the string constants of
local modules, and a literal think tag here would make it feed tags into unrelated tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import parse as parse_module
from pytest_structeval.errors import AnswerParseError, LimitError
from pytest_structeval.parse import (
    DEFAULT_MAX_DEPTH,
    Parsed,
    parse_answer_detailed,
    strip_think,
)

THINK = "think"
OPEN, CLOSE = f"<{THINK}>", f"</{THINK}>"
FENCE = "`" * 3
NEVER = re.compile("(?!)")  # a pattern that matches nothing: switches a regex fast path off

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=6),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=6,
)
containers = st.one_of(
    st.lists(json_values, min_size=1, max_size=3),
    st.dictionaries(st.text(max_size=4), json_values, min_size=1, max_size=3),
)


# Prose pieces that stress the stages: brackets, parentheses, quotes, fences, newlines,
# markers, markdown.
def pieces(*extra: str, size: int) -> st.SearchStrategy[str]:
    """Texts made of single characters and a few longer pieces."""
    return st.lists(st.sampled_from(list(extra)), max_size=size).map("".join)


BOXED = "\\" + "boxed{"
TILDES = "~" * 3
noise = pieces(
    *"ab :.,\n\t*#_-'\"`()[]{}~",
    "answer",
    "Final ",
    FENCE,
    TILDES,
    "json",
    " [1]",
    "[2, 3]",
    "see above",
    BOXED,
    size=12,
)
WRAPPERS = [
    "{}",
    f"{FENCE}json\n{{}}\n{FENCE}",
    f"{FENCE}\n{{}}\n{FENCE}",
    f"{FENCE} JSON \n{{}}\n  {FENCE}",
    f"{FENCE}json\n{{}}{FENCE}",
    f"{FENCE}json\n{{}}\n{FENCE}\n{FENCE}json\n[1]\n{FENCE}",
    f"{FENCE * 2}\n{{}}\n{FENCE * 2}",
    "I checked the work orders.\nFinal Answer: {}",
    "**Final Answer:** {}",
    "Thought: done.\nAnswer: {}",
    "Final Answer:\n{}",
    "Based on it, the final answer to the question is:\n\n{}",
    "So the final answer is: {} as shown",
    "Final Answer: {}\nThe tool gave [1, 2]",
    "## Final Answer\n{}",
    "The answer: see {}",
    "Here are the counts: {}. Let me know.",
    "Here (twice): {} ok",
    "Use [1]: {} now",
    "x{} y",
    "Result:{} (done)",
    "{} trailing prose",
    "prose {} and [1]",
    "prose {} and {{",
    "it's {} 'quoted'",
    f"{TILDES}json\n{{}}\n{TILDES}",
    f"{TILDES}\n{{}}\n{FENCE}",
    f"{FENCE}json\n[9]\n{FENCE}\nFinal Answer: {{}}",
    f"{FENCE}json\n{{}}\n{FENCE}\nFinal Answer: see above",
    f"{FENCE}json\n{{}}\n{FENCE}\nFinal Answer: Chiller 6",
    "The pump failed [1]. Counts: {} [2]",
    "{} [1]",
    f"So {BOXED}{{}}}} [1]",
]


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def outcome(text: str) -> tuple[str, str, bool]:
    """A parse as comparable data: the value's repr, the method, structured (or the error)."""
    try:
        parsed = parse_answer_detailed(text)
    except AnswerParseError as exc:
        return type(exc).__name__, str(exc), False
    return repr(parsed.value), parsed.method, parsed.structured


def cascade_only(text: str) -> tuple[str, str, bool]:
    """The parse with every fast path of this module switched off."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parse_module, "_common_shape", lambda text, max_depth: None)
        mp.setattr(parse_module, "_LEADING_THINK", NEVER)
        mp.setattr(parse_module, "_PROSE_JSON", NEVER)
        return outcome(text)


@pytest.mark.parametrize(
    "text",
    [
        '`{"a": 1}`',  # found by the property test below: `[null]` gave candidate+json
        "`[null]`",
        '``{"a": 1}``',
        '`{"a": 1}`.',
        '**{"a": 1}**',
        '*["x"]*',
        'x `{"a": 1}`',
        '`{"a": 1}` is it',
    ],
)
def test_a_value_in_emphasis_or_inline_code_reads_as_the_cascade_reads_it(text: str) -> None:
    assert outcome(text) == cascade_only(text)


@settings(max_examples=400, deadline=None)
@given(containers, st.sampled_from(WRAPPERS), noise, noise, st.booleans())
def test_fast_paths_agree_with_the_cascade(
    value: Any, wrapper: str, before: str, after: str, think: bool
) -> None:
    text = before + wrapper.format(dumps(value)) + after
    if think:
        text = f"{OPEN}draft {dumps(value)}{CLOSE}\n{text}"
    assert outcome(text) == cascade_only(text)


@settings(max_examples=300, deadline=None)
@given(pieces(*"ab {}\n:", OPEN, CLOSE, f"<{THINK}/>", f"<{THINK} x>", "<x>", size=8))
def test_the_leading_think_block_shortcut_agrees_with_the_tag_scan(text: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parse_module, "_LEADING_THINK", NEVER)
        general = strip_think(text)
    assert strip_think(text) == general


def test_the_shortcut_takes_the_usual_think_block() -> None:
    for tag in (THINK, THINK.upper(), f"{THINK}ing"):
        text = f"<{tag}>plan {{'a': 1}}</{tag}>\nHere it is: {{}}"
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(parse_module, "_THINK_TAG", NEVER)  # the tag scan would find nothing
            assert strip_think(text) == "Here it is: {}"
    assert strip_think(f"x {OPEN}a{CLOSE} y") == "x  y"  # not opening the text: the scan
    assert strip_think(f"<{THINK}/>a{CLOSE}b") == "b"  # self-closing opener: the scan


def common_shape_calls(texts: list[str]) -> Iterator[bool]:
    """Whether ``_common_shape`` settles each text (it answers None otherwise)."""
    for text in texts:
        stripped = strip_think(text.strip())
        yield parse_module._common_shape(stripped, DEFAULT_MAX_DEPTH) is not None


def test_the_common_shapes_take_the_fast_path() -> None:
    small = '{"energy": 14, "material": 48}'
    texts = [
        f"{FENCE}json\n{small}\n{FENCE}",
        f"I checked the work orders.\nFinal Answer: {small}",
        f"{OPEN}Draft: {{}}{CLOSE}\nHere are the counts per category: {small}. Anything else?",
        f"Here is the result: {small}",
    ]
    assert all(common_shape_calls(texts))
    expected = {"energy": 14, "material": 48}
    methods = [parse_answer_detailed(t) for t in texts]
    assert methods == [
        Parsed(expected, "fence:json+json", True),
        Parsed(expected, "final-answer+json", True),
        Parsed(expected, "candidate+json", True),
        Parsed(expected, "candidate+json", True),
    ]


def test_shapes_the_fast_path_leaves_to_the_cascade() -> None:
    small = '{"a": 1}'
    texts = [
        f"{FENCE}json\n{small}\n{FENCE}\nmore {FENCE}",  # a second fence
        f"Final Answer: ```json\n{small}\n{FENCE}",  # not JSON right after the marker
        f"Here (see below): {small}. Thanks",  # a parenthesis before the span
        f"Here: {small} and [1] too",  # a bracket after it
        f"<answer>{small}</answer>",  # a tag
    ]
    assert not any(common_shape_calls(texts))
    for text in texts:
        assert outcome(text) == cascade_only(text)


# --- the rewritten fence scan and marker search, against the code they replaced ------------

_OLD_FENCE_RUN = re.compile("```+")


def old_fences(text: str) -> list[tuple[str, str]]:
    blocks: list[tuple[str, str]] = []
    run = lang = ""
    content_start = -1
    own_line = runs_on = False
    for m in _OLD_FENCE_RUN.finditer(text):
        if content_start < 0:
            info = parse_module._FENCE_INFO.match(text, m.end())
            assert info is not None
            run, lang, content_start = m.group(), info.group(1).lower(), info.end()
            opened = m.start()
            at_line_start = parse_module._starts_line(text, m.start())
            own_line = info.group(2) is not None and at_line_start
            runs_on = at_line_start or info.group(2) is not None
        elif len(m.group()) >= len(run):
            if own_line and not (
                parse_module._starts_line(text, m.start())
                and parse_module._BLANK_TO_EOL.match(text, m.end())
            ):
                continue
            code_span = (  # unlabelled, opened and closed in one line, text after
                not lang
                and "\n" not in text[opened : m.start()]
                and not parse_module._BLANK_TO_EOL.match(text, m.end())
            )
            if not code_span:
                blocks.append((lang, text[content_start : m.start()]))
            content_start = -1
    if content_start >= 0 and runs_on:  # an unclosed ``` inside a going-on line: no fence
        blocks.append((lang, text[content_start:]))
    return blocks


_OLD_HEAD = re.compile(r"[ \t>*#_-]*(?:[0-9]{1,3}[.)][ \t]+[ \t>*#_]*)?(final[ \t]+)?", re.I)
_OLD_TAIL = re.compile(
    r"(?!\w)[ \t*_]*(?:\([^()\n]{0,40}\)[ \t*_]*)?"
    r"([:：=]|(?<=[ \t])[-\u2013\u2014](?=[ \t\r\n]|\Z))?" + parse_module._AFTER_SEP
)


def old_last_marker(text: str) -> tuple[str, int] | None:
    low = text.lower()
    if len(low) == len(text):
        starts = [m.start() for m in re.finditer("(?=answer)", low)]
    else:
        starts = [m.start() for m in parse_module._ANSWER_WORD.finditer(text)]
    for idx in reversed(starts):
        window = text[max(0, idx - 40) : idx]
        newline = window.rfind("\n")
        if newline < 0 and idx > 40:
            continue
        head = _OLD_HEAD.fullmatch(window, newline + 1)
        tail = _OLD_TAIL.match(text, idx + 6)
        if head is None or tail is None:
            continue
        end = tail.end()
        if tail.group(1):
            if head.group(1):
                return "final-answer", end
            if tail.group(1) in ":：":
                return "answer", end
            continue
        if head.group(1) and (end == len(text) or text[end] in "\r\n"):
            return "final-answer", end
    return None


fence_texts = pieces(*"` \t\nab{}", FENCE, "json", FENCE + "json\n", size=30)
marker_texts = pieces(
    *" \t\n:：*#>_-x{=",
    *("answer", "Answer", "ANSWER", "final ", "İ", "Final", "Final Answer"),
    *("3. ", "1) ", " - ", " = ", " (JSON)", " (a) "),
    size=30,
)


@settings(max_examples=400, deadline=None)
@given(fence_texts)
def test_fence_scan_matches_the_regex_scan(text: str) -> None:
    assert parse_module._fences(text) == old_fences(text)


@settings(max_examples=400, deadline=None)
@given(marker_texts)
def test_marker_search_matches_the_two_regex_search(text: str) -> None:
    # (rfind finds overlapping "answer" occurrences too; none overlap, the word has no border)
    found = parse_module._last_marker(text)
    assert (found if found is None else found[:2]) == old_last_marker(text)


# --- the one-pass byte mask of _vetted ----------------------------------------------------------


def test_long_integers_are_still_read_exactly_inside_nested_answers() -> None:
    big = 2**70 + 1
    text = f'{{"rows": [{{"id": {big}, "v": 1.5}}], "n": 2}}'
    assert parse_answer_detailed(text).value == {"rows": [{"id": big, "v": 1.5}], "n": 2}
    flat = f'{{"id": {big}}}'  # a flat object whose value orjson misreads as a float
    assert parse_answer_detailed(flat).value == {"id": big}


def test_the_depth_limit_still_counts_both_bracket_kinds() -> None:
    deep = "[" * 3 + "{" * 3 + '"x": 1' + "}" * 3 + "]" * 3
    deep = deep.replace('{{{"x": 1}}}', '{"a": {"b": {"x": 1}}}')
    assert parse_answer_detailed(deep, max_depth=6).structured
    with pytest.raises(LimitError):
        parse_answer_detailed(deep, max_depth=5)


# --- the fence scan against CommonMark's fence rules -------------------------------------------

_FENCE_LINE = re.compile(r"(`{3,}|~{3,})(.*)")
_LANG = re.compile(r"[ \t]*([\w+#.-]*)")


def commonmark_fences(text: str) -> list[tuple[str, str]]:
    """Fenced blocks read line by line as CommonMark defines them: a run of three or more
    backticks or tildes after at most three spaces opens a block (a backtick run only when
    its info string has no backtick); only a run of the same character at least as long,
    alone on its line, closes it; an unclosed block runs to the end. (Content indentation is
    kept, as the parser keeps it: decoding ignores it.)"""
    blocks: list[tuple[str, str]] = []
    run = ""
    lang = ""
    content: list[str] = []
    for line in text.split("\n"):
        fence = _FENCE_LINE.fullmatch(line.lstrip(" "))
        if not run:
            if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
                run, content = fence.group(1), []
                lang = _LANG.match(fence.group(2)).group(1).lower()  # type: ignore[union-attr]
        elif (
            fence
            and fence.group(1)[0] == run[0]
            and len(fence.group(1)) >= len(run)
            and not fence.group(2).strip(" \t")
        ):
            blocks.append((lang, "\n".join(content)))
            run = ""
        else:
            content.append(line)
    if run:
        blocks.append((lang, "\n".join(content)))
    return blocks


def fence_line(char: str) -> st.SearchStrategy[str]:
    infos = ["", "json", "JSON ", " py", "c++"]
    if char == "~":  # a tilde fence's info string may hold anything, tildes and backticks too
        infos += [" json title=x", "x ~~~", "`a`"]
    return st.builds(
        lambda indent, size, info, blank: " " * indent + char * size + info + blank,
        st.integers(0, 3),
        st.integers(3, 5),
        st.sampled_from(infos),
        st.sampled_from(["", "  "]),
    )


# Content lines hold no backtick run inside a line: outside a block the parser also reads
# "Final Answer: ```json {...}```" as a fence, which CommonMark does not.
markdown = st.lists(
    fence_line("`")
    | fence_line("~")
    | st.sampled_from(["", "a", '{"a": 1}', "x ~~~ y", "  b", "`a`", "~~", "``` x", "~~~x y"]),
    max_size=12,
).map("\n".join)


def trimmed(blocks: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(lang, content.rstrip()) for lang, content in blocks]


@settings(max_examples=250, deadline=None)
@given(markdown)
def test_fence_scan_follows_commonmark(text: str) -> None:
    assert trimmed(parse_module._fences(text)) == trimmed(commonmark_fences(text))


@pytest.mark.parametrize(
    ("text", "blocks"),
    [
        ("~~~json\na\n~~~", [("json", "a\n")]),
        ("~~~~\na\n~~~\nb\n~~~~", [("", "a\n~~~\nb\n")]),
        ("~~~\na\n```\nb\n~~~", [("", "a\n```\nb\n")]),
        ("```\na\n~~~\nb\n```", [("", "a\n~~~\nb\n")]),
        ("~~~ json extra ~~~\na\n~~~", [("json", "a\n")]),
        ("~~~\na\n~~~ x\nb", [("", "a\n~~~ x\nb")]),
        ("x ~~~ y ~~~ z", []),
        ("x ~~~\n~~~py\n1\n   ~~~~", [("py", "1\n   ")]),
    ],
)
def test_tilde_fence_structure(text: str, blocks: list[tuple[str, str]]) -> None:
    assert parse_module._fences(text) == blocks


# --- the shared bracket scan, against the code it replaced --------------------------------------


def old_top_level_spans(text: str) -> list[tuple[int, int]]:
    """The candidate scan before it shared ``_closed_spans`` with the marker check."""
    stack: list[tuple[str, int, list[tuple[int, int]]]] = []
    open_counts = {"(": 0, "[": 0, "{": 0}
    spans: list[tuple[int, int]] = []
    pos = 0
    while (
        m := (parse_module._INNER_EVENT if stack else parse_module._OPENER).search(text, pos)
    ) is not None:
        i = m.start()
        char = text[i]
        pos = i + 1
        if char == '"' or char == "'":  # (strings as the scan reads them since review 14)
            string = parse_module._STRING_AT.match(text, i)
            if parse_module._value_can_start(text, i) and string is not None:
                pos = string.end()
        elif char in "([{":
            stack.append((char, i, []))
            open_counts[char] += 1
        else:
            opener = parse_module._OPENER_OF[char]
            if not open_counts[opener]:
                continue
            while True:
                popped, start, _ = stack.pop()
                open_counts[popped] -= 1
                if popped == opener:
                    break
            (stack[-1][2] if stack else spans).append((start, i + 1))
    unclosed: dict[bool, list[int]] = {}
    for opener, start, children in stack:
        spans.extend(children)
        unclosed.setdefault(opener == "(", []).append(start)
    # (the first and the last unclosed opener of each kind run to the end: since audit 10)
    spans.extend(
        (start, len(text)) for starts in unclosed.values() for start in {starts[0], starts[-1]}
    )
    return spans


bracket_soup = pieces(*"ab :,\n'\"()[]{}", "answer: ", size=40)


@settings(max_examples=400, deadline=None)
@given(bracket_soup)
def test_the_span_scan_matches_the_one_it_replaced(text: str) -> None:
    assert sorted(parse_module._top_level_spans(text)) == sorted(old_top_level_spans(text))


@settings(max_examples=400, deadline=None)
@given(bracket_soup, st.integers(0, 40))
def test_the_marker_check_stops_early_without_changing_its_answer(text: str, pos: int) -> None:
    # Inside a balanced {...} or [...] span, read from every span of a full pass.
    pos = min(pos, len(text))
    spans = list(parse_module._closed_spans(text, []))
    inside = any(start < pos < end and opener != "(" for opener, start, end in spans)
    assert parse_module._inside_brackets(text, pos) == inside
