"""Result types: frozen, slotted dataclasses that turn into plain JSON data.

Everything a scorer returns is one of these, and ``to_dict`` gives builtins only, so a
result can ride on a pytest report across pytest-xdist workers and into report files.
"""

from __future__ import annotations

import math
import reprlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

__all__ = [
    "BATCH_ERROR",
    "HALLUCINATION",
    "MATCH",
    "MISMATCH",
    "OMISSION",
    "SKIPPED",
    "STATUSES",
    "ComparatorResult",
    "FieldResult",
    "ScoreResult",
    "huge_ints_named",
    "new_field_result",
    "new_score_result",
    "plain",
]

MATCH: Final = "match"
MISMATCH: Final = "mismatch"
OMISSION: Final = "omission"
HALLUCINATION: Final = "hallucination"
SKIPPED: Final = "skipped"
BATCH_ERROR: Final = "batch_error"
STATUSES: Final = (MATCH, MISMATCH, OMISSION, HALLUCINATION, SKIPPED, BATCH_ERROR)

_MATCH_TYPE = {OMISSION: "missing", HALLUCINATION: "extra", SKIPPED: "skipped"}

# Bounded repr for leaf values: a result printed by pytest must never recurse into a huge
# or deeply nested value.
_short = reprlib.Repr()
_short.maxlevel = 3
_short.maxstring = 80
_short.maxother = 80
_PATHS_IN_REPR: Final = 3  # failing paths a ScoreResult's repr names


def _flat_copy(mapping: dict[Any, Any]) -> dict[str, Any] | None:
    """:func:`plain` of a dict with ``str`` keys whose values are plain scalars or lists of
    strings (the common record parts), or ``None`` for any other dict."""
    out: dict[str, Any] = {}
    for key, item in mapping.items():
        kind = type(item)
        if type(key) is not str:
            return None
        if kind is str or kind is int or kind is bool or item is None:
            out[key] = item
        elif kind is float:
            out[key] = item if math.isfinite(item) else repr(item)
        elif kind is list and all(type(x) is str for x in item):
            out[key] = list(item)
        else:
            return None
    return out


def set_order(item: Any, _depth: int = 0) -> tuple[int, Any]:
    """A total order over hashable literals of mixed types, so a set sorts the same every run
    (a string's hash, and so a set's order, changes from process to process; so does the
    ``repr`` of a frozenset, whose members are ordered here too)."""
    if item is None:
        return (0, 0)
    if type(item) is bool:
        return (1, int(item))
    if isinstance(item, (int, float)):  # (an IntEnum, a float subclass: the number they are)
        return (2, item) if item == item else (3, 0)
    if isinstance(item, str):  # (a str Enum too)
        return (4, item)
    if isinstance(item, (frozenset, tuple)):
        if _depth >= _SET_ORDER_DEPTH:
            return (7, "")  # (so deep, its place among such values is arbitrary)
        members = [set_order(member, _depth + 1) for member in item]
        return (5, sorted(members)) if isinstance(item, frozenset) else (6, members)
    return (8, repr(item))


_SET_ORDER_DEPTH: Final = 20  # nesting of frozensets and tuples ordered by their members


def plain(value: Any) -> Any:
    """Return ``value`` as JSON-safe builtins (non-finite floats become strings).

    Iterative, so deeply nested values never raise ``RecursionError``.
    """
    if isinstance(value, (str, bool, int)) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if type(value) is dict:  # a mode's metrics, a field's row: one level, copied directly
        flat = _flat_copy(value)
        if flat is not None:
            return flat
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        item, parent, slot = stack.pop()
        if isinstance(item, float):
            parent[slot] = item if math.isfinite(item) else repr(item)
        elif isinstance(item, (str, bool, int)) or item is None:
            parent[slot] = item
        elif isinstance(item, Mapping):
            keys = [k if isinstance(k, str) else str(k) for k in item]
            # Create the keys in order first: children are filled later, from the stack.
            out: dict[str, Any] = dict.fromkeys(keys)
            parent[slot] = out
            stack.extend(zip(item.values(), [out] * len(keys), keys, strict=True))
        elif isinstance(item, (list, tuple, set, frozenset)):
            if isinstance(item, (set, frozenset)):  # (sorted: a report must not vary by run)
                item = sorted(item, key=set_order)
            seq: list[Any] = [None] * len(item)
            parent[slot] = seq
            stack.extend((v, seq, i) for i, v in enumerate(item))
        else:
            parent[slot] = str(item)
    return root[0]


def huge_ints_named(value: Any) -> Any:
    """``value`` with each integer that has no decimal text (past Python's int-string limit)
    replaced by a string naming its size: a report must be written whatever a scorer put in
    it. Iterative, as :func:`plain` (whose output this takes)."""
    digits = sys.get_int_max_str_digits()  # (0: no limit)
    printable = math.floor(digits * math.log2(10)) if digits else math.inf
    root: list[Any] = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        parent, slot = stack.pop()
        item = parent[slot]
        if type(item) is int and item.bit_length() > printable:
            parent[slot] = f"<an integer of {item.bit_length():,} bits>"
        elif isinstance(item, dict):
            item = parent[slot] = dict(item)
            stack.extend((item, key) for key in item)
        elif isinstance(item, list):
            item = parent[slot] = list(item)
            stack.extend((item, i) for i in range(len(item)))
    return root[0]


@dataclass(frozen=True, slots=True)
class ComparatorResult:
    """One comparator verdict: ``score`` in [0, 1]; ``skip`` marks the field as not counted.

    (Schema mode's, exported by :mod:`pytest_structeval.schema`; it lives here, with the
    other result types, so that :mod:`pytest_structeval.verdicts` names it without importing
    schema mode.)"""

    score: float
    comparator: str = ""
    reason: str | None = None
    skip: bool = False


@dataclass(frozen=True, slots=True, init=False, repr=False)
class FieldResult:
    """The outcome for one field (a flattened path) of one answer.

    ``score`` is the field's credit in [0, 1]; ``status`` is one of ``STATUSES``;
    ``gold``/``model`` are the compared leaf values (``None`` when absent on that side).
    """

    path: str
    status: str
    score: float
    gold: Any
    model: Any
    reason: str | None

    if TYPE_CHECKING:  # hashable only while its values are (a list leaf, a {} is not): never
        # to be relied on, so type checkers are told it is not (hash() works as before)
        __hash__: ClassVar[None]  # type: ignore[assignment]

    def __init__(
        self,
        path: str,
        status: str,
        score: float,
        gold: Any = None,
        model: Any = None,
        reason: str | None = None,
    ) -> None:
        # One result per leaf: write the slots directly instead of the frozen dataclass's
        # object.__setattr__ detour (2.5x cheaper), keeping the instance immutable afterwards.
        _set_path(self, path)
        _set_status(self, status)
        _set_score(self, score)
        _set_gold(self, gold)
        _set_model(self, model)
        _set_reason(self, reason)

    def __repr__(self) -> str:
        return (
            f"FieldResult(path={self.path!r}, status={self.status!r}, score={self.score!r}, "
            f"gold={_short.repr(self.gold)}, model={_short.repr(self.model)}, "
            f"reason={self.reason!r})"
        )

    @property
    def ok(self) -> bool:
        """True for ``match`` and ``skipped``, by the status alone. An extra key that a mode
        reports without counting it (similarity without ``penalize_extra``, strict with
        ``ignore_extra=True``) is a ``hallucination``, so not ok, yet it does not count against
        the answer: :attr:`ScoreResult.failing_fields` is what counts."""
        return self.status == MATCH or self.status == SKIPPED

    def to_dict(self) -> dict[str, Any]:
        """Plain data, in the AssetOpsBench per-key layout plus status and reason."""
        status = self.status
        if status == MATCH:
            match_type = "exact"
        elif status == MISMATCH:
            match_type = f"partial ({self.score:.2f})" if self.score > 0 else "mismatch"
        else:
            match_type = _MATCH_TYPE.get(status, status)
        return {
            "key": self.path,
            "gold_value": plain(self.gold) if status != HALLUCINATION else "NOT_IN_GOLD",
            "model_value": plain(self.model) if status != OMISSION else "MISSING",
            "exact": status == MATCH,
            "match_type": match_type,
            "similarity": self.score,
            "status": status,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ScoreResult:
    """The verdict for one (gold, model) pair under one mode.

    ``metrics`` holds the mode's named figures (strict: the AssetOpsBench names;
    similarity: ``matched_leaves``/``total_leaves``; schema: precision/recall/F1).
    ``error`` is set when the pair could not be evaluated at all (then ``score`` is 0).
    """

    passed: bool
    score: float
    mode: str
    metrics: Mapping[str, Any]
    fields: tuple[FieldResult, ...]
    parsed_gold: Any
    parsed_model: Any
    reason: str
    error: str | None
    threshold: float | None
    parse_method: str | None

    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # (metrics is a dict)

    def __init__(
        self,
        passed: bool,
        score: float,
        mode: str,
        metrics: Mapping[str, Any] | None = None,
        fields: tuple[FieldResult, ...] = (),
        parsed_gold: Any = None,
        parsed_model: Any = None,
        reason: str = "",
        error: str | None = None,
        threshold: float | None = None,
        parse_method: str | None = None,
    ) -> None:
        # See FieldResult.__init__: direct slot writes, immutable afterwards.
        _set_passed(self, passed)
        _set_total(self, score)
        _set_mode(self, mode)
        _set_metrics(self, {} if metrics is None else metrics)
        _set_fields(self, fields)
        _set_parsed_gold(self, parsed_gold)
        _set_parsed_model(self, parsed_model)
        _set_verdict_reason(self, reason)
        _set_error(self, error)
        _set_threshold(self, threshold)
        _set_parse_method(self, parse_method)

    def __repr__(self) -> str:
        """Short, and naming the first failing paths: ``assert result`` shows only this."""
        failing = [f.path for f in self.failing_fields]
        shown = ", ".join(failing[:_PATHS_IN_REPR])
        more = len(failing) - _PATHS_IN_REPR
        paths = f" ({shown}{f', +{more} more' if more > 0 else ''})" if failing else ""
        extra = f", error={self.error!r}" if self.error else ""
        return (
            f"ScoreResult(passed={self.passed!r}, score={self.score!r}, mode={self.mode!r}, "
            f"fields={len(self.fields)}, failing={len(failing)}{paths}, "
            f"reason={self.reason!r}{extra})"
        )

    @property
    def failing_fields(self) -> list[FieldResult]:
        """Fields that count against the answer, in report order: not the extras a mode
        reports without counting them (``metrics["ignore_extra"]``: strict's subset matching,
        similarity without ``penalize_extra``)."""
        if self.metrics.get("ignore_extra") is True:
            return [f for f in self.fields if not f.ok and f.status != HALLUCINATION]
        return [f for f in self.fields if not f.ok]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: the per-run report's ``score.details``."""
        out: dict[str, Any] = {"mode": self.mode}
        out.update(plain(dict(self.metrics)))
        out["details"] = [f.to_dict() for f in self.fields]
        out["reason"] = self.reason
        out["error"] = self.error
        out["threshold"] = self.threshold
        out["parse_method"] = self.parse_method
        return out

    def __bool__(self) -> bool:
        return self.passed


# --- fast construction for the walk -------------------------------------------------------
#
# A frozen dataclass can fill its slots only through the slot descriptors (one method call
# per field), and that is most of the cost of a result: the walk makes one per leaf. A
# mutable class with the very same slots stores them with plain attribute writes and then
# turns the instance into the frozen class (``__class__`` assignment, which Python allows
# between classes of identical layout). What comes out is an ordinary frozen FieldResult /
# ScoreResult, equal to one made by the constructor, at half the cost. The drafts have no
# ``__init__``: a plain function fills them, as calling a class whose ``__init__`` is Python
# code costs more than a Python call (on CPython 3.11, 143 ns a FieldResult against 107).


class _FieldResultDraft:
    __slots__ = FieldResult.__slots__


class _ScoreResultDraft:
    __slots__ = ScoreResult.__slots__


def new_field_result(
    path: str, status: str, score: float, gold: Any, model: Any, reason: str | None
) -> FieldResult:
    """``FieldResult(...)`` with every argument given, made at half the cost."""
    draft: Any = _FieldResultDraft()  # (its slots are FieldResult's, typed there and above)
    draft.path = path
    draft.status = status
    draft.score = score
    draft.gold = gold
    draft.model = model
    draft.reason = reason
    draft.__class__ = FieldResult
    result: FieldResult = draft
    return result


def new_score_result(
    passed: bool,
    score: float,
    mode: str,
    metrics: Mapping[str, Any],
    fields: tuple[FieldResult, ...],
    parsed_gold: Any,
    parsed_model: Any,
    reason: str,
    error: str | None,
    threshold: float | None,
    parse_method: str | None,
) -> ScoreResult:
    """``ScoreResult(...)`` with every argument given, made at half the cost."""
    draft: Any = _ScoreResultDraft()  # (its slots are ScoreResult's, typed there and above)
    draft.passed = passed
    draft.score = score
    draft.mode = mode
    draft.metrics = metrics
    draft.fields = fields
    draft.parsed_gold = parsed_gold
    draft.parsed_model = parsed_model
    draft.reason = reason
    draft.error = error
    draft.threshold = threshold
    draft.parse_method = parse_method
    draft.__class__ = ScoreResult
    result: ScoreResult = draft
    return result


_set_path, _set_status, _set_score, _set_gold, _set_model, _set_reason = (
    getattr(FieldResult, name).__set__
    for name in ("path", "status", "score", "gold", "model", "reason")
)
(
    _set_passed,
    _set_total,
    _set_mode,
    _set_metrics,
    _set_fields,
    _set_parsed_gold,
    _set_parsed_model,
    _set_verdict_reason,
    _set_error,
    _set_threshold,
    _set_parse_method,
) = (
    getattr(ScoreResult, name).__set__
    for name in (
        "passed",
        "score",
        "mode",
        "metrics",
        "fields",
        "parsed_gold",
        "parsed_model",
        "reason",
        "error",
        "threshold",
        "parse_method",
    )
)
