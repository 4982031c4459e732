"""The schema-driven walk: one gold/extracted record -> field results.

Policy (the reference's, with its inconsistencies removed):

* ``null`` is "no value" everywhere: a key holding ``null`` is treated like an absent key, for
  leaves and containers alike. Gold value vs extracted ``null`` is an omission, gold ``null``
  vs a value a hallucination, ``null`` vs ``null`` nothing.
* An empty container is a value: ``{}``/``[]`` vs absent is one omission (or hallucination) at
  the container path, ``{}`` vs ``{}`` one match — except at the record root, where two empty
  records simply have no fields.
* Keys outside the schema: a gold one is reported ``skipped`` with ``in_schema=False``
  ("unscored") whether or not the model reproduced it; a model-only one is a hallucination.
* ``x-eval-skip`` works on every node, array items and the root included.
* A transform or comparator that fails on a value makes that one field a mismatch with the
  reason; a comparator returning something other than a number in [0, 1] likewise.
* Arrays pair up through :mod:`pytest_structeval.align`; Hungarian pair similarity (the F1 of
  the pair) is computed column-wise over pre-transformed element fields (see ``_Matrix``).

Walks are recursive over the *schema*; data is never descended below it, and past
``MAX_DEPTH`` schema levels a node is compared as one value, so deep input cannot raise
``RecursionError``.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import chain, repeat
from operator import is_, is_not
from typing import Any, Final, NamedTuple, Protocol, TypeGuard

from ..align import KEY, ORDERED, Alignment, align, canonical_key
from ..paths import key_path
from ..registry import Registry, default_registry
from ..results import HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED
from .batch import BatchItem, PendingField, dispatch_batches, is_batch
from .comparators import (
    ComparatorResult,
    compare_exact,
    compare_numeric,
    compare_oneof,
    compare_similarity,
    json_equal,
    json_kind,
    numeric_match,
)
from .results import FieldResult, append_field_result
from .transforms import STRING_KERNELS
from .tree import SchemaNode

__all__ = ["MAX_DEPTH", "RecordScorer", "score_record"]

#: Schema levels walked structurally; deeper nodes are compared as one value.
MAX_DEPTH: Final = 100


class _Missing:
    """Marks an absent key (a ``null`` value is folded into it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Final = _Missing()


class _Failed:
    """A prepared value whose transforms failed: present, but it matches nothing."""

    __slots__ = ()


FAILED: Final = _Failed()

_NOT_IN_SCHEMA: Final = "not in the schema (unscored)"

#: Scalar types whose JSON equality is ``==`` between two values of the same type (NaN too).
_PLAIN: Final = frozenset({str, int, float, bool})


def _raw(value: Any) -> Any:
    return None if value is MISSING else value


def _is_object(value: Any) -> TypeGuard[Mapping[Any, Any]]:
    """``isinstance(value, Mapping)``, without the ABC machinery for plain dicts."""
    return type(value) is dict or isinstance(value, Mapping)


def _is_unit(node: SchemaNode) -> bool:
    """Scored as one value by its comparator (a leaf, or a container with ``x-eval-compare``)."""
    return node.compare is not None or (not node.properties and node.items is None)


def _same(value: Any) -> Any:
    return value


def _converter(
    transforms: tuple[tuple[str, Callable[..., Any], Mapping[str, Any]], ...],
) -> Callable[[Any], Any]:
    """One callable applying ``transforms`` (``FAILED`` when one of them rejects the value).

    Built once per leaf: the built-in string transforms become a direct chain of ``str``
    functions for string values (they cannot fail there), everything else goes through the
    checked transforms.
    """

    def checked(value: Any) -> Any:
        for _, fn, params in transforms:
            try:
                value = fn(value, params)
            except Exception:  # one bad value must not end the run; why() explains it
                return FAILED
        return value

    if not transforms:
        return _same
    kernels = [_kernel(fn) for _, fn, _ in transforms]
    if any(kernel is None for kernel in kernels):
        return checked
    chain = tuple(kernel for kernel in kernels if kernel is not None)
    if len(chain) == 1:
        (only,) = chain

        def one(value: Any) -> Any:
            return only(value) if type(value) is str else checked(value)

        return one
    if len(chain) == 2:
        first, second = chain

        def two(value: Any) -> Any:
            return second(first(value)) if type(value) is str else checked(value)

        return two

    def many(value: Any) -> Any:
        if type(value) is not str:
            return checked(value)
        for kernel in chain:
            value = kernel(value)
        return value

    return many


def _kernel(fn: Callable[..., Any]) -> Callable[[str], str] | None:
    """The plain string function behind a built-in string transform (by identity)."""
    return next((kernel for known, kernel in STRING_KERNELS.items() if known is fn), None)


class _Leaf:
    """A unit node's resolved comparator and transforms."""

    __slots__ = (
        "batch",
        "fn",
        "inline",
        "kind",
        "name",
        "node",
        "params",
        "plain",
        "prepare",
        "rel",
        "slot",
        "tol_abs",
        "transforms",
    )

    def __init__(self, node: SchemaNode, registry: Registry) -> None:
        spec = node.compare
        name = spec.name if spec is not None else "exact"
        self.node = node
        self.name = name
        self.params: Mapping[str, Any] = spec.params if spec is not None else {}
        self.fn = registry.comparators.get(name).fn
        self.batch = is_batch(self.fn)
        self.transforms = tuple(
            (t.name, registry.transforms.get(t.name).fn, t.params) for t in node.transforms
        )
        self.plain = not self.transforms  # compared as they are
        #: Apply the transforms left to right; ``FAILED`` when one of them rejects the value.
        self.prepare: Callable[[Any], Any] = _converter(self.transforms)
        # Built-ins get inlined fast paths (the walk's matches, the similarity matrix).
        self.kind = "exact" if self.batch or self.fn is compare_exact else "other"
        self.rel = self.tol_abs = None
        self.slot = -1  # position in the element plan of the array this node sits in
        if self.fn is compare_numeric:
            self.kind = "numeric"
            tolerance = self.params.get("tolerance") or {}
            self.rel, self.tol_abs = tolerance.get("rel"), tolerance.get("abs")
        #: How the walk decides a match inline: "exact" when equal plain values always match
        #: (``exact``, ``oneof``, ``similarity``), "numeric", or "" (judge() decides; batch).
        self.inline = "" if self.batch else self.kind
        if self.fn is compare_oneof or self.fn is compare_similarity:
            self.inline = "exact"

    def why(self, value: Any) -> str:
        """The message of the transform that rejects ``value`` (after ``prepare`` failed)."""
        for name, fn, params in self.transforms:
            try:
                value = fn(value, params)
            except Exception as exc:
                return f"transform {name!r} failed: {exc}"
        return "transforms failed"

    def score(self, gold: Any, extracted: Any) -> tuple[float, str | None, bool]:
        """(score, reason, skip) from the comparator; invalid answers become a 0 with a reason."""
        try:
            result = self.fn(gold, extracted, self.params)
        except Exception as exc:
            return 0.0, f"comparator {self.name!r} raised {exc!r}", False
        if isinstance(result, ComparatorResult):
            score: Any = result.score
            reason, skip = result.reason, result.skip
        else:
            score, reason, skip = result, None, False
        if isinstance(score, bool):
            score = float(score)
        if not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
            return 0.0, f"comparator {self.name!r} returned invalid score {score!r}", False
        return float(score), reason, skip

    def quick(self, gold: Any, extracted: Any) -> float:
        """Score only (no reasons), for the similarity matrix."""
        if gold is FAILED or extracted is FAILED:
            return 0.0
        if self.kind == "numeric":
            return 1.0 if numeric_match(gold, extracted, self.rel, self.tol_abs) else 0.0
        if self.kind == "exact":
            return 1.0 if json_equal(gold, extracted) else 0.0
        return self.score(gold, extracted)[0]


class _Child(NamedTuple):
    """A property of an object node, with what the walk needs precomputed."""

    name: str
    node: SchemaNode
    leaf: _Leaf | None  # set for a non-skipped unit: compared without dispatching
    nested: bool  # a non-skipped structural object (a nested level of an element plan)
    segment: str  # path piece under a parent: ".name" or '["odd.name"]'
    top: str  # the path at the root: "name" or '["odd.name"]'


def _child(name: str, node: SchemaNode, leaf: _Leaf | None) -> _Child:
    top = key_path("", name)
    segment = top if top.startswith("[") else "." + top
    nested = not node.skip and not _is_unit(node) and node.items is None
    return _Child(name, node, leaf, nested, segment, top)


class _Sink(Protocol):
    """Where the walk puts its verdicts: collected as results (``_Collect``) or counted."""

    def emit(
        self,
        status: str,
        score: float,
        path: str,
        schema_path: str,
        gold: Any,
        model: Any,
        reason: str | None = None,
        comparator: str = "",
        gold_compared: Any = None,
        extracted_compared: Any = None,
        in_schema: bool = True,
    ) -> None: ...

    def pend(self, leaf: _Leaf, item: BatchItem) -> None: ...

    def note(self, text: str) -> None: ...


class _Collect:
    __slots__ = ("emit", "notes", "pending", "results")

    def __init__(self) -> None:
        self.results: list[FieldResult] = []
        self.pending: list[PendingField] = []
        self.notes: list[str] = []
        # FieldResults go straight into the list: no extra call per field.
        self.emit = partial(append_field_result, self.results)

    def pend(self, leaf: _Leaf, item: BatchItem) -> None:
        self.pending.append(PendingField(len(self.results), leaf.name, leaf.fn, item))
        self.emit(
            MISMATCH,
            0.0,
            item.path,
            item.schema_path,
            item.gold_raw,
            item.extracted_raw,
            "awaiting batch comparator",
            leaf.name,
            item.gold_compared,
            item.extracted_compared,
        )

    def note(self, text: str) -> None:
        self.notes.append(text)


class _Count:
    """Sums for precision/recall/F1 without building results (the similarity matrix)."""

    __slots__ = ("both", "hallucinations", "omissions", "total")

    def __init__(self) -> None:
        self.total = 0.0
        self.both = self.omissions = self.hallucinations = 0

    def emit(
        self,
        status: str,
        score: float,
        path: str,
        schema_path: str,
        gold: Any,
        model: Any,
        reason: str | None = None,
        comparator: str = "",
        gold_compared: Any = None,
        extracted_compared: Any = None,
        in_schema: bool = True,
    ) -> None:
        if status in (MATCH, MISMATCH):
            self.both += 1
            self.total += score
        elif status == OMISSION:
            self.omissions += 1
        elif status == HALLUCINATION:
            self.hallucinations += 1

    def pend(self, leaf: _Leaf, item: BatchItem) -> None:
        # Batch comparators are not called per pair: exact equality stands in for them.
        self.both += 1
        self.total += 1.0 if json_equal(item.gold_compared, item.extracted_compared) else 0.0

    def note(self, text: str) -> None:
        """Notes only matter for the record's own alignment, not for pair similarities."""


class RecordScorer:
    """Scores records against one parsed schema; reuse it across the records of a run."""

    def __init__(self, schema: SchemaNode, registry: Registry | None = None) -> None:
        self.schema = schema
        self.registry = registry if registry is not None else default_registry()
        self._leaves: dict[SchemaNode, _Leaf] = {}
        self._children: dict[SchemaNode, tuple[_Child, ...]] = {}
        self._plans: dict[SchemaNode, _ElementPlan | None] = {}
        # Hungarian pairings of the record being scored, by (node, gold list, model list):
        # a nested array is paired once while its parent's pair similarities are computed and
        # reused when the chosen pair is walked, so nesting does not multiply the work.
        self._pairings: dict[tuple[int, int, int], tuple[Alignment, _Preparations | None]] | None
        self._pairings = None  # set while score() runs

    def score(self, gold: Any, extracted: Any) -> tuple[list[FieldResult], list[str]]:
        """Field results (batch comparators resolved) and alignment notes of one record."""
        sink = _Collect()
        self._pairings = {}
        try:
            self.walk(sink, self.schema, gold, extracted, "", "", 0)
        finally:
            self._pairings = None  # keyed by object ids: valid only while the record lives
        if sink.pending:
            dispatch_batches(sink.results, sink.pending)
        return sink.results, sink.notes

    def leaf(self, node: SchemaNode) -> _Leaf:
        """The resolved comparator and transforms of a unit node (built once per scorer)."""
        found = self._leaves.get(node)
        if found is None:
            found = self._leaves[node] = _Leaf(node, self.registry)
        return found

    def children(self, node: SchemaNode) -> tuple[_Child, ...]:
        """The properties of an object node, precomputed for the walk."""
        found = self._children.get(node)
        if found is None:
            found = self._children[node] = tuple(
                _child(
                    name,
                    child,
                    None if child.skip or not _is_unit(child) else self.leaf(child),
                )
                for name, child in node.properties.items()
            )
        return found

    # --- the walk ---------------------------------------------------------------------

    def walk(
        self, sink: _Sink, node: SchemaNode, g: Any, e: Any, path: str, parent: str, depth: int
    ) -> None:
        """Score ``node`` with gold ``g`` and extracted ``e`` (``MISSING`` when absent)."""
        if g is None:
            g = MISSING
        if e is None:
            e = MISSING
        if g is MISSING and e is MISSING:
            return
        if node.skip:
            sink.emit(SKIPPED, 0.0, path, node.path, _raw(g), _raw(e), "x-eval-skip")
        elif e is MISSING:
            self.one_sided(sink, node, g, path, parent, OMISSION, depth)
        elif g is MISSING:
            self.one_sided(sink, node, e, path, parent, HALLUCINATION, depth)
        elif _is_unit(node):
            self.compare(sink, self.leaf(node), g, e, path, parent)
        elif depth >= MAX_DEPTH:
            self.too_deep(sink, node, g, e, path)
        elif node.items is None:
            if _is_object(g) and _is_object(e):
                self.object(sink, node, g, e, path, depth)
            else:
                self.wrong_type(sink, node, g, e, path)
        elif isinstance(g, (list, tuple)) and isinstance(e, (list, tuple)):
            self.array(sink, node, g, e, path, depth)
        else:
            self.wrong_type(sink, node, g, e, path)

    def compare(self, sink: _Sink, leaf: _Leaf, g: Any, e: Any, path: str, parent: str) -> None:
        """Both sides present at a unit node: transforms, then the comparator."""
        self.judge(sink, leaf, g, e, leaf.prepare(g), leaf.prepare(e), path, parent)

    def judge(
        self,
        sink: _Sink,
        leaf: _Leaf,
        g: Any,
        e: Any,
        gc: Any,
        ec: Any,
        path: str,
        parent: str,
    ) -> None:
        """The comparator's verdict on transformed values ``gc``/``ec`` of raw ``g``/``e``."""
        node = leaf.node
        if gc is FAILED or ec is FAILED:
            failure = (
                f"gold value: {leaf.why(g)}" if gc is FAILED else f"extracted value: {leaf.why(e)}"
            )
            sink.emit(MISMATCH, 0.0, path, node.path, g, e, failure, leaf.name, g, e)
            return
        if leaf.batch:
            item = BatchItem(path, g, e, gc, ec, leaf.params, node.path, parent, node.name)
            sink.pend(leaf, item)
            return
        # The built-ins' verdict without calling them (they add a reason only on failure).
        kind = leaf.kind
        if kind == "exact":
            equal = gc == ec if type(gc) is str and type(ec) is str else json_equal(gc, ec)
        else:
            equal = kind == "numeric" and numeric_match(gc, ec, leaf.rel, leaf.tol_abs)
        if equal:
            sink.emit(MATCH, 1.0, path, node.path, g, e, None, leaf.name, gc, ec)
            return
        score, reason, skip = leaf.score(gc, ec)
        status = SKIPPED if skip else MATCH if score == 1.0 else MISMATCH
        sink.emit(status, score, path, node.path, g, e, reason, leaf.name, gc, ec)

    def too_deep(self, sink: _Sink, node: SchemaNode, g: Any, e: Any, path: str) -> None:
        """Past ``MAX_DEPTH`` a structural node is one value, compared iteratively."""
        equal = json_equal(g, e)
        sink.emit(
            MATCH if equal else MISMATCH,
            1.0 if equal else 0.0,
            path,
            node.path,
            g,
            e,
            f"nested deeper than {MAX_DEPTH} schema levels: compared as one value",
        )

    def wrong_type(self, sink: _Sink, node: SchemaNode, g: Any, e: Any, path: str) -> None:
        """Both present, not both the node's container type: one verdict for the container."""
        if json_equal(g, e):
            sink.emit(MATCH, 1.0, path, node.path, g, e, f"equal, but not {node.type}s")
            return
        reason = f"type mismatch: expected {node.type}, got {json_kind(g)} vs {json_kind(e)}"
        sink.emit(MISMATCH, 0.0, path, node.path, g, e, reason)

    def object(
        self,
        sink: _Sink,
        node: SchemaNode,
        g: Mapping[Any, Any],
        e: Mapping[Any, Any],
        path: str,
        depth: int,
        gp: Sequence[Any] | None = None,
        ep: Sequence[Any] | None = None,
    ) -> None:
        """Both sides are objects. ``gp``/``ep``: the elements' values already transformed for
        the similarity matrix (a Hungarian pair), so they are not transformed twice."""
        if not g and not e:
            if depth:
                sink.emit(MATCH, 1.0, path, node.path, g, e)
            return
        emit = sink.emit
        g_get, e_get = g.get, e.get
        paired = gp is not None and ep is not None
        g_slots, e_slots = gp or (), ep or ()
        for name, child, leaf, nested, segment, top in self.children(node):
            gv = g_get(name)
            ev = e_get(name)
            if gv is None and ev is None:
                continue
            at = path + segment if path else top
            if leaf is not None and gv is not None and ev is not None:
                if paired:
                    gc, ec = g_slots[leaf.slot], e_slots[leaf.slot]
                elif leaf.plain:
                    gc, ec = gv, ev
                else:
                    gc, ec = leaf.prepare(gv), leaf.prepare(ev)
                # Matches of the built-ins straight away (most fields); judge() does the rest.
                inline = leaf.inline
                if (
                    inline == "exact" and type(gc) is type(ec) and type(gc) in _PLAIN and gc == ec
                ) or (inline == "numeric" and numeric_match(gc, ec, leaf.rel, leaf.tol_abs)):
                    emit(MATCH, 1.0, at, child.path, gv, ev, None, leaf.name, gc, ec)
                else:
                    self.judge(sink, leaf, gv, ev, gc, ec, at, path)
            elif paired and nested and _is_object(gv) and _is_object(ev):
                self.object(sink, child, gv, ev, at, depth + 1, gp, ep)
            else:
                self.walk(sink, child, gv, ev, at, path, depth + 1)
        declared = node.properties.keys()
        if not (g.keys() <= declared and e.keys() <= declared):
            self.extras(sink, node, path, g, e)

    def extras(
        self,
        sink: _Sink,
        node: SchemaNode,
        path: str,
        g: Mapping[Any, Any] | None,
        e: Mapping[Any, Any] | None,
    ) -> None:
        """Keys the schema does not declare: gold ones are unscored (shown as skipped), those
        only the model has are hallucinations."""
        declared = node.properties.keys()
        if g is not None and not g.keys() <= declared:
            for key, value in g.items():
                if key not in declared and value is not None:
                    model = None if e is None else e.get(key)
                    reason = _NOT_IN_SCHEMA
                    if model is not None:
                        reason += "; the extraction has it too"
                    at, where = key_path(path, key), key_path(node.path, key)
                    sink.emit(SKIPPED, 0.0, at, where, value, model, reason, in_schema=False)
        if e is not None and not e.keys() <= declared:
            for key, value in e.items():
                if key not in declared and value is not None and (g is None or g.get(key) is None):
                    at, where = key_path(path, key), key_path(node.path, key)
                    reason = "not in the schema"
                    sink.emit(HALLUCINATION, 0.0, at, where, None, value, reason, in_schema=False)

    def one_sided(
        self, sink: _Sink, node: SchemaNode, v: Any, path: str, parent: str, status: str, depth: int
    ) -> None:
        """Expand a value present on one side only into omissions or hallucinations."""
        if v is None or v is MISSING:
            return
        gold_side = status == OMISSION
        g, e = (v, None) if gold_side else (None, v)
        if node.skip:
            sink.emit(SKIPPED, 0.0, path, node.path, g, e, "x-eval-skip")
        elif _is_unit(node):
            name = self.leaf(node).name
            sink.emit(status, 0.0, path, node.path, g, e, None, name, g, e)
        elif depth >= MAX_DEPTH:
            sink.emit(status, 0.0, path, node.path, g, e, f"nested deeper than {MAX_DEPTH}")
        elif node.items is None:
            if not v or not _is_object(v):
                sink.emit(status, 0.0, path, node.path, g, e)
                return
            for name, child, leaf, _, segment, top in self.children(node):
                value = v.get(name)
                if value is None:
                    continue
                at = path + segment if path else top
                if leaf is None:
                    self.one_sided(sink, child, value, at, path, status, depth + 1)
                else:  # a leaf, emitted as the unit branch above does
                    lg, le = (value, None) if gold_side else (None, value)
                    sink.emit(status, 0.0, at, child.path, lg, le, None, leaf.name, lg, le)
            if gold_side:
                self.extras(sink, node, path, v, None)
            else:
                self.extras(sink, node, path, None, v)
        elif not isinstance(v, (list, tuple)) or not v:
            sink.emit(status, 0.0, path, node.path, g, e)
        else:
            items = node.items
            for k, element in enumerate(v):
                at = f"{path}[{k if gold_side else -k - 1}]"
                self.one_sided(sink, items, element, at, path, status, depth + 1)

    # --- arrays -----------------------------------------------------------------------

    def array(
        self,
        sink: _Sink,
        node: SchemaNode,
        g: Sequence[Any],
        e: Sequence[Any],
        path: str,
        depth: int,
    ) -> None:
        """Both sides are arrays: pair the elements, score pairs, expand the unpaired."""
        if not g and not e:
            if depth:
                sink.emit(MATCH, 1.0, path, node.path, g, e)
            return
        items = node.items
        assert items is not None
        alignment, prepared = self.pair_elements(node, items, g, e, depth)
        for text in alignment.notes:
            sink.note(f"{path or '<root>'}: {text}")
        partner = dict(alignment.pairs)
        unit = self.leaf(items) if _is_unit(items) else None
        for i, gv in enumerate(g):
            j = partner.get(i)
            at = f"{path}[{i}]"
            if j is None:
                self.one_sided(sink, items, gv, at, path, OMISSION, depth + 1)
                continue
            ev = e[j]
            gp = ep = None
            if prepared is not None and gv is not None and ev is not None:
                gp, ep = prepared[0][i], prepared[1][j]
            if gp is None or ep is None:
                self.walk(sink, items, gv, ev, at, path, depth + 1)
            elif unit is not None:
                self.judge(sink, unit, gv, ev, gp[0], ep[0], at, path)
            else:
                self.object(sink, items, gv, ev, at, depth + 1, gp, ep)
        for k, j in enumerate(alignment.unmatched_model):
            self.one_sided(sink, items, e[j], f"{path}[{-k - 1}]", path, HALLUCINATION, depth + 1)

    def pair_elements(
        self, node: SchemaNode, items: SchemaNode, g: Sequence[Any], e: Sequence[Any], depth: int
    ) -> tuple[Alignment, _Preparations | None]:
        """Pair the elements; for Hungarian, also the elements' prepared values (if planned)."""
        spec = node.align
        if spec is None or spec.method == ORDERED:
            k = min(len(g), len(e))
            ordered = Alignment(
                tuple((i, i) for i in range(k)), tuple(range(k, len(g))), tuple(range(k, len(e)))
            )
            return ordered, None
        if spec.method == KEY:
            key_node = items.properties.get(spec.key or "")
            if key_node is None or not _is_unit(key_node):
                return align(g, e, spec), None
            leaf = self.leaf(key_node)

            def key_of(value: Any) -> Any:
                prepared = FAILED if value is None else leaf.prepare(value)
                return object() if prepared is FAILED else canonical_key(prepared)

            return align(g, e, spec, key_of=key_of), None
        if not g or not e:
            return Alignment((), tuple(range(len(g))), tuple(range(len(e)))), None
        cache = self._pairings
        key = (id(node), id(g), id(e))
        found = None if cache is None else cache.get(key)
        if found is None:
            matrix, prepared = self.similarity(items, g, e, depth + 1)
            found = (align(g, e, spec, matrix=matrix), prepared)
            if cache is not None:
                cache[key] = found
        return found

    def pair_f1(self, items: SchemaNode, g: Any, e: Any, depth: int) -> float:
        """F1 of one element pair by the full walk (the general, slower path)."""
        counter = _Count()
        self.walk(counter, items, g, e, "", "", depth)
        fields = 2 * counter.both + counter.omissions + counter.hallucinations
        return _f1(counter.total, fields)

    def counts(self, node: SchemaNode, g: Any, e: Any, depth: int) -> tuple[float, int, int, int]:
        """(score sum, both present, omissions, hallucinations) of ``node`` by the full walk."""
        counter = _Count()
        self.walk(counter, node, g, e, "", "", depth)
        return counter.total, counter.both, counter.omissions, counter.hallucinations

    def similarity(
        self, items: SchemaNode, g: Sequence[Any], e: Sequence[Any], depth: int
    ) -> tuple[list[list[float]], _Preparations | None]:
        """The pair-F1 matrix that drives Hungarian alignment (and the prepared elements)."""
        if items not in self._plans:
            self._plans[items] = _ElementPlan.build(self, items, depth)
        plan = self._plans[items]
        if plan is None:
            return [[self.pair_f1(items, gv, ev, depth) for ev in e] for gv in g], None
        return _Matrix(self, plan, depth).compute(g, e)


# --- the column-wise similarity matrix ------------------------------------------------


class _ObjectPlan:
    """One object level of an element: its scored properties and nested levels."""

    __slots__ = ("complex", "index", "leaves", "levels", "names")

    def __init__(self, index: int, names: frozenset[str]) -> None:
        self.index = index
        self.names = names  # every declared property, skipped ones included
        # (name, slot, slot bit, the leaf's transforms or None when it has none)
        self.leaves: list[tuple[str, int, int, Callable[[Any], Any] | None]] = []
        self.levels: list[tuple[str, _ObjectPlan]] = []  # nested objects
        self.complex: list[tuple[str, int]] = []  # nested arrays: (name, complex index)


class _ElementPlan:
    """Array items flattened into leaf slots, so pair F1s can be computed column by column.

    Leaves reached through nested objects become slots; nested structural arrays become
    "complex" slots scored pair by pair with the full walk. Elements that do not fit the shape
    (an empty or wrong-typed object level) are scored pair by pair with the full walk too.
    """

    __slots__ = ("complex", "empty", "flat", "items", "root", "slots")

    def __init__(self, items: SchemaNode) -> None:
        self.items = items
        self.flat = False  # one object level holding only leaves
        self.slots: list[_Leaf] = []
        self.complex: list[tuple[SchemaNode, int]] = []  # (node, depth it is walked at)
        self.root: _ObjectPlan | None = None
        self.empty = _Prepared([], [])

    @staticmethod
    def build(scorer: RecordScorer, items: SchemaNode, depth: int) -> _ElementPlan | None:
        """The plan for elements walked at ``depth``; None when only the full walk fits.

        A schema node always sits at the same depth, so the plan can be cached per node.
        """
        plan = _ElementPlan(items)
        if items.skip:
            return None
        if _is_unit(items):
            leaf = scorer.leaf(items)
            leaf.slot = 0
            plan.slots.append(leaf)
        elif items.items is not None:
            return None  # arrays of arrays: pair by pair
        else:
            levels = 0
            plan.root = _ObjectPlan(levels, frozenset(items.properties))
            todo: list[tuple[SchemaNode, _ObjectPlan, int]] = [(items, plan.root, depth)]
            while todo:
                node, level, at = todo.pop()
                if at >= MAX_DEPTH:
                    return None  # the walk compares this deep as one value
                for name, child in node.properties.items():
                    if child.skip:
                        continue
                    if _is_unit(child):
                        leaf = scorer.leaf(child)
                        leaf.slot = slot = len(plan.slots)
                        convert = None if leaf.plain else leaf.prepare
                        level.leaves.append((name, slot, 1 << slot, convert))
                        plan.slots.append(leaf)
                    elif child.items is not None:
                        level.complex.append((name, len(plan.complex)))
                        plan.complex.append((child, at + 1))
                    else:
                        levels += 1
                        sub = _ObjectPlan(levels, frozenset(child.properties))
                        level.levels.append((name, sub))
                        todo.append((child, sub, at + 1))
        plan.empty = _Prepared([MISSING] * len(plan.slots), [MISSING] * len(plan.complex))
        root = plan.root
        plan.flat = root is not None and bool(root.leaves) and not (root.levels or root.complex)
        return plan


class _Prepared:
    """One element's prepared slot values, presence mask, complex values and extra keys."""

    __slots__ = ("complex", "extras", "mask", "values")

    def __init__(self, values: list[Any], complex_values: list[Any]) -> None:
        self.values = values
        self.complex = complex_values
        self.mask = 0
        self.extras: frozenset[tuple[int, Any]] | set[tuple[int, Any]] = frozenset()


#: Each element's slot values (None: scored by the full walk), gold side and model side.
_Preparations = tuple[list[Sequence[Any] | None], list[Sequence[Any] | None]]

_NO_EXTRAS: Final[frozenset[tuple[int, Any]]] = frozenset()


class _Side:
    """One array's elements ready for the matrix: per element, and per slot (column)."""

    __slots__ = ("columns", "complex", "counts", "extras", "values")

    def __init__(
        self,
        values: list[Sequence[Any] | None],
        columns: list[list[Any]],
        counts: list[int],
        extras: list[frozenset[tuple[int, Any]] | set[tuple[int, Any]]],
        complex_values: list[list[Any]],
    ) -> None:
        self.values = values  # slot values; None for an element the full walk must score
        self.columns = columns  # per slot, per element: the value, or MISSING (or irregular)
        self.counts = counts  # present slots per element
        self.extras = extras  # undeclared non-null keys per element: (level index, key)
        self.complex = complex_values  # nested-array values per element


class _Matrix:
    """Computes the pair-F1 matrix of two arrays column-wise.

    For regular elements, with ``b/o/h`` the both-present / gold-only / model-only slot counts
    (popcounts of presence masks), extra model keys added to ``h``, and ``s`` the score sum:
    exact-compared slots add 1 to every pair sharing a canonical value (hash buckets, no pair
    loop), other comparators are called only for pairs where both sides are present, and the
    F1 is only computed for pairs with ``s > 0`` (all others are 0, or 1 without any field).
    """

    def __init__(self, scorer: RecordScorer, plan: _ElementPlan, depth: int) -> None:
        self.scorer = scorer
        self.plan = plan
        self.depth = depth

    def prepare(self, value: Any) -> _Prepared | None:
        """Slot values of one element, or None when it must be scored by the full walk."""
        plan = self.plan
        if value is None:
            return plan.empty
        if plan.root is None:
            prep = _Prepared([plan.slots[0].prepare(value)], [])
            prep.mask = 1
            return prep
        if not value or not _is_object(value):
            return None
        prep = _Prepared(plan.empty.values.copy(), plan.empty.complex.copy())
        values = prep.values
        mask = 0
        root = plan.root
        extras: set[tuple[int, Any]] | None = None
        todo: list[tuple[_ObjectPlan, Mapping[Any, Any]]] = [(root, value)]
        while todo:
            level, obj = todo.pop()
            get = obj.get
            for name, slot, bit, convert in level.leaves:
                v = get(name)
                if v is not None:
                    values[slot] = v if convert is None else convert(v)
                    mask |= bit
            for name, sub in level.levels:
                v = get(name)
                if v is not None:
                    if not v or not _is_object(v):
                        return None
                    todo.append((sub, v))
            for name, index in level.complex:
                v = get(name)
                if v is not None:
                    prep.complex[index] = v
            if not obj.keys() <= level.names:
                for key in obj.keys() - level.names:
                    if obj[key] is not None:
                        if extras is None:
                            extras = set()
                        extras.add((level.index, key))
        prep.mask = mask
        if extras:
            prep.extras = extras
        return prep

    def side(self, elements: Sequence[Any]) -> _Side:
        """The elements prepared element by element (any plan)."""
        plan = self.plan
        preps = [self.prepare(v) for v in elements]
        columns = []
        for s in range(len(plan.slots)):
            bit = 1 << s
            columns.append(
                [MISSING if p is None or not p.mask & bit else p.values[s] for p in preps]
            )
        none = plan.empty
        return _Side(
            [None if p is None else p.values for p in preps],
            columns,
            [0 if p is None else p.mask.bit_count() for p in preps],
            [none.extras if p is None else p.extras for p in preps],
            [none.complex if p is None else p.complex for p in preps],
        )

    def flat_side(self, elements: Sequence[Any]) -> _Side:
        """The elements of a flat plan (one object level of leaves), prepared column by column.

        Same values as :meth:`side`, with the per-slot work done in comprehensions.
        """
        plan = self.plan
        root = plan.root
        assert root is not None
        names = root.names
        count = len(elements)
        extras: list[frozenset[tuple[int, Any]] | set[tuple[int, Any]]] = [_NO_EXTRAS] * count
        irregular: list[int] = []
        objs: Sequence[Mapping[Any, Any]]
        if all(type(value) is dict and value for value in elements):
            objs = elements  # the common case: non-empty plain objects
        else:
            nothing: Mapping[Any, Any] = {}
            objs = [nothing] * count
            for i, value in enumerate(elements):
                if value is not None:
                    if value and _is_object(value):
                        objs[i] = value
                    else:
                        irregular.append(i)
        if not names.issuperset(chain.from_iterable(objs)):  # every key of every element
            for i, o in enumerate(objs):
                if not o.keys() <= names:
                    found = {(0, k) for k in o.keys() - names if o[k] is not None}
                    if found:
                        extras[i] = found
        columns: list[list[Any]] = []
        for name, _, _, convert in root.leaves:  # in slot order
            if convert is None:
                columns.append([MISSING if (v := o.get(name)) is None else v for o in objs])
            else:
                columns.append(
                    [MISSING if (v := o.get(name)) is None else convert(v) for o in objs]
                )
        values: list[Sequence[Any] | None] = list(zip(*columns, strict=True))
        for i in irregular:
            values[i] = None
        if any(map(is_, chain.from_iterable(columns), repeat(MISSING))):
            present = [list(map(is_not, column, repeat(MISSING))) for column in columns]
            counts = list(map(sum, zip(*present, strict=True)))
        else:  # every element has every slot
            counts = [len(columns)] * count
        return _Side(values, columns, counts, extras, [plan.empty.complex] * count)

    def cell(self, gs: _Side, i: int, ms: _Side, j: int, score: float, fields: int) -> float:
        """A pair's F1 when shared extra keys or complex slots take part."""
        gx, mx = gs.extras[i], ms.extras[j]
        if gx and mx:
            fields -= len(gx & mx)
        for c, (node, at) in enumerate(self.plan.complex):
            cs, cb, co, ch = self.scorer.counts(node, gs.complex[i][c], ms.complex[j][c], at)
            score += cs
            fields += 2 * cb + co + ch
        return _f1(score, fields)

    def compute(
        self, gold: Sequence[Any], model: Sequence[Any]
    ) -> tuple[list[list[float]], _Preparations]:
        plan, scorer = self.plan, self.scorer
        m = len(model)
        depth = self.depth
        if plan.flat:
            gs, ms = self.flat_side(gold), self.flat_side(model)
        else:
            gs, ms = self.side(gold), self.side(model)
        total = [[0.0] * m for _ in gold]
        for s, leaf in enumerate(plan.slots):
            rows, cols = gs.columns[s], ms.columns[s]
            if leaf.kind == "exact":  # absent and failed values meet nothing
                buckets: dict[Any, list[int]] = {}
                for j, v in enumerate(cols):
                    if v is not MISSING and v is not FAILED:
                        key = v if type(v) is str else _bucket_key(v)
                        found = buckets.get(key)
                        if found is None:
                            buckets[key] = [j]
                        else:
                            found.append(j)
                if not buckets:
                    continue
                for i, v in enumerate(rows):
                    if v is not MISSING and v is not FAILED:
                        found = buckets.get(v if type(v) is str else _bucket_key(v))
                        if found:
                            row = total[i]
                            for j in found:
                                row[j] += 1.0
            elif leaf.kind == "numeric":
                _numeric_column(leaf, rows, cols, total)
            else:
                quick = leaf.quick
                present = [(j, mv) for j, mv in enumerate(cols) if mv is not MISSING]
                for i, gv in enumerate(rows):
                    if gv is not MISSING:
                        row = total[i]
                        for j, mv in present:
                            row[j] += quick(gv, mv)
        # Pair F1 = 2s / (2b + o + h) = 2s / (gold fields + model fields): only the score sum
        # depends on the pair, except for shared extra keys and complex slots. A zero score
        # sum is an F1 of 0 (already in place) unless no field takes part at all.
        model_fields = [c + len(x) for c, x in zip(ms.counts, ms.extras, strict=True)]
        irregular_m = [j for j, v in enumerate(ms.values) if v is None]
        for i, gvalues in enumerate(gs.values):
            if gvalues is None:
                total[i] = [scorer.pair_f1(plan.items, gold[i], e, depth) for e in model]
                continue
            gold_fields = gs.counts[i]
            row = total[i]
            if gold_fields and not gs.extras[i] and not plan.complex:
                total[i] = row = [
                    2.0 * score / (gold_fields + fields) if score else score
                    for score, fields in zip(row, model_fields, strict=True)
                ]
            else:
                for j, mvalues in enumerate(ms.values):
                    if mvalues is not None:
                        row[j] = self.cell(gs, i, ms, j, row[j], gold_fields + model_fields[j])
            for j in irregular_m:
                row[j] = scorer.pair_f1(plan.items, gold[i], model[j], depth)
        return total, (gs.values, ms.values)


def _f1(score: float, fields: int) -> float:
    """Record F1 from the score sum and ``2 * both + omissions + hallucinations``.

    Equal to the harmonic mean of precision and recall (reference §11), in the closed form
    ``2s / (2b + o + h)``; 1.0 when nothing is scorable.
    """
    if score > 0.0:
        return 2.0 * score / fields
    return 0.0 if fields else 1.0


#: Integers below this convert to a finite float (they can join the sorted numeric window).
_FLOAT_LIMIT: Final = 2**1000


def _numeric_column(
    leaf: _Leaf, rows: list[Any], cols: list[Any], total: list[list[float]]
) -> None:
    """Add numeric-slot matches to ``total`` by a sorted window search instead of all pairs.

    ``rows``/``cols`` hold one value per element, ``MISSING`` where absent. Candidates inside a
    slightly widened tolerance window are confirmed with :func:`numeric_match`'s own test
    (inlined for two finite numbers), so the verdicts are exactly those of the comparator.
    """
    rel, tol_abs = leaf.rel, leaf.tol_abs
    inf = math.inf
    limit = _FLOAT_LIMIT
    equal_only = rel is None and tol_abs is None
    abs_limit = inf if tol_abs is None else tol_abs
    ordered: list[tuple[float, int, Any]] = []
    odd: list[tuple[int, Any]] = []
    for j, v in enumerate(cols):
        kind = type(v)
        if (kind is float and -inf < v < inf) or (kind is int and -limit < v < limit):
            ordered.append((float(v), j, v))
        elif v is not MISSING:
            odd.append((j, v))
    if not ordered and not odd:
        return
    ordered.sort()
    keys = [k for k, _, _ in ordered]
    for i, gv in enumerate(rows):
        if gv is MISSING:
            continue
        row = total[i]
        kind = type(gv)
        if not ((kind is float and -inf < gv < inf) or (kind is int and -limit < gv < limit)):
            if gv is not FAILED:
                for j, mv in enumerate(cols):
                    if mv is not MISSING and numeric_match(gv, mv, rel, tol_abs):
                        row[j] += 1.0
            continue
        rel_limit = inf if rel is None else rel * (abs(gv) if gv != 0 else 1.0)
        g = float(gv)
        width = 0.0 if equal_only else min(rel_limit, abs_limit)
        pad = width * (1 + 1e-9) + abs(g) * 1e-12 + 1e-300
        candidates = range(bisect_left(keys, g - pad), bisect_right(keys, g + pad))
        for k in candidates:
            _, j, mv = ordered[k]
            if gv == mv:
                row[j] += 1.0
            elif not equal_only:
                diff = abs(gv - mv)
                if diff <= rel_limit and diff <= abs_limit and diff != inf:
                    row[j] += 1.0
        for j, mv in odd:
            if numeric_match(gv, mv, rel, tol_abs):
                row[j] += 1.0


_TRUE_KEY: Final = object()
_FALSE_KEY: Final = object()


def _bucket_key(value: Any) -> Any:
    """Hashable key under which JSON-equal values meet (``1`` with ``1.0``, never ``True``)."""
    kind = type(value)
    if kind is bool:
        return _TRUE_KEY if value else _FALSE_KEY
    if kind is int or kind is float or kind is str:
        return value if value == value else object()  # NaN meets nothing
    return canonical_key(value)


def score_record(
    schema: SchemaNode | Mapping[str, Any],
    gold: Any,
    extracted: Any,
    *,
    registry: Registry | None = None,
) -> list[FieldResult]:
    """Field results of one record (batch comparators resolved, no post-processing)."""
    from .evaluate import as_node

    reg = registry if registry is not None else default_registry()
    return RecordScorer(as_node(schema, reg), reg).score(gold, extracted)[0]
