"""Schema mode's fast paths give exactly what the general code gives (hypothesis).

Each fast path is checked against the plain definition it replaces: results built from rows
against the ``FieldResult`` constructor, the matrix's slot hits against the comparators pair by
pair, the column-wise matrix (all-slots and gappy elements, counted and mixed plans) against the
full walk of every pair, the walk of a perfect pair against the plain walk, and the run tally
against counting the records afterwards.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_structeval.schema import RecordScorer, evaluate, parse_eval_schema
from pytest_structeval.schema.comparators import json_equal, numeric_match
from pytest_structeval.schema.results import (
    FieldResult,
    build_record_result,
    build_run_result,
    field_results,
)
from pytest_structeval.schema.scoring import (
    FAILED,
    MISSING,
    _exact_hits,
    _lanes,
    _numeric_hits,
)

# --- results from rows --------------------------------------------------------------------

ANY = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5))
FIELD_ARGS = st.tuples(
    st.sampled_from(["match", "mismatch", "omission", "hallucination", "skipped"]),
    st.floats(0, 1),
    st.text(max_size=8),
    st.text(max_size=8),
    ANY,
    ANY,
    st.one_of(st.none(), st.text(max_size=8)),
    st.text(max_size=8),
    ANY,
    ANY,
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(FIELD_ARGS)
def test_rows_build_the_constructors_result(args: tuple[Any, ...]) -> None:
    status, score, path, schema_path, gold, model, reason, comparator, gc, ec, in_schema = args
    row = (status, score, path, schema_path, in_schema, gold, model, reason, comparator, gc, ec)
    (made,) = field_results([row])
    expected = FieldResult(
        path, status, score, gold, model, reason, comparator, schema_path, gc, ec, in_schema
    )
    assert type(made) is FieldResult
    assert [getattr(made, f.name) for f in dataclasses.fields(FieldResult)] == [
        getattr(expected, f.name) for f in dataclasses.fields(FieldResult)
    ]
    assert repr(made) == repr(expected)
    assert made.to_dict() == expected.to_dict() or any(
        isinstance(v, float) and math.isnan(v) for v in (gold, model, gc, ec)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.status = "match"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(made)) == made or any(
        isinstance(v, float) and math.isnan(v) for v in (gold, model, gc, ec)
    )


def test_rows_keep_their_order() -> None:
    out = field_results(
        [
            ("match", 1.0, "a", "a", True, 1, 1, None, "", None, None),
            ("omission", 0.0, "b", "b", False, 2, None, None, "", None, None),
        ]
    )
    assert out == [
        FieldResult("a", "match", 1.0, 1, 1, None, schema_path="a"),
        FieldResult("b", "omission", 0.0, 2, None, None, schema_path="b", in_schema=False),
    ]
    assert hash(out[0]) == hash(FieldResult("a", "match", 1.0, 1, 1, None, schema_path="a"))


# --- slot hits against the comparators ----------------------------------------------------

NUMBERS = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.integers(-(10**6), 10**6),
    st.sampled_from([0, 0.0, -0.0, 100.0, 101.0, 99.0, 100.5, 1e308, -1e308, 2**1001]),
)
NUMERIC_CELL = st.one_of(
    NUMBERS,
    NUMBERS,
    st.sampled_from([MISSING, MISSING, FAILED, True, False, "1", math.inf, -math.inf, math.nan]),
)
TOLERANCES = st.sampled_from(
    [None, {"rel": 0.01}, {"abs": 0.5}, {"rel": 0.01, "abs": 0.5}, {"rel": 0}, {"rel": 2.5}, {}]
)


def _numeric_leaf(tolerance: dict[str, float] | None) -> Any:
    compare: Any = "numeric" if tolerance is None else {"numeric": {"tolerance": tolerance}}
    node = parse_eval_schema({"type": "number", "x-eval-compare": compare})
    return RecordScorer(node).leaf(node)


def _lane_bits(hits: list[int], m: int) -> list[list[int]]:
    return [list(found.to_bytes(m, "little")) for found in hits]


def _pairwise(
    rows: list[Any], cols: list[Any], match: Callable[[Any, Any], bool]
) -> list[list[int]]:
    """The oracle of the hit functions: 1 where gold value ``g`` meets model value ``v`` by
    ``match`` pair by pair; absent and failed values meet nothing."""
    return [
        [
            int(
                g is not MISSING
                and g is not FAILED
                and v is not MISSING
                and v is not FAILED
                and match(g, v)
            )
            for v in cols
        ]
        for g in rows
    ]


@settings(max_examples=150, deadline=None)
@given(
    tolerance=TOLERANCES,
    rows=st.one_of(st.lists(NUMERIC_CELL, max_size=6), st.lists(NUMBERS, max_size=6)),
    cols=st.one_of(
        st.lists(NUMERIC_CELL, min_size=1, max_size=6),
        st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=6),
    ),
)
@example(tolerance={"rel": 2.5}, rows=[1e308], cols=[-1e308, 1e308])  # the difference overflows
@example(tolerance={"abs": 0.5}, rows=[0, -0.0, 2**1001], cols=[0.4, 2**1001, 2**1001 + 1])
@example(tolerance={"rel": 0.01}, rows=[0.0, 100], cols=[0.01, 0.0101, 101.0, 101.0000001])
def test_numeric_hits_are_numeric_match_pair_by_pair(
    tolerance: dict[str, float] | None, rows: list[Any], cols: list[Any]
) -> None:
    leaf = _numeric_leaf(tolerance)
    m = len(cols)
    hits = _numeric_hits(leaf, rows, cols, set(map(type, rows)), set(map(type, cols)), _lanes(m))
    expected = _pairwise(rows, cols, lambda g, v: numeric_match(g, v, leaf.rel, leaf.tol_abs))
    assert _lane_bits(hits, m) == expected


EXACT_CELL = st.one_of(
    st.sampled_from([MISSING, FAILED, None, True, False, 0, 1, 1.0, -0.0, math.nan, "a", "A"]),
    st.sampled_from([[1], [1.0], {"k": 1}, {"k": True}, [], {}]),
)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.one_of(
        st.lists(EXACT_CELL, max_size=6),
        st.lists(st.sampled_from(["a", "b", "c", MISSING]), max_size=6),
        st.lists(st.booleans(), max_size=6),
        st.lists(st.sampled_from([True, False, MISSING]), max_size=6),
    ),
    cols=st.one_of(
        st.lists(EXACT_CELL, min_size=1, max_size=6),
        st.lists(st.sampled_from(["a", "b", "c", MISSING]), min_size=1, max_size=6),
        st.lists(st.booleans(), min_size=1, max_size=6),
        st.lists(st.sampled_from([True, False, MISSING]), min_size=1, max_size=6),
        st.lists(st.integers(0, 3), min_size=1, max_size=6),
    ),
)
def test_exact_hits_are_json_equality_pair_by_pair(rows: list[Any], cols: list[Any]) -> None:
    m = len(cols)
    hits = _exact_hits(rows, cols, set(map(type, rows)) | set(map(type, cols)), _lanes(m))
    assert _lane_bits(hits, m) == _pairwise(rows, cols, json_equal)


# --- the matrix against the full walk -----------------------------------------------------

FLAT_ITEMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "x-eval-compare": "exact", "x-eval-transform": ["lowercase"]},
        "size": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
        "kind": {"type": "string", "x-eval-compare": "exact"},
        "ok": {"type": "boolean", "x-eval-compare": "exact"},
    },
}
#: The same with one partial-credit slot: the matrix adds slot by slot instead of counting.
MIXED_ITEMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        **FLAT_ITEMS["properties"],
        "kind": {"type": "string", "x-eval-compare": "similarity"},
    },
}


def _array_schema(items: dict[str, Any], *, ordered: bool = False) -> Any:
    xs: dict[str, Any] = {"type": "array", "items": items}
    if not ordered:
        xs["x-eval-align"] = {"match_by": "hungarian"}
    return parse_eval_schema({"type": "object", "properties": {"xs": xs}})


FLAT = _array_schema(FLAT_ITEMS)
MIXED = _array_schema(MIXED_ITEMS)
FLAT_ORDERED = _array_schema(FLAT_ITEMS, ordered=True)

#: Mostly complete elements (the one-call-per-element path), sometimes gappy or odd.
FULL_ELEMENT = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["a", "A", "b", "B ", 5]),
        "size": st.sampled_from([1, 1.005, 2.0, 2, "1", math.inf]),
        "kind": st.sampled_from(["x", "y", "xy"]),
        "ok": st.sampled_from([True, False, 1]),
    },
    optional={"extra": st.sampled_from([1, None])},
)
ELEMENT: st.SearchStrategy[Any] = st.one_of(
    FULL_ELEMENT,
    FULL_ELEMENT,
    FULL_ELEMENT.map(lambda d: {**d, "kind": None}),
    FULL_ELEMENT.map(lambda d: {k: v for k, v in d.items() if k != "size"}),
    st.sampled_from([None, {}, "junk"]),
)


@pytest.mark.parametrize("schema", [FLAT, MIXED], ids=["counted", "mixed"])
@settings(max_examples=80, deadline=None)
@given(gold=st.lists(ELEMENT, max_size=6), model=st.lists(ELEMENT, max_size=6))
def test_the_matrix_equals_the_full_walk(schema: Any, gold: list[Any], model: list[Any]) -> None:
    scorer = RecordScorer(schema)
    items = schema.properties["xs"].items
    matrix, _ = scorer.similarity(items, gold, model, 1)
    for i, g in enumerate(gold):
        for j, e in enumerate(model):
            assert matrix[i][j] == scorer.pair_f1(items, g, e, 1), (g, e)


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
        f.comparator,
        f.schema_path,
        repr(f.gold_compared),
        repr(f.extracted_compared),
        f.in_schema,
    )


@settings(max_examples=120, deadline=None)
@given(
    gold=st.lists(
        st.one_of(FULL_ELEMENT, FULL_ELEMENT.map(lambda d: {**d, "kind": None})), max_size=6
    ),
    picks=st.lists(st.tuples(st.integers(0, 5), st.booleans()), max_size=7),
    noise=st.lists(ELEMENT, max_size=2),
)
def test_perfect_pairs_score_exactly_as_the_plain_walk(
    gold: list[Any], picks: list[tuple[int, bool]], noise: list[Any]
) -> None:
    """Model copies of gold elements (some changed) pair at F1 1 and skip the per-field walk;
    laid out in the chosen pairing and scored by position, the fields must be the same."""
    model = [
        {**gold[k % len(gold)], **({} if keep else {"kind": "changed"})}
        for k, keep in (picks if gold else [])
    ] + noise
    scorer = RecordScorer(FLAT)
    node = FLAT.properties["xs"]
    fields, _ = scorer.score({"xs": gold}, {"xs": model})
    alignment, _ = scorer.pair_elements(node, node.items, gold, model, 0)
    partner = dict(alignment.pairs)
    laid_out = [model[partner[i]] if i in partner else None for i in range(len(gold))]
    laid_out += [model[j] for j in alignment.unmatched_model]
    expected, _ = RecordScorer(FLAT_ORDERED).score({"xs": gold}, {"xs": laid_out})
    assert [_full(f) for f in fields] == [_full(f) for f in expected]


# --- the run tally against counting afterwards -------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    golds=st.lists(st.lists(FULL_ELEMENT, max_size=4), min_size=1, max_size=4),
    models=st.lists(st.lists(ELEMENT, max_size=4), min_size=4, max_size=4),
)
def test_the_run_tally_equals_counting_the_records(
    golds: list[list[Any]], models: list[list[Any]]
) -> None:
    gold = [{"xs": xs} for xs in golds]
    model = [{"xs": xs, "other": 1} for xs in models[: len(golds)]]
    run = evaluate(gold, model, MIXED)
    recounted = build_run_result(
        [build_record_result(r.record_id, r.fields, r.gold, r.extracted) for r in run.records]
    )
    assert run.per_field == recounted.per_field
    assert list(run.per_field) == list(recounted.per_field)
    assert run.to_dict() == recounted.to_dict()


def test_perfect_pairs_take_the_shortcut_and_large_arrays_use_wide_lanes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Guards the properties above against testing nothing: every pair of complete elements
    is scored from the matrix's hits, and 40 x 40 matrices (lanes far past one machine word)
    still equal the walk."""
    from tests.test_schema_pairs import spy_on_emit

    taken = spy_on_emit(monkeypatch)
    gold = [
        {"name": f"N{k % 7}", "size": float(k % 5), "kind": "x", "ok": k % 2 == 0}
        for k in range(40)
    ]
    model = [dict(g) for g in reversed(gold)]
    model[3]["size"] = 99.0
    scorer = RecordScorer(FLAT)
    fields, _ = scorer.score({"xs": gold}, {"xs": model})
    assert taken == [True] * 40
    assert {f.status for f in fields} == {"match", "mismatch"}
    items = FLAT.properties["xs"].items
    matrix, _ = scorer.similarity(items, gold, model, 1)
    assert all(
        matrix[i][j] == scorer.pair_f1(items, g, e, 1)
        for i, g in enumerate(gold)
        for j, e in enumerate(model)
    )
