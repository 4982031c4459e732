"""Opt-in leniency grammars: numeric ranges (``"10-12"``) and ISO 8601 date-times.

Key-level modes (``numeric_range``, ``timestamp_tolerance`` in ``compare.py``) and schema
mode (the ``range`` and ``timestamp`` comparators) read these values with the one grammar
here, so a value is a range or an instant in every mode or in none. Both grammars are
strict on purpose: they widen what counts as *equal*, so a value they misread (a date read
as a range, an id as a number) would turn a wrong answer into a right one.

Ranges: ``NUMBER SEP NUMBER`` after stripping outer whitespace, where NUMBER is a decimal
without exponent or leading zeros (``-?(0|[1-9][0-9]*)(.[0-9]+)?``), SEP is ``-``, ``–``,
``—`` or ``..`` (spaces around allowed) or ``to`` between spaces (any case), and the low
bound comes first (``5-5`` is a one-point range). So ``2020-06-26``, ``2020-06``, ``2020-10``,
``COMP-01``, ``-5``, ``12-10`` and ``1,500`` are not ranges.

Date-times: ``YYYY-MM-DD``, or that plus ``T``/``t``/one space and ``hh:mm[:ss[.f]]``
(a fraction of any length after ``.`` or ``,``, read to the microsecond) and an optional UTC offset
``Z``/``z``/``±hh[:mm]``/``±hhmm``. A date, a date-time without offset and a date-time with
one are three kinds that are never compared with each other: which instant a local time or
a whole day means is not in the value.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Final, NamedTuple

__all__ = [
    "DATE",
    "LOCAL",
    "ZONED",
    "NumericRange",
    "Timestamp",
    "not_in_range_form",
    "outside_range",
    "parse_range",
    "parse_timestamp",
    "timestamp_miss",
]

# Longer text is neither a range nor a date-time; the bound also keeps the caches small.
_MAX_CHARS: Final = 100

_NUMBER: Final = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
_RANGE: Final = re.compile(rf"({_NUMBER})(?: *(?:-|\u2013|\u2014|\.\.) *| +[Tt][Oo] +)({_NUMBER})")
_TIMESTAMP: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]+))?)?"
    r"(?:([Zz])|([+-])([0-9]{2})(?::?([0-5][0-9]))?)?)?"
)

DATE: Final = "date"
LOCAL: Final = "date-time without UTC offset"
ZONED: Final = "date-time with UTC offset"


class NumericRange(NamedTuple):
    """An inclusive numeric range, ``low <= high``; shown as ``[10, 12]``."""

    low: int | float
    high: int | float

    def holds(self, number: int | float) -> bool:
        """True when ``number`` lies inside (bounds included; NaN never does)."""
        return self.low <= number <= self.high

    def __str__(self) -> str:
        return f"[{_bound(self.low)}, {_bound(self.high)}]"


def _bound(value: int | float) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def parse_range(text: str) -> NumericRange | None:
    """The range ``text`` states (see the module docstring), else None. Never raises."""
    if len(text) > _MAX_CHARS:
        return None
    return _parse_range(text.strip())


@functools.lru_cache(maxsize=1024)
def _parse_range(text: str) -> NumericRange | None:
    match = _RANGE.fullmatch(text)
    if match is None:
        return None
    low, high = _decimal(match.group(1)), _decimal(match.group(2))
    return NumericRange(low, high) if low <= high else None


def _decimal(text: str) -> int | float:
    return float(text) if "." in text else int(text)


class Timestamp(NamedTuple):
    """A date or date-time as read: its ``moment`` (midnight for a date), ``kind``
    (``DATE``, ``LOCAL`` or ``ZONED``) and the stripped ``text`` it came from."""

    moment: datetime
    kind: str
    text: str


def parse_timestamp(text: str) -> Timestamp | None:
    """The date or date-time ``text`` states (see the module docstring), else None.

    Calendar-checked (``2020-02-30``, ``24:00`` and the offset ``+02:60`` are not instants).
    Never raises.
    """
    if len(text) > _MAX_CHARS:
        return None
    return _parse_timestamp(text.strip())


@functools.lru_cache(maxsize=1024)
def _parse_timestamp(text: str) -> Timestamp | None:
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, utc, sign, off_h, off_m = match.groups()
    try:
        if hour is None:
            return Timestamp(datetime(int(year), int(month), int(day)), DATE, text)
        zone = None
        if utc is not None:
            zone = timezone.utc
        elif sign is not None:
            offset = timedelta(hours=int(off_h), minutes=int(off_m or 0))
            zone = timezone(-offset if sign == "-" else offset)
        micro = int((fraction or "0")[:6].ljust(6, "0"))
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro, zone
        )
    except ValueError:  # a day, hour or offset out of range
        return None
    return Timestamp(moment, LOCAL if zone is None else ZONED, text)


def timestamp_miss(expected: Timestamp, model: Any, tolerance: float) -> str | None:
    """None when ``model`` is a date-time (or date) of ``expected``'s kind at most
    ``tolerance`` seconds from it (inclusive); else why not, e.g.
    ``2020-06-26T11:20:00 is 360 s after expected 2020-06-26T11:14:00 (tolerance 60 s)``."""
    found = parse_timestamp(model) if isinstance(model, str) else None
    if found is None:
        return f"{_shown(model)} is not an ISO 8601 {_noun(expected)} (expected {expected.text})"
    if found.kind != expected.kind:
        return (
            f"{found.text} is a {found.kind} and expected {expected.text} a {expected.kind}:"
            " not comparable"
        )
    seconds = (found.moment - expected.moment).total_seconds()
    if abs(seconds) <= tolerance:
        return None
    direction = "after" if seconds > 0 else "before"
    return (
        f"{found.text} is {_duration(abs(seconds))} {direction} expected {expected.text}"
        f" (tolerance {_seconds(tolerance)} s)"
    )


def _noun(stamp: Timestamp) -> str:
    return "date" if stamp.kind == DATE else "date-time"


def _seconds(seconds: float) -> str:
    """Seconds as written, to the microsecond: ``360``, ``0.5``, ``1234567`` (never
    ``1.23457e+06``)."""
    return f"{seconds:.6f}".rstrip("0").rstrip(".")


def _duration(seconds: float) -> str:
    """``360 s``, ``0.5 s``, ``172800 s (2 days)`` (a difference of two date-times is at
    most about 3e11 s, to the microsecond)."""
    shown = _seconds(seconds)
    if seconds < 86400:
        return f"{shown} s"
    days = f"{seconds / 86400:.4g}"
    return f"{shown} s ({days} {'day' if days == '1' else 'days'})"


def outside_range(number: Any, expected: NumericRange, detail: str = "") -> str:
    """The reason for a number outside ``expected``: ``15 outside expected range [10, 12]``."""
    reason = f"{_shown(number)} outside expected range {expected}"
    return f"{reason} ({detail})" if detail else reason


def not_in_range_form(model: Any, expected: NumericRange, note: str = "") -> str:
    """The reason for a value that is neither a number nor a range (``note``: why a value
    that looks like one did not count)."""
    why = f"expected range {expected}; {note}" if note else f"expected range {expected}"
    return f"{_shown(model)} is not a number or a range ({why})"


def _shown(value: Any) -> str:
    """A model value in a reason: JSON words for null and booleans, strings quoted, at most
    60 characters."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    try:
        text = repr(value)
    except ValueError:  # an int with more digits than Python will print
        return f"<int of {int(value).bit_length()} bits>"
    return text if len(text) <= 60 else text[:57] + "..."
