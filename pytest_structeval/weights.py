"""Per-field weights: ``weights={path glob: w}`` makes some fields count more than others
(stickler's field weights; promptfoo's weighted assertions).

A glob covers the paths it matches and everything below them; the most specific one decides,
and every other field weighs 1. A field that stands for a whole object or array (in
similarity mode, an object the model added, one extra field) weighs the mean weight of the
leaves it holds.
Weights change only the mode's ``score`` (and a ``threshold`` read against it), which becomes
its weighted form, also reported as ``weighted_score``: the reference metrics stay counts, so
users of those tools read the same numbers. Sums are exact (fractions of the weights as
written), so a weighted score is the correctly rounded value, which can differ from the
unweighted float arithmetic in the last bit; a threshold is therefore met up to its last
bits (:func:`meets`), so equal weights never change a verdict. A weight is a finite number above
0 (to leave a field out, ``ignore_paths`` says so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from .errors import OptionsError, hide_usage_error
from .naming import within_slack
from .paths import PathRules, flatten, unused_glob_notes
from .results import HALLUCINATION, FieldResult

__all__ = ["WeightedSums", "Weights", "meets", "parse_weights"]

_OPTION: Final = "weights"
_ZERO: Final = Fraction(0)
_ONE: Final = Fraction(1)


@dataclass(frozen=True, slots=True)
class Weights:
    """A weight per path glob (see :class:`~pytest_structeval.paths.PathRules`)."""

    rules: PathRules[Fraction]

    def of(self, path: str, used: set[int] | None = None) -> Fraction:
        """The weight at ``path``; the rule that decided goes into ``used``."""
        index = self.rules.winner(path)
        if index is None:
            return _ONE
        if used is not None:
            used.add(index)
        return self.rules.values[index]

    def of_field(
        self,
        field: FieldResult,
        used: set[int] | None = None,
        path_of: Callable[[str], str] | None = None,
    ) -> Fraction:
        """A leaf's weight, or for a field that stands for a whole container, the mean weight
        of the container's leaves. ``path_of`` names a field as the globs do (schema mode's
        records say ``a.b``, the globs ``answer.a.b``)."""
        path = field.path if path_of is None else path_of(field.path)
        value = field.model if field.status == HALLUCINATION else field.gold
        if isinstance(value, (dict, list)) and value:
            leaves = flatten(value, path)
            if leaves:
                return sum((self.of(leaf, used) for leaf in leaves), _ZERO) / len(leaves)
        return self.of(path, used)

    def unused_notes(self, used: set[int], paths: Iterable[str] = ()) -> list[str]:
        """A note for each glob that weighed no field (as for ``options``); ``paths``: the
        fields'."""
        rules = self.rules
        return unused_glob_notes(_OPTION, rules.patterns, used, rules.covered, paths)


def parse_weights(
    option: Any, *, compose_paths: bool = False, leave_out: str = "ignore_paths"
) -> Weights | None:
    """``weights`` as rules; None when absent or empty. ``OptionsError`` for anything but a
    mapping of non-empty path globs to finite numbers above 0 (``leave_out``: what the mode
    leaves a field out with). ``compose_paths``: see
    :class:`~pytest_structeval.paths.GlobMatcher`."""
    __tracebackhide__ = hide_usage_error
    if option is None:
        return None
    if not isinstance(option, Mapping):
        raise OptionsError(f"{_OPTION} must map path globs to numbers, got {option!r}")
    exact: list[tuple[str, Fraction]] = []
    for pattern, weight in option.items():
        value = _fraction(weight)
        if value is None or value <= 0:
            shown = f"an integer of {weight.bit_length()} bits" if _huge(weight) else repr(weight)
            raise OptionsError(
                f"{_OPTION}[{pattern!r}] must be a finite number above 0, got {shown} "
                f"(to leave a field out, use {leave_out})"
            )
        exact.append((pattern, value))
    try:
        rules = PathRules(exact, compose_paths=compose_paths)
    except OptionsError as exc:
        raise OptionsError(f"{_OPTION}: {exc}") from None
    return Weights(rules) if rules else None


def meets(score: float, threshold: float) -> bool:
    """``score >= threshold`` up to the last bits of a float (4 units in the last place): a
    weighted score that is the threshold in exact arithmetic meets it, one a hair below it in
    exact arithmetic (1 - 1e-13) does not. A threshold of 1 or more needs no slack and gets
    none: a weighted score is 1.0 exactly when it is 1, and held under 1 otherwise."""
    return score >= threshold or within_slack(score, threshold)


def _fraction(weight: Any) -> Fraction | None:
    """A weight as written (``0.3`` is 3/10, not the float nearest it); None when it is not
    a finite number."""
    if isinstance(weight, bool):
        return None
    if isinstance(weight, int):
        return Fraction(weight)
    if isinstance(weight, float) and math.isfinite(weight):
        return Fraction(repr(weight))
    return None


def _huge(weight: Any) -> bool:
    return isinstance(weight, int) and not isinstance(weight, bool) and weight.bit_length() > 64


class WeightedSums:
    """Per status, the fields' summed weight and their summed weight x score, exactly: what
    each mode's weighted score is made of. ``notes()`` names the globs that weighed nothing."""

    def __init__(
        self,
        fields: Iterable[FieldResult],
        weights: Weights,
        *,
        path_of: Callable[[str], str] | None = None,
    ) -> None:
        self._weights = weights
        self._used: set[int] = set()
        fields = fields if isinstance(fields, Sequence) else list(fields)
        self._fields, self._path_of = fields, path_of  # (for the notes)
        # Per (status, weight): fields, fields scoring 1, and the exact sum of the other
        # scores. Most fields score 1 and share a few weights, so the fractions are few.
        # (Keyed by the weight's identity: the rules' fractions are shared, and hashing a
        # Fraction per field would cost more than the rest of the sum.)
        groups: dict[tuple[str, int], list[Any]] = {}
        for f in fields:
            weight = weights.of_field(f, self._used, path_of)
            key = (f.status, id(weight))
            group = groups.get(key)
            if group is None:
                group = groups[key] = [weight, 0, 0, []]
            group[1] += 1
            if f.score == 1.0:
                group[2] += 1
            else:
                group[3].append(f.score)
        self._sums: dict[str, tuple[Fraction, Fraction]] = {}
        for (status, _), (weight, count, ones, others) in groups.items():
            rest = sum(map(Fraction, others), _ZERO)
            total, scored = self._sums.get(status, (_ZERO, _ZERO))
            self._sums[status] = (total + weight * count, scored + weight * (ones + rest))

    def weight(self, *statuses: str) -> Fraction:
        return sum((self._sums.get(status, (_ZERO, _ZERO))[0] for status in statuses), _ZERO)

    def scored(self, *statuses: str) -> Fraction:
        return sum((self._sums.get(status, (_ZERO, _ZERO))[1] for status in statuses), _ZERO)

    def notes(self) -> list[str]:
        weights = self._weights
        if len(self._used) == len(weights.rules.patterns):  # every glob weighed a field
            return []
        path_of = self._path_of
        paths = [f.path if path_of is None else path_of(f.path) for f in self._fields]
        return weights.unused_notes(self._used, paths)
