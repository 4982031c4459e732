"""``score(mode="schema")``: the shared limits, alignment notes, and schemas that score nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_structeval import assert_json_matches, score
from pytest_structeval.errors import LimitError

FIVE_DEEP = {"a": {"b": {"c": {"d": {"e": 1}}}}}
DEEP_MESSAGE = "value nests deeper than max_depth=3 at answer.a.b.c"


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


# ----------------------------------------------------------------------------- limits


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_parsed_gold_over_max_depth_raises_in_every_mode(mode: str) -> None:
    with pytest.raises(LimitError, match=f"^{DEEP_MESSAGE}$"):
        score(FIVE_DEEP, {"a": 1}, mode, max_depth=3)


@pytest.mark.parametrize("mode", ["strict", "schema"])
def test_a_parsed_model_over_max_depth_is_the_same_error_result(mode: str) -> None:
    result = score({"a": 1}, FIVE_DEEP, mode, max_depth=3)
    assert (result.passed, result.score) == (False, 0.0)
    assert result.error == f"model answer: {DEEP_MESSAGE}"
    assert result.reason == f"error: model answer: {DEEP_MESSAGE}"
    assert (result.parsed_gold, result.parsed_model) == ({"a": 1}, FIVE_DEEP)
    assert result.parse_method == "value"


def test_the_depth_limit_counts_containers_as_the_walk_does() -> None:
    # Three nested objects fit max_depth=3; empty containers are leaves, not levels.
    three = {"a": {"b": {"c": 1, "e": {}, "l": []}}}
    assert score(three, three, "schema", max_depth=3).passed
    with pytest.raises(LimitError):
        score({"a": {"b": {"c": [1]}}}, {"a": 1}, "schema", max_depth=3)


def test_the_gold_is_checked_before_the_model() -> None:
    with pytest.raises(LimitError, match=r"at answer\.a\.b\.c$"):
        score(FIVE_DEEP, FIVE_DEEP, "schema", max_depth=3)


def test_five_thousand_levels_raise_or_fail_without_recursion_error() -> None:
    deep = nested(5_000)
    with pytest.raises(LimitError, match="max_depth=200"):
        score(deep, {"a": 1}, "schema")
    result = score({"a": 1}, deep, "schema")
    assert "max_depth=200" in (result.error or "")
    with pytest.raises(LimitError):
        assert_json_matches(deep, {"a": 1}, mode="schema")


def test_text_answers_keep_their_parse_limits_in_schema_mode() -> None:
    with pytest.raises(LimitError, match="max_bytes=10"):
        score('{"a": "' + "x" * 20 + '"}', {"a": "x"}, "schema", max_bytes=10)
    result = score({"a": "x"}, '{"a": "' + "x" * 20 + '"}', "schema", max_bytes=10)
    assert "max_bytes=10" in (result.error or "")
    too_deep = json.dumps(FIVE_DEEP)
    with pytest.raises(LimitError):
        score(too_deep, {"a": 1}, "schema", max_depth=3)
    assert score({"a": 1}, too_deep, "schema", max_depth=3).error is not None


# --------------------------------------------------------------------- schema scores nothing

B_ONLY = {"type": "object", "properties": {"b": {"type": "integer"}}}


def test_a_schema_that_scores_none_of_the_gold_fails_with_a_reason() -> None:
    result = score({"a": 1}, {"a": 2}, "schema", schema=B_ONLY)
    assert not result.passed
    assert result.reason == (
        "nothing scored: the gold's key is not in the schema (answer.a); "
        "check the schema's property names"
    )
    # The reference's metrics stay as they are: an empty denominator gives F1 1.0.
    assert result.score == result.metrics["f1"] == 1.0
    assert result.metrics["unscored"] == ["answer.a"]
    # No threshold makes it pass, and the fixture fails with the reason.
    assert not score({"a": 1}, {"a": 1}, "schema", schema=B_ONLY, threshold=0.0).passed
    with pytest.raises(AssertionError, match="nothing scored"):
        assert_json_matches({"a": 1}, {"a": 1}, mode="schema", schema=B_ONLY)


def test_the_reason_lists_a_few_unscored_keys() -> None:
    gold = {f"k{i}": i for i in range(7)}
    result = score(gold, gold, "schema", schema=B_ONLY)
    assert result.reason == (
        "nothing scored: the gold's keys are not in the schema (answer.k0, answer.k1, "
        "answer.k2, answer.k3, answer.k4 and 2 more); check the schema's property names"
    )


@pytest.mark.parametrize(
    ("gold", "model", "schema"),
    [
        # Some gold key is scored: the unscored ones are only shown, as documented.
        ({"a": 1, "b": 2}, {"a": 5, "b": 2}, B_ONLY),
        # Everything skipped on purpose is the schema author's choice.
        ({"b": 1}, {"b": 2}, {"type": "object", "properties": {"b": {"x-eval-skip": True}}}),
        # An empty gold has nothing the schema could miss; the model's undeclared key is allowed.
        ({}, {"x": 1}, {**B_ONLY, "additionalProperties": True}),
    ],
)
def test_records_that_score_something_or_have_nothing_to_score_still_pass(
    gold: Any, model: Any, schema: Any
) -> None:
    result = score(gold, model, "schema", schema=schema)
    assert result.passed, result.reason
    assert not result.reason.startswith("nothing scored")


def test_a_model_only_key_that_is_scored_still_counts() -> None:
    # The gold's only key is unscored but the model invents a declared one: F1 is 0.
    result = score({"a": 1}, {"a": 1, "b": 2}, "schema", schema=B_ONLY)
    assert not result.passed
    assert result.metrics["hallucinations"] == 1
    assert not result.reason.startswith("nothing scored")


# ------------------------------------------------------------------------------ notes

ROWS_SCHEMA = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "x-eval-align": {"match_by": "key_field", "key": "id"},
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "v": {"type": "integer"}},
            },
        }
    },
}


def test_schema_notes_use_the_answer_paths_of_the_fields() -> None:
    gold = {"rows": [{"id": 1, "v": 1}, {"id": 1, "v": 2}]}
    model = {"rows": [{"id": 1, "v": 2}, {"id": 1, "v": 1}]}
    schema_notes = score(gold, model, "schema", schema=ROWS_SCHEMA).metrics["notes"]
    strict_notes = score(gold, model, align={"answer.rows": {"key": "id"}}).metrics["notes"]
    assert (
        schema_notes
        == strict_notes
        == [
            "answer.rows: duplicate key 1 for field 'id' (gold at [0, 1], model at [0, 1]): "
            "paired in order of appearance"
        ]
    )
    root = {**ROWS_SCHEMA["properties"]["rows"]}
    notes = score(gold["rows"], model["rows"], "schema", schema=root).metrics["notes"]
    assert notes == [strict_notes[0].replace("answer.rows", "answer")]


def test_notes_under_quoted_keys_keep_their_path() -> None:
    schema = {"type": "object", "properties": {"a: b": ROWS_SCHEMA["properties"]["rows"]}}
    rows = [{"id": 1}, {"id": 1}]
    (note,) = score({"a: b": rows}, {"a: b": rows}, "schema", schema=schema).metrics["notes"]
    assert note.startswith('answer["a: b"]: duplicate key 1 ')
