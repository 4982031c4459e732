"""Properties of the answer parser (hypothesis): JSON round-trips, wrapped values come back,
a marker's own text beats fenced tool output before it, footnote citations in prose are not
answers, no input makes it raise anything but AnswerParseError, and a span inside prose
never makes a non-strict parse raise."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.errors import AnswerParseError
from pytest_structeval.parse import _points_back, parse_answer, parse_answer_detailed

# orjson writes integers within 64 bits and no lone surrogates; NaN/inf have no JSON form.
TEXT = st.text(st.characters(codec="utf-8"), max_size=20)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(TEXT, children, max_size=5),
    max_leaves=25,
)
CONTAINERS = st.one_of(
    st.lists(JSON_VALUES, min_size=1, max_size=5),
    st.dictionaries(TEXT, JSON_VALUES, min_size=1, max_size=5),
)
NO_TAGS = st.text(st.characters(codec="utf-8", exclude_characters="<>"))


def dumps(value: Any, indent: bool) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0).decode()


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.booleans())
def test_json_round_trips(value: Any, indent: bool) -> None:
    assert parse_answer(dumps(value, indent)) == value
    assert parse_answer(dumps(value, indent).encode()) == value


# Integers of any size, most near the edges of 64 bits, where orjson turns them into floats.
EDGE_INTS = st.integers(min_value=-30, max_value=30).map(
    lambda k: k + (-(2**63) if k < 0 else 2**64)
) | st.integers(min_value=-(10**25), max_value=10**25)
BIG_INT_VALUES = st.recursive(
    EDGE_INTS | SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(BIG_INT_VALUES, st.booleans())
def test_integers_of_any_size_round_trip_exactly(value: Any, indent: bool) -> None:
    """orjson reads an integer outside [-2**63, 2**64) as a float; the parser redoes it."""
    text = json.dumps(value, indent=2 if indent else None, ensure_ascii=False)
    assert parse_answer(text) == value
    assert parse_answer(f"Final Answer: {text}") == value


@pytest.mark.parametrize("edge", [-(2**63) - 1, -(10**19) + 1, 2**64, -(2**64), 10**19])
def test_an_integer_just_past_64_bits_stays_exact(edge: int) -> None:
    assert parse_answer(str(edge)) == edge
    assert type(parse_answer(f'{{"a": {edge}}}')["a"]) is int


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_python_repr_round_trips(value: Any) -> None:
    assert parse_answer(repr(value)) == value


WRAPPERS = [
    "```json\n{}\n```",
    "```\n{}\n```",
    "Some text first.\n\n```json\n{}\n```\n\nHope this helps!",
    "Final Answer: {}",
    "**Final Answer:**\n{}",
    "Thought: I have the data.\nAnswer: {}",
    "<answer>{}</answer>",
    "Here is the result: {}",
    "I checked (twice) and it's fine: {}",
    'The schema was {{"type": "object"}}; my answer: {}',
    "~~~json\n{}\n~~~",
    "Checked [1].\n\n~~~~\n{}\n~~~~\n",
    "The pump failed [1], the fan [2, 3].\nHere is the result: {} as reported [4].",
    "```json\n[0]\n```\nFinal Answer: {}",
]


@settings(max_examples=200, deadline=None)
@given(
    CONTAINERS,
    st.sampled_from(WRAPPERS),
    st.booleans(),
    st.none() | NO_TAGS,
)
def test_wrapped_values_parse_back(
    value: Any, wrapper: str, indent: bool, think: str | None
) -> None:
    text = wrapper.format(dumps(value, indent))
    if think is not None:
        text = f"<think>{think}</think>\n{text}"
    assert parse_answer(text) == value


@settings(max_examples=400, deadline=None)
@given(st.text(), st.booleans())
def test_arbitrary_text_raises_only_answer_parse_errors(text: str, strict: bool) -> None:
    with contextlib.suppress(AnswerParseError):
        parse_answer(text, strict=strict)


@settings(max_examples=300, deadline=None)
@given(st.binary(), st.booleans())
def test_arbitrary_bytes_raise_only_answer_parse_errors(data: bytes, strict: bool) -> None:
    with contextlib.suppress(AnswerParseError):
        parse_answer(data, strict=strict)


SYNTAX = st.text(st.sampled_from(list("{}[](),:'\"`#/\\\n -01eE.abtrufnlsNIy<>")), max_size=60)


@settings(max_examples=500, deadline=None)
@given(SYNTAX, st.booleans())
def test_syntax_soup_raises_only_answer_parse_errors(text: str, strict: bool) -> None:
    # Random text rarely contains brackets and quotes; this alphabet is nearly all syntax.
    with contextlib.suppress(AnswerParseError):
        parse_answer(text, strict=strict)


TOKEN_SOUP = st.lists(
    st.sampled_from(["{", "}", "[", "]", "(", ")", '"k"', "1", ",", ":", " "]), max_size=16
).map("".join)


@settings(max_examples=500, deadline=None)
@given(TOKEN_SOUP, TOKEN_SOUP)
def test_token_soup_inside_prose_never_raises(first: str, second: str) -> None:
    # Spans found inside prose are candidates: one that has no value (an unhashable key the
    # user wrote or the repairs made) is skipped, never an error of a non-strict parse.
    parse_answer(f"Note: {first} then {second} end.")


# Words of prose, identifiers included. A copula before a list introduces it as a value
# ("The counts are [3, 5]") and a line holding only "34 [1]" states the count 34, so neither
# a copula nor a bare number is generated here.
COPULAS = {"is", "are", "was", "were", "equal", "equals"}
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
WORD = st.sampled_from(["The", "pump", "failed", "Chiller 6", "FC101", "T-015", "45%"]) | st.text(
    LETTERS, min_size=1, max_size=8
).filter(lambda word: word.lower() not in COPULAS)
WORDS = st.lists(WORD, min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(CONTAINERS, WORDS, st.sampled_from(["Final Answer: ", "**Answer:** ", "Answer:\n"]))
def test_a_marker_stating_text_wins_over_an_earlier_fence(
    tool_output: Any, words: list[str], marker: str
) -> None:
    # Whatever text the marker states on its own is the answer, never the tool output fenced
    # before it; only a pointer such as "see above" sends the parser back to the block.
    answer = " ".join(words)
    assume(parse_answer(answer) == answer and not _points_back(answer))
    text = f"```json\n{dumps(tool_output, True)}\n```\n{marker}{answer}"
    assert parse_answer(text) == answer


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(WORDS, st.lists(st.integers(1, 999), min_size=1, max_size=3)), max_size=5),
    st.sampled_from([". ", "; ", ", ", "\n", " "]),
)
def test_prose_with_footnote_citations_stays_text(
    sentences: list[tuple[list[str], list[int]]], joiner: str
) -> None:
    prose = joiner.join(
        f"{' '.join(words)} [{', '.join(map(str, notes))}]" for words, notes in sentences
    )
    assume(prose)
    parsed = parse_answer_detailed(prose)
    assert (parsed.value, parsed.structured) == (prose.strip(), False)


@settings(max_examples=300, deadline=None)
@given(
    st.text(st.characters(codec="utf-8", exclude_characters="*`\r\n"), min_size=1, max_size=30),
    st.sampled_from(["**", "*", "***", "`"]),
    st.sampled_from(["Final Answer: ", "**Final Answer:** ", "Answer:\n", "<answer>"]),
)
def test_emphasis_around_a_stated_value_changes_nothing(value: str, run: str, marker: str) -> None:
    # Bold, italics or inline code around the whole stated value are markup: the answer
    # parses as the bare value would.
    value = value.strip()
    assume(value.strip("_") and "answer" not in value.lower() and "<" not in value)
    close = "</answer>" if marker == "<answer>" else ""
    bare = parse_answer_detailed(f"{marker}{value}{close}")
    assert parse_answer_detailed(f"{marker}{run}{value}{run}{close}") == bare


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_an_id_just_past_64_bits_is_compared_exactly(mode: str) -> None:
    gold = '{"id": -9223372036854775809}'
    assert score(gold, gold, mode).passed
    assert score(json.loads(gold), gold, mode).score == 1.0
    assert not score(gold, '{"id": -9223372036854775999}', mode).passed
