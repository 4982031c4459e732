"""``patternProperties`` in schema mode: keys a pattern matches are scored by its schema.

A key outside ``properties`` in which a pattern finds a match (``re.search``) is a field scored
by that pattern's schema, under the schema path ``<object>[/<pattern>/]``; the first matching
pattern with a schema decides; ``additionalProperties`` governs only keys that neither
``properties`` nor any pattern names. Patterns are compiled once, when the schema is parsed; one
Python's ``re`` cannot read is a ``SchemaWarning`` there and leaves the object's undeclared
keys unscored.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.errors import GoldValidationError, SchemaError
from pytest_structeval.schema import FieldResult as SchemaField
from pytest_structeval.schema import (
    RecordScorer,
    SchemaWarning,
    annotate_xeval,
    evaluate,
    parse_eval_schema,
    resolve_schema_references,
    validate_gold,
)
from pytest_structeval.schema.tree import key_schema
from tests.realdata import require_data

TEXT = {"type": "string", "x-eval-compare": "exact"}
NUMBER = {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.5}}}}


def _object(**keywords: Any) -> dict[str, Any]:
    return {"type": "object", **keywords}


def _fields(gold: Any, model: Any, schema: Any) -> dict[str, tuple[str, str, bool]]:
    record = evaluate([gold], [model], schema).records[0]
    return {f.path: (f.status, f.schema_path, f.in_schema) for f in record.fields}


# --- scoring -------------------------------------------------------------------------------


def test_a_key_matching_a_pattern_is_scored_by_its_schema() -> None:
    schema = _object(properties={"id": TEXT}, patternProperties={"^n_": NUMBER})
    gold = {"id": "a", "n_x": 10, "n_y": 20, "n_z": 5}
    model = {"id": "a", "n_x": 10.4, "n_y": 30, "n_w": 1}
    assert _fields(gold, model, schema) == {
        "id": ("match", "id", True),
        "n_x": ("match", "[/^n_/]", True),  # within the pattern schema's tolerance
        "n_y": ("mismatch", "[/^n_/]", True),
        "n_z": ("omission", "[/^n_/]", True),
        "n_w": ("hallucination", "[/^n_/]", True),
    }
    run = evaluate([gold], [model], schema)
    entry = run.per_field["[/^n_/]"]  # one entry per pattern, however many keys
    assert (entry.matches, entry.mismatches, entry.omissions, entry.hallucinations) == (1, 1, 1, 1)
    assert run.per_field_by_index["n_y"].mismatches == 1
    assert run.records[0].unscored == ()


def test_pattern_search_is_unanchored_as_in_json_schema() -> None:
    schema = _object(patternProperties={"price": NUMBER})
    assert _fields({"unit_price_eur": 3}, {"unit_price_eur": 4}, schema) == {
        "unit_price_eur": ("mismatch", "[/price/]", True)
    }


def test_x_eval_annotations_inside_a_pattern_schema_apply() -> None:
    schema = _object(
        patternProperties={
            "^name_": {"type": "string", "x-eval-compare": "exact", "x-eval-transform": ["strip"]},
            "^note_": {"type": "string", "x-eval-skip": True},
            "^tags_": {
                "type": "array",
                "x-eval-align": {"match_by": "hungarian"},
                "items": TEXT,
            },
        }
    )
    gold = {"name_en": "Pump", "note_1": "a", "tags_x": ["a", "b"]}
    model = {"name_en": " Pump ", "note_1": "zzz", "tags_x": ["b", "a"]}
    assert _fields(gold, model, schema) == {
        "name_en": ("match", "[/^name_/]", True),
        "note_1": ("skipped", "[/^note_/]", True),
        "tags_x[0]": ("match", "[/^tags_/][]", True),
        "tags_x[1]": ("match", "[/^tags_/][]", True),
    }


def test_pattern_schemas_nest_and_keep_readable_paths() -> None:
    schema = _object(
        properties={
            "parts": _object(patternProperties={"^p[0-9]+$": _object(properties={"qty": NUMBER})})
        }
    )
    gold = {"parts": {"p1": {"qty": 1}, "p2": {"qty": 2}}}
    model = {"parts": {"p1": {"qty": 1}, "p2": {"qty": 9}}}
    assert _fields(gold, model, schema) == {
        "parts.p1.qty": ("match", "parts[/^p[0-9]+$/].qty", True),
        "parts.p2.qty": ("mismatch", "parts[/^p[0-9]+$/].qty", True),
    }


def test_null_is_no_value_for_pattern_keys_too() -> None:
    schema = _object(patternProperties={"^x": TEXT})
    fields = _fields({"xa": None, "xb": "v"}, {"xa": "w", "xb": None}, schema)
    assert fields == {
        "xa": ("hallucination", "[/^x/]", True),
        "xb": ("omission", "[/^x/]", True),
    }


def test_a_one_sided_object_expands_its_pattern_keys() -> None:
    schema = _object(properties={"doc": _object(patternProperties={"^body_": TEXT})})
    assert _fields({"doc": {"body_text": "t"}}, {}, schema) == {
        "doc.body_text": ("omission", "doc[/^body_/]", True)
    }
    assert _fields({}, {"doc": {"body_text": "t"}}, schema) == {
        "doc.body_text": ("hallucination", "doc[/^body_/]", True)
    }


def test_declared_properties_win_over_patterns() -> None:
    schema = _object(properties={"n_id": TEXT}, patternProperties={"^n_": NUMBER})
    # "n_id" matches the pattern too, but its own property (exact text) scores it.
    assert _fields({"n_id": "7"}, {"n_id": "7"}, schema) == {"n_id": ("match", "n_id", True)}


def test_the_first_matching_pattern_with_a_schema_decides() -> None:
    schema = _object(
        patternProperties={
            "^any": {},  # states nothing: adds no constraint, so it does not shadow the next
            "^a": NUMBER,
            "^an": TEXT,
        }
    )
    node = parse_eval_schema(schema)
    assert [p.regex.pattern for p in node.patterns] == ["^a", "^an"]
    assert [r.pattern for r in node.open_patterns] == ["^any"]
    # "anything" matches all three: "^any" adds nothing, and "^a" comes before "^an".
    assert _fields({"anything": 1}, {"anything": 1.2}, schema) == {
        "anything": ("match", "[/^a/]", True)
    }
    assert key_schema(node, "anything") is node.patterns[0].node
    swapped = _object(patternProperties={"^an": TEXT, "^a": NUMBER})
    assert _fields({"anything": 1}, {"anything": 1.2}, swapped) == {
        "anything": ("mismatch", "[/^an/]", True)
    }


@pytest.mark.parametrize(
    ("additional", "expected"),
    [
        (None, ("hallucination", "other", False)),  # closed, as without patterns
        (False, ("hallucination", "other", False)),
        (True, ("skipped", "other", False)),  # allowed, unscored
        ({"type": "integer", "x-eval-compare": "exact"}, ("hallucination", "*", True)),
    ],
)
def test_additional_properties_governs_only_keys_no_pattern_matches(
    additional: Any, expected: tuple[str, str, bool]
) -> None:
    schema = _object(properties={"id": TEXT}, patternProperties={"^x_": NUMBER})
    if additional is not None:
        schema["additionalProperties"] = additional
    fields = _fields({"id": "a", "x_1": 1}, {"id": "a", "x_1": 1, "other": 2}, schema)
    assert fields == {
        "id": ("match", "id", True),
        "x_1": ("match", "[/^x_/]", True),  # never the map's value schema
        "other": expected,
    }


def test_a_pattern_whose_schema_states_nothing_only_allows_its_keys() -> None:
    schema = _object(properties={"id": TEXT}, patternProperties={"^x-": {}})
    record = evaluate(
        [{"id": "a", "x-gold": 1}], [{"id": "a", "x-model": 2, "junk": 3}], schema
    ).records[0]
    assert [(f.path, f.status, f.in_schema) for f in record.fields] == [
        ("id", "match", True),
        ("x-gold", "skipped", False),
        ("x-model", "skipped", False),  # allowed by the pattern: unscored
        ("junk", "hallucination", False),  # matches nothing, and the object is closed
    ]
    assert record.unscored == ("x-gold", "x-model")


def test_an_object_with_only_empty_patterns_is_still_compared_as_one_value() -> None:
    schema = annotate_xeval(_object(patternProperties={"^x": True}))
    assert schema["x-eval-compare"] == "exact"
    assert _fields({"xa": 1}, {"xa": 2}, schema) == {"": ("mismatch", "", True)}


def test_patterns_use_ascii_classes_as_ecma_262_does() -> None:
    schema = _object(patternProperties={r"^x\d$": NUMBER})
    # An Arabic-Indic digit is \d for Python's default Unicode re, not for JSON Schema.
    assert _fields({}, {"x\u0663": 1}, schema) == {"x\u0663": ("hallucination", "x\u0663", False)}
    assert _fields({}, {"x3": 1}, schema) == {"x3": ("hallucination", r"[/^x\d$/]", True)}


def test_non_string_keys_match_no_pattern() -> None:
    node = parse_eval_schema(_object(patternProperties={"1": NUMBER}))
    assert key_schema(node, 1) is False
    assert key_schema(node, "1") is node.patterns[0].node


def test_hungarian_items_with_patterns_pair_by_their_pattern_fields() -> None:
    item = _object(properties={"name": TEXT}, patternProperties={"^q_": NUMBER})
    schema = _object(
        properties={
            "rows": {"type": "array", "items": item, "x-eval-align": {"match_by": "hungarian"}}
        }
    )
    gold = {"rows": [{"name": "a", "q_1": 1}, {"name": "a", "q_1": 50}]}
    model = {"rows": [{"name": "a", "q_1": 50}, {"name": "a", "q_1": 1}]}
    fields = _fields(gold, model, schema)
    # Only the pattern field tells the two rows apart: the pairing must read it.
    assert {path: status for path, (status, _, _) in fields.items()} == {
        "rows[0].name": "match",
        "rows[0].q_1": "match",
        "rows[1].name": "match",
        "rows[1].q_1": "match",
    }
    assert fields["rows[0].q_1"][1] == "rows[][/^q_/]"


def test_score_mode_schema_counts_pattern_fields() -> None:
    schema = _object(properties={"id": TEXT}, patternProperties={"^body_": TEXT})
    result = score(
        {"id": "1", "body_text": "yes"},
        {"id": "1", "body_text": "no"},
        schema=schema,
        mode="schema",
    )
    assert not result.passed
    assert result.score == 0.5
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.id", "match"),
        ("answer.body_text", "mismatch"),
    ]


def test_many_keys_against_many_patterns_are_routed_once_per_key() -> None:
    patterns = {f"^k{i}_": {"type": "integer", "x-eval-compare": "exact"} for i in range(50)}
    node = parse_eval_schema(_object(patternProperties=patterns))
    gold = {f"k{i}_{j}": i for i in range(50) for j in range(20)}
    model = {**gold, "k49_0": -1}
    scorer = RecordScorer(node)
    fields, _ = scorer.score(gold, model)
    assert len(fields) == 1000
    assert [(f.path, f.status, f.schema_path) for f in fields if f.status != "match"] == [
        ("k49_0", "mismatch", "[/^k49_/]")
    ]
    again, _ = scorer.score(gold, model)  # the routes are reused
    assert [f.status for f in again] == [f.status for f in fields]


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"\A(v|t)_[a-z0-9]{1,6}\Z"),
        st.one_of(st.integers(-5, 5), st.text(max_size=4)),
        max_size=8,
    )
)
def test_a_record_against_itself_scores_every_pattern_key(record: dict[str, Any]) -> None:
    schema = _object(patternProperties={"^v_": {"x-eval-compare": "exact"}, "^t_": {}})
    with warnings.catch_warnings():  # a record of t_ keys only has nothing scored, and says so
        warnings.simplefilter("ignore", SchemaWarning)
        result = evaluate([record], [copy.deepcopy(record)], schema).records[0]
    assert result.f1 == 1.0
    assert sorted(f.path for f in result.fields if f.in_schema) == sorted(
        k for k in record if k.startswith("v_")
    )
    assert sorted(result.unscored) == sorted(k for k in record if k.startswith("t_"))


# --- schema problems ----------------------------------------------------------------------


@pytest.fixture
def default_recursion_limit() -> Iterator[None]:
    """Python's default recursion limit, which re's parser runs out of at 3,000 nested
    groups (mypy's API, say, raises the limit for good in the process that calls it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(limit)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("(", "missing ), unterminated subpattern"),
        (r"\p{RGI_Emoji}", r"unsupported Unicode property \p{RGI_Emoji}"),  # needs the v flag
        # valid ECMA-262 that Python's re cannot match as ECMA-262 does
        (r"^(?:(a)|b)+\1$", r"backreference \1 at position 11 refers to a group that a pass"),
        ("(" * 3000 + ")" * 3000, "groups nested too deeply"),  # re's parser would recurse
    ],
)
@pytest.mark.usefixtures("default_recursion_limit")
def test_a_pattern_python_cannot_read_warns_and_leaves_keys_unscored(
    pattern: str, problem: str
) -> None:
    """A pattern Python cannot read (``\\p{Emoji}`` was one then, and is valid ECMA-262):
    refusing the whole schema (as first built) left a user nothing to score with, where an
    external ``$ref`` in a pattern only warns (review 10)."""
    schema = _object(
        properties={"doc": _object(properties={"a": NUMBER}, patternProperties={pattern: NUMBER})}
    )
    with pytest.warns(
        SchemaWarning, match="Python's re cannot (read|match) this pattern"
    ) as caught:
        parse_eval_schema(schema)
    assert problem in str(caught[0].message)
    assert str(caught[0].message).startswith("properties.doc.patternProperties")
    with pytest.warns(SchemaWarning):
        result = score(
            {"doc": {"a": 1, "b": 2}}, {"doc": {"a": 1, "b": 3, "c": 4}}, "schema", schema=schema
        )
    assert result.passed
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.doc.a", "match"),
        ("answer.doc.b", "skipped"),
        ("answer.doc.c", "skipped"),
    ]


@pytest.mark.parametrize("action", ["error", "always", "ignore"])
@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("^[[(][0-9]+[)\\]]$", ["[12]", "(1)"], ["12", "{1}"]),
        ("^[[:alpha:]]+$", ["a]", "[]", ":]]"], ["a", "b]"]),  # "[[:alph]", then "]+"
        ("^[a-z--q]+$", ["-", "0q", "az"], ["+", "z{"]),  # a range from "-" to "q"
        ("^[!--]+$", ["!", ",-"], ["a", "."]),  # a range from "!" to "-"
        ("^[a&&b]$", ["a", "&"], ["ab", "c"]),
        ("^[a||b]$", ["|"], ["||", "c"]),
        ("^[a~~b]$", ["~"], ["~~"]),
        ("^[^[]+$", ["ab"], ["a[b"]),
        ("^[\\[[]+$", ["[["], ["a"]),
    ],
)
def test_class_members_re_warns_about_as_future_sets_read_the_same_under_every_filter(
    pattern: str, good: list[str], bad: list[str], action: str
) -> None:
    """ECMA-262 reads "[[", "--", "&&", "||" and "~~" in a class as literals; Python's re
    does too, with a FutureWarning ("Possible nested set"): under -W error the warning
    came out of schema_violations and a scenario run became a scorer error, and a model
    answer with format: regex raised (runtimeflags34 #2). Now no warning, under any filter."""
    from pytest_structeval import schema_violations

    schema = {"type": "object", "properties": {"rx": {"type": "string", "format": "regex"}}}
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter(action)
        for value in good:
            assert list(schema_violations(value, {"pattern": pattern})) == [], value
        for value in bad:
            assert [v.keyword for v in schema_violations(value, {"pattern": pattern})] == [
                "pattern"
            ], value
        assert list(schema_violations({"rx": pattern}, schema)) == []
        patterns = _object(patternProperties={pattern: NUMBER})
        result = score({good[0]: 1}, {good[0]: 1}, "schema", schema=patterns)
        assert (result.passed, [f.status for f in result.fields]) == (True, ["match"])
    assert [str(w.message) for w in shown] == []


def test_a_set_operator_in_a_bad_range_still_names_the_users_pattern() -> None:
    from pytest_structeval.schema.tree import ecma_regex

    regex, problem = ecma_regex("^[[a--]$")  # ECMA-262 refuses it too: a range from a to -
    assert regex is None
    assert problem.endswith("at position 3")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (["^x"], "patternProperties: must be an object mapping patterns to schemas"),
        ({"^x": "string"}, "a schema must be an object"),
        ({"^x": False}, "a schema must be an object"),
    ],
)
def test_malformed_pattern_properties_are_schema_errors(value: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=re.escape(message)):
        parse_eval_schema(_object(patternProperties=value))


def test_a_pattern_leaf_without_a_comparator_names_its_location() -> None:
    with pytest.raises(SchemaError, match=r"patternProperties\.\^x: this string field has no"):
        parse_eval_schema(_object(patternProperties={"^x": {"type": "string"}}))


# --- pipeline: resolve, annotate, validate -------------------------------------------------


def test_resolve_keeps_pattern_properties_and_resolves_inside_them() -> None:
    schema = {
        "definitions": {"money": {"type": "number"}},
        "type": "object",
        "allOf": [{"patternProperties": {"^p_": {"minimum": 0}}}],
        "patternProperties": {
            "^p_": {"$ref": "#/definitions/money", "x-eval-compare": "numeric"},
            "^x-": True,
            "^gone": False,
            "^n_": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
    }
    out = resolve_schema_references(schema)
    assert out == {
        "type": "object",
        "patternProperties": {
            "^p_": {"type": "number", "x-eval-compare": "numeric", "minimum": 0},
            "^x-": True,
            "^n_": {"type": ["integer", "null"]},
        },
    }
    assert "additionalProperties" not in out  # patterns no longer open the object
    assert resolve_schema_references(out) == out  # a fixed point


def test_an_external_ref_under_a_pattern_leaves_its_keys_unscored_with_a_warning() -> None:
    schema = _object(
        properties={"id": TEXT},
        patternProperties={"^ext_": {"$ref": "other.json#/x"}, "^n_": NUMBER},
    )
    with pytest.warns(SchemaWarning, match=r"keys matching '\^ext_' are left unscored"):
        out = resolve_schema_references(schema)
    assert out["patternProperties"]["^ext_"] is True
    record = evaluate([{"id": "a", "ext_1": 1}], [{"id": "a", "ext_1": 2}], out).records[0]
    assert [(f.path, f.status, f.in_schema) for f in record.fields] == [
        ("id", "match", True),
        ("ext_1", "skipped", False),
    ]


def test_annotate_gives_pattern_leaves_their_type_defaults() -> None:
    schema = _object(
        patternProperties={
            "^s_": {"type": "string"},
            "^n_": {"type": "number"},
            "^skip_": {"type": "string", "x-eval-skip": True},
            "^any_": {},
        }
    )
    annotate_xeval(schema)
    patterns = schema["patternProperties"]
    assert patterns["^s_"]["x-eval-compare"] == "exact"
    assert patterns["^n_"]["x-eval-compare"] == "numeric"
    assert "x-eval-compare" not in patterns["^skip_"]
    assert patterns["^any_"] == {}  # states nothing: allows keys, scores none
    assert "x-eval-compare" not in schema  # a container, scored key by key
    parse_eval_schema(schema)


def test_validate_gold_checks_pattern_keys_against_their_schema() -> None:
    schema = _object(properties={"id": TEXT}, patternProperties={"^n_": NUMBER, "^x-": True})
    assert validate_gold([{"id": "a", "n_1": 1, "x-anything": [1]}], schema) == []
    assert validate_gold([{"id": "a", "n_1": "one"}], schema) == [
        "gold[0]: n_1: expected number, got string 'one'"
    ]
    with pytest.raises(GoldValidationError, match=r"gold\[0\]: other: key is not in the schema"):
        validate_gold([{"id": "a", "other": 1}], schema)


# --- real data -----------------------------------------------------------------------------


def test_ninjs_body_and_description_fields_are_scored() -> None:
    """JsonSchemaStore's ninjs 1.3 declares ``body_*``/``description_*`` (and a place's
    ``geometry_*``) only under ``patternProperties``; a wrong body text used to cost nothing."""
    path = require_data("schemas", "JsonSchemaStore", "ninjs-1.3.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    gold = next(t["data"] for t in document["tests"] if t["valid"])
    assert {"body_text", "description_abstract"} <= gold.keys()
    model = copy.deepcopy(gold)
    model["body_text"] = "an unrelated text"
    with warnings.catch_warnings():
        warnings.simplefilter("error", SchemaWarning)
        result = score(gold, model, mode="schema", schema=str(path))
    by_path = {f.path: f for f in result.fields if isinstance(f, SchemaField)}
    body = by_path["answer.body_text"]
    assert (body.status, body.schema_path) == ("mismatch", "[/^body_[a-zA-Z0-9_]+/]")
    assert by_path["answer.description_abstract"].status == "match"
    geometry = by_path["answer.place[0].geometry_geojson"]
    assert (geometry.status, geometry.schema_path) == (
        "match",
        "place[][/^geometry_[a-zA-Z0-9_]+/]",
    )
    assert result.metrics["unscored"] == []
    assert not result.passed
    assert result.metrics["mismatches"] == 1
    assert score(gold, copy.deepcopy(gold), mode="schema", schema=str(path)).passed


def _without_patterns(schema: Any) -> Any:
    """``schema`` with every ``patternProperties`` removed (iteratively)."""
    top = copy.deepcopy(schema)
    stack = [top]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            node.pop("patternProperties", None)
            stack.extend(node.values())
    return top


def test_pattern_schemas_never_take_the_node_budget_from_declared_structure() -> None:
    """Pattern schemas are resolved after all declared structure, so a recursive one cannot
    turn a declared ``$ref`` into an opaque leaf by spending ``max_nodes`` first."""
    leaf = {"type": "object", "properties": {"v": {"type": "integer"}}}
    schema = {
        "definitions": {
            "leaf": leaf,
            "mid": {"type": "object", "properties": {"m": {"$ref": "#/definitions/leaf"}}},
        },
        "type": "object",
        "patternProperties": {"^x": {"$ref": "#"}, "^y": {"$ref": "#"}},
        "properties": {f"p{i}": {"$ref": "#/definitions/mid"} for i in range(4)},
    }
    with_patterns = resolve_schema_references(schema, max_nodes=9)
    alone = resolve_schema_references(_without_patterns(schema), max_nodes=9)
    assert _without_patterns(with_patterns) == alone
    assert alone["properties"]["p3"]["properties"]["m"] == leaf  # expanded, not opaque
    assert "$comment" in with_patterns["patternProperties"]["^y"]  # the budget ran out there


def test_an_object_whose_only_pattern_cannot_be_read_is_compared_as_one_value() -> None:
    """It raised "run annotate_xeval(schema) first" from score(mode="schema") (review)."""
    from pytest_structeval import score

    schema = {"type": "object", "patternProperties": {"\\p{RGI_Emoji}": {"type": "string"}}}
    with pytest.warns(SchemaWarning, match="compared as one value"):
        same = score({"a": "x"}, {"a": "x"}, "schema", schema=schema)
    assert (same.passed, same.score) == (True, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)  # (said once per schema)
        other = score({"a": "x"}, {"a": "y"}, "schema", schema=schema)
    assert (other.passed, other.score) == (False, 0.0)  # never a pass with nothing checked
    nested = {"type": "object", "properties": {"o": schema}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        parsed = parse_eval_schema(nested)
    assert parsed.properties["o"].is_unit()
