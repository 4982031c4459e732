"""The scenario collector: node ids, join rules, broken folders, unmatched runs, selection."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from tests.plugin_support import (
    aggregate,
    collects_as_pytest_9,
    scenario,
    trajectory,
    write_trajectories,
)
from tests.realdata import require_data

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "scenarios"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A pytester dir with an ini file (so rootdir, and the reports, are in it)."""
    pytester.makeini("[pytest]\n")
    return pytester


def test_one_item_per_run_with_readable_sorted_ids(project: pytest.Pytester) -> None:
    sc = project.path / "scenarios"
    scenario(
        sc,
        "scenario_11",
        '{"a": 1}',
        trajectory("run-7", '{"a": 1}'),
        trajectory("run-3", '{"a": 1}'),
    )
    scenario(sc, "scenario_2", '{"b": 2}', trajectory("r", '{"b": 2}'))
    scenario(sc, "scenario_4/turns/02", '{"c": 3}', trajectory("t2", '{"c": 3}'))
    result = project.runpytest("--structeval-scenarios", "scenarios", "--co", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids == [
        "scenarios/scenario_11::11[run-7]",
        "scenarios/scenario_11::11[run-3]",
        "scenarios/scenario_2::2[r]",
        "scenarios/scenario_4/turns/02::4/turns/02[t2]",
    ]


def test_ids_are_sanitised_and_unique(project: pytest.Pytester) -> None:
    sc = project.path / "scenarios"
    scenario(
        sc,
        "scenario_1",
        '{"a": 1}',
        trajectory("a b::c[d]\n", '{"a": 1}'),
        trajectory("a_b:c(d)_", '{"a": 1}'),
    )
    result = project.runpytest("--structeval-scenarios", "scenarios", "--co", "-q")
    ids = sorted(line for line in result.outlines if "::" in line)
    assert ids == ["scenarios/scenario_1::1[a_b:c(d)_-2]", "scenarios/scenario_1::1[a_b:c(d)_]"]


def test_failing_item_shows_only_failing_fields(project: pytest.Pytester) -> None:
    scenario(
        project.path / "sc",
        "scenario_5",
        '{"energy": 14, "material": 48, "site": "north"}',
        trajectory("run-1", '```json\n{"energy": 14, "material": 47, "site": "north"}\n```'),
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    failure = text[text.index("FAILURES") : text.index("short test summary")]
    assert "scenario 5 run run-1 (static_json)" in failure
    assert "answer.material" in failure
    assert "48" in failure
    assert "47" in failure
    assert "answer.energy" not in failure
    assert "answer.site" not in failure
    assert "Traceback" not in failure
    assert "pytest_structeval" not in failure


def judged_scenario(project: pytest.Pytester, judge_source: str) -> None:
    """Scenario 1, scored by the ``judge`` scorer that ``judge_source`` defines in the
    conftest (its registration comes after it, so the source keeps its line numbers)."""
    register = (
        "\ndef pytest_structeval_register(registry):\n"
        '    registry.register_scorer("judge", judge)\n'
    )
    project.makeconftest(textwrap.dedent(judge_source) + register)
    scenario(
        project.path / "sc", "scenario_1", "{}", trajectory("r1", "{}"), config="scorer: judge\n"
    )


def test_an_error_raised_by_a_scorer_shows_the_users_frames_only(
    project: pytest.Pytester,
) -> None:
    """``pytest.fail`` (or a timeout) inside a scorer: the traceback is the scorer's, as a
    test function's would be, not a thousand lines through pytest, pluggy and this package
    with every frame's arguments (interplay24 #3); ``--fulltrace`` keeps them all."""
    judged_scenario(
        project,
        """
        import pytest

        def helper():
            pytest.fail("judge unavailable")

        def judge(gold, model, **options):
            helper()
        """,
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    failure = text[text.index("FAILURES") : text.index("structeval summary")]
    result.stdout.fnmatch_lines(
        ["*def judge(gold, model, **options):", "E*Failed: judge unavailable"]
    )
    assert "conftest.py:4: Failed" in failure
    for machinery in ("pluggy", "_pytest", "pytest_structeval", "hook_impls"):
        assert machinery not in failure
    assert len(failure.splitlines()) < 25
    full = project.runpytest("--structeval-scenarios", "sc", "--fulltrace").stdout.str()
    assert "_pytest" in full[full.index("FAILURES") :]


def test_a_scorer_may_skip_its_item(project: pytest.Pytester) -> None:
    """``pytest.skip`` inside a scorer skips the item (it is no scorer error), and the run is
    listed as skipped."""
    judged_scenario(
        project,
        """
        import pytest

        def judge(gold, model, **options):
            pytest.skip("judge offline")
        """,
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(skipped=1)
    report = aggregate(project.path)
    assert [s["reason"] for s in report["skipped"]] == ["judge offline"]
    assert report["totals"]["errors"] == 0


def test_a_scorer_bug_is_an_error_run_whose_item_shows_the_scorers_traceback(
    project: pytest.Pytester,
) -> None:
    """A scorer that raises (a bug) makes its run an error record, and the item's failure
    shows where it raised, in the scorer's frames only (diff24a #3: one line, no file); the
    report keeps the one-line error."""
    judged_scenario(
        project,
        """
        def helper():
            return 1 / 0

        def judge(gold, model, **options):
            return helper()
        """,
    )
    for args in ((), ("-n", "2")):
        result = project.runpytest_subprocess("--structeval-scenarios", "sc", *args)
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(
            [
                "error: scorer 'judge' failed: ZeroDivisionError: division by zero",
                "Traceback (most recent call last):",
                '  File "*conftest.py", line 5, in judge',
                "    return helper()",
                '  File "*conftest.py", line 2, in helper',
                "    return 1 / 0",
                *(["*"] if sys.version_info >= (3, 11) else []),  # (3.11's ~~~^~~ line)
                "ZeroDivisionError: division by zero",
            ]
        )
        text = result.stdout.str()
        assert "pytest_structeval" not in text[text.index("FAILURES") : text.index("summary")]
    run = (project.path / "reports" / "structeval" / "r1.json").read_text(encoding="utf-8")
    assert "Traceback" not in run
    assert "ZeroDivisionError: division by zero" in run


def test_a_scorers_long_message_is_shown_whole_once(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 200,000-character message fills the terminal once, in the traceback; the lines
    that name it (the failure's headline, the results line, the summary's errors) cut it,
    saying how long it is; the reports keep it whole. (On CI pytest's short summary repeats
    each failure whole, so the test runs as off CI.)"""
    for name in ("CI", "BUILD_NUMBER"):
        monkeypatch.delenv(name, raising=False)
    judged_scenario(
        project,
        """
        def judge(gold, model, **options):
            raise ValueError("x" * 200_000 + "END")
        """,
    )
    result = project.runpytest("--structeval-scenarios", "sc", "-rA")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert text.count("x" * 200_000 + "END") == 1
    assert text.count("x" * 400 + "… (200,") == 3
    assert "ValueError: " + "x" * 200_000 + "END" in text
    run = (project.path / "reports" / "structeval" / "r1.json").read_text(encoding="utf-8")
    assert "x" * 200_000 + "END" in run


def test_broken_folder_is_one_failing_item_and_the_rest_run(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("ok", '{"a": 1}'))
    scenario(
        sc, "scenario_2", '{"a": ', trajectory("bad", '{"a": 1}'), gold_file="groundtruth.json"
    )
    scenario(sc, "scenario_3", '{"a": ', gold_file="groundtruth.json")
    (sc / "scenario_1" / "trajectory_9.json").write_text("{not json", encoding="utf-8")
    result = project.runpytest("--structeval-scenarios", "sc", "-v")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*sc/scenario_1::1[[]error:trajectory_9.json[]] FAILED*",
            "*sc/scenario_2::2[[]bad[]] FAILED*",
            "*sc/scenario_3::3[[]error:scenario[]] FAILED*",
            "*groundtruth.json: invalid JSON*",
        ]
    )
    report = aggregate(project.path)
    assert {e["source"] for e in report["errors"]} >= {
        "sc/scenario_1/trajectory_9.json",
        "sc/scenario_3",
    }


def test_broken_trajectory_file_a_folder_lists_fails_in_that_folder(
    project: pytest.Pytester,
) -> None:
    """A file listed under ``trajectories`` in ``scenario.yaml`` belongs to the scenario
    wherever it lies: when it cannot be read, the scenario gets a failing item for it."""
    sc, shared = project.path / "sc", project.path / "shared_runs"
    write_trajectories(shared, [trajectory("ok", '{"a": 1}')])
    (shared / "broken.jsonl").write_text(
        '{"run_id": "x", "answer": {"a": 1}}\n{nope\n', encoding="utf-8"
    )
    listing = "trajectories: [../../shared_runs/ok.json, ../../shared_runs/broken.jsonl]\n"
    scenario(sc, "scenario_1", '{"a": 1}', config=listing)
    scenario(sc, "scenario_2", '{"a": 2}', trajectory("two", '{"a": 2}'))
    (project.path / "stray.json").write_text("{nope", encoding="utf-8")  # nobody's file
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-trajectories", "stray.json", "-v"
    )
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines_random(
        [
            "*sc/scenario_1::1[[]ok[]] PASSED*",
            "*sc/scenario_1::1[[]x[]] PASSED*",  # the readable line of the broken file joins
            "*sc/scenario_1::1[[]error:broken.jsonl:2[]] FAILED*",
            "*sc/scenario_2::2[[]two[]] PASSED*",
        ]
    )
    assert "stray.json" not in result.stdout.str().split("short test summary")[-1]
    sources = {e["source"] for e in aggregate(project.path)["errors"]}
    assert sources == {"shared_runs/broken.jsonl:2", "stray.json"}


def test_runs_without_run_id_are_named_alike_in_items_and_reports(
    project: pytest.Pytester,
) -> None:
    folder = scenario(project.path / "sc", "scenario_01", '{"a": 1}')
    for name, answer in (("a", '{"a": 1}'), ("b", '{"a": 2}')):
        record = trajectory("", answer)
        del record["run_id"]
        (folder / "trajectories").mkdir(exist_ok=True)
        (folder / "trajectories" / f"{name}.json").write_text(json.dumps(record))
    result = project.runpytest("--structeval-scenarios", "sc", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*sc/scenario_01::01[[]a[]] PASSED*", "scenario 01 run b (static_json): score*"]
    )
    report = aggregate(project.path)
    assert [r["run_id"] for r in report["results"]] == ["a", "b"]
    reports = project.path / "reports" / "structeval"
    assert sorted(p.name for p in reports.glob("*.json")) == ["_aggregate.json", "a.json", "b.json"]


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_report_file_named_after_an_item_holds_that_items_run(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """A runner that restarts ``run-1`` for each scenario, run twice: the item ``401[run-1-2]``
    had its report in ``run-1-1.json`` while ``run-1-2.json`` held scenario 402's run
    (review switchers17). Own names are given out first, then repeats get ``-1``, ``-2``."""
    runs = project.path / "runs"
    for sid in ("401", "402", "403"):
        scenario(project.path / "sc", f"scenario_{sid}", '{"a": 1}')
        copies = 1 if sid == "402" else 2
        for copy in range(copies):
            (runs / f"{sid}-{copy}.json").parent.mkdir(exist_ok=True)
            record = trajectory("run-1", '{"a": 1}', scenario_id=sid)
            (runs / f"{sid}-{copy}.json").write_text(json.dumps(record), "utf-8")
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-trajectories", "runs", *xdist
    )
    result.assert_outcomes(passed=5)
    reports = project.path / "reports" / "structeval"
    held = {
        path.name: json.loads(path.read_bytes())["nodeid"].partition("::")[2]
        for path in reports.glob("run-*.json")
    }
    assert held == {
        "run-1.json": "401[run-1]",
        "run-1-2.json": "401[run-1-2]",
        "run-1-1.json": "402[run-1]",
        "run-1-3.json": "403[run-1]",
        "run-1-2-1.json": "403[run-1-2]",
    }
    results = aggregate(project.path)["results"]
    assert {r["report"]: r["nodeid"].partition("::")[2] for r in results} == held


@pytest.mark.parametrize(
    "order", [("a b", "a_b"), ("a_b", "a b")], ids=["cleaned-first", "clean-first"]
)
def test_a_file_named_after_an_item_holds_it_when_ids_clean_up_alike(
    project: pytest.Pytester, order: tuple[str, str]
) -> None:
    """Run ids ``a b`` and ``a_b`` give the items ``1[a_b-2]`` and ``1[a_b]``, whichever comes
    first in the file (the label that needs no change keeps its name: diff26a #4), and each
    report file holds its item's run (``a_b.json`` held the other one's: diff17a, robust17)."""
    folder = scenario(project.path / "sc", "scenario_1", '{"a": 1}')
    lines = [json.dumps(trajectory(run_id, '{"a": 1}')) for run_id in order]
    (folder / "trajectory.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=2)
    reports = project.path / "reports" / "structeval"
    held = {
        path.name: json.loads(path.read_bytes())["nodeid"].partition("::")[2]
        for path in reports.glob("a*.json")
    }
    assert held == {"a_b.json": "1[a_b]", "a_b-2.json": "1[a_b-2]"}
    first = json.loads((reports / "a_b.json").read_bytes())
    assert (first["run_id"], first["label"]) == ("a_b", "a_b")


def test_summaries_name_a_repeated_run_by_its_label(project: pytest.Pytester) -> None:
    """The skipped-runs line, the aggregate's entries and the HTML runs table named
    ``401[run-1-2]`` by its run id, ``run-1``, which is another item (review diff17a)."""
    folder = scenario(project.path / "sc", "scenario_401", '{"a": 1}')
    for copy, answer in enumerate(('{"a": 2}', '{"a": 1}', '{"a": 1}')):
        record = trajectory("run-1", answer, scenario_id="401")
        (folder / f"trajectory_{copy}.json").write_text(json.dumps(record), "utf-8")
    project.makeconftest(
        "import pytest\n\n"
        "def pytest_runtest_setup(item):\n"
        "    if item.name == '401[run-1-3]':\n"
        "        pytest.skip('later')\n"
    )
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-html", "s.html")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["401 [[]run-1[]] static_json: score 0.0000 FAILED"])
    result.stdout.fnmatch_lines(["skipped runs: 1 (401 [[]run-1-3[]])"])
    report = aggregate(project.path)
    assert [(r["label"], r["report"]) for r in report["results"]] == [
        ("run-1", "run-1.json"),
        ("run-1-2", "run-1-2.json"),
    ]
    assert [s["label"] for s in report["skipped"]] == ["run-1-3"]
    page = (project.path / "s.html").read_text("utf-8")  # the runs table: every run
    assert "<td>401</td><td>run-1-2</td>" in page


def test_a_lone_surrogate_in_a_run_id_is_cleaned_out_of_the_node_id(
    project: pytest.Pytester,
) -> None:
    """pytest puts the node id in ``PYTEST_CURRENT_TEST``, which cannot encode one."""
    folder = scenario(project.path / "sc", "scenario_1", "1")
    (folder / "trajectory.json").write_text('{"run_id": "\\ud800x", "answer": 1}')
    result = project.runpytest("--structeval-scenarios", "sc", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*sc/scenario_1::1[[]_x[]] PASSED*"])


def test_join_rules_through_the_plugin(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    for sid in ("11", "12", "13", "SGT-001"):
        scenario(sc, f"scenario_{sid}", '{"a": 1}')
    runs = project.path / "runs"
    write_trajectories(
        runs,
        [
            trajectory("by-id", '{"a": 1}', scenario_id="011"),  # leading zeros
            trajectory("by-id-2", '{"a": 1}', scenario_id="11"),  # several runs, one scenario
            trajectory("13", '{"a": 1}'),  # run_id (the stem too) names the scenario
            trajectory("sgt", '{"a": 1}', scenario_id="SGT-001"),
            trajectory("orphan", '{"a": 1}', scenario_id="99"),
        ],
    )
    (runs / "12.json").write_text(json.dumps(trajectory("no-id", '{"a": 1}')), encoding="utf-8")
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-trajectories", "runs", "-v"
    )
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(
        [
            "*sc/scenario_11::11[[]by-id-2[]] PASSED*",
            "*sc/scenario_11::11[[]by-id[]] PASSED*",
            "*sc/scenario_12::12[[]no-id[]] PASSED*",
            "*sc/scenario_13::13[[]13[]] PASSED*",
            "*sc/scenario_SGT-001::SGT-001[[]sgt[]] PASSED*",
            "unmatched trajectories: 1 (runs/orphan.json -> '99', no such scenario)",
        ]
    )
    assert [t["run_id"] for t in aggregate(project.path)["unmatched"]["trajectories"]] == ["orphan"]


def test_lost_trajectories_are_named_and_can_be_gated(project: pytest.Pytester) -> None:
    """A typo in a scenario id, and a trajectory saved under another name in a scenario
    folder, each lost a run with the run passing (newuser25 #3, #4): the summary says what
    was meant and what was never read, and gates on the counts can fail the run."""
    sc = project.path / "sc"
    scenario(sc, "scenario_pumps", '{"a": 1}', trajectory("p1", '{"a": 1}'))
    scenario(sc, "scenario_count", "34")
    (sc / "scenario_count" / "gpt4.json").write_text(
        json.dumps(trajectory("c1", "34")), encoding="utf-8"
    )
    write_trajectories(project.path / "runs", [trajectory("x", '{"a": 1}', scenario_id="pump")])
    args = ["--structeval-scenarios", "sc", "--structeval-trajectories", "runs"]
    result = project.runpytest(*args)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "unmatched trajectories: 1 (runs/x.json -> 'pump', no such scenario "
            "(did you mean 'pumps'?))",
            "scenarios without trajectories: 1 (count)",
            "  never read in their folders: sc/scenario_count/gpt4.json (a scenario folder's*",
        ]
    )
    totals = aggregate(project.path)["totals"]
    assert (totals["unmatched_trajectories"], totals["unmatched_scenarios"]) == (1, 1)
    for gate in ("unmatched_trajectories==0", "unmatched_scenarios<=0"):
        gated = project.runpytest(*args, "--structeval-gate", gate)
        assert gated.ret == 1
        gated.stdout.fnmatch_lines([f"FAIL structeval: unmatched_* 1 misses*{gate}"])


def test_unmatched_scenarios_are_reported_not_collected(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r", '{"a": 1}'))
    scenario(sc, "scenario_2", '{"a": 2}')
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["scenarios without trajectories: 1 (2)"])
    assert aggregate(project.path)["unmatched"]["scenarios"] == [
        {"id": "2", "path": "sc/scenario_2", "error": None}
    ]


def test_scenario_whose_only_trajectory_is_unreadable_is_not_without_trajectories(
    project: pytest.Pytester,
) -> None:
    """Its run is counted once, as a load error (a failing item in its folder), not a second
    time as a scenario without trajectories."""
    sc = project.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r", '{"a": 1}'))
    scenario(sc, "scenario_2", '{"a": 2}')
    (sc / "scenario_2" / "trajectory.json").write_text("{not json", encoding="utf-8")
    result = project.runpytest("--structeval-scenarios", "sc", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*sc/scenario_2::2[[]error:trajectory.json[]] FAILED*",
            "scenarios without trajectories: 0",
        ]
    )
    report = aggregate(project.path)
    assert report["unmatched"]["scenarios"] == []
    assert report["totals"]["load_errors"] == 1


@pytest.mark.parametrize("xdist", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_a_scenario_path_holding_nothing_keeps_the_last_reports(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """A mistyped ``--structeval-scenarios`` path failed the run, and also deleted the last
    run's report files and wrote an empty aggregate (readme10)."""
    scenario(project.path / "sc", "scenario_1", '{"a": 1}', trajectory("r", '{"a": 1}'))
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=1)
    reports = project.path / "reports" / "structeval"
    before = {p.name: p.read_bytes() for p in reports.iterdir()}
    (project.path / "empty").mkdir()
    result = project.runpytest(
        "--structeval-scenarios", "empty", "--structeval-save-baseline", "b.json", *xdist
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "scenarios 0 | runs 0 |*",
            f"reports in {reports} left as they were",
            "FAIL structeval: no scenario runs: no scenario found under empty",
            "FAIL structeval: baseline not saved to *b.json: no scenario run was found",
        ]
    )
    assert not (project.path / "b.json").exists()
    assert {p.name: p.read_bytes() for p in reports.iterdir()} == before


def test_nothing_joined_exits_non_zero_never_5(project: pytest.Pytester) -> None:
    scenario(project.path / "sc", "scenario_1", '{"a": 1}')
    result = project.runpytest("--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAIL structeval: no scenario runs: 1 scenario found*"])


@pytest.mark.parametrize("xdist", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_a_mistyped_scenario_node_id_is_not_found_exit_4(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """``folder::name[typo]`` deselected everything and exited 5, where pytest says "not
    found" for its own node ids and exits 4 (a known gap since audit 9)."""
    sc = project.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(sc, "scenario_2", '{"a": 2}', trajectory("r2", '{"a": 2}'))
    result = project.runpytest("sc/scenario_1::1[nope]", "sc/scenario_2::2[r2]", *xdist)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["FAIL structeval: not found: sc/scenario_1::1[[]nope[]]"])
    assert "not found: sc/scenario_2" not in result.stdout.str()
    found = project.runpytest("sc/scenario_1::1", "-k", "nothing_matches", *xdist)
    assert "not found" not in found.stdout.str()  # named, then dropped by -k: it exists


def test_scenario_folders_as_plain_pytest_paths(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(sc, "scenario_2", '{"a": 2}', trajectory("r2", '{"a": 2}'))
    scenario(sc, "scenario_3/turns/01", '{"b": 1}', trajectory("t1", '{"b": 1}'))
    project.runpytest("sc/scenario_1").assert_outcomes(passed=1)
    project.runpytest("sc").assert_outcomes(passed=3)
    project.runpytest("sc/scenario_3/turns/01").assert_outcomes(passed=1)


def test_a_turn_folder_as_the_scenarios_path_is_that_scenario(project: pytest.Pytester) -> None:
    """``--structeval-scenarios sc/scenario_3/turns/01`` scores scenario ``3/turns/01``, as the
    same folder given as a plain path does (cli24 #2: "not named scenario_<id>")."""
    sc = project.path / "sc"
    scenario(sc, "scenario_3/turns/01", '{"b": 1}', trajectory("t1", '{"b": 1}'))
    scenario(sc, "scenario_3/turns/02", '{"b": 2}', trajectory("t2", '{"b": 2}'))
    result = project.runpytest("--structeval-scenarios", "sc/scenario_3/turns/01", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*sc/scenario_3/turns/01::3/turns/01[[]t1[]] PASSED*"])
    report = aggregate(project.path)
    assert [r["scenario_id"] for r in report["results"]] == ["3/turns/01"]
    assert report["totals"]["load_errors"] == 0
    both = project.runpytest("--structeval-scenarios", "sc/scenario_3/turns")
    both.assert_outcomes(passed=2)


def test_a_scenarios_path_inside_another_is_collected_through_it_as_pytest_does(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    """pytest collects an argument inside another through it, so its walk rules apply: a
    ``norecursedirs`` folder given beside its parent is not collected, in pytest's tests as in
    scenarios, and the scenario index agrees (no scenario without its item). The CLI, which
    has no such rule, reads it (diff24c #2)."""
    from pytest_structeval.cli import main

    scenario(project.path / "evals", "scenario_1", "{}", trajectory("r1", "{}"))
    scenario(project.path / "evals" / "build", "scenario_2", "{}", trajectory("r2", "{}"))
    (project.path / "evals" / "build" / "test_b.py").write_text("def test_b(): pass\n")
    (project.path / "evals" / "test_a.py").write_text("def test_a(): pass\n")
    args = ("--structeval-scenarios", "evals", "--structeval-scenarios", "evals/build")
    result = project.runpytest("-v", *args, "evals/build/test_b.py", "evals")
    ran = result.stdout.str()
    # pytest 8.1 and later drop evals/build/test_b.py (collected through evals, whose walk
    # skips build/), pytest 8.0 drops evals itself: the scenarios follow pytest's own tests
    if "evals/test_a.py::test_a PASSED" in ran:
        assert "test_b.py::test_b" not in ran
        result.assert_outcomes(passed=2)
        report = aggregate(project.path)
        assert [r["scenario_id"] for r in report["results"]] == ["1"]
        assert report["complete"] is True
    else:
        result.assert_outcomes(passed=1)
        assert "none selected" in ran
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project.path)
        main(["evaluate", "--scenarios", "evals", "evals/build", "--reports-dir", "cli"])
    assert "scenarios 2 | runs 2 | passed 2" in capsys.readouterr().out


@collects_as_pytest_9
def test_a_link_to_a_scenarios_folder_is_collected_as_pytest_collects_it(
    project: pytest.Pytester,
) -> None:
    scenario(project.path / "evals", "scenario_1", "{}", trajectory("r1", "{}"))
    scenario(project.path / "evals" / "build", "scenario_2", "{}", trajectory("r2", "{}"))
    (project.path / "evals" / "build" / "test_b.py").write_text("def test_b(): pass\n")
    # a link elsewhere to that folder is an argument of its own, for pytest too (diff24d #1)
    (project.path / "latest").symlink_to(project.path / "evals" / "build")
    linked = project.runpytest(
        "--structeval-scenarios", "evals", "--structeval-scenarios", "latest"
    )
    linked.assert_outcomes(passed=3)  # (and latest/test_b.py, as pytest collects it)
    assert sorted(r["scenario_id"] for r in aggregate(project.path)["results"]) == ["1", "2"]
    # a link pytest never walks (in a norecursedirs folder) reads nothing (diff24e #1)
    scenario(project.path / "shared", "scenario_9", "{}", trajectory("r9", "{}"))
    (project.path / "evals" / "dist").symlink_to(project.path / "shared")
    for target in ("shared/scenario_9", "shared"):
        through = project.runpytest(
            *("--structeval-scenarios", "evals", "--structeval-scenarios", "evals/dist"),
            *("--structeval-scenarios", target, "-p", "no:randomly"),
        )
        ids = sorted(r["scenario_id"] for r in aggregate(project.path)["results"])
        assert ids == ["1", "9"], (target, through.stdout.str()[-500:])


def test_node_ids_from_the_summary_can_be_rerun(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(
        sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'), trajectory("r2", '{"a": 1}')
    )
    scenario(sc, "scenario_3/turns/01", '{"b": 1}', trajectory("t1", '{"b": 1}'))
    result = project.runpytest("sc/scenario_1::1[r2]", "sc/scenario_3/turns/01::3/turns/01", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["*scenario_1::1[[]r2[]] PASSED*", "*01::3/turns/01[[]t1[]] PASSED*"]
    )


def test_last_failed_and_deselect_understand_scenario_ids(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(
        sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'), trajectory("r2", '{"a": 2}')
    )
    scenario(sc, "scenario_2", '{"b": 1}', trajectory("r3", '{"b": 1}'))
    project.runpytest("sc").assert_outcomes(passed=2, failed=1)
    project.runpytest("sc", "--lf").assert_outcomes(failed=1, deselected=2)
    project.runpytest("sc", "--deselect", "sc/scenario_1::1[r2]").assert_outcomes(
        passed=2, deselected=1
    )


def test_keyword_and_marker_selection(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(sc, "scenario_SGT-001", '{"a": 1}', trajectory("r1", '{"a": 1}', model="llama-3-8b"))
    scenario(sc, "scenario_SGT-002", '{"a": 1}', trajectory("r2", '{"a": 1}'))
    project.makepyfile(test_unit="def test_unit():\n    pass\n")
    project.runpytest("--structeval-scenarios", "sc", "-k", "SGT-001").assert_outcomes(passed=1)
    project.runpytest("--structeval-scenarios", "sc", "-k", "llama").assert_outcomes(passed=1)
    both = project.runpytest("sc", "test_unit.py", "-m", "structeval")
    both.assert_outcomes(passed=2, deselected=1)


def test_projects_without_scenarios_see_nothing(project: pytest.Pytester) -> None:
    data = project.path / "data" / "scenario_1"
    data.mkdir(parents=True)
    (data / "groundtruth.txt").write_text("1", encoding="utf-8")
    project.makepyfile(test_unit="def test_unit():\n    pass\n")
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    assert not [line for line in result.outlines if "structeval" in line and "plugins:" not in line]
    assert not (project.path / "reports").exists()


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="examples/scenarios is not in this checkout")
def test_bundled_examples_all_pass(project: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLES, project.path / "examples" / "scenarios")
    result = project.runpytest("--structeval-scenarios", "examples/scenarios")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    report = aggregate(project.path)
    assert report["totals"]["passed"] == report["totals"]["scored"] >= 14
    assert report["unmatched"] == {"trajectories": [], "scenarios": [], "not_selected": []}
    assert report["errors"] == []
    assert report["complete"] is True


@pytest.mark.realdata
def test_real_smartgrid_runs_join_completely(project: pytest.Pytester) -> None:
    data = require_data("assetops", "hpml_smartgrid")
    result = project.runpytest(
        f"--structeval-scenarios={data / 'scenarios'}",
        f"--structeval-trajectories={data / 'trajectories'}",
        "-q",
        "--tb=no",
    )
    result.assert_outcomes(failed=1247)  # prose answers against rubric dicts
    report = aggregate(project.path)
    assert report["totals"]["scored"] == 1247
    assert report["unmatched"]["trajectories"] == []
    assert report["totals"]["scenarios"] + len(report["unmatched"]["scenarios"]) == 61
    assert report["errors"] == []
    assert report["duplicates"] == []
    assert report["complete"] is True


@pytest.mark.realdata
def test_real_smartgrid_one_scenario_picked_leaves_no_false_unmatched(
    project: pytest.Pytester,
) -> None:
    """One scenario folder of the real tree, with the shared trajectories folder: the other
    60 scenarios' 1,191 runs are of scenarios not selected (audit 9 had them unmatched)."""
    (project.path / "hpml").symlink_to(require_data("assetops", "hpml_smartgrid"))
    result = project.runpytest(
        "hpml/scenarios/scenario_SGT-001", "--structeval-trajectories=hpml/trajectories", "-q"
    )
    result.assert_outcomes(failed=56)
    result.stdout.fnmatch_lines(["unmatched trajectories: 0; 1191 more of scenarios not selected"])
    unmatched = aggregate(project.path)["unmatched"]
    assert unmatched["trajectories"] == []
    assert len(unmatched["not_selected"]) == 1191


@pytest.mark.realdata
@pytest.mark.parametrize("how", ["option", "argument"])
def test_real_couchdb_folders_are_all_accounted_for(project: pytest.Pytester, how: str) -> None:
    """Given outright or as a plain argument (then inferred: its folders hold gold files), the
    folders without gold are reported, never left out."""
    data = require_data("assetops", "ibm_couchdb", "scenarios")
    args = [f"--structeval-scenarios={data}"] if how == "option" else [str(data)]
    # (as a plain argument the data folder is pytest's rootdir: no cache may be written there)
    result = project.runpytest(*args, "--tb=line", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=2)  # scenario_4 (a multi-turn parent) and turn_05 have no gold
    result.stdout.fnmatch_lines(["*no groundtruth.* in folder*"])
    if how == "option":  # asked for scenarios, and none joined
        result.stdout.fnmatch_lines(["FAIL structeval: no scenario runs*"])
    report = aggregate(project.path)
    assert sorted(s["id"] for s in report["unmatched"]["scenarios"]) == [
        "3",
        "4",
        "4_turn_02",
        "4_turn_03",
        "4_turn_04",
        "4_turn_05",
    ]
    assert {e["source"].rsplit("/", 1)[-1] for e in report["errors"]} == {
        "scenario_4",
        "scenario_4_turn_05",
    }


def test_ids_cannot_start_a_line_of_the_pytest_output(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failure headline, the results section and the summary printed raw ids: a newline
    in a folder name or run id started a line GitHub Actions would run as a workflow
    command, and escape sequences reached the terminal (robustness audit 9)."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    pytester.makeini("[pytest]\n")
    run = {"run_id": "r\n::error::FROM_RUN\x1b[2J", "answer": '{"a": 2}'}
    legacy = {"run_id": "q ##[stop-commands]FROM_LEGACY", "answer": '{"a": 2}'}
    scenario(pytester.path / "sc", "scenario_x\n::warning::FROM_FOLDER", '{"a": 1}', run, legacy)
    (pytester.path / "sc" / "scenario_y\n::error::FROM_BROKEN").mkdir()
    result = pytester.runpytest("--structeval-scenarios", "sc", "-rA", "--structeval-fail-under=1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str()
    assert "\x1b" not in text
    # pytest echoes node ids raw (a folder name is part of one) in its progress and short
    # summary lines; the failure texts, results sections and summary are ours.
    ours = text.split(" FAILURES ")[1].split(" short test summary info ")[0]
    assert all(n in ours for n in ("FROM_FOLDER", "FROM_RUN", "FROM_BROKEN", "FROM_LEGACY"))
    for line in ours.splitlines():
        assert not line.lstrip().startswith("::") or "FROM_" not in line, line
        assert "##[" not in line, line
    assert any(line.startswith("::error title=structeval::") for line in result.outlines)


def test_a_detailed_failure_table_cannot_carry_a_workflow_command(
    pytester: pytest.Pytester,
) -> None:
    """The failing-fields table printed a reason or value from the data raw (review 9)."""
    pytester.makeini("[pytest]\n")
    answer = '{"a": "x\\n::error::FROM_VALUE ##[stop-commands]t"}'
    scenario(pytester.path / "sc", "scenario_1", '{"a": "y"}', trajectory("r", answer))
    result = pytester.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(failed=1)
    ours = result.stdout.str().split(" FAILURES ")[1].split(" short test summary info ")[0]
    assert "FROM_VALUE" in ours
    for line in ours.splitlines():
        assert not line.lstrip().startswith("::"), line
        assert "##[" not in line, line


def test_a_multi_line_rationale_keeps_its_lines_and_stays_safe(project: pytest.Pytester) -> None:
    """With ``--structeval-diff off`` a custom scorer's rationale printed as one line with
    literal ``\\n``; each line is still made printable (no workflow command at a line start)."""
    project.makeconftest(
        """
        from pytest_structeval import ScoreResult

        def pytest_structeval_register(registry):
            def judge(gold, model, **options):
                reason = "too vague\\nmissing the unit\\n::error::boom"
                return ScoreResult(passed=False, score=0.2, mode="judge", reason=reason)
            registry.register_scorer("judge", judge)
        """
    )
    scenario(project.path / "sc", "scenario_1", '{"a": 1}', trajectory("r", '{"a": 2}'))
    result = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-scorer", "judge", "--structeval-diff", "off"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "scenario 1 run r (judge): score 0.2000, not passed",
            "too vague",
            "missing the unit",
            ":\\:error::boom",
        ]
    )


def test_pytest_exit_in_a_scorer_stops_the_session(pytester: pytest.Pytester) -> None:
    """A judge out of quota calls ``pytest.exit``: it was caught as a scorer error, so every
    later run called the judge again and erred (review xdist19); the fixture stopped."""
    pytester.makeconftest(
        """
        import pytest

        def judge(gold, model, **options):
            pytest.exit("judge quota exhausted", returncode=3)

        def pytest_structeval_register(registry):
            registry.register_scorer("judge", judge)
        """
    )
    for n in (1, 2, 3):
        scenario(pytester.path / "sc", f"scenario_{n}", '{"a": 1}', trajectory("r", '{"a": 1}'))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--structeval-scenarios", "sc", "--structeval-scorer", "judge"
    )
    assert result.ret == 3
    result.stdout.fnmatch_lines(["*Exit: judge quota exhausted*"])
    assert "scorer 'judge' failed" not in result.stdout.str()
    # stopped inside the first run, before any finished: no report replaces the last ones
    # (diff30b #3); once a run finished, the rest are runs that did not run
    assert not (pytester.path / "reports").exists()
    pytester.makeconftest(
        """
        import pytest
        from pytest_structeval import score

        calls = []

        def judge(gold, model, **options):
            calls.append(1)
            if len(calls) > 1:
                pytest.exit("judge quota exhausted", returncode=3)
            return score(gold, model)

        def pytest_structeval_register(registry):
            registry.register_scorer("judge", judge)
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--structeval-scenarios", "sc", "--structeval-scorer", "judge"
    )
    assert result.ret == 3
    report = aggregate(pytester.path)
    assert report["incomplete_reasons"] == ["2 scenario items did not run"]
    assert [e["error"] for e in report["errors"]] == ["did not run: run stopped early"] * 2


def test_a_scenario_file_with_an_upper_case_suffix_is_collected(pytester: pytest.Pytester) -> None:
    (pytester.path / "ev").mkdir()
    (pytester.path / "ev" / "Team.Scenarios.YAML").write_text(
        "- id: y\n  expected_answer: 1\n", encoding="utf-8"
    )
    (pytester.path / "runs.jsonl").write_text(
        '{"scenario_id": "y", "run_id": "r", "answer": "1"}\n', encoding="utf-8"
    )
    args = ("--structeval-scenarios=ev", "--structeval-trajectories=runs.jsonl")
    pytester.runpytest(*args).assert_outcomes(passed=1)
    pytester.runpytest(*args, "ev/Team.Scenarios.YAML").assert_outcomes(passed=1)
