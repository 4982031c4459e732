"""The collection layout: a directory of scenario folders yields their items itself.

pytest builds no node per scenario folder (see ``collect.ScenarioParent``), yet everything a
folder node gave users still works: node ids, ``-k`` on the folder name, ``--ignore`` and
``norecursedirs``, conftest hooks, arguments that point into a folder, other files next to
the scenario folders, and Python packages holding scenario folders.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.plugin_support import aggregate, collects_as_pytest_9, scenario, trajectory, write


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    sc = pytester.path / "sc"
    scenario(sc, "Scenario_Alpha", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(sc, "scenario_2", '{"a": 2}', trajectory("r2", '{"a": 2}'))
    scenario(sc, "scenario_3", '{"b": 0}', trajectory("t0", '{"b": 0}'))
    scenario(sc, "scenario_3/turns/01", '{"b": 1}', trajectory("t1", '{"b": 1}'))
    return pytester


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if "::" in line]


def test_no_collector_node_per_scenario_folder(project: pytest.Pytester) -> None:
    calls = project.inline_run("--structeval-scenarios", "sc")
    calls.assertoutcome(passed=4)
    collectors = [r.nodeid for r in calls.getreports("pytest_collectreport")]
    assert "sc" in collectors
    # Only the folder holding nested scenario folders is a node (see ScenarioParent).
    assert sorted(nodeid for nodeid in collectors if "cenario_" in nodeid) == [
        "sc/scenario_3",
        "sc/scenario_3/turns",
    ]
    items = [r.nodeid for r in calls.getreports("pytest_runtest_logreport") if r.when == "call"]
    assert items == [
        "sc/Scenario_Alpha::Alpha[r1]",
        "sc/scenario_2::2[r2]",
        "sc/scenario_3::3[t0]",
        "sc/scenario_3/turns/01::3/turns/01[t1]",
    ]


def test_items_report_their_folder_as_location(project: pytest.Pytester) -> None:
    calls = project.inline_run("--structeval-scenarios", "sc")
    locations = {r.nodeid: r.location[0] for r in calls.getreports("pytest_runtest_logreport")}
    assert locations["sc/scenario_2::2[r2]"] == "sc/scenario_2"
    assert locations["sc/scenario_3/turns/01::3/turns/01[t1]"] == "sc/scenario_3/turns/01"


def test_folder_names_are_keywords(project: pytest.Pytester) -> None:
    # "scenario_alpha" is only the folder's name (the scenario id is "Alpha").
    result = project.runpytest("--structeval-scenarios", "sc", "-k", "scenario_alpha")
    result.assert_outcomes(passed=1, deselected=3)
    nested = project.runpytest("--structeval-scenarios", "sc", "-k", "turns")
    nested.assert_outcomes(passed=1, deselected=3)


@pytest.mark.parametrize(
    ("args", "ini"),
    [
        (["--ignore", "sc/scenario_2"], ""),
        (["--ignore-glob", "*/scenario_2"], ""),
        ([], "norecursedirs = scenario_2\n"),
    ],
)
def test_ignore_options_drop_scenario_folders(
    project: pytest.Pytester, args: list[str], ini: str
) -> None:
    project.makeini("[pytest]\n" + ini)
    result = project.runpytest("--structeval-scenarios", "sc", "-v", *args)
    result.assert_outcomes(passed=3)
    assert "scenario_2" not in result.stdout.str().split("structeval summary")[0]


@pytest.fixture
def broken_corners(project: pytest.Pytester) -> pytest.Pytester:
    """Next to the good scenarios: ``wip`` holds a folder without gold, one without a run,
    a broken trajectory, a scenario file with a broken line and a duplicate of ``scenario_2``;
    ``old`` holds another folder without gold."""
    wip = project.path / "sc" / "wip"
    write(wip / "scenario_nogold" / "trajectory.json", json.dumps(trajectory("n1", "{}")))
    scenario(wip, "scenario_lonely", '{"a": 1}')
    write(scenario(wip, "scenario_bad", '{"a": 1}') / "trajectory.json", '{"run_id": ')
    write(wip / "more_scenarios.jsonl", '{"id": "f1", "expected_answer": "1"}\n{oops\n')
    scenario(wip, "scenario_02", '{"a": 2}')
    write(project.path / "sc" / "old" / "scenario_gone" / "trajectory_0.json", "{}")
    return project


def _noted(report: dict[str, Any]) -> list[str]:
    unmatched = report["unmatched"]
    return sorted(
        [str(e["source"]) for e in report["errors"]]
        + [str(s["path"]) for s in unmatched["scenarios"]]
        + [str(t["source"]) for t in unmatched["trajectories"]]
        + [str(source) for d in report["duplicates"] for source in d["sources"]]
    )


@pytest.mark.parametrize(
    ("args", "conftest"),
    [
        pytest.param(["--ignore", "sc/wip"], "", id="ignore"),
        pytest.param(["--ignore-glob", "*/w?p"], "", id="ignore-glob"),
        pytest.param([], "collect_ignore = ['wip']\n", id="collect_ignore"),
        pytest.param(["-n", "2"], "collect_ignore = ['wip']\n", id="collect_ignore-xdist"),
    ],
)
def test_what_pytest_passes_by_is_not_reported(
    broken_corners: pytest.Pytester, args: list[str], conftest: str
) -> None:
    """Errors, unmatched and duplicate entries inside an ignored folder were listed in the
    summary and the aggregate although pytest never collected that folder."""
    everything = broken_corners.runpytest("--structeval-scenarios", "sc")
    everything.assert_outcomes(passed=4, failed=6)
    # No gold, and a trajectory file that holds no record: two load errors, no run.
    gone = ["sc/old/scenario_gone", "sc/old/scenario_gone/trajectory_0.json"]
    assert _noted(aggregate(broken_corners.path)) == [
        *gone,
        *["sc/scenario_2", "sc/wip/more_scenarios.jsonl:1"],  # a duplicate; f1 has no run
        *["sc/wip/more_scenarios.jsonl:2"] * 2,
        *["sc/wip/scenario_02"] * 2,
        "sc/wip/scenario_bad/trajectory.json",  # its only run: a load error, not "no runs"
        "sc/wip/scenario_lonely",
        "sc/wip/scenario_nogold/trajectory.json",  # its run, an error record: no gold
    ]
    (broken_corners.path / "sc" / "conftest.py").write_text(conftest, "utf-8")
    result = broken_corners.runpytest("--structeval-scenarios", "sc", *args)
    result.assert_outcomes(passed=4, failed=2)  # sc/old/scenario_gone: gone's two errors
    summary = result.stdout.str().split("structeval summary")[1]
    assert "wip" not in summary
    assert "sc/old/scenario_gone: no groundtruth.* in folder" in summary
    assert _noted(aggregate(broken_corners.path)) == gone


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_an_ignored_scenarios_listed_trajectory_file_is_left_out_with_it(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """A broken file that an ``--ignore``d scenario lists under ``trajectories``, outside the
    tree, stayed a load error in the summary and the aggregate that failed nothing (review
    diff16b F5); not ignored, it is a failing item of that scenario."""
    folder = scenario(project.path / "sc", "scenario_9", '{"a": 9}')
    write(folder / "scenario.yaml", "trajectories: ../../ext/s9.json\n")
    write(project.path / "ext" / "s9.json", "{bad")
    ignored = project.runpytest("--structeval-scenarios", "sc", "--ignore", "sc/scenario_9", *xdist)
    ignored.assert_outcomes(passed=4)
    assert "s9.json" not in ignored.stdout.str()
    assert aggregate(project.path)["errors"] == []
    result = project.runpytest("--structeval-scenarios", "sc", *xdist)
    result.assert_outcomes(passed=4, failed=1)
    result.stdout.fnmatch_lines(["FAILED sc/scenario_9::9[[]error:s9.json[]]*"])


def test_a_folder_given_as_an_argument_is_reported_even_when_ignored(
    broken_corners: pytest.Pytester,
) -> None:
    # pytest never ignores its own arguments; neither do the notes.
    result = broken_corners.runpytest(
        "sc/wip/scenario_lonely", "sc/wip/scenario_nogold", "--ignore", "sc/wip"
    )
    result.assert_outcomes(failed=1)
    notes = _noted(aggregate(broken_corners.path))
    assert "sc/wip/scenario_lonely" in notes
    assert "sc/wip/scenario_nogold/trajectory.json" in notes  # its run's error record


def test_collect_ignore_of_conftests_drops_folders(project: pytest.Pytester) -> None:
    # A folder holding nested scenario folders is walked by pytest: its conftest counts.
    (project.path / "sc" / "scenario_3" / "conftest.py").write_text(
        "collect_ignore = ['turns']\n", encoding="utf-8"
    )
    project.makeconftest("collect_ignore = ['sc/scenario_2']\n")
    result = project.runpytest("--structeval-scenarios", "sc", "--co", "-q")
    assert collected(result) == ["sc/Scenario_Alpha::Alpha[r1]", "sc/scenario_3::3[t0]"]


def test_conftest_hooks_of_enclosing_directories_apply(project: pytest.Pytester) -> None:
    (project.path / "sc" / "conftest.py").write_text(
        "def pytest_runtest_setup(item):\n"
        "    if item.name == '2[r2]':\n"
        "        raise RuntimeError('setup hook ran')\n",
        encoding="utf-8",
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*RuntimeError: setup hook ran*"])


def test_a_conftest_inside_a_scenario_folder_applies_to_its_runs(
    project: pytest.Pytester,
) -> None:
    (project.path / "sc" / "scenario_2" / "conftest.py").write_text(
        "import pytest\n\n"
        "def pytest_runtest_setup(item):\n"
        "    pytest.skip(f'skipped by the folder conftest: {item.name}')\n",
        encoding="utf-8",
    )
    calls = project.inline_run("--structeval-scenarios", "sc")
    calls.assertoutcome(passed=3, skipped=1)
    reports = [r for r in calls.getreports("pytest_runtest_logreport") if r.skipped]
    assert [r.nodeid for r in reports] == ["sc/scenario_2::2[r2]"]
    assert "skipped by the folder conftest: 2[r2]" in str(reports[0].longrepr)
    # That folder is a node of its own, so pytest loads the conftest; the others are not.
    collectors = [r.nodeid for r in calls.getreports("pytest_collectreport")]
    assert "sc/scenario_2" in collectors
    assert "sc/Scenario_Alpha" not in collectors


def test_other_files_next_to_scenario_folders_are_collected(project: pytest.Pytester) -> None:
    (project.path / "sc" / "test_checks.py").write_text(
        "def test_check():\n    pass\n", encoding="utf-8"
    )
    result = project.runpytest("sc", "--co", "-q")
    assert "sc/test_checks.py::test_check" in collected(result)
    assert len(collected(result)) == 5


def test_arguments_into_scenario_folders_still_match(project: pytest.Pytester) -> None:
    result = project.runpytest("sc/scenario_3/turns/01", "sc/Scenario_Alpha", "--co", "-q")
    assert sorted(collected(result)) == [
        "sc/Scenario_Alpha::Alpha[r1]",
        "sc/scenario_3/turns/01::3/turns/01[t1]",
    ]


@collects_as_pytest_9
def test_a_folder_given_twice_runs_once(project: pytest.Pytester) -> None:
    result = project.runpytest("sc", "sc/scenario_2", "--co", "-q")
    assert sorted(collected(result)) == [
        "sc/Scenario_Alpha::Alpha[r1]",
        "sc/scenario_2::2[r2]",
        "sc/scenario_3/turns/01::3/turns/01[t1]",
        "sc/scenario_3::3[t0]",
    ]


def test_a_python_package_of_scenario_folders_keeps_its_package_node(
    project: pytest.Pytester,
) -> None:
    (project.path / "sc" / "__init__.py").write_text("", encoding="utf-8")
    (project.path / "sc" / "test_pkg.py").write_text(
        "from . import __name__ as package\n\ndef test_pkg():\n    assert package == 'sc'\n",
        encoding="utf-8",
    )
    calls = project.inline_run("sc")
    calls.assertoutcome(passed=5)
    starts = calls.getcalls("pytest_collectstart")
    collectors = {c.collector.nodeid: type(c.collector).__name__ for c in starts}
    assert collectors["sc"] == "Package"
    assert collectors["sc/scenario_2"] == "ScenarioDir"


def test_scenario_folders_in_the_rootdir_have_plain_ids(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    scenario(pytester.path, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(pytester.path, "scenario_2", '{"a": 2}', trajectory("r2", '{"a": 3}'))
    for args in (["--structeval-scenarios", "."], ["."], [str(pytester.path)]):
        result = pytester.runpytest(*args, "--co", "-q")
        assert collected(result) == ["scenario_1::1[r1]", "scenario_2::2[r2]"], args
    result = pytester.runpytest(".", "--deselect", "scenario_2::2[r2]")
    result.assert_outcomes(passed=1, deselected=1)


def test_symlink_loops_in_a_scenario_tree_are_walked_once(pytester: pytest.Pytester) -> None:
    """A link to the root and one to a scenario folder's parent: pytest's own walk would
    follow both at every level (exponentially); the collection must finish and run once."""
    pytester.makeini("[pytest]\n")
    tree = pytester.path / "T"
    folder = scenario(tree, "scenario_good", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    (tree / "loop").symlink_to(tree, target_is_directory=True)
    (folder / "up").symlink_to("..", target_is_directory=True)
    result = pytester.runpytest_subprocess("--structeval-scenarios", "T", "-v", timeout=120)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["T/scenario_good::good[[]r1[]] PASSED*"])


TEST_MODULE = "def test_checks_the_folder():\n    pass\n"


def test_a_test_module_inside_a_scenario_folder_is_collected(project: pytest.Pytester) -> None:
    (project.path / "sc" / "scenario_2" / "test_extra.py").write_text(TEST_MODULE, "utf-8")
    (project.path / "sc" / "scenario_2" / "helper.py").write_text("raise SystemExit\n", "utf-8")
    calls = project.inline_run("--structeval-scenarios", "sc")
    calls.assertoutcome(passed=5)
    items = [r.nodeid for r in calls.getreports("pytest_runtest_logreport") if r.when == "call"]
    assert "sc/scenario_2/test_extra.py::test_checks_the_folder" in items
    # The folder's runs stay its items; only that folder became a node.
    assert "sc/scenario_2::2[r2]" in items
    collectors = [r.nodeid for r in calls.getreports("pytest_collectreport")]
    assert "sc/scenario_2" in collectors
    assert "sc/Scenario_Alpha" not in collectors


def test_test_modules_of_scenario_folders_follow_pytest_rules(project: pytest.Pytester) -> None:
    folder = project.path / "sc" / "scenario_3"  # holds a nested scenario folder
    (folder / "test_outer.py").write_text(TEST_MODULE, "utf-8")
    (folder / "turns" / "01" / "test_inner.py").write_text(TEST_MODULE, "utf-8")
    (project.path / "sc" / "Scenario_Alpha" / "check_alpha.py").write_text(TEST_MODULE, "utf-8")
    result = project.runpytest("--structeval-scenarios", "sc", "--co", "-q")
    assert collected(result) == [
        "sc/Scenario_Alpha::Alpha[r1]",
        "sc/scenario_2::2[r2]",
        "sc/scenario_3::3[t0]",
        "sc/scenario_3/test_outer.py::test_checks_the_folder",
        "sc/scenario_3/turns/01::3/turns/01[t1]",
        "sc/scenario_3/turns/01/test_inner.py::test_checks_the_folder",
    ]
    # --ignore drops a module and keeps the folder's runs.
    ignore = "sc/scenario_3/test_outer.py"
    result = project.runpytest("--structeval-scenarios", "sc", "--co", "-q", "--ignore", ignore)
    assert "sc/scenario_3::3[t0]" in collected(result)
    assert not [line for line in collected(result) if "test_outer" in line]
    assert len(collected(result)) == 5
    # python_files decides which files are test modules, as anywhere else.
    project.makeini("[pytest]\npython_files = check_*.py\n")
    result = project.runpytest("--structeval-scenarios", "sc", "--co", "-q")
    assert "sc/Scenario_Alpha/check_alpha.py::test_checks_the_folder" in collected(result)
    assert not [line for line in collected(result) if "test_" in line.split("::")[0]]
    assert len(collected(result)) == 5


def test_a_scenario_folder_without_gold_still_collects_its_test_module(
    project: pytest.Pytester,
) -> None:
    folder = project.path / "sc" / "scenario_9"
    folder.mkdir()
    (folder / "test_extra.py").write_text(TEST_MODULE, "utf-8")
    result = project.runpytest("--structeval-scenarios", "sc", "-q", "--co")
    assert "sc/scenario_9/test_extra.py::test_checks_the_folder" in collected(result)


@collects_as_pytest_9
def test_a_node_id_selection_runs_only_what_it_names(project: pytest.Pytester) -> None:
    """``folder::name`` is collected as ``folder`` and narrowed afterwards: the folder's test
    modules and the scenario folders nested in it are not part of the selection."""
    (project.path / "sc" / "scenario_3" / "test_extra.py").write_text(TEST_MODULE, "utf-8")
    (project.path / "sc" / "scenario_3" / "test_more.py").write_text(TEST_MODULE, "utf-8")
    result = project.runpytest("sc/scenario_3::3[t0]", "--co", "-q")
    assert collected(result) == ["sc/scenario_3::3[t0]"]
    # Other arguments still add what they name, inside the selected folder too.
    result = project.runpytest(
        "sc/scenario_3::3[t0]",
        "sc/scenario_3/turns/01",
        "sc/scenario_3/test_extra.py::test_checks_the_folder",
        "--co",
        "-q",
    )
    assert collected(result) == [
        "sc/scenario_3::3[t0]",
        "sc/scenario_3/test_extra.py::test_checks_the_folder",
        "sc/scenario_3/turns/01::3/turns/01[t1]",
    ]
    result = project.runpytest("sc/scenario_3::3[t0]", "sc", "--co", "-q")
    assert len(collected(result)) == 6  # the whole of sc was asked for as well


@pytest.mark.parametrize("project_dir", ["scenario_planner", "scenario_work/proj"])
def test_a_project_named_like_a_scenario_folder_runs_its_tests_as_usual(
    pytester: pytest.Pytester, project_dir: str
) -> None:
    """Only a ``scenario_*`` folder inside the rootdir, or one holding scenario files, makes
    an argument a scenario argument: a project that is (or lies in) ``scenario_planner`` is
    not a scenario tree (its tests were "not found" and an empty report was written)."""
    project = pytester.path / project_dir
    (project / "tests" / "data").mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n", "utf-8")
    (project / "tests" / "test_a.py").write_text(TEST_MODULE, "utf-8")
    (project / "tests" / "data" / "x.json").write_text("{}", "utf-8")
    result = pytester.runpytest(f"{project_dir}/tests")
    result.assert_outcomes(passed=1)
    assert "structeval summary" not in result.stdout.str()
    assert not (pytester.path / "reports").exists()
    assert not (project / "reports").exists()


def test_inside_a_scenario_tree_without_a_config_file_pytest_dot_runs_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cd`` into a scenario folder, or a multi-turn one whose gold lies below, and run
    ``pytest .``: with no config file the folder is the rootdir, and still a scenario tree."""
    scenario(pytester.path, "scenario_5", '{"a": 1}', trajectory("r5", '{"a": 1}'))
    scenario(pytester.path, "scenario_6/turns/01", '{"b": 1}', trajectory("t1", '{"b": 1}'))
    cases = [("scenario_5", ".", "5[[]r5[]]"), ("scenario_6", ".", "6/turns/01[[]t1[]]")]
    cases.append(("scenario_6/turns", "01", "6/turns/01[[]t1[]]"))  # rootdir inside the tree
    for folder, argument, item in cases:
        monkeypatch.chdir(pytester.path / folder)
        result = pytester.runpytest_subprocess(argument, "-v")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines([f"*::{item} PASSED*"])


def test_a_project_folder_holding_scenario_like_config_is_no_scenario(
    pytester: pytest.Pytester,
) -> None:
    project = pytester.path / "scenario_planner"
    (project / "tests").mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n", "utf-8")
    (project / "scenario.yaml").write_text("planner: settings\n", "utf-8")
    (project / "groundtruth.txt").write_text("even this", "utf-8")
    (project / "tests" / "test_a.py").write_text(TEST_MODULE, "utf-8")
    result = pytester.runpytest("scenario_planner/tests")
    result.assert_outcomes(passed=1)
    assert "structeval summary" not in result.stdout.str()


@pytest.fixture
def login_tests(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project whose test folder is named like a scenario folder but holds no scenario."""
    pytester.makeini("[pytest]\n")
    folder = pytester.path / "tests" / "scenario_login"
    folder.mkdir(parents=True)
    (folder / "test_login.py").write_text(TEST_MODULE, "utf-8")
    (pytester.path / "tests" / "test_b.py").write_text(TEST_MODULE, "utf-8")
    return pytester


@pytest.mark.parametrize("args", [["tests"], ["tests/scenario_login"], ["tests", "-n", "2"]])
def test_a_test_folder_named_scenario_is_not_a_broken_scenario(
    login_tests: pytest.Pytester, args: list[str]
) -> None:
    # xdist runs in a subprocess, as in test_plugin_xdist.py
    run = login_tests.runpytest_subprocess if "-n" in args else login_tests.runpytest
    result = run(*args)
    result.assert_outcomes(passed=2 if args[0] == "tests" else 1)
    assert "structeval summary" not in result.stdout.str()
    assert not (login_tests.path / "reports").exists()


def test_next_to_real_scenarios_a_test_folder_named_scenario_stays_a_test_folder(
    login_tests: pytest.Pytester,
) -> None:
    scenario(login_tests.path / "tests", "scenario_7", '{"a": 1}', trajectory("r7", '{"a": 1}'))
    result = login_tests.runpytest("tests", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*scenario_7::7[[]r7[]] PASSED*"])
    assert "login" not in result.stdout.str().split("structeval summary")[1]


def test_given_outright_a_scenario_folder_without_gold_is_still_reported(
    login_tests: pytest.Pytester,
) -> None:
    result = login_tests.runpytest("--structeval-scenarios", "tests")
    result.assert_outcomes(failed=1, passed=2)  # the folder's test modules run all the same
    result.stdout.fnmatch_lines(["*scenario_login: no groundtruth.* in folder*"])


def test_a_given_path_inside_an_argument_does_not_make_test_folders_scenarios(
    login_tests: pytest.Pytester,
) -> None:
    scenario(login_tests.path / "tests" / "evals", "scenario_1", '{"a": 1}', trajectory("r1", "{}"))
    # A real scenario next to the folder of tests: "tests" is an inferred root that holds
    # the given tests/evals, and the leniency is decided folder by folder.
    scenario(login_tests.path / "tests", "scenario_7", '{"b": 1}', trajectory("r7", '{"b": 1}'))
    login_tests.makeini("[pytest]\nstructeval_scenarios = tests/evals\n")
    for args in (["tests"], ["tests", "--structeval-scenarios", "tests/evals"]):
        result = login_tests.runpytest(*args)
        result.assert_outcomes(passed=3, failed=1)  # the scenario's run fails: {} != {"a": 1}
        assert "login[" not in result.stdout.str(), args  # no "login[error:scenario]" item


def test_a_scenario_folder_with_runs_but_a_misnamed_gold_file_is_reported(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "evals", "scenario_7", '{"a": 1}', trajectory("r7", '{"a": 1}'))
    folder = pytester.path / "evals" / "scenario_8"
    folder.mkdir()
    (folder / "groundtruth.jsn").write_text('{"a": 1}', "utf-8")
    (folder / "trajectory.json").write_text('{"run_id": "r8", "answer": "{}"}', "utf-8")
    result = pytester.runpytest("evals")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*scenario_8: no groundtruth.* in folder*"])


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_nested_folder_that_lost_a_duplicate_id_contest_is_its_own_failing_item(
    pytester: pytest.Pytester, xdist: list[str]
) -> None:
    """``turns/2`` and ``turns/02`` are one id: the loser was no item but a run-level "could
    not be read" failure (review diff16b F4), unlike a top-level loser."""
    pytester.makeini("[pytest]\n")
    evals = pytester.path / "evals"
    scenario(evals, "scenario_4/turns/02", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(evals, "scenario_4/turns/2", '{"a": 2}')
    result = pytester.runpytest("--structeval-scenarios", "evals", "-v", *xdist)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["FAILED evals/scenario_4/turns/2::4/turns/2[[]error:scenario[]]*"])
    assert "could not be read and is no test item" not in result.stdout.str()
    assert aggregate(pytester.path)["errors"] == [
        {
            "source": "evals/scenario_4/turns/2",
            "error": "duplicate scenario id '4/turns/2': evals/scenario_4/turns/02 is used",
            "scenario_id": "4/turns/2",
        }
    ]


def test_a_tree_without_a_real_scenario_is_no_scenario_root(login_tests: pytest.Pytester) -> None:
    """Test data named like a scenario file and a fixture holding a ``question.txt`` do not
    make ``tests`` a scenario root: nothing in it looks like a scenario."""
    (login_tests.path / "tests" / "data").mkdir()
    (login_tests.path / "tests" / "data" / "login_scenarios.yaml").write_text(
        "- name: happy path\n", "utf-8"
    )
    (login_tests.path / "tests" / "scenario_login" / "fixtures").mkdir()
    (login_tests.path / "tests" / "scenario_login" / "fixtures" / "question.txt").write_text(
        "a fixture", "utf-8"
    )
    result = login_tests.runpytest("tests")
    result.assert_outcomes(passed=2)
    assert "structeval summary" not in result.stdout.str()
    assert not (login_tests.path / "reports").exists()


def test_test_data_named_like_a_scenario_file_is_left_alone_where_scenarios_are_inferred(
    login_tests: pytest.Pytester,
) -> None:
    """``tests`` holds a real scenario, so it is a scenario root; its test data named
    ``*scenarios.yaml`` gave a failing ``error[entry-0]`` item (no id, no gold)."""
    scenario(login_tests.path / "tests", "scenario_7", '{"b": 1}', trajectory("r7", '{"b": 1}'))
    data = login_tests.path / "tests" / "data"
    write(data / "login_scenarios.yaml", "- name: happy path\n  steps: [open, login]\n")
    write(data / "empty_scenarios.json", "[]")
    result = login_tests.runpytest("tests")
    result.assert_outcomes(passed=3)
    assert "login_scenarios" not in result.stdout.str()
    assert aggregate(login_tests.path)["errors"] == []
    asked = login_tests.runpytest("--structeval-scenarios", "tests")  # asked for: reported
    asked.assert_outcomes(passed=3, failed=3)  # with tests/scenario_login (no gold)
    asked.stdout.fnmatch_lines(["*login_scenarios.yaml[[]0[]]: *", "*empty_scenarios.json: *"])


def test_discovery_passes_by_norecursedirs(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    scenario(pytester.path, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(pytester.path / "venv" / "lib", "scenario_2", '{"a": 2}', trajectory("r2", "{}"))
    (pytester.path / "venv" / "lib" / "test_scenarios.json").write_text('[{"id": "x"}]', "utf-8")
    result = pytester.runpytest(".")
    result.assert_outcomes(passed=1)
    summary = result.stdout.str().split("structeval summary")[1]
    assert (
        "scenarios 1 | runs 1 | passed 1 | pass rate 1.0000 | mean score 1.0000 | errors 0"
        in summary
    )
    assert "venv" not in summary


def test_scenarios_whose_gold_is_in_their_config_run_as_plain_arguments(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\nfilterwarnings = error\n")
    folder = pytester.path / "evals" / "scenario_a"
    folder.mkdir(parents=True)
    (folder / "scenario.yaml").write_text("expected_answer: '{\"a\": 1}'\n", "utf-8")
    runs = pytester.path / "runs"
    runs.mkdir()
    (runs / "r1.json").write_text(
        '{"run_id": "r1", "scenario_id": "a", "answer": "{\\"a\\": 1}"}', "utf-8"
    )
    for args in (["evals"], ["evals/scenario_a"], ["evals/scenario_a::a"]):
        result = pytester.runpytest(*args, "--structeval-trajectories=runs", "-v")
        result.assert_outcomes(passed=1)  # and no ResourceWarning turned error
        result.stdout.fnmatch_lines(["*scenario_a::a[[]r1[]] PASSED*"])


def test_a_project_named_scenario_holding_scenario_folders_gives_their_own_ids(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = pytester.path / "scenario_planner"
    scenario(project, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    (project / "pytest.ini").write_text("[pytest]\n", "utf-8")
    monkeypatch.chdir(project)
    result = pytester.runpytest_subprocess(".", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["scenario_1::1[[]r1[]] PASSED*"])


@pytest.mark.parametrize(("root", "argument"), [("evals", "other"), (".", "other/test_x.py")])
def test_an_ini_scenario_root_is_read_only_for_arguments_that_may_hold_scenarios(
    pytester: pytest.Pytester, root: str, argument: str
) -> None:
    """``pytest other`` walks the rootdir's folders only to reach ``other``, and ``pytest
    other/test_x.py`` walks the project only to reach one test module: the scenarios are not
    read. ``pytest evals/scenario_1`` walks them to reach a folder, and they are."""
    from pytest_structeval.session import structeval_state

    pytester.makeini(f"[pytest]\nstructeval_scenarios = {root}\n")
    scenario(pytester.path / "evals", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    (pytester.path / "other").mkdir()
    (pytester.path / "other" / "test_x.py").write_text(TEST_MODULE, "utf-8")
    calls = pytester.inline_run(argument)
    calls.assertoutcome(passed=1)
    assert structeval_state(calls.getcall("pytest_unconfigure").config).index is None
    result = pytester.runpytest("evals/scenario_1", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*scenario_1::1[[]r1[]] PASSED*"])


def test_picking_scenario_folders_out_of_a_tree_reports_no_other_trajectory_as_unmatched(
    pytester: pytest.Pytester,
) -> None:
    """``pytest evals/scenario_1`` with the shared trajectories folder listed every other
    scenario's runs as unmatched (1,191 of them on the smart-grid data), where ``-k`` reported
    none (audit 9). Those of a scenario beside the picked one are noted as not selected; the
    truly unmatched one stays unmatched, as the whole tree reports it."""
    pytester.makeini("[pytest]\n")
    for sid in ("1", "2"):
        scenario(pytester.path / "evals", f"scenario_{sid}", '{"a": 1}')
    runs = pytester.path / "runs"
    for sid in ("1", "2", "9"):
        write(runs / f"r{sid}.json", json.dumps(trajectory(f"r{sid}", '{"a": 1}', sid)))
    picked = pytester.runpytest("evals/scenario_1", "--structeval-trajectories=runs")
    picked.assert_outcomes(passed=1)
    unmatched = aggregate(pytester.path)["unmatched"]
    assert [t["source"] for t in unmatched["trajectories"]] == ["runs/r9.json"]
    assert [t["source"] for t in unmatched["not_selected"]] == ["runs/r2.json"]
    picked.stdout.fnmatch_lines(
        [
            "unmatched trajectories: 1 (runs/r9.json -> '9', no such scenario); "
            "1 more of scenarios not selected"
        ]
    )
    whole = pytester.runpytest("evals", "--structeval-trajectories=runs")
    whole.assert_outcomes(passed=2)
    unmatched = aggregate(pytester.path)["unmatched"]
    assert [t["source"] for t in unmatched["trajectories"]] == ["runs/r9.json"]
    assert unmatched["not_selected"] == []


def test_picking_scenario_folders_with_the_filesystem_root_as_rootdir_ends(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    """With rootdir ``/`` (no ini file, a path argument elsewhere on the disk) the look
    around the picked folder climbed from ``/`` to ``/`` forever, growing a queue until the
    machine ran out of memory, and no report was written (review newuser16)."""
    for sid in ("1", "2"):
        scenario(pytester.path / "evals", f"scenario_{sid}", '{"a": 1}')
    runs = pytester.path / "runs"
    for sid in ("1", "2"):
        write(runs / f"r{sid}.json", json.dumps(trajectory(f"r{sid}", '{"a": 1}', sid)))
    reports = tmp_path / "reports"
    result = pytester.runpytest_subprocess(
        "--rootdir=/",
        "-p",
        "no:cacheprovider",
        "evals/scenario_1",
        "--structeval-trajectories=runs",
        f"--structeval-reports-dir={reports}",
        timeout=120,
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["rootdir: /", "*1 more of scenarios not selected*"])
    unmatched = json.loads((reports / "_aggregate.json").read_text())["unmatched"]
    assert [t["source"] for t in unmatched["not_selected"]] == [
        (runs / "r2.json").relative_to("/").as_posix()  # sources are relative to rootdir
    ]


def test_picking_a_group_of_a_tree_notes_the_other_groups_runs_as_not_selected(
    pytester: pytest.Pytester,
) -> None:
    """``pytest evals/group_a`` is a folder of scenario folders inside a bigger tree: the
    shared folder's runs of ``group_b`` (by ``scenario_id``, or by file stem without one) are
    of scenarios left out, not unmatched (review 9). A truly unmatched run, and a folder
    named like a scenario that holds nothing of one, change nothing."""
    pytester.makeini("[pytest]\n")
    for group, sid in (("a", "1"), ("a", "2"), ("b", "3"), ("b/deeper", "4")):
        scenario(pytester.path / "evals" / f"group_{group}", f"scenario_{sid}", '{"a": 1}')
    (pytester.path / "evals" / "group_b" / "scenario_9").mkdir()  # no gold: no scenario
    runs = pytester.path / "runs"
    for sid in ("1", "2", "3", "9"):
        write(runs / f"r{sid}.json", json.dumps(trajectory(f"r{sid}", '{"a": 1}', sid)))
    write(runs / "004.json", json.dumps({"run_id": "x", "answer": '{"a": 1}'}))
    result = pytester.runpytest("evals/group_a", "--structeval-trajectories=runs")
    result.assert_outcomes(passed=2)
    unmatched = aggregate(pytester.path)["unmatched"]
    assert [t["source"] for t in unmatched["trajectories"]] == ["runs/r9.json"]
    assert [t["source"] for t in unmatched["not_selected"]] == ["runs/004.json", "runs/r3.json"]
    result.stdout.fnmatch_lines(
        [
            "unmatched trajectories: 1 (runs/r9.json -> '9', no such scenario); "
            "2 more of scenarios not selected"
        ]
    )
    # Given as the scenario root, the group is the whole tree: every stray run is unmatched.
    given = pytester.runpytest(
        "--structeval-scenarios=evals/group_a", "--structeval-trajectories=runs"
    )
    given.assert_outcomes(passed=2)
    unmatched = aggregate(pytester.path)["unmatched"]
    assert len(unmatched["trajectories"]) == 3
    assert unmatched["not_selected"] == []


def test_a_whole_tree_given_as_an_argument_keeps_its_stray_runs_unmatched(
    pytester: pytest.Pytester,
) -> None:
    """``pytest evals`` is a whole tree: a run naming ``scenario_9`` is unmatched there even
    when another tree of the project (``examples/``) has one (review 14)."""
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "evals", "scenario_1", '{"a": 1}')
    scenario(pytester.path / "examples", "scenario_9", '{"a": 1}')
    runs = pytester.path / "runs"
    for sid in ("1", "9"):
        write(runs / f"r{sid}.json", json.dumps(trajectory(f"r{sid}", '{"a": 1}', sid)))
    result = pytester.runpytest("evals", "--structeval-trajectories=runs")
    result.assert_outcomes(passed=1)
    unmatched = aggregate(pytester.path)["unmatched"]
    assert [t["source"] for t in unmatched["trajectories"]] == ["runs/r9.json"]
    assert unmatched["not_selected"] == []


def test_a_group_picked_out_of_a_tree_with_runs_left_out_is_no_baseline(
    pytester: pytest.Pytester,
) -> None:
    """Its runs are a selection when the run notes runs of scenarios it left out: saved as
    the baseline, the other groups' scenarios would read as new next time (review 14). A
    whole tree with a sample tree beside it, and no run of it, is no selection (review 15)."""
    pytester.makeini("[pytest]\n")
    for group, sid in (("a", "1"), ("b", "2")):
        scenario(pytester.path / "tests" / "evals" / f"group_{group}", f"scenario_{sid}", "1")
    for sid in ("3", "4"):
        scenario(pytester.path / "tests" / "flat", f"scenario_{sid}", "1")
    scenario(pytester.path / "tests" / "fixtures", "scenario_9", "1")  # sample data
    for folder, sids in (("runs", "12"), ("flat_runs", "34")):
        for sid in sids:
            record = trajectory(f"r{sid}", "1", sid)
            write(pytester.path / folder / f"r{sid}.json", json.dumps(record))
    save = "--structeval-save-baseline=base.json"
    picked = pytester.runpytest("tests/evals/group_a", "--structeval-trajectories=runs", save)
    picked.assert_outcomes(passed=1)
    assert picked.ret == pytest.ExitCode.TESTS_FAILED
    picked.stdout.fnmatch_lines(
        ["FAIL structeval: baseline not saved to *: the run scored a selection (*a folder picked*"]
    )
    assert not (pytester.path / "base.json").exists()
    whole = pytester.runpytest("tests/flat", "--structeval-trajectories=flat_runs", save)
    whole.assert_outcomes(passed=2)
    assert whole.ret == pytest.ExitCode.OK
    assert (pytester.path / "base.json").exists()


def test_a_tree_of_groups_given_as_an_argument_says_how_to_run_it(
    pytester: pytest.Pytester,
) -> None:
    """Arguments infer scenario folders one level down only (a ``tests/`` folder holding
    sample scenarios as data stays a test folder), so ``pytest evals`` over groups of them
    collects nothing: the run says which groups it saw and how to run them all."""
    pytester.makeini("[pytest]\n")
    for group, sid in (("a", "1"), ("b", "2")):
        folder = pytester.path / "evals" / f"group_{group}"
        scenario(folder, f"scenario_{sid}", '{"a": 1}', trajectory(f"r{sid}", '{"a": 1}'))
    result = pytester.runpytest("evals")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    result.stdout.fnmatch_lines(
        [
            "structeval: evals holds no scenario folder, but its folders do "
            "(group_a/, group_b/); to run them all: pytest --structeval-scenarios evals"
        ]
    )
    given = pytester.runpytest("--structeval-scenarios=evals")
    given.assert_outcomes(passed=2)
    # A path with a space is quoted in the command.
    (pytester.path / "evals").rename(pytester.path / "my evals")
    result = pytester.runpytest("my evals")
    result.stdout.fnmatch_lines(["*to run them all: pytest --structeval-scenarios 'my evals'"])
    # A group the user left out is not suggested.
    for ignore in ("--ignore=my evals/group_b", "--ignore-glob=*/group_b"):
        result = pytester.runpytest("my evals", ignore)
        result.stdout.fnmatch_lines(["*but its folders do (group_a/); to run them all:*"])
    # No hint for a run that collected something, deselected everything (-k) or failed to
    # collect: a tests/ folder keeping scenarios as data is a test folder (review 14); nor
    # for the project folder itself.
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    (pytester.path / "broken").mkdir()
    (pytester.path / "broken" / "test_broken.py").write_text("import nonexistent_module\n")
    data = pytester.path / "broken" / "data"
    scenario(data, "scenario_3", '{"a": 1}', trajectory("r3", '{"a": 1}'))
    runs = (
        ("my evals", "test_one.py"),
        ("test_one.py", "my evals", "-k", "nomatch"),
        ("-n", "2", "test_one.py", "my evals", "-k", "nomatch"),  # deselected on the workers
    )
    for args in (*runs, ("broken",), (".",)):
        result = pytester.runpytest(*args)
        assert "holds no scenario folder" not in result.stdout.str(), args


def test_a_repeated_run_id_of_an_ignored_scenario_is_not_reported(
    pytester: pytest.Pytester,
) -> None:
    """Its runs lie in a shared folder, outside the ignored one: the duplicate was still
    listed (review 9)."""
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}')
    scenario(pytester.path / "sc" / "wip", "scenario_2", '{"a": 1}')
    runs = pytester.path / "runs"
    write(runs / "a.json", json.dumps(trajectory("r", '{"a": 1}', "1")))
    for name in ("b", "c"):
        write(runs / f"{name}.json", json.dumps(trajectory("w", '{"a": 1}', "2")))
    args = ["--structeval-scenarios", "sc", "--structeval-trajectories=runs"]
    pytester.runpytest(*args).assert_outcomes(passed=3)
    assert [d["scenario_id"] for d in aggregate(pytester.path)["duplicates"]] == ["2"]
    pytester.runpytest(*args, "--ignore", "sc/wip").assert_outcomes(passed=1)
    assert aggregate(pytester.path)["duplicates"] == []


@pytest.mark.parametrize(
    "mark", ["skip(reason='known broken')", "skipif(True, reason='known broken')"]
)
def test_a_skip_marker_on_a_scenario_item_skips_it(project: pytest.Pytester, mark: str) -> None:
    # pytest reports a skip marker at the item's location, which needs a line number.
    project.makeconftest(
        "import pytest\n\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if item.name == '2[r2]':\n"
        f"            item.add_marker(pytest.mark.{mark})\n"
    )
    result = project.runpytest("--structeval-scenarios", "sc", "-rs")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] sc/scenario_2*: known broken"])
    assert result.ret == 0


def test_skipped_scenario_items_are_listed_not_counted_as_errors(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(
        "import pytest\n\n"
        "def pytest_runtest_setup(item):\n"
        "    if item.name == '2[r2]':\n"
        "        pytest.skip('skipped in a setup hook')\n"
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=3, skipped=1)
    report = aggregate(project.path)
    assert report["complete"] is True
    assert report["totals"]["scored"] == 3
    assert report["totals"]["errors"] == 0
    assert report["totals"]["pass_rate"] == 1.0
    assert report["skipped"] == [
        {
            "scenario_id": "2",
            "run_id": "r2",
            "label": "r2",
            "nodeid": "sc/scenario_2::2[r2]",
            "reason": "skipped in a setup hook",
        }
    ]
    result.stdout.fnmatch_lines(["skipped runs: 1 (2 [[]r2[]])"])
    assert "INCOMPLETE" not in result.stdout.str()


@pytest.mark.parametrize("option", ["--setup-plan", "--setup-only"])
def test_setup_only_runs_leave_the_reports_alone(project: pytest.Pytester, option: str) -> None:
    assert project.runpytest("--structeval-scenarios", "sc").ret == 0
    before = (project.path / "reports/structeval/_aggregate.json").read_bytes()
    result = project.runpytest("--structeval-scenarios", "sc", option)
    assert result.ret == 0
    assert (project.path / "reports/structeval/_aggregate.json").read_bytes() == before
    result.stdout.fnmatch_lines(["*--setup-only/--setup-plan scores nothing: reports in*"])
    saving = project.runpytest(
        "--structeval-scenarios", "sc", option, "--structeval-save-baseline", "base.json"
    )
    assert saving.ret == 1
    assert not (project.path / "base.json").exists()


@pytest.mark.parametrize("option", ["--fixtures", "--fixtures-per-test", "--co"])
def test_listing_runs_leave_the_reports_alone(project: pytest.Pytester, option: str) -> None:
    """``pytest --fixtures`` (a newcomer looking the fixture up) replaced the last run's
    reports with an incomplete run of error records (newuser25 #1)."""
    assert project.runpytest("--structeval-scenarios", "sc").ret == 0
    before = (project.path / "reports/structeval/_aggregate.json").read_bytes()
    result = project.runpytest("--structeval-scenarios", "sc", option)
    assert result.ret == 0
    assert (project.path / "reports/structeval/_aggregate.json").read_bytes() == before
    assert "structeval summary" not in result.stdout.str()


def test_an_expected_failure_is_listed_with_its_xfail_reason(project: pytest.Pytester) -> None:
    project.makeconftest(
        "import pytest\n\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if item.name == '2[r2]':\n"
        "            item.add_marker(pytest.mark.xfail(reason='flaky setup'))\n\n"
        "def pytest_runtest_setup(item):\n"
        "    if item.name == '2[r2]':\n"
        "        raise RuntimeError('setup broke')\n"
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    result.assert_outcomes(passed=3, xfailed=1)
    (skipped,) = aggregate(project.path)["skipped"]
    assert skipped["reason"] == "xfail: flaky setup"
