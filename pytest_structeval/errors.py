"""Exceptions raised by pytest-structeval.

Every error a user can meet is one of these, so callers can catch them precisely;
the ones about bad input are ``ValueError`` subclasses, as the standard library does.
"""

from __future__ import annotations

import linecache
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final, TypeVar, cast

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


_W = TypeVar("_W", bound=Warning)


class GoldWarning(UserWarning):
    """A gold answer read only with a repair, that starts like JSON but reads as text, or
    that writes a key twice in one object: messy golds are common, and each answer is then
    scored against what was read."""


def warning_filters() -> list[Any]:
    """The filters of the warnings context in force: ``warnings.filters``, which each
    ``warnings.catch_warnings`` replaces by a copy of its own (or, where a context-aware
    Python keeps them per context, that context's)."""
    active = getattr(warnings, "_get_filters", None)
    return cast("list[Any]", active() if callable(active) else warnings.filters)


_SESSION_FILTERS: list[Any] = []  # the filters of pytest's warnings context for the running
# test (see session_warnings); empty outside a test: every context is then the session's own


@contextmanager
def session_warnings() -> Iterator[None]:
    """Make the warnings context in force the session's own while inside (the plugin wraps
    each test's protocol in it, inside pytest's own warnings context for the test)."""
    _SESSION_FILTERS.append(warning_filters())
    try:
        yield
    finally:
        _SESSION_FILTERS.pop()


def own_warnings_context() -> bool:
    """Whether the warnings context in force is the session's own: pytest's for the test
    that runs (not one a test opened inside it: ``pytest.warns``, ``recwarn``,
    ``warnings.catch_warnings``), or any outside a test (a script, ``structeval evaluate``).
    A :class:`GoldWarning` is given once per session in the session's own context only."""
    return not _SESSION_FILTERS or warning_filters() is _SESSION_FILTERS[-1]


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
    error is one of these (a bad option, pattern, schema or limit), or a warning about the
    gold or the schema that a warnings filter raised (see :func:`data_warning`), so the
    traceback ends at the user's line and the message, and shows them for anything else (a
    bug)."""
    return bool(excinfo.errisinstance(StructevalError) or data_warning(excinfo.value))


_PLACE: Final = "structeval_place"  # (the attribute :func:`placed` sets)


def placed(warning: _W, filename: str, lineno: int) -> _W:
    """``warning``, marked as given at line ``lineno`` of ``filename``: the user's gold or
    schema file it is about. A warnings filter that makes it an error raises this very
    object, and a scenario run names that file and line in its error."""
    setattr(warning, _PLACE, (filename, lineno))
    return warning


def warning_place(warning: BaseException) -> tuple[str, int] | None:
    """Where :func:`placed` says ``warning`` was given, if it did."""
    place = getattr(warning, _PLACE, None)
    return place if isinstance(place, tuple) else None


def data_warning(exc: BaseException) -> str | None:
    """What ``exc`` is about, when it is a :class:`GoldWarning` (``"gold"``) or a
    ``SchemaWarning`` (``"schema"``) raised as an exception: a warnings filter made it an
    error (``-W error``, ``filterwarnings = error``). The input is at fault, not the code
    that read it (a scorer, which never got to score)."""
    if isinstance(exc, GoldWarning):
        return "gold"
    tree = sys.modules.get("pytest_structeval.schema.tree")  # (loaded if one was given)
    if tree is not None and isinstance(exc, tree.SchemaWarning):
        return "schema"
    return None


def file_lines(shown: str, root: str | None) -> None:
    """Let a warning located at ``shown`` (a file's name as the output shows it: relative to
    ``root``, the rootdir, where it lies inside) show that file's line, whatever the working
    folder: ``linecache`` looks a relative name up from the working folder (then
    ``sys.path``), so pytest run from a subfolder showed no line, or another file's. The
    file's lines are kept under the shown name, read from where it is (checked against its
    size and time, as ``linecache`` checks a file it read itself: an edited file is read
    again)."""
    full = os.path.abspath(os.path.join(root or "", shown))
    linecache.checkcache(shown)  # (an entry of a file since edited is dropped)
    entry = linecache.cache.get(shown)
    if entry is not None and len(entry) == 4 and entry[3] == full:
        return
    linecache.checkcache(full)
    lines = linecache.getlines(full)
    try:
        info = os.stat(full)
    except OSError:
        linecache.cache.pop(shown, None)
        return
    linecache.cache[shown] = (info.st_size, info.st_mtime, lines, full)
