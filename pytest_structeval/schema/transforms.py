"""Built-in value transforms of schema mode, applied left to right to both sides.

A transform is ``fn(value, params) -> value``. It raises ``TypeError``/``ValueError`` on a value
it cannot handle; the scorer turns that into a mismatch of that one field, never an aborted run.
``None`` passes through the built-ins unchanged.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from ..errors import SchemaError
from ..registry import Registry, default_registry
from .comparators import json_kind

__all__ = [
    "STRING_KERNELS",
    "lowercase",
    "no_params",
    "normalize_whitespace",
    "register_transform",
    "round_digits",
    "sort_tokens",
    "strip",
    "type_convert",
    "validate_round_digits",
    "validate_type_convert",
]

_WHITESPACE: Final = re.compile(r"\s+")


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} needs a string, got {json_kind(value)} {value!r}")
    return value


def _normalize(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def _sort(text: str) -> str:
    return " ".join(sorted(text.split()))


def lowercase(value: Any, params: Mapping[str, Any]) -> Any:
    """Lower-case a string."""
    return None if value is None else _text("lowercase", value).lower()


def strip(value: Any, params: Mapping[str, Any]) -> Any:
    """Remove leading and trailing whitespace."""
    return None if value is None else _text("strip", value).strip()


def normalize_whitespace(value: Any, params: Mapping[str, Any]) -> Any:
    """Fold every whitespace run into one space and strip the ends."""
    return None if value is None else _normalize(_text("normalize_whitespace", value))


def sort_tokens(value: Any, params: Mapping[str, Any]) -> Any:
    """Sort whitespace-separated tokens (code-point order) so word order stops mattering."""
    return None if value is None else _sort(_text("sort_tokens", value))


#: The string transforms as plain ``str -> str`` functions: on a string they cannot fail, so
#: the scorer chains them without the per-call checks.
STRING_KERNELS: Final[dict[Callable[..., Any], Callable[[str], str]]] = {
    lowercase: str.lower,
    strip: str.strip,
    normalize_whitespace: _normalize,
    sort_tokens: _sort,
}


def _number(name: str, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} needs a number, got {json_kind(value)} {value!r}")
    return value


def round_digits(value: Any, params: Mapping[str, Any]) -> Any:
    """Round a number to ``digits`` decimal places (negative digits round to tens, ...)."""
    if value is None:
        return None
    number = _number("round_digits", value)
    if isinstance(number, float) and not math.isfinite(number):
        return number
    return round(number, params["digits"])


_TRUE: Final = frozenset({"true", "1"})
_FALSE: Final = frozenset({"false", "0"})


def _to_float(value: Any) -> float:
    if isinstance(value, str):
        return float(value.strip())
    if isinstance(value, (int, float)):
        return float(value)
    raise TypeError(f"cannot convert {json_kind(value)} {value!r} to float")


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            value = float(text)
    if isinstance(value, float):
        if value != value or value in (math.inf, -math.inf):
            raise ValueError(
                f"{value!r} is not a finite number (a numeric text past the float range?)"
            )
        if not value.is_integer():
            raise ValueError(f"{value!r} is not a whole number (round it with round_digits first)")
        return int(value)
    raise TypeError(f"cannot convert {json_kind(value)} {value!r} to int")


def _to_str(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise TypeError(f"cannot convert {json_kind(value)} to str")


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise ValueError(f"cannot convert {value!r} to bool (accepted: true/false/1/0)")


_CONVERTERS: Final[dict[str, Callable[[Any], Any]]] = {
    "float": _to_float,
    "int": _to_int,
    "str": _to_str,
    "bool": _to_bool,
}


def type_convert(value: Any, params: Mapping[str, Any]) -> Any:
    """Convert to ``float``/``int``/``str``/``bool``; a value that does not convert raises."""
    if value is None:
        return None
    return _CONVERTERS[params["to"]](value)


def _check(name: str, params: Any, allowed: frozenset[str]) -> None:
    if not isinstance(params, Mapping):
        raise SchemaError(f"{name}: parameters must be an object, got {type(params).__name__}")
    unknown = sorted(str(k) for k in params if k not in allowed)
    if unknown:
        accepted = f"accepted: {', '.join(sorted(allowed))}" if allowed else "it takes none"
        raise SchemaError(f"{name}: unknown parameter(s) {unknown}; {accepted}")


@functools.cache
def no_params(name: str) -> Callable[[dict[str, Any]], None]:
    """The validator of the string transform ``name``, which takes no parameters (one per
    name: registries built apart hold equal entries)."""

    def validate(params: dict[str, Any]) -> None:
        _check(name, params, frozenset())

    return validate


def validate_round_digits(params: dict[str, Any]) -> None:
    """``digits`` is required and must be an integer."""
    _check("round_digits", params, frozenset({"digits"}))
    digits = params.get("digits")
    if isinstance(digits, bool) or not isinstance(digits, int):
        raise SchemaError(f"round_digits: 'digits' must be an integer, got {digits!r}")


def validate_type_convert(params: dict[str, Any]) -> None:
    """``to`` is one of float, int, str, bool."""
    _check("type_convert", params, frozenset({"to"}))
    target = params.get("to")
    if target not in _CONVERTERS:
        raise SchemaError(
            f"type_convert: 'to' must be one of {sorted(_CONVERTERS)}, got {target!r}"
        )


def register_transform(
    name: str,
    fn: Callable[..., Any],
    overwrite: bool = False,
    *,
    validate: Callable[[dict[str, Any]], None] | None = None,
    registry: Registry | None = None,
) -> None:
    """Register a custom transform ``fn(value, params) -> value`` (default registry unless given).

    Raise ``TypeError``/``ValueError`` for values it cannot handle: the field becomes a mismatch
    with your message as the reason.
    """
    target = registry if registry is not None else default_registry()
    target.register_transform(name, fn, overwrite=overwrite, validate=validate)
