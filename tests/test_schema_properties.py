"""Properties of schema mode (hypothesis): metric bounds, self-agreement, Hungarian invariance,
and the column-wise similarity matrix agreeing with the full walk."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval.schema import (
    RecordScorer,
    annotate_xeval,
    evaluate,
    infer_schema,
    parse_eval_schema,
)

KEYS = st.sampled_from(["a", "b", "c.d", "e f", "g"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-10, 10, allow_nan=False),
    st.sampled_from(["", "x", "X ", "y", "ab c"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
RECORDS = st.dictionaries(KEYS, VALUES, max_size=5)


def inferred(*records: Any) -> Any:
    schema = infer_schema(list(records))
    annotate_xeval(schema)
    return parse_eval_schema(schema)


@settings(max_examples=60, deadline=None)
@given(gold=RECORDS, model=RECORDS)
def test_metrics_stay_in_the_unit_interval(gold: dict[str, Any], model: dict[str, Any]) -> None:
    result = evaluate([gold], [model], inferred(gold))
    record = result.records[0]
    for value in (record.precision, record.recall, record.f1, result.micro_f1, result.mean_f1):
        assert 0.0 <= value <= 1.0
    assert all(0.0 <= f.score <= 1.0 for f in record.fields)
    assert result.total_fields == record.total_fields


@settings(max_examples=60, deadline=None)
@given(gold=RECORDS)
def test_a_record_scored_against_itself_has_f1_one(gold: dict[str, Any]) -> None:
    result = evaluate([gold], [copy.deepcopy(gold)], inferred(gold))
    assert result.records[0].f1 == 1.0
    assert {f.status for f in result.records[0].fields} <= {"match"}


ITEM_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "x-eval-compare": "exact", "x-eval-transform": ["lowercase"]},
        "size": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
        "kind": {"type": "string", "x-eval-compare": "exact"},
        "ok": {"type": "boolean", "x-eval-compare": "exact"},
    },
}
HUNGARIAN = parse_eval_schema(
    {
        "type": "object",
        "properties": {
            "xs": {"type": "array", "items": ITEM_SCHEMA, "x-eval-align": {"match_by": "hungarian"}}
        },
    }
)


@st.composite
def perturbed_arrays(draw: st.DrawFn) -> tuple[list[Any], list[Any], list[int]]:
    """Gold elements with values unique to each element, and a perturbed model copy.

    Model elements only ever share values with their own gold element, so the optimal
    pairing is unique and any correct solver must find the same one in every order.
    """
    n = draw(st.integers(1, 7))
    gold = [
        {"name": f"N{i}", "size": 100.0 + 10 * i, "kind": f"k{i}", "ok": i % 2 == 0}
        for i in range(n)
    ]
    for element in gold:
        element["ok"] = f"flag{element['name']}"  # unique, so "ok" never coincides either
    model: list[Any] = []
    for i, element in enumerate(gold):
        action = draw(st.sampled_from(["same", "drift", "change", "drop", "null"]))
        if action == "drop":
            continue
        twin = dict(element)
        if action == "drift":
            twin["name"] = twin["name"].upper()
            twin["size"] = twin["size"] * 1.004
        elif action == "change":
            twin[draw(st.sampled_from(["size", "kind"]))] = f"other{i}"
        elif action == "null":
            twin["kind"] = None
        model.append(twin)
    for k in range(draw(st.integers(0, 2))):
        model.append({"name": f"ghost{k}", "size": -1.0 - k, "kind": f"g{k}", "ok": f"g{k}"})
    order = draw(st.permutations(list(range(len(model)))))
    return gold, model, list(order)


def outcome(fields: Any) -> list[tuple[str, float, str, str]]:
    return sorted((f.status, f.score, repr(f.gold), repr(f.model)) for f in fields)


@settings(max_examples=80, deadline=None)
@given(perturbed_arrays())
def test_hungarian_alignment_is_invariant_under_permuting_the_model(
    case: tuple[list[Any], list[Any], list[int]],
) -> None:
    gold, model, order = case
    scorer = RecordScorer(HUNGARIAN)
    base, _ = scorer.score({"xs": gold}, {"xs": model})
    shuffled, _ = scorer.score({"xs": gold}, {"xs": [model[k] for k in order]})
    assert outcome(base) == outcome(shuffled)


ELEMENT = st.one_of(
    st.none(),
    st.sampled_from(["junk", 3]),
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.sampled_from(["a", "A", "b", None, 5]),
            "size": st.sampled_from([1, 1.005, 2.0, "1", None, float("inf")]),
            "kind": st.sampled_from(["x", "y", None]),
            "ok": st.sampled_from([True, False, 1, None]),
            "extra": st.sampled_from([1, None, "e"]),
            "more": st.just(2),
        },
    ),
)


@settings(max_examples=80, deadline=None)
@given(gold=st.lists(ELEMENT, max_size=5), model=st.lists(ELEMENT, max_size=5))
def test_the_column_wise_matrix_equals_the_full_walk(gold: list[Any], model: list[Any]) -> None:
    scorer = RecordScorer(HUNGARIAN)
    items = HUNGARIAN.properties["xs"].items
    assert items is not None
    matrix, _ = scorer.similarity(items, gold, model, 1)
    for i, g in enumerate(gold):
        for j, e in enumerate(model):
            assert matrix[i][j] == scorer.pair_f1(items, g, e, 1), (g, e)


NESTED_ITEMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        **ITEM_SCHEMA["properties"],
        "note": {"type": "string", "x-eval-skip": True},
        "loc": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "x-eval-compare": "exact"},
                "zip": {"type": "integer", "x-eval-compare": "numeric"},
            },
        },
        "tags": {
            "type": "array",
            "items": {"type": "string", "x-eval-compare": "exact"},
            "x-eval-align": {"match_by": "hungarian"},
        },
    },
}
NESTED = parse_eval_schema(
    {
        "type": "object",
        "properties": {
            "xs": {
                "type": "array",
                "items": NESTED_ITEMS,
                "x-eval-align": {"match_by": "hungarian"},
            }
        },
    }
)
ORDERED_NESTED_PLAIN = parse_eval_schema(
    {"type": "object", "properties": {"xs": {"type": "array", "items": NESTED_ITEMS}}}
)
NESTED_ELEMENT = st.one_of(
    st.none(),
    st.just("junk"),
    st.fixed_dictionaries(
        {},
        optional={
            "name": st.sampled_from(["a", "A", None]),
            "size": st.sampled_from([1, 1.005, None]),
            "note": st.sampled_from(["n", None]),
            "loc": st.sampled_from(
                [
                    None,
                    {},
                    "here",
                    {"city": "x"},
                    {"city": None},
                    {"city": "x", "zip": 1},
                    {"zip": 1, "other": 2},
                    {"other": None},
                ]
            ),
            "tags": st.sampled_from([None, [], "t", ["a"], ["a", "b"], ["b", None]]),
            "extra": st.sampled_from([1, None]),
        },
    ),
)


@settings(max_examples=100, deadline=None)
@given(gold=st.lists(NESTED_ELEMENT, max_size=4), model=st.lists(NESTED_ELEMENT, max_size=4))
def test_the_column_wise_matrix_equals_the_full_walk_for_nested_elements(
    gold: list[Any], model: list[Any]
) -> None:
    scorer = RecordScorer(NESTED)
    items = NESTED.properties["xs"].items
    assert items is not None
    matrix, _ = scorer.similarity(items, gold, model, 1)
    for i, g in enumerate(gold):
        for j, e in enumerate(model):
            assert matrix[i][j] == scorer.pair_f1(items, g, e, 1), (g, e)


@settings(max_examples=80, deadline=None)
@given(gold=st.lists(NESTED_ELEMENT, max_size=4), model=st.lists(NESTED_ELEMENT, max_size=4))
def test_hungarian_pairs_score_exactly_as_the_plain_walk(gold: list[Any], model: list[Any]) -> None:
    """Hungarian pairs reuse the matrix's transformed values; laying the model out in the
    chosen pairing and scoring it by position (null = no element) must give the same fields."""
    scorer = RecordScorer(NESTED)
    node = NESTED.properties["xs"]
    assert node.items is not None
    fields, _ = scorer.score({"xs": gold}, {"xs": model})
    alignment, _ = scorer.pair_elements(node, node.items, gold, model, 0)
    partner = dict(alignment.pairs)
    laid_out = [model[partner[i]] if i in partner else None for i in range(len(gold))]
    laid_out += [model[j] for j in alignment.unmatched_model]
    plain = RecordScorer(ORDERED_NESTED_PLAIN)
    expected, _ = plain.score({"xs": gold}, {"xs": laid_out})
    assert [_full(f) for f in fields] == [_full(f) for f in expected]


def _full(f: Any) -> tuple[Any, ...]:
    """A field as compared; a one-sided element's reason is its alignment's (which one
    paired nothing, which element is extra), not a position's."""
    return (
        f.path,
        f.status,
        f.score,
        repr(f.gold),
        repr(f.model),
        f.reason if f.status not in ("omission", "hallucination") else "(the alignment's)",
        repr(f.gold_compared),
        repr(f.extracted_compared),
    )
