"""The pytest plugin (``pytest11`` entry point ``structeval``): options, fixtures and hooks.

Loading it imports only pytest and the standard library, so projects that install
pytest-structeval without using it pay nothing: the scoring engine is imported on first use.
State and the stateful hooks live in :mod:`pytest_structeval.session`, collector nodes in
:mod:`pytest_structeval.collect`, extension hooks in :mod:`pytest_structeval.hookspecs`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .results import ScoreResult
    from .session import StructevalSession

_GROUP = "structeval"
_MARKER = "structeval: a scenario run collected by pytest-structeval"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option has an ini key of the same name; defaults are plain data (xdist ships
    options to workers)."""
    group = parser.getgroup(_GROUP, "structured answer evaluation (pytest-structeval)")
    group.addoption(
        "--structeval-scenarios",
        action="append",
        metavar="PATH",
        dest="structeval_scenarios",
        default=None,
        help="Scenario folder tree to run (repeatable); runs only the scenarios unless "
        "test paths are given too. Ini: structeval_scenarios",
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
        help="Where per-run reports and _aggregate.json go (default: reports/structeval "
        "under rootdir). Ini: structeval_reports_dir",
    )
    group.addoption(
        "--structeval-scorer",
        metavar="NAME",
        dest="structeval_scorer",
        default=None,
        help="Scorer for scenarios that do not name one (default: static_json). "
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
        "--structeval-diff",
        choices=("detailed", "off"),
        dest="structeval_diff",
        default=None,
        help="Field-level diffs in failures: detailed (default) or off (one line, for huge "
        "answers). Ini: structeval_diff",
    )
    parser.addini(
        "structeval_scenarios",
        "Scenario folder trees, relative to the ini file; added to the test paths",
        type="paths",
        default=[],
    )
    parser.addini(
        "structeval_trajectories",
        "Trajectory files or folders, relative to the ini file",
        type="paths",
        default=[],
    )
    parser.addini(
        "structeval_reports_dir",
        "Reports directory, relative to rootdir",
        default="reports/structeval",
    )
    parser.addini("structeval_scorer", "Default scorer for scenarios", default="")
    parser.addini("structeval_fail_under", "Pass-rate gate (0..1)", default="")
    parser.addini("structeval_min_score", "Mean-score gate (0..1)", default="")
    parser.addini("structeval_diff", "Failure diffs: detailed or off", default="detailed")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the options, create the session state and point pytest at the scenarios."""
    from .session import StructevalSession

    config.addinivalue_line("markers", _MARKER)
    StructevalSession.start(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    return _state(parent.config).collector_for(path, parent)


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    """Failing-paths table for ``==`` involving a ``ScoreResult`` or a ``JsonMatches``."""
    if op != "==" or not (
        type(left).__module__.startswith("pytest_structeval")
        or type(right).__module__.startswith("pytest_structeval")
    ):
        return None  # cheap exit for every other failing assert
    from .api import assertrepr_lines

    return assertrepr_lines(left, right, detailed=_state(config).settings.diff == "detailed")


def _state(config: pytest.Config) -> StructevalSession:
    from .session import structeval_state

    return structeval_state(config)


class StructevalFixture:
    """The ``structeval`` fixture: scores like :func:`pytest_structeval.score` and records
    every result for the session report (per-run files, ``_aggregate.json``, the gates)."""

    def __init__(self, item: pytest.Item, state: StructevalSession) -> None:
        self._item = item
        self._state = state
        self._count = 0

    def score(
        self,
        gold: Any,
        model: Any,
        mode: str = "strict",
        *,
        threshold: float | None = None,
        **options: Any,
    ) -> ScoreResult:
        """Score ``model`` against ``gold`` (any answer shape) and record the result."""
        from .api import score
        from .report import RunRecord
        from .session import add_item_record

        registry = self._state.registry
        result = score(gold, model, mode, threshold=threshold, registry=registry, **options)
        self._count += 1
        item = self._item
        run_id = item.name if self._count == 1 else f"{item.name}-{self._count}"
        record = RunRecord.from_result(
            result, scorer=mode, run_id=run_id, scenario_id=item.nodeid, nodeid=item.nodeid
        )
        add_item_record(item, record.to_dict())
        return result

    def assert_matches(
        self,
        gold: Any,
        model: Any,
        mode: str = "strict",
        threshold: float | None = None,
        **options: Any,
    ) -> ScoreResult:
        """:meth:`score`, then fail with the failing paths unless the result passed (and
        reached ``threshold`` when one is given)."""
        __tracebackhide__ = True
        from .api import check_result

        result = self.score(gold, model, mode, threshold=threshold, **options)
        return check_result(result, threshold)


@pytest.fixture
def structeval(request: pytest.FixtureRequest) -> StructevalFixture:
    """Score and assert structured answers; every result joins the session report."""
    return StructevalFixture(request.node, _state(request.config))


@pytest.fixture
def assert_json_matches(request: pytest.FixtureRequest) -> Callable[..., ScoreResult]:
    """:func:`pytest_structeval.assert_json_matches`, with the scorers that
    ``pytest_structeval_register`` hooks added available as ``mode=``."""
    from .api import assert_json_matches as check

    return functools.partial(check, registry=_state(request.config).registry)
