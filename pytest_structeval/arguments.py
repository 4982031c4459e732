"""What the run's arguments ask of the scenarios, before and after pytest collects.

The collection arguments once the scenario paths are added (:func:`scenario_args`), whether
pytest may collect scenarios at a path (:func:`collected`), the ``scenario_*`` folder a path
lies in (:func:`in_scenario_folder`), the ``folder::name`` selections pytest itself would
refuse (:func:`split_selections`), and the hints a run that found no scenario prints
(:func:`group_hints`). Light at import: the engine only when a ``scenario_*`` folder is met.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .options import Settings

__all__ = [
    "Selections",
    "args_given",
    "at_rootdir",
    "collected",
    "group_hints",
    "in_scenario_folder",
    "scenario_args",
    "scenario_folders_in",
    "split_selections",
]


def scenario_args(
    settings: Settings,
    args: list[str],
    source: pytest.Config.ArgsSource,
    *,
    at_rootdir: bool = True,
) -> tuple[list[str], bool]:
    """pytest's collection arguments once the scenario paths are taken into account, and
    whether the run covers a scenario path (then a run that scores nothing fails).

    ``--structeval-scenarios`` alone runs only the scenarios (it replaces ``testpaths`` or the
    invocation directory); next to explicit paths it adds the scenario paths that do not
    overlap them. The ``structeval_scenarios`` ini key adds its paths to ``testpaths`` / the
    invocation directory (like another test path) and leaves explicit arguments alone; those
    ask for scenarios when a scenario path lies at or under one (``pytest .``) or one is a
    scenario folder or file inside a scenario path (``pytest evals/scenario_3``), not when they
    are elsewhere (``pytest tests/unit``) or only pass through (``pytest other/test_x.py``
    under a scenario root ``.``). pytest reads ``testpaths`` only when run from rootdir
    (``at_rootdir``): elsewhere a plain ``pytest`` collects the current folder, as
    ``pytest .`` does, and so asks for what ``pytest .`` asks for.
    """
    wanted = [str(p) for p in settings.scenarios]
    if not wanted:
        return args, False
    explicit = source == pytest.Config.ArgsSource.ARGS
    if not explicit and settings.scenarios_from_cli:
        return wanted, True
    if source == pytest.Config.ArgsSource.INVOCATION_DIR and not at_rootdir:
        explicit = True  # (args: the current folder)
    present = [Path(os.path.abspath(a.split("::")[0])) for a in args]
    if explicit and not settings.scenarios_from_cli:

        def asked(path: Path) -> bool:
            return any(
                path == p or p in path.parents or (path in p.parents and _names_scenario(p))
                for p in present
            )

        return args, any(map(asked, settings.scenarios))

    def overlaps(path: Path) -> bool:
        return any(path == p or path in p.parents or p in path.parents for p in present)

    added = [w for w, p in zip(wanted, settings.scenarios, strict=True) if not overlaps(p)]
    return [*args, *added], True


def args_given(config: pytest.Config) -> bool:
    """Whether pytest's arguments say what the user asked for: given (``pytest evals``), or,
    run with none outside rootdir, the current folder, as ``pytest .`` (pytest reads
    ``testpaths`` only when run from rootdir)."""
    source = config.args_source
    if source == pytest.Config.ArgsSource.ARGS:
        return True
    return source == pytest.Config.ArgsSource.INVOCATION_DIR and not at_rootdir(config)


def at_rootdir(config: pytest.Config) -> bool:
    """Whether pytest runs in its rootdir, also when one of them is reached through a link
    (pytest names rootdir by the link's path then)."""
    here, root = config.invocation_params.dir, config.rootpath
    try:
        return here == root or os.path.samefile(here, root)
    except OSError:
        return False


def _names_scenario(path: Path) -> bool:
    """Whether ``path`` is named like a scenario folder (``scenario_<id>``) or file."""
    from .naming import SCENARIO_FILE_SUFFIXES, scenario_folder_id

    suffix = path.suffix.lower()
    return scenario_folder_id(path.name) is not None or suffix in SCENARIO_FILE_SUFFIXES


def collected(path: Path, session: pytest.Session) -> bool:
    """Whether pytest may collect scenarios at ``path`` for its arguments: it is one or lies in
    one, or holds one that is a folder or a scenario file. Otherwise pytest only meets it on
    the way to others (``pytest other`` walks the rootdir's folders, ``pytest t/test_x.py``
    walks ``t``), and reading the scenarios would be wasted."""
    if any(session.isinitpath(folder) for folder in (path, *path.parents)):
        return True
    if not session.isinitpath(path, with_parents=True):
        return False
    from .naming import SCENARIO_FILE_SUFFIXES

    here = session.config.invocation_params.dir
    for arg in session.config.args:
        target = Path(os.path.abspath(here / arg.split("::")[0]))
        if path in target.parents and (
            target.is_dir() or target.suffix.lower() in SCENARIO_FILE_SUFFIXES
        ):
            return True
    return False


def in_scenario_folder(path: Path, config: pytest.Config) -> Path | None:
    """The outermost ``scenario_*`` folder that is ``path`` or holds it and is a scenario tree.

    The name alone proves nothing (``tests/scenario_login/`` of test modules, a project named
    ``scenario_planner``): the folder counts when it, a folder between it and ``path``, or one
    at most two levels below ``path`` looks like a scenario (:func:`looks_like_scenario`). The
    folder holding pytest's config file, and those above it, are the project, never scenarios.
    """
    from .naming import scenario_folder_id

    project = _project_folders(config)
    chain = (path, *path.parents)
    below: bool | None = None  # looks_like_scenario(path, depth=2), computed once if needed
    found = None
    for index, candidate in enumerate(chain):
        if scenario_folder_id(candidate.name) is None or candidate in project:
            continue
        if any(_looks_like_scenario(folder) for folder in chain[: index + 1]):
            found = candidate
            continue
        if below is None:
            below = _looks_like_scenario(path, depth=2)
        if below:
            found = candidate
    return found


def _looks_like_scenario(path: str | Path, *, depth: int = 0) -> bool:
    """:func:`~pytest_structeval.scenarios.looks_like_scenario`, imported only when a
    ``scenario_*`` folder is met: a project that never has one never loads the engine."""
    from .scenarios import looks_like_scenario

    return looks_like_scenario(path, depth=depth)


def scenario_folders_in(path: Path) -> list[Path]:
    """The ``scenario_*`` folders directly in ``path`` that look like scenarios (see
    :func:`in_scenario_folder`); ``OSError`` when ``path`` cannot be listed."""
    from .naming import scenario_folder_id

    with os.scandir(path) as entries:
        return [
            Path(e.path)
            for e in entries
            if scenario_folder_id(e.name) is not None
            and e.is_dir()
            and _looks_like_scenario(e.path, depth=2)
        ]


def _groups(path: Path, config: pytest.Config) -> list[str]:
    """The names of the folders in ``path`` that hold scenario folders, sorted; hidden ones,
    those matching pytest's ``norecursedirs`` and those ``--ignore``/``--ignore-glob`` leave
    out are passed by (a hint must not suggest running what the user excluded)."""
    skip = config.getini("norecursedirs")
    here = config.invocation_params.dir
    ignored = {os.path.abspath(here / p) for p in config.getoption("ignore") or ()}
    globs = [os.path.abspath(here / g) for g in config.getoption("ignore_glob") or ()]
    try:
        with os.scandir(path) as entries:
            folders = [
                e
                for e in entries
                if e.is_dir()
                and not e.name.startswith(".")
                and not any(fnmatch.fnmatch(e.name, pattern) for pattern in skip)
                and os.path.abspath(e.path) not in ignored
                and not any(fnmatch.fnmatch(os.path.abspath(e.path), g) for g in globs)
            ]
    except OSError:
        return []
    groups = []
    for folder in folders:
        try:
            if scenario_folders_in(Path(folder.path)):
                groups.append(folder.name)
        except OSError:
            continue
    return sorted(groups)


def group_hints(config: pytest.Config, roots: Sequence[Path]) -> list[str]:
    """For a run that collected nothing: each folder argument that is a tree of groups of
    scenario folders (``evals/group_a/scenario_1``), which arguments never infer (a
    ``tests/`` folder holding sample scenarios as test data must stay a test folder), and
    how to run it."""
    if not args_given(config):
        return []
    from .naming import few

    here, project = config.invocation_params.dir, _project_folders(config)
    hints = []
    for arg in dict.fromkeys(config.args):
        path = Path(os.path.abspath(here / arg))
        if path in project or any(r == path or r in path.parents for r in roots):
            continue
        groups = _groups(path, config) if path.is_dir() else []
        if groups:
            hints.append(
                f"structeval: {arg} holds no scenario folder, but its folders do "
                f"({few([g + '/' for g in groups])}); to run them all: "
                f"pytest --structeval-scenarios {shlex.quote(arg)}"
            )
    return hints


def _project_folders(config: pytest.Config) -> set[Path]:
    """The folder holding pytest's config file and those above it (none without one)."""
    if config.inipath is None:
        return set()
    return {config.inipath.parent, *config.inipath.parent.parents}


@dataclass(frozen=True)
class Selections:
    """What ``folder::name`` arguments select (see :func:`split_selections`).

    ``names``: per selected folder (an absolute path string), the item names asked for.
    ``others``: every other argument, as (absolute path, node-id part after ``::``). An item
    in or under a selected folder is kept only when a selection names it or another argument
    covers it (``sc/scenario_3::3[t0]`` leaves out ``sc/scenario_3/turns/01`` and the folder's
    test modules, unless they were asked for too); items elsewhere are pytest's business.
    """

    names: dict[str, list[str]] = field(default_factory=dict)
    others: tuple[tuple[str, str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.names)

    def missing(self, items: Sequence[pytest.Item], here: Path) -> list[str]:
        """The ``folder::name`` arguments that name no collected item (a typo): pytest says
        "not found" for its own node ids, and so must these (shown relative to ``here``)."""
        found = {(str(item.path), item.name) for item in items}
        found |= {(path, name.split("[")[0]) for path, name in found}
        return [
            f"{os.path.relpath(folder, here)}::{name}"
            for folder, names in self.names.items()
            for name in names
            if (folder, name) not in found
        ]

    def keeps(self, item: pytest.Item) -> bool:
        path = str(item.path)
        if not any(path == f or path.startswith(f + os.sep) for f in self.names):
            return True
        names = self.names.get(path, ())
        if any(item.name == n or item.name.split("[")[0] == n for n in names):
            return True
        return any(_covers(arg, rest, path, item.nodeid) for arg, rest in self.others)


def _covers(arg: str, rest: str, path: str, nodeid: str) -> bool:
    """Whether the argument ``arg[::rest]`` asks for the item at ``path`` with ``nodeid``."""
    if path != arg:
        return not rest and path.startswith(arg.rstrip(os.sep) + os.sep)
    tail = nodeid.partition("::")[2]
    return not rest or tail == rest or tail.startswith((f"{rest}::", f"{rest}["))


def split_selections(
    args: list[str], here: Path, config: pytest.Config
) -> tuple[list[str], Selections]:
    """Turn ``folder::name`` arguments into ``folder`` plus a selection applied after collection.

    Scenario node ids have a folder as their path part (``scenarios/scenario_11::11[run-7]``),
    which pytest refuses as a command-line argument; this keeps such ids runnable, as copied
    from a failure summary or passed by an IDE. Returns the new arguments and the selections.
    """
    out: list[str] = []
    names: dict[str, list[str]] = {}
    others: list[tuple[str, str]] = []
    for arg in args:
        head, sep, tail = arg.partition("::")
        path = Path(os.path.abspath(here / head))
        if not (sep and path.is_dir() and in_scenario_folder(path, config)):
            out.append(arg)
            others.append((str(path), tail))
            continue
        if str(path) not in names:
            out.append(head)
        names.setdefault(str(path), []).append(tail)
    return out, Selections(names, tuple(others))
