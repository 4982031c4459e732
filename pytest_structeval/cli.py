"""The ``structeval`` command: ``evaluate`` and ``compare``, outside pytest.

``evaluate`` scores saved trajectories against scenarios with the same engine, report files,
gates, baseline comparison and Markdown summary as ``pytest --structeval-scenarios``. Exit
codes: 0 when the run completes and meets its gates (with no gate: when every run passed), 1
when a gate fails, a run regressed or improved with ``--fail-on-regression`` /
``--fail-on-improvement``, a run failed with no gate (with ``--fail-on-regression``: one the
baseline lacks), a file could not be read with no gate, or no run was scored, 2 on usage
errors
(bad option or gate, missing path or baseline, unknown scorer, unwritable output), 130 when
interrupted (the reports written so far are marked ``complete: false``), 143 when ended by
SIGTERM the same way (see :mod:`~pytest_structeval.terminate`).

``compare BASELINE CURRENT`` compares two saved aggregates without scoring anything again
(pytest-benchmark#273); it exits 1 on the changes it is asked to fail on, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.util
import os
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from .baseline import (
    Baseline,
    BaselineMissing,
    Tolerance,
    aggregate_file,
    load_baseline,
    parse_tolerance,
)
from .dirlock import WaitInterrupted
from .errors import OptionsError, session_warnings
from .exitgc import freeze_heap_at_exit
from .gates import (
    Checks,
    github_annotations,
    parse_gate,
    rate_gate,
    unread_failure,
)
from .naming import ItemNames, printable, read_rate, user_path
from .registry import (
    DEFAULT_SCORER,
    Registry,
    default_registry,
    registration_failure,
    scoped_elsewhere,
)
from .report import (
    AGGREGATE_NAME,
    Aggregate,
    baseline_lines,
    render_summary,
    reports_fate,
    tool_version,
    write_ahead,
    write_reports,
)
from .reportformat import DEFAULT_REPORTS_DIR
from .scenarios import Run, no_runs_message, plan, score_run
from .spool import ReportSpool, spare_core
from .terminate import TerminateAsInterrupt, Terminated
from .verdicts import MODES as VERDICT_MODES
from .verdicts import check_env_mode, set_run_mode

__all__ = ["build_parser", "console_main", "main"]

_SHOWN_FAILURES = 20


def _rate(text: str) -> float:
    try:
        return read_rate(text)
    except ValueError as exc:  # (argparse shows only this kind's message)
        raise argparse.ArgumentTypeError(str(exc)) from None


WarningFilter = tuple[str, str, type[Warning], str, int]
"""One warnings filter: ``warnings.filterwarnings``' arguments (message and module as patterns)."""
_ACTIONS: Final = ("default", "always", "ignore", "module", "once", "error")


def _warning_filter(text: str) -> WarningFilter:
    """A ``-W`` filter read as Python's own ``-W`` reads it (``action:message:category:
    module:lineno``; an action by any prefix of it, or ``all``; message and module matched
    literally, the message at the start, the module whole), but once this package can be
    imported: Python reads its ``-W`` before, and ignores a category such as
    ``pytest_structeval.GoldWarning`` (``invalid module name``). A dotted category is
    imported, as Python imports it."""
    fields = [part.strip() for part in text.split(":")]
    if len(fields) > 5:
        raise argparse.ArgumentTypeError(
            f"too many fields in {text!r} (action:message:category:module:lineno)"
        )
    action, message, category, module, lineno = fields + [""] * (5 - len(fields))
    chosen = (
        "always"
        if action == "all"
        else next((name for name in _ACTIONS if name.startswith(action)), None)
    )
    if chosen is None:
        raise argparse.ArgumentTypeError(
            f"invalid action {action!r} (one of {', '.join(_ACTIONS)})"
        )
    try:  # (as Python reads it: int()'s text, ``+5`` and ``1_0`` too)
        number = int(lineno or 0)
    except ValueError:
        number = -1  # (refused below, as a negative one)
    if number < 0:
        raise argparse.ArgumentTypeError(f"invalid line number {lineno!r}")
    return (
        chosen,
        re.escape(message) if message else "",
        _warning_category(category),
        re.escape(module) + r"\Z" if module else "",
        number,
    )


def _warning_category(name: str) -> type[Warning]:
    """The warning class a ``-W`` filter names: a builtin one by its name, another by its
    dotted path (the module imported); ``ArgumentTypeError`` for anything else."""
    if not name:
        return Warning
    where, dot, klass = name.rpartition(".")
    try:  # (an empty or relative module name too: Python refuses them)
        found = getattr(importlib.import_module(where if dot else "builtins"), klass)
    except (ImportError, TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"invalid module name {where!r}") from None
    except AttributeError:
        raise argparse.ArgumentTypeError(f"unknown warning category {name!r}") from None
    if not (isinstance(found, type) and issubclass(found, Warning)):
        raise argparse.ArgumentTypeError(f"invalid warning category {name!r}")
    return found


def _here() -> str:
    """The current folder as the shell names it (``$PWD``, when that is this folder: a
    checkout reached through a symbolic link), so a path given through it is named relative
    too, as one given relative is."""
    pwd = os.environ.get("PWD")
    if pwd and os.path.isabs(pwd):
        with contextlib.suppress(OSError):
            if os.path.samefile(pwd, os.curdir):
                return pwd
    return os.getcwd()


def _given(text: str) -> str:
    """A path given: an empty one (an unset shell variable) would be the current folder, so
    reports and tables would land among the user's own files, and a scan would read them.
    ``~`` and ``$VAR`` are expanded, as pytest does (:func:`~pytest_structeval.naming.user_path`):
    a shell leaves them alone after ``=`` (``--reports-dir=~/ci``) or in quotes."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty: name a path")
    return user_path(text)


def _given_path(text: str) -> Path:
    return Path(_given(text))


def _tolerance(text: str) -> Tolerance:
    try:
        return parse_tolerance(text)
    except OptionsError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="structeval",
        description="Score structured LLM answers against ground truth.",
    )
    parser.add_argument(
        "--version", action="version", version=f"structeval {tool_version() or '(not installed)'}"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    evaluate = commands.add_parser(
        "evaluate",
        help="score saved trajectories against scenarios and write reports",
        description=(
            "Join trajectories to scenario_<id>/ folders and scenario files, score every run, "
            "write "
            "<reports-dir>/<run id>.json (by its label, run-1-2, when a run id repeats in a "
            "scenario) and _aggregate.json, and print a summary. "
            "Exit 1 when a gate fails, a run regressed or improved (--fail-on-regression, "
            "--fail-on-improvement), the baseline could not be saved, nothing ran, a file or "
            "entry could not be read and no gate was given, or any run failed and no gate was "
            "given (with --fail-on-regression: a run the baseline lacks); 2 on usage errors, "
            "130 when interrupted, 143 when ended by SIGTERM (the runs scored so far are "
            "written either way)."
        ),
    )
    evaluate.add_argument(
        "--scenarios",
        type=_given,
        nargs="+",
        action="extend",
        required=True,
        metavar="PATH",
        help="folders holding scenario_<id>/ folders and *scenarios.json[l]/.yaml files "
        "(searched recursively), or scenario files: a JSON/YAML list or object, or JSONL",
    )
    evaluate.add_argument(
        "--trajectories",
        type=_given,
        nargs="+",
        action="extend",
        default=[],
        metavar="PATH",
        help="trajectory .json/.jsonl files or folders (recursive); "
        "trajectories inside scenario folders are always read",
    )
    evaluate.add_argument(
        "--scorer-default",
        default=DEFAULT_SCORER,
        metavar="NAME",
        help=f"scorer for scenarios that name none (default {DEFAULT_SCORER})",
    )
    evaluate.add_argument(
        "--reports-dir",
        default=DEFAULT_REPORTS_DIR,
        type=_given,
        metavar="DIR",
        help=f"where reports are written (default {DEFAULT_REPORTS_DIR})",
    )
    evaluate.add_argument(
        "--fail-under",
        type=_rate,
        metavar="RATE",
        help="exit 1 when the pass rate is under RATE (0..1)",
    )
    evaluate.add_argument(
        "--min-score",
        type=_rate,
        metavar="X",
        help="exit 1 when the mean score is under X (0..1)",
    )
    evaluate.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="EXPR",
        help="exit 1 unless a report figure meets EXPR, e.g. f1>=0.85, parse_rate>=0.99, "
        "pass_hat_k>=0.9, errors==0, or a scenario type's: pass_rate[IoT]>=0.9, "
        "score_avg[*]>=0.8 (every type), or a runner and model's: "
        "pass_rate{react / gpt-4o}>=0.9, pass_hat_k{*}>=0.8 (repeatable)",
    )
    evaluate.add_argument(
        "--baseline",
        type=_given,
        metavar="PATH",
        help="compare runs, scenarios and fields with an earlier _aggregate.json "
        "(or the reports folder holding it)",
    )
    _change_options(evaluate)
    evaluate.add_argument(
        "--save-baseline",
        type=_given_path,
        metavar="PATH",
        help="after a complete run, write its aggregate to PATH as the next baseline",
    )
    evaluate.add_argument(
        "--markdown",
        type=_given_path,
        metavar="PATH",
        help="write a Markdown summary (totals, gates, baseline, worst fields, failing runs)",
    )
    evaluate.add_argument(
        "--csv",
        type=_given_path,
        metavar="DIR",
        help="write the runs and the field scores as CSV tables (runs.csv, fields.csv) into DIR",
    )
    evaluate.add_argument(
        "--html",
        type=_given_path,
        metavar="PATH",
        help="write the run as one self-contained HTML page (totals, gates, every run and field)",
    )
    evaluate.add_argument(
        "--github-summary",
        action="store_true",
        help="append the Markdown summary to $GITHUB_STEP_SUMMARY when it is set",
    )
    evaluate.add_argument(
        "--verdicts",
        choices=VERDICT_MODES,
        help="kept comparator verdicts (cached_comparator): use (default), refresh, or "
        "replay (ask no judge; a verdict not kept fails its field)",
    )
    evaluate.add_argument(
        "--plugin",
        action="append",
        type=user_path,
        default=[],
        metavar="MODULE",
        help="import MODULE (a dotted name found from the current folder, or a .py file such "
        "as conftest.py) and call its pytest_structeval_register(registry) to add scorers",
    )
    evaluate.add_argument(
        "-W",
        "--pythonwarnings",
        action="append",
        type=_warning_filter,
        default=[],
        metavar="FILTER",
        help="a warnings filter, as Python's -W writes it, which can name this package's "
        "warnings (Python's own -W cannot): error::pytest_structeval.GoldWarning makes a "
        "gold that needed a repair an error of its runs (repeatable; the last given wins)",
    )
    evaluate.set_defaults(command_parser=evaluate)
    compare = commands.add_parser(
        "compare",
        help="compare two saved aggregates, without scoring again",
        description=(
            "Compare CURRENT with BASELINE (each an _aggregate.json or the reports folder "
            "holding it) run by run, scenario by scenario and field by field, and print the "
            "changes. Exit 1 on the changes asked for (--fail-on-regression, "
            "--fail-on-improvement; with --fail-on-regression, a failing run or scenario the "
            "baseline lacks too), 2 on usage errors."
        ),
    )
    compare.add_argument("baseline", type=_given, metavar="BASELINE", help="the earlier aggregate")
    compare.add_argument("current", type=_given, metavar="CURRENT", help="the later aggregate")
    _change_options(compare)
    compare.set_defaults(command_parser=compare)
    return parser


def _change_options(command: argparse.ArgumentParser) -> None:
    """The options of a comparison with a baseline, shared by ``evaluate`` and ``compare``."""
    command.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 1 when a run or scenario scores worse than in the baseline; excuses a run "
        "that failed there too (no gate needed), never a new one that fails",
    )
    command.add_argument(
        "--fail-on-improvement",
        action="store_true",
        help="exit 1 when a run or scenario scores better than in the baseline, so an "
        "outdated baseline gets replaced",
    )
    command.add_argument(
        "--regression-tolerance",
        type=_tolerance,
        default=None,
        metavar="X",
        help="score or pass-rate change not yet counted (either way): an amount in [0, 1] "
        "(default 0) or a share of the baseline figure such as 5%%",
    )


def _names_file(name: str) -> bool:
    """Whether a ``--plugin`` value is a file's path, not a dotted module name."""
    return name.endswith(".py") or os.sep in name or bool(os.altsep and os.altsep in name)


def _plugin_key(name: str) -> str:
    """What a ``--plugin`` value loads: its file, however written (``conftest``,
    ``conftest.py``, ``./conftest.py``), else the name itself (one not found: its import
    then fails and says so)."""
    if _names_file(name):
        return os.path.realpath(name)
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return name
    origin = spec.origin if spec is not None else None
    return os.path.realpath(origin) if origin and os.path.isfile(origin) else name


def _import_plugin(name: str) -> ModuleType:
    """A module by dotted name, found from the current folder first (as ``python -m`` does;
    a console script's ``sys.path`` starts at its own ``bin/``), or a ``.py`` file by path."""
    if _names_file(name):
        path = Path(name).resolve()
        module_name = f"_structeval_plugin_{path.stem}"
        while getattr(sys.modules.get(module_name), "__file__", str(path)) != str(path):
            module_name += "_"  # another file of that name, such as a second conftest.py
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None or not path.is_file():
            raise ImportError(f"no Python file at {name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # as an import would (dataclasses, pickle look here)
        spec.loader.exec_module(module)
        return module
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    return importlib.import_module(name)


@dataclass(frozen=True)
class _Plugins:
    """The registries the ``--plugin`` modules filled: ``registry`` for every scenario, and,
    for a ``conftest.py`` below the project's root, its folder's (``scoped``: a copy of the
    registry of the folders above, with what it registered), which apply to the scenarios
    under that folder only, as in pytest."""

    registry: Registry
    scoped: dict[Path, Registry] = field(default_factory=dict)

    def for_scenario(self, path: str | os.PathLike[str]) -> Registry:
        """The registry of the scenario at ``path`` (its folder, or its scenario file)."""
        place = Path(os.path.abspath(path))
        held = [f for f in self.scoped if f == place or f in place.parents]
        return self.scoped[max(held, key=lambda f: len(f.parts))] if held else self.registry

    def elsewhere(self, scorer: str, path: str | os.PathLike[str]) -> str:
        """For a scorer the registry of the scenario at ``path`` lacks: which ``conftest.py``
        files register it for their own folders (see
        :func:`~pytest_structeval.registry.scoped_elsewhere`), else ``""``."""
        place = Path(os.path.abspath(path))
        return scoped_elsewhere(scorer, place, self.scoped.items(), os.path.relpath)

    def knows(self, scorer: str) -> bool:
        """Whether any of the registries holds ``scorer``."""
        return any(scorer in r.scorers for r in (self.registry, *self.scoped.values()))


def _project_root() -> Path:
    """The folder pytest would take as rootdir from here: the first one up holding an ini
    file, else the current folder."""
    here = Path(os.path.abspath(os.curdir))
    for folder in (here, *here.parents):
        if any((folder / name).is_file() for name in _ROOT_FILES):
            return folder
    return here


def _plugin_folder(module: ModuleType, root: Path) -> Path | None:
    """The folder a plugin's registrations apply to: a ``conftest.py``'s below ``root``, as
    in pytest; ``None`` for any other (every scenario)."""
    file = getattr(module, "__file__", None)
    if not isinstance(file, str) or os.path.basename(file) != "conftest.py":
        return None
    folder = Path(os.path.abspath(file)).parent
    return None if folder == root or folder in root.parents else folder


def _registry(parser: argparse.ArgumentParser, modules: Sequence[str]) -> _Plugins:
    registry = default_registry().copy()
    loaded: set[str] = set()
    root = _project_root()
    hooks: list[tuple[str, Callable[..., Any], Path | None]] = []
    for name in modules:
        key = _plugin_key(name)
        if key in loaded:  # one file named twice (a CI wrapper's --plugin and the user's)
            continue
        loaded.add(key)
        try:
            module = _import_plugin(name)
        except Exception as exc:  # anything the module raises while it loads
            parser.error(f"--plugin {name}: cannot import: {type(exc).__name__}: {exc}")
        hook = getattr(module, "pytest_structeval_register", None)
        if not callable(hook):
            parser.error(f"--plugin {name}: no pytest_structeval_register(registry) function")
        hooks.append((name, hook, _plugin_folder(module, root)))
    scoped: dict[Path, Registry] = {}
    # every scenario's first, then each conftest's below the root, outermost first
    for name, hook, folder in sorted(hooks, key=lambda h: -1 if h[2] is None else len(h[2].parts)):
        target = registry
        if folder is not None:
            target = _Plugins(registry, scoped).for_scenario(folder).copy()
            scoped[folder] = target
        try:
            hook(registry=target)
        except Exception as exc:  # a bad registration or a bug in the hook: no traceback
            parser.error(f"--plugin {name}: {registration_failure(exc, os.getcwd())}")
    return _Plugins(registry, scoped)


def _say(line: str, *, command: bool = False) -> None:
    """Print one line; characters the terminal cannot encode (odd file names, ids) are
    escaped, and so are control characters and workflow commands, unless the line is a
    ``command`` this tool means (a GitHub annotation)."""
    if _lost and sys.stdout is _lost[-1]:
        return
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    text = line if command else printable(line)
    try:
        print(text.encode(encoding, "backslashreplace").decode(encoding), flush=True)
    except OSError as exc:  # the reader stopped early (``| head``), or the disk is full: the
        if not isinstance(exc, BrokenPipeError):  # run goes on, reports and exit code intact
            _tell(f"structeval: cannot write standard output: {exc}")
        _drop_stdout()


_STDOUT_DESCRIPTOR: Final = 1  # the process's standard output
# A standard output that failed (see ``_drop_stdout``): nothing more is printed to it.
_lost: list[Any] = []


def _tell(line: str) -> None:
    """Print one line on standard error. A closed or full stream loses the line, never the
    run: Python's own ``warnings.showwarning`` does the same (a ``GoldWarning`` is shown
    from inside a scorer, where an error would count as the scorer's)."""
    if sys.stderr is None:  # started with standard error closed (``2>&-``)
        return
    with contextlib.suppress(OSError):
        print(printable(line), file=sys.stderr, flush=True)


def _drop_stdout() -> None:
    """Print nothing more to the standard output that failed. When it writes to the process's
    standard output descriptor, point that at the null device too, as the flush at exit would
    fail again (Python's documented remedy for ``BrokenPipeError``); a stream on a descriptor
    of its own (a caller's tee to a log) is left as it is."""
    stream = sys.stdout
    _lost.append(stream)
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # a stream object without one
        return
    if descriptor != _STDOUT_DESCRIPTOR:
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, descriptor)
    finally:
        os.close(devnull)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
    *,
    naming: list[str],
    shown: Callable[..., None],
) -> None:
    """``warnings.showwarning`` while runs are scored (the user's filters have decided it
    is shown): one of this package's (a ``GoldWarning``, ``SchemaWarning``,
    ``ComparatorWarning``: every warning it raises is one of its own categories) names the
    run's item, as its text quotes the gold or the schema and not where it comes from (the
    line that warned is the package's); any other (a user's scorer's) goes to the ``shown``
    Python had."""
    if category.__module__.partition(".")[0] == __package__:
        _tell(f"structeval: {naming[0]}: {category.__name__}: {message}")
    else:
        shown(message, category, filename, lineno, file, line)


def _checks(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Checks:
    """Gates, baseline and Markdown targets; loaded before anything is written, so a baseline
    in the reports folder is read before this run replaces it."""
    gates = []
    if args.fail_under is not None:
        gates.append(rate_gate("pass_rate", args.fail_under, "--fail-under"))
    if args.min_score is not None:
        gates.append(rate_gate("score_avg", args.min_score, "--min-score"))
    first = None  # a baseline this run saves, not there yet: a first run compares nothing
    try:
        gates += [parse_gate(expr, "--gate") for expr in args.gate]
        baseline = load_baseline(args.baseline) if args.baseline else None
    except BaselineMissing as exc:
        baseline = None
        saved = args.save_baseline
        if saved is None or os.path.abspath(exc.target) != os.path.abspath(saved):
            own = os.path.abspath(exc.target) in (
                os.path.abspath(args.reports_dir),
                os.path.abspath(os.path.join(args.reports_dir, AGGREGATE_NAME)),
            )
            advice = (
                f"leave --baseline out this time: its reports in {args.reports_dir} are "
                "the next run's baseline"
                if own
                else f"add --save-baseline {args.baseline}, which compares nothing and saves "
                "the run there, or leave --baseline out"
            )
            parser.error(f"{exc} (a first run has none: {advice})")
        first = args.baseline
    except OptionsError as exc:
        parser.error(str(exc))
    for change in ("regression", "improvement"):
        if getattr(args, f"fail_on_{change}") and baseline is None and first is None:
            parser.error(f"--fail-on-{change} needs --baseline PATH")
    if args.regression_tolerance is not None and baseline is None and first is None:
        parser.error("--regression-tolerance needs --baseline PATH")  # it would do nothing
    if os.path.exists(args.reports_dir) and not os.path.isdir(args.reports_dir):
        shown = printable(args.reports_dir)
        parser.error(f"the reports folder {shown} is a file: name a folder")
    try:
        checks = _baseline_checks(
            args,
            baseline,
            gates=tuple(gates),
            markdown=args.markdown,
            csv=args.csv,
            html=args.html,
            github_summary=args.github_summary,
            save_baseline=args.save_baseline,
            accept="--save-baseline PATH",
            first_baseline=first,
        )
        checks.refuse_before_run(args.reports_dir)
    except OptionsError as exc:  # two outputs naming one file
        parser.error(str(exc))
    return checks


def _baseline_checks(args: argparse.Namespace, baseline: Baseline | None, **rest: Any) -> Checks:
    """``Checks`` with the comparison options of :func:`_change_options` (and ``rest``)."""
    return Checks(
        baseline=baseline,
        tolerance=0.0 if args.regression_tolerance is None else args.regression_tolerance,
        fail_on_regression=args.fail_on_regression,
        regression_flag="--fail-on-regression",
        fail_on_improvement=args.fail_on_improvement,
        improvement_flag="--fail-on-improvement",
        judge_failing_runs=True,
        **rest,
    )


def _item_names(runs: Sequence[Run]) -> list[tuple[str, str]]:
    """Each run's item name and label, given per scenario folder or file as pytest gives
    them (:meth:`ItemNames.give_all`), so a run's report file is named alike in both."""
    nodes: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        nodes.setdefault(run.scenario.path, []).append(i)
    names: list[tuple[str, str]] = [("", "")] * len(runs)
    for indices in nodes.values():
        given = ItemNames().give_all([(runs[i].scenario.id, runs[i].label) for i in indices])
        for i, name in zip(indices, given, strict=True):
            names[i] = name
    return names


# Files that make a folder pytest's rootdir, above which it looks for no conftest.py.
_ROOT_FILES: Final = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _conftests(scenarios: Sequence[str]) -> list[str]:
    """The ``conftest.py`` files pytest would load for these scenario paths: the current
    folder's, and those in each path's folder and the folders above it, up to the project's
    root (the first holding an ini file) or, with none, the current folder; outermost first."""
    here = os.path.realpath(os.curdir)
    found = dict.fromkeys([os.path.join(here, "conftest.py")])
    for given in scenarios:
        folder = Path(given).resolve()
        chain = [folder if folder.is_dir() else folder.parent]
        while not any((chain[-1] / name).is_file() for name in _ROOT_FILES):
            if chain[-1].parent == chain[-1]:  # no root: pytest's would hold the current folder
                chain = [f for f in chain if f.is_relative_to(here)]
                break
            chain.append(chain[-1].parent)
        found.update(dict.fromkeys(os.path.join(f, "conftest.py") for f in reversed(chain)))
    return [path for path in found if os.path.isfile(path)]


def _conftest_hint(plugins: Sequence[str], scenarios: Sequence[str]) -> str:
    """Where pytest would have found the scorer: a ``conftest.py`` registers its scorers for
    pytest, and the CLI reads it only when told (``--plugin conftest``, or its path)."""
    here = os.path.realpath(os.curdir)
    loaded = {
        os.path.join(here, "conftest.py") if name == "conftest" else os.path.realpath(name)
        for name in plugins
    }
    missed = [path for path in _conftests(scenarios) if path not in loaded]
    if not missed:
        return ""
    shown = [os.path.relpath(path, here) for path in missed]
    flags = ["--plugin conftest" if name == "conftest.py" else f"--plugin {name}" for name in shown]
    names = ["./conftest.py" if name == "conftest.py" else name for name in shown]
    return f"a scorer that {' or '.join(names)} registers needs {' or '.join(flags)}"


def _evaluate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``structeval evaluate``, under its ``-W`` filters (this call's only: a caller's
    filters are as they were after it)."""
    with warnings.catch_warnings():
        for action, message, category, module, lineno in args.pythonwarnings:
            warnings.filterwarnings(action, message, category, module, lineno)
        return _evaluate_filtered(parser, args)


def _evaluate_filtered(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from .modes import forget_gold_warnings

    forget_gold_warnings()  # (a run in a process that ran one before warns again)
    try:
        plugins = _registry(parser, args.plugin)
        checks = _checks(parser, args)
        try:
            if not plugins.knows(args.scorer_default):  # (a conftest's for its folder: known)
                plugins.registry.scorers.get(args.scorer_default)
        except OptionsError as exc:  # (naming the scorer meant, if one is near)
            hint = _conftest_hint(args.plugin, args.scenarios)
            parser.error(f"{exc}; {hint}" if hint else str(exc))
        # Paths in reports relative to the current folder, as pytest names them relative to
        # rootdir (an absolute path given inside it too).
        joined = plan(args.scenarios, args.trajectories, root=_here(), reports_dir=args.reports_dir)
    except OSError as exc:  # a path missing, not a folder or scenario file, or unreadable
        parser.error(str(exc))
    except KeyboardInterrupt:  # loading plugins or discovering
        _tell("structeval: interrupted before any run was scored; nothing written")
        return 130

    aggregate = Aggregate.empty()
    aggregate.note(joined.notes())
    # Report files are created by a writer process while runs are scored (see spool.py).
    # (realpath: a link loop as the folder fails when written, as without a spool)
    spool = ReportSpool(Path(os.path.realpath(args.reports_dir))) if spare_core() else None
    failures: list[str] = []
    unknown_scorer = False  # a scenario named a scorer no plugin registered
    status = 0
    naming = [""]  # the item being scored, which the package's warnings name
    shown = warnings.showwarning
    # (catch_warnings: a run shows its warnings once, though a run before it in this
    # process showed the same; the showwarning and filters are restored after. Its context
    # is the run's own, where a GoldWarning shows once, also when called inside a test.)
    with warnings.catch_warnings(), session_warnings():
        warnings.showwarning = functools.partial(_show_warning, naming=naming, shown=shown)
        try:
            for run, (name, label) in zip(joined.runs, _item_names(joined.runs), strict=True):
                naming[0] = name
                registry = plugins.for_scenario(run.scenario.path)
                record = score_run(
                    run.scenario,
                    run.trajectory,
                    default_scorer=args.scorer_default,
                    registry=registry,
                    run_id=run.run_id,
                    label=label,
                    elsewhere=functools.partial(plugins.elsewhere, path=run.scenario.path),
                )
                data = record.to_dict()
                aggregate.add(data, trusted=True)
                if spool is not None:
                    write_ahead(spool, data)
                if not record.passed:
                    reason = (record.rationale.strip().splitlines() or ["failed"])[0][:200]
                    failures.append(f"FAILED {name}: {reason}")
                    asked = run.scenario.scorer  # (the default scorer was checked before any run)
                    unknown_scorer = unknown_scorer or (
                        asked is not None and asked not in registry.scorers
                    )
        except KeyboardInterrupt as exc:
            aggregate.mark_incomplete(str(exc) if isinstance(exc, Terminated) else "interrupted")
            status = 130

    written = None
    if joined.empty:  # nothing at all to report (a folder of something else): the last stay
        report = aggregate.report()
        checks.annotate(report)
    else:
        renaming: list[bool] = []  # (the reports are being renamed into place)
        try:
            written = write_reports(
                args.reports_dir,
                aggregate,
                update=checks.annotate,
                spool=spool,
                on_wait=lambda: _tell(
                    f"structeval: waiting for another run writing reports into {args.reports_dir}"
                ),
                on_replace=lambda: renaming.append(True),
            )
        except WaitInterrupted:
            _tell(
                "structeval: interrupted while waiting for another run writing reports into "
                f"{args.reports_dir}: nothing written"
            )
            return 130
        except KeyboardInterrupt:
            became = reports_fate(args.reports_dir, renaming=bool(renaming), written=False)
            _tell(f"structeval: interrupted at the end of the run: {became}")
            return 130
        except OSError as exc:
            for line in render_summary(aggregate.report()):  # the results are not lost
                _say(line)
            _tell(f"structeval: cannot write reports to {args.reports_dir}: {exc}")
            return 2
        finally:
            if spool is not None:
                spool.discard()
        report = dict(written.report)
    problems: list[str] = []
    # As in a pytest run, where each is a failing item, unless a gate says enough, or
    # --fail-on-regression does for runs the baseline holds (checks.failures names the rest).
    if failures and not checks.judges:
        problems.append(
            f"structeval: {len(failures)} of {len(joined.runs)} runs failed; with no gate "
            "every run must pass (a gate such as --fail-under 0.8 decides instead)"
        )
    unread = int(report.get("totals", {}).get("load_errors") or 0)
    if unread and not checks.applied_gates:
        problems.append(unread_failure(unread, unread))
    if not joined.runs:
        found = len(joined.unmatched_scenarios) + len(joined.unread_scenarios)
        unreadable = sum(s.error is not None for s in joined.unmatched_scenarios)
        problems.append(
            no_runs_message(
                found,
                args.scenarios,
                unreadable=unreadable,
                unmatched=len(joined.unmatched_trajectories),
                option="--trajectories",
                given=args.trajectories or (),
            )
        )
    end = checks.settle(report, problems, written=written is not None, unsaved="no run")
    reports_dir = None if written is None else Path(args.reports_dir)
    published, unpublished = checks.publish_all(report, end.problems, reports_dir=reports_dir)
    for line in render_summary(report):
        _say(line)
    for line in failures[:_SHOWN_FAILURES]:
        _say(line)
    if len(failures) > _SHOWN_FAILURES:
        _say(f"... and {len(failures) - _SHOWN_FAILURES} more failing runs")
    for path in published:
        _say(f"{checks.describe(path)}: {path}")
    directory = Path(args.reports_dir)
    if written is None:
        _say(f"Reports in {directory} left as they were")
    else:
        files = len(written.run_names)
        _say(f"Reports written: {directory / '<run id>.json'} ({files} file{'s' * (files != 1)})")
        _say(f"Aggregate: {directory / AGGREGATE_NAME}")
    if end.saved is not None:
        _say(f"Baseline saved: {end.saved}")
    for note in checks.notes():  # (a baseline not there yet)
        _say(note)
    met = checks.met(report)
    if met is not None:
        _say(met)
    for line in end.problems:
        _say(line)
    for line in github_annotations(end.problems):
        _say(line, command=True)
    hint = _conftest_hint(args.plugin, args.scenarios) if unknown_scorer else ""
    if hint:
        _tell(f"structeval: {hint}")
    if unpublished is not None:
        _tell(f"structeval: cannot write {unpublished}")
        return 2
    return status or (1 if end.problems else 0)


def _compare(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """Print how CURRENT changed against BASELINE; 1 on the changes asked to fail on."""
    try:
        before = load_baseline(args.baseline)
        after = load_baseline(args.current, role="current")
    except OptionsError as exc:
        parser.error(str(exc))
    current, baseline = (aggregate_file(p) for p in (args.current, args.baseline))
    checks = _baseline_checks(args, before, accept=f"a copy of {current} as {baseline}")
    report = dict(after.report)
    checks.annotate(report)
    problems = checks.failures(report)
    for line in [*baseline_lines(report["baseline"]), *problems]:
        _say(line)
    for line in github_annotations(problems):
        _say(line, command=True)
    return 1 if problems else 0


_COMMANDS: Final = ("evaluate", "compare")


def _command_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings the commands take (``--scenarios``, ``--plugin``...)."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                found.update(command._option_string_actions)
    return found


def _asks_help(arg: str) -> bool:
    """``-h``, ``--help`` or an abbreviation argparse reads as it (``--h``, ``--he``)."""
    return arg == "-h" or (len(arg) > 2 and "--help".startswith(arg))


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point ``structeval``; returns the exit code."""
    _lost.clear()  # a stream that failed in an earlier call may work again
    parser = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    command = next((i for i, arg in enumerate(given) if arg in _COMMANDS), None)
    early = given if command is None else given[:command]
    helped = any(map(_asks_help, early))
    if any(len(arg) > 2 and "--version".startswith(arg) for arg in early):  # (--v, --vers)
        given = ["--version"]  # the program's own option: argparse answers it
    elif early and (command is not None or helped or early[0].startswith("-")):
        # argparse would read an option's value there as the command
        if not any(map(_asks_help, given)):
            misplaced = " ".join(early)
            where = f" (options go after the command: {' or '.join(_COMMANDS)})"
            known = _command_options(parser)  # (an option no command takes: no such advice)
            hint = where if any(arg.split("=")[0] in known for arg in early) else ""
            parser.error(f"unrecognized arguments: {misplaced}{hint}")
        given = ["-h"] if helped else given[command:]  # help wins
    args, unknown = parser.parse_known_args(given)
    if unknown:  # told by the subcommand, with its usage (argparse's top level has none of it)
        told = parser if args.command is None else args.command_parser
        told.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    # Usage problems found later (unknown scorer, missing path) go through the subcommand's
    # parser.error, so they exit 2 with its usage line, exactly like a bad option.
    if args.command == "evaluate" and args.verdicts is None:
        try:
            check_env_mode()  # a typo in STRUCTEVAL_VERDICTS is a usage error, not failing fields
        except ValueError as exc:
            args.command_parser.error(str(exc))
    before = None
    try:
        if args.command == "compare":
            return _compare(args.command_parser, args)
        if args.verdicts is not None:
            before = set_run_mode(args.verdicts)
        return _evaluate(args.command_parser, args)
    except KeyboardInterrupt:  # anywhere else: after the reports were written, say
        _tell("structeval: interrupted")
        return 130
    finally:
        if args.command == "evaluate" and args.verdicts is not None:
            set_run_mode(before)  # main() may run again in this process


def console_main() -> int:
    """The ``structeval`` program: :func:`main` in a process of its own, which therefore exits
    without the interpreter's last garbage collections (see :mod:`~pytest_structeval.exitgc`),
    and where SIGTERM stops a run as Ctrl-C does, keeping what it scored (exit 143, as a
    process SIGTERM ended; see :mod:`~pytest_structeval.terminate`)."""
    sigterm = TerminateAsInterrupt()
    sigterm.install()
    try:
        code = main()
    finally:
        sigterm.restore()
    freeze_heap_at_exit()
    return 143 if sigterm.received and code == 130 else code


if __name__ == "__main__":
    raise SystemExit(console_main())
