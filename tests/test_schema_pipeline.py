"""Schema pipeline: infer, resolve, annotate, parse, validate gold, load files."""

from __future__ import annotations

import copy
import json
import threading
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval.align import AlignSpec
from pytest_structeval.errors import GoldValidationError, SchemaError
from pytest_structeval.registry import Registry
from pytest_structeval.schema.infer import infer_schema
from pytest_structeval.schema.io import load_schema
from pytest_structeval.schema.resolve import ExternalReferenceError, resolve_schema_references
from pytest_structeval.schema.tree import (
    ComparatorSpec,
    SchemaNode,
    SchemaWarning,
    TransformSpec,
    parse_eval_schema,
    parse_xeval_entry,
)
from pytest_structeval.schema.validate import validate_gold
from pytest_structeval.schema.xeval import (
    TypeDefaults,
    annotate_xeval,
    current_type_defaults,
    reset_type_defaults,
    set_type_default,
    type_defaults,
)

DEEP = 2_000


def _same(gold: Any, extracted: Any, params: Mapping[str, Any]) -> float:
    return 1.0 if gold == extracted else 0.0


def _identity(value: Any, params: Mapping[str, Any]) -> Any:
    return value


def _check_numeric(params: dict[str, Any]) -> None:
    tolerance = params.get("tolerance", {})
    if not isinstance(tolerance, dict):
        raise ValueError(f"numeric 'tolerance' must be a mapping, got {tolerance!r}")
    rel = tolerance.get("rel", 0)
    if isinstance(rel, bool) or not isinstance(rel, (int, float)) or rel < 0:
        raise ValueError(f"numeric tolerance 'rel' must be a non-negative number, got {rel!r}")


def _check_round(params: dict[str, Any]) -> None:
    if not isinstance(params.get("digits"), int):
        raise ValueError("round_digits needs an integer 'digits'")


@pytest.fixture
def reg() -> Registry:
    """A registry with test comparators/transforms (independent of the built-ins)."""
    registry = Registry()
    registry.register_comparator("exact", _same)
    registry.register_comparator("numeric", _same, validate=_check_numeric)
    registry.register_comparator("similarity", _same)
    registry.register_transform("lowercase", _identity)
    registry.register_transform("round_digits", _identity, validate=_check_round)
    return registry


@pytest.fixture(autouse=True)
def _no_leaked_type_defaults() -> Iterator[None]:
    yield
    reset_type_defaults()


def nodes(root: SchemaNode) -> Iterator[SchemaNode]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.properties.values())
        if node.items is not None:
            stack.append(node.items)


def by_path(root: SchemaNode) -> dict[str, SchemaNode]:
    return {node.path: node for node in nodes(root)}


def schema_dicts(schema: Any) -> Iterator[dict[str, Any]]:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.get("properties", {}).values())
            if isinstance(node.get("items"), dict):
                stack.append(node["items"])


def deep_schema(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {"type": "object", "properties": {}}
    node = root
    for _ in range(depth):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["n"] = child
        node = child
    node["properties"]["leaf"] = {"type": "string"}
    return root


def deep_value(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth):
        node["n"] = {}
        node = node["n"]
    node["leaf"] = "x"
    return root


def ready(schema: Any, reg: Registry) -> SchemaNode:
    """The whole pipeline: resolve -> annotate -> parse."""
    return parse_eval_schema(annotate_xeval(resolve_schema_references(schema)), registry=reg)


# --------------------------------------------------------------------------- parse


def test_parse_builds_typed_nodes_with_paths(reg: Registry) -> None:
    schema = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "x-eval-compare": "exact"},
            "price": {"type": ["number", "null"], "x-eval-compare": "numeric"},
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"temp": {"type": "integer", "x-eval-compare": "numeric"}},
                },
            },
        },
    }
    root = parse_eval_schema(schema, registry=reg)
    paths = by_path(root)
    assert list(root.properties) == ["name", "price", "steps"]
    assert root.path == ""
    assert root.name is None
    assert root.type == "object"
    assert root.required == frozenset({"name"})
    assert paths["price"].type == "number"
    assert paths["price"].nullable
    assert paths["price"].compare == ComparatorSpec("numeric", {})
    assert paths["steps[]"].name is None
    assert paths["steps[]"].type == "object"
    assert paths["steps[].temp"].name == "temp"
    assert paths["steps[].temp"].is_leaf()
    assert not root.is_leaf()
    assert not root.is_unit()


def test_parse_does_not_mutate_its_input(reg: Registry) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "exact"}}}
    before = copy.deepcopy(schema)
    parse_eval_schema(schema, registry=reg)
    assert schema == before


def test_dotted_property_names_keep_their_name_and_a_quoted_path(reg: Registry) -> None:
    schema = annotate_xeval(
        {
            "type": "object",
            "properties": {
                "a.b": {"type": "object", "properties": {"c": {"type": "string"}}},
                "a": {"type": "object", "properties": {"b": {"type": "string"}}},
            },
        }
    )
    paths = by_path(parse_eval_schema(schema, registry=reg))
    assert paths['["a.b"]'].name == "a.b"
    assert paths['["a.b"].c'].name == "c"
    assert paths["a.b"].name == "b"  # the nested one: distinct path, never confused


@pytest.mark.parametrize(
    ("declared", "kind", "allowed", "nullable"),
    [
        ({"type": "string"}, "string", {"string"}, False),
        ({"type": ["string", "null"]}, "string", {"string"}, True),
        ({"type": ["integer", "number"]}, "number", {"integer", "number"}, False),
        ({"type": ["object", "string"]}, "multi", {"object", "string"}, False),
        ({"type": "null"}, "null", {"null"}, True),
        ({"enum": ["a", 1]}, "multi", {"string", "integer"}, False),
        ({"const": None}, "null", {"null"}, True),
        ({"properties": {}}, "object", {"object"}, False),
        ({"items": {"type": "string", "x-eval-compare": "exact"}}, "array", {"array"}, False),
        ({}, "multi", {"array", "boolean", "integer", "number", "object", "string"}, True),
    ],
)
def test_node_types(
    reg: Registry, declared: dict[str, Any], kind: str, allowed: set[str], nullable: bool
) -> None:
    node = parse_eval_schema({**declared, "x-eval-compare": "similarity"}, registry=reg)
    assert (node.type, set(node.allowed_types), node.nullable) == (kind, allowed, nullable)


def test_multi_type_node_has_no_children(reg: Registry) -> None:
    schema = {
        "type": ["object", "string"],
        "properties": {"a": {"type": "string"}},
        "x-eval-compare": "exact",
    }
    node = parse_eval_schema(schema, registry=reg)
    assert node.type == "multi"
    assert node.is_leaf()
    assert not node.properties


def test_unknown_type_name_is_a_located_error(reg: Registry) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "strin"}}}
    with pytest.raises(SchemaError, match=r"^properties\.a\.type: unknown type 'strin'"):
        parse_eval_schema(schema, registry=reg)


def test_leaf_without_comparator_points_to_annotate(reg: Registry) -> None:
    schema = {"type": "object", "properties": {"p": {"type": "number"}}}
    with pytest.raises(SchemaError, match=r"properties\.p: .*no x-eval-compare.*annotate_xeval"):
        parse_eval_schema(schema, registry=reg)


def test_unresolved_schema_is_rejected_with_a_hint(reg: Registry) -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#/definitions/a"}}}
    with pytest.raises(SchemaError, match=r"properties\.a\.\$ref: .*resolve_schema_references"):
        parse_eval_schema(schema, registry=reg)


def test_skip_works_on_leaves_items_and_root(reg: Registry) -> None:
    schema = {
        "type": "object",
        "properties": {
            "note": {"type": "string", "x-eval-skip": True},
            "tags": {"type": "array", "items": {"type": "string", "x-eval-skip": True}},
            "meta": {
                "type": "object",
                "x-eval-skip": True,
                "properties": {"raw": {"type": "string"}},  # no comparator needed under a skip
            },
        },
    }
    paths = by_path(parse_eval_schema(schema, registry=reg))
    assert paths["note"].skip
    assert paths["note"].compare is None
    assert paths["tags[]"].skip
    assert paths["meta"].skip
    assert paths["meta.raw"].compare is None
    root = parse_eval_schema({"type": "object", "x-eval-skip": True}, registry=reg)
    assert root.skip


def test_skip_must_be_boolean(reg: Registry) -> None:
    schema = {"type": "string", "x-eval-skip": "yes", "x-eval-compare": "exact"}
    with pytest.raises(SchemaError, match=r"^x-eval-skip: must be true or false"):
        parse_eval_schema(schema, registry=reg)


def test_skip_false_without_comparator_parses_after_annotate(reg: Registry) -> None:
    # Reference bug: annotate left `x-eval-skip: false` leaves bare, so parsing failed.
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-skip": False}}}
    node = parse_eval_schema(annotate_xeval(schema), registry=reg)
    assert node.properties["a"].compare == ComparatorSpec("exact", {})
    assert not node.properties["a"].skip


def test_container_comparator_scores_the_container_as_a_unit(reg: Registry) -> None:
    schema = {
        "type": "object",
        "properties": {
            "address": {
                "type": "object",
                "x-eval-compare": "similarity",
                "properties": {"street": {"type": "string"}},  # no comparator needed
            }
        },
    }
    address = parse_eval_schema(schema, registry=reg).properties["address"]
    assert address.is_unit()
    assert not address.is_leaf()
    assert address.compare == ComparatorSpec("similarity", {})
    assert address.properties["street"].compare is None


def test_unknown_xeval_key_warns_with_a_suggestion(reg: Registry) -> None:
    schema = {"type": "string", "x-eval-compare": "exact", "x-eval-comapre": "numeric"}
    with pytest.warns(SchemaWarning, match=r"x-eval-comapre: unknown key.*'x-eval-compare'"):
        parse_eval_schema(schema, registry=reg)


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("exact", ("exact", {})),
        ({"numeric": {"tolerance": {"rel": 0.1}}}, ("numeric", {"tolerance": {"rel": 0.1}})),
        ({"exact": {}}, ("exact", {})),
    ],
)
def test_parse_xeval_entry_two_shapes(entry: Any, expected: tuple[str, dict[str, Any]]) -> None:
    assert parse_xeval_entry(entry) == expected


@pytest.mark.parametrize(
    "entry", ["", 3, ["exact"], {"a": {}, "b": {}}, {"numeric": 0.1}, {"numeric": None}, {1: {}}]
)
def test_parse_xeval_entry_rejects_other_shapes(entry: Any) -> None:
    with pytest.raises(SchemaError, match=r"^here: expected a name or a one-key mapping"):
        parse_xeval_entry(entry, where="here")


def test_unknown_comparator_is_a_parse_error(reg: Registry) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "fuzzy"}}}
    with pytest.raises(SchemaError, match=r"^properties\.a\.x-eval-compare: unknown comparator"):
        parse_eval_schema(schema, registry=reg)


def test_comparator_params_are_validated_at_parse_time(reg: Registry) -> None:
    bad = {"numeric": {"tolerance": {"rel": -1}}}
    schema = {"type": "object", "properties": {"price": {"type": "number", "x-eval-compare": bad}}}
    with pytest.raises(SchemaError) as caught:
        parse_eval_schema(schema, registry=reg)
    assert str(caught.value) == (
        "properties.price.x-eval-compare: numeric tolerance 'rel' must be a non-negative "
        "number, got -1"
    )


def test_transforms_are_parsed_and_validated(reg: Registry) -> None:
    schema = {
        "type": "string",
        "x-eval-compare": "exact",
        "x-eval-transform": ["lowercase", {"round_digits": {"digits": 2}}],
    }
    node = parse_eval_schema(schema, registry=reg)
    assert node.transforms == (
        TransformSpec("lowercase", {}),
        TransformSpec("round_digits", {"digits": 2}),
    )
    schema["x-eval-transform"] = ["lowercase", "round_digits"]
    with pytest.raises(SchemaError, match=r"^x-eval-transform\[1\]: round_digits needs"):
        parse_eval_schema(schema, registry=reg)
    schema["x-eval-transform"] = ["upper"]
    with pytest.raises(SchemaError, match=r"^x-eval-transform\[0\]: unknown transform 'upper'"):
        parse_eval_schema(schema, registry=reg)
    schema["x-eval-transform"] = "lowercase"
    with pytest.raises(SchemaError, match=r"^x-eval-transform: must be a list"):
        parse_eval_schema(schema, registry=reg)


def test_comparator_choice_warnings(reg: Registry) -> None:
    with pytest.warns(SchemaWarning, match="'numeric' on a string field"):
        parse_eval_schema({"type": "string", "x-eval-compare": "numeric"}, registry=reg)
    with pytest.warns(SchemaWarning, match="'exact' on a number field"):
        parse_eval_schema({"type": "number", "x-eval-compare": "exact"}, registry=reg)


def _array(align: Any, items: dict[str, Any] | None = None) -> dict[str, Any]:
    item = items or {
        "type": "object",
        "properties": {"id": {"type": "string"}, "v": {"type": "number"}},
    }
    return annotate_xeval({"type": "array", "items": item, "x-eval-align": align})


@pytest.mark.parametrize(
    ("align", "expected"),
    [
        ({"ordered": True}, AlignSpec("ordered")),
        ({"match_by": "key_field", "key": "id"}, AlignSpec("key", "id")),
        ({"match_by": "hungarian"}, AlignSpec("hungarian")),
        ({"match_by": "hungarian", "min_similarity": 0.5}, AlignSpec("hungarian", None, 0.5)),
        ("unordered", AlignSpec("unordered")),
    ],
)
def test_align_accepts_reference_forms(reg: Registry, align: Any, expected: AlignSpec) -> None:
    assert parse_eval_schema(_array(align), registry=reg).align == expected


@pytest.mark.parametrize(
    ("align", "message"),
    [
        ({"ordered": "yes"}, "'ordered' must be true or false"),
        ({"ordered": False}, "does not say how to pair"),
        ({"match_by": "fuzzy"}, "unknown align method"),
        ({"match_by": "key_field"}, "needs a non-empty field name"),
        ({"match_by": "hungarian", "min_similarity": 2}, "min_similarity"),
        ({"ordered": True, "match_by": "hungarian"}, "contradicts"),
    ],
)
def test_bad_align_is_a_located_error(reg: Registry, align: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=r"^x-eval-align: .*" + message):
        parse_eval_schema(_array(align), registry=reg)


def test_align_needs_an_array_and_key_alignment_object_items(reg: Registry) -> None:
    schema = {"type": "string", "x-eval-compare": "exact", "x-eval-align": {"ordered": True}}
    with pytest.raises(SchemaError, match="only arrays can be aligned, this field is string"):
        parse_eval_schema(schema, registry=reg)
    strings = _array({"match_by": "key_field", "key": "id"}, items={"type": "string"})
    with pytest.raises(SchemaError, match="key alignment needs object items, got string items"):
        parse_eval_schema(strings, registry=reg)
    with pytest.warns(SchemaWarning, match="key 'sku' is not a property of the items"):
        parse_eval_schema(_array({"match_by": "key_field", "key": "sku"}), registry=reg)


def test_deep_schema_parses_without_recursion_error(reg: Registry) -> None:
    root = parse_eval_schema(annotate_xeval(deep_schema(DEEP)), registry=reg)
    depth = 0
    node = root
    while "n" in node.properties:
        node, depth = node.properties["n"], depth + 1
    assert depth == DEEP
    assert node.properties["leaf"].path == ".".join(["n"] * DEEP + ["leaf"])
    assert repr(root) == "SchemaNode(path='', type='object')"  # shallow, never recursive
    assert {root: 1}[root] == 1  # identity-hashed


# --------------------------------------------------------------------------- annotate


def test_annotate_fills_leaf_defaults_in_place(reg: Registry) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "n": {"type": "number"},
            "i": {"type": ["integer", "null"]},
            "b": {"type": "boolean"},
            "m": {"type": ["string", "integer"]},
            "o": {"type": "object"},
            "kept": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 1}}}},
            "skipped": {"type": "string", "x-eval-skip": True},
            "list": {"type": "array", "items": True},
        },
    }
    result = annotate_xeval(schema)
    assert result is schema
    props = schema["properties"]
    assert "x-eval-compare" not in schema
    assert [props[k]["x-eval-compare"] for k in ("s", "n", "i", "b", "m", "o")] == [
        "exact",
        "numeric",
        "numeric",
        "exact",
        "exact",
        "exact",
    ]
    assert props["kept"]["x-eval-compare"] == {"numeric": {"tolerance": {"rel": 1}}}
    assert "x-eval-compare" not in props["skipped"]
    assert props["list"]["items"] == {"x-eval-compare": "exact"}
    parse_eval_schema(schema, registry=reg)


def test_annotate_rejects_an_unresolved_schema_without_touching_it() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"$ref": "#/definitions/b"}},
    }
    before = copy.deepcopy(schema)
    with pytest.raises(SchemaError, match="resolve_schema_references"):
        annotate_xeval(schema)
    assert schema == before


def test_annotate_with_explicit_defaults() -> None:
    defaults = TypeDefaults({"string": {"similarity": {"min": 0.8}}})
    schema: dict[str, Any] = annotate_xeval({"type": "string"}, defaults=defaults)
    assert schema["x-eval-compare"] == {"similarity": {"min": 0.8}}
    assert annotate_xeval({"type": "string"})["x-eval-compare"] == "exact"  # context untouched


def test_type_defaults_context_is_scoped() -> None:
    with type_defaults({"boolean": "similarity"}) as scoped:
        assert current_type_defaults() is scoped
        set_type_default("string", {"similarity": {"min": 0.5}})
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"s": {"type": "string"}, "b": {"type": "boolean"}},
        }
        annotate_xeval(schema)
        assert schema["properties"]["s"]["x-eval-compare"] == {"similarity": {"min": 0.5}}
        assert schema["properties"]["b"]["x-eval-compare"] == "similarity"
        reset_type_defaults()
        assert annotate_xeval({"type": "boolean"})["x-eval-compare"] == "exact"
    assert annotate_xeval({"type": "string"})["x-eval-compare"] == "exact"


def test_set_type_default_outside_a_context_is_process_wide_until_reset() -> None:
    set_type_default("string", "similarity")
    seen: list[Any] = []
    thread = threading.Thread(target=lambda: seen.append(annotate_xeval({"type": "string"})))
    thread.start()
    thread.join()
    assert seen[0]["x-eval-compare"] == "similarity"
    reset_type_defaults()
    assert annotate_xeval({"type": "string"})["x-eval-compare"] == "exact"


def test_context_defaults_do_not_leak_into_other_threads() -> None:
    seen: list[Any] = []
    with type_defaults({"string": "similarity"}):
        thread = threading.Thread(target=lambda: seen.append(annotate_xeval({"type": "string"})))
        thread.start()
        thread.join()
    assert seen[0]["x-eval-compare"] == "exact"


@pytest.mark.parametrize(
    ("json_type", "comparator", "message"),
    [
        ("str", "exact", "unknown type 'str'"),
        ("string", ["exact"], "expected a name or a one-key mapping"),
        ("string", {"numeric": 0.1}, "expected a name or a one-key mapping"),
    ],
)
def test_set_type_default_checks_its_arguments(
    json_type: str, comparator: Any, message: str
) -> None:
    with pytest.raises(SchemaError, match=message):
        set_type_default(json_type, comparator)


def test_annotate_deep_schema() -> None:
    schema = annotate_xeval(deep_schema(DEEP))
    leaves = [d for d in schema_dicts(schema) if "x-eval-compare" in d]
    assert len(leaves) == 1
    assert leaves[0]["type"] == "string"


# --------------------------------------------------------------------------- resolve


def test_refs_to_definitions_and_defs_are_inlined() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/A"}, "b": {"$ref": "#/$defs/B"}},
        "definitions": {"A": {"type": "string"}},
        "$defs": {"B": {"type": "integer"}},
    }
    assert resolve_schema_references(schema) == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
    }


def test_pointer_escapes_percent_encoding_and_anchors() -> None:
    schema = {
        "type": "object",
        "properties": {
            "slash": {"$ref": "#/definitions/a~1b"},
            "tilde": {"$ref": "#/definitions/c~0d"},
            "space": {"$ref": "#/definitions/with%20space"},
            "anchor": {"$ref": "#named"},
            "old_anchor": {"$ref": "#old"},
            "other": {"$ref": "#/properties/slash"},
            "indexed": {"$ref": "#/definitions/list/1"},
        },
        "definitions": {
            "a/b": {"type": "string"},
            "c~d": {"type": "integer"},
            "with space": {"type": "boolean"},
            "n": {"$anchor": "named", "type": "number"},
            "o": {"$id": "#old", "type": "null"},
            "list": [{"type": "string"}, {"type": "array"}],
        },
    }
    props = resolve_schema_references(schema)["properties"]
    assert {k: v["type"] for k, v in props.items()} == {
        "slash": "string",
        "tilde": "integer",
        "space": "boolean",
        "anchor": "number",
        "old_anchor": "null",
        "other": "string",
        "indexed": "array",
    }


def test_ref_siblings_are_kept_and_win_over_the_target() -> None:
    schema = {
        "type": "object",
        "properties": {
            "price": {
                "$ref": "#/definitions/money",
                "description": "unit price",
                "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}},
            }
        },
        "definitions": {"money": {"type": "number", "description": "an amount", "minimum": 0}},
    }
    price = resolve_schema_references(schema)["properties"]["price"]
    assert price == {
        "type": "number",
        "description": "unit price",
        "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}},
        "minimum": 0,
    }


def test_all_of_unions_every_required_list_and_merges_properties_deeply() -> None:
    schema = {
        "allOf": [
            {"$ref": "#/definitions/base"},
            {
                "type": "object",
                "required": ["b"],
                "properties": {"b": {"type": "string"}, "nested": {"properties": {"y": {}}}},
            },
        ],
        "required": ["c"],
        "properties": {"c": {"type": "boolean"}},
        "definitions": {
            "base": {
                "type": "object",
                "required": ["a"],
                "properties": {
                    "a": {"type": "integer"},
                    "nested": {"type": "object", "properties": {"x": {"type": "string"}}},
                },
            }
        },
    }
    out = resolve_schema_references(schema)
    assert out["type"] == "object"
    assert out["required"] == ["c", "a", "b"]
    assert list(out["properties"]) == ["c", "a", "nested", "b"]
    assert out["properties"]["nested"] == {
        "type": "object",
        "properties": {"x": {"type": "string"}, "y": {}},
    }


def test_all_of_intersects_types() -> None:
    schema = {"allOf": [{"type": ["integer", "string", "null"]}, {"type": ["number", "null"]}]}
    assert resolve_schema_references(schema) == {"type": ["integer", "null"]}


@pytest.mark.parametrize("union", ["anyOf", "oneOf"])
def test_nullable_unions_are_reduced(union: str) -> None:
    schema = {
        "type": "object",
        "properties": {
            "item": {
                union: [{"$ref": "#/$defs/Item"}, {"type": "null"}],
                "default": None,
                "title": "Item",
            }
        },
        "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "string"}}}},
    }
    item = resolve_schema_references(schema)["properties"]["item"]
    assert item == {
        "type": ["null", "object"],
        "default": None,
        "title": "Item",
        "properties": {"n": {"type": "string"}},
    }


def test_multi_shape_union_becomes_a_multi_type_unit(reg: Registry) -> None:
    schema = {
        "anyOf": [
            {"type": "string"},
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "null"},
        ]
    }
    out = resolve_schema_references(schema)
    assert out == {"type": ["null", "object", "string"]}
    node = parse_eval_schema(annotate_xeval(out), registry=reg)
    assert node.type == "multi"
    assert node.nullable
    assert node.is_unit()


def test_same_type_object_union_merges_shapes() -> None:
    schema = {
        "oneOf": [
            {
                "type": "object",
                "required": ["kind", "r"],
                "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
            },
            {
                "type": "object",
                "required": ["kind", "w"],
                "properties": {"kind": {"const": "square"}, "w": {"type": "number"}},
            },
        ]
    }
    out = resolve_schema_references(schema)
    assert out["type"] == "object"
    assert list(out["properties"]) == ["kind", "r", "w"]
    assert out["required"] == ["kind"]  # only what every branch requires
    assert out["properties"]["kind"]["type"] == "string"


def test_integer_and_number_union_is_number() -> None:
    assert resolve_schema_references({"anyOf": [{"type": "integer"}, {"type": "number"}]}) == {
        "type": "number"
    }


def test_union_with_an_unconstrained_branch_is_unconstrained() -> None:
    assert resolve_schema_references({"anyOf": [{"type": "string"}, {}]}) == {}


def test_missing_types_are_inferred() -> None:
    schema = {
        "properties": {
            "e": {"enum": ["a", "b"]},
            "mixed": {"enum": ["a", 1, None]},
            "c": {"const": 3.5},
            "arr": {"items": {"type": "string"}},
            "free": {"description": "anything"},
        }
    }
    out = resolve_schema_references(schema)
    props = out["properties"]
    assert out["type"] == "object"
    assert props["e"]["type"] == "string"
    assert props["mixed"]["type"] == ["integer", "null", "string"]
    assert props["c"]["type"] == "number"
    assert props["arr"]["type"] == "array"
    assert "type" not in props["free"]


def test_tuple_items_become_one_union_item_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "old": {"type": "array", "items": [{"type": "object", "properties": {"a": {}}}]},
        },
    }
    props = resolve_schema_references(schema)["properties"]
    assert props["pair"] == {"type": "array", "items": {"type": ["integer", "string"]}}
    assert props["old"] == {"type": "array", "items": {"type": "object", "properties": {"a": {}}}}


def test_open_objects_are_marked_and_closed_ones_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "map": {"type": "object", "additionalProperties": {"type": "integer"}},
            "pattern": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
            "closed": {"type": "object", "additionalProperties": False, "properties": {"a": {}}},
            "gone": False,
        },
    }
    props = resolve_schema_references(schema)["properties"]
    # A schema for the values is kept (map-like objects are scored key by key).
    assert props["map"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["pattern"] == {
        "type": "object",
        "patternProperties": {"^x-": {"type": "string"}},
    }
    assert props["closed"]["additionalProperties"] is False
    assert "gone" not in props


def test_conditional_outcomes_add_optional_fields_and_not_is_ignored() -> None:
    schema = {
        "type": "object",
        "properties": {"kind": {"type": "string"}},
        "if": {"properties": {"kind": {"const": "a"}}},
        "then": {"properties": {"a_only": {"type": "integer"}}, "required": ["a_only"]},
        "else": {"properties": {"b_only": {"type": "string"}}},
        "not": {"required": ["forbidden"]},
    }
    out = resolve_schema_references(schema)
    assert list(out["properties"]) == ["kind", "a_only", "b_only"]
    assert "required" not in out  # neither outcome's fields are required


def test_enum_data_and_property_names_are_not_mistaken_for_refs() -> None:
    schema = {
        "type": "object",
        "properties": {"$ref": {"type": "string"}, "e": {"enum": [{"$ref": "elsewhere.json"}]}},
    }
    out = resolve_schema_references(schema)
    assert out["properties"]["$ref"] == {"type": "string"}
    assert out["properties"]["e"]["enum"] == [{"$ref": "elsewhere.json"}]


def test_resolve_does_not_touch_its_input_or_share_data() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/A"}, "b": {"$ref": "#/definitions/A"}},
        "definitions": {"A": {"type": "string", "enum": ["x", "y"]}},
    }
    before = copy.deepcopy(schema)
    out = resolve_schema_references(schema)
    out["properties"]["a"]["enum"].append("z")
    assert schema == before
    assert out["properties"]["b"]["enum"] == ["x", "y"]


def test_resolve_logs_and_warns_nothing(caplog: pytest.LogCaptureFixture) -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"a": {}}}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        resolve_schema_references(schema)
    assert caplog.records == []


def _tree_schema() -> dict[str, Any]:
    return {
        "$ref": "#/definitions/node",
        "definitions": {
            "node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/definitions/node"}},
                },
            }
        },
    }


def _children_depth(schema: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    depth, node = 0, schema
    while "properties" in node:
        node, depth = node["properties"]["children"]["items"], depth + 1
    return depth, node


@pytest.mark.parametrize("max_recursion", [0, 1, 3])
def test_self_recursive_definition_is_cut_into_an_opaque_unit(
    reg: Registry, max_recursion: int
) -> None:
    out = resolve_schema_references(_tree_schema(), max_recursion=max_recursion)
    depth, cut = _children_depth(out)
    assert depth == max_recursion + 1
    assert cut["type"] == "object"
    assert "properties" not in cut
    assert "recursion deeper than max_recursion" in cut["$comment"]
    parse_eval_schema(annotate_xeval(out), registry=reg)


def test_root_ref_recursion_terminates(reg: Registry) -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "sub": {"$ref": "#"},
            "list": {"items": {"$ref": "#"}},
        },
    }
    out = resolve_schema_references(schema)
    assert out["properties"]["sub"]["properties"]["sub"] == {
        "type": "object",
        "$comment": "$ref '#' not expanded (recursion deeper than max_recursion=1); "
        "scored as one value",
    }
    ready(schema, reg)


def test_root_that_is_only_a_ref_to_itself_terminates() -> None:
    assert resolve_schema_references({"$ref": "#"})["$comment"].startswith("$ref '#'")
    cycle = {
        "$ref": "#/definitions/a",
        "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}},
    }
    assert "not expanded" in resolve_schema_references(cycle)["$comment"]


def test_mutual_recursion_and_node_budget_stay_bounded(reg: Registry) -> None:
    names = [f"d{i}" for i in range(6)]
    definitions = {
        n: {"type": "object", "properties": {m: {"$ref": f"#/definitions/{m}"} for m in names}}
        for n in names
    }
    schema = {"$ref": "#/definitions/d0", "definitions": definitions}
    out = resolve_schema_references(schema, max_nodes=500)
    count = sum(1 for _ in schema_dicts(out))
    assert 500 <= count < 500 * 7  # budget reached, then only what was already queued
    assert any("node budget max_nodes=500" in d.get("$comment", "") for d in schema_dicts(out))
    parse_eval_schema(annotate_xeval(out), registry=reg)


def test_long_ref_chains_and_deep_nesting_resolve_without_recursion_error(reg: Registry) -> None:
    definitions = {
        f"d{i}": {"type": "object", "properties": {"next": {"$ref": f"#/definitions/d{i + 1}"}}}
        for i in range(DEEP)
    }
    definitions[f"d{DEEP}"] = {"type": "string"}
    out = resolve_schema_references(
        {"$ref": "#/definitions/d0", "definitions": definitions}, max_nodes=10 * DEEP
    )
    assert sum(1 for _ in schema_dicts(out)) == DEEP + 1
    deep = resolve_schema_references(deep_schema(DEEP))
    assert sum(1 for _ in schema_dicts(deep)) == DEEP + 2
    assert [d for d in schema_dicts(deep) if d["type"] == "string"] == [{"type": "string"}]
    ready(deep_schema(DEEP), reg)


def test_deeply_nested_arrays_resolve_in_linear_time(reg: Registry) -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(DEEP):
        schema = {"type": "array", "items": schema, "$id": "#x"}  # ids make the index walk all
    out = resolve_schema_references(schema)
    depth = 0
    while "items" in out:
        out, depth = out["items"], depth + 1
    assert (depth, out) == (DEEP, {"type": "string"})
    ready(schema, reg)


def test_union_nesting_is_bounded_by_a_schema_error() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(200):
        schema = {"anyOf": [schema, {"type": "null"}]}
    with pytest.raises(SchemaError, match="anyOf/oneOf nested deeper than 64"):
        resolve_schema_references(schema)


def _random_schema(refs: list[str]) -> st.SearchStrategy[Any]:
    leaf = st.sampled_from(
        [{"type": t} for t in ("string", "number", "integer", "boolean", "null")]
        + [{"type": ["string", "null"]}, {"enum": ["a", 1]}, {}, True]
        + [{"$ref": r} for r in refs]
    )
    names = st.sampled_from(["a", "b", "c.d", "$ref"])

    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.builds(lambda p: {"type": "object", "properties": p}, st.dictionaries(names, inner)),
            st.builds(lambda i: {"type": "array", "items": i}, inner),
            st.builds(lambda b: {"anyOf": b}, st.lists(inner, min_size=1, max_size=3)),
            st.builds(lambda b: {"oneOf": b}, st.lists(inner, min_size=1, max_size=3)),
            st.builds(lambda b: {"allOf": b}, st.lists(inner, min_size=1, max_size=3)),
            st.builds(lambda s, t: {**s, "then": t} if isinstance(s, dict) else t, inner, inner),
        )

    return st.recursive(leaf, extend, max_leaves=12)


REFS = ["#", "#/definitions/d0", "#/definitions/d1", "#/$defs/e"]


@settings(max_examples=120, deadline=None)
@given(
    root=_random_schema(REFS),
    d0=_random_schema(REFS),
    d1=_random_schema(REFS),
    e=_random_schema(REFS),
)
def test_random_schemas_resolve_to_stable_parseable_schemas(
    root: Any, d0: Any, d1: Any, e: Any
) -> None:
    registry = Registry()
    registry.register_comparator("exact", _same)
    registry.register_comparator("numeric", _same)
    schema = {"definitions": {"d0": d0, "d1": d1}, "$defs": {"e": e}}
    schema.update(root if isinstance(root, dict) else {})
    before = copy.deepcopy(schema)
    out = resolve_schema_references(schema, max_nodes=300)
    assert schema == before
    assert resolve_schema_references(out) == out  # already plain: a fixed point
    parse_eval_schema(annotate_xeval(out), registry=registry)


@pytest.mark.parametrize(
    "ref",
    [
        "http://json-schema.org/draft-04/schema#/definitions/positiveInteger",
        "other.json#/definitions/a",
        "other.json",
    ],
)
def test_external_refs_are_a_clear_error(ref: str) -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
    with pytest.raises(ExternalReferenceError, match=r"properties\.a\.\$ref: external reference"):
        resolve_schema_references(schema)
    assert issubclass(ExternalReferenceError, SchemaError)


def test_refs_to_the_documents_own_id_are_internal() -> None:
    schema = {
        "id": "http://example.com/root.json#",
        "type": "object",
        "properties": {
            "a": {"$ref": "http://example.com/root.json#/definitions/A"},
            "b": {"$ref": "item.json"},
        },
        "definitions": {"A": {"type": "string"}, "B": {"$id": "item.json", "type": "integer"}},
    }
    props = resolve_schema_references(schema)["properties"]
    assert props == {"a": {"type": "string"}, "b": {"type": "integer"}}


@pytest.mark.parametrize(
    ("ref", "message"),
    [("#/definitions/missing", "points to nothing"), ("#nowhere", "unknown anchor 'nowhere'")],
)
def test_dangling_refs_are_located_errors(ref: str, message: str) -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": ref}}, "definitions": {}}
    with pytest.raises(SchemaError, match=r"^properties\.a\.\$ref: .*" + message):
        resolve_schema_references(schema)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"properties": {"a": 3}}, r"^properties\.a: a schema must be an object"),
        ({"allOf": {"type": "string"}}, r"^allOf: must be a list"),
        ({"type": "strng"}, r"^type: unknown type"),
        ({"$ref": 7}, r"^\$ref: must be a string"),
        # the key written, not "$ref" (review38)
        ({"properties": {"a": {"$dynamicRef": 7}}}, r"^properties\.a\.\$dynamicRef: must be"),
        ({"$recursiveRef": "#/nowhere"}, r"^\$recursiveRef: reference '#/nowhere' points to"),
    ],
)
def test_malformed_schemas_are_located_errors(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        resolve_schema_references(schema)


def test_resolved_output_is_plain() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"allOf": [{"$ref": "#/$defs/A"}], "x-eval-skip": True},
            "b": {"oneOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]},
        },
        "$defs": {"A": {"type": "object", "properties": {"z": {"anyOf": [{"type": "string"}]}}}},
    }
    text = json.dumps(resolve_schema_references(schema))
    for keyword in ("$ref", "allOf", "anyOf", "oneOf", "$defs"):
        assert keyword not in text
    assert '"x-eval-skip": true' in text


# --------------------------------------------------------------------------- infer


def test_infer_types_required_and_order() -> None:
    gold = [
        {"name": "a", "qty": 1, "price": 2.5, "ok": True, "note": None, "tags": ["x"]},
        {"qty": 2.0, "name": "b", "price": 3, "ok": False, "note": "n", "tags": []},
    ]
    assert infer_schema(gold) == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "qty": {"type": "number"},
            "price": {"type": "number"},
            "ok": {"type": "boolean"},
            "note": {"type": ["null", "string"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["name", "qty", "price", "ok", "note", "tags"],
    }


def test_infer_mixed_optional_and_pooled_arrays() -> None:
    gold = [
        {"v": "x", "steps": [{"t": 1}, {"t": 2, "u": "c"}], "empty": []},
        {"v": ["y"], "steps": [{"t": 3}]},
    ]
    out = infer_schema(gold)
    props = out["properties"]
    assert out["required"] == ["v", "steps"]
    assert props["v"] == {"type": ["array", "string"]}  # several shapes: a unit, no items
    assert props["steps"]["items"] == {
        "type": "object",
        "properties": {"t": {"type": "integer"}, "u": {"type": "string"}},
        "required": ["t"],
    }
    assert props["empty"] == {"type": "array", "items": {}}  # elements of any shape


def test_a_model_element_against_an_empty_gold_array_is_a_hallucination() -> None:
    from pytest_structeval import score

    result = score({"a": []}, {"a": [1]}, mode="schema")  # the inferred schema
    assert [(f.path, f.status) for f in result.fields] == [("answer.a[-1]", "hallucination")]
    assert score({"a": []}, {"a": []}, mode="schema").passed


def test_infer_edge_cases() -> None:
    assert infer_schema([None, None]) == {"type": "null"}
    assert infer_schema([{1: "a"}]) == {
        "type": "object",
        "properties": {"1": {"type": "string"}},
        "required": ["1"],
    }
    with pytest.raises(SchemaError, match="at least one instance"):
        infer_schema([])
    with pytest.raises(SchemaError, match="needs a list of instances"):
        infer_schema({"a": 1})  # type: ignore[arg-type]


def test_infer_deep_instance(reg: Registry) -> None:
    schema = infer_schema([deep_value(DEEP)])
    root = parse_eval_schema(annotate_xeval(schema), registry=reg)
    assert sum(1 for _ in nodes(root)) == DEEP + 2


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c.d", "e"]), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(["a", "b", "c.d"]), JSON_VALUES), min_size=1, max_size=4
    )
)
def test_inferred_schema_always_validates_its_own_gold(records: list[dict[str, Any]]) -> None:
    registry = Registry()
    registry.register_comparator("exact", _same)
    registry.register_comparator("numeric", _same)
    schema = annotate_xeval(infer_schema(records))
    assert (
        validate_gold(records, schema, strict_types=True, warn_missing=False, registry=registry)
        == []
    )


# --------------------------------------------------------------------------- validate


ITEMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "qty": {"type": "integer"},
        "price": {"type": "number"},
        "flag": {"type": "boolean"},
        "either": {"type": ["string", "integer"]},
        "steps": {
            "type": "array",
            "items": {"type": "object", "properties": {"t": {"type": "number"}, "u": {}}},
        },
        "raw": {"type": "object", "x-eval-skip": True, "properties": {"k": {"type": "string"}}},
        "blob": {"type": "object", "x-eval-compare": "exact", "properties": {"k": {}}},
        "open": {"type": "object", "additionalProperties": True, "properties": {"k": {}}},
    },
}


def full_record(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": "r1",
        "name": "a",
        "qty": 1,
        "price": 2,
        "flag": True,
        "either": 3,
        "steps": [{"t": 1.5, "u": None}],
        "raw": {"anything": 1},
        "blob": {"other": 1},
        "open": {"k": 1, "extra": 2},
    }
    record.update(changes)
    return record


def check(records: list[Any], reg: Registry, **options: Any) -> list[str]:
    schema = annotate_xeval(copy.deepcopy(ITEMS_SCHEMA))
    return validate_gold(records, schema, registry=reg, **options)


def test_valid_gold_gives_no_warnings(reg: Registry) -> None:
    assert check([full_record()], reg, id_field="id") == []
    assert check([full_record(qty=2.0, price=None)], reg, id_field="id", strict_types=True) == []


def test_skipped_and_unit_nodes_are_not_looked_into(reg: Registry) -> None:
    # Reference bug: an extra key inside an x-eval-skip object was an error.
    records = [full_record(raw={"x": {"y": 1}}, blob={"z": 1})]
    assert check(records, reg, id_field="id", strict_types=True) == []


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([full_record(id=None)], r"gold\[0\]: id field 'id' must be a string or an integer"),
        ([full_record(id=True)], "must be a string or an integer, got True"),
        ([full_record(id=1.5)], "must be a string or an integer, got 1.5"),
        ([{"name": "a"}], r"gold\[0\]: id field 'id' is missing"),
        (["text"], r"gold\[0\]: not an object, cannot read id field 'id'"),
        ([full_record(), full_record()], r"gold\[1\]: id 'r1' already used by gold\[0\]"),
        ([full_record(extra=1)], r"gold\[0\] \(id 'r1'\): extra: key is not in the schema"),
        (
            [full_record(steps=[{"t": 1}, {"t": 2, "v": 3}])],
            r"steps\[1\]\.v: key is not in the schema",
        ),
    ],
)
def test_gold_errors(reg: Registry, records: list[Any], message: str) -> None:
    with pytest.raises(GoldValidationError, match=message):
        check(records, reg, id_field="id")


def test_id_field_is_only_exempt_when_given(reg: Registry) -> None:
    with pytest.raises(GoldValidationError, match=r"gold\[0\]: id: key is not in the schema"):
        check([full_record()], reg)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"qty": True}, "qty: expected integer, got boolean True"),
        ({"qty": 1.5}, "qty: expected integer, got number 1.5"),
        ({"name": 5}, "name: expected string, got integer 5"),
        ({"either": 1.5}, "either: expected integer or string, got number 1.5"),
        ({"steps": {"t": 1}}, "steps: expected array, got object"),
        ({"flag": {1, 2}}, "flag: expected boolean, got non-JSON set"),
    ],
)
def test_type_problems_warn_leniently_and_fail_strictly(
    reg: Registry, change: dict[str, Any], message: str
) -> None:
    records = [full_record(**change)]
    found = check(records, reg, id_field="id")
    assert len(found) == 1
    assert message in found[0]
    with pytest.raises(GoldValidationError, match=message.split(":")[0]):
        check(records, reg, id_field="id", strict_types=True)


def test_missing_fields_warn_once_per_record_and_field(reg: Registry) -> None:
    record = full_record(steps=[{"t": 1}, {"t": 2}, {"u": 3}])
    del record["name"]
    found = check([record], reg, id_field="id")
    assert found == [
        "gold[0] (id 'r1'): name: missing from the gold record",
        "gold[0] (id 'r1'): steps[0].u: missing from the gold record",
        "gold[0] (id 'r1'): steps[2].t: missing from the gold record",
    ]
    assert check([record], reg, id_field="id", warn_missing=False) == []


def test_validate_gold_checks_its_inputs(reg: Registry) -> None:
    with pytest.raises(GoldValidationError, match="gold must be a list of records"):
        check({"a": 1}, reg)  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="no x-eval-compare"):
        validate_gold(
            [{}], {"type": "object", "properties": {"a": {"type": "string"}}}, registry=reg
        )


def test_validate_gold_accepts_parsed_nodes_and_files(reg: Registry, tmp_path: Path) -> None:
    schema = annotate_xeval(copy.deepcopy(ITEMS_SCHEMA))
    (tmp_path / "items.json").write_text(json.dumps(schema), encoding="utf-8")
    record = full_record(qty="many")
    expected = ["gold[0] (id 'r1'): qty: expected integer, got string 'many'"]
    assert (
        validate_gold([record], parse_eval_schema(schema, registry=reg), id_field="id") == expected
    )
    assert validate_gold([record], tmp_path / "items.json", id_field="id", registry=reg) == expected


def test_validate_deep_gold(reg: Registry) -> None:
    schema = annotate_xeval(deep_schema(DEEP))
    assert validate_gold([deep_value(DEEP)], schema, strict_types=True, registry=reg) == []


# --------------------------------------------------------------------------- io


def test_load_json_yaml_and_wrapper_files(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-skip": True}}}
    (tmp_path / "s.json").write_text(json.dumps(schema), encoding="utf-8")
    (tmp_path / "s.yaml").write_text(
        "type: object\nproperties:\n  a:\n    type: string\n    x-eval-skip: true\n",
        encoding="utf-8",
    )
    (tmp_path / "s.yml").write_text(json.dumps(schema), encoding="utf-8")  # JSON is YAML
    wrapper = {"description": "d", "meta": {}, "schema": schema, "tests": []}
    (tmp_path / "w.json").write_text(json.dumps(wrapper), encoding="utf-8")
    for name in ("s.json", "s.yaml", "s.yml", "w.json"):
        assert load_schema(tmp_path / name) == schema
    assert load_schema(str(tmp_path / "s.json")) == schema
    assert load_schema(wrapper) is schema
    assert load_schema(schema) is schema


def test_a_number_past_the_float_range_reads_alike_in_json_and_yaml_schemas(
    tmp_path: Path,
) -> None:
    """equiv31 #4: a ``.json`` schema read ``1e400`` as infinity (any number met it), where
    a ``.yaml`` one, a scenario's config and every gold read the integer it writes."""
    text = '{"type": "object", "properties": {"x": {"maximum": 1e400}}}'
    for name in ("s.json", "s.yaml"):
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert load_schema(tmp_path / name)["properties"]["x"]["maximum"] == 10**400


def test_a_wrapper_is_its_schema_wherever_a_schema_is_given(tmp_path: Path) -> None:
    """realdata31 #1: a JSONSchemaBench wrapper given as a mapping (a scenario's ``schema:``
    file is read into one) was scored as a schema of its own: no type, no properties, so
    the whole answer was one exact leaf (0.0 where the fields give 0.43)."""
    from pytest_structeval import SchemaCheck, schema_violations, score
    from pytest_structeval.schema import evaluate

    inner = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-eval-compare": "exact"},
            "b": {"type": "integer", "minimum": 0, "x-eval-compare": "exact"},
        },
        "required": ["a"],
    }
    wrapper = {"description": "d", "meta": {}, "schema": inner, "tests": []}
    (tmp_path / "w.json").write_text(json.dumps(wrapper), encoding="utf-8")
    gold, answer = {"a": "x", "b": 1}, {"a": "x", "b": 2}
    for source in (wrapper, inner, tmp_path / "w.json"):
        result = score(gold, answer, mode="schema", schema=source)
        assert result.score == 0.5
        assert [f.path for f in result.fields] == ["answer.a", "answer.b"]
        assert evaluate([gold], [answer], source).micro_f1 == 0.5
        assert validate_gold([{"a": "x", "b": "no"}], source) != []
        assert [v.path for v in SchemaCheck(wrapper).violations({"b": -1})] == [
            "answer.a",
            "answer.b",
        ]
    assert [v.keyword for v in schema_violations({"b": -1}, wrapper)] == ["required", "minimum"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("s.txt", "{}", "unsupported schema file type '.txt'"),
        ("s.json", "{", "malformed JSON"),
        ("s.yaml", "a: [", "malformed YAML"),
        ("s.yaml", "!!python/object/apply:os.system ['true']", "malformed YAML"),
        ("s.json", "[1]", "a schema file must hold an object, got list"),
        ("w.json", '{"schema": 1, "tests": []}', "the wrapper's 'schema' must be an object"),
    ],
)
def test_load_errors(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(SchemaError, match=message):
        load_schema(tmp_path / name)


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="cannot read schema"):
        load_schema(tmp_path / "absent.json")


# --------------------------------------------------------------------------- built-ins


@pytest.mark.parametrize(
    ("entry", "pattern"),
    [
        ({"numeric": {"tolerance": {"rel": -1}}}, r"x-eval-compare: .*'rel'.*-1"),
        ({"numeric": {"tolerance": 0.1}}, r"x-eval-compare: .*tolerance"),
        ({"oneof": {}}, r"x-eval-compare: .*'values'"),
        ({"similarity": {"min": 2}}, r"x-eval-compare: .*'min'"),
        ({"nope": {}}, r"x-eval-compare: unknown comparator 'nope'"),
    ],
)
def test_builtin_comparator_params_fail_at_parse_time(entry: Any, pattern: str) -> None:
    schema = {
        "type": "object",
        "properties": {"price": {"type": "number", "x-eval-compare": entry}},
    }
    with pytest.raises(SchemaError, match=r"^properties\.price\." + pattern):
        parse_eval_schema(schema)


def test_builtin_transform_params_fail_at_parse_time() -> None:
    schema: dict[str, Any] = {
        "type": "string",
        "x-eval-compare": "exact",
        "x-eval-transform": ["strip", "round_digits"],
    }
    with pytest.raises(SchemaError, match=r"^x-eval-transform\[1\]: .*'digits'"):
        parse_eval_schema(schema)
    schema["x-eval-transform"] = ["strip", {"round_digits": {"digits": 2}}]
    assert [t.name for t in parse_eval_schema(schema).transforms] == ["strip", "round_digits"]
