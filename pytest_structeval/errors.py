"""Exceptions raised by pytest-structeval.

Every error a user can meet is one of these, so callers can catch them precisely;
the ones about bad input are ``ValueError`` subclasses, as the standard library does.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AnswerParseError",
    "ComparatorWarning",
    "GoldValidationError",
    "GoldWarning",
    "LimitError",
    "OptionsError",
    "SchemaError",
    "StructevalError",
    "hide_usage_error",
]


class StructevalError(Exception):
    """Base class of every pytest-structeval error."""


class AnswerParseError(StructevalError, ValueError):
    """An answer could not be parsed (strict mode) or broke a hard limit."""


class LimitError(AnswerParseError):
    """Input size, nesting depth or integer length is over its configured bound."""


def too_deep(max_depth: int, at: str = "") -> LimitError:
    """The error for a value given parsed that nests more than ``max_depth`` non-empty
    containers, naming the path of the first one too deep when it is known."""
    where = f" at {at[:200]}" if at else ""
    return LimitError(f"value nests deeper than max_depth={max_depth}{where}")


class OptionsError(StructevalError, ValueError):
    """A scoring option is unknown or has a value of the wrong shape."""

    unknown: tuple[str, ...] = ()
    """The options a built-in mode does not take, when that is the error (sorted)."""


class SchemaError(StructevalError, ValueError):
    """An evaluation schema is invalid; the message names the schema path."""


class GoldValidationError(StructevalError, ValueError):
    """Gold records do not fit their evaluation schema."""


class GoldWarning(UserWarning):
    """A gold answer read only with a repair, or that starts like JSON but reads as text:
    messy golds are common, and each answer is then scored against what was read."""


class ComparatorWarning(RuntimeWarning):
    """A comparator misbehaved in a way its results survive (a batch comparator returned
    more results than fields: the extra ones are ignored)."""

    @classmethod
    def extra_results(cls, results: int, fields: int, name: str | None = None) -> ComparatorWarning:
        """A batch comparator (``name``, when known) returned more ``results`` than
        ``fields``: the batch dispatch and a kept judge say it alike."""
        named = "" if name is None else f" {name!r}"
        return cls(
            f"batch comparator{named} returned {results} results for {fields} fields; "
            "the extra ones are ignored"
        )


def hide_usage_error(excinfo: Any) -> bool:
    """``__tracebackhide__`` of the frames that check user input: pytest hides them when the
    error is one of these (a bad option, pattern, schema or limit), so the traceback ends at
    the user's line and the message, and shows them for anything else (a bug)."""
    return bool(excinfo.errisinstance(StructevalError))
