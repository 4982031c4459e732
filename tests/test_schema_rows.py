"""Schema mode keeps the walk's verdicts as rows and builds ``FieldResult``s on first read.

``evaluate`` records hold rows until ``record.fields`` is read; these tests check that such a
lazy record is indistinguishable from one built from results (equality, hash, repr, pickle,
copy, ``dataclasses.replace``, ``to_dict``, ``per_field_by_index``), that constructing a
``RecordResult`` by hand still works, and that post-processors and batch comparators see
ordinary results. The last test shows the checks can fail: it corrupts the row builder.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval.registry import default_registry
from pytest_structeval.schema import (
    FieldResult,
    NullHandling,
    RecordResult,
    RecordScorer,
    evaluate,
    parse_eval_schema,
    reclassify_nulls,
    register_comparator,
)
from pytest_structeval.schema import results as results_module
from pytest_structeval.schema.comparators import ComparatorResult
from pytest_structeval.schema.results import (
    build_record_result,
    build_run_result,
    expand,
    record_from_rows,
)

TEXT = {"type": "string", "x-eval-compare": "exact", "x-eval-transform": ["strip", "lowercase"]}
NUMBER = {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}}
BOOLEAN = {"type": "boolean", "x-eval-compare": "exact"}
SCHEMA = parse_eval_schema(
    {
        "type": "object",
        "properties": {
            "name": TEXT,
            "size": NUMBER,
            "note": {"type": "string", "x-eval-compare": "similarity"},
            "skip": {"type": "string", "x-eval-compare": "exact", "x-eval-skip": True},
            "steps": {
                "type": "array",
                "x-eval-align": {"match_by": "hungarian"},
                "items": {
                    "type": "object",
                    "properties": {"n": TEXT, "t": NUMBER, "ok": BOOLEAN},
                },
            },
        },
    }
)
GOLD = [
    {
        "name": " Alpha ",
        "size": 10.0,
        "note": "a long note",
        "skip": "x",
        "outside": 1,  # a gold key outside the schema: unscored
        "steps": [{"n": "A", "t": 1.0, "ok": True}, {"n": "B", "t": 2.0, "ok": False}],
    },
    {"name": "beta", "size": 3, "note": "", "steps": []},
]
MODEL = [
    {
        "name": "alpha",
        "size": 10.05,
        "note": "a longer note",
        "invented": 2,  # a hallucination outside the schema
        "steps": [{"n": "b", "t": 2.5, "ok": False}, {"n": "a", "t": 1.0, "ok": True}],
    },
    {"name": "", "size": None, "note": "", "steps": [{"n": "c"}]},
]


def _eager(run: Any) -> list[RecordResult]:
    """The same records built from field results (the plain way)."""
    scorer = RecordScorer(SCHEMA)
    out = []
    for record in run.records:
        fields, notes = scorer.score(record.gold, record.extracted)
        out.append(
            build_record_result(record.record_id, fields, record.gold, record.extracted, notes)
        )
    return out


def _is_lazy(record: RecordResult) -> bool:
    return results_module._rows_of(record) is not None


def test_evaluate_records_are_lazy_until_fields_are_read() -> None:
    run = evaluate(GOLD, MODEL, SCHEMA)
    assert all(_is_lazy(r) for r in run.records)
    first = run.records[0].fields
    assert isinstance(first, tuple)
    assert all(type(f) is FieldResult for f in first)
    assert run.records[0].fields is first  # built once, then stored
    assert not _is_lazy(run.records[0])
    assert _is_lazy(run.records[1])


def test_lazy_records_equal_eager_ones_in_every_way() -> None:
    lazy = evaluate(GOLD, MODEL, SCHEMA).records
    eager = _eager(evaluate(GOLD, MODEL, SCHEMA))
    for record, plain in zip(evaluate(GOLD, MODEL, SCHEMA).records, eager, strict=True):
        assert hash(record) == hash(plain)  # reads the fields
    for record, plain in zip(lazy, eager, strict=True):
        assert record == plain
        assert repr(record) == repr(plain)
        assert record.to_dict() == plain.to_dict()
        assert record.field_results == list(plain.fields)
    assert [r.unscored for r in lazy] == [("outside",), ()]
    assert any(f.status == "hallucination" and not f.in_schema for f in lazy[0].fields)


@pytest.mark.parametrize("clone", ["pickle", "copy", "deepcopy", "replace"])
def test_lazy_records_survive_pickle_copy_and_replace(clone: str) -> None:
    record = evaluate(GOLD, MODEL, SCHEMA).records[0]
    expected = _eager(evaluate(GOLD, MODEL, SCHEMA))[0]
    assert _is_lazy(record)
    if clone == "pickle":
        made = pickle.loads(pickle.dumps(record))
    elif clone == "copy":
        made = copy.copy(record)
    elif clone == "deepcopy":
        made = copy.deepcopy(record)
    else:
        made = dataclasses.replace(record, f1=0.25)
        assert made.f1 == 0.25
        made = dataclasses.replace(made, f1=record.f1)
    assert type(made) is RecordResult
    assert made == expected
    assert made.fields == expected.fields
    assert not _is_lazy(made)
    if clone != "replace":
        assert made.gold == record.gold


def test_a_constructed_record_works_as_before() -> None:
    field = FieldResult("a", "match", 1.0, 1, 1, None, schema_path="a")
    record = RecordResult(record_id=7, fields=(field,), precision=1.0, recall=1.0, f1=1.0)
    assert record.fields == (field,)
    assert record.field_results == [field]
    assert not _is_lazy(record)
    assert record == RecordResult(7, (field,), 1.0, 1.0, 1.0)
    assert pickle.loads(pickle.dumps(record)) == record
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.fields = ()  # type: ignore[misc]
    with pytest.raises(AttributeError, match="'RecordResult' object has no attribute 'nope'"):
        record.nope  # type: ignore[attr-defined]  # noqa: B018
    assert not hasattr(record, "nope")
    assert [f.name for f in dataclasses.fields(RecordResult)][:2] == ["record_id", "fields"]


def test_reading_per_field_by_index_does_not_build_the_results() -> None:
    run = evaluate(GOLD, MODEL, SCHEMA)
    by_index = run.per_field_by_index
    assert all(_is_lazy(r) for r in run.records)
    for record in run.records:
        record.fields  # noqa: B018  (build them)
    assert run.per_field_by_index == by_index
    assert {"steps[0].t", "steps[1].t"} <= by_index.keys()
    assert "steps[].t" in run.per_field
    assert not any("[0]" in path for path in run.per_field)
    assert run.per_field["steps[].t"].count == by_index["steps[0].t"].count + by_index[
        "steps[1].t"
    ].count + (by_index["steps[-1].t"].count if "steps[-1].t" in by_index else 0)


def test_post_processors_get_results_and_batch_comparators_resolve() -> None:
    def keep_strings(results: list[FieldResult]) -> list[FieldResult]:
        assert all(type(f) is FieldResult for f in results)
        return results

    def blanks(results: list[FieldResult]) -> list[FieldResult]:
        return reclassify_nulls(results, NullHandling(absent_values=("", None)))

    run = evaluate(GOLD, MODEL, SCHEMA, post_process=[keep_strings, blanks])
    expected = build_run_result(
        [
            build_record_result(r.record_id, blanks(list(r.fields)), r.gold, r.extracted)
            for r in _eager(evaluate(GOLD, MODEL, SCHEMA))
        ]
    )
    assert run.to_dict() == expected.to_dict()
    assert not any(_is_lazy(r) for r in run.records)
    reasons = {f.path: f.reason for f in run.records[1].fields}
    assert reasons["name"] == "extracted value absent"
    assert reasons["note"] == "absent on both sides"

    registry = default_registry().copy()

    def batch(items: list[Any]) -> list[ComparatorResult]:
        return [ComparatorResult(0.5, "half") for _ in items]

    batch.is_batch = True  # type: ignore[attr-defined]
    register_comparator("half", batch, registry=registry)
    schema = parse_eval_schema(
        {"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "half"}}},
        registry=registry,
    )
    record = evaluate([{"a": "x"}], [{"a": "y"}], schema, registry=registry).records[0]
    assert (record.score_sum, record.mismatches) == (0.5, 1)
    (field,) = record.fields
    assert (field.status, field.score, field.comparator) == ("mismatch", 0.5, "half")


VALUES = st.one_of(st.none(), st.sampled_from(["A", " a", "b", "a long note", ""]), st.floats(0, 3))
STEP = st.fixed_dictionaries({}, optional={"n": VALUES, "t": VALUES, "ok": st.booleans()})
RECORD = st.fixed_dictionaries(
    {},
    optional={
        "name": VALUES,
        "size": VALUES,
        "note": VALUES,
        "skip": VALUES,
        "outside": VALUES,
        "steps": st.lists(STEP, max_size=3),
    },
)


# Records holding only keys outside the schema make evaluate warn (nothing was compared);
# that is right for them, and beside the point here.
@pytest.mark.filterwarnings("ignore::pytest_structeval.schema.SchemaWarning")
@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(RECORD, RECORD), min_size=1, max_size=4))
def test_runs_from_rows_equal_runs_from_results(pairs: list[tuple[Any, Any]]) -> None:
    gold = [g for g, _ in pairs]
    model = [m for _, m in pairs]
    run = evaluate(gold, model, SCHEMA)
    expected = build_run_result(_eager(run))
    assert run.per_field == expected.per_field
    assert list(run.per_field) == list(expected.per_field)
    assert run.to_dict() == expected.to_dict()
    assert run.records == expected.records


def test_a_broken_row_builder_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the tests above: results built with two values swapped no longer compare equal."""

    original = results_module.field_results

    def swapped(rows: Any) -> list[FieldResult]:
        return [dataclasses.replace(f, gold_compared=f.extracted_compared) for f in original(rows)]

    monkeypatch.setattr(results_module, "field_results", swapped)
    with pytest.raises(AssertionError):
        test_lazy_records_equal_eager_ones_in_every_way()


def _two_thirds_run() -> tuple[Any, Any]:
    """A run whose records hold perfect pairs after a field scored 2/3, and the same records
    with every pair written out as its rows."""
    registry = default_registry().copy()
    register_comparator("two_thirds", lambda g, e, p: 2 / 3, registry=registry)
    slots = {"n": TEXT, "t": NUMBER, "d": NUMBER, "w": TEXT, "ok": BOOLEAN}
    step = {"type": "object", "properties": slots}
    schema = parse_eval_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "x-eval-compare": "two_thirds"},
                "steps": {
                    "type": "array",
                    "x-eval-align": {"match_by": "hungarian"},
                    "items": step,
                },
            },
        },
        registry=registry,
    )
    steps = [{"n": f"S{k}", "t": k, "d": 2.5, "w": "A", "ok": k % 2 == 0} for k in range(4)]
    gold = [{"a": "x", "steps": steps}, {"a": "y", "steps": steps[:2]}]
    model = [{"a": "x", "steps": steps[::-1]}, {"a": "y", "steps": [steps[1], {"n": "S0"}]}]
    run = evaluate(gold, model, schema, registry=registry)
    tally: results_module.Tally = {}
    written_out = [
        record_from_rows(
            r.record_id,
            list(expand(results_module._rows_of(r) or ())),
            r.gold,
            r.extracted,
            tally=tally,
        )
        for r in run.records
    ]
    return run, build_run_result(written_out, tally=tally)


def _bits(run: Any) -> list[Any]:
    figures = [getattr(run, name) for name in ("mean_f1", "micro_f1", "micro_precision")]
    for record in run.records:
        figures += [record.score_sum, record.precision, record.recall, record.f1]
    for view in (run.per_field, run.per_field_by_index):
        figures += [(path, agg.mean_score) for path, agg in view.items()]
    return [f.hex() if isinstance(f, float) else f for f in figures]


def test_a_perfect_pair_counts_as_its_rows_to_the_last_bit() -> None:
    """Perfect pairs (one entry each) give the metrics, counts and per-field figures of their
    rows written out, bit for bit: after a score of 2/3, adding 1.0 five times is not adding
    5.0, so the slots must be added one by one."""
    run, written_out = _two_thirds_run()
    first = results_module._rows_of(run.records[0])
    assert first is not None
    assert sum(entry[0] == results_module.PERFECT for entry in first) == 4
    assert run.records[0].score_sum != 2 / 3 + 5.0 + 5.0 + 5.0 + 5.0
    assert _bits(run) == _bits(written_out)
    assert run.to_dict() == written_out.to_dict()
    assert run.per_field["steps[].n"].matches == 6
    assert run.records[1].omissions == 4


def test_a_broken_pair_count_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the test above: a pair's score added in one step must fail it."""

    original = results_module._count_pair

    def at_once(pair: Any, counts: list[int], total: float, tally: Any, by_index: bool) -> float:
        original(pair, counts, 0.0, tally, by_index)  # counts and tally as before
        return total + len(pair[2][0])

    monkeypatch.setattr(results_module, "_count_pair", at_once)
    with pytest.raises(AssertionError):
        test_a_perfect_pair_counts_as_its_rows_to_the_last_bit()
