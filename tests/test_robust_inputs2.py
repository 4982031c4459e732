"""Second robustness audit: unreadable paths, the reports folder inside the data, files that
are not ours in the reports folder, extension hooks that raise, a collection error."""

from __future__ import annotations

import json
import os
import pathlib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import default_registry, score
from pytest_structeval.api import render_failure
from pytest_structeval.cli import main
from pytest_structeval.report import AGGREGATE_NAME, Aggregate, RunRecord, write_reports
from pytest_structeval.scenarios import discover_scenarios, plan
from pytest_structeval.schema import ComparatorResult
from pytest_structeval.schema.comparators import read_verdict
from tests.plugin_support import (
    aggregate,
    scenario,
    trajectory,
    write_trajectories,
)

RAISING_HOOK = "def pytest_structeval_register(registry):\n    raise RuntimeError('plugin broke')\n"


def deny(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """``stat`` of anything at or below ``target`` fails with EACCES, as for a path in a
    folder without search permission (tests may run as root, whom ``chmod`` does not stop)."""
    real_stat = os.stat
    blocked = os.fspath(target)

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        text = os.fspath(path)  # type: ignore[call-overload]
        if isinstance(text, str) and (text == blocked or text.startswith(blocked + os.sep)):
            raise PermissionError(13, "Permission denied", text)
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)
    accessor = getattr(pathlib, "_NormalAccessor", None)  # Python 3.10's Path.stat kept its own
    if accessor is not None:
        monkeypatch.setattr(accessor, "stat", staticmethod(stat))


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def record(run_id: str, scenario_id: str = "1") -> RunRecord:
    return RunRecord.for_error(scenario_id=scenario_id, run_id=run_id, error="x")


# --------------------------------------------------------------------------- report files


def test_a_report_never_replaces_a_file_an_earlier_run_did_not_write(tmp_path: Path) -> None:
    gold = tmp_path / "groundtruth.json"
    gold.write_text('{"a": 1}')
    runs = Aggregate.empty()
    runs.add(record("groundtruth"))
    runs.add(record("GROUNDTRUTH", "2"))  # a case-insensitive file system merges these too
    first = write_reports(tmp_path, runs)
    assert gold.read_text() == '{"a": 1}'
    names = [path.name for path in first.run_files]
    assert names == ["groundtruth-1.json", "GROUNDTRUTH-2.json"]
    second = write_reports(tmp_path, runs)  # its own files are its own: same names again
    assert [path.name for path in second.run_files] == names
    files = sorted(path.name for path in tmp_path.iterdir())
    assert files == sorted([*names, "groundtruth.json", AGGREGATE_NAME])


# --------------------------------------------------------------------------- discovery


@pytest.mark.parametrize("inside", ["runs", "evals"])
def test_discovery_never_reads_the_reports_folder(tmp_path: Path, inside: str) -> None:
    scenario(tmp_path / "evals", "scenario_1", '{"a": 1}')
    runs = write_trajectories(tmp_path / "runs", [trajectory("r1", '{"a": 1}', "1")])
    reports = tmp_path / inside / "reports"
    earlier = Aggregate.empty()
    earlier.add(record("r1"))  # reads as a trajectory record
    earlier.add(record("more_scenarios"))  # a name scenario discovery reads as a file
    write_reports(reports, earlier)
    joined = plan([tmp_path / "evals"], [runs], reports_dir=reports)
    assert [run.run_id for run in joined.runs] == ["r1"]
    assert joined.errors == ()
    assert plan([tmp_path / "evals"], [runs]).errors != ()  # what the reports would give


def test_a_scenario_folder_that_is_the_reports_folder_is_broken(tmp_path: Path) -> None:
    folder = scenario(tmp_path, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(tmp_path, "scenario_2", '{"a": 1}', trajectory("r2", '{"a": 1}'))
    found = {s.id: s for s in discover_scenarios([tmp_path], reports_dir=folder)}
    assert "is the reports folder" in str(found["1"].error)
    assert found["2"].error is None


def test_listed_trajectories_that_cannot_be_reached_name_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "locked").mkdir()
    (tmp_path / "s.jsonl").write_text(
        json.dumps({"id": 1, "expected_answer": 1, "trajectories": "locked/r.json"})
    )
    deny(monkeypatch, tmp_path / "locked")
    (found,) = discover_scenarios([tmp_path / "s.jsonl"])
    assert found.error == "trajectories locked/r.json: Permission denied"


def test_an_unreachable_path_is_a_usage_error_in_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario(tmp_path / "evals", "scenario_1", "1", trajectory("r1", "1"))
    deny(monkeypatch, tmp_path / "locked")
    code, _, err = run_cli(
        ["evaluate", "--scenarios", str(tmp_path / "evals"), "--trajectories",
         str(tmp_path / "locked" / "r.json"), "--reports-dir", str(tmp_path / "out")],
        capsys,
    )  # fmt: skip
    assert code == 2
    assert "Permission denied" in err


def test_an_unreachable_path_is_a_usage_error_in_pytest(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario(pytester.path / "evals", "scenario_1", "1", trajectory("r1", "1"))
    deny(monkeypatch, pytester.path / "locked")
    result = pytester.runpytest(
        "--structeval-scenarios", "evals", "--structeval-trajectories=locked/r.json"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: structeval: cannot read */locked/r.json: *denied*"])


# --------------------------------------------------------------------------- runs


def test_a_reports_folder_among_the_trajectories_is_not_read_back(
    pytester: pytest.Pytester,
) -> None:
    scenario(pytester.path / "evals", "scenario_1", '{"a": 1}')
    write_trajectories(pytester.path / "runs", [trajectory("r1", '{"a": 1}', "1")])
    args = ["--structeval-scenarios", "evals", "--structeval-trajectories", "runs"]
    for _ in range(2):
        result = pytester.runpytest(*args, "--structeval-reports-dir", "runs/reports")
        result.assert_outcomes(passed=1)
    report = aggregate(pytester.path, Path("runs/reports") / AGGREGATE_NAME)
    assert [r["report"] for r in report["results"]] == ["r1.json"]
    assert report["errors"] == []


def test_the_cli_skips_its_reports_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario(tmp_path / "evals", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    reports = tmp_path / "evals" / "scenario_1" / "trajectories"  # the folder it reads runs from
    args = ["evaluate", "--scenarios", str(tmp_path / "evals"), "--reports-dir", str(reports)]
    for _ in range(2):
        code, out, _ = run_cli(args, capsys)
        assert code == 0
        assert "scenarios 1 | runs 1 | passed 1 " in out


def test_the_cli_prints_the_summary_when_it_cannot_write_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario(tmp_path / "evals", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    (tmp_path / "file").write_text("")  # (the file itself as the folder: a usage error first)
    code, out, err = run_cli(
        ["evaluate", "--scenarios", str(tmp_path / "evals"), "--reports-dir",
         str(tmp_path / "file" / "sub")],
        capsys,
    )  # fmt: skip
    assert code == 2
    assert "scenarios 1 | runs 1 | passed 1 " in out
    assert "cannot write reports" in err


def test_a_raising_register_hook_is_a_usage_error(
    pytester: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario(pytester.path / "evals", "scenario_1", "1", trajectory("r1", "1"))
    pytester.makeconftest(RAISING_HOOK)
    result = pytester.runpytest("--structeval-scenarios", "evals")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    told = "pytest_structeval_register: RuntimeError: plugin broke (conftest.py:2)"
    result.stderr.fnmatch_lines([f"ERROR: {told}"])  # (where: review messages29 #6)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    code, _, err = run_cli(
        ["evaluate", "--scenarios", str(pytester.path / "evals"), "--reports-dir",
         str(tmp_path / "out"), "--plugin", str(pytester.path / "conftest.py")],
        capsys,
    )  # fmt: skip
    assert code == 2
    assert err.rstrip().endswith(f"--plugin {pytester.path / 'conftest.py'}: {told}")


def test_a_register_hook_below_rootdir_that_raises_fails_each_item_in_one_line(
    pytester: pytest.Pytester,
) -> None:
    """Review messages29 #6: each scenario item that needed the registry failed with 290 lines
    of pytest's, pluggy's and this plugin's frames."""
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "sub", "scenario_1", "1", trajectory("r1", "1"))
    (pytester.path / "sub" / "conftest.py").write_text(RAISING_HOOK, encoding="utf-8")
    result = pytester.runpytest("sub")
    result.assert_outcomes(failed=1)
    told = "pytest_structeval_register: RuntimeError: plugin broke (sub/conftest.py:2)"
    result.stdout.fnmatch_lines(["*_ 1[[]r1[]] _*", told, "*structeval summary*"])
    assert "_callers.py" not in result.stdout.str()  # (pluggy's frames)


def test_a_collection_error_is_not_called_a_deselection(pytester: pytest.Pytester) -> None:
    scenario(pytester.path / "evals", "scenario_1", "1", trajectory("r1", "1"))
    (pytester.path / "evals" / "conftest.py").write_text("raise ImportError('no module x')\n")
    result = pytester.runpytest("--structeval-scenarios", "evals")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["structeval: 1 scenario run, stopped before any ran: *"])


def lenient_conftest(tolerance: int) -> str:
    return (
        "from pytest_structeval import score\n\n"
        "def lenient(gold, model, **options):\n"
        f"    return score(gold, model, numeric_tolerance={{'abs': {tolerance}}}, **options)\n\n"
        "def pytest_structeval_register(registry):\n"
        "    registry.register_scorer('lenient', lenient, overwrite=True)\n"
    )


def test_a_conftests_registrations_apply_under_its_folder(pytester: pytest.Pytester) -> None:
    """config35 #2: the registry was the session's, so team_b's conftest, loaded last,
    scored team_a's scenario with its own ``lenient``; without ``overwrite=True`` its
    registration, replayed by pluggy inside the conftest's import, was a collection error
    with pluggy's frames that interrupted the session (exit 2; under -n 2, exit 1). A
    conftest's scorers are its folder's, as its fixtures are; one whose hook fails fails the
    items under its folder, each in one line, serially and under xdist alike."""
    pytester.makeini("[pytest]\nstructeval_scenarios = evals\n")
    for n, team in enumerate(("team_a", "team_b", "team_c"), start=1):
        folder = pytester.path / "evals" / team
        config = "scorer: lenient\n"
        scenario(folder, f"scenario_{n}", '{"v": 10}', trajectory("r", '{"v": 11}'), config=config)
        hook = RAISING_HOOK if team == "team_c" else lenient_conftest(1 if n == 1 else 0)
        (folder / "conftest.py").write_text(hook, encoding="utf-8")
    scenario(pytester.path / "evals", "scenario_4", "1", trajectory("r", "1"))
    told = "pytest_structeval_register: RuntimeError: plugin broke (evals/team_c/conftest.py:2)"
    for workers in ((), ("-n", "1")):
        result = pytester.runpytest("-p", "no:cacheprovider", *workers)
        outcomes = {r["scenario_id"]: r["passed"] for r in aggregate(pytester.path)["results"]}
        assert outcomes == {"1": True, "2": False, "3": False, "4": True}, workers
        errors = [e["error"] for e in aggregate(pytester.path)["errors"]]
        assert errors == [told], workers
        result.stdout.fnmatch_lines(["*_ 3[[]r[]] _*", told])
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert "_callers.py" not in result.stdout.str()  # (pluggy's frames)


def test_a_scorer_another_folders_conftest_registers_says_where(pytester: pytest.Pytester) -> None:
    """Since a conftest below rootdir registers for its own folder (config35 #2), a
    ``--structeval-scorer`` that ``tests/conftest.py`` registers is taken at startup and then
    fails every scenario under ``evals/``: the error said only ``unknown scorer 'lenient';
    registered: ...``, for a name the run had just accepted."""
    pytester.makeini("[pytest]\ntestpaths = tests evals\nstructeval_scenarios = evals\n")
    scenario(pytester.path / "evals", "scenario_1", '{"v": 10}', trajectory("r", '{"v": 11}'))
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "conftest.py").write_text(lenient_conftest(1), encoding="utf-8")
    (pytester.path / "tests" / "test_x.py").write_text("def test_x():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--structeval-scorer", "lenient")
    result.assert_outcomes(passed=1, failed=1)
    (error,) = [e["error"] for e in aggregate(pytester.path)["errors"]]
    assert error.endswith(
        "registered: json_similarity, schema, similarity, static_json, strict ('lenient' is "
        "registered by tests/conftest.py for its own folder only; a plugin or the rootdir "
        "conftest.py registers for every scenario)"
    )


# --------------------------------------------------------------------------- extension points


def test_a_batch_comparator_reason_that_is_not_text_still_renders() -> None:
    def judge(items: list[Any]) -> list[ComparatorResult]:
        return [ComparatorResult(0.5, "judge", reason={"why": [1, 2]}) for _ in items]  # type: ignore[arg-type]

    judge.is_batch = True  # type: ignore[attr-defined]
    registry = default_registry().copy()
    registry.register_comparator("judge", judge)
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "judge"}}}
    result = score({"a": "x"}, '{"a": "y"}', mode="schema", schema=schema, registry=registry)
    assert result.fields[0].reason == "{'why': [1, 2]}"
    assert "{'why': [1, 2]}" in render_failure(result)


def test_a_comparator_reason_that_is_not_text_still_renders() -> None:
    registry = default_registry().copy()
    registry.register_comparator(
        "judge",
        lambda g, m, p: ComparatorResult(0.5, "judge", reason={"why": [1, 2]}),  # type: ignore[arg-type]
    )
    schema = {"type": "object", "properties": {"a": {"type": "string", "x-eval-compare": "judge"}}}
    result = score({"a": "x"}, '{"a": "y"}', mode="schema", schema=schema, registry=registry)
    assert result.fields[0].reason == "{'why': [1, 2]}"
    assert "{'why': [1, 2]}" in render_failure(result)


def test_reports_a_killed_run_left_unlisted_are_replaced_not_avoided(tmp_path: Path) -> None:
    runs = Aggregate.empty()
    runs.add(record("r1"))
    runs.add(record("r2"))
    names = [path.name for path in write_reports(tmp_path, runs).run_files]
    assert names == ["r1.json", "r2.json"]
    (tmp_path / AGGREGATE_NAME).unlink()  # killed after the run files, before the aggregate
    (tmp_path / "r3.json").write_text('{"run_id": "r3", "scenario_id": "1"}')  # not a report
    runs.add(record("r3"))
    again = [path.name for path in write_reports(tmp_path, runs).run_files]
    assert again == ["r1.json", "r2.json", "r3-1.json"]
    assert json.loads((tmp_path / "r3.json").read_text()) == {"run_id": "r3", "scenario_id": "1"}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Fraction(1, 2), (0.5, None, False)),  # any real number, numpy's too
        (True, (1.0, None, False)),
        (ComparatorResult(0.25, "c", reason=3), (0.25, "3", False)),
        (ComparatorResult(1.0, "c", skip=True), (1.0, None, True)),
    ],
)
def test_comparator_replies_that_are_read(reply: Any, expected: Any) -> None:
    assert read_verdict(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [float("nan"), 2, -0.1, 10**400, "1", None, ComparatorResult(1.0, "c", skip="no")],  # type: ignore[arg-type]
)
def test_comparator_replies_that_are_refused(reply: Any) -> None:
    with pytest.raises(ValueError, match=r"^invalid (score|skip) "):
        read_verdict(reply)


@pytest.mark.parametrize("given", ["--scenarios", "--trajectories"])
def test_a_given_path_that_is_the_reports_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    scenario(tmp_path / "evals", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    runs = write_trajectories(tmp_path / "runs", [trajectory("r2", '{"a": 1}', "1")])
    reports = tmp_path / "evals" if given == "--scenarios" else runs
    args = ["evaluate", "--scenarios", str(tmp_path / "evals"), "--trajectories", str(runs)]
    code, _, err = run_cli([*args, "--reports-dir", str(reports)], capsys)
    assert code == 2
    assert f"path is the reports folder: {reports}; write reports elsewhere" in err
    assert not (reports / AGGREGATE_NAME).exists()


def test_read_errors_name_the_file_as_shown_not_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs from different checkouts (``--tx popen//chdir=...``) must report alike."""
    scenario(tmp_path / "evals", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    real_open = os.open

    def locked(path: Any, *args: Any, **kwargs: Any) -> int:
        if os.fspath(path).endswith(("groundtruth.txt", "trajectory.json")):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", locked)
    joined = plan(["evals"], root=tmp_path)
    problems = [s.error for s in joined.unmatched_scenarios] + list(joined.errors)
    problems += [run.scenario.error for run in joined.runs]
    text = " | ".join(str(p) for p in problems if p)
    assert "Permission denied" in text
    assert str(tmp_path) not in text


def test_a_conftest_given_to_the_cli_registers_for_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """config35 #2, in ``structeval evaluate`` as in pytest: the conftest named last scored
    both folders' scenarios with its ``lenient``."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for n, team in ((1, "team_a"), (2, "team_b")):
        folder = tmp_path / "evals" / team
        config = "scorer: lenient\n"
        scenario(folder, f"scenario_{n}", '{"v": 10}', trajectory("r", '{"v": 11}'), config=config)
        (folder / "conftest.py").write_text(lenient_conftest(2 - n), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    plugins = ["--plugin", "evals/team_a/conftest.py", "--plugin", "evals/team_b/conftest.py"]
    code, out, _ = run_cli(["evaluate", "--scenarios", "evals", *plugins], capsys)
    assert code == 1
    assert "FAILED 2[r]: " in out
    assert "FAILED 1[r]" not in out


def test_a_default_scorer_a_folders_conftest_registers_says_where_in_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--scorer-default lenient`` is taken when a ``--plugin`` conftest below the root
    registers it for its folder; a scenario elsewhere said only ``unknown scorer 'lenient';
    registered: ...``, and no hint followed (the flag for one is set for a scenario's own
    scorer only)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for n, team in ((1, "team_a"), (2, "team_b")):
        scenario(tmp_path / "evals" / team, f"scenario_{n}", "10", trajectory("r", "11"))
    conftest = tmp_path / "evals" / "team_a" / "conftest.py"
    conftest.write_text(lenient_conftest(1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    plugin = ["--plugin", "evals/team_a/conftest.py", "--scorer-default", "lenient"]
    code, out, _ = run_cli(["evaluate", "--scenarios", "evals", *plugin], capsys)
    assert code == 1
    assert "FAILED 1[r]" not in out
    assert (
        "('lenient' is registered by evals/team_a/conftest.py for its own folder only; a "
        "plugin or the rootdir conftest.py registers for every scenario)"
    ) in out
