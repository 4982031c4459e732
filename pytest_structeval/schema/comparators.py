"""Per-field comparators of schema mode: ``exact``, ``numeric``, ``oneof``, ``similarity``,
``range`` and ``timestamp``.

A comparator is ``fn(gold, extracted, params) -> ComparatorResult`` (a bare number or bool is
accepted too). Every built-in ships a parameter validator so a bad ``x-eval-compare`` fails when
the schema is parsed, not halfway through a run.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Final

from rapidfuzz import fuzz

from ..compare import as_number, is_bound, too_long_reason, too_long_to_edit
from ..errors import SchemaError
from ..leniency import (
    NumericRange,
    not_in_range_form,
    outside_range,
    parse_range,
    parse_timestamp,
    timestamp_miss,
)
from ..parse import SCALAR_TYPES
from ..registry import Registry, default_registry
from ..results import ComparatorResult
from ..weights import meets

__all__ = [
    "ComparatorResult",
    "compare_exact",
    "compare_numeric",
    "compare_oneof",
    "compare_range",
    "compare_similarity",
    "compare_timestamp",
    "json_equal",
    "json_kind",
    "numeric_match",
    "numeric_reason",
    "read_verdict",
    "register_comparator",
    "validate_exact",
    "validate_numeric",
    "validate_oneof",
    "validate_range",
    "validate_similarity",
    "validate_timestamp",
]


def read_verdict(reply: Any) -> tuple[float, str | None, bool]:
    """A comparator's reply (a ``ComparatorResult`` or a bare score) as ``(score, reason,
    skip)``. ``ValueError("invalid ...")`` unless the score is a real number in [0, 1] (NaN is
    not; numpy's count) and ``skip`` a bool. A reason that is not text becomes text: failure
    tables and reports show it."""
    if isinstance(reply, ComparatorResult):
        score: Any = reply.score
        reason = None if reply.reason is None else str(reply.reason)
        skip = reply.skip
        if not isinstance(skip, bool):
            raise ValueError(f"invalid skip {skip!r} (true or false)")
    else:
        score, reason, skip = reply, None, False
    real = isinstance(score, numbers.Real)  # (a variable: mypy would narrow score to Real)
    if not real or not 0.0 <= score <= 1.0:
        raise ValueError(f"invalid score {score!r}")
    return float(score), reason, skip


_ATOMIC: Final = (str, int, type(None))
_SCALARS: Final = SCALAR_TYPES


def json_kind(value: Any) -> str:
    """The JSON type name of ``value`` (``integer`` and ``number`` are one kind: ``number``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: ``1 == 1.0``, a boolean never equals a number, NaN equals nothing.

    Iterative, so arbitrarily deep values cannot raise ``RecursionError``.
    """
    ta = type(a)
    if ta is type(b) and ta in _SCALARS:
        return bool(a == b)
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        tx, ty = type(x), type(y)
        if tx is ty and tx in _ATOMIC:
            if x != y:
                return False
        elif tx is bool or ty is bool:
            if tx is not ty or x != y:
                return False
        elif isinstance(x, (int, float)) and isinstance(y, (int, float)):
            if x != y:  # NaN compares unequal to everything, itself included
                return False
        elif isinstance(x, Mapping):
            if not isinstance(y, Mapping) or len(x) != len(y):
                return False
            for key, value in x.items():
                if key not in y:
                    return False
                stack.append((value, y[key]))
        elif isinstance(x, (list, tuple)):
            if not isinstance(y, (list, tuple)) or len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(y, (Mapping, list, tuple, int, float, str)) or y is None or x != y:
            return False
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_keys(name: str, params: Mapping[str, Any], allowed: frozenset[str]) -> None:
    if not isinstance(params, Mapping):
        raise SchemaError(f"{name}: parameters must be an object, got {type(params).__name__}")
    unknown = sorted(str(k) for k in params if k not in allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed)) or "none"
        raise SchemaError(f"{name}: unknown parameter(s) {unknown}; accepted: {accepted}")


# --- exact -------------------------------------------------------------------------------

_EXACT_MATCH: Final = ComparatorResult(1.0, "exact")
_EXACT_MISMATCH: Final = ComparatorResult(0.0, "exact")


def compare_exact(gold: Any, extracted: Any, params: Mapping[str, Any]) -> ComparatorResult:
    """Equal JSON values (``1 == 1.0``; ``true != 1``; ``"5" != 5``) score 1, all else 0."""
    if json_equal(gold, extracted):
        return _EXACT_MATCH
    kg, ke = json_kind(gold), json_kind(extracted)
    if kg != ke:
        return ComparatorResult(0.0, "exact", f"type differs: {kg} vs {ke}")
    if type(gold) is str and type(extracted) is str:
        reason = whitespace_reason(gold, extracted)
        if reason is not None:
            return ComparatorResult(0.0, "exact", reason)
    return _EXACT_MISMATCH


def whitespace_reason(gold: str, extracted: str) -> str | None:
    """Why two unequal strings differ when only whitespace at their ends does: a YAML gold's
    ``|`` block keeps a final newline, and the table clips both values to one look
    (``values differ only in trailing whitespace: the gold ends in '\\n', the answer in
    ''``); ``None`` when they differ elsewhere."""
    if gold.strip() != extracted.strip():
        return None
    leading = (
        gold[: len(gold) - len(gold.lstrip())],
        extracted[: len(extracted) - len(extracted.lstrip())],
    )
    trailing = gold[len(gold.rstrip()) :], extracted[len(extracted.rstrip()) :]
    if leading[0] != leading[1] and trailing[0] != trailing[1]:
        return "values differ only in leading and trailing whitespace"
    if trailing[0] != trailing[1]:
        return (
            "values differ only in trailing whitespace: "
            f"the gold ends in {_ends(trailing[0])}, the answer in {_ends(trailing[1])}"
        )
    return (
        "values differ only in leading whitespace: "
        f"the gold starts with {_ends(leading[0])}, the answer with {_ends(leading[1])}"
    )


def _ends(space: str) -> str:
    """Whitespace as a message shows it: escaped, and clipped (a long run by its length)."""
    return repr(space) if len(space) <= 12 else f"{len(space):,} whitespace characters"


def validate_exact(params: dict[str, Any]) -> None:
    """``exact`` takes no parameters: a typo such as ``case_insensitive`` must not pass silently."""
    _check_keys("exact", params, frozenset())


# --- numeric -----------------------------------------------------------------------------

_NUMERIC_MATCH: Final = ComparatorResult(1.0, "numeric")
_INFINITIES: Final = (math.inf, -math.inf)


def numeric_match(gold: Any, extracted: Any, rel: float | None, tol_abs: float | None) -> bool:
    """True when two real numbers agree within the tolerance (the fast path of ``numeric``).

    Tolerances are inclusive and relative to gold (to 1.0 when gold is 0); both must hold when
    both are given. Only real numbers qualify: numeric strings and booleans need ``type_convert``.
    NaN matches nothing; an infinity only itself. Two ``None`` agree.
    """
    if type(gold) is bool or type(extracted) is bool:
        return False
    if not isinstance(gold, (int, float)) or not isinstance(extracted, (int, float)):
        return gold is None and extracted is None
    if gold == extracted:
        return True  # also equal infinities; NaN never gets here
    if (rel is None and tol_abs is None) or gold != gold or extracted != extracted:
        return False
    if type(gold) is int and type(extracted) is int and max(abs(gold), abs(extracted)) > _EXACT:
        # Past float precision (and range: 10**400), exactly.
        whole = abs(gold - extracted)
        if rel is not None and whole > Fraction(rel) * (abs(gold) if gold != 0 else 1):
            return False
        return tol_abs is None or whole <= Fraction(tol_abs)
    try:
        diff = abs(gold - extracted)
        if diff != diff or diff == math.inf:
            return False
        if rel is not None and diff > rel * (abs(gold) if gold != 0 else 1.0):
            return False
        return tol_abs is None or diff <= tol_abs
    except OverflowError:
        return False


_EXACT: Final = 2**53  # ints up to here compare exactly as floats


def _article(kind: str) -> str:
    """``a string``, ``an object``."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def numeric_reason(gold: Any, extracted: Any, rel: float | None, tol_abs: float | None) -> str:
    """Why :func:`numeric_match` said no (computed only for mismatches)."""
    for side, value in (("gold", gold), ("extracted", extracted)):
        if not _is_number(value):
            return (
                f"{side} value {value!r} is {_article(json_kind(value))}, not a number"
                " (convert it with the type_convert transform)"
            )
    if gold != gold or extracted != extracted:
        return "NaN never matches"
    if gold in _INFINITIES or extracted in _INFINITIES:  # (math.isinf overflows on big ints)
        return "infinite values differ"
    both = rel is not None and tol_abs is not None  # then say which one failed
    rel_missed = both and not numeric_match(gold, extracted, rel, None)
    abs_missed = both and not numeric_match(gold, extracted, None, tol_abs)
    return _tolerance_reason(rel, tol_abs, gold == 0, rel_missed, abs_missed)


@functools.lru_cache(maxsize=256)
def _tolerance_reason(
    rel: float | None, tol_abs: float | None, at_zero: bool, rel_missed: bool, abs_missed: bool
) -> str:
    """The reason for numbers outside the tolerance (one text per schema tolerance and
    outcome, cached); ``at_zero``: the gold is 0, where ``rel`` is taken of 1, as
    struct_extract_eval does. With both bounds, which one was missed, and which held."""
    if rel is None and tol_abs is None:
        return "numbers differ"
    shown = {
        "rel": None if rel is None else f"rel {rel:g}{' of 1 at gold 0' if at_zero else ''}",
        "abs": None if tol_abs is None else f"abs {tol_abs:g}",
    }
    if rel_missed != abs_missed:  # one of both
        missed, held = ("rel", "abs") if rel_missed else ("abs", "rel")
        return f"difference exceeds the tolerance ({shown[missed]}; {shown[held]} holds)"
    return f"difference exceeds the tolerance ({', '.join(p for p in shown.values() if p)})"


def compare_numeric(gold: Any, extracted: Any, params: Mapping[str, Any]) -> ComparatorResult:
    """Numbers equal within ``{"tolerance": {"rel": r, "abs": a}}``; ``inf`` only equals itself."""
    tolerance = params.get("tolerance") or {}
    rel, tol_abs = tolerance.get("rel"), tolerance.get("abs")
    if numeric_match(gold, extracted, rel, tol_abs):
        return _NUMERIC_MATCH
    return ComparatorResult(0.0, "numeric", numeric_reason(gold, extracted, rel, tol_abs))


def validate_numeric(params: dict[str, Any]) -> None:
    """``tolerance`` must be an object of non-negative finite ``rel`` / ``abs`` numbers."""
    _check_keys("numeric", params, frozenset({"tolerance"}))
    tolerance = params.get("tolerance")
    if tolerance is None:
        return
    if not isinstance(tolerance, Mapping):
        raise SchemaError(
            f"numeric: tolerance must be an object such as {{'rel': 0.01}} or {{'abs': 0.5}},"
            f" got {tolerance!r}"
        )
    _check_keys("numeric tolerance", tolerance, frozenset({"rel", "abs"}))
    for key, value in tolerance.items():
        if not is_bound(value):
            raise SchemaError(
                f"numeric: tolerance {key!r} must be a finite number >= 0, got {value!r}"
            )


# --- oneof -------------------------------------------------------------------------------

_ONEOF_MATCH: Final = ComparatorResult(1.0, "oneof")


def _groups(params: Mapping[str, Any]) -> list[list[Any]]:
    if "groups" in params:
        return list(params["groups"])
    return [list(params.get("values", ()))]


def _listed(value: Any, group: list[Any]) -> bool:
    return any(json_equal(value, member) for member in group)


def compare_oneof(gold: Any, extracted: Any, params: Mapping[str, Any]) -> ComparatorResult:
    """Match when extracted equals gold or both sit in one synonym group.

    ``{"values": [...]}`` is one group; ``{"groups": [[...], [...]]}`` several. A listed but
    non-synonymous extracted value is a mismatch: unlike the reference, gold is never ignored.
    """
    if json_equal(gold, extracted):
        return _ONEOF_MATCH
    listed = False
    for group in _groups(params):
        if _listed(extracted, group):
            if _listed(gold, group):
                return ComparatorResult(1.0, "oneof", "synonyms")
            listed = True
    if listed:
        return ComparatorResult(0.0, "oneof", f"{extracted!r} is not a synonym of {gold!r}")
    return ComparatorResult(0.0, "oneof", f"{extracted!r} is not one of the listed values")


def validate_oneof(params: dict[str, Any]) -> None:
    """Exactly one of ``values`` (a non-empty list) or ``groups`` (non-empty lists)."""
    _check_keys("oneof", params, frozenset({"values", "groups"}))
    if ("values" in params) == ("groups" in params):
        raise SchemaError(
            "oneof: give either 'values' (one synonym group) or 'groups' (a list of groups)"
        )
    groups = [params["values"]] if "values" in params else params["groups"]
    if "groups" in params and (not isinstance(groups, list) or not groups):
        raise SchemaError(f"oneof: 'groups' must be a non-empty list of lists, got {groups!r}")
    for group in groups:
        if not isinstance(group, list) or not group:
            what = "'values'" if "values" in params else "every group"
            raise SchemaError(f"oneof: {what} must be a non-empty list, got {group!r}")


# --- similarity --------------------------------------------------------------------------


def compare_similarity(gold: Any, extracted: Any, params: Mapping[str, Any]) -> ComparatorResult:
    """Partial credit for strings: the rapidfuzz ratio in [0, 1], zero below ``min``.

    Non-string values get exact JSON equality (1 or 0).
    """
    if isinstance(gold, str) and isinstance(extracted, str):
        if gold == extracted:
            return ComparatorResult(1.0, "similarity")
        if too_long_to_edit(gold, extracted):
            return ComparatorResult(0.0, "similarity", too_long_reason(gold, extracted))
        score = fuzz.ratio(gold, extracted) / 100.0
    elif json_equal(gold, extracted):
        return ComparatorResult(1.0, "similarity")
    else:
        return ComparatorResult(0.0, "similarity", "similarity compares strings; values differ")
    minimum = params.get("min", 0.0)
    if not meets(score, minimum):  # (fuzz.ratio's 2/10 is 0.19999999999999996: min 0.2 is met)
        return ComparatorResult(0.0, "similarity", f"similarity {score:.3f} below min {minimum}")
    return ComparatorResult(score, "similarity")


def validate_similarity(params: dict[str, Any]) -> None:
    """``min``, when given, is a number in [0, 1]."""
    _check_keys("similarity", params, frozenset({"min"}))
    minimum = params.get("min", 0.0)
    if not _is_number(minimum) or not 0.0 <= minimum <= 1.0:
        raise SchemaError(f"similarity: 'min' must be a number in [0, 1], got {minimum!r}")


# --- range -------------------------------------------------------------------------------

_RANGE_MATCH: Final = ComparatorResult(1.0, "range")


def compare_range(gold: Any, extracted: Any, params: Mapping[str, Any]) -> ComparatorResult:
    """A gold range such as ``"10-12"`` (grammar in ``leniency.py``; a gold number is a
    one-point range) matches an extracted number inside it, bounds included, or the same
    range. The extracted value may be a number, a string holding exactly one JSON number,
    or a range string. All or nothing, like ``numeric``.
    """
    bounds = _gold_range(gold)
    if bounds is None:
        if json_equal(gold, extracted):
            return _RANGE_MATCH
        return ComparatorResult(0.0, "range", f"gold {gold!r} is not a number or a range")
    number: Any = None
    if _is_number(extracted):
        number = extracted
    elif isinstance(extracted, str):
        number = as_number(extracted.strip())
        if number is None:
            other = parse_range(extracted)
            if other is None:
                return ComparatorResult(0.0, "range", not_in_range_form(extracted, bounds))
            if other == bounds:
                return _RANGE_MATCH
            return ComparatorResult(0.0, "range", f"range {other} vs expected range {bounds}")
    if number is None:
        return ComparatorResult(0.0, "range", not_in_range_form(extracted, bounds))
    if bounds.holds(number):
        return _RANGE_MATCH
    return ComparatorResult(0.0, "range", outside_range(number, bounds))


def _gold_range(gold: Any) -> NumericRange | None:
    if isinstance(gold, str):
        return parse_range(gold)
    if _is_number(gold) and gold == gold:
        return NumericRange(gold, gold)
    return None


def validate_range(params: dict[str, Any]) -> None:
    """``range`` takes no parameters: the gold value carries the range."""
    _check_keys("range", params, frozenset())


# --- timestamp ---------------------------------------------------------------------------

_TIMESTAMP_MATCH: Final = ComparatorResult(1.0, "timestamp")


def compare_timestamp(gold: Any, extracted: Any, params: Mapping[str, Any]) -> ComparatorResult:
    """ISO 8601 dates or date-times of one kind (grammar in ``leniency.py``) at most
    ``{"tolerance_s": N}`` seconds apart (default 0: the same instant in any accepted
    notation, ``Z`` and ``+00:00`` alike) score 1, all else 0. A date, a date-time without
    and one with a UTC offset are never compared with each other.
    """
    expected = parse_timestamp(gold) if isinstance(gold, str) else None
    if expected is None:
        if json_equal(gold, extracted):
            return _TIMESTAMP_MATCH
        return ComparatorResult(
            0.0, "timestamp", f"gold {gold!r} is not an ISO 8601 date or date-time"
        )
    miss = timestamp_miss(expected, extracted, params.get("tolerance_s", 0))
    return _TIMESTAMP_MATCH if miss is None else ComparatorResult(0.0, "timestamp", miss)


def validate_timestamp(params: dict[str, Any]) -> None:
    """``tolerance_s``, when given, is a finite number of seconds >= 0."""
    _check_keys("timestamp", params, frozenset({"tolerance_s"}))
    seconds = params.get("tolerance_s", 0)
    if not is_bound(seconds):
        raise SchemaError(
            f"timestamp: 'tolerance_s' must be a finite number of seconds >= 0, got {seconds!r}"
        )


def register_comparator(
    name: str,
    fn: Callable[..., Any],
    overwrite: bool = False,
    *,
    validate: Callable[[dict[str, Any]], None] | None = None,
    registry: Registry | None = None,
) -> None:
    """Register a custom comparator (in the default registry unless one is given).

    ``fn(gold, extracted, params)`` returns a ``ComparatorResult`` (or a number / bool); a
    batch comparator, called as ``fn(items: list[BatchItem])``, is marked with
    ``@batch_comparator`` (or ``fn.is_batch = True``).
    Built-ins cannot be replaced; an existing custom name needs ``overwrite=True``.
    """
    target = registry if registry is not None else default_registry()
    target.register_comparator(name, fn, overwrite=overwrite, validate=validate)
