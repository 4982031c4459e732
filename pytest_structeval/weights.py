"""Per-field weights: ``weights={path glob: w}`` makes some fields count more than others
(stickler's field weights; promptfoo's weighted assertions).

A glob covers the paths it matches and everything below them; the most specific one decides,
and every other field weighs 1. Weights change only the mode's ``score`` (and a ``threshold``
read against it), which becomes its weighted form, also reported as ``weighted_score``: the
reference metrics stay counts, so users of those tools read the same numbers. A weight is a
finite number above 0 (to leave a field out, ``ignore_paths`` says so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from .errors import OptionsError, hide_usage_error
from .paths import ranked_globs
from .results import FieldResult

__all__ = ["WeightedSums", "Weights", "parse_weights"]

_OPTION: Final = "weights"


@dataclass(frozen=True, slots=True)
class Weights:
    """``(pattern, matches(path), weight)`` rules, the most specific first."""

    rules: tuple[tuple[str, Callable[[str], bool], float], ...]

    def of(self, path: str) -> float:
        for _, matches, weight in self.rules:
            if matches(path):
                return weight
        return 1.0


def parse_weights(option: Any) -> Weights | None:
    """``weights`` as rules; None when absent or empty. ``OptionsError`` for anything but a
    mapping of non-empty path globs to finite numbers above 0."""
    __tracebackhide__ = hide_usage_error
    if option is None:
        return None
    if not isinstance(option, Mapping):
        raise OptionsError(f"{_OPTION} must map path globs to numbers, got {option!r}")
    for pattern, weight in option.items():
        if not isinstance(pattern, str) or not pattern:
            raise OptionsError(
                f"{_OPTION}: a path glob must be a non-empty string, got {pattern!r}"
            )
        if (
            isinstance(weight, bool)
            or not isinstance(weight, (int, float))
            or not math.isfinite(weight)
            or weight <= 0
        ):
            raise OptionsError(
                f"{_OPTION}[{pattern!r}] must be a finite number above 0, got {weight!r} "
                "(to leave a field out, use ignore_paths)"
            )
    try:
        rules = ranked_globs((pattern, float(weight)) for pattern, weight in option.items())
    except OptionsError as exc:
        raise OptionsError(f"{_OPTION}: {exc}") from None
    return Weights(rules) if rules else None


class WeightedSums:
    """Per status, the fields' summed weight and their summed weight x score: what each
    mode's weighted score is made of."""

    def __init__(self, fields: Iterable[FieldResult], weights: Weights) -> None:
        self._sums: dict[str, tuple[float, float]] = {}
        for f in fields:
            weight = weights.of(f.path)
            total, scored = self._sums.get(f.status, (0.0, 0.0))
            self._sums[f.status] = (total + weight, scored + weight * f.score)

    def weight(self, *statuses: str) -> float:
        return sum(self._sums.get(status, (0.0, 0.0))[0] for status in statuses)

    def scored(self, *statuses: str) -> float:
        return sum(self._sums.get(status, (0.0, 0.0))[1] for status in statuses)
