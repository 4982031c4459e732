"""``structeval evaluate`` with gates, a baseline and a Markdown summary."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_structeval.cli import main
from pytest_structeval.report import AGGREGATE_NAME


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Two scenarios with one run each; both pass."""
    for sid, gold in (("1", '{"a": 1}'), ("2", '{"b": 2, "c": 3}')):
        folder = tmp_path / "sc" / f"scenario_{sid}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(gold)
        record = {"run_id": f"r{sid}", "answer": gold}
        (folder / "trajectory.json").write_text(json.dumps(record))
    return tmp_path


def answer(tree: Path, sid: str, text: str) -> None:
    path = tree / "sc" / f"scenario_{sid}" / "trajectory.json"
    path.write_text(json.dumps({"run_id": f"r{sid}", "answer": text}))


def run_cli(
    tree: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, list[str], str]:
    args = ["evaluate", "--scenarios", str(tree / "sc"), "--reports-dir", str(tree / "out")]
    try:
        code = main([*args, *extra])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_gate_option(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run_cli(tree, capsys, "--gate", "f1>=1", "--gate", "parse_rate>=1")
    assert code == 0
    assert "parse rate 1.0000: 2 structured, 0 text fallback, 0 empty, 0 unparsed (json 2)" in lines
    answer(tree, "2", "I could not find it.")
    code, lines, _ = run_cli(tree, capsys, "--gate", "parse_rate>=1", "--fail-under", "0.4")
    assert code == 1
    assert lines[-1] == "structeval: parse_rate 0.5000 misses --gate parse_rate>=1"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gate", "f1>>1"], "--gate 'f1>>1': expected <metric><op><number>"),
        (["--gate", "f9>=1"], "unknown metric 'f9'"),
        (["--baseline", "missing.json"], "baseline 'missing.json': no such file"),
        (["--fail-on-regression"], "--fail-on-regression needs --baseline PATH"),
        (["--regression-tolerance", "-1"], "expected a number in [0, 1] or a percentage"),
        (["--regression-tolerance", "120%"], "expected a number in [0, 1] or a percentage"),
        (["--regression-tolerance", "5%"], "--regression-tolerance needs --baseline PATH"),
    ],
)
def test_usage_errors(
    tree: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run_cli(tree, capsys, *args)
    assert code == 2
    assert message in err
    assert not (tree / "out").exists()  # nothing was scored or written


def test_baseline_and_fail_on_regression(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(tree, capsys)[0] == 0
    shutil.copy(tree / "out" / AGGREGATE_NAME, tree / "baseline.json")
    answer(tree, "2", '{"b": 2, "c": 4}')
    base = str(tree / "baseline.json")
    code, lines, _ = run_cli(tree, capsys, "--baseline", base, "--fail-under", "0.5")
    assert code == 0  # information only
    assert any(
        line.startswith(f"baseline {base}: mean score 1.0000 -> 0.7500 (-0.2500) | improved 0")
        for line in lines
    )
    code, lines, _ = run_cli(tree, capsys, "--baseline", base, "--fail-on-regression")
    assert code == 1
    assert lines[-1] == (
        f"structeval: 1 of 2 compared items regressed against baseline {base} "
        "(tolerance 0.0000, --fail-on-regression): 2[r2] 1.0000 -> 0.5000"
    )
    aggregate = json.loads((tree / "out" / AGGREGATE_NAME).read_text())
    assert aggregate["baseline"]["counts"]["regressed"] == 1
    # the reports folder works as the baseline too: read before this run overwrites it
    code, lines, _ = run_cli(tree, capsys, "--baseline", str(tree / "out"), "--fail-on-regression")
    assert code == 0
    tolerated = run_cli(
        tree, capsys, "--baseline", base, "--fail-on-regression", "--regression-tolerance", "1"
    )
    assert tolerated[0] == 0
    # 2[r2] dropped from 1.0 to 0.5 (and its pass rate from 1 to 0): half of it is 50 %
    relative_run = run_cli(tree, capsys, "--baseline", base, "--regression-tolerance", "50%")
    assert relative_run[0] == 1  # run r2 fails and no gate decides
    relative = json.loads((tree / "out" / AGGREGATE_NAME).read_text())["baseline"]
    assert (relative["tolerance"], relative["tolerance_relative"]) == (0.5, True)
    assert relative["counts"]["regressed"] == 1  # the pass rate fell by all of its 1.0


def test_a_baseline_check_does_not_excuse_an_unreadable_file(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its runs would only be ``missing`` from the baseline, never a regression: the file
    still fails the run unless a gate decides (review stats22 #1)."""
    assert run_cli(tree, capsys, "--save-baseline", str(tree / "base.json"))[0] == 0
    (tree / "sc" / "scenario_2" / "trajectory.json").write_text('{"run_id": "r2", "answer": "{')
    checked = ["--baseline", str(tree / "base.json"), "--fail-on-regression"]
    code, lines, _ = run_cli(tree, capsys, *checked)
    assert code == 1
    assert lines[-1].startswith("structeval: 1 file or entry could not be read (see errors)")
    assert run_cli(tree, capsys, *checked, "--gate", "load_errors<=1")[0] == 0


def test_save_baseline_and_compare_two_aggregates(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--save-baseline`` writes the aggregate; ``structeval compare`` reads two of them
    without scoring again (pytest-benchmark#273) and fails only on the changes asked for."""
    base = tree / "saved" / "base.json"
    code, lines, _ = run_cli(tree, capsys, "--save-baseline", str(base))
    assert (code, lines[-1]) == (0, f"Baseline saved: {base}")
    assert json.loads(base.read_text()) == json.loads((tree / "out" / AGGREGATE_NAME).read_text())
    answer(tree, "2", '{"b": 2, "c": 4}')  # 2[r2]: 1.0 -> 0.5
    assert run_cli(tree, capsys, "--fail-under", "0.5")[0] == 0
    current = str(tree / "out")

    def compare(*extra: str) -> tuple[int, list[str], str]:
        try:
            code = main(["compare", str(base), current, *extra])  # CURRENT: the reports folder
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out.splitlines(), err

    code, lines, _ = compare()
    assert code == 0
    assert lines == [
        f"baseline {base}: mean score 1.0000 -> 0.7500 (-0.2500) | improved 0, regressed 1, "
        "unchanged 1, new 0, missing 0",
        "regressed: 2[r2] 1.0000 -> 0.5000",
        "fields regressed: 1 (answer.c 1.0000 -> 0.6667)",
        "score change 95% CI [-1.0000, +1.0000] (t-interval over the 2 compared items)",
    ]
    code, lines, _ = compare("--fail-on-regression")
    assert code == 1
    assert lines[-1].startswith(
        f"structeval: 1 of 2 compared items regressed against baseline {base}"
    )
    assert compare("--fail-on-improvement")[0] == 0
    assert compare("--fail-on-regression", "--regression-tolerance", "0.5")[0] == 1  # pass rate
    assert main(["compare", current, str(base), "--fail-on-improvement"]) == 1  # the other way
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].endswith(f"; accept them with a copy of {base} as {current}/{AGGREGATE_NAME}")
    code, _, err = compare("--fail-on-regression", "--regression-tolerance", "2")
    assert code == 2
    assert "expected a number in [0, 1]" in err
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(tree / "nope.json"), current])
    assert exc.value.code == 2
    assert f"baseline '{tree / 'nope.json'}': no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(base), str(tree / "nope.json")])
    assert f"current '{tree / 'nope.json'}': no such file" in capsys.readouterr().err


def test_saving_the_baseline_accepts_its_improvements(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer(tree, "2", '{"b": 2, "c": 4}')
    base = str(tree / "b.json")
    assert run_cli(tree, capsys, "--fail-under", "0.5", "--save-baseline", base)[0] == 0
    answer(tree, "2", '{"b": 2, "c": 3}')  # 2[r2]: 0.5 -> 1.0
    args = ["--baseline", base, "--fail-on-improvement"]
    code, lines, _ = run_cli(tree, capsys, *args)
    assert code == 1
    assert lines[-1].endswith("; accept them with --save-baseline PATH")
    code, lines, _ = run_cli(tree, capsys, *args, "--save-baseline", base)
    assert code == 0
    assert lines[-1] == f"Baseline saved: {base}"
    assert run_cli(tree, capsys, *args)[0] == 0


def test_fail_on_improvement_alone_excuses_no_failing_run(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run that went from passing to failing exited 0 under ``--fail-on-improvement``, which
    judges improvements only: weaker than no check (review diff22a #3). ``--fail-on-regression``
    fails it as a regression; one that failed in the baseline too it lets pass, as a gate."""
    base = str(tree / "b.json")
    assert run_cli(tree, capsys, "--save-baseline", base)[0] == 0
    answer(tree, "2", '{"b": 2, "c": 4}')  # 2[r2]: passes -> fails
    code, lines, _ = run_cli(tree, capsys, "--baseline", base, "--fail-on-improvement")
    assert code == 1
    assert lines[-1].startswith("structeval: 1 of 2 runs failed; with no gate every run must")
    assert run_cli(tree, capsys, "--baseline", base, "--fail-on-regression")[0] == 1
    assert run_cli(tree, capsys, "--fail-under", "0.4", "--save-baseline", base)[0] == 0
    assert run_cli(tree, capsys, "--baseline", base, "--fail-on-regression")[0] == 0


def test_fail_on_regression_excuses_no_failing_run_the_baseline_lacks(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A new run or scenario that fails is no regression, nor a run that failed before: the
    flag let it pass, weaker than no check (review diff22b #2)."""
    base = str(tree / "b.json")
    assert run_cli(tree, capsys, "--save-baseline", base)[0] == 0
    folder = tree / "sc" / "scenario_1"
    (folder / "trajectory-2.json").write_text(json.dumps({"run_id": "r1b", "answer": '{"a": 2}'}))
    checked = ["--baseline", base, "--fail-on-regression"]
    code, lines, _ = run_cli(tree, capsys, *checked)
    assert code == 1
    assert lines[-1] == (
        f"structeval: 1 failing run is not in baseline {base}, so --fail-on-regression cannot "
        "excuse it: 1[r1b]"
    )
    # Nor does such a run become the baseline, nor pass a comparison of the two aggregates
    # (review diff22c #1, #3).
    code, lines, _ = run_cli(tree, capsys, *checked, "--save-baseline", str(tree / "c.json"))
    assert code == 1
    assert any(line.startswith("structeval: baseline not saved to") for line in lines)
    assert not (tree / "c.json").exists()
    compared = main(["compare", base, str(tree / "out"), "--fail-on-regression"])
    capsys.readouterr()
    assert compared == 1
    (folder / "trajectory-2.json").unlink()
    new = tree / "sc" / "scenario_3"
    new.mkdir()
    (new / "groundtruth.txt").write_text('{"z": 1}')
    (new / "trajectory.json").write_text(json.dumps({"run_id": "r3", "answer": '{"z": 0}'}))
    code, lines, _ = run_cli(tree, capsys, *checked)
    assert code == 1
    assert "cannot excuse it: 3[r3]" in lines[-1]
    assert run_cli(tree, capsys, *checked, "--fail-under", "0.5")[0] == 0  # a gate decides


def test_a_run_missing_its_gate_is_not_saved_as_a_baseline(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer(tree, "2", '{"b": 2, "c": 4}')
    code, lines, _ = run_cli(
        tree, capsys, "--fail-under", "1", "--save-baseline", str(tree / "b.json")
    )
    assert code == 1
    # (a problem of the run, shown with the gate it misses: on stdout, not stderr)
    assert lines[-2:] == [
        f"structeval: baseline not saved to {tree / 'b.json'}: the run fails its gates or its "
        "baseline check",
        "structeval: pass rate 0.5000 is under --fail-under 1.0000",
    ]
    assert not (tree / "b.json").exists()


def test_a_passing_run_whose_baseline_cannot_be_written_exits_1(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "blocker").write_text("a file where the folder would be", encoding="utf-8")
    code, lines, _ = run_cli(tree, capsys, "--save-baseline", str(tree / "blocker" / "b.json"))
    assert code == 1  # a CI job refreshing its baseline must not go green having written nothing
    assert lines[-1].startswith(f"structeval: baseline not saved to {tree / 'blocker' / 'b.json'}")


def test_fail_on_improvement_needs_a_baseline_and_an_incomplete_run_is_not_saved(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = run_cli(tree, capsys, "--fail-on-improvement")
    assert (code, "--fail-on-improvement needs --baseline PATH" in err) == (2, True)
    import pytest_structeval.cli as cli

    real = cli.score_run
    calls: list[int] = []

    def interrupted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cli, "score_run", interrupted)
    code, lines, _ = run_cli(tree, capsys, "--save-baseline", str(tree / "b.json"))
    assert code == 130
    assert (
        lines[-1] == f"structeval: baseline not saved to {tree / 'b.json'}: the run is incomplete"
    )
    assert not (tree / "b.json").exists()


def test_markdown_summary(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    step = tree / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    target = tree / "md" / "summary.md"
    code, lines, _ = run_cli(tree, capsys, "--markdown", str(target), "--gate", "errors==0")
    assert code == 0
    assert f"Markdown summary: {target}" in lines
    assert lines[-2:] == [f"Aggregate: {tree / 'out' / AGGREGATE_NAME}", "gates met: errors==0"]
    assert "| errors==0 | 0 | ✅ met |" in target.read_text()
    assert not step.exists()
    run_cli(tree, capsys, "--github-summary")
    assert step.read_text().startswith("## structeval results")
    (tree / "blocked").write_text("a file")
    code, _, err = run_cli(tree, capsys, "--markdown", str(tree / "blocked" / "s.md"))
    assert code == 2
    assert "cannot write the Markdown summary" in err


def test_missed_gates_are_github_annotations_inside_actions(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answer(tree, "2", "I could not find it.")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, lines, _ = run_cli(tree, capsys, "--gate", "parse_rate>=1")
    assert code == 1
    assert lines[-2:] == [
        "structeval: parse_rate 0.5000 misses --gate parse_rate>=1",
        "::error title=structeval::structeval: parse_rate 0.5000 misses --gate parse_rate>=1",
    ]


def test_a_first_run_saves_the_baseline_it_compares_with(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """config35 #3: ``--baseline b.json --save-baseline b.json`` was a usage error on a first
    run, whose advice was the --save-baseline it had."""
    base = str(tree / "b.json")
    code, lines, _ = run_cli(tree, capsys, "--baseline", base, "--save-baseline", base)
    assert code == 0
    assert f"baseline {base}: none there yet, nothing compared" in lines
    assert Path(base).is_file()
    other = str(tree / "other.json")
    code, _, err = run_cli(tree, capsys, "--baseline", other)
    assert code == 2
    assert f"(a first run has none: add --save-baseline {other}, which compares" in err
