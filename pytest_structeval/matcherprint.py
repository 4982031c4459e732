"""A matched ``JsonMatches`` in pytest's full diff: printed as the value it accepted.

pytest's pretty printer spreads a dict, a list or a multi-line string over several lines,
while a matcher's ``repr`` is one line, so a field the matcher accepted would show as
changed (dirty-equals#108). The printer is private to pytest: its dispatch table gets an
entry only when it has the form this knows. Imported by the assertion hook once
:mod:`pytest_structeval.api` is loaded (no ``JsonMatches`` exists before).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["matcher_printer", "print_matchers_as_values"]


@functools.cache
def print_matchers_as_values() -> None:
    """Add the matcher's entry to pytest's printer, once: pytest 9.2's printer yields text,
    earlier ones (copies of the standard library's) write to a stream."""
    try:
        from _pytest._io.pprint import PrettyPrinter
    except ImportError:
        return
    from .api import JsonMatches

    handler = matcher_printer(PrettyPrinter)
    if handler is not None:
        PrettyPrinter._dispatch[JsonMatches.__repr__] = handler


def matcher_printer(printer_class: type) -> Callable[..., Any] | None:
    """The dispatch entry that prints a matched ``JsonMatches`` as its value, for a
    ``PrettyPrinter`` class of either form; ``None`` for a printer this cannot tell."""
    dispatch = getattr(printer_class, "_dispatch", None)
    sample = getattr(printer_class, "_pprint_dict", None)
    if not isinstance(dispatch, dict) or sample is None or not hasattr(printer_class, "_format"):
        return None
    try:
        names = list(inspect.signature(sample).parameters)
    except (TypeError, ValueError):
        return None
    if names == ["self", "object", "indent", "allowance", "context", "level"]:
        return _yield_matcher
    if names == ["self", "object", "stream", "indent", "allowance", "context", "level"]:
        return _write_matcher
    return None


def _yield_matcher(
    printer: Any, matcher: Any, indent: int, allowance: int, context: set[int], level: int
) -> Iterator[str]:
    matched = matcher._matched  # the value a successful comparison accepted
    if matched is None:
        yield repr(matcher)
    else:  # the printer called this one level down: the value takes the matcher's place
        yield from printer._format(matched[0], indent, allowance, context, level - 1)


def _write_matcher(
    printer: Any,
    matcher: Any,
    stream: Any,
    indent: int,
    allowance: int,
    context: set[int],
    level: int,
) -> None:
    matched = matcher._matched
    if matched is None:
        stream.write(repr(matcher))
    else:
        printer._format(matched[0], stream, indent, allowance, context, level - 1)
