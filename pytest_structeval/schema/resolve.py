"""Turn a real JSON Schema into a plain, reference-free evaluation schema.

The output has only what scoring needs (``type``, ``properties``, ``patternProperties``,
``items``, ``required``, ``additionalProperties``: a flag, or the resolved schema of a map's
values) plus the annotations and ``x-eval-*`` keys it found: ``$ref``/``allOf`` are merged in,
``anyOf``/``oneOf`` become one shape, and recursion is cut at a bound into an opaque leaf that
is scored as one value. Every walk is iterative and bounded, so no input can raise
``RecursionError`` or expand without limit.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote, urljoin

from ..errors import SchemaError, hide_usage_error
from ..paths import index_path, key_path
from .tree import (
    declared_types,
    inferred_types,
    unexpanded_comment,
    warn_schema,
    written_table,
)

# Every frame of this module reads a user's schema: pytest hides them all when the error is
# one of ours (a bad schema) or a schema's warning a filter made an error, so the traceback
# ends at the user's call (errors.hide_usage_error; any other error, a bug, shows them).
__tracebackhide__ = hide_usage_error

__all__ = ["ExternalReferenceError", "resolve_schema_references"]

_DRAFT: Final = re.compile(r"draft-0([3-7])/|draft/(2019-09)/")

#: Keywords whose value maps names to subschemas, and those holding one subschema or a list.
_SUB_MAPS = frozenset(
    {"properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"}
)
_SUB_SCHEMAS = frozenset(
    {
        "additionalProperties", "additionalItems", "items", "prefixItems", "allOf", "anyOf",
        "oneOf", "not", "if", "then", "else", "contains", "propertyNames",
        "unevaluatedProperties", "unevaluatedItems",
    }
)  # fmt: skip
_REF_KEYS = ("$ref", "$recursiveRef", "$dynamicRef")
#: Keywords consumed by resolution (or ignored on purpose): never copied to the output.
_CONSUMED = _SUB_MAPS | _SUB_SCHEMAS | frozenset(
    {
        *_REF_KEYS, "type", "nullable", "required", "dependentRequired",
        "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor",
    }
)  # fmt: skip
_MAX_UNION_NESTING = 64
_ANCHOR_KEYS: Final = {"": ("$anchor", "$dynamicAnchor"), "2019-09": ("$anchor",)}
"""The anchor keywords of a draft (``""``: 2020-12, or no ``$schema``). Before 2019-09 there
are none: an anchor is an ``$id`` (draft-04's ``id``) that is a fragment, and ``$anchor`` is
an annotation."""


class ExternalReferenceError(SchemaError):
    """A ``$ref`` points outside the document (another file or a URL); inline it first."""


def declared_draft(schema: Any) -> str:
    """The draft a document's ``$schema`` declares: ``"03"`` to ``"07"``, ``"2019-09"``, or
    ``""`` for 2020-12, another meta-schema or none (read as 2020-12). (The names sort by age.)"""
    declared = schema.get("$schema") if isinstance(schema, Mapping) else None
    found = _DRAFT.search(declared) if isinstance(declared, str) else None
    if found is None:
        return ""
    return f"0{found[1]}" if found[1] else str(found[2])


@dataclass(frozen=True, slots=True)
class _Unread:
    """A subschema named only by the other draft's keyword (``id`` where ``$id`` is read,
    ``$id`` in draft-03/04), and where it is in the document as read."""

    node: Any
    keyword: str
    at: int  # its index in its document's ``trail``


@dataclass(frozen=True, slots=True)
class Document:
    """What a ``$ref`` inside one schema document can name: its resources (the root and every
    subschema with an ``$id``, or ``id`` in a draft-03/04 document, each under the absolute URI
    its ids join to) and their anchors, so refs to them stay internal. The other draft's
    keyword is an annotation (tools leave an ``id`` in later drafts' schemas), except that the
    root of a document without ``$schema`` or ``$id`` is named by its ``id``, and that in a
    document without ``$schema`` a ``$ref`` that nothing else resolves but a subschema's
    ``id`` does names that subschema (nothing else can be meant). With a ``$schema``, such a
    ref's error says which subschema the unread keyword names."""

    root: Any
    base: str
    ids: dict[str, Any]  # absolute URI (and the id as written) -> resource
    anchors: dict[str, Any]  # anchor name -> the first schema that declares it
    scoped: dict[str, Any]  # "<resource URI>#<anchor>" -> schema
    uris: dict[int, str]  # id() of a resource -> its absolute URI
    draft: str  # as declared_draft reads it
    # the other draft's ids (URI, as written, "#<anchor>", "<URI>#<anchor>") -> the subschema
    unread: dict[str, _Unread]
    trail: list[tuple[int, str]]  # locates an `unread` subschema (see _unread_ids)
    fallback: bool  # no $schema: a ref nothing else resolves may name an `unread` subschema
    paths: dict[int, str] = field(default_factory=dict)  # id() of an object -> path_of's

    @classmethod
    def of(cls, root: Any) -> Document:
        base = ""
        draft = declared_draft(root)
        id_key = root_key = "id" if draft in ("03", "04") else "$id"
        # Before 2019-09 every sibling of a `$ref` is ignored, its id too (but for an anchor).
        ref_hides_id = draft.startswith("0")
        if isinstance(root, Mapping):
            if "$schema" not in root and "$id" not in root:
                # A draft-04-style document without $schema names itself with `id`: as the
                # root's, it only names the document (no fragment ref is sent elsewhere).
                root_key = "id"
            root_id = root.get(root_key)
            if isinstance(root_id, str) and not (ref_hides_id and "$ref" in root):
                base = root_id.partition("#")[0]
        ids: dict[str, Any] = {base: root} if base else {}
        anchors: dict[str, Any] = {}
        scoped: dict[str, Any] = {}
        uris: dict[int, str] = {}
        bases: dict[int, str] = {}  # id() of a node -> the base URI in force inside it
        other = "$id" if id_key == "id" else "id"
        unread_seen = False
        for node, parent in subschema_pairs(root):
            unread_seen = unread_seen or isinstance(node.get(other), str)
            here = base if parent is None else bases[id(parent)]
            value = node.get(id_key if parent is not None else root_key)
            if isinstance(value, str) and not (
                ref_hides_id and "$ref" in node and not value.startswith("#")
            ):
                uri, _, frag = value.partition("#")
                if uri:
                    here = urljoin(here, uri) if parent is not None else base
                    ids.setdefault(here, node)
                    ids.setdefault(uri, node)
                    uris[id(node)] = here
                if frag and not frag.startswith("/"):
                    anchors.setdefault(frag, node)
                    scoped.setdefault(f"{here}#{frag}", node)
            bases[id(node)] = here
            for key in _ANCHOR_KEYS.get(draft, ()):
                if isinstance(node.get(key), str):
                    anchors.setdefault(node[key], node)
                    scoped.setdefault(f"{here}#{node[key]}", node)
        unread, trail = _unread_ids(root, other, base, uris) if unread_seen else ({}, [])
        fallback = isinstance(root, Mapping) and "$schema" not in root
        return cls(root, base, ids, anchors, scoped, uris, draft, unread, trail, fallback)

    def locate(self, ref: str, base: str, where: str) -> tuple[Any, str]:
        """The schema ``ref`` points to from inside the resource at ``base``, and its
        location (``#/pointer``, or ``<resource URI>#/pointer`` in an embedded resource);
        ``ExternalReferenceError`` for another document, ``SchemaError`` for a pointer or
        anchor that names nothing."""
        target = urljoin(base, ref) if base else ref
        uri, _, frag = target.partition("#")
        doc: Any = self.root
        at = f"{'' if uri == self.base else uri}#"  # where `frag` starts
        if uri:
            doc = self.ids.get(uri, self.ids.get(urljoin(self.base, uri)))
            if doc is None:
                named = self._unread(uri, urljoin(self.base, uri), ref.partition("#")[0])
                if named is None:
                    raise ExternalReferenceError(
                        f"{where}: external reference {ref!r} is not supported; "
                        "inline the referenced schema into this document"
                    )
                if not self.fallback:
                    raise ExternalReferenceError(f"{where}: reference {ref!r}: {self._hint(named)}")
                doc, at = named.node, self._location(named)
        frag = unquote(frag)
        if frag and not frag.startswith("/"):
            found = self.scoped.get(f"{uri}#{frag}", self.anchors.get(frag))
            if found is not None:
                return found, f"{at}{frag}"
            named = self._unread(f"{uri}#{frag}", f"#{frag}")
            if named is not None and self.fallback:
                return named.node, self._location(named)
            hint = (
                f" ({self._hint(named, anchor=True)})"
                if named is not None
                else _unread_anchor(self.root, frag)
            )
            raise SchemaError(f"{where}: reference {ref!r} names an unknown anchor {frag!r}{hint}")
        tokens = frag[1:].split("/") if frag else []
        inside = 0  # the tokens before this one are in another resource than `doc`
        for index, written in enumerate(tokens):
            token = written.replace("~1", "/").replace("~0", "~")
            if isinstance(doc, Mapping) and token in doc:
                doc = doc[token]
            elif isinstance(doc, list) and token.isdigit() and int(token) < len(doc):
                doc = doc[int(token)]
            else:
                raise SchemaError(f"{where}: reference {ref!r} points to nothing (no {token!r})")
            resource = self.uris.get(id(doc))
            if resource is not None:  # a pointer into an embedded resource: it is the base
                at, inside = f"{'' if resource == self.base else resource}#", index + 1
        return doc, at + "".join(f"/{token}" for token in tokens[inside:])

    def path_of(self, node: Any) -> str | None:
        """Where the object ``node`` (a subschema, or a mapping inside one such as its
        ``patternProperties``) is written in the document, found by identity: its path as
        messages and a schema file's lines name it (``$defs.W.properties.a``, ``anyOf[0]``;
        ``""``: the root), so a warning about it points at its line; None for an object not
        in the document (one resolution made). The index is built on first use: a warning's."""
        if not self.paths and isinstance(self.root, Mapping):
            stack: list[tuple[str, Any]] = [("", self.root)]
            while stack:
                where, value = stack.pop()
                if id(value) in self.paths:  # (an object the document holds twice)
                    continue
                self.paths[id(value)] = where
                if isinstance(value, Mapping):
                    inner = [(key_path(where, key), child) for key, child in value.items()]
                else:
                    inner = [(index_path(where, i), child) for i, child in enumerate(value)]
                stack.extend(pair for pair in inner if isinstance(pair[1], (Mapping, list)))
        return self.paths.get(id(node))

    def _unread(self, *names: str) -> _Unread | None:
        return next((self.unread[name] for name in names if name in self.unread), None)

    def _location(self, named: _Unread) -> str:
        """Where ``named`` is in the document as read: ``#/pointer``, or ``<resource
        URI>#/pointer`` inside an embedded resource."""
        tokens: list[str] = []
        parent, token = self.trail[named.at]
        while parent >= 0:
            tokens.append(token)
            parent, token = self.trail[parent]
        resource = "" if token == self.base else token
        return f"{resource}#" + "".join(f"/{token}" for token in reversed(tokens))

    def _hint(self, named: _Unread, *, anchor: bool = False) -> str:
        """Why a ref that names ``named`` by the other draft's keyword is not resolved."""
        reading = f"draft-{self.draft}" if self.draft.startswith("0") else self.draft or "2020-12"
        keyword = "id" if self.draft in ("03", "04") else "$id"
        if anchor and not self.draft.startswith("0"):
            keyword = "$anchor"
        verb = "declare" if anchor else "name"
        return (
            f"the subschema at {self._location(named)} {verb}s it by its {named.keyword!r}, which "
            f"a {reading} document does not read: {verb} it with {keyword!r}"
        )


def _unread_ids(
    root: Any, keyword: str, base: str, uris: dict[int, str]
) -> tuple[dict[str, _Unread], list[tuple[int, str]]]:
    """The subschemas ``keyword`` names (the other draft's id), under every name a ref could
    give them (joined to the ids above, of either keyword); and the trail that locates them in
    the document as read: per schema visited, its parent's index and its pointer token from
    there (-1 and the URI of its resource for a resource's root)."""
    unread: dict[str, _Unread] = {}
    trail: list[tuple[int, str]] = []
    stack: list[tuple[Any, str, int, str]] = [(root, base, -1, base)]  # node, base, parent, token
    while stack:
        node, here, parent, token = stack.pop()
        if not isinstance(node, Mapping):
            continue
        at = len(trail)
        if id(node) in uris:  # a resource as read: its id is the base here too
            here = uris[id(node)]
            trail.append((-1, here))
        else:
            trail.append((parent, token))
        value = node.get(keyword)
        if isinstance(value, str):
            uri, _, frag = value.partition("#")
            if uri:
                here = urljoin(here, uri)
            names: tuple[str, ...] = (here, uri) if uri else ()
            if frag and not frag.startswith("/"):
                names += (f"#{frag}", f"{here}#{frag}")
            for name in names:
                unread.setdefault(name, _Unread(node, keyword, at))
        for key, child in node.items():
            if key in _SUB_MAPS and isinstance(child, Mapping):
                stack.extend(
                    (sub, here, at, f"{_token(key)}/{_token(name)}") for name, sub in child.items()
                )
            elif key in _SUB_SCHEMAS and isinstance(child, list):
                stack.extend(
                    (sub, here, at, f"{_token(key)}/{index}") for index, sub in enumerate(child)
                )
            elif key in _SUB_SCHEMAS:
                stack.append((child, here, at, _token(key)))
    return unread, trail


def _token(key: Any) -> str:
    """``key`` as a JSON Pointer token."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _unread_anchor(root: Any, name: str) -> str:
    """Why a ``$anchor`` named ``name`` is not read, if one is there (a draft before 2019-09)."""
    draft = declared_draft(root)
    if draft in _ANCHOR_KEYS or not any(node.get("$anchor") == name for node in subschemas(root)):
        return ""
    keyword = "id" if draft in ("03", "04") else "$id"
    return (
        f" ($anchor is a keyword from 2019-09 on; in this draft-{draft} document an anchor is "
        f"written {keyword!r}: '#{name}')"
    )


@dataclass(frozen=True, slots=True)
class _Src:
    """A piece of schema to resolve, with the ``$ref`` targets entered on the way to it."""

    schema: Any  # a raw schema (dict/bool), or a _Group built while merging
    chain: tuple[int, ...]  # id() of every ref target expanded above this point
    where: str  # location in the document, for messages
    base: str = ""  # the URI of the resource it is in, its refs' base ("": the document's)

    def child(self, schema: Any, where: str) -> _Src:
        """A subschema of this one, at ``where``: same references above it, same base."""
        return _Src(schema, self.chain, where, self.base)


@dataclass(frozen=True, slots=True)
class _Group:
    """Synthetic schema: ``all`` = allOf of members, ``any`` = anyOf of members."""

    kind: str
    members: tuple[_Src, ...]


@dataclass(slots=True)
class _Shape:
    """One node's merged constraints; children stay unresolved ``_Src`` groups."""

    types: frozenset[str] | None = None  # None: unconstrained
    keys: dict[str, Any] = field(default_factory=dict)
    properties: dict[str, list[_Src]] = field(default_factory=dict)
    items: list[_Src] = field(default_factory=list)
    required: dict[str, None] = field(default_factory=dict)  # ordered set
    additional: bool | None = None
    values: list[_Src] = field(default_factory=list)  # additionalProperties schemas
    patterns: dict[str, list[_Src]] = field(default_factory=dict)  # patternProperties schemas


MAX_REF_CHAIN: Final = 2_500
"""References followed on one path of the schema before the next one becomes an opaque unit:
each hop checks the path's references for recursion, so a chain of tens of thousands of
aliases took 25 s (the 396 real schemas follow at most 18; 2,500 take 0.2 s)."""


def resolve_schema_references(
    schema: Mapping[str, Any] | bool, *, max_recursion: int = 1, max_nodes: int = 5_000
) -> dict[str, Any]:
    """Resolve refs and combinators of ``schema`` into a new plain schema (input untouched).

    ``max_recursion``: how many times a ``$ref`` may be re-entered inside its own expansion
    before it becomes an opaque leaf (a unit keeping the target's ``type`` and a ``$comment``).
    ``max_nodes``: after this many output nodes every further ``$ref`` becomes such a leaf, so
    densely recursive schemas stay small (nodes are expanded breadth-first: the cut is deepest).
    """
    if max_recursion < 0 or max_nodes < 1:
        raise ValueError("max_recursion must be >= 0 and max_nodes >= 1")
    return _Resolver(schema, max_recursion, max_nodes).run()


class _Resolver:
    def __init__(self, root: Any, max_recursion: int, max_nodes: int) -> None:
        if not isinstance(root, (Mapping, bool)):
            raise SchemaError(f"a schema must be an object or a boolean, got {type(root).__name__}")
        self.root = root
        self.max_recursion = max_recursion
        self.max_nodes = max_nodes
        self.exhausted = False
        self.document = Document.of(root)
        # (id of a branch's schema, its chain, where, base, nesting) -> (the branch, its
        # shape), for the node being shaped (the budget's state may change between nodes)
        self._branches: dict[tuple[int, tuple[int, ...], str, str, int], tuple[_Src, _Shape]] = {}
        # within a file's warnings (see written_table): the document's objects merged into
        # the node being resolved, in the order _flatten reads them
        self._pieces: list[Mapping[str, Any]] | None = None
        # the mapping that holds the last reference to another document, and its key
        self._external: tuple[Mapping[str, Any], str] | None = None

    def _deref(self, src: _Src, key: str) -> _Src:
        """The target of the reference ``src`` makes under ``key`` (``$ref``...)."""
        ref = src.schema[key]
        where = key_path(src.where, key)  # (the key written: $dynamicRef too)
        if not isinstance(ref, str):
            raise SchemaError(f"{where}: must be a string, got {ref!r}")
        # Read from the resource the ref is in (a subschema's `$id`, draft-04's `id`), as a
        # validator reads it: `#/definitions/x` there is that resource's, not the root's.
        try:
            target, location = self.document.locate(ref, src.base or self.document.base, where)
        except ExternalReferenceError:
            self._external = (src.schema, key)
            raise
        marker = id(target)
        chain = src.chain
        if (
            not self.exhausted
            and len(chain) <= MAX_REF_CHAIN  # (the root is in it too)
            and chain.count(marker) <= self.max_recursion
        ):
            return _Src(target, (*chain, marker), _ref_where(ref), location.partition("#")[0])
        if self.exhausted:
            reason = f"node budget max_nodes={self.max_nodes} reached"
        elif len(chain) > MAX_REF_CHAIN:
            reason = f"more than {MAX_REF_CHAIN} references followed on one path"
        else:
            reason = f"recursion deeper than max_recursion={self.max_recursion}"
        opaque: dict[str, Any] = {"$comment": unexpanded_comment(ref, reason)}
        if isinstance(target, Mapping) and isinstance(target.get("type"), (str, list)):
            opaque["type"] = target["type"]
        return _Src(opaque, src.chain, src.where)

    # -- one node --------------------------------------------------------------------------
    def _flatten(self, src: _Src) -> list[tuple[Mapping[str, Any], _Src]]:
        """Expand ``$ref`` and ``allOf`` into pieces, most specific first (siblings win)."""
        out: list[tuple[Mapping[str, Any], _Src]] = []
        stack = [src]
        while stack:
            s = stack.pop()
            schema = s.schema
            if isinstance(schema, _Group):
                if schema.kind == "all":
                    stack.extend(reversed(schema.members))
                else:
                    out.append(({"anyOf": list(schema.members)}, s))
                continue
            if isinstance(schema, bool):
                continue  # true/false add no shape we can score
            if not isinstance(schema, Mapping):
                raise SchemaError(
                    f"{s.where or 'schema'}: a schema must be an object or a boolean, "
                    f"got {type(schema).__name__}"
                )
            uri = self.document.uris.get(id(schema))
            if uri is not None:  # the root of its own resource: its refs resolve against it
                s = _Src(schema, s.chain, s.where, "" if uri == self.document.base else uri)
            pending: list[_Src] = []
            for key in _REF_KEYS:
                if key in schema:
                    pending.append(self._deref(s, key))
            all_of = schema.get("allOf")
            if all_of is not None:
                pending.extend(_branches(all_of, s, "allOf"))
            out.append((schema, s))
            if self._pieces is not None:
                self._pieces.append(schema)
            stack.extend(reversed(pending))
        return out

    def _shape(self, src: _Src, nesting: int = 0) -> _Shape:
        """Merge every piece of ``src`` (allOf semantics) into one shape."""
        if nesting > _MAX_UNION_NESTING:
            raise SchemaError(
                f"{src.where or 'schema'}: anyOf/oneOf nested deeper than {_MAX_UNION_NESTING}"
            )
        shapes: list[_Shape] = []
        for schema, s in self._flatten(src):
            shapes.append(_piece_shape(schema, s))
            for key in ("anyOf", "oneOf"):
                if key in schema:
                    shapes.append(self._union(_branches(schema[key], s, key), nesting + 1, s.where))
            outcomes = [
                s.child(schema[key], key_path(s.where, key))
                for key in ("then", "else")
                if key in schema
            ]
            if outcomes:  # if/then/else: fields of either outcome are optional fields here
                shapes.append(self._union(outcomes, nesting + 1, s.where, conditional=True))
            dependents = _dependent_schemas(schema, s)
            if dependents:  # applied when their key is there: optional fields too
                shapes.append(self._union(dependents, nesting + 1, s.where, conditional=True))
        merged = self._intersect(shapes, src.where)
        if merged.types is None:
            merged.types = _implied_types(merged)
        return merged

    def _branch_shape(self, branch: _Src, nesting: int) -> _Shape:
        """``_shape`` of a union's branch, worked out once per node: branches that refer to
        one schema, nested, took time exponential in the schema's depth (40 levels of
        ``anyOf`` never ended). The memo keeps the branch, so its ids stay its own."""
        key = (id(branch.schema), branch.chain, branch.where, branch.base, nesting)
        known = self._branches.get(key)
        if known is None:
            known = self._branches[key] = (branch, self._shape(branch, nesting))
        return known[1]

    def _union(
        self, branches: list[_Src], nesting: int, where: str, *, conditional: bool = False
    ) -> _Shape:
        """anyOf/oneOf: null branches make the node nullable; one type merges; several: a unit.

        An unconstrained branch makes the union unconstrained, except for ``conditional``
        (then/else, dependent schemas) outcomes, where it only contributes nothing; they add
        optional fields and never narrow the node's own type (``["string", "object"]`` stayed
        ``object``, refusing a string gold), require them or close the object.
        """
        shapes = [self._branch_shape(b, nesting) for b in branches]
        if conditional:
            shapes = [s for s in shapes if s.types is not None]
        if not shapes or any(s.types is None for s in shapes):
            return _Shape()
        nullable = any("null" in s.types for s in shapes if s.types is not None)
        real = [s for s in shapes if s.types is not None and s.types - {"null"}]
        kinds = _collapse({t for s in real for t in s.types or () if t != "null"})
        null = {"null"} if nullable else set()
        if len(kinds) != 1:
            return _Shape() if conditional else _Shape(types=frozenset(kinds | null))
        out = _Shape(types=frozenset(kinds | null))
        for s in real:
            for key, value in s.keys.items():
                self._keep_first(out.keys, key, value, where)
        names = {name: None for s in real for name in s.properties}
        for name in names:
            groups = [_all(s.properties[name]) for s in real if name in s.properties]
            out.properties[name] = [_any(groups)]
        item_groups = [_all(s.items) for s in real if s.items]
        if item_groups:
            out.items = [_any(item_groups)]
        value_groups = [_all(s.values) for s in real if s.values]
        if value_groups:
            out.values = [_any(value_groups)]
        for pattern in {pattern: None for s in real for pattern in s.patterns}:
            groups = [_all(s.patterns[pattern]) for s in real if pattern in s.patterns]
            out.patterns[pattern] = [_any(groups)]
        common = set.intersection(*(set(s.required) for s in real)) if real else set()
        out.required = {name: None for s in real for name in s.required if name in common}
        flags = {s.additional for s in real}
        out.additional = True if True in flags else (False if flags == {False} else None)
        if conditional:  # (what an outcome requires or closes, only when it applies)
            out.types, out.required, out.additional = None, {}, None
        return out

    def _keep_first(self, keys: dict[str, Any], key: str, value: Any, where: str) -> None:
        """Merge one key of a branch: the first branch's value stays, as struct_extract_eval's
        ``merge_all_of`` keeps it; branches setting an ``x-eval-*`` key differently warn,
        naming the schema node ``where`` they meet, at the line that writes the value left
        out, as a tolerance or comparator of the others is then lost."""
        first = keys.setdefault(key, value)
        if first is not value and key.startswith("x-eval-") and first != value:
            holder = next((p for p in self._pieces or () if p.get(key) is value), None)
            path = None if holder is None else self.document.path_of(holder)
            warn_schema(
                f"{where or 'schema'}: branches of anyOf/allOf/oneOf set {key} differently "
                f"({first!r} and {value!r}): the first is used",
                stacklevel=5,
                at=None if path is None else (path, key),
            )

    def _intersect(self, shapes: list[_Shape], where: str) -> _Shape:
        """allOf: types intersect (integer fits number), properties merge deeply, required
        unions (``where``: the node, for a warning)."""
        out = _Shape()
        for s in shapes:
            if s.types is not None:
                out.types = (
                    s.types if out.types is None else (_meet(out.types, s.types) or out.types)
                )
            for key, value in s.keys.items():
                self._keep_first(out.keys, key, value, where)
            for name, group in s.properties.items():
                out.properties.setdefault(name, []).extend(group)
            out.items.extend(s.items)
            out.values.extend(s.values)
            for pattern, group in s.patterns.items():
                out.patterns.setdefault(pattern, []).extend(group)
            out.required.update(s.required)
            if s.additional is False or (s.additional is True and out.additional is None):
                out.additional = s.additional
        return out

    def _node_shape(self, src: _Src, values: _KeySchema | None) -> _Shape | None:
        """:meth:`_shape` of one node; None when the schema of a map's or pattern's keys
        (``values``) reaches another document: those keys are left unscored, with a warning
        given once the error is handled (under an error filter, the warning alone)."""
        try:
            return self._shape(src)
        except ExternalReferenceError as exc:
            if values is None:
                raise
            reason = exc
        values.drop(reason, self._reference_at())
        return None

    def _reference_at(self) -> tuple[str, str] | None:
        """Where the document writes the last reference to another document: the path of
        the object that holds it, and its key."""
        if self._external is None:
            return None
        holder, key = self._external
        path = self.document.path_of(holder)
        return None if path is None else (path, key)

    # -- the whole document -----------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        # Breadth-first, in two rounds: what ``patternProperties`` reach goes to ``later``, so
        # pattern schemas (often recursive) never take the node budget from declared structure.
        # (each job: what to resolve, its output object and that object's path in the result,
        # None when nothing notes what nodes are made of: no file's warnings)
        written = written_table()
        root_at = None if written is None else ""
        queue: deque[tuple[_Src, dict[str, Any], _KeySchema | None, bool, str | None]] = deque(
            [(_Src(self.root, (id(self.root),), ""), result, None, False, root_at)]
        )
        later: deque[tuple[_Src, dict[str, Any], _KeySchema | None, bool, str | None]] = deque()
        keyed: list[dict[str, Any]] = []  # objects given a values or pattern schema
        count = 0
        while queue or later:
            src, out, values, deferred, at = queue.popleft() if queue else later.popleft()
            if values is not None and values.dropped():
                continue
            count += 1
            if count > self.max_nodes:
                self.exhausted = True
            self._branches.clear()
            self._pieces = None if written is None else []
            shape = self._node_shape(src, values)
            if shape is None:
                continue
            if written is not None and at is not None and self._pieces:
                written[at] = (self.document.path_of, tuple(self._pieces))
            _emit(shape, out)
            push = later.append if deferred else queue.append
            for name, group in shape.properties.items():
                if name in out.get("properties", ()):
                    child = _below(at, "properties", name)
                    push((_fold(group), out["properties"][name], values, deferred, child))
            if "items" in out:
                push((_fold(shape.items), out["items"], values, deferred, _below(at, "items")))
            for pattern, target in out.get("patternProperties", {}).items():
                inner = _KeySchema(out, values, pattern)
                child = _below(at, "patternProperties", pattern)
                later.append((_fold(shape.patterns[pattern]), target, inner, True, child))
            if isinstance(out.get("additionalProperties"), dict):
                inner = _KeySchema(out, values)
                child = _below(at, "additionalProperties")
                push((_fold(shape.values), out["additionalProperties"], inner, deferred, child))
            if "patternProperties" in out or isinstance(out.get("additionalProperties"), dict):
                keyed.append(out)
        for out in keyed:  # a schema that states nothing only allows the keys it is for
            if out.get("additionalProperties") == {}:
                out["additionalProperties"] = True
            patterns = out.get("patternProperties", {})
            for pattern, target in patterns.items():
                if target == {}:
                    patterns[pattern] = True
        return result


@dataclass(slots=True)
class _KeySchema:
    """The schema of undeclared keys being resolved (in ``owner``), inside ``outer``: the
    ``additionalProperties`` schema of a map's values, or that of ``pattern``'s keys.

    Scoring such keys one by one is a refinement: when their schema reaches a reference outside
    the document, they fall back to being allowed unscored (with a warning) instead of failing
    a schema that is usable without it.
    """

    owner: dict[str, Any]
    outer: _KeySchema | None
    pattern: str | None = None
    gone: bool = False

    def dropped(self) -> bool:
        at: _KeySchema | None = self
        while at is not None:
            if at.gone:
                return True
            at = at.outer
        return False

    def drop(self, reason: Exception, at: tuple[str, str] | None) -> None:
        """Leave the keys unscored, with a warning about ``reason`` at ``at`` (the reference
        to another document: the path of the object that holds it, and its key)."""
        self.gone = True
        if self.pattern is None:
            self.owner["additionalProperties"] = True
            what = "the map's undeclared keys are"
        else:
            self.owner["patternProperties"][self.pattern] = True
            what = f"keys matching {self.pattern!r} are"
        warn_schema(f"{reason}; {what} left unscored", stacklevel=4, at=at)


def _below(at: str | None, *keys: str) -> str | None:
    """The path in the resolved schema of a child of the node at ``at``; None when paths are
    not noted (``at`` None: no file's warnings need them, so none is built)."""
    if at is None:
        return None
    for key in keys:
        at = key_path(at, key)
    return at


def _emit(shape: _Shape, out: dict[str, Any]) -> None:
    """Write a shape's own keys into ``out``; children get empty dicts filled later."""
    types = shape.types
    if types is not None:
        out["type"] = next(iter(types)) if len(types) == 1 else sorted(types)
    for key, value in shape.keys.items():
        out[key] = _copy(value)
    kinds = (types or frozenset()) - {"null"}
    if kinds == {"object"}:
        if shape.properties:
            out["properties"] = {name: {} for name in shape.properties}
        if shape.required:
            out["required"] = list(shape.required)
        if shape.patterns:
            out["patternProperties"] = {pattern: {} for pattern in shape.patterns}
        if shape.values and shape.additional is not False:
            out["additionalProperties"] = {}
        elif shape.additional is not None:
            out["additionalProperties"] = shape.additional
    elif kinds == {"array"} and shape.items:
        out["items"] = {}


def _piece_shape(schema: Mapping[str, Any], src: _Src) -> _Shape:
    """The shape one schema object states by itself (refs/allOf/unions handled by the caller)."""
    shape = _Shape(types=declared_types(schema, src.where))
    for key, value in schema.items():
        if key not in _CONSUMED:
            shape.keys[key] = value
    props = schema.get("properties")
    if props is not None:
        if not isinstance(props, Mapping):
            raise SchemaError(f"{key_path(src.where, 'properties')}: must be an object")
        base = key_path(src.where, "properties")
        for name, sub in props.items():
            if sub is not False:  # `false`: the property must not exist, so nothing to score
                shape.properties[str(name)] = [src.child(sub, key_path(base, str(name)))]
    shape.items = _item_sources(schema, src)
    required = schema.get("required")
    if isinstance(required, list):
        shape.required = {str(r): None for r in required if isinstance(r, str)}
    patterns = schema.get("patternProperties")
    if patterns is not None:
        base = key_path(src.where, "patternProperties")
        if not isinstance(patterns, Mapping):
            raise SchemaError(f"{base}: must be an object mapping patterns to schemas")
        for pattern, sub in patterns.items():
            if sub is not False:  # `false`: no key may match, so nothing to score
                where = key_path(base, str(pattern))
                shape.patterns[str(pattern)] = [src.child(sub, where)]
    extra = schema.get("additionalProperties")
    if extra is False:
        shape.additional = False
    elif extra is not None:
        shape.additional = True
    if isinstance(extra, Mapping) and extra:  # the schema of every undeclared key's value
        shape.values = [src.child(extra, key_path(src.where, "additionalProperties"))]
    if shape.types is None and ("enum" in schema or "const" in schema):
        shape.types = inferred_types(schema)
    return shape


def _item_sources(schema: Mapping[str, Any], src: _Src) -> list[_Src]:
    """``items``; a tuple (``items`` list, ``prefixItems``) becomes one item schema: their anyOf."""
    tuple_items = schema.get("prefixItems")
    items = schema.get("items")
    if tuple_items is None and not isinstance(items, list):
        return [] if items is None else [src.child(items, key_path(src.where, "items"))]
    members = []
    for key in ("prefixItems", "items", "additionalItems"):
        value = schema.get(key)
        if isinstance(value, list):
            members.extend(_branches(value, src, key))
        elif isinstance(value, Mapping):
            members.append(src.child(value, key_path(src.where, key)))
    return [_any(members)] if members else []


def _dependent_schemas(schema: Mapping[str, Any], src: _Src) -> list[_Src]:
    """The schemas ``dependentSchemas`` (and draft-04's ``dependencies``, whose arrays name
    required keys, no schema) apply when a key is present: the properties they declare are
    the record's too, which were otherwise never scored."""
    found: list[_Src] = []
    for keyword in ("dependentSchemas", "dependencies"):
        table = schema.get(keyword)
        if table is None:
            continue
        where = key_path(src.where, keyword)
        if not isinstance(table, Mapping):
            raise SchemaError(f"{where}: must be an object, got {type(table).__name__}")
        found.extend(
            src.child(sub, key_path(where, name))
            for name, sub in table.items()
            if isinstance(sub, (Mapping, bool))
        )
    return found


def _meet(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    both = set(a & b)
    if ("integer" in a and "number" in b) or ("number" in a and "integer" in b):
        both.add("integer")
    return frozenset(both)


def _collapse(kinds: set[str]) -> set[str]:
    """integer and number in one union are just number."""
    return kinds - {"integer"} if {"integer", "number"} <= kinds else kinds


def _implied_types(shape: _Shape) -> frozenset[str] | None:
    if (
        shape.properties
        or shape.required
        or shape.additional is not None
        or shape.values
        or shape.patterns
    ):
        return frozenset({"object"})
    if shape.items:
        return frozenset({"array"})
    return None


def _all(group: list[_Src]) -> _Src:
    return group[0] if len(group) == 1 else _Src(_Group("all", tuple(group)), (), group[0].where)


def _any(group: list[_Src]) -> _Src:
    return group[0] if len(group) == 1 else _Src(_Group("any", tuple(group)), (), group[0].where)


def _fold(group: list[_Src]) -> _Src:
    return _all(group) if group else _Src(True, (), "")


def _branches(value: Any, src: _Src, key: str) -> list[_Src]:
    """The located members of a schema list (synthetic members are already located)."""
    if not isinstance(value, list):
        raise SchemaError(f"{key_path(src.where, key)}: must be a list of schemas")
    base = key_path(src.where, key)
    return [v if isinstance(v, _Src) else src.child(v, f"{base}[{i}]") for i, v in enumerate(value)]


def _ref_where(ref: str) -> str:
    """A readable location for a ref target: ``#/definitions/a~1b`` -> ``definitions.a/b``."""
    frag = unquote(ref.partition("#")[2])
    where = ""
    for token in frag.split("/")[1:] if frag.startswith("/") else [frag] if frag else []:
        where = key_path(where, token.replace("~1", "/").replace("~0", "~"))
    return where


def subschemas(root: Any) -> Iterator[Mapping[str, Any]]:
    """Every schema object of the document (keyword-aware: ``enum`` data is not a schema)."""
    return (node for node, _ in subschema_pairs(root))


def subschema_pairs(root: Any) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any] | None]]:
    """Every schema object of the document with the one it sits in (None for the root);
    a parent comes before its children."""
    stack: list[tuple[Any, Mapping[str, Any] | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        if not isinstance(node, Mapping):
            continue
        yield node, parent
        for key, value in node.items():
            if key in _SUB_MAPS and isinstance(value, Mapping):
                stack.extend((child, node) for child in value.values())
            elif key in _SUB_SCHEMAS:
                stack.extend(
                    (child, node) for child in (value if isinstance(value, list) else [value])
                )


def _copy(value: Any) -> Any:
    """Iterative deep copy of plain JSON data (annotations such as ``enum`` or ``default``)."""
    if not isinstance(value, (dict, list)):
        return value
    top: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, top)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            copied = {} if isinstance(item, dict) else [] if isinstance(item, list) else item
            if isinstance(target, dict):
                target[key] = copied
            else:
                target.append(copied)
            if copied is not item:
                stack.append((item, copied))
    return top
