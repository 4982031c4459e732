"""Is a value valid under a JSON Schema? The check users run on a model's answer before,
or beside, scoring it against the gold (DeepEval's ``expected_schema``, LangChain's
``JsonSchemaEvaluator``, promptfoo's ``is-json`` with a schema).

Draft 2020-12 and 2019-09 keywords, with the older drafts' forms where a document declares
one (draft-04 to -07: ``$ref`` overrides its siblings, ``items`` as a list, ``additionalItems``,
``dependencies``, boolean ``exclusiveMinimum``/``exclusiveMaximum``); the list forms are
also read without a ``$schema``, as nothing else can be meant. ``format`` is checked for
the formats below unless ``formats=False``; other formats are annotations. References are
resolved inside the document (pointers, ``$id``, anchors); ``$dynamicRef`` and
``$recursiveRef`` resolve as plain ``$ref``. Nesting is bounded and reference cycles that
never reach a value are a ``SchemaError``, so no input raises ``RecursionError``.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any, Final

from ..errors import LimitError, SchemaError, hide_usage_error
from ..keys import key_text
from ..naming import fit_columns
from ..paths import ROOT, index_path, json_kind, key_path
from .io import load_schema
from .resolve import Document, declared_draft, subschemas
from .tree import (
    ecma_pattern,
    is_ecma_regex,
    schema_file_of,
    short_repr,
    warn_schema,
    warning_at_file,
)

# Every frame of this module reads a user's schema: pytest hides them all when the error is
# one of ours (a bad schema) or a schema's warning a filter made an error, so the traceback
# ends at the user's call (errors.hide_usage_error; any other error, a bug, shows them).
__tracebackhide__ = hide_usage_error

__all__ = [
    "CHECKED_FORMATS",
    "MAX_NESTING",
    "MAX_VIOLATIONS",
    "SchemaCheck",
    "Violation",
    "schema_violations",
]

MAX_VIOLATIONS: Final = 50
"""Violations reported per value by default; the check stops looking after that many."""
MAX_NESTING: Final = 300
"""Schemas applied inside one another (value levels, ``$ref`` with siblings, ``allOf``...)."""
_MAX_REF_HOPS: Final = 2_500
_LATER_KEYWORDS: Final = {
    "06": ("const", "contains", "propertyNames"),
    "07": ("if", "then", "else"),
    "2019-09": (
        "dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
        "minContains", "maxContains", "$recursiveRef",
    ),
    "2020-12": ("prefixItems", "$dynamicRef", "$dynamicAnchor"),
}  # fmt: skip
"""Keywords by the draft that introduced them: a document declaring an older draft does
not have them, so they are ignored there (as every validator of that draft does)."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One way a value breaks its schema: where in the value (a path as ``flatten`` names
    it), the keyword that failed, what is wrong, and where that keyword is in the schema."""

    path: str
    keyword: str
    message: str
    schema_path: str

    def to_dict(self) -> dict[str, str]:
        return {
            "path": self.path,
            "keyword": self.keyword,
            "message": self.message,
            "schema_path": self.schema_path,
        }

    def __str__(self) -> str:
        return f"{self.path}: {self.message} ({self.keyword} at {self.schema_path})"


def schema_violations(
    value: Any,
    schema: Mapping[str, Any] | bool,
    *,
    formats: bool = True,
    limit: int = MAX_VIOLATIONS,
) -> tuple[Violation, ...]:
    """How ``value`` (parsed JSON) breaks ``schema``: empty when it is valid. See
    :class:`SchemaCheck`, which checks many values against one schema."""
    return SchemaCheck(schema, formats=formats).violations(value, limit=limit)


class SchemaCheck:
    """One JSON Schema, ready to check values against: references, regexes and the draft's
    rules are worked out once. Raises ``SchemaError`` for a schema that is neither an object
    nor a boolean; a malformed keyword raises ``SchemaError`` naming its location when a
    value first reaches it. A JSONSchemaBench wrapper is its ``schema`` (read as a schema,
    it would constrain nothing). A schema made inside ``tree.schema_read_from`` (read from a
    file) gives its warnings at that file, at the line they are about."""

    def __init__(
        self,
        schema: Mapping[str, Any] | bool,
        *,
        formats: bool = True,
        max_depth: int = MAX_NESTING,
    ) -> None:
        if not isinstance(schema, (Mapping, bool)):
            raise SchemaError(f"a schema must be an object or a boolean, got {json_kind(schema)}")
        self._file = schema_file_of(schema)  # (the file it was read from: its warnings')
        if isinstance(schema, Mapping):
            schema = load_schema(schema)
        self.schema: Mapping[str, Any] | bool = schema
        self.formats: bool = formats
        self.max_depth: int = max_depth
        draft = declared_draft(schema)
        self._legacy = draft.startswith("0")
        self._draft4 = draft in ("03", "04")
        self._unknown = frozenset(
            keyword
            for since, keywords in _LATER_KEYWORDS.items()
            if draft and draft < since
            for keyword in keywords
        )
        # Draft-04 integers have no fraction part in the text: 7.0 is a number there.
        self._types = _DRAFT4_TYPE_TESTS if self._draft4 else _TYPE_TESTS
        self._known: dict[int, Mapping[str, Any]] = {}  # id(schema) -> without unknown keywords
        self._copied: dict[int, Mapping[str, Any]] = {}  # id() of such a copy -> the schema
        self._annotate = _mentions(schema, ("unevaluatedProperties", "unevaluatedItems"))
        self._document = Document.of(schema)
        self._regexes: dict[str, re.Pattern[str] | None] = {}

    def violations(self, value: Any, *, limit: int = MAX_VIOLATIONS) -> tuple[Violation, ...]:
        """How ``value`` breaks the schema, at most ``limit`` of them, in value order."""
        if type(limit) is not int or limit < 1:
            raise ValueError(f"limit must be a positive int, got {limit!r}")
        sink = _Sink(limit)
        try:
            self._check(self.schema, value, ROOT, "#", 0, sink)
        except RecursionError:  # a deep pytest stack leaves less room than the bound assumes
            raise LimitError("the schema and the value nest too deeply to check") from None
        return tuple(sink.found)

    def is_valid(self, value: Any) -> bool:
        return not self.violations(value, limit=1)

    # -- one schema against one value -------------------------------------------------------
    def _check(
        self, schema: Any, value: Any, path: str, where: str, depth: int, sink: _Sink
    ) -> _Seen | None:
        """Check ``value`` at ``path`` against ``schema`` at ``where``; what it evaluated
        (for ``unevaluated*``) when the document uses those keywords.

        A yes-or-no check (a ``oneOf``/``anyOf`` branch, ``not``, ``if``, ``contains``) of an
        object or array inside another is worked out once per schema location, value and path
        (see :class:`_Sink`): each branch of a recursive union descends into the same subtrees,
        which took time exponential in the value's depth. So is a scalar's against a schema
        that applies others: unions whose branches refer to one schema took time exponential
        in the schema's depth (40 levels of ``anyOf`` never ended). (Other scalars are
        cheaper to check again than to remember.)
        """
        schema, where = self._follow(schema, where)
        if self._unknown and isinstance(schema, Mapping) and not self._unknown.isdisjoint(schema):
            schema = self._without_unknown(schema)
        if schema is True:
            return _Seen() if self._annotate else None
        if schema is False:
            sink.add(path, "false", "no value is allowed here (the schema is false)", where)
            return None
        if depth > self.max_depth:
            shown = path if len(path) <= 80 else "..." + fit_columns(path, 77, from_end=True)
            raise LimitError(
                f"checking {shown} applies more than max_depth={self.max_depth} nested "
                "schemas (a value nested too deeply, or a $ref that leads back to itself)"
            )
        asked = None
        if sink.nested and (
            isinstance(value, (Mapping, list, tuple)) or not _APPLIERS.isdisjoint(schema)
        ):
            if sink.found:  # its answer is no already
                return None
            asked = (where, id(schema), id(value), path)
            known = sink.memo.get(asked)
            if known is not None:
                if known[0] is not None:
                    sink.found.append(known[0])
                return known[1].copy() if known[1] is not None else None
        seen = _Seen() if self._annotate else None
        for key in ("$ref", "$dynamicRef", "$recursiveRef"):
            if key in schema:  # with siblings (2019-09 on): the target applies beside them
                target, at = self._resolve(schema[key], _ptr(where, key))
                self._merge(seen, self._check(target, value, path, at, depth + 1, sink))
        if "type" in schema:
            self._type(schema["type"], value, path, where, sink)
        if "enum" in schema:
            options = schema["enum"]
            if not isinstance(options, list):
                raise SchemaError(f"{_ptr(where, 'enum')}: must be an array")
            if not any(_same(value, option) for option in options):
                sink.add(path, "enum", f"{_brief(value)} is not one of {_brief(options)}", where)
        if "const" in schema and not _same(value, schema["const"]):
            sink.add(path, "const", f"{_brief(value)} is not {_brief(schema['const'])}", where)
        if isinstance(value, str):
            self._string(schema, value, path, where, sink)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self._number(schema, value, path, where, sink)
        elif isinstance(value, Mapping):
            self._object(schema, value, path, where, depth, sink, seen)
        elif isinstance(value, (list, tuple)):
            self._array(schema, value, path, where, depth, sink, seen)
        self._applicators(schema, value, path, where, depth, sink, seen)
        if seen is not None and isinstance(value, Mapping) and "unevaluatedProperties" in schema:
            self._unevaluated_properties(schema, value, path, where, depth, sink, seen)
        if seen is not None and isinstance(value, (list, tuple)) and "unevaluatedItems" in schema:
            self._unevaluated_items(schema, value, path, where, depth, sink, seen)
        if asked is not None:  # (the sink was empty: what it holds now is this answer)
            sink.memo[asked] = (sink.found[0] if sink.found else None, seen)
            return seen.copy() if seen is not None else None
        return seen

    def _without_unknown(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        known = self._known.get(id(schema))
        if known is None:
            known = {k: v for k, v in schema.items() if k not in self._unknown}
            self._known[id(schema)] = known
            self._copied[id(known)] = schema
        return known

    def _follow(self, schema: Any, where: str) -> tuple[Any, str]:
        """Follow a chain of references that stand alone (or, in draft-07 and before,
        override their siblings) without a stack frame per hop."""
        for _ in range(_MAX_REF_HOPS):
            if isinstance(schema, bool):
                return schema, where
            if not isinstance(schema, Mapping):
                raise SchemaError(
                    f"{where}: a schema must be an object or a boolean, got {json_kind(schema)}"
                )
            where = self._rebased(schema, where)
            if "$ref" not in schema or not (self._legacy or len(schema) == 1):
                return schema, where
            schema, where = self._resolve(schema["$ref"], _ptr(where, "$ref"))
        raise SchemaError(f"{where}: more than {_MAX_REF_HOPS} references lead to no schema")

    def _resolve(self, ref: Any, where: str) -> tuple[Any, str]:
        """The target of a reference made at ``where`` (whose resource is its base URI),
        and the target's location."""
        if not isinstance(ref, str):
            raise SchemaError(f"{where}: must be a string, got {short_repr(ref)}")
        base = where.partition("#")[0] or self._document.base
        return self._document.locate(ref, base, where)

    def _rebased(self, schema: Mapping[str, Any], where: str) -> str:
        """``where`` once inside ``schema``: the root of its own resource when it has an
        ``$id``, so the references it holds resolve against that id."""
        uri = self._document.uris.get(id(schema))
        if uri is None:
            return where
        return "#" if uri == self._document.base else f"{uri}#"

    # -- keywords by value kind ----------------------------------------------------------
    def _type(self, declared: Any, value: Any, path: str, where: str, sink: _Sink) -> None:
        names = declared if isinstance(declared, list) else [declared]
        for name in names:
            if not isinstance(name, str) or name not in self._types:
                raise SchemaError(f"{_ptr(where, 'type')}: unknown type {short_repr(name)}")
        if not any(self._types[name](value) for name in names):
            wanted = " or ".join(names) if names else "no type"
            kind = "a number" if self._draft4 and isinstance(value, float) else _kind(value)
            sink.add(path, "type", f"is {kind}, not {wanted}", where)

    def _string(
        self, schema: Mapping[str, Any], value: str, path: str, where: str, sink: _Sink
    ) -> None:
        if "minLength" in schema and len(value) < _count(schema, "minLength", where):
            sink.add(
                path,
                "minLength",
                f"has {_counted(len(value), 'character')}, fewer than {schema['minLength']}",
                where,
            )
        if "maxLength" in schema and len(value) > _count(schema, "maxLength", where):
            sink.add(
                path,
                "maxLength",
                f"has {_counted(len(value), 'character')}, more than {schema['maxLength']}",
                where,
            )
        if "pattern" in schema:
            regex = self._regex(schema["pattern"], _ptr(where, "pattern"), (schema, "pattern"))
            if regex is not None and regex.search(value) is None:
                sink.add(
                    path, "pattern", f"{_brief(value)} does not match {schema['pattern']!r}", where
                )
        if self.formats and "format" in schema:
            name = schema["format"]
            test = _FORMATS.get(name) if isinstance(name, str) else None
            if test is not None and not test(value):
                sink.add(path, "format", f"{_brief(value)} is not a valid {name}", where)

    def _number(
        self, schema: Mapping[str, Any], value: float, path: str, where: str, sink: _Sink
    ) -> None:
        for key, low in (("minimum", True), ("maximum", False)):
            if key not in schema:
                continue
            bound = _bound(schema, key, where)
            exclusive = schema.get("exclusiveMinimum" if low else "exclusiveMaximum") is True
            if _beyond(value, bound, low, exclusive):
                word = (
                    ("more than " if exclusive else "at least ")
                    if low
                    else ("less than " if exclusive else "at most ")
                )
                sink.add(path, key, f"{_brief(value)} is not {word}{_brief(bound)}", where)
        for key, low in (("exclusiveMinimum", True), ("exclusiveMaximum", False)):
            if key in schema and not isinstance(schema[key], bool):
                bound = _bound(schema, key, where)
                if _beyond(value, bound, low, True):
                    word = "more than" if low else "less than"
                    sink.add(path, key, f"{_brief(value)} is not {word} {_brief(bound)}", where)
        if "multipleOf" in schema:
            step = _bound(schema, "multipleOf", where)
            if step <= 0:
                raise SchemaError(f"{_ptr(where, 'multipleOf')}: must be greater than 0")
            if not _multiple(value, step):
                sink.add(
                    path,
                    "multipleOf",
                    f"{_brief(value)} is not a multiple of {_brief(step)}",
                    where,
                )

    def _object(
        self,
        schema: Mapping[str, Any],
        value: Mapping[Any, Any],
        path: str,
        where: str,
        depth: int,
        sink: _Sink,
        seen: _Seen | None,
    ) -> None:
        names = {_key_text(key): key for key in value}
        if "required" in schema:
            required = schema["required"]
            if not isinstance(required, list):
                if not (self._draft4 or isinstance(required, bool)):
                    raise SchemaError(f"{_ptr(where, 'required')}: must be an array of names")
                required = []  # draft-03's boolean form marks a property, checked by its parent
            for name in required:
                if not isinstance(name, str):
                    raise SchemaError(f"{_ptr(where, 'required')}: names must be strings")
                if name not in names:
                    sink.add(key_path(path, name), "required", "is missing (required)", where)
        for key, bound, word in (
            ("minProperties", True, "fewer"),
            ("maxProperties", False, "more"),
        ):
            if key in schema:
                count = _count(schema, key, where)
                if (len(value) < count) if bound else (len(value) > count):
                    sink.add(
                        path,
                        key,
                        f"has {_counted(len(value), 'property', 'properties')}, "
                        f"{word} than {count}",
                        where,
                    )
        properties = _submap(schema, "properties", where)
        patterns = _submap(schema, "patternProperties", where)
        extra = schema.get("additionalProperties")
        for name, key in names.items():
            if sink.full:
                return
            child = key_path(path, key)
            matched = False
            if name in properties:
                matched = True
                self._check(
                    properties[name],
                    value[key],
                    child,
                    _ptr(_ptr(where, "properties"), name),
                    depth + 1,
                    sink,
                )
            for pattern, sub in patterns.items():
                at = _ptr(_ptr(where, "patternProperties"), pattern)
                regex = self._regex(pattern, at, (patterns, pattern))
                if regex is not None and regex.search(name) is not None:
                    matched = True
                    self._check(
                        sub,
                        value[key],
                        child,
                        _ptr(_ptr(where, "patternProperties"), pattern),
                        depth + 1,
                        sink,
                    )
            if not matched and extra is not None:
                if extra is False:
                    sink.add(
                        child,
                        "additionalProperties",
                        "is not allowed (additionalProperties is false)",
                        where,
                    )
                else:
                    self._check(
                        extra,
                        value[key],
                        child,
                        _ptr(where, "additionalProperties"),
                        depth + 1,
                        sink,
                    )
                    matched = True
            if "propertyNames" in schema:
                self._check(
                    schema["propertyNames"],
                    name,
                    child,
                    _ptr(where, "propertyNames"),
                    depth + 1,
                    sink,
                )
            if seen is not None and (matched or extra is False):
                seen.keys.add(name)
        self._dependencies(schema, value, names, path, where, depth, sink, seen)

    def _dependencies(
        self,
        schema: Mapping[str, Any],
        value: Mapping[Any, Any],
        names: Mapping[str, Any],
        path: str,
        where: str,
        depth: int,
        sink: _Sink,
        seen: _Seen | None,
    ) -> None:
        for keyword in ("dependentRequired", "dependentSchemas", "dependencies"):
            for trigger, needed in _submap(schema, keyword, where).items():
                if trigger not in names:
                    continue
                at = _ptr(_ptr(where, keyword), trigger)
                if isinstance(needed, list) and keyword != "dependentSchemas":
                    for name in needed:
                        if name not in names:
                            sink.add(
                                key_path(path, name),
                                keyword,
                                f"is missing (required when {trigger!r} is present)",
                                where,
                            )
                elif keyword != "dependentRequired":
                    self._merge(seen, self._check(needed, value, path, at, depth + 1, sink))
                else:
                    raise SchemaError(f"{at}: must be an array of names")

    def _array(
        self,
        schema: Mapping[str, Any],
        value: list[Any] | tuple[Any, ...],
        path: str,
        where: str,
        depth: int,
        sink: _Sink,
        seen: _Seen | None,
    ) -> None:
        for key, low, word in (("minItems", True, "fewer"), ("maxItems", False, "more")):
            if key in schema:
                count = _count(schema, key, where)
                if (len(value) < count) if low else (len(value) > count):
                    sink.add(
                        path, key, f"has {_counted(len(value), 'item')}, {word} than {count}", where
                    )
        if schema.get("uniqueItems") is True:
            first: dict[Any, int] = {}
            for i, item in enumerate(value):
                twin = first.setdefault(_canonical(item), i)
                if twin != i:
                    sink.add(index_path(path, i), "uniqueItems", f"repeats item {twin}", where)
                    break
        prefix: list[Any] = []
        rest_key = "items"
        if isinstance(schema.get("prefixItems"), list):
            prefix = schema["prefixItems"]
            prefix_key = "prefixItems"
        elif isinstance(schema.get("items"), list):  # the older drafts' tuple form
            prefix, prefix_key, rest_key = schema["items"], "items", "additionalItems"
        for i, (sub, item) in enumerate(zip(prefix, value, strict=False)):
            self._check(
                sub, item, index_path(path, i), _ptr(_ptr(where, prefix_key), i), depth + 1, sink
            )
        rest = schema.get(rest_key)
        if rest is not None and not isinstance(rest, list):
            for i in range(len(prefix), len(value)):
                if sink.full:
                    break
                if rest is False:
                    message = f"is not allowed ({rest_key} is false)"
                    sink.add(index_path(path, i), rest_key, message, where)
                    continue
                self._check(
                    rest, value[i], index_path(path, i), _ptr(where, rest_key), depth + 1, sink
                )
        if seen is not None:
            seen.items = (
                len(value) if rest is not None else max(seen.items, min(len(prefix), len(value)))
            )
        if "contains" in schema:
            self._contains(schema, value, path, where, depth, sink, seen)

    def _contains(
        self,
        schema: Mapping[str, Any],
        value: list[Any] | tuple[Any, ...],
        path: str,
        where: str,
        depth: int,
        sink: _Sink,
        seen: _Seen | None,
    ) -> None:
        at = _ptr(where, "contains")
        hits = [
            i
            for i, item in enumerate(value)
            if self._passes(schema["contains"], item, index_path(path, i), at, depth + 1, sink)
        ]
        low = _count(schema, "minContains", where) if "minContains" in schema else 1
        high = _count(schema, "maxContains", where) if "maxContains" in schema else None
        if len(hits) < low:
            sink.add(
                path,
                "contains",
                f"has {_counted(len(hits), 'item')} matching 'contains', fewer than {low}",
                where,
            )
        if high is not None and len(hits) > high:
            sink.add(
                path,
                "maxContains",
                f"has {_counted(len(hits), 'item')} matching 'contains', more than {high}",
                where,
            )
        if seen is not None:
            seen.indices.update(hits)

    # -- in-place applicators ------------------------------------------------------------
    def _applicators(
        self,
        schema: Mapping[str, Any],
        value: Any,
        path: str,
        where: str,
        depth: int,
        sink: _Sink,
        seen: _Seen | None,
    ) -> None:
        for i, sub in enumerate(_schemas(schema, "allOf", where)):
            self._merge(
                seen, self._check(sub, value, path, _ptr(_ptr(where, "allOf"), i), depth + 1, sink)
            )
        for keyword in ("anyOf", "oneOf"):
            branches = _schemas(schema, keyword, where)
            if not branches:
                continue
            base = _ptr(where, keyword)
            passing: list[int] = []
            reasons: list[str] = []
            for i, sub in enumerate(branches):
                trial = sink.trial()
                found = self._check(sub, value, path, _ptr(base, i), depth + 1, trial)
                if trial.found:
                    first = trial.found[0]  # (a nested union's reason is clipped: it nests too)
                    message, failed_at = _clip(first.message), _clip(first.path, from_end=True)
                    reasons.append(f"{i}: {message} at {failed_at}")
                    continue
                passing.append(i)
                self._merge(seen, found)
                if seen is None and (keyword == "anyOf" or len(passing) > 1):
                    break
            if not passing:
                why = "; ".join(reasons[:3]) + ("; ..." if len(reasons) > 3 else "")
                message = (
                    f"matches none of the {len(branches)} {keyword} schemas ({why})"
                    if len(branches) > 1
                    else f"does not match its one {keyword} schema ({why})"
                )
                sink.add(path, keyword, message, where)
            elif keyword == "oneOf" and len(passing) > 1:
                sink.add(
                    path,
                    "oneOf",
                    f"matches more than one oneOf schema ({passing[0]} and {passing[1]})",
                    where,
                )
        if "not" in schema and self._passes(
            schema["not"], value, path, _ptr(where, "not"), depth + 1, sink
        ):
            sink.add(path, "not", "matches the schema under 'not'", where)
        if "if" in schema:
            condition = sink.trial()
            found = self._check(schema["if"], value, path, _ptr(where, "if"), depth + 1, condition)
            branch = "else" if condition.found else "then"
            if not condition.found:
                self._merge(seen, found)
            if branch in schema:
                self._merge(
                    seen,
                    self._check(schema[branch], value, path, _ptr(where, branch), depth + 1, sink),
                )

    def _passes(
        self, schema: Any, value: Any, path: str, where: str, depth: int, sink: _Sink
    ) -> bool:
        trial = sink.trial()
        self._check(schema, value, path, where, depth, trial)
        return not trial.found

    def _unevaluated_properties(
        self,
        schema: Mapping[str, Any],
        value: Mapping[Any, Any],
        path: str,
        where: str,
        depth: int,
        sink: _Sink,
        seen: _Seen,
    ) -> None:
        sub = schema["unevaluatedProperties"]
        for key in value:
            name = _key_text(key)
            if name in seen.keys:
                continue
            child = key_path(path, key)
            if sub is False:
                sink.add(
                    child,
                    "unevaluatedProperties",
                    "is not allowed (unevaluatedProperties is false)",
                    where,
                )
            else:
                self._check(
                    sub, value[key], child, _ptr(where, "unevaluatedProperties"), depth + 1, sink
                )
            seen.keys.add(name)

    def _unevaluated_items(
        self,
        schema: Mapping[str, Any],
        value: list[Any] | tuple[Any, ...],
        path: str,
        where: str,
        depth: int,
        sink: _Sink,
        seen: _Seen,
    ) -> None:
        sub = schema["unevaluatedItems"]
        for i in range(seen.items, len(value)):
            if i in seen.indices:
                continue
            if sub is False:
                sink.add(
                    index_path(path, i),
                    "unevaluatedItems",
                    "is not allowed (unevaluatedItems is false)",
                    where,
                )
            else:
                self._check(
                    sub,
                    value[i],
                    index_path(path, i),
                    _ptr(where, "unevaluatedItems"),
                    depth + 1,
                    sink,
                )
        seen.items = len(value)

    # -- helpers ---------------------------------------------------------------------------
    def _regex(
        self, pattern: Any, where: str, written: tuple[Mapping[str, Any], str]
    ) -> re.Pattern[str] | None:
        """``pattern`` compiled once; None (and a ``SchemaWarning``) when Python cannot read
        it: the keyword is then not checked, and the warning says so, at the line that
        writes it when the schema was read from a file (``written``: the mapping that holds
        it, and its key)."""
        if not isinstance(pattern, str):
            raise SchemaError(f"{where}: a pattern must be a string, got {short_repr(pattern)}")
        if pattern not in self._regexes:
            regex, problem, readable = ecma_pattern(pattern)
            if regex is None:
                cannot = "match this pattern as ECMA-262 does" if readable else "read this pattern"
                holder, key = written
                path = None
                if self._file is not None:  # (where the document writes it: its line)
                    path = self._document.path_of(self._copied.get(id(holder), holder))
                with warning_at_file(self._file):
                    warn_schema(
                        f"{where}: Python's re cannot {cannot} ({problem}); it is not checked",
                        stacklevel=1,
                        at=None if path is None else (path, key),
                    )
            self._regexes[pattern] = regex
        return self._regexes[pattern]

    @staticmethod
    def _merge(seen: _Seen | None, found: _Seen | None) -> None:
        if seen is not None and found is not None:
            seen.keys |= found.keys
            seen.items = max(seen.items, found.items)
            seen.indices |= found.indices


_APPLIERS: Final = frozenset(
    {"allOf", "anyOf", "oneOf", "not", "if", "$ref", "$dynamicRef", "$recursiveRef"}
)


class _Sink:
    """Where violations go, up to a limit (1 for a branch that only needs a yes or no).

    ``memo``, shared by every sink of one check: each yes-or-no question asked inside
    another (``nested``: a union inside a union's branch, where the same subtrees are asked
    about again and again) with its answer: the first violation or None, with what it
    evaluated. Keys hold ids: values and schemas outlive the check. The outermost questions
    are not kept: each is asked once, and keeping them cost a large answer memory and time.
    """

    __slots__ = ("found", "limit", "memo", "nested")

    def __init__(
        self,
        limit: int,
        memo: dict[tuple[str, int, int, str], _Answer] | None = None,
        *,
        nested: bool = False,
    ) -> None:
        self.found: list[Violation] = []
        self.limit = limit
        self.memo: dict[tuple[str, int, int, str], _Answer] = {} if memo is None else memo
        self.nested = nested

    def trial(self) -> _Sink:
        """An empty yes-or-no sink sharing this check's answers."""
        return _Sink(1, self.memo, nested=self.limit == 1)

    @property
    def full(self) -> bool:
        return len(self.found) >= self.limit

    def add(self, path: str, keyword: str, message: str, where: str) -> None:
        if len(self.found) < self.limit:
            self.found.append(
                Violation(
                    path,
                    keyword,
                    message,
                    _ptr(where, keyword) if keyword != "false" else where,
                )
            )


class _Seen:
    """What a schema evaluated of an object or array, for ``unevaluated*``."""

    __slots__ = ("indices", "items", "keys")

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.items = 0  # every index below this was evaluated
        self.indices: set[int] = set()  # and these ('contains')

    def copy(self) -> _Seen:
        """A copy to merge into (a remembered answer's own stays as it was)."""
        out = _Seen()
        out.keys, out.items, out.indices = set(self.keys), self.items, set(self.indices)
        return out


_Answer = tuple[Violation | None, _Seen | None]


_REASON: Final = 120
"""Characters of a branch's reason, or its path, quoted in a union's message."""


def _clip(text: str, *, from_end: bool = False) -> str:
    """``text`` cut to :data:`_REASON` columns, ``...`` marking the cut (a path keeps its end:
    the field that failed)."""
    if len(text) <= _REASON:
        return text
    if from_end:
        return "..." + fit_columns(text, _REASON - 3, from_end=True)
    return fit_columns(text, _REASON - 3) + "..."


def _counted(number: int, one: str, many: str = "") -> str:
    """``1 item``, ``2 items`` (``many``: an irregular plural)."""
    return f"{number} {one if number == 1 else many or one + 's'}"


def _ptr(where: str, token: object) -> str:
    """A JSON Pointer one step below ``where`` (``#/properties/a~1b``)."""
    return f"{where}/{str(token).replace('~', '~0').replace('/', '~1')}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPE_TESTS: Final[dict[str, Callable[[Any], bool]]] = {
    "null": lambda value: value is None,
    "boolean": lambda value: isinstance(value, bool),
    "object": lambda value: isinstance(value, Mapping),
    "array": lambda value: isinstance(value, (list, tuple)),
    "number": _is_number,
    "integer": _is_integer,
    "string": lambda value: isinstance(value, str),
}
_DRAFT4_TYPE_TESTS: Final[dict[str, Callable[[Any], bool]]] = {
    **_TYPE_TESTS,
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
}


def _kind(value: Any) -> str:
    """The JSON type of ``value`` with an article, as messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_integer(value):
        return "an integer"
    kind = json_kind(value)
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _brief(value: Any) -> str:
    try:
        return short_repr(value, 60)
    except ValueError:  # an int past Python's digit limit for str()
        return f"an integer of {value.bit_length()} bits" if isinstance(value, int) else "a value"


def _count(schema: Mapping[str, Any], key: str, where: str) -> int:
    """A keyword that must be a non-negative integer (``minLength``, ``maxItems``...)."""
    value = schema[key]
    if not _is_integer(value) or value < 0:
        raise SchemaError(
            f"{_ptr(where, key)}: must be a non-negative integer, got {short_repr(value)}"
        )
    return int(value)


def _bound(schema: Mapping[str, Any], key: str, where: str) -> float:
    value = schema[key]
    if not _is_number(value):
        raise SchemaError(f"{_ptr(where, key)}: must be a number, got {short_repr(value)}")
    return value  # type: ignore[no-any-return]


def _beyond(value: float, bound: float, low: bool, exclusive: bool) -> bool:
    if low:
        return value <= bound if exclusive else value < bound
    return value >= bound if exclusive else value > bound


def _multiple(value: float, step: float) -> bool:
    """Whether ``value`` is a whole multiple of ``step``, in decimal as the JSON text reads
    (``0.3`` is a multiple of ``0.1``, which binary floating point would deny)."""
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    if any(isinstance(n, float) and not math.isfinite(n) for n in (value, step)):
        return False
    return (_exact(value) / _exact(step)).denominator == 1


def _exact(number: float) -> Fraction:
    """A number as the exact fraction its JSON text (its shortest ``repr``) states."""
    return Fraction(number) if isinstance(number, int) else Fraction(repr(number))


def _submap(schema: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = schema.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SchemaError(f"{_ptr(where, key)}: must be an object")
    return value


def _schemas(schema: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = schema.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not value:
        raise SchemaError(f"{_ptr(where, key)}: must be a non-empty array of schemas")
    return value


def _key_text(key: Any) -> str:
    """An object key as JSON text names it (a Python-literal answer may have ``1`` or
    ``True`` as keys; see :func:`~pytest_structeval.keys.key_text`)."""
    try:
        return key_text(key)
    except LimitError:  # an int past Python's digit limit for str(): a name it matches none
        return f"<an integer of {key.bit_length()} bits>"


def _canonical(value: Any) -> Any:
    """A hashable form equal for JSON-equal values (``1`` and ``1.0``; never ``true``
    and ``1``), so ``uniqueItems`` is one pass."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, Mapping):
        return ("object", frozenset((_key_text(k), _canonical(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("array", tuple(_canonical(v) for v in value))
    return value


def _same(a: Any, b: Any) -> bool:
    from .comparators import json_equal

    return json_equal(a, b)


def _mentions(schema: Any, keywords: tuple[str, ...]) -> bool:
    """Whether any subschema of the document uses one of ``keywords``."""
    return any(key in node for node in subschemas(schema) for key in keywords)


# -- formats -------------------------------------------------------------------------------
_DATE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_TIME: Final = re.compile(r"(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))", re.ASCII)
_DURATION: Final = re.compile(
    r"P(?:\d+W|(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+S)?)?)",
    re.ASCII,
)
_HOST_LABEL: Final = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)", re.ASCII)
_UUID: Final = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}", re.ASCII)
_UCSCHAR: Final = (
    r"\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    + "".join(rf"\U{plane:04x}0000-\U{plane:04x}fffd" for plane in range(1, 14))
    + r"\U000e1000-\U000efffd"
)
"""RFC 3987's ucschar: the characters an IRI may hold unescaped beyond a URI's."""
_IPRIVATE: Final = r"\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_IP_FUTURE: Final = re.compile(r"v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+", re.ASCII)


def _uri_grammar(extra: str, private: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """RFC 3986's ``URI`` and ``relative-ref`` (with RFC 3987's characters in ``extra`` and
    ``private``, its IRI forms) as regexes; an IP literal's inside is checked apart."""
    unreserved = rf"A-Za-z0-9\-._~{extra}"
    sub = r"!$&'()*+,;="
    pct = r"%[0-9A-Fa-f]{2}"
    pchar = rf"(?:[{unreserved}{sub}:@]|{pct})"
    authority = (
        rf"(?:(?:[{unreserved}{sub}:]|{pct})*@)?"  # userinfo
        rf"(?:\[(?P<literal>[^\]]*)\]|(?:[{unreserved}{sub}]|{pct})*)"  # host
        r"(?::[0-9]*)?"  # port
    )
    segments = rf"(?:/{pchar}*)*"
    tail = rf"(?:\?(?:{pchar}|[/?{private}])*)?(?:#(?:{pchar}|[/?])*)?"
    first = rf"(?://{authority}{segments}|/(?:{pchar}+{segments})?"
    absolute = rf"[A-Za-z][A-Za-z0-9+\-.]*:{first}|{pchar}+{segments}|){tail}"
    no_scheme = rf"(?:[{unreserved}{sub}@]|{pct})+{segments}"  # no ":" in the first segment
    relative = rf"{first}|{no_scheme}|){tail}"
    return re.compile(absolute), re.compile(relative)


_URI, _RELATIVE_URI = _uri_grammar("", "")
_IRI, _RELATIVE_IRI = _uri_grammar(_UCSCHAR, _IPRIVATE)
_QUOTED_LOCAL: Final = re.compile(
    r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e]|(?!\s)[^\x00-\x7f])*"'
)
"""RFC 5321's Quoted-string (printable ASCII and space, ``\\`` pairs), with RFC 6531's
non-ASCII characters (but white space)."""
_POINTER: Final = re.compile(r"(?:/(?:[^~/]|~[01])*)*")
_RELATIVE_POINTER: Final = re.compile(r"(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~[01])*)*)", re.ASCII)


def _is_date(text: str) -> bool:
    found = _DATE.fullmatch(text)
    if found is None:
        return False
    try:
        date(int(found[1]), int(found[2]), int(found[3]))
    except ValueError:
        return False
    return True


def _is_time(text: str) -> bool:
    found = _TIME.fullmatch(text)
    if found is None:
        return False
    hour, minute, second = int(found[1]), int(found[2]), int(found[3])
    offset = 0
    if found[6] is not None:
        if int(found[6]) > 23 or int(found[7]) > 59:
            return False
        offset = (int(found[6]) * 60 + int(found[7])) * (-1 if found[5][0] == "-" else 1)
    if hour > 23 or minute > 59 or second > 60:
        return False
    # A leap second is the last second of a UTC day: 23:59:60 once the offset is taken off.
    return second < 60 or (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


def _is_date_time(text: str) -> bool:
    day, sep, clock = text.partition("T") if "T" in text else text.partition("t")
    return bool(sep) and _is_date(day) and _is_time(clock)


def _is_email(text: str, *, international: bool = False) -> bool:
    """An ``@``, and no white space but inside RFC 5321's quoted local part
    (``"john doe"@example.com``; RFC 6531's non-ASCII characters too when ``international``)."""
    local, at, domain = text.rpartition("@")
    if not (at and local and domain) or any(c.isspace() for c in domain):
        return False
    quoted = _QUOTED_LOCAL.fullmatch(local)
    if quoted is not None and (international or local.isascii()):
        return True
    return not any(c.isspace() for c in local)


def _is_hostname(text: str) -> bool:
    name = text[:-1] if text.endswith(".") else text
    return 0 < len(name) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in name.split("."))


def _is_ip(version: type[ipaddress.IPv4Address] | type[ipaddress.IPv6Address]) -> Any:
    def test(text: str) -> bool:
        if "%" in text:  # a zone id (fe80::1%eth0) is not part of an address
            return False
        try:
            version(text)
        except ValueError:
            return False
        return True

    return test


def _is_uri(text: str, grammars: tuple[re.Pattern[str], ...]) -> bool:
    """RFC 3986's grammar (RFC 3987's for an IRI), as one of ``grammars`` (``URI``, then
    ``relative-ref`` for a reference); an IP literal host is an IPv6 address without a zone
    id, or an ``IPvFuture``."""
    for grammar in grammars:
        found = grammar.fullmatch(text)
        if found is None:
            continue
        literal = found["literal"]
        return (
            literal is None
            or _IP_FUTURE.fullmatch(literal) is not None
            or _is_ip(ipaddress.IPv6Address)(literal)
        )
    return False


def _is_regex(text: str) -> bool:
    return is_ecma_regex(text)


_FORMATS: Final = {
    "date": _is_date,
    "time": _is_time,
    "date-time": _is_date_time,
    "duration": lambda text: _DURATION.fullmatch(text) is not None,
    "email": _is_email,
    "idn-email": lambda text: _is_email(text, international=True),
    "hostname": _is_hostname,
    "ipv4": _is_ip(ipaddress.IPv4Address),
    "ipv6": _is_ip(ipaddress.IPv6Address),
    "uri": lambda text: _is_uri(text, (_URI,)),
    "uri-reference": lambda text: _is_uri(text, (_URI, _RELATIVE_URI)),
    "iri": lambda text: _is_uri(text, (_IRI,)),
    "iri-reference": lambda text: _is_uri(text, (_IRI, _RELATIVE_IRI)),
    "uuid": lambda text: _UUID.fullmatch(text) is not None,
    "regex": _is_regex,
    "json-pointer": lambda text: _POINTER.fullmatch(text) is not None,
    "relative-json-pointer": lambda text: _RELATIVE_POINTER.fullmatch(text) is not None,
}
CHECKED_FORMATS: Final = frozenset(_FORMATS)
"""The ``format`` values checked (unless ``formats=False``); others are annotations."""
