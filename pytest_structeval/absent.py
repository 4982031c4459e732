"""Values that mean "no value" (``null``, ``""``, ``"N/A"``): the ``absent_values`` option.

By default an explicit ``null`` and a missing key are different answers, and every mode keeps
them apart. Where a field's owner says they are the same, ``absent_values`` makes an object
entry holding one of the values count as not there at all: gold absent and model absent is
nothing, a gold value against an absent model value is an omission, an absent gold against a
model value a hallucination. It is one list for the whole answer, or ``{path glob: list}``
per field (the most specific glob that matches an entry's path, or a path above it, decides;
``[]`` turns it off below a glob). An object all of whose entries are absent is absent
itself, and so is an empty object or array (it holds no value). Array elements are never
removed: a position is not a key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .errors import OptionsError, hide_usage_error
from .parse import SCALAR_TYPES
from .paths import PathRules, index_path, key_path, unused_glob_notes

__all__ = ["AbsentPolicy", "drop_absent", "is_absent", "parse_absent"]

_OPTION: Final = "absent_values"


def is_absent(value: Any, absent: Sequence[Any]) -> bool:
    """Whether ``value`` *is* one of ``absent`` or equals one of the identical type (so
    ``0`` does not catch ``False``, nor ``1`` catch ``1.0``)."""
    return any(value is v or (type(value) is type(v) and value == v) for v in absent)


@dataclass(frozen=True, slots=True)
class AbsentPolicy:
    """What counts as absent: ``everywhere``, or per path glob by ``rules`` (see
    :class:`~pytest_structeval.paths.PathRules`)."""

    everywhere: tuple[Any, ...] = ()
    rules: PathRules[tuple[Any, ...]] | None = None

    def at(self, path: str, used: set[int] | None = None) -> tuple[Any, ...]:
        """The absent values at ``path``; the rule that decided goes into ``used``."""
        rules = self.rules
        index = None if rules is None else rules.winner(path)
        if rules is None or index is None:
            return self.everywhere
        if used is not None:
            used.add(index)
        return rules.values[index]

    def unused_notes(self, used: set[int], paths: Callable[[], Iterable[str]]) -> list[str]:
        """A note for each glob that covered no entry (as for ``options``); ``paths``: the
        fields' paths, asked for only when a glob went unused."""
        rules = self.rules
        if rules is None or len(used) == len(rules.patterns):
            return []
        return unused_glob_notes(  # (absent values are the values of object keys)
            _OPTION, rules.patterns, used, rules.covered, paths(), keys_only=True
        )


def parse_absent(option: Any, *, compose_paths: bool = False) -> AbsentPolicy | None:
    """``absent_values`` as a policy: a list of JSON scalars, or ``{glob: list}``; None
    when it is absent or empty. ``OptionsError`` for anything else. ``compose_paths``: see
    :class:`~pytest_structeval.paths.GlobMatcher`."""
    __tracebackhide__ = hide_usage_error
    if option is None:
        return None
    if isinstance(option, Mapping):
        rules = [(p, _values(v, f"{_OPTION}[{p!r}]")) for p, v in option.items()]
        try:
            ranked = PathRules(rules, compose_paths=compose_paths)
        except OptionsError as exc:
            raise OptionsError(f"{_OPTION}: {exc}") from None
        return AbsentPolicy(rules=ranked) if ranked else None
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


_GONE: Final = object()  # an object every entry of which was absent


def _absent_entry(value: Any, absent: Sequence[Any]) -> bool:
    """Whether an object entry holding ``value`` is not there: an absent value, or, where
    absent values apply, an empty object or array (it holds no value either)."""
    if isinstance(value, (dict, list, tuple)):
        return not value and bool(absent)
    return is_absent(value, absent)


def drop_absent(
    value: Any,
    prefix: str,
    policy: AbsentPolicy,
    max_depth: int,
    used: set[int] | None = None,
    ignored: Callable[[str], bool] | None = None,
) -> Any:
    """``value`` (parsed JSON at ``prefix``) without the object entries the policy calls
    absent. An object all of whose entries are absent is itself absent (an address of nulls
    is no address), as is an empty object or array, except ``value`` itself. Containers are
    copied only where something goes; parts deeper than ``max_depth`` are left as they are,
    for the walk to refuse. ``used`` collects the rules that decided an entry. Iterative: no
    answer is too deep for it.

    ``ignored`` (``ignore_paths``): an ignored entry is kept, for the walk to skip, but an
    object holding only ignored and absent entries is absent as a whole, as it would be with
    the ignored keys deleted (an empty object is absent)."""
    if not isinstance(value, (dict, list, tuple)):
        return value
    named = bool(policy.rules) or ignored is not None  # (paths are built only when asked)
    stack = [_Frame(value, prefix, max_depth, named)]
    while True:
        frame = stack[-1]
        step = next(frame.children, None)
        if step is None:
            stack.pop()
            done = frame.result(top=not stack)
            if not stack:
                return done
            stack[-1].take(frame.slot, frame.node, done)
            continue
        slot, child, path = step
        if frame.keyed and _absent_entry(child, policy.at(path, used)):
            frame.changed = True
        elif frame.keyed and ignored is not None and ignored(path):
            frame.out[slot] = child  # (kept, but no entry of its own: see result)
            frame.ignored += 1
        elif frame.depth > 1 and isinstance(child, (dict, list, tuple)):
            stack.append(_Frame(child, path, frame.depth - 1, named, slot))
            stack[-1].empty_absent = ignored is not None and bool(policy.at(path))
        else:
            frame.take(slot, child, child)


class _Frame:
    """One container on the way down: its entries still to look at and what it keeps."""

    __slots__ = (
        "changed",
        "children",
        "depth",
        "empty_absent",
        "ignored",
        "keyed",
        "node",
        "out",
        "slot",
    )

    def __init__(self, node: Any, path: str, depth: int, named: bool, slot: Any = None) -> None:
        self.node = node
        self.depth = depth
        self.slot = slot
        self.changed = False
        self.ignored = 0  # entries kept only for the walk to skip
        self.empty_absent = False  # whether an empty object would be absent here
        self.keyed = isinstance(node, dict)
        self.out: Any = {} if self.keyed else []
        if self.keyed:
            self.children = (
                (key, item, key_path(path, key) if named else "") for key, item in node.items()
            )
        else:
            self.children = (
                (i, item, index_path(path, i) if named else "") for i, item in enumerate(node)
            )

    def take(self, slot: Any, original: Any, kept: Any) -> None:
        if kept is _GONE:
            self.changed = True
            if self.keyed:
                return
            kept = {}  # an array keeps its positions: the element stays, empty
        elif kept is not original:
            self.changed = True
        if self.keyed:
            self.out[slot] = kept
        else:
            self.out.append(kept)

    def result(self, *, top: bool) -> Any:
        if self.empty_absent and self.keyed and len(self.out) == self.ignored > 0 and not top:
            return _GONE  # only ignored keys (and absent ones) left: absent, as {} is
        if not self.changed:
            return self.node
        if self.keyed:
            return _GONE if not self.out and self.node and not top else self.out
        return self.out if isinstance(self.node, list) else tuple(self.out)
