"""Schema mode's corners: thresholds at their bound, pairing of wide and odd elements, comparator
replies and transforms, ``$ref`` resolution corners, cache keys and notes.

Each pins down a behaviour that mutation testing showed no other test held (review
mutants17-schema): the test fails when that behaviour changes.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest
from rapidfuzz import fuzz

from pytest_structeval import schema_violations, score
from pytest_structeval.registry import default_registry
from pytest_structeval.schema import (
    ComparatorResult,
    CompoundComparator,
    register_comparator,
    register_transform,
    resolve_schema_references,
)
from pytest_structeval.schema.comparators import compare_numeric, compare_similarity

S = {"type": "string"}


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


def rows(result: Any) -> list[tuple[str, str]]:
    return [(f.path, f.status) for f in result.fields]


# x-eval-threshold is inclusive
def test_threshold_is_inclusive_at_the_exact_score() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "x-eval-compare": "similarity", "x-eval-threshold": 0.8}
        },
    }
    r = score({"name": "abcde"}, {"name": "abcdx"}, mode="schema", schema=schema)  # ratio 0.8
    assert r.passed
    (field,) = r.fields
    assert (field.status, field.score) == ("match", 1.0)


@pytest.mark.parametrize(
    ("gold", "model", "limit"),
    [("xxxxx", "xyyyy", 0.2), ("a" * 50, "a" * 33 + "b" * 17, 0.66)],
)
def test_a_ratio_a_hair_under_its_exact_decimal_reaches_that_threshold(
    gold: str, model: str, limit: float
) -> None:
    """numeric32 #5: fuzz.ratio's 2/10 is 0.19999999999999996, so x-eval-threshold 0.2 (and
    a similarity ``min`` of 0.2: "similarity 0.200 below min 0.2") missed a pair exactly 20%
    alike; a threshold is met up to its last bits, as in the other modes. One per field, a
    batch judge's, and one within an array's pairing."""
    assert (fuzz.ratio(gold, model) / 100) < limit  # (the float under the decimal)
    sim = {"type": "string", "x-eval-compare": "similarity", "x-eval-threshold": limit}
    field = score({"t": gold}, {"t": model}, mode="schema", schema=obj(t=sim))
    assert (field.passed, field.fields[0].status) == (True, "match")
    floor = {"type": "string", "x-eval-compare": {"similarity": {"min": limit}}}
    above = score({"t": gold}, {"t": model}, mode="schema", schema=obj(t=floor))
    assert above.fields[0].reason is None
    assert above.fields[0].score == fuzz.ratio(gold, model) / 100
    judged = fuzz.ratio(gold, model) / 100

    def judge(items: list[Any]) -> list[float]:
        return [judged for _ in items]

    judge.is_batch = True  # type: ignore[attr-defined]
    registry = default_registry().copy()
    registry.register_comparator("judge", judge)
    batch = {"type": "string", "x-eval-compare": "judge", "x-eval-threshold": limit}
    result = score({"t": gold}, {"t": model}, mode="schema", schema=obj(t=batch), registry=registry)
    assert result.fields[0].status == "match"
    listed = {"type": "array", "x-eval-align": "hungarian", "items": sim}
    pairs = score(
        {"t": [gold, "q" * 9]}, {"t": ["q" * 9, model]}, mode="schema", schema=obj(t=listed)
    )
    assert [f.status for f in pairs.fields] == ["match", "match"]


_TABLE = {("a", "x"): 0.9, ("b", "y"): 0.6, ("a", "y"): 0.99, ("b", "x"): 0.55}


def _table_comparator(batch: bool) -> Any:
    """Scores from ``_TABLE``, per field or as a batch judge."""
    if not batch:
        return lambda g, e, p: _TABLE.get((g, e), 1.0 if g == e else 0.0)

    def judge(items: list[Any]) -> list[float]:
        return [_TABLE.get((i.gold_compared, i.extracted_compared), 0.0) for i in items]

    judge.is_batch = True  # type: ignore[attr-defined]
    return judge


@pytest.mark.parametrize("batch", [False, True], ids=["comparator", "batch"])
def test_hungarian_pairing_counts_a_score_at_the_threshold_as_a_match(batch: bool) -> None:
    reg = default_registry().copy()
    register_comparator("table", _table_comparator(batch), registry=reg)
    schema = {
        "type": "array",
        "x-eval-align": "hungarian",
        "items": {"type": "string", "x-eval-compare": "table", "x-eval-threshold": 0.8},
    }
    r = score(["a", "b"], ["x", "y"], mode="schema", schema=schema, registry=reg, threshold=0)
    # a~x counts 1.0 (>= 0.8), so a-x + b-y (1.6) beats a-y + b-x (1.55)
    assert [(f.path, f.model) for f in r.fields] == [("answer[0]", "x"), ("answer[1]", "y")]
    assert r.score == pytest.approx(0.8)


# MAX_JUDGED values are still asked
def test_batch_judge_is_asked_about_exactly_max_judged_values(monkeypatch: Any) -> None:
    import pytest_structeval.schema.scoring as scoring

    monkeypatch.setattr(scoring, "MAX_JUDGED", 4)
    calls: list[int] = []

    def judge(items: list[Any]) -> list[float]:
        calls.append(len(items))
        pairs = {("a", "y"), ("b", "x")}
        return [float((i.gold_compared, i.extracted_compared) in pairs) for i in items]

    judge.is_batch = True  # type: ignore[attr-defined]
    reg = default_registry().copy()
    register_comparator("judge", judge, registry=reg)
    schema = {
        "type": "array",
        "x-eval-align": "hungarian",
        "items": {"type": "string", "x-eval-compare": "judge"},
    }
    r = score(["a", "b"], ["x", "y"], mode="schema", schema=schema, registry=reg)
    assert calls[0] == 4  # the 4 candidate pairs, in one call
    assert r.passed
    assert not r.metrics["notes"]
    assert [f.model for f in r.fields] == ["y", "x"]


# 30 schema levels are still walked field by field
def test_thirty_nested_levels_are_walked_structurally() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"a": S, "b": S}}
    gold: dict[str, Any] = {"a": "1", "b": "2"}
    model: dict[str, Any] = {"a": "1", "b": "3"}
    for _ in range(30):
        schema = {"type": "object", "properties": {"x": schema}}
        gold, model = {"x": gold}, {"x": model}
    r = score(gold, model, mode="schema", schema=schema, threshold=0)
    assert [f.status for f in r.fields] == ["match", "mismatch"]
    assert r.fields[1].path.endswith(".x.b")
    assert r.score == pytest.approx(0.5)


# two empty root arrays have no fields, as two empty root objects
def test_empty_root_arrays_have_no_fields() -> None:
    r = score([], [], mode="schema", schema={"type": "array", "items": S})
    assert r.passed
    assert r.score == 1.0
    assert r.metrics["total_fields"] == 0
    assert r.fields == ()


# a hallucinated array's elements are named [-1], [-2], ...
def test_hallucinated_array_elements_get_negative_paths() -> None:
    schema = {"type": "object", "properties": {"a": S, "tags": {"type": "array", "items": S}}}
    r = score({"a": "x"}, {"a": "x", "tags": ["p", "q"]}, mode="schema", schema=schema, threshold=0)
    assert rows(r)[1:] == [
        ("answer.tags[-1]", "hallucination"),
        ("answer.tags[-2]", "hallucination"),
    ]


# elements of 256 counted fields take more than one byte lane
def test_hungarian_pairs_elements_with_256_fields() -> None:
    props = {f"f{i}": S for i in range(256)}
    schema = {
        "type": "array",
        "x-eval-align": "hungarian",
        "items": {"type": "object", "properties": props},
    }
    rec = {f"f{i}": "v" for i in range(256)}
    other = {f"f{i}": ("v" if i < 10 else "w") for i in range(256)}
    r = score([rec], [other, rec], mode="schema", schema=schema, threshold=0)
    assert r.metrics["matches"] == 256
    assert r.metrics["mismatches"] == 0
    assert r.metrics["hallucinations"] == 256  # `other`, unpaired


# NaN equals nothing, in a paired array too
def test_nan_never_matches_in_hungarian_pairs() -> None:
    items = {
        "type": "object",
        "properties": {"a": {"x-eval-compare": "exact"}, "b": S},
    }
    schema = {"type": "array", "x-eval-align": "hungarian", "items": items}
    nan = math.nan  # one object on both sides, as numpy's np.nan
    r = score([{"a": nan, "b": "x"}], [{"a": nan, "b": "x"}], mode="schema", schema=schema)
    assert not r.passed
    assert rows(r) == [("answer[0].a", "mismatch"), ("answer[0].b", "match")]


# undeclared keys an open object allows weigh nothing in pairing
def test_allowed_undeclared_keys_do_not_weigh_on_nested_pairing() -> None:
    items = {
        "type": "object",
        "additionalProperties": True,
        "properties": {"a": S, "b": S, "sub": {"type": "object", "properties": {"c": S}}},
    }
    schema = {"type": "array", "x-eval-align": "hungarian", "items": items}
    gold = [{"a": "1", "b": "2", "sub": {"c": "3"}}]
    rich = {"a": "1", "b": "2", "sub": {"c": "X"}, **{f"note{i}": "z" for i in range(10)}}
    poor = {"a": "1", "b": "Y", "sub": {"c": "X"}}
    r = score(gold, [rich, poor], mode="schema", schema=schema, threshold=0)
    assert (r.metrics["matches"], r.metrics["mismatches"]) == (2, 1)  # paired with `rich`


# a compound member null on both sides is passed when another
# member holds a value on one side only
class _Together(CompoundComparator):
    def __init__(self) -> None:
        super().__init__(fields=["first", "middle", "last"], primary="last", name="together")

    def compare(self, gold: dict[str, Any], extracted: dict[str, Any]) -> float:
        return float(gold == extracted)


def test_compound_member_absent_on_both_sides_joins_a_one_sided_compound() -> None:
    reg = default_registry().copy()
    register_comparator("together", _Together(), registry=reg)
    member = {"type": ["string", "null"], "x-eval-compare": "together"}
    schema = {"type": "object", "properties": {"first": member, "middle": member, "last": member}}
    r = score(
        {"first": "Ada"}, {"last": "L"}, mode="schema", schema=schema, registry=reg, threshold=0
    )
    assert rows(r) == [
        ("answer.first", "omission"),
        ("answer.middle", "mismatch"),
        ("answer.last", "hallucination"),
    ]
    assert "incomplete compound" in (r.fields[1].reason or "")


# a non-bool skip is an invalid reply, not a skip
def test_comparator_reply_with_non_bool_skip_is_invalid() -> None:
    reg = default_registry().copy()
    register_comparator(
        "odd", lambda g, e, p: ComparatorResult(0.0, "odd", None, skip="yes"), registry=reg
    )
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "odd"}}}
    r = score({"a": "x"}, {"a": "z"}, mode="schema", schema=schema, registry=reg, threshold=0)
    (field,) = r.fields
    assert field.status == "mismatch"
    assert "invalid skip" in (field.reason or "")


# two None agree (a transform may give None)
def test_numeric_two_nones_after_a_transform_match() -> None:
    assert compare_numeric(None, None, {}).score == 1.0
    reg = default_registry().copy()
    register_transform("na_none", lambda v, p: None if v == "n/a" else v, registry=reg)
    schema = {
        "type": "object",
        "properties": {"t": {"x-eval-compare": "numeric", "x-eval-transform": ["na_none"]}},
    }
    r = score({"t": "n/a"}, {"t": "n/a"}, mode="schema", schema=schema, registry=reg)
    assert r.passed
    assert rows(r) == [("answer.t", "match")]


# NaN is named as the reason
def test_numeric_nan_reason() -> None:
    assert compare_numeric(math.nan, 1.0, {}).reason == "NaN never matches"
    assert compare_numeric(1.0, math.nan, {"tolerance": {"rel": 0.1}}).reason == "NaN never matches"


# no minimum by default: low ratios keep their credit
def test_similarity_has_no_default_minimum() -> None:
    result = compare_similarity("abcdef", "abxyzw", {})
    assert result.score == pytest.approx(1 / 3)
    assert result.reason is None


# an extracted number string with surrounding spaces
def test_range_accepts_a_padded_number_string() -> None:
    from pytest_structeval.schema.comparators import compare_range

    assert compare_range("10-12", " 11 ", {}).score == 1.0
    assert compare_range("10-12", "11\n", {}).score == 1.0


# `$` ends the key only, as in ECMA-262 (not before a final newline)
def test_pattern_dollar_does_not_match_before_a_trailing_newline() -> None:
    from pytest_structeval.schema.tree import ecma_regex

    regex = ecma_regex("^id$")[0]
    assert regex is not None
    assert regex.search("id") is not None
    assert regex.search("id\n") is None


# a `$` inside a character class stays a literal dollar
def test_pattern_dollar_inside_a_class_is_literal() -> None:
    from pytest_structeval.schema.tree import ecma_regex

    regex, problem = ecma_regex("^price[$]$")
    assert regex is not None
    assert problem == ""
    assert regex.search("price$") is not None
    assert regex.search("price") is None
    regex, _ = ecma_regex("^[^$]+$")
    assert regex is not None
    assert regex.search("abc")
    assert not regex.search("a$c")


# a threshold of 1 on an all-or-nothing comparator does not warn
def test_threshold_one_on_exact_does_not_warn() -> None:
    import warnings

    from pytest_structeval.schema import parse_eval_schema

    field = {"type": "string", "x-eval-compare": "exact", "x-eval-threshold": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_eval_schema({"type": "object", "properties": {"a": field}})


# an anyOf branch allowing undeclared keys allows them for the union
def test_anyof_branch_allowing_undeclared_keys_keeps_them_unscored() -> None:
    from pytest_structeval.schema import resolve_schema_references

    schema = {
        "anyOf": [
            {"type": "object", "properties": {"a": S}, "additionalProperties": False},
            {"type": "object", "properties": {"b": S}, "additionalProperties": True},
        ]
    }
    assert resolve_schema_references(schema)["additionalProperties"] is True
    r = score({"a": "x"}, {"a": "x", "c": "y"}, mode="schema", schema=schema)
    assert r.passed
    assert rows(r) == [("answer.a", "match"), ("answer.c", "skipped")]


# a pointer one past the end of a list is a SchemaError
def test_ref_pointer_past_the_end_of_a_list_is_a_schema_error() -> None:
    from pytest_structeval.errors import SchemaError
    from pytest_structeval.schema import resolve_schema_references

    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/x/allOf/1"}},
        "$defs": {"x": {"allOf": [{"type": "string"}]}},
    }
    with pytest.raises(SchemaError, match="points to nothing"):
        resolve_schema_references(schema)


# an empty `then` leaves `else`'s fields scored
def test_empty_then_keeps_else_fields_scored() -> None:
    schema = {
        "type": "object",
        "properties": {"kind": S},
        "if": {"properties": {"kind": {"const": "x"}}},
        "then": {},
        "else": {"properties": {"b": S}},
    }
    r = score(
        {"kind": "y", "b": "1"}, {"kind": "y", "b": "2"}, mode="schema", schema=schema, threshold=0
    )
    assert rows(r) == [("answer.kind", "match"), ("answer.b", "mismatch")]


# a difference exactly at an absolute tolerance matches
# in a paired array too (0.9 - 0.7 rounds above 0.2 in floats)
def test_numeric_tolerance_bound_holds_in_hungarian_pairs() -> None:
    num = {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.7}}}}
    items = {"type": "object", "properties": {"v": num, "k": S}}
    schema = {"type": "array", "x-eval-align": "hungarian", "items": items}
    r = score([{"v": 0.9, "k": "a"}], [{"v": 0.2, "k": "a"}], mode="schema", schema=schema)
    assert r.passed
    assert rows(r) == [("answer[0].v", "match"), ("answer[0].k", "match")]


# additionalItems joins the tuple items' union
def test_additional_items_join_tuple_items() -> None:
    schema = {
        "type": "array",
        "items": [{"type": "object", "properties": {"a": S}}],
        "additionalItems": {"type": "object", "properties": {"b": {"type": "integer"}}},
    }
    r = score(
        [{"a": "x"}, {"b": 1}], [{"a": "x"}, {"b": 2}], mode="schema", schema=schema, threshold=0
    )
    assert rows(r) == [("answer[0].a", "match"), ("answer[1].b", "mismatch")]


# a map value schema that resolves to {} is written `true`
def test_resolved_empty_value_schema_is_written_true() -> None:
    from pytest_structeval.schema import resolve_schema_references

    schema = {
        "type": "object",
        "properties": {"a": S},
        "additionalProperties": {"$ref": "#/$defs/any"},
        "$defs": {"any": {}},
    }
    assert resolve_schema_references(schema)["additionalProperties"] is True


# compared values shown when one side was transformed
def test_to_dict_shows_compared_values_when_one_side_changed() -> None:
    from pytest_structeval.schema import score_record

    convert = [{"type_convert": {"to": "int"}}]
    field = {"type": "integer", "x-eval-compare": "exact", "x-eval-transform": convert}
    (f,) = score_record({"type": "object", "properties": {"n": field}}, {"n": 5}, {"n": "5"})
    out = f.to_dict()
    assert (out["gold_compared"], out["extracted_compared"]) == (5, 5)


# an undeclared model-only key is a hallucination, not unscored
def test_undeclared_hallucination_is_not_unscored() -> None:
    from pytest_structeval.schema import score_record

    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "x-eval-compare": "exact"}},
        "additionalProperties": False,
    }
    fields = score_record(schema, {"a": "x"}, {"a": "x", "zz": 1})
    assert [(f.path, f.status, f.in_schema, f.unscored) for f in fields] == [
        ("a", "match", True, False),
        ("zz", "hallucination", False, False),
    ]


# batch errors are named before "nothing scored"
def test_batch_error_reason_wins_over_nothing_scored() -> None:
    def judge(items: list[Any]) -> list[float]:
        raise RuntimeError("judge down")

    judge.is_batch = True  # type: ignore[attr-defined]
    reg = default_registry().copy()
    register_comparator("judge", judge, registry=reg)
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "judge"}}}
    r = score({"a": "x", "zz": 1}, {"a": "y"}, mode="schema", schema=schema, registry=reg)
    assert not r.passed
    assert r.reason.startswith("1 batch error: ")


# a schema inferred from a gold is not reused for a schema
# dict equal to that gold
def test_inferred_schema_is_not_reused_for_an_equal_schema_dict() -> None:
    score({"type": "object"}, {"type": "object"}, mode="schema")  # inferred from this gold
    r = score({"a": 1}, {"a": 2}, mode="schema", schema={"type": "object"})
    assert rows(r) == [("answer", "mismatch")]
    assert r.score == 0.0


# an absent_values glob that matched nothing is noted
def test_unused_absent_values_glob_is_noted() -> None:
    schema = {"type": "object", "properties": {"a": S}}
    r = score(
        {"a": "x"}, {"a": "x"}, mode="schema", schema=schema, absent_values={"answer.nope": ["n/a"]}
    )
    assert r.metrics["notes"] == ["absent_values pattern 'answer.nope' matched no field"]


def test_rel_is_taken_of_1_at_gold_0_and_the_reason_says_so() -> None:
    """struct_extract_eval's rule, kept and now stated (review asks18)."""
    schema = {
        "type": "object",
        "properties": {
            "t": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.05}}}}
        },
    }
    assert score({"t": 0}, {"t": 0.04}, "schema", schema=schema).passed
    (miss,) = score({"t": 0}, {"t": 0.1}, "schema", schema=schema).failing_fields
    assert miss.reason == "difference exceeds the tolerance (rel 0.05 of 1 at gold 0)"
    (far,) = score({"t": 2}, {"t": 2.2}, "schema", schema=schema).failing_fields
    assert far.reason == "difference exceeds the tolerance (rel 0.05)"


@pytest.mark.parametrize(
    ("gold", "model", "reason"),
    [
        (0, 0.03, "abs 0.01; rel 0.05 of 1 at gold 0 holds"),
        (100, 100.5, "rel 0.001; abs 1 holds"),
        (100, 120, "rel 0.05, abs 1"),
    ],
)
def test_with_both_bounds_the_reason_says_which_one_was_missed(
    gold: float, model: float, reason: str
) -> None:
    """Review schema29 #3: both bounds must hold, and the reason read as if both were missed."""
    rel = 0.001 if gold == 100 and model == 100.5 else 0.05
    tolerance = {"rel": rel, "abs": 0.01 if gold == 0 else 1}
    field = {"type": "number", "x-eval-compare": {"numeric": {"tolerance": tolerance}}}
    schema = {"type": "object", "properties": {"t": field}}
    (miss,) = score({"t": gold}, {"t": model}, "schema", schema=schema).failing_fields
    assert miss.reason == f"difference exceeds the tolerance ({reason})"


@pytest.mark.parametrize("keyword", ["dependentSchemas", "dependencies"])
def test_properties_declared_by_dependent_schemas_are_scored(keyword: str) -> None:
    """A wrong value of a property declared only under ``dependentSchemas`` (or draft-04's
    ``dependencies``) cost nothing and passed (schema25 #1); ``dependencies``' arrays name
    required keys, no schema."""
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        keyword: {"a": {"properties": {"b": {"type": "string"}}}, "c": ["a"]},
    }
    result = score({"a": 1, "b": "x"}, {"a": 1, "b": "y"}, "schema", schema=schema)
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.a", "match"),
        ("answer.b", "mismatch"),
    ]
    assert score({"a": 1}, {"a": 1}, "schema", schema=schema).passed  # optional: no omission
    # An outcome never narrows the node's own type, nor requires unconditionally (diff25e #2).
    author = {"type": ["string", "object"], keyword: {"name": {"required": ["x"]}}}
    either = {"type": "object", "properties": {"author": author}}
    assert resolve_schema_references(either)["properties"]["author"] == {
        "type": ["object", "string"]
    }
    assert score({"author": "Ann"}, {"author": "Ann"}, "schema", schema=either).passed
    closing = {  # nor closes the object where it does not apply (diff25f #3)
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        keyword: {"a": {"additionalProperties": False}},
    }
    assert resolve_schema_references(closing).get("additionalProperties") is None


def _chained_unions(levels: int) -> dict[str, Any]:
    """``d0`` .. ``d<levels>``: each an ``anyOf`` of two references to the next."""
    defs: dict[str, Any] = {
        f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"d{levels}"] = {"type": "string"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


def _capped(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, cap: int) -> None:
    """Make ``owner.name`` fail past ``cap`` calls: work exponential in the schema's depth
    fails the test at once instead of running for hours."""
    original = getattr(owner, name)
    calls = [0]

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        assert calls[0] <= cap, f"{name} called more than {cap} times"
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_unions_whose_branches_refer_to_one_schema_take_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """40 levels of ``anyOf`` over two references to the next level, under 2 KB, walked each
    branch again at every level: 2**40 steps (hostile25 #3). Each is worked out once now."""
    from pytest_structeval.schema import resolve, validity

    schema = _chained_unions(40)
    _capped(monkeypatch, resolve._Resolver, "_shape", 1_000)
    _capped(monkeypatch, validity.SchemaCheck, "_check", 1_000)
    assert score("a", "a", "schema", schema=schema).passed
    assert schema_violations("a", schema) == ()
    (violation,) = schema_violations(1, schema)
    assert violation.keyword == "anyOf"


def test_schema_mode_messages_name_what_they_mean() -> None:
    """Review schema29 #2, #4, #5: the weights hint named ignore_paths, which schema mode
    refuses; a transform's parameter error named no transform; "is a object"; a count of one
    in the plural."""
    from pytest_structeval import score
    from pytest_structeval.errors import OptionsError, SchemaError
    from pytest_structeval.schema import parse_eval_schema

    with pytest.raises(OptionsError, match=r"\(to leave a field out, use x-eval-skip in the "):
        score({"a": 1}, {"a": 2}, "schema", weights={"answer.a": 0})
    field = {"type": "string", "x-eval-compare": "exact", "x-eval-transform": [{"strip": {"x": 1}}]}
    with pytest.raises(SchemaError, match=r"strip: unknown parameter\(s\) \['x'\]; it takes none$"):
        parse_eval_schema({"type": "object", "properties": {"a": field}})
    number = {"type": "number", "x-eval-compare": "numeric"}
    result = score({"a": {"b": 1}}, {"a": 1}, "schema",
                   schema={"type": "object", "properties": {"a": number}})  # fmt: skip
    assert "gold value {'b': 1} is an object, not a number" in str(result.fields[0].reason)
    contained = score(
        {"a": [1, 2]}, {"a": [1, 2]}, align={"answer.a": {"method": "contained", "count": 1}}
    )
    assert (
        "answer.a: the answer lists 2 distinct elements; 1 is asked for"
        in (contained.metrics["notes"])
    )


def test_schema_mode_gives_the_alignment_reasons_every_mode_gives() -> None:
    """Review schema29 #1: extra elements, elements without a key and a key alignment that
    paired nothing said nothing in schema mode (strict mode says each)."""
    from pytest_structeval import score

    items = {"type": "object", "properties": {"n": {"type": "string"}}}
    hungarian = {"type": "array", "x-eval-align": "hungarian", "items": items}
    schema = {"type": "object", "properties": {"l": hungarian}}
    gold, model = {"l": [{"n": "a"}]}, {"l": [{"n": "x"}, {"n": "a"}, {"n": "y"}]}
    told = [(f.path, f.reason) for f in score(gold, model, "schema", schema=schema).fields]
    strict = [(f.path, f.reason) for f in score(gold, model, "strict", align="hungarian").fields]
    assert (
        told
        == strict
        == [
            ("answer.l[0].n", None),
            ("answer.l[-1].n", "extra element (model index 0)"),
            ("answer.l[-2].n", "extra element (model index 2)"),
        ]
    )
    keyed_items = {"type": "object", "properties": {"id": {"type": "integer"}}}
    keyed = {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "id"}}
    schema = {"type": "object", "properties": {"l": {**keyed, "items": keyed_items}}}
    result = score({"l": [{"id": 1}, {"id": 2}]}, {"l": [{"id": "A1"}]}, "schema", schema=schema)
    assert result.metrics["notes"] == [
        "answer.l: no element paired by key 'id' (gold values 1, 2; model values 'A1')"
    ]
    assert [f.reason for f in result.fields] == [
        "no unpaired model element with id = 1",
        "no unpaired model element with id = 2",
        "extra element (model index 0); no unpaired gold element with id = 'A1'",
    ]
    ordered = {
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"type": "integer"}}},
    }
    result = score({"l": [1, 2]}, {"l": [1]}, "schema", schema=ordered)
    assert result.fields[-1].reason == "missing element: the model array has 1"


@pytest.mark.parametrize("combinator", ["anyOf", "allOf", "oneOf"])
def test_branches_setting_an_x_eval_key_differently_warn(combinator: str) -> None:
    """Review schema29 #6: the first branch's tolerance won and the other's was lost without
    a word (struct_extract_eval keeps the first too)."""
    from pytest_structeval.schema import SchemaWarning, resolve_schema_references

    def branch(tolerance: int) -> dict[str, Any]:
        return {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": tolerance}}}}

    schema = {"type": "object", "properties": {"v": {combinator: [branch(1), branch(5)]}}}
    with pytest.warns(
        SchemaWarning,  # at the node they meet (schema29 #6's carried gap: no path)
        match=r"^properties\.v: branches .* set x-eval-compare differently .*: the first is used",
    ):
        resolved = resolve_schema_references(schema)
    assert resolved["properties"]["v"]["x-eval-compare"] == branch(1)["x-eval-compare"]
    conditional = {  # then/else meet at their node too; a root's are the schema's (mutation31)
        "type": "object",
        "properties": {"v": {"if": {"type": "number"}, "then": branch(1), "else": branch(5)}},
    }
    with pytest.warns(SchemaWarning, match=r"^properties\.v: branches"):
        resolve_schema_references(conditional)
    with pytest.warns(SchemaWarning, match=r"^schema: branches"):
        resolve_schema_references({combinator: [branch(1), branch(5)]})
    same = {"type": "object", "properties": {"v": {combinator: [branch(1), branch(1)]}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        resolve_schema_references(same)
