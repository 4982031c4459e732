"""Default comparators by JSON type, and ``annotate_xeval`` which writes them into a schema.

Defaults live in a ``TypeDefaults`` object: pass one explicitly, or scope one with
``with type_defaults({...}):`` (a ``contextvars`` variable, so threads and async tasks do not leak
settings into each other). ``set_type_default``/``reset_type_defaults`` act on the current one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from ..errors import SchemaError
from .tree import (
    JSON_TYPES,
    as_schema,
    node_type,
    parse_xeval_entry,
    pattern_schemas,
    shape_children,
    values_schema,
)

__all__ = [
    "TypeDefaults",
    "annotate_xeval",
    "current_type_defaults",
    "reset_type_defaults",
    "set_type_default",
    "type_defaults",
]

_S = TypeVar("_S", bound=MutableMapping[str, Any])
_BUILTIN: dict[str, str] = {"number": "numeric", "integer": "numeric"}
_REVISIONS = itertools.count()  # see TypeDefaults.revision
_FALLBACK = "exact"  # strings, booleans, null, multi-type nodes and shapeless containers
_TYPES = JSON_TYPES | {"multi"}


class TypeDefaults:
    """JSON type (or ``"multi"``) -> default comparator in the two-shape ``x-eval-compare`` form."""

    def __init__(self, overrides: Mapping[str, Any] | None = None) -> None:
        self._chosen: dict[str, tuple[str, dict[str, Any]]] = {}
        #: Unique to these settings (a new value on every change, never reused), so that a
        #: schema annotated with them can be reused while they are unchanged.
        self.revision: int = next(_REVISIONS)
        for json_type, comparator in (overrides or {}).items():
            self.set(json_type, comparator)

    def set(self, json_type: str, comparator: Any) -> None:
        """Use ``comparator`` (``"name"`` or ``{"name": {params}}``) for ``json_type`` leaves."""
        if json_type not in _TYPES:
            known = ", ".join(sorted(_TYPES))
            raise SchemaError(f"type default: unknown type {json_type!r}; expected one of {known}")
        self._chosen[json_type] = parse_xeval_entry(comparator, where=f"type default {json_type!r}")
        self.revision = next(_REVISIONS)

    def reset(self) -> None:
        """Back to the built-ins: numeric for number/integer, exact for everything else."""
        self._chosen.clear()
        self.revision = next(_REVISIONS)

    def get(self, json_type: str) -> tuple[str, dict[str, Any]]:
        """``(comparator name, params)`` for a leaf of ``json_type`` (params are a fresh copy)."""
        if json_type in self._chosen:
            name, params = self._chosen[json_type]
            return name, dict(params)
        return _BUILTIN.get(json_type, _FALLBACK), {}

    def entry(self, json_type: str) -> str | dict[str, Any]:
        """The ``x-eval-compare`` value to write for ``json_type``."""
        name, params = self.get(json_type)
        return {name: params} if params else name

    def copy(self) -> TypeDefaults:
        new = TypeDefaults()
        new._chosen = {k: (name, dict(p)) for k, (name, p) in self._chosen.items()}
        return new


_GLOBAL = TypeDefaults()
_CURRENT: ContextVar[TypeDefaults | None] = ContextVar("structeval_type_defaults", default=None)


def current_type_defaults() -> TypeDefaults:
    """The defaults of the current context (the process-wide ones outside any ``type_defaults``)."""
    return _CURRENT.get() or _GLOBAL


@contextmanager
def type_defaults(overrides: Mapping[str, Any] | None = None) -> Iterator[TypeDefaults]:
    """Scope a copy of the current defaults, plus ``overrides``, to a ``with`` block."""
    scoped = current_type_defaults().copy()
    for json_type, comparator in (overrides or {}).items():
        scoped.set(json_type, comparator)
    token = _CURRENT.set(scoped)
    try:
        yield scoped
    finally:
        _CURRENT.reset(token)


def set_type_default(json_type: str, comparator: Any) -> None:
    """Set the default comparator for ``json_type`` in the current context's defaults."""
    current_type_defaults().set(json_type, comparator)


def reset_type_defaults() -> None:
    """Restore the built-in defaults in the current context's defaults."""
    current_type_defaults().reset()


def annotate_xeval(schema: _S, *, defaults: TypeDefaults | None = None) -> _S:
    """Give every leaf without ``x-eval-compare`` its type's default comparator (in place).

    A leaf marked ``x-eval-skip: true`` is left alone; ``x-eval-skip: false`` gets a comparator.
    Containers get none (they are scored field by field). Returns ``schema`` for chaining. No
    comparator is written before the whole schema has been checked, so a bad schema raises
    ``SchemaError`` without being half-annotated.
    """
    chosen = defaults if defaults is not None else current_type_defaults()
    pending: list[tuple[MutableMapping[str, Any], str]] = []
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, where = stack.pop()
        kind, _, _ = node_type(as_schema(node, where), where)
        children = shape_children(node, where, kind)
        for name, at, sub in children:
            if sub is True:  # the empty schema, written out so it can hold a comparator
                sub = {}
                if name is None:
                    node["items"] = sub
                else:
                    node["properties"][name] = sub
            stack.append((sub, at))
        values = values_schema(node, where, kind)  # the schema of a map's undeclared keys
        if values is not None:
            stack.append((values[1], values[0]))
        patterns = [
            (sub, at) for _, at, sub in pattern_schemas(node, where, kind) if sub is not None
        ]
        stack.extend(patterns)  # the schemas of keys matching a pattern
        leaf = not children and values is None and not patterns
        if leaf and "x-eval-compare" not in node and node.get("x-eval-skip") is not True:
            pending.append((node, kind))
    for node, kind in pending:
        node["x-eval-compare"] = chosen.entry(kind)
    return schema
