"""Values that mean "no value" (``null``, ``""``, ``"N/A"``): the ``absent_values`` option.

By default an explicit ``null`` and a missing key are different answers, and every mode keeps
them apart. Where a field's owner says they are the same, ``absent_values`` makes an object
entry holding one of the values count as not there at all: gold absent and model absent is
nothing, a gold value against an absent model value is an omission, an absent gold against a
model value a hallucination. It is one list for the whole answer, or ``{path glob: list}``
per field (the most specific glob that matches an entry's path, or a path above it, decides;
``[]`` turns it off below a glob).
Array elements are never removed: a position is not a key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .errors import OptionsError, hide_usage_error
from .parse import SCALAR_TYPES
from .paths import index_path, key_path, ranked_globs

__all__ = ["AbsentPolicy", "drop_absent", "is_absent", "parse_absent"]

_OPTION: Final = "absent_values"


def is_absent(value: Any, absent: Sequence[Any]) -> bool:
    """Whether ``value`` *is* one of ``absent`` or equals one of the identical type (so
    ``0`` does not catch ``False``, nor ``1`` catch ``1.0``)."""
    return any(value is v or (type(value) is type(v) and value == v) for v in absent)


@dataclass(frozen=True, slots=True)
class AbsentPolicy:
    """What counts as absent: ``everywhere``, or per path by ``rules`` (most specific
    first: ``(matches(path), values)``)."""

    everywhere: tuple[Any, ...] = ()
    rules: tuple[tuple[Callable[[str], bool], tuple[Any, ...]], ...] = ()

    def at(self, path: str) -> tuple[Any, ...]:
        for matches, values in self.rules:
            if matches(path):
                return values
        return self.everywhere


def parse_absent(option: Any) -> AbsentPolicy | None:
    """``absent_values`` as a policy: a list of JSON scalars, or ``{glob: list}``; None
    when it is absent or empty. ``OptionsError`` for anything else."""
    __tracebackhide__ = hide_usage_error
    if option is None:
        return None
    if isinstance(option, Mapping):
        for pattern in option:
            if not isinstance(pattern, str) or not pattern:
                raise OptionsError(
                    f"{_OPTION}: a path glob must be a non-empty string, got {pattern!r}"
                )
        rules = [(p, _values(v, f"{_OPTION}[{p!r}]")) for p, v in option.items()]
        return AbsentPolicy(rules=ranked_globs(rules)) if rules else None
    values = _values(option, _OPTION)
    return AbsentPolicy(everywhere=values) if values else None


def _values(values: Any, where: str) -> tuple[Any, ...]:
    __tracebackhide__ = hide_usage_error
    if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
        raise OptionsError(
            f'{where} must be a list of values such as [null, "", "N/A"], got {values!r}'
        )
    for value in values:
        if type(value) not in SCALAR_TYPES:
            raise OptionsError(
                f"{where}: {value!r} is not a JSON scalar (null, a string, a number or a boolean)"
            )
    return tuple(values)


def drop_absent(value: Any, prefix: str, policy: AbsentPolicy, max_depth: int) -> Any:
    """``value`` (parsed JSON at ``prefix``) without the object entries the policy calls
    absent; containers are copied only where something goes. Parts nested deeper than
    ``max_depth`` are left as they are, for the walk to refuse."""
    return _dropped(value, prefix, policy, max_depth)


def _dropped(value: Any, path: str, policy: AbsentPolicy, depth: int) -> Any:
    if depth <= 0:
        return value
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        changed = False
        for key, item in value.items():
            child = key_path(path, key) if policy.rules else ""
            if is_absent(item, policy.at(child)):
                changed = True
                continue
            kept = _dropped(item, child, policy, depth - 1)
            changed = changed or kept is not item
            out[key] = kept
        return out if changed else value
    if isinstance(value, (list, tuple)):
        items = [
            _dropped(item, index_path(path, i) if policy.rules else "", policy, depth - 1)
            for i, item in enumerate(value)
        ]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items if isinstance(value, list) else tuple(items)
    return value
