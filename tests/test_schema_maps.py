"""Undeclared keys: map-like objects scored key by key, and keys a schema allows left unscored.

``additionalProperties: {schema}`` makes an object a map: every key outside ``properties`` is a
field at ``path.<key>`` scored by that schema (its ``x-eval-*`` annotations apply), aggregated in
``per_field`` under ``path.*``. ``additionalProperties: true`` (or ``{}``) allows undeclared
keys: the model's are unscored like gold's. Without it,
or with ``false``, a key only the model has is a hallucination (as in the reference).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.errors import GoldValidationError
from pytest_structeval.schema import (
    RecordScorer,
    SchemaWarning,
    annotate_xeval,
    evaluate,
    parse_eval_schema,
    resolve_schema_references,
    validate_gold,
)

PRICE = {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}}
PRICES = parse_eval_schema(
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "x-eval-compare": "exact"},
            "prices": {"type": "object", "additionalProperties": PRICE},
        },
    }
)


def _by_path(fields: Any) -> dict[str, tuple[str, str]]:
    return {f.path: (f.status, f.schema_path) for f in fields}


def test_each_key_of_a_map_is_a_field_scored_by_the_values_schema() -> None:
    gold = {"name": "x", "prices": {"EUR": 10.0, "USD": 11.0, "GBP": 9.0, "CHF": None}}
    model = {"name": "x", "prices": {"USD": 20.0, "EUR": 10.05, "JPY": 5.0, "CHF": None}}
    run = evaluate([gold], [model], PRICES)
    fields = run.records[0].fields
    assert _by_path(fields) == {
        "name": ("match", "name"),
        "prices.EUR": ("match", "prices.*"),
        "prices.USD": ("mismatch", "prices.*"),
        "prices.GBP": ("omission", "prices.*"),
        "prices.JPY": ("hallucination", "prices.*"),
    }
    # gold's keys in gold order, then the model's own keys
    assert [f.path for f in fields] == [
        "name",
        "prices.EUR",
        "prices.USD",
        "prices.GBP",
        "prices.JPY",
    ]
    assert all(f.in_schema and f.comparator == "numeric" for f in fields[1:])
    entry = run.per_field["prices.*"]
    assert (entry.matches, entry.mismatches, entry.omissions, entry.hallucinations) == (1, 1, 1, 1)
    assert entry.mean_score == 0.25
    assert set(run.per_field) == {"name", "prices.*"}  # one entry, however many keys
    assert run.per_field_by_index["prices.USD"].mismatches == 1
    record = run.records[0]
    assert (record.precision, record.recall) == (2 / 4, 2 / 4)


def test_map_values_keep_their_annotations_and_nest() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "people": {
                "type": "object",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "city": {"type": "string", "x-eval-transform": ["lowercase"]},
                        "note": {"type": "string", "x-eval-skip": True},
                    },
                },
            }
        },
    }
    annotate_xeval(schema)
    city = schema["properties"]["people"]["additionalProperties"]["properties"]["city"]
    assert city["x-eval-compare"] == "exact"  # the defaults reach the values schema
    gold = {"people": {"ann": {"city": "Oslo", "note": "a"}, "a.b": {"city": "Rome"}}}
    model = {"people": {"ann": {"city": "OSLO", "note": "b"}, "a.b": {"city": "Bern"}}}
    fields = evaluate([gold], [model], schema).records[0].fields
    assert _by_path(fields) == {
        "people.ann.city": ("match", "people.*.city"),
        "people.ann.note": ("skipped", "people.*.note"),
        'people["a.b"].city': ("mismatch", "people.*.city"),
    }


def test_declared_keys_and_a_literal_star_stay_apart_from_the_values() -> None:
    node = parse_eval_schema(
        {
            "type": "object",
            "properties": {"*": {"type": "string", "x-eval-compare": "exact"}},
            "additionalProperties": {"type": "integer", "x-eval-compare": "numeric"},
        }
    )
    fields = evaluate([{"*": "s", "k": 1}], [{"*": "s", "k": 2}], node).records[0].fields
    assert _by_path(fields) == {'["*"]': ("match", '["*"]'), "k": ("mismatch", "*")}


def test_a_map_present_on_one_side_expands_key_by_key() -> None:
    gold = {"name": "x", "prices": {"EUR": 1.0, "USD": 2.0}}
    fields = evaluate([gold], [{"name": "x"}], PRICES).records[0].fields
    assert [(f.path, f.status) for f in fields] == [
        ("name", "match"),
        ("prices.EUR", "omission"),
        ("prices.USD", "omission"),
    ]
    fields = evaluate([{"name": "x"}], [gold], PRICES).records[0].fields
    assert [f.status for f in fields] == ["match", "hallucination", "hallucination"]
    assert evaluate([{"prices": {}}], [{"prices": {}}], PRICES).records[0].matches == 1


def test_a_skipped_values_schema_skips_every_key() -> None:
    node = parse_eval_schema(
        {"type": "object", "additionalProperties": {"type": "string", "x-eval-skip": True}}
    )
    fields = evaluate([{"a": "1", "b": "2"}], [{"a": "x"}], node).records[0].fields
    assert _by_path(fields) == {"a": ("skipped", "*"), "b": ("skipped", "*")}


def test_maps_inside_hungarian_elements_are_paired_and_scored() -> None:
    node = parse_eval_schema(
        {
            "type": "object",
            "properties": {
                "xs": {
                    "type": "array",
                    "x-eval-align": {"match_by": "hungarian"},
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "string", "x-eval-compare": "exact"}},
                        "additionalProperties": PRICE,
                    },
                }
            },
        }
    )
    gold = {"xs": [{"id": "a", "p": 1.0}, {"id": "b", "p": 2.0, "q": 3.0}]}
    model = {"xs": [{"id": "b", "p": 2.0, "q": 9.0}, {"id": "a", "p": 1.0}]}
    fields = evaluate([gold], [model], node).records[0].fields
    assert _by_path(fields) == {
        "xs[0].id": ("match", "xs[].id"),
        "xs[0].p": ("match", "xs[].*"),
        "xs[1].id": ("match", "xs[].id"),
        "xs[1].p": ("match", "xs[].*"),
        "xs[1].q": ("mismatch", "xs[].*"),
    }


# --- keys a schema allows, and keys it does not ---------------------------------------------


def _open(additional: Any) -> Any:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"a": {"type": "string", "x-eval-compare": "exact"}},
    }
    if additional is not None:
        schema["additionalProperties"] = additional
    return parse_eval_schema(schema)


@pytest.mark.parametrize("additional", [True, {}])
def test_model_keys_a_schema_allows_are_unscored_not_hallucinations(additional: Any) -> None:
    run = evaluate([{"a": "x", "g": 1}], [{"a": "x", "m": 2, "g": 1}], _open(additional))
    record = run.records[0]
    assert [(f.path, f.status, f.in_schema, f.unscored) for f in record.fields] == [
        ("a", "match", True, False),
        ("g", "skipped", False, True),
        ("m", "skipped", False, True),
    ]
    assert record.unscored == ("g", "m")
    assert (record.f1, record.hallucinations, run.total_unscored) == (1.0, 0, 2)
    assert "allows undeclared keys" in (record.fields[2].reason or "")
    assert list(run.per_field) == ["a"]


def test_pattern_properties_score_the_keys_they_match() -> None:
    node = parse_eval_schema(
        {
            "type": "object",
            "properties": {"a": {"type": "string", "x-eval-compare": "exact"}},
            "patternProperties": {"^x-": {"type": "string", "x-eval-compare": "exact"}},
        }
    )
    record = evaluate([{"a": "x"}], [{"a": "x", "x-y": "z"}], node).records[0]
    assert [(f.path, f.status, f.schema_path) for f in record.fields] == [
        ("a", "match", "a"),
        ("x-y", "hallucination", "[/^x-/]"),
    ]


@pytest.mark.parametrize("additional", [None, False])
def test_model_only_keys_are_hallucinations_when_the_schema_does_not_allow_them(
    additional: Any,
) -> None:
    record = evaluate([{"a": "x"}], [{"a": "x", "m": 2}], _open(additional)).records[0]
    assert [(f.path, f.status, f.in_schema) for f in record.fields] == [
        ("a", "match", True),
        ("m", "hallucination", False),
    ]
    assert record.unscored == ()


def test_open_hungarian_items_ignore_model_extras_in_pairing_and_report_them() -> None:
    items: dict[str, Any] = {
        "type": "object",
        "properties": {
            "k": {"type": "string", "x-eval-compare": "exact"},
            "v": {"type": "integer", "x-eval-compare": "numeric"},
        },
        "additionalProperties": True,
    }
    node = parse_eval_schema(
        {
            "type": "object",
            "properties": {
                "xs": {"type": "array", "items": items, "x-eval-align": {"match_by": "hungarian"}}
            },
        }
    )
    scorer = RecordScorer(node)
    xs = node.properties["xs"]
    assert xs.items is not None
    gold = [{"k": "a", "v": 1}, {"k": "b", "v": 2}]
    model = [{"k": "b", "v": 2, "extra": 1}, {"k": "a", "v": 1, "more": 2}]
    matrix, _ = scorer.similarity(xs.items, gold, model, 1)
    assert matrix == [[0.0, 1.0], [1.0, 0.0]]
    fields, _ = scorer.score({"xs": gold}, {"xs": model})
    assert [(f.path, f.status) for f in fields] == [
        ("xs[0].k", "match"),
        ("xs[0].v", "match"),
        ("xs[0].more", "skipped"),
        ("xs[1].k", "match"),
        ("xs[1].v", "match"),
        ("xs[1].extra", "skipped"),
    ]


OPEN_ITEMS = parse_eval_schema(
    {
        "type": "object",
        "properties": {
            "xs": {
                "type": "array",
                "x-eval-align": {"match_by": "hungarian"},
                "items": {
                    "type": "object",
                    "properties": {
                        "k": {"type": "string", "x-eval-compare": "exact"},
                        "v": {"type": "number", "x-eval-compare": "numeric"},
                    },
                    "additionalProperties": True,
                },
            }
        },
    }
)
OPEN_ELEMENT = st.fixed_dictionaries(
    {"k": st.sampled_from(["a", "b"]), "v": st.sampled_from([1, 2.0])},
    optional={"z": st.sampled_from([1, None]), "k2": st.just("c")},
)


@settings(max_examples=60, deadline=None)
@given(gold=st.lists(OPEN_ELEMENT, max_size=4), model=st.lists(OPEN_ELEMENT, max_size=4))
def test_open_items_matrix_equals_the_full_walk(gold: list[Any], model: list[Any]) -> None:
    scorer = RecordScorer(OPEN_ITEMS)
    items = OPEN_ITEMS.properties["xs"].items
    assert items is not None
    matrix, _ = scorer.similarity(items, gold, model, 1)
    assert matrix == [[scorer.pair_f1(items, g, e, 1) for e in model] for g in gold]


# --- the pipeline: resolve, annotate, validate, score() ----------------------------------


def test_resolution_keeps_the_values_schema_and_falls_back_on_external_refs() -> None:
    schema = {
        "type": "object",
        "definitions": {"Price": {"type": "number"}},
        "properties": {
            "prices": {"type": "object", "additionalProperties": {"$ref": "#/definitions/Price"}},
            "far": {
                "type": "object",
                "additionalProperties": {"$ref": "http://example.com/x.json"},
            },
            "closed": {
                "allOf": [{"additionalProperties": False}, {"additionalProperties": PRICE}],
            },
        },
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = resolve_schema_references(schema)
    props = out["properties"]
    assert props["prices"]["additionalProperties"] == {"type": "number"}
    assert props["far"]["additionalProperties"] is True
    assert props["closed"]["additionalProperties"] is False
    assert [type(w.message) for w in caught] == [SchemaWarning]
    assert "external reference" in str(caught[0].message)
    node = parse_eval_schema(annotate_xeval(out))
    assert node.properties["prices"].values is not None
    assert node.properties["prices"].values.path == "prices.*"
    assert node.properties["far"].values is None
    assert node.properties["far"].additional


def test_validate_gold_checks_map_values_and_allows_their_keys() -> None:
    assert validate_gold([{"name": "x", "prices": {"EUR": 1.0}}], PRICES) == []
    warned = validate_gold([{"prices": {"EUR": "cheap"}}], PRICES, warn_missing=False)
    assert warned == ["gold[0]: prices.EUR: expected number, got string 'cheap'"]
    with pytest.raises(GoldValidationError, match=r"prices\.EUR"):
        validate_gold([{"prices": {"EUR": "cheap"}}], PRICES, strict_types=True)


def test_score_scores_maps_key_by_key() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    result = score({"a": "x", "b": "y"}, '{"a": "x", "b": "z"}', mode="schema", schema=schema)
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.a", "match"),
        ("answer.b", "mismatch"),
    ]
    assert result.score == 0.5


@settings(max_examples=50, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c.d", "*", ""]),
        st.one_of(st.none(), st.floats(-5, 5, allow_nan=False), st.integers(-3, 3)),
        max_size=4,
    )
)
def test_a_map_scored_against_itself_is_perfect(prices: dict[str, Any]) -> None:
    record = {"name": "x", "prices": prices}
    run = evaluate([record], [copy.deepcopy(record)], PRICES)
    assert run.records[0].f1 == 1.0
    assert {f.status for f in run.records[0].fields} == {"match"}
