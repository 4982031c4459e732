"""Hungarian pairs scored from the similarity matrix's per-slot hits, and built-in comparators'
misses answered without calling them, against the general walk.

The oracle for pairs: lay the model elements out in the chosen pairing and score the arrays by
position, which walks every pair field by field with no prepared values. The oracle for misses:
the same comparator behind another name, which the walk has to call.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval.registry import Registry, default_registry
from pytest_structeval.schema import RecordScorer, evaluate, parse_eval_schema, scoring
from pytest_structeval.schema import results as results_module
from pytest_structeval.schema.comparators import (
    ComparatorResult,
    compare_exact,
    compare_numeric,
    register_comparator,
    validate_exact,
    validate_numeric,
)
from pytest_structeval.schema.results import Row

#: Leaf kinds an element slot can take; the first five are the ones the matrix counts.
LEAVES: dict[str, dict[str, Any]] = {
    "text": {"type": "string", "x-eval-compare": "exact", "x-eval-transform": ["lowercase"]},
    "code": {"type": "string", "x-eval-compare": "exact"},
    "rel": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
    "abs": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.5}}}},
    "flag": {"type": "boolean", "x-eval-compare": "exact"},
    "fuzzy": {"type": "string", "x-eval-compare": {"similarity": {"min": 0.5}}},
    "skip": {"type": "string", "x-eval-skip": True},
}
VALUES = st.sampled_from(
    ["a", "A", "ab", 5, 1, 1.0, 1.004, 2, 2.4, -0.0, True, False, None, math.inf, math.nan, "1"]
)


def _schema(kinds: list[str], *, ordered: bool) -> Any:
    xs: dict[str, Any] = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {f"f{k}": LEAVES[kind] for k, kind in enumerate(kinds)},
        },
    }
    if not ordered:
        xs["x-eval-align"] = {"match_by": "hungarian"}
    return parse_eval_schema({"type": "object", "properties": {"xs": xs}})


def _shown(rows: Sequence[tuple[Any, ...]]) -> list[tuple[str, ...]]:
    """Rows with every value as repr and type, so 1 == 1.0 == True and -0.0 == 0.0 differ."""
    return [
        tuple(
            "(the alignment's)"  # a one-sided element's reason is its alignment's
            if at == 7 and row[0] in ("omission", "hallucination")
            else f"{value!r}:{type(value).__name__}"
            for at, value in enumerate(row)
        )
        for row in rows
    ]


def _by_position(
    kinds: list[str], gold: list[Any], model: list[Any]
) -> tuple[list[Row], list[Row]]:
    """(rows of the Hungarian scoring, rows of the same pairing scored by position).

    Scored by position, no pair is kept as one entry (``results.Pair``): the expected rows do
    not depend on ``results.expand``."""
    scorer = RecordScorer(_schema(kinds, ordered=False))
    entries, _ = scorer.rows({"xs": gold}, {"xs": model})
    rows = list(results_module.expand(entries))
    node = scorer.schema.properties["xs"]
    assert node.items is not None
    alignment, _ = scorer.pair_elements(node, node.items, gold, model, 0)
    partner = dict(alignment.pairs)
    laid_out = [model[partner[i]] if i in partner else None for i in range(len(gold))]
    laid_out += [model[j] for j in alignment.unmatched_model]
    expected, _ = RecordScorer(_schema(kinds, ordered=True)).rows({"xs": gold}, {"xs": laid_out})
    assert all(row[0] != results_module.PERFECT for row in expected)
    return rows, cast("list[Row]", expected)


@st.composite
def _arrays(draw: st.DrawFn) -> tuple[list[str], list[Any], list[Any]]:
    """A slot layout and two arrays: mostly elements holding every key (the direct path), some
    null, changed, gappy, extra-keyed or odd; model elements are often changed gold copies."""
    kinds = draw(st.lists(st.sampled_from(sorted(LEAVES)), min_size=2, max_size=5))
    names = [f"f{k}" for k in range(len(kinds))]
    full = st.fixed_dictionaries({name: VALUES for name in names})
    element = st.one_of(
        full,
        full,
        full,
        full.map(lambda d: {k: v for k, v in list(d.items())[1:]}),
        full.map(lambda d: {**d, "extra": 1}),
        st.sampled_from([None, {}, "junk"]),
    )
    gold = draw(st.lists(element, max_size=6))
    model = draw(st.lists(element, max_size=2))
    for k, change in draw(st.lists(st.tuples(st.integers(0, 5), VALUES), max_size=6)):
        if gold and isinstance(gold[k % len(gold)], dict):
            copy = dict(gold[k % len(gold)])
            copy[names[k % len(names)]] = change
            model.append(copy)
    return kinds, gold, draw(st.permutations(model))


@settings(max_examples=150, deadline=None)
@given(case=_arrays())
def test_pairs_from_hits_equal_the_walk_by_position(
    case: tuple[list[str], list[Any], list[Any]],
) -> None:
    kinds, gold, model = case
    rows, expected = _by_position(kinds, gold, model)
    assert _shown(rows) == _shown(expected)


def spy_on_emit(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each ``_Pairing.emit`` call returned (True: the pair was scored from its hits)."""
    taken: list[bool] = []
    original = scoring._Pairing.emit

    def spy(self: Any, *args: Any) -> bool:
        taken.append(original(self, *args))
        return taken[-1]

    monkeypatch.setattr(scoring._Pairing, "emit", spy)
    return taken


def test_pairs_with_misses_nulls_and_failed_transforms_take_the_direct_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Guards the property above against testing nothing: imperfect pairs (a numeric miss, a
    null on either side, a transform that fails, a type change) are scored from the hits."""
    taken = spy_on_emit(monkeypatch)
    kinds = ["text", "rel", "abs", "flag", "code"]
    gold = [
        {"f0": "Anneal", "f1": 100.0, "f2": 3, "f3": True, "f4": "N2"},
        {"f0": "Etch", "f1": 20.0, "f2": None, "f3": False, "f4": "Ar"},
        {"f0": 7, "f1": 1.0, "f2": 1, "f3": True, "f4": "O2"},
    ]
    model = [
        {"f0": "etch", "f1": 20.1, "f2": 4, "f3": None, "f4": "Ar"},
        {"f0": "ANNEAL", "f1": 150.0, "f2": 3.4, "f3": True, "f4": 5},
        {"f0": 7, "f1": 1, "f2": 1, "f3": 1, "f4": "O2"},
    ]
    rows, expected = _by_position(kinds, gold, model)
    assert taken == [True, True, True]
    assert _shown(rows) == _shown(expected)
    assert {row[0] for row in rows} == {"match", "mismatch", "omission", "hallucination"}
    reasons = " ".join(row[7] or "" for row in rows)
    assert "transform 'lowercase' failed" in reasons
    assert "difference exceeds the tolerance (rel 0.01)" in reasons
    assert "type differs: string vs number" in reasons


def test_pairs_the_matrix_cannot_count_go_field_by_field(monkeypatch: pytest.MonkeyPatch) -> None:
    """Partial-credit, skipped or extra-keyed elements keep the walk (and still agree)."""
    taken = spy_on_emit(monkeypatch)
    for kinds in (["text", "fuzzy"], ["text", "skip"]):
        gold = [{"f0": "a", "f1": "abc"}, {"f0": "b", "f1": "abd"}]
        model = [{"f0": "B", "f1": "abd"}, {"f0": "a", "f1": "abx"}]
        rows, expected = _by_position(kinds, gold, model)
        assert _shown(rows) == _shown(expected)
    assert not any(taken)
    extra = [{"f0": "a", "f1": "x", "x": 1}]
    rows, expected = _by_position(["text", "code"], extra, [{"f0": "a", "f1": "x"}])
    assert _shown(rows) == _shown(expected)
    assert taken[-1] is False


@pytest.mark.parametrize(
    "properties",
    [
        {"a": {"type": "string", "x-eval-skip": True}},
        {"a": {"type": "array", "items": {"type": "string", "x-eval-compare": "exact"}}},
    ],
    ids=["all-skipped", "only-nested-arrays"],
)
def test_elements_without_a_scored_leaf_align(properties: dict[str, Any]) -> None:
    """A plan with no leaf slot once failed an assertion while summing the slots' hits."""
    schema = parse_eval_schema(
        {
            "type": "object",
            "properties": {
                "xs": {
                    "type": "array",
                    "x-eval-align": {"match_by": "hungarian"},
                    "items": {"type": "object", "properties": properties},
                }
            },
        }
    )
    gold = [{"xs": [{"a": ["1"]}, {"a": ["2"]}]}]
    model = [{"xs": [{"a": ["2"]}, {"b": "2"}]}]
    run = evaluate(gold, model, schema)
    assert run.total_records == 1
    assert any(f.path == "xs[-1].b" and f.status == "hallucination" for f in run.records[0].fields)


# --- perfect pairs kept as one entry -------------------------------------------------------

PERFECT_KINDS = ["text", "rel", "flag", "code"]
PERFECT_GOLD = [
    {"f0": "A", "f1": 1.0, "f2": True, "f3": "x"},
    {"f0": "B", "f1": 2.0, "f2": False, "f3": "y"},
    {"f0": "C", "f1": 3.0, "f2": True, "f3": "z"},
]
#: Gold 0 and 2 have perfect partners (a case change is no change under ``lowercase``).
PERFECT_MODEL = [{**PERFECT_GOLD[2], "f0": "c"}, {**PERFECT_GOLD[1], "f3": "w"}, PERFECT_GOLD[0]]


def test_a_perfect_pair_is_one_entry_that_expands_to_the_walks_rows() -> None:
    """Each perfect pair is one ``Pair`` entry; expanded, the entries are the rows of the same
    pairing walked by position, and evaluate's results and per-field figures are that walk's."""
    gold, model = PERFECT_GOLD, PERFECT_MODEL
    schema = _schema(PERFECT_KINDS, ordered=False)
    entries, _ = RecordScorer(schema).rows({"xs": gold}, {"xs": model})
    assert [entry[0] for entry in entries] == [
        results_module.PERFECT,
        *["match", "match", "match", "mismatch"],
        results_module.PERFECT,
    ]
    rows, expected = _by_position(PERFECT_KINDS, gold, model)
    assert len(rows) == 12
    assert _shown(rows) == _shown(expected)
    laid_out = [model[2], model[1], model[0]]
    run = evaluate([{"xs": gold}], [{"xs": model}], schema)
    by_position = evaluate([{"xs": gold}], [{"xs": laid_out}], _schema(PERFECT_KINDS, ordered=True))
    assert run.per_field_by_index == by_position.per_field_by_index  # read from the entries
    assert run.to_dict() == by_position.to_dict()
    assert run.records[0].fields == by_position.records[0].fields
    assert "xs[2].f3" in run.per_field_by_index


def test_a_batch_reply_after_perfect_pairs_lands_on_its_field() -> None:
    """Batch replies go to positions in the expanded rows: a pair entry stands for 4 of them."""
    registry = default_registry().copy()

    def half(items: list[Any]) -> list[ComparatorResult]:
        return [ComparatorResult(0.5, "half") for _ in items]

    half.is_batch = True  # type: ignore[attr-defined]
    register_comparator("half", half, registry=registry)
    items = {
        "type": "object",
        "properties": {f"f{k}": LEAVES[kind] for k, kind in enumerate(PERFECT_KINDS)},
    }
    schema = parse_eval_schema(
        {
            "type": "object",
            "properties": {
                "xs": {"type": "array", "x-eval-align": {"match_by": "hungarian"}, "items": items},
                "after": {"type": "string", "x-eval-compare": "half"},
            },
        },
        registry=registry,
    )
    gold = {"xs": PERFECT_GOLD, "after": "a"}
    model = {"xs": PERFECT_MODEL, "after": "a"}
    entries, _ = RecordScorer(schema, registry).rows(gold, model)
    fields = evaluate([gold], [model], schema, registry=registry).records[0].fields
    assert len(entries) == 13  # (with batch fields, the rows come back expanded)
    assert [(f.path, f.comparator, f.score) for f in fields if f.comparator == "half"] == [
        ("after", "half", 0.5)
    ]
    assert [f.status for f in fields].count("match") == 11


def test_pair_similarities_count_perfect_pairs_as_their_rows() -> None:
    """The walk that counts for pair similarities (nested arrays) counts a perfect pair as
    its rows, one by one."""
    scorer = RecordScorer(_schema(PERFECT_KINDS, ordered=False))
    gold, model = {"xs": PERFECT_GOLD}, {"xs": PERFECT_MODEL}
    entries, _ = scorer.rows(gold, model)
    assert sum(entry[0] == results_module.PERFECT for entry in entries) == 2
    by_rows = scoring._Count()
    for row in results_module.expand(entries):
        by_rows.add(row)
    expected = (by_rows.total, by_rows.both, by_rows.omissions, by_rows.hallucinations)
    assert scorer.counts(scorer.schema, gold, model, 0) == expected == (11.0, 12, 0, 0)


def test_a_broken_expansion_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the pair test above: pairs expanded with gold and model swapped must fail it."""
    original = results_module.expand

    def swapped(entries: Any) -> Any:
        return original(
            entry
            if entry[0] != results_module.PERFECT
            else (*entry[:3], entry[4], entry[3], *entry[5:])
            for entry in entries
        )

    monkeypatch.setattr(results_module, "expand", swapped)
    with pytest.raises(AssertionError):
        test_a_perfect_pair_is_one_entry_that_expands_to_the_walks_rows()


# --- built-in misses answered without the call --------------------------------------------


def _registry() -> Registry:
    """The default comparators plus the same exact and numeric behind other names."""
    registry = default_registry().copy()
    register_comparator(
        "exact_called",
        lambda g, e, p: compare_exact(g, e, p),
        validate=validate_exact,
        registry=registry,
    )
    register_comparator(
        "numeric_called",
        lambda g, e, p: compare_numeric(g, e, p),
        validate=validate_numeric,
        registry=registry,
    )
    return registry


REGISTRY = _registry()
PLAIN = st.one_of(
    VALUES,
    st.integers(),
    st.floats(),
    st.text(max_size=3),
    st.sampled_from([10**400, -math.inf, [1], {"x": 1}]),
)


def _leaf_schema(comparator: str, params: dict[str, Any]) -> Any:
    """A root leaf ``v`` and a Hungarian array of ``{v, k}`` elements, ``v`` by ``comparator``."""
    leaf = {"type": "string", "x-eval-compare": {comparator: params}}
    items = {"type": "object", "properties": {"v": leaf, "k": LEAVES["code"]}}
    xs = {"type": "array", "x-eval-align": {"match_by": "hungarian"}, "items": items}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ('numeric' on a string field: on purpose)
        return parse_eval_schema(
            {"type": "object", "properties": {"v": leaf, "xs": xs}}, registry=REGISTRY
        )


SCHEMAS = {
    (name, str(params)): (_leaf_schema(name, params), _leaf_schema(name + "_called", params))
    for name, params in [
        ("exact", {}),
        ("numeric", {}),
        ("numeric", {"tolerance": {"rel": 0.01}}),
        ("numeric", {"tolerance": {"abs": 0.5}}),
    ]
}


@settings(max_examples=300, deadline=None)
@given(gold=PLAIN, model=PLAIN, key=st.sampled_from(sorted(SCHEMAS)))
def test_built_in_misses_equal_calling_the_comparator(
    gold: Any, model: Any, key: tuple[str, str]
) -> None:
    def rows(schema: Any) -> list[tuple[Any, ...]]:
        record = {"v": gold, "xs": [{"v": gold, "k": "a"}]}
        other = {"v": model, "xs": [{"v": model, "k": "a"}]}
        found, _ = RecordScorer(schema, REGISTRY).rows(record, other)
        expanded = results_module.expand(found)
        return [(*row[:8], *row[9:]) for row in expanded]  # all but the comparator's name

    built_in, called = SCHEMAS[key]
    assert _shown(rows(built_in)) == _shown(rows(called))


@pytest.mark.parametrize("method", ["hungarian", "ordered"])
def test_an_unpaired_element_keeps_undeclared_keys_the_gold_has_unscored(method: str) -> None:
    """Split or not, one wrong scored field costs one omission and one hallucination: the
    undeclared keys the gold's elements have too are unscored, as in a pair."""
    from pytest_structeval import score

    items = {"type": "object", "properties": {"name": {"type": "string"}}}
    schema = {
        "type": "object",
        "properties": {"t": {"type": "array", "x-eval-align": method, "items": items}},
    }
    gold = {"t": [{"name": "a", "note": "n1", "extra": "e"}]}
    model = {"t": [{"name": "b", "note": "n1", "extra": "e"}, {"name": "c", "junk": 1}]}
    result = score(gold, model, mode="schema", schema=schema)
    hallucinated = sorted(f.path for f in result.fields if f.status == "hallucination")
    assert "answer.t[-2].junk" in hallucinated or "answer.t[-1].junk" in hallucinated
    assert not any(path.endswith((".note", ".extra")) for path in hallucinated)


def test_elements_with_a_null_key_are_noted_as_unpairable() -> None:
    from pytest_structeval import score

    items = {
        "type": "object",
        "properties": {"id": {"type": ["string", "null"]}, "v": {"type": "integer"}},
    }
    align = {"match_by": "key_field", "key": "id"}
    schema = {
        "type": "object",
        "properties": {"t": {"type": "array", "x-eval-align": align, "items": items}},
    }
    record = {"t": [{"id": None, "v": 1}, {"id": "a", "v": 2}]}
    result = score(record, record, mode="schema", schema=schema)
    notes = result.metrics["notes"]
    assert "answer.t: gold elements at [0] have a null key field 'id'" in notes[0]
    assert "answer.t: model elements at [0] have a null key field 'id'" in notes[1]


def test_a_key_the_gold_holds_only_as_null_is_no_known_key() -> None:
    from pytest_structeval import score

    items = {"type": "object", "properties": {"id": {"type": "integer"}}}
    align = {"match_by": "key_field", "key": "id"}
    schema = {
        "type": "object",
        "properties": {"rows": {"type": "array", "x-eval-align": align, "items": items}},
    }
    gold = {"rows": [{"id": 1, "note": None}]}
    model = {"rows": [{"id": 1, "note": "x"}, {"id": 2, "note": "y"}]}
    result = score(gold, model, mode="schema", schema=schema)
    statuses = {f.path: f.status for f in result.fields}
    assert statuses["answer.rows[0].note"] == statuses["answer.rows[-1].note"] == "hallucination"
