"""Tests using the ``structeval`` fixture in a run that stops early or runs only the last
failures (interplay30 #1, #2): no exit status says that some of them never ran, and ``--lf``
leaves the passed ones out while collecting, not by deselection."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.plugin_support import scenario, trajectory

TESTS = """
import os

def test_a(structeval):
    structeval.assert_matches('{"a": 1}', '{"a": 1}')

def test_plain():
    assert os.environ.get("PLAIN_PASSES") == "1"

def test_c(structeval):
    structeval.assert_matches('{"a": 1}', os.environ.get("ANSWER_C", '{"a": 1}'))
"""
MORE = """
def test_g(structeval):
    structeval.assert_matches('{"g": 1}', '{"g": 1}')
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_f=TESTS, test_g=MORE)
    return pytester


def _aggregate(project: pytest.Pytester) -> dict[str, Any]:
    aggregate: dict[str, Any] = json.loads(
        (project.path / "reports" / "structeval" / "_aggregate.json").read_text()
    )
    return aggregate


@pytest.mark.parametrize(
    ("args", "stop"),
    [
        (["-x"], " (stopping after 1 failures)"),
        (["--maxfail=1"], " (stopping after 1 failures)"),
    ],
)
def test_a_run_stopped_before_some_fixture_tests_is_incomplete(
    project: pytest.Pytester, args: list[str], stop: str
) -> None:
    """A serial ``-x`` run said ``complete: true`` and saved a baseline of one result out of
    three (under xdist the same run was incomplete)."""
    result = project.runpytest(*args, "--structeval-save-baseline", "b.json")
    result.stdout.fnmatch_lines(
        [
            "INCOMPLETE run: 2 tests using the structeval fixture did not run*",
            "FAIL structeval: baseline not saved to *b.json: the run is incomplete*",
        ]
    )
    report = _aggregate(project)
    assert report["complete"] is False
    assert report["incomplete_reasons"] == [
        f"2 tests using the structeval fixture did not run{stop}"
    ]
    assert not (project.path / "b.json").exists()


def test_a_run_stopped_after_its_last_fixture_test_is_complete(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-x`` stopping at the last test left nothing out: no false alarm."""
    monkeypatch.setenv("PLAIN_PASSES", "1")
    monkeypatch.setenv("ANSWER_C", '{"a": 2}')
    project.runpytest("-x", "test_g.py", "test_f.py").assert_outcomes(passed=3, failed=1)
    assert _aggregate(project)["complete"] is True


def test_pytest_exit_with_status_0_before_some_fixture_tests_is_incomplete(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(
        """
import pytest

def pytest_runtest_teardown(item):
    if item.name == "test_a":
        pytest.exit("enough", returncode=0)
"""
    )
    result = project.runpytest("--structeval-save-baseline", "b.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the refused baseline fails the run
    assert _aggregate(project)["incomplete_reasons"] == [
        "2 tests using the structeval fixture did not run"
    ]


def test_last_failed_over_fixture_tests_is_a_selection(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--lf`` reran one fixture test of three: the aggregate said ``selection: false``, the
    gates judged it as the whole suite and the baseline was saved."""
    monkeypatch.setenv("PLAIN_PASSES", "1")
    monkeypatch.setenv("ANSWER_C", '{"a": 2}')
    project.runpytest().assert_outcomes(passed=3, failed=1)
    assert _aggregate(project)["selection"] is False
    monkeypatch.setenv("ANSWER_C", '{"a": 1}')
    rerun = project.runpytest("--lf", "--structeval-save-baseline", "b.json")
    rerun.assert_outcomes(passed=1)
    rerun.stdout.fnmatch_lines(
        [
            "selection: this run scored a selection*",
            "FAIL structeval: baseline not saved to *b.json: the run scored a selection*",
        ]
    )
    report = _aggregate(project)
    assert (report["selection"], report["totals"]["scored"]) == (True, 1)
    # with no failure on record, --lf runs everything: no selection
    project.runpytest("--lf").assert_outcomes(passed=4)
    assert _aggregate(project)["selection"] is False


# A run stopped before any test finished, and how it ends.
STOPS_BEFORE_ANY_RAN = {
    # interplay30 #5: an aggregate of runs that "did not run" replaced the last reports
    "ctrl-c while collecting": (
        "def pytest_collection_modifyitems(items):\n    raise KeyboardInterrupt\n",
        pytest.ExitCode.INTERRUPTED,
    ),
    # diff30a #4: an empty aggregate that said it was complete replaced them
    "pytest.exit(0) before any test": (
        "import pytest\n\n"
        "def pytest_collection_finish(session):\n"
        "    pytest.exit('model endpoint down', returncode=0)\n",
        pytest.ExitCode.OK,
    ),
    # diff30b #3: the first item's setup had reported, so its stop counted as a run
    "pytest.exit(0) inside the first test": (
        "import pytest\n\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_runtest_call(item):\n"
        "    pytest.exit('model endpoint down', returncode=0)\n",
        pytest.ExitCode.OK,
    ),
}


@pytest.mark.parametrize("stop", STOPS_BEFORE_ANY_RAN)
def test_a_run_stopped_before_any_test_finished_leaves_the_last_reports(
    pytester: pytest.Pytester, stop: str
) -> None:
    """As --co and --setup-only do: a run that scored nothing replaces nothing."""
    conftest, status = STOPS_BEFORE_ANY_RAN[stop]
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(pytester.path / "sc", "scenario_2", '{"b": 2}', trajectory("r2", '{"b": 2}'))
    pytester.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=2)
    reports = pytester.path / "reports" / "structeval"
    before = {path.name: path.read_bytes() for path in reports.iterdir()}
    pytester.makeconftest(conftest)
    # (in a subprocess: in-process, pytester hands a KeyboardInterrupt on to this session)
    stopped = pytester.runpytest_subprocess("--structeval-scenarios", "sc")
    assert stopped.ret == status
    stopped.stdout.fnmatch_lines(
        ["structeval: 2 scenario runs, stopped before any ran: *left as they were"]
    )
    assert {path.name: path.read_bytes() for path in reports.iterdir()} == before


def test_pytest_exit_inside_a_fixture_test_makes_the_run_incomplete(
    project: pytest.Pytester,
) -> None:
    """diff30b #4: the stopped test's setup had reported, so it counted as run."""
    project.makeconftest(
        """
import pytest

def pytest_runtest_call(item):
    if item.name == "test_c":
        pytest.exit("enough", returncode=0)
"""
    )
    project.runpytest("test_f.py", "-p", "no:randomly")
    assert _aggregate(project)["incomplete_reasons"] == [
        "1 test using the structeval fixture did not run"
    ]
