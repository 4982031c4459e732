"""Check gold records against an evaluation schema before scoring them.

Errors (``GoldValidationError``, the first one raises) are problems that would make scores
wrong: a bad or duplicate ``id_field``, a gold key the schema does not know (it would never be
scored), and with ``strict_types`` any value of an undeclared type. Everything else that looks
off comes back as warning strings.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import GoldValidationError
from ..paths import index_path, key_path
from ..registry import Registry
from .evaluate import as_node
from .tree import SchemaNode, json_type, key_schema, short_repr

__all__ = ["validate_gold"]


def validate_gold(
    gold: Sequence[Any],
    schema: SchemaNode | Mapping[str, Any] | str | os.PathLike[str],
    id_field: str | None = None,
    warn_missing: bool = True,
    strict_types: bool = False,
    *,
    registry: Registry | None = None,
) -> list[str]:
    """Validate ``gold`` records against ``schema``; return the warnings.

    ``schema`` is a parsed ``SchemaNode``, an annotated schema dict, or a .json/.yaml file.

    Skipped nodes and everything under a node scored as one value (a leaf, or a container with
    its own comparator) are not looked into. ``null`` is accepted anywhere. A key outside
    ``properties`` must match a ``patternProperties`` pattern or be allowed by
    ``additionalProperties``; it is checked against the schema that scores it (the matching
    pattern's, or a map's value schema), if any. Leaf type mismatches are warnings, errors with
    ``strict_types`` (``integer`` fits ``number``, an integral float fits ``integer``).
    """
    if isinstance(gold, (str, bytes, Mapping)) or not isinstance(gold, Sequence):
        raise GoldValidationError(f"gold must be a list of records, got {type(gold).__name__}")
    root = as_node(schema, registry)
    warnings: list[str] = []
    seen_ids: dict[Any, int] = {}
    for index, record in enumerate(gold):
        label = f"gold[{index}]"
        if id_field is not None:
            rid = _record_id(record, id_field, label)
            if rid in seen_ids:
                raise GoldValidationError(
                    f"{label}: id {rid!r} already used by gold[{seen_ids[rid]}]"
                )
            seen_ids[rid] = index
            label = f"{label} (id {rid!r})"
        _check_record(record, root, label, id_field, warn_missing, strict_types, warnings)
    return warnings


def _record_id(record: Any, id_field: str, label: str) -> str | int:
    if not isinstance(record, Mapping):
        raise GoldValidationError(f"{label}: not an object, cannot read id field {id_field!r}")
    if id_field not in record:
        raise GoldValidationError(f"{label}: id field {id_field!r} is missing")
    rid = record[id_field]
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        raise GoldValidationError(
            f"{label}: id field {id_field!r} must be a string or an integer, got {rid!r}"
        )
    return rid


def _check_record(
    record: Any,
    root: SchemaNode,
    label: str,
    id_field: str | None,
    warn_missing: bool,
    strict_types: bool,
    warnings: list[str],
) -> None:
    missing_seen: set[str] = set()  # schema paths already reported missing in this record
    stack: list[tuple[SchemaNode, Any, str]] = [(root, record, "")]
    while stack:
        node, value, path = stack.pop()
        if node.skip or value is None:
            continue
        where = f"{label}: {path or '(root)'}"
        problem = _type_problem(node, value)
        if problem is not None:
            if strict_types:
                raise GoldValidationError(f"{where}: {problem}")
            warnings.append(f"{where}: {problem}")
            continue
        if node.is_unit():
            continue
        children: list[tuple[SchemaNode, Any, str]] = []
        if node.type == "object":
            for name, child in node.properties.items():
                at = key_path(path, name)
                if name in value:
                    children.append((child, value[name], at))
                elif warn_missing and not child.skip and child.path not in missing_seen:
                    missing_seen.add(child.path)
                    warnings.append(f"{label}: {at}: missing from the gold record")
            for key, item in value.items():
                if key in node.properties or (not path and key == id_field):
                    continue
                found = key_schema(node, key)  # a pattern's or a map's schema scores it
                if found is False:
                    raise GoldValidationError(
                        f"{label}: {key_path(path, key)}: key is not in the schema, so it would "
                        "never be scored (add it to the schema)"
                    )
                if found is not True:
                    children.append((found, item, key_path(path, key)))
        elif node.items is not None:
            children = [(node.items, v, index_path(path, i)) for i, v in enumerate(value)]
        stack.extend(reversed(children))


def _type_problem(node: SchemaNode, value: Any) -> str | None:
    """Why ``value`` does not fit ``node``'s declared types, or None when it fits."""
    kind = json_type(value)
    allowed = node.allowed_types
    if kind in allowed:
        return None
    if kind == "integer" and "number" in allowed:
        return None
    if kind == "number" and "integer" in allowed and float(value).is_integer():
        return None
    expected = node.type if node.type != "multi" else " or ".join(sorted(allowed))
    got = kind or f"non-JSON {type(value).__name__}"
    return f"expected {expected}, got {got} {short_repr(value, 60)}"
