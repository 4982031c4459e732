"""Gates on one scenario type's figures (``pass_rate[IoT]>=0.9``) or on each type's (``[*]``):
parsing and quoting, the ``by_scenario_type`` figures they read, their one-line reasons, and
the plugin (serial, ini, ``-n 2``), the CLI, GitHub annotations and the Markdown summary."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval.baseline import Baseline, compare
from pytest_structeval.cli import main
from pytest_structeval.errors import OptionsError
from pytest_structeval.gates import (
    GROUP_METRICS,
    Checks,
    evaluate_gates,
    github_annotations,
    parse_gate,
)
from pytest_structeval.markdown import render_markdown
from pytest_structeval.report import Aggregate, RunRecord
from tests.plugin_support import (
    aggregate,
    comparable,
    gate_failures,
    scenario,
    trajectory,
    type_label,
    type_metrics,
)

# --------------------------------------------------------------------------- helpers


def run(
    run_id: str, kind: str | None, score: float, passed: bool, *, error: str | None = None
) -> RunRecord:
    """A scored run of scenario ``S-<run_id>`` whose scenario type is ``kind``."""
    return RunRecord(
        scenario_id=f"S-{run_id}",
        scenario_type=kind,
        run_id=run_id,
        runner="",
        model="",
        question="",
        answer=None,
        scorer="static_json",
        passed=passed,
        score=score,
        rationale="passed" if passed else "structured answer differs: 1 mismatched",
        details={"f1": score},
        ops={},
        error=error,
    )


def report_of(*runs: RunRecord) -> dict[str, Any]:
    agg = Aggregate.empty()
    for record in runs:
        agg.add(record)
    return agg.report("T")


# IoT: 4 of 5 passed (pass rate 0.8, mean 0.9); HVAC: 1 of 1; no type: 1 error run.
IOT = [run(f"i{n}", "IoT", 1.0, True) for n in range(4)] + [run("i4", "IoT", 0.5, False)]
REPORT = report_of(
    *IOT,
    run("h0", "HVAC", 1.0, True),
    run("u0", None, 0.0, False, error="scorer 'x' failed: boom"),
)


def reasons(report: dict[str, Any], *texts: str, flag: str = "--structeval-gate") -> list[str]:
    return gate_failures(report, gates=[parse_gate(text, flag) for text in texts])


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "metric", "group", "shown"),
    [
        ("pass_rate[IoT]>=0.9", "pass_rate", "IoT", "pass_rate[IoT]>=0.9"),
        (" score_avg[IoT] >= 0.5 ", "score_avg", "IoT", "score_avg[IoT]>=0.5"),
        ("passed[work order]>=3", "passed", "work order", "passed[work order]>=3"),
        ("total[v1.2 (beta)]<10", "total", "v1.2 (beta)", "total[v1.2 (beta)]<10"),
        ("scored[a>=b]==2", "scored", "a>=b", "scored[a>=b]==2"),  # operators inside
        ("pass_rate[a\\b]>=0.5", "pass_rate", "a\\b", "pass_rate[a\\b]>=0.5"),
        ('pass_rate["IoT"]>=0.9', "pass_rate", "IoT", "pass_rate[IoT]>=0.9"),  # same gate
        ('pass_rate["a]b"]>=0.9', "pass_rate", "a]b", 'pass_rate["a]b"]>=0.9'),
        ('pass_rate["x[1]"]>=0.9', "pass_rate", "x[1]", 'pass_rate["x[1]"]>=0.9'),
        ('pass_rate["say \\"hi\\""]>=1', "pass_rate", 'say "hi"', 'pass_rate["say \\"hi\\""]>=1'),
        ('pass_rate[" IoT "]>=1', "pass_rate", " IoT ", 'pass_rate[" IoT "]>=1'),
        ('pass_rate["tab\\there"]>=1', "pass_rate", "tab\there", 'pass_rate["tab\\there"]>=1'),
        ('pass_rate["*"]>=1', "pass_rate", "*", 'pass_rate["*"]>=1'),  # a type named *
        ("pass_rate[Über]>=1", "pass_rate", "Über", "pass_rate[Über]>=1"),
        ('pass_rate["a\\u2028b"]>=1', "pass_rate", "a\u2028b", 'pass_rate["a\\u2028b"]>=1'),
    ],
)
def test_a_gate_names_one_scenario_type(text: str, metric: str, group: str, shown: str) -> None:
    gate = parse_gate(text)
    assert (gate.metric, gate.group, gate.text) == (metric, group, shown)
    assert getattr(gate.grouping, "section", None) == "by_scenario_type"
    assert gate.text == parse_gate(gate.text).text  # the shown text parses to the same gate


def test_star_means_every_type() -> None:
    gate = parse_gate("pass_rate[*]>=0.9")
    assert (gate.group, gate.text, gate.figure) == (None, "pass_rate[*]>=0.9", "pass_rate[*]")
    assert getattr(gate.grouping, "section", None) == "by_scenario_type"
    assert parse_gate("pass_rate>=0.9").grouping is None


def test_scored_reads_the_total_of_a_type() -> None:
    assert parse_gate("scored[IoT]>=5").key == "total"
    assert parse_gate("total[IoT]>=5").key == "total"
    assert parse_gate("pass_rate[IoT]>=0.5").key == "pass_rate"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("errors[IoT]<=1", "'errors' has no figure per scenario type; a gate in brackets can "),
        ("f2[IoT]>=0.5", "'f2' has no figure per scenario type"),
        ("errors[IoT]==0", "'errors' has no figure per scenario type"),
        ("pass_rate[IoT]>=1.5", "pass_rate is a rate in [0, 1]"),
        ("score_avg[*]>=-0.1", "score_avg is a rate in [0, 1]"),
        ("pass_rate[]>=0.5", "the brackets name no scenario type"),
        ('pass_rate[""]>=0.5', "the brackets name no scenario type"),
        ("pass_rate[ IoT]>=0.5", "starts or ends with a space; write it as a JSON string"),
        ('pass_rate["a\\q"]>=0.5', "is not a valid JSON string"),
        ('pass_rate[say "hi"]>=0.5', 'a type holding [, ] or " is written as a JSON string'),
        ("pass_rate[a[b]>=0.5", "expected <metric><op><number>, <metric>[<scenario type>]"),
        ("pass_rate[a]b]>=0.5", "expected <metric><op><number>"),
        ("pass_rate[IoT>=0.5", "expected <metric><op><number>"),
        ("pass_rate [IoT]>=0.5", "expected <metric><op><number>"),
        ("pass_rate[IoT][HVAC]>=0.5", "expected <metric><op><number>"),
        ("pass_rate[IoT]>=1e999", "'1e999' is not a finite number"),
    ],
)
def test_bad_type_gates_are_usage_errors(text: str, message: str) -> None:
    with pytest.raises(OptionsError, match=re.escape(message)):
        parse_gate(text, "--gate")


def test_counts_per_type_take_any_threshold() -> None:
    assert parse_gate("passed[IoT]>=40").threshold == 40
    assert parse_gate("total[*]>=2").threshold == 2


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=20))
def test_every_type_name_round_trips_through_its_label(name: str) -> None:
    gate = parse_gate(f"pass_rate[{type_label(name)}]>=0.5")
    assert gate.group == name
    assert gate.text.isprintable()  # one visible line in any message


# --------------------------------------------------------------------------- figures


def test_each_type_entry_has_a_rounded_mean_score_and_error_runs_count_zero() -> None:
    types = REPORT["by_scenario_type"]
    assert list(types) == ["HVAC", "IoT", "unknown"]
    assert types["IoT"] == {
        "total": 5,
        "passed": 4,
        "pass_rate": 0.8,
        "score_avg": 0.9,
        "f1_avg": 0.9,  # the scorer's metrics too, over the runs that report them
    }
    assert types["unknown"] == {
        "total": 1,
        "passed": 0,
        "pass_rate": 0.0,
        "score_avg": 0.0,
        "f1_avg": 0.0,
    }
    thirds = report_of(*(run(f"t{n}", "T", 1.0 if n else 0.0, bool(n)) for n in range(3)))
    assert thirds["by_scenario_type"]["T"]["score_avg"] == 0.6667  # four decimals
    assert type_metrics(REPORT)["IoT"] == {
        "total": 5,
        "passed": 4,
        "pass_rate": 0.8,
        "score_avg": 0.9,
        "f1_avg": 0.9,
    }


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["IoT", "HVAC", None, "a]b"]),
            st.floats(0, 1, allow_nan=False),
            st.booleans(),
        ),
        max_size=12,
    ),
    st.randoms(use_true_random=False),
)
def test_type_figures_do_not_depend_on_order_or_split(
    runs: list[tuple[str | None, float, bool]], rnd: Any
) -> None:
    records = [run(f"r{n}", kind, value, ok) for n, (kind, value, ok) in enumerate(runs)]
    whole = report_of(*records)["by_scenario_type"]
    shuffled = list(records)
    rnd.shuffle(shuffled)
    cut = rnd.randint(0, len(shuffled))
    arrived = Aggregate.empty()
    for record in shuffled[cut:]:
        arrived.add(record.to_dict())
    for record in shuffled[:cut]:
        arrived.add(record)
    assert arrived.report("T")["by_scenario_type"] == whole


# --------------------------------------------------------------------------- evaluation


def test_a_missed_type_gate_names_the_type() -> None:
    assert reasons(REPORT, "pass_rate[IoT]>=0.9") == [
        "structeval: pass_rate[IoT] 0.8000 misses --structeval-gate pass_rate[IoT]>=0.9"
    ]
    assert reasons(REPORT, "scored[IoT]>=6", flag="structeval_gates") == [
        "structeval: scored[IoT] 5 misses structeval_gates scored[IoT]>=6"
    ]
    assert reasons(REPORT, "pass_rate[IoT]>=0.8", "pass_rate[HVAC]==1", "passed[IoT]==4") == []
    (outcome,) = evaluate_gates(REPORT, [parse_gate("score_avg[IoT]>=0.95")])
    assert (outcome.value, outcome.reason) == (
        0.9,
        "structeval: score_avg[IoT] 0.9000 misses --structeval-gate score_avg[IoT]>=0.95",
    )


def test_the_run_wide_figure_and_the_types_are_separate_gates() -> None:
    # Run-wide: 5 of 7 passed (0.7143), above 0.7; IoT alone is at 0.8, HVAC at 1.0.
    assert reasons(REPORT, "pass_rate>=0.7", "pass_rate[IoT]>=0.7") == []
    assert reasons(REPORT, "pass_rate>=0.75", "pass_rate[IoT]>=0.75") == [
        "structeval: pass_rate 0.7143 misses --structeval-gate pass_rate>=0.75"
    ]


def test_a_type_the_run_does_not_have_fails_saying_so() -> None:
    (reason,) = reasons(REPORT, "pass_rate[IOT]>=0.5")
    assert reason == (
        "structeval: --structeval-gate pass_rate[IOT]>=0.5 fails: this run has no scenario "
        "type IOT (its types: HVAC, IoT, unknown)"
    )
    many = report_of(*(run(f"r{n}", f"t{n:02}", 1.0, True) for n in range(13)))
    (reason,) = reasons(many, 'pass_rate["a]b"]>=0.5')
    assert 'no scenario type "a]b" (its types: t00, t01, ' in reason
    assert reason.endswith("t09, ... (+3 more))")


def test_no_runs_fail_type_gates_too() -> None:
    empty = Aggregate.empty().report("T")
    assert reasons(empty, "pass_rate[IoT]>=0.5", "pass_rate[*]>=0.5") == [
        "structeval: no runs were scored, so --structeval-gate pass_rate[IoT]>=0.5 fails",
        "structeval: no runs were scored, so --structeval-gate pass_rate[*]>=0.5 fails",
    ]


def test_runs_without_a_type_are_the_unknown_type() -> None:
    assert reasons(REPORT, "passed[unknown]==0", "total[unknown]==1") == []


def test_a_report_without_the_figure_fails_the_gate() -> None:
    """An aggregate written before ``score_avg`` was kept per type (read back by a hook or a
    tool): the gate fails, naming what is missing, rather than passing unseen."""
    old = json.loads(json.dumps(REPORT))
    for entry in old["by_scenario_type"].values():
        del entry["score_avg"]
    assert reasons(old, "score_avg[IoT]>=0.5") == [
        "structeval: --structeval-gate score_avg[IoT]>=0.5 fails: this run's report has no "
        "score_avg for scenario type IoT"
    ]
    (reason,) = reasons(old, "score_avg[*]>=0.5")
    assert "has no score_avg for scenario type HVAC" in reason
    del old["by_scenario_type"]  # a reference aggregate has none: [*] must not pass vacuously
    assert reasons(old, "total[*]>=0", "total[IoT]>=0") == [
        "structeval: --structeval-gate total[*]>=0 fails: this run's report has no types",
        "structeval: --structeval-gate total[IoT]>=0 fails: this run has no scenario type IoT "
        "(its types: none)",
    ]


def test_star_gates_every_type_and_names_the_worst_first() -> None:
    outcome, met = evaluate_gates(
        REPORT, [parse_gate("pass_rate[*]>=0.9"), parse_gate("score_avg[*]<=1")]
    )
    assert outcome.value == 0.0  # the worst type's figure decides
    assert outcome.reason == (
        "structeval: pass_rate[unknown] 0.0000, pass_rate[IoT] 0.8000 miss "
        "--structeval-gate pass_rate[*]>=0.9"
    )
    assert (met.value, met.reason) == (1.0, None)  # HVAC's 1.0 is the closest to failing
    assert reasons(REPORT, "total[*]<5") == [
        "structeval: total[IoT] 5 misses --structeval-gate total[*]<5"
    ]
    (equal,) = evaluate_gates(REPORT, [parse_gate("passed[*]==1")])
    assert equal.value == 4
    assert equal.reason == (
        "structeval: passed[IoT] 4, passed[unknown] 0 miss --structeval-gate passed[*]==1"
    )
    many = report_of(*(run(f"r{n}", f"t{n}", n / 10, False) for n in range(6)))
    (reason,) = reasons(many, "score_avg[*]>=0.9")
    assert reason == (
        "structeval: score_avg[t0] 0.0000, score_avg[t1] 0.1000, score_avg[t2] 0.2000 and 3 more "
        "miss --structeval-gate score_avg[*]>=0.9"
    )


def test_star_gates_with_a_strict_bound_name_the_worst_first_too() -> None:
    types = report_of(
        run("a", "A", 0.5, True),
        run("a2", "A", 0.5, False),  # pass rate 0.5
        *(run(f"b{n}", "B", 1.0, n < 4) for n in range(5)),  # 0.8
        *(run(f"c{n}", "C", 1.0, n < 19) for n in range(20)),  # 0.95
    )
    (outcome,) = evaluate_gates(types, [parse_gate("pass_rate[*]>0.9")])
    assert outcome.value == 0.5
    assert outcome.reason == (
        "structeval: pass_rate[A] 0.5000, pass_rate[B] 0.8000 miss "
        "--structeval-gate pass_rate[*]>0.9"
    )
    three = report_of(*(run(f"r{n}", f"t{n}", n / 10, False) for n in range(3)))
    (reason,) = reasons(three, "score_avg[*]>=0.9")
    assert reason == (  # no "and 0 more"
        "structeval: score_avg[t0] 0.0000, score_avg[t1] 0.1000, score_avg[t2] 0.2000 "
        "miss --structeval-gate score_avg[*]>=0.9"
    )


def test_checks_show_type_gates_like_the_others(tmp_path: Path) -> None:
    checks = Checks(
        gates=(parse_gate("pass_rate[IoT]>=0.9"), parse_gate("pass_rate[HVAC]>=0.9")),
        markdown=tmp_path / "summary.md",
    )
    problems = checks.failures(REPORT)
    assert problems == [
        "structeval: pass_rate[IoT] 0.8000 misses --structeval-gate pass_rate[IoT]>=0.9"
    ]
    assert checks.met(REPORT) == "gates met: pass_rate[HVAC]>=0.9"
    assert github_annotations(problems, {"GITHUB_ACTIONS": "true"}) == [
        "::error title=structeval::structeval: pass_rate[IoT] 0.8000 misses "
        "--structeval-gate pass_rate[IoT]>=0.9"
    ]
    checks.publish(REPORT, problems)
    text = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "| pass\\_rate\\[IoT\\]&gt;=0.9 | 0.8000 | ❌ missed |" in text
    assert "| pass\\_rate\\[HVAC\\]&gt;=0.9 | 1.0000 | ✅ met |" in text
    assert (
        "- ❌ structeval: pass\\_rate\\[IoT\\] 0.8000 misses --structeval-gate "
        "pass\\_rate\\[IoT\\]&gt;=0.9"
    ) in text
    with pytest.raises(ValueError, match="fails its gates"):
        Checks(gates=checks.gates, save_baseline=tmp_path / "b.json").save(REPORT)


def test_the_markdown_summary_lists_the_types_worst_first() -> None:
    text = render_markdown(REPORT)
    table = text.split("### By scenario type\n\n")[1].split("\n\n")[0].splitlines()
    assert table == [
        "| Scenario type | Runs | Passed | Pass rate | Mean score |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| unknown | 1 | 0 | 0.0000 | 0.0000 |",
        "| IoT | 5 | 4 | 0.8000 | 0.9000 |",
        "| HVAC | 1 | 1 | 1.0000 | 1.0000 |",
    ]
    untyped = report_of(run("a", None, 1.0, True))
    assert "By scenario type" not in render_markdown(untyped)
    many = report_of(*(run(f"r{n}", f"t{n:02}", 1.0, True) for n in range(25)))
    assert "### By scenario type (worst 20 of 25)" in render_markdown(many)


def test_baselines_compare_reports_with_and_without_the_new_keys() -> None:
    """Baselines read ``results`` and the run-wide figures: the per-type ``score_avg`` and the
    results' ``reason`` change nothing, in either direction."""
    old = json.loads(json.dumps(REPORT))
    for entry in old["by_scenario_type"].values():
        del entry["score_avg"]
    for entry in old["results"]:
        del entry["reason"]
    worse = report_of(*IOT[:3], run("i3", "IoT", 0.5, False), *IOT[4:])
    for before, after in ((old, worse), (REPORT, worse)):
        section = compare(Baseline("b.json", before), after)
        assert section["counts"]["regressed"] == 1
        assert [item["run_id"] for item in section["regressed"]] == ["i3"]
    assert compare(Baseline("b.json", old), REPORT)["counts"]["regressed"] == 0


# --------------------------------------------------------------------------- plugin and CLI


TYPED = "mode: similarity\nthreshold: 0.7\ntype: IoT\n"


def build(root: Path) -> None:
    """Every item passes. IoT: three runs, mean score (1 + 1 + 0.8) / 3 = 0.9333; "work
    order": one run; a scenario without a type."""
    sc = root / "sc"
    scenario(
        sc,
        "scenario_1",
        '{"a": 1}',
        trajectory("r1", '{"a": 1}'),
        trajectory("r2", '{"a": 1}'),
        config="type: IoT\n",
    )
    scenario(
        sc, "scenario_2", '{"p": 10, "q": 10}', trajectory("r3", '{"p": 10, "q": 6}'), config=TYPED
    )
    scenario(
        sc, "scenario_3", '{"b": 2}', trajectory("r4", '{"b": 2}'), config="type: work order\n"
    )
    scenario(sc, "scenario_4", '{"c": 3}', trajectory("r5", '{"c": 3}'))


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    build(pytester.path)
    return pytester


MISSED = "structeval: score_avg[IoT] 0.9333 misses --structeval-gate score_avg[IoT]>=0.95"


def test_plugin_type_gate_fails_a_run_whose_items_all_passed(project: pytest.Pytester) -> None:
    met = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-gate", "pass_rate[work order]>=1"
    )
    met.assert_outcomes(passed=5)
    assert met.ret == pytest.ExitCode.OK
    met.stdout.fnmatch_lines(
        [
            "by type: IoT 3/3 mean 0.9333, unknown 1/1 mean 1.0000, work order 1/1 mean 1.0000",
            "gates met: *",
        ]
    )
    assert "gates met: pass_rate[work order]>=1" in met.stdout.str()

    missed = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-gate",
        "score_avg[IoT]>=0.95",
        "--structeval-gate",
        "pass_rate[HVAC]>=0.5",
    )
    missed.assert_outcomes(passed=5)
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    missed.stdout.fnmatch_lines(
        [
            f"FAIL {MISSED}",
            "FAIL structeval: --structeval-gate pass_rate[HVAC]>=0.5 fails: this run has no "
            "scenario type HVAC (its types: IoT, unknown, work order)",
        ]
    )
    iot = aggregate(project.path)["by_scenario_type"]["IoT"]
    assert list(iot)[:4] == ["total", "passed", "pass_rate", "score_avg"]
    assert (iot["total"], iot["passed"], iot["pass_rate"], iot["score_avg"]) == (3, 3, 1.0, 0.9333)
    # and the scorers' metric means, which gates in brackets read too
    assert all(key.endswith("_avg") for key in list(iot)[4:])
    met = project.runpytest(
        "--structeval-scenarios", "sc", "--structeval-gate", f"f1[IoT]>={iot['f1_avg']}"
    )
    assert met.ret == pytest.ExitCode.OK
    missed = project.runpytest(  # IoT's similarity run mismatched one leaf
        "--structeval-scenarios", "sc", "--structeval-gate", "mismatched_leaves_avg[IoT]<1"
    )
    assert missed.ret == pytest.ExitCode.TESTS_FAILED
    missed.stdout.fnmatch_lines(
        [
            "FAIL structeval: mismatched_leaves_avg[[]IoT[]] 1.0000 misses --structeval-gate "
            "mismatched_leaves_avg[[]IoT[]]<1"
        ]
    )


def test_plugin_type_gates_from_the_ini(project: pytest.Pytester) -> None:
    project.makeini(
        "[pytest]\n"
        "structeval_scenarios = sc\n"
        "structeval_gates =\n"
        "    pass_rate[work order]>=1\n"
        '    score_avg["IoT"]>=0.95\n'
        "    total[*]>=1\n"
    )
    result = project.runpytest()
    result.assert_outcomes(passed=5)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "gates met: pass_rate[work order]>=1, total[*]>=1",
            "FAIL structeval: score_avg[IoT] 0.9333 misses structeval_gates score_avg[IoT]>=0.95",
        ]
    )


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        ("errors[IoT]<=1", "*'errors' has no figure per scenario type*"),
        ("pass_rate[IoT]>=2", "*pass_rate is a rate in [[]0, 1]*"),
        ("pass_rate[ IoT]>=0.5", "*starts or ends with a space*"),
    ],
)
def test_plugin_bad_type_gates_are_usage_errors(
    project: pytest.Pytester, gate: str, message: str
) -> None:
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-gate", gate)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert not (project.path / "reports").exists()  # stopped at startup


def test_plugin_type_gates_annotate_github_and_the_markdown_summary(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-gate",
        "score_avg[IoT]>=0.95",
        "--structeval-markdown",
        "summary.md",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"FAIL {MISSED}", f"::error title=structeval::{MISSED}"])
    text = (project.path / "summary.md").read_text(encoding="utf-8")
    assert "| score\\_avg\\[IoT\\]&gt;=0.95 | 0.9333 | ❌ missed |" in text
    assert "| IoT | 3 | 3 | 1.0000 | 0.9333 |" in text


def test_plugin_type_gates_under_xdist_match_the_serial_run(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    args = (
        "-p",
        "no:cacheprovider",
        "--structeval-scenarios",
        "sc",
        "--structeval-gate",
        "score_avg[IoT]>=0.95",
        "--structeval-gate",
        "pass_rate[*]>=1",
    )
    serial = project.runpytest_subprocess(*args, "-p", "no:xdist")
    expected = comparable(project.path)
    shutil.rmtree(project.path / "reports")
    parallel = project.runpytest_subprocess(*args, "-n", "2")
    for result in (serial, parallel):
        result.assert_outcomes(passed=5)
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(["gates met: pass_rate[*]>=1", f"FAIL {MISSED}"])
    assert comparable(project.path) == expected
    assert expected["aggregate"]["by_scenario_type"]["work order"]["score_avg"] == 1.0


def run_cli(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    args = ["evaluate", "--scenarios", str(root / "sc"), "--reports-dir", str(root / "out")]
    try:
        code = main([*args, *extra])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_type_gates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build(tmp_path)
    code, out, _ = run_cli(tmp_path, capsys, "--gate", "pass_rate[IoT]>=1")
    assert code == 0
    assert "gates met: pass_rate[IoT]>=1" in out
    code, out, _ = run_cli(tmp_path, capsys, "--gate", "score_avg[IoT]>=0.95")
    assert code == 1
    assert out.splitlines()[-1] == (
        "structeval: score_avg[IoT] 0.9333 misses --gate score_avg[IoT]>=0.95"
    )
    code, _, err = run_cli(tmp_path, capsys, "--gate", "score_avg[IoT]>=2")
    assert code == 2
    assert "--gate 'score_avg[IoT]>=2': score_avg is a rate in [0, 1]" in err


def test_group_metrics_are_the_documented_ones() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    gates = readme.split("### Gates and exit codes")[1].split("\n### ")[0]
    for name in GROUP_METRICS:
        assert f"`{name}`" in gates


def test_a_scorer_metric_per_type_reads_its_mean_over_that_types_runs() -> None:
    """``f1[IoT]`` (the group-gates gap of the ninth session): a built-in scorer's metric
    named bare means its ``_avg``, any ``<metric>_avg`` works, rates are checked, and a type
    whose runs report no such metric fails the gate rather than passing it."""
    gate = parse_gate("f1[IoT]>=0.85")
    assert (gate.key, gate.figure) == ("f1_avg", "f1[IoT]")
    [met] = evaluate_gates(REPORT, [gate])
    assert (met.value, met.reason) == (0.9, None)
    [missed] = evaluate_gates(REPORT, [parse_gate("f1_avg[*]>=0.5")])
    assert missed.value == 0.0
    assert (
        missed.reason
        == "structeval: f1_avg[unknown] 0.0000 misses --structeval-gate f1_avg[*]>=0.5"
    )
    with pytest.raises(OptionsError, match="f1 is a rate in"):
        parse_gate("f1[IoT]>=1.5")
    without = report_of(run("h1", "HVAC", 1.0, True))
    del without["by_scenario_type"]["HVAC"]["f1_avg"]
    [lacking] = evaluate_gates(without, [parse_gate("recall[HVAC]>=0.5")])
    assert lacking.reason == (
        "structeval: --structeval-gate recall[HVAC]>=0.5 fails: this run's report has no "
        "recall_avg for scenario type HVAC"
    )


def test_an_equality_star_gate_names_the_farthest_type_first() -> None:
    """Under ``==`` the distance either way ranks the types: B (0.4 below) before A (0.1
    above), and B's figure is the outcome's value (review mutants16-plugin g9)."""
    types = report_of(run("a", "A", 0.6, True), run("b", "B", 0.1, False))
    (outcome,) = evaluate_gates(types, [parse_gate("score_avg[*]==0.5")])
    assert outcome.value == 0.1
    assert outcome.reason == (
        "structeval: score_avg[B] 0.1000, score_avg[A] 0.6000 miss "
        "--structeval-gate score_avg[*]==0.5"
    )


def test_a_scorer_metric_named_score_does_not_hide_the_type_mean_score() -> None:
    """A custom scorer's ``score`` detail must not replace the type's ``score_avg``, which a
    ``score_avg[T]`` gate reads (review mutants16-plugin r23)."""
    custom = replace(
        run("1", "T", 0.9, True), scorer="custom", details={"mode": "custom", "score": 0.1}
    )
    report = report_of(custom)
    assert report["by_scenario_type"]["T"] == {
        "total": 1,
        "passed": 1,
        "pass_rate": 1.0,
        "score_avg": 0.9,
    }
    (outcome,) = evaluate_gates(report, [parse_gate("score_avg[T]>=0.5")])
    assert (outcome.value, outcome.reason) == (0.9, None)


def test_a_scorer_metric_star_gate_holds_the_types_that_report_it() -> None:
    """Review newuser20 #1: one type of mode answers (no f1) failed f1[*] on a passing run."""
    mixed = json.loads(json.dumps(REPORT))
    for name, entry in mixed["by_scenario_type"].items():
        entry.pop("f1_avg", None)
        entry["f1_avg" if name == "IoT" else "car_score_avg"] = 0.95
    assert reasons(mixed, "f1[*]>=0.9") == []
    assert reasons(mixed, "f1[*]>=0.99") == [
        "structeval: f1[IoT] 0.9500 misses --structeval-gate f1[*]>=0.99"
    ]
    assert reasons(REPORT, "car_score[*]>=0.5") == [
        "structeval: --structeval-gate car_score[*]>=0.5 fails: no scenario type of this run "
        "reports car_score_avg"
    ]


def test_a_type_whose_runs_all_failed_to_score_still_fails_a_scorer_metric_star_gate() -> None:
    errored = json.loads(json.dumps(REPORT))
    for name, entry in errored["by_scenario_type"].items():
        for key in [k for k in entry if k.endswith("_avg") and k != "score_avg"]:
            del entry[key]
        if name == "IoT":
            entry["f1_avg"] = 0.95
    (reason,) = reasons(errored, "f1[*]>=0.9")
    assert "has no f1_avg for scenario type" in reason
