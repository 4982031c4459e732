"""Scenario files in pytest: collection, node ids, broken lines and entries, reports, xdist."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.plugin_support import (
    aggregate,
    collects_as_pytest_9,
    comparable,
    scenario,
    trajectory,
    write,
    write_trajectories,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "scenarios"


def scenario_file(path: Path, *entries: Mapping[str, Any] | str) -> Path:
    """A JSONL scenario file: one entry per line (strings are written as they are)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [e if isinstance(e, str) else json.dumps(e) for e in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """``evals/scenarios.jsonl`` (three shapes of gold), its runs in ``runs/``, a unit test."""
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    scenario_file(
        pytester.path / "evals" / "scenarios.jsonl",
        {"id": 11, "text": "How many?", "type": "count", "expected_answer": 34},
        {"id": "12", "expected_answer": {"repair": 13, "replace": 0}},
        {"id": "13", "expected_answer": '["a", "b"]', "options": {"align": "unordered"}},
    )
    write_trajectories(
        pytester.path / "runs",
        [
            trajectory("run-7", "The answer is 34.", scenario_id="11"),
            trajectory("run-8", {"replace": 0, "repair": 13}, scenario_id="12"),
            trajectory("run-9", '```json\n["b", "a"]\n```', scenario_id="13"),
        ],
    )
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_unit.py").write_text("def test_unit():\n    pass\n")
    return pytester


RUNS = ("--structeval-trajectories", "runs")


def test_a_file_given_by_option_runs_one_item_per_run(project: pytest.Pytester) -> None:
    result = project.runpytest("--structeval-scenarios", "evals/scenarios.jsonl", *RUNS, "-v")
    result.assert_outcomes(passed=3)  # only the scenarios: the option replaces testpaths
    result.stdout.fnmatch_lines(
        [
            "evals/scenarios.jsonl::11[[]run-7[]] PASSED*",
            "evals/scenarios.jsonl::12[[]run-8[]] PASSED*",
            "evals/scenarios.jsonl::13[[]run-9[]] PASSED*",
            "scenarios 3 | runs 3 | passed 3 | pass rate 1.0000 | mean score 1.0000 | errors 0",
        ]
    )
    report = aggregate(project.path)
    assert report["complete"] is True
    assert report["errors"] == []
    assert report["duplicates"] == []
    count = report["by_scenario_type"]["count"]
    assert (count["total"], count["passed"], count["pass_rate"], count["score_avg"]) == (1, 1, 1, 1)
    assert count["f1_avg"] == 1.0  # and the scorer's metric means
    per_run = json.loads((project.path / "reports" / "structeval" / "run-8.json").read_text())
    assert per_run["answer"] == {"replace": 0, "repair": 13}
    assert per_run["scenario_path"] == "evals/scenarios.jsonl:2"
    assert per_run["nodeid"] == "evals/scenarios.jsonl::12[run-8]"


def test_ini_key_and_folder_discovery(project: pytest.Pytester) -> None:
    project.makeini(
        "[pytest]\ntestpaths = tests\n"
        "structeval_scenarios = evals\nstructeval_trajectories = runs\n"
    )
    (project.path / "evals" / "data.json").write_text("{not scenarios", encoding="utf-8")
    result = project.runpytest("-v")
    result.assert_outcomes(passed=4)  # the unit test and the three runs; data.json is not read
    result.stdout.fnmatch_lines(["evals/scenarios.jsonl::11[[]run-7[]] PASSED*"])
    assert aggregate(project.path)["errors"] == []


def test_ini_key_naming_a_file_adds_it_to_the_testpaths(project: pytest.Pytester) -> None:
    project.makeini(
        "[pytest]\ntestpaths = tests\n"
        "structeval_scenarios = evals/scenarios.jsonl\nstructeval_trajectories = runs\n"
    )
    result = project.runpytest("-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines_random(
        ["tests/test_unit.py::test_unit PASSED*", "evals/scenarios.jsonl::13[[]run-9[]] PASSED*"]
    )


def test_a_json_file_as_an_ordinary_path_is_not_collected(project: pytest.Pytester) -> None:
    result = project.runpytest("evals/scenarios.jsonl", *RUNS)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: not found: */evals/scenarios.jsonl"])
    assert not (project.path / "reports").exists()


def test_node_ids_of_file_items_select_and_rerun(project: pytest.Pytester) -> None:
    args = ("--structeval-scenarios", "evals", *RUNS, "-v")
    one = project.runpytest("evals/scenarios.jsonl::12[run-8]", *args)
    one.assert_outcomes(passed=1)
    by_id = project.runpytest("evals/scenarios.jsonl::13", *args)
    by_id.assert_outcomes(passed=1)
    by_id.stdout.fnmatch_lines(["*::13[[]run-9[]] PASSED*"])


def test_bad_lines_and_entries_are_failing_items_and_the_rest_run(
    project: pytest.Pytester,
) -> None:
    scenario_file(
        project.path / "evals" / "scenarios.jsonl",
        {"id": 11, "expected_answer": 34},
        '{"id": 12, "expected_answer": ',
        {"id": "011", "expected_answer": 35},  # a duplicate of 11
        {"id": 13, "characteristic_form": "A prose rubric."},
        {"id": 14, "expected_answer": 1, "threshold": "high"},
    )
    (project.path / "evals" / "list_scenarios.json").write_text(
        json.dumps([{"id": 21, "expected_answer": 34}, "oops"]), encoding="utf-8"
    )
    write_trajectories(
        project.path / "runs",
        [trajectory("run-9", "34", scenario_id="21"), trajectory("run-3", "1", scenario_id="14")],
    )
    result = project.runpytest("--structeval-scenarios", "evals", *RUNS, "-v", "--tb=line")
    result.assert_outcomes(passed=2, failed=5)
    result.stdout.fnmatch_lines_random(
        [
            "evals/list_scenarios.json::21[[]run-9[]] PASSED*",
            "evals/list_scenarios.json::error[[]entry-1[]] FAILED*",
            "evals/scenarios.jsonl::11[[]run-7[]] PASSED*",
            "evals/scenarios.jsonl::14[[]run-3[]] FAILED*",
            "evals/scenarios.jsonl::error[[]line-2[]] FAILED*",
            "evals/scenarios.jsonl::error[[]line-3[]] FAILED*",
            "evals/scenarios.jsonl::error[[]line-4[]] FAILED*",
            "*scenarios.jsonl:3: duplicate scenario id '011': evals/scenarios.jsonl:1 is used",
            "*evals/scenarios.jsonl:4: no expected_answer (characteristic_form is a rubric*",
            "*threshold must be a number*",
        ]
    )
    report = aggregate(project.path)
    assert {e["source"] for e in report["errors"]} >= {
        "evals/scenarios.jsonl:2",
        "evals/scenarios.jsonl:3",
        "evals/scenarios.jsonl:4",
        "evals/list_scenarios.json[1]",
    }
    assert report["duplicates"] == [
        {
            "kind": "scenario_id",
            "id": "11",
            "sources": ["evals/scenarios.jsonl:1", "evals/scenarios.jsonl:3"],
        }
    ]
    assert [t["run_id"] for t in report["unmatched"]["trajectories"]] == ["run-8"]


def test_a_file_with_no_usable_scenario_is_one_failing_item(project: pytest.Pytester) -> None:
    (project.path / "broken.json").write_text("[]", encoding="utf-8")
    result = project.runpytest("--structeval-scenarios", "broken.json", "-v", "--tb=line")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "broken.json::error[[]file[]] FAILED*",
            "*broken.json: no scenarios in file",
            "FAIL structeval: no scenario runs*",
        ]
    )


def test_trajectories_listed_by_entries_need_no_option(project: pytest.Pytester) -> None:
    runs = project.path / "evals" / "runs"
    write_trajectories(runs, [trajectory("a", "34"), trajectory("b", "35")])
    (runs / "broken.jsonl").write_text("{nope\n", encoding="utf-8")
    scenario_file(
        project.path / "evals" / "scenarios.jsonl",
        {"id": 11, "expected_answer": 34, "trajectories": ["runs/a.json", "runs/broken.jsonl"]},
        {"id": 12, "expected_answer": 34, "trajectories": "runs/b.json"},
    )
    result = project.runpytest("--structeval-scenarios", "evals", "-v", "--tb=no")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "evals/scenarios.jsonl::11[[]a[]] PASSED*",
            "evals/scenarios.jsonl::12[[]b[]] FAILED*",
            "evals/scenarios.jsonl::error[[]broken.jsonl:1[]] FAILED*",
        ]
    )


def test_folders_and_files_mix_and_share_one_id_space(project: pytest.Pytester) -> None:
    sc = project.path / "sc"
    scenario(sc, "scenario_11", "34", trajectory("in-folder", "34"))
    scenario(sc, "scenario_5", '{"a": 1}', trajectory("five", '{"a": 1}'))
    result = project.runpytest(
        "--structeval-scenarios", "sc",
        "--structeval-scenarios", "evals/scenarios.jsonl",
        *RUNS, "-v",
    )  # fmt: skip
    # Roots are read in the order given, as `structeval evaluate` reads them: the folder's 11
    # wins, the file's line 1 is a failing error item, and run-7 (scenario_id 11) joins the
    # winner.
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines_random(
        [
            "sc/scenario_11::11[[]in-folder[]] PASSED*",
            "sc/scenario_11::11[[]run-7[]] PASSED*",
            "sc/scenario_5::5[[]five[]] PASSED*",
            "evals/scenarios.jsonl::12[[]run-8[]] PASSED*",
            "evals/scenarios.jsonl::error[[]line-1[]] FAILED*",
        ]
    )
    assert aggregate(project.path)["duplicates"][0]["sources"] == [
        "sc/scenario_11",
        "evals/scenarios.jsonl:1",
    ]
    swapped = project.runpytest(
        "--structeval-scenarios", "evals/scenarios.jsonl",
        "--structeval-scenarios", "sc",
        *RUNS, "-v",
    )  # fmt: skip
    # The losing folder's own run is its error, never a run of the file's 11, scored
    # against that gold (hostile25 #4).
    swapped.assert_outcomes(passed=4, failed=1)
    swapped.stdout.fnmatch_lines_random(
        [
            "evals/scenarios.jsonl::11[[]run-7[]] PASSED*",
            "sc/scenario_11::11[[]in-folder[]] FAILED*",
            "error: scenario sc/scenario_11: duplicate scenario id '11': "
            "evals/scenarios.jsonl:1 is used",
        ]
    )


@collects_as_pytest_9
def test_a_file_inside_a_folder_root_can_be_given_on_its_own(project: pytest.Pytester) -> None:
    scenario_file(
        project.path / "evals" / "custom.json",
        '[{"id": "c1", "expected_answer": {"x": 1}, "trajectories": "c1.json"}]',
    )
    write_trajectories(project.path / "evals", [trajectory("c1", '{"x": 1}', scenario_id="c1")])
    result = project.runpytest(
        "--structeval-scenarios", "evals",
        "--structeval-scenarios", "evals/custom.json",
        *RUNS, "-v",
    )  # fmt: skip
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines_random(
        ["evals/custom.json::c1[[]c1[]] PASSED*", "evals/scenarios.jsonl::11[[]run-7[]] PASSED*"]
    )


def test_evaluate_cli_writes_the_same_reports(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_structeval.cli import main

    project.runpytest("--structeval-scenarios", "evals/scenarios.jsonl", *RUNS).assert_outcomes(
        passed=3
    )
    in_pytest = aggregate(project.path)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project.path)
        code = main(
            ["evaluate", "--scenarios", "evals/scenarios.jsonl", "--trajectories", "runs",
             "--reports-dir", "cli"]
        )  # fmt: skip
    assert code == 0
    assert "scenarios 3 | runs 3 | passed 3" in capsys.readouterr().out
    by_cli = aggregate(project.path, Path("cli/_aggregate.json"))
    for report in (in_pytest, by_cli):
        report.pop("generated_at")
        for result in report["results"]:
            result.pop("nodeid")
    assert by_cli == in_pytest

    def run_files(folder: Path) -> dict[str, Any]:  # paths in them relative, never absolute
        files = {p.name: json.loads(p.read_text()) for p in folder.glob("[!_]*.json")}
        for data in files.values():
            data.pop("nodeid", None)
        return files

    in_files = run_files(project.path / "reports" / "structeval")
    assert len(in_files) == 3
    assert run_files(project.path / "cli") == in_files
    assert {f["source"].split("/")[0] for f in in_files.values()} == {"runs"}


def test_yaml_scenario_files_are_collected_whatever_the_suffix_case(
    project: pytest.Pytester,
) -> None:
    evals = project.path / "evals"
    (evals / "scenarios.jsonl").unlink()
    (evals / "Extra.Scenarios.YML").write_text(
        "- id: 11\n  expected_answer: 34\n- id: 12\n  expected_answer: {repair: 13, replace: 0}\n",
        encoding="utf-8",
    )
    (evals / "notes.txt").write_text("not a scenario file", encoding="utf-8")
    result = project.runpytest("--structeval-scenarios", "evals", *RUNS, "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines_random(
        [
            "evals/Extra.Scenarios.YML::11[[]run-7[]] PASSED*",
            "evals/Extra.Scenarios.YML::12[[]run-8[]] PASSED*",
        ]
    )


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="examples/scenarios is not in this checkout")
def test_bundled_scenario_file_runs_with_the_folders(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    shutil.copytree(EXAMPLES, pytester.path / "examples" / "scenarios")
    result = pytester.runpytest("--structeval-scenarios", "examples/scenarios", "-v")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.stdout.fnmatch_lines_random(
        [
            "examples/scenarios/more_scenarios.jsonl::21[[]21-structured-output[]] PASSED*",
            "examples/scenarios/more_scenarios.jsonl::22[[]22-structured-output[]] PASSED*",
            "examples/scenarios/more_scenarios.jsonl::23[[]23-fenced[]] PASSED*",
            "examples/scenarios/more_scenarios.jsonl::23[[]23-final-answer[]] PASSED*",
        ]
    )
    report = aggregate(pytester.path)
    assert report["totals"]["scored"] == report["totals"]["passed"] == 23
    assert report["totals"]["scenarios"] == 19
    assert report["unmatched"] == {"trajectories": [], "scenarios": [], "not_selected": []}


def test_two_workers_produce_the_serial_aggregate(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    scenario_file(
        project.path / "evals" / "more_scenarios.jsonl",
        *[{"id": f"m{n}", "expected_answer": {"n": n}} for n in range(6)],
        "{broken",
    )
    write_trajectories(
        project.path / "runs",
        [trajectory(f"m-{n}", {"n": n % 4}, scenario_id=f"m{n}") for n in range(6)],
    )
    project.makeini("[pytest]\nstructeval_scenarios = evals\nstructeval_trajectories = runs\n")
    serial = project.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    serial.assert_outcomes(passed=8, failed=3)  # with the unit test
    expected = comparable(project.path)
    assert expected["aggregate"]["errors"]
    shutil.rmtree(project.path / "reports")
    parallel = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    parallel.assert_outcomes(passed=8, failed=3)
    assert comparable(project.path) == expected


def test_error_items_of_a_scenario_file_come_in_line_order(project: pytest.Pytester) -> None:
    """An unreadable line (2) and a duplicate id found at the join (3) are error items in
    the file's line order, not in the order the join listed them (duplicates first) (review
    mutants16-plugin c2)."""
    scenario_file(
        project.path / "evals" / "scenarios.jsonl",
        {"id": 11, "expected_answer": 34},
        '{"id": 12, "expected_answer": ',
        {"id": "011", "expected_answer": 35},  # a duplicate of 11
        {"id": "13", "expected_answer": '["a", "b"]', "options": {"align": "unordered"}},
    )
    result = project.runpytest("--structeval-scenarios", "evals", *RUNS, "-v", "--tb=no")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "evals/scenarios.jsonl::11[[]run-7[]] PASSED*",
            "evals/scenarios.jsonl::13[[]run-9[]] PASSED*",
            "evals/scenarios.jsonl::error[[]line-2[]] FAILED*",
            "evals/scenarios.jsonl::error[[]line-3[]] FAILED*",
        ]
    )


def test_a_messy_gold_warns_at_the_file_and_line_that_hold_it(pytester: pytest.Pytester) -> None:
    """A scenario's GoldWarning was located at pytest's runner (``_pytest/runner.py:184``):
    it names the gold file, the config file whose key holds it, or the scenario file and
    the entry's line (an entry of a YAML list at its gold key: it was named by its location,
    ``cases.yaml[1]:1``). A gold a custom scorer reads itself keeps its own line (diff31a
    #3)."""
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(
        """
        from pytest_structeval import score

        def own_gold(gold, model, **options):
            score("[9, 8", "[9, 8]")
            return score(gold, model, **options)

        def pytest_structeval_register(registry):
            registry.register_scorer("own_gold", own_gold)
        """
    )
    sc = pytester.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1', trajectory("r1", '{"a": 1}'))
    scenario(  # the gold's key, not the config's first line (diff31b #5)
        sc,
        "scenario_4",
        "",
        trajectory("r4", "[4, 5]"),
        config='mode: strict\nexpected_answer: "[4, 5"\n',
    )
    (sc / "scenario_4" / "groundtruth.txt").unlink()
    scenario(sc, "scenario_5", "[5]", trajectory("r5", "[5]"), config="scorer: own_gold\n")
    scenario(  # each line read as a gold: a messy one is the file's (diff31b #2)
        sc,
        "scenario_8",
        '{"c": 3}\n{"d": 4',
        trajectory("r8", '{"c": 3}\n{"d": 4}'),
        config="mode: similarity\noptions: {line_by_line: true}\n",
    )
    scenario(  # ... and the line it stands on, in a config's block too
        sc,
        "scenario_9",
        "",
        trajectory("r9", '{"e": 5}\n{"f": 9}'),
        config=(
            "mode: similarity\noptions: {line_by_line: true}\n"
            'expected_answer: |\n  {"e": 5}\n  {"f": 9\n'
        ),
    )
    (sc / "scenario_9" / "groundtruth.txt").unlink()
    scenario_file(
        pytester.path / "cases.jsonl",
        {"id": "2", "expected_answer": {"b": 2}},
        {"id": "3", "expected_answer": "[1, 2"},
    )
    (pytester.path / "cases.yaml").write_text(
        '- id: "6"\n  expected_answer: "[1]"\n- id: "7"\n  expected_answer: "[6, 7"\n',
        encoding="utf-8",
    )
    write_trajectories(
        pytester.path / "runs",
        [
            trajectory("r2", {"b": 2}, scenario_id="2"),
            trajectory("r3", "[1, 2]", "3"),
            trajectory("r6", "[1]", "6"),
            trajectory("r7", "[6, 7]", "7"),
        ],
    )
    result = pytester.runpytest(
        *("--structeval-scenarios", "sc", "--structeval-scenarios", "cases.jsonl"),
        *("--structeval-scenarios", "cases.yaml", *RUNS, "-p", "no:randomly"),
    )
    result.assert_outcomes(passed=9, warnings=7)
    result.stdout.fnmatch_lines(
        [
            "*sc/scenario_1/groundtruth.txt:1: GoldWarning: the gold answer needed a repair*",
            '*{"a": 1',
            "*sc/scenario_4/scenario.yaml:2: GoldWarning: *'[[]4, 5'",
            '    expected_answer: "[[]4, 5"',
            "*conftest.py:4: GoldWarning: *'[[]9, 8'",
            "*sc/scenario_8/groundtruth.txt:2: GoldWarning: *'{\"d\": 4'",
            '    {"d": 4',
            "*sc/scenario_9/scenario.yaml:5: GoldWarning: *'{\"f\": 9'",
            '    {"f": 9',
            "*cases.jsonl:2: GoldWarning: the gold answer needed a repair*",
            '    {"id": "3", "expected_answer": "[1, 2"}',
            "*cases.yaml:4: GoldWarning: *'[[]6, 7'",
            '    expected_answer: "[[]6, 7"',
        ]
    )
    result.stdout.no_fnmatch_line("*runner.py*")


def test_a_messy_gold_is_located_from_any_working_folder(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Paths are shown relative to the rootdir, and the config's key line was looked for
    from the working folder: run from a subfolder, the warning said ``scenario.yaml:1``."""
    pytester.makeini("[pytest]\n")
    sc = pytester.path / "sc"
    scenario(  # (two runs: the second one's schema is kept, its warning given again)
        sc, "scenario_4", "", trajectory("r4", "[4, 5]"), trajectory("r4b", "[4, 5]"),
        config='n: 1\nexpected_answer: "[4, 5"\n',
    )  # fmt: skip
    (sc / "scenario_4" / "groundtruth.txt").unlink()
    (pytester.path / "cases.yaml").write_text('- id: "7"\n  n: 1\n  expected_answer: "[6"\n')
    write_trajectories(pytester.path / "runs", [trajectory("r7", "[6]", "7")])
    (sc / "scenario_4" / "scenario.yaml").write_text(
        'n: 1\nexpected_answer: "[4, 5"\nmode: schema\nschema: s.yaml\n', encoding="utf-8"
    )
    (sc / "scenario_4" / "s.yaml").write_text(
        "type: array\nitems: {type: integer}\nx-eval-methd: exact\n", encoding="utf-8"
    )
    # files of the same names in the working folder: their lines are not the warnings' own
    write(pytester.path / "elsewhere" / "sc" / "scenario_4" / "scenario.yaml", "other\n" * 3)
    write(pytester.path / "elsewhere" / "sc" / "scenario_4" / "s.yaml", "other\n" * 3)
    write(pytester.path / "elsewhere" / "cases.yaml", "other\n" * 3)
    monkeypatch.chdir(pytester.path / "elsewhere")
    result = pytester.runpytest(
        *("--structeval-scenarios", "../sc", "--structeval-scenarios", "../cases.yaml"),
        *("--structeval-trajectories", "../runs", "-p", "no:randomly", "--rootdir", ".."),
    )
    result.assert_outcomes(passed=3, warnings=4)
    result.stdout.fnmatch_lines(  # (review fixpaths37 #2: each with its file's own line)
        [
            "*sc/scenario_4/scenario.yaml:2: GoldWarning: *",
            '    expected_answer: "[4, 5"',
            "*sc/scenario_4/s.yaml:3: SchemaWarning: x-eval-methd: unknown key ignored",
            "    x-eval-methd: exact",
            "*cases.yaml:3: GoldWarning: *",
            '    expected_answer: "[6"',
        ]
    )
    result.stdout.no_fnmatch_line("*other*")


def test_a_gold_or_schema_warning_made_an_error_is_no_scorer_failure(
    pytester: pytest.Pytester,
) -> None:
    """Review fixwarn37 #1: under ``filterwarnings = error`` a messy gold or schema failed
    its run as ``scorer 'static_json' failed: GoldWarning: ...`` with a traceback through the
    package, though the scorer never ran; the run's error is the warning, where it points
    and that the filter raised it. In a test, ``score`` raises it at the user's line."""
    pytester.makeini(
        "[pytest]\nfilterwarnings =\n    error::pytest_structeval.GoldWarning\n"
        "    error::pytest_structeval.schema.SchemaWarning\n"
    )
    sc = pytester.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1', trajectory("r1", '{"a": 1}'))
    unknown = '{"type": "object",\n "properties": {"w": {"type": "integer",\n "x-eval-methd": 1}}}'
    scenario(sc, "scenario_2", '{"w": 1}', trajectory("r2", '{"w": 1}'),
             config="mode: schema\nschema: s.json\n")  # fmt: skip
    (sc / "scenario_2" / "s.json").write_text(unknown, encoding="utf-8")
    scenario(sc, "scenario_3", '{"b": 1,\n "b": 2}', trajectory("r3", '{"b": 2}'),
             gold_file="groundtruth.json")  # fmt: skip
    pytester.makepyfile(
        test_own="""
        from pytest_structeval import score

        def test_messy_gold():
            score('{"c": 1', '{"c": 1}')
        """
    )
    result = pytester.runpytest("--structeval-scenarios", "sc", "test_own.py", "-p", "no:randomly")
    result.assert_outcomes(failed=4)
    filtered = "raised as an error by the warnings filter"
    result.stdout.fnmatch_lines(
        [
            ">       score('{\"c\": 1', '{\"c\": 1}')",
            "E       pytest_structeval.errors.GoldWarning: the gold answer needed a repair*",
            "test_own.py:4: GoldWarning",
            f"error: sc/scenario_1/groundtruth.txt:1: the gold's GoldWarning, {filtered}: the "
            "gold answer needed a repair to read (closed a '{' left open at the end): '{\"a\": 1'",
            f"error: sc/scenario_2/s.json:3: the schema's SchemaWarning, {filtered}: "
            "properties.w.x-eval-methd: unknown key ignored",  # (fixpaths37 #1: at its key)
            f"error: sc/scenario_3/groundtruth.json:1: the gold's GoldWarning, {filtered}: "
            "sc/scenario_3/groundtruth.json repeats the key answer.b (lines 1 and 2): only the "
            "last value is read",
        ]
    )
    for said in ("scorer 'static_json' failed", "scorer 'schema' failed", "Traceback"):
        result.stdout.no_fnmatch_line(f"*{said}*")
    result.stdout.no_fnmatch_line("*pytest_structeval/*")  # (no frame of the package)
