"""Unit tests of the answer parser: every accepted shape, every repair, every limit, and each
parser bug of AssetOpsBench's ``static_json`` (reference §10 items 1, 3, 4, 5, 6, 11)."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.errors import AnswerParseError, LimitError
from pytest_structeval.parse import (
    DEFAULT_MAX_DEPTH,
    MAX_CANDIDATES,
    MAX_INT_DIGITS,
    Parsed,
    _fences,
    parse_answer,
    parse_answer_detailed,
    repairs_in,
    strip_think,
)

SMALL = {"energy": 14, "material": 48}
SMALL_JSON = '{"energy": 14, "material": 48}'


def method(text: Any, **kwargs: Any) -> str:
    return parse_answer_detailed(text, **kwargs).method


# --- input types ------------------------------------------------------------------------------


def test_bare_json_object_takes_the_fast_path() -> None:
    parsed = parse_answer_detailed(SMALL_JSON)
    assert parsed == Parsed(SMALL, "json", True)


def test_json_array_and_surrounding_whitespace() -> None:
    assert parse_answer('\n  [1, {"a": [true, null]}, "x"]  \n') == [1, {"a": [True, None]}, "x"]


@pytest.mark.parametrize("data", [SMALL_JSON.encode(), bytearray(SMALL_JSON.encode())])
def test_bytes_are_utf8(data: bytes | bytearray) -> None:
    assert parse_answer(data) == SMALL


def test_a_byte_order_mark_is_tolerated_in_bytes_and_str() -> None:
    assert parse_answer(b"\xef\xbb\xbf" + SMALL_JSON.encode()) == SMALL
    assert parse_answer("\ufeff" + SMALL_JSON) == SMALL


def test_invalid_utf8_is_replaced_or_an_error_in_strict_mode() -> None:
    assert parse_answer(b'{"a": "\xff"}') == {"a": "\ufffd"}
    with pytest.raises(AnswerParseError, match="not valid UTF-8"):
        parse_answer(b'{"a": "\xff"}', strict=True)


@pytest.mark.parametrize("value", [SMALL, [1, 2], (1, 2), 34, 1.5, True, None, {"a": (1,)}])
def test_already_parsed_values_are_returned_as_they_are(value: Any) -> None:
    parsed = parse_answer_detailed(value)
    assert parsed.value is value
    assert parsed.method == "value"


def test_parsed_is_frozen() -> None:
    parsed = parse_answer_detailed("1")
    with pytest.raises(AttributeError):
        parsed.value = 2  # type: ignore[misc]


# --- Python literals and mixed syntax ------------------------------------------------------------


def test_python_dict_literal() -> None:
    assert parse_answer("{'energy': 14, 'material': 48}") == SMALL
    assert method("{'energy': 14, 'material': 48}") == "literal"


def test_tuple_list_becomes_a_list_of_lists() -> None:
    text = '[("Engines & motors", 5), ("Lines & drives", 2)]'
    assert parse_answer(text) == [["Engines & motors", 5], ["Lines & drives", 2]]


def test_tuples_anywhere_become_lists() -> None:
    assert parse_answer("{'a': (1, (2, 3)), 'b': [()]}") == {"a": [1, [2, 3]], "b": [[]]}
    assert parse_answer("(1, 2)") == [1, 2]


def test_sets_become_sorted_lists() -> None:
    assert parse_answer("{3, 1, 2}") == [1, 2, 3]
    assert parse_answer("{'pump', 'chiller', 'boiler'}") == ["boiler", "chiller", "pump"]


def test_mixed_type_sets_sort_the_same_way_every_time() -> None:
    one = parse_answer("{'b', 2, None, True, (1, 'x'), 1.5, 'a'}")
    other = parse_answer("{(1, 'x'), 'a', 1.5, True, 'b', None, 2}")
    assert one == other == [None, True, 1.5, 2, "a", "b", [1, "x"]]


def test_mixed_json_and_python_literals() -> None:
    assert parse_answer("{'a': true, 'b': None, 'c': null, 'd': False}") == {
        "a": True,
        "b": None,
        "c": None,
        "d": False,
    }


def test_trailing_commas() -> None:
    assert parse_answer('{"a": [1, 2,], "b": 3,}') == {"a": [1, 2], "b": 3}


def test_line_and_block_comments_are_dropped() -> None:
    text = '{\n  "a": 1, // the first\n  "b": 2, # the second\n  /* gone */ "c": 3\n}'
    assert parse_answer(text) == {"a": 1, "b": 2, "c": 3}


def test_comment_markers_inside_strings_are_kept() -> None:
    text = "{'url': 'http://x.org/a#b', 'path': \"//share\", // real comment\n 'n': 1}"
    assert parse_answer(text) == {"url": "http://x.org/a#b", "path": "//share", "n": 1}


def test_nan_and_infinities() -> None:
    value = parse_answer('{"a": NaN, "b": Infinity, "c": -Infinity, "d": [nan, -inf]}')
    assert math.isnan(value["a"])
    assert math.isnan(value["d"][0])
    assert (value["b"], value["c"], value["d"][1]) == (math.inf, -math.inf, -math.inf)


def test_unquoted_javascript_keys() -> None:
    assert parse_answer("{energy: 14, material: 48}") == SMALL


def test_json_escapes_in_double_quotes_and_python_escapes_in_single_quotes() -> None:
    text = r"""{'a': "\/x \ud83d\ude00", 'b': '\x41\'', 'c': 'C:\data'}"""
    assert parse_answer(text) == {"a": "/x \U0001f600", "b": "A'", "c": "C:\\data"}


def test_an_escaped_surrogate_pair_in_single_quotes_is_one_character() -> None:
    """JavaScript (JSON5) writes an emoji as two escapes in single quotes too; Python's
    rules read two lone surrogates, which never matched the gold's emoji (fuzz26 #3). An
    escaped backslash, a lone surrogate and a raw string stay as written."""
    assert parse_answer(r"{'a': '\ud83d\uDE00!', 'b': 1}") == {"a": "\U0001f600!", "b": 1}
    assert parse_answer(r"{'a': '\\ud83d\\ude00', 'b': 1}") == {"a": r"\ud83d\ude00", "b": 1}
    assert parse_answer(r"{'a': 'x\ud83dy', 'b': 1}") == {"a": "x\ud83dy", "b": 1}
    assert parse_answer(r"{'a': r'\ud83d\ude00', 'b': 1}") == {"a": r"\ud83d\ude00", "b": 1}


def test_unknown_escapes_emit_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_answer(r"['\d+', '\w']") == ["\\d+", "\\w"]


@pytest.mark.parametrize("action", ["error", "ignore", "always"])
def test_octal_escapes_past_377_read_the_same_under_every_warnings_filter(action: str) -> None:
    """Python reads ``'\\400'`` as U+0100 with a DeprecationWarning (3.11) or SyntaxWarning
    (3.12+): under ``-W error`` the literal was refused and the answer read as text, scoring
    0.0 where a default run scored 1.0, and a default run printed a stray ``<unknown>:1:``
    warning (runtimeflags34 #1). The parser reads it as Python does, with no warning."""
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter(action)
        assert parse_answer(r"{'code': 'A\400', 'n': 2}") == {"code": "A\u0100", "n": 2}
        assert parse_answer(r"{'path': 'D:\logs\500'}") == {"path": "D:\\logs\u0140"}
        assert parse_answer(r"['\777', '\377', '\1234', '\\400', r'\400']") == [
            "\u01ff",
            "\xff",
            "S4",
            "\\400",
            "\\400",
        ]
        result = score({"code": "A\u0100", "n": 2}, r"Final Answer: {'code': 'A\400', 'n': 2}")
        assert (result.passed, result.score) == (True, 1.0)
    assert [str(w.message) for w in shown] == []


def test_integers_past_64_bits_stay_exact() -> None:
    big = 123456789012345678901234567890
    assert parse_answer(f'{{"id": {big}}}') == {"id": big}
    assert parse_answer(f"{{'id': {big}}}") == {"id": big}


def test_a_quoted_string_stays_a_string() -> None:
    # A JSON string holding JSON is a string answer: parse(dumps(x)) == x for every x.
    assert parse_answer('"[1, 2]"') == "[1, 2]"
    assert parse_answer("'Chiller 6'") == "Chiller 6"


@pytest.mark.parametrize("text", ["1j", "[1j]", "{'a': 2+3j}", "b'x'", "[...]", "f(1)"])
def test_non_json_python_forms_are_rejected(text: str) -> None:
    assert parse_answer_detailed(text).structured is False


def test_code_is_never_evaluated() -> None:
    text = "__import__('os').system('echo pwned')"
    assert parse_answer(text) == text


def test_bare_tuples_are_not_answers() -> None:
    assert parse_answer("1, 2") == "1, 2"
    assert parse_answer("'a', 'b'") == "'a', 'b'"


def test_python_digit_grouping_and_hex_keep_python_meaning() -> None:
    # Decision: the literal path reads Python syntax as Python does.
    assert parse_answer("[1_000, 0x10, 0o10, 0b10]") == [1000, 16, 8, 2]
    assert parse_answer("1_000") == 1000


# --- fences -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "how"),
    [
        (f"```json\n{SMALL_JSON}\n```", "fence:json+json"),
        (f"```JSON\n{SMALL_JSON}\n```", "fence:json+json"),
        ("```python\n{'energy': 14, 'material': 48}\n```", "fence:python+literal"),
        (f"```\n{SMALL_JSON}\n```", "fence+json"),
        ("```javascript\n{energy: 14, material: 48}\n```", "fence:javascript+literal"),
        (f"Here you go:\n\n```json\n{SMALL_JSON}\n```\nAnything else?", "fence:json+json"),
        (f"Final Answer: ```json {SMALL_JSON}```", "final-answer+fence:json+json"),
        (f"```json\n{SMALL_JSON}", "fence:json+json"),  # unclosed: a truncated answer
    ],
)
def test_fenced_blocks(text: str, how: str) -> None:
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method) == (SMALL, how)


def test_the_last_parseable_fence_wins() -> None:
    text = (
        'Draft:\n```json\n{"energy": 1}\n```\nCorrected:\n```json\n' + SMALL_JSON + "\n```\n"
        "Shell used:\n```bash\ncurl http://x\n```"
    )
    assert parse_answer(text) == SMALL


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        # A block that is no one value (NDJSON): its own last value, not one outside it.
        (
            '```json\n{"a": 1}\n{"a": 2}\n```\nNote: the input was {"x": 0}',
            Parsed({"a": 2}, "fence:json+candidate+json", True),
        ),
        # A data block beats a later block of code that also decodes.
        (
            '```json\n{"a": 1}\n```\nRun it with:\n```bash\n["ls", "-l"]\n```',
            Parsed({"a": 1}, "fence:json+json", True),
        ),
        ("```python\n{'a': 1}\n```\nDone.", Parsed({"a": 1}, "fence:python+literal", True)),
        # A list inside code is no answer that a later value must yield to.
        (
            '```python\nrows = [1, 2]\n```\nSo the answer is {"a": 1}',
            Parsed({"a": 1}, "candidate+json", True),
        ),
        # Text in one fenced block is the text, without the fence markers.
        ("```\nChiller 6\n```", Parsed("Chiller 6", "fence+text", False)),
        (
            "Final Answer:\n~~~text\nChiller 6\n~~~",
            Parsed("Chiller 6", "final-answer+fence:text+text", False),
        ),
        ("```\nChiller 6\n```\nand more", Parsed("```\nChiller 6\n```\nand more", "text", False)),
        ("````\nChiller 6\n```", Parsed("````\nChiller 6\n```", "text", False)),  # unclosed
    ],
)
def test_fenced_block_preferences(text: str, parsed: Parsed) -> None:
    assert parse_answer_detailed(text) == parsed


def test_four_backtick_fence_holds_a_three_backtick_line() -> None:
    text = '````json\n{"code": "```python",\n "n": 1}\n````'
    assert parse_answer(text) == {"code": "```python", "n": 1}


def test_backticks_inside_json_strings_do_not_close_the_fence() -> None:
    text = '```json\n{"cmd": "wrap it in ``` fences", "md": "```json\\n{}\\n```"}\n```'
    assert parse_answer(text) == {"cmd": "wrap it in ``` fences", "md": "```json\n{}\n```"}


def test_a_fence_before_a_marker_with_no_value_is_used() -> None:
    # §10.4: v1 ran the prefix step first, so this became "see above".
    text = f"```json\n{SMALL_JSON}\n```\nFinal Answer: see above"
    assert parse_answer_detailed(text) == Parsed(SMALL, "fence:json+json", True)


def test_a_marker_with_a_value_beats_an_earlier_fence() -> None:
    assert parse_answer('```json\n{"draft": 1}\n```\nFinal Answer: 34.') == 34
    assert parse_answer(f'```json\n{{"draft": 1}}\n```\nFinal Answer: {SMALL_JSON}') == SMALL


def test_empty_containers_are_answers_when_fenced_or_marked() -> None:
    assert parse_answer("```json\n[]\n```") == []
    assert parse_answer("Final Answer: {}") == {}
    assert parse_answer("<answer>[]</answer>") == []


# --- prefixes -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "how"),
    [
        (f"Thought: done.\nFinal Answer: {SMALL_JSON}", "final-answer+json"),
        (f"final answer:\n{SMALL_JSON}", "final-answer+json"),
        (f"**Final Answer:** {SMALL_JSON}", "final-answer+json"),
        (f"## Final Answer\n```json\n{SMALL_JSON}\n```", "final-answer+fence:json+json"),
        (f"Reasoning...\nAnswer: {SMALL_JSON}", "answer+json"),
        (f"- Answer: {SMALL_JSON}", "answer+json"),
        (f"Notes <answer>{SMALL_JSON}</answer> trailing", "answer-tag+json"),
        (f"<ANSWER>\n{SMALL_JSON}\n</ANSWER>", "answer-tag+json"),
    ],
)
def test_answer_markers(text: str, how: str) -> None:
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method) == (SMALL, how)


@pytest.mark.parametrize(
    ("text", "how"),
    [
        (f"Answer (JSON): {SMALL_JSON}\nFrom the log {{'x': 1}}", "answer+candidate+json"),
        (f"**Final answer (json):**\n{SMALL_JSON}\nRaw: [1, 2]", "final-answer+candidate+json"),
        (f"Final Answer - {SMALL_JSON}\nRaw: [1, 2]", "final-answer+candidate+json"),
        (f"Final Answer = {SMALL_JSON}\nRaw: [1, 2]", "final-answer+candidate+json"),
        (f"Steps:\n1. Read [1, 2]\n3. Final Answer: {SMALL_JSON}", "final-answer+json"),
        (f"1) **Answer:** {SMALL_JSON}", "answer+json"),
        (f'<answer id="1">{SMALL_JSON}</answer>\nRaw: [1, 2]', "answer-tag+json"),
    ],
)
def test_marker_variants(text: str, how: str) -> None:
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method) == (SMALL, how)


@pytest.mark.parametrize(
    "text",
    [
        "answer = [9]\nprint(answer)\n" + SMALL_JSON,  # code: "=" marks only "Final Answer"
        "Answer - see the log [9]\n" + SMALL_JSON,
        "Answer-based scoring [9]\n" + SMALL_JSON,
        "Final Answer-ish: [9]\n" + SMALL_JSON,
        "x <answer/> [9] " + SMALL_JSON,  # a self-closing tag holds nothing
    ],
)
def test_what_is_not_a_marker_variant(text: str) -> None:
    assert parse_answer(text) == SMALL


def test_the_last_marker_wins() -> None:
    assert parse_answer('Answer: {"a": 5}\nWait, I miscounted.\nFinal Answer: {"a": 7}') == {"a": 7}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('## Final Answer\n{"a": 1}\n\nExplanation: an earlier draft was {"a": 0}', {"a": 1}),
        ('Answer: {"a": 1}\nExplanation: derived from {"x": 2}', {"a": 1}),
        ('Final Answer: {"a": 1}\nSensors checked: ["x", "y"]', {"a": 1}),
        ('Final Answer: ["x"] [1]\nSee {"raw": 2}', ["x"]),
        (
            'Final Answer:\n```json\n{"a": 1}\n```\nThe tool returned:\n```json\n{"raw": 2}\n```',
            {"a": 1},
        ),
        ('So the final answer is: {"a": 1}. Note that {"a": 0} was wrong.', {"a": 1}),
        ("Final Answer: 34\n\nThis is because 12 + 22 = 34 (see [5, 7]).", 34),
        ("Final Answer: **34**\nFrom {'pumps': 12, 'fans': 22}", 34),
        # Not a leading value: a citation, a numbered list, a value after prose.
        ('Final Answer: [1] The pump failed; counts {"p": 3}', {"p": 3}),
        ("Final Answer:\n1.\n2. Pump P-1", "1.\n2. Pump P-1"),
        ('Final Answer: the pumps {"a": 0}, corrected to {"a": 1}', {"a": 1}),
    ],
)
def test_a_value_opening_a_marked_region_is_its_answer(text: str, value: Any) -> None:
    # What follows the value the marker states is an explanation: a draft, tool output or
    # input quoted there is not the answer (last-wins only holds in unmarked text).
    assert parse_answer(text) == value


def test_a_marker_region_is_exclusive() -> None:
    # Tool output before the marker must not replace the answer the marker points at.
    text = 'Observation: {"asset": "Chiller 9", "alerts": 4}\nFinal Answer: Chiller 6'
    assert parse_answer_detailed(text) == Parsed("Chiller 6", "final-answer+text", False)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # 84 real smart-grid answers end this way; the reasoning before it is not the answer.
        (
            "No readings were found.\n\nTherefore, the final answer is:\n\n"
            "Schedule immediate outage maintenance for transformer T-020.",
            "Schedule immediate outage maintenance for transformer T-020.",
        ),
        (
            "Based on the execution results, the final answer to the original question is:"
            "\n\nT-015 is healthy.",
            "T-015 is healthy.",
        ),
        ('Observation: {"asset": "Chiller 9"}\nSo my final answer is: Chiller 6', "Chiller 6"),
        ("Tool said [3, 4].\n**The final answers are:** pumps P-1 and P-2", "pumps P-1 and P-2"),
        ("The final answer would be: Chiller 6", "Chiller 6"),
    ],
)
def test_an_inline_final_answer_phrase_is_a_marker(text: str, value: str) -> None:
    assert parse_answer_detailed(text) == Parsed(value, "final-answer+text", False)


@pytest.mark.parametrize(
    "text",
    [
        "The check blocked the final answer or work order: T-015 stays open.",
        "Note that the final answer should cite this evidence: {'x': 1}.",
        "It seems the final answer is that T-015 needs service.",
        "They gave a final answer: maybe.",  # no "the" / "my" / "our"
        "Our final answer is pending: the logs are missing.",  # the colon is not after "is"
    ],
)
def test_final_answer_in_prose_without_is_colon_is_not_a_marker(text: str) -> None:
    assert parse_answer_detailed(text).method in ("text", "candidate+literal")


def test_an_inline_marker_inside_a_json_string_does_not_cut_it() -> None:
    value = {"note": "the final answer is: 5", "n": 2}
    assert parse_answer('Result: {"note": "the final answer is: 5", "n": 2} ok') == value


@pytest.mark.parametrize(
    "text",
    [
        "Answered: {'x': 1}\n" + SMALL_JSON,
        "Results: {'x': 1}\n" + SMALL_JSON,
        "Responsible: {'x': 1}\n" + SMALL_JSON,
        "The answer: {'x': 1}\n" + SMALL_JSON,  # not at a line start
        "Answers: {'x': 1}\n" + SMALL_JSON,
    ],
)
def test_words_that_merely_contain_a_marker_never_cut_the_text(text: str) -> None:
    # §10.3: v1's unanchored regexes cut at "answer"/"result"/"response" anywhere.
    assert parse_answer(text) == SMALL


@pytest.mark.parametrize(
    "value",
    [
        {"response": "The result: 5", "answer": 3},
        {"result": {"Answer": 2}, "output": "Output low"},
        {"clarification": "Which answer: A or B?"},
    ],
)
def test_json_keys_and_values_never_cut_the_text(value: dict[str, Any]) -> None:
    import json

    assert parse_answer(json.dumps(value, indent=2)) == value
    assert parse_answer("Sure.\n" + json.dumps(value, indent=2)) == value
    assert parse_answer(repr(value)) == value


def test_unquoted_answer_key_inside_an_object_is_not_a_marker() -> None:
    assert parse_answer("Result object:\n{\n  answer: 5,\n  other: 6\n}") == {
        "answer": 5,
        "other": 6,
    }


# --- think blocks -------------------------------------------------------------------------------


def test_think_blocks_are_removed_first() -> None:
    # §10.11: v1's scorer read drafts inside <think>.
    text = (
        '<think>Maybe {"energy": 1}?\nFinal Answer: {"energy": 2}</think>\n'
        f"Here is the result: {SMALL_JSON}"
    )
    assert parse_answer_detailed(text) == Parsed(SMALL, "candidate+json", True)


def test_think_is_case_insensitive_and_thinking_counts() -> None:
    assert parse_answer(f'<THINK>{{"a": 1}}</Think>{SMALL_JSON}') == SMALL
    assert parse_answer(f'<thinking>{{"a": 1}}</thinking>\n{SMALL_JSON}') == SMALL


def test_stray_closing_think_drops_the_reasoning_before_it() -> None:
    assert parse_answer(f'draft {{"a": 1}}\n</think>\n{SMALL_JSON}') == SMALL


def test_unclosed_think() -> None:
    # Opening the text: only the tag goes, so an answer at the end of the reasoning survives.
    assert parse_answer(f"<think>Let me count... {SMALL_JSON}") == SMALL
    # After an answer: the reasoning tail goes.
    assert parse_answer(f'{SMALL_JSON}\n<think>or maybe {{"a": 1}}') == SMALL


def test_strip_think() -> None:
    assert strip_think("  <think>a</think> b <think>c</think> d ") == "b  d"
    assert strip_think("no tags here ") == "no tags here"
    assert strip_think("<think/>x") == "x"
    assert strip_think("x <thinker> y") == "x <thinker> y"


# --- structure inside prose ---------------------------------------------------------------------


def test_a_parenthetical_before_the_json_does_not_win() -> None:
    # §10.4: v1 took the first opener, "(see table)".
    assert parse_answer(f"Data (see table 2), here: {SMALL_JSON}") == SMALL
    assert parse_answer(f"Pairs (1, 2) then {SMALL_JSON}") == SMALL


def test_an_echoed_schema_early_in_the_text_does_not_win() -> None:
    text = f'The schema is {{"energy": "int", "material": "int"}}.\nMy result: {SMALL_JSON}'
    assert parse_answer(text) == SMALL


def test_the_outer_list_wins_not_its_last_element() -> None:
    assert parse_answer('Rows: [{"a": 1}, {"a": 2}] done') == [{"a": 1}, {"a": 2}]


def test_a_paren_candidate_when_nothing_else_is_there() -> None:
    assert parse_answer_detailed("The pairs are (('a', 1), ('b', 2)).") == Parsed(
        [["a", 1], ["b", 2]], "candidate+literal", True
    )


def test_apostrophes_and_stray_quotes_in_prose_do_not_break_scanning() -> None:
    text = f"I don't know (it's unclear; a 6\" pipe), but here's the data: {SMALL_JSON} isn't it"
    assert parse_answer(text) == SMALL


def test_empty_containers_and_arguments_in_prose_are_not_answers() -> None:
    assert parse_answer("* Notes: []\n* Status: open") == "* Notes: []\n* Status: open"
    assert parse_answer("call f(1, 2) on rows[0]") == "call f(1, 2) on rows[0]"


def test_a_truncated_answer_in_prose_is_closed() -> None:
    assert parse_answer('Result: {"a": 1, "b": [2, 3') == {"a": 1, "b": [2, 3]}


def test_truncated_answer_is_preferred_to_the_objects_inside_it() -> None:
    text = 'Calls: {"name": "f", "parameters": {"id": "T-1"}'
    assert parse_answer(text) == {"name": "f", "parameters": {"id": "T-1"}}


# --- repairs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # A real answer: four ";"-joined calls, the 2nd and 4th each missing a "}".
        ('Calls: {"n": "a", "p": {"x": 1}; {"n": "b", "p": {"x": 2}', {"n": "b", "p": {"x": 2}}),
        ('Draft {"a": 1, "b": 2 then final {"a": 3, "b": {"c": 4}', {"a": 3, "b": {"c": 4}}),
    ],
)
def test_the_last_unclosed_object_is_a_candidate_not_only_its_children(
    text: str, value: Any
) -> None:
    assert parse_answer(text) == value


def test_missing_closing_brace() -> None:  # DeepSynth Q31 shape
    assert parse_answer_detailed('{"a": "x", "b": 70.2') == Parsed(
        {"a": "x", "b": 70.2}, "repaired", True
    )


def test_set_and_dict_syntax_mixed() -> None:  # DeepSynth Q36 shape
    text = '{"Electric", 1353.7, "Hydrogen": 74.2, "Hybrid", 458.9}'
    assert parse_answer(text) == {"Electric": 1353.7, "Hydrogen": 74.2, "Hybrid": 458.9}


def test_an_unpairable_set_and_dict_mix_is_not_guessed() -> None:
    assert parse_answer_detailed('{"a", "b": 1}').structured is False


def test_raw_control_characters_inside_strings() -> None:  # DeepSynth Q43 shape
    assert parse_answer('{"Kosovo (under \nResolution 1244)": 2.8, "t": "a\tb"}') == {
        "Kosovo (under \nResolution 1244)": 2.8,
        "t": "a\tb",
    }


def test_unterminated_final_string() -> None:
    assert parse_answer('{"a": 1, "note": "cut off') == {"a": 1, "note": "cut off"}


def test_mismatched_and_stray_closers() -> None:
    assert parse_answer('{"a": [1, 2}') == {"a": [1, 2]}
    assert parse_answer('{"a": 1}}') == {"a": 1}


def test_missing_commas_between_values() -> None:
    assert parse_answer('[{"a": 1}\n {"a": 2}]') == [{"a": 1}, {"a": 2}]
    assert parse_answer('{"a": 1\n "b": 2}') == {"a": 1, "b": 2}


def test_two_top_level_objects_are_not_one_answer_the_last_wins() -> None:
    assert parse_answer('{"a": 1}\n{"a": 2}') == {"a": 2}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a" 1}', {"a": 1}),  # a comma here made the set {1, "a"}
        ('{"a" 1, "b" 2}', {"a": 1, "b": 2}),
        ('{"a": 1 "b" 2}', {"a": 1, "b": 2}),
        ('{"sensors" ["a", "b"]}', {"sensors": ["a", "b"]}),  # a comma here raised
        ('Final Answer: {"sensors" ["a", "b"]}', {"sensors": ["a", "b"]}),
        ('{"a": {"b" {"c" 1}}}', {"a": {"b": {"c": 1}}}),
    ],
)
def test_a_missing_colon_after_a_key_is_inserted(text: str, value: Any) -> None:
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method.endswith("repaired")) == (value, True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('The answer is {"b": 2}; the raw record was {[1], 2}.', {"b": 2}),
        ('The answer is {"b": 2}; see {"k": {[1]: 2}} too.', {"b": 2}),
        ('```json\n{"b": 2}\n```\n```\n{[1]: 2}\n```', {"b": 2}),
        ("{[1] 2}", "{[1] 2}"),  # the key the repair made is unhashable: not a value
        ("Notes: {[1]: 2} and more", "Notes: {[1]: 2} and more"),
    ],
)
def test_a_candidate_with_no_value_is_skipped_not_an_error(text: str, value: Any) -> None:
    # Only a whole answer the user wrote with an unhashable key is an error; a stray span in
    # prose, a fenced block or a repaired literal that has no value is just not the answer.
    assert parse_answer(text) == value


# --- counts -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("34", 34),
        ("The answer is 34.", 34),
        ("Final Answer: 34", 34),
        ("Final Answer: 34.", 34),
        ("**34**", 34),
        ("-2.5", -2.5),
        ("\u22122.5", -2.5),  # the minus sign U+2212, as typeset text writes it
        ("Final Answer: \u22125", -5),
        ("The total is \u22121,234.", -1234),
        ("1e3", 1000.0),
        ("1,234", 1234),
        ("The total is 1,234.", 1234),
        ("Total count: 12", 12),
        ("The result = 5", 5),
        ("Number of open work orders = 12", 12),
        ("Number of work orders that are open: 12", 12),  # a verb in the subject
        ("The count of pumps that were inspected = 7", 7),
        ("Total failures (which is what was asked): 4", 4),
        ("The number of pumps is 3.", 3),
        ("I checked every pump.\n\n34", 34),
        ("So the answer is 34. Let me know if you need more.", 34),
    ],
)
def test_counts(text: str, value: float) -> None:
    parsed = parse_answer_detailed(text)
    assert parsed.value == value
    assert type(parsed.value) is type(value)
    assert parsed.method.endswith("count")


@pytest.mark.parametrize(
    "text", ["answer:* *", "Final Answer: * *", "Answer: ** **", "Answer: *** ***"]
)
def test_a_marked_region_of_emphasis_alone_is_an_empty_answer(text: str) -> None:
    """It raised IndexError out of every entry point (review robust19)."""
    assert parse_answer_detailed(text) == Parsed("", "empty", False)
    assert not score(1, text).passed


@pytest.mark.parametrize(
    "text",
    [
        "FC101",
        "COMP-01",
        "FAN-01",
        "Chiller 6",
        "Pump 6",
        "45%",
        "45 kW",
        "The answer is 45%.",
        "There are 34 pumps.",
        "The sensor drifted, with a z-score of 3.054.",
        "007",
        "2020-06-26T11:14:36",
        "The serial number is 1000045.",  # "number" alone names an identifier
        "The model number is 4090.",
        "Logged, and the work order number is 1000045.",
        "Steps:\n1. Check the pump\n2.",  # a numbered list the model never finished
        "The result was significant at p = 0.05.",  # "=" after a variable states the variable
        "The result had p = 0.05.",
        "Result: significant, p = 0.05",
        "The total ratio was 3:1",  # a ":" after a digit: a ratio or a clock time
        "The answer is 7, observed at 10:30.",  # never the 30 of the clock time
        "The result was 4 alarms between 08:00 and 10:30",
    ],
)
def test_identifiers_and_units_never_collapse_to_numbers(text: str) -> None:
    # §10.1: v1 turned any text holding exactly one number into that number.
    assert parse_answer_detailed(text) == Parsed(text, "text", False)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"count": 5}', {"count": 5}),
        ("[5]", [5]),
        ('{"ok": true, "n": 1}', {"ok": True, "n": 1}),
        ('The answer is 34. Details: {"pumps": 34}', {"pumps": 34}),
    ],
)
def test_structure_beats_a_count(text: str, value: Any) -> None:
    assert parse_answer(text) == value


# --- fallback and strict ------------------------------------------------------------------------


def test_unparseable_text_is_returned_stripped() -> None:
    assert parse_answer_detailed("  The pump is fine.  \n") == Parsed(
        "The pump is fine.", "text", False
    )


def test_strict_mode_says_what_was_tried() -> None:
    with pytest.raises(AnswerParseError, match="bracketed candidate") as info:
        parse_answer("The pump (P-1) is fine.", strict=True)
    assert isinstance(info.value, ValueError)
    assert "The pump" in str(info.value)


def test_strict_mode_names_the_marker_region() -> None:
    with pytest.raises(AnswerParseError, match="after 'final-answer'"):
        parse_answer("Final Answer: unclear", strict=True)


def test_strict_mode_rejects_empty_answers() -> None:
    with pytest.raises(AnswerParseError):
        parse_answer("  ", strict=True)
    assert parse_answer("  ") == ""


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ("", "empty"),
        (" \n\t", "empty"),
        ('<think>drafting {"a": 1}</think>\n', "empty"),
        ("no answer", "text"),
    ],
)
def test_nothing_left_is_an_empty_answer_not_a_text_one(text: str, method: str) -> None:
    """Reports count empty answers apart from prose ones: 31 of the real smart-grid answers
    are empty, and the summary called them text fallbacks (audit 9)."""
    parsed = parse_answer_detailed(text)
    assert (parsed.method, parsed.structured) == (method, False)
    assert parsed.value == ("" if method != "text" else "no answer")


# --- hard limits --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        "{" * 100_000 + "}" * 100_000,
        "(" * 100_000 + ")" * 100_000,
        "[" * 100_000,
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        "Look: " + "[" * 100_000 + "]" * 100_000,
    ],
    ids=["lists", "braces", "parens", "unclosed", "dicts", "in-prose"],
)
@pytest.mark.parametrize("strict", [False, True])
def test_deep_nesting_is_a_limit_error_never_a_recursion_error(text: str, strict: bool) -> None:
    with pytest.raises(LimitError, match="max_depth=200"):
        parse_answer(text, strict=strict)


def test_depth_at_the_limit_passes_and_one_more_fails() -> None:
    """Depth counts non-empty containers: the innermost ``[]`` is a leaf, as in a value."""
    at_limit = "[" * DEFAULT_MAX_DEPTH + "1" + "]" * DEFAULT_MAX_DEPTH
    assert parse_answer(at_limit) is not None
    assert parse_answer("[" + "[" * DEFAULT_MAX_DEPTH + "]" * DEFAULT_MAX_DEPTH + "]") is not None
    with pytest.raises(LimitError):
        parse_answer("[" + at_limit + "]")


def test_max_depth_is_configurable_on_json_and_literal_paths() -> None:
    with pytest.raises(LimitError, match="max_depth=2"):
        parse_answer('{"a": {"b": [1]}}', max_depth=2)
    with pytest.raises(LimitError, match="max_depth=2"):
        parse_answer("{'a': {'b': [1]}}", max_depth=2)
    assert parse_answer('{"a": {"b": 1}}', max_depth=2) == {"a": {"b": 1}}


def test_a_wide_json_answer_is_within_the_depth_limit() -> None:
    rows = [{"row": i, "tags": [i]} for i in range(1000)]
    import json

    assert parse_answer(json.dumps(rows)) == rows


@pytest.mark.parametrize(
    "text",
    [
        "1" * 5000,
        "[" + "1" * 5000 + "]",
        "{'n': " + "1" * 5000 + "}",
        "The answer is:\n" + "1" * 5000,
    ],
)
def test_integers_over_4300_digits_are_a_limit_error(text: str) -> None:
    with pytest.raises(LimitError, match="digits"):
        parse_answer(text)


def test_a_stated_count_is_only_looked_for_near_the_end() -> None:
    # The statement rule reads the last 300 characters, so a huge number there is not a count.
    text = "The answer is " + "1" * 5000 + "."
    assert parse_answer(text) == text


def test_integers_of_4300_digits_and_long_digit_strings_are_fine() -> None:
    assert parse_answer("[" + "7" * MAX_INT_DIGITS + "]") == [int("7" * MAX_INT_DIGITS)]
    assert parse_answer('["' + "1" * 5000 + '"]') == ["1" * 5000]


@pytest.mark.parametrize("text", ["{[1]: 2}", "{[1], 2}", "{(1, [2]): 3}", "{'a': {{}: 1}}"])
def test_unhashable_literal_keys_are_a_clear_parse_error(text: str) -> None:
    with pytest.raises(AnswerParseError, match="unhashable") as info:
        parse_answer(text)
    assert not isinstance(info.value, LimitError)


def test_hashable_tuple_keys_are_kept() -> None:
    assert parse_answer("{(1, 2): 'x'}") == {(1, 2): "x"}


def test_input_size_limit() -> None:
    big = "a" * 11_000_000
    with pytest.raises(LimitError, match="max_bytes"):
        parse_answer(big)
    with pytest.raises(LimitError, match="max_bytes"):
        parse_answer(big.encode())
    with pytest.raises(LimitError, match="max_bytes"):
        parse_answer("é" * 6_000_000)  # 6 M characters, 12 MB of UTF-8


def test_max_bytes_is_configurable() -> None:
    with pytest.raises(LimitError):
        parse_answer(SMALL_JSON, max_bytes=10)
    assert parse_answer(SMALL_JSON, max_bytes=len(SMALL_JSON)) == SMALL


@pytest.mark.parametrize(
    "text",
    [
        "-" * 100_000 + "1",
        '"' * 100_000,
        "(it's " * 20_000,
        "```\n" * 20_000,
        "<think>" * 20_000,
        "answer: " * 20_000,
        "(" * 20_000 + "]" * 20_000,
    ],
)
def test_pathological_text_gives_text_or_a_clear_error(text: str) -> None:
    try:
        parsed = parse_answer_detailed(text)
    except AnswerParseError:
        return
    assert isinstance(parsed.value, (str, list, dict, int, float))


# --- an answer marker after a fenced block (issue 2 follow-up) ---------------------------------

TOOL_FENCE = '```json\n{"asset": "Chiller 9", "alerts": 4}\n```\n'


@pytest.mark.parametrize(
    ("text", "how"),
    [
        (TOOL_FENCE + "Final Answer: Chiller 6", "final-answer+text"),
        (TOOL_FENCE + "**Final Answer:** Chiller 6", "final-answer+text"),
        (TOOL_FENCE + "Answer: Chiller 6", "answer+text"),
        (TOOL_FENCE + "<answer>Chiller 6</answer>", "answer-tag+text"),
        ('~~~json\n{"asset": "Chiller 9"}\n~~~\nFinal Answer: Chiller 6', "final-answer+text"),
        (f"Final Answer: ```json {SMALL_JSON}```\nFinal Answer: Chiller 6", "final-answer+text"),
    ],
)
def test_a_marker_stating_an_answer_beats_an_earlier_fenced_block(text: str, how: str) -> None:
    assert parse_answer_detailed(text) == Parsed("Chiller 6", how, False)


def test_the_marker_text_after_a_fence_is_an_error_in_strict_mode() -> None:
    with pytest.raises(AnswerParseError, match="after 'final-answer'"):
        parse_answer(TOOL_FENCE + "Final Answer: Chiller 6", strict=True)


@pytest.mark.parametrize(
    ("after", "value"),
    [
        ('["Chiller 6", "Pump 2"]', ["Chiller 6", "Pump 2"]),
        ("{'asset': 'Chiller 6'}", {"asset": "Chiller 6"}),
        ('```json\n{"asset": "Chiller 6"}\n```', {"asset": "Chiller 6"}),
        ("2 alerts", "2 alerts"),
        ("The answer is 3.", 3),
    ],
)
def test_the_marker_content_is_parsed_on_its_own_after_a_fence(after: str, value: Any) -> None:
    assert parse_answer(TOOL_FENCE + "Final Answer: " + after) == value


@pytest.mark.parametrize(
    "pointer",
    [
        "see above",
        "See the JSON above.",
        "(see JSON above)",
        "As shown above.",
        "The above JSON is my answer.",
        "The JSON object above contains the counts.",
        "Same as the previous output.",
        "See the preceding JSON block.",
        "As stated previously.",
        "The answer is in the code block.",
        "In the JSON block.",
        "See the JSON block.",
        "see the JSON",
        "Refer to the JSON.",
    ],
)
def test_a_marker_pointing_back_uses_the_fenced_block(pointer: str) -> None:
    text = f"```json\n{SMALL_JSON}\n```\nFinal Answer: {pointer}"
    assert parse_answer_detailed(text) == Parsed(SMALL, "fence:json+json", True)


@pytest.mark.parametrize(
    "answer",
    [
        "The pump above the chiller failed.",
        "Oil temperature stayed above 80 C.",
        "Chiller 6 failed earlier.",
        "Replace the bearing; see above the motor housing for the part number",
        "All readings were checked and the value shown above is wrong because the sensor drifted",
        "The valve in block B failed.",
        "See the pump room.",
        "No code block needed, transformer T-12 is healthy.",
        "Transformer T-12 is overheating (json snippets were wrong).",
        "There is no JSON block because the tool failed",
        "The code block failed to run, so no result.",
        "see the json-formatted table",
        "The bug in the code block is fixed; Chiller 6 restarted.",
    ],
)
def test_prose_that_merely_says_above_is_the_answer(answer: str) -> None:
    assert parse_answer(f"```json\n{SMALL_JSON}\n```\nFinal Answer: {answer}") == answer


def test_an_empty_marker_after_a_fence_leaves_the_fence_as_the_answer() -> None:
    assert parse_answer(f"```json\n{SMALL_JSON}\n```\nFinal Answer:") == SMALL


@pytest.mark.parametrize(
    "tool_output",
    [
        '```json\n{"pattern": "{name}", "n": 1}\n```',  # a brace inside a string
        '{"pattern": "{name}", "rows": "[1"}',
        '{"rows": [1, 2',  # cut off before the marker
        "(see the log",
    ],
)
def test_brackets_in_tool_output_before_a_marker_do_not_hide_it(tool_output: str) -> None:
    # The marker used to count as inside an open bracket, so the tool output won.
    text = f"Observation: {tool_output}\nFinal Answer: Chiller 6"
    assert parse_answer_detailed(text) == Parsed("Chiller 6", "final-answer+text", False)


def test_a_pointer_never_pulls_in_bare_tool_output() -> None:
    assert parse_answer(f"Observation: {SMALL_JSON}\nFinal Answer: see above") == "see above"


# --- citations in prose (issue 2 follow-up) -----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The pump failed [1]. Replace it.",
        "The pump failed [1].",
        "Bearing wear is likely [2, 3]; replace the bearing [4-5].",
        "See [4] for details",
        "Final Answer: the pump failed [1].",
        "[1] IEEE C57.104\n[2] IEC 60599",
        "See [1](https://example.org/ieee) for the limits.",
        "The pump failed [1][2].",
        "The pump failed.\n\nSources: [1]",
        "The pump failed.\nReferences: [1], [2]",
        "The pump failed.\n**Sources:** [1] [3-4]",
        "Replace the bearing (see also: [2]).",
        "Replace the bearing.\nCitations: [1]; [2]",
    ],
)
def test_footnote_citations_in_prose_are_not_answers(text: str) -> None:
    # A footnote marker in prose used to parse as the list [1].
    parsed = parse_answer_detailed(text)
    assert parsed.structured is False
    assert parsed.value == text.removeprefix("Final Answer: ")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[1]", [1]),
        ("Final Answer: [1]", [1]),
        ("Answer:\n[3, 5, 7]", [3, 5, 7]),
        ("<answer>[1]</answer>", [1]),
        ("I counted the open orders per site.\n[3, 5, 7]", [3, 5, 7]),
        ("I counted them.\n- [3, 5]", [3, 5]),
        ("The counts are [3, 5, 7].", [3, 5, 7]),
        ("The answer is [1].", [1]),
        ("Counts per site: [3, 5, 7] (from the work orders).", [3, 5, 7]),
        ("n = [2]", [2]),
        ("Sensor ids [1001, 1002] were flagged.", [1001, 1002]),  # not footnote numbers
        ("Offsets [-1, 2] were applied.", [-1, 2]),
        ("```json\n[1]\n```", [1]),
        ("Resources: [4, 2]", [4, 2]),  # a word that only ends like a source label
        ("Source counts: [3, 5]", [3, 5]),
    ],
)
def test_lists_of_counts_are_still_answers(text: str, value: Any) -> None:
    assert parse_answer(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (f"Result: {SMALL_JSON} [1]", SMALL),
        ("The counts are [3, 5] [1].", [3, 5]),
        (f"Here it is: {SMALL_JSON}. Sources: IEEE [1], IEC [2].", SMALL),
    ],
)
def test_a_citation_after_the_answer_does_not_replace_it(text: str, value: Any) -> None:
    assert parse_answer(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [("The answer is 34 [1].", 34), ("The total is 1,234 [2][3].", 1234), ("34 [1]", 34)],
)
def test_citations_do_not_hide_a_stated_count(text: str, value: int) -> None:
    assert parse_answer_detailed(text) == Parsed(value, "count", True)


# --- tilde fences (issue 2 follow-up) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "how"),
    [
        (f"~~~json\n{SMALL_JSON}\n~~~", "fence:json+json"),
        (f"~~~\n{SMALL_JSON}\n~~~", "fence+json"),
        (f"~~~ JSON title=counts\n{SMALL_JSON}\n~~~", "fence:json+json"),
        ("~~~python\n{'energy': 14, 'material': 48}\n~~~", "fence:python+literal"),
        (f"Here you go:\n\n  ~~~~json\n{SMALL_JSON}\n  ~~~~~\nAnything else?", "fence:json+json"),
        (f"Final Answer:\n~~~json\n{SMALL_JSON}\n~~~", "final-answer+fence:json+json"),
        (f'~~~json\n{{"energy": 1}}\n~~~\nFixed:\n~~~json\n{SMALL_JSON}\n~~~', "fence:json+json"),
        (f"~~~json\n{SMALL_JSON}", "fence:json+json"),  # unclosed: a truncated answer
        (f'```json\n{{"energy": 1}}\n```\nFixed:\n~~~json\n{SMALL_JSON}\n~~~', "fence:json+json"),
        (f'~~~json\n{{"energy": 1}}\n~~~\nFixed:\n```json\n{SMALL_JSON}\n```', "fence:json+json"),
    ],
)
def test_tilde_fences(text: str, how: str) -> None:
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method) == (SMALL, how)


def test_backticks_inside_a_tilde_fence_and_tildes_inside_a_backtick_fence_are_content() -> None:
    # The ``` line does not close the ~~~ block, so the block is not one JSON value: the
    # object is a candidate inside it.
    assert parse_answer_detailed('~~~json\n{"md": "```"}\n```\n~~~') == Parsed(
        {"md": "```"}, "fence:json+candidate+json", True
    )
    assert parse_answer_detailed('~~~json\n{"md": "```"}\n~~~').method == "fence:json+json"
    assert parse_answer_detailed('```json\n{"md": "~~~"}\n```').method == "fence:json+json"


def test_a_tilde_fence_closes_only_with_a_tilde_run_at_least_as_long() -> None:
    # The inner runs are content, so the block is not JSON and its candidates are read.
    for text in (f"~~~~json\n{SMALL_JSON}\n~~~\n~~~~", f"~~~json\n{SMALL_JSON}\n```\n~~~"):
        assert parse_answer_detailed(text) == Parsed(SMALL, "fence:json+candidate+json", True)


def test_tildes_inside_prose_are_not_fences() -> None:
    parsed = parse_answer_detailed(f"Final Answer: ~~~json {SMALL_JSON} ~~~")
    assert parsed == Parsed(SMALL, "final-answer+candidate+json", True)
    assert parse_answer("roughly ~~~ 5 units") == "roughly ~~~ 5 units"


# --- \boxed{...} answers (real agent output) -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ("The answer is $\\boxed{34}$.", 34, "boxed+count"),
        ("\\boxed{\\text{Chiller 6}}", "Chiller 6", "boxed+text"),
        (
            'Therefore, the final answer is: $\\boxed{"No readings."}$',
            "No readings.",
            "final-answer+boxed+json",
        ),
        (f"Final Answer: $\\boxed{{{SMALL_JSON}}}$", SMALL, "final-answer+boxed+json"),
        ("First \\boxed{1}, corrected: \\boxed{2}", 2, "boxed+count"),
        ("\\frac{1}{2} of it, so \\boxed{\\{1, 2\\}}", "\\{1, 2\\}", "boxed+text"),  # math
        # LaTeX's escaped braces around an object are braces (review realdata18)
        ('$\\boxed{\\{"a": -0.48, "b": 2\\}}$', {"a": -0.48, "b": 2}, "boxed+json"),
        ("\\boxed{\\left\\{1,2\\right\\}}", "\\left\\{1,2\\right\\}", "boxed+text"),  # (diff18a)
        ("So \\boxed{x \\in \\{1,2\\}}", "x \\in \\{1,2\\}", "boxed+text"),
        # diff32b #4: in display math, \[ ... \], whose [ opens no bracket
        ("The answer is \\[\\boxed{34}\\]", 34, "boxed+count"),
        ("\\[ \\boxed{\\text{Yes}} \\]", "Yes", "boxed+text"),
    ],
)
def test_a_boxed_answer(text: str, value: Any, how: str) -> None:
    assert parse_answer_detailed(text) == Parsed(value, how, not how.endswith("text"))


def test_a_box_in_display_math_keeps_its_percent_and_scale() -> None:
    """diff32b #4: read without its box, ``\\[\\boxed{45}\\%\\]`` was the count 45 and
    ``\\[\\boxed{3}\\text{ million}\\]`` the count 3."""
    from pytest_structeval import score

    assert not score(45, "\\[\\boxed{45}\\%\\]").passed
    assert not score(3, "\\[\\boxed{3}\\text{ million}\\]").passed
    assert score(3_000_000, "\\[\\boxed{3}\\text{ million}\\]").passed


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('Result: {"tex": "\\\\boxed{5}"}', {"tex": "\\boxed{5}"}),  # inside a JSON string
        ("\\boxed{1", "\\boxed{1"),  # unclosed
        ("\\boxed{}", "\\boxed{}"),  # empty
    ],
)
def test_what_is_not_a_boxed_answer(text: str, value: Any) -> None:
    assert parse_answer(text) == value


def test_bracketed_candidates_are_tried_up_to_a_bound() -> None:
    """1 MB of ``()`` holds 500,000 spans: the work per answer is bounded, in preference
    order (latest end first), and the error says how many were tried."""
    answer = '{"a": 1, "b": 2} '
    within = parse_answer_detailed(answer + "[] " * (MAX_CANDIDATES - 1))
    assert (within.value, within.method) == ({"a": 1, "b": 2}, "candidate+json")
    beyond = answer + "[] " * MAX_CANDIDATES
    assert not parse_answer_detailed(beyond).structured
    with pytest.raises(AnswerParseError, match=f"the first {MAX_CANDIDATES} of 10001 bracketed"):
        parse_answer_detailed(beyond, strict=True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1, "b": ', {"a": 1}),
        ('{"a": 1, "b"', {"a": 1}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": {"b": 1, "c"', {"a": {"b": 1}}),
        ('Final Answer: {"x": {"y": 2, "z": ', {"x": {"y": 2}}),
        ("{unquoted: 1, key", {"unquoted": 1}),
        ('{"b": ', {}),
        ("{1, 2, 3", [1, 2, 3]),  # a set's last element is complete: kept
        # Cut after an object's first key (parseaudit22 #1): an object, never a set.
        ('{"b": {"c"', {"b": {}}),
        ('{"name": "x", "parameters": {"st', {"name": "x", "parameters": {}}),
        ('[{"id": 1, "v": 2}, {"id"', [{"id": 1, "v": 2}, {}]),
        ("{'a': {'b'", {"a": {}}),
        ('{"a", "b"', ["a", "b"]),  # two strings and no colon: a set
        ("{1", [1]),
    ],
)
def test_a_key_cut_off_before_its_value_is_dropped(text: str, value: Any) -> None:
    """A truncated answer (the model hit its token limit) gave text when the cut fell after a
    key; the complete items are the answer (audit 10, finding 8)."""
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.structured) == (value, True)
    assert parsed.method.endswith("repaired")


# --- markdown emphasis and inline code around a stated answer --------------------------------


@pytest.mark.parametrize(
    ("text", "value", "how"),
    [
        ("Final Answer: **Chiller 6**", "Chiller 6", "final-answer+text"),
        ("Final Answer: *Chiller 6*", "Chiller 6", "final-answer+text"),
        ("Final Answer: ***Chiller 6***", "Chiller 6", "final-answer+text"),
        ("Final Answer: `T-011`", "T-011", "final-answer+text"),
        ("**Final Answer:** **Chiller 6**", "Chiller 6", "final-answer+text"),
        ("Final Answer:\n**Chiller 6**", "Chiller 6", "final-answer+text"),
        ("The final answer is: **Chiller 6**", "Chiller 6", "final-answer+text"),
        ("<answer>**T-011**</answer>", "T-011", "answer-tag+text"),
        ("**Chiller 6**", "Chiller 6", "text"),
        # the bold opened before the marker closes after the value
        ("**Final Answer: Chiller 6**", "Chiller 6", "final-answer+text"),
        ("* **Final Answer: Chiller 6**", "Chiller 6", "final-answer+text"),
        ("Thus **the final answer is: Chiller 6**", "Chiller 6", "final-answer+text"),
        ("**Final Answer:**Chiller 6", "Chiller 6", "final-answer+text"),
        # the inner text is parsed as any stated value
        ("Final Answer: **True**", True, "final-answer+literal"),
        ("Final Answer: **34**", 34, "final-answer+count"),
        ('Final Answer: *"Chiller 6"*', "Chiller 6", "final-answer+json"),
        ('Final Answer: **{"a": 1}**', {"a": 1}, "final-answer+json"),
        # a closing "." after the run, an opening run never closed (a cut answer), CRLF lines
        ("Final Answer: **Chiller 6**.", "Chiller 6", "final-answer+text"),
        ("The final answer is: **Chiller 6**.", "Chiller 6", "final-answer+text"),
        ("Final Answer: **Chiller 6", "Chiller 6", "final-answer+text"),
        ("Final Answer: *Chiller 6", "Chiller 6", "final-answer+text"),
        ("**Final Answer: Chiller 6**\r\n", "Chiller 6", "final-answer+text"),
        ("**Final Answer: Chiller 6**\r\nmore", "Chiller 6\r\nmore", "final-answer+text"),
    ],
)
def test_emphasis_around_a_stated_answer_is_markup(text: str, value: Any, how: str) -> None:
    # It was kept half: "Final Answer: **Chiller 6**" gave "Chiller 6**" (the marker ate the
    # opening run), and "Final Answer: **True**" the text "True**" instead of True.
    assert parse_answer_detailed(text) == Parsed(value, how, not how.endswith("text"))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("**a** and **b**", "**a** and **b**"),  # two runs: not one wrapped value
        ("Final Answer: **a** and **b**", "**a** and **b**"),
        ("Final Answer: Chiller **6**", "Chiller **6**"),
        ("Final Answer: **2*3**", "**2*3**"),
        ("Answer: __init__", "__init__"),  # underscores: a name, never emphasis
        ("Answer: _Chiller_6_", "_Chiller_6_"),
        ("**Final Answer:** Chiller 6", "Chiller 6"),  # the marker's own bold
        ("Final Answer:\n* Chiller 6\n* Chiller 7", "* Chiller 6\n* Chiller 7"),  # bullets
        ("Final Answer: Chiller 6*", "Chiller 6*"),  # a footnote mark, not a closing run
    ],
)
def test_emphasis_that_is_not_around_the_whole_value_stays(text: str, value: str) -> None:
    assert parse_answer(text) == value


def test_an_answer_in_emphasis_parses_as_the_bare_answer_would() -> None:
    # Unwrapping is markup only: the last candidate still wins (an agent corrects itself), as
    # for the same text without the emphasis; a marker's "leading value" rule does not apply.
    text = '{"a": 1} or maybe {"a": 2}'
    assert parse_answer(f"**{text}**") == parse_answer(f"`{text}`") == parse_answer(text)


# --- findings of the session-13 review: each case gave another value or method before ----


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        # A YAML block's "answer:" key is the block's key, not an answer marker.
        ("```yaml\nanswer: 5\nconfidence: 0.9\n```", {"answer": 5, "confidence": 0.9}, None),
        ("Final Answer: 5\n\nDetails:\n```yaml\nanswer: 6\nsource: meter\n```", 5, None),
        # An unquoted "answer:" key of tool output gives way to the marker before it.
        ("Final Answer: 5\nDebug payload: {\nanswer: 6,\nok: true\n}", 5, None),
        # Think and answer tags named inside strings are no tags.
        (
            'Verdict: {"score": 2, "reason": "the model leaked its <think> block"}',
            {"score": 2, "reason": "the model leaked its <think> block"},
            "candidate+json",
        ),
        (
            'Final Answer: {"html": "<answer>42</answer>", "ok": true}',
            {"html": "<answer>42</answer>", "ok": True},
            "final-answer+json",
        ),
        (
            'Final Answer: {"tags": ["<think>", "</think>"], "n": 2}',
            {"tags": ["<think>", "</think>"], "n": 2},
            "final-answer+json",
        ),
        ('```\n[{"<think>": null}]\n```', [{"<think>": None}], "fence+json"),
        # A think block ends at its first closing tag: a "<think>" inside it is text.
        ("Sure.<think>I must not print a <think> tag again.</think>\nFinal Answer: 5", 5, None),
        # Backticks inside a JSON string open no block.
        (
            '{"language": "json", "fence": "```"}\nThat is all.',
            {"language": "json", "fence": "```"},
            "candidate+json",
        ),
        # Tool output cut off before a "Final Answer:" at the very start of the text.
        ('{"tool": "get", "output": "T-015 oil temp 81 C, cut off...\nFinal Answer: 42', 42, None),
        ('"\nFinal Answer: [null]', [None], "final-answer+json"),
        # Dashed numbers are no numbers missing commas: no invented keys.
        ('{"date": 2024-12-15, "count": 3}', '{"date": 2024-12-15, "count": 3}', "text"),
        ("[2024-12-15]", "[2024-12-15]", "text"),
        # Python floats with a trailing dot (numpy's style) inside containers.
        ("[1., 2., 3.]", [1.0, 2.0, 3.0], "literal"),
        ("{'a': 5.}", {"a": 5.0}, "literal"),
    ],
)
def test_review_findings_parse_as_written(text: str, value: Any, method: str | None) -> None:
    parsed = parse_answer_detailed(text)
    assert parsed.value == value
    assert type(parsed.value) is type(value)
    if method is not None:
        assert parsed.method == method


@pytest.mark.parametrize(
    "text",
    [
        "{\n  answer: 5,\n  b: [1, 2",  # a truncated value whose own key reads "answer:"
        '{\n  "answer": 5,\n  "b": [1, 2',
    ],
)
def test_a_truncated_value_keeps_its_answer_key(text: str) -> None:
    assert parse_answer_detailed(text).value == {"answer": 5, "b": [1, 2]}


def test_a_trailing_dot_ends_a_count_not_a_float() -> None:
    parsed = parse_answer_detailed("Final Answer: 5.")
    assert parsed.value == 5
    assert type(parsed.value) is int


class _ScanCounter(str):
    """A text that counts the characters ``find`` scans (the cost of a fence search)."""

    scanned = 0

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        found = super().find(sub, start, end)
        stop = (len(self) if end is None else end) if found < 0 else found + len(sub)
        _ScanCounter.scanned += stop - (start or 0)
        return found


def test_fence_search_is_linear_on_many_tilde_fences() -> None:
    text = _ScanCounter("~~~\n" * 5_000)
    _ScanCounter.scanned = 0
    assert len(_fences(text)) == 2_500
    assert _ScanCounter.scanned < 4 * len(text)  # it was quadratic: 2,500 scans to the end


def test_fenced_blocks_decoded_are_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_structeval.parse as parse_module

    calls = 0
    real = parse_module._from_block

    def counting(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        return real(*args)

    monkeypatch.setattr(parse_module, "_from_block", counting)
    parse_answer_detailed("```\n{{\n```\n{" * 30_000)  # (one line of spans: code, no blocks)
    assert 0 < calls <= parse_module.MAX_CANDIDATES


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_depth": "5"}, "max_depth must be a positive integer, got '5'"),
        ({"max_depth": None}, "max_depth must be a positive integer, got None"),
        ({"max_bytes": 0}, "max_bytes must be a positive integer, got 0"),
        ({"max_depth": True}, "max_depth must be a positive integer, got True"),
        ({"strict": 1}, "strict must be true or false, got 1"),
    ],
)
def test_bad_parse_options_are_options_errors(options: dict[str, Any], message: str) -> None:
    from pytest_structeval.errors import OptionsError

    with pytest.raises(OptionsError, match=re.escape(message)):
        parse_answer("[1]", **options)


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        # An escaped backslash before a closing quote is no escaped quote.
        ('{"v": 2} "C:\\\\" <think>draft {"bad": 1}</think> done', {"v": 2}, "candidate+json"),
        ('{"path": "C:\\\\"} <answer>5</answer>', 5, "answer-tag+count"),
        # A tag with a partner is a real block, whatever quotes come before it.
        ('Some 5" pipe <answer>42</answer>', 42, "answer-tag+count"),
        ('He said: "ok <answer>{"a": 1}</answer>', {"a": 1}, "answer-tag+json"),
        ('Size: 5" <think>draft {"bad": 1}</think>', 'Size: 5"', "text"),
        # An answer tag inside a complete value's string does not make it "cut off".
        (
            '{"steps": ["a"], "summary": "done\n<answer>42</answer>", "answer": 42}',
            {"steps": ["a"], "summary": "done\n<answer>42</answer>", "answer": 42},
            "repaired",
        ),
        ("See note [2.] for details.", "See note [2.] for details.", "text"),  # a footnote
        ("[1.e-05, 2.e+00]", [1e-05, 2.0], "literal"),  # numpy's exponent style
        ('I must not leak my `<think>` block.\n{"a": 1}', {"a": 1}, "candidate+json"),
    ],
)
def test_second_review_findings_parse_as_written(text: str, value: Any, method: str) -> None:
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method) == (value, method)


def test_markers_inside_brackets_are_tried_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pytest_structeval.parse as parse_module

    calls = 0
    real = parse_module._inside_brackets

    def counting(text: str, pos: int) -> bool:
        nonlocal calls
        calls += 1
        return real(text, pos)

    monkeypatch.setattr(parse_module, "_inside_brackets", counting)
    parse_answer_detailed("Here is the data:\n[\n" + "answer: 1,\n" * 2_000 + "]\nDone.")
    assert 0 < calls <= 2 * parse_module._MARKER_TRIES  # each try scanned the whole text


def test_the_yaml_block_lookup_answers_every_position() -> None:
    from pytest_structeval.parse import _fence_spans, _in_yaml_block

    text = "a\n```yaml\nanswer: 1\n```\nb\n```json\n{}\n```\n~~~yml\nanswer: 2\n~~~\nc"
    inside = _in_yaml_block(text)
    spans = [(a, b) for lang, a, b in _fence_spans(text) if lang in ("yaml", "yml")]
    assert len(spans) == 2
    for pos in range(len(text)):
        assert inside(pos) == any(a <= pos < b for a, b in spans)


def test_a_stated_count_with_an_upper_case_exponent() -> None:
    """``1E3`` is a float as ``1e3`` is; the stated count must not read it as an int
    (review mutants16-core p23)."""
    parsed = parse_answer_detailed("The answer is 1E3.")
    assert parsed == Parsed(1000.0, "count", True)
    assert type(parsed.value) is float


def test_a_number_after_a_finished_numbered_item_is_a_count() -> None:
    """Only a last line like ``2.`` is an unfinished list item; a bare number after a
    finished item is the answer (review mutants16-core p25)."""
    assert parse_answer_detailed("Steps:\n1. Count the pumps\n34") == Parsed(34, "count", True)


def test_a_list_after_a_long_introducing_word_is_no_citation() -> None:
    """The words "were" and "equals" introduce a value as "are" does: the list after them is
    no footnote marker (review mutants16-core p18)."""
    for text in [
        "The failure counts were [3, 5] in the last audit.",
        "The answer equals [3, 5] in the last audit.",
    ]:
        assert parse_answer_detailed(text) == Parsed([3, 5], "candidate+json", True)


def test_a_footnote_marker_has_at_most_three_digits() -> None:
    """[100] in prose is a citation; [1000] is a value, not a footnote
    (review mutants16-core p20)."""
    cited = "The pump failed [100]. Replace it."
    assert parse_answer_detailed(cited) == Parsed(cited, "text", False)
    assert parse_answer_detailed("The pump failed [1000]. Replace it.") == Parsed(
        [1000], "candidate+json", True
    )


def test_a_stray_closing_think_after_a_closed_block_drops_the_text_before_it() -> None:
    """A second ``</think>`` still ends the reasoning: the draft answer before it is gone
    (review mutants16-core p3)."""
    text = 'Final Answer: {"a": 0}\n<think>plan</think>\nrevising </think>\n{"a": 1}'
    assert parse_answer_detailed(text) == Parsed({"a": 1}, "json", True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('Result: {"code": "```", "ids": [1, 2]} done.', {"code": "```", "ids": [1, 2]}),
        ('Here: {"```": [null]} ok', {"```": [None]}),
        ('Final Answer: ```json {"a": 1}```', {"a": 1}),  # a closed mid-line fence stays one
        ('Truncated:\n```json\n{"a": 1, "b": [1, 2', {"a": 1, "b": [1, 2]}),
        ("Here is the config: ```yaml\nname: x\nitems: [1, 2]\n", {"name": "x", "items": [1, 2]}),
    ],
)
def test_an_unclosed_fence_runs_to_the_end_only_when_it_opens_a_line(
    text: str, value: object
) -> None:
    """A ``` inside a JSON string in prose opened a "block" holding the object's tail, so
    the answer was ``[1, 2]`` (review mutants16-core; the property test
    ``test_wrapped_values_parse_back`` found it at random with ``{'```': [None]}``)."""
    assert parse_answer(text) == value


# --- typeset and CJK text (review realdata18) ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        (
            '{"Myanmar": \u22120.48, "Thailand": \u22120.42}',
            {"Myanmar": -0.48, "Thailand": -0.42},
            "literal",
        ),
        ("[\u22121, 2]", [-1, 2], "literal"),
        ('{"a": 1.5e\u22123}', {"a": 0.0015}, "literal"),  # (unicode32: in an exponent too)
        ('{"a": \u2212Infinity, "b": \u2212inf}', {"a": -math.inf, "b": -math.inf}, "literal"),
        (
            "{\u201cMyanmar\u201d: -0.48, \u201cThailand\u201d: -0.42}",
            {"Myanmar": -0.48, "Thailand": -0.42},
            "literal",
        ),
        ("{\u201ca\u201d: \u201cit\u2019s \\n\u201d}", {"a": "it\u2019s \\n"}, "literal"),
        ('{"a"\uff1a 1\uff0c "b"\uff1a 2}', {"a": 1, "b": 2}, "literal"),
        ('{"q": "He said \u201chi\u201d"}', {"q": "He said \u201chi\u201d"}, "json"),
        ("{\u201ca\u201d: 1, \u201cb", {"a": 1}, "repaired"),
    ],
)
def test_typographic_quotes_minus_signs_and_full_width_punctuation(
    text: str, value: Any, method: str
) -> None:
    assert parse_answer_detailed(text) == Parsed(value, method, True)


def test_the_final_object_with_minus_signs_wins_over_a_draft() -> None:
    text = 'Draft: {"Myanmar": -0.5}. Final: {"Myanmar": \u22120.48, "Thailand": \u22120.42}'
    assert parse_answer(text) == {"Myanmar": -0.48, "Thailand": -0.42}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"Italy": {"30-39": 1,871}}', {"Italy": {"30-39": 1871}}),
        ('{"Algebra": 2,116, "Analysis": 588}', {"Algebra": 2116, "Analysis": 588}),
        ('{"a": 1,234,567.5, "b": -1,000}', {"a": 1234567.5, "b": -1000}),
        ('{"a": 12,345', {"a": 12345}),  # cut off
    ],
)
def test_thousands_separators_in_an_object_number(text: str, value: Any) -> None:
    assert parse_answer_detailed(text) == Parsed(value, "repaired", True)
    assert parse_answer(text, repair=False) == text  # a repair, refused as any other


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[1,871]", [1, 871]),  # a list of two numbers
        ('{"a": [1,234]}', {"a": [1, 234]}),
        ('{"a": 1,234: 5}', {"a": 1, 234: 5}),  # a key follows
        ('{"a": 1,23}', '{"a": 1,23}'),  # not a thousands group: no reading
        ('{"a": 0,123}', '{"a": 0,123}'),
        ('{"a": 1, 234}', '{"a": 1, 234}'),  # a space: an item, not a group
    ],
)
def test_commas_that_are_no_thousands_separators(text: str, value: Any) -> None:
    assert parse_answer(text) == value


def test_a_full_width_comma_is_no_thousands_separator() -> None:
    """CJK text writes thousands with an ASCII comma; ``，`` separates items (diff18a)."""
    assert parse_answer('{"scores": 85\uff0c120}') == '{"scores": 85\uff0c120}'
    assert parse_answer('{"a": 85\uff0c "b": 120}') == {"a": 85, "b": 120}


# --- templates echoed after the answer (review realdata18) -----------------------------------

COUCHDB_TEMPLATE = (
    '{"asset": "<asset name as recorded in the asset registry>", "sensor": "<exact sensor name>"}'
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            '{"asset": "Chiller 6", "sensor": "Chiller 6 Condenser Water Flow"}\n\n'
            f"Template used: {COUCHDB_TEMPLATE}",
            {"asset": "Chiller 6", "sensor": "Chiller 6 Condenser Water Flow"},
        ),
        ('{"a": "x"} and the format was {"a": "\u2039your value here>"}', {"a": "x"}),
        (f"Use this format: {COUCHDB_TEMPLATE}", parse_answer(COUCHDB_TEMPLATE)),  # only one
        # HTML tags are no placeholders: the last span wins as ever
        ('Tags: {"tag": "<div>"} then {"tag": "<a href=\\"x y\\">"}', {"tag": '<a href="x y">'}),
        ('{"a": "x"} then {"a": "<b>", "c": "<i>"}', {"a": "<b>", "c": "<i>"}),
    ],
)
def test_a_template_of_placeholders_loses_to_an_answer(text: str, value: Any) -> None:
    assert parse_answer(text) == value


_PLACEHOLDER_BY_DEFINITION = re.compile(  # session 18's form: quadratic on "<a a a ..."
    r"\s*[<\u2039][^<>\u2039\u203a=\"']*\s[^<>\u2039\u203a=\"']*[>\u203a]\s*"
)


@given(st.text(alphabet="<>\u2039\u203a a=\"'\t\n", max_size=12))
def test_the_placeholder_pattern_keeps_its_definition(text: str) -> None:
    """Rewritten with a lookahead, as a 44 KB answer took seconds (review robust19)."""
    from pytest_structeval.parse import _PLACEHOLDER

    expected = _PLACEHOLDER_BY_DEFINITION.fullmatch(text) is not None
    assert (_PLACEHOLDER.fullmatch(text) is not None) == expected


# -- mutation survivors (review mutants18b) --------------------------------------------------


from pytest_structeval.parse import Parsed  # noqa: E402


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1,234.5,678}',  # p11: a decimal point ends the groups
        '{"a": 0,123.5}',  # p13: no number starts with 0 before a group
        '{"a": 1234,567}',  # p14: a group follows at most three digits
    ],
)
def test_no_thousands_group_here(text: str) -> None:
    assert parse_answer_detailed(text) == Parsed(text, "text", False)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"n": 1,871, "m", 5}', {"n": 1871, "m": 5}),  # a group, then a k, v item
        ('{"a", 1, "b": 2, "c":', {"a": 1, "b": 2}),  # a dangling key cut after k, v items
    ],
)
def test_a_taken_back_comma_keeps_its_items_colon(text: str, value: Any) -> None:
    assert parse_answer_detailed(text) == Parsed(value, "repaired", True)


def test_a_cut_off_typographic_string_keeps_its_text() -> None:
    assert parse_answer_detailed("{\u201ca\u201d: \u201cxyz") == Parsed(
        {"a": "xyz"}, "repaired", True
    )


def test_an_unclosed_typographic_string_alone_is_no_reading() -> None:
    text = "```json\n\u201cabc\n```"
    assert parse_answer_detailed(text) == Parsed("\u201cabc", "fence:json+text", False)


# --- parseaudit27: cut-off tool output on real agent answers ----------------------------------

# The shape of a real hpml_smartgrid answer: tool output cut off inside its string.
_CUT_STRING = (
    '{"output": "{\\n  \\"transformer_id\\": \\"T-005\\",\\n  \\"timestamp\\": \\"2024-01-05'
)


@pytest.mark.parametrize(
    ("after", "value", "method"),
    [
        ("\n\nFinal Answer: Yes", "Yes", "final-answer+text"),
        ("\n\nFinal Answer: The peak was 324.335 A.", "The peak was 324.335 A.", None),
        ("\n<answer>Chiller 6</answer>", "Chiller 6", "answer-tag+text"),
        ("\n\nFinal Answer: see above", "see above", "final-answer+text"),  # no pull-in
        ("\n\nFinal Answer: 42", 42, "final-answer+count"),
    ],
)
def test_a_marked_text_answer_beats_cut_off_tool_output(
    after: str, value: Any, method: str | None
) -> None:
    # The repaired tool output came back whenever the marked answer was text (its raw
    # newlines read as part of the open string), against "only when nothing marked is".
    parsed = parse_answer_detailed(_CUT_STRING + after)
    assert parsed.value == value
    if method is not None:
        assert parsed.method == method


def test_a_marked_text_answer_after_cut_off_tool_output_scores() -> None:
    assert score("Yes", _CUT_STRING + "\n\nFinal Answer: Yes").score == 1.0


def test_cut_off_tool_output_with_an_empty_marker_is_still_read() -> None:
    parsed = parse_answer_detailed(_CUT_STRING + "\n\nFinal Answer:")
    assert parsed.method == "repaired"
    assert parsed.value["output"].startswith('{\n  "transformer_id"')


_CUT_OBJECT = '{"id": "T-015", "rows": [\n  {"t": "21:00", "v": 98.8},\n  {"t": "22:00", "v": 99'


@pytest.mark.parametrize(
    "note",
    [
        "",
        " ...",
        "...",
        "\u2026",
        "\n[output truncated]",
        "   \u2026[truncated 926 chars]",
        " (3 more)",
        " <snip>",
    ],
)
def test_a_note_after_a_cut_off_value_never_leaves_an_inner_fragment(note: str) -> None:
    # With a note after the cut, the innermost complete row came back as a complete
    # "candidate+json", and repair=False returned that fragment instead of refusing.
    expected = {"id": "T-015", "rows": [{"t": "21:00", "v": 98.8}, {"t": "22:00", "v": 99}]}
    for text in (_CUT_OBJECT + note, "Tool said: " + _CUT_OBJECT + note):
        parsed = parse_answer_detailed(text)
        assert parsed.value == expected, text
        assert "repaired" in parsed.method
        refused = parse_answer_detailed(text, repair=False)
        assert refused.method.endswith("+refused")
        assert not refused.structured
    gold = {"id": "T-015", "rows": [{"t": "21:00", "v": 98.8}, {"t": "22:00", "v": 99.1}]}
    assert score(gold, _CUT_OBJECT + note, parse_repairs=False).score == 0.0


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1} ...', {"a": 1}),  # complete, then prose: the span as it is
        ('{"a": [1, 2]} and 3 more', {"a": [1, 2]}),
        ("Loading... [truncated]", "Loading... [truncated]"),  # no value at all
    ],
)
def test_a_complete_value_before_a_note_is_no_cut(text: str, value: Any) -> None:
    parsed = parse_answer_detailed(text)
    assert parsed.value == value
    assert "repaired" not in parsed.method


@pytest.mark.parametrize("lead", ["", "Tool said "])
def test_max_depth_is_met_by_what_is_read_wherever_the_text_starts(lead: str) -> None:
    # A deep span at the very start of the text raised, the same span after prose did not.
    deep = '{"a": {"b": {"c": 1}}}'
    assert parse_answer(lead + deep + ' then {"x": 1}', max_depth=2) == {"x": 1}
    with pytest.raises(LimitError, match="max_depth=2"):
        parse_answer(lead + deep + " then prose", max_depth=2)
    with pytest.raises(LimitError, match="max_depth=2"):
        parse_answer(lead + '{"a": {"b": {"c": 1}', max_depth=2)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # the marker inside a string the text closes: the cut-off value is the answer
        (
            '{"thought": "checked\nFinal Answer: the pump", "answer": "pump 3"',
            {"thought": "checked\nFinal Answer: the pump", "answer": "pump 3"},
        ),
        ('{"log": ["ok", "x\nFinal Answer: no"]', {"log": ["ok", "x\nFinal Answer: no"]}),
        # ... whatever follows the string (diff27b #3: a number, an object, single quotes)
        (
            '{"thought": "x\nFinal Answer: pump 3", "confidence": 0.9',
            {"thought": "x\nFinal Answer: pump 3", "confidence": 0.9},
        ),
        (
            '{"thought": "x\nFinal Answer: use", "action_input": {"asset": "pump 3"}',
            {"thought": "x\nFinal Answer: use", "action_input": {"asset": "pump 3"}},
        ),
        (
            "{'thought': 'x\nFinal Answer: pump 3 is faulty', 'action': 'stop'",
            {"thought": "x\nFinal Answer: pump 3 is faulty", "action": "stop"},
        ),
        # a marked answer quoting something is still the answer
        (
            '{"output": "abc\n\nFinal Answer: He said "yes", then left',
            'He said "yes", then left',
        ),
        # ... and so is one holding quotes of the other kind than the cut string's (diff27c #1)
        ('{\'obs\': \'sensor log cut\nFinal Answer: {"pump": "P-3"}', {"pump": "P-3"}),
        ("{\"obs\": \"cut\nFinal Answer: ['P-3', 'P-4']", ["P-3", "P-4"]),
        ('{\'obs\': \'log\n<answer>{"a": "x"}</answer>', {"a": "x"}),
        ('{"obs": "cut\nFinal Answer: The "pump", "status": ok', 'The "pump", "status": ok'),
        # an apostrophe closes no single-quoted string, as the repairs read it (diff27d #1)
        ("{'obs': 'log cut\nFinal Answer: The pump isn't running.", "The pump isn't running."),
        ("{'obs': 'log\n<answer>It's P-3</answer>", "It's P-3"),
        ("{'t': 'it's\nFinal Answer: x', 'a': 1", {"t": "it's\nFinal Answer: x", "a": 1}),
        # strings as the repairs tokenize them: triple-quoted, typographic (diff27e #1)
        ("{'t': '''a\nFinal Answer: x''', 'b': 1", {"t": "a\nFinal Answer: x", "b": 1}),
        (
            "{\u201ct\u201d: \u201cchecking 'P-3\nFinal Answer: P-3 isn't it\u201d, "
            "\u201ca\u201d: 7",
            {"t": "checking 'P-3\nFinal Answer: P-3 isn't it", "a": 7},
        ),
        # a typographic mark closes only a typographic string (diff27f #1)
        (
            '{"t": "the log was cut\nFinal Answer: The valve is \u201cstuck\u201d',
            "The valve is \u201cstuck\u201d",
        ),
        # a note of the cut is no part of the value the repairs read (diff27f #2)
        ("{'obs': 'log\nFinal Answer: P-3 (the 'rest' omitted)", "P-3 (the 'rest' omitted)"),
        # an escaped quote closes no string
        ('{"a": "x \\" y\nFinal Answer: Yes', "Yes"),
        ('{"a": "x \\" y\nFinal Answer: Yes", "b": 1', {"a": 'x " y\nFinal Answer: Yes', "b": 1}),
    ],
)
def test_a_marker_inside_a_cut_off_values_string_belongs_to_it(text: str, value: Any) -> None:
    # diff27a #2: the first read as the text 'the pump", "answer": "pump 3"'
    assert parse_answer(text) == value


@pytest.mark.parametrize("close", ["", "\n```"])
def test_a_fenced_value_cut_before_a_note_is_read_whole(close: str) -> None:
    # diff27a #1: the fenced block gave the inner "rows" list
    text = '```json\n{"rows": [{"id": 1}, {"id": 2}, ...' + close
    parsed = parse_answer_detailed(text)
    assert parsed == Parsed({"rows": [{"id": 1}, {"id": 2}]}, "fence:json+repaired", True)
    assert parse_answer_detailed(text, repair=False).method == "fence:json+repaired+refused"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"x": 1e400}', {"x": 10**400}),
        ("{'x': -1.2201e1134}", {"x": -12201 * 10**1130}),
        (
            "[1.e400, +1e400, .5e400, 1_0e400, 1e308]",
            [10**400, 10**400, 5 * 10**399, 10**401, 1e308],
        ),
        ("The answer is 7e999.", 7 * 10**999),
        ("1e400", 10**400),
        ('{"x": Infinity}', {"x": float("inf")}),  # written as infinity: it is one
    ],
)
def test_a_number_past_the_float_range_is_the_exact_integer_it_writes(
    text: str, value: Any
) -> None:
    """Review property29 #1: it was read as infinity, so 500! matched 3e2000 and Infinity."""
    assert parse_answer(text) == value


def test_numbers_past_the_float_range_are_told_apart_in_every_mode() -> None:
    for mode in ("strict", "similarity", "schema"):
        assert not score('{"f": 1.2201e1134}', '{"f": 3e2000}', mode).passed
        assert score('{"f": 1.2201e1134}', '{"f": 12201e1130}', mode).passed
    assert not score('{"x": 1e400}', '{"x": Infinity}').passed
    with pytest.raises(LimitError, match=r"^a number over 4300 digits: 1e5000"):
        parse_answer('{"x": 1e5000}')
    with pytest.raises(LimitError, match=r"^a number over 4300 digits: 9_9e99999"):  # as written
        parse_answer('{"x": 9_9e99999}')


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        (
            'Format: ```{"energy": 0}```. Checking the meters... Result: {"energy": 14}',
            {"energy": 14},
            "candidate+json",
        ),
        ('Here is the result:\n["```", "```"]', ["```", "```"], "candidate+json"),
        ('Final Answer: ```json {"a": 1}```.', {"a": 1}, "final-answer+fence:json+json"),
        ('```json {"a": 5}``` and more', {"a": 5}, "fence:json+json"),  # opens its line
        ('Answer: ```json\n{"a": 2}``` done', {"a": 2}, "answer+fence:json+candidate+json"),
        # the span's content is still a candidate, never a citation (diff29a #1)
        ("The pump ids are ```[101, 102]```.", [101, 102], "candidate+json"),
        ("Result ```[1, 2, 3]``` (done)", [1, 2, 3], "candidate+json"),
        ("Use `[3, 4]` here", [3, 4], "candidate+json"),
        ("`a` [2] `b`", "`a` [2] `b`", "text"),  # two spans' ends around a citation (diff29b #6)
        # at a line start too: a fence's info string holds no backticks (diff29b #5)
        ('```{"a": 1}``` is the format. Result: ```{"a": 2}``` done', {"a": 2}, "candidate+json"),
        ("```[1, 2]``` was the old list; the new one is ```[3, 4]```.", [3, 4], "candidate+json"),
        # a labelled one is a block, as before (diff29a #1)
        (
            'Here you go ```json {"status": "done"}``` - note: values are ["done", "open"]',
            {"status": "done"},
            "fence:json+json",
        ),
    ],
)
def test_a_fence_opened_and_closed_mid_line_with_text_after_is_a_code_span(
    text: str, value: Any, method: str
) -> None:
    """Review property29 #2: an inline ```example``` beat the answer the text ends with, and
    a list of fence strings read as the text between them (``", "``)."""
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method) == (value, method)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('<answer>{"wrapper": "</answer>", "n": 3}</answer>', {"wrapper": "</answer>", "n": 3}),
        ('<answer>["<answer>", "</answer>"]</answer>', ["<answer>", "</answer>"]),
        ('<think>draft</think>\n<answer>{"a": "</answer>"}</answer>', {"a": "</answer>"}),
        ('x <answer>{"html": "<p></answer></p>"}</answer>', {"html": "<p></answer></p>"}),
        ('<answer>"yes"</answer>', "yes"),  # a closing tag after a quote still closes
        ('<answer>He said "hi</answer>', 'He said "hi'),  # and the last one always does
        # no string of the content holds the tag: it closes (diff29a #2)
        ('<answer>It is "ok"</answer> I closed it with "</answer>".', 'It is "ok"'),
        ('<answer>Chiller "6</answer>\nDone. The closing tag </answer> was used.', 'Chiller "6'),
        # a value in a fenced block holds strings too (diff29c #4)
        ('<answer>\n```json\n{"wrapper": "</answer>"}\n```\n</answer>', {"wrapper": "</answer>"}),
        ('<answer>```json {"a": "</answer>"}```</answer>', {"a": "</answer>"}),  # (diff29d #4)
        # any info string: a space before the language, attributes after it (diff29e #1)
        ('<answer>\n``` json\n{"a": "</answer>"}\n```\n</answer>', {"a": "</answer>"}),
        ('<answer>\n~~~json title="x"\n{"a": "</answer>"}\n~~~\n</answer>', {"a": "</answer>"}),
        # an inch mark and a repeated block: prose, no string (diff29b #1)
        ('<answer>3" pipe</answer> Final: <answer>3" pipe</answer>', '3" pipe'),
        (
            '<answer>Valve 3" wide</answer> so the "answer" is above. Again: '
            '<answer>Valve 3" wide</answer>',
            'Valve 3" wide',
        ),
    ],
)
def test_an_answer_tag_named_in_a_string_inside_the_block_is_content(text: str, value: Any) -> None:
    """Review property29 #3: a quoted ``"</answer>"`` cut the block, so the answer read as
    the repaired fragment before it (``{"wrapper": ""}``)."""
    assert parse_answer(text) == value


@pytest.mark.parametrize(
    ("text", "repairs"),
    [
        ('{"a": 1, "b": 2', ["closed a '{' left open at the end"]),
        ('{"a": [1, 2}', ["closed a '[' left open before a '}'"]),
        ('{"a": 1}}', ["dropped a '}' that closes nothing"]),
        ("[1 2]", ["added a missing ','"]),
        ('{"a" 1}', ["added a missing ':' after a key"]),
        ('{"a": "cut', ["closed a string cut off at the end", "closed a '{' left open at the end"]),
        ("{'a': 'it's'}", ["escaped an apostrophe inside a '-quoted string"]),
        ("{'a': 'x\ty'}", ["escaped a raw control character inside a string"]),
        (
            '{"n": 1,234,567}',
            ["read a number with a thousands separator as one number"] * 2,
        ),
        (
            '{"a": 1, "b":',
            ["dropped a last key that has no value", "closed a '{' left open at the end"],
        ),
        ('{"a": 1, "b", 2}', ["read an object's `key, value` items as `key: value`"]),
        ('Final Answer: {"a": 1', ["closed a '{' left open at the end"]),
        ('{"件数": ３}', ["read full-width digits as digits"]),
        ('{"a": 1}', []),
        ("no literal here", []),
    ],
)
def test_repairs_in_names_each_repair_the_reading_took(text: str, repairs: list[str]) -> None:
    """A messy gold's warning says what to fix (the GoldWarning's words)."""
    assert repairs_in(text, max_depth=200) == repairs


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"件数": ３}', {"件数": 3}),
        ('{"a": １２.５, "b": －１．５, "c": ＋７}', {"a": 12.5, "b": -1.5, "c": 7}),
        ("[１，２]", [1, 2]),
        ('結果：{"台数": １０}', {"台数": 10}),
    ],
)
def test_full_width_digits_in_a_value_read_as_the_number(text: str, value: Any) -> None:
    """CJK text writes numbers in full-width digits, inside an answer's object too; the
    prose readings already read them, so ``{"件数": ３}`` scored 0 against ``{"件数": 3}``."""
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method.endswith("repaired")) == (value, True)
    assert score({"n": 3}, '{"n": ３}').passed


@pytest.mark.parametrize("text", ["３", "答えは３件です", '{"a": ３x}', "'３'"])
def test_full_width_digits_elsewhere_read_as_before(text: str) -> None:
    """A bare full-width count is prose (its reading counts it); a string keeps them."""
    parsed = parse_answer_detailed(text)
    assert parsed.value == ("３" if text == "'３'" else text)
