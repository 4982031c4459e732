"""Metric gates: expression parsing, the figures they read, and their one-line reasons."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import OptionsError
from pytest_structeval.gates import (
    GATE_METRICS,
    Checks,
    Gate,
    evaluate_gates,
    github_annotations,
    parse_gate,
    report_metrics,
)
from pytest_structeval.report import Aggregate, RunRecord
from pytest_structeval.reportformat import SCORER_METRICS
from tests.plugin_support import gate_failures


def report_of(*pairs: tuple[Any, Any], mode: str = "strict") -> dict[str, Any]:
    agg = Aggregate.empty()
    for n, (gold, model) in enumerate(pairs):
        result = score(gold, model, mode)
        agg.add(RunRecord.from_result(result, scorer=mode, run_id=f"r{n}", scenario_id=str(n)))
    return agg.report("T")


# Two runs: one exact (f1 1.0), one with 1 of 2 keys wrong (f1 0.5); both parse as JSON.
REPORT = report_of(({"a": 1, "b": 2}, '{"a": 1, "b": 2}'), ({"a": 1, "b": 2}, '{"a": 1, "b": 3}'))


@pytest.mark.parametrize(
    ("text", "metric", "op", "threshold"),
    [
        ("f1>=0.85", "f1", ">=", 0.85),
        (" parse_rate >= 0.99 ", "parse_rate", ">=", 0.99),
        ("errors==0", "errors", "==", 0.0),
        ("score_avg>0.5", "score_avg", ">", 0.5),
        ("regressed<1", "regressed", "<", 1.0),
        ("score_ci95_low<=1e-1", "score_ci95_low", "<=", 0.1),
        ("bleu_avg>=0.3", "bleu_avg", ">=", 0.3),
    ],
)
def test_parse_gate(text: str, metric: str, op: str, threshold: float) -> None:
    gate = parse_gate(text)
    assert (gate.metric, gate.op, gate.threshold, gate.flag) == (
        metric,
        op,
        threshold,
        "--structeval-gate",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("f1", "expected <metric><op><number>"),
        ("f1 => 0.8", "expected <metric><op><number>"),
        (">=0.8", "expected <metric><op><number>"),
        ("f1>=high", "expected <metric><op><number>"),
        ("f1>=nan", "expected <metric><op><number>"),
        ("f1>>1", "expected <metric><op><number>"),
        ("f1>=1e999", "'1e999' is not a finite number"),
        ("f1>=0.8 or 1", "expected <metric><op><number>"),
        ("f1>=0.9, parse_rate>=0.99", "one gate per value: write each on its own line"),
        ("f1>=0.9; f1<1", "one gate per value"),
        ("f1>=0.9, nope", "expected <metric><op><number>"),  # not all gates: the syntax
        ("__import__('os')>=1", "expected <metric><op><number>"),
        ("f2>=0.8", "unknown metric 'f2'; known: pass_rate, passed, "),
        ("F1>=0.8", "unknown metric 'F1' (did you mean 'f1'?); known: pass_rate, "),
        ("pass_rat>=0.8", "unknown metric 'pass_rat' (did you mean 'pass_rate'?); known: "),
        ("pass_rate>=1.5", "'pass_rate>=1.5': pass_rate is a rate in [0, 1], so this gate"),
        ("score_min>-0.1", "score_min is a rate in [0, 1]"),
        ("parse_rate<=2", "parse_rate is a rate in [0, 1]"),
        # a count is never negative: met by every run or by none (cli24 #6)
        ("errors>=-1", "'errors>=-1': errors is a count, never negative, so this gate is met"),
        ("load_errors<-0.5", "load_errors is a count, never negative"),
        ("total_leaves_avg>=-1", "total_leaves_avg is a count, never negative"),
        ("hallucinations<=-2", "hallucinations is a count, never negative"),
        ("passed[IoT]>=-1", "passed is a count, never negative"),
        ("max_runs{*}>-1", "max_runs is a count, never negative"),
        ("pass_rate>=\u0660.\u0665", "expected <metric><op><number>"),  # ASCII digits only
    ],
)
def test_bad_gates_are_option_errors(text: str, message: str) -> None:
    with pytest.raises(OptionsError, match=re.escape(message)):
        parse_gate(text, "--gate")


def test_rate_gates_take_thresholds_from_zero_to_one_and_counts_any() -> None:
    cases = {"pass_rate>=0": 0, "pass_rate<=1": 1, "score_ci95_low>0.5": 0.5, "passed>=40": 40}
    cases |= {"score_delta>=-0.02": -0.02, "errors<=0": 0, "my_metric_avg>=-1": -1}
    for text, threshold in cases.items():
        assert parse_gate(text).threshold == threshold


@pytest.mark.parametrize("text", ["f1>=2", "f1_avg>1.5", "precision<-0.1", "recall_avg<=-1"])
def test_a_built_in_rate_metric_refuses_a_threshold_outside_zero_to_one(text: str) -> None:
    """``f1>=2`` was accepted, then failed every run (audit 9)."""
    with pytest.raises(OptionsError, match=r"is a rate in \[0, 1\]"):
        parse_gate(text)
    assert parse_gate("total_gold_keys_avg>=2").threshold == 2  # a count, not a rate


def test_a_threshold_finer_than_the_report_is_shown_as_given() -> None:
    """The gate compares the report's four-decimal figure; the message rounded the threshold
    too and read "pass rate 0.5000 is under --structeval-fail-under 0.5000" (audit 9)."""
    assert gate_failures(REPORT, fail_under=0.50001) == [
        "structeval: pass rate 0.5000 is under --structeval-fail-under 0.50001"
    ]
    assert gate_failures(REPORT, fail_under=0.49999) == []


def test_unknown_metric_message_lists_the_known_ones() -> None:
    with pytest.raises(OptionsError) as info:
        parse_gate("acc>=1")
    text = str(info.value)
    for name in (*GATE_METRICS, "f1", "matched_leaves", "<metric>_avg"):
        assert name in text


def test_scorer_metrics_cover_every_numeric_metric_of_the_builtin_modes() -> None:
    for mode in ("strict", "similarity", "schema"):
        result = score({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3], "c": 2}, mode)
        numeric = {
            name
            for name, value in result.metrics.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
        assert numeric <= set(SCORER_METRICS), (mode, numeric - set(SCORER_METRICS))


def test_report_metrics() -> None:
    metrics = report_metrics(REPORT)
    assert metrics["pass_rate"] == 0.5
    assert metrics["scored"] == 2
    assert metrics["errors"] == 0
    assert metrics["load_errors"] == 0
    assert metrics["f1_avg"] == 0.75
    assert metrics["parse_rate"] == 1.0
    assert metrics["pass_at_k"] == 0.5
    assert metrics["score_ci95_low"] == REPORT["score_summary"]["score_ci95"][0]
    assert metrics["score_delta"] is None  # no baseline section


def test_bare_scorer_metric_means_its_average() -> None:
    assert parse_gate("f1>=0.7").key == "f1_avg"
    assert parse_gate("f1_avg>=0.7").key == "f1_avg"
    assert parse_gate("pass_rate>=0.7").key == "pass_rate"
    assert gate_failures(REPORT, gates=[parse_gate("f1>=0.7")]) == []
    assert gate_failures(REPORT, gates=[parse_gate("f1>=0.8")]) == [
        "structeval: f1_avg 0.7500 misses --structeval-gate f1>=0.8"
    ]


def test_counts_are_totalled_and_the_reference_run_names_gate_them() -> None:
    """struct_extract_eval's run reports ``mean_f1`` and ``total_hallucinations``; a gate
    written so was an unknown metric, and the only stand-in, a mean rounded to four
    decimals, reads 0 for one hallucination in 20,000 runs (peers25 #3)."""
    exact = [({"a": 1}, '{"a": 1}')] * 3
    report = report_of(*exact, ({"a": 1}, '{"a": 1, "x": 2}'), mode="schema")
    summary = report["score_summary"]
    assert (summary["hallucinations_sum"], summary["total_fields_sum"]) == (1, 5)
    assert summary["matches_sum"] == 4
    assert parse_gate("total_hallucinations==0").key == "hallucinations_sum"
    assert parse_gate("mean_f1>=0.9").key == "f1_avg"
    assert parse_gate("total_fields_sum>=1").key == "total_fields_sum"
    assert parse_gate("total_fields>=1").key == "total_fields_avg"  # bare: the mean
    failures = gate_failures(report, gates=[parse_gate("total_hallucinations==0")])
    assert failures == [
        "structeval: hallucinations_sum 1 misses --structeval-gate total_hallucinations==0"
    ]
    assert gate_failures(report, gates=[parse_gate("mean_f1>=0.9")]) == []
    with pytest.raises(OptionsError, match="count"):
        parse_gate("omissions_sum>=-1")
    with pytest.raises(OptionsError, match="unknown metric 'f1_sum'"):
        parse_gate("f1_sum>=1")
    # Groups have no totals: refused when read, never a gate that cannot pass (diff25b #2);
    # a group gate keeps the name it was written with.
    for text in ("total_hallucinations[IoT]<=5", "hallucinations_sum[*]<=1"):
        with pytest.raises(OptionsError, match="has no figure per scenario type"):
            parse_gate(text)
    with pytest.raises(OptionsError, match="'mean_f1' has no figure per runner / model"):
        parse_gate("mean_f1{react / gpt-4o}>=0.5")
    assert parse_gate("mean_f1[IoT]>=0.5").text == "mean_f1[IoT]>=0.5"
    with pytest.raises(OptionsError, match="mean_f1 is a rate in"):  # as written (diff25c #4)
        parse_gate("mean_f1>=1.5")


def test_every_operator_at_its_boundary() -> None:
    def met(text: str) -> bool:
        return not gate_failures(REPORT, gates=[parse_gate(text)])

    assert met("pass_rate>=0.5")
    assert not met("pass_rate>0.5")
    assert met("pass_rate<=0.5")
    assert not met("pass_rate<0.5")
    assert met("errors==0")
    assert not met("errors==1")


def test_rate_options_keep_their_messages_and_come_first() -> None:
    reasons = gate_failures(
        REPORT,
        fail_under=0.9,
        min_score=0.95,
        gates=[parse_gate("parse_rate>=0.99"), parse_gate("f1>=0.9")],
    )
    assert reasons == [
        "structeval: pass rate 0.5000 is under --structeval-fail-under 0.9000",
        f"structeval: mean score {REPORT['score_summary']['score_avg']:.4f} is under "
        "--structeval-min-score 0.9500",
        "structeval: f1_avg 0.7500 misses --structeval-gate f1>=0.9",
    ]


def test_a_figure_the_report_lacks_fails_its_gate() -> None:
    similarity = report_of(({"a": 1}, {"a": 1}), mode="similarity")
    (reason,) = gate_failures(similarity, gates=[parse_gate("f1>=0.5", "structeval_gates")])
    assert reason.startswith(
        "structeval: structeval_gates f1>=0.5 fails: this run's report has no f1_avg"
    )
    assert "matched_leaves_avg" in reason  # what it could have used
    (reason,) = gate_failures(REPORT, gates=[parse_gate("regressed<1")])
    assert "has no regressed (it needs a baseline)" in reason  # no baseline given
    (reason,) = gate_failures(REPORT, gates=[parse_gate("score_delta_ci95_high>=0")])
    assert "has no score_delta_ci95_high (it needs a baseline and two compared items)" in reason


def test_no_runs_fail_every_gate() -> None:
    empty = Aggregate.empty().report()
    assert gate_failures(empty, gates=[parse_gate("errors==0")]) == [
        "structeval: no runs were scored, so --structeval-gate errors==0 fails"
    ]


def test_outcomes_carry_the_compared_value() -> None:
    outcomes = evaluate_gates(REPORT, [parse_gate("f1>=0.7"), parse_gate("pass_rate>=0.9")])
    assert [(o.value, o.reason is None) for o in outcomes] == [(0.75, True), (0.5, False)]


def test_checks_without_gates_or_baseline_do_nothing(tmp_path: Any) -> None:
    checks = Checks()
    report = dict(REPORT)
    checks.annotate(report)
    assert "baseline" not in report
    assert checks.failures(report) == []
    assert checks.publish(report, []) == []
    gate = Gate("pass_rate", ">=", 0.9, "--gate", "pass_rate>=0.9")
    assert Checks(gates=(gate,)).failures(report) == [
        "structeval: pass_rate 0.5000 misses --gate pass_rate>=0.9"
    ]


def test_github_annotations_only_inside_actions() -> None:
    problems = ["structeval: pass rate 0.50 < 0.90 (--structeval-fail-under)"]
    assert github_annotations(problems, {}) == []
    assert github_annotations(problems, {"GITHUB_ACTIONS": "false"}) == []
    assert github_annotations(problems, {"GITHUB_ACTIONS": "true"}) == [
        "::error title=structeval::structeval: pass rate 0.50 < 0.90 (--structeval-fail-under)"
    ]


def test_github_annotations_escape_the_command_syntax() -> None:
    got = github_annotations(["100% wrong\nsecond line\r"], {"GITHUB_ACTIONS": "true"})
    assert got == ["::error title=structeval::100%25 wrong%0Asecond line%0D"]


def test_figures_past_the_float_range_are_compared_not_crashed_on() -> None:
    """An integer figure past the float range (in an aggregate file read back, or a
    scorer's count) raised OverflowError in math.isfinite and stopped the gates; ints are
    finite figures."""
    report = dict(REPORT)
    report["score_summary"] = {**REPORT["score_summary"], "missing_keys_total": 10**400}
    assert report_metrics(report)["missing_keys_total"] == 10**400
    (reason,) = gate_failures(report, gates=[parse_gate("missing_keys_total<=5")])
    assert reason.startswith("structeval: missing_keys_total 1000")
    assert gate_failures(report, gates=[parse_gate("missing_keys_total>=5")]) == []
