"""Command-line options and ini keys of the plugin, and how they pick what pytest collects."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.plugin_support import (
    PYTEST_RELEASE,
    aggregate,
    scenario,
    trajectory,
    write_trajectories,
)

UNIT = "def test_unit():\n    pass\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Two passing scenarios under ``sc/``, one failing under ``bad/``, unit tests under
    ``tests/`` (the ``testpaths``)."""
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(pytester.path / "sc", "scenario_2", '{"b": 2}', trajectory("r2", '{"b": 2}'))
    scenario(pytester.path / "bad", "scenario_3", '{"c": 3}', trajectory("r3", '{"c": 4}'))
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_unit.py").write_text(UNIT, encoding="utf-8")
    return pytester


def test_scenarios_option_replaces_testpaths(project: pytest.Pytester) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "-v")
    result.assert_outcomes(passed=2)
    assert "test_unit" not in result.stdout.str()


def test_scenarios_option_is_repeatable(project: pytest.Pytester) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-scenarios", "bad")
    result.assert_outcomes(passed=2, failed=1)


def test_scenarios_option_next_to_explicit_paths_adds_them(project: pytest.Pytester) -> None:
    result = project.runpytest("tests", "--structeval-scenarios", "sc")
    result.assert_outcomes(passed=3)


def test_explicit_path_inside_the_scenarios_narrows_the_run(project: pytest.Pytester) -> None:
    result = project.runpytest("sc/scenario_2", "--structeval-scenarios", "sc")
    result.assert_outcomes(passed=1)


def test_ini_scenarios_join_the_testpaths(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makeini("[pytest]\ntestpaths = tests\nstructeval_scenarios = sc\n")
    project.runpytest().assert_outcomes(passed=3)
    project.runpytest("tests").assert_outcomes(passed=1)
    # pytest reads testpaths only from rootdir: in a subfolder, `pytest` is `pytest .`, and
    # ran every scenario and gate there (config35 #5)
    monkeypatch.chdir(project.path / "tests")
    project.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize("workers", [[], ["-p", "xdist", "-n", "1"]])
def test_scenarios_that_cannot_be_read_are_named_as_such_when_nothing_runs(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    pytester.makeini("[pytest]\n")
    (pytester.path / "cases.json").write_text('[{"answer": 1}]', encoding="utf-8")  # no id
    result = pytester.runpytest("--structeval-scenarios", "cases.json", *workers)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL structeval: no scenario runs: 1 scenario folders or entries found under "
            "cases.json and none could be read (see the errors above)"
        ]
    )


def test_ini_scenarios_that_score_nothing_fail_the_run_never_exit_5(
    pytester: pytest.Pytester,
) -> None:
    """With the ini key and plain ``pytest``, a tree in which nothing joins ended "no tests
    ran", exit 5: the scenarios lay under the invocation folder, so the plugin added no
    argument and took them as not asked for (audit 10). Unit tests elsewhere stay alone."""
    pytester.makeini("[pytest]\nstructeval_scenarios = sc\n")
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}')
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAIL structeval: no scenario runs: 1 scenario found under sc*"])
    assert pytester.runpytest("sc/scenario_1").ret == pytest.ExitCode.TESTS_FAILED
    pytester.makepyfile(test_unit="def test_unit():\n    pass\n")
    pytester.runpytest("test_unit.py").assert_outcomes(passed=1)
    assert pytester.runpytest("test_unit.py").ret == pytest.ExitCode.OK


def test_ini_paths_are_relative_to_the_ini_file(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nstructeval_scenarios = sc\nstructeval_trajectories = runs\n")
    write_trajectories(project.path / "runs", [trajectory("ext", '{"a": 1}', scenario_id="1")])
    sub = project.mkdir("sub")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(sub)  # paths in the ini file do not depend on where pytest runs
        result = project.runpytest("-c", str(project.path / "tox.ini"), str(project.path / "sc"))
    result.assert_outcomes(passed=3)


def test_trajectories_option_is_repeatable(project: pytest.Pytester) -> None:
    write_trajectories(project.path / "runs_a", [trajectory("a", '{"a": 1}', scenario_id="1")])
    write_trajectories(project.path / "runs_b", [trajectory("b", '{"b": 2}', scenario_id="2")])
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-trajectories",
        "runs_a",
        "--structeval-trajectories",
        "runs_b/b.json",
    )
    result.assert_outcomes(passed=4)


def test_default_reports_dir_is_under_rootdir(project: pytest.Pytester) -> None:
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=2)
    assert aggregate(project.path)["totals"]["scored"] == 2
    assert {p.name for p in (project.path / "reports" / "structeval").iterdir()} == {
        "_aggregate.json",
        "r1.json",
        "r2.json",
    }


def test_without_a_config_file_reports_stay_out_of_the_data(pytester: pytest.Pytester) -> None:
    """pytest picks rootdir from the arguments when there is no config file, so a scenario
    path outside the current directory would become rootdir: reports go to the current dir."""
    data = pytester.path / "data"
    scenario(data / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    result = pytester.runpytest("--rootdir", str(data), "--structeval-scenarios", str(data / "sc"))
    assert result.ret == pytest.ExitCode.OK
    assert (data / "reports").exists() is False
    assert (pytester.path / "reports" / "structeval" / "_aggregate.json").is_file()


def test_reports_dir_option_and_ini(project: pytest.Pytester) -> None:
    project.runpytest("--structeval-scenarios", "sc", "--structeval-reports-dir", "out/cli")
    assert (project.path / "out" / "cli" / "_aggregate.json").is_file()
    project.makeini("[pytest]\nstructeval_reports_dir = out/ini\n")
    project.runpytest("--structeval-scenarios", "sc")
    assert (project.path / "out" / "ini" / "_aggregate.json").is_file()
    assert not (project.path / "reports").exists()
    project.makeini("[pytest]\nstructeval_reports_dir =\n")  # empty: the default, never rootdir
    project.runpytest("--structeval-scenarios", "sc")
    assert (project.path / "reports" / "structeval" / "_aggregate.json").is_file()
    assert not (project.path / "_aggregate.json").exists()


def test_scorer_option_and_ini(project: pytest.Pytester) -> None:
    close = ["--structeval-scenarios", "bad"]
    project.runpytest(*close).assert_outcomes(failed=1)
    project.runpytest(*close, "--structeval-scorer", "similarity").assert_outcomes(failed=1)
    assert aggregate(project.path)["results"][0]["score"] == pytest.approx(2 / 3)
    project.makeini("[pytest]\nstructeval_scorer = json_similarity\n")
    project.runpytest(*close).assert_outcomes(failed=1)
    records = (project.path / "reports" / "structeval" / "r3.json").read_text(encoding="utf-8")
    assert '"scorer": "json_similarity"' in records


def test_unknown_scorer_is_a_usage_error_listing_the_names(project: pytest.Pytester) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-scorer", "nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown scorer 'nope'; registered: *static_json*strict*"])
    # the one meant, as in the CLI, and the ini key that gave it (review messages29 #7)
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-scorer", "Strict")
    result.stderr.fnmatch_lines(
        ["ERROR: --structeval-scorer: unknown scorer 'Strict' (did you mean 'strict'?); *"]
    )
    project.makeini("[pytest]\nstructeval_scorer = similarty\n")
    result = project.runpytest("--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: structeval_scorer: unknown scorer 'similarty' (did you mean 'similarity'?); *"]
    )


def test_a_bad_registration_is_a_usage_error_not_an_internal_error(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(
        "def pytest_structeval_register(registry):\n"
        "    registry.register_scorer('strict', lambda gold, model, **options: None)\n"
    )
    result = project.runpytest("--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*pytest_structeval_register: scorer 'strict' is already registered (pass overwrite=*"]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--structeval-fail-under", "1.5"],
            "*--structeval-fail-under: expected a number in [[]0, 1], got '1.5'*",
        ),
        (["--structeval-min-score", "high"], "*--structeval-min-score: expected a number*'high'*"),
        (["--structeval-fail-under", "90%"], "*fail-under: *, got '90%' (for 90% write 0.9)"),
        (["--structeval-fail-under", "0.2_5"], "*--structeval-fail-under: expected a number*"),
        (["--structeval-min-score", "\uff10.5"], "*--structeval-min-score: expected a number*"),
        (["--structeval-regression-tolerance", "0.0_5"], "*expected a number in*"),
        (["--structeval-reports-dir="], "*--structeval-reports-dir is empty: name a folder*"),
        (["--structeval-regression-tolerance", "5%"], "*tolerance needs a baseline: *"),
        (["--structeval-markdown="], "*--structeval-markdown is empty: name a path*"),
        (["--structeval-csv", " "], "*--structeval-csv is empty: name a path*"),
        (["--structeval-save-baseline="], "*--structeval-save-baseline is empty*"),
        (["--structeval-baseline="], "*--structeval-baseline is empty: name a path*"),
        (["--structeval-scenarios="], "*--structeval-scenarios is empty: name a path*"),
        (["--structeval-trajectories", ""], "*--structeval-trajectories is empty: name a path*"),
        # an unset variable scored every scenario with static_json (config35 #6)
        (["--structeval-scorer="], "*--structeval-scorer is empty: name a scorer (the default*"),
        (  # pytest's own report would replace the summary (interplay24 #5: pytest-html's --html)
            ["--junitxml", "out.xml", "--structeval-html", "./out.xml"],
            "*the HTML report and the --junitxml report name one file, *out.xml: give each*",
        ),
        (["--structeval-scenarios", "missing"], "*structeval: path does not exist: *missing*"),
        (["--structeval-trajectories", "missing"], "*structeval: path does not exist: *missing*"),
        (["--structeval-scenarios", "evals\r"], "*structeval: path does not exist: *evals\\r"),
        (["--structeval-diff", "loud"], "*argument --structeval-diff: invalid choice: 'loud'*"),
    ],
)
def test_bad_option_values_are_usage_errors(
    project: pytest.Pytester, args: list[str], message: str
) -> None:
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
@pytest.mark.parametrize("option", ["--structeval-scenarios", "--structeval-trajectories"])
def test_a_given_path_that_is_the_reports_folder_is_one_usage_error(
    project: pytest.Pytester, option: str, workers: tuple[str, ...]
) -> None:
    """lifecycle32 #2: it was a collection error with a plugin traceback and a false "no
    scenario found" (exit 4 serially, the error twice and exit 1 under xdist)."""
    scenario(project.path / "evals", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    (project.path / "runs").mkdir()
    given = "evals" if option == "--structeval-scenarios" else "runs"
    others = () if given == "evals" else ("--structeval-scenarios", "evals")
    result = project.runpytest(option, given, *others, "--structeval-reports-dir", given, *workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    kind = "scenario" if given == "evals" else "trajectory"
    result.stderr.fnmatch_lines(
        [f"ERROR: structeval: {kind} path is the reports folder: *{given}; write reports elsewhere"]
    )
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert "no scenario found" not in output
    assert output.count("is the reports folder") == 1


def test_an_ini_scenario_path_pytest_does_not_collect_need_not_exist(
    project: pytest.Pytester,
) -> None:
    """`pytest tests/unit` with the ini naming scenarios not there yet (a CI shard or checkout
    without them) runs the tests: the path is never read (review newuser28 #2); a run that
    covers it still stops on it."""
    project.makeini("[pytest]\nstructeval_scenarios = evals\nstructeval_trajectories = runs\n")
    project.makepyfile(test_unit="def test_one():\n    assert True\n")
    result = project.runpytest("test_unit.py")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    typo = project.runpytest("test_unit.py", "--structeval-trajectories", "nothere")
    assert typo.ret == pytest.ExitCode.USAGE_ERROR  # a path given now is checked (diff28a #1)
    typo.stderr.fnmatch_lines(["ERROR: structeval: path does not exist: *nothere"])
    # A scenario folder given as a plain argument runs; the ini's missing paths are left out,
    # not read at collection (diff28b #1: a collection traceback)
    scenario(project.path / "other", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    inferred = project.runpytest("other/scenario_1")
    inferred.assert_outcomes(passed=1)
    assert "Traceback" not in inferred.stdout.str() + inferred.stderr.str()
    for args in ([], ["."]):
        covered = project.runpytest(*args)
        assert covered.ret == pytest.ExitCode.USAGE_ERROR
        covered.stderr.fnmatch_lines(["ERROR: structeval: path does not exist: *evals"])


@pytest.mark.parametrize("ini", [False, True])
def test_a_scenario_path_that_is_no_folder_or_scenario_file_is_one_usage_error(
    project: pytest.Pytester, ini: bool
) -> None:
    """It was found during collection: tracebacks of pytest's internals, and a summary
    claiming that the good paths held no scenario (review)."""
    (project.path / "notes.txt").write_text("hi", encoding="utf-8")
    if ini:
        project.makeini("[pytest]\nstructeval_scenarios = sc notes.txt\n")
        result = project.runpytest()
    else:
        result = project.runpytest(
            "--structeval-scenarios", "sc", "--structeval-scenarios", "notes.txt"
        )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: structeval: scenario path is neither a folder nor a scenario file (*): *notes.txt"]
    )
    output = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in output
    assert "no scenario found" not in output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_given_as_scenario_file_is_a_usage_error(project: pytest.Pytester) -> None:
    os.mkfifo(project.path / "cases.json")
    result = project.runpytest("--structeval-scenarios", "cases.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: structeval: scenario path is not a folder or a regular file (*): *cases.json"]
    )


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        ("structeval_fail_under = -1", "*structeval_fail_under: expected a number in [[]0, 1]*"),
        ("structeval_min_score = nan", "*structeval_min_score: expected a number in [[]0, 1]*"),
        ("structeval_diff = loud", "*structeval_diff: expected one of detailed, off*"),
        (
            "structeval_junit_properties = yes please",
            "*structeval_junit_properties: invalid truth value 'yes please'; use true or false*",
        ),
        ("structeval_github_summary = maybe", "*structeval_github_summary: invalid truth value*"),
        ("structeval_fail_on_regression = 2", "*structeval_fail_on_regression: invalid truth*"),
        (  # the option is --structeval-gate: pytest only warned, and no gate applied (config35 #1)
            "structeval_gate = f1>=0.99",
            "*structeval_gate (in tox.ini): unknown ini key (did you mean 'structeval_gates'?)",
        ),
        ("structeval_save_baseline = b.json", "*structeval_save_baseline (in *): no ini key: *"),
    ],
)
def test_bad_ini_values_are_usage_errors(project: pytest.Pytester, ini: str, message: str) -> None:
    project.makeini(f"[pytest]\n{ini}\n")
    result = project.runpytest("--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_an_empty_diff_ini_value_is_not_set(project: pytest.Pytester) -> None:
    """As for every other key (config35 #6): it was ``expected one of detailed, off, got ''``."""
    project.runpytest("tests", "-o", "structeval_diff=").assert_outcomes(passed=1)


def test_an_unknown_key_given_with_o_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("tests", "-o", "structeval_gate=f1>=0.99")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*structeval_gate (given with -o structeval_gate=f1>=0.99): unknown ini key (did you*"]
    )


def test_a_key_given_with_o_and_blanks_is_a_usage_error(project: pytest.Pytester) -> None:
    """pytest splits ``-o`` at its first ``=`` and strips nothing: ``structeval_gates `` is a
    key of its own, which pytest ignores, so the gate was never applied (silently under
    pytest 8, whose unknown-key warning never sees ``-o``); the error blamed the ini file."""
    result = project.runpytest(
        "--structeval-scenarios", "bad", "-o", "structeval_gates = pass_rate>=0.9"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*structeval: 'structeval_gates ' (given with -o structeval_gates = pass_rate>=0.9): "
            "pytest reads the key with the blanks around it, as a key of its own, and ignores "
            "it: write -o structeval_gates=pass_rate>=0.9"
        ]
    )


def test_gate_ini_keys(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nstructeval_fail_under = 0.9\nstructeval_scorer = similarity\n")
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-scenarios", "bad")
    result.stdout.fnmatch_lines(
        ["FAIL structeval: pass rate 0.6667 is under structeval_fail_under 0.9000"]
    )
    project.makeini("[pytest]\nstructeval_min_score = 0.95\nstructeval_scorer = similarity\n")
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-scenarios", "bad")
    result.stdout.fnmatch_lines(
        ["FAIL structeval: mean score 0.8889 is under structeval_min_score 0.9500"]
    )


def test_a_separate_path_that_drops_the_projects_ini_is_a_usage_error(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """pytest looks for its ini file before it knows the plugin's options, so the path after
    ``--structeval-scenarios`` counted as a test path: data outside the project made pytest
    read no ini file, and the project's gates were never applied (review xdist19)."""
    data = tmp_path_factory.mktemp("data")
    scenario(data / "evals", "scenario_1", '{"n": 1}', trajectory("r1", '{"n": 1}'))
    pytester.makeini("[pytest]\nstructeval_gates =\n    scenarios>=5\n")
    evals = str(data / "evals")
    gate_missed = "FAIL structeval: scenarios 1 misses structeval_gates scenarios>=5"
    result = pytester.runpytest("--structeval-scenarios", evals)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: structeval: pytest read no ini file instead of {pytester.path}/tox.ini: "
            f"the path after --structeval-scenarios, a separate argument, counted for pytest as "
            f"a test path when it looked for its ini file; write --structeval-scenarios={evals}"
        ]
    )
    result = pytester.runpytest(f"--structeval-scenarios={evals}")
    result.stdout.fnmatch_lines([gate_missed])
    scenario(pytester.path / "sc", "scenario_1", '{"n": 1}', trajectory("r1", '{"n": 1}'))
    result = pytester.runpytest("--structeval-scenarios", "sc")  # inside: the same ini
    result.stdout.fnmatch_lines([gate_missed])
    result = pytester.runpytest("-c", "tox.ini", "--structeval-scenarios", evals)
    result.stdout.fnmatch_lines([gate_missed])
    result = pytester.runpytest("--rootdir", ".", "--structeval-scenarios", evals)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    with pytest.MonkeyPatch.context() as env:  # options from the environment count alike
        env.setenv("PYTEST_ADDOPTS", f"--structeval-scenarios {evals}")
        assert pytester.runpytest().ret == pytest.ExitCode.USAGE_ERROR


def test_a_separate_output_path_that_will_drop_the_projects_ini_is_refused_at_once(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """config35 #8: the check above saw only paths that exist, so a CI command naming a new
    output outside the project worked once, then failed on every later run."""
    out = str(tmp_path_factory.mktemp("ci") / "new" / "out")
    option = "--structeval-save-baseline"  # (as each output option)
    pytester.makeini("[pytest]\n")
    pytester.makepyfile(test_unit=UNIT)
    result = pytester.runpytest(option, out)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: structeval: the path after {option}, a separate argument, will count for "
            "pytest as a test path when it looks for its ini file once the path exists (the "
            f"next run), and pytest would read no ini file instead of {pytester.path}/tox.ini; "
            f"write {option}={out}"
        ]
    )
    pytester.runpytest(f"{option}={out}").assert_outcomes(passed=1)
    pytester.runpytest(option, "new/out", "test_unit.py").assert_outcomes(passed=1)  # inside


def test_a_path_through_a_link_to_the_project_keeps_its_ini(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """pytest names the project's ini by the link's path then: one file, no usage error
    (review diff19a)."""
    link = tmp_path_factory.mktemp("links") / "project"
    link.symlink_to(pytester.path, target_is_directory=True)
    scenario(pytester.path / "sc", "scenario_1", '{"n": 1}', trajectory("r1", '{"n": 1}'))
    pytester.makeini("[pytest]\nstructeval_scenarios = sc\nstructeval_gates =\n    scenarios>=5\n")
    (pytester.path / "out").mkdir()
    result = pytester.runpytest("--structeval-reports-dir", str(link / "out"))
    result.stdout.fnmatch_lines(
        ["FAIL structeval: scenarios 1 misses structeval_gates scenarios>=5"]
    )


def test_diff_off_keeps_failures_to_one_line(project: pytest.Pytester) -> None:
    def failure(*args: str) -> str:
        text = project.runpytest("--structeval-scenarios", "bad", *args).stdout.str()
        return text[text.index("FAILURES") : text.index(" structeval results -")]

    assert "answer.c" in failure()
    brief = failure("--structeval-diff", "off")
    assert "answer.c" not in brief
    assert "scenario 3 run r3 (static_json): score 0.0000, not passed" in brief
    project.makeini("[pytest]\nstructeval_diff = off\n")
    assert "answer.c" not in failure()


def test_help_lists_every_option_with_its_ini_key(project: pytest.Pytester) -> None:
    text = project.runpytest("--help").stdout.str()
    for name in (
        "scenarios",
        "trajectories",
        "reports-dir",
        "scorer",
        "fail-under",
        "min-score",
        "diff",
    ):
        assert f"--structeval-{name}" in text
        assert f"structeval_{name.replace('-', '_')}" in text


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, pytest_structeval.plugin\n"
        "heavy = [m for m in ('pytest_structeval.scenarios', 'pytest_structeval.report',"
        " 'pytest_structeval.api', 'pytest_structeval.parse', 'orjson', 'rapidfuzz', 'yaml')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.skipif(
    PYTEST_RELEASE < (8, 3),
    reason="pytest 8.0-8.2 read every name of a plugin module, which loads the engine (README)",
)
def test_a_test_run_without_scenarios_never_loads_the_engine(pytester: pytest.Pytester) -> None:
    """Finding the scenario roots imported the engine (yaml, orjson, the parser) in every
    pytest run, about 0.2 s, although the README says the plugin costs nothing unused."""
    pytester.makepyfile(
        test_plain="""
        import sys

        def test_plain():
            heavy = ("pytest_structeval.scenarios", "pytest_structeval.parse", "orjson", "yaml")
            assert [m for m in heavy if m in sys.modules] == []
        """
    )
    pytester.mkdir("tests")
    overlapping = [[".", "tests"]] if PYTEST_RELEASE >= (9, 0) else []  # (see collects_as_pytest_9)
    for args in ([], ["test_plain.py"], *overlapping):
        pytester.runpytest_subprocess("-p", "no:cacheprovider", *args).assert_outcomes(passed=1)


@pytest.mark.skipif(
    PYTEST_RELEASE < (8, 3),
    reason="pytest 8.0-8.2 read every name of a plugin module, which loads the engine (README)",
)
def test_a_run_that_asks_nothing_of_the_plugin_imports_only_its_option_and_session_modules(
    pytester: pytest.Pytester,
) -> None:
    """Review maintainer29 #4: the gates, baseline, CSV, statistics, collectors and spool were
    imported in every run, a quarter of the plugin's cost to a project that does not use it;
    a run that asks for a gate or scores a scenario still loads them."""
    pytester.makeconftest(
        """
        import sys

        def pytest_unconfigure(config):
            loaded = sorted(m for m in sys.modules if m.startswith("pytest_structeval."))
            with open("loaded.txt", "w") as out:
                out.write(" ".join(loaded))
        """
    )
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    unused = ("baseline", "collect", "csvtables", "gates", "spool", "stats")
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    loaded = (pytester.path / "loaded.txt").read_text().split()
    assert [m for m in loaded if m.rpartition(".")[2] in unused] == []
    asked = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--structeval-fail-under=0")
    asked.assert_outcomes(passed=1)
    loaded = (pytester.path / "loaded.txt").read_text().split()
    assert {"pytest_structeval.gates", "pytest_structeval.baseline"} <= set(loaded)


@pytest.mark.parametrize("xdist", [[], ["-p", "xdist", "-n", "2"]], ids=["serial", "xdist"])
def test_a_run_that_deselects_every_scenario_leaves_the_reports_alone(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    """``structeval_scenarios`` in the ini adds the scenarios to every run; a unit-test run
    (``-m "not structeval"``) must not replace their reports or be judged by their gates."""
    project.makeini("[pytest]\ntestpaths = tests\nstructeval_scenarios = sc bad\n")
    first = project.runpytest()
    first.assert_outcomes(passed=3, failed=1)
    reports = project.path / "reports" / "structeval"
    before = {p.name: p.read_bytes() for p in reports.iterdir()}
    assert len(before) == 4  # three runs and the aggregate
    args = ("-m", "not structeval", "--structeval-fail-under", "1", *xdist)
    result = project.runpytest_subprocess(*args) if xdist else project.runpytest(*args)
    result.assert_outcomes(passed=1, deselected=0 if xdist else 3)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        ["structeval: 3 scenario runs, none selected: no gate applied, reports in * left as *"]
    )
    assert {p.name: p.read_bytes() for p in reports.iterdir()} == before


@pytest.mark.parametrize(
    "args", [["other"], ["other", "--structeval-fail-under", "0.99"], ["-k", "nomatch", "other"]]
)
def test_a_run_without_scenario_runs_says_its_gates_were_not_applied(
    pytester: pytest.Pytester, args: list[str]
) -> None:
    """A run whose paths hold no scenario (``pytest other`` with the gates in the ini) dropped
    them without a word, so a CI job gated on scenarios it never ran passed green (docs26 #1);
    it still exits as the tests do, and says so. Without a gate it prints nothing."""
    pytester.makeini("[pytest]\nstructeval_scenarios = evals\nstructeval_gates = pass_rate>=1\n")
    scenario(pytester.path / "evals", "scenario_1", '{"a": 1}', trajectory("r", '{"a": 2}'))
    (pytester.path / "other").mkdir()
    (pytester.path / "other" / "test_b.py").write_text("def test_b():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", *args)
    assert result.ret == (
        pytest.ExitCode.NO_TESTS_COLLECTED if "-k" in args else pytest.ExitCode.OK
    )
    result.stdout.fnmatch_lines(
        ["structeval: no scenario run and no structeval result in this run: no gate applied"]
    )
    pytester.makeini("[pytest]\nstructeval_scenarios = evals\n")
    quiet = pytester.runpytest("-p", "no:cacheprovider", "other")
    assert "no gate applied" not in quiet.stdout.str()
    assert "structeval summary" not in quiet.stdout.str()


def test_a_nul_in_an_ini_path_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """An ini key can hold a NUL, which ``stat`` refuses with ValueError: an INTERNALERROR
    (diff26h #2)."""
    pytester.makeini("[pytest]\nstructeval_trajectories = t\0r\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*structeval: path holds a NUL character: *t\\x00r"])


# -- review mutants19 ---------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--structeval-fail-under", "--structeval-min-score"])
def test_an_empty_rate_flag_is_a_usage_error(pytester: pytest.Pytester, flag: str) -> None:
    """A CI script with an unset ``$RATE`` must not drop its gate without a word."""
    pytester.makepyfile("def test_a(structeval):\n    structeval.score(1, 1)\n")
    result = pytester.runpytest(f"{flag}=")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{flag}: expected a number in [[]0, 1[]], got ''*"])


def test_ini_output_paths_are_relative_to_the_ini_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini(
        "[pytest]\nstructeval_markdown = out/summary.md\nstructeval_csv = out/csv\n"
        "structeval_html = out/page.html\nstructeval_reports_dir = rep\n"
    )
    sub = pytester.mkdir("sub")
    (sub / "test_a.py").write_text(
        "def test_a(structeval):\n    structeval.score(1, 1, 'strict')\n", encoding="utf-8"
    )
    monkeypatch.chdir(sub)
    pytester.runpytest("test_a.py").assert_outcomes(passed=1)
    out = pytester.path / "out"
    assert (out / "summary.md").is_file()
    assert (out / "page.html").is_file()
    assert any((out / "csv").iterdir())
    assert not (sub / "out").exists()


def test_junit_properties_keep_four_decimals(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        "def test_j(structeval):\n"
        '    structeval.score({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 4}, threshold=0.1)\n'
    )
    pytester.runpytest("--structeval-junit-properties", "--junitxml=j.xml")
    xml = (pytester.path / "j.xml").read_text(encoding="utf-8")
    assert '<property name="structeval_score" value="0.6667"' in xml


@pytest.mark.parametrize(
    "key",
    [
        "structeval_reports_dir",
        "structeval_markdown",
        "structeval_csv",
        "structeval_html",
        "structeval_baseline",
        "structeval_scorer",
        "structeval_fail_under",
        "structeval_regression_tolerance",
        "structeval_diff",
        "structeval_verdicts",
    ],
)
def test_a_toml_list_for_a_one_value_key_is_a_usage_error(
    pytester: pytest.Pytester, key: str
) -> None:
    """Written like ``structeval_scenarios = ["evals"]``, a path key crashed the plugin with
    an INTERNALERROR (newuser25 #2)."""
    pytester.makepyprojecttoml(f'[tool.pytest.ini_options]\n{key} = ["out"]\n')
    # (pytest 9 warns of TOML lists for ini keys; pytest 8.0 has no such warning class)
    quiet = "ignore::pytest.PytestRemovedIn10Warning"
    result = pytester.runpytest(
        *(("-W", quiet) if hasattr(pytest, "PytestRemovedIn10Warning") else ())
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    output = result.stdout.str() + result.stderr.str()
    assert f"ERROR: {key} takes one value, not a list: got ['out'] (" in output
    assert "INTERNALERROR" not in output


_NATIVE_TOML = pytest.version_tuple[:2] >= (9, 0)  # ([tool.pytest], pytest.toml)
_UNIONS = pytest.version_tuple[:2] >= (9, 2)  # (an ini key of a union type: text or a number)


def _native_toml_run(pytester: pytest.Pytester, lines: str) -> tuple[int, str]:
    pytester.makepyprojecttoml(f'[tool.pytest]\nstructeval_scenarios = ["sc"]\n{lines}\n')
    result = pytester.runpytest("-p", "no:cacheprovider")
    return int(result.ret), result.stdout.str() + result.stderr.str()


@pytest.mark.skipif(not _UNIONS, reason="a TOML number for these keys needs pytest 9.2")
@pytest.mark.parametrize(
    ("key", "number"),
    [
        ("structeval_fail_under", "1.5"),
        ("structeval_fail_under", "nan"),
        ("structeval_fail_under", "-inf"),
        ("structeval_min_score", "90"),
        ("structeval_regression_tolerance", "2"),
        ("structeval_regression_tolerance", "-0.5"),
    ],
)
def test_a_native_toml_number_is_checked_as_its_text_is(
    project: pytest.Pytester, key: str, number: str
) -> None:
    """runtimeflags34 #6: pytest 9's native TOML config (``[tool.pytest]``, ``pytest.toml``)
    refused ``structeval_fail_under = 0.5``: 'expects a string, got float'. A number is now
    read as its text, with the same checks and messages as ``"0.5"``."""
    native = _native_toml_run(project, f"{key} = {number}")
    quoted = _native_toml_run(project, f'{key} = "{number}"')
    assert native[0] == quoted[0] == pytest.ExitCode.USAGE_ERROR, native[1]
    errors = [[line for line in out.splitlines() if "ERROR" in line] for _, out in (native, quoted)]
    assert (
        errors[0] == errors[1] == [line for line in errors[1] if line.startswith(f"ERROR: {key}")]
    )
    assert errors[0], quoted[1]


@pytest.mark.skipif(not _UNIONS, reason="a TOML number for these keys needs pytest 9.2")
def test_native_toml_numbers_set_the_gates(project: pytest.Pytester) -> None:
    code, out = _native_toml_run(
        project,
        "structeval_fail_under = 0.5\nstructeval_min_score = 1\n"
        "structeval_regression_tolerance = 0.05\nstructeval_gates_decide = true",
    )
    assert code == pytest.ExitCode.OK, out
    assert "gates met: pass_rate>=0.5, score_avg>=1" in out
    code, out = _native_toml_run(project, "structeval_fail_under = 0")  # (0 is set: a gate)
    assert code == pytest.ExitCode.OK, out
    assert "gates met: pass_rate>=0" in out
    code, out = _native_toml_run(project, "structeval_fail_under = true")
    assert code == pytest.ExitCode.USAGE_ERROR, out  # (pytest's own: no bool is a number)
    assert "INTERNALERROR" not in out


@pytest.mark.skipif(
    not _NATIVE_TOML or _UNIONS, reason="pytest 9.0 and 9.1 read these keys as text only"
)
def test_a_native_toml_number_before_pytest_9_2_says_to_quote_it(
    project: pytest.Pytester,
) -> None:
    code, out = _native_toml_run(project, "structeval_fail_under = 0.5")
    assert code == pytest.ExitCode.USAGE_ERROR, out
    assert 'quote it (structeval_fail_under = "0.5"), or use pytest 9.2 or later' in out
    assert "INTERNALERROR" not in out


def test_every_option_the_checks_read_makes_a_run_resolve_them() -> None:
    """A run that sets none of ``_CHECK_KEYS`` never resolves the checks (the gates are not
    imported): an option or ini key ``checks_from_config`` reads must be among them, or
    resolving it is skipped and the option does nothing."""
    import inspect
    import re

    from pytest_structeval import options

    source = inspect.getsource(options.checks_from_config)
    read = set(re.findall(r'"(structeval_\w+)"', source))
    read |= {f"structeval_{name}" for name in re.findall(r'"(markdown|csv|html|baseline)"', source)}
    if 'f"structeval_fail_on_{change}"' in source:  # (for change in regression, improvement)
        read |= {"structeval_fail_on_regression", "structeval_fail_on_improvement"}
    handled_apart = {"structeval_gates_decide", "structeval_save_baseline"}  # (see _asks_checks)
    assert read - handled_apart <= set(options._CHECK_KEYS)
    assert read >= set(options._CHECK_KEYS)  # (and no key listed that nothing reads)


@pytest.mark.parametrize("key", ["structeval_fail_under = 90", "structeval_scorer = nope"])
def test_a_bad_ini_value_does_not_hide_the_help_for_it(pytester: pytest.Pytester, key: str) -> None:
    """``--help`` and ``--markers`` exited 4 with the error alone (interplay30 #4); a run
    still refuses the value."""
    pytester.makeini(f"[pytest]\n{key}\n")
    shown = pytester.runpytest("--help")
    assert shown.ret == pytest.ExitCode.OK
    shown.stdout.fnmatch_lines(["*--structeval-fail-under=RATE*"])
    markers = pytester.runpytest("--markers")
    assert markers.ret == pytest.ExitCode.OK
    markers.stdout.fnmatch_lines(["@pytest.mark.structeval*"])
    assert pytester.runpytest().ret == pytest.ExitCode.USAGE_ERROR


def test_quoted_ini_paths_lose_their_quotes_as_the_paths_keys_do(
    pytester: pytest.Pytester,
) -> None:
    """config35 #9: ``structeval_scenarios = "my evals"`` named ``my evals`` and
    ``structeval_reports_dir = "my reports"`` the folder ``"my reports"``, quotes and all."""
    pytester.makeini(
        '[pytest]\nstructeval_reports_dir = "my reports"\nstructeval_markdown = "my summary.md"\n'
        'structeval_csv = \'my csv\'\nstructeval_html = "a \\"b\\".html"\n'
    )
    pytester.makepyfile("def test_a(structeval):\n    structeval.score(1, 1, 'strict')\n")
    pytester.runpytest().assert_outcomes(passed=1)
    made = sorted(p.name for p in pytester.path.iterdir() if p.name.startswith(("my", "a ")))
    assert made == ['a "b".html', "my csv", "my reports", "my summary.md"]


@pytest.mark.parametrize(
    ("value", "mode", "path"),
    [
        ('"my base.json"', "ini", "my base.json"),
        ("'my base.json'", "ini", "my base.json"),
        ("my base.json", "ini", "my base.json"),  # (unquoted: as written, one path)
        ('"a" "b"', "ini", '"a" "b"'),  # (two words: as written)
        ("'it", "ini", "'it"),
        ('"x"', "toml", '"x"'),  # a native TOML string is unquoted already: its quotes stay
    ],
)
def test_ini_path_reads_quotes_as_shlex_does(value: str, mode: str, path: str) -> None:
    from types import SimpleNamespace

    from pytest_structeval.options import ini_path

    config = SimpleNamespace(
        getini=lambda name: value, _inicfg={"structeval_baseline": SimpleNamespace(mode=mode)}
    )
    assert ini_path(config, "structeval_baseline") == path  # type: ignore[arg-type]


def test_tilde_and_variables_in_path_options_and_ini_keys_are_expanded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config35 #4: as pytest's own ``--junitxml`` and ``cache_dir``; they made folders named
    ``~`` and ``$OUT`` under rootdir."""
    home = pytester.mkdir("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OUT", str(pytester.mkdir("out")))
    scenario(home / "evals", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    pytester.makeini("[pytest]\nstructeval_scenarios = ~/evals\nstructeval_markdown = $OUT/s.md\n")
    result = pytester.runpytest("--structeval-reports-dir=~/rep")
    result.assert_outcomes(passed=1)
    assert (home / "rep" / "_aggregate.json").is_file()
    assert (pytester.path / "out" / "s.md").is_file()
    assert not [p for p in pytester.path.iterdir() if p.name.startswith(("~", "$"))]
