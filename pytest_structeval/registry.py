"""One registry of scorers, comparators and transforms.

Built-ins are installed lazily on first use of :func:`default_registry`, schema mode's only
when a schema scorer, comparator or transform is first looked up; ``conftest.py`` files and
installed plugins add their own through the ``pytest_structeval_register(registry)`` hook, and
library users through ``register_*`` calls.

The frames that raise on a user's mistake (an unknown name, a bad registration) set
``__tracebackhide__``: pytest then shows the user's line and the message, not this module.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import os
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeAlias

from .errors import OptionsError
from .naming import did_you_mean, few
from .results import ScoreResult

__all__ = [
    "DEFAULT_SCORER",
    "Entry",
    "Registry",
    "Scorer",
    "default_registry",
    "process_registry",
    "raised_at",
    "registration_failure",
    "scoped",
    "scoped_elsewhere",
    "takes_registry",
]

Validator = Callable[[dict[str, Any]], None]
Scorer: TypeAlias = Callable[..., ScoreResult]
"""A scorer, ``fn(gold, model, **options) -> ScoreResult``: what ``register_scorer`` takes
and ``get_scorer`` returns (``score`` raises ``TypeError`` for any other return value)."""
DEFAULT_SCORER: Final = "static_json"
"""The scorer of a scenario that names none (AssetOpsBench's ``--scorer-default``)."""

_REVISIONS: Final = itertools.count()  # see _Table.revision


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


@dataclass(frozen=True, slots=True)
class _Deferred:
    """Built-ins not installed yet: the table ``source()`` returns holds them.

    ``names`` are their names and aliases, or ``None`` when they are only known once
    installed (then any use of the table installs them).
    """

    names: frozenset[str] | None
    source: Callable[[], _Table]

    def concerns(self, names: Collection[str]) -> bool:
        """Whether a use of ``names`` (every name, when empty) may see these built-ins."""
        return not names or self.names is None or not self.names.isdisjoint(names)


_SUBSET_HINT: Final = (
    "; a subset match (the model may add keys) is strict mode with ignore_extra=True, or "
    "similarity mode, which counts no extra key unless penalize_extra=True"
)


def _asks_subset(name: object) -> bool:
    """Whether a scorer name asks for what other tools call a subset or partial match."""
    return str(name).casefold() in {"subset", "superset", "partial", "contains", "includes"}


class _Table:
    """Name -> Entry, with aliases, overwrite protection and deferred built-ins."""

    def __init__(self, kind: str) -> None:
        self.kind: str = kind
        self._entries: dict[str, Entry] = {}
        self._aliases: dict[str, str] = {}
        self._deferred: list[_Deferred] = []
        #: The names the deferred built-ins hold (empty: none waits), None when one of them
        #: only knows its names once installed: the cheap test every lookup makes first.
        self._waiting: frozenset[str] | None = frozenset()
        #: Unique to this table's contents: a new value from a process-wide counter whenever
        #: an entry is added (never reused, so it also tells tables apart). Whatever was
        #: derived from a table, such as a parsed schema, stays valid while it is unchanged.
        self.revision: int = next(_REVISIONS)

    def defer(self, names: Iterable[str] | None, source: Callable[[], _Table]) -> None:
        """Install the entries of ``source()`` on the first use of the table that could see
        them: a lookup or registration of one of ``names`` (of any name when ``None``), or a
        listing. Until then the table behaves as if they were there."""
        self._set_deferred(
            [*self._deferred, _Deferred(None if names is None else frozenset(names), source)]
        )
        self.revision = next(_REVISIONS)

    def _set_deferred(self, deferred: list[_Deferred]) -> None:
        # A new list, never changed in place: unlocked readers iterate the old one.
        self._deferred = deferred
        if any(d.names is None for d in deferred):
            self._waiting = None
        else:
            self._waiting = frozenset().union(*(d.names for d in deferred if d.names))

    def _ready(self, *names: str) -> None:
        """Install the deferred built-ins a use of ``names`` (of every name) may see."""
        waiting = self._waiting
        if waiting is not None and (not waiting or (names and waiting.isdisjoint(names))):
            return  # (the common case: nothing deferred concerns these names)
        if any(d.concerns(names) for d in self._deferred):
            with _lock:  # re-checked under the lock: another thread may have installed them
                for deferred in [d for d in self._deferred if d.concerns(names)]:
                    source = deferred.source()
                    self._entries.update(source._entries)
                    self._aliases.update(source._aliases)
                    self._set_deferred([d for d in self._deferred if d is not deferred])

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
        __tracebackhide__ = True
        if not isinstance(name, str) or not name:
            raise OptionsError(f"{self.kind} name must be a non-empty string, got {name!r}")
        if not callable(fn):
            raise TypeError(f"{self.kind} {name!r} must be callable, got {type(fn).__name__}")
        names = [name, *aliases]
        self._ready(*names)
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
        self._aliases.pop(name, None)  # a name that was an alias now names this entry
        for alias in aliases:
            self._aliases[alias] = name
        self.revision = next(_REVISIONS)

    def get(self, name: str) -> Entry:
        __tracebackhide__ = True
        waiting = self._waiting
        if waiting is None or name in waiting:  # (``_ready``'s own test, without its call)
            self._ready(name)
        entry = self._entries.get(self._aliases.get(name, name))
        if entry is None:
            names = self.names()
            hint = _SUBSET_HINT if self.kind == "scorer" and _asks_subset(name) else ""
            raise OptionsError(
                f"unknown {self.kind} {name!r}{did_you_mean(name, names)}; registered: "
                + (", ".join(names) or "none")
                + hint
            )
        return entry

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        self._ready(name)
        return self._aliases.get(name, name) in self._entries

    def names(self) -> list[str]:
        self._ready()
        return sorted({*self._entries, *self._aliases})

    def copy(self) -> _Table:
        """An independent table; built-ins still deferred here stay deferred in the copy."""
        new = _Table(self.kind)
        new._entries = dict(self._entries)
        new._aliases = dict(self._aliases)
        new._set_deferred(list(self._deferred))
        return new


class Registry:
    """Scorers (``fn(gold, model, **options) -> ScoreResult``), comparators and transforms."""

    def __init__(self) -> None:
        self.scorers: _Table = _Table("scorer")
        self.comparators: _Table = _Table("comparator")
        self.transforms: _Table = _Table("transform")

    def register_scorer(
        self,
        name: str,
        fn: Scorer,
        *,
        aliases: Iterable[str] = (),
        overwrite: bool = False,
    ) -> None:
        """Add a scorer; it receives parsed-or-raw gold and model plus keyword options."""
        __tracebackhide__ = True
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

        A batch comparator (``@batch_comparator``, or ``fn.is_batch = True``) is called once
        per record with all its fields.
        """
        __tracebackhide__ = True
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
        __tracebackhide__ = True
        self.transforms.add(
            name, fn, validate=validate or getattr(fn, "validate_params", None), overwrite=overwrite
        )

    def get_scorer(self, name: str) -> Scorer:
        __tracebackhide__ = True
        scorer: Scorer = self.scorers.get(name).fn
        return scorer

    def copy(self) -> Registry:
        """An independent registry with the same entries (for isolated tests and runs)."""
        new = Registry.__new__(Registry)
        new.scorers = self.scorers.copy()
        new.comparators = self.comparators.copy()
        new.transforms = self.transforms.copy()
        return new


_default: Registry | None = None
_schema: Registry | None = None
_lock = threading.RLock()  # re-entrant: installing deferred built-ins imports modules

_SCHEMA_SCORERS: Final = frozenset({"schema"})
"""The scorer names schema mode's built-ins register (known before importing schema mode)."""


def _schema_builtins() -> Registry:
    """Schema mode's built-ins, installed once per process into a registry of their own,
    from which deferred tables copy them (see :func:`install_builtins`)."""
    global _schema
    with _lock:
        if _schema is None:
            from .schema.builtins import install as install_schema

            registry = Registry()
            install_schema(registry)
            _schema = registry
    return _schema


def install_builtins(registry: Registry) -> None:
    """Register the built-in scorers, comparators and transforms into ``registry``.

    Schema mode's are deferred until first use (a lookup or registration of the ``schema``
    scorer, or any use of the comparators or transforms): importing schema mode would cost
    every pytest process, pytest-xdist workers included, even when no run uses it.
    """
    from .modes import install as install_modes

    install_modes(registry)
    registry.scorers.defer(_SCHEMA_SCORERS, lambda: _schema_builtins().scorers)
    registry.comparators.defer(None, lambda: _schema_builtins().comparators)
    registry.transforms.defer(None, lambda: _schema_builtins().transforms)


def registration_failure(exc: Exception, root: str | os.PathLike[str]) -> str:
    """How a failed ``pytest_structeval_register`` hook reads: the registry's refusals (a name
    taken, something not callable: ``TypeError``, ``ValueError``) by their message, any other
    exception (a bug in the hook) with its type; then where (:func:`raised_at`)."""
    plain = isinstance(exc, (TypeError, ValueError))
    told = exc if plain else f"{type(exc).__name__}: {exc}"
    return f"pytest_structeval_register: {told}{raised_at(exc, root)}"


def raised_at(exc: BaseException, root: str | os.PathLike[str]) -> str:
    """`` (conftest.py:2)``: where a hook of the user's raised: the first line of the
    traceback outside pluggy and this package, relative to ``root`` when inside it."""
    import traceback

    import pluggy

    skipped = tuple(os.path.dirname(f) + os.sep for f in (pluggy.__file__, __file__))
    for frame in traceback.extract_tb(exc.__traceback__):
        if not frame.filename.startswith(skipped):
            path, top = Path(frame.filename), Path(root)
            shown = path.relative_to(top) if path.is_relative_to(top) else path
            return f" ({shown}:{frame.lineno})"
    return ""


def takes_registry(scorer: Callable[..., Any]) -> bool:
    """Whether a scorer declares a ``registry`` keyword (an explicit registry is passed on)."""
    try:
        return _declares_registry(scorer)
    except TypeError:  # an unhashable callable (a dataclass instance): not cached
        return _declares_registry.__wrapped__(scorer)


@functools.lru_cache(maxsize=64)
def _declares_registry(scorer: Callable[..., Any]) -> bool:
    try:
        return "registry" in inspect.signature(scorer).parameters
    except (TypeError, ValueError):
        return False


_scopes: list[Callable[[], Registry]] = []
"""The registries :func:`default_registry` gives while a test runs (see :func:`scoped`)."""


@contextlib.contextmanager
def scoped(registry: Callable[[], Registry]) -> Iterator[None]:
    """While inside: :func:`default_registry` is ``registry()``. The plugin sets it for the
    test that runs, so a library call there (``pytest_structeval.score(mode=...)``) sees the
    scorers the conftests of the test's folder register, as its fixtures do; ``registry`` is
    called on the first use only."""
    found: list[Registry] = []

    def first() -> Registry:
        if not found:
            found.append(registry())
        return found[0]

    _scopes.append(first)
    try:
        yield
    finally:
        _scopes.remove(first)


def default_registry() -> Registry:
    """The registry of calls that name none: the process-wide one (:func:`process_registry`)
    or, while a pytest test runs, the one of its folder (see :func:`scoped`)."""
    if _scopes:
        return _scopes[-1]()
    return process_registry()


def scoped_elsewhere(
    name: str,
    place: Path,
    scopes: Iterable[tuple[Path, Registry]],
    shown: Callable[[Path], str],
) -> str:
    """`` ('lenient' is registered by evals/team_a/conftest.py for its own folder only; ...)``:
    where the ``conftest.py`` files below the project's root that register the
    scorer ``name`` for their own folder stand (``scopes``: each such folder with its
    registry), when none of them holds ``place`` (a scenario or test path); ``""`` when none
    registers it. An unknown scorer said only ``registered: ...``, where a run that was told
    the name (``--structeval-scorer``, ``--scorer-default``) took it for known."""
    found = [f for f, registry in scopes if name in registry.scorers]
    if not found or any(f == place or f in place.parents for f in found):
        return ""
    outer = sorted(f for f in found if not any(o in f.parents for o in found))
    files = few([shown(folder / "conftest.py") for folder in outer], 3)
    own = "its own folder" if len(outer) == 1 else "their own folders"
    return (
        f" ({name!r} is registered by {files} for {own} only; a plugin or the rootdir "
        "conftest.py registers for every scenario)"
    )


def process_registry() -> Registry:
    """The process-wide registry, with the built-ins installed on first use."""
    global _default
    if _default is None:
        with _lock:
            if _default is None:
                registry = Registry()
                install_builtins(registry)
                _default = registry
    return _default
