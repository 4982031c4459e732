"""pytest-xdist: results merge on the controller exactly as in a serial run.

Each case spawns worker processes, so there are few of them and each checks several things.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.plugin_support import aggregate, comparable, scenario, trajectory, write_trajectories

pytest.importorskip("xdist")

CONFTEST = """
import os

from pytest_structeval import score

def crash_on_request(gold, model, **options):
    if model == "CRASH":
        os._exit(3)  # a worker dies in the middle of a scenario item
    return score(gold, model, **options)

def pytest_structeval_register(registry):
    registry.register_scorer("crash_on_request", crash_on_request)
"""
UNIT = """
def test_fixture_result(structeval):
    structeval.score({"k": [1, 2]}, '{"k": [1, 3]}')
"""
SERIAL = ("-p", "no:cacheprovider", "-p", "no:xdist")


def build(root: Path) -> None:
    """Passing, failing, broken, unmatched and fixture results: every aggregate part is used."""
    ini = "[pytest]\nstructeval_scenarios = sc\nstructeval_trajectories = runs\n"
    (root / "pytest.ini").write_text(ini, encoding="utf-8")
    (root / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (root / "test_unit.py").write_text(UNIT, encoding="utf-8")
    sc = root / "sc"
    for n in range(1, 7):
        answer = f'{{"n": {n}}}' if n % 3 else f'{{"n": {n + 1}}}'
        scenario(
            sc,
            f"scenario_{n}",
            f'{{"n": {n}}}',
            trajectory(f"r{n}", answer),
            trajectory(f"s{n}", answer),
        )
    scenario(sc, "scenario_7/turns/01", '{"t": 1}', trajectory("t1", '{"t": 1}'))
    scenario(sc, "scenario_8", '{"x": 1}')
    scenario(sc, "scenario_9", "{", gold_file="groundtruth.json")
    write_trajectories(root / "runs", [trajectory("lost", "{}", scenario_id="99")])


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    build(pytester.path)
    return pytester


def test_two_workers_produce_the_serial_aggregate(project: pytest.Pytester) -> None:
    serial = project.runpytest_subprocess(*SERIAL)
    serial.assert_outcomes(passed=10, failed=5)
    expected = comparable(project.path)
    assert expected["aggregate"]["complete"] is True
    assert expected["aggregate"]["totals"]["scored"] == 14
    assert expected["aggregate"]["unmatched"]["trajectories"]
    assert expected["aggregate"]["errors"]

    shutil.rmtree(project.path / "reports")
    parallel = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    parallel.assert_outcomes(passed=10, failed=5)
    assert comparable(project.path) == expected


def test_non_collocated_workers_produce_the_serial_aggregate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--tx popen//chdir=...``: each worker runs in its own copy of the project (as on other
    hosts), so nothing may depend on the controller's paths or on a shared file system."""
    hosts = [pytester.path / name for name in ("controller", "host_a", "host_b")]
    for host in hosts:
        host.mkdir()
        build(host)
    controller = hosts[0]
    monkeypatch.chdir(controller)
    pytester.runpytest_subprocess(*SERIAL).assert_outcomes(passed=10, failed=5)
    expected = comparable(controller)
    shutil.rmtree(controller / "reports")
    # The workers must read their own hosts' copies, never the controller's files.
    (controller / "sc" / "scenario_1" / "trajectory_0.json").unlink()

    tx = [f"--tx=popen//chdir={host}" for host in hosts[1:]]
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--dist=load", *tx)
    result.assert_outcomes(passed=10, failed=5)
    assert comparable(controller) == expected
    assert not (hosts[1] / "reports").exists()
    assert not (hosts[2] / "reports").exists()


def run_with_a_crash(project: pytest.Pytester, workers: str, *extra: str) -> pytest.RunResult:
    """The run of ``project`` with one item that kills its worker, never restarted."""
    scenario(
        project.path / "sc",
        "scenario_3",
        '{"n": 3}',
        trajectory("boom", "CRASH"),
        config="scorer: crash_on_request\n",
    )
    return project.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", workers, "--max-worker-restart=0", *extra
    )


def test_crashed_worker_leaves_an_incomplete_report_with_errors(project: pytest.Pytester) -> None:
    result = run_with_a_crash(project, "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = aggregate(project.path)
    assert report["complete"] is False
    assert any(reason.endswith("crashed") for reason in report["incomplete_reasons"])
    errors = {e["run_id"]: e["error"] for e in report["errors"] if e.get("run_id")}
    assert "crashed while running" in errors["boom"]
    assert report["totals"]["errors"] == len(errors) >= 1
    scenario_rows = [r for r in report["results"] if r["nodeid"].startswith("sc/")]
    assert len(scenario_rows) == 13  # every selected scenario item: a result or an error
    result.stdout.fnmatch_lines(["INCOMPLETE run: *crashed*"])


def test_items_of_a_run_whose_only_worker_crashed_are_errors(project: pytest.Pytester) -> None:
    """No worker finishes, so none sends its ``workeroutput``: the selected items still come
    through (on the worker's first report), and every one is a result or an error. The join's
    figures are unknown then, not 0, so gates on them fail (xdist28 #3: `load_errors==0` was
    met), and a load-error item that reported before the crash is among the errors."""
    (project.path / "sc" / "scenario_1" / "trajectory_bad.json").write_text("{", "utf-8")
    gates = ("--structeval-gate", "load_errors==0", "--structeval-gate", "unmatched_scenarios<=5")
    result = run_with_a_crash(project, "1", *gates)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = aggregate(project.path)
    assert report["complete"] is False
    scenario_rows = [r for r in report["results"] if r["nodeid"].startswith("sc/")]
    assert len(scenario_rows) == 13
    errors = {e["run_id"]: e["error"] for e in report["errors"] if e.get("run_id")}
    assert "crashed while running" in errors["boom"]
    never_ran = [r for r in scenario_rows if "did not run" in (r["reason"] or "")]
    assert never_ran  # the items after the crash
    # each keeps its runner and model (the fixture test's record has none: "unknown")
    assert report["by_runner_model"]["react / gpt-4o"]["runs"] == len(scenario_rows)
    assert report["totals"]["pass_rate"] < 1.0
    assert "no scenario found" not in result.stdout.str()
    result.stdout.fnmatch_lines(["INCOMPLETE run: *crashed*"])
    unknown = "no worker finished: unmatched and load errors are unknown"
    assert unknown in report["incomplete_reasons"]
    totals = report["totals"]
    assert (totals["load_errors"], totals["unmatched_trajectories"]) == (None, None)
    assert totals["unmatched_scenarios"] is None
    (load,) = [e for e in report["errors"] if "trajectory_bad" in e["source"]]
    # as a run whose workers finished lists it (diff28a #5)
    assert load["source"] == "sc/scenario_1/trajectory_bad.json"
    assert load["error"].startswith("invalid JSON")
    result.stdout.fnmatch_lines(
        [
            "unmatched trajectories and scenarios without trajectories: unknown",
            "errors: * (loading unknown, * in runs)",
            "FAIL structeval: --structeval-gate load_errors==0 fails: this run's report has no "
            "load_errors*",
            "FAIL structeval: --structeval-gate unmatched_scenarios<=5 fails*",
        ]
    )
    assert "gates met" not in result.stdout.str()


CRASHING_FIXTURE_TESTS = """
import os

def test_a(structeval):
    structeval.score({"a": 1}, '{"a": 1}')

def test_b(structeval):
    os._exit(5)
"""
"""Two tests using the fixture, the second killing its worker."""


def test_a_crash_in_a_run_without_scenarios_leaves_no_join_unknown(
    pytester: pytest.Pytester,
) -> None:
    """A run of fixture tests has no join to note: a crashed worker is all that is missing
    (xdist25 #1: "no worker finished" was said while the other worker had finished)."""
    pytester.makepyfile(test_c=CRASHING_FIXTURE_TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-n", "1", "--max-worker-restart", "0")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    reasons = aggregate(pytester.path)["incomplete_reasons"]
    assert len(reasons) == 1
    assert reasons[0].endswith("crashed")


def test_a_fixture_test_its_worker_died_in_is_counted_as_not_run(
    pytester: pytest.Pytester,
) -> None:
    """lifecycle32 #4: under ``-n 2`` the test that killed its worker was in neither the
    results nor the reasons (xdist reports it as failed, so it counted as run), where a
    serial run counts it among the tests using the fixture that did not run."""
    pytester.makepyfile(
        test_c=CRASHING_FIXTURE_TESTS
        + """
def test_c(structeval):
    structeval.score({"a": 1}, '{"a": 1}')

def test_d():
    pass
"""
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-n", "2", "--max-worker-restart", "0", "--dist", "load"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = aggregate(pytester.path)
    assert "1 test using the structeval fixture did not run" in report["incomplete_reasons"]
    assert any(reason.endswith("crashed") for reason in report["incomplete_reasons"])
    assert "test_b" not in {r["run_id"] for r in report["results"]}


def test_an_item_scored_before_its_worker_crashed_keeps_its_score(
    project: pytest.Pytester,
) -> None:
    """A worker killed in an item's teardown: its result had reached the controller, so the
    aggregate keeps that score (pytest counts its passed call too) and says the run is
    incomplete; pytest adds the crash as a failure of its own (concurrent23 #5)."""
    with (project.path / "conftest.py").open("a", encoding="utf-8") as conftest:
        conftest.write(
            "\ndef pytest_runtest_teardown(item):\n"
            "    if item.nodeid.endswith('[r2]'):\n"
            "        os._exit(3)\n"
        )
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--max-worker-restart=0"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*crashed while running*scenario_2::2[[]r2[]]*"])
    report = aggregate(project.path)
    assert report["complete"] is False
    assert any(reason.endswith("crashed") for reason in report["incomplete_reasons"])
    (row,) = [r for r in report["results"] if r["nodeid"] == "sc/scenario_2::2[r2]"]
    assert (row["passed"], row["score"], row["error"]) == (True, 1.0, None)


RERUN_CRASH_CONFTEST = """
import os

import pytest
from pytest_structeval import score

HERE = os.path.dirname(__file__)

def once(name):
    \"\"\"True the first time in this project, whichever process asks.\"\"\"
    try:
        open(os.path.join(HERE, name), "x").close()
    except FileExistsError:
        return False
    return True

def crash_once(gold, model, **options):
    if once("crashed"):
        os._exit(3)  # the first attempt kills its worker
    return score(gold, model, **options)

def pytest_structeval_register(registry):
    registry.register_scorer("crash_once", crash_once)

@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem, report, sched):
    # What pytest-rerunfailures does: the item a worker crashed in is run again (once).
    if once("rerun"):
        sched.mark_test_pending(crashitem)
        report.outcome = "rerun"
"""


def rerun_crash_project(pytester: pytest.Pytester) -> None:
    """Two scenario items and a fixture test; the first item scored kills its worker once."""
    pytester.makeconftest(RERUN_CRASH_CONFTEST)
    pytester.makeini("[pytest]\nstructeval_scenarios = sc\n")
    sc = pytester.path / "sc"
    for n in (1, 2):
        runs = (trajectory(f"r{n}", f'{{"n": {n}}}'),)
        scenario(sc, f"scenario_{n}", f'{{"n": {n}}}', *runs, config="scorer: crash_once\n")
    pytester.makepyfile(test_unit=UNIT)


def test_a_crash_whose_item_was_run_again_leaves_nothing_missing(
    pytester: pytest.Pytester,
) -> None:
    """pluginmix34 #3: pytest-rerunfailures ran the item of a crashed worker again, every run
    was scored once, and the run still said ``INCOMPLETE run: worker gw0 crashed`` and refused
    the baseline. The crash is said in the summary; the run is complete."""
    rerun_crash_project(pytester)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "2",
        "--structeval-save-baseline", "b.json",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.OK
    report = aggregate(pytester.path)
    assert (report["complete"], report["incomplete_reasons"]) == (True, [])
    (recovered,) = report["recovered_crashes"]
    assert re.fullmatch(
        r"worker gw\d crashed in sc/scenario_\d::\d\[r\d\], which was run again", recovered
    )
    assert sorted((r["nodeid"], r["error"]) for r in report["results"]) == [
        ("sc/scenario_1::1[r1]", None),
        ("sc/scenario_2::2[r2]", None),
        ("test_unit.py::test_fixture_result", None),
    ]
    result.stdout.fnmatch_lines([f"recovered: {recovered}"])
    assert "INCOMPLETE" not in result.stdout.str()
    assert (pytester.path / "b.json").exists()


def test_a_crash_whose_item_could_not_run_again_is_still_incomplete(
    pytester: pytest.Pytester,
) -> None:
    """The crashed item was put back to run again, but no worker was left to run it."""
    rerun_crash_project(pytester)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "1", "--max-worker-restart=0",
        "--structeval-save-baseline", "b.json",
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    report = aggregate(pytester.path)
    assert report["complete"] is False
    assert "worker gw0 crashed" in report["incomplete_reasons"]
    assert report["recovered_crashes"] == []
    assert not (pytester.path / "b.json").exists()


HIDDEN_CRASH_CONFTEST = """
import os

import pytest

def pytest_runtest_setup(item):
    if item.name in ("1[r1]", "test_b"):
        os._exit(3)  # before any report of the item: nothing of it reaches the controller

@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem, report, sched):
    # What pytest-rerunfailures does: the crashed item is put back to run again, a "rerun".
    sched.mark_test_pending(crashitem)
    report.outcome = "rerun"
"""


FIXTURE_TESTS = """
def test_b(structeval):  # (the first to run: the conftest kills its worker in its setup)
    structeval.score({"a": 1}, '{"a": 1}')

def test_a(structeval):
    structeval.score({"a": 1}, '{"a": 1}')
"""


@pytest.mark.parametrize("layout", ["ini", "argument", "fixture", "known"])
def test_a_crash_a_rerun_hides_from_pytest_fails_the_run(
    pytester: pytest.Pytester, layout: str
) -> None:
    """The only worker dies in an item that pytest-rerunfailures puts back to run again, and
    no worker is left to run it: pytest counts a rerun, no failure, and exits 0. The run
    failed silently where nothing had reached the controller (no summary with the scenarios
    given as an argument or only fixture tests; 'no scenario found' with the ini key) and
    passed with its items known ('INCOMPLETE run', exit 0)."""
    pytester.makeconftest(HIDDEN_CRASH_CONFTEST)
    if layout in ("ini", "known"):
        pytester.makeini("[pytest]\nstructeval_scenarios = sc\n")
    if layout == "fixture":
        pytester.makepyfile(test_c=FIXTURE_TESTS)
        crashed, args = "test_c.py::test_b", ()
    else:
        sc = pytester.path / "sc"
        first = 0 if layout == "known" else 1  # (scenario_0 runs and passes first)
        for n in range(first, 3):
            scenario(sc, f"scenario_{n}", f'{{"n": {n}}}', trajectory(f"r{n}", f'{{"n": {n}}}'))
        crashed, args = "sc/scenario_1::1[r1]", ("sc",) if layout == "argument" else ()
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-n", "1", "--max-worker-restart=0", *args
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    output = result.stdout.str()
    assert f"FAIL structeval: worker gw0 crashed in {crashed}, which was put back" in output
    assert "no scenario found" not in output
    if layout != "fixture":  # (which tests use the fixture is unknown: no report is written)
        report = aggregate(pytester.path)
        assert report["complete"] is False
        assert "worker gw0 crashed" in report["incomplete_reasons"]
        assert report["totals"]["passed"] == (1 if layout == "known" else 0)


def test_deselection_is_not_missing_and_xdist_can_be_absent(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "-k", "scenario_1 or scenario_2"
    )
    result.assert_outcomes(passed=4)  # xdist's controller does not count deselections
    report = aggregate(project.path)
    assert report["complete"] is True
    assert report["totals"] == {
        "scenarios": 2,
        "scored": 4,
        "passed": 4,
        "pass_rate": 1.0,
        "errors": 0,
        "load_errors": 1,  # scenario_9: its gold is broken JSON
        "unmatched_trajectories": 1,
        "unmatched_scenarios": 2,
    }
    assert "did not run" not in str(report["errors"])

    alone = project.runpytest_subprocess(*SERIAL, "-k", "scenario_1")
    alone.assert_outcomes(passed=2, deselected=13)
    assert aggregate(project.path)["complete"] is True


def test_a_collection_error_leaves_the_run_incomplete_however_it_runs(
    project: pytest.Pytester,
) -> None:
    """A folder whose conftest.py fails to import loses its items: serially pytest stops,
    but with ``--continue-on-collection-errors`` and under xdist the run goes on, and its
    aggregate said complete (and could be saved as a baseline) without them (review xdist19)."""
    broken = project.path / "sc" / "scenario_5" / "conftest.py"
    broken.write_text("raise ImportError('no module judge_client')\n", encoding="utf-8")
    going_on = ("--continue-on-collection-errors", *SERIAL)
    for args in (going_on, ("-p", "no:cacheprovider", "-n", "2")):
        result = project.runpytest_subprocess(*args, "--structeval-save-baseline=base.json")
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        report = aggregate(project.path)
        assert report["complete"] is False
        assert report["incomplete_reasons"] == ["collection error in sc/scenario_5"]
        assert not any(r["scenario_id"] == "5" for r in report["results"])
        assert not (project.path / "base.json").exists()
        result.stdout.fnmatch_lines(["INCOMPLETE run: collection error in sc/scenario_5*"])


EACH_CONFTEST = """
import os

import pytest

from pytest_structeval import score

def pytest_runtest_setup(item):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if item.name == "1[r1]" and worker == "gw1":
        raise RuntimeError("sandbox unavailable on gw1")
    if item.name == "2[r2]" and worker == "gw1":
        pytest.skip("endpoint down on gw1")

def crash_on_gw1(gold, model, **options):
    if model == "CRASH" and os.environ.get("PYTEST_XDIST_WORKER") == "gw1":
        os._exit(3)
    return score(gold, model, **options)

def pytest_structeval_register(registry):
    registry.register_scorer("crash_on_gw1", crash_on_gw1)
"""


def test_under_dist_each_every_workers_copy_of_a_scenario_item_counts(
    pytester: pytest.Pytester,
) -> None:
    """Review xdist28 #1, #2: a copy that failed in setup or skipped on one worker was hidden
    by the other worker's good copy (errors 0, pass rate 1, the gates met, the baseline
    saved); a crashed worker's unfinished copies went missing."""
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(EACH_CONFTEST)
    sc = pytester.path / "sc"
    for n in (1, 2, 3):
        scenario(sc, f"scenario_{n}", f'{{"n": {n}}}', trajectory(f"r{n}", f'{{"n": {n}}}'))
    args = ["-p", "no:cacheprovider", "--structeval-scenarios", "sc", "-n", "2", "--dist", "each"]
    result = pytester.runpytest_subprocess(
        *args, "--structeval-gate", "errors==0", "--structeval-save-baseline", "b.json"
    )
    result.assert_outcomes(passed=4, skipped=1, errors=1)
    report = aggregate(pytester.path)
    assert report["totals"]["scored"] == 5  # 3 items x 2 workers, one copy skipped
    assert report["totals"]["errors"] == 1
    assert report["totals"]["passed"] == 4
    (error,) = [r for r in report["results"] if r["scenario_id"] == "1" and r["error"]]
    assert "sandbox unavailable on gw1" in error["error"]
    (skip,) = report["skipped"]
    assert (skip["scenario_id"], skip["reason"]) == ("2", "endpoint down on gw1")
    result.stdout.fnmatch_lines(["FAIL structeval: errors 1 misses --structeval-gate errors==0"])
    assert not (pytester.path / "b.json").exists()

    (pytester.path / "conftest.py").write_text(EACH_CONFTEST.replace('== "1[r1]"', "== 'x'"))
    scenario(
        sc, "scenario_0", '{"z": 0}', trajectory("r0", "CRASH"), config="scorer: crash_on_gw1\n"
    )
    crashed = pytester.runpytest_subprocess(*args, "--max-worker-restart=0")
    report = aggregate(pytester.path)
    assert report["complete"] is False
    # 4 items x 2 workers: gw1 crashed on its first (scenario 0) and never ran the other 3
    assert report["totals"]["scored"] == 8
    assert report["totals"]["errors"] == 4  # the crash and the 3 copies that did not run
    not_run = [r for r in report["results"] if r["error"] and "did not run" in r["error"]]
    assert len(not_run) == 3
    assert "3 scenario items did not run" in " ".join(report["incomplete_reasons"])
    assert crashed.ret == pytest.ExitCode.TESTS_FAILED
