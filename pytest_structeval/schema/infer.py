"""Infer an evaluation schema from gold instances (when no JSON Schema exists yet).

The result uses only ``type``, ``properties``, ``items`` and ``required``, so it can be edited
by hand, annotated with ``annotate_xeval`` and parsed like a resolved schema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import SchemaError
from .tree import json_type

__all__ = ["infer_schema"]


def infer_schema(instances: Sequence[Any]) -> dict[str, Any]:
    """The schema of the values in ``instances`` (usually a list of gold records).

    Per position: ``type`` is every JSON type seen (sorted list when several; integer and number
    together are ``number``; ``null`` seen adds ``"null"``, e.g. ``["null", "string"]``); objects
    get ``properties`` in first-seen key order and ``required`` = keys present in every object;
    arrays get one ``items`` schema inferred from all their elements pooled. A position holding
    several non-null types is scored as one value, so it gets no ``properties``/``items``.
    Non-JSON values count as strings. Iterative: any depth works.
    """
    if isinstance(instances, (str, bytes, Mapping)) or not isinstance(instances, Sequence):
        raise SchemaError(f"infer_schema needs a list of instances, got {type(instances).__name__}")
    if not instances:
        raise SchemaError("infer_schema needs at least one instance")
    root: dict[str, Any] = {}
    stack: list[tuple[list[Any], dict[str, Any]]] = [(list(instances), root)]
    while stack:
        values, out = stack.pop()
        kinds = {json_type(v) or "string" for v in values}
        if {"integer", "number"} <= kinds:
            kinds.discard("integer")
        out["type"] = next(iter(kinds)) if len(kinds) == 1 else sorted(kinds)
        real = kinds - {"null"}
        if real == {"object"}:
            objects = [v for v in values if isinstance(v, Mapping)]
            seen: dict[str, list[Any]] = {}
            for obj in objects:
                for key, value in obj.items():
                    seen.setdefault(str(key), []).append(value)
            if seen:
                out["properties"] = {key: {} for key in seen}
                required = [key for key, found in seen.items() if len(found) == len(objects)]
                if required:
                    out["required"] = required
                stack.extend((found, out["properties"][key]) for key, found in seen.items())
        elif real == {"array"}:
            pooled = [item for v in values if isinstance(v, (list, tuple)) for item in v]
            out["items"] = {}  # an empty gold array still holds elements: the model's are extra
            if pooled:
                stack.append((pooled, out["items"]))
    return root
