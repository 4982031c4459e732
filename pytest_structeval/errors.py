"""Exceptions raised by pytest-structeval.

Every error a user can meet is one of these, so callers can catch them precisely;
the ones about bad input are ``ValueError`` subclasses, as the standard library does.
"""

from __future__ import annotations

__all__ = [
    "AnswerParseError",
    "GoldValidationError",
    "LimitError",
    "OptionsError",
    "SchemaError",
    "StructevalError",
]


class StructevalError(Exception):
    """Base class of every pytest-structeval error."""


class AnswerParseError(StructevalError, ValueError):
    """An answer could not be parsed (strict mode) or broke a hard limit."""


class LimitError(AnswerParseError):
    """Input size, nesting depth or integer length is over its configured bound."""


class OptionsError(StructevalError, ValueError):
    """A scoring option is unknown or has a value of the wrong shape."""


class SchemaError(StructevalError, ValueError):
    """An evaluation schema is invalid; the message names the schema path."""


class GoldValidationError(StructevalError, ValueError):
    """Gold records do not fit their evaluation schema."""
