"""Schema-mode behaviour a mutation review (mutants20) showed untested: each test fails on the
mutant named in its docstring, and the first two on a bug the review found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import SchemaError
from pytest_structeval.keys import named_keys
from pytest_structeval.registry import default_registry
from pytest_structeval.schema import (
    CompoundComparator,
    infer_schema,
    load_schema,
    register_comparator,
    register_transform,
    reset_type_defaults,
    set_type_default,
)


class _Exact(CompoundComparator):
    def compare(self, gold: dict[str, Any], extracted: dict[str, Any]) -> float:
        return float(gold == extracted)


def _fields(result: Any) -> dict[str, tuple[str, Any]]:
    return {f.path: (f.status, f.reason) for f in result.fields}


def test_a_field_naming_a_compound_it_is_not_a_member_of_is_a_mismatch_not_skipped() -> None:
    """Bug: 'middle' was skipped as 'compound with last', so a wrong value scored 1.0."""
    registry = default_registry().copy()
    register_comparator("fn", _Exact(["first", "last"], primary="last"), registry=registry)
    member = {"type": "string", "x-eval-compare": "fn"}
    schema = {"type": "object", "properties": {"first": member, "middle": member, "last": member}}
    result = score(
        {"first": "Ada", "middle": "King", "last": "L"},
        {"first": "Ada", "middle": "WRONG", "last": "L"},
        "schema",
        schema=schema,
        registry=registry,
    )
    assert not result.passed
    assert _fields(result)["answer.middle"] == (
        "mismatch",
        "'middle' is compared by the compound _Exact, but is not one of its fields "
        "['first', 'last']",
    )
    assert _fields(result)["answer.last"] == ("match", "compound")
    items = {"type": "object", "properties": {"tags": {"type": "array", "items": member}}}
    tags = score(
        {"tags": ["a", "b"]}, {"tags": ["a", "c"]}, "schema", schema=items, registry=registry
    )
    assert [status for status, _ in _fields(tags).values()] == ["mismatch", "mismatch"]
    assert str(tags.fields[0].reason) == (
        "the compound _Exact scores fields declared under properties by name (['first', "
        "'last']); this value has no property name (the root, an array element, or one matched "
        "by patternProperties or additionalProperties)"
    )


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_a_schema_file_may_open_with_a_bom(tmp_path: Path, suffix: str) -> None:
    """Bug: a JSON schema file with a UTF-8 BOM was 'malformed JSON' (mutant O7 is the fix)."""
    text = (
        '{"type": "object", "properties": {"a": {"type": "string"}}}'
        if suffix == ".json"
        else "type: object\nproperties:\n  a: {type: string}\n"
    )
    path = tmp_path / f"s{suffix}"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_schema(path)["type"] == "object"
    assert score({"a": "x"}, {"a": "x"}, "schema", schema=str(path)).passed


def test_type_defaults_set_and_reset_reach_a_schema_parsed_before() -> None:
    """X4/X5: the parsed-schema cache is keyed by the defaults' revision."""
    schema = {"type": "object", "properties": {"s": {"type": "string"}}}
    assert score({"s": "Paris"}, {"s": "Pariss"}, "schema", schema=schema).score == 0.0
    try:
        set_type_default("string", "similarity")
        assert score({"s": "Paris"}, {"s": "Pariss"}, "schema", schema=schema).score > 0.9
    finally:
        reset_type_defaults()
    assert score({"s": "Paris"}, {"s": "Pariss"}, "schema", schema=schema).score == 0.0


def test_a_compound_sees_its_members_after_their_transforms() -> None:
    """B21/B22: the compound was given the raw values."""
    registry = default_registry().copy()
    register_comparator("full", _Exact(["first", "last"], primary="last"), registry=registry)
    member = {"type": "string", "x-eval-compare": "full", "x-eval-transform": ["lowercase"]}
    schema = {"type": "object", "properties": {"first": member, "last": member}}
    gold = {"first": "Ada", "last": "Lovelace"}
    model = {"first": "ADA", "last": "lovelace"}
    assert score(gold, model, "schema", schema=schema, registry=registry).passed


def test_two_keys_naming_one_field_both_keep_their_values() -> None:
    """K7: one of the two values was dropped."""
    named = named_keys({"A\u030a": 1, "\u212b": 2}, "python")
    assert sorted(named.values()) == [1, 2]
    assert score({"Å": 1}, {"A\u030a": 1, "\u212b": 2}, mode="strict").score == pytest.approx(2 / 3)


def test_an_inferred_nullable_object_keeps_its_properties() -> None:
    """I4: a position null in some records lost its properties."""
    schema = infer_schema([{"a": {"x": 1}}, {"a": None}])
    assert schema["properties"]["a"]["properties"] == {"x": {"type": "integer"}}


@pytest.mark.parametrize(
    ("to", "gold", "model", "kind"),
    [
        ("bool", "1", "true", "string"),  # t11
        ("bool", "0", "false", "string"),  # t12
        ("int", True, 1, "integer"),  # t15
        ("str", "2.0", 2.0, "string"),  # t21
    ],
)
def test_type_convert_does_what_the_readme_says(to: str, gold: Any, model: Any, kind: str) -> None:
    schema = {
        "type": "object",
        "properties": {"v": {"type": kind, "x-eval-transform": [{"type_convert": {"to": to}}]}},
    }
    assert score({"v": gold}, {"v": model}, "schema", schema=schema).passed


def test_built_in_transforms_cannot_be_replaced_and_strip_only_strips() -> None:
    """b3 and b7."""
    with pytest.raises(ValueError, match="built-in transform 'lowercase' cannot be replaced"):
        register_transform(
            "lowercase", lambda v, p: v, overwrite=True, registry=default_registry().copy()
        )
    schema = {
        "type": "object",
        "properties": {"c": {"type": "string", "x-eval-transform": ["strip"]}},
    }
    result = score({"c": "New  York"}, {"c": " New York "}, "schema", schema=schema)
    assert not result.passed


def test_a_schema_file_too_deep_or_a_folder_is_a_schema_error(tmp_path: Path) -> None:
    """O9 and O13: a bare RecursionError or IsADirectoryError."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 3000 + "]" * 3000)
    with pytest.raises(SchemaError, match="nested too deeply"):
        load_schema(deep)
    folder = tmp_path / "dir.json"
    folder.mkdir()
    with pytest.raises(SchemaError, match="cannot read schema"):
        load_schema(folder)


def _one_field(comparator: Any, **keywords: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"v": {"type": "string", "x-eval-compare": comparator, **keywords}},
    }


def test_only_is_batch_true_makes_a_batch_comparator() -> None:
    """B1: a truthy is_batch = 1 was called as a batch."""
    registry = default_registry().copy()

    def both(*args: Any) -> Any:
        return float(args[0] == args[1]) if len(args) == 3 else [1.0 for _ in args[0]]

    both.is_batch = 1  # type: ignore[attr-defined]
    register_comparator("c", both, registry=registry)
    assert not score(
        {"v": "a"}, {"v": "b"}, "schema", schema=_one_field("c"), registry=registry
    ).passed


@pytest.mark.parametrize("reply", [list, tuple])
def test_a_batch_reply_at_the_threshold_matches_and_a_tuple_reply_counts(reply: Any) -> None:
    """B9 (the threshold is reached at equality) and B17 (a tuple is a reply like a list)."""
    registry = default_registry().copy()

    def judge(items: list[Any]) -> Any:
        return reply(0.8 for _ in items)

    judge.is_batch = True  # type: ignore[attr-defined]
    register_comparator("judge", judge, registry=registry)
    schema = _one_field("judge", **{"x-eval-threshold": 0.8})
    result = score({"v": "a"}, {"v": "b"}, "schema", schema=schema, registry=registry)
    assert [f.status for f in result.fields] == ["match"]


def test_validate_gold_passes_the_id_key_at_the_root_only() -> None:
    """V13: a nested 'id' the schema does not have went unreported."""
    from pytest_structeval.errors import GoldValidationError
    from pytest_structeval.schema import annotate_xeval, validate_gold

    schema = annotate_xeval(
        {
            "type": "object",
            "properties": {"obj": {"type": "object", "properties": {"x": {"type": "string"}}}},
        }
    )
    with pytest.raises(GoldValidationError, match=r"obj\.id: key is not in the schema"):
        validate_gold([{"id": "r1", "obj": {"x": "a", "id": 3}}], schema, id_field="id")


def test_round_digits_refuses_a_bool_and_overwrite_replaces_a_custom_transform() -> None:
    """t26 and t29."""
    rounding = {
        "type": "object",
        "properties": {
            "v": {"type": "number", "x-eval-transform": [{"round_digits": {"digits": True}}]}
        },
    }
    with pytest.raises(SchemaError, match="'digits' must be an integer"):
        score({"v": 1.26}, {"v": 1.3}, "schema", schema=rounding)
    registry = default_registry().copy()
    register_transform("up", lambda v, p: v.upper(), registry=registry)
    register_transform("up", lambda v, p: v.lower(), overwrite=True, registry=registry)
    schema = {"type": "object", "properties": {"v": {"type": "string", "x-eval-transform": ["up"]}}}
    result = score({"v": "AB"}, {"v": "ab"}, "schema", schema=schema, registry=registry)
    assert result.fields[0].gold_compared == "ab"  # type: ignore[attr-defined]


def test_type_defaults_take_multi_and_nested_scopes_inherit() -> None:
    """X3 and X10."""
    from pytest_structeval.schema import annotate_xeval, type_defaults

    try:
        set_type_default("multi", "similarity")
        multi = annotate_xeval({"type": ["string", "integer"]})
        assert multi["x-eval-compare"] == "similarity"
    finally:
        reset_type_defaults()
    try:
        set_type_default("string", "similarity")
        with type_defaults({"number": "exact"}):
            both = annotate_xeval(
                {"type": "object", "properties": {"s": {"type": "string"}, "n": {"type": "number"}}}
            )
        assert both["properties"]["s"]["x-eval-compare"] == "similarity"
        assert both["properties"]["n"]["x-eval-compare"] == "exact"
    finally:
        reset_type_defaults()


def test_infer_schema_pools_tuples_and_refuses_a_text() -> None:
    """I9 and I13."""
    assert infer_schema([{"a": (1, 2)}])["properties"]["a"]["items"] == {"type": "integer"}
    with pytest.raises(SchemaError, match="needs a list of instances, got str"):
        infer_schema("abc")  # type: ignore[arg-type]


def test_a_schema_file_suffix_in_capitals_loads(tmp_path: Path) -> None:
    """O4."""
    path = tmp_path / "up.JSON"
    path.write_text('{"type": "object", "properties": {}}')
    assert load_schema(path)["type"] == "object"


def _judge_registry(reply: Any) -> Any:
    registry = default_registry().copy()

    def judge(items: list[Any]) -> list[Any]:
        return [reply for _ in items]

    judge.is_batch = True  # type: ignore[attr-defined]
    register_comparator("judge", judge, registry=registry)
    return registry


def test_a_skipped_batch_verdict_keeps_its_reason_and_a_correct_batch_warns_nothing() -> None:
    """B10 (the threshold was applied to a skipped reply) and B15 (a RuntimeWarning on every
    correct batch call)."""
    import warnings

    from pytest_structeval.schema import ComparatorResult

    skip = _judge_registry(ComparatorResult(0.9, "judge", "not judged", True))
    schema = _one_field("judge", **{"x-eval-threshold": 0.8})
    result = score({"v": "a"}, {"v": "b"}, "schema", schema=schema, registry=skip)
    assert [(f.status, f.reason) for f in result.fields] == [("skipped", "not judged")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same = score(
            {"v": "a"},
            {"v": "a"},
            "schema",
            schema=_one_field("judge"),
            registry=_judge_registry(1.0),
        )
    assert same.passed


def test_a_root_compound_names_its_primary_without_a_dot() -> None:
    """B6."""
    registry = default_registry().copy()
    register_comparator("fn", _Exact(["first", "last"], primary="last"), registry=registry)
    member = {"type": "string", "x-eval-compare": "fn"}
    schema = {"type": "object", "properties": {"first": member, "last": member}}
    result = score(
        {"first": "Ada", "last": "L"},
        {"first": "Ada", "last": "L"},
        "schema",
        schema=schema,
        registry=registry,
    )
    assert _fields(result)["answer.first"] == ("skipped", "compound with last")


def test_nan_to_int_says_it_is_not_finite_and_infer_writes_no_empty_required() -> None:
    """t18 and I6."""
    schema = {
        "type": "object",
        "properties": {
            "v": {"type": "integer", "x-eval-transform": [{"type_convert": {"to": "int"}}]}
        },
    }
    result = score({"v": 3}, {"v": "nan"}, "schema", schema=schema)
    assert "nan is not a finite number" in str(result.fields[0].reason)
    assert "required" not in infer_schema([{"a": 1}, {"b": 2}])
