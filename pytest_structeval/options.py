"""The plugin's options resolved: command line first, then the ini key, then the default.

:class:`Settings` holds what the session needs (scenario paths, reports folder, scorer,
diffs, verdicts) and the :class:`~pytest_structeval.gates.Checks` (gates, baseline, outputs)
that :func:`checks_from_config` builds; :func:`check_ini_file` refuses a run whose option
value made pytest read another ini file. Light at import (pytest, the standard library and
the package's light modules), as the plugin reads its defaults here when pytest loads it;
the gate and baseline engines are imported when options name them.
"""

from __future__ import annotations

import functools
import itertools
import os
import shlex
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import pytest

from .naming import printable, user_path
from .registry import DEFAULT_SCORER
from .reportformat import DEFAULT_REPORTS_DIR
from .verdicts import MODES as VERDICT_MODES
from .verdicts import check_env_mode

if TYPE_CHECKING:
    from .baseline import BaselineMissing, Tolerance
    from .gates import Checks

__all__ = [
    "DIFF_MODES",
    "Settings",
    "check_ini_file",
    "check_ini_keys",
    "checks_from_config",
    "flag",
    "ini_path",
    "ini_value",
]

DIFF_MODES: Final = ("detailed", "off")


@functools.cache
def _no_checks() -> Checks:
    """The checks of a run that asks for none: built on first use, so a run that never uses
    the plugin never imports the gates (see :func:`checks_from_config`)."""
    from .gates import Checks

    return Checks()


@dataclass(frozen=True, slots=True)
class Settings:
    """The resolved options: command line first, then the ini key, then the default.

    Paths are absolute: command-line paths are relative to the invocation directory, ini
    paths to the ini file's directory, and the reports directory (ini or default) to rootdir
    (to the invocation directory when pytest found no config file).
    """

    scenarios: tuple[Path, ...] = ()
    trajectories: tuple[Path, ...] = ()
    reports_dir: Path = Path(DEFAULT_REPORTS_DIR)
    scorer: str = DEFAULT_SCORER
    scorer_given: bool = False
    diff: str = "detailed"
    verdicts: str | None = None  # the run's mode for kept comparator verdicts
    gates_decide: bool = False  # a failing scenario run is an xfail (the gates judge)
    scenarios_from_cli: bool = False
    trajectories_from_cli: bool = False
    asked_checks: Checks | None = None  # gates, baseline, outputs; None when none is asked

    @property
    def checks(self) -> Checks:
        """The gates, baseline and outputs asked for (none: an empty :class:`Checks`)."""
        return self.asked_checks if self.asked_checks is not None else _no_checks()

    @property
    def detailed(self) -> bool:
        """Failures show the failing-fields table (``--structeval-diff detailed``)."""
        return self.diff == "detailed"

    @classmethod
    def from_config(cls, config: pytest.Config) -> Settings:
        here = config.invocation_params.dir

        def paths(name: str) -> tuple[tuple[Path, ...], bool]:
            given = config.getoption(name)
            if given is not None:
                if any(not p.strip() for p in given):  # an unset shell variable: not rootdir
                    option = "--" + name.replace("_", "-")
                    raise pytest.UsageError(f"{option} is empty: name a path")
                return tuple(Path(os.path.abspath(here / user_path(p))) for p in given), True
            return tuple(map(_expanded_ini_path(config), config.getini(name))), False

        scenarios, from_cli = paths("structeval_scenarios")
        trajectories, trajectories_from_cli = paths("structeval_trajectories")

        reports = config.getoption("structeval_reports_dir")
        if reports is not None:
            if not reports.strip():  # an unset shell variable: never the current folder
                raise pytest.UsageError(
                    "--structeval-reports-dir is empty: name a folder (the default is "
                    f"{DEFAULT_REPORTS_DIR})"
                )
            reports_dir = Path(os.path.abspath(here / user_path(reports)))
        else:
            # Without a config file pytest guesses rootdir from the arguments, and a scenario
            # path outside the project can become rootdir: never write reports into the data.
            base = config.rootpath if config.inipath is not None else here
            ini = ini_path(config, "structeval_reports_dir") or DEFAULT_REPORTS_DIR
            reports_dir = Path(os.path.abspath(base / ini))
        if reports_dir.exists() and not reports_dir.is_dir():  # found now, not after the run
            shown = printable(str(reports_dir))
            raise pytest.UsageError(f"the reports folder {shown} is a file: name a folder")

        scorer = config.getoption("structeval_scorer")
        if scorer is not None and not scorer.strip():  # an unset shell variable: no default
            raise pytest.UsageError(
                f"--structeval-scorer is empty: name a scorer (the default is {DEFAULT_SCORER})"
            )
        scorer_given = scorer is not None or bool(ini_value(config, "structeval_scorer"))
        scorer = scorer or ini_value(config, "structeval_scorer") or DEFAULT_SCORER

        diff = (  # (an empty ini value is "not set", as for every key)
            config.getoption("structeval_diff")
            or str(ini_value(config, "structeval_diff")).strip()
            or DIFF_MODES[0]
        )
        if diff not in DIFF_MODES:
            raise pytest.UsageError(
                f"structeval_diff: expected one of {', '.join(DIFF_MODES)}, got {diff!r}"
            )
        verdicts = config.getoption("structeval_verdicts") or ini_value(
            config, "structeval_verdicts"
        )
        if verdicts and verdicts not in VERDICT_MODES:
            raise pytest.UsageError(
                f"structeval_verdicts: expected one of {', '.join(VERDICT_MODES)}, got {verdicts!r}"
            )
        if not verdicts:
            try:
                check_env_mode()
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None
        gates_decide = flag(config, "structeval_gates_decide")
        return cls(
            scenarios=scenarios,
            trajectories=trajectories,
            reports_dir=reports_dir,
            scorer=scorer,
            scorer_given=scorer_given,
            diff=diff,
            verdicts=verdicts or None,
            scenarios_from_cli=from_cli,
            trajectories_from_cli=trajectories_from_cli,
            gates_decide=gates_decide,
            asked_checks=checks_from_config(config, reports_dir, gates_decide=gates_decide),
        )


def check_ini_file(config: pytest.Config) -> None:
    """``UsageError`` when a path after a ``--structeval-*`` option, given as a separate
    argument, made pytest read another ini file than it would without it (or none).

    pytest looks for its ini file before it knows a plugin's options, so such a value counts
    as a test path: ``--structeval-scenarios /data/evals`` run in a project drops the
    project's ``pytest.ini``, and with it every gate and ``structeval_*`` key, without a word.
    """
    args = shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))  # (read as arguments before them)
    args += map(str, config.invocation_params.args)
    if config.option.inifilename:
        return
    pairs = [(o, v) for o, v in itertools.pairwise(args) if o.startswith("--structeval-")]
    given = [(o, v) for o, v in pairs if "=" not in o and os.path.exists(v)]
    here = config.invocation_params.dir
    if given:
        found = _ini_file_for(config, here)
        if found is False or _same_file(found, config.inipath):
            return
        option, value = given[0]
        read = config.inipath or "no ini file"
        raise pytest.UsageError(
            f"structeval: pytest read {read} instead of {found or 'no ini file'}: the path "
            f"after {option}, a separate argument, counted for pytest as a test path when it "
            f"looked for its ini file; write {option}={value}"
        )
    # An output this run creates counts from the next run on: refused now, not after a CI
    # command worked once.
    for option, value in pairs:
        if option not in _OUTPUT_OPTIONS or not value.strip() or os.path.lexists(value):
            continue
        then = _ini_file_for(config, here, also=[_existing_above(here / value)])
        if then is False or _same_file(then, config.inipath):
            continue
        raise pytest.UsageError(
            f"structeval: the path after {option}, a separate argument, will count for pytest "
            f"as a test path when it looks for its ini file once the path exists (the next "
            f"run), and pytest would read {then or 'no ini file'} instead of "
            f"{config.inipath or 'no ini file'}; write {option}={value}"
        )


_OUTPUT_OPTIONS: Final = frozenset(
    {
        "--structeval-reports-dir",
        "--structeval-markdown",
        "--structeval-csv",
        "--structeval-html",
        "--structeval-save-baseline",
    }
)
"""The options naming a path the run writes (see :func:`check_ini_file`)."""


def _existing_above(path: Path) -> str:
    """The nearest folder at or above ``path`` that exists: where pytest's ini lookup will
    start once ``path`` exists (no ini file lies in the folders the run creates)."""
    for folder in (path, *path.parents):
        if os.path.isdir(folder):
            return str(folder)
    return str(path.anchor)


_NO_INI_KEY: Final = {
    "structeval_save_baseline": "no ini key: saving a baseline is a deliberate act "
    "(--structeval-save-baseline PATH, given to the run that saves one)",
}
"""Options without an ini key, and why."""


def check_ini_keys(config: pytest.Config, known: Collection[str]) -> None:
    """``UsageError`` for a ``structeval_*`` key, in the config file or given with ``-o``,
    that the plugin does not declare (``known``): pytest only warns about an unknown key, so
    ``structeval_gate = f1>=0.9`` (the option is ``--structeval-gate``, the key
    ``structeval_gates``) would be a gate that is never applied. Names the key meant."""
    from .naming import did_you_mean

    here = config.invocation_params.dir
    where = {}
    inicfg = vars(config).get("_inicfg")  # (pytest 9: the file's keys and -o's)
    if inicfg is None:
        inicfg = vars(config).get("inicfg") or {}
    if config.inipath is not None:
        shown = os.path.relpath(config.inipath, here) if config.inipath.is_absolute() else ""
        where = dict.fromkeys(map(str, inicfg), f"in {shown or config.inipath}")
    spaced = {}  # -o "key = value": pytest takes the key with its blanks, as another key
    for given in config.option.override_ini or ():
        key, _, value = given.partition("=")  # (as pytest splits it: nothing stripped)
        where[key] = f"given with -o {given}"
        if key != key.strip():
            spaced[key] = f"{key.strip()}={value.strip()}"
    for key, origin in where.items():
        name = key.strip()
        if key in known or not name.casefold().startswith(("structeval_", "structeval-")):
            continue
        why = _NO_INI_KEY.get(name)
        if key in spaced:
            why = (
                "pytest reads the key with the blanks around it, as a key of its own, and "
                f"ignores it: write -o {spaced[key]}"
            )
        elif why is None:
            why = f"unknown ini key{did_you_mean(key, known) or ' (pytest --help lists them)'}"
        raise pytest.UsageError(
            f"structeval: {key if key == name else repr(key)} ({origin}): {why}"
        )


def _same_file(a: Path | None, b: Path | None) -> bool:
    """Whether ``a`` and ``b`` name one file (or both none), through links too."""
    if a is None or b is None:
        return a is b
    try:
        return a == b or os.path.samefile(a, b)
    except OSError:
        return False


def _ini_file_for(
    config: pytest.Config, here: Path, *, also: Sequence[str] = ()
) -> Path | Literal[False] | None:
    """The ini file pytest finds for the run's own test paths, and ``also`` (``False``: cannot
    tell, as pytest's finder is private and its signature may change)."""
    import inspect

    from _pytest.config import findpaths

    try:
        wanted = inspect.signature(findpaths.determine_setup).parameters
        given = {
            "inifile": None,
            "override_ini": config.option.override_ini,
            "args": [*(str(a) for a in config.option.file_or_dir or ()), *also],
            "rootdir_cmd_arg": config.option.rootdir or None,
            "invocation_dir": here,
        }
        found = findpaths.determine_setup(**{k: v for k, v in given.items() if k in wanted})
    except Exception:  # another pytest: the check is a courtesy, never a failure of its own
        return False
    path = found[1]
    return path if path is None or isinstance(path, Path) else False


_NUMBER_KEYS: Final = frozenset(
    {"structeval_fail_under", "structeval_min_score", "structeval_regression_tolerance"}
)
"""Keys whose value is a number (see plugin._number_ini)."""
_LIST_KEYS: Final = frozenset(
    {"structeval_scenarios", "structeval_trajectories", "structeval_gates"}
)


def ini_value(config: pytest.Config, name: str) -> Any:
    """``config.getini(name)``, but a TOML list under ``[tool.pytest.ini_options]`` for a key
    that takes one value (written like ``structeval_scenarios = ["evals"]``) is a usage error
    naming the key, never a crash inside the plugin; and a number pytest 9's native TOML gave
    (``structeval_fail_under = 0.5``) is its text, checked as the text ``"0.5"`` is."""
    try:
        value = config.getini(name)
    except TypeError as exc:  # (pytest 9.0, 9.1: a TOML number where a text is registered)
        if name not in _NUMBER_KEYS:
            raise
        raise pytest.UsageError(
            f"{exc}: pytest before 9.2 takes {name} only as text in native TOML config: "
            f'quote it ({name} = "0.5"), or use pytest 9.2 or later'
        ) from None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and name not in _LIST_KEYS:
        raise pytest.UsageError(
            f"{name} takes one value, not a list: got {value!r} (only "
            f"{', '.join(sorted(_LIST_KEYS))} take lists)"
        )
    return value


def ini_path(config: pytest.Config, name: str) -> str:
    """The path a single-path ini key names (``""``: not set). A value in a matching pair of
    quotes loses them as a ``paths`` key's value does (``shlex``, in every text config, not in
    pytest 9's native TOML, whose strings are unquoted already): in one file,
    ``structeval_reports_dir = "my reports"`` names the folder ``my reports``, as
    ``structeval_scenarios = "my evals"`` names ``my evals``. ``~`` and ``$VAR`` are expanded
    (:func:`~pytest_structeval.naming.user_path`)."""
    text = str(ini_value(config, name)).strip()
    entry = (vars(config).get("_inicfg") or {}).get(name)  # (pytest 9: how it was read)
    quoted = len(text) > 1 and text[0] in "'\"" and text[-1] == text[0]
    if quoted and getattr(entry, "mode", "ini") != "toml":
        try:
            words = shlex.split(text)
        except ValueError:  # ('a' 'b: a quote left open): the text as written
            words = []
        if len(words) == 1:
            text = words[0]
    return user_path(text)


def _expanded_ini_path(config: pytest.Config) -> Callable[[Path], Path]:
    """A path of a ``paths`` ini key, which pytest gives joined to the ini file's folder, with
    ``~`` and ``$VAR`` expanded (:func:`~pytest_structeval.naming.user_path`) in the value
    as written: ``~/evals`` is the home folder's, never ``<ini folder>/~/evals``."""
    base = config.inipath.parent if config.inipath is not None else config.invocation_params.dir

    def expanded(path: Path) -> Path:
        written = path.relative_to(base) if path.is_relative_to(base) else path
        return Path(os.path.abspath(base / user_path(str(written))))

    return expanded


def flag(config: pytest.Config, name: str) -> bool:
    """A switch: given on the command line, else its ini key (whose bad value names it)."""
    given = config.getoption(name)
    if given is not None:
        return bool(given)
    try:
        return bool(ini_value(config, name))
    except (ValueError, pytest.UsageError) as exc:  # "invalid truth value 'yes please'"
        raise pytest.UsageError(f"{name}: {exc}; use true or false") from None


def _rate(value: str | float, name: str) -> float:
    """A number in [0, 1] (a CLI or ini value); ``pytest.UsageError`` otherwise."""
    from .naming import read_rate

    try:
        return read_rate(value)
    except ValueError as exc:
        raise pytest.UsageError(f"{name}: {exc}") from None


def _tolerance(value: str, name: str) -> Tolerance:
    """A regression tolerance (``0.05`` or ``5%``); ``pytest.UsageError`` otherwise."""
    from .baseline import parse_tolerance
    from .errors import OptionsError

    try:
        return parse_tolerance(value)
    except OptionsError as exc:
        raise pytest.UsageError(f"{name}: {exc}") from None


# The options and ini keys of the checks: with none of them set there are none to resolve.
_CHECK_KEYS: Final = (
    "structeval_fail_under",
    "structeval_min_score",
    "structeval_gates",
    "structeval_baseline",
    "structeval_fail_on_regression",
    "structeval_fail_on_improvement",
    "structeval_regression_tolerance",
    "structeval_markdown",
    "structeval_csv",
    "structeval_html",
    "structeval_github_summary",
)


def _asks_checks(config: pytest.Config) -> bool:
    """Whether any check option or ini key is set (a bad ini value counts: resolving the
    checks then says what is wrong with it)."""
    if config.getoption("structeval_save_baseline") is not None:  # (an option only)
        return True
    for name in _CHECK_KEYS:
        if config.getoption(name) is not None:
            return True
        try:
            if ini_value(config, name):  # (a TOML 0 is "0": asked)
                return True
        except (ValueError, pytest.UsageError):  # ("invalid truth value 'maybe'")
            return True
    return False


def checks_from_config(
    config: pytest.Config, reports_dir: Path, *, gates_decide: bool = False
) -> Checks | None:
    """Resolve the gate, baseline and Markdown options (command line first, then the ini key).

    Command-line paths are relative to the invocation directory, ini paths to the ini file.
    Usage errors (bad gate, unreadable baseline) surface at startup. ``None`` when none is
    asked, and on pytest-xdist workers (they only run items): nothing to resolve, and the
    gates module is not imported. ``gates_decide`` (``--structeval-gates-decide``): failing
    runs are judged here, so a judge is required.
    """
    if hasattr(config, "workerinput"):
        return None
    if not (gates_decide or _asks_checks(config)):
        outputs = _pytest_outputs(config)  # (--junitxml on this run's aggregate: refused too)
        if outputs:
            from .errors import OptionsError
            from .gates import Checks

            try:
                Checks().refuse_before_run(reports_dir, outputs)
            except OptionsError as exc:
                raise pytest.UsageError(str(exc)) from None
        return None
    from .baseline import BaselineMissing, load_baseline
    from .errors import OptionsError
    from .gates import Checks, parse_gate, rate_gate

    here = config.invocation_params.dir
    ini_dir = config.inipath.parent if config.inipath is not None else here
    for name in ("markdown", "csv", "html", "save_baseline", "baseline"):
        given = config.getoption(f"structeval_{name}")
        if isinstance(given, str) and not given.strip():  # an unset shell variable
            option = f"--structeval-{name.replace('_', '-')}"
            raise pytest.UsageError(f"{option} is empty: name a path")

    def value(name: str, option: str) -> tuple[Any, str, Path]:
        """(value, the option or ini key that gave it, what a relative path is relative to)."""
        given = config.getoption(name)
        if given is not None:
            return given, option, here
        return ini_value(config, name), name, ini_dir

    def path(name: str, option: str) -> tuple[str, str, Path]:
        """:func:`value` of a path (see :func:`ini_path`), ``~`` and ``$VAR`` expanded."""
        given = config.getoption(name)
        if given is not None:
            return user_path(given), option, here
        return ini_path(config, name), name, ini_dir

    try:
        gates = []
        for kind, name, option in (
            ("pass_rate", "structeval_fail_under", "--structeval-fail-under"),
            ("score_avg", "structeval_min_score", "--structeval-min-score"),
        ):
            raw, source, _ = value(name, option)
            if source == option or str(raw).strip():
                gates.append(rate_gate(kind, _rate(raw, source), source))
        exprs, source, _ = value("structeval_gates", "--structeval-gate")
        gates += [parse_gate(expr, source) for expr in exprs]
        save = config.getoption("structeval_save_baseline")
        save_path = Path(os.path.abspath(here / user_path(save))) if save else None
        raw, source, base = path("structeval_baseline", "--structeval-baseline")
        baseline = first = None
        named = raw  # (as the summary names it)
        try:
            baseline = load_baseline(base / raw, source=raw) if raw else None
        except BaselineMissing as exc:
            first = _first_baseline(exc, raw, source, here, reports_dir, save_path)
    except OptionsError as exc:
        raise pytest.UsageError(str(exc)) from None
    fail_on: dict[str, tuple[bool, str]] = {}  # (asked, the flag or ini key that asked)
    for change in ("regression", "improvement"):
        name = f"structeval_fail_on_{change}"
        asked = flag(config, name)
        _, fail_flag, _ = value(name, f"--structeval-fail-on-{change}")
        if asked and baseline is None and first is None:
            raise pytest.UsageError(
                f"{fail_flag} needs a baseline: --structeval-baseline PATH (or the "
                "structeval_baseline ini key)"
            )
        fail_on[change] = (asked, fail_flag)
    raw, source, _ = value("structeval_regression_tolerance", "--structeval-regression-tolerance")
    tolerance = _tolerance(raw, source) if str(raw).strip() else 0.0
    if source.startswith("--") and baseline is None and first is None:  # it would do nothing
        raise pytest.UsageError(
            "--structeval-regression-tolerance needs a baseline: --structeval-baseline PATH "
            "(or the structeval_baseline ini key)"
        )
    markdown, _, base = path("structeval_markdown", "--structeval-markdown")
    tables, _, tables_base = path("structeval_csv", "--structeval-csv")
    page, _, page_base = path("structeval_html", "--structeval-html")
    try:
        checks = Checks(
            gates=tuple(gates),
            baseline=baseline,
            first_baseline=None if first is None else named,
            first_note=first or "",
            tolerance=tolerance,
            fail_on_regression=fail_on["regression"][0],
            regression_flag=fail_on["regression"][1],
            fail_on_improvement=fail_on["improvement"][0],
            improvement_flag=fail_on["improvement"][1],
            markdown=Path(os.path.abspath(base / markdown)) if markdown else None,
            github_summary=flag(config, "structeval_github_summary"),
            csv=Path(os.path.abspath(tables_base / tables)) if tables else None,
            html=Path(os.path.abspath(page_base / page)) if page else None,
            save_baseline=save_path,
            judge_failing_runs=gates_decide,
        )
        checks.refuse_before_run(reports_dir, _pytest_outputs(config))
    except OptionsError as exc:
        raise pytest.UsageError(str(exc)) from None
    if checks.judge_failing_runs and not checks.judges:  # every failing run would pass unseen
        _, source, _ = value("structeval_gates_decide", "--structeval-gates-decide")
        raise pytest.UsageError(
            f"{source} needs a gate to decide: --structeval-fail-under, --structeval-min-score, "
            "--structeval-gate (or their ini keys) or --structeval-fail-on-regression"
        )
    return checks


def _first_baseline(
    missing: BaselineMissing,
    raw: str,
    source: str,
    here: Path,
    reports_dir: Path,
    save: Path | None,
) -> str:
    """A baseline that is not there yet (``missing``), named by ``source``: the first run,
    when the ini key names it (as a missing ini scenario path, it stops no run: a fresh
    checkout has no reports yet) or this run saves it (``save``); then what the summary adds
    to its line about it. A path given on the command line otherwise stays a usage error,
    with advice that works."""
    from .baseline import BaselineMissing
    from .reportformat import AGGREGATE_NAME

    target = Path(os.path.abspath(missing.target))
    own_reports = target in (reports_dir, reports_dir / AGGREGATE_NAME)
    if save is not None and target == save:
        return ""  # (the summary says it was saved)
    if not source.startswith("--"):
        if own_reports:
            return "; this run's reports will be the next run's"
        return f"; --structeval-save-baseline {os.path.relpath(target, here)} saves one"
    if own_reports:
        advice = (
            f"leave {source} out this time: its reports in {reports_dir} are the next "
            "run's baseline"
        )
    else:
        advice = (
            f"add --structeval-save-baseline {raw}, which compares nothing and saves the run "
            f"there, or leave {source} out"
        )
    raise BaselineMissing(f"{missing} (a first run has none: {advice})", missing.target)


_PYTEST_OUTPUTS: Final = (
    ("xmlpath", "the --junitxml report", None),
    ("htmlpath", "pytest-html's --html page", None),
    ("report_log", "pytest-reportlog's --report-log", None),
    # (its file has a default, .report.json, written only with --json-report)
    ("json_report_file", "pytest-json-report's --json-report-file", "json_report"),
)
"""Each output's option (its ``dest``), what it is, and the option that turns it on."""


def _pytest_outputs(config: pytest.Config) -> list[tuple[str, Path]]:
    """The files pytest and its common plugins write (``--junitxml``, pytest-html's
    ``--html``, pytest-json-report's ``--json-report-file``): one of this plugin's outputs on
    the same path would be replaced. (Any other plugin's is found at the end of the run:
    see ``StructevalSession.check_outputs``.)"""
    here = config.invocation_params.dir
    found = []
    for dest, what, switch in _PYTEST_OUTPUTS:
        path = getattr(config.option, dest, None)
        if switch is not None and getattr(config.option, switch, None) is not True:
            continue
        if isinstance(path, str) and path.strip():
            found.append((what, Path(os.path.abspath(here / user_path(path)))))  # (as pytest)
    return found
