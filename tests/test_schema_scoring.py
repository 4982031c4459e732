"""Schema mode, per field: comparators, transforms, the scoring walk and the reference's bugs.

Each ``test_bug_*`` names the item of struct-extract-eval.md §17 it pins down.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import SchemaError
from pytest_structeval.registry import Registry, default_registry
from pytest_structeval.schema import (
    BatchItem,
    ComparatorResult,
    FieldResult,
    SchemaWarning,
    parse_eval_schema,
    register_comparator,
    register_transform,
    score_record,
)
from pytest_structeval.schema.comparators import (
    compare_exact,
    compare_numeric,
    compare_oneof,
    compare_similarity,
    json_equal,
)
from pytest_structeval.schema.scoring import MAX_DEPTH
from pytest_structeval.schema.transforms import (
    lowercase,
    normalize_whitespace,
    round_digits,
    sort_tokens,
    strip,
    type_convert,
)

EXACT = {"type": "string", "x-eval-compare": "exact"}
NUMBER = {"type": "number", "x-eval-compare": "numeric"}


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def leaf(compare: Any, type_: str = "string", **extra: Any) -> dict[str, Any]:
    return {"type": type_, "x-eval-compare": compare, **extra}


def run(schema: dict[str, Any], gold: Any, model: Any, registry: Registry | None = None) -> list:
    return score_record(
        parse_eval_schema(schema, registry=registry), gold, model, registry=registry
    )


def by_path(results: list[FieldResult]) -> dict[str, FieldResult]:
    return {r.path: r for r in results}


def statuses(results: list[FieldResult]) -> dict[str, str]:
    return {r.path: r.status for r in results}


# --- exact -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "model", "equal"),
    [
        (1, 1.0, True),
        (True, 1, False),
        (False, 0, False),
        ("123", 123, False),
        ([1, {"v": 2}], [1.0, {"v": 2.0}], True),
        ([True], [1], False),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
        ({"a": 1}, {"a": 1, "b": None}, False),
        (float("nan"), float("nan"), False),
        ([float("nan")], [float("nan")], False),
        (None, None, True),
        ("a", "A", False),
    ],
)
def test_exact_is_json_equality(gold: Any, model: Any, equal: bool) -> None:
    assert json_equal(gold, model) is equal
    assert compare_exact(gold, model, {}).score == (1.0 if equal else 0.0)


def test_exact_reports_a_type_difference() -> None:
    assert compare_exact("5", 5, {}).reason == "type differs: string vs number"


def test_json_equal_handles_deep_values_without_recursion() -> None:
    deep_a: Any = 1
    deep_b: Any = 1
    for _ in range(50_000):
        deep_a, deep_b = [deep_a], [deep_b]
    assert json_equal(deep_a, deep_b)


# --- numeric -----------------------------------------------------------------------------


def numeric(gold: Any, model: Any, **tolerance: float) -> float:
    params = {"tolerance": tolerance} if tolerance else {}
    return compare_numeric(gold, model, params).score


def test_numeric_tolerances_are_inclusive_relative_to_gold_and_both_must_hold() -> None:
    assert numeric(100, 101, rel=0.01) == 1.0
    assert numeric(100, 101.5, rel=0.01) == 0.0
    assert numeric(101, 100, rel=0.00995) == 1.0  # relative to gold 101, not to 100
    assert numeric(10, 10.5, abs=0.5) == 1.0
    assert numeric(10, 10.6, abs=0.5) == 0.0
    assert numeric(100, 101, rel=0.01, abs=0.5) == 0.0  # rel holds, abs does not
    assert numeric(0, 0.005, rel=0.01) == 1.0  # gold 0: rel acts on 1.0, as the reference
    assert numeric(5, 5.0) == 1.0
    assert numeric(5, 5.000001) == 0.0


def test_numeric_tolerances_hold_exactly_for_integers_past_float_range() -> None:
    assert numeric(10**400, 10**400 + 1, rel=0.01) == 1.0  # (rel * gold overflowed)
    assert numeric(10**400, 2 * 10**400, rel=0.01) == 0.0
    assert numeric(2**60, 2**60 + 3, abs=2) == 0.0  # (as floats, the two are equal)
    assert numeric(2**60, 2**60 + 2, abs=2) == 1.0


def test_type_convert_to_int_says_when_a_text_is_past_the_float_range() -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        type_convert("1e400", {"to": "int"})


def test_bug_1_infinities_nan_strings_and_booleans_never_match_numbers() -> None:
    assert numeric(math.inf, -math.inf, rel=0.1) == 0.0
    assert numeric(math.inf, math.inf, rel=0.1) == 1.0
    assert numeric(math.inf, 1e308, rel=0.5) == 0.0
    assert numeric(math.nan, math.nan, rel=0.1) == 0.0
    assert numeric(3.5, "3.5") == 0.0
    assert numeric(1, True) == 0.0
    result = compare_numeric(3.5, "3.5", {})
    assert result.reason is not None
    assert "type_convert" in result.reason


def test_numeric_huge_integers_compare_exactly_and_never_overflow() -> None:
    big = 10**400
    assert numeric(big, big) == 1.0
    assert numeric(big, big + 1) == 0.0
    assert numeric(big, 1.5, rel=0.1) == 0.0


def test_bug_1_numeric_strings_match_after_type_convert() -> None:
    schema = obj(
        v=leaf("numeric", "number", **{"x-eval-transform": [{"type_convert": {"to": "float"}}]})
    )
    assert statuses(run(schema, {"v": 3.5}, {"v": " 3.5 "})) == {"v": "match"}


# --- oneof -------------------------------------------------------------------------------


def test_bug_2_oneof_needs_extracted_equivalent_to_gold() -> None:
    values = {"values": ["PVD", "sputtering"]}
    assert compare_oneof("sputtering", "PVD", values).score == 1.0
    assert compare_oneof("sputtering", "CVD", {"values": ["PVD", "CVD"]}).score == 0.0
    groups = {"groups": [["PVD", "sputtering"], ["CVD", "chemical vapour deposition"]]}
    assert compare_oneof("CVD", "chemical vapour deposition", groups).score == 1.0
    wrong = compare_oneof("sputtering", "CVD", groups)
    assert wrong.score == 0.0
    assert wrong.reason == "'CVD' is not a synonym of 'sputtering'"
    assert compare_oneof("ALD", "ALD", groups).score == 1.0  # equal values always agree
    assert compare_oneof("ALD", "XYZ", groups).reason == "'XYZ' is not one of the listed values"


@pytest.mark.parametrize(
    ("compare", "message"),
    [
        ({"oneof": {}}, "either 'values'"),
        ({"oneof": {"values": "PVD"}}, "non-empty list"),
        ({"oneof": {"values": []}}, "non-empty list"),
        ({"oneof": {"groups": [["a"], "b"]}}, "non-empty list"),
        ({"oneof": {"values": ["a"], "groups": [["a"]]}}, "either 'values'"),
        ({"numeric": {"tolerance": 0.1}}, "tolerance must be an object"),
        ({"numeric": {"tolerance": {"rel": -0.1}}}, ">= 0"),
        ({"numeric": {"tolerance": {"rel": "1%"}}}, ">= 0"),
        ({"numeric": {"tolerance": {"pct": 1}}}, "unknown parameter"),
        ({"numeric": {"tolerence": {"rel": 1}}}, "unknown parameter"),
        ({"similarity": {"min": 1.5}}, "'min' must be a number in [0, 1]"),
        ({"exact": {"case_insensitive": True}}, "unknown parameter"),
    ],
)
def test_bug_2_comparator_params_fail_at_parse_time(compare: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_eval_schema(obj(v=leaf(compare)))


@pytest.mark.parametrize(
    ("transform", "message"),
    [
        ("round_digits", "'digits' must be an integer"),
        ({"round_digits": {"digits": 1.5}}, "'digits' must be an integer"),
        ({"type_convert": {"to": "date"}}, "'to' must be one of"),
        ({"lowercase": {"locale": "tr"}}, "unknown parameter"),
    ],
)
def test_transform_params_fail_at_parse_time(transform: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        parse_eval_schema(obj(v=leaf("exact", **{"x-eval-transform": [transform]})))


# --- similarity --------------------------------------------------------------------------


def test_similarity_gives_partial_credit_above_min() -> None:
    close = compare_similarity("aluminium", "aluminum", {})
    assert 0.9 < close.score < 1.0
    assert compare_similarity("abc", "abc", {}).score == 1.0
    assert compare_similarity("abcd", "abxx", {"min": 0.5}).score == 0.5  # min is inclusive
    floor = compare_similarity("abc", "xyz", {"min": 0.5})
    assert floor.score == 0.0
    assert "below min" in str(floor.reason)
    assert compare_similarity(3, 3.0, {}).score == 1.0
    assert compare_similarity(3, "3", {}).score == 0.0


def test_similarity_partial_credit_is_a_mismatch_with_its_score() -> None:
    schema = obj(name=leaf("similarity"))
    (result,) = run(schema, {"name": "aluminium"}, {"name": "aluminum"})
    assert result.status == "mismatch"
    assert 0.9 < result.score < 1.0


# --- transforms --------------------------------------------------------------------------


def test_builtin_transforms() -> None:
    assert lowercase("AbC", {}) == "abc"
    assert strip("  a b ", {}) == "a b"
    assert normalize_whitespace(" a \n\t b  c ", {}) == "a b c"
    assert sort_tokens("b a  C", {}) == "C a b"
    assert round_digits(2.345, {"digits": 1}) == 2.3
    assert round_digits(1234, {"digits": -2}) == 1200
    assert type_convert(" 42 ", {"to": "int"}) == 42
    assert type_convert("4.0", {"to": "int"}) == 4
    assert type_convert("1e3", {"to": "float"}) == 1000.0
    assert type_convert(True, {"to": "float"}) == 1.0
    assert type_convert(False, {"to": "str"}) == "false"
    assert type_convert(" TRUE ", {"to": "bool"}) is True
    assert type_convert(0, {"to": "bool"}) is False
    for fn in (lowercase, strip, normalize_whitespace, sort_tokens, round_digits, type_convert):
        assert fn(None, {"digits": 1, "to": "int"}) is None


@pytest.mark.parametrize(
    ("fn", "value", "params"),
    [
        (lowercase, 5, {}),
        (strip, ["a"], {}),
        (round_digits, "2.5", {"digits": 0}),
        (round_digits, True, {"digits": 0}),
        (type_convert, "abc", {"to": "float"}),
        (type_convert, 2.5, {"to": "int"}),
        (type_convert, "maybe", {"to": "bool"}),
        (type_convert, 2, {"to": "bool"}),
        (type_convert, {"a": 1}, {"to": "str"}),
    ],
)
def test_transforms_reject_values_of_the_wrong_type(fn: Any, value: Any, params: Any) -> None:
    with pytest.raises((TypeError, ValueError)):
        fn(value, params)


def test_transforms_apply_left_to_right_to_both_sides() -> None:
    schema = obj(
        a=leaf("exact", **{"x-eval-transform": ["strip", "lowercase"]}),
        b=leaf("exact", **{"x-eval-transform": ["sort_tokens", "lowercase"]}),
    )
    results = by_path(run(schema, {"a": " Foo ", "b": "b A"}, {"a": "FOO", "b": "a B"}))
    assert results["a"].status == "match"
    assert results["a"].gold_compared == "foo"
    assert results["a"].gold == " Foo "
    # sort first, then lowercase: "A b" vs "B a" -> "a b" vs "b a"
    assert results["b"].status == "mismatch"


def test_bug_3_a_transform_failure_is_one_mismatch_not_an_aborted_run() -> None:
    schema = obj(
        name=leaf("exact", **{"x-eval-transform": ["lowercase"]}),
        n=leaf("numeric", "number", **{"x-eval-transform": [{"type_convert": {"to": "float"}}]}),
        ok=leaf("exact", "boolean"),
    )
    results = by_path(
        run(schema, {"name": "A", "n": "1.5", "ok": True}, {"name": 7, "n": "x1", "ok": True})
    )
    assert results["name"].status == "mismatch"
    assert "extracted value: transform 'lowercase' failed" in (results["name"].reason or "")
    assert results["n"].status == "mismatch"
    assert "type_convert" in (results["n"].reason or "")
    assert results["ok"].status == "match"


def test_a_gold_side_transform_failure_is_reported_as_such() -> None:
    schema = obj(name=leaf("exact", **{"x-eval-transform": ["lowercase"]}))
    (result,) = run(schema, {"name": 7}, {"name": "a"})
    assert result.status == "mismatch"
    assert (result.reason or "").startswith("gold value:")


def test_a_custom_transform_error_message_becomes_the_reason() -> None:
    registry = default_registry().copy()

    def upper_only(value: Any, params: Any) -> Any:
        if not value.isupper():
            raise ValueError("not upper case")
        return value

    register_transform("upper_only", upper_only, registry=registry)
    schema = obj(v=leaf("exact", **{"x-eval-transform": ["upper_only"]}))
    (result,) = run(schema, {"v": "AB"}, {"v": "ab"}, registry)
    assert result.reason == "extracted value: transform 'upper_only' failed: not upper case"


# --- custom comparators ------------------------------------------------------------------


def test_custom_comparators_live_in_an_explicit_registry() -> None:
    registry = default_registry().copy()

    def same_year(gold: Any, model: Any, params: Any) -> ComparatorResult:
        return ComparatorResult(1.0 if gold[:4] == model[:4] else 0.0, "year")

    register_comparator("year", same_year, registry=registry)
    with pytest.raises(ValueError, match="already registered"):
        register_comparator("year", same_year, registry=registry)
    register_comparator("year", same_year, overwrite=True, registry=registry)
    with pytest.raises(ValueError, match="cannot be replaced"):
        register_comparator("exact", same_year, registry=registry)
    schema = obj(d=leaf("year"))
    assert statuses(run(schema, {"d": "2024-01-02"}, {"d": "2024-12-31"}, registry)) == {
        "d": "match"
    }
    with pytest.raises(SchemaError, match="year"):
        parse_eval_schema(schema)  # not in the default registry


def test_register_comparator_defaults_to_the_process_registry() -> None:
    def always(gold: Any, model: Any, params: Any) -> float:
        return 1.0

    register_comparator("test_schema_scoring_always", always)
    assert "test_schema_scoring_always" in default_registry().comparators
    schema = obj(v=leaf("test_schema_scoring_always"))
    assert statuses(run(schema, {"v": 1}, {"v": 2})) == {"v": "match"}


def test_custom_comparator_params_are_validated_at_parse_time() -> None:
    registry = default_registry().copy()

    def check(params: dict[str, Any]) -> None:
        if "unit" not in params:
            raise ValueError("unit is required")

    register_comparator("unit", lambda g, e, p: 1.0, validate=check, registry=registry)
    with pytest.raises(SchemaError, match="unit is required"):
        parse_eval_schema(obj(v=leaf({"unit": {}})), registry=registry)


@pytest.mark.parametrize(
    ("reply", "status", "score", "reason"),
    [
        (0.5, "mismatch", 0.5, None),
        (True, "match", 1.0, None),
        (ComparatorResult(0.25, "c", "close"), "mismatch", 0.25, "close"),
        (ComparatorResult(0.0, "c", "helper", skip=True), "skipped", 0.0, "helper"),
        (1.5, "mismatch", 0.0, "comparator 'c' returned invalid score 1.5"),
        (-0.1, "mismatch", 0.0, "comparator 'c' returned invalid score -0.1"),
        (math.nan, "mismatch", 0.0, "comparator 'c' returned invalid score nan"),
        ("yes", "mismatch", 0.0, "comparator 'c' returned invalid score 'yes'"),
        (None, "mismatch", 0.0, "comparator 'c' returned invalid score None"),
    ],
)
def test_bug_14_comparator_replies_are_validated_never_trusted(
    reply: Any, status: str, score: float, reason: str | None
) -> None:
    registry = default_registry().copy()
    register_comparator("c", lambda g, e, p: reply, registry=registry)
    (result,) = run(obj(v=leaf("c")), {"v": 1}, {"v": 2}, registry)
    assert (result.status, result.score, result.reason) == (status, score, reason)


def test_a_raising_comparator_is_a_mismatch_with_the_error() -> None:
    registry = default_registry().copy()

    def broken(gold: Any, model: Any, params: Any) -> float:
        raise KeyError("boom")

    register_comparator("broken", broken, registry=registry)
    schema = obj(v=leaf("broken"), w=EXACT)
    results = by_path(run(schema, {"v": 1, "w": "a"}, {"v": 1, "w": "a"}, registry))
    assert results["v"].status == "mismatch"
    assert results["v"].reason == "comparator 'broken' raised KeyError('boom')"
    assert results["w"].status == "match"


# --- objects, keys, nulls, empties ---------------------------------------------------------


def test_bug_5_dotted_property_names_are_scored() -> None:
    schema = obj(**{"a.b": EXACT, "c": obj(**{"d.e": NUMBER})})
    results = run(schema, {"a.b": "x", "c": {"d.e": 2}}, {"a.b": "x", "c": {"d.e": 2}})
    assert statuses(results) == {'["a.b"]': "match", 'c["d.e"]': "match"}
    assert {r.schema_path for r in results} == {'["a.b"]', 'c["d.e"]'}


def test_bug_6_gold_keys_outside_the_schema_are_unscored_not_hallucinations() -> None:
    schema = obj(a=EXACT)
    gold = {"a": "x", "meta": 1, "note": "n"}
    model = {"a": "x", "meta": 1, "invented": True}
    results = by_path(run(schema, gold, model))
    assert results["meta"].status == "skipped"
    assert results["meta"].unscored
    assert "the extraction has it too" in (results["meta"].reason or "")
    assert results["note"].unscored
    assert results["invented"].status == "hallucination"
    assert not results["invented"].in_schema
    assert results["a"].status == "match"


def test_bug_8_null_is_absence_for_leaves_and_containers_alike() -> None:
    schema = obj(
        a=EXACT, b=EXACT, c=EXACT, o=obj(x=EXACT, y=EXACT), arr={"type": "array", "items": EXACT}
    )
    gold = {"a": "v", "b": None, "c": None, "o": {"x": "1", "y": "2"}, "arr": ["p", "q"]}
    model = {"a": None, "b": "w", "c": None, "o": None, "arr": None}
    assert statuses(run(schema, gold, model)) == {
        "a": "omission",
        "b": "hallucination",
        "o.x": "omission",
        "o.y": "omission",
        "arr[0]": "omission",
        "arr[1]": "omission",
    }


def test_bug_9_empty_containers_against_absent_are_omissions_both_kinds() -> None:
    schema = obj(o=obj(x=EXACT), arr={"type": "array", "items": EXACT})
    assert statuses(run(schema, {"o": {}, "arr": []}, {})) == {"o": "omission", "arr": "omission"}
    assert statuses(run(schema, {}, {"o": {}, "arr": []})) == {
        "o": "hallucination",
        "arr": "hallucination",
    }
    assert statuses(run(schema, {"o": {}, "arr": []}, {"o": {}, "arr": []})) == {
        "o": "match",
        "arr": "match",
    }


def test_bug_9_two_empty_records_have_no_fields() -> None:
    assert run(obj(a=EXACT), {}, {}) == []


def test_a_wrong_typed_container_is_one_verdict() -> None:
    schema = obj(o=obj(x=EXACT, y=EXACT))
    (result,) = run(schema, {"o": {"x": "1", "y": "2"}}, {"o": "1 2"})
    assert (result.path, result.status, result.comparator) == ("o", "mismatch", "")
    assert result.reason == "type mismatch: gold object, model string (schema: object)"
    (same,) = run(schema, {"o": "n/a"}, {"o": "n/a"})
    assert same.status == "match"


def test_bug_7_skip_works_on_leaves_objects_array_items_and_the_root() -> None:
    schema = obj(
        a={"type": "string", "x-eval-skip": True},
        o={"type": "object", "x-eval-skip": True, "properties": {"x": EXACT}},
        arr={"type": "array", "items": {**obj(v=EXACT), "x-eval-skip": True}},
        b=EXACT,
    )
    results = run(
        schema,
        {"a": "1", "o": {"x": "1"}, "arr": [{"v": "1"}], "b": "x"},
        {"a": "2", "o": {"x": "2"}, "arr": [{"v": "2"}, {"v": "3"}], "b": "x"},
    )
    assert statuses(results) == {
        "a": "skipped",
        "o": "skipped",
        "arr[0]": "skipped",
        "arr[-1]": "skipped",
        "b": "match",
    }
    root = {**obj(a=EXACT), "x-eval-skip": True}
    assert statuses(run(root, {"a": "1"}, {"a": "2"})) == {"": "skipped"}


def test_skipped_fields_absent_on_both_sides_produce_nothing() -> None:
    schema = obj(a={"type": "string", "x-eval-skip": True}, b=EXACT)
    assert statuses(run(schema, {"b": "x"}, {"b": "x"})) == {"b": "match"}


def test_a_container_comparator_scores_the_container_as_one_value() -> None:
    schema = obj(o={"type": "object", "x-eval-compare": "exact", "properties": {"x": NUMBER}})
    (result,) = run(schema, {"o": {"x": 1}}, {"o": {"x": 1.0}})
    assert (result.path, result.status) == ("o", "match")


def test_nesting_past_max_depth_compares_as_one_value() -> None:
    schema: dict[str, Any] = EXACT
    gold: Any = "x"
    for _ in range(MAX_DEPTH + 5):
        schema = obj(n=schema)
        gold = {"n": gold}
    (result,) = run(schema, gold, gold)
    assert result.status == "match"
    assert "nested deeper than" in (result.reason or "")


# --- arrays --------------------------------------------------------------------------------


def array(items: Any, align: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    if align is not None:
        out["x-eval-align"] = align
    return out


def test_ordered_arrays_pair_by_position() -> None:
    schema = obj(tags=array(EXACT))
    assert statuses(run(schema, {"tags": ["a", "b"]}, {"tags": ["a", "c", "d", "e"]})) == {
        "tags[0]": "match",
        "tags[1]": "mismatch",
        "tags[-1]": "hallucination",
        "tags[-2]": "hallucination",
    }


def test_hungarian_pairs_by_best_f1_and_splits_zero_pairs() -> None:
    schema = obj(tags=array(EXACT, {"match_by": "hungarian"}))
    results = run(schema, {"tags": ["a", "b", "c"]}, {"tags": ["c", "a", "z"]})
    assert statuses(results) == {
        "tags[0]": "match",
        "tags[1]": "omission",
        "tags[2]": "match",
        "tags[-1]": "hallucination",
    }
    assert by_path(results)["tags[0]"].model == "a"


def test_hungarian_object_elements_are_scored_per_field() -> None:
    items = obj(name=leaf("exact", **{"x-eval-transform": ["lowercase"]}), temp=NUMBER)
    schema = obj(steps=array(items, {"match_by": "hungarian"}))
    gold = {"steps": [{"name": "Anneal", "temp": 300}, {"name": "Etch", "temp": 20}]}
    model = {"steps": [{"name": "etch", "temp": 25}, {"name": "anneal", "temp": 300, "x": 1}]}
    assert statuses(run(schema, gold, model)) == {
        "steps[0].name": "match",
        "steps[0].temp": "match",
        "steps[0].x": "hallucination",
        "steps[1].name": "match",
        "steps[1].temp": "mismatch",
    }


def test_bug_10_hungarian_is_exact_above_the_reference_size_guard() -> None:
    items = obj(id=EXACT, v=NUMBER)
    schema = obj(rows=array(items, {"match_by": "hungarian"}))
    gold = [{"id": f"r{i}", "v": i} for i in range(60)]
    model = list(reversed(gold))
    results = run(schema, {"rows": gold}, {"rows": model})
    assert len(results) == 120
    assert all(r.status == "match" for r in results)


def test_hungarian_min_similarity_unpairs_weak_pairs() -> None:
    items = obj(a=EXACT, b=EXACT, c=EXACT, d=EXACT)
    gold = {"xs": [{"a": "1", "b": "2", "c": "3", "d": "4"}]}
    model = {"xs": [{"a": "1", "b": "x", "c": "y", "d": "z"}]}  # pair F1 0.25
    loose = obj(xs=array(items, {"match_by": "hungarian"}))
    assert sum(r.status == "mismatch" for r in run(loose, gold, model)) == 3
    strict = obj(xs=array(items, {"method": "hungarian", "min_similarity": 0.5}))
    assert {r.status for r in run(strict, gold, model)} == {"omission", "hallucination"}


def test_hungarian_handles_irregular_elements() -> None:
    items = obj(a=EXACT, o=obj(x=EXACT))
    schema = obj(xs=array(items, {"match_by": "hungarian"}))
    gold = {"xs": [{"a": "1", "o": {}}, "junk", {"a": "2", "o": {"x": "y"}}]}
    model = {"xs": [{"a": "2", "o": {"x": "y"}}, {"a": "1", "o": {}}, "junk"]}
    assert all(r.status == "match" for r in run(schema, gold, model))


def test_hungarian_with_nested_arrays_inside_elements() -> None:
    items = obj(name=EXACT, tags=array(EXACT, {"match_by": "hungarian"}))
    schema = obj(xs=array(items, {"match_by": "hungarian"}))
    gold = {"xs": [{"name": "a", "tags": ["x", "y"]}, {"name": "b", "tags": ["z"]}]}
    model = {"xs": [{"name": "b", "tags": ["z"]}, {"name": "a", "tags": ["y", "x"]}]}
    results = run(schema, gold, model)
    assert all(r.status == "match" for r in results)
    assert {r.path for r in results} == {
        "xs[0].name",
        "xs[0].tags[0]",
        "xs[0].tags[1]",
        "xs[1].name",
        "xs[1].tags[0]",
    }


def test_a_wrong_primitive_is_a_mismatch_ordered_but_split_under_hungarian() -> None:
    ordered = obj(xs=array(EXACT))
    hungarian = obj(xs=array(EXACT, {"match_by": "hungarian"}))
    assert statuses(run(ordered, {"xs": ["a"]}, {"xs": ["b"]})) == {"xs[0]": "mismatch"}
    assert statuses(run(hungarian, {"xs": ["a"]}, {"xs": ["b"]})) == {
        "xs[0]": "omission",
        "xs[-1]": "hallucination",
    }


def test_bug_11_key_field_alignment_applies_the_key_transforms() -> None:
    items = obj(name=leaf("exact", **{"x-eval-transform": ["lowercase"]}), temp=NUMBER)
    schema = obj(steps=array(items, {"match_by": "key_field", "key": "name"}))
    gold = {"steps": [{"name": "Anneal", "temp": 300}, {"name": "Etch", "temp": 20}]}
    model = {"steps": [{"name": "etch", "temp": 20}, {"name": "ANNEAL", "temp": 300}]}
    assert {r.status for r in run(schema, gold, model)} == {"match"}


def test_bug_11_key_field_keeps_non_object_gold_elements_and_notes_duplicates() -> None:
    items = obj(id=EXACT, v=NUMBER)
    schema = obj(xs=array(items, {"match_by": "key_field", "key": "id"}))
    node = parse_eval_schema(schema)
    from pytest_structeval.schema import RecordScorer

    fields, notes = RecordScorer(node).score(
        {"xs": ["junk", {"id": "a", "v": 1}, {"id": "a", "v": 2}]},
        {"xs": [{"id": "a", "v": 1}, {"id": "a", "v": 2}]},
    )
    assert statuses(fields) == {
        "xs[0]": "omission",
        "xs[1].id": "match",
        "xs[1].v": "match",
        "xs[2].id": "match",
        "xs[2].v": "match",
    }
    assert any("duplicate key" in n for n in notes)
    assert any("not objects" in n for n in notes)


@pytest.mark.parametrize("align", [None, {"match_by": "hungarian"}])
def test_deeply_nested_arrays_never_raise_recursion_error(align: Any) -> None:
    schema: dict[str, Any] = EXACT
    value: Any = "x"
    for _ in range(MAX_DEPTH + 20):
        schema = array(schema, align)
        value = [value]
    results = run(obj(v=schema), {"v": value}, {"v": value})
    assert results
    assert {r.status for r in results} == {"match"}


THRESHOLD_SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "x-eval-compare": "similarity", "x-eval-threshold": 0.9},
        "k": {"type": "string", "x-eval-compare": "exact"},
    },
}


def test_a_field_threshold_counts_a_close_enough_score_as_a_match() -> None:
    close = score(
        {"title": "Centrifugal pump", "k": "z"},
        {"title": "Centrifugal pumps", "k": "z"},
        "schema",
        schema=THRESHOLD_SCHEMA,
    )
    assert (close.passed, close.score) == (True, 1.0)
    title = next(f for f in close.fields if f.path == "answer.title")
    assert (title.status, title.score) == ("match", 1.0)
    assert title.reason == "score 0.970 reaches x-eval-threshold 0.9: counted as a match"
    far = score(
        {"title": "Centrifugal pump", "k": "z"},
        {"title": "Centrifugal", "k": "z"},
        "schema",
        schema=THRESHOLD_SCHEMA,
    )
    title = next(f for f in far.fields if f.path == "answer.title")
    assert title.status == "mismatch"
    assert 0.8 < title.score < 0.9  # its partial credit stands


@pytest.mark.parametrize("bad", [0, 1.5, True, "x", None])
def test_a_field_threshold_must_be_a_number_in_the_unit_interval(bad: Any) -> None:
    schema = {"type": "string", "x-eval-compare": "exact", "x-eval-threshold": bad}
    with pytest.raises(SchemaError, match=r"x-eval-threshold: must be a number in \(0, 1\]"):
        parse_eval_schema(schema)


def test_a_field_threshold_on_a_container_scored_field_by_field_is_refused() -> None:
    schema = {
        "type": "object",
        "x-eval-threshold": 0.5,
        "properties": {"a": {"type": "integer", "x-eval-compare": "numeric"}},
    }
    with pytest.raises(SchemaError, match="applies to a field compared as one value"):
        parse_eval_schema(schema)


def test_a_field_threshold_applies_to_batch_verdicts_and_to_pairing() -> None:
    def judge(items: list[BatchItem]) -> list[float]:
        return [
            0.95 if str(i.gold_compared).casefold() == str(i.extracted_compared).casefold() else 0.0
            for i in items
        ]

    judge.is_batch = True  # type: ignore[attr-defined]
    registry = default_registry().copy()
    registry.register_comparator("judge", judge)
    schema = {
        "type": "array",
        "x-eval-align": "hungarian",
        "items": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "x-eval-compare": "judge", "x-eval-threshold": 0.9}
            },
        },
    }
    result = score(
        [{"name": "Pump A"}, {"name": "Fan B"}],
        [{"name": "fan b"}, {"name": "pump a"}],
        "schema",
        schema=schema,
        registry=registry,
    )
    assert result.passed
    assert {f.status for f in result.fields} == {"match"}


def test_a_field_threshold_on_an_all_or_nothing_comparator_warns() -> None:
    schema = {"type": "string", "x-eval-compare": "exact", "x-eval-threshold": 0.5}
    with pytest.warns(SchemaWarning, match="has no effect with the 'exact' comparator"):
        parse_eval_schema(schema)
