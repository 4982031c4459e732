"""Comparing two leaves: normalisation, tolerances, partial credit, per-path options.

Every mode asks one question per leaf: are these equal, and if not, how close? The
answer must keep two things apart that the reference scorers mixed up: ``exact`` means
equal after normalisation (or within a tolerance the user gave); ``score`` is partial
credit. A fuzzy metric that happens to reach 1.0 never makes a leaf exact.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache, partial
from typing import Any, Final, NamedTuple

from .errors import LimitError, OptionsError, hide_usage_error
from .leniency import (
    NumericRange,
    Timestamp,
    not_in_range_form,
    outside_range,
    parse_range,
    parse_timestamp,
    timestamp_miss,
)
from .naming import did_you_mean
from .parse import decimal_number
from .paths import PathRules, compile_globs, json_kind

__all__ = [
    "NUMERIC_CREDITS",
    "OVERRIDE_KEYS",
    "SIMILARITY_DEFAULTS",
    "STRICT_DEFAULTS",
    "ZERO_EPSILON",
    "LeafOptions",
    "LeafOutcome",
    "OptionResolver",
    "Tolerance",
    "as_number",
    "compare_leaf",
    "is_bound",
    "leaf_score",
    "leaf_scores",
    "mean_score",
    "normalize_text",
    "parse_tolerance",
    "short_of_one",
]

# A model number this close to a gold of 0 counts as 0 (the UiPath evaluator's epsilon): the
# rounding noise of a computed zero (0.1 + 0.2 - 0.3). A gold that is not 0, however small
# (9.109e-31, an electron's mass in kg), is compared relatively like any other.
ZERO_EPSILON: Final = 1e-12
# Two numbers of which one is a float and whose relative difference is at most this are
# equal: float rounding noise (0.1 + 0.2 vs 0.3, sum([0.1] * 100) vs 10, 12.3 - 12.2 vs 0.1,
# a value printed to 15 digits) is not a wrong answer. But half a unit or more away from a
# whole-number gold under 2**52 is never noise (two units in the last place from 2**51, where
# a float's step is half a unit): 1717171717171.0 against 1717171717172 is a timestamp off by
# one. Past 2**52 every float is whole: a gold written as an integer then takes only its own
# rounding (4503599627370497.0 against 2**52 is an id off by one, 1.717171717171e18 against
# 1717171717171717171 a time 717,107 ns off, where a float's step is 256).
_FLOAT_NOISE: Final = 1e-12
_WHOLE_EXACT: Final = 2.0**52
# Tolerance bounds are inclusive; this slack keeps them so through float rounding
# (1.1 is within 10% of 1.0 although 1.1 - 1.0 == 0.10000000000000009).
_BOUND_SLACK: Final = 1 + 1e-9
NUMERIC_CREDITS: Final = ("relative", "exact")

# One JSON number, nothing else: "2876" and "-0.5e3" are numbers; "Pump 6", "01234", "1,000",
# "nan" are not (leading zeros mark identifiers such as zip codes).
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:(\.[0-9]+)?([eE][-+]?[0-9]+)?)")
_NUMBER_START: Final = frozenset("-0123456789")
_MAX_INT_DIGITS: Final = 4300


@dataclass(frozen=True, slots=True)
class Tolerance:
    """What counts as an exact numeric match: within ``rel`` (of gold) or ``abs``.

    ``pytest.approx`` semantics: a number is within when ``|gold - model| <= max(rel *
    |gold|, abs)``, so ``{"rel": 0.01, "abs": 1e-6}`` reads as "1 %, and near zero 1e-6",
    the Python idiom (``math.isclose`` is the same, but relative to the larger side).
    Bounds are inclusive. At a gold of 0 only ``abs`` applies, since any miss is
    infinitely far off relative to 0.
    """

    rel: float | None = None
    abs: float | None = None

    def __post_init__(self) -> None:
        __tracebackhide__ = hide_usage_error
        if self.rel is None and self.abs is None:
            raise OptionsError("a tolerance needs 'rel', 'abs' or both")
        for name in ("rel", "abs"):
            bound = getattr(self, name)
            if bound is not None and not is_bound(bound):
                raise OptionsError(
                    f"numeric_tolerance {name!r} must be a finite number >= 0, got {bound!r}"
                )

    def holds(self, diff: Any, rel: float | None) -> bool:
        """True when a difference ``diff`` (relative error ``rel``, None at gold 0) is within
        either bound."""
        if self.rel is not None and rel is not None and rel <= self.rel * _BOUND_SLACK:
            return True
        return self.abs is not None and diff <= self.abs * _BOUND_SLACK

    def missed(self, rel: float | None) -> str:
        """Why a difference is outside (``holds`` was False), for a mismatch's reason:
        the bounds it missed, and that ``rel`` does not apply at a gold of 0."""
        if rel is None and self.rel is not None:
            if self.abs is None:
                return f"rel {self.rel:g} does not apply at gold 0; add abs"
            return f"outside abs {self.abs:g}; rel does not apply at gold 0"
        bounds = (("rel", self.rel), ("abs", self.abs))
        return "outside " + " and ".join(f"{n} {b:g}" for n, b in bounds if b is not None)


def is_bound(value: Any) -> bool:
    """Whether ``value`` is a usable tolerance: a real number >= 0, finite as a float (an int
    too large for a float is refused here, never an ``OverflowError`` later)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value) and value >= 0
    except OverflowError:  # math.isfinite(10**400)
        return False


def parse_tolerance(value: Any) -> Tolerance | None:
    """Read ``numeric_tolerance``: ``{"rel": r, "abs": a}``, a number (= rel), or None.

    Raises ``OptionsError`` for negative or non-numeric bounds, booleans and unknown keys.
    """
    __tracebackhide__ = hide_usage_error
    if value is None or isinstance(value, Tolerance):
        return value
    if isinstance(value, bool):
        raise OptionsError(f"numeric_tolerance must be a number or a mapping, got {value!r}")
    if isinstance(value, (int, float)):
        return Tolerance(rel=value)
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in ("rel", "abs")]
        if unknown:
            raise OptionsError(
                f"numeric_tolerance: unknown key(s) {', '.join(map(repr, unknown))} "
                "(expected 'rel' and/or 'abs')"
            )
        rel, abs_ = value.get("rel"), value.get("abs")
        if rel is None and abs_ is None:
            return None
        return Tolerance(rel=rel, abs=abs_)
    raise OptionsError(
        f"numeric_tolerance must be a number or a mapping, got {type(value).__name__}"
    )


@dataclass(frozen=True, slots=True)
class LeafOptions:
    """How two leaves are compared.

    ``case_sensitive``: when False, strings are case-folded. ``normalize_whitespace``:
    inner whitespace runs count as one space (outer whitespace is always stripped and
    Unicode always NFC-normalised). ``tolerance``: numeric bounds for "exact".
    ``coerce_numeric_strings``: a string that is exactly one JSON number compares as that
    number (``"2876" == 2876``). ``strict_types``: leaves of different JSON types score 0;
    otherwise strings, numbers and booleans of different types compare by their text.
    ``numeric_credit``: ``"relative"`` gives ``1 - |g - m| / |g|`` to near misses,
    ``"exact"`` gives them nothing (for numeric identifiers).

    Opt-in leniency (off by default, grammars in ``leniency.py``): ``numeric_range`` reads a
    gold string such as ``"10-12"`` as an inclusive range that a number inside (or the same
    range) matches; ``timestamp_tolerance`` (seconds) lets a gold ISO 8601 date-time match
    a date-time of its kind at most that far off. A gold that does not read as one compares
    as usual.
    """

    case_sensitive: bool = False
    normalize_whitespace: bool = False
    tolerance: Tolerance | None = None
    coerce_numeric_strings: bool = True
    strict_types: bool = False
    numeric_credit: str = "relative"
    numeric_range: bool = False
    timestamp_tolerance: float | None = None

    def __post_init__(self) -> None:
        __tracebackhide__ = hide_usage_error
        if self.numeric_credit not in NUMERIC_CREDITS:
            raise OptionsError(
                f"numeric_credit must be one of {', '.join(NUMERIC_CREDITS)}, "
                f"got {self.numeric_credit!r}"
            )
        if self.timestamp_tolerance is not None and not is_bound(self.timestamp_tolerance):
            raise OptionsError(_bad_seconds(self.timestamp_tolerance))

    def updated(self, options: Mapping[str, Any], *, where: str = "options") -> LeafOptions:
        """A copy with user options applied (keys of ``OVERRIDE_KEYS``); ``OptionsError``
        naming ``where`` for an unknown key or a bad value."""
        __tracebackhide__ = hide_usage_error
        changes = _leaf_fields(options, where)
        return replace(self, **changes) if changes else self


# AssetOpsBench-like: case-insensitive, numeric strings are numbers, text forms otherwise.
STRICT_DEFAULTS: Final = LeafOptions()
# UiPath-like: case-sensitive and type-strict ("30" vs 30 scores 0, true vs 1 scores 0).
SIMILARITY_DEFAULTS: Final = LeafOptions(
    case_sensitive=True, coerce_numeric_strings=False, strict_types=True
)

_BOOL_FIELDS: Final = (
    "case_sensitive",
    "normalize_whitespace",
    "coerce_numeric_strings",
    "strict_types",
    "numeric_range",
)
OVERRIDE_KEYS: Final = ("numeric_tolerance", *_BOOL_FIELDS, "numeric_credit", "timestamp_tolerance")


def _bad_seconds(value: Any) -> str:
    return (
        f"timestamp_tolerance must be a finite number of seconds >= 0 (or null: off), got {value!r}"
    )


def _leaf_fields(options: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate user option names and values; return them as ``LeafOptions`` field values."""
    __tracebackhide__ = hide_usage_error
    if not isinstance(options, Mapping):
        raise OptionsError(f"{where} must be a mapping of option names to values")
    out: dict[str, Any] = {}
    for name, value in options.items():
        if name == "numeric_tolerance":
            try:
                out["tolerance"] = parse_tolerance(value)
            except OptionsError as exc:
                raise OptionsError(f"{where}: {exc}") from None
        elif name in _BOOL_FIELDS:
            if not isinstance(value, bool):
                raise OptionsError(f"{where}: {name} must be true or false, got {value!r}")
            out[name] = value
        elif name == "numeric_credit":
            if not isinstance(value, str) or value not in NUMERIC_CREDITS:
                raise OptionsError(
                    f"{where}: numeric_credit must be one of {', '.join(NUMERIC_CREDITS)}, "
                    f"got {value!r}"
                )
            out[name] = value
        elif name == "timestamp_tolerance":
            if value is not None and not is_bound(value):
                raise OptionsError(f"{where}: {_bad_seconds(value)}")
            out[name] = value
        else:
            left_out = _LEAVING_OUT if str(name).casefold() in _LEAVE_OUT_WORDS else ""
            raise OptionsError(
                f"{where}: unknown option {name!r}{did_you_mean(name, OVERRIDE_KEYS)} "
                f"(known: {', '.join(OVERRIDE_KEYS)}){left_out}"
            )
    return out


_LEAVE_OUT_WORDS: Final = frozenset({"skip", "ignore", "exclude", "omit"})
_LEAVING_OUT: Final = "; to leave a field out of the score, name it in ignore_paths"


class LeafOutcome(NamedTuple):
    """The comparison of two leaves: ``exact`` match, partial credit ``score`` in [0, 1],
    and a short human ``reason`` when they differ (shown in failure messages).

    A named tuple rather than a frozen dataclass: one is built per differing leaf in
    every mode, and a tuple builds several times faster.
    """

    exact: bool
    score: float
    reason: str | None = None


_EXACT: Final = LeafOutcome(True, 1.0)
# ``LeafOutcome(False, score, reason)`` for the differing leaves of the hot paths: the same
# tuple, without the named tuple's ``__new__`` (Python code that a class call enters at
# twice the cost of building the tuple in C: 139 ns against about 60).
_outcome: Final = partial(tuple.__new__, LeafOutcome)
# A leaf that is not exact never scores 1, even when rounding says 1 - 1e-400 == 1.
_BELOW_ONE: Final = math.nextafter(1.0, 0.0)


def short_of_one(score: float, full: bool) -> float:
    """``score``, held under 1 unless every part behind it was right (``full``): rounding
    makes 1 - 1e-400 exactly 1.0, and a near miss's 0.9999999999999999 beside an exact leaf
    sums to exactly 2.0, so a score of 1.0 could hide a wrong part."""
    return score if full or score < 1.0 else _BELOW_ONE


def mean_score(scores: Sequence[float]) -> float:
    """The mean of ``scores`` (1.0 for none), under 1 unless each is 1: the mean of 1.0 and
    0.9999999999999999 is 1.0 in floats."""
    return short_of_one(sum(scores) / len(scores), min(scores) >= 1.0) if scores else 1.0


MAX_EDIT_CELLS: Final = 10**10
"""Texts whose lengths multiply past this (two of 100,000 characters) are compared for
equality only: edit distance costs that product (two 400 KB texts took 8 s, two 4 MB ones 13
minutes), and the model writes one of them."""
_TOO_LONG: Final = (
    "texts of {:,} and {:,} characters differ (too long to compare by edit distance: "
    "compared for equality, no partial credit)"
)
_TEXT_KINDS: Final = frozenset({"string", "number", "bool"})
_BOOL_NUMBER: Final = frozenset({"bool", "number"})


def compare_leaf(gold: Any, model: Any, opts: LeafOptions) -> LeafOutcome:
    """Compare one gold leaf with one model leaf under ``opts``.

    Strings: equal after normalisation, else scored by normalised Levenshtein similarity.
    Numbers: equal (or within the tolerance), else ``1 - |g - m| / |g|`` clamped to
    [0, 1]; a gold of 0 is all-or-nothing; NaN never matches and an infinity only
    matches the same infinity. Booleans and null are exact or nothing; empty ``{}``
    and ``[]`` match only their own kind. ``exact`` holds exactly when ``score == 1``.
    With ``numeric_range`` or ``timestamp_tolerance``, a gold range or date-time compares as
    one (``_lenient``).
    """
    if opts.numeric_range or opts.timestamp_tolerance is not None:
        found = _lenient(gold, model, opts)
        if found is not None:
            return found
    kind, model_kind = type(gold), type(model)
    if kind is str and model_kind is str:  # the common cases first: strings normalise once
        if gold == model:
            return _EXACT
        g, m = normalize_text(gold, opts), normalize_text(model, opts)
        score = _text_score(g, m, opts)
        if score == 1.0:
            return _EXACT
        return _outcome((False, score, _text_reason(g, m, opts, score)))
    if (kind is int or kind is float) and (model_kind is int or model_kind is float):
        return _number_outcome(gold, model, opts)  # what leaf_score and _explain pick here
    score = leaf_score(gold, model, opts)
    if score == 1.0:
        return _EXACT
    return _outcome((False, score, _explain(gold, model, opts, score)))


def leaf_score(gold: Any, model: Any, opts: LeafOptions) -> float:
    """The score of ``compare_leaf`` without building its reason (1.0 means exact).

    For callers that score many pairs and keep few, such as alignment matrices.
    """
    if opts.numeric_range or opts.timestamp_tolerance is not None:
        found = _lenient(gold, model, opts)
        if found is not None:
            return found.score
    kind = type(gold)
    model_kind = type(model)
    if kind is model_kind:
        if kind is str:
            if gold == model:
                return 1.0
            return _text_score(normalize_text(gold, opts), normalize_text(model, opts), opts)
        if kind is int or kind is float:
            return _number_score(gold, model, opts)
        if kind is bool:
            return 1.0 if gold is model else 0.0
        if gold is None:
            return 1.0
    elif (kind is int or kind is float) and (model_kind is int or model_kind is float):
        return _number_score(gold, model, opts)
    return _mixed_score(gold, model, opts)


def leaf_scores(gold: Any, models: Iterable[Any], opts: LeafOptions) -> list[float]:
    """``leaf_score`` of one gold leaf against many model leaves; a gold string is
    normalised once."""
    if type(gold) is not str or opts.numeric_range or opts.timestamp_tolerance is not None:
        return [leaf_score(gold, model, opts) for model in models]
    g = normalize_text(gold, opts)
    return [
        _text_score(g, normalize_text(model, opts), opts)
        if type(model) is str
        else leaf_score(gold, model, opts)
        for model in models
    ]


def normalize_text(text: str, opts: LeafOptions) -> str:
    """A string as ``compare_leaf`` compares it: NFC, case-folded unless case-sensitive,
    stripped, inner whitespace folded when ``normalize_whitespace``."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
        if not opts.case_sensitive:
            text = unicodedata.normalize("NFC", text.casefold())
    elif not opts.case_sensitive:
        text = text.lower()
    return " ".join(text.split()) if opts.normalize_whitespace else text.strip()


def _text_score(g: str, m: str, opts: LeafOptions) -> float:
    """Score two normalised strings."""
    if g == m:
        return 1.0
    if opts.coerce_numeric_strings:
        g_num = as_number(g)
        if g_num is not None:
            m_num = as_number(m)
            if m_num is not None:
                return _number_score(g_num, m_num, opts)
    score = text_similarity(g, m)
    return short_of_one(score, False)


def text_similarity(a: str, b: str) -> float:
    """Normalised Levenshtein similarity of two different texts; 0 for texts too long to
    compare by edit distance (see :data:`MAX_EDIT_CELLS` and :func:`too_long_to_edit`)."""
    if too_long_to_edit(a, b):
        return 0.0
    return _normalized_similarity()(a, b)


@cache
def _normalized_similarity() -> Callable[[str, str], float]:
    """rapidfuzz's normalised Levenshtein similarity, imported when two texts first differ:
    a run whose texts all match never pays for the import."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.normalized_similarity


def too_long_to_edit(a: str, b: str) -> bool:
    """Whether two texts are compared for equality only (their lengths' product is past
    :data:`MAX_EDIT_CELLS`)."""
    return len(a) * len(b) > MAX_EDIT_CELLS


def too_long_reason(a: str, b: str) -> str:
    """The reason of two texts that differ and are too long to compare by edit distance."""
    return _TOO_LONG.format(len(a), len(b))


def as_number(text: str) -> int | float | None:
    """The number a normalised string holds when it is exactly one JSON number, else None
    (what ``coerce_numeric_strings`` compares; alignment keys use it too)."""
    if not text or text[0] not in _NUMBER_START:
        return None
    match = _NUMBER.fullmatch(text)
    if match is None or len(text) > _MAX_INT_DIGITS:
        return None
    if match.group(1) is None and match.group(2) is None:
        return int(text)
    try:  # (past the float range: the exact integer it writes, as the parser reads 1e400)
        value = decimal_number(text)
    except LimitError:  # an integer of more digits than Python writes
        return None
    # (one past it with a fraction is read as the float, infinity: that number is text)
    return None if type(value) is float and not math.isfinite(value) else value


def _number_score(gold: Any, model: Any, opts: LeafOptions) -> float:
    """Score two numbers (ints of any size, floats)."""
    if gold == model:
        return 1.0
    return _credit(_numeric_error(gold, model, opts), opts)


def _number_outcome(gold: Any, model: Any, opts: LeafOptions) -> LeafOutcome:
    """``compare_leaf`` of two numbers: ``_number_score``'s score with ``_number_reason``'s
    text, sharing one ``_difference`` (numbers are the leaves that most often differ)."""
    if gold == model:
        return _EXACT
    if _non_finite(gold) or _non_finite(model):
        return LeafOutcome(False, 0.0, _number_reason(gold, model, None))  # as _credit(inf)
    diff, rel = _difference(gold, model)
    score = _credit(_finite_error(gold, model, diff, rel, opts), opts)
    if score == 1.0:
        return _EXACT
    return _outcome((False, score, _finite_number_reason(gold, model, rel, opts.tolerance)))


def _credit(error: float, opts: LeafOptions) -> float:
    """The score of a numeric error (see ``_numeric_error``)."""
    if error == 0.0:
        return 1.0
    if error >= 1.0 or opts.numeric_credit == "exact":
        return 0.0
    score = 1.0 - error
    return short_of_one(score, False)


def _numeric_error(gold: Any, model: Any, opts: LeafOptions) -> float:
    """How far off ``model`` is: 0.0 when it counts as equal (float noise, tolerance, both
    about 0), else the error relative to gold; ``inf`` when no credit is possible (NaN,
    infinities, any miss at a gold of 0)."""
    if gold == model:
        return 0.0
    if _non_finite(gold) or _non_finite(model):
        return math.inf
    diff, rel = _difference(gold, model)
    return _finite_error(gold, model, diff, rel, opts)


def _finite_error(gold: Any, model: Any, diff: Any, rel: float | None, opts: LeafOptions) -> float:
    """``_numeric_error`` of two finite numbers that differ, given their ``_difference``."""
    tol = opts.tolerance
    if rel is None:
        zero = abs(model) <= ZERO_EPSILON or (tol is not None and tol.holds(diff, None))
        return 0.0 if zero else math.inf
    if (_noise(gold, model, diff) and rel <= _FLOAT_NOISE) or (
        tol is not None and tol.holds(diff, rel)
    ):
        return 0.0
    return rel if rel > 0.0 else _SMALLEST  # 1 / 10**400 is 0.0 as a float, yet not equal


_SMALLEST: Final = math.ulp(0.0)


def _noise(gold: Any, model: Any, diff: Any) -> bool:
    """Whether a small difference ``diff`` between two finite numbers that differ can be float
    rounding: one is a float and, if gold is a whole number, the difference is under half a
    unit (or two units in the last place, if more). Past 2**52 a float gold is a measure, its
    noise the relative bound's; an integer gold is exact: its own rounding to a float is all
    the noise there is."""
    if not (isinstance(gold, float) or isinstance(model, float)):
        return False
    if isinstance(gold, float) and (not gold.is_integer() or abs(gold) >= _WHOLE_EXACT):
        return True
    if abs(gold) < _WHOLE_EXACT:
        return bool(diff < max(0.5, 2 * math.ulp(float(gold))))
    try:
        return bool(model == float(gold))  # the gold's own rounding, no float beside it
    except OverflowError:  # beyond float range: no float is its rounding
        return False


def _difference(gold: Any, model: Any) -> tuple[Any, float | None]:
    """``|gold - model|`` (exact for ints of any size) and that relative to gold, which is
    None for a gold of 0. Both are finite numbers."""
    try:
        diff = abs(gold - model)
    except OverflowError:  # an int beyond float range against a float
        diff = abs(Fraction(gold) - Fraction(model))
    size = abs(gold)
    if size == 0:
        return diff, None
    try:
        return diff, float(diff / size)
    except OverflowError:  # a part is past the float range: the quotient exactly
        try:
            return diff, float(Fraction(diff) / Fraction(size))
        except OverflowError:  # the quotient itself is past it
            return diff, math.inf


def _mixed_score(gold: Any, model: Any, opts: LeafOptions) -> float:
    """Score what ``leaf_score``'s fast path leaves: containers, subclasses (an ``IntEnum``,
    a ``str`` subclass), other types, and real type mismatches."""
    g_kind, m_kind = json_kind(gold), json_kind(model)
    if g_kind == m_kind:
        if g_kind == "number":
            return _number_score(gold, model, opts)
        if g_kind == "string":
            return _text_score(normalize_text(gold, opts), normalize_text(model, opts), opts)
        if g_kind in ("object", "array"):
            return 1.0 if not gold and not model else 0.0
        return 1.0 if gold == model else 0.0
    coerced = _coerced(gold, model, g_kind, m_kind, opts)
    if coerced is not None:
        return _number_score(*coerced, opts)
    kinds = {g_kind, m_kind}
    if opts.strict_types or not kinds <= _TEXT_KINDS or kinds == _BOOL_NUMBER:
        return 0.0
    if _non_finite(gold) or _non_finite(model):
        return 0.0
    g_text, m_text = text_form(gold, opts), text_form(model, opts)
    if g_text == m_text:
        return 1.0
    if "bool" in kinds:
        return 0.0
    score = text_similarity(g_text, m_text)
    return short_of_one(score, False)


def _coerced(
    gold: Any, model: Any, g_kind: str, m_kind: str, opts: LeafOptions
) -> tuple[Any, Any] | None:
    """The (gold, model) numbers when one side is a number and the other a string holding
    exactly one number and ``coerce_numeric_strings`` is on; else None."""
    if not opts.coerce_numeric_strings:
        return None
    if g_kind == "number" and m_kind == "string":
        number = as_number(normalize_text(model, opts))
        return None if number is None else (gold, number)
    if g_kind == "string" and m_kind == "number":
        number = as_number(normalize_text(gold, opts))
        return None if number is None else (number, model)
    return None


def _non_finite(value: Any) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def text_form(value: Any, opts: LeafOptions) -> str:
    """The normalised text of a string, number or bool, for comparing across types."""
    if isinstance(value, str):
        return normalize_text(value, opts)
    return _canonical(value)


def _canonical(value: Any) -> str:
    """Canonical text of a bool or number: ``true``, ``3`` for 3.0, ``2.5``, ``1e+20``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    try:
        return str(value)  # every digit: two long ints must not compare by their abbreviations
    except ValueError:  # more digits than Python will print
        return _show_number(value)


# --- opt-in leniency: gold ranges and date-times ------------------------------------------


def _lenient(gold: Any, model: Any, opts: LeafOptions) -> LeafOutcome | None:
    """The outcome of a gold string that reads as a date-time (``timestamp_tolerance``) or
    a range (``numeric_range``); None when neither applies, so the leaf compares as usual.

    Under these options the gold is a quantity, not text: a model value that is not one
    scores 0 (its text similarity says nothing about how far off it is).
    """
    if not isinstance(gold, str) or gold == model:
        return None
    if opts.timestamp_tolerance is not None:
        expected = parse_timestamp(gold)
        if expected is not None:
            return _timestamp_outcome(expected, model, opts.timestamp_tolerance)
    if opts.numeric_range:
        bounds = parse_range(gold)
        if bounds is not None:
            return _range_outcome(bounds, model, opts)
    return None


def _timestamp_outcome(expected: Timestamp, model: Any, tolerance: float) -> LeafOutcome:
    """Exact within ``tolerance`` seconds, else 0: a date-time has no scale on which a
    relative credit means anything (a second off and a year off are both "one digit")."""
    miss = timestamp_miss(expected, model, tolerance)
    return _EXACT if miss is None else LeafOutcome(False, 0.0, miss)


def _range_outcome(bounds: NumericRange, model: Any, opts: LeafOptions) -> LeafOutcome:
    """A model number against a gold range, or a model range against it."""
    if isinstance(model, (int, float)) and not isinstance(model, bool):
        return _number_in_range(bounds, model, opts)
    if isinstance(model, str):
        number = as_number(normalize_text(model, opts))
        if number is not None and opts.coerce_numeric_strings:
            return _number_in_range(bounds, number, opts)
        other = parse_range(model)
        if other is not None:
            return _range_against(bounds, other, opts)
        if number is not None:
            note = "a numeric string, and coerce_numeric_strings is off"
            return LeafOutcome(False, 0.0, not_in_range_form(model, bounds, note))
    return LeafOutcome(False, 0.0, not_in_range_form(model, bounds))


def _number_in_range(bounds: NumericRange, number: Any, opts: LeafOptions) -> LeafOutcome:
    """Exact inside the range (bounds included); outside, the number is compared with the
    nearest bound as with a gold number, so ``numeric_tolerance`` widens the range and
    ``numeric_credit`` decides the partial credit."""
    if bounds.holds(number):
        return _EXACT
    if number != number:
        return LeafOutcome(False, 0.0, _NAN_REASON)
    if _non_finite(number):
        return LeafOutcome(False, 0.0, outside_range(number, bounds))
    below = number < bounds.low
    nearest = bounds.low if below else bounds.high
    diff, rel = _difference(nearest, number)
    score = _credit(_finite_error(nearest, number, diff, rel, opts), opts)
    if score == 1.0:
        return _EXACT
    side = f"{'below' if below else 'above'} {_show_number(nearest)}"
    why = [side if rel is None else f"{_percent(rel)} {side}"]
    if opts.tolerance is not None:
        why.append(opts.tolerance.missed(rel))
    return LeafOutcome(False, score, outside_range(number, bounds, "; ".join(why)))


def _range_against(bounds: NumericRange, other: NumericRange, opts: LeafOptions) -> LeafOutcome:
    """A model range: exact when both bounds are (``numeric_tolerance`` applies to each),
    else the mean of the two bounds' numeric credits."""
    low = _number_score(bounds.low, other.low, opts)
    high = _number_score(bounds.high, other.high, opts)
    if low == 1.0 and high == 1.0:
        return _EXACT
    score = (low + high) / 2
    return LeafOutcome(
        False, short_of_one(score, False), f"range {other} vs expected range {bounds}"
    )


# --- reasons: why two leaves differ (only built for leaves that are not exact) ----------


def _explain(gold: Any, model: Any, opts: LeafOptions, score: float) -> str:
    """A short human reason for a leaf that is not exact; follows ``leaf_score``'s rules."""
    kind, model_kind = type(gold), type(model)
    if (kind is int or kind is float) and (model_kind is int or model_kind is float):
        return _number_reason(gold, model, opts.tolerance)
    g_kind, m_kind = json_kind(gold), json_kind(model)
    if g_kind == m_kind:
        if g_kind == "number":
            return _number_reason(gold, model, opts.tolerance)
        if g_kind == "string":
            return _text_reason(
                normalize_text(gold, opts), normalize_text(model, opts), opts, score
            )
        if g_kind == "bool":
            return f"{_canonical(model)} vs expected {_canonical(gold)}"
        if g_kind in ("object", "array"):
            return f"a non-empty {g_kind} is not a leaf"
        return f"{_short(model)} vs expected {_short(gold)}"
    coerced = _coerced(gold, model, g_kind, m_kind, opts)
    if coerced is not None:
        return _number_reason(*coerced, opts.tolerance)
    kinds = {g_kind, m_kind}
    if opts.strict_types or not kinds <= _TEXT_KINDS or kinds == _BOOL_NUMBER:
        return f"type mismatch: {g_kind} vs {m_kind}"
    if _non_finite(gold) or _non_finite(model):
        if gold != gold or model != model:
            return _NAN_REASON
        return f"{_short(model)} vs expected {_short(gold)}"
    if "bool" in kinds:
        return f"{text_form(model, opts)!r} vs expected {text_form(gold, opts)!r}"
    g_text, m_text = text_form(gold, opts), text_form(model, opts)
    if too_long_to_edit(g_text, m_text):
        return f"compared as text ({g_kind} vs {m_kind}): {too_long_reason(g_text, m_text)}"
    return f"compared as text ({g_kind} vs {m_kind}): similarity {score:.2f}"


def _number_reason(gold: Any, model: Any, tolerance: Tolerance | None) -> str:
    if gold != gold or model != model:
        return _NAN_REASON
    if _non_finite(gold) or _non_finite(model):
        return f"{_show_number(model)} vs expected {_show_number(gold)}"
    return _finite_number_reason(gold, model, _difference(gold, model)[1], tolerance)


def _finite_number_reason(
    gold: Any, model: Any, rel: float | None, tolerance: Tolerance | None
) -> str:
    """``_number_reason`` of two finite numbers, given their relative difference: how far
    off, and which tolerance bound missed (a tolerance that silently failed to apply, as
    ``rel`` at a gold of 0, reads like a wrong answer)."""
    shown = f"{_show_number(model)} vs expected {_show_number(gold)}"
    if tolerance is None:  # (the usual case: how far off, or nothing at a gold of 0)
        return shown if rel is None else f"{shown} ({_percent(rel)} off)"
    missed = tolerance.missed(rel)
    return f"{shown} ({missed})" if rel is None else f"{shown} ({_percent(rel)} off; {missed})"


_NAN_REASON: Final = "NaN is not comparable"


def _text_reason(g: str, m: str, opts: LeafOptions, score: float) -> str:
    """Why two normalised strings differ (as numbers when both hold one and coercion is on)."""
    if opts.coerce_numeric_strings:
        g_num = as_number(g)
        m_num = None if g_num is None else as_number(m)
        if m_num is not None:
            return _number_reason(g_num, m_num, opts.tolerance)
    return _string_reason(g, m, score)


def _string_reason(g: str, m: str, score: float) -> str:
    """Name the plainest difference between two normalised strings that differ."""
    g_ws, m_ws = " ".join(g.split()), " ".join(m.split())
    if g_ws == m_ws:
        return "whitespace differs"
    if g.casefold() == m.casefold():
        return "case differs"
    if g_ws.casefold() == m_ws.casefold():
        return "case and whitespace differ"
    if too_long_to_edit(g, m):
        return too_long_reason(g, m)
    shown = f"{score:.2f}" if score < 0.995 else ">0.99"  # never "1.00" for a difference
    return f"text differs (similarity {shown})"


def _show_number(value: Any) -> str:
    """A number as a reason shows it: floats as written (``3.0``), long ints abbreviated."""
    if isinstance(value, float):
        return repr(value)
    try:
        text = str(value)
    except ValueError:  # more digits than Python will print
        return f"<int of {int(value).bit_length()} bits>"
    return text if len(text) <= 40 else f"{text[:12]}...{text[-6:]} ({len(text)} digits)"


def _percent(rel: float) -> str:
    pct = rel * 100
    if pct < 0.01:
        return "<0.01%"
    if pct < 10:
        return f"{pct:.2g}%"
    return f"{pct:.0f}%" if pct < 1e6 else ">1e6%"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class OptionResolver:
    """Leaf options and ignore rules per path: defaults, layered with per-path overrides.

    ``overrides`` maps a path or glob to option names (``OVERRIDE_KEYS``), e.g.
    ``{"answer.price": {"numeric_tolerance": {"rel": 0.05}},
    "answer.items[*].name": {"case_sensitive": True}}``. A pattern applies to the path it
    names and everything below it. Every matching pattern applies, least specific first,
    so the most specific wins each option it sets: deeper patterns beat shallower ones,
    then exact paths beat globs, then fewer wildcards, then the later entry.
    ``ignore_paths`` globs drop a path and everything below it.
    """

    __slots__ = ("_cache", "_ignore", "_rules", "defaults", "ignores_any", "patterns")

    @property
    def overrides_any(self) -> bool:
        """Whether some path has options of its own (per-path ``options``)."""
        return bool(self._rules)

    def __init__(
        self,
        defaults: LeafOptions,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        ignore_paths: Sequence[str] | None = None,
    ) -> None:
        __tracebackhide__ = hide_usage_error
        self.defaults = defaults
        if overrides is not None and not isinstance(overrides, Mapping):
            raise OptionsError("options must map paths or globs to option mappings")
        rules = []
        for pattern, options in (overrides or {}).items():
            if not isinstance(pattern, str):
                raise OptionsError(f"options: a path must be a string, got {pattern!r}")
            changes = _leaf_fields(options, f"options[{pattern!r}]")
            if changes:
                rules.append((pattern, changes))
        self._rules = PathRules(rules)
        self._cache: dict[str, LeafOptions] = {}
        if isinstance(ignore_paths, str):
            ignore_paths = (ignore_paths,)
        elif ignore_paths is not None and not isinstance(ignore_paths, (Sequence, AbstractSet)):
            raise OptionsError("ignore_paths must be a path glob or a list of them")
        patterns = tuple(ignore_paths or ())
        for pattern in patterns:
            if not isinstance(pattern, str):
                raise OptionsError(f"ignore_paths: a pattern must be a string, got {pattern!r}")
        self._ignore = compile_globs(patterns, subtree=True) if patterns else None
        #: Whether any ``ignore_paths`` glob was given (else :meth:`ignored` is always False).
        self.ignores_any = self._ignore is not None
        #: ``(option, pattern)`` for every path pattern given, to tell which matched nothing.
        self.patterns: tuple[tuple[str, str], ...] = (
            *(("options", pattern) for pattern in overrides or {}),
            *(("ignore_paths", pattern) for pattern in patterns),
        )

    def options_for(self, path: str) -> LeafOptions:
        """The options for the leaf at ``path`` (cached per path)."""
        if not self._rules:
            return self.defaults
        found = self._cache.get(path)
        if found is None:
            changes: dict[str, Any] = {}
            for index in self._rules.ranked(path):
                changes.update(self._rules.values[index])
            found = replace(self.defaults, **changes) if changes else self.defaults
            self._cache[path] = found
        return found

    def ignored(self, path: str) -> bool:
        """True when ``path`` or one of its ancestors matches an ``ignore_paths`` glob."""
        return self._ignore is not None and self._ignore(path)
