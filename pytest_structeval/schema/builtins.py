"""Install schema mode's built-ins: comparators, transforms and the ``schema`` scorer.

Built-ins are registered as such, so a custom registration can never replace them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import comparators as c
from . import transforms as t

if TYPE_CHECKING:
    from ..registry import Registry

_Builtin = tuple[str, Callable[..., Any], Callable[[dict[str, Any]], None]]


def install(registry: Registry) -> None:
    """Register the built-in comparators, transforms and the ``schema`` scorer."""
    from ..modes.schema import score_schema

    comparators: tuple[_Builtin, ...] = (
        ("exact", c.compare_exact, c.validate_exact),
        ("numeric", c.compare_numeric, c.validate_numeric),
        ("oneof", c.compare_oneof, c.validate_oneof),
        ("similarity", c.compare_similarity, c.validate_similarity),
        ("range", c.compare_range, c.validate_range),
        ("timestamp", c.compare_timestamp, c.validate_timestamp),
    )
    transforms: tuple[_Builtin, ...] = (
        ("lowercase", t.lowercase, t.no_params("lowercase")),
        ("strip", t.strip, t.no_params("strip")),
        ("normalize_whitespace", t.normalize_whitespace, t.no_params("normalize_whitespace")),
        ("sort_tokens", t.sort_tokens, t.no_params("sort_tokens")),
        ("round_digits", t.round_digits, t.validate_round_digits),
        ("type_convert", t.type_convert, t.validate_type_convert),
    )
    for name, fn, validate in comparators:
        registry.comparators.add(name, fn, validate=validate, builtin=True)
    for name, fn, validate in transforms:
        registry.transforms.add(name, fn, validate=validate, builtin=True)
    registry.register_scorer("schema", score_schema)
