"""The plugin's feature options end to end: parse rate, metric gates, baselines, Markdown,
JUnit properties, subset matching and repeats (pytester)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.plugin_support import (
    AGGREGATE,
    aggregate,
    scenario,
    trajectory,
    write_trajectories,
)

SIMILAR = "mode: similarity\nthreshold: 0.5\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Two passing runs: a strict exact one (JSON) and a similarity one scoring 1.0 (fenced)."""
    pytester.makeini("[pytest]\n")
    sc = pytester.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(
        sc,
        "scenario_2",
        '{"p": 10, "q": 10}',
        trajectory("r2", '```json\n{"p": 10, "q": 10}\n```'),
        config=SIMILAR,
    )
    return pytester


def set_answer(project: pytest.Pytester, folder: str, answer: str, n: int = 0) -> None:
    """Replace the answer of ``sc/<folder>/trajectory_<n>.json`` (a later run of the same data)."""
    path = project.path / "sc" / folder / f"trajectory_{n}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["answer"] = answer
    path.write_text(json.dumps(record), encoding="utf-8")


# --------------------------------------------------------------------------- parse rate


def test_parse_rate_is_reported_and_gated(project: pytest.Pytester) -> None:
    scenario(project.path / "sc", "scenario_3", '{"z": 1}', trajectory("r3", "I do not know."))
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-gate", "parse_rate>=0.9"
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*- structeval summary -*",
            "parse rate 0.6667: 2 structured, 1 text fallback, 0 empty, 0 unparsed "
            "(fence:json+json 1, json 1, text 1) | 1 abstained",  # "I do not know."
            "FAIL structeval: parse_rate 0.6667 misses --structeval-gate parse_rate>=0.9",
        ]
    )
    parse = aggregate(project.path)["parse"]
    assert parse["parse_rate"] == 0.6667
    assert parse["methods"] == {"fence:json+json": 1, "json": 1, "text": 1}


# --------------------------------------------------------------------------- gates


def test_gates_fail_a_run_whose_items_all_pass(project: pytest.Pytester) -> None:
    set_answer(project, "scenario_2", '{"p": 10, "q": 6}')  # similarity 0.8 >= 0.5: passes
    args = ["--structeval-scenarios", "sc"]
    ok = project.runpytest(*args, "--structeval-gate", "f1>=1", "--structeval-gate", "errors==0")
    ok.assert_outcomes(passed=2)
    assert ok.ret == pytest.ExitCode.OK
    bad = project.runpytest(
        *args, "--structeval-gate", "score_avg>=0.95", "--structeval-gate", "f1>=1"
    )
    bad.assert_outcomes(passed=2)
    assert bad.ret == pytest.ExitCode.TESTS_FAILED
    bad.stdout.fnmatch_lines(
        ["FAIL structeval: score_avg 0.9000 misses --structeval-gate score_avg>=0.95"]
    )
    assert bad.stdout.str().count("FAIL structeval") == 1


def test_gates_from_the_ini_file(project: pytest.Pytester) -> None:
    set_answer(project, "scenario_2", '{"p": 10, "q": 6}')
    project.makeini(
        "[pytest]\nstructeval_scenarios = sc\nstructeval_gates =\n"
        "    errors==0\n    matched_leaves>=1.9\n    score_ci95_low>=0.9\n"
    )
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL structeval: matched_leaves_avg 1.6000 misses structeval_gates "
            "matched_leaves>=1.9",
            "FAIL structeval: score_ci95_low 0.0000 misses structeval_gates score_ci95_low>=0.9",
        ]
    )
    # the command line replaces the ini list
    assert project.runpytest("--structeval-gate", "errors==0").ret == pytest.ExitCode.OK


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ("f1=>0.9", "*--structeval-gate 'f1=>0.9': expected <metric><op><number>*"),
        ("f1>=lots", "*--structeval-gate 'f1>=lots': expected <metric><op><number>*"),
        ("accuracy>=0.9", "*unknown metric 'accuracy'; known: pass_rate, passed, scored*"),
    ],
)
def test_bad_gates_are_usage_errors(project: pytest.Pytester, gate: str, message: str) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-gate", gate)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_gate_never_lowers_or_changes_a_failure_status(project: pytest.Pytester) -> None:
    project.makepyfile(test_broken="def test_x(:\n    pass\n")
    result = project.runpytest(
        "test_broken.py", "--structeval-scenarios", "sc", "--structeval-gate", "errors>=5"
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED  # the collection error's status is kept
    # (stopped before any test ran: no gate judges it, the last reports stay: interplay30 #5)
    result.stdout.fnmatch_lines(
        ["structeval: 2 scenario runs, stopped before any ran: no gate applied, *"]
    )


# --------------------------------------------------------------------------- baselines


def test_a_baseline_with_malformed_sections_compares_as_one_without_them(
    project: pytest.Pytester,
) -> None:
    """A baseline file is checked for its results list only: a section of another shape
    (totals a list, parse a number, a field's entry a string) raised AttributeError at
    session end, and the run stopped with an internal error and no reports."""
    first = project.runpytest("--structeval-scenarios", "sc")
    first.assert_outcomes(passed=2)
    report = aggregate(project.path)
    broken = {
        **report,
        "totals": [1],
        "score_summary": "x",
        "parse": 5,
        "field_scores": {path: "junk" for path in report["field_scores"]},
    }
    second = next(r for r in report["results"] if r["scenario_id"] == "2")
    kept = [r for r in report["results"] if r is not second]
    broken["results"] = [*kept, 7, {**second, "score": None}]  # (a score past 0..1 is refused)
    (project.path / "baseline.json").write_text(json.dumps(broken), "utf-8")
    args = ["--structeval-scenarios", "sc", "--structeval-baseline", "baseline.json"]
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.OK
    section = aggregate(project.path)["baseline"]
    # The means come from the results: 2[r2]'s score is missing there, so it counts 0.
    assert section["score_avg"] == {"baseline": 0.5, "current": 1.0, "delta": 0.5}
    assert section["parse_rate"]["baseline"] is None  # its section was no mapping
    assert section["counts"]["compared"] == 2
    assert section["fields"]["compared"] == 0


def test_a_selection_is_compared_over_the_runs_it_shares_with_a_full_baseline(
    project: pytest.Pytester,
) -> None:
    """py-shiny#2334: a shard compared with the whole baseline's mean 'dropped' by the
    difference between its scenarios and the others, and a score_delta gate failed it."""
    set_answer(project, "scenario_2", '{"p": 10, "q": 6}')  # 0.8: the baseline's mean is 0.9
    project.runpytest("--structeval-scenarios", "sc", "--structeval-save-baseline", "base.json")
    args = ["--structeval-scenarios", "sc", "--structeval-baseline", "base.json"]
    result = project.runpytest(*args, "-k", "scenario_2", "--structeval-gate", "score_delta>=-0.02")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "baseline base.json: mean score of compared items 0.8000 -> 0.8000 (+0.0000) | "
            "improved 0, regressed 0, unchanged 1, new 0, missing 1"
        ]
    )
    section = aggregate(project.path)["baseline"]
    assert section["same_runs"] is False
    assert section["fields"] is None  # pooled field means of other runs: not compared
    set_answer(project, "scenario_2", '{"p": 10, "q": 2}')  # a real drop fails the gate
    dropped = project.runpytest(
        *args, "-k", "scenario_2", "--structeval-gate", "score_delta>=-0.02"
    )
    assert dropped.ret == pytest.ExitCode.TESTS_FAILED
    dropped.stdout.fnmatch_lines(["FAIL structeval: score_delta -0.* misses *score_delta>=-0.02"])


def test_baseline_comparison_and_fail_on_regression(project: pytest.Pytester) -> None:
    first = project.runpytest("--structeval-scenarios", "sc")
    first.assert_outcomes(passed=2)
    shutil.copy(project.path / AGGREGATE, project.path / "baseline.json")

    set_answer(project, "scenario_2", '{"p": 10, "q": 6}')  # 1.0 -> 0.8, still passes
    args = ["--structeval-scenarios", "sc", "--structeval-baseline", "baseline.json"]
    informative = project.runpytest(*args)
    assert informative.ret == pytest.ExitCode.OK
    informative.stdout.fnmatch_lines(
        [
            "baseline baseline.json: mean score 1.0000 -> 0.9000 (-0.1000) | improved 0, "
            "regressed 1, unchanged 1, new 0, missing 0",
            "regressed: 2[[]r2] 1.0000 -> 0.8000",
        ]
    )
    section = aggregate(project.path)["baseline"]
    assert section["counts"]["regressed"] == 1
    assert section["regressed"][0]["scenario_id"] == "2"
    assert section["fields"]["regressed"][0]["path"] == "answer.q"

    failing = project.runpytest(*args, "--structeval-fail-on-regression")
    failing.assert_outcomes(passed=2)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(
        [
            "FAIL structeval: 1 of 2 compared items regressed against baseline baseline.json "
            "(tolerance 0.0000, --structeval-fail-on-regression): 2[[]r2] 1.0000 -> 0.8000"
        ]
    )
    tolerant = project.runpytest(
        *args, "--structeval-fail-on-regression", "--structeval-regression-tolerance", "0.25"
    )
    assert tolerant.ret == pytest.ExitCode.OK
    # 2[r2] fell from 1.0 to 0.8: 20 % of its baseline score
    relative = project.runpytest(
        *args, "--structeval-fail-on-regression", "--structeval-regression-tolerance", "25%"
    )
    assert relative.ret == pytest.ExitCode.OK
    assert aggregate(project.path)["baseline"]["tolerance_relative"] is True
    project.makeini("[pytest]\nstructeval_regression_tolerance = 15%\n")
    strict = project.runpytest(*args, "--structeval-fail-on-regression")
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    strict.stdout.fnmatch_lines(
        ["FAIL structeval: 1 of 2 compared items regressed*(tolerance 15%,*"]
    )


def test_the_reports_folder_is_its_own_baseline(project: pytest.Pytester) -> None:
    """The previous run's aggregate is read at startup, before this run replaces it."""
    project.makeini(
        "[pytest]\nstructeval_scenarios = sc\nstructeval_baseline = reports/structeval\n"
        "structeval_fail_on_regression = true\n"
    )
    # a first run (a fresh checkout) has none yet: it compares nothing, and stops no run
    # (config35 #3: every run was a usage error whose advice failed the same way)
    project.makepyfile(test_unit="def test_unit():\n    pass\n")
    project.runpytest("test_unit.py").assert_outcomes(passed=1)
    first = project.runpytest()
    assert first.ret == pytest.ExitCode.OK
    first.stdout.fnmatch_lines(
        [
            "baseline reports/structeval: none there yet, nothing compared; this run's reports "
            "will be the next run's"
        ]
    )
    assert project.runpytest().ret == pytest.ExitCode.OK  # same answers: nothing regressed
    set_answer(project, "scenario_1", '{"a": 2}')  # now fails: 1.0 -> 0.0
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL structeval: 1 of 2 compared items regressed against baseline reports/structeval"
            " (tolerance 0.0000, structeval_fail_on_regression): 1[[]r1] 1.0000 -> 0.0000"
        ]
    )
    assert aggregate(project.path)["baseline"]["source"] == "reports/structeval"


def test_a_first_run_creates_the_baseline_the_ini_names(project: pytest.Pytester) -> None:
    """config35 #3: a missing ini baseline stopped every run, the one saving it too; a gate
    on a baseline figure and the regression check have nothing to compare (a failing run they
    alone judge is not excused); the advice given with an explicit path works."""
    project.makeini(
        "[pytest]\nstructeval_scenarios = sc\nstructeval_baseline = base/main.json\n"
        "structeval_fail_on_regression = true\nstructeval_gates = regressed==0\n"
    )
    first = project.runpytest()
    assert first.ret == pytest.ExitCode.OK
    first.stdout.fnmatch_lines(
        [
            "baseline base/main.json: none there yet, nothing compared; not applied: "
            "regressed==0; --structeval-save-baseline base/main.json saves one"
        ]
    )
    saved = project.runpytest("--structeval-save-baseline", "base/main.json")
    saved.stdout.fnmatch_lines(["baseline saved: *main.json"])
    set_answer(project, "scenario_1", '{"a": 2}')
    project.makeini(
        "[pytest]\nstructeval_scenarios = sc\nstructeval_fail_on_regression = true\n"
        "structeval_gates_decide = true\n"
    )
    unexcused = project.runpytest("--structeval-baseline", "new.json", *SAVE_AS_NEW)
    assert unexcused.ret == pytest.ExitCode.TESTS_FAILED
    unexcused.stdout.fnmatch_lines(
        [
            "FAIL structeval: 1 failing run is not in baseline new.json (there is none yet), so "
            "structeval_fail_on_regression cannot excuse it: 1[[]r1[]]"
        ]
    )


SAVE_AS_NEW = ("--structeval-save-baseline", "new.json")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (  # (advice that works: config35 #3)
            ["--structeval-baseline", "nope.json"],
            "*baseline 'nope.json': no such file:*nope.json (a first run has none: add "
            "--structeval-save-baseline nope.json, which compares nothing and saves the run "
            "there, or leave --structeval-baseline out)",
        ),
        (["--structeval-baseline", "empty.json"], "*cannot read *empty.json: the file is empty"),
        (["--structeval-fail-on-regression"], "*--structeval-fail-on-regression needs a baseline*"),
        (
            ["--structeval-fail-on-improvement"],
            "*--structeval-fail-on-improvement needs a baseline*",
        ),
        (
            ["--structeval-regression-tolerance", "2"],
            "*--structeval-regression-tolerance: expected a number in [[]0, 1]*",
        ),
    ],
)
def test_baseline_usage_errors(project: pytest.Pytester, args: list[str], message: str) -> None:
    (project.path / "not_an_aggregate.json").write_text("[]")
    (project.path / "empty.json").write_text(" \n")
    result = project.runpytest("--structeval-scenarios", "sc", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--structeval-gate", "regressed==0"], "*'regressed==0': regressed compares this run "
         "with a baseline, and none is given"),
        (["--structeval-gate", "score_delta>=-0.05"], "*score_delta compares this run*"),
        (["--structeval-csv", "afile"], "*the CSV tables folder */afile is a file: name a folder"),
    ],
)  # fmt: skip
def test_outputs_and_gates_that_cannot_work_are_told_before_any_run(
    project: pytest.Pytester, args: list[str], message: str
) -> None:
    """Review messages29 #8: each was found only after every run was scored."""
    (project.path / "afile").write_text("x", encoding="utf-8")
    result = project.runpytest("--structeval-scenarios", "sc", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert not (project.path / "reports").exists()


def test_a_switch_set_in_the_ini_file_is_named_by_its_key(project: pytest.Pytester) -> None:
    """Review messages29 #7: the error named --structeval-fail-on-regression, never given."""
    project.makeini("[pytest]\nstructeval_fail_on_regression = true\n")
    result = project.runpytest("--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: structeval_fail_on_regression needs a baseline: *"])


def test_save_baseline_then_fail_on_improvement(project: pytest.Pytester) -> None:
    """``--structeval-save-baseline`` accepts a run's scores; ``--structeval-fail-on-improvement``
    fails a run that beats its baseline, so the baseline never lags (pytest-benchmark#148)."""
    set_answer(project, "scenario_2", '{"p": 10, "q": 6}')  # 0.8: passes the similarity bar
    saved = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-save-baseline", "b/x.json"
    )
    assert saved.ret == pytest.ExitCode.OK
    saved.stdout.fnmatch_lines([f"baseline saved: {project.path / 'b' / 'x.json'}"])
    assert json.loads((project.path / "b" / "x.json").read_text()) == aggregate(project.path)

    set_answer(project, "scenario_2", '{"p": 10, "q": 10}')  # back to 1.0
    args = ["--structeval-scenarios", "sc", "--structeval-baseline", "b/x.json"]
    assert project.runpytest(*args, "--structeval-fail-on-regression").ret == pytest.ExitCode.OK
    better = project.runpytest(*args, "--structeval-fail-on-improvement")
    better.assert_outcomes(passed=2)
    assert better.ret == pytest.ExitCode.TESTS_FAILED
    better.stdout.fnmatch_lines(
        [
            "improved: 2[[]r2] 0.8000 -> 1.0000",
            "FAIL structeval: 1 of 2 compared items improved against baseline b/x.json "
            "(tolerance 0.0000, --structeval-fail-on-improvement): 2[[]r2] 0.8000 -> 1.0000; "
            "accept them with --structeval-save-baseline PATH",
        ]
    )
    project.makeini("[pytest]\nstructeval_fail_on_improvement = true\n")
    assert project.runpytest(*args).ret == pytest.ExitCode.TESTS_FAILED
    # Compare, then save: saving accepts the improvements, so they fail nothing (readme10: the
    # run saved the baseline and still failed, telling the user to save it).
    blessed = project.runpytest(*args, "--structeval-save-baseline", "b/x.json")
    assert blessed.ret == pytest.ExitCode.OK
    blessed.stdout.fnmatch_lines(["improved: 2[[]r2] 0.8000 -> 1.0000", "baseline saved: *x.json"])
    assert "FAIL" not in blessed.stdout.str()
    assert project.runpytest(*args).ret == pytest.ExitCode.OK  # the new baseline holds 1.0


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["-k", "1"], "the run scored a selection (-k*"),
        (["sc/scenario_1"], "the run scored a selection (-k*"),
        (["--deselect", "sc/scenario_2"], "the run scored a selection (-k, -m, --lf, --sw*"),
        (["--structeval-gate", "f1>=2"], None),  # a usage error: never reaches the save
        (["--structeval-fail-under", "1"], "the run fails its gates or its baseline check*"),
        (
            ["--structeval-baseline", "b.json", "--structeval-fail-on-regression"],
            "the run fails its gates or its baseline check*",
        ),
    ],
)
def test_a_selection_or_a_failing_run_is_never_saved_as_a_baseline(
    project: pytest.Pytester, args: list[str], why: str | None
) -> None:
    """A subset saved as the baseline hides the left-out runs' regressions for a run; a run
    that regressed, saved over its own baseline, passes the next time (review 10)."""
    project.runpytest("--structeval-scenarios", "sc", "--structeval-save-baseline", "b.json")
    before = (project.path / "b.json").read_bytes()
    set_answer(project, "scenario_1", '{"a": 2}')  # 1[r1] now fails: 1.0 -> 0.0
    result = project.runpytest(
        "--structeval-scenarios", "sc", *args, "--structeval-save-baseline", "b.json"
    )
    if why is None:
        assert result.ret == pytest.ExitCode.USAGE_ERROR
    else:
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines([f"FAIL structeval: baseline not saved to *b.json: {why}"])
    assert (project.path / "b.json").read_bytes() == before


SELECTED = (
    "selection: this run scored a selection (-k, -m, --lf, --sw, --deselect, a path inside the "
    "scenarios): its figures and gates cover the selected runs only"
)


def test_a_selection_says_so_in_its_aggregate_summary_and_as_a_baseline(
    project: pytest.Pytester,
) -> None:
    """``--lf`` or ``-k`` scores some runs: the gates judge those, so the aggregate and the
    summary say the run was a selection, and a later run compared against that aggregate
    (``--structeval-baseline reports/structeval``) says what the baseline left out reads as
    new (interplay24 #2)."""
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=2)
    assert aggregate(project.path)["selection"] is False
    set_answer(project, "scenario_1", '{"a": 2}')
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=1, failed=1)
    last_failed = project.runpytest(
        "--structeval-scenarios", "sc", "--lf", "--structeval-min-score", "0.5"
    )
    last_failed.assert_outcomes(failed=1, deselected=1)
    last_failed.stdout.fnmatch_lines(
        [
            "scenarios 1 | runs 1 | passed 0 | *",
            SELECTED,
            "FAIL structeval: mean score 0.0000 is under --structeval-min-score 0.5000",
        ]
    )
    report = aggregate(project.path)
    assert (report["selection"], report["complete"], report["totals"]["scored"]) == (True, True, 1)

    compared = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-baseline", "reports/structeval"
    )
    compared.stdout.fnmatch_lines(
        [
            "baseline reports/structeval: * new 1, missing 0",
            "the baseline scored a selection: the runs it left out count as new here",
        ]
    )
    assert SELECTED not in compared.stdout.str()
    section = aggregate(project.path)["baseline"]
    assert (section["baseline_selection"], section["baseline_complete"]) == (True, True)


def test_an_incomplete_baseline_says_its_unscored_runs_read_as_new(
    project: pytest.Pytester,
) -> None:
    """A baseline from a ``-x`` run holds the runs that did not run as error records (score
    0): they read as new, never as improved (diff24a #2 made them improved; baseline27)."""
    set_answer(project, "scenario_1", '{"a": 2}')
    stopped = project.runpytest("--structeval-scenarios", "sc", "-x")
    stopped.assert_outcomes(failed=1)
    assert aggregate(project.path)["complete"] is False
    set_answer(project, "scenario_1", '{"a": 1}')
    compared = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-baseline", "reports/structeval"
    )
    compared.stdout.fnmatch_lines(
        [
            "baseline reports/structeval: * improved 1, regressed 0, unchanged 0, new 1, missing 0",
            "the baseline is an incomplete run: a run it did not score is new here",
        ]
    )
    section = aggregate(project.path)["baseline"]
    assert (section["baseline_selection"], section["baseline_complete"]) == (False, False)
    assert [(i["scenario_id"], i["run_id"]) for i in section["new"]] == [("2", None)]


def test_runs_a_stopped_run_never_scored_are_missing_not_regressed(
    project: pytest.Pytester,
) -> None:
    """After -x, the items that never ran read as regressions 1.0000 -> 0.0000 (baseline27
    #2); the CLI, interrupted, lists them as missing."""
    saved = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-save-baseline", "b.json"
    )
    saved.assert_outcomes(passed=2)
    set_answer(project, "scenario_1", '{"a": 2}')
    stopped = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "-x",
        "--structeval-baseline",
        "b.json",
        "--structeval-fail-on-regression",
    )
    stopped.stdout.fnmatch_lines(
        ["baseline b.json: * improved 0, regressed 1, unchanged 0, new 0, missing 1"]
    )
    section = aggregate(project.path)["baseline"]
    assert [(i["scenario_id"], i["run_id"]) for i in section["regressed"]] == [("1", "r1")]
    assert [(i["scenario_id"], i["run_id"]) for i in section["missing"]] == [("2", None)]


@pytest.mark.parametrize("skipped", ["*", "scenario_2"])
def test_a_run_that_skipped_scenario_items_saves_no_baseline(
    project: pytest.Pytester, skipped: str
) -> None:
    """A hook that skips when the model endpoint is down saved an empty baseline over a good
    one, and the next run's regressions read as new (baseline27 #3)."""
    saved = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-save-baseline", "b.json"
    )
    saved.assert_outcomes(passed=2)
    before = (project.path / "b.json").read_bytes()
    project.makeconftest(
        f"""
        import fnmatch
        import pytest

        def pytest_collection_modifyitems(items):
            for item in items:
                if fnmatch.fnmatch(item.nodeid, "sc/{skipped}::*"):
                    item.add_marker(pytest.mark.skip(reason="endpoint down"))
        """
    )
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-baseline",
        "b.json",
        "--structeval-save-baseline",
        "b.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    n = 2 if skipped == "*" else 1
    result.stdout.fnmatch_lines(
        [
            f"FAIL structeval: baseline not saved to *b.json: the run skipped {n} "
            f"run{'s' * (n != 1)} it would have scored (a skip or xfail, of scenario items or "
            "tests using the structeval fixture); what it left out would read as new next time"
        ]
    )
    assert (project.path / "b.json").read_bytes() == before


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_skipped_fixture_test_saves_no_baseline_either(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """A skipped test using the structeval fixture left its records out of a saved baseline,
    which then listed them as missing, while -k leaving it out refused the save (diff27a)."""
    if xdist:
        pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_fx="""
        import os
        import pytest

        def test_a(structeval):
            structeval.score({"a": 1}, '{"a": 1}')

        def test_b(structeval):
            if os.environ.get("ENDPOINT_DOWN"):
                pytest.skip("endpoint down")
            structeval.score({"b": 1}, '{"b": 1}')
        """
    )
    pytester.runpytest_subprocess("--structeval-save-baseline", "b.json").assert_outcomes(passed=2)
    before = (pytester.path / "b.json").read_bytes()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ENDPOINT_DOWN", "1")
        result = pytester.runpytest_subprocess(*xdist, "--structeval-save-baseline", "b.json")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "skipped runs: 1 (test_fx.py::test_b)",
            "FAIL structeval: baseline not saved to *b.json: the run skipped 1 run it would have "
            "scored *",
        ]
    )
    assert (pytester.path / "b.json").read_bytes() == before


def test_a_fixture_test_that_scored_in_setup_and_skips_is_no_skipped_run(
    pytester: pytest.Pytester,
) -> None:
    """Its record is in the run, so nothing is left out and the save goes ahead (diff27c)."""
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_fx="""
        import pytest

        @pytest.fixture
        def scored(structeval):
            structeval.score({"a": 1}, '{"a": 1}')

        @pytest.fixture
        def scored_after(structeval):
            yield
            structeval.score({"b": 1}, '{"b": 1}')

        def test_a(scored):
            pytest.skip("nothing more to check")

        def test_b(scored_after):  # (it records at teardown, after the skip: diff27d #2)
            pytest.skip("nothing more to check")
        """
    )
    result = pytester.runpytest("--structeval-save-baseline", "b.json")
    result.assert_outcomes(skipped=2)
    assert "skipped runs" not in result.stdout.str()
    result.stdout.fnmatch_lines(["baseline saved: *b.json"])


def test_under_dist_each_a_fixture_test_skipped_on_one_worker_is_listed(
    pytester: pytest.Pytester,
) -> None:
    """Every worker's copy counts under --dist each: one that recorded on gw1 hid the copy
    that skipped on gw0 (diff27e #2)."""
    pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_fx="""
        import os
        import pytest

        def test_a(structeval):
            if os.environ.get("PYTEST_XDIST_WORKER") == "gw0":
                pytest.skip("endpoint down on this host")
            structeval.score({"a": 1}, '{"a": 1}')
            pytest.skip("scored, nothing more to check")
        """
    )
    result = pytester.runpytest_subprocess(
        "-n", "2", "--dist", "each", "--structeval-save-baseline", "b.json"
    )
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["skipped runs: 1 (test_fx.py::test_a)"])
    assert not (pytester.path / "b.json").exists()
    (entry,) = aggregate(pytester.path)["skipped"]
    assert entry["reason"].endswith("endpoint down on this host")  # the copy left out


@pytest.mark.parametrize(
    "args",
    [(".", "sc/scenario_2"), ("sc", "sc/scenario_1"), ("sc/scenario_1",), ("sc/scenario_2", ".")],
)
def test_a_path_inside_the_scenarios_is_a_selection_when_a_run_was_not_collected(
    project: pytest.Pytester, args: tuple[str, ...]
) -> None:
    """Review determinism33 #2: ``pytest . evals/scenario_2`` scores every run on pytest 9
    (it drops the narrower path) and only scenario_2's on pytest 8.0, yet the run was marked
    a selection on both, so a baseline of every run was refused and the run exited 1. What
    pytest collected tells, on every pytest version."""
    project.makeini("[pytest]\nstructeval_scenarios = sc\n")
    result = project.runpytest(*args, "--structeval-save-baseline", "b.json")
    report = aggregate(project.path)
    scored_all = report["totals"]["scored"] == 2
    if args == ("sc/scenario_1",):
        assert not scored_all
    elif pytest.version_tuple[0] >= 9:  # (the review's pytest: the narrower path dropped)
        assert scored_all
    assert report["selection"] is not scored_all
    assert result.ret == (pytest.ExitCode.OK if scored_all else pytest.ExitCode.TESTS_FAILED)
    assert (project.path / "b.json").exists() is scored_all


def test_picking_every_scenario_folder_one_by_one_is_no_selection(
    project: pytest.Pytester,
) -> None:
    """Every run of the join collected, by one path each: the reports cover them all."""
    project.makeini("[pytest]\nstructeval_scenarios = sc\n")
    result = project.runpytest(
        "sc/scenario_1", "sc/scenario_2", "--structeval-save-baseline", "b.json"
    )
    assert aggregate(project.path)["selection"] is False
    assert result.ret == pytest.ExitCode.OK
    assert (project.path / "b.json").exists()


def test_a_selection_under_xdist_says_so_too(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--structeval-scenarios", "sc", "-n", "2", "-k", "scenario_1"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([SELECTED])
    assert aggregate(project.path)["selection"] is True


RETRY_CONFTEST = """
import pytest
from _pytest.runner import runtestprotocol


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    # {what}
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for attempt in range(2):
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        failed = attempt == 0 and any(report.failed for report in reports)
        for report in reports:
{log}
        if not failed:
            break
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
"""
"""A conftest retrying a failed test once, as a retry plugin does; ``log`` is how it logs
the failed attempt's reports."""

RERUN_CONFTEST = RETRY_CONFTEST.format(
    what='What pytest-rerunfailures does: a failed attempt\'s reports are logged as "rerun".',
    log="""\
            if failed and report.failed:
                report.outcome = "rerun"
            item.ihook.pytest_runtest_logreport(report=report)""",
)


FLAKY_TEST = """
ATTEMPTS = []

def test_flaky(structeval):
    ATTEMPTS.append(1)
    answer = '{"a": 2}' if len(ATTEMPTS) == 1 else '{"a": 1}'
    assert structeval.score({"a": 1}, answer).passed
"""
"""A fixture test that fails its first attempt and passes its second."""


def test_a_rerun_test_counts_once_with_its_final_result(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RERUN_CONFTEST)
    pytester.makepyfile(test_flaky=FLAKY_TEST)
    result = pytester.runpytest()
    assert result.parseoutcomes() == {"passed": 1, "rerun": 1}
    report = aggregate(pytester.path)
    assert (report["totals"]["scored"], report["totals"]["passed"]) == (1, 1)
    assert [r["score"] for r in report["results"]] == [1.0]
    # A last attempt that stops in setup leaves no call report to replace the rerun's.
    pytester.makeconftest(
        RERUN_CONFTEST
        + """
ATTEMPTS = []

@pytest.fixture
def flaky_setup():
    ATTEMPTS.append(1)
    if len(ATTEMPTS) == 2:
        raise RuntimeError("the service went away")
"""
    )
    pytester.makepyfile(
        test_flaky="""
        def test_flaky(structeval, flaky_setup):
            assert structeval.score({"a": 1}, '{"a": 2}').passed
        """
    )
    result = pytester.runpytest()
    assert result.parseoutcomes() == {"errors": 1, "rerun": 1}
    # The rerun attempt's score is not kept: the run scored nothing, so it reports nothing.
    assert "structeval summary" not in result.stdout.str()
    assert aggregate(pytester.path)["totals"]["passed"] == 1  # the first run's file, untouched


FLAKY_CONFTEST = RETRY_CONFTEST.format(
    what="What flaky does: a failed attempt's failing setup or call report is not logged at all.",
    log="""\
            if not (failed and report.failed and report.when != "teardown"):
                item.ihook.pytest_runtest_logreport(report=report)""",
)

SETUP_SCORE_FIXTURE = """
ATTEMPTS = []

@pytest.fixture
def answer(structeval):
    ATTEMPTS.append(1)
    if len(ATTEMPTS) > 1:
        {stop}("model endpoint down")
    structeval.score({{"a": 1}}, '{{"a": 1}}')  # scored while setting up
    return len(ATTEMPTS)
"""
"""A fixture that scores in its setup on its first attempt and stops on the next one."""


RETRIES = [
    pytest.param(RERUN_CONFTEST, (), id="rerun"),
    pytest.param(FLAKY_CONFTEST, (), id="flaky"),
    pytest.param(RERUN_CONFTEST, ("-n", "2"), id="rerun-xdist"),
]
"""pytest-rerunfailures' and flaky's ways of trying a test again, serial and under xdist."""


@pytest.mark.parametrize(("retry", "xdist"), RETRIES)
def test_a_score_recorded_in_setup_of_a_discarded_attempt_is_dropped(
    pytester: pytest.Pytester, retry: str, xdist: tuple[str, ...]
) -> None:
    """pluginmix34 #1: the setup report of an attempt that was tried again kept its records
    when the last attempt recorded nothing in setup (it errored): a passing run of a test
    pytest counted as an error, and a baseline saved."""
    if xdist:
        pytest.importorskip("xdist")
    pytester.makeconftest(retry + SETUP_SCORE_FIXTURE.format(stop="raise ConnectionError"))
    pytester.makepyfile(
        test_setup="""
        def test_uses_answer(answer):
            assert answer == 99  # the first attempt fails, so it is tried again

        def test_ok(structeval):
            structeval.score({"b": 1}, '{"b": 1}')
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", *xdist)
    assert result.parseoutcomes()["errors"] == 1
    report = aggregate(pytester.path)
    assert [r["scenario_id"] for r in report["results"]] == ["test_setup.py::test_ok"]


@pytest.mark.parametrize(("retry", "xdist"), RETRIES)
@pytest.mark.parametrize("where", ["setup", "call"])
def test_a_fixture_test_skipped_on_its_last_attempt_is_a_skipped_run(
    pytester: pytest.Pytester, retry: str, xdist: tuple[str, ...], where: str
) -> None:
    """pluginmix34 #2: a test that recorded on an earlier attempt and was skipped on its last
    one was neither a result nor a skipped run, and the baseline was saved, where the same
    skip without a rerun blocks it."""
    if xdist:
        pytest.importorskip("xdist")
    pytester.makeconftest(retry + SETUP_SCORE_FIXTURE.format(stop="pytest.skip"))
    tests = {
        "call": """
        def test_skipped(structeval):
            CALLS.append(1)
            if len(CALLS) == 1:
                structeval.assert_matches({"b": 1}, '{"b": 2}')  # first attempt: wrong
            pytest.skip("model endpoint down")
        """,
        "setup": """
        def test_skipped(answer):
            assert answer == 99  # the first attempt fails, so it is tried again
        """,
    }
    source = """
        import pytest

        CALLS = []

        def test_ok(structeval):
            structeval.score({"b": 1}, '{"b": 1}')
        """
    pytester.makepyfile(test_skip=source + tests[where])
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", *xdist, "--structeval-save-baseline", "b.json"
    )
    assert result.parseoutcomes()["skipped"] == 1
    result.stdout.fnmatch_lines(["skipped runs: 1 (test_skip.py::test_skipped)"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not (pytester.path / "b.json").exists()
    report = aggregate(pytester.path)
    assert [r["scenario_id"] for r in report["results"]] == ["test_skip.py::test_ok"]
    assert [s["nodeid"] for s in report["skipped"]] == ["test_skip.py::test_skipped"]


def test_the_subtests_of_a_rerun_attempt_count_once(pytester: pytest.Pytester) -> None:
    """diff32a #1: a rerun attempt's subtests reported as passed or failed, so each subtest
    sample counted once per attempt (7 runs for 3 under ``--reruns 2``)."""
    if not hasattr(pytest, "Subtests"):  # (pytest 9 reports subtests; pytest 8 has none)
        pytest.skip("pytest before 9.0 has no subtests")
    pytester.makeconftest(RERUN_CONFTEST)
    pytester.makepyfile(
        test_sub="""
        ATTEMPTS = []

        def test_scores(structeval, subtests):
            ATTEMPTS.append(1)
            for i, answer in enumerate(['{"q": 9}', '{"q": 0}']):
                with subtests.test(i=i):
                    structeval.score({"q": 0}, answer, run_id=f"sample{i}")
            assert len(ATTEMPTS) > 1
        """
    )
    pytester.runpytest("-p", "no:randomly")
    report = aggregate(pytester.path)
    assert sorted((r["run_id"], r["passed"]) for r in report["results"]) == [
        ("sample0", False),
        ("sample1", True),
    ]


def test_a_rerun_test_gets_the_junit_properties_of_its_last_attempt_only(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(RERUN_CONFTEST)
    pytester.makepyfile(test_flaky=FLAKY_TEST)
    pytester.runpytest("--junitxml", "out.xml", "--structeval-junit-properties")
    *_, case = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")  # (the last)
    properties = [(p.get("name"), p.get("value")) for p in case.iter("property")]
    assert properties[:2] == [("structeval_score", "1.0"), ("structeval_passed", "true")]
    assert len(properties) == 4  # one score recorded, by the last attempt


def test_a_selection_of_fixture_tests_or_nothing_to_save_is_never_saved(
    pytester: pytest.Pytester,
) -> None:
    """``-k`` over tests using the ``structeval`` fixture saved a subset as the whole
    baseline, and a run with nothing to save passed without a word (review 11)."""
    pytester.makepyfile(
        test_fx="""
        def test_a(structeval):
            structeval.score({"a": 1}, '{"a": 1}')

        def test_b(structeval):
            structeval.score({"b": 1}, '{"b": 1}')

        def test_plain():
            pass
        """
    )
    subset = pytester.runpytest("-k", "test_a", "--structeval-save-baseline", "b.json")
    assert subset.ret == pytest.ExitCode.TESTS_FAILED
    subset.stdout.fnmatch_lines(["FAIL structeval: baseline not saved to *: the run scored a*"])
    plain = pytester.runpytest("-k", "test_plain", "--structeval-save-baseline", "b.json")
    assert plain.ret == pytest.ExitCode.TESTS_FAILED
    plain.stdout.fnmatch_lines(["FAIL structeval: baseline not saved to *: the run recorded no*"])
    assert not (pytester.path / "b.json").exists()
    whole = pytester.runpytest("--structeval-save-baseline", "b.json")
    assert whole.ret == pytest.ExitCode.OK
    assert len(json.loads((pytester.path / "b.json").read_text())["results"]) == 2


def test_an_ignored_scenario_folder_does_not_block_saving(project: pytest.Pytester) -> None:
    """The runs an ``--ignore`` leaves out are not reported at all: the saved baseline is
    the run's whole report, not a selection of it (review 11)."""
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--ignore",
        "sc/scenario_2",
        "--structeval-save-baseline",
        "b.json",
    )
    assert result.ret == pytest.ExitCode.OK
    assert (project.path / "b.json").exists()


def test_an_incomplete_run_is_never_saved_as_a_baseline(project: pytest.Pytester) -> None:
    """Runs that never ran would read as "new" next time, hiding their regressions."""
    set_answer(project, "scenario_1", '{"a": 2}')
    result = project.runpytest(
        "--structeval-scenarios", "sc", "-x", "--structeval-save-baseline", "b.json"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"FAIL structeval: baseline not saved to {project.path / 'b.json'}: the run is incomplete"]
    )
    assert not (project.path / "b.json").exists()


# --------------------------------------------------------------------------- Markdown


def test_markdown_file_and_github_step_summary(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    step = project.path / "step.md"
    step.write_text("# build\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-markdown",
        "out/summary.md",
        "--structeval-gate",
        "errors==0",
    )
    assert result.ret == pytest.ExitCode.OK
    summary = project.path / "out" / "summary.md"
    result.stdout.fnmatch_lines([f"Markdown summary: {summary}"])
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## structeval results\n")
    assert "| errors==0 | 0 | ✅ met |" in text  # counts stay integers
    assert step.read_text(encoding="utf-8") == "# build\n"  # the switch is off

    project.makeini("[pytest]\nstructeval_github_summary = true\n")
    project.runpytest("--structeval-scenarios", "sc")
    assert step.read_text(encoding="utf-8").startswith("# build\n\n## structeval results\n")


def test_an_unwritable_markdown_path_fails_the_run(project: pytest.Pytester) -> None:
    (project.path / "taken").write_text("a file, not a folder")
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-markdown", "taken/summary.md"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAIL structeval: cannot write the Markdown summary *"])


# --------------------------------------------------------------------------- JUnit


def junit_properties(path: Path) -> dict[str, dict[str, str]]:
    root = ET.parse(path).getroot()
    return {
        case.get("name", ""): {p.get("name", ""): p.get("value", "") for p in case.iter("property")}
        for case in root.iter("testcase")
    }


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_junit_properties_are_opt_in(project: pytest.Pytester, workers: list[str]) -> None:
    if workers:
        pytest.importorskip("xdist")
    project.makepyfile(test_unit="def test_plain():\n    pass\n")
    args = ["test_unit.py", "--structeval-scenarios", "sc", "-p", "no:cacheprovider", *workers]
    project.runpytest(*args, "--junitxml", "off.xml").assert_outcomes(passed=3)
    assert all(not props for props in junit_properties(project.path / "off.xml").values())

    project.runpytest(
        *args, "--junitxml", "on.xml", "--structeval-junit-properties"
    ).assert_outcomes(passed=3)
    props = junit_properties(project.path / "on.xml")
    assert props["1[r1]"] == {
        "structeval_score": "1.0",
        "structeval_passed": "true",
        "structeval_scorer": "static_json",
        "structeval_parse_method": "json",
    }
    assert props["2[r2]"]["structeval_parse_method"] == "fence:json+json"
    assert props["2[r2]"]["structeval_scorer"] == "similarity"
    assert props["test_plain"] == {}  # ordinary tests are left alone


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_failed_run_reads_as_its_headline_where_pytest_wants_one_line(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    """lifecycle32 #3: the failure was a plain text, so ``--tb=line`` printed the whole table
    and then its first 50 characters, the short summary no reason, and JUnit's ``message``
    the whole table."""
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "sc", "scenario_c", '{"x": 1}', trajectory("rc", '{"x": 2}'))
    head = "scenario c run rc (static_json): score 0.0000, not passed"
    args = ("--structeval-scenarios", "sc", "-p", "no:randomly", *workers)
    line = pytester.runpytest(*args, "--tb=line", "-rf")
    line.assert_outcomes(failed=1)
    if int(pytest.__version__.split(".")[0]) >= 9:  # (pytest 9 prints the report above it)
        line.stdout.fnmatch_lines(
            ["*= FAILURES =*", head, "*- structeval results -*", "c [[]rc[]] static_json: *"]
        )
    line.stdout.fnmatch_lines(
        [f"*sc/scenario_c:1: {head}", f"FAILED sc/scenario_c::c[[]rc[]] - {head[:30]}*"]
    )
    assert "answer.x" not in line.stdout.str().split("structeval summary")[0]  # no table
    entries = ({"id": str(n), "expected_answer": {"x": 1}} for n in (1, 2))
    (pytester.path / "cases.jsonl").write_text(  # an entry of a scenario file: its line
        "".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8"
    )  # (diff32a #4: it said line 1)
    write_trajectories(pytester.path / "runs", [trajectory("r2", '{"x": 2}', "2")])
    listed = pytester.runpytest(
        "--structeval-scenarios",
        "cases.jsonl",
        "--structeval-trajectories",
        "runs",
        "--tb=line",
        *workers,
    )
    listed.stdout.fnmatch_lines(["*cases.jsonl:2: scenario 2 run r2 (static_json): *"])
    full = pytester.runpytest(*args, "--junitxml", "j.xml")  # the whole failure, as before
    full.stdout.fnmatch_lines(
        [head, "strict: score 0.0000 (not passed): *", "path *", "answer.x *"]
    )
    (failure,) = ET.parse(pytester.path / "j.xml").getroot().iter("failure")
    assert failure.get("message") == head
    assert "answer.x  1     2" in (failure.text or "")  # the table is the failure's text


def test_fixture_records_carry_a_type_and_junit_properties(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_fx="""
        def test_two(structeval):
            structeval.score({"a": 1}, '{"a": 1}', scenario_type="IoT")
            structeval.score({"a": 1}, '```json\\n{"a": 2}\\n```', scenario_type="IoT")
            structeval.score(
                {"v": 100000.0}, '{"v": 100003.0}', mode="similarity", numeric_tolerance=0.0
            )
        """
    )
    result = pytester.runpytest(
        "--junitxml",
        "out.xml",
        "--structeval-junit-properties",
        "--structeval-gate",
        "pass_rate[IoT]>=0.9",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the test passed, the IoT gate did not
    result.stdout.fnmatch_lines(["FAIL structeval: pass_rate[[]IoT] 0.5000 misses *"])
    types = aggregate(pytester.path)["by_scenario_type"]
    assert types["IoT"]["total"] == 2
    (case,) = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    assert [(p.get("name"), p.get("value")) for p in case.iter("property")] == [
        ("structeval_score", "1.0"),
        ("structeval_passed", "true"),
        ("structeval_scorer", "strict"),
        ("structeval_parse_method", "json"),
        ("structeval_score", "0.0"),
        ("structeval_passed", "false"),
        ("structeval_scorer", "strict"),
        ("structeval_parse_method", "fence:json+json"),
        ("structeval_score", "0.9999"),  # 0.99997, failing: never 1.0 beside passed false
        ("structeval_passed", "false"),
        ("structeval_scorer", "similarity"),
        ("structeval_parse_method", "json"),
    ]


# --------------------------------------------------------------------------- subset + repeats


def test_subset_matching_from_scenario_options(project: pytest.Pytester) -> None:
    scenario(
        project.path / "sc",
        "scenario_3",
        '{"id": 7}',
        trajectory("r3", '{"id": 7, "confidence": 0.9}'),
        config="options:\n  ignore_extra: true\n",
    )
    scenario(project.path / "sc", "scenario_4", '{"id": 7}', trajectory("r4", '{"id": 7, "x": 1}'))
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=3, failed=1)  # scenario_4 counts its extra key
    report = aggregate(project.path)
    assert [row["path"] for row in report["per_field"]] == ["answer.x"]
    assert "answer.confidence" not in report["field_scores"]  # uncounted: no score at all


def test_repeated_runs_report_pass_at_k_and_pass_hat_k(project: pytest.Pytester) -> None:
    scenario(
        project.path / "sc",
        "scenario_5",
        '{"v": 1}',
        trajectory("t1", '{"v": 1}'),
        trajectory("t2", '{"v": 2}'),
        trajectory("t3", '{"v": 1}'),
    )
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-gate", "pass_hat_k>=1")
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(
        [
            "repeats: 1 of 3 scenarios ran more than once (up to 3x) | pass@k 1.0000"
            " | pass^k 0.6667 | flaky 1 (5)",
            "FAIL structeval: pass_hat_k 0.6667 misses --structeval-gate pass_hat_k>=1",
        ]
    )
    report = aggregate(project.path)
    assert report["by_scenario"]["5"] == {
        "scenario_id": "5",
        "runner_model": report["by_scenario"]["5"]["runner_model"],
        "runs": 3,
        "passed": 2,
        "pass_rate": 0.6667,
        "score_avg": 0.6667,
        "pass_at_k": True,
        "pass_hat_k": False,
    }
    assert report["score_summary"]["score_ci95"] is not None


@pytest.mark.parametrize("xdist", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_scores_recorded_in_setup_and_at_teardown_get_junit_properties(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """Review xdist28 #5: only the call phase's records became properties."""
    if xdist:
        pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(
        test_fx="""
        import pytest

        @pytest.fixture
        def early(structeval):
            structeval.score({"a": 1}, '{"a": 1}')

        @pytest.fixture
        def late(structeval):
            yield
            structeval.score({"b": 1}, '{"b": 2}')

        def test_both(early, late, structeval):
            structeval.score({"c": 1}, '{"c": 1}', mode="similarity")
        """
    )
    result = pytester.runpytest_subprocess(
        "--junitxml", "out.xml", "--structeval-junit-properties", *xdist
    )
    result.assert_outcomes(passed=1)
    (case,) = ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    named = [(p.get("name"), p.get("value")) for p in case.iter("property")]
    scores = [
        (value, named[i + 2][1])
        for i, (name, value) in enumerate(named)
        if name == "structeval_score"
    ]
    assert scores == [("1.0", "strict"), ("1.0", "similarity"), ("0.0", "strict")]
