"""JSON Schema validity of a value (``SchemaCheck``): keywords, drafts, formats and bounds."""

from __future__ import annotations

import itertools
import json
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import SchemaCheck, Violation, schema_violations
from pytest_structeval.errors import LimitError, SchemaError
from pytest_structeval.schema import (
    CHECKED_FORMATS,
    ExternalReferenceError,
    SchemaWarning,
    resolve_schema_references,
)
from pytest_structeval.schema.comparators import json_equal
from pytest_structeval.schema.validity import _canonical
from tests.realdata import require_data

D04 = "http://json-schema.org/draft-04/schema#"
D06 = "http://json-schema.org/draft-06/schema#"
D07 = "http://json-schema.org/draft-07/schema#"
D2019 = "https://json-schema.org/draft/2019-09/schema"
D2020 = "https://json-schema.org/draft/2020-12/schema"


def found(value: Any, schema: Any, **kwargs: Any) -> list[tuple[str, str]]:
    return [(v.path, v.keyword) for v in schema_violations(value, schema, **kwargs)]


def assert_pattern_reads(pattern: str, good: list[str], bad: list[str]) -> None:
    """``pattern`` takes every ``good`` value and refuses every ``bad`` one, with no warning
    (a pattern Python could not read gave a SchemaWarning and was left unchecked), and is
    itself a valid ``format: regex`` answer."""
    schema = {"pattern": pattern}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for value in good:
            assert found(value, schema) == [], value
        for value in bad:
            assert found(value, schema) == [("answer", "pattern")], value
        assert found(pattern, {"format": "regex"}) == []


PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"name": "Ada", "age": 36}, []),
        ({"name": "Ada", "age": 36.0}, []),  # 36.0 is an integer from draft-06 on
        ({"name": "", "age": 36}, [("answer.name", "minLength")]),
        ({"name": "Ada"}, [("answer.age", "required")]),
        ({"name": "Ada", "age": -1}, [("answer.age", "minimum")]),
        ({"name": "Ada", "age": True}, [("answer.age", "type")]),  # a boolean is no number
        ({"name": "Ada", "age": 1, "x": 1}, [("answer.x", "additionalProperties")]),
        ({"name": "Ada", "age": 1, "tags": ["a", "a"]}, [("answer.tags[1]", "uniqueItems")]),
        ({"name": "Ada", "age": 1, "tags": ["a", 2]}, [("answer.tags[1]", "type")]),
        ("Ada is 36", [("answer", "type")]),
        ([{"name": "Ada"}], [("answer", "type")]),
    ],
)
def test_object_keywords(value: Any, expected: list[tuple[str, str]]) -> None:
    assert found(value, PERSON) == expected


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        ({"enum": [1, "a", None]}, 1.0, []),
        ({"enum": [1, "a", None]}, True, [("answer", "enum")]),  # true is not 1
        ({"const": {"a": [1]}}, {"a": [1.0]}, []),
        ({"const": False}, 0, [("answer", "const")]),
        ({"type": ["string", "null"]}, None, []),
        ({"type": "number", "exclusiveMaximum": 3}, 3, [("answer", "exclusiveMaximum")]),
        ({"type": "number", "maximum": 3}, 3, []),
        ({"multipleOf": 0.1}, 0.3, []),  # in decimal, as the JSON text reads
        ({"multipleOf": 0.1}, 0.35, [("answer", "multipleOf")]),
        ({"multipleOf": 3}, 10**40 * 3, []),
        ({"maxLength": 2}, "\U0001f600\U0001f600", []),  # code points, not UTF-16 units
        ({"pattern": "^a+$"}, "aaa\n", [("answer", "pattern")]),  # ECMA-262 $ ends the text
        ({"pattern": "b"}, "abc", []),  # unanchored, as re.search
        ({"pattern": r"^\d+$"}, "\u0661\u0662", [("answer", "pattern")]),  # \d is ASCII
        ({"minItems": 2, "maxItems": 3}, [1], [("answer", "minItems")]),
        ({"contains": {"type": "string"}}, [1, 2], [("answer", "contains")]),
        (
            {"contains": {"type": "string"}, "maxContains": 1},
            ["a", "b"],
            [("answer", "maxContains")],
        ),
        ({"contains": {"type": "string"}, "minContains": 0}, [1], []),
        ({"prefixItems": [{"type": "string"}], "items": False}, ["a", 1], [("answer[1]", "items")]),
        (
            {"items": [{"type": "string"}], "additionalItems": False},
            ["a", 1],
            [("answer[1]", "additionalItems")],
        ),
        ({"propertyNames": {"maxLength": 2}}, {"abc": 1}, [("answer.abc", "maxLength")]),
        ({"minProperties": 1}, {}, [("answer", "minProperties")]),
        (
            {"patternProperties": {"^x_": {"type": "integer"}}},
            {"x_a": "s", "y": "s"},
            [("answer.x_a", "type")],
        ),
        ({"dependentRequired": {"a": ["b"]}}, {"a": 1}, [("answer.b", "dependentRequired")]),
        ({"dependencies": {"a": ["b"]}}, {"a": 1}, [("answer.b", "dependencies")]),
        ({"dependentSchemas": {"a": {"required": ["c"]}}}, {"a": 1}, [("answer.c", "required")]),
        ({"allOf": [{"minimum": 2}, {"maximum": 1}]}, 3, [("answer", "maximum")]),
        ({"anyOf": [{"type": "string"}, {"minimum": 5}]}, 3, [("answer", "anyOf")]),
        ({"oneOf": [{"minimum": 1}, {"maximum": 5}]}, 3, [("answer", "oneOf")]),
        ({"oneOf": [{"minimum": 1}, {"maximum": 5}]}, 9, []),
        ({"not": {"type": "string"}}, "a", [("answer", "not")]),
        (
            {"if": {"minimum": 5}, "then": {"multipleOf": 2}, "else": {"maximum": 0}},
            7,
            [("answer", "multipleOf")],
        ),
        (
            {"if": {"minimum": 5}, "then": {"multipleOf": 2}, "else": {"maximum": 0}},
            3,
            [("answer", "maximum")],
        ),
        (False, 1, [("answer", "false")]),
        (True, {"anything": [1]}, []),
        ({}, None, []),
    ],
)
def test_keywords(schema: Any, value: Any, expected: list[tuple[str, str]]) -> None:
    assert found(value, schema) == expected


def test_violation_names_its_schema_location_and_reason() -> None:
    (v,) = schema_violations({"age": "x"}, {"properties": {"age": {"type": "integer"}}})
    assert v == Violation("answer.age", "type", "is a string, not integer", "#/properties/age/type")
    assert v.to_dict()["schema_path"] == "#/properties/age/type"
    assert str(v) == "answer.age: is a string, not integer (type at #/properties/age/type)"


def test_anyof_message_says_why_each_branch_failed() -> None:
    (v,) = schema_violations(3, {"anyOf": [{"type": "string"}, {"minimum": 5}]})
    assert v.message == (
        "matches none of the 2 anyOf schemas (0: is an integer, not string at answer; "
        "1: 3 is not at least 5 at answer)"
    )


def test_references_pointers_anchors_and_ids() -> None:
    schema = {
        "$defs": {
            "pos": {"$anchor": "pos", "type": "integer", "minimum": 1},
            "a/b": {"type": "string"},
            "node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/node"}, "v": {"$ref": "#pos"}},
            },
        },
        "properties": {
            "n": {"$ref": "#pos"},
            "s": {"$ref": "#/$defs/a~1b"},
            "tree": {"$ref": "#/$defs/node"},
        },
    }
    assert found({"n": 1, "s": "x", "tree": {"next": {"next": {"v": 2}}}}, schema) == []
    assert found({"n": 0, "s": 1, "tree": {"next": {"v": 0}}}, schema) == [
        ("answer.n", "minimum"),
        ("answer.s", "type"),
        ("answer.tree.next.v", "minimum"),
    ]


def test_ref_siblings_apply_from_2019_on_and_are_ignored_before() -> None:
    body = {"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2}
    assert found("abc", {**body, "$schema": D2020}) == [("answer", "maxLength")]
    assert found("abc", {**body, "$schema": D07}) == []


def test_older_drafts_lack_later_keywords() -> None:
    later = {"if": {"const": 1}, "then": {"type": "string"}, "const": 2}
    assert found(1, {**later, "$schema": D04}) == []  # draft-04 has no if, then or const
    assert found(1, {**later, "$schema": D07}) == [("answer", "const"), ("answer", "type")]
    # Draft-04 integers have no fraction part: 7.0 is not one there, but is one from draft-06.
    assert found(7.0, {"type": "integer", "$schema": D04}) == [("answer", "type")]
    assert found(7.0, {"type": "integer", "$schema": D07}) == []
    # Draft-04's boolean exclusiveMaximum modifies maximum.
    assert found(3, {"maximum": 3, "exclusiveMaximum": True, "$schema": D04}) == [
        ("answer", "maximum")
    ]


def test_unevaluated_properties_and_items_see_through_applicators() -> None:
    schema = {
        "allOf": [{"properties": {"a": {}}}],
        "anyOf": [{"properties": {"b": {}}}, {"required": ["zzz"]}],
        "unevaluatedProperties": False,
    }
    assert found({"a": 1, "b": 2}, schema) == []
    assert found({"a": 1, "b": 2, "c": 3}, schema) == [("answer.c", "unevaluatedProperties")]
    items = {"prefixItems": [{"type": "string"}], "unevaluatedItems": {"type": "integer"}}
    assert found(["a", 1, "b"], items) == [("answer[2]", "type")]
    conditional = {"if": {"properties": {"k": {"const": 1}}}, "then": {"properties": {"x": {}}}}
    assert found({"k": 1, "x": 2}, {**conditional, "unevaluatedProperties": False}) == []
    assert found({"k": 2, "x": 2}, {**conditional, "unevaluatedProperties": False}) == [
        ("answer.k", "unevaluatedProperties"),
        ("answer.x", "unevaluatedProperties"),
    ]


@pytest.mark.parametrize(
    ("fmt", "good", "bad"),
    [
        ("date", "2024-02-29", "2023-02-29"),
        ("time", "23:59:60Z", "24:00:00Z"),
        ("date-time", "2024-01-01T10:00:00.5+02:00", "2024-01-01 10:00"),
        ("email", "a@b.c", "no at sign"),
        ("hostname", "api.example.com", "-bad-.com"),
        ("ipv4", "10.0.0.1", "10.0.0.256"),
        ("ipv6", "::1", "1::2::3"),
        ("uri", "https://x.org/a?b#c", "not a uri"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
        ("duration", "P1DT2H", "P"),
        ("json-pointer", "/a~1b/0", "a/b"),
        ("regex", "^a+$", "("),
    ],
)
def test_formats_are_checked_unless_turned_off(fmt: str, good: str, bad: str) -> None:
    assert fmt in CHECKED_FORMATS
    schema = {"format": fmt}
    assert found(good, schema) == []
    assert found(bad, schema) == [("answer", "format")]
    assert found(bad, schema, formats=False) == []
    assert found(12, schema) == []  # formats apply to strings only


@pytest.mark.parametrize("draft", [D04, D06, D07, D2019, D2020, None])
@pytest.mark.parametrize("fmt", sorted(CHECKED_FORMATS))
def test_every_checked_format_is_checked_in_every_draft(draft: str | None, fmt: str) -> None:
    """A format newer than the declared draft (`duration`, `uuid` under draft-07; `date`,
    `time`, `iri` under draft-04) is checked too: a draft may check more formats than it
    lists, and JSONSchemaBench's labels expect it (component_spec's draft-06 `duration`).
    python-jsonschema's per-draft `FORMAT_CHECKER` leaves them unchecked (README,
    Differences; fix34 #4)."""
    bad = {"date": "2023-02-29", "time": "24:00:00Z", "duration": "P", "uuid": "123e4567"}
    bad |= {"regex": "(", "json-pointer": "a/b", "relative-json-pointer": "/a"}
    schema = {"format": fmt} if draft is None else {"$schema": draft, "format": fmt}
    assert found(bad.get(fmt, "a b"), schema) == [("answer", "format")]


def test_unknown_formats_are_annotations() -> None:
    assert found("anything", {"format": "x-custom"}) == []


def test_limit_stops_looking() -> None:
    schema = {"items": {"type": "string"}}
    assert len(schema_violations(list(range(500)), schema)) == 50
    assert len(schema_violations(list(range(500)), schema, limit=3)) == 3
    assert SchemaCheck(schema).is_valid(["a"])
    assert not SchemaCheck(schema).is_valid([1])
    with pytest.raises(ValueError, match="limit must be a positive int"):
        schema_violations(1, schema, limit=0)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "strnig"}, "#/type: unknown type 'strnig'"),
        ({"type": ["string", ["x"]]}, "#/type: unknown type ['x']"),
        ({"required": "name"}, "#/required: must be an array of names"),
        ({"required": [1]}, "#/required: names must be strings"),
        ({"minLength": -1}, "#/minLength: must be a non-negative integer"),
        ({"maximum": "3"}, "#/maximum: must be a number"),
        ({"multipleOf": 0}, "#/multipleOf: must be greater than 0"),
        ({"properties": []}, "#/properties: must be an object"),
        ({"anyOf": []}, "#/anyOf: must be a non-empty array of schemas"),
        ({"enum": "a"}, "#/enum: must be an array"),
        ({"properties": {"a": 3}}, "#/properties/a: a schema must be an object or a boolean"),
        ({"$ref": "#/nowhere"}, "reference '#/nowhere' points to nothing"),
        ({"$ref": "#"}, "more than 2500 references lead to no schema"),
        ({"pattern": 5}, "#/pattern: a pattern must be a string"),
    ],
)
def test_malformed_schemas_are_schema_errors(schema: Any, message: str) -> None:
    value = (
        {"a": 1}
        if {"properties", "required"} & set(schema)
        else "abc"
        if {"pattern", "minLength"} & set(schema)
        else 5
    )
    with pytest.raises(SchemaError, match=message.replace("[", r"\[").replace("$", r"\$")):
        schema_violations(value, schema)


def test_a_schema_must_be_an_object_or_boolean() -> None:
    with pytest.raises(SchemaError, match="must be an object or a boolean, got array"):
        SchemaCheck([])  # type: ignore[arg-type]


def test_external_references_are_refused_plainly() -> None:
    with pytest.raises(ExternalReferenceError, match="inline the referenced schema"):
        schema_violations(1, {"$ref": "https://example.com/other.json"})


def test_an_unreadable_pattern_warns_and_is_not_checked() -> None:
    with pytest.warns(SchemaWarning, match=r"#/pattern: Python's re cannot read.*not checked"):
        assert found("x", {"pattern": r"^\p{RGI_Emoji}+$"}) == []


def test_deep_values_and_self_referring_schemas_are_bounded() -> None:
    deep: Any = []
    for _ in range(5_000):
        deep = [deep]
    with pytest.raises(LimitError, match="applies more than max_depth=300 nested schemas"):
        schema_violations(deep, {"items": {"$ref": "#"}})
    with pytest.raises(LimitError, match="a \\$ref that leads back to itself"):
        schema_violations(1, {"$ref": "#", "type": "integer"})
    nested: Any = {"type": "integer"}
    for _ in range(5_000):
        nested = {"allOf": [nested]}
    with pytest.raises(LimitError):
        schema_violations(1, nested)


def test_deep_values_within_the_bound_pass() -> None:
    deep: Any = 1
    for _ in range(100):  # two nested schemas per level: anyOf, then items
        deep = [deep]
    assert found(deep, {"anyOf": [{"type": "integer"}, {"items": {"$ref": "#"}}]}) == []


# -- properties ------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(JSON_VALUES, JSON_VALUES)
def test_canonical_forms_agree_with_json_equality(a: Any, b: Any) -> None:
    assert (_canonical(a) == _canonical(b)) == json_equal(a, b)


@given(JSON_VALUES)
def test_a_value_is_valid_under_its_own_const_and_enum(value: Any) -> None:
    assert found(value, {"const": value}) == []
    assert found(value, {"enum": ["other", value]}) == []
    assert found(value, {"not": {"const": value}}) == [("answer", "not")]
    assert found(value, True) == []
    assert found(value, {}) == []


SCHEMAS = st.recursive(
    st.sampled_from(
        [
            {"type": "string"},
            {"type": "integer"},
            {"minimum": 0},
            {"maxLength": 2},
            {"uniqueItems": True},
            {"required": ["a"]},
            {"enum": [1, "a", None]},
            {"format": "date"},
            True,
            False,
        ]
    ),
    lambda inner: (
        st.builds(lambda s: {"items": s}, inner)
        | st.builds(lambda s: {"properties": {"a": s}, "additionalProperties": False}, inner)
        | st.builds(lambda a, b: {"anyOf": [a, b]}, inner, inner)
        | st.builds(lambda a, b: {"oneOf": [a, b]}, inner, inner)
        | st.builds(lambda a: {"not": a}, inner)
        | st.builds(lambda a, b: {"allOf": [a, b], "unevaluatedProperties": False}, inner, inner)
    ),
    max_leaves=6,
)


@settings(max_examples=300)
@given(SCHEMAS, JSON_VALUES)
def test_any_schema_and_value_give_a_verdict_that_agrees_with_is_valid(
    schema: Any, value: Any
) -> None:
    check = SchemaCheck(schema)
    found_all = check.violations(value)
    assert check.is_valid(value) == (not found_all)
    assert all(v.path.startswith("answer") and v.schema_path.startswith("#") for v in found_all)
    # "not" flips the verdict.
    assert SchemaCheck({"not": schema}).is_valid(value) == bool(found_all)


# -- real data -------------------------------------------------------------------------------


@pytest.mark.realdata
def test_real_schemas_label_their_test_instances_as_the_check_does() -> None:
    """JSONSchemaBench's 1,707 labelled instances (560 valid, 1,147 invalid, with formats
    checked) of the 396 real schemas: every verdict agrees, and only swagger-2.0's instances
    that reach its ``$ref`` to the draft-04 meta-schema by URL are refused (6 of 9)."""
    root = require_data("schemas")
    agree = disagree = external = 0
    for path in sorted(root.glob("*/*.json")):
        document = json.loads(path.read_text())
        check = SchemaCheck(document["schema"])
        for test in document["tests"]:
            try:
                valid = check.is_valid(test["data"])
            except ExternalReferenceError:
                assert path.name == "swagger-2.0.json"
                external += 1
                continue
            if valid == test["valid"]:
                agree += 1
            else:
                disagree += 1
    assert (agree, disagree, external) == (1_701, 0, 6)


@pytest.mark.realdata
def test_real_schemas_name_every_violation_of_their_invalid_instances() -> None:
    root = require_data("schemas")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no real pattern is unreadable
        for path in sorted(root.glob("*/*.json"))[:200]:
            document = json.loads(path.read_text())
            if path.name == "swagger-2.0.json":
                continue
            for test in document["tests"]:
                for v in schema_violations(test["data"], document["schema"]):
                    assert v.path.startswith("answer")
                    assert v.message
                    assert v.schema_path.startswith("#")


# -- review findings (diff15) ----------------------------------------------------------------


def test_references_inside_an_embedded_resource_resolve_against_its_id() -> None:
    bundled = {
        "$id": "http://x.com/root.json",
        "$ref": "a.json",
        "$defs": {
            "b": {"type": "integer"},
            "a": {
                "$id": "a.json",
                "$defs": {"b": {"type": "string"}},
                "properties": {"p": {"$ref": "#/$defs/b"}},
            },
        },
    }
    assert found({"p": "s"}, bundled) == []
    (v,) = schema_violations({"p": 1}, bundled)
    assert (v.path, v.schema_path) == ("answer.p", "http://x.com/a.json#/$defs/b/type")
    nested = {
        "$id": "http://e.com/dir/s.json",
        "$ref": "x/u.json",
        "$defs": {"a": {"$id": "x/t.json", "$defs": {"b": {"$id": "u.json", "type": "integer"}}}},
    }
    assert found("s", nested) == [("answer", "type")]
    assert found(1, nested) == []


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        ({"multipleOf": 7}, 1e64, False),
        ({"multipleOf": 3}, 1e70, False),
        ({"multipleOf": 5}, 1e70, True),
        ({"type": "integer", "multipleOf": 0.123456789}, 1e308, False),
        ({"format": "uri"}, "http://ƒøø.ßår/?∂éœ=πîx#πîüx", False),
        ({"format": "iri"}, "http://ƒøø.ßår/?∂éœ=πîx#πîüx", True),
        ({"format": "uri"}, "http://a/%zz", False),
        ({"format": "uri"}, "http://a/%2F", True),
        ({"format": "uri"}, "http://[::1", False),
        ({"format": "uri"}, "http://[::1]:80/", True),
        ({"format": "uri-reference"}, "../a?b", True),
        ({"format": "uri-reference"}, "http://ƒøø", False),
        ({"format": "ipv6"}, "fe80::a%eth1", False),
        ({"format": "time"}, "23:59:60Z", True),
        ({"format": "time"}, "22:59:60Z", False),
        ({"format": "time"}, "23:59:60+01:00", False),
        ({"format": "time"}, "00:59:60+01:00", True),
        ({"format": "time"}, "15:59:60-08:00", True),
    ],
)
def test_exact_multiples_and_strict_formats(schema: Any, value: Any, valid: bool) -> None:
    assert SchemaCheck(schema).is_valid(value) is valid


def test_draft4_names_a_fractional_integer_a_number() -> None:
    (v,) = schema_violations(1.0, {"$schema": D04, "type": "integer"})
    assert v.message == "is a number, not integer"


def test_huge_python_ints_are_named_by_their_size() -> None:
    (v,) = schema_violations(10**5000, {"maximum": 1})
    assert v.message == "an integer of 16610 bits is not at most 1"
    assert SchemaCheck({"multipleOf": 0.5}).is_valid(10**5000)
    assert not SchemaCheck({"multipleOf": 0.3}).is_valid(10**5000)
    with pytest.raises(LimitError, match="a key is an integer of 16610 bits, too long to name"):
        schema_violations({10**5000: 1}, {"propertyNames": {"maxLength": 3}})


def test_pattern_warnings_name_positions_in_the_users_pattern() -> None:
    from pytest_structeval.schema.tree import ecma_regex

    assert ecma_regex("a$*") == (None, "nothing to repeat at position 2")
    # (translated forms before the error do not move it)
    assert ecma_regex("^\\s\\cJ(?<y>a)$(") == (
        None,
        "missing ), unterminated subpattern at position 14",
    )
    assert ecma_regex("[\\S](?<y>a)\\p{Emojis}")[1].startswith(
        "unsupported Unicode property \\p{Emojis} at position 11 (did you mean \\p{Emoji}?)"
    )
    assert (
        ecma_regex("a\n[\\s-z]")[1] == "bad character range \\s-z at position 3 (line 2, column 2)"
    )
    regex, _ = ecma_regex("[]$]x$")  # as ECMA-262 reads it: "[]" matches nothing
    assert regex is not None
    assert regex.search("$]x") is None
    assert regex.search("]x") is None


# -- surviving mutants (mutants15) --------------------------------------------------------------


def test_exclusive_minimum_in_both_forms() -> None:
    assert found(5, {"exclusiveMinimum": 5}) == [("answer", "exclusiveMinimum")]
    assert found(5.000001, {"exclusiveMinimum": 5}) == []
    assert found(5, {"$schema": D04, "minimum": 5, "exclusiveMinimum": True}) == [
        ("answer", "minimum")
    ]
    assert found(5, {"$schema": D04, "minimum": 5, "exclusiveMinimum": False}) == []
    assert found(0, {"minimum": 0, "exclusiveMinimum": -10}) == []


def test_boundaries_of_contains_and_hostnames() -> None:
    assert found([1, 1, 2], {"contains": {"const": 1}, "maxContains": 2}) == []
    label = "a" * 63
    assert found(".".join([label] * 3 + ["a" * 61]), {"format": "hostname"}) == []  # 253
    assert found(".".join([label] * 3 + ["a" * 62]), {"format": "hostname"}) == [
        ("answer", "format")
    ]  # 254


def test_unique_items_tell_booleans_from_numbers() -> None:
    assert found([True, 1], {"uniqueItems": True}) == []
    assert found([{"a": False}, {"a": 0}], {"uniqueItems": True}) == []


def test_an_extra_key_is_reported_once() -> None:
    schema = {
        "properties": {"a": {}},
        "additionalProperties": False,
        "unevaluatedProperties": False,
    }
    assert found({"a": 1, "x": 2}, schema) == [("answer.x", "additionalProperties")]


def test_draft_06_integers_may_have_a_zero_fraction() -> None:
    assert (
        found(7.0, {"$schema": "http://json-schema.org/draft-06/schema#", "type": "integer"}) == []
    )


_EXPR = {
    "oneOf": [
        {"type": "number"},
        *(
            {
                "type": "object",
                "required": ["op", "left", "right"],
                "properties": {
                    "op": {"enum": ops},
                    "left": {"$ref": "#/$defs/expr"},
                    "right": {"$ref": "#/$defs/expr"},
                },
                "additionalProperties": False,
            }
            for ops in (["+", "-"], ["*", "/"])
        ),
    ]
}


def _expression(depth: int, op: str = "+") -> Any:
    """``depth`` nested operations, the subtree written before the operator."""
    value: Any = 1
    for _ in range(depth):
        value = {"left": value, "right": 1, "op": op}
    return value


def test_a_recursive_union_is_checked_in_work_linear_in_depth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each ``oneOf`` branch descended into the same subtree before its operator failed it:
    a 727-byte expression took 32 s, each level doubling it (review robust17). Answers are
    now worked out once per schema location and value."""
    checks = 0
    original = SchemaCheck._check

    def counted(self: SchemaCheck, *args: Any) -> Any:
        nonlocal checks
        checks += 1
        return original(self, *args)

    monkeypatch.setattr(SchemaCheck, "_check", counted)
    schema = {"$defs": {"expr": _EXPR}, "$ref": "#/$defs/expr"}
    counts = []
    for depth in (4, 8, 12):
        checks = 0
        assert schema_violations(_expression(depth), schema) == ()
        counts.append(checks)
    assert counts[2] - counts[1] == counts[1] - counts[0]  # linear: no doubling per level
    wrong = schema_violations(_expression(12, op="^"), schema)
    assert [v.keyword for v in wrong] == ["oneOf"]


def test_a_union_failing_deep_down_says_so_in_a_bounded_message() -> None:
    """Each branch's reason quoted the nested union's reason in full: the message doubled
    with every level (2**depth characters)."""
    schema = {"anyOf": [{"type": "array", "items": {"$ref": "#"}}] * 2}
    value: Any = ["x"]
    for _ in range(14):
        value = [value]
    (violation,) = schema_violations(value, schema)
    assert violation.message.startswith("matches none of the 2 anyOf schemas (0: matches none")
    assert len(violation.message) < 1_000


def test_a_union_reason_keeps_the_end_of_a_long_path() -> None:
    """Each branch's failing path was cut from its end, losing the field that failed
    (review diff17b)."""
    field = "width_in_centimetres_of_the_inner_retail_packaging"
    keys = [f"a_rather_long_key_number_{i}" for i in range(4)]
    branch: Any = {"properties": {field: {"type": "number"}}}
    value: Any = {field: "wide"}
    for key in reversed(keys):
        branch, value = {"properties": {key: branch}}, {key: value}
    (violation,) = schema_violations(value, {"anyOf": [branch, branch]})
    assert f".{field}; 1: " in violation.message
    assert " at ...key_number_1." in violation.message  # the start of the path is what goes


# -- review findings (validity33) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("draft", "ignored", "defs"),
    [
        (D07, "id", "definitions"),  # `id` is an annotation from draft-06 on
        (D06, "id", "definitions"),
        (D2020, "id", "$defs"),
        (None, "id", "$defs"),  # no $schema: read as 2020-12
        (D04, "$id", "definitions"),  # `$id` is not a keyword before draft-06
    ],
)
def test_an_id_keyword_of_another_draft_is_no_base_uri(
    draft: str | None, ignored: str, defs: str
) -> None:
    """`id` was read as a base URI in every draft, and `$id` in draft-04: the refs below it
    then pointed into nothing and the schema could not be checked (review validity33 F1)."""
    schema: dict[str, Any] = {
        "properties": {
            "addr": {ignored: "address", "properties": {"zip": {"$ref": f"#/{defs}/zip"}}}
        },
        defs: {"zip": {"type": "string"}},
    }
    if draft is not None:
        schema["$schema"] = draft
    assert found({"addr": {"zip": "12345"}}, schema) == []
    assert found({"addr": {"zip": 12345}}, schema) == [("answer.addr.zip", "type")]


@pytest.mark.parametrize(("draft", "keyword"), [(D04, "id"), (D07, "$id"), (None, "$id")])
def test_the_id_keyword_of_the_draft_is_a_base_uri(draft: str | None, keyword: str) -> None:
    schema: dict[str, Any] = {
        "$id" if keyword == "$id" else "id": "http://x.com/root.json",
        "properties": {"a": {"$ref": "item.json"}},
        "definitions": {"item": {keyword: "item.json", "type": "integer"}},
    }
    if draft is not None:
        schema["$schema"] = draft
    assert found({"a": 1}, schema) == []
    assert found({"a": "s"}, schema) == [("answer.a", "type")]


def test_a_root_id_names_a_document_without_schema_or_dollar_id() -> None:
    """(Draft-04 style without $schema: only the root's `id` is read, as the document's name.)"""
    schema = {
        "id": "http://x.com/root.json#",
        "properties": {"a": {"$ref": "http://x.com/root.json#/definitions/a"}},
        "definitions": {"a": {"type": "string"}},
    }
    assert found({"a": "s"}, schema) == []
    assert found({"a": 1}, schema) == [("answer.a", "type")]


@pytest.mark.parametrize(("draft", "keyword"), [(D04, "id"), (D06, "$id"), (D07, "$id")])
def test_an_id_beside_a_ref_is_ignored_before_2019(draft: str, keyword: str) -> None:
    """Every sibling of `$ref` is ignored before 2019-09, its `$id` too; the ref was resolved
    against that id and pointed into nothing (review validity33 F2)."""
    schema = {
        "$schema": draft,
        "properties": {"a": {keyword: "item.json", "$ref": "#/definitions/x"}},
        "definitions": {"x": {"type": "integer"}},
    }
    assert found({"a": 1}, schema) == []
    assert found({"a": "s"}, schema) == [("answer.a", "type")]


def test_an_id_beside_a_ref_is_its_base_from_2019_on() -> None:
    schema = {
        "$schema": D2020,
        "$id": "http://x.com/root.json",
        "properties": {"a": {"$id": "item.json", "$ref": "#/$defs/x"}},
        "$defs": {"x": {"type": "integer"}},
    }
    with pytest.raises(SchemaError, match="points to nothing"):  # item.json has no $defs
        found({"a": 1}, schema)


@pytest.mark.parametrize(
    ("draft", "keyword"), [(D04, "id"), (D06, "$id"), (D07, "$id"), (D2020, "$id"), (None, "$id")]
)
def test_a_pointer_ref_in_an_embedded_resource_is_that_resources(
    draft: str | None, keyword: str
) -> None:
    """`#/definitions/x` inside a subschema with its own id (draft-04's `id`, `$id` after it)
    is that subschema's `definitions`, and `y.json#/...` there joins to its id. Scoring
    (`resolve_schema_references`) read every ref from the root, so it took the root's `x`
    or called `y.json` external; and a pointer that passes into such a resource
    (`#/definitions/res/...`) took the root as the base of the refs found there, in
    validation too."""
    resource = {
        keyword: "http://x.com/y.json",
        "type": "object",
        "definitions": {"x": {"type": "integer"}},
        "properties": {
            "a": {"$ref": "#/definitions/x"},
            "b": {"$ref": "y.json#/definitions/x"},
        },
    }
    schema: dict[str, Any] = {
        "type": "object",
        "definitions": {"x": {"type": "string"}, "res": json.loads(json.dumps(resource))},
        "properties": {
            "in": resource,
            "via": {"$ref": "#/definitions/res"},
            "deep": {"$ref": "#/definitions/res/properties/a"},  # its ref is the resource's
        },
    }
    if draft is not None:
        schema["$schema"] = draft
    for key in ("in", "via"):
        assert found({key: {"a": 1, "b": 2}}, schema) == []
        assert found({key: {"a": "s", "b": "s"}}, schema) == [
            (f"answer.{key}.a", "type"),
            (f"answer.{key}.b", "type"),
        ]
    assert found({"deep": 1}, schema) == []
    assert found({"deep": "s"}, schema) == [("answer.deep", "type")]
    resolved = resolve_schema_references(schema)["properties"]
    for key in ("in", "via"):
        assert resolved[key]["properties"] == {"a": {"type": "integer"}, "b": {"type": "integer"}}
    assert resolved["deep"] == {"type": "integer"}


def test_a_2019_09_document_lacks_2020_12_keywords() -> None:
    """`_LATER_KEYWORDS` applied to draft-0X documents only, so 2019-09 had 2020-12's
    `prefixItems`, `$dynamicRef` and `$dynamicAnchor` (review validity33 F5)."""
    assert found([1], {"$schema": D2019, "prefixItems": [{"type": "string"}]}) == []
    assert found([1], {"$schema": D2020, "prefixItems": [{"type": "string"}]}) == [
        ("answer[0]", "type")
    ]
    # items as a list is 2019-09's tuple form, prefixItems or not
    both = {"prefixItems": [{"type": "string"}], "items": [{"type": "integer"}]}
    tuple_form = {**both, "additionalItems": False}
    assert found([1], {"$schema": D2019, **tuple_form}) == []
    assert found([1, 2], {"$schema": D2019, **tuple_form}) == [("answer[1]", "additionalItems")]
    dynamic = {"$dynamicRef": "#/$defs/s", "$defs": {"s": {"type": "string"}}}
    assert found(1, {"$schema": D2019, **dynamic}) == []
    assert found(1, {"$schema": D2020, **dynamic}) == [("answer", "type")]
    anchored = {"$ref": "#n", "$defs": {"n": {"$dynamicAnchor": "n", "type": "string"}}}
    assert found(1, {"$schema": D2020, **anchored}) == [("answer", "type")]
    with pytest.raises(SchemaError, match="unknown anchor 'n'"):
        found(1, {"$schema": D2019, **anchored})


def test_anchor_is_a_keyword_from_2019_09_on() -> None:
    """`$anchor` was read in every draft, so a draft-07 `$ref: "#foo"` found a `$anchor: foo`
    (ahead of the `$id: "#foo"` that names the anchor there); before 2019-09 it is an
    annotation (fix34 #3)."""
    for draft, number, id_key in ((D04, "04", "id"), (D06, "06", "$id"), (D07, "07", "$id")):
        named = {id_key: "#foo", "type": "string"}
        annotated = {"$anchor": "foo", "type": "integer"}
        schema = {
            "$schema": draft,
            "properties": {"a": {"$ref": "#foo"}},
            "definitions": {"named": named, "annotated": annotated},
        }
        assert found({"a": "s"}, schema) == []
        assert found({"a": 1}, schema) == [("answer.a", "type")]
        del schema["definitions"]["named"]
        with pytest.raises(SchemaError) as caught:
            found({"a": 1}, schema)
        assert str(caught.value) == (
            "#/properties/a/$ref: reference '#foo' names an unknown anchor 'foo' ($anchor is a "
            f"keyword from 2019-09 on; in this draft-{number} document an anchor is "
            f"written '{id_key}': '#foo')"
        )
    for draft in (D2019, D2020, None):
        schema = {"properties": {"a": {"$ref": "#foo"}}, "$defs": {"n": {"$anchor": "foo"}}}
        schema["$defs"]["n"]["type"] = "integer"
        if draft:
            schema["$schema"] = draft
        assert found({"a": "s"}, schema) == [("answer.a", "type")]


_ECMA_SPACES = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


@pytest.mark.parametrize("space", list(_ECMA_SPACES))
def test_s_is_ecma_262_white_space(space: str) -> None:
    """`\\s` was ASCII (`re.ASCII`): "^\\S+$" let a no-break space through, and "^\\s$"
    refused U+2028 (review validity33 F3)."""
    assert found(f"a{space}b", {"pattern": "^\\S+$"}) == [("answer", "pattern")]
    assert found(space, {"pattern": "^\\s$"}) == []
    assert found(f"a{space}", {"pattern": "^[a\\s]+$"}) == []  # inside a class
    assert found(space, {"pattern": "^[^\\s]$"}) == [("answer", "pattern")]
    assert found(space, {"pattern": "^[\\S]$"}) == [("answer", "pattern")]
    assert found(space, {"pattern": "^[^\\S]$"}) == []
    assert found(space, {"pattern": "^[a\\S]$"}) == [("answer", "pattern")]
    assert found(space, {"pattern": "^[^a\\S]$"}) == []


@pytest.mark.parametrize("other", ["a", "\x1c", "\x85", "\u180e", "\u200b", "\u0663", "-", "^"])
def test_s_leaves_out_what_ecma_262_does_not_call_white_space(other: str) -> None:
    assert found(other, {"pattern": "^\\S$"}) == []
    assert found(other, {"pattern": "^\\s$"}) == [("answer", "pattern")]
    assert found(other, {"pattern": "^[\\S]$"}) == []
    assert found(other, {"pattern": "^[^\\s]$"}) == []
    assert found(other, {"pattern": "^[^\\S]$"}) == [("answer", "pattern")]
    member = {"pattern": "^[^a\\S]$"}  # white space but not "a": nothing here
    assert found(other, member) == [("answer", "pattern")]
    assert found(other, {"pattern": "^[\\-\\S^]$"}) == []


def test_s_translation_keeps_escapes_ranges_and_dollars() -> None:
    assert found("\\s", {"pattern": "^\\\\s$"}) == []  # an escaped backslash, then "s"
    assert found("\\s", {"pattern": "^[\\\\s]+$"}) == []
    assert found("-", {"pattern": "^[\\s-]$"}) == []  # a "-" last is a member
    assert found("-", {"pattern": "^[-\\s]$"}) == []
    assert found("$", {"pattern": "^[\\s$]$"}) == []
    assert found("\u00a0\n", {"pattern": "^\\s$"}) == [("answer", "pattern")]  # ECMA's $
    assert found("C", {"pattern": "^[\\x41-\\x43\\s]$"}) == []
    assert found(" ", {"pattern": "^[\\S^-a]$"}) == [("answer", "pattern")]  # (not "[^-a]")
    assert found("`", {"pattern": "^[\\S^-a]$"}) == []
    with pytest.warns(SchemaWarning, match="bad character range"):  # as before
        assert found("x", {"pattern": "^[\\s-z]$"}) == []


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("^(?<y>\\d{4})-(?<m>\\d{2})$", ["2024-01"], ["abcd", "2024-1"]),
        ("^(?<q>['\"])\\w+\\k<q>$", ["'ab'", '"ab"'], ["'ab\"", "ab"]),
        # a group that matched nothing is an empty backreference, as in ECMA-262
        ("^(?:(?<a>x)|y)\\k<a>$", ["y", "xx"], ["x", "yy"]),
        ("(?<=(?<c>[ab]))c", ["ac"], ["cc"]),  # a lookbehind stays one
        ("^a[^]b$", ["a\nb", "a\u2028b", "axb"], ["ab", "axxb"]),  # any character
        ("^a[]?b$", ["ab"], ["a]b", "axb"]),  # "[]" matches nothing
        ("^[^]]$", ["x]", "]]"], ["]", "x"]),  # "[^]" then "]"
        ("^a\\cJb\\cib$", ["a\nb\tb"], ["acJbcib"]),  # control escapes
        ("^[\\cI\\cJ]+$", ["\t\n"], ["cI"]),
        ("^[\\cA-\\cZ]$", ["\x05"], ["E"]),
    ],
)
def test_ecma_only_pattern_forms_are_translated(
    pattern: str, good: list[str], bad: list[str]
) -> None:
    """Named groups, `\\k<name>`, `[^]`, `[]` and `\\cX` gave a SchemaWarning and left the
    pattern unchecked: a date-shaped pattern with named groups accepted any string (review
    validity33 F7)."""
    assert_pattern_reads(pattern, good, bad)


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("^(a)?\\1b$", ["b", "aab"], ["ab", "aabb"]),  # a group that matched nothing
        ("^(?:(a)|b)\\1$", ["b", "aa"], ["a", "bb"]),
        ("^\\1(a)$", ["a"], ["aa"]),  # before its group: empty
        ("^(a\\1)$", ["a"], ["aa"]),  # inside it
        ("^\\k<n>(?<n>a)$", ["a"], ["aa"]),
        ("^(?<n>a\\k<n>)$", ["a"], ["aa"]),
        ("^(?:(a)|b\\1)+$", ["ab", "b", "abab", "aab"], ["", "ac"]),  # another alternative
        ("^(?:(?<n>a)|b\\k<n>)+$", ["ab"], ["ac"]),
        ("^(['\"])\\w+\\1$", ["'ab'", '"ab"'], ["'ab\"", "ab"]),
        ("^(a)\\1{2}$", ["aaa"], ["aa"]),
        ("^(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10$", ["abcdefghijj"], ["abcdefghija0"]),
        ("^(?=(a))\\1b$", ["ab"], ["b"]),
        ("^(?!(a))\\1b$", ["b"], ["ab"]),
    ],
)
def test_a_backreference_to_a_group_that_matched_nothing_is_empty(
    pattern: str, good: list[str], bad: list[str]
) -> None:
    """Python's backreference fails where its group has matched nothing, and Python refuses
    one that comes before its group closes; ECMA-262's matches the empty string in both
    cases (fix34 #2)."""
    assert_pattern_reads(pattern, good, bad)


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [  # (as node 20's RegExp reads them)
        ("^(?:(a)?b\\1)+$", ["b", "aba", "abab", "babab", "ababb"], ["ab", "abb", "ababa"]),
        ("^(?:(?<x>a)?b\\k<x>)+$", ["abab", "babab"], ["ababa"]),
        ("^(?:(a)??b\\1)+$", ["abab"], ["ababa"]),
        ("^(?:(a){0,1}b\\1)+$", ["abab"], ["ababa"]),
        ("^(?:(a)?b)+\\1$", ["abb", "ababa", "abbb"], ["abba", "abab"]),  # the last pass's
    ],
)
def test_a_backreference_reads_what_its_group_holds_in_this_pass(
    pattern: str, good: list[str], bad: list[str]
) -> None:
    """ECMA-262 empties a repetition's groups at each pass; Python's re kept an earlier pass's
    capture, so `^(?:(a)?b\\1)+$` refused `abab` (its second pass skips `(a)`, and `\\1` read
    the first pass's `a`). A group made optional by its own `?` is now set at each pass."""
    assert_pattern_reads(pattern, good, bad)


@pytest.mark.parametrize(
    ("pattern", "value", "problem"),
    [  # `value`: what node 20 takes and Python's re (with the group's old capture) refuses
        (
            "^(?:(a)|b)+\\1$",
            "ab",
            "backreference \\1 at position 11 refers to a group that a pass of the repetition "
            "at position 1 may skip: ECMA-262 empties the group at each pass, where Python's re "
            "keeps an earlier pass's capture",
        ),
        (
            "^(?:(a*))+\\1$",
            "aa",
            "backreference \\1 at position 10: its group is inside the group at position 1 whose "
            "quantifier may repeat it over nothing, a pass ECMA-262 drops with its captures, "
            "where Python's re keeps them",
        ),
        ("^(?=(|(c))?)\\2c$", "cc", "backreference \\2 at position 12: the lookahead at"),
    ],
)
def test_a_backreference_python_cannot_read_as_ecma_262_does_leaves_it_unchecked(
    pattern: str, value: str, problem: str
) -> None:
    """Where no Python pattern matches as ECMA-262 does, the pattern is not checked, with a
    SchemaWarning that says why, as for any pattern Python cannot read; it is still a valid
    `format: regex` answer."""
    with pytest.warns(SchemaWarning) as caught:
        assert found(value, {"pattern": pattern}) == []
    (message,) = [str(w.message) for w in caught]
    assert message.startswith(
        f"#/pattern: Python's re cannot match this pattern as ECMA-262 does ({problem}"
    )
    assert message.endswith("; it is not checked")
    assert found(pattern, {"format": "regex"}) == []


def test_a_backreference_past_99_groups_is_not_read() -> None:
    from pytest_structeval.schema.tree import ecma_regex

    pattern = "(a)" * 100 + "\\100"
    assert ecma_regex(pattern) == (
        None,
        "backreference \\100 at position 300: Python's re cannot refer to more than 99 groups",
    )
    assert ecma_regex("(a)\\2") == (None, "invalid group reference 2 at position 3")  # as before


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("^\\p{L}+$", ["abc", "Ωμέγα", "日本語", "Émile"], ["abc1", "a b", "-"]),
        ("^\\p{Lu}\\p{Ll}+$", ["Hello", "Émile", "Ωμ"], ["hello", "HELLO"]),
        ("^\\p{Letter}\\p{Uppercase_Letter}$", ["aB"], ["ab"]),
        ("^[\\p{L}\\p{Nd}_-]+$", ["user_名前-1", "a٣"], ["a b", "a.b"]),
        ("^\\P{L}+$", ["123 -"], ["a1"]),
        ("^[^\\p{N}]+$", ["abc"], ["a1", "a٣", "½"]),
        ("^[\\P{L}x]+$", ["x1", "12"], ["a"]),
        ("^[^x\\P{L}]+$", ["ab"], ["x", "1"]),
        ("^\\p{gc=Nd}+$", ["123", "٣٤"], ["½", "a"]),
        ("^\\p{General_Category=Decimal_Number}$", ["7"], ["x"]),
        ("^\\p{Zs}$", [" ", "\u3000", "\u00a0"], ["\t", "\n"]),
        ("^\\p{P}+$", ["!?", "«»"], ["a"]),
        ("^\\p{punct}$", ["-"], ["+"]),
        ("^\\p{Script=Greek}+$", ["αβγ"], ["abc", "αb"]),
        ("^\\p{sc=Grek}+$", ["αβγ"], ["abc"]),
        ("^\\p{Script=Latin}+$", ["Émile", "ﬁ"], ["Ωμ", "a1"]),
        ("^\\p{Script=Cyrillic}+$", ["Жук"], ["Zuk"]),
        ("^\\p{sc=Han}+$", ["漢字"], ["かな"]),
        ("^[\\p{sc=Hira}\\p{sc=Kana}]+$", ["ひらがなカタカナ"], ["漢"]),
        ("^\\p{Script=Hiragana}+$", ["ひらがな"], ["ひらがなー"]),  # ー: Common
        ("^\\p{scx=Hira}+$", ["ひらがなー"], ["漢"]),  # ... and Hiragana's by extension
        ("^\\p{Script=Arabic}+$", ["مرحبا"], ["שלום"]),
        ("^\\p{Script=Hebrew}+$", ["שלום"], ["مرحبا"]),
        ("^\\P{Script=Latin}+$", ["123", "Ωμ"], ["a"]),
        ("^\\p{Script=Common}+$", ["1, 2!"], ["a"]),
        ("^\\p{ASCII}+$", ["abc~"], ["é"]),
        ("^\\p{ASCII_Hex_Digit}+$", ["09afAF"], ["g", "０"]),
        ("^\\p{AHex}$", ["a"], ["x"]),
        ("^\\p{Any}$", ["a", "\U0010ffff"], ["", "ab"]),
        ("^a\\P{Any}?$", ["a"], ["ab"]),  # \P{Any} matches nothing
        ("^[^\\P{Any}]$", ["\x00"], [""]),
        ("^\\p{Assigned}$", ["a"], ["\u0378"]),
        ("^\\p{Cn}$", ["\u0378"], ["a"]),
        # ECMA-262's other binary properties, from the table the package ships (as node reads)
        ("^\\p{Emoji}+$", ["😀", "#", "7", "©"], ["a", "é"]),
        ("^\\p{Emoji_Presentation}$", ["😀"], ["#", "©"]),
        ("^\\p{EPres}$", ["🦀"], ["☺"]),
        ("^\\p{Extended_Pictographic}+$", ["©😀"], ["#", "a"]),
        ("^\\p{Alphabetic}+$", ["abcΩμ漢"], ["a1", "-"]),
        ("^\\p{Alpha}$", ["ǅ"], ["1"]),
        ("^\\p{White_Space}+$", [" \t\u3000\u2028\u0085"], ["\u200b", "x"]),
        ("^\\p{space}$", ["\u00a0"], ["\ufeff"]),
        ("^[\\p{Uppercase}\\d]+$", ["AΩ1"], ["a"]),
        ("^\\P{Lowercase}+$", ["AB1"], ["Ab"]),
        ("^[^\\P{Hex_Digit}]+$", ["0aF\uff21"], ["g"]),
        ("^\\p{Regional_Indicator}{2}$", ["🇫🇷"], ["FR"]),
        ("^\\p{ID_Start}\\p{ID_Continue}*$", ["a1", "Ω_1"], ["1a", "_a"]),
        ("^\\p{Ideographic}$", ["漢"], ["か"]),
    ],
)
def test_unicode_property_escapes_are_read(pattern: str, good: list[str], bad: list[str]) -> None:
    """`\\p{...}`/`\\P{...}` (ECMA-262 with the `u` flag) gave a SchemaWarning and left the
    pattern unchecked; general categories come from Python's unicodedata, scripts and the
    binary properties (`Emoji`, `Alphabetic`...: `\\p{Emoji}` was unreadable until then) from
    the tables the package ships (fix34 #1)."""
    assert_pattern_reads(pattern, good, bad)


ECMA_262_BINARY_PROPERTIES = """\
ASCII ASCII_Hex_Digit AHex Alphabetic Alpha Any Assigned Bidi_Control Bidi_C Bidi_Mirrored
Bidi_M Case_Ignorable CI Cased Changes_When_Casefolded CWCF Changes_When_Casemapped CWCM
Changes_When_Lowercased CWL Changes_When_NFKC_Casefolded CWKCF Changes_When_Titlecased CWT
Changes_When_Uppercased CWU Dash Default_Ignorable_Code_Point DI Deprecated Dep Diacritic Dia
Emoji Emoji_Component EComp Emoji_Modifier EMod Emoji_Modifier_Base EBase Emoji_Presentation
EPres Extended_Pictographic ExtPict Extender Ext Grapheme_Base Gr_Base Grapheme_Extend Gr_Ext
Hex_Digit Hex IDS_Binary_Operator IDSB IDS_Trinary_Operator IDST ID_Continue IDC ID_Start IDS
Ideographic Ideo Join_Control Join_C Logical_Order_Exception LOE Lowercase Lower Math
Noncharacter_Code_Point NChar Pattern_Syntax Pat_Syn Pattern_White_Space Pat_WS Quotation_Mark
QMark Radical Regional_Indicator RI Sentence_Terminal STerm Soft_Dotted SD Terminal_Punctuation
Term Unified_Ideograph UIdeo Uppercase Upper Variation_Selector VS White_Space space
XID_Continue XIDC XID_Start XIDS
"""


def test_every_ecma_262_binary_property_is_read() -> None:
    """ECMA-262's table of binary properties, long and short names (node 20 takes exactly
    these); the shipped table holds ranges in order, each inside Unicode."""
    from pytest_structeval.schema.unicode_binary import BINARY
    from pytest_structeval.schema.unicode_properties import _decoded, property_class

    for name in ECMA_262_BINARY_PROPERTIES.split():
        assert property_class(name), name
    for aliases, ranges in BINARY.values():
        decoded = _decoded(ranges)
        assert all(a <= b < c for (a, b), (c, _) in itertools.pairwise(decoded)), aliases
        assert decoded[-1][1] <= 0x10FFFF


def test_an_unsupported_unicode_property_says_what_is_read() -> None:
    from pytest_structeval.schema.tree import ecma_regex

    what = (
        ": general categories (L, Letter, gc=Lu...), Script= and Script_Extensions= values "
        "(sc=Greek, scx=Hira...) and ECMA-262's binary properties (Any, ASCII, Emoji, "
        "Alphabetic, White_Space...) are read"
    )
    assert ecma_regex("^\\p{Alphabetics}$") == (
        None,
        "unsupported Unicode property \\p{Alphabetics} at position 1 (did you mean "
        "\\p{Alphabetic}?)" + what,
    )
    assert ecma_regex("^\\p{RGI_Emoji}$") == (
        None,
        "unsupported Unicode property \\p{RGI_Emoji} at position 1: a property of strings, "
        "which ECMA-262 reads only with the v flag (patterns are read with the u flag, as ajv "
        "reads them); \\p{Emoji}, \\p{Emoji_Presentation} and \\p{Extended_Pictographic} are "
        "properties of single characters",
    )
    assert ecma_regex("a[b\\p{letter}]") == (
        None,
        "unsupported Unicode property \\p{letter} at position 3 (did you mean \\p{Letter}?)" + what,
    )
    assert ecma_regex("\\p{Script=latin}")[1].startswith(
        "unsupported Unicode property \\p{Script=latin} at position 0 (did you mean "
        "\\p{Script=Latin}?)"
    )
    with pytest.warns(SchemaWarning, match="unsupported Unicode property .p.RGI_Emoji. at pos"):
        assert found("x", {"pattern": "^\\p{RGI_Emoji}$"}) == []
    # a class range with a property is an error in ECMA-262 too; later errors keep their place
    assert ecma_regex("[\\p{L}-z]") == (None, "bad escape \\p at position 1")
    assert ecma_regex("\\p{L}\\P{Nd}(") == (
        None,
        "missing ), unterminated subpattern at position 11",
    )


@pytest.mark.parametrize(
    "pattern", ["^\\p{RGI_Emoji}+$", "^[\\P{letter}]$", "^\\k<nowhere>$", "\\c1"]
)
def test_ecma_forms_without_an_exact_python_form_still_warn(pattern: str) -> None:
    with pytest.warns(SchemaWarning, match="it is not checked"):
        assert found("123", {"pattern": pattern}) == []
    assert found(pattern, {"format": "regex"}) == [("answer", "format")]


@pytest.mark.parametrize("terminator", ["\n", "\r", "\u2028", "\u2029"])
def test_dot_matches_no_ecma_262_line_terminator(terminator: str) -> None:
    """Python's `.` only leaves out "\\n": "^.+$" let "a\\rb" through, which ECMA-262's `.`
    does not."""
    assert found(f"a{terminator}b", {"pattern": "^.+$"}) == [("answer", "pattern")]
    assert found(f"a{terminator}b", {"pattern": "^a[.\\s]b$"}) == []  # (a "." in a class)
    assert found("a\x85\u00a0\tb", {"pattern": "^.+$"}) == []


@pytest.mark.parametrize("fmt", ["email", "idn-email"])
@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ('"john doe"@example.com', True),  # RFC 5321's quoted local part
        ('"john \\" doe"@example.com', True),  # with a quoted pair
        ('"a@b c"@example.com', True),
        ('"john doe"@exa mple.com', False),
        ('"john\tdoe"@example.com', False),  # no tab in a quoted string
        ('"john doe@example.com', False),
        ('"jo"hn doe"@example.com', False),
        ("john doe@example.com", False),
        ("john@example.com", True),
    ],
)
def test_email_takes_a_quoted_local_part(fmt: str, value: str, valid: bool) -> None:
    """Any white space was refused, so RFC 5321's `"john doe"@example.com` was not a valid
    email (review validity33 F8)."""
    assert SchemaCheck({"format": fmt}).is_valid(value) is valid


def test_idn_email_quotes_non_ascii_and_email_does_not() -> None:
    assert SchemaCheck({"format": "idn-email"}).is_valid('"jöhn döe"@example.com')
    assert not SchemaCheck({"format": "email"}).is_valid('"jöhn döe"@example.com')


@pytest.mark.parametrize(
    ("fmt", "value"),
    [
        ("uri", "http://x.com:80a/"),  # a port is digits
        ("uri-reference", "http://x.com:80a/"),
        ("uri", "http://user@x@y/"),  # one "@" ends the user information
        ("uri-reference", "//user@x@y/"),
        ("uri", "http://x.com/#a#b"),  # no "#" in a fragment
        ("uri-reference", "#a#b"),
        ("uri-reference", "12:00:00Z"),  # no ":" in a relative reference's first segment
        ("uri-reference", ":b:c/d"),
        ("uri", "http://[::1]x/"),  # nothing between an IP literal and its port or path
        ("uri-reference", "//[::1]x"),
        ("uri", "http://[::1%eth0]/"),  # no zone id (RFC 6874) in RFC 3986
        ("uri", "http://[1::2::3]/"),
        ("uri", "http://x.com/a[1]"),  # brackets only around an IP literal
        ("iri", "http://x.com:80a/"),
        ("iri-reference", "12:00:00Z"),
    ],
)
def test_uris_follow_rfc_3986(fmt: str, value: str) -> None:
    """A character-set check and urlsplit took these (review validity33 F4)."""
    assert not SchemaCheck({"format": fmt}).is_valid(value)


@pytest.mark.parametrize(
    ("fmt", "value"),
    [
        ("uri", "http://x.com:80/a?b=c#d"),
        ("uri", "http://x.com:/"),  # an empty port
        ("uri", "http://u:p@x.com/"),
        ("uri", "http://[::1]:8080/a"),
        ("uri", "http://[v7.fe80::a+b]/"),  # IPvFuture
        ("uri", "urn:isbn:0451450523"),
        ("uri", "mailto:a@b.c"),
        ("uri", "file:///etc/hosts"),
        ("uri", "x:"),
        ("uri", "http://x.com/a?b?c/d#e?f/g"),
        ("uri", "http://x.com/%41%2f;p=1,2!$&'()*+"),
        ("uri-reference", "12%3A00"),
        ("uri-reference", "./12:00:00Z"),  # a ":" after the first segment
        ("uri-reference", "a/b:c"),
        ("uri-reference", "//x.com"),
        ("uri-reference", "/a/b"),
        ("uri-reference", "?q"),
        ("uri-reference", "#f"),
        ("uri-reference", ""),
        ("iri", "http://ƒøø.ßår/?∂éœ=πîx#πîüx"),
        ("iri-reference", "ƒøø/ßår"),
    ],
)
def test_uris_rfc_3986_allows_stay_valid(fmt: str, value: str) -> None:
    assert SchemaCheck({"format": fmt}).is_valid(value)


@pytest.mark.parametrize("draft", [D04, D07, D2020, None])
def test_a_boolean_exclusive_minimum_is_read_as_draft_04_reads_it(draft: str | None) -> None:
    """(README "Differences": python-jsonschema reads `true` as the number 1 after draft-04.)"""
    schema: dict[str, Any] = {"minimum": 5, "exclusiveMinimum": True, "maximum": 9}
    schema |= {"exclusiveMaximum": False} if draft is None else {"$schema": draft}
    assert found(5, schema) == [("answer", "minimum")]
    assert found(1, {**schema, "minimum": 0}) == [] == found(9, schema)


def test_counts_in_messages_agree_with_their_nouns() -> None:
    """ "has 1 items" (review validity33, cosmetic)."""

    def message(value: Any, schema: Any) -> str:
        (violation,) = schema_violations(value, schema)
        return violation.message

    assert message([1], {"minItems": 2}) == "has 1 item, fewer than 2"
    assert message([1, 2], {"maxItems": 1}) == "has 2 items, more than 1"
    assert message("a", {"minLength": 2}) == "has 1 character, fewer than 2"
    assert message({"a": 1}, {"minProperties": 2}) == "has 1 property, fewer than 2"
    assert message({"a": 1, "b": 2}, {"maxProperties": 1}) == "has 2 properties, more than 1"
    contains = {"contains": {"const": 1}, "minContains": 2}
    assert message([1], contains) == "has 1 item matching 'contains', fewer than 2"
    assert message([1, 1], {**contains, "maxContains": 1}) == (
        "has 2 items matching 'contains', more than 1"
    )
    assert message(1, {"anyOf": [{"type": "string"}]}) == (
        "does not match its one anyOf schema (0: is an integer, not string at answer)"
    )


# -- review findings (diff33a) ------------------------------------------------------------------

_LEGACY_NAMED = [
    # (schema, the subschema's location in messages)
    (
        {
            "definitions": {"a": {"id": "#foo", "type": "string"}},
            "properties": {"x": {"$ref": "#foo"}},
        },
        "#/definitions/a",
    ),
    (
        {
            "definitions": {"a": {"id": "http://x.com/a.json", "type": "string"}},
            "properties": {"x": {"$ref": "http://x.com/a.json"}},
        },
        "#/definitions/a",
    ),
    (
        {
            "id": "http://x.com/root.json",
            "definitions": {"a": {"id": "a.json", "type": "string"}},
            "properties": {"x": {"$ref": "a.json"}},
        },
        "#/definitions/a",
    ),
    (  # a pointer into it, and an anchor scoped to it
        {
            "id": "http://x.com/root.json",
            "definitions": {
                "a": {
                    "id": "http://y.com/a.json",
                    "definitions": {"s": {"id": "#s", "type": "string"}},
                }
            },
            "properties": {"x": {"$ref": "http://y.com/a.json#/definitions/s"}},
        },
        "#/definitions/a/definitions/s",
    ),
    (
        {
            "$id": "http://x.com/root.json",
            "$defs": {
                "a": {"id": "http://y.com/a.json", "$defs": {"s": {"id": "#s", "type": "string"}}}
            },
            "properties": {"x": {"$ref": "http://y.com/a.json#s"}},
        },
        "#/$defs/a/$defs/s",
    ),
    (  # inside an embedded resource, whose `$id` it joins to
        {
            "$defs": {
                "b": {
                    "$id": "http://x.com/b.json",
                    "$defs": {"c": {"id": "c.json", "type": "string"}},
                }
            },
            "properties": {"x": {"$ref": "http://x.com/c.json"}},
        },
        "http://x.com/b.json#/$defs/c",
    ),
]


@pytest.mark.parametrize(("schema", "location"), _LEGACY_NAMED)
def test_a_ref_only_a_legacy_id_resolves_names_it_without_schema(
    schema: dict[str, Any], location: str
) -> None:
    """A document without `$schema` reads a subschema's `id` as an annotation (2020-12), and a
    `$ref` that could only mean that `id` raised SchemaError or ExternalReferenceError ("inline
    the referenced schema", which was inline): nothing else can be meant (review diff33a F4)."""
    assert found({"x": "s"}, schema) == []
    (violation,) = schema_violations({"x": 1}, schema)
    assert (violation.path, violation.keyword) == ("answer.x", "type")
    assert violation.schema_path == f"{location}/type"  # where it is, not under the `id`


def test_a_legacy_id_does_not_win_over_what_the_2020_12_reading_resolves() -> None:
    schema = {
        "$defs": {
            "a": {"id": "#foo", "type": "string"},
            "b": {"$anchor": "foo", "type": "integer"},
        },
        "properties": {
            "x": {"$ref": "#foo"},
            # the `id` does not re-base the refs below it either
            "y": {"id": "http://x.com/c.json", "properties": {"z": {"$ref": "#/$defs/b"}}},
        },
    }
    assert found({"x": 1, "y": {"z": 1}}, schema) == []
    assert found({"x": "s", "y": {"z": "s"}}, schema) == [
        ("answer.x", "type"),
        ("answer.y.z", "type"),
    ]


@pytest.mark.parametrize("draft", [D2020, D2019, D07])
def test_a_declared_later_draft_does_not_read_a_legacy_id(draft: str) -> None:
    """... and says which subschema the `id` names, where it said to inline a schema that
    was inline."""
    uri: dict[str, Any] = {
        "$schema": draft,
        "definitions": {"a": {"id": "http://x.com/a.json", "type": "string"}},
        "properties": {"x": {"$ref": "http://x.com/a.json"}},
    }
    with pytest.raises(ExternalReferenceError) as caught:
        found({"x": 1}, uri)
    message = str(caught.value)
    assert "inline" not in message
    assert "the subschema at #/definitions/a names it by its 'id'" in message
    assert message.endswith("name it with '$id'")
    anchor = {**uri, "properties": {"x": {"$ref": "#foo"}}, "definitions": {"a": {"id": "#foo"}}}
    with pytest.raises(
        SchemaError,
        match=r"unknown anchor 'foo' \(the subschema at #/definitions/a declares it by its 'id'",
    ):
        found({"x": 1}, anchor)


def test_a_declared_draft_04_does_not_read_a_dollar_id() -> None:
    schema = {
        "$schema": D04,
        "definitions": {"a": {"$id": "http://x.com/a.json", "type": "string"}},
        "properties": {"x": {"$ref": "http://x.com/a.json"}},
    }
    with pytest.raises(ExternalReferenceError) as caught:
        found({"x": 1}, schema)
    assert str(caught.value).endswith(
        "the subschema at #/definitions/a names it by its '$id', which a draft-04 document "
        "does not read: name it with 'id'"
    )


def test_a_ref_to_a_legacy_id_resolves_in_scoring_mode_too() -> None:
    (schema, _) = _LEGACY_NAMED[2]
    assert resolve_schema_references(schema)["properties"]["x"]["type"] == "string"


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        ("^(?<a$>x)$", ["x"], ["", "a$"]),
        ("^(?<a$>x)\\k<a$>$", ["xx"], ["x", "xa$"]),
        ("^(?<$>x)-\\k<$>$", ["x-x"], ["x-"]),
        ("^(?:(?<a$>x)|y)\\k<a$>$", ["xx", "y"], ["x", "yy"]),
        ("^(?<\\u0061>x)\\k<a>$", ["xx"], ["x"]),  # escapes in a name, as node reads them
        ("^(?<a\\u{62}>x)\\k<ab>$", ["xx"], ["x"]),
        ("^(?<a\u200d>x)\\k<a\u200d>$", ["xx"], ["x"]),
        # a renamed group's Python name is taken from none the pattern uses
        ("^(?<_$1>x)(?<ecma_0>y)\\k<_$1>\\k<ecma_0>$", ["xyxy"], ["xy", "xyyx"]),
        ("^[(?<a$>]+$", ["(?<a$>"], ["x"]),  # (in a class: no group)
    ],
)
def test_a_group_name_python_cannot_take_is_renamed_for_it(
    pattern: str, good: list[str], bad: list[str]
) -> None:
    """ECMA-262 takes `$` (and U+200D, and `\\u` escapes) in a group name, which Python's
    `re` refuses: `(?<a$>x)` left the pattern unchecked, with a warning that quoted the
    translation ('a\\\\Z'). Such a group has a Python name of its own, its `\\k<>` too
    (review diff33a F8)."""
    assert_pattern_reads(pattern, good, bad)


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("^(?<a-$>x)$", "bad character in group name 'a-$' at position 4"),
        ("^(?<1$>x)$", "bad character in group name '1$' at position 4"),
        ("^(?<a$>x)\\k<b$>$", "bad character in group name 'b$' at position 9"),
        (
            "(?<a$>x)|(?<a$>y)",
            "redefinition of group name 'a$' as group 2; was group 1 at position 12",
        ),
    ],
)
def test_a_group_name_error_quotes_the_pattern_as_written(pattern: str, problem: str) -> None:
    from pytest_structeval.schema.tree import ecma_regex

    assert ecma_regex(pattern) == (None, problem)


def test_a_renamed_group_referred_to_before_it_closes_is_empty() -> None:
    """A name Python cannot take (``a$``) is renamed for it, and a backreference before its
    group is empty as in ECMA-262 (the two fixes meet here)."""
    from pytest_structeval.schema.tree import ecma_regex

    compiled, problem = ecma_regex("^\\k<a$>(?<a$>x)\\k<a$>$")
    assert problem == ""
    assert compiled is not None
    assert [bool(compiled.search(text)) for text in ("x", "xx", "xxx")] == [False, True, False]
