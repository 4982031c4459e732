"""Batch and compound comparators: one call per comparator per record, never a crash.

A comparator whose ``is_batch`` attribute is ``True`` (:func:`batch_comparator` sets it) is
called as ``fn(items)`` with every pending field of one record that uses it, and answers
with one ``ComparatorResult`` (or ``None``) per item, positionally. Whatever goes wrong —
the call raises, the reply is not a list, it is short, an entry is ``None`` or not a result,
a score is outside [0, 1] — turns the affected fields into ``batch_error`` with a reason, and
the run goes on.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, TypeVar, cast

from ..errors import ComparatorWarning
from ..naming import counted, score_beside
from ..results import BATCH_ERROR, MATCH, MISMATCH, SKIPPED
from ..weights import meets
from .comparators import ComparatorResult, read_verdict
from .results import FieldResult

__all__ = [
    "BatchComparator",
    "BatchItem",
    "CompoundComparator",
    "PendingField",
    "batch_comparator",
    "dispatch_batches",
    "is_batch",
]


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One field handed to a batch comparator.

    ``path`` is the instance path; ``*_compared`` are the post-transform values. ``parent`` is
    the instance path of the enclosing object and ``name`` the property name, so grouping
    sibling fields never has to split a path (property names may contain dots).
    """

    path: str
    gold_raw: Any
    extracted_raw: Any
    gold_compared: Any
    extracted_compared: Any
    params: Mapping[str, Any] = field(default_factory=dict)
    schema_path: str = ""
    parent: str = ""
    name: str | None = None


@dataclass(frozen=True, slots=True)
class PendingField:
    """A field awaiting its batch comparator: where its placeholder sits in the result list."""

    index: int
    comparator: str
    fn: Callable[..., Any]
    item: BatchItem
    threshold: float = 1.0  # the score that counts as a match (x-eval-threshold)


def is_batch(fn: Any) -> bool:
    """True for batch comparators (``fn.is_batch is True``)."""
    return getattr(fn, "is_batch", False) is True


_Replies = TypeVar("_Replies", bound=Sequence[ComparatorResult | float | None], covariant=True)
_Returns = TypeVar("_Returns", bound=Sequence[ComparatorResult | float | None])


class BatchComparator(Protocol[_Replies]):
    """A batch comparator, as :func:`batch_comparator` returns it: ``is_batch`` is ``True``,
    and a call with the pending fields of a record (``list[BatchItem]``) returns one verdict
    per item, in order (a ``ComparatorResult``, a bare score in [0, 1], or ``None``)."""

    @property
    def is_batch(self) -> Literal[True]: ...

    def __call__(self, items: list[BatchItem], /) -> _Replies: ...


def batch_comparator(fn: Callable[[list[BatchItem]], _Returns]) -> BatchComparator[_Returns]:
    """Mark ``fn`` as a batch comparator (sets ``fn.is_batch = True``) and return it, typed
    so that a type checker accepts it (setting an attribute on a function is a type error)::

        @batch_comparator
        def judge(items: list[BatchItem]) -> list[float]: ...
    """
    if not callable(fn):
        raise TypeError(f"a batch comparator must be callable, got {type(fn).__name__}")
    fn.is_batch = True  # type: ignore[attr-defined]
    return cast("BatchComparator[_Returns]", fn)


class CompoundComparator:
    """Score sibling fields of one object as a single field.

    Subclass and override :meth:`compare`, register an instance, and name it as the
    ``x-eval-compare`` of every member field. Per object instance (``students[0]``,
    ``students[1]``, ...) the ``primary`` field gets the score and the other members are
    ``skipped``. A member null or absent on both sides is passed as ``None`` (an optional
    middle name); one present on one side only makes every present member a mismatch
    ("incomplete compound").
    """

    is_batch: Literal[True] = True

    def __init__(self, fields: Sequence[str], primary: str, name: str = "compound") -> None:
        if isinstance(fields, str) or not fields:
            raise ValueError(f"fields must be a non-empty list of names, got {fields!r}")
        if primary not in fields:
            raise ValueError(f"primary field {primary!r} must be one of {list(fields)}")
        self.fields: list[str] = list(fields)
        self.primary: str = primary
        self.name: str = name

    def compare(self, gold: dict[str, Any], extracted: dict[str, Any]) -> float:
        """Override: score the group from post-transform values keyed by field name."""
        raise NotImplementedError(f"{type(self).__name__} must implement compare()")

    def __call__(self, items: list[BatchItem]) -> list[ComparatorResult | None]:
        groups: dict[str, dict[Any, int]] = {}
        out: list[ComparatorResult | None] = [None] * len(items)
        for index, item in enumerate(items):
            parent, name = _place(item)
            if name in self.fields:
                groups.setdefault(parent, {})[name] = index
            else:  # a field (or an array element) that names the compound without being one
                compound = type(self).__name__
                why = (
                    f"the compound {compound} scores fields declared under properties by name "
                    f"({self.fields}); this value has no property name (the root, an array "
                    "element, or one matched by patternProperties or additionalProperties)"
                    if name is None
                    else f"{name!r} is compared by the compound {compound}, but is not "
                    f"one of its fields {self.fields}"
                )
                out[index] = ComparatorResult(0.0, self.name, why)
        for parent, members in groups.items():
            missing = [f for f in self.fields if f not in members]
            if missing:
                for index in members.values():
                    out[index] = ComparatorResult(
                        0.0, self.name, f"incomplete compound (missing {missing})"
                    )
                continue
            gold = {f: items[members[f]].gold_compared for f in self.fields}
            extracted = {f: items[members[f]].extracted_compared for f in self.fields}
            score = self.compare(gold, extracted)
            for name, index in members.items():
                if name == self.primary:
                    out[index] = ComparatorResult(score, self.name, "compound")
                else:
                    where = f"{parent}.{self.primary}" if parent else self.primary
                    out[index] = ComparatorResult(0.0, self.name, f"compound with {where}", True)
        return out


def _place(item: BatchItem) -> tuple[str, str | None]:
    """``(parent, name)`` of an item: its own, or, for one built by hand with a path alone (as
    struct_extract_eval's ``BatchItem`` is, in a compound's unit tests), read off the path as
    that library groups siblings. (The schema walk sets ``schema_path`` on every item, and
    ``name`` wherever a property name exists.)"""
    if item.name is not None or item.schema_path or not item.path:
        return item.parent, item.name
    parent, _, name = item.path.rpartition(".")
    return parent, None if name.endswith("]") else name


def _error(fr: FieldResult, reason: str) -> FieldResult:
    return replace(fr, status=BATCH_ERROR, score=0.0, reason=reason)


def _apply(fr: FieldResult, reply: Any, threshold: float, name: str) -> FieldResult:
    """One reply entry of the batch comparator ``name`` applied to its placeholder."""
    if reply is None:
        return _error(fr, f"batch comparator {name!r} gave no result for this field")
    try:
        score, reason, skip = read_verdict(reply)
    except ValueError as exc:
        return _error(fr, f"batch comparator {name!r} returned an {exc}")
    if not skip and score < 1.0 and meets(score, threshold):
        score, reason = 1.0, threshold_reason(score, threshold)
    status = SKIPPED if skip else MATCH if score == 1.0 else MISMATCH
    return replace(fr, status=status, score=score, reason=reason)


def threshold_reason(score: float, threshold: float) -> str:
    """Why a field below 1 is a full match: it reached its ``x-eval-threshold``."""
    shown, limit = score_beside(score, threshold, passed=True)
    return f"score {shown} reaches x-eval-threshold {limit}: counted as a match"


def dispatch_batches(results: list[FieldResult], pending: Sequence[PendingField]) -> None:
    """Resolve ``pending`` placeholders in ``results`` in place: one call per comparator."""
    groups: dict[str, list[PendingField]] = {}
    for entry in pending:
        groups.setdefault(entry.comparator, []).append(entry)
    for name, entries in groups.items():
        fn = entries[0].fn
        try:
            replies = fn([entry.item for entry in entries])
        except Exception as exc:  # a handler bug must not end the run
            for entry in entries:
                results[entry.index] = _error(
                    results[entry.index], f"batch comparator {name!r} raised {exc!r}"
                )
            continue
        if not isinstance(replies, (list, tuple)):
            for entry in entries:
                results[entry.index] = _error(
                    results[entry.index],
                    f"batch comparator {name!r} returned {type(replies).__name__}, not a list",
                )
            continue
        if len(replies) > len(entries):
            warnings.warn(
                ComparatorWarning.extra_results(len(replies), len(entries), name), stacklevel=2
            )
        for position, entry in enumerate(entries):
            if position < len(replies):
                reply = replies[position]
                results[entry.index] = _apply(results[entry.index], reply, entry.threshold, name)
            else:
                results[entry.index] = _error(
                    results[entry.index],
                    f"batch comparator {name!r} returned {counted(len(replies), 'result')} for "
                    f"{counted(len(entries), 'field')}",
                )
