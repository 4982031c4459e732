"""Per-session state of the pytest plugin: settings, registry, results, reports and gates.

One :class:`StructevalSession` lives on each pytest process (``config.stash``) and is
registered as a plugin, so its hooks see the whole run. Its role follows pytest-xdist's:

* serial run: collects, runs, aggregates, writes reports, applies gates;
* xdist worker: collects and runs; results travel on the test reports (plain builtins, shipped
  as one JSON string each), and the join notes and selected scenario items in
  ``workeroutput`` (one JSON string); never writes files;
* xdist controller: keeps the records of the reports as they arrive and reads
  ``workeroutput`` in ``pytest_testnodedown``; at session end it adds them all to one
  aggregate, then writes reports and applies gates exactly as a serial run does.

Heavy modules (engine, scorers) are imported on first use, never when pytest loads the plugin.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import sys
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, Any, Final

import pytest

from .arguments import (
    Selections,
    args_given,
    at_rootdir,
    collected,
    group_hints,
    in_scenario_folder,
    scenario_args,
    scenario_folders_in,
    split_selections,
)
from .naming import counted, cut_message, node_text, printable, score_text
from .options import Settings, check_ini_file
from .terminate import TerminateAsInterrupt
from .verdicts import set_run_mode

if TYPE_CHECKING:
    from .collect import ScenarioIndex
    from .registry import Registry
    from .report import WrittenReports
    from .spool import ReportSpool

__all__ = [
    "StructevalSession",
    "add_item_record",
    "structeval_state",
]

REPORT_KEY: Final = "structeval"
"""Attribute of a ``TestReport`` (in its ``__dict__``) holding the item's run records."""
WORKER_KEY: Final = "structeval"
"""Key of this plugin's payload in pytest-xdist's ``workeroutput``."""
FIXTURE_SKIP_KEY: Final = "structeval_fixture_skipped"
"""Attribute of a skipped test's ``TestReport`` that uses the ``structeval`` fixture and
recorded nothing: the baseline it would feed must not be saved without it."""
LOAD_ERROR_KEY: Final = "structeval_load_error"
"""Attribute of a failing load-error item's ``TestReport`` holding its error entry: the
controller keeps it when every worker crashed, so the join's notes never came."""
ATTEMPT_KEY: Final = "structeval_attempt"
"""Attribute of a ``TestReport`` of a test's second or later attempt in this process
(pytest-rerunfailures, flaky): which attempt, counted from 1 by its setups. The controller
keeps only the last attempt's records, failure or skip."""
ITEMS_KEY: Final = "structeval_items"
"""Attribute of a worker's first ``TestReport`` holding its selected scenario items: the
controller learns them before any item can crash the worker (``workeroutput`` comes only from
a worker that finishes)."""


_PHASES: Final = ("setup", "call", "teardown", "???")
"""The ``when`` of a test's reports (``???``: pytest-xdist's report of a crashed worker's)."""

_STATE = pytest.StashKey["StructevalSession"]()
_RECORDS = pytest.StashKey[list[dict[str, Any]]]()
_RECORDED = pytest.StashKey[bool]()  # an earlier phase of the attempt recorded something
_ATTEMPT = pytest.StashKey[int]()  # the item's attempts so far (see ATTEMPT_KEY)
_LOAD_ERROR = pytest.StashKey[dict[str, Any]]()  # (a load-error item) its error entry


def structeval_state(config: pytest.Config) -> StructevalSession:
    """The session state that :meth:`StructevalSession.start` created for ``config``."""
    return config.stash[_STATE]


def add_item_record(item: pytest.Item, record: dict[str, Any]) -> None:
    """Queue a run record for the report of ``item``'s current phase: ``RunRecord.to_dict()``,
    plain data that nobody changes afterwards (the aggregate keeps it without a copy)."""
    item.stash.setdefault(_RECORDS, []).append(record)


def add_load_error(item: pytest.Item, entry: dict[str, Any]) -> None:
    """Put a load-error item's error entry on its failing report (see ``LOAD_ERROR_KEY``)."""
    item.stash[_LOAD_ERROR] = entry


def _present(path: Path) -> bool:
    """Whether ``path`` exists (``False`` for one that cannot be searched or holds a NUL)."""
    try:
        path.stat()
    except (OSError, ValueError):
        return False
    return True


def _no_folder(name: str) -> bool:
    """A walk rule passing by no folder (see :meth:`StructevalSession.roots`)."""
    return False


_BELOW_INTERRUPTED: Final = (
    pytest.ExitCode.OK,
    pytest.ExitCode.TESTS_FAILED,
    pytest.ExitCode.NO_TESTS_COLLECTED,
)


def _only_lists(config: pytest.Config) -> bool:
    """Whether the session lists tests or fixtures and runs none (``--co``, ``--fixtures``,
    ``--fixtures-per-test``): it must leave the last run's reports alone."""
    option = config.option
    return bool(
        option.collectonly
        or getattr(option, "showfixtures", False)
        or getattr(option, "show_fixtures_per_test", False)
    )


def _fail(session: pytest.Session, status: int = pytest.ExitCode.TESTS_FAILED) -> None:
    """Fail the run (exit 1, or ``status``), never replacing a failure it already has."""
    if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = status


def _file_identity(path: Path) -> tuple[int, ...] | None:
    """What tells a file apart from one written over it or in its place."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class _OutputsCheck:
    """Checks the files the run wrote once every other plugin's session end has run (the
    session's own hook runs first: see :meth:`StructevalSession.check_outputs`)."""

    def __init__(self, state: StructevalSession) -> None:
        self.state = state

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.state.is_worker:
            self.state.check_outputs(session)


# --------------------------------------------------------------------------- session state


class StructevalSession:
    """Everything one pytest process knows about structeval results (see module docstring)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.is_worker = hasattr(config, "workerinput")
        self.index: ScenarioIndex | None = None
        self.scenarios_requested = False  # scenario paths are among pytest's arguments
        self.selections = Selections()  # see split_selections
        self.narrowed = False  # an argument points into a scenario folder (see roots)
        self._beside_ids: set[str] | None = None  # see _beside
        self._registry: Registry | None = None  # see registry_for
        self._saved: Registry | None = None
        self._registry_failure: str | None = None  # why a hook of the whole session failed
        self._called: set[int] = set()  # the plugins whose register hook filled _registry
        self._scopes: dict[Path, Registry | str] = {}  # a conftest folder's, or its failure
        self._hook_folders: dict[int, Path | None] = {}  # see _hook_folder
        self._roots: list[Path] | None = None
        # Controller / serial side.
        self._records: dict[tuple[str, str, str], str] = {}  # _ship()ped records
        # The _records keys of subtests' records, by (worker, node id) of their test.
        self._subtests: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        # Keyed by (worker, node id): under --dist each every worker runs every item.
        self._broken: dict[tuple[str, str], str] = {}  # why it failed (used without a record)
        self._skipped: dict[tuple[str, str], str] = {}  # why it was skipped (no record either)
        # Of those skipped, the tests that use the structeval fixture and recorded nothing.
        self._fixture_skips: set[tuple[str, str]] = set()
        self._attempts: dict[tuple[str, str], int] = {}  # the last attempt seen, if not the 1st
        self._load_errors: dict[str, dict[str, Any]] = {}  # of load-error items, by node id
        self._expected: dict[str, list[Any]] | None = None  # selected scenario items
        self._fixture_tests: set[str] = set()  # node ids of selected tests using the fixture
        self._finished: set[str] = set()  # node ids of the tests that ran (past their setup)
        self._crashed: set[str] = set()  # ... of those, the ones a worker died in (xdist)
        self._loop_ended = False  # the test loop ran to its end (no pytest.exit, no Ctrl-C)
        self._items_sent = False  # (a worker) whether a report carried ``_expected`` yet
        self._notes: list[dict[str, Any]] = []
        self._summaries: list[dict[str, Any]] = []
        self._loose_errors = 0  # load errors no item stands for (see ScenarioIndex.loose_errors)
        self._failed_workers: dict[str, str] = {}  # worker id -> "crashed", "sent no results"
        # Crashed workers whose item pytest-rerunfailures ran again elsewhere, and which.
        self._rerun_crashes: dict[str, str] = {}
        self._heard = False  # (a controller) a worker finished and sent its payload
        self._collect_errors: dict[str, None] = {}  # node ids of collectors that failed
        # Report files written ahead (see spool.py) by a process that runs no other test.
        self._ahead = False
        self._only_scenarios = False  # this process ran scenario items and no other test
        self._worker_kinds: set[bool] = set()  # (a controller) each worker's _only_scenarios
        self._spool: ReportSpool | None = None
        # Results of sessionfinish, for the terminal summary.
        self.report: dict[str, Any] | None = None
        self.written: WrittenReports | None = None
        self.published: list[Path] = []  # Markdown summaries and CSV tables written
        self.saved: Path | None = None  # the baseline written
        # The files named by options that were written, as each was (see check_outputs).
        self._outputs: dict[Path, tuple[int, ...] | None] = {}
        self._deselected = False  # a selection dropped items the reports would cover
        self._selected = False  # a selection (-k, -m, ...) dropped any item
        self._not_found: list[str] = []  # folder::name arguments that named no item
        self.problems: list[str] = []
        self.left_alone: str | None = None  # why no report was written
        self._writing = False  # the reports are being renamed into place (see _stopped_at_end)
        self.hints: list[str] = []  # how a run that collected nothing could have
        self._verdicts_before: str | None = None  # the verdicts mode to restore at the end
        self._sigterm = TerminateAsInterrupt()  # (see pytest_runtestloop)

    @classmethod
    def start(cls, config: pytest.Config) -> StructevalSession:
        """Create the state for ``config`` (at configure time), register its hooks, and
        point pytest's arguments at the scenarios; usage errors surface here, at startup."""
        check_ini_file(config)
        settings = Settings.from_config(config)
        state = cls(config, settings)
        if settings.verdicts is not None:
            state._verdicts_before = set_run_mode(settings.verdicts)
        config.stash[_STATE] = state
        config.pluginmanager.register(state, "structeval-session")
        config.pluginmanager.register(_OutputsCheck(state), "structeval-outputs")
        args, state.scenarios_requested = scenario_args(
            settings,
            list(config.args),
            config.args_source,
            at_rootdir=at_rootdir(config),
        )
        config.args, state.selections = split_selections(args, config.invocation_params.dir, config)
        if settings.scenarios and not (settings.scenarios_from_cli or state.scenarios_requested):
            # The ini keys' paths outside pytest's arguments (`pytest tests/unit`): one not
            # there yet (a checkout or CI shard without it) is left out, not an error; a path
            # given on the command line is checked whatever the ini says.
            settings = state.settings = dataclasses.replace(
                settings,
                scenarios=tuple(filter(_present, settings.scenarios)),
                trajectories=(
                    settings.trajectories
                    if settings.trajectories_from_cli
                    else tuple(filter(_present, settings.trajectories))
                ),
            )
        for path in (*settings.scenarios, *settings.trajectories):
            try:  # not path.exists(): it raises for a path in a folder that cannot be searched
                path.stat()
            except (FileNotFoundError, NotADirectoryError):
                message = f"structeval: path does not exist: {printable(str(path))}"
                raise pytest.UsageError(message) from None
            except OSError as exc:
                message = f"structeval: cannot read {printable(str(path))}: {exc}"
                raise pytest.UsageError(message) from None
            except ValueError:  # a NUL, which an ini key can hold
                message = f"structeval: path holds a NUL character: {printable(str(path))}"
                raise pytest.UsageError(message) from None
        if settings.scenarios or settings.trajectories:  # (else the engine stays unloaded)
            from .scenarios import check_scenario_path, refuse_reports_folder

            try:  # as collection would, but before it begins
                for path in settings.scenarios:
                    check_scenario_path(path)
                refuse_reports_folder(settings.scenarios, "scenario", settings.reports_dir)
                refuse_reports_folder(settings.trajectories, "trajectory", settings.reports_dir)
            except OSError as exc:
                raise pytest.UsageError(f"structeval: {exc}") from None
        if settings.scorer_given or settings.scenarios:
            state.check_scorer()
        return state

    # ----------------------------------------------------------------- registry

    def registry_for(self, path: Path | None = None) -> Registry:
        """The registry of an item at ``path`` (``None``: the session's, for what has no
        place): :func:`~pytest_structeval.registry.default_registry` once the
        ``pytest_structeval_register`` hooks of plugins and of the conftests at rootdir or
        above have filled it, then, as a copy for each, what the hooks of the conftests in
        the folders holding ``path`` add, outermost first: a conftest's registrations apply
        to what lies under its folder, as its fixtures do, so two folders' conftests may
        register one name for their own scenarios. Each hook is called once per process,
        when first needed (every hook loaded so far at configure time, when the run names
        scenarios or a scorer). What the hooks add to the default registry is removed again
        at unconfigure, so sessions run in one process (pytester) stay isolated.

        A hook that fails is a ``UsageError`` naming it (see
        :func:`~pytest_structeval.registry.registration_failure`), for every later use of
        its registry too: each item under that conftest's folder fails on it, as none can be
        scored as the conftest meant (a name it did not register may stand for another
        scorer), and items elsewhere are scored."""
        registry = self._global_registry()
        if path is None:
            return registry
        folders = [f for f in self._scoped_folders() if f == path or f in path.parents]
        for folder in sorted(folders, key=lambda f: len(f.parts)):  # outermost first
            registry = self._scope(folder, registry)
        return registry

    def scorer_elsewhere(self, name: str, path: Path) -> str:
        """For a scorer the registry of ``path`` lacks: which conftests below rootdir
        register it for their own folders (see
        :func:`~pytest_structeval.registry.scoped_elsewhere`), else ``""``."""
        from .registry import scoped_elsewhere

        scopes = []
        for folder in self._scoped_folders():
            try:
                scopes.append((folder, self.registry_for(folder)))
            except pytest.UsageError:  # (its hook failed: its items say so)
                continue
        root = self.config.rootpath
        return scoped_elsewhere(name, path, scopes, lambda p: os.path.relpath(p, root))

    def _global_registry(self) -> Registry:
        from .registry import process_registry

        if self._registry is None:
            registry = process_registry()
            self._saved = registry.copy()
            self._registry = registry
        if self._registry_failure is not None:
            raise pytest.UsageError(self._registry_failure)
        for impl in self._register_hooks():  # (in pluggy's order: the last registered first)
            if self._hook_folder(impl) is not None or id(impl.plugin) in self._called:
                continue
            self._called.add(id(impl.plugin))
            failure = self._call_register(impl, self._registry)
            if failure is not None:
                self._registry_failure = failure
                raise pytest.UsageError(failure)
        return self._registry

    def _scope(self, folder: Path, outer: Registry) -> Registry:
        """The registry of ``folder``'s conftest: a copy of ``outer`` (the one of the folders
        above) that its hook filled."""
        done = self._scopes.get(folder)
        if done is None:
            registry = outer.copy()
            impl = next(i for i in self._register_hooks() if self._hook_folder(i) == folder)
            done = self._call_register(impl, registry) or registry
            self._scopes[folder] = done
        if isinstance(done, str):
            raise pytest.UsageError(done)
        return done

    def _register_hooks(self) -> list[Any]:
        """The ``pytest_structeval_register`` implementations loaded, in call order."""
        return list(reversed(self.config.hook.pytest_structeval_register.get_hookimpls()))

    def _scoped_folders(self) -> set[Path]:
        """The folders of the conftests below rootdir that implement the register hook."""
        return {f for f in map(self._hook_folder, self._register_hooks()) if f is not None}

    def _hook_folder(self, impl: Any) -> Path | None:
        """Where a register hook's registrations apply: a conftest's folder, unless it is
        rootdir or above it (``None``, as for a plugin: the whole session)."""
        plugin = impl.plugin
        if id(plugin) in self._hook_folders:  # (asked for every item: once per plugin)
            return self._hook_folders[id(plugin)]
        file = getattr(plugin, "__file__", None)
        folder = None
        conftest = isinstance(file, str) and os.path.basename(file) == "conftest.py"
        if isinstance(plugin, ModuleType) and isinstance(file, str) and conftest:
            folder = Path(os.path.abspath(file)).parent
            root = self.config.rootpath
            if folder == root or folder in root.parents:
                folder = None
        self._hook_folders[id(plugin)] = folder
        return folder

    def _call_register(self, impl: Any, registry: Registry) -> str | None:
        """Call one register hook (as pluggy would: with the arguments it names); why it
        failed, or ``None``."""
        from .registry import registration_failure

        given = {"registry": registry}
        try:
            impl.function(*[given[name] for name in impl.argnames])
        except Exception as exc:  # a bad registration or a bug: never an internal error
            return registration_failure(exc, self.config.rootpath)
        return None

    def pytest_unconfigure(self) -> None:
        """Undo this session's registrations (see :attr:`registry`); stop a spool that a
        failed session end left running; say whether the process may skip its exit
        collections (:mod:`~pytest_structeval.exitgc`). Without pytest's terminal
        (``-p no:terminal``) the run's problems, a missed gate among them, go to standard
        error: a run that fails must say why somewhere."""
        if self.problems and not self.is_worker and not self._terminal():
            from .gates import github_annotations

            lines = [printable(f"FAIL {problem}") for problem in self.problems]
            with contextlib.suppress(OSError, ValueError):  # a closed or broken stderr
                sys.stderr.write("".join(f"{line}\n" for line in lines))
                for line in github_annotations(self.problems):
                    sys.stderr.write(f"{line}\n")
                sys.stderr.flush()
        if self._only_scenarios:
            from .exitgc import freeze_heap_at_exit

            if _runs_the_command_line(self.config):
                freeze_heap_at_exit()
        if self._spool is not None:
            self._spool.discard()
        self._sigterm.restore()
        if self.settings.verdicts is not None:
            set_run_mode(self._verdicts_before)  # a run inside a run (pytester) gets it back
        if self._registry is not None and self._saved is not None:
            self._registry.scorers = self._saved.scorers
            self._registry.comparators = self._saved.comparators
            self._registry.transforms = self._saved.transforms

    def check_scorer(self) -> None:
        """Reject an unknown ``--structeval-scorer`` (or ini key) at startup, naming the one
        meant and the known names, as the CLI does. The registry is prepared here with every
        hook loaded so far, a failing one a usage error: a name any of them registers is
        known (a conftest below rootdir registers it for the scenarios under its folder)."""
        from .errors import OptionsError

        name = self.settings.scorer
        registry = self.registry_for(None)
        scoped = [self.registry_for(folder) for folder in sorted(self._scoped_folders())]
        try:
            if not any(name in r.scorers for r in scoped):
                registry.scorers.get(name)
        except OptionsError as exc:
            given = self.config.getoption("structeval_scorer") is not None
            raise pytest.UsageError(
                f"{'--structeval-scorer' if given else 'structeval_scorer'}: {exc}"
            ) from None

    # ----------------------------------------------------------------- collection

    def collector_for(self, path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        """The collector of directory ``path``: a :class:`ScenarioDir` for a scenario folder,
        a :class:`ScenarioParent` for a directory holding scenario folders (unless it is a
        Python package: pytest's ``Package`` stays), else ``None`` (pytest decides).

        Cheap for projects that do not use scenarios: nothing is scanned, nor the collectors'
        module imported, until pytest walks into a scenario root.
        """
        index = self.index
        if index is None:
            if not any(path == root or root in path.parents for root in self.roots()):
                return None
            if not collected(path, parent.session):
                return None
            index = self.build_index()
        from .collect import ScenarioDir, ScenarioParent

        node: pytest.Collector
        if index.folder(path) is not None or index.is_scenario_folder(path):
            node = ScenarioDir.from_parent(parent, path=path)
        elif index.holds_scenario_folders(path) and not (path / "__init__.py").is_file():
            node = ScenarioParent.from_parent(parent, path=path)
        else:
            return None
        return node

    def loops_back(self, link: Path) -> bool:
        """Whether the symlink ``link``, under a scenario root, points at a folder that holds
        it (the root itself included): walking it would revisit the tree."""
        if not any(root == link or root in link.parents for root in self.roots()):
            return False
        target = os.path.realpath(link)
        holder = os.path.realpath(link.parent)
        return holder == target or holder.startswith(target.rstrip(os.sep) + os.sep)

    def roots(self) -> list[Path]:
        """Where scenarios are discovered: the scenario paths, plus each pytest argument that
        is inside a scenario tree (then its outermost ``scenario_*`` folder, see
        :func:`in_scenario_folder`) or directly holds a ``scenario_*`` folder that looks like a
        scenario (:func:`~pytest_structeval.scenarios.looks_like_scenario`)."""
        if self._roots is None:
            from .naming import scenario_folder_id
            from .roots import folder_skip, outermost

            candidates = list(self.settings.scenarios)
            enclosing_folders: set[Path] = set()
            if args_given(self.config):
                here = self.config.invocation_params.dir
                for arg in self.config.args:
                    path = Path(os.path.abspath(here / arg.split("::")[0]))
                    if not path.is_dir():
                        continue
                    enclosing = in_scenario_folder(path, self.config)
                    if enclosing is not None:
                        candidates.append(enclosing)
                        enclosing_folders.add(enclosing)
                        continue
                    try:
                        held = scenario_folders_in(path)
                    except OSError:  # pytest reports an unreadable argument itself
                        continue
                    if not held:
                        continue
                    if scenario_folder_id(path.name) is None:
                        candidates.append(path)
                    else:  # the project itself, named scenario_*: not one scenario tree
                        candidates.extend(sorted(held))
            # In the order given, as `structeval evaluate` reads them (so both pick the same
            # winner between duplicate ids), and as pytest collects its arguments: one inside
            # another is collected through it, so pytest's walk rules (norecursedirs, hidden
            # folders) apply to it; one reached by a link elsewhere is its own, unless a walk
            # reads it.
            skips = folder_skip(self.config.getini("norecursedirs"))
            self._roots = outermost(candidates, skips, nested=_no_folder)
            self.narrowed = not enclosing_folders.isdisjoint(self._roots)
        return self._roots

    def build_index(self) -> ScenarioIndex:
        """Discover and join once per process (deterministic, so every worker agrees)."""
        if self.index is None:
            from .collect import ScenarioIndex
            from .scenarios import plan

            root = self.config.rootpath
            try:
                result = plan(
                    [_relative(p, root) for p in self.roots()],
                    [_relative(p, root) for p in self.settings.trajectories],
                    root=root,
                    reports_dir=self.settings.reports_dir,
                    inferred=self._inferred,
                    skip_folders=self.config.getini("norecursedirs"),
                )
            except OSError as exc:  # a path missing, or not a folder or scenario file
                raise pytest.UsageError(f"structeval: {exc}") from None
            self.index = ScenarioIndex(result, root)
        return self.index

    def _inferred(self, path: str) -> bool:
        """Whether scenarios at ``path`` (absolute) were only inferred from pytest's arguments:
        it lies under no path given with ``--structeval-scenarios`` or the ini key."""
        return not any(
            path == os.fspath(given) or path.startswith(os.path.join(given, ""))
            for given in self.settings.scenarios
        )

    @pytest.hookimpl(tryfirst=True)  # before -k/-m, so a name they drop is still found
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        """Apply ``folder::name`` selections (see :func:`split_selections`)."""
        if not self.selections:
            return
        self._not_found = self.selections.missing(items, config.invocation_params.dir)
        kept: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        for item in items:
            (kept if self.selections.keeps(item) else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """A messy gold warns again in each session (see ``forget_gold_warnings``). A
        pytest-xdist controller runs no test itself: it writes report files ahead when its
        local workers leave a core to spare."""
        modes = sys.modules.get("pytest_structeval.modes")  # (none scored yet: nothing to do)
        if modes is not None:
            modes.forget_gold_warnings()
        if self.config.pluginmanager.has_plugin("dsession"):
            from .spool import spare_core

            self._ahead = spare_core(local_workers(self.config.getoption("tx", None) or []))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Record the selected scenario items and tests using the ``structeval`` fixture:
        after ``-k``/``-m`` deselection, so a deselected item is never reported as missing.
        ``--lf`` leaves passed tests out while collecting them, not by deselection: when it
        did, the run is a selection."""
        if self.scenarios_requested and self.index is None and not _only_lists(self.config):
            self.build_index()
        self._fixture_tests = {
            item.nodeid for item in session.items if "structeval" in _fixtures_of(item)
        }
        if self.config.pluginmanager.has_plugin("lfplugin-collskip"):  # --lf narrowed
            self._deselected = True
        if "pytest_structeval.collect" not in sys.modules:  # no scenario collector ran, so
            self._expected = {}  # there is no scenario item (and no module to import for it)
            return
        from .collect import runs_only_scenarios, scenario_items
        from .spool import spare_core

        self._expected = scenario_items(session.items)
        if self.index is not None:
            self.index.release_folders()
        self._only_scenarios = bool(session.items) and runs_only_scenarios(session.items)
        self._ahead = not self.is_worker and self._only_scenarios and spare_core()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Generator[None, object, object]:
        """Note that the test loop ended of itself: a run stopped before any test finished
        (``pytest.exit``, even with status 0, or Ctrl-C) leaves the last reports alone.

        A run of scenario items reads SIGTERM as Ctrl-C from here to its end (see
        :mod:`~pytest_structeval.terminate`): a cancelled CI job keeps the runs it scored."""
        if not self.is_worker and (self.scenarios_requested or self._expected):
            self._sigterm.install()
        result = yield
        self._loop_ended = True
        return result

    # ----------------------------------------------------------------- reports from items

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Move the records an item produced in this phase onto its report (plain builtins,
        so they survive pytest-xdist's serialisation)."""
        report = yield
        if call.when == "setup":  # an attempt begins (pytest-rerunfailures, flaky: again)
            item.stash[_ATTEMPT] = item.stash.get(_ATTEMPT, 0) + 1
            item.stash[_RECORDED] = False  # (what an earlier attempt recorded does not count)
        attempt = item.stash.get(_ATTEMPT, 1)
        if attempt > 1:
            report.__dict__[ATTEMPT_KEY] = attempt
        if self.is_worker and not self._items_sent:
            self._items_sent = True
            if self._expected:
                report.__dict__[ITEMS_KEY] = self._expected
        load_error = item.stash.get(_LOAD_ERROR, None)
        if load_error is not None and report.failed:
            report.__dict__[LOAD_ERROR_KEY] = load_error
        records = item.stash.get(_RECORDS, None)
        if records:
            del item.stash[_RECORDS]
            item.stash[_RECORDED] = True
            report.__dict__[REPORT_KEY] = records
            report.sections.append(("structeval results", _section(records)))
        elif (
            report.skipped
            and "structeval" in getattr(item, "fixturenames", ())
            and not item.stash.get(_RECORDED, False)  # (a fixture that scored in setup)
        ):
            report.__dict__[FIXTURE_SKIP_KEY] = True  # a test whose records are left out
        return report

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep the final records of each test phase (controller or serial run only).

        Only a test's last attempt counts: a ``rerun`` report (pytest-rerunfailures, also
        for the item a crashed pytest-xdist worker was running) and the first report of a
        later attempt (``ATTEMPT_KEY``: flaky logs no ``rerun`` report, and
        pytest-rerunfailures logs an attempt's subtests before its setup) drop all that the
        test's earlier attempts left on that worker (:meth:`_forget`): the records of each of
        its phases and subtests, its failure or skip. A later report of the same test phase
        replaces an earlier one, but for subtests' (pytest's ``subtests``, unittest's
        ``subTest``), which each report that phase: each keeps its records. Under ``--dist
        each`` every worker's copy counts.

        Once every other plugin has seen the report, its records move into the session's
        store as one JSON text (:func:`_ship`), decoded again at session end: thousands of
        kept record trees would make every garbage collection of the run, and the
        interpreter's at exit, walk them.
        """
        if self.is_worker:
            return
        node = getattr(report, "node", None)
        worker = getattr(getattr(node, "gateway", None), "id", "")
        outcome: str = report.outcome  # pytest-rerunfailures adds "rerun"
        attempt = report.__dict__.get(ATTEMPT_KEY, 1)
        if isinstance(attempt, int) and attempt > self._attempts.get((worker, report.nodeid), 1):
            self._forget(worker, report.nodeid)  # the first report of a later attempt
            self._attempts[(worker, report.nodeid)] = attempt
        if outcome == "rerun":  # an attempt that is tried again
            self._forget(worker, report.nodeid)
            if str(report.when) == "???":  # a crashed worker's item, to run on another one
                self._rerun_crashes[worker] = report.nodeid
                self._finished.discard(report.nodeid)  # (until it has run there)
            return
        if report.when != "setup" or not report.passed:  # (a test stopped in its call
            self._finished.add(report.nodeid)  # reports its setup only)
        if str(report.when) == "???":  # pytest-xdist's report of the test its worker died in
            self._crashed.add(report.nodeid)
        records = report.__dict__.pop(REPORT_KEY, None)
        if records is not None:
            key: tuple[str, str, str] = (worker, report.nodeid, report.when)
            if getattr(report, "context", None) is not None:  # a subtest's: each is kept
                kept = self._subtests.setdefault((worker, report.nodeid), [])
                key = (worker, report.nodeid, f"{report.when} subtest {len(kept):09d}")
                kept.append(key)
            self._records[key] = _ship(records)
            if self._ahead:
                self._write_ahead(records)
        elif report.failed:
            self._broken.setdefault((worker, report.nodeid), _failure_reason(report))
            load_error = report.__dict__.get(LOAD_ERROR_KEY)
            if isinstance(load_error, dict):
                self._load_errors[report.nodeid] = load_error
        elif report.skipped:
            self._skipped.setdefault((worker, report.nodeid), _skip_reason(report))
            if report.__dict__.get(FIXTURE_SKIP_KEY):
                self._fixture_skips.add((worker, report.nodeid))

    def _forget(self, worker: str, nodeid: str) -> None:
        """Forget what the attempts of test ``nodeid`` on ``worker`` left so far: the records
        of each of its phases (one its setup recorded too, when the next attempt records
        nothing there) and subtests, and its failure or skip."""
        key = (worker, nodeid)
        for when in _PHASES:
            self._records.pop((worker, nodeid, when), None)
        for shipped in self._subtests.pop(key, ()):
            del self._records[shipped]
        self._broken.pop(key, None)
        self._skipped.pop(key, None)
        self._fixture_skips.discard(key)

    # ----------------------------------------------------------------- pytest-xdist

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(
        self, config: pytest.Config, report: pytest.CollectReport | pytest.TestReport
    ) -> Generator[None, dict[str, Any] | None, dict[str, Any] | None]:
        """On a worker, ship a report's records as one JSON string (:func:`_ship`): execnet
        encodes nested builtins value by value in Python, a string in one piece."""
        data = yield
        if self.is_worker and data is not None:
            for key in (REPORT_KEY, ITEMS_KEY):
                if isinstance(data.get(key), (list, dict)):
                    data[key] = _ship(data[key])
        return data

    @pytest.hookimpl(wrapper=True)
    def pytest_report_from_serializable(
        self, config: pytest.Config, data: dict[str, Any]
    ) -> Generator[None, object, object]:
        """Turn the shipped records back into plain builtins before any other plugin sees
        the report, so hooks find the same records as in a serial run."""
        report = yield
        attributes = getattr(report, "__dict__", {})
        shipped = attributes.get(REPORT_KEY)
        if isinstance(shipped, str):
            attributes[REPORT_KEY] = _unship(shipped)
        items = attributes.pop(ITEMS_KEY, None)
        if isinstance(items, str):  # every worker selects the same items: the first map wins
            self._expected = {**_unship(items), **(self._expected or {})}
        return report

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object | None) -> None:
        """Merge a worker's payload; a worker that crashed (or sent nothing) makes the run
        incomplete (unless :meth:`_recovered`), and its unfinished items count as errors."""
        shipped = getattr(node, "workeroutput", {}).get(WORKER_KEY)
        if error is not None or shipped is None:
            reason = "crashed" if error is not None else "sent no results"
            self._failed_workers[str(node.gateway.id)] = reason
            return
        self._heard = True
        payload = _unship(shipped)
        self._worker_kinds.add(payload.get("only_scenarios") is True)
        if payload.get("notes") is not None:
            self._notes.append(payload["notes"])
            self._summaries.append(payload["summary"])
            self._loose_errors = max(self._loose_errors, payload["loose_errors"])  # each: the same
        if payload.get("requested"):
            self.scenarios_requested = True
        if payload.get("deselected"):
            self._deselected = True
        if payload.get("selected"):  # (deselection happens on the workers: no hint then)
            self._selected = True
        for arg in payload.get("not_found", ()):  # every worker collects every item
            if arg not in self._not_found:
                self._not_found.append(arg)
        expected = self._expected if self._expected is not None else {}
        expected.update(payload["items"])
        self._expected = expected
        self._fixture_tests.update(payload["fixture_tests"])

    # ----------------------------------------------------------------- end of session

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A collector that failed: its items never exist, so the run is incomplete even when
        it goes on (``--continue-on-collection-errors``, and always under xdist, whose
        controller is handed the workers' failed collectors)."""
        if report.failed and not self.is_worker:
            self._collect_errors[report.nodeid or "."] = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Workers hand over their payload; the controller (or a serial run) builds the
        aggregate, writes the reports and applies the gates, never lowering a failure."""
        if self.is_worker:
            # One JSON string: execnet would encode the item list value by value.
            self.config.workeroutput[WORKER_KEY] = _ship(self._worker_payload(session))  # type: ignore[attr-defined]
            return
        if self.config.pluginmanager.has_plugin("dsession"):  # each worker ran only scenarios
            self._only_scenarios = self._worker_kinds == {True} and not self._failed_workers
        if self._not_found:  # as pytest's own "not found": a usage error, exit 4
            self.problems.extend(f"structeval: not found: {arg}" for arg in self._not_found)
            _fail(session, pytest.ExitCode.USAGE_ERROR)
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and not self._selected:
            self.hints = group_hints(self.config, self.roots())  # nothing at all was found
        if _only_lists(self.config):
            return
        if getattr(self.config.option, "setuponly", False):  # also set by --setup-plan
            if self._active():
                self.left_alone = (
                    "structeval: --setup-only/--setup-plan scores nothing: "
                    f"reports in {self.settings.reports_dir} left as they were"
                )
                self._unsaved(session, "--setup-only/--setup-plan scores nothing")
            return
        hidden = self._hidden_crashes(exitstatus)
        if hidden:
            self.problems.extend(hidden)
            _fail(session)
        if not self._active():
            checks = self.settings.asked_checks
            if checks is None:  # nothing to apply, save or say (the gates are not imported)
                return
            if checks.gates or checks.baseline is not None:  # asked for, so say why not applied
                self.left_alone = (
                    "structeval: no scenario run and no structeval result in this run: "
                    "no gate applied"
                )
            self._unsaved(session, "the run recorded no structeval result")
            return
        # (a Ctrl-C or a pytest.exit before any test finished: while collecting, say)
        stopped_first = not self._loop_ended and not self._finished
        # (stopped while collecting, here or on every xdist worker: what it would have found
        # is unknown, which is no "no scenario found")
        uncounted = stopped_first and self._expected is None and self.scenarios_requested
        runs = self._runs()
        unscored = (self._expected == {} or stopped_first) and runs > 0
        if (unscored or uncounted) and not self._records:
            # Every scenario item deselected (-m "not structeval", -k), or a collection error
            # or an interrupt stopped the run first: a run that scored nothing must neither
            # replace the last scenario run's reports nor be judged by its gates.
            why = (
                "stopped before any ran"
                if stopped_first or exitstatus == pytest.ExitCode.INTERRUPTED
                else "none selected"
            )
            counted = (
                f"{runs} scenario run{'s' * (runs != 1)}, {why}"
                if runs
                else "stopped while collecting, before any scenario ran"
            )
            self.left_alone = (
                f"structeval: {counted}: no gate applied, "
                f"reports in {self.settings.reports_dir} left as they were"
            )
            self._unsaved(session, f"no scenario run was scored ({why})")
            return
        with _heap_frozen():
            try:
                self._report_run(session, exitstatus)
            except KeyboardInterrupt as exc:
                from .dirlock import WaitInterrupted

                self._stopped_at_end(session, waiting=isinstance(exc, WaitInterrupted))
            except MemoryError:
                self._out_of_memory(session)

    def check_outputs(self, session: pytest.Session) -> None:
        """After every other plugin's session end (:class:`_OutputsCheck`): a file this run
        wrote for an option (``--structeval-markdown``, ``-csv``, ``-html``,
        ``--structeval-save-baseline``) that is not as it was written was replaced by another
        plugin writing to the same path (one whose output the startup check does not know),
        so it is no longer announced and the run fails, saying so."""
        replaced = [p for p, was in self._outputs.items() if _file_identity(p) != was]
        for path in replaced:
            if path == self.saved:
                what, self.saved = "the saved baseline", None
            else:
                what = f"the {self.settings.checks.describe(path)}"
            self.published = [p for p in self.published if p != path]
            self.problems.append(
                f"structeval: {what} {path} was replaced after this run wrote it (another "
                "plugin's output on the same path?): name another path"
            )
        if replaced:
            _fail(session)

    def _fate(self) -> str:
        """What became of the reports, the session end having stopped (see below)."""
        from .report import reports_fate

        where = self.settings.reports_dir
        return reports_fate(where, renaming=self._writing, written=self.written is not None)

    def _out_of_memory(self, session: pytest.Session) -> None:
        """Memory ran out at the session end (``ulimit -v``, a 32-bit process): one line that
        says what became of the reports, and a failed run, not an internal error."""
        self.problems.append(f"structeval: memory ran out at the end of the run: {self._fate()}")
        self._writing = False
        _fail(session)

    def _stopped_at_end(self, session: pytest.Session, *, waiting: bool) -> None:
        """A Ctrl-C during the session end: say what became of the reports and exit 2 (pytest's
        status for an interrupted run), without a traceback."""
        if waiting:
            self.left_alone = (
                "structeval: interrupted while waiting for another run writing reports into "
                f"{self.settings.reports_dir}: reports left as they were"
            )
        elif self._writing or self.written is not None:
            self.problems.append(f"structeval: interrupted at the end of the run: {self._fate()}")
        else:
            self.left_alone = f"structeval: interrupted at the end of the run: {self._fate()}"
        if session.exitstatus in _BELOW_INTERRUPTED:
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    def _report_run(self, session: pytest.Session, exitstatus: int) -> None:
        """Build the aggregate, write the reports, apply the gates (controller or serial)."""
        checks = self.settings.checks
        aggregate = self._aggregate(session, exitstatus)
        nothing_joined = self.scenarios_requested and not (self._runs() or self._runs_unknown())
        unsaved = "the reports could not be written"
        if nothing_joined and not self._records and self._found_nothing():
            # Nothing at all to report (a mistyped path, a folder of something else): the
            # last run's reports are kept, and the run fails saying why (below).
            report = aggregate.report()
            checks.annotate(report)
            self.left_alone = f"reports in {self.settings.reports_dir} left as they were"
            unsaved = "no scenario run was found"
        else:
            report = self._write_reports(aggregate)
        self.report = report
        problems = list(self.problems)
        if self._loose_errors and not checks.applied_gates:
            from .gates import unread_failure

            unread = int(report.get("totals", {}).get("load_errors") or 0)
            problems.append(unread_failure(self._loose_errors, unread, items=False))
        if nothing_joined:
            problems.append(self._nothing_joined())
        settled = checks.settle(report, problems, written=self.written is not None, unsaved=unsaved)
        self.saved, self.problems = settled.saved, list(settled.problems)  # (before a Ctrl-C)
        written = None if self.written is None else self.settings.reports_dir
        self.published, unpublished = checks.publish_all(report, self.problems, reports_dir=written)
        from .files import written_into

        named = {path for _, path in checks.files()}
        step = os.environ.get("GITHUB_STEP_SUMMARY")  # (appended to, by others too)
        for path in (*self.published, self.saved):
            if path is None or path not in named or written_into(path):
                continue
            if not (step and os.path.realpath(step) == os.path.realpath(path)):
                self._outputs[path] = _file_identity(path)
        if unpublished is not None:
            self.problems.append(f"structeval: cannot write {unpublished}")
        if self.problems:
            _fail(session)

    def _write_ahead(self, records: list[dict[str, Any]]) -> None:
        """Hand the records' report files to the spool (see spool.py); a record that ends
        in another form (a later report of the same phase) is written at the end instead."""
        from .report import write_ahead
        from .spool import ReportSpool

        if self._spool is None:
            self._spool = ReportSpool(self.settings.reports_dir)
        for record in records:
            write_ahead(self._spool, record)

    def _unsaved(self, session: pytest.Session, why: str) -> None:
        """Fail a run that ends with nothing to save when asked to save a baseline."""
        unsaved = self.settings.checks.unsaved(why)
        if unsaved:
            self.problems.extend(unsaved)
            _fail(session)

    def _write_reports(self, aggregate: Any) -> dict[str, Any]:
        """Write the reports (a failure is one of the run's problems); the aggregate report."""
        try:
            self.written = self._write(aggregate)
            self._writing = False
        except OSError as exc:
            self._writing = False
            self.problems.append(
                f"structeval: cannot write reports to {self.settings.reports_dir}: {exc}"
            )
            report: dict[str, Any] = aggregate.report()
            self.settings.checks.annotate(report)
            return report
        return dict(self.written.report)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The run summary, the reports path and any gate failure (controller or serial only)."""
        if self.is_worker:
            return
        if self.left_alone is None and self.report is None and not (self.problems or self.hints):
            return
        terminalreporter.write_sep("-", "structeval summary")
        for hint in self.hints:
            terminalreporter.write_line(printable(hint))
        if self.report is not None:
            from .report import render_summary

            for line in render_summary(self.report):
                terminalreporter.write_line(line)
        if self.left_alone is not None:
            terminalreporter.write_line(printable(self.left_alone))
        if self.written is not None:
            files = counted(len(self.written.run_names), "run file")
            terminalreporter.write_line(f"reports: {self.written.aggregate_file} ({files})")
        for path in self.published:
            terminalreporter.write_line(f"{self.settings.checks.describe(path)}: {path}")
        if self.saved is not None:
            terminalreporter.write_line(f"baseline saved: {self.saved}")
        if self.report is not None:
            for note in self.settings.checks.notes():  # (a baseline not there yet)
                terminalreporter.write_line(printable(note))
        met = None if self.report is None else self.settings.checks.met(self.report)
        if met is not None:
            terminalreporter.write_line(met)
        for problem in self.problems:
            terminalreporter.write_line(printable(f"FAIL {problem}"), red=True, bold=True)
        from .gates import github_annotations

        for line in github_annotations(self.problems):  # commands, meant as such
            terminalreporter.write_line(line)

    # ----------------------------------------------------------------- helpers

    def _terminal(self) -> bool:
        """Whether pytest's terminal reporter runs (``-p no:terminal`` turns it off)."""
        return self.config.pluginmanager.get_plugin("terminalreporter") is not None

    def _active(self) -> bool:
        """Only a run that touched structeval reports; everyone else sees nothing."""
        return bool(
            self.scenarios_requested
            or self._records
            or self._expected
            or self._notes
            or (self.index is not None and not self.index.empty)
            or self._scenarios_unheard()
        )

    def _scenarios_unheard(self) -> bool:
        """(A pytest-xdist controller) every worker crashed before one finished, in a run
        whose arguments hold scenario folders (``pytest evals``): a scenario run, though no
        worker said so."""
        return (
            self.index is None
            and bool(self._failed_workers)
            and not self._heard
            and bool(self.roots())
        )

    def _runs_unknown(self) -> bool:
        """(A pytest-xdist controller) no worker finished, and none of them reported the
        scenario items it selected: it crashed before its first report reached this process."""
        return (
            self.index is None
            and bool(self._failed_workers)
            and not self._summaries
            and self._expected is None
        )

    def _worker_payload(self, session: pytest.Session) -> dict[str, Any]:
        index = None if self.index is None or self.index.empty else self.index
        notes = loose = None
        if index is not None:
            notes = self._index_notes(session, index)
            loose = index.loose_errors(notes["errors"])
        return {
            "notes": notes,
            "summary": None if index is None else index.summary(),
            "loose_errors": loose,
            "requested": self.scenarios_requested,
            "items": self._expected or {},
            "fixture_tests": sorted(self._fixture_tests),
            "deselected": self._deselected,
            "selected": self._selected,
            "not_found": self._not_found,
            "only_scenarios": self._only_scenarios,
        }

    def _index_notes(self, session: pytest.Session, index: ScenarioIndex) -> dict[str, Any]:
        """The join notes, without what pytest's collection passed by (``--ignore`` ...)."""
        from .collect import PassedBy

        passed_by = PassedBy(session, self.roots(), index, beside=self._beside)
        return passed_by.notes(index.result)

    def _beside(self) -> set[str]:
        """The join keys of the scenario folders around the roots that arguments picked out
        of a tree (:func:`~pytest_structeval.scenarios.scenario_ids_beside`), looked up once:
        the scenarios such a run left out."""
        if self._beside_ids is None:
            from .scenarios import scenario_ids_beside

            given = self.settings.scenarios  # a given root is a whole tree
            picked = [os.fspath(r) for r in self.roots() if r not in given and r.is_dir()]
            self._beside_ids = set()
            if picked:
                self._beside_ids = scenario_ids_beside(
                    picked,
                    os.fspath(self.config.rootpath),
                    reports_dir=os.fspath(self.settings.reports_dir),
                    skip_folders=self.config.getini("norecursedirs"),
                )
        return self._beside_ids

    def _found_nothing(self) -> bool:
        """No scenario, trajectory or load error anywhere: on the controller, no worker
        shipped an index (workers ship only non-empty ones) and none crashed."""
        if self.index is not None:
            return self.index.empty
        return not self._summaries and not self._failed_workers

    def _partial(self, left_out: bool) -> bool:
        """Whether the run scored only some of what it would report: ``-k``/``-m``, ``--lf``,
        ``--sw``, ``--deselect`` (or a ``folder::name`` argument) deselected scenario items
        or tests using the ``structeval`` fixture, or an argument picked scenario folders out
        of a tree (it points into a scenario folder, or the join notes runs of scenarios it
        ``left_out`` around it: ``pytest evals/group_a``; a sample tree beside a whole one is
        no evidence) and an item of some run of the join was not collected: ``pytest .
        evals/group_a`` collects every run on pytest 9 and only the narrower path's on pytest
        8.0, so what was collected tells. (An ``--ignore`` is no selection: what it leaves out
        is never reported.)"""
        roots = self.roots()  # sets narrowed
        if self.narrowed or self._deselected or left_out:
            return True
        if not args_given(self.config):
            return False
        here = self.config.invocation_params.dir
        picked = [Path(os.path.abspath(here / arg.split("::")[0])) for arg in self.config.args]
        if not any(root in path.parents for root in roots for path in picked):
            return False
        # (identity: [scenario_id, run_id, type, scenario location, source, label, ...])
        collected = {(entry[3], entry[5]) for entry in (self._expected or {}).values()}
        return len(collected) < self._runs()

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        """Note a selection of what the reports cover (see :meth:`_partial`), and that the
        run selected at all (then it collected something: no hint, see :func:`group_hints`)."""
        from .collect import ScenarioItem

        self._selected = True
        if not self._deselected:
            self._deselected = any(
                isinstance(i, ScenarioItem) or "structeval" in _fixtures_of(i) for i in items
            )

    def _runs(self) -> int:
        if self.index is not None:
            return self.index.runs
        if not self._summaries:  # no worker finished: what the workers selected is known
            return len(self._expected or {})
        return max((s["runs"] for s in self._summaries), default=0)  # each worker: the same join

    def _nothing_joined(self) -> str:
        from .scenarios import no_runs_message

        if self.index is not None:
            summary = self.index.summary()
        else:  # every worker makes the same join
            summary = max(self._summaries, key=lambda s: s["scenarios"], default={})
        here = self.config.invocation_params.dir
        return no_runs_message(
            summary.get("scenarios", 0),
            [_relative(root, here) for root in self.roots()],
            unreadable=summary.get("unreadable", 0),
            unmatched=summary.get("unmatched", 0),
            given=[_relative(path, here) for path in self.settings.trajectories],
        )

    def _aggregate(self, session: pytest.Session, exitstatus: int) -> Any:
        from .report import Aggregate
        from .reportformat import NOT_RUN

        aggregate = Aggregate.empty()
        for shipped in sorted(self._records):
            for record in _unship(self._records[shipped]):
                # to_dict() results, or the _unship of one: plain, and this session's own
                aggregate.add(record, trusted=True)
        every_notes = list(self._notes)  # the workers' (a controller has no index)
        if self.index is not None:
            notes = self._index_notes(session, self.index)
            every_notes.insert(0, notes)
            self._loose_errors = self.index.loose_errors(notes["errors"])
        for notes in every_notes:
            aggregate.note(notes)
        if self._partial(any(n.get("unselected_trajectories") for n in every_notes)):
            aggregate.mark_selection()
        recovered = self._recovered()
        for worker, nodeid in sorted(recovered.items()):
            aggregate.mark_recovered(
                f"worker {worker} crashed in {node_text(nodeid)}, which was run again"
            )
        lost = [
            f"worker {worker} {reason}"
            for worker, reason in self._failed_workers.items()
            if worker not in recovered
        ]
        for reason in lost:
            aggregate.mark_incomplete(reason)
        # (a run without scenarios has no join to note: then a crash is all that is missing)
        joined_in_workers = self.index is None and (
            self.scenarios_requested or self._scenarios_unheard()
        )
        if joined_in_workers and self._failed_workers and not self._notes:
            aggregate.mark_incomplete("no worker finished: unmatched and load errors are unknown")
            if self._runs_unknown():
                aggregate.mark_incomplete(
                    "no scenario item reached this process before its worker crashed: "
                    "the runs are unknown"
                )
            aggregate.mark_joins_unknown()
            aggregate.note({"errors": [self._load_errors[n] for n in sorted(self._load_errors)]})
        for nodeid in self._collect_errors:
            aggregate.mark_incomplete(f"collection error in {node_text(nodeid)}")
        stopped = session.shouldstop  # (--sw's "Test failed, continuing ...": a stop that
        # the items it left unrun tell, as -x's; Ctrl-C and pytest.exit give no reason)
        if exitstatus == pytest.ExitCode.INTERRUPTED and not (stopped and isinstance(stopped, str)):
            aggregate.mark_incomplete(
                "run terminated (SIGTERM)" if self._sigterm.received else "run interrupted"
            )
        recorded = {(worker, nodeid) for worker, nodeid, _ in self._records}
        reported: dict[str, set[str]] = {}  # node id -> the workers that reported on it
        for worker, nodeid in (*recorded, *self._broken, *self._skipped):
            reported.setdefault(nodeid, set()).add(worker)
        copies = self._copies()
        missing = 0
        skipped: list[dict[str, Any]] = []
        listed: set[str] = set()  # node ids listed as skipped (once, whichever copy skipped)
        for nodeid, identity in sorted((self._expected or {}).items()):
            workers = reported.get(nodeid, set())
            for key in sorted((worker, nodeid) for worker in workers):
                if key in recorded:
                    continue
                why = self._broken.get(key)  # failed without a result: setup error, crash
                if why is not None:
                    aggregate.add(_error_record(nodeid, identity, why), trusted=True)
                elif nodeid not in listed:
                    listed.add(nodeid)
                    scenario_id, run_id, _, _, _, label, *_ = identity
                    skipped.append(
                        {
                            "scenario_id": scenario_id,
                            "run_id": run_id,
                            "label": label,
                            "nodeid": node_text(nodeid),
                            "reason": self._skipped[key],
                        }
                    )
            for _ in range(copies - len(workers)):  # copies no worker reported on
                missing += 1
                why = NOT_RUN + (
                    "; ".join(lost)
                    or str(session.shouldfail or session.shouldstop or "run stopped early")
                )
                aggregate.add(_error_record(nodeid, identity, why), trusted=True)
        if missing:
            items = "scenario item did" if missing == 1 else "scenario items did"
            aggregate.mark_incomplete(f"{missing} {items} not run")
        # (a test whose worker died in it recorded nothing: it did not run to its end)
        unfinished = len(self._fixture_tests - (self._finished - self._crashed))
        if unfinished:  # -x, --maxfail, pytest.exit(returncode=0): no exit status tells
            tests = "test" if unfinished == 1 else "tests"
            stop = session.shouldfail or session.shouldstop
            aggregate.mark_incomplete(
                f"{unfinished} {tests} using the structeval fixture did not run"
                + (f" ({stop})" if isinstance(stop, str) and stop else "")
            )
        # A skipped test's structeval records are left out as a skipped run's are (unless it
        # recorded at teardown; under --dist each, on that worker).
        left_out: dict[str, str] = {}  # node id -> why (the first such worker's copy)
        for key in sorted(self._fixture_skips - recorded):
            left_out.setdefault(key[1], self._skipped[key])
        skipped.extend(
            {"scenario_id": node, "run_id": None, "label": None, "nodeid": node, "reason": why}
            for node, why in ((node_text(n), why) for n, why in sorted(left_out.items()))
        )
        aggregate.note({"skipped_runs": skipped})
        return aggregate

    def _hidden_crashes(self, exitstatus: int) -> list[str]:
        """Why the run fails though pytest counts no failure: a pytest-xdist worker crashed
        and lost something (not :meth:`_recovered`), and pytest's exit status does not tell,
        as when pytest-rerunfailures put the item back to run again and no worker was left
        to run it (``-n 1 --max-worker-restart=0``: a ``rerun``, not a failure). Nothing when
        the run is known to have used no structeval: a worker finished and told it."""
        if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            return []
        recovered = self._recovered()
        crashed = [
            worker
            for worker, reason in self._failed_workers.items()
            if reason == "crashed" and worker not in recovered
        ]
        ours = self._active() or bool(self._fixture_tests)
        if not crashed or (self._heard and not ours):
            return []
        lost = (
            ": the run is incomplete"
            if ours
            else ": no worker finished, so the structeval results it lost are unknown"
        )
        hidden = []
        for worker in crashed:
            nodeid = self._rerun_crashes.get(worker)
            where = (
                f" in {nodeid}, which was put back to run again and never ran to its end"
                if nodeid is not None
                else ""
            )
            hidden.append(
                f"structeval: worker {worker} crashed{where} (pytest counts no failure){lost}"
            )
        return hidden

    def _recovered(self) -> dict[str, str]:
        """The crashed workers that lost nothing, each with the item it crashed in: that
        item was run again elsewhere (pytest-rerunfailures) to its end, without a crash, and
        a worker finished (its payload tells the tests and join notes the crashed one would
        have sent). Its other items went to other workers: any that did not run is counted as
        not run, which keeps the run incomplete."""
        if not self._heard:
            return {}
        return {
            worker: nodeid
            for worker, nodeid in self._rerun_crashes.items()
            if self._failed_workers.get(worker) == "crashed"
            and nodeid in self._finished
            and nodeid not in self._crashed
        }

    def _copies(self) -> int:
        """How many times each selected item runs: once, or under ``--dist each`` once on
        every worker (a restarted worker's replacement finishes the dead one's items)."""
        if getattr(self.config.option, "dist", "no") != "each":
            return 1
        specs = getattr(self.config.option, "tx", None) or []
        return max(1, sum(number for number, _ in map(_workers_of, specs)))

    def _write(self, aggregate: Any) -> WrittenReports:
        from .report import write_reports

        def update(report: dict[str, Any]) -> None:
            self.settings.checks.annotate(report)  # the baseline section, before user hooks
            hook = self.config.hook.pytest_structeval_update_aggregate
            if hook.get_hookimpls():
                self._update_aggregate(hook, report)

        def waiting() -> None:
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None:
                reporter.ensure_newline()
                if getattr(reporter, "_width_of_current_line", 0):  # (-q's or xdist's progress)
                    reporter.write("\n")
                reporter.write_line(
                    "structeval: waiting for another run writing reports into "
                    f"{self.settings.reports_dir}"
                )

        try:
            return write_reports(
                self.settings.reports_dir,
                aggregate,
                update=update,
                spool=self._spool,
                on_wait=waiting,
                on_replace=self._renaming,
            )
        finally:
            if self._spool is not None:
                self._spool.discard()

    def _renaming(self) -> None:
        """The reports are about to be renamed into place: from now until written, a Ctrl-C
        (or memory running out) may leave a folder that mixes this run's and the last run's."""
        self._writing = True

    def _update_aggregate(self, hook: Any, report: dict[str, Any]) -> None:
        """Call the ``pytest_structeval_update_aggregate`` hooks on ``report``. One that raises,
        leaves a value JSON cannot hold, or removes a section the plugin reads or turns it into
        another kind of value (``totals = None``: see :func:`_damage`) fails the run, saying
        so, and the aggregate is written and judged without the hooks' changes: never a
        traceback, nothing lost."""
        from .registry import raised_at
        from .report import report_bytes

        before = json.loads(report_bytes(report))
        try:
            hook(config=self.config, aggregate=report)
            why = _damage(before, report)
        except (Exception, *_HOOK_OUTCOMES) as exc:  # a bug in the hook, or pytest.fail()
            why = f"{type(exc).__name__}: {exc}{raised_at(exc, self.config.rootpath)}"
        if why:
            report.clear()
            report.update(before)
            self.problems.append(
                f"structeval: pytest_structeval_update_aggregate: {why}; the aggregate report "
                "is written without the hooks' changes"
            )


# What a hook may raise besides an Exception (pytest.exit's is one) and still be told as its
# failure, the aggregate written: a Ctrl-C alone stops the run as it means to.
_HOOK_OUTCOMES: Final = (
    pytest.fail.Exception,
    pytest.skip.Exception,
    pytest.xfail.Exception,
    SystemExit,
)
# The sections the summary, the gates and a baseline read first: one removed would read as a
# run that scored nothing.
_READ_SECTIONS: Final = ("totals", "score_summary", "results", "complete")


def _damage(before: dict[str, Any], after: dict[str, Any]) -> str:
    """What an aggregate hook broke: a section, or an entry of one, now of another kind
    (numbers stay numbers), a section the plugin reads removed, or a value JSON cannot hold;
    "" when nothing."""

    def kind(value: Any) -> str:
        return "number" if type(value) in (int, float) else type(value).__name__

    gone = [key for key in _READ_SECTIONS if key in before and key not in after]
    if gone:
        return f"it removed aggregate[{gone[0]!r}]"
    for key in _READ_SECTIONS:
        old, new = before.get(key), after.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            lost = [inner for inner in old if inner not in new]
            if lost:
                return f"it removed aggregate[{key!r}][{lost[0]!r}]"
    for key, old in before.items():
        new = after.get(key, old)
        if kind(new) != kind(old):
            return f"aggregate[{key!r}] was a {kind(old)}, now {kind(new)}"
        for inner, value in old.items() if isinstance(old, dict) else ():
            changed = new.get(inner, value)
            if value is not None and kind(changed) != kind(value):
                return f"aggregate[{key!r}][{inner!r}] was a {kind(value)}, now {kind(changed)}"
    from .report import report_bytes

    try:
        report_bytes(after)
    except (TypeError, ValueError) as exc:
        return f"it left a value JSON cannot hold ({exc})"
    return ""


def _workers_of(spec: str) -> tuple[int, list[str]]:
    """How many pytest-xdist workers one ``--tx`` spec starts (``3*popen``: 3), and its parts."""
    times, star, rest = spec.partition("*")
    number, spec_rest = (int(times), rest) if star and times.isdigit() else (1, spec)
    return number, spec_rest.split("//")


def local_workers(specs: Sequence[str]) -> int:
    """How many pytest-xdist workers of these ``--tx`` specs run on this machine: ``popen``
    ones (``3*popen``, ``popen//chdir=A``), unless they go ``via`` another gateway."""
    return sum(
        number
        for number, parts in map(_workers_of, specs)
        if "popen" in parts and not any(part.startswith("via=") for part in parts)
    )


@contextlib.contextmanager
def _heap_frozen() -> Iterator[None]:
    """The objects alive on entry are left out of garbage collections until exit.

    Building the aggregate allocates enough to set off full collections, and each would walk
    the whole heap of a large run (every item and node) to free nothing of it: about 0.2 s
    per 5,000 scenarios. They are all collectable again on exit. A heap someone else froze
    (``gc.freeze`` in a conftest) is left as it is.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


_STDLIB_JSON: Final = "json:"
"""Prefix of a shipped text that the standard library encoded (see :func:`_ship`)."""


def _ship(value: Any) -> str:
    """Plain data as one JSON text for pytest-xdist: orjson's (several times faster than the
    standard library both ways), or, for what orjson cannot encode exactly (integers beyond
    64 bits, lone surrogates, very deep nesting), the standard library's, marked so that
    :func:`_unship` decodes it with the same library. Either way exact for plain data."""
    import orjson

    try:
        return orjson.dumps(value).decode()
    except TypeError:
        try:
            return _STDLIB_JSON + json.dumps(value, separators=(",", ":"))
        except ValueError:  # an integer past Python's int-string limit, as the reports name it
            from .results import huge_ints_named

            return _STDLIB_JSON + json.dumps(huge_ints_named(value), separators=(",", ":"))


def _unship(text: str) -> Any:
    """The inverse of :func:`_ship`."""
    import orjson

    if text.startswith(_STDLIB_JSON):
        return json.loads(text[len(_STDLIB_JSON) :])
    return orjson.loads(text)


def _fixtures_of(item: pytest.Item) -> Sequence[str]:
    """The fixture names an item requests (none for an item that is no function)."""
    names: Sequence[str] = getattr(item, "fixturenames", ())
    return names


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to rootdir when it lies under it: the form every host agrees on."""
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


def _failure_reason(report: pytest.TestReport) -> str:
    """The exception message of a failure (as in pytest's short summary), else the last line
    of its text, such as xdist's "worker 'gw0' crashed while running ..."."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return f"{report.when}: {crash.message}"
    lines = str(report.longrepr or "").strip().splitlines()
    return lines[-1] if lines else f"failed in {report.when}"


def _skip_reason(report: pytest.TestReport) -> str:
    """The reason a skip gave (pytest's ``(path, line, "Skipped: reason")`` long report), or
    an expected failure's (``xfail``: its long report is the failure)."""
    wasxfail = getattr(report, "wasxfail", None)
    if isinstance(wasxfail, str):
        return f"xfail: {wasxfail}" if wasxfail else "xfail"
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def _error_record(nodeid: str, identity: list[Any], error: str) -> dict[str, Any]:
    from .report import RunRecord

    scenario_id, run_id, scenario_type, scenario_path, source, label, *system = identity
    runner, model, question, scorer = system  # (see ScenarioItem.identity)
    return RunRecord.for_error(
        scenario_id=scenario_id,
        run_id=run_id,
        error=error,
        nodeid=node_text(nodeid),
        scenario_type=scenario_type,
        scenario_path=scenario_path,
        source=source,
        scorer=scorer,
        label=label,
        runner=runner,
        model=model,
        question=question,
    ).to_dict()


def _section(records: list[dict[str, Any]]) -> str:
    """One line per record for the report's ``structeval`` section (shown with failures, -rA)."""
    from .report import run_name

    lines = []
    for record in records:
        score = record.get("score") or {}
        label = run_name(record) or "-"
        scenario = str(record.get("scenario_id") or "-")
        # A fixture record names its run after the test, as its node id ends: say it once.
        run = "" if scenario.endswith(f"::{label}") else f" [{label}]"
        line = (
            f"{scenario}{run} "
            f"{score.get('scorer')}: score {score_text(float(score.get('score') or 0.0), '.4f')} "
            f"{'passed' if score.get('passed') else 'FAILED'}"
            + (f" ({cut_message(str(record['error']))})" if record.get("error") else "")
        )
        lines.append(printable(line))
    return "\n".join(lines)


def _runs_the_command_line(config: pytest.Config) -> bool:
    """Whether ``config``'s session is this process's own: a pytest-xdist worker's, or the
    ``pytest`` program's (``pytest ...``, ``python -m pytest ...``): run by pytest's console
    entry point, which the process ends with, with ``sys.argv[1:]`` as its arguments (a
    pytester session inside it has others). Called during the session."""
    from _pytest import config as pytest_config

    if hasattr(config, "workerinput"):
        return True
    if config.invocation_params.args != tuple(sys.argv[1:]):
        return False
    # The program's entry: _console_main from pytest 9.1 on (console_main calls it), before
    # that console_main.
    programs = {
        getattr(pytest_config, name).__code__
        for name in ("_console_main", "console_main")
        if hasattr(pytest_config, name)
    }
    frame: FrameType | None = sys._getframe()
    while frame is not None and frame.f_code not in programs:
        frame = frame.f_back
    return frame is not None
