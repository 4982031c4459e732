"""pytest collector nodes for scenario folders and files: one test item per (scenario, trajectory).

Each joined run is an item whose node id names its scenario folder or file, e.g.
``examples/scenarios/scenario_11::11[run-7]`` or ``evals/scenarios.jsonl::11[run-7]``.

A directory holding scenario folders becomes a :class:`ScenarioParent`, which yields the items of
those folders itself: a scenario folder is data, not a test package, and a collector node per
folder (thousands of them) would make pytest look for conftests in, report, set up and tear down
each one, most of a scenario run's cost. A scenario folder that a command-line argument points
into, one reached another way (inside a Python package), and one holding Python files (a
conftest, test modules, which pytest must see) is a :class:`ScenarioDir` node. A scenario file
(JSON/JSONL/YAML list of scenarios) is a :class:`ScenarioFile`.

The join is computed once per process by :class:`ScenarioIndex` (one pass of the engine's
:func:`plan`), in a deterministic order, so every pytest-xdist worker collects exactly the same
items. Items only score at ``runtest``; collection reads each file once.
"""

from __future__ import annotations

import errno
import functools
import inspect
import itertools
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pluggy
import pytest
from _pytest.outcomes import XFailed  # (pytest.xfail.Exception, which a type cannot name)

from .naming import (
    ItemNames,
    cut_message,
    name_text,
    node_text,
    printable,
    score_text,
    warning_path,
)

if TYPE_CHECKING:
    from _pytest._code.code import ExceptionInfo, TerminalRepr, Traceback, TracebackEntry

    from .report import RunRecord
    from .scenarios import JoinResult, Run, Scenario, Trajectory
    from .session import StructevalSession

__all__ = [
    "PassedBy",
    "ScenarioDir",
    "ScenarioErrorItem",
    "ScenarioFailure",
    "ScenarioFile",
    "ScenarioIndex",
    "ScenarioItem",
    "ScenarioParent",
    "scenario_file_node",
]

_LINE_SUFFIX = re.compile(r":[0-9]+$")
# Where in a scenario file an error is: "file:<line>" (JSONL), "file[<index>]" or "file".
_ENTRY = re.compile(r"(.*?)(?::([0-9]+)|\[([0-9]+)\])?", re.DOTALL)
_MARK = pytest.mark.structeval  # built once: items are created by the thousand


class _Folder:
    """What one scenario folder collects: its runs and the load errors located in it."""

    __slots__ = ("errors", "runs")

    def __init__(self) -> None:
        self.runs: list[Run] = []
        # (name, label in brackets, the load error: its aggregate entry, source and error)
        self.errors: list[tuple[str, str, dict[str, Any]]] = []


class ScenarioIndex:
    """The join of one process's scenario roots with its trajectories, by folder or file.

    ``root`` is the rootdir: the engine's path strings are relative to it. Scenario folders
    and files are keyed by absolute path, as strings (``os.path.normcase``d like the paths
    pytest passes to ``pytest_collect_directory``/``pytest_collect_file``), so building the
    index creates no ``Path`` objects.
    """

    def __init__(self, result: JoinResult, root: Path) -> None:
        self.result = result
        self.root = root
        self._base = os.fspath(root)
        self._folders: dict[str, _Folder] = {}
        self._nested: dict[str, set[str]] = {}
        self._scenario_dirs: set[str] = set()  # every scenario folder, with runs or not
        self._leaves: set[str] = set()  # those with no scenario folder nested in them
        self._holders: set[str] = set()  # directories holding leaves
        self._files = {self._key(path) for path in result.scenario_files}
        # trajectory file a scenario owns -> (its folder or file, its id; None for a file's)
        self._listed: dict[str, tuple[str, str | None]] = {}
        scenarios: dict[str, Scenario] = {}
        current: Scenario | None = None
        folder = _Folder()  # replaced at the first run
        for run in result.runs:  # grouped by scenario: one key per scenario, not per run
            if run.scenario is not current:
                current = run.scenario
                key = self._key(current.path)
                scenarios.setdefault(key, current)
                folder = self._folder(key)
                self._list(current, key)
            folder.runs.append(run)
        for scenario in (*result.unmatched_scenarios, *result.unread_scenarios):
            key = self._key(scenario.path)
            scenarios.setdefault(key, scenario)
            self._list(scenario, key)
        self._loose: set[str] = set()  # sources of load errors no item stands for
        for entry in result.errors:
            source = str(entry.get("source", ""))
            lost = entry.get("scenario_id")  # a scenario that lost a duplicate-id contest
            lost = lost if isinstance(lost, str) else None
            if not self._place_error(source, dict(entry), scenarios, lost):
                self._loose.add(source)
        for key in self._files.intersection(self._folders):
            self._folders[key].errors.sort(key=_position)
        for key in self._folders:
            self._link_parents(key, scenarios)
        self._scenario_dirs = {k for k, s in scenarios.items() if s.entry is None}
        self._python = {k for k, s in scenarios.items() if s.holds_python}
        self._leaves = self._scenario_dirs.difference(self._nested)
        self._holders = {os.path.dirname(key) for key in self._leaves}

    @property
    def runs(self) -> int:
        return len(self.result.runs)

    @property
    def empty(self) -> bool:
        """Nothing found: no scenario, trajectory or error (the roots hold no scenario)."""
        return self.result.empty

    def summary(self) -> dict[str, Any]:
        """Plain counts for the controller: did this process find scenarios, and did they join?"""
        result = self.result
        scenarios = {run.scenario.path for run in result.runs}
        return {
            "scenarios": len(scenarios)
            + len(result.unmatched_scenarios)
            + len(result.unread_scenarios),
            "unreadable": sum(s.error is not None for s in result.unmatched_scenarios),
            "unmatched": len(result.unmatched_trajectories),
            "runs": len(result.runs),
        }

    def loose_errors(self, errors: Sequence[Mapping[str, Any]]) -> int:
        """How many of ``errors`` (load errors of the join notes) no item stands for: a
        broken file outside every scenario, which fails a run that no gate judges."""
        return sum(str(e.get("source", "")) in self._loose for e in errors)

    def owner(self, source: str) -> str | None:
        """The scenario folder or file (its key) that lists the trajectory file of the
        engine path ``source`` (``file``, ``file:line``, ``file[index]``) under
        ``trajectories``, wherever that file lies; None for a file no scenario lists."""
        match = _ENTRY.fullmatch(source)
        listed = None if match is None else self._listed.get(self._key(match.group(1)))
        return None if listed is None else listed[0]

    def folder(self, path: Path) -> _Folder | None:
        """The runs and errors of the scenario folder or file at ``path``, if it has any."""
        return self._folders.get(os.path.normcase(path))

    def release_folders(self) -> None:
        """Forget the runs and errors by folder once pytest has collected them (its items
        hold their runs): thousands of folder entries kept to the end would only make every
        garbage collection of the run, and the interpreter's at exit, walk them."""
        self._folders = {}

    def is_scenario_folder(self, path: Path) -> bool:
        """Whether ``path`` is a scenario folder (with runs or not)."""
        return os.path.normcase(path) in self._scenario_dirs

    def holds_scenario_folders(self, path: Path) -> bool:
        """Whether ``path`` directly contains a scenario folder with none nested in it."""
        return os.path.normcase(path) in self._holders

    def is_leaf_folder(self, path: Path) -> bool:
        """Whether ``path`` is a scenario folder with no scenario folder nested in it."""
        return os.path.normcase(path) in self._leaves

    def may_hold_python(self, path: Path) -> bool:
        """Whether the folder ``path`` may hold Python files (a ``conftest.py``, test modules),
        which pytest must see as it sees any folder's: ``False`` only for a scenario folder
        whose listing showed none."""
        key = os.path.normcase(path)
        return key in self._python or key not in self._scenario_dirs

    def is_scenario_file(self, path: Path) -> bool:
        """Whether the engine read ``path`` as a scenario file (even one without runs)."""
        return os.path.normcase(path) in self._files

    def nested(self, path: Path) -> list[Path]:
        """Child folders of ``path`` that lead to other collected scenario folders."""
        return [Path(p) for p in sorted(self._nested.get(os.path.normcase(path), ()))]

    def _key(self, path: str) -> str:
        """The folder key of an engine path string (relative to rootdir, or absolute)."""
        return os.path.normcase(os.path.normpath(os.path.join(self._base, path)))

    def _folder(self, key: str) -> _Folder:
        folder = self._folders.get(key)
        if folder is None:
            folder = self._folders[key] = _Folder()
        return folder

    def _list(self, scenario: Scenario, key: str) -> None:
        owner = (key, None if scenario.entry is not None else scenario.id)
        for source in scenario.trajectory_files:
            self._listed.setdefault(self._key(source), owner)

    def _place_error(
        self,
        source: str,
        entry: dict[str, Any],
        scenarios: dict[str, Scenario],
        lost: str | None = None,
    ) -> bool:
        """A load error inside a scenario folder or file, or in a trajectory file a scenario
        owns (in its folder, or listed under ``trajectories``, wherever it lies), becomes a
        failing item of that scenario, as does a folder that lost a duplicate-id contest
        (``lost``: its id), at any depth (True); others are no item (False: see
        :meth:`loose_errors`). ``entry``: the error as the aggregate lists it."""
        match = _ENTRY.fullmatch(source)
        if match is not None and (self._files or self._listed):
            key = self._key(match.group(1))
            if key in self._files:  # a line, entry or the whole of a scenario file
                line, index = match.group(2), match.group(3)
                label = f"line-{line}" if line else f"entry-{index}" if index else "file"
                self._folder(key).errors.append(("error", label, entry))
                return True
            listed = self._listed.get(key)
            if listed is not None:
                owner, sid = listed
                name = Path(source).name
                error = ("error", name, entry) if sid is None else (sid, f"error:{name}", entry)
                self._folder(owner).errors.append(error)
                return True
        full = os.path.normpath(os.path.join(self._base, source))
        location = os.path.normcase(full)
        if location in scenarios:
            self._folder(location).errors.append((scenarios[location].id, "error:scenario", entry))
            return True
        if lost is not None:
            self._folder(location).errors.append((lost, "error:scenario", entry))
            return True
        label = Path(source).name
        base = os.path.normcase(self._base)
        for parent in _parents(self._key(_LINE_SUFFIX.sub("", source))):
            if parent in scenarios:
                self._folder(parent).errors.append((scenarios[parent].id, f"error:{label}", entry))
                return True
            if parent == base:
                break
        return False

    def _link_parents(self, key: str, scenarios: dict[str, Scenario]) -> None:
        """Remember the path from the enclosing scenario folder down to a nested one, so the
        enclosing :class:`ScenarioDir` can walk to it without listing unrelated folders."""
        base = os.path.normcase(self._base)
        child = key
        for parent in _parents(key):
            linked = parent in self._nested  # then its own way up is linked already
            self._nested.setdefault(parent, set()).add(child)
            if linked or parent in scenarios or parent == base:
                return
            child = parent


class PassedBy:
    """Which of the engine's paths pytest's collection passes by, so the join notes (load
    errors, unmatched and duplicate entries) leave out what ``--ignore``, ``--ignore-glob``,
    a conftest's ``collect_ignore``, a virtualenv or another plugin's ``pytest_ignore_collect``
    took out of the run: a folder the user told pytest to skip is not reported as broken.

    Discovery itself does not ask pytest (one more hook call per folder, and conftests below a
    root are only loaded as pytest walks down): the few paths the notes name are checked at
    session end, the way pytest's walk would have met them, from the scenario root down.
    Paths outside every scenario root (a separate trajectories folder) are never passed by.

    ``beside``: when arguments picked folders out of a scenario tree (``pytest
    evals/scenario_3``, ``pytest evals/group_a``), only those were read, and a trajectory from
    outside them that joins none but names a scenario ``beside()`` finds around them belongs
    to a scenario left out: it is noted as not selected rather than unmatched (``-k`` on the
    whole tree reports it as neither). Asked only for such a trajectory.
    """

    def __init__(
        self,
        session: pytest.Session,
        roots: Sequence[Path],
        index: ScenarioIndex,
        *,
        beside: Callable[[], set[str]] | None = None,
    ) -> None:
        self._session = session
        self._index = index
        self._roots = [os.path.normcase(root) for root in roots]  # as the index's keys
        self._beside = beside
        self._ignored: dict[str, bool] = {}

    def _place(self, shown: str) -> tuple[str, str | None]:
        """The absolute path of a note's ``shown`` path (``file:line`` and ``file[index]``
        too), and the scenario root it lies under, if any."""
        match = _ENTRY.fullmatch(shown)
        assert match is not None  # the pattern matches any text
        full = os.path.normpath(os.path.join(self._index.root, match.group(1)))
        key = os.path.normcase(full)
        root = next((r for r in self._roots if key.startswith(os.path.join(r, ""))), None)
        return full, root

    def __call__(self, shown: str) -> bool:
        """Whether the path ``shown`` in a note lies where pytest's collection never went."""
        full, root = self._place(shown)
        return root is not None and self._passed_by(full, root)

    def _passed_by(self, full: str, root: str) -> bool:
        """:meth:`__call__` for a placed path: pytest's verdicts from ``root`` down."""
        chain = [full] if os.path.isdir(full) or self._index.is_scenario_file(Path(full)) else []
        chain.extend(itertools.takewhile(lambda p: os.path.normcase(p) != root, _parents(full)))
        return any(self._ignores(path) for path in reversed(chain))

    def _ignores(self, path: str) -> bool:
        """pytest's verdict on one folder (or scenario file), asked as its directory walk asks."""
        ignored = self._ignored.get(path)
        if ignored is None:
            where, session = Path(path), self._session
            hook = session.gethookproxy(where.parent).pytest_ignore_collect
            ignored = not session.isinitpath(where, with_parents=True) and bool(
                hook(collection_path=where, config=session.config)
            )
            self._ignored[path] = ignored
        return ignored

    def _left_out(self, trajectory: Trajectory) -> bool:
        """Whether an unmatched trajectory from outside the roots belongs to a scenario the
        run left out (see the class docstring)."""
        if self._beside is None:
            return False
        from .scenarios import join_keys

        return not self._beside().isdisjoint(join_keys(trajectory))

    def notes(self, result: JoinResult) -> dict[str, Any]:
        """``result.notes()`` without the entries at paths passed by; a duplicate stays
        while two of its sources remain (and, for a run id, its scenario is not passed by)."""
        notes = result.notes()
        unmatched: list[dict[str, Any]] = []
        unselected: list[dict[str, Any]] = []
        pairs = zip(notes["unmatched_trajectories"], result.unmatched_trajectories, strict=True)
        for entry, trajectory in pairs:
            full, root = self._place(entry["source"])
            if root is None:  # outside the roots: never passed by, maybe left out
                (unselected if self._left_out(trajectory) else unmatched).append(entry)
            elif not self._passed_by(full, root):
                unmatched.append(entry)
        duplicates = []
        for entry in notes["duplicates"]:
            scenario_path = entry.get("scenario_path")  # a run id repeated in its scenario
            if scenario_path is not None and self(str(scenario_path)):
                continue
            sources = [s for s in entry["sources"] if not self(s)]
            if len(sources) > 1:
                duplicates.append({**entry, "sources": sources})
        return {
            "unmatched_trajectories": unmatched,
            "unselected_trajectories": unselected,
            "unmatched_scenarios": [s for s in notes["unmatched_scenarios"] if not self(s["path"])],
            "duplicates": duplicates,
            "errors": [e for e in notes["errors"] if not self._error_passed_by(e)],
            "repeated_keys": [e for e in notes["repeated_keys"] if not self._error_passed_by(e)],
        }

    def _error_passed_by(self, entry: Mapping[str, Any]) -> bool:
        """Whether a load error lies where pytest never went: in its own path, or in the
        scenario that lists its trajectory file (an ``--ignore``d scenario's file outside
        the tree is left out with it)."""
        source = str(entry.get("source", ""))
        owner = self._index.owner(source)
        return self(source) or (owner is not None and self(owner))


def _position(error: tuple[str, str, dict[str, Any]]) -> tuple[int, int]:
    """Error items of a scenario file in file order: the whole file, then its lines or
    entries, then errors of the trajectory files it lists (in the order they came)."""
    kind, _, number = error[1].partition("-")
    if kind == "file":
        return (0, 0)
    if kind in ("line", "entry") and number.isdigit():
        return (1, int(number))
    return (2, 0)


#: Entries pytest's directory walk passes by when their type cannot be read (a dangling or
#: looping link, an entry removed meanwhile); any other error fails the directory's collection.
_SKIPPED_ERRNOS: Final = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def _entries(path: Path) -> list[os.DirEntry[str]]:
    """A directory's entries sorted by name, as pytest's directory walk lists them."""
    try:
        scan = os.scandir(path)
    except FileNotFoundError:
        return []
    entries = []
    with scan:
        for entry in scan:
            try:
                entry.is_file()
            except OSError as exc:
                if exc.errno in _SKIPPED_ERRNOS:
                    continue
                raise
            entries.append(entry)
    entries.sort(key=lambda entry: entry.name)
    return entries


def _parents(path: str) -> Iterator[str]:
    """``os.path.dirname`` repeatedly, up to the file system root (like ``Path.parents``)."""
    parent = os.path.dirname(path)
    while parent != path:
        yield parent
        path, parent = parent, os.path.dirname(parent)


class ScenarioFailure(Exception):
    """A scenario run did not pass; the message is the complete failure text."""


class GatesDecide(XFailed):
    """A scenario run that scored and did not pass under ``--structeval-gates-decide``: an
    xfail, which the gates judge; the message is the run's headline."""


def _items(
    parent: pytest.Collector,
    index: ScenarioIndex,
    path: Path,
    prefix: str,
    keywords: Sequence[str] = (),
) -> Iterator[pytest.Item]:
    """The run items and load-error items of the scenario folder or file at ``path``, in
    ``parent``, with node ids ``<prefix>::<name>``; ``keywords`` (folder names the node chain
    does not show) are added to each, for ``-k``."""
    folder = index.folder(path)
    if folder is None:
        return
    taken = ItemNames()
    names = taken.give_all([(run.scenario.id, run.label) for run in folder.runs])
    # Node ids are passed as strings so pytest parses ``id[label]`` the way it parses ids it
    # stored (``--lf``, ``--deselect``), not as one opaque name.
    for run, (name, label) in zip(folder.runs, names, strict=True):
        item = ScenarioItem.from_parent(
            parent, name=name, nodeid=f"{prefix}::{name}", path=path, run=run, label=label
        )
        item.extra_keyword_matches.update(keywords)
        yield item
    for sid, label, entry in folder.errors:
        name, _ = taken.give(sid, label)
        error = ScenarioErrorItem.from_parent(
            parent, name=name, nodeid=f"{prefix}::{name}", path=path, entry=entry
        )
        error.extra_keyword_matches.update(keywords)
        yield error


def _index(config: pytest.Config) -> ScenarioIndex:
    from .session import structeval_state

    index = structeval_state(config).index
    assert index is not None  # created by the hook that built the node
    return index


class ScenarioDir(pytest.Directory):
    """A scenario folder as a node: its items, its test modules, then collectors for the
    folders that lead to scenario folders nested in it. Its other files and folders are data."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        index = _index(self.config)
        yield from _items(self, index, self.path, self.nodeid)
        if index.may_hold_python(self.path):
            yield from self._modules()
        ihook = self.ihook
        for path in index.nested(self.path):
            if ihook.pytest_ignore_collect(collection_path=path, config=self.config):
                continue
            node = ihook.pytest_collect_directory(path=path, parent=self)
            if node is not None:
                yield node

    def _modules(self) -> Iterator[pytest.Collector]:
        """The collectors pytest makes of the folder's Python files, as its ``Dir`` would."""
        for entry in _entries(self.path):
            if entry.name.endswith(".py") and entry.is_file():
                yield from _file_collectors(self, Path(entry.path))


def _file_collectors(parent: pytest.Directory, path: Path) -> Iterator[pytest.Collector]:
    """What pytest's ``Dir`` makes of the file ``path`` in ``parent``: nothing when it is
    ignored (and not an argument), else the collectors ``pytest_collect_file`` gives."""
    ihook = parent.ihook
    if not parent.session.isinitpath(path) and ihook.pytest_ignore_collect(
        collection_path=path, config=parent.config
    ):
        return
    yield from ihook.pytest_collect_file(file_path=path, parent=parent)


class ScenarioParent(pytest.Directory):
    """A directory holding scenario folders: their runs are items of this node (see the
    module docstring); its other entries are collected as pytest's ``Dir`` collects them.

    Left to pytest's walk, which makes them :class:`ScenarioDir` nodes: a scenario folder
    holding nested ones or Python files (pytest then loads a ``conftest.py`` on the way down,
    for its hooks and ``collect_ignore``, and collects test modules), and one a command-line
    argument points into (pytest matches such an argument level by level). The engine's listing
    of each folder tells which hold Python files, so this costs no file system call; pytest's
    ignore verdicts on the folders are taken for the whole listing at once (:mod:`.ignore`).
    """

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        from .ignore import IgnoreRules

        index = _index(self.config)
        session, ihook = self.session, self.ihook
        base = "" if self.nodeid in ("", ".") else f"{self.nodeid}/"  # "." is the rootdir
        entries = [(entry, Path(entry.path)) for entry in _entries(self.path)]
        # pytest asks its ignore hook about every folder but an argument (or one leading to
        # it); about all of them at once here, with the verdicts it would give one by one.
        judged = {
            path: entry.is_symlink()
            for entry, path in entries
            if entry.is_dir() and not session.isinitpath(path, with_parents=True)
        }
        ignored = IgnoreRules(session, self.path).ignored(
            list(judged), links={path for path, link in judged.items() if link}
        )
        for entry, path in entries:
            if entry.is_dir():
                if path in ignored:
                    continue
                argument = path not in judged
                if not argument and index.is_leaf_folder(path) and not index.may_hold_python(path):
                    yield from _items(self, index, path, base + entry.name, (entry.name,))
                    continue
                node = ihook.pytest_collect_directory(path=path, parent=self)
                if node is not None:
                    yield node
            elif entry.is_file():
                yield from _file_collectors(self, path)


class ScenarioFile(pytest.File):
    """A scenario file: one item per joined run of its scenarios, one failing item per broken
    line or entry (``error[line-3]``, ``error[entry-2]``, ``error[file]``)."""

    def collect(self) -> Iterator[pytest.Item]:
        return _items(self, _index(self.config), self.path, self.nodeid)


def scenario_file_node(
    state: StructevalSession, file_path: Path, parent: pytest.Collector
) -> ScenarioFile | None:
    """A :class:`ScenarioFile` when the engine read ``file_path`` as a scenario file.

    Only files under a scenario root qualify (given with ``--structeval-scenarios`` or the ini
    key, or found in a folder pytest treats as one): a JSON file passed as an ordinary pytest
    path is never read as scenarios. The index is built only for a file under a root.
    """
    from .arguments import collected

    index = state.index
    if index is None:
        if not any(file_path == r or r in file_path.parents for r in state.roots()):
            return None
        if not collected(file_path, parent.session):
            return None
        index = state.build_index()
    if not index.is_scenario_file(file_path):
        return None
    node: ScenarioFile = ScenarioFile.from_parent(parent, path=file_path)
    return node


_MACHINERY: Final = (
    Path(pluggy.__file__).parent,
    Path(inspect.getfile(pytest.Item)).parent,  # _pytest
    Path(__file__).parent,  # this package: the scorer is what the user wrote
)


def _users_frame(entry: TracebackEntry) -> bool:
    """Whether a traceback entry is in code the user wrote (a scorer, a conftest hook), not
    in pytest's, pluggy's or this package's machinery that calls it."""
    parents = Path(entry.path).parents
    return not any(folder in parents for folder in _MACHINERY)


class _StructevalItem(pytest.Item):
    """Common display for scenario items: failures are plain text, never plugin tracebacks."""

    def repr_failure(
        self,
        excinfo: ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, ScenarioFailure):
            return self._failure_text(str(excinfo.value))
        if isinstance(excinfo.value, (GatesDecide, pytest.UsageError)):
            # (a gates-decide xfail's too: pytest builds its long report, which only
            # --xfail-tb shows, and a traceback of source cost 60 ms per run; a usage error,
            # a failed pytest_structeval_register, names its place: pytest's and pluggy's
            # frames ran to 290 lines for each item)
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def _failure_text(self, text: str) -> TerminalRepr:
        """A run's failure text as pytest's long report of an exception, its headline as the
        crash line: ``--tb=line``, the short summary (``-rf``) and JUnit's ``message`` show
        the headline, not the whole table (nor its first 50 characters), under xdist too (a
        plain text report travels as text only). ``--tb=line`` shows the headline only."""
        from _pytest._code.code import (
            ReprEntryNative,
            ReprExceptionInfo,
            ReprFileLocation,
            ReprTraceback,
        )

        headline = text.partition("\n")[0]
        if self.config.getoption("tbstyle", "auto") == "line":  # (a test's: "E   assert 0")
            text = headline
        line = 1  # (a scenario folder's; an entry of a scenario file is on its own line)
        scenario = getattr(getattr(self, "run", None), "scenario", None)
        if scenario is not None and scenario.entry is not None:
            line = scenario.gold_at(str(self.config.rootpath))[1]
        return ReprExceptionInfo(
            reprtraceback=ReprTraceback([ReprEntryNative([text + "\n"])], None, "native"),
            reprcrash=ReprFileLocation(str(self.path), line, headline),
        )

    def _traceback_filter(self, excinfo: ExceptionInfo[BaseException]) -> Traceback:
        """An error raised by a scorer (``pytest.fail``, a timeout) shows the user's frames
        only, as a test function's does: the frames of pytest, pluggy and this package, each
        with its arguments, ran to a thousand lines. ``--fulltrace`` shows them all."""
        traceback = excinfo.traceback
        if self.config.getoption("fulltrace", False):
            return traceback
        users = traceback.filter(_users_frame)
        return (users or traceback).filter(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Line 0 (shown as 1): pytest requires a line to report a ``skip`` marker at the
        item's location."""
        return self.path, 0, self.name

    @property
    def ihook(self) -> pluggy.HookRelay:
        """The hooks of the parent node's place: a scenario folder whose items a
        :class:`ScenarioParent` yields has no conftest of its own (one with a conftest is a
        :class:`ScenarioDir` node, whose place includes it)."""
        parent = self.parent
        assert parent is not None
        return parent.ihook

    @functools.cached_property
    def location(self) -> tuple[str, int, str]:
        """pytest's ``(path relative to rootdir, line, name)`` from :meth:`reportinfo`, by a
        plain ``relpath``: every scenario item sits in a folder of its own, so pytest's path
        cache never hits, and its ``bestrelpath`` costs five times as much. A path under
        rootdir (both absolute and normal) is its tail, which is what ``relpath`` returns."""
        path, root = str(self.path), str(self.config.rootpath)
        if path.startswith(root) and path[len(root) : len(root) + 1] == os.sep:
            return path[len(root) + 1 :], 0, self.name
        try:
            relative = os.path.relpath(self.path, self.config.rootpath)
        except ValueError:  # another drive (Windows): pytest shows the absolute path
            relative = str(self.path)
        return relative, 0, self.name


class ScenarioItem(_StructevalItem):
    """One run: scores the trajectory's answer against the scenario's gold at ``runtest``.
    ``label`` is the part of its name in brackets, which names its report file too."""

    def __init__(self, *, run: Run, label: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.label = label
        self.add_marker(_MARK)
        trajectory = run.trajectory
        extra = (run.scenario.id, trajectory.run_id, trajectory.model, trajectory.runner)
        self.extra_keyword_matches.update(k for k in (*extra, run.scenario.type) if k)

    def runtest(self) -> None:
        from .scenarios import score_run
        from .session import add_item_record, structeval_state

        state = structeval_state(self.config)
        run = self.run
        record = score_run(
            run.scenario,
            run.trajectory,
            default_scorer=state.settings.scorer,
            registry=state.registry_for(self.path),
            elsewhere=lambda name: state.scorer_elsewhere(name, self.path),
            nodeid=node_text(self.nodeid),
            run_id=run.run_id,
            label=self.label,
            # a judge out of quota may stop the session, or skip or fail the item itself
            stops=(pytest.exit.Exception, pytest.skip.Exception, pytest.fail.Exception),
            root=str(self.config.rootpath),
        )
        add_item_record(self, record.to_dict())
        if record.passed:
            return
        if (  # a run scored, not broken; --runxfail makes it the failure it is
            state.settings.gates_decide
            and record.error is None
            and not self.config.getoption("runxfail", False)
        ):
            raise GatesDecide(f"{failure_head(record)}; the gates decide")
        raise ScenarioFailure(failure_text(record, detailed=state.settings.detailed))

    def identity(self) -> list[Any]:
        """``[scenario_id, run_id, scenario_type, scenario_path, source, label, runner, model,
        question, scorer]``: enough to report this item as an error run of its runner and
        model on the controller if it never sends a result (plain data)."""
        from .session import structeval_state

        run = self.run
        trajectory = run.trajectory
        return [
            run.scenario.id,
            run.run_id,
            run.scenario.type,
            name_text(run.scenario.location),  # (paths on disk as a report shows them)
            name_text(trajectory.location),
            self.label,
            trajectory.runner,
            trajectory.model,
            trajectory.question or run.scenario.question,
            run.scenario.scorer or structeval_state(self.config).settings.scorer,
        ]


def failure_head(record: RunRecord) -> str:
    """The headline of a failing run: which run, its scorer and score."""
    return printable(
        f"scenario {record.scenario_id} run {record.run_id or '-'} ({record.scorer}): "
        f"score {score_text(record.score, '.4f')}, not passed"
    )


def failure_text(record: RunRecord, *, detailed: bool) -> str:
    """A headline naming the run, then the library's table of the failing fields only."""
    head = failure_head(record)
    if record.error is not None:
        trace = [] if record.trace is None else record.trace.split("\n")  # (not splitlines:
        # a control character in a message is escaped, never a line break)
        error = printable(cut_message(record.error))
        return "\n".join([head, f"error: {error}", *map(printable, trace)])
    if record.result is None or not detailed:  # a custom scorer's rationale keeps its lines
        return "\n".join([head, *map(printable, record.rationale.splitlines())])
    from .api import render_failure

    table = render_failure(record.result).splitlines()  # keys, values, reasons from the data
    return "\n".join([head, *map(printable, table)])


class ScenarioErrorItem(_StructevalItem):
    """A broken file inside a scenario folder, or a broken line or entry of a scenario file:
    fails with the loader's message (``entry``: the load error, as the aggregate lists it)."""

    def __init__(self, *, entry: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        # (its path as the summary shows it: its UTF-8 text, not the locale's reading)
        self.message = f"{warning_path(str(entry.get('source', '')))}: {entry.get('error', '')}"
        self.add_marker(_MARK)

    def runtest(self) -> None:
        from .session import add_load_error

        add_load_error(self, self.entry)
        raise ScenarioFailure(printable(self.message))


def runs_only_scenarios(items: Sequence[pytest.Item]) -> bool:
    """Whether every item is a scenario item (no other test runs in this process)."""
    return all(isinstance(item, _StructevalItem) for item in items)


def scenario_items(items: Sequence[pytest.Item]) -> dict[str, list[Any]]:
    """Selected scenario items by node id, with :meth:`ScenarioItem.identity` of each."""
    return {item.nodeid: item.identity() for item in items if isinstance(item, ScenarioItem)}
