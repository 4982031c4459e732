"""Report files, aggregate fields, CI gates and exit codes of a scenario run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.plugin_support import (
    PYTEST_RELEASE,
    aggregate,
    scenario,
    trajectory,
    write_trajectories,
)

REPORTS = "reports/structeval"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Scenarios whose runs all pass: one similarity run scores 0.8 against threshold 0.7."""
    pytester.makeini("[pytest]\n")
    sc = pytester.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(
        sc,
        "scenario_2",
        '{"p": 10, "q": 10}',
        trajectory("r2", '{"p": 10, "q": 6}'),
        config="mode: similarity\nthreshold: 0.7\ntype: fuzzy\n",
    )
    return pytester


def test_every_report_file_and_aggregate_field(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(
        sc,
        "scenario_3",
        '{"b": 2, "c": 3}',
        trajectory(
            "../escape", '<think>{"b": 9}</think>Final Answer: {"b": 2, "c": 4}', model="gpt-5"
        ),
        trajectory("_aggregate", '{"b": 2, "c": 3}', runner="plan-execute"),
    )
    scenario(sc, "scenario_4", '{"d": 4}')
    scenario(sc, "scenario_5", "{", gold_file="groundtruth.json")
    write_trajectories(project.path / "runs", [trajectory("stray", "{}", scenario_id="404")])
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-trajectories", "runs")
    result.assert_outcomes(passed=3, failed=2)

    names = {p.name for p in (project.path / REPORTS).iterdir()}
    assert names == {
        "_aggregate.json",
        "r1.json",
        "r2.json",
        "run-_aggregate.json",
        "_escape.json",
    }
    assert not (project.path / "reports" / "escape.json").exists()
    run = json.loads((project.path / REPORTS / "_escape.json").read_text(encoding="utf-8"))
    assert list(run)[:9] == [
        "scenario_id",
        "scenario_type",
        "run_id",
        "runner",
        "model",
        "question",
        "answer",
        "score",
        "ops",
    ]
    assert run["run_id"] == "../escape"
    assert run["answer"] == 'Final Answer: {"b": 2, "c": 4}'
    assert set(run["score"]) == {"scorer", "passed", "score", "rationale", "details"}
    assert run["score"]["passed"] is False
    assert run["score"]["details"]["f1"] == 0.5
    assert run["ops"] == {
        "turn_count": 1,
        "tool_call_count": 1,
        "unique_tools": ["lookup"],
        "tokens_in": 100,
        "tokens_out": 10,
        "duration_ms": 50,
        "est_cost_usd": 0.0013,
    }

    report = aggregate(project.path)
    assert report["runners"] == ["plan-execute", "react"]
    assert report["models"] == ["gpt-4o", "gpt-5"]
    assert report["totals"] == {
        "scenarios": 3,
        "scored": 4,
        "passed": 3,
        "pass_rate": 0.75,
        "errors": 0,
        "load_errors": 1,
        "unmatched_trajectories": 1,
        "unmatched_scenarios": 2,
    }
    group_figures = ("total", "passed", "pass_rate", "score_avg")
    assert {t: {k: e[k] for k in group_figures} for t, e in report["by_scenario_type"].items()} == {
        "fuzzy": {"total": 1, "passed": 1, "pass_rate": 1.0, "score_avg": 0.8},
        "unknown": {"total": 3, "passed": 2, "pass_rate": 0.6667, "score_avg": 0.8333},
    }
    for entry in report["by_scenario_type"].values():  # then the scorers' metric means
        assert all(key.endswith("_avg") for key in list(entry)[len(group_figures) :])
    assert report["ops"]["tokens_in_total"] == 400
    assert report["ops"]["tool_calls_total"] == 4
    assert report["ops"]["duration_ms_p50"] == 50.0
    assert report["score_summary"]["score_avg"] == pytest.approx((1 + 0.8 + 0.5 + 1) / 4, abs=1e-4)
    assert [f["path"] for f in report["per_field"]] == ["answer.q", "answer.c"]
    assert report["unmatched"]["trajectories"][0]["run_id"] == "stray"
    assert [s["id"] for s in report["unmatched"]["scenarios"]] == ["4", "5"]
    assert report["errors"][0]["source"] == "sc/scenario_5"
    assert {r["report"] for r in report["results"]} == names - {"_aggregate.json"}
    assert report["complete"] is True
    assert report["incomplete_reasons"] == []
    result.stdout.fnmatch_lines(
        [
            "*- structeval summary -*",
            "scenarios 3 | runs 4 | passed 3 | pass rate 0.7500 | mean score 0.8250 | errors 0"
            " | load errors 1",
            "unmatched trajectories: 1 (runs/stray.json -> '404', no such scenario)",
            "scenarios without trajectories: 2 (4, 5)",
            "errors: 1 (1 loading, 0 in runs)",
            "worst fields: answer.q *, answer.c *",
            f"reports: {project.path / REPORTS / '_aggregate.json'} (4 run files)",
        ]
    )


def test_gates_met_exit_zero(project: pytest.Pytester) -> None:
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-fail-under",
        "1",
        "--structeval-min-score",
        "0.9",
    )
    assert result.ret == pytest.ExitCode.OK
    assert "FAIL" not in result.stdout.str()
    # a met gate leaves a trace: the user can tell the options (or ini keys) were read
    result.stdout.fnmatch_lines(["gates met: pass_rate>=1, score_avg>=0.9"])


def test_mean_score_gate_fails_a_run_whose_items_all_passed(project: pytest.Pytester) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-min-score", "0.95")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["FAIL structeval: mean score 0.9000 is under --structeval-min-score 0.9500"]
    )


def test_load_errors_gate_fails_a_run_that_lost_trajectory_files(
    project: pytest.Pytester,
) -> None:
    """Every item passes, yet a trajectory file outside the scenario folders was unreadable:
    ``errors`` (runs that could not be scored) is 0, ``load_errors`` is not."""
    (project.path / "runs").mkdir()
    (project.path / "runs" / "lost.json").write_text("{nope", encoding="utf-8")
    args = ["--structeval-scenarios", "sc", "--structeval-trajectories", "runs"]
    result = project.runpytest(*args, "--structeval-gate", "errors==0")
    assert result.ret == pytest.ExitCode.OK
    result = project.runpytest(*args, "--structeval-gate", "load_errors==0")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["errors: 1 (1 loading, 0 in runs)", "FAIL structeval: load_errors 1* misses*"]
    )


@pytest.mark.parametrize("xdist", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_a_lost_trajectory_file_fails_a_run_no_gate_judges(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """A broken file outside every scenario is no item: with no gate, the run still fails
    on it, as ``structeval evaluate`` does (pytest passed it, review newuser16). A broken
    file a scenario owns is its failing item, and no second failure."""
    (project.path / "runs").mkdir()
    (project.path / "runs" / "lost.json").write_text("{nope", encoding="utf-8")
    args = ["--structeval-scenarios", "sc", "--structeval-trajectories", "runs", *xdist]
    result = project.runpytest(*args)
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "errors: 1 (1 loading, 0 in runs)",
            "FAIL structeval: 1 file or entry could not be read and is no test item (see "
            "errors); with no gate everything must load (a gate such as load_errors<=1 "
            "decides instead)",
        ]
    )
    (project.path / "runs" / "lost.json").unlink()  # (an empty folder is a load error too)
    (project.path / "sc" / "scenario_1" / "trajectory-2.json").write_text("{", encoding="utf-8")
    owned = project.runpytest(*args[:2], *xdist)
    owned.assert_outcomes(passed=2, failed=1)
    assert "could not be read" not in owned.stdout.str()


def test_a_baseline_check_does_not_excuse_a_lost_trajectory_file(project: pytest.Pytester) -> None:
    """``--structeval-fail-on-regression`` is no gate: the runs of a file that could not be
    read are merely ``missing`` from the baseline, never a regression, so the run would pass
    on a guard stricter than none (review stats22 #1)."""
    (project.path / "runs").mkdir()
    args = ["--structeval-scenarios", "sc", "--structeval-trajectories", "runs"]
    assert project.runpytest(*args[:2], "--structeval-save-baseline", "base.json").ret == 0
    (project.path / "runs" / "lost.json").write_text("{nope", encoding="utf-8")
    checked = [*args, "--structeval-baseline", "base.json", "--structeval-fail-on-regression"]
    result = project.runpytest(*checked)
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAIL structeval: 1 file or entry could not be read*"])
    assert project.runpytest(*checked, "--structeval-gate", "load_errors<=1").ret == 0


def test_in_pytest_the_items_decide_new_failing_runs(project: pytest.Pytester) -> None:
    """A failing run the baseline lacks fails the CLI's ``--fail-on-regression``; in pytest
    its item decides: a failing scenario item fails the run once (no second line), and a new
    test expecting a failing score passes (review diff22d #1, #3)."""
    args = ["--structeval-scenarios", "sc"]
    assert project.runpytest(*args, "--structeval-save-baseline", "base.json").ret == 0
    checked = [*args, "--structeval-baseline", "base.json", "--structeval-fail-on-regression"]
    project.makepyfile(
        test_expects_a_miss="""
        def test_a_wrong_answer_scores_low(structeval):
            assert not structeval.score({"x": 1}, '{"x": 2}').passed
        """
    )
    result = project.runpytest("sc", "test_expects_a_miss.py", *checked)
    assert result.ret == pytest.ExitCode.OK
    scenario(project.path / "sc", "scenario_3", '{"a": 1}', trajectory("r3", '{"a": 2}'))
    result = project.runpytest(*checked)
    result.assert_outcomes(passed=2, failed=1)
    assert "not in baseline" not in result.stdout.str()


def test_pass_rate_gate_counts_fixture_results(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_fixture="""
        def test_scores_without_asserting(structeval):
            structeval.score({"x": 1}, '{"x": 2}')
        """
    )
    result = project.runpytest(
        "sc", "test_fixture.py", "--structeval-scenarios", "sc", "--structeval-fail-under", "0.8"
    )
    result.assert_outcomes(passed=3)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["FAIL structeval: pass rate 0.6667 is under --structeval-fail-under 0.8000"]
    )


def test_failing_scenarios_fail_their_items_without_a_gate(project: pytest.Pytester) -> None:
    scenario(project.path / "sc", "scenario_3", '{"a": 1}', trajectory("r3", '{"a": 2}'))
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "FAIL structeval" not in result.stdout.str()


def test_a_gate_never_lowers_an_existing_failure(project: pytest.Pytester) -> None:
    project.makepyfile(test_broken="def test_x(:\n    pass\n")
    result = project.runpytest("sc", "test_broken.py", "--structeval-min-score", "0.99")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    # stopped before any test ran: no gate judges it, the last reports stay (interplay30 #5)
    result.stdout.fnmatch_lines(["structeval: * stopped before any ran: no gate applied, *"])
    assert not (project.path / "reports").exists()
    # once the items ran, a gate that fails keeps the collection error's status
    result = project.runpytest(
        "sc", "test_broken.py", "--structeval-min-score", "0.99", "--continue-on-collection-errors"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAIL structeval: mean score * is under *"])
    assert aggregate(project.path)["complete"] is False


def test_stepwise_is_incomplete_by_what_it_left_unrun_as_x_is(project: pytest.Pytester) -> None:
    """lifecycle32 #5: ``--sw`` stopping at a failure is an interrupted session in pytest, so
    a run whose failing item was the last one, every item run, was ``complete: false`` ("run
    interrupted", and never saved as a baseline), where ``-x`` left it complete."""
    scenario(project.path / "sc", "scenario_9", '{"a": 1}', trajectory("r9", '{"a": 2}'))
    last = project.runpytest("--structeval-scenarios", "sc", "--sw", "-p", "no:randomly")
    last.assert_outcomes(passed=2, failed=1)
    report = aggregate(project.path)
    assert (report["complete"], report["incomplete_reasons"]) == (True, [])
    scenario(project.path / "sc", "scenario_0", '{"a": 1}', trajectory("r0", '{"a": 2}'))
    first = project.runpytest(
        "--structeval-scenarios", "sc", "--sw", "--cache-clear", "-p", "no:randomly"
    )
    first.assert_outcomes(failed=1)
    report = aggregate(project.path)
    assert report["complete"] is False
    assert report["incomplete_reasons"] == ["3 scenario items did not run"]


def test_stopping_early_leaves_an_incomplete_report_with_errors(project: pytest.Pytester) -> None:
    scenario(project.path / "sc", "scenario_0", '{"a": 1}', trajectory("r0", '{"a": 2}'))
    result = project.runpytest("--structeval-scenarios", "sc", "-x")
    result.assert_outcomes(failed=1)
    report = aggregate(project.path)
    assert report["complete"] is False
    assert report["incomplete_reasons"] == ["2 scenario items did not run"]
    assert report["totals"] == {
        "scenarios": 3,
        "scored": 3,
        "passed": 0,
        "pass_rate": 0.0,
        "errors": 2,
        "load_errors": 0,
        "unmatched_trajectories": 0,
        "unmatched_scenarios": 0,
    }
    assert {e["run_id"] for e in report["errors"]} == {"r1", "r2"}
    result.stdout.fnmatch_lines(["INCOMPLETE run: 2 scenario items did not run"])


def test_a_run_that_did_not_run_stays_with_its_runner_and_model(
    project: pytest.Pytester,
) -> None:
    """An error record for an item that never ran keeps what its trajectory says (runner,
    model, question) and the scorer it would have used, so it counts among its own runner and
    model's runs and ``by_scenario`` never pools two models (interplay24 #1)."""
    scenario(
        project.path / "sc",
        "scenario_0",
        '{"a": 1}',
        trajectory("r0", '{"a": 2}', model="A"),
        trajectory("r0b", '{"a": 1}', model="B", question="which a?"),
    )
    project.runpytest("--structeval-scenarios", "sc", "-x").assert_outcomes(failed=1)
    report = aggregate(project.path)
    assert report["models"] == ["A", "B", "gpt-4o"]
    assert {key: row["runs"] for key, row in report["by_runner_model"].items()} == {
        "react / A": 1,
        "react / B": 1,
        "react / gpt-4o": 2,
    }
    assert sorted(report["by_scenario"]) == ["0 [react / A]", "0 [react / B]", "1", "2"]
    never = json.loads((project.path / REPORTS / "r0b.json").read_text(encoding="utf-8"))
    assert (never["runner"], never["model"], never["question"]) == ("react", "B", "which a?")
    assert never["score"]["scorer"] == "static_json"
    assert never["error"].startswith("did not run")
    similar = json.loads((project.path / REPORTS / "r2.json").read_text(encoding="utf-8"))
    assert similar["score"]["scorer"] == "similarity"  # the scenario's own scorer


def test_without_the_terminal_a_missed_gate_says_why_on_stderr(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-p no:terminal``: the run fails, and the reason (with its GitHub annotation) goes to
    standard error instead of nowhere (interplay24 #4)."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    args = ("--structeval-scenarios", "sc", "-p", "no:terminal", "--structeval-gate")
    result = project.runpytest_subprocess(*args, "scored>=100")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.stdout.str() == ""
    missed = "structeval: scored 2 misses --structeval-gate scored>=100"
    assert result.stderr.lines[-2:] == [f"FAIL {missed}", f"::error title=structeval::{missed}"]
    met = project.runpytest_subprocess(*args, "scored>=1")
    assert met.ret == pytest.ExitCode.OK
    assert (met.stdout.str(), met.stderr.str()) == ("", "")


def test_interrupt_writes_an_incomplete_report(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        def interrupt(gold, model, **options):
            raise KeyboardInterrupt

        def pytest_structeval_register(registry):
            registry.register_scorer("interrupt", interrupt)
        """
    )
    scenario(
        project.path / "sc",
        "scenario_9",
        "{}",
        trajectory("r9", "{}"),
        config="scorer: interrupt\n",
    )
    result = project.runpytest_subprocess("--structeval-scenarios", "sc", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = aggregate(project.path)
    assert report["complete"] is False
    assert "run interrupted" in report["incomplete_reasons"]
    assert report["totals"]["scored"] == 3
    assert report["totals"]["errors"] == 1


_SIGTERM_AFTER_FIRST = """
import os, signal

calls = []

def pytest_runtest_logreport(report):  # (the controller's, or a serial run's)
    if report.when == "call":
        calls.append(report.nodeid)
        if len(calls) == 2:  # (the first is recorded by now; the second, maybe not)
            os.kill(os.getpid(), signal.SIGTERM)
"""


@pytest.mark.skipif(not hasattr(os, "kill"), reason="sends itself SIGTERM")
@pytest.mark.parametrize("workers", [[], ["-n", "1"]], ids=["serial", "xdist"])
def test_sigterm_keeps_the_runs_scored_so_far(project: pytest.Pytester, workers: list[str]) -> None:
    """Review limits33 #4: a cancelled CI job (SIGTERM) killed pytest with every scored run
    lost and the last ``_aggregate.json`` left ``complete: true``. A scenario run now reads
    SIGTERM as Ctrl-C: the runs scored so far are written, marked incomplete."""
    if workers:
        pytest.importorskip("xdist")
    project.makeconftest(_SIGTERM_AFTER_FIRST)
    for sid in range(3, 7):
        scenario(project.path / "sc", f"scenario_{sid}", "{}", trajectory(f"r{sid}", "{}"))
    args = ("--structeval-scenarios", "sc", "-p", "no:cacheprovider", *workers)
    result = project.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = aggregate(project.path)
    assert report["complete"] is False
    assert "run terminated (SIGTERM)" in report["incomplete_reasons"]
    assert 1 <= report["totals"]["passed"] < 6


_HELD_IN_COLLECTION = """
import time
from pathlib import Path

import pytest

def pytest_collection(session):  # (a worker's, or a serial run's)
    if session.config.pluginmanager.has_plugin("dsession"):
        return  # (the controller collects nothing)
    # (not $PYTEST_XDIST_WORKER: this suite's own worker passes it on to a serial run)
    worker = getattr(session.config, "workerinput", {}).get("workerid", "serial")
    Path(f"collecting.{worker}").touch()
    for _ in range(1200):  # until the controller ends (a bound, should it never)
        if Path("released").exists():
            return
        time.sleep(0.05)

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):  # the controller lets its workers go
    if session.config.pluginmanager.has_plugin("dsession"):
        Path("released").touch()
"""


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name == "nt", reason="sends signals")
@pytest.mark.parametrize(
    ("workers", "sent"),
    [([], "SIGINT"), (["-n", "1"], "SIGTERM")],
    ids=["serial-ctrl-c", "xdist-sigterm"],
)
def test_a_run_stopped_while_collecting_does_not_say_no_scenario_was_found(
    project: pytest.Pytester, workers: list[str], sent: str
) -> None:
    """Review diff33a F5: a Ctrl-C or SIGTERM while the run (or its xdist workers) was still
    collecting failed it with 'no scenario runs: no scenario found under sc', with the
    scenarios there. It says the run was stopped before any ran, as once they are collected."""
    if workers:
        pytest.importorskip("xdist")
    project.runpytest("--structeval-scenarios", "sc", "-p", "no:cacheprovider")
    before = (project.path / REPORTS / "_aggregate.json").read_bytes()
    project.makeconftest(_HELD_IN_COLLECTION)
    args = [
        sys.executable,
        "-m",
        "pytest",
        "--structeval-scenarios",
        "sc",
        "-p",
        "no:cacheprovider",
    ]
    child = project.popen(
        [*args, *workers],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        # (a Ctrl-C reaches it even if this process was started with SIGINT ignored)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    held = project.path / ("collecting.gw0" if workers else "collecting.serial")
    for _ in range(1200):  # (a bound: no timing is asserted)
        if held.exists() or child.poll() is not None:
            break
        time.sleep(0.05)
    if not held.exists():  # (a signal sent after collection tests nothing here)
        child.kill()
        pytest.fail(f"the run never held in collection: {child.communicate()[0].decode()}")
    child.send_signal(getattr(signal, sent))
    output = child.communicate(timeout=120)[0].decode()
    assert child.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "no scenario found" not in output
    assert (
        "structeval: stopped while collecting, before any scenario ran: no gate applied, "
        f"reports in {project.path / REPORTS} left as they were"
    ) in output
    assert (project.path / REPORTS / "_aggregate.json").read_bytes() == before


@pytest.mark.parametrize("where", ["_unship", "write_reports"])
def test_memory_running_out_at_the_session_end_fails_the_run_in_one_line(
    project: pytest.Pytester, where: str
) -> None:
    """Review limits33 #3: under ``ulimit -v`` the session end's MemoryError was an
    INTERNALERROR traceback, with no summary and no word of the reports. It is now one line
    that says what became of them, and the run fails."""
    patched = "session" if where == "_unship" else "report"
    project.makeconftest(
        f"""
        import pytest_structeval.{patched} as patched

        def out_of_memory(*args, **kwargs):
            raise MemoryError

        patched.{where} = out_of_memory
        """
    )
    result = project.runpytest_subprocess("--structeval-scenarios", "sc", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    # (before the reports are renamed into place, they are left as they were)
    became = "the reports in */reports/structeval are left as they were"
    result.stdout.fnmatch_lines(
        [f"FAIL structeval: memory ran out at the end of the run: {became}"]
    )
    assert not (project.path / REPORTS / "_aggregate.json").exists()


def test_unwritable_reports_dir_fails_the_run(project: pytest.Pytester) -> None:
    (project.path / "blocked").write_text("a file, not a directory", encoding="utf-8")
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-reports-dir", "blocked"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # a file as the folder: told before the run
    result.stderr.fnmatch_lines(["ERROR: the reports folder */blocked is a file: name a folder"])
    # under a file: found when written (review messages29 #8)
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-reports-dir", "blocked/sub"
    )
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAIL structeval: cannot write reports to *blocked*"])
    # A baseline asked for is not saved from reports never written, and the run says so.
    saved = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-reports-dir",
        "blocked/sub",
        "--structeval-save-baseline",
        "b.json",
    )
    assert saved.ret == pytest.ExitCode.TESTS_FAILED
    saved.stdout.fnmatch_lines(
        [
            "FAIL structeval: cannot write reports to *blocked*",
            "FAIL structeval: baseline not saved to *b.json: the reports could not be written",
        ]
    )
    assert not (project.path / "b.json").exists()


def test_update_aggregate_hook_adds_to_the_report(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        def pytest_structeval_update_aggregate(config, aggregate):
            scored = aggregate["totals"]["scored"]
            aggregate["ci"] = {"scored": scored, "rootdir": config.rootpath.name}
        """
    )
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=2)
    assert aggregate(project.path)["ci"] == {"scored": 2, "rootdir": project.path.name}


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ('aggregate["ci"] = 1\n    raise KeyError("oops")', "KeyError: 'oops' (conftest.py:3)"),
        ('aggregate["totals"] = None', "aggregate['totals'] was a dict, now NoneType"),
        (
            'aggregate["totals"]["passed"] = "2"',
            "aggregate['totals']['passed'] was a number, now str",
        ),
        ('aggregate["ci"] = {1, 2}', "it left a value JSON cannot hold (*set*)"),
        # pytest.fail raises no Exception; a removed section read as "no runs" (diff29a #5, #6)
        ('__import__("pytest").fail("nope")', "Failed: nope (conftest.py:2)"),
        ('del aggregate["totals"]', "it removed aggregate['totals']"),
        ('aggregate["totals"].clear()', "it removed aggregate['totals']['scenarios']"),  # diff29b
        ("raise SystemExit(3)", "SystemExit: 3 (conftest.py:2)"),
        ('__import__("pytest").exit("bye")', "Exit: bye (conftest.py:2)"),
    ],
)
def test_an_update_aggregate_hook_that_fails_fails_the_run_not_pytest(
    project: pytest.Pytester, body: str, why: str
) -> None:
    """Review messages29 #1: a raw traceback, no summary, no aggregate, the journal left."""
    project.makeconftest(
        f"def pytest_structeval_update_aggregate(config, aggregate):\n    {body}\n"
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "scenarios 2 | runs 2 | passed 2 | *",
            f"FAIL structeval: pytest_structeval_update_aggregate: {why}; the aggregate report is "
            "written without the hooks' changes",
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    report = aggregate(project.path)
    assert (report["totals"]["passed"], "ci" in report) == (2, False)
    assert sorted(p.name for p in (project.path / REPORTS).iterdir()) == [
        "_aggregate.json",
        "r1.json",
        "r2.json",
    ]


def test_a_scenario_item_that_errors_in_setup_is_an_error_record(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        def pytest_runtest_setup(item):
            if item.get_closest_marker("structeval") and item.name == "2[r2]":
                raise RuntimeError("database is down")
        """
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=1, errors=1)
    report = aggregate(project.path)
    assert report["totals"] == {
        "scenarios": 2,
        "scored": 2,
        "passed": 1,
        "pass_rate": 0.5,
        "errors": 1,
        "load_errors": 0,
        "unmatched_trajectories": 0,
        "unmatched_scenarios": 0,
    }
    assert [(e["run_id"], e["error"]) for e in report["errors"]] == [
        ("r2", "setup: RuntimeError: database is down")
    ]
    assert report["complete"] is True


def test_a_missed_gate_is_a_github_annotation_inside_actions(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("--structeval-scenarios", "sc", "--structeval-min-score", "0.95")
    assert "::error" not in project.runpytest(*args).stdout.str()
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL structeval: mean score 0.9000 is under --structeval-min-score 0.9500",
            "::error title=structeval::structeval: mean score 0.9000 is under "
            "--structeval-min-score 0.9500",
        ]
    )


@pytest.mark.parametrize("xdist", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_gates_decide_makes_a_failing_run_an_xfail_and_the_gate_the_verdict(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """Peers' ask §8, tolerated failure rates (review newuser28 #1): with the option, a run
    that scored and failed is an xfail, so a met gate passes the run as in `structeval
    evaluate`; a run that could not be scored still fails its item."""
    sc = project.path / "sc"
    scenario(sc, "scenario_3", '{"b": 2, "c": 3}', trajectory("r3", '{"b": 2, "c": 4}'))
    base = ["--structeval-scenarios", "sc", "-rx", *xdist]
    plain = project.runpytest(*base, "--structeval-fail-under", "0.6")
    plain.assert_outcomes(passed=2, failed=1)  # without the option, each failing run fails
    met = project.runpytest(*base, "--structeval-fail-under", "0.6", "--structeval-gates-decide")
    met.assert_outcomes(passed=2, xfailed=1)
    assert met.ret == pytest.ExitCode.OK
    met.stdout.fnmatch_lines(
        [
            "gates met: pass_rate>=0.6",
            # (pytest 8.0 writes "- reason: ...")
            "XFAIL sc/scenario_3::3[[]r3[]] - *scenario 3 run r3 (static_json): score 0.5000, "
            "not passed; the gates decide",
        ]
    )
    report = aggregate(project.path)
    assert report["totals"]["passed"] == 2
    assert report["totals"]["scored"] == 3
    assert report["skipped"] == []  # an xfail that scored is a scored run, not a skipped one
    missed = project.runpytest(*base, "--structeval-fail-under", "0.7", "--structeval-gates-decide")
    missed.assert_outcomes(passed=2, xfailed=1)
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    missed.stdout.fnmatch_lines(["FAIL structeval: pass rate 0.6667 is under *0.7000"])
    scenario(sc, "scenario_4", "{", trajectory("r4", "{}"), gold_file="groundtruth.json")
    broken = project.runpytest(*base, "--structeval-fail-under", "0.5", "--structeval-gates-decide")
    broken.assert_outcomes(passed=2, xfailed=1, failed=1)  # the broken gold is no verdict
    assert broken.ret == pytest.ExitCode.TESTS_FAILED


def test_a_gates_decide_xfail_builds_no_traceback(project: pytest.Pytester) -> None:
    """Review cli28 #1: pytest built each xfail's long report, a traceback of source that
    nothing shows, which made a run with many failing runs thirty times slower."""
    sc = project.path / "sc"
    scenario(sc, "scenario_3", '{"b": 2, "c": 3}', trajectory("r3", '{"b": 2, "c": 4}'))
    reports = project.inline_run(
        "--structeval-scenarios", "sc", "--structeval-gates-decide", "--structeval-min-score", "0"
    )
    (xfailed,) = [r for r in reports.getreports("pytest_runtest_logreport") if r.skipped]
    assert xfailed.longrepr == (
        "scenario 3 run r3 (static_json): score 0.5000, not passed; the gates decide"
    )
    # --runxfail makes it the failure it is, with its table (diff28d #1)
    runxfail = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-gates-decide",
        "--structeval-min-score",
        "0",
        "--runxfail",
    )
    runxfail.assert_outcomes(passed=2, failed=1)
    runxfail.stdout.fnmatch_lines(
        ["scenario 3 run r3 (static_json): score 0.5000, not passed", "*answer.c*"]
    )
    if PYTEST_RELEASE < (8, 3):  # (--xfail-tb came with pytest 8.3)
        return
    # a user's own pytest.xfail() keeps its traceback, for --xfail-tb (diff28c #2)
    project.makeconftest(
        """
        import pytest

        def pytest_runtest_call(item):
            if "[r1]" in item.name:
                pytest.xfail("the user's own")
        """
    )
    mine = project.runpytest("--structeval-scenarios", "sc", "-rx", "--xfail-tb")
    mine.assert_outcomes(passed=1, xfailed=1, failed=1)
    mine.stdout.fnmatch_lines(["*conftest.py:5: XFailed"])


def test_gates_decide_by_the_ini_key_and_by_the_baseline(project: pytest.Pytester) -> None:
    """``--structeval-fail-on-regression`` decides alone: a run that failed in the baseline
    too is excused, one that newly fails is a regression, and a failing run the baseline
    lacks fails the run as in the CLI (``new_failures``)."""
    project.makeini("[pytest]\nstructeval_gates_decide = true\n")
    sc = project.path / "sc"
    scenario(sc, "scenario_3", '{"b": 2, "c": 3}', trajectory("r3", '{"b": 2, "c": 4}'))
    base = ["--structeval-scenarios", "sc"]
    saved = project.runpytest(
        *base, "--structeval-min-score", "0.5", "--structeval-save-baseline", "b.json"
    )
    saved.assert_outcomes(passed=2, xfailed=1)
    assert saved.ret == pytest.ExitCode.OK
    compared = [*base, "--structeval-baseline", "b.json", "--structeval-fail-on-regression"]
    same = project.runpytest(*compared)
    same.assert_outcomes(passed=2, xfailed=1)
    assert same.ret == pytest.ExitCode.OK  # the failure was known: no regression
    first = sc / "scenario_1" / "trajectory_0.json"
    kept = first.read_text(encoding="utf-8")
    first.write_text(json.dumps(trajectory("r1", '{"a": 2}')), encoding="utf-8")
    regressed = project.runpytest(*compared)
    regressed.assert_outcomes(passed=1, xfailed=2)
    assert regressed.ret == pytest.ExitCode.TESTS_FAILED
    regressed.stdout.fnmatch_lines(
        ["FAIL structeval: 1 of * regressed against baseline*1[[]r1[]]*"]
    )
    first.write_text(kept, encoding="utf-8")
    scenario(sc, "scenario_5", '{"e": 5}', trajectory("r5", '{"e": 6}'))
    new = project.runpytest(*compared)
    assert new.ret == pytest.ExitCode.TESTS_FAILED
    new.stdout.fnmatch_lines(["FAIL structeval: 1 failing run is not in baseline*5[[]r5[]]*"])


def test_gates_decide_needs_a_gate(project: pytest.Pytester) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-gates-decide")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --structeval-gates-decide needs a gate to decide: --structeval-fail-under*"]
    )
    project.makeini("[pytest]\nstructeval_gates_decide = true\n")
    result = project.runpytest("--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: structeval_gates_decide needs a gate to decide*"])


def test_a_ctrl_c_while_publishing_still_tells_the_baseline_and_the_gates(
    project: pytest.Pytester,
) -> None:
    """Review diff28a #2: the saved baseline and the missed gate were known before the
    summaries were written, and a Ctrl-C then lost both lines."""
    project.makeconftest(
        """
        from pytest_structeval.gates import Checks

        def interrupted(self, report, problems, *, reports_dir=None):
            raise KeyboardInterrupt

        Checks.publish = interrupted
        """
    )
    args = ["--structeval-scenarios", "sc", "--structeval-markdown", "s.md"]
    saved = project.runpytest_subprocess(*args, "--structeval-save-baseline", "b.json")
    assert saved.ret == pytest.ExitCode.INTERRUPTED
    saved.stdout.fnmatch_lines(
        [
            "baseline saved: *b.json",
            "FAIL structeval: interrupted at the end of the run: the reports in * were written",
        ]
    )
    missed = project.runpytest_subprocess(*args, "--structeval-min-score", "1.0")
    assert missed.ret == pytest.ExitCode.INTERRUPTED
    missed.stdout.fnmatch_lines(
        ["FAIL structeval: mean score * is under *", "FAIL * interrupted *"]
    )
