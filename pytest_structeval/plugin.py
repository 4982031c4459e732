"""The pytest plugin (``pytest11`` entry point ``structeval``): options, fixtures and hooks.

Loading it imports pytest, the standard library and the package's light modules (errors,
naming, options, registry, reportformat, results, signatures, verdicts: no parser, scorer or
third-party library), so projects that install pytest-structeval without using it pay little: the
scoring engine is imported on first use. Options are resolved in
:mod:`pytest_structeval.options`, state and the stateful hooks live in
:mod:`pytest_structeval.session`, collector nodes in :mod:`pytest_structeval.collect`,
extension hooks in :mod:`pytest_structeval.hookspecs`.
"""

from __future__ import annotations

import os
import sys
import uuid  # (pytest has imported it)
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, SupportsFloat, SupportsIndex, TypeAlias

import pytest

from .errors import OptionsError, session_warnings
from .naming import SCENARIO_FILE_SUFFIXES, node_text, scalar_text
from .options import DIFF_MODES
from .registry import DEFAULT_SCORER, Registry, scoped
from .reportformat import DEFAULT_REPORTS_DIR
from .results import ScoreResult
from .signatures import AssertJsonMatches
from .verdicts import MODES as VERDICT_MODES

if TYPE_CHECKING:
    from .session import StructevalSession

RunLabel: TypeAlias = str | SupportsIndex | SupportsFloat | os.PathLike[str] | uuid.UUID
"""What the ``structeval`` fixture's ids and labels (``scenario_id``, ``run_id``,
``scenario_type``, ``runner``, ``model_name``) take: a string, a number of any library
(``7``, ``numpy.int64(7)``, a ``Decimal``: run ``"7"``), a path or a ``UUID`` by its text.
(A bool or a non-finite number is an ``OptionsError`` at runtime.)"""

_GROUP = "structeval"
_API = "pytest_structeval.api"  # where JsonMatches lives: none exists before it is imported
_MARKER = "structeval: a scenario run collected by pytest-structeval"


INI_KEYS: set[str] = set()
"""The ini keys the plugin declares (filled by :func:`pytest_addoption`): any other
``structeval_*`` key in a config file or ``-o`` is a usage error (see
:func:`~pytest_structeval.options.check_ini_keys`)."""


def _addini(parser: pytest.Parser, name: str, help: str, **kwargs: Any) -> None:
    INI_KEYS.add(name)
    parser.addini(name, help, **kwargs)


def _number_ini(parser: pytest.Parser, name: str, help: str) -> None:
    """An ini key whose value is a number (or ``5%``): text in every config file, and a
    number too in pytest 9's native TOML config (``[tool.pytest]``, ``pytest.toml``:
    ``structeval_fail_under = 0.5``) where pytest takes a union type (9.2 on; before, quote
    it there). ``options.ini_value`` reads a number as its text, so both are checked alike;
    text comes first, so an ini file's value stays text (``5%``, ``nan`` refused by us)."""
    if pytest.version_tuple[:2] >= (9, 2):
        _addini(parser, name, help, type=str | float, default="")
    else:
        _addini(parser, name, help, default="")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option has an ini key of the same name, but ``--structeval-gate``
    (``structeval_gates``) and ``--structeval-save-baseline`` (none); defaults are plain data
    (xdist ships options to workers)."""
    group = parser.getgroup(_GROUP, "structured answer evaluation (pytest-structeval)")
    group.addoption(
        "--structeval-scenarios",
        action="append",
        metavar="PATH",
        dest="structeval_scenarios",
        default=None,
        help="Scenario folder tree, or scenario file (.json/.yaml list or object, .jsonl), "
        "to run (repeatable); runs only the scenarios unless test paths are given too. "
        "Ini: structeval_scenarios",
    )
    group.addoption(
        "--structeval-trajectories",
        action="append",
        metavar="PATH",
        dest="structeval_trajectories",
        default=None,
        help="Trajectory file or folder, searched recursively (repeatable); trajectories "
        "inside scenario folders are always found. Ini: structeval_trajectories",
    )
    group.addoption(
        "--structeval-reports-dir",
        metavar="DIR",
        dest="structeval_reports_dir",
        default=None,
        help=f"Where per-run reports and _aggregate.json go (default: {DEFAULT_REPORTS_DIR} "
        "under rootdir, or the current folder without a config file). "
        "Ini: structeval_reports_dir",
    )
    group.addoption(
        "--structeval-scorer",
        metavar="NAME",
        dest="structeval_scorer",
        default=None,
        help=f"Scorer for scenarios that do not name one (default: {DEFAULT_SCORER}). "
        "Ini: structeval_scorer",
    )
    group.addoption(
        "--structeval-fail-under",
        metavar="RATE",
        dest="structeval_fail_under",
        default=None,
        help="Fail the run when the pass rate is under RATE (0..1). Ini: structeval_fail_under",
    )
    group.addoption(
        "--structeval-min-score",
        metavar="X",
        dest="structeval_min_score",
        default=None,
        help="Fail the run when the mean score is under X (0..1). Ini: structeval_min_score",
    )
    group.addoption(
        "--structeval-gate",
        action="append",
        metavar="EXPR",
        dest="structeval_gates",
        default=None,
        help="Fail the run unless a report figure meets EXPR, e.g. f1>=0.85, "
        "parse_rate>=0.99, pass_hat_k>=0.9, errors==0, or a scenario type's: "
        "pass_rate[IoT]>=0.9, score_avg[*]>=0.8 (every type), or a runner and model's: "
        "pass_rate{react / gpt-4o}>=0.9, pass_hat_k{*}>=0.8 (repeatable). "
        "Ini: structeval_gates (one per line)",
    )
    group.addoption(
        "--structeval-gates-decide",
        action="store_const",
        const=True,
        dest="structeval_gates_decide",
        default=None,
        help="A scenario run that scored but did not pass is an xfail, not a failure: the "
        "gates, or the baseline's regression check, alone decide the exit code, as in "
        "structeval evaluate. Ini: structeval_gates_decide",
    )
    group.addoption(
        "--structeval-baseline",
        metavar="PATH",
        dest="structeval_baseline",
        default=None,
        help="Compare each run, scenario and field with an earlier _aggregate.json (or the "
        "reports folder holding it); adds a 'baseline' section. Ini: structeval_baseline",
    )
    group.addoption(
        "--structeval-fail-on-regression",
        action="store_const",
        const=True,
        dest="structeval_fail_on_regression",
        default=None,
        help="Fail the run when a run or scenario scores worse than in the baseline. "
        "Ini: structeval_fail_on_regression",
    )
    group.addoption(
        "--structeval-fail-on-improvement",
        action="store_const",
        const=True,
        dest="structeval_fail_on_improvement",
        default=None,
        help="Fail the run when a run or scenario scores better than in the baseline, so an "
        "outdated baseline gets replaced. Ini: structeval_fail_on_improvement",
    )
    group.addoption(
        "--structeval-save-baseline",
        metavar="PATH",
        dest="structeval_save_baseline",
        default=None,
        help="After a complete run, write its aggregate to PATH as the next baseline "
        "(no ini key: accepting new scores is a deliberate act)",
    )
    group.addoption(
        "--structeval-regression-tolerance",
        metavar="X",
        dest="structeval_regression_tolerance",
        default=None,
        help="Score or pass-rate drop not yet counted as a regression: an amount in [0, 1] "
        "(default 0) or a share of the baseline figure such as 5%%. "
        "Ini: structeval_regression_tolerance",
    )
    group.addoption(
        "--structeval-markdown",
        metavar="PATH",
        dest="structeval_markdown",
        default=None,
        help="Write a Markdown summary (totals, gates, baseline, worst fields, failing runs) "
        "to PATH. Ini: structeval_markdown",
    )
    group.addoption(
        "--structeval-csv",
        metavar="DIR",
        dest="structeval_csv",
        default=None,
        help="Write the runs and the field scores as CSV tables (runs.csv, fields.csv) into "
        "DIR. Ini: structeval_csv",
    )
    group.addoption(
        "--structeval-html",
        metavar="PATH",
        dest="structeval_html",
        default=None,
        help="Write the run as one self-contained HTML page (totals, gates, every run and "
        "every field) to PATH. Ini: structeval_html",
    )
    group.addoption(
        "--structeval-github-summary",
        action="store_const",
        const=True,
        dest="structeval_github_summary",
        default=None,
        help="Append the Markdown summary to $GITHUB_STEP_SUMMARY when it is set. "
        "Ini: structeval_github_summary",
    )
    group.addoption(
        "--structeval-junit-properties",
        action="store_const",
        const=True,
        dest="structeval_junit_properties",
        default=None,
        help="Add score, passed, scorer and parse_method of each scenario run to its "
        "user_properties (shown by --junitxml). Ini: structeval_junit_properties",
    )
    group.addoption(
        "--structeval-verdicts",
        choices=VERDICT_MODES,
        dest="structeval_verdicts",
        default=None,
        help="Kept comparator verdicts (cached_comparator): use (default), refresh, or replay "
        "(ask no judge; a verdict not kept fails its field). Ini: structeval_verdicts",
    )
    group.addoption(
        "--structeval-diff",
        choices=DIFF_MODES,
        dest="structeval_diff",
        default=None,
        help="Field-level diffs in failures: detailed (default) or off (one line, for huge "
        "answers). Ini: structeval_diff",
    )
    _addini(
        parser,
        "structeval_scenarios",
        "Scenario folder trees or scenario files, relative to the ini file; added to the "
        "test paths",
        type="paths",
        default=[],
    )
    _addini(
        parser,
        "structeval_trajectories",
        "Trajectory files or folders, relative to the ini file",
        type="paths",
        default=[],
    )
    _addini(
        parser,
        "structeval_reports_dir",
        "Reports directory, relative to rootdir",
        default=DEFAULT_REPORTS_DIR,
    )
    _addini(parser, "structeval_scorer", "Default scorer for scenarios", default="")
    _number_ini(parser, "structeval_fail_under", "Pass-rate gate (0..1)")
    _number_ini(parser, "structeval_min_score", "Mean-score gate (0..1)")
    _addini(parser, "structeval_diff", "Failure diffs: detailed or off", default="detailed")
    _addini(
        parser,
        "structeval_verdicts",
        "Kept comparator verdicts: use, refresh or replay",
        default="",
    )
    _addini(
        parser,
        "structeval_gates",
        "Metric gates, one per line (e.g. f1>=0.85, pass_rate[IoT]>=0.9)",
        type="linelist",
        default=[],
    )
    _addini(
        parser,
        "structeval_gates_decide",
        "Failing scenario runs are xfails; the gates decide",
        type="bool",
        default=False,
    )
    _addini(
        parser,
        "structeval_baseline",
        "Baseline aggregate or reports folder, relative to the ini file",
        default="",
    )
    _addini(
        parser,
        "structeval_fail_on_regression",
        "Fail on regressions against the baseline",
        type="bool",
        default=False,
    )
    _addini(
        parser,
        "structeval_fail_on_improvement",
        "Fail on improvements against the baseline",
        type="bool",
        default=False,
    )
    _number_ini(parser, "structeval_regression_tolerance", "Regression tolerance (0..1, or 5%)")
    _addini(
        parser, "structeval_markdown", "Markdown summary file, relative to the ini file", default=""
    )
    _addini(parser, "structeval_csv", "CSV tables folder, relative to the ini file", default="")
    _addini(parser, "structeval_html", "HTML report file, relative to the ini file", default="")
    _addini(
        parser,
        "structeval_github_summary",
        "Append the Markdown summary to $GITHUB_STEP_SUMMARY",
        type="bool",
        default=False,
    )
    _addini(
        parser,
        "structeval_junit_properties",
        "Scenario results as JUnit properties",
        type="bool",
        default=False,
    )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the options, create the session state and point pytest at the scenarios
    (not for ``--help`` or ``--markers``, which only print: a bad ini value must not hide
    the help for it)."""
    from .options import check_ini_keys, flag
    from .session import StructevalSession

    config.addinivalue_line("markers", _MARKER)
    if config.option.help or getattr(config.option, "markers", False):
        return
    check_ini_keys(config, INI_KEYS)
    StructevalSession.start(config)
    if flag(config, "structeval_junit_properties"):
        config.pluginmanager.register(JunitProperties(), "structeval-junit-properties")


_JUNIT_ADDED = pytest.StashKey[list[tuple[str, object]]]()
"""The properties :class:`JunitProperties` gave an item, removed again if it is rerun."""


class JunitProperties:
    """With ``--structeval-junit-properties``: each scenario item gets ``structeval_score``,
    ``structeval_passed``, ``structeval_scorer`` and ``structeval_parse_method`` in its
    ``user_properties``, which ``--junitxml`` writes and pytest-xdist carries to the controller;
    a test using the ``structeval`` fixture gets them for each score it records, in order.
    Opt-in: per-testcase properties break strict xunit2 schema validation (hypothesis#1935)."""

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield  # outermost wrapper: the session has attached the run record by now
        if call.when == "setup":  # an attempt begins (a rerun's too): the earlier one's go
            for entry in item.stash.get(_JUNIT_ADDED, ()):
                if entry in item.user_properties:
                    item.user_properties.remove(entry)
            item.stash[_JUNIT_ADDED] = []
        from .session import REPORT_KEY

        records = report.__dict__.get(REPORT_KEY)
        if not records:
            return report
        from .stats import round4  # a failing 0.99997 never reads 1.0

        properties: list[tuple[str, object]] = []
        for record in records:  # (a fixture may record in setup or at teardown too)
            score = record.get("score") or {}
            properties += [
                ("structeval_score", round4(float(score.get("score") or 0.0))),
                ("structeval_passed", "true" if score.get("passed") else "false"),
                ("structeval_scorer", score.get("scorer") or ""),
            ]
            method = (score.get("details") or {}).get("parse_method")
            if method:
                properties.append(("structeval_parse_method", method))
        item.stash.setdefault(_JUNIT_ADDED, []).extend(properties)
        item.user_properties.extend(properties)  # what --junitxml writes (at teardown)
        report.user_properties.extend(properties)
        return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Inside pytest's warnings context for the test (its ``tryfirst`` wrapper is outside
    this one), mark that context the session's own: a ``GoldWarning`` given there counts as
    given for the session, one given in a context the test opens itself does not. A
    library call in the test that names no registry uses the test folder's (see
    :meth:`~pytest_structeval.session.StructevalSession.registry_for`)."""
    state = _state(item.config)
    with session_warnings(), scoped(lambda: state.registry_for(item.path)):
        return (yield)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    return _state(parent.config).collector_for(path, parent)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A folder link back to one of its own ancestors in a scenario tree: pytest's walk would
    follow it level after level (with two such links, exponentially), where discovery visits
    each folder once. Only links pay for more than one ``lstat``."""
    if not collection_path.is_symlink():
        return None
    return _state(config).loops_back(collection_path) or None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A scenario file under a scenario root; every other file costs one suffix check."""
    if file_path.suffix.lower() not in SCENARIO_FILE_SUFFIXES:
        return None
    from .collect import scenario_file_node

    return scenario_file_node(_state(parent.config), file_path, parent)


@pytest.hookimpl(wrapper=True)
def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> Generator[None, list[list[str]], list[list[str]]]:
    """Failing-paths tables for ``==`` involving a ``ScoreResult`` or a ``JsonMatches``.

    Compared directly, they replace pytest's explanation. A failed ``JsonMatches`` nested in
    dicts, lists or tuples adds its table after pytest's own diff of the structure: pytest
    shows only the first explanation its hook returns, so this is a wrapper that extends
    that one (asking pytest for its default explanation would mean importing ``_pytest``).
    """
    if _API in sys.modules:
        from .matcherprint import print_matchers_as_values

        print_matchers_as_values()
    explanations = yield
    if op != "==" or (
        _API not in sys.modules and not (_from_here(type(left)) or _from_here(type(right)))
    ):
        return explanations  # cheap exit for every other failing assert
    from .api import assertrepr_lines, nested_assertrepr_lines

    detailed = _state(config).settings.detailed
    own = assertrepr_lines(left, right, detailed=detailed)
    if own is not None:
        return [own, *explanations]
    nested = nested_assertrepr_lines(left, right, detailed=detailed)
    if not nested:
        return explanations
    for n, lines in enumerate(explanations):
        if lines:  # the one pytest would show
            return [*explanations[:n], [*lines, "", *nested], *explanations[n + 1 :]]
    return [nested]


def _from_here(cls: type) -> bool:
    return cls.__module__.startswith("pytest_structeval")


def _state(config: pytest.Config) -> StructevalSession:
    from .session import structeval_state

    return structeval_state(config)


class StructevalFixture:
    """The ``structeval`` fixture: scores like :func:`pytest_structeval.score` and records
    every result for the session report (per-run files, ``_aggregate.json``, the gates)."""

    def __init__(self, item: pytest.Item) -> None:
        self._item = item
        self._state = _state(item.config)
        self._count = 0
        self._questions: dict[str, str] = {}  # how a call scores -> its scenario id

    def score(
        self,
        gold: Any,
        model: Any,
        mode: str = "strict",
        threshold: float | None = None,
        *,
        scenario_id: RunLabel | None = None,
        run_id: RunLabel | None = None,
        scenario_type: RunLabel | None = None,
        runner: RunLabel | None = None,
        model_name: RunLabel | None = None,
        **options: Any,
    ) -> ScoreResult:
        """Score ``model`` against ``gold`` (any answer shape) and record the result.

        The record's scenario is the test's node id (without pytest-repeat's ``[2-5]`` or
        pytest-flakefinder's ``[3]``) and its run the test's name (``-2``, ``-3`` for later
        calls), unless ``scenario_id`` / ``run_id`` say otherwise. Calls that score the same
        gold the same way (mode, threshold, options) are runs of one scenario; a call that
        asks another question is another scenario (``<node id>#2``, ``#3``), never a repeat.
        The runs of a repeated test, or of a parametrized one that share a ``scenario_id``,
        are repeats of one scenario in the report (pass@k, pass^k, flaky). ``scenario_type``
        files the record under a type, as ``type:`` in a scenario's config does (per-type
        figures and gates); ``runner`` and ``model_name`` name the system that answered, as
        a trajectory's ``runner`` and ``model`` do (per runner/model figures, gates and
        baselines)."""
        __tracebackhide__ = True
        from .api import score
        from .report import RunRecord
        from .session import add_item_record

        registry = self._state.registry_for(self._item.path)
        labels = _labels(
            scenario_id=scenario_id,
            run_id=run_id,
            scenario_type=scenario_type,
            runner=runner,
            model_name=model_name,
        )
        result = score(gold, model, mode, threshold=threshold, registry=registry, **options)
        self._count += 1
        item = self._item
        run = labels["run_id"]
        if run is None:
            run = item.name if self._count == 1 else f"{item.name}-{self._count}"
        scenario = labels["scenario_id"]
        if scenario is None:
            question = _question_key(result.parsed_gold, mode, threshold, options)
            test = node_text(_unrepeated_nodeid(item))
            scenario = self._questions.setdefault(
                question, f"{test}#{len(self._questions) + 1}" if self._questions else test
            )
        record = RunRecord.from_result(
            result,
            scorer=mode,
            run_id=run,
            scenario_id=scenario,
            scenario_type=labels["scenario_type"],
            runner=labels["runner"] or "",
            model=labels["model_name"] or "",
            nodeid=node_text(item.nodeid),
            answer=_stored_answer(model, result),
        )
        add_item_record(item, record.to_dict())
        return result

    def assert_matches(
        self,
        gold: Any,
        model: Any,
        mode: str = "strict",
        threshold: float | None = None,
        *,
        scenario_id: RunLabel | None = None,
        run_id: RunLabel | None = None,
        scenario_type: RunLabel | None = None,
        runner: RunLabel | None = None,
        model_name: RunLabel | None = None,
        **options: Any,
    ) -> ScoreResult:
        """:meth:`score`, then fail with the failing paths unless the result passed (and
        reached ``threshold`` when one is given)."""
        __tracebackhide__ = True
        from .api import check_result

        ids = {"scenario_id": scenario_id, "run_id": run_id, "scenario_type": scenario_type}
        system = {"runner": runner, "model_name": model_name}
        result = self.score(gold, model, mode, threshold=threshold, **ids, **system, **options)
        return check_result(result, threshold, detailed=self._state.settings.detailed)


_REPEAT_STEP: Final = "__pytest_repeat_step_number"
"""pytest-repeat's parameter: ``--count 5`` makes ``test_q[1-5]`` ... ``test_q[5-5]``."""
_FLAKEFINDER: Final = "__flakefinder_"
"""pytest-flakefinder's parameter, then the test function's name: ``--flake-finder
--flake-runs 5`` makes ``test_q[0]`` ... ``test_q[4]``."""


def _unrepeated_nodeid(item: pytest.Item) -> str:
    """``item``'s node id without pytest-repeat's ``[2-5]`` and pytest-flakefinder's ``[3]``
    (its other parameters kept): the copies of one test are runs of one scenario, so pass^k
    and flaky count them. Each is left out only where that plugin's parameter made it: its
    id, one per ``parametrize`` call, is pytest-repeat's last (its hook runs last) and
    flakefinder's first (its hook runs first); an id made another way (a
    ``pytest_make_parametrize_id`` hook) leaves the node id as it is."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return item.nodeid
    params = callspec.params
    finder = _FLAKEFINDER + str(getattr(getattr(item, "function", None), "__name__", ""))
    ids = list(getattr(callspec, "_idlist", ()))  # one id per parametrize call, in order
    copies: list[int] = []  # where in ids each plugin's copy number is
    if _REPEAT_STEP in params:
        step = f"{params[_REPEAT_STEP] + 1}-"
        at = [n for n, i in enumerate(ids) if i.startswith(step) and i[len(step) :].isdigit()]
        if not at:
            return item.nodeid
        copies.append(at[-1])
    if type(params.get(finder)) is int:
        at = [n for n, i in enumerate(ids) if i == str(params[finder]) and n not in copies]
        if not at:
            return item.nodeid
        copies.append(at[0])
    suffix = f"[{callspec.id}]"
    if not copies or not item.nodeid.endswith(suffix):
        return item.nodeid
    rest = "-".join(i for n, i in enumerate(ids) if n not in copies)
    return item.nodeid[: -len(suffix)] + (f"[{rest}]" if rest else "")


def _labels(**given: RunLabel | None) -> dict[str, str | None]:
    """The ids and labels a fixture call names, as the texts its record holds (numbers as
    text, as in a trajectory); anything else, a list or a bool, is an ``OptionsError`` naming
    the argument, as the same value in a trajectory is a load error."""
    __tracebackhide__ = True
    try:
        return {k: None if v is None else scalar_text(v, k, objects=True) for k, v in given.items()}
    except ValueError as exc:
        raise OptionsError(str(exc)) from None


def _stored_answer(model: Any, result: ScoreResult) -> Any:
    """The answer a fixture record stores, as a scenario run's: a text without its
    ``<think>`` blocks, anything else as read (a file's or bytes' value, a set as a list)."""
    from .parse import strip_think

    return strip_think(model) if isinstance(model, str) else result.parsed_model


def _question_key(gold: Any, mode: str, threshold: float | None, options: dict[str, Any]) -> str:
    """What a ``structeval.score`` call asks, apart from the answer: the parsed gold (key
    order aside), the mode, the threshold and the options. Equal keys are one question."""
    import orjson

    try:
        text = orjson.dumps(gold, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # (orjson.JSONEncodeError is one): a value JSON cannot write
        try:
            text = repr(gold)
        except RecursionError:  # deeper than repr goes (max_depth raised): this very value
            text = f"<{type(gold).__name__} at {id(gold):#x}>"
    return repr((text, mode, threshold, sorted(options.items(), key=lambda kv: kv[0])))


@pytest.fixture
def structeval(request: pytest.FixtureRequest) -> StructevalFixture:
    """Score and assert structured answers; every result joins the session report."""
    return StructevalFixture(request.node)


@pytest.fixture
def assert_json_matches(request: pytest.FixtureRequest) -> AssertJsonMatches:
    """:func:`pytest_structeval.assert_json_matches` with the session's registry (scorers
    that ``pytest_structeval_register`` hooks added work as ``mode=``) and failure messages
    as short as ``--structeval-diff`` asks."""
    from .api import check_result, score

    state = _state(request.config)
    detailed = state.settings.detailed

    def assert_json_matches(
        gold: Any,
        model: Any,
        mode: str = "strict",
        threshold: float | None = None,
        *,
        registry: Registry | None = None,
        **options: Any,
    ) -> ScoreResult:
        __tracebackhide__ = True
        registry = registry or state.registry_for(request.node.path)
        result = score(gold, model, mode, threshold=threshold, registry=registry, **options)
        return check_result(result, threshold, detailed=detailed)

    return assert_json_matches
