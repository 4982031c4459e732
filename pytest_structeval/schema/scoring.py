"""The schema-driven walk: one gold/extracted record -> field results.

Policy (the reference's, with its inconsistencies removed):

* ``null`` is "no value" everywhere: a key holding ``null`` is treated like an absent key, for
  leaves and containers alike. Gold value vs extracted ``null`` is an omission, gold ``null``
  vs a value a hallucination, ``null`` vs ``null`` nothing.
* An empty container is a value: ``{}``/``[]`` vs absent is one omission (or hallucination) at
  the container path, ``{}`` vs ``{}`` one match — except at the record root, where two empty
  records simply have no fields.
* Keys outside ``properties``: one that a ``patternProperties`` pattern with a schema
  matches is a field at ``path.<key>`` scored by that schema (schema path
  ``path[/pattern/]``); so is, in a map-like object (``additionalProperties: {schema}``),
  one that no pattern matches (schema path ``path.*``). Any other gold one is reported
  ``skipped`` with ``in_schema=False`` ("unscored") whether or not the model reproduced it; a
  model-only one is a hallucination, or unscored too where the schema allows it
  (``additionalProperties: true``, a pattern whose schema states nothing).
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

import functools
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Container, Hashable, Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import chain, compress, repeat
from operator import add, is_not, itemgetter, mul, truediv
from typing import Any, Final, NamedTuple, Protocol, TypeAlias, TypeGuard, cast

from ..align import (
    CONTAINED,
    KEY,
    ORDERED,
    ORDERED_SPEC,
    Alignment,
    AlignSpec,
    align,
    align_past_bound,
    canonical_key,
    element_reasons,
    shown_indices,
    unchosen_reason,
)
from ..errors import LimitError
from ..keys import named_keys
from ..parse import DEFAULT_MAX_DEPTH, plain_value
from ..paths import ROOT, key_path
from ..registry import Registry, default_registry
from ..results import HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED
from ..weights import meets
from .batch import (
    BatchItem,
    CompoundComparator,
    PendingField,
    dispatch_batches,
    is_batch,
    threshold_reason,
)
from .comparators import (
    compare_exact,
    compare_numeric,
    compare_oneof,
    compare_similarity,
    json_equal,
    json_kind,
    numeric_match,
    numeric_reason,
    read_verdict,
    whitespace_reason,
)
from .results import (
    PERFECT,
    Entry,
    FieldResult,
    Pair,
    Row,
    field_results,
    field_row,
    pair_rows,
    row_results,
)
from .transforms import STRING_KERNELS
from .tree import SchemaNode, key_schema, property_spellings

__all__ = ["MAX_DEPTH", "RecordScorer", "score_record"]

#: Schema levels walked structurally; deeper nodes are compared as one value.
MAX_DEPTH: Final = 100

# The root a depth error's path opens with (``... max_depth=200 at answer.x[0]``), which a
# record's field paths do not have.
_ROOTED_PATH: Final = re.compile(rf"(max_depth=\d+ at ){ROOT}\.?")


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
_NOT_IN_SCHEMA_EITHER: Final = _NOT_IN_SCHEMA + "; the extraction has it too"
_NOT_IN_SCHEMA_GOLD: Final = _NOT_IN_SCHEMA + "; the gold's elements have it too"
_ALLOWED: Final = "not in the schema, which allows undeclared keys (unscored)"
_EXTRA: Final = "not in the schema"

#: Distinct keys per object node whose pattern routing a scorer remembers.
_MAX_ROUTES: Final = 4096

#: Scalar types whose JSON equality is ``==`` between two values of the same type (NaN too).
_PLAIN: Final = frozenset({str, int, float, bool})
#: What ``numeric`` compares (booleans are not numbers).
_NUMBERS: Final = frozenset({int, float})


def _raw(value: Any) -> Any:
    return None if value is MISSING else value


def _unkeyed_notes(
    g: Sequence[Any], e: Sequence[Any], spec: AlignSpec, unkeyed: set[int]
) -> list[str]:
    """Alignment notes for the elements whose key value was null or failed its transforms
    (``unkeyed`` holds the ids of those values): without them, an identical record with a
    null id scored 0 with no word why."""
    field = spec.key or ""
    notes = []
    for side, elements in (("gold", g), ("model", e)):
        at = [
            i
            for i, element in enumerate(elements)
            if _is_object(element) and field in element and id(element[field]) in unkeyed
        ]
        if at:
            notes.append(
                f"{side} elements at {shown_indices(at)} have a null key field {field!r}, or one "
                "its transforms reject; they cannot be paired"
            )
    return notes


def _gold_keys(elements: Sequence[Any]) -> set[Any]:
    """The keys holding a value in the object elements of a gold array (a null is none: a
    model value against it is a hallucination, paired or not)."""
    return {
        key
        for element in elements
        if isinstance(element, Mapping)
        for key, value in element.items()
        if value is not None
    }


def _members_in(leaf: _Leaf, g: Mapping[Any, Any], e: Mapping[Any, Any]) -> bool:
    """Whether another member of ``leaf``'s compound holds a value on either side: a
    compound with no member at all is nothing to compare (null against null)."""
    fields = cast("CompoundComparator", leaf.fn).fields
    return any(g.get(name) is not None or e.get(name) is not None for name in fields)


def _undeclared(obj: Mapping[Any, Any] | None, declared: Any) -> list[tuple[Any, Any]]:
    """The items of ``obj`` whose keys are outside ``declared`` (a keys view), in order."""
    if obj is None or obj.keys() <= declared:
        return []
    extra = obj.keys() - declared
    keys = list(extra) if len(extra) == 1 else [key for key in obj if key in extra]
    return [(key, obj[key]) for key in keys]


def _is_object(value: Any) -> TypeGuard[Mapping[Any, Any]]:
    """``isinstance(value, Mapping)``, without the ABC machinery for plain dicts."""
    return type(value) is dict or isinstance(value, Mapping)


def _is_unit(node: SchemaNode) -> bool:
    """Scored as one value by its comparator (a leaf, or a container with ``x-eval-compare``)."""
    return node.compare is not None or (
        not node.properties and node.items is None and node.values is None and not node.patterns
    )


def _same(value: Any) -> Any:
    return value


_Convert: TypeAlias = Callable[[Any], Any]
_Kernels: TypeAlias = tuple[Callable[[str], str], ...]


def _kernels(
    transforms: tuple[tuple[str, Callable[..., Any], Mapping[str, Any]], ...],
) -> _Kernels | None:
    """The plain ``str -> str`` functions behind ``transforms`` when all are built-in string
    transforms (by identity), else None. On a string they cannot fail."""
    found = [_kernel(fn) for _, fn, _ in transforms]
    kernels = tuple(kernel for kernel in found if kernel is not None)
    return kernels if kernels and len(kernels) == len(found) else None


def _converter(
    transforms: tuple[tuple[str, Callable[..., Any], Mapping[str, Any]], ...],
    kernels: _Kernels | None,
) -> _Convert:
    """One callable applying ``transforms`` (``FAILED`` when one of them rejects the value).

    Built once per leaf: string kernels (see :func:`_kernels`) become a direct chain of
    ``str`` functions for string values, everything else goes through the checked transforms.
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
    if kernels is None:
        return checked
    if len(kernels) == 1:
        (only,) = kernels

        def one(value: Any) -> Any:
            return only(value) if type(value) is str else checked(value)

        return one
    if len(kernels) == 2:
        first, second = kernels

        def two(value: Any) -> Any:
            return second(first(value)) if type(value) is str else checked(value)

        return two

    def many(value: Any) -> Any:
        if type(value) is not str:
            return checked(value)
        for kernel in kernels:
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
        "compound",
        "equal",
        "fn",
        "kernels",
        "kind",
        "name",
        "node",
        "params",
        "plain",
        "prepare",
        "rel",
        "slot",
        "threshold",
        "tol_abs",
        "tolerant",
        "transforms",
    )

    def __init__(self, node: SchemaNode, registry: Registry) -> None:
        spec = node.compare
        name = spec.name if spec is not None else "exact"
        self.node: SchemaNode = node
        self.name: str = name
        self.threshold: float = node.threshold  # the score that counts as a match
        self.params: Mapping[str, Any] = spec.params if spec is not None else {}
        self.fn: Callable[..., Any] = registry.comparators.get(name).fn
        self.batch: bool = is_batch(self.fn)
        #: A member of a compound: the compound needs it even when null on both sides.
        self.compound: bool = isinstance(self.fn, CompoundComparator)
        self.transforms: tuple[tuple[str, Callable[..., Any], Mapping[str, Any]], ...] = tuple(
            (t.name, registry.transforms.get(t.name).fn, t.params) for t in node.transforms
        )
        self.plain: bool = not self.transforms  # compared as they are
        #: Apply the transforms left to right; ``FAILED`` when one of them rejects the value.
        #: The transforms as a chain of str functions, for string values (None: not all are).
        self.kernels: _Kernels | None = _kernels(self.transforms)
        self.prepare: Callable[[Any], Any] = _converter(self.transforms, self.kernels)
        # Built-ins get inlined fast paths (the walk's matches, the similarity matrix).
        self.kind: str = "exact" if self.batch or self.fn is compare_exact else "other"
        self.rel: Any = None  # numeric's tolerances, as given
        self.tol_abs: Any = None
        self.slot: int = -1  # position in the element plan of the array this node sits in
        if self.fn is compare_numeric:
            self.kind = "numeric"
            tolerance = self.params.get("tolerance") or {}
            self.rel, self.tol_abs = tolerance.get("rel"), tolerance.get("abs")
        #: How the walk decides a match without calling the comparator: equal values of one
        #: of these types match (built-ins other than numeric: any plain scalar; numeric: real
        #: numbers), and ``tolerant`` leaves also match within numeric_match's tolerance.
        self.equal: frozenset[type] = frozenset()
        self.tolerant: bool = False
        if not self.batch:
            if self.kind == "numeric":
                self.equal, self.tolerant = _NUMBERS, True
            elif self.kind == "exact" or self.fn in (compare_oneof, compare_similarity):
                self.equal = _PLAIN

    def key(self, value: Any) -> Hashable:
        """``value`` as the comparator sees it, as a key for pairing equal values; ``FAILED``
        for a null or a value a transform rejects (it pairs with nothing)."""
        prepared = FAILED if value is None else self.prepare(value)
        return FAILED if prepared is FAILED else canonical_key(prepared)

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
        try:
            return read_verdict(result)
        except ValueError as exc:
            return 0.0, f"comparator {self.name!r} returned {exc}", False

    def quick(self, gold: Any, extracted: Any) -> float:
        """Score only (no reasons), for the similarity matrix."""
        if gold is FAILED or extracted is FAILED:
            return 0.0
        if self.kind == "numeric":
            return 1.0 if numeric_match(gold, extracted, self.rel, self.tol_abs) else 0.0
        if self.kind == "exact":
            return 1.0 if json_equal(gold, extracted) else 0.0
        score = self.score(gold, extracted)[0]
        return 1.0 if meets(score, self.threshold) else score  # as the field's verdict counts it


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
    """Where the walk puts its verdicts (``Row`` tuples, and perfect pairs as ``results.Pair``):
    collected (``_Collect``) or counted."""

    def add(self, row: Row, /) -> None: ...

    def pair(self, pair: Pair, /) -> None: ...

    def pend(self, leaf: _Leaf, item: BatchItem) -> None: ...

    def note(self, text: str) -> None: ...


class _Collect:
    """Collects the rows of one record (``add`` is the list's own method). With ``fold``, a
    perfect pair is kept as one entry (``results.Pair``), else as its rows."""

    __slots__ = ("add", "fold", "folded", "notes", "pending", "rows")

    def __init__(self, *, fold: bool) -> None:
        self.rows: list[Entry] = []
        self.pending: list[PendingField] = []
        self.notes: list[str] = []
        self.add = self.rows.append
        self.fold = fold
        self.folded = 0  # rows that perfect pairs stand for, beyond one entry each

    def pair(self, pair: Pair, /) -> None:
        if self.fold:
            self.add(pair)
            self.folded += len(pair[2][0]) - 1
        else:
            self.rows += pair_rows(pair)

    def pend(self, leaf: _Leaf, item: BatchItem) -> None:
        # (indexes into the expanded rows, where batch replies land)
        index = len(self.rows) + self.folded
        self.pending.append(PendingField(index, leaf.name, leaf.fn, item, leaf.threshold))
        self.add(
            (
                MISMATCH,
                0.0,
                item.path,
                item.schema_path,
                True,
                item.gold_raw,
                item.extracted_raw,
                "awaiting batch comparator",
                leaf.name,
                item.gold_compared,
                item.extracted_compared,
            )
        )

    def note(self, text: str) -> None:
        self.notes.append(text)


MAX_JUDGED: Final = 10_000
"""The most candidate values one call of a batch comparator is asked about while an array is
paired (a judge's request has a size); past it, exact equality stands in, with a note."""


class _Count:
    """Sums for precision/recall/F1 without keeping rows (the similarity matrix).

    ``verdicts`` holds a batch comparator's scores of unequal value pairs, asked for once for
    every candidate pair of an array (see :meth:`RecordScorer.judged_matrix`); a pair not in
    it is noted in ``asked`` and counts by equality meanwhile."""

    __slots__ = ("asked", "both", "hallucinations", "omissions", "total", "verdicts")

    def __init__(
        self,
        verdicts: dict[Hashable, float] | None = None,
        asked: dict[Hashable, tuple[_Leaf, BatchItem]] | None = None,
    ) -> None:
        self.total = 0.0
        self.both = self.omissions = self.hallucinations = 0
        self.verdicts = verdicts
        self.asked = {} if asked is None else asked

    def add(self, row: Row, /) -> None:
        status = row[0]
        if status in (MATCH, MISMATCH):
            self.both += 1
            self.total += row[1]
        elif status == OMISSION:
            self.omissions += 1
        elif status == HALLUCINATION:
            self.hallucinations += 1

    def pair(self, pair: Pair, /) -> None:
        for _ in pair[2][0]:  # a match per slot, added one by one as the rows would be
            self.both += 1
            self.total += 1.0

    def pend(self, leaf: _Leaf, item: BatchItem) -> None:
        self.both += 1
        gold, extracted = item.gold_compared, item.extracted_compared
        if json_equal(gold, extracted):
            self.total += 1.0
        elif self.verdicts is not None and not leaf.compound:  # (a compound needs its record)
            key = (id(leaf), canonical_key(gold), canonical_key(extracted))
            found = self.verdicts.get(key)
            if found is None:
                self.asked[key] = (leaf, item)
            else:
                self.total += 1.0 if meets(found, leaf.threshold) else found

    def note(self, text: str) -> None:
        """Notes only matter for the record's own alignment, not for pair similarities."""


def _note_path(path: str) -> str:
    return path or "<root>"


class RecordScorer:
    """Scores records against one parsed schema; reuse it across the records of a run."""

    def __init__(
        self,
        schema: SchemaNode,
        registry: Registry | None = None,
        *,
        note_path: Callable[[str], str] = _note_path,
        max_depth: int = DEFAULT_MAX_DEPTH,
    ) -> None:
        """``note_path`` names an array in alignment notes (``"<path>: <note>"``): by default
        its record path, ``<root>`` for the record itself; schema mode writes answer paths.
        ``max_depth`` bounds the records as ``score`` bounds an answer (``LimitError``)."""
        self.schema: SchemaNode = schema
        self.max_depth: int = max_depth
        self.registry: Registry = registry if registry is not None else default_registry()
        self.note_path: Callable[[str], str] = note_path
        self._leaves: dict[SchemaNode, _Leaf] = {}
        self._children: dict[SchemaNode, tuple[_Child, ...]] = {}
        self._plans: dict[SchemaNode, _ElementPlan | None] = {}
        self._judges: dict[SchemaNode, bool] = {}
        #: per object node with patterns, where its undeclared keys go (see :meth:`route`)
        self._routes: dict[SchemaNode, dict[Any, SchemaNode | bool]] = {}
        # Hungarian pairings of the record being scored, by (node, gold list, model list):
        # a nested array is paired once while its parent's pair similarities are computed and
        # reused when the chosen pair is walked, so nesting does not multiply the work.
        self._pairings: dict[tuple[int, int, int], tuple[Alignment, _Pairing | None]] | None
        self._pairings = None  # set while score() runs
        # A batch comparator's verdicts on candidate values, for the record being scored, and
        # the values an array's candidates still ask about (see judged_matrix).
        self._verdicts: dict[Hashable, float] | None = None
        self._asking: dict[Hashable, tuple[_Leaf, BatchItem]] | None = None
        self._spellings: dict[str, str] | None = None  # see _as_spelt

    def score(self, gold: Any, extracted: Any) -> tuple[list[FieldResult], list[str]]:
        """Field results (batch comparators resolved) and alignment notes of one record."""
        # Every result is wanted now: pairs are not folded, to be expanded right away.
        sink = self._walked(gold, extracted, fold=False)
        fields = row_results(cast("list[Row]", sink.rows))
        if sink.pending:
            dispatch_batches(fields, sink.pending)
        return fields, sink.notes

    def rows(self, gold: Any, extracted: Any) -> tuple[list[Entry], list[str]]:
        """:meth:`score` as rows (see ``results.Row``), each perfect pair as one entry
        (``results.Pair``; ``results.expand`` gives the plain rows), for results built only
        when read."""
        sink = self._walked(gold, extracted, fold=True)
        if not sink.pending:
            return sink.rows, sink.notes
        fields = field_results(sink.rows)
        dispatch_batches(fields, sink.pending)
        return list(map(field_row, fields)), sink.notes

    def _walked(self, gold: Any, extracted: Any, *, fold: bool) -> _Collect:
        """The walk of one record: its rows (perfect pairs folded or not), the fields awaiting
        a batch comparator, and the notes."""
        sink = _Collect(fold=fold)
        self._pairings, self._verdicts = {}, {}
        depth = self.max_depth  # (read as score() reads them)
        gold = self._as_spelt(plain_value(gold, depth))
        try:
            extracted = self._as_spelt(plain_value(extracted, depth))
        except LimitError as exc:  # one record too deep: scored as nothing, the run goes on
            # (its path as the record's fields are named: no ``answer`` root)
            why = _ROOTED_PATH.sub(r"\1", str(exc), count=1)
            sink.notes.append(f"extracted record refused, scored as nothing extracted: {why}")
            extracted = None
        try:
            self.walk(sink, self.schema, gold, extracted, "", "", 0)
        finally:
            self._pairings = self._verdicts = None  # (keyed by ids: valid for this record)
        return sink

    def _as_spelt(self, record: Any) -> Any:
        """``record`` with each key that names a property in another Unicode form (composed
        or decomposed: macOS writes ``café`` decomposed) spelt as the schema spells it, else
        that field was unscored as "not in the schema". Nothing to do for a schema whose
        property names are ASCII."""
        if self._spellings is None:
            self._spellings = property_spellings(self.schema)
        if not self._spellings:
            return record
        return named_keys(record, "", compose=False, spelled=self._spellings)

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

    def route(self, node: SchemaNode, key: Any) -> SchemaNode | bool:
        """:func:`~.tree.key_schema` of ``key`` in object ``node``: the patterns are searched
        once per distinct key (for the first ``_MAX_ROUTES`` keys of each node) per scorer."""
        if not node.patterns and not node.open_patterns:
            return node.values if node.values is not None else node.additional
        memo = self._routes.get(node)
        if memo is None:
            memo = self._routes[node] = {}
        found = memo.get(key)
        if found is None:
            found = key_schema(node, key)
            if len(memo) < _MAX_ROUTES:
                memo[key] = found
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
            sink.add(
                (
                    SKIPPED,
                    0.0,
                    path,
                    node.path,
                    True,
                    _raw(g),
                    _raw(e),
                    "x-eval-skip",
                    "",
                    None,
                    None,
                )
            )
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
        unequal: bool = False,
    ) -> None:
        """The comparator's verdict on transformed values ``gc``/``ec`` of raw ``g``/``e``.

        ``unequal``: the caller already found no built-in match (see :meth:`object`).
        """
        node = leaf.node
        if gc is FAILED or ec is FAILED:
            failure = (
                f"gold value: {leaf.why(g)}" if gc is FAILED else f"extracted value: {leaf.why(e)}"
            )
            sink.add((MISMATCH, 0.0, path, node.path, True, g, e, failure, leaf.name, g, e))
            return
        if leaf.batch:
            item = BatchItem(path, g, e, gc, ec, leaf.params, node.path, parent, node.name)
            sink.pend(leaf, item)
            return
        # The built-ins' verdict without calling them (they add a reason only on failure).
        kind = leaf.kind
        if not unequal:
            if kind == "exact":
                equal = gc == ec if type(gc) is str and type(ec) is str else json_equal(gc, ec)
            else:
                equal = kind == "numeric" and numeric_match(gc, ec, leaf.rel, leaf.tol_abs)
            if equal:
                sink.add((MATCH, 1.0, path, node.path, True, g, e, None, leaf.name, gc, ec))
                return
        # Their answer to a miss on plain values, likewise: exact gives no reason for values of
        # one type, numeric explains why two numbers differ.
        if kind == "exact" and type(gc) is type(ec) and type(gc) in _PLAIN:
            reason = whitespace_reason(gc, ec) if type(gc) is str else None
        elif kind == "numeric" and type(gc) in _NUMBERS and type(ec) in _NUMBERS:
            reason = numeric_reason(gc, ec, leaf.rel, leaf.tol_abs)
        else:
            score, reason, skip = leaf.score(gc, ec)
            if not skip and score < 1.0 and meets(score, leaf.threshold):
                score, reason = 1.0, threshold_reason(score, leaf.threshold)
            status = SKIPPED if skip else MATCH if score == 1.0 else MISMATCH
            if status == MISMATCH and reason is None:
                reason = node.opaque or None  # a subtree a recursion cut left as one value
            sink.add((status, score, path, node.path, True, g, e, reason, leaf.name, gc, ec))
            return
        sink.add((MISMATCH, 0.0, path, node.path, True, g, e, reason, leaf.name, gc, ec))

    def too_deep(self, sink: _Sink, node: SchemaNode, g: Any, e: Any, path: str) -> None:
        """Past ``MAX_DEPTH`` a structural node is one value, compared iteratively."""
        equal = json_equal(g, e)
        sink.add(
            (
                MATCH if equal else MISMATCH,
                1.0 if equal else 0.0,
                path,
                node.path,
                True,
                g,
                e,
                f"nested deeper than {MAX_DEPTH} schema levels: compared as one value",
                "",
                None,
                None,
            )
        )

    def wrong_type(self, sink: _Sink, node: SchemaNode, g: Any, e: Any, path: str) -> None:
        """Both present, not both the node's container type: one verdict for the container."""
        if json_equal(g, e):
            sink.add(
                (
                    MATCH,
                    1.0,
                    path,
                    node.path,
                    True,
                    g,
                    e,
                    f"equal, but not {node.type}s",
                    "",
                    None,
                    None,
                )
            )
            return
        reason = f"type mismatch: gold {json_kind(g)}, model {json_kind(e)} (schema: {node.type})"
        sink.add((MISMATCH, 0.0, path, node.path, True, g, e, reason, "", None, None))

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
                sink.add((MATCH, 1.0, path, node.path, True, g, e, None, "", None, None))
            return
        add = sink.add
        g_get, e_get = g.get, e.get
        paired = gp is not None and ep is not None
        g_slots, e_slots = gp or (), ep or ()
        g_seen = e_seen = 0  # declared keys holding a value, to spot undeclared ones cheaply
        for name, child, leaf, nested, segment, top in self.children(node):
            gv = g_get(name)
            ev = e_get(name)
            if gv is None:
                if ev is None:
                    if leaf is not None and leaf.compound and _members_in(leaf, g, e):
                        # an optional member, null on both sides: the compound needs it
                        at = path + segment if path else top
                        item = BatchItem(
                            at, None, None, None, None, leaf.params, child.path, path, child.name
                        )
                        sink.pend(leaf, item)
                    continue
                e_seen += 1
            elif ev is None:
                g_seen += 1
            else:
                g_seen += 1
                e_seen += 1
                if leaf is not None:  # a leaf with both values: most fields
                    at = path + segment if path else top
                    if paired:
                        gc = g_slots[leaf.slot]
                        ec = e_slots[leaf.slot]
                    elif leaf.plain:
                        gc = gv
                        ec = ev
                    else:
                        gc = leaf.prepare(gv)
                        ec = leaf.prepare(ev)
                    # The built-ins' matches straight away; judge() does the rest. Values of
                    # one plain type that differ, or a numeric miss, are no built-in match.
                    kind = type(gc)
                    same = kind is type(ec) and kind in leaf.equal
                    if (same and gc == ec) or (
                        leaf.tolerant and numeric_match(gc, ec, leaf.rel, leaf.tol_abs)
                    ):
                        add((MATCH, 1.0, at, child.path, True, gv, ev, None, leaf.name, gc, ec))
                    else:
                        self.judge(sink, leaf, gv, ev, gc, ec, at, path, same or leaf.tolerant)
                    continue
            at = path + segment if path else top
            if paired and nested and _is_object(gv) and _is_object(ev):
                self.object(sink, child, gv, ev, at, depth + 1, gp, ep)
            else:
                self.walk(sink, child, gv, ev, at, path, depth + 1)
        # Every key is a declared one holding a value unless the counts fall short.
        if g_seen != len(g) or e_seen != len(e):
            self.extras(sink, node, path, g, e, depth)

    def extras(
        self,
        sink: _Sink,
        node: SchemaNode,
        path: str,
        g: Mapping[Any, Any] | None,
        e: Mapping[Any, Any] | None,
        depth: int,
        known: Container[Any] = (),
    ) -> None:
        """Keys the schema does not declare, gold ones first.

        One that :meth:`route` gives a schema (a matching pattern's, or a map's value schema)
        is a field scored by it. Otherwise a gold one is unscored (shown as skipped), and one
        only the model has is a hallucination, or unscored too where the schema allows it
        (``additionalProperties: true``, a pattern whose schema states nothing) or where the
        gold has it: ``known`` holds the keys of the gold elements of the array an unpaired
        model element sits in, so it counts as it would paired.
        """
        declared = node.properties.keys()
        g_extra, e_extra = _undeclared(g, declared), _undeclared(e, declared)
        add = sink.add
        for key, value in g_extra:
            found = self.route(node, key)
            model = None if e is None else e.get(key)
            if isinstance(found, SchemaNode):
                self.walk(sink, found, value, model, key_path(path, key), path, depth + 1)
            elif value is not None:
                reason = _NOT_IN_SCHEMA if model is None else _NOT_IN_SCHEMA_EITHER
                at, where = key_path(path, key), key_path(node.path, key)
                add((SKIPPED, 0.0, at, where, False, value, model, reason, "", None, None))
        for key, value in e_extra:
            found = self.route(node, key)
            if isinstance(found, SchemaNode):
                if g is None or key not in g:  # else walked with the gold keys
                    self.walk(sink, found, MISSING, value, key_path(path, key), path, depth + 1)
            elif value is not None and (g is None or g.get(key) is None):
                if found:
                    status, reason = SKIPPED, _ALLOWED
                elif key in known:
                    status, reason = SKIPPED, _NOT_IN_SCHEMA_GOLD
                else:
                    status, reason = HALLUCINATION, _EXTRA
                at, where = key_path(path, key), key_path(node.path, key)
                add((status, 0.0, at, where, False, None, value, reason, "", None, None))

    def one_sided(
        self,
        sink: _Sink,
        node: SchemaNode,
        v: Any,
        path: str,
        parent: str,
        status: str,
        depth: int,
        known: Container[Any] = (),
        why: str | None = None,
    ) -> None:
        """Expand a value present on one side only into omissions or hallucinations
        (``known``: see :meth:`extras`; ``why``: the reason of each of its fields, as an
        alignment gives it for an element)."""
        if v is None or v is MISSING:
            return
        gold_side = status == OMISSION
        g, e = (v, None) if gold_side else (None, v)
        if node.skip:
            sink.add((SKIPPED, 0.0, path, node.path, True, g, e, "x-eval-skip", "", None, None))
        elif _is_unit(node):
            name = self.leaf(node).name
            sink.add((status, 0.0, path, node.path, True, g, e, why, name, g, e))
        elif depth >= MAX_DEPTH:
            sink.add(
                (
                    status,
                    0.0,
                    path,
                    node.path,
                    True,
                    g,
                    e,
                    f"nested deeper than {MAX_DEPTH}",
                    "",
                    None,
                    None,
                )
            )
        elif node.items is None:
            if not v or not _is_object(v):
                sink.add((status, 0.0, path, node.path, True, g, e, why, "", None, None))
                return
            for name, child, leaf, _, segment, top in self.children(node):
                value = v.get(name)
                if value is None:
                    continue
                at = path + segment if path else top
                if leaf is None:
                    self.one_sided(sink, child, value, at, path, status, depth + 1, why=why)
                else:  # a leaf, emitted as the unit branch above does
                    lg, le = (value, None) if gold_side else (None, value)
                    sink.add((status, 0.0, at, child.path, True, lg, le, why, leaf.name, lg, le))
            if gold_side:
                self.extras(sink, node, path, v, None, depth)
            else:
                self.extras(sink, node, path, None, v, depth, known)
        elif not isinstance(v, (list, tuple)) or not v:
            sink.add((status, 0.0, path, node.path, True, g, e, why, "", None, None))
        elif gold_side and node.align is not None and node.align.method == CONTAINED:
            self.array(sink, node, v, [], path, depth)  # lacks count elements, not the pool
        else:
            items = node.items
            for k, element in enumerate(v):
                at = f"{path}[{k if gold_side else -k - 1}]"
                self.one_sided(sink, items, element, at, path, status, depth + 1, why=why)

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
                sink.add((MATCH, 1.0, path, node.path, True, g, e, None, "", None, None))
            return
        items = node.items
        assert items is not None
        alignment, prepared = self.pair_elements(node, items, g, e, depth)
        told = element_reasons(g, e, node.align or ORDERED_SPEC, alignment)
        for text in told.notes:
            sink.note(f"{self.note_path(path)}: {text}")
        partner = dict(alignment.pairs)
        unit = self.leaf(items) if _is_unit(items) else None
        unchosen = frozenset(alignment.unchosen_gold)
        for i, gv in enumerate(g):
            j = partner.get(i)
            at = f"{path}[{i}]"
            if i in unchosen:  # contained: the answer needed not take this one
                why = unchosen_reason(node.align) if node.align else None
                sink.add((SKIPPED, 0.0, at, items.path, True, gv, None, why, "", None, None))
                continue
            if j is None:
                self.one_sided(sink, items, gv, at, path, OMISSION, depth + 1, why=told.gold[i])
                continue
            ev = e[j]
            gp = ep = None
            if prepared is not None and gv is not None and ev is not None:
                if prepared.emit(self, sink, i, j, at):
                    continue
                gp, ep = prepared.gold.values[i], prepared.model.values[j]
            if gp is None or ep is None:
                self.walk(sink, items, gv, ev, at, path, depth + 1)
            elif unit is not None:
                self.judge(sink, unit, gv, ev, gp[0], ep[0], at, path)
            else:
                self.object(sink, items, gv, ev, at, depth + 1, gp, ep)
        known = _gold_keys(g) if alignment.unmatched_model else ()
        for k, j in enumerate(alignment.unmatched_model):
            at = f"{path}[{-k - 1}]"
            why = told.model[j]
            self.one_sided(sink, items, e[j], at, path, HALLUCINATION, depth + 1, known, why)

    def pair_elements(
        self, node: SchemaNode, items: SchemaNode, g: Sequence[Any], e: Sequence[Any], depth: int
    ) -> tuple[Alignment, _Pairing | None]:
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
            unkeyed: set[int] = set()  # ids of the key values that are null or fail a transform

            def key_of(value: Any) -> Any:
                key = leaf.key(value)
                if key is FAILED:
                    unkeyed.add(id(value))
                    return object()  # pairs with nothing
                return key

            keyed = align(g, e, spec, key_of=key_of)
            if unkeyed:
                keyed = replace(keyed, notes=(*keyed.notes, *_unkeyed_notes(g, e, spec, unkeyed)))
            return keyed, None
        if spec.method == CONTAINED:  # equal elements, as the items' comparator sees units
            return align(g, e, spec, key_of=self.unit_key(items)), None
        if not g or not e:
            return Alignment((), tuple(range(len(g))), tuple(range(len(e)))), None
        past = align_past_bound(
            g,
            e,
            spec,
            key_of=self.unit_key(items),
            similarity=lambda a, b: self.pair_f1(items, a, b, depth + 1),
        )
        if past is not None:
            return past, None
        cache = self._pairings
        key = (id(node), id(g), id(e))
        found = None if cache is None else cache.get(key)
        if found is None:
            judged = self.judges(items)
            if judged:  # a batch comparator decides: see judged_matrix
                matrix, notes = self.judged_matrix(items, g, e, depth + 1)
                paired = align(g, e, spec, matrix=matrix)
                found = (replace(paired, notes=(*paired.notes, *notes)), None)
            else:
                matrix, prepared = self.similarity(items, g, e, depth + 1)
                found = (align(g, e, spec, matrix=matrix), prepared)
            if cache is not None and not (judged and self._asking is not None):
                cache[key] = found  # (not a pairing made while its verdicts are still asked)
        return found

    def unit_key(self, items: SchemaNode) -> Callable[[Any], Any] | None:
        """For elements that are units: their value as the comparator sees it (after
        ``x-eval-transform``), so equal elements pair without weighing; else None."""
        if not _is_unit(items):
            return None
        leaf = self.leaf(items)

        def key_of(value: Any) -> Any:
            key = leaf.key(value)
            return object() if key is FAILED else key  # (a unique key: pairs with nothing)

        return key_of

    def pair_f1(
        self,
        items: SchemaNode,
        g: Any,
        e: Any,
        depth: int,
        verdicts: dict[Hashable, float] | None = None,
        asked: dict[Hashable, tuple[_Leaf, BatchItem]] | None = None,
    ) -> float:
        """F1 of one element pair by the full walk (the general, slower path); ``verdicts``
        and ``asked``: see :class:`_Count`."""
        counter = _Count(verdicts, asked)
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
    ) -> tuple[list[list[float]], _Pairing | None]:
        """The pair-F1 matrix that drives Hungarian alignment (and the prepared elements)."""
        if items not in self._plans:
            self._plans[items] = _ElementPlan.build(self, items, depth)
        plan = self._plans[items]
        if plan is None:
            return [[self.pair_f1(items, gv, ev, depth) for ev in e] for gv in g], None
        return _Matrix(self, plan, depth).compute(g, e)

    def judges(self, node: SchemaNode) -> bool:
        """Whether a field under ``node`` has a batch comparator (not a compound one)."""
        found = self._judges.get(node)
        if found is None:
            found = False
            todo = [node]
            while todo and not found:
                at = todo.pop()
                if _is_unit(at):
                    leaf = self.leaf(at)
                    found = leaf.batch and not leaf.compound
                else:
                    todo.extend(at.properties.values())
                    todo.extend(child for child in (at.items, at.values) if child is not None)
                    todo.extend(pattern.node for pattern in at.patterns)
            self._judges[node] = found
        return found

    def judged_matrix(
        self, items: SchemaNode, g: Sequence[Any], e: Sequence[Any], depth: int
    ) -> tuple[list[list[float]], list[str]]:
        """The pair-F1 matrix where a batch comparator (an LLM judge, say) decides, and notes
        on what stopped it from deciding.

        Exact equality would stand in for it, and a judge exists for values that differ, so
        every unequal value pair of every candidate pair (nested arrays' candidates included:
        they join this call) is put to it, in one call per comparator, and the matrix is
        computed with its verdicts. Verdicts are kept for the record, so an array scored
        again asks nothing twice, and the pairs chosen are judged again with the record. A
        call of more than ``MAX_JUDGED`` values is not made: equality stands in, with a note.
        In this call an item's ``path`` and ``parent`` are relative to the element pair.
        """
        verdicts = self._verdicts if self._verdicts is not None else {}
        outer = self._asking
        if outer is not None:  # inside another array's candidates: asked with them
            matrix = [[self.pair_f1(items, gv, ev, depth, verdicts, outer) for ev in e] for gv in g]
            return matrix, []
        ask = _Count(verdicts)
        self._asking = ask.asked
        try:
            for gv in g:
                for ev in e:
                    self.walk(ask, items, gv, ev, "", "", depth)
        finally:
            self._asking = None
        notes = _ask_judges(ask.asked, verdicts)
        matrix = [[self.pair_f1(items, gv, ev, depth, verdicts) for ev in e] for gv in g]
        return matrix, notes


def _ask_judges(
    asked: Mapping[Hashable, tuple[_Leaf, BatchItem]], verdicts: dict[Hashable, float]
) -> list[str]:
    """Put ``asked`` to their batch comparators, one call each (grouped by name, as the
    record's call is), into ``verdicts``; notes for the calls not made or that failed."""
    by_name: dict[str, list[tuple[Hashable, _Leaf, BatchItem]]] = {}
    for key, (leaf, item) in asked.items():
        by_name.setdefault(leaf.name, []).append((key, leaf, item))
    notes = []
    for name, entries in by_name.items():
        how = f"batch comparator {name!r}"
        if len(entries) > MAX_JUDGED:
            notes.append(
                f"{how} not asked about {len(entries):,} candidate values (over "
                f"MAX_JUDGED={MAX_JUDGED:,}): exact equality paired the elements"
            )
            continue
        try:
            replies = entries[0][1].fn([item for _, _, item in entries])
        except Exception as exc:  # a handler bug must not end the run
            notes.append(f"{how} raised {exc!r} on the candidate pairs: exact equality paired them")
            continue
        if not isinstance(replies, (list, tuple)):
            kind = type(replies).__name__
            notes.append(
                f"{how} returned {kind} on the candidate pairs: exact equality paired them"
            )
            continue
        if len(replies) != len(entries):
            notes.append(
                f"{how} returned {len(replies)} verdicts for {len(entries)} candidate values: "
                "exact equality paired them"
            )
            continue
        try:  # every verdict or none: one it could not give is a failed call, not a "no"
            read = [read_verdict(reply)[0] for reply in replies]
        except ValueError as exc:
            notes.append(
                f"{how} gave an unusable verdict on the candidate pairs ({exc}): "
                "exact equality paired them"
            )
            continue
        verdicts.update(zip((key for key, _, _ in entries), read, strict=True))
    return notes


# --- the column-wise similarity matrix ------------------------------------------------


class _ObjectPlan:
    """One object level of an element: its scored properties and nested levels."""

    __slots__ = ("complex", "index", "leaves", "levels", "names", "open")

    def __init__(self, index: int, node: SchemaNode) -> None:
        self.index = index
        self.names = frozenset(node.properties)  # every declared property, skipped ones too
        #: undeclared keys are allowed here: unscored, so they never weigh on a pair's F1
        self.open = node.additional
        # (name, slot, slot bit, the leaf's transforms or None when it has none, its string
        # kernels or None)
        self.leaves: list[tuple[str, int, int, _Convert | None, _Kernels | None]] = []
        self.levels: list[tuple[str, _ObjectPlan]] = []  # nested objects
        self.complex: list[tuple[str, int]] = []  # nested arrays: (name, complex index)


class _ElementPlan:
    """Array items flattened into leaf slots, so pair F1s can be computed column by column.

    Leaves reached through nested objects become slots; nested structural arrays become
    "complex" slots scored pair by pair with the full walk. Elements that do not fit the shape
    (an empty or wrong-typed object level) are scored pair by pair with the full walk too.
    """

    __slots__ = (
        "complex",
        "counted",
        "direct",
        "empty",
        "fetch",
        "flat",
        "items",
        "root",
        "slots",
    )

    def __init__(self, items: SchemaNode) -> None:
        self.items = items
        self.flat = False  # one object level holding only leaves
        self.counted = False  # every slot scores 0 or 1 (exact, numeric): see _Matrix.scores
        #: a flat plan's slot values of an element holding them all, as a tuple
        self.fetch: Callable[[Mapping[Any, Any]], tuple[Any, ...]] | None = None
        #: per slot (path segment, schema path, comparator name) when aligned pairs can be
        #: scored from the matrix's per-slot verdicts (see _Pairing.emit), else None
        self.direct: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None
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
            plan.root = _ObjectPlan(levels, items)
            todo: list[tuple[SchemaNode, _ObjectPlan, int]] = [(items, plan.root, depth)]
            while todo:
                node, level, at = todo.pop()
                if (
                    at >= MAX_DEPTH
                    or node.values is not None
                    or node.patterns
                    or node.open_patterns
                ):
                    return None  # compared as one value that deep; undeclared keys by key
                for name, child in node.properties.items():
                    if child.skip:
                        continue
                    if _is_unit(child):
                        leaf = scorer.leaf(child)
                        leaf.slot = slot = len(plan.slots)
                        convert = None if leaf.plain else leaf.prepare
                        level.leaves.append((name, slot, 1 << slot, convert, leaf.kernels))
                        plan.slots.append(leaf)
                    elif child.items is not None:
                        level.complex.append((name, len(plan.complex)))
                        plan.complex.append((child, at + 1))
                    else:
                        levels += 1
                        sub = _ObjectPlan(levels, child)
                        level.levels.append((name, sub))
                        todo.append((child, sub, at + 1))
        plan.empty = _Prepared([MISSING] * len(plan.slots), [MISSING] * len(plan.complex))
        root = plan.root
        plan.flat = root is not None and bool(root.leaves) and not (root.levels or root.complex)
        if plan.flat and root is not None and len(root.leaves) > 1:  # (one name: no tuple)
            plan.fetch = itemgetter(*(name for name, *_ in root.leaves))
        plan.counted = 0 < len(plan.slots) < _LANE and all(
            leaf.kind != "other" for leaf in plan.slots
        )
        # Exact and numeric hits in the matrix are the walk's built-in matches (batch
        # comparators only have a stand-in there), and with every property a slot, the slots
        # are the walk's fields in its order: a pair's rows follow from its hits.
        children = scorer.children(items)
        if (
            plan.fetch is not None
            and plan.counted
            and root is not None
            and not root.open
            and len(children) == len(plan.slots)
            and not any(leaf.batch for leaf in plan.slots)
        ):
            plan.direct = (
                tuple(child.segment for child in children),
                tuple(leaf.node.path for leaf in plan.slots),
                tuple(leaf.name for leaf in plan.slots),
            )
        return plan


class _Prepared:
    """One element's prepared slot values, presence mask, complex values and extra keys."""

    __slots__ = ("complex", "extras", "mask", "values")

    def __init__(self, values: list[Any], complex_values: list[Any]) -> None:
        self.values = values
        self.complex = complex_values
        self.mask = 0
        self.extras: frozenset[tuple[int, Any]] | set[tuple[int, Any]] = frozenset()


_NO_EXTRAS: Final[frozenset[tuple[int, Any]]] = frozenset()


class _Side:
    """One array's elements ready for the matrix: per element, and per slot (column)."""

    __slots__ = ("columns", "complex", "counts", "extras", "kinds", "raws", "values")

    def __init__(
        self,
        values: list[Sequence[Any] | None],
        columns: list[Sequence[Any]],
        counts: list[int],
        extras: list[frozenset[tuple[int, Any]] | set[tuple[int, Any]]],
        complex_values: list[list[Any]],
        kinds: list[set[type]],
        raws: list[Sequence[Any]] | None = None,
    ) -> None:
        self.values = values  # slot values; None for an element the full walk must score
        self.raws = raws  # the slot values as they are, when every element has all of them
        self.columns = columns  # per slot, per element: the value, or MISSING (or irregular)
        self.kinds = kinds  # per slot, the types of its values (``_Missing`` for absent ones)
        self.counts = counts  # present slots per element
        self.extras = extras  # undeclared non-null keys per element: (level index, key)
        self.complex = complex_values  # nested-array values per element


class _Pairing:
    """A Hungarian-aligned array's prepared elements and pair F1s, for walking its pairs."""

    __slots__ = ("gold", "hits", "matrix", "model", "plan")

    def __init__(
        self,
        plan: _ElementPlan,
        gold: _Side,
        model: _Side,
        matrix: list[list[float]],
        hits: list[list[int]] | None,
    ) -> None:
        self.plan = plan
        self.gold = gold
        self.model = model
        self.matrix = matrix
        self.hits = hits  # per slot, per gold element: the lanes of the model values it matches

    def emit(self, scorer: RecordScorer, sink: _Sink, i: int, j: int, at: str) -> bool:
        """Add the rows of pair (gold ``i``, model ``j``) at path ``at`` from the matrix's
        per-slot hits; False (nothing added) when the walk must score the pair.

        Hits are exactly the walk's built-in matches (see ``_ElementPlan.direct``), so a hit is
        a match row and only the other slots run the comparator, for their score and reason.
        F1 ``2s / (gold fields + model fields)`` is 1 only when every field present on either
        side is a hit on both; with every gold slot present, that is every slot: such a perfect
        pair goes to the sink as one ``results.Pair``, its rows built only when read.
        """
        direct, hits = self.plan.direct, self.hits
        gs, ms = self.gold, self.model
        graws, mraws = gs.raws, ms.raws
        if (
            direct is None
            or hits is None
            or graws is None
            or mraws is None
            or gs.extras[i]
            or ms.extras[j]
        ):
            return False
        segments, schema_paths, names = direct
        graw, mraw = graws[i], mraws[j]
        gvalues, mvalues = gs.values[i], ms.values[j]
        assert gvalues is not None
        assert mvalues is not None
        if self.matrix[i][j] == 1.0 and gs.counts[i] == len(hits):
            sink.pair((PERFECT, at, direct, graw, mraw, gvalues, mvalues))
            return True
        add = sink.add
        shift = 8 * j
        leaves = self.plan.slots
        for s, found in enumerate(hits):
            gc, ec = gvalues[s], mvalues[s]
            if gc is MISSING and ec is MISSING:
                continue
            path, where, name = at + segments[s], schema_paths[s], names[s]
            g, e = graw[s], mraw[s]
            if gc is MISSING:
                add((HALLUCINATION, 0.0, path, where, True, None, e, None, name, None, e))
            elif ec is MISSING:
                add((OMISSION, 0.0, path, where, True, g, None, None, name, g, None))
            elif found[i] >> shift & 255:
                add((MATCH, 1.0, path, where, True, g, e, None, name, gc, ec))
            else:
                scorer.judge(sink, leaves[s], g, e, gc, ec, path, at, True)
        return True


class _Matrix:
    """Computes the pair-F1 matrix of two arrays column-wise.

    For regular elements, with ``b/o/h`` the both-present / gold-only / model-only slot counts,
    extra model keys added to ``h`` (unless the level allows them), and ``s`` the score sum:
    exact-compared slots meet through hash buckets of canonical values and numeric ones through
    a sorted tolerance window (no pair loop; hits summed per model element in byte lanes),
    other comparators are called only for pairs where both sides are present, and the F1 is
    ``2s / (gold fields + model fields)``, looked up when the sums are whole numbers.
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
            for name, slot, bit, convert, _ in level.leaves:
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
            if not level.open and not obj.keys() <= level.names:
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
        columns: list[Sequence[Any]] = []
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
            [set(map(type, column)) for column in columns],
        )

    def flat_side(self, elements: Sequence[Any]) -> _Side:
        """The elements of a flat plan (one object level of leaves), prepared column by column.

        Same values as :meth:`side`, with the per-slot work done at C speed where it can be:
        elements holding every slot are read by one ``itemgetter`` call each, string kernels
        are mapped over all-string columns.
        """
        plan = self.plan
        root = plan.root
        assert root is not None
        names = root.names
        count = len(elements)
        extras: list[frozenset[tuple[int, Any]] | set[tuple[int, Any]]] = [_NO_EXTRAS] * count
        irregular: list[int] = []
        objs: Sequence[Mapping[Any, Any]] = elements
        rows: list[Sequence[Any]] | None = None  # per element, its slot values as they are
        plain = set(map(type, elements)) == _DICT_ONLY
        if plain and plan.fetch is not None:
            try:
                rows = list(map(plan.fetch, elements))
            except KeyError:  # some element lacks some slot (or is empty)
                plain = all(elements)
        elif plain:
            plain = all(elements)
        if not plain:
            nothing: Mapping[Any, Any] = {}
            objs = [nothing] * count
            for i, value in enumerate(elements):
                if value is not None:
                    if value and _is_object(value):
                        objs[i] = value
                    else:
                        irregular.append(i)
        exact_keys = rows is not None and set(map(len, objs)) == {len(root.leaves)}
        if not (exact_keys or root.open or names.issuperset(chain.from_iterable(objs))):
            for i, o in enumerate(objs):
                if not o.keys() <= names:
                    found = {(0, k) for k in o.keys() - names if o[k] is not None}
                    if found:
                        extras[i] = found
        columns: list[Sequence[Any]]
        if rows is not None:
            columns = list(zip(*rows, strict=True))
        elif plain:
            columns = [list(map(_dict_get, objs, repeat(name))) for name, *_ in root.leaves]
        else:
            columns = [[o.get(name) for o in objs] for name, *_ in root.leaves]
        changed = False  # some column differs from the values as they are
        gaps = False  # some element lacks some slot
        all_kinds: list[set[type]] = []
        for s, (_, _, _, convert, kernels) in enumerate(root.leaves):  # in slot order
            column = columns[s]
            kinds = set(map(type, column))
            if _NONE_TYPE in kinds:  # absent or null
                column = [MISSING if v is None else v for v in column]
                gaps = changed = True
                kinds.discard(_NONE_TYPE)
                kinds.add(_Missing)
            if convert is None:
                pass
            elif kernels is not None and kinds == _STR_ONLY:
                converted: Iterable[Any] = column
                for kernel in kernels:
                    converted = map(kernel, converted)
                column = list(converted)
                changed = True
            else:
                column = [v if v is MISSING else convert(v) for v in column]
                kinds = set(map(type, column))
                changed = True
            columns[s] = column
            all_kinds.append(kinds)
        values = cast(
            "list[Sequence[Any] | None]",
            list(zip(*columns, strict=True)) if changed or rows is None else rows,
        )
        for i in irregular:
            values[i] = None
        if gaps:
            present = [list(map(is_not, column, repeat(MISSING))) for column in columns]
            counts = list(map(sum, zip(*present, strict=True)))
        else:  # every element has every slot
            counts = [len(columns)] * count
        return _Side(values, columns, counts, extras, [plan.empty.complex] * count, all_kinds, rows)

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

    def scores(
        self, gs: _Side, ms: _Side
    ) -> tuple[Sequence[Sequence[float]], list[list[int]] | None]:
        """Per gold element, the score sum of its slots against each model element, and the
        per-slot hits when every slot is counted (for :meth:`_Pairing.emit`).

        Exact and numeric slots score 0 or 1: their hits come as byte-lane integers (see
        :data:`_LANE`), summed over the slots when all of them are such (whole numbers, so the
        order of the sum does not matter) and read off as bytes. Otherwise the slots are added
        in slot order, as the walk adds them, so the sums are the walk's to the last bit.
        """
        plan = self.plan
        n, m = len(gs.values), len(ms.values)
        lanes = _lanes(m)
        if plan.counted:
            per_slot = [_hits(leaf, gs, ms, s, lanes) for s, leaf in enumerate(plan.slots)]
            acc = per_slot[0]
            for hits in per_slot[1:]:
                acc = list(map(add, acc, hits))
            return [found.to_bytes(m, "little") for found in acc], per_slot
        total = [[0.0] * m for _ in range(n)]
        for s, leaf in enumerate(plan.slots):
            if leaf.kind != "other":
                for i, found in enumerate(_hits(leaf, gs, ms, s, lanes)):
                    if found:
                        total[i] = list(map(add, total[i], found.to_bytes(m, "little")))
                continue
            quick = leaf.quick
            present = [(j, mv) for j, mv in enumerate(ms.columns[s]) if mv is not MISSING]
            for i, gv in enumerate(gs.columns[s]):
                if gv is not MISSING:
                    row = total[i]
                    for j, mv in present:
                        row[j] += quick(gv, mv)
        return total, None

    def compute(
        self, gold: Sequence[Any], model: Sequence[Any]
    ) -> tuple[list[list[float]], _Pairing]:
        plan, scorer = self.plan, self.scorer
        depth = self.depth
        if plan.flat:
            gs, ms = self.flat_side(gold), self.flat_side(model)
        else:
            gs, ms = self.side(gold), self.side(model)
        scores, hits = self.scores(gs, ms)
        # Pair F1 = 2s / (2b + o + h) = 2s / (gold fields + model fields): only the score sum
        # depends on the pair, except for shared extra keys and complex slots. A zero score
        # sum is an F1 of 0 unless no field takes part at all.
        model_fields = [c + len(x) for c, x in zip(ms.counts, ms.extras, strict=True)]
        # Whole-number sums over one denominator: the F1 of each sum, looked up.
        uniform = plan.counted and len(set(model_fields)) == 1
        tables: dict[int, list[float]] = {}
        irregular_m = [j for j, v in enumerate(ms.values) if v is None]
        total: list[list[float]] = []
        for i, gvalues in enumerate(gs.values):
            if gvalues is None:
                total.append([scorer.pair_f1(plan.items, gold[i], e, depth) for e in model])
                continue
            gold_fields = gs.counts[i]
            if gold_fields and not gs.extras[i] and not plan.complex:
                if uniform:
                    table = tables.get(gold_fields)
                    if table is None:
                        fields = gold_fields + model_fields[0]
                        table = tables[gold_fields] = [
                            2.0 * k / fields for k in range(len(plan.slots) + 1)
                        ]
                    row = list(map(table.__getitem__, scores[i]))  # type: ignore[arg-type]
                else:
                    row = list(
                        map(
                            truediv,
                            map(mul, scores[i], repeat(2.0)),
                            map(add, model_fields, repeat(gold_fields)),
                        )
                    )
            else:
                row = list(scores[i])
                for j, mvalues in enumerate(ms.values):
                    if mvalues is not None:
                        row[j] = self.cell(gs, i, ms, j, row[j], gold_fields + model_fields[j])
            for j in irregular_m:
                row[j] = scorer.pair_f1(plan.items, gold[i], model[j], depth)
            total.append(row)
        return total, _Pairing(plan, gs, ms, total, hits)


def _f1(score: float, fields: int) -> float:
    """Record F1 from the score sum and ``2 * both + omissions + hallucinations``.

    Equal to the harmonic mean of precision and recall (reference §11), in the closed form
    ``2s / (2b + o + h)``; 1.0 when nothing is scorable.
    """
    if score > 0.0:
        return 2.0 * score / fields
    return 0.0 if fields else 1.0


#: Byte lanes: model element ``j`` is byte ``j`` of an integer (``1 << 8 * j``), so adding
#: such integers counts per model element at C speed, up to 255 per lane.
_LANE: Final = 256
_STR_ONLY: Final = frozenset({str})
_DICT_ONLY: Final = frozenset({dict})
_FLOAT_ONLY: Final = frozenset({float})
_BOOL_ONLY: Final = frozenset({bool})
_NONE_TYPE: Final = type(None)
#: Value types that are their own bucket keys (JSON equality is ``==`` within each of them).
_OWN_KEYS: Final = frozenset({str, bool, int})
_dict_get: Final[Callable[[Any, Any], Any]] = dict.get


@functools.lru_cache(maxsize=32)
def _lanes(m: int) -> list[int]:
    """The lane of each of ``m`` model elements (arrays of one record share their sizes)."""
    return [1 << 8 * j for j in range(m)]


def _hits(leaf: _Leaf, gs: _Side, ms: _Side, s: int, lanes: list[int]) -> list[int]:
    """Per gold value of slot ``s``, the lanes of the model values it matches (score 1)."""
    if leaf.kind == "numeric":
        return _numeric_hits(leaf, gs.columns[s], ms.columns[s], gs.kinds[s], ms.kinds[s], lanes)
    return _exact_hits(gs.columns[s], ms.columns[s], gs.kinds[s] | ms.kinds[s], lanes)


def _exact_hits(
    rows: Sequence[Any], cols: Sequence[Any], kinds: set[type], lanes: list[int]
) -> list[int]:
    """Exact slots: each model value adds its lane to the bucket of its canonical value, each
    gold value takes its bucket (absent and failed values meet nothing)."""
    kinds = kinds - {_Missing}
    if kinds == _BOOL_ONLY and MISSING not in cols:  # two buckets, summed at C speed
        true = sum(compress(lanes, cols))
        return list(map({True: true, False: sum(lanes) - true}.get, rows, repeat(0)))
    if len(kinds) == 1 and kinds <= _OWN_KEYS:  # the values are their own keys
        buckets = dict(zip(cols, lanes, strict=True))
        if len(buckets) == len(cols):  # all distinct
            buckets.pop(MISSING, None)
            return list(map(buckets.get, rows, repeat(0)))
        buckets.clear()
        for v, lane in zip(cols, lanes, strict=True):
            if v is not MISSING:
                buckets[v] = buckets.get(v, 0) + lane
        return list(map(buckets.get, rows, repeat(0)))
    buckets = {}
    for v, lane in zip(cols, lanes, strict=True):
        if v is not MISSING and v is not FAILED:
            key = v if type(v) is str else _bucket_key(v)
            buckets[key] = buckets.get(key, 0) + lane
    get = buckets.get
    return [
        0 if v is MISSING or v is FAILED else get(v if type(v) is str else _bucket_key(v), 0)
        for v in rows
    ]


#: Integers below this convert to a finite float (they can join the sorted numeric window).
_FLOAT_LIMIT: Final = 2**1000


def _numeric_hits(
    leaf: _Leaf,
    rows: Sequence[Any],
    cols: Sequence[Any],
    row_kinds: set[type],
    col_kinds: set[type],
    lanes: list[int],
) -> list[int]:
    """Numeric slots by a sorted window search instead of all pairs.

    Candidates inside a slightly widened tolerance window are confirmed with
    :func:`numeric_match`'s own test (inlined for two finite numbers), so the verdicts are
    exactly those of the comparator.
    """
    rel, tol_abs = leaf.rel, leaf.tol_abs
    inf = math.inf
    limit = _FLOAT_LIMIT
    equal_only = rel is None and tol_abs is None
    abs_limit = inf if tol_abs is None else tol_abs
    rel_factor = inf if rel is None else rel
    window_abs = 0.0 if equal_only else abs_limit  # the window's own bound
    odd: list[tuple[int, Any]] = []  # model values that are not finite numbers
    if col_kinds == _FLOAT_ONLY and math.isfinite(sum(cols)):  # (finite only if all are)
        ranked = sorted(range(len(cols)), key=cols.__getitem__)
        keys = list(map(cols.__getitem__, ranked))
    else:
        where: list[int] = []
        for j, v in enumerate(cols):
            kind = type(v)
            if (kind is float and -inf < v < inf) or (kind is int and -limit < v < limit):
                where.append(j)
            elif v is not MISSING:
                odd.append((j, v))
        floats = [float(cols[j]) for j in where]
        order = sorted(range(len(where)), key=floats.__getitem__)
        keys = [floats[k] for k in order]
        ranked = [where[k] for k in order]
    hits = [0] * len(rows)
    if not keys and not odd:
        return hits
    floats_only = row_kinds == _FLOAT_ONLY and math.isfinite(sum(rows))
    for i, gv in enumerate(rows):
        if floats_only:
            g = gv
        elif gv is MISSING:
            continue
        elif (type(gv) is float and -inf < gv < inf) or (type(gv) is int and -limit < gv < limit):
            g = float(gv)
        else:
            if gv is not FAILED:
                hits[i] = sum(
                    lane
                    for mv, lane in zip(cols, lanes, strict=True)
                    if mv is not MISSING and numeric_match(gv, mv, rel, tol_abs)
                )
            continue
        # numeric_match's bounds: relative to gold (to 1.0 at 0), and the absolute one.
        a = abs(g)
        rel_limit = rel_factor * (a or 1.0)
        width = rel_limit if rel_limit < window_abs else window_abs
        pad = width * (1 + 1e-9) + a * 1e-12 + 1e-300
        found = 0
        for k in range(bisect_left(keys, g - pad), bisect_right(keys, g + pad)):
            j = ranked[k]
            mv = cols[j]
            if gv == mv:
                found += lanes[j]
            elif not equal_only:
                diff = abs(gv - mv)
                if diff <= rel_limit and diff <= abs_limit and diff != inf:
                    found += lanes[j]
        for j, mv in odd:
            if numeric_match(gv, mv, rel, tol_abs):
                found += lanes[j]
        hits[i] = found
    return hits


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
