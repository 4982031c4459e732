"""One registry of scorers, comparators and transforms.

Built-ins are installed lazily on first use of :func:`default_registry`; ``conftest.py`` files
and installed plugins add their own through the ``pytest_structeval_register(registry)`` hook,
and library users through ``register_*`` calls.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .errors import OptionsError

__all__ = [
    "Entry",
    "Registry",
    "default_registry",
]

Validator = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class Entry:
    """A registered callable with its optional parameter validator.

    ``validate(params)`` raises ``ValueError`` (or ``SchemaError``) for bad parameters, so
    schemas fail at parse time, not in the middle of a run.
    """

    name: str
    fn: Callable[..., Any]
    validate: Validator | None = None
    builtin: bool = False


class _Table:
    """Name -> Entry, with aliases and overwrite protection."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Entry] = {}
        self._aliases: dict[str, str] = {}

    def add(
        self,
        name: str,
        fn: Callable[..., Any],
        *,
        validate: Validator | None = None,
        aliases: Iterable[str] = (),
        overwrite: bool = False,
        builtin: bool = False,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise OptionsError(f"{self.kind} name must be a non-empty string, got {name!r}")
        if not callable(fn):
            raise TypeError(f"{self.kind} {name!r} must be callable, got {type(fn).__name__}")
        names = [name, *aliases]
        for n in names:
            existing = self._entries.get(self._aliases.get(n, n))
            if existing is not None and existing.name == self._aliases.get(n, n):
                if existing.builtin and not builtin:
                    raise ValueError(f"built-in {self.kind} {n!r} cannot be replaced")
                if not overwrite and not builtin:
                    raise ValueError(
                        f"{self.kind} {n!r} is already registered "
                        "(pass overwrite=True to replace it)"
                    )
        self._entries[name] = Entry(name, fn, validate, builtin)
        for alias in aliases:
            self._aliases[alias] = name

    def canonical(self, name: str) -> str:
        return self._aliases.get(name, name)

    def get(self, name: str) -> Entry:
        entry = self._entries.get(self._aliases.get(name, name))
        if entry is None:
            known = ", ".join(self.names()) or "none"
            raise OptionsError(f"unknown {self.kind} {name!r}; registered: {known}")
        return entry

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._aliases.get(name, name) in self._entries

    def names(self) -> list[str]:
        return sorted({*self._entries, *self._aliases})

    def copy(self) -> _Table:
        new = _Table(self.kind)
        new._entries = dict(self._entries)
        new._aliases = dict(self._aliases)
        return new


class Registry:
    """Scorers (``fn(gold, model, **options) -> ScoreResult``), comparators and transforms."""

    def __init__(self) -> None:
        self.scorers = _Table("scorer")
        self.comparators = _Table("comparator")
        self.transforms = _Table("transform")

    def register_scorer(
        self,
        name: str,
        fn: Callable[..., Any],
        *,
        aliases: Iterable[str] = (),
        overwrite: bool = False,
    ) -> None:
        """Add a scorer; it receives parsed-or-raw gold and model plus keyword options."""
        self.scorers.add(name, fn, aliases=aliases, overwrite=overwrite)

    def register_comparator(
        self,
        name: str,
        fn: Callable[..., Any],
        *,
        overwrite: bool = False,
        validate: Validator | None = None,
    ) -> None:
        """Add a schema comparator ``fn(gold, extracted, params) -> ComparatorResult``.

        A comparator with ``fn.is_batch = True`` is called once per record with all its fields.
        """
        self.comparators.add(
            name, fn, validate=validate or getattr(fn, "validate_params", None), overwrite=overwrite
        )

    def register_transform(
        self,
        name: str,
        fn: Callable[..., Any],
        *,
        overwrite: bool = False,
        validate: Validator | None = None,
    ) -> None:
        """Add a schema transform ``fn(value, params) -> value``."""
        self.transforms.add(
            name, fn, validate=validate or getattr(fn, "validate_params", None), overwrite=overwrite
        )

    def get_scorer(self, name: str) -> Callable[..., Any]:
        return self.scorers.get(name).fn

    def copy(self) -> Registry:
        """An independent registry with the same entries (for isolated tests and runs)."""
        new = Registry.__new__(Registry)
        new.scorers = self.scorers.copy()
        new.comparators = self.comparators.copy()
        new.transforms = self.transforms.copy()
        return new


_default: Registry | None = None
_lock = threading.Lock()


def install_builtins(registry: Registry) -> None:
    """Register the built-in scorers, comparators and transforms into ``registry``."""
    from .modes import install as install_modes
    from .schema.builtins import install as install_schema

    install_modes(registry)
    install_schema(registry)


def default_registry() -> Registry:
    """The process-wide registry, with the built-ins installed on first use."""
    global _default
    if _default is None:
        with _lock:
            if _default is None:
                registry = Registry()
                install_builtins(registry)
                _default = registry
    return _default
