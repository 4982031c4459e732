"""Gates on one runner and model's figures (``pass_rate{react / gpt-4o}>=0.9``) or on each's
(``{*}``): a run that tries several agents or models holds each to its own bar. Parsing and
quoting, the ``by_runner_model`` figures they read, their one-line reasons, the plugin (serial,
ini, ``-n 2``) and the CLI."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval.cli import main
from pytest_structeval.errors import OptionsError
from pytest_structeval.gates import (
    SYSTEM_METRICS,
    evaluate_gates,
    parse_gate,
)
from pytest_structeval.report import Aggregate, RunRecord
from tests.plugin_support import (
    aggregate,
    comparable,
    gate_failures,
    scenario,
    system_label,
    system_metrics,
    trajectory,
)

# --------------------------------------------------------------------------- helpers


def run(scenario_id: str, runner: str, model: str, score: float, passed: bool) -> RunRecord:
    return RunRecord(
        scenario_id=scenario_id,
        scenario_type=None,
        run_id=f"{scenario_id}-{runner}-{model}-{score}-{passed}",
        runner=runner,
        model=model,
        question="",
        answer=None,
        scorer="static_json",
        passed=passed,
        score=score,
        rationale="",
        details={"f1": score},
        ops={},
    )


def report_of(*runs: RunRecord) -> dict[str, Any]:
    agg = Aggregate.empty()
    for record in runs:
        agg.add(record)
    return agg.report("T")


# react / gpt-4o: 4 runs of 2 scenarios, 3 passed (pass rate 0.75, pass@k 1.0, pass^k 0.5);
# react / llama: 2 runs, both passed; a run without runner or model: "unknown", failed.
REPORT = report_of(
    run("S1", "react", "gpt-4o", 1.0, True),
    run("S1", "react", "gpt-4o", 0.5, False),
    run("S2", "react", "gpt-4o", 1.0, True),
    run("S2", "react", "gpt-4o", 1.0, True),
    run("S1", "react", "llama", 1.0, True),
    run("S2", "react", "llama", 0.9, True),
    run("S3", "", "", 0.0, False),
)


def reasons(report: dict[str, Any], *texts: str) -> list[str]:
    return gate_failures(report, gates=[parse_gate(text) for text in texts])


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "group", "shown"),
    [
        ("pass_rate{react / gpt-4o}>=0.9", "react / gpt-4o", "pass_rate{react / gpt-4o}>=0.9"),
        ("pass_rate { gpt-4o } >= 0.9", None, None),  # a space before the brace: no gate
        ('pass_rate{"gpt-4o"}>=0.9', "gpt-4o", "pass_rate{gpt-4o}>=0.9"),
        ('pass_rate{"a{b}"}>=0.9', "a{b}", 'pass_rate{"a{b}"}>=0.9'),
        ('pass_rate{"*"}>=0.9', "*", 'pass_rate{"*"}>=0.9'),  # a model named *
        ("pass_rate{a[b]}>=0.9", "a[b]", "pass_rate{a[b]}>=0.9"),  # brackets need no quotes
    ],
)
def test_a_gate_names_one_runner_and_model(text: str, group: str | None, shown: str) -> None:
    if group is None:
        with pytest.raises(OptionsError, match="expected <metric><op><number>"):
            parse_gate(text)
        return
    gate = parse_gate(text)
    assert (gate.metric, gate.group, gate.text) == ("pass_rate", group, shown)
    assert getattr(gate.grouping, "section", None) == "by_runner_model"
    assert parse_gate(gate.text) == gate  # the shown text parses to the same gate


def test_star_means_each_runner_and_model_and_scored_reads_runs() -> None:
    gate = parse_gate("score_avg{*}>=0.8")
    assert (gate.group, gate.text, gate.figure, gate.key) == (
        None,
        "score_avg{*}>=0.8",
        "score_avg{*}",
        "score_avg",
    )
    assert parse_gate("scored{*}>=5").key == "runs"
    assert parse_gate("runs{x}>=5").key == "runs"
    assert parse_gate("pass_rate[*]>=0.8") != parse_gate("pass_rate{*}>=0.8")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "f1{gpt-4o}>=0.5",
            "'f1' has no figure per runner / model; a gate in braces can name pass_rate, passed, "
            "runs, scored, score_avg, pass_at_k, pass_hat_k, scenarios, repeated, max_runs",
        ),
        ("f1_avg{gpt-4o}>=0.5", "'f1_avg' has no figure per runner / model"),
        ("total{gpt-4o}>=5", "'total' has no figure per runner / model"),
        ("pass_at_k{gpt-4o}>=1.5", "pass_at_k is a rate in [0, 1]"),
        ("pass_hat_k{*}>=-0.5", "pass_hat_k is a rate in [0, 1]"),
        ("pass_rate{}>=0.5", "the braces name no runner / model"),
        ('pass_rate{""}>=0.5', "the braces name no runner / model"),
        ("pass_rate{ gpt-4o}>=0.5", "starts or ends with a space; write it as a JSON string"),
        ("pass_rate{a{b}}>=0.5", 'a runner / model holding {, } or " too'),
        ("pass_rate{x}[IoT]>=0.5", "expected <metric><op><number>"),
    ],
)
def test_bad_runner_model_gates_are_usage_errors(text: str, message: str) -> None:
    with pytest.raises(OptionsError, match=re.escape(message)):
        parse_gate(text, "--gate")


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=20))
def test_every_runner_model_name_round_trips_through_its_label(name: str) -> None:
    gate = parse_gate(f"pass_rate{{{system_label(name)}}}>=0.5")
    assert gate.group == name
    assert gate.text.isprintable()


# --------------------------------------------------------------------------- evaluation


def test_the_figures_are_by_runner_models_entries() -> None:
    figures = system_metrics(REPORT)
    assert list(figures) == ["react / gpt-4o", "react / llama", "unknown"]
    assert figures["react / gpt-4o"] == {
        "pass_rate": 0.75,
        "passed": 3,
        "runs": 4,
        "score_avg": 0.875,
        "pass_at_k": 1.0,
        "pass_hat_k": 0.5,
        "scenarios": 2,
        "repeated": 2,
        "max_runs": 2,
    }
    assert set(figures["unknown"]) == set(SYSTEM_METRICS) - {"scored"}


def test_a_missed_gate_names_the_runner_and_model() -> None:
    assert reasons(REPORT, "pass_rate{react / llama}>=1", "pass_hat_k{react / gpt-4o}>=0.9") == [
        "structeval: pass_hat_k{react / gpt-4o} 0.5000 misses --structeval-gate "
        "pass_hat_k{react / gpt-4o}>=0.9"
    ]
    assert reasons(REPORT, "scored{react / gpt-4o}>=5") == [
        "structeval: scored{react / gpt-4o} 4 misses --structeval-gate scored{react / gpt-4o}>=5"
    ]


def test_a_runner_and_model_the_run_does_not_have_fails_saying_so() -> None:
    assert reasons(REPORT, "pass_rate{gpt-4o}>=0.5") == [
        "structeval: --structeval-gate pass_rate{gpt-4o}>=0.5 fails: this run has no "
        "runner / model gpt-4o (its runners / models: react / gpt-4o, react / llama, unknown)"
    ]
    assert reasons(report_of(), "pass_rate{*}>=0.5") == [
        "structeval: no runs were scored, so --structeval-gate pass_rate{*}>=0.5 fails"
    ]


def test_star_holds_each_runner_and_model_and_names_the_worst_first() -> None:
    (outcome,) = evaluate_gates(REPORT, [parse_gate("pass_rate{*}>=0.8")])
    assert outcome.value == 0.0
    assert outcome.reason == (
        "structeval: pass_rate{unknown} 0.0000, pass_rate{react / gpt-4o} 0.7500 miss "
        "--structeval-gate pass_rate{*}>=0.8"
    )
    (met,) = evaluate_gates(REPORT, [parse_gate("runs{*}>=1")])
    assert (met.value, met.reason) == (1, None)
    assert reasons(REPORT, "pass_at_k{*}>=0.5") == [
        "structeval: pass_at_k{unknown} 0.0000 misses --structeval-gate pass_at_k{*}>=0.5"
    ]


def test_a_report_without_the_section_fails_a_star_gate() -> None:
    report = {**REPORT, "by_runner_model": {}}
    assert reasons(report, "pass_rate{*}>=0") == [
        "structeval: --structeval-gate pass_rate{*}>=0 fails: this run's report has no "
        "runners / models"
    ]
    lacking = {**REPORT, "by_runner_model": {"unknown": {"runs": 1}}}
    assert reasons(lacking, "pass_rate{unknown}>=0") == [
        "structeval: --structeval-gate pass_rate{unknown}>=0 fails: this run's report has no "
        "pass_rate for runner / model unknown"
    ]


def test_system_metrics_are_the_documented_ones() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    gates = readme.split("### Gates and exit codes")[1].split("\n### ")[0]
    for name in SYSTEM_METRICS:
        assert f"`{name}`" in gates
    assert "pass_rate{react / gpt-4o}>=0.9" in gates


# --------------------------------------------------------------------------- plugin and CLI

SIMILAR = "mode: similarity\nthreshold: 0.7\n"


def build(root: Path) -> None:
    """Every item passes. react / gpt-4o: scores 1 and 0.8 (mean 0.9); react / llama: 1."""
    sc = root / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(
        sc,
        "scenario_2",
        '{"p": 10, "q": 10}',
        trajectory("r2", '{"p": 10, "q": 6}'),
        trajectory("r3", '{"p": 10, "q": 10}', model="llama"),
        config=SIMILAR,
    )


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    build(pytester.path)
    return pytester


MISSED = (
    "structeval: score_avg{react / gpt-4o} 0.9000 misses --structeval-gate "
    "score_avg{react / gpt-4o}>=0.95"
)


def test_plugin_gate_per_runner_model_fails_a_run_whose_items_all_passed(
    project: pytest.Pytester,
) -> None:
    met = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-gate", "score_avg{react / llama}>=1"
    )
    met.assert_outcomes(passed=3)
    assert met.ret == pytest.ExitCode.OK
    met.stdout.fnmatch_lines(["gates met: score_avg{react / llama}>=1"])
    missed = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-gate",
        "score_avg{react / gpt-4o}>=0.95",
        "--structeval-gate",
        "pass_rate{gpt-4o}>=0.5",
    )
    missed.assert_outcomes(passed=3)
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    missed.stdout.fnmatch_lines(
        [
            f"FAIL {MISSED}",
            "FAIL structeval: --structeval-gate pass_rate{gpt-4o}>=0.5 fails: this run has no "
            "runner / model gpt-4o (its runners / models: react / gpt-4o, react / llama)",
        ]
    )


def test_plugin_gates_per_runner_model_from_the_ini_and_under_xdist(
    project: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    project.makeini(
        "[pytest]\n"
        "structeval_scenarios = sc\n"
        "structeval_gates =\n"
        "    runs{*}>=1\n"
        '    score_avg{"react / gpt-4o"}>=0.95\n'
    )
    serial = project.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    expected = comparable(project.path)
    shutil.rmtree(project.path / "reports")
    parallel = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    for result in (serial, parallel):
        result.assert_outcomes(passed=3)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(
            [
                "gates met: runs{*}>=1",
                "FAIL structeval: score_avg{react / gpt-4o} 0.9000 misses structeval_gates "
                "score_avg{react / gpt-4o}>=0.95",
            ]
        )
    assert comparable(project.path) == expected
    assert aggregate(project.path)["by_runner_model"]["react / llama"]["score_avg"] == 1.0


def test_plugin_bad_runner_model_gate_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-gate", "f1{*}>=0.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*'f1' has no figure per runner / model*"])
    assert not (project.path / "reports").exists()  # stopped at startup


def test_cli_gates_per_runner_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(tmp_path)
    args = ["evaluate", "--scenarios", str(tmp_path / "sc"), "--reports-dir", str(tmp_path / "o")]
    assert main([*args, "--gate", "pass_rate{*}>=1"]) == 0
    assert "gates met: pass_rate{*}>=1" in capsys.readouterr().out
    assert main([*args, "--gate", "score_avg{react / gpt-4o}>=0.95"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "structeval: score_avg{react / gpt-4o} 0.9000 misses --gate score_avg{react / gpt-4o}>=0.95"
    )
    with pytest.raises(SystemExit) as usage:
        main([*args, "--gate", "pass_rate{*}>=2"])
    assert usage.value.code == 2
    assert "--gate 'pass_rate{*}>=2': pass_rate is a rate in [0, 1]" in capsys.readouterr().err
