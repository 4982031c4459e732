"""Operational metrics, run records, report files, the Aggregate, summary and gates."""

from __future__ import annotations

import hashlib
import json
import os
import random
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import report as report_module
from pytest_structeval.api import score
from pytest_structeval.gates import parse_gate
from pytest_structeval.ops import estimate_cost, model_key, ops_metrics
from pytest_structeval.report import (
    AGGREGATE_NAME,
    PER_FIELD_TOP,
    REASON_CHARS,
    Aggregate,
    RunRecord,
    _claim,
    _report_names,
    _report_stem,
    render_summary,
    write_reports,
)
from pytest_structeval.results import FieldResult, ScoreResult
from pytest_structeval.stats import finite_number

# --------------------------------------------------------------------------- ops
from tests.plugin_support import gate_failures


def name_of(run_id: str, scenario_id: str, taken: set[str]) -> str:
    """The report file name one run gets (recorded in ``taken``)."""
    return _report_names([{"run_id": run_id, "scenario_id": scenario_id}], taken)[0]


def test_ops_from_chat_turns() -> None:
    trajectory = {
        "turns": [
            {
                "input_tokens": 100,
                "output_tokens": 20,
                "duration_ms": 1500,
                "tool_calls": [
                    {"name": "list_sensors", "arguments": {}, "call_id": "1", "output": []},
                    {"name": "get_rul", "arguments": {}},
                    {"function": {"name": "list_sensors"}},  # OpenAI shape
                    {"name": ""},
                    "junk",
                ],
            },
            {"usage": {"prompt_tokens": 7, "completion_tokens": 3}, "duration_ms": 500},
            {"input_tokens": "12", "output_tokens": True, "duration_ms": None},
            "not a turn",
        ]
    }
    assert ops_metrics(trajectory, "anthropic/claude-sonnet-4-6-20250929") == {
        "turn_count": 4,
        "tool_call_count": 3,
        "unique_tools": ["get_rul", "list_sensors"],
        "tokens_in": 119,
        "tokens_out": 23,
        "duration_ms": 2000,
        "est_cost_usd": round((119 * 3.0 + 23 * 15.0) / 1e6, 6),
    }


def test_ops_from_plan_execute_steps_in_turns_or_bare_list() -> None:
    steps = [
        {"step": 1, "task": "t", "server": "iot", "tool": "list_sensors", "tool_args": {}},
        {"step": 2, "task": "t", "server": "", "tool": "none", "tool_args": {}},
        {"step": 3, "task": "t", "server": "", "tool": "", "tool_args": {}},
        {"step": 4, "task": "t", "server": "fmsr", "tool": "analyze_dga", "tool_args": {}},
    ]
    expected = {
        "turn_count": 4,
        "tool_call_count": 2,  # "none" and "" are placeholders, not calls
        "unique_tools": ["analyze_dga", "list_sensors"],
        "tokens_in": 0,
        "tokens_out": 0,
        "duration_ms": None,
        "est_cost_usd": None,
    }
    assert ops_metrics({"turns": steps}, "llama-3-1-8b-instruct") == expected
    assert ops_metrics(steps, "llama-3-1-8b-instruct") == expected


@pytest.mark.parametrize("trajectory", [None, {}, {"turns": None}, {"turns": "x"}, 5, "text"])
def test_ops_of_missing_or_odd_trajectories(trajectory: Any) -> None:
    ops = ops_metrics(trajectory, "gpt-4o")
    assert ops["turn_count"] == 0
    assert ops["tool_call_count"] == 0
    assert ops["duration_ms"] is None
    assert ops["est_cost_usd"] is None


def test_float_durations_sum_exactly() -> None:
    ops = ops_metrics({"turns": [{"duration_ms": 0.1}] * 10}, "")
    assert ops["duration_ms"] == 1.0


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("gpt-4o", "gpt-4o"),
        ("openai/GPT-4o", "gpt-4o"),
        ("litellm_proxy/anthropic/claude-opus-4-5-20251101", "claude-opus-4-5"),
        ("watsonx/meta-llama/llama-3-3-70b-instruct", "llama-3-3-70b-instruct"),
        ("model-12345", "model-12345"),  # fewer than 6 digits: not a date
        ("gpt-4o-2024-08-06", "gpt-4o"),  # OpenAI's dated names (ops26 #3)
        ("openai/gpt-4.1-2025-04-14", "gpt-4.1"),
        ("gpt-4o-2024-08", "gpt-4o-2024-08"),  # no whole date
        (
            "gpt-4o-\u0662\u0660\u0662\u0664-\u0660\u0668-\u0660\u0666",
            "gpt-4o-\u0662\u0660\u0662\u0664-\u0660\u0668-\u0660\u0666",
        ),
        ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),  # never the priced gpt-4o
    ],
)
def test_model_key(model: str, key: str) -> None:
    assert model_key(model) == key


def test_estimate_cost() -> None:
    assert estimate_cost("gpt-4.1", 1_000_000, 1_000_000) == 15.0
    assert estimate_cost("unknown-model", 10, 10) is None
    assert estimate_cost("gpt-4o", 0, 0) is None
    assert estimate_cost("", 10, 10) is None


# --------------------------------------------------------------------------- records


def record(
    scenario_id: str = "1",
    run_id: str = "r1",
    *,
    passed: bool = True,
    score: float = 1.0,
    scenario_type: str | None = None,
    error: str | None = None,
    fields: tuple[FieldResult, ...] = (),
    metrics: dict[str, Any] | None = None,
    ops: dict[str, Any] | None = None,
    runner: str = "cell_A",
    model: str = "gpt-4o",
) -> RunRecord:
    result = ScoreResult(
        passed=passed,
        score=score,
        mode="strict",
        metrics=metrics if metrics is not None else {"f1": score, "missing_keys": []},
        fields=fields,
    )
    return RunRecord(
        scenario_id=scenario_id,
        scenario_type=scenario_type,
        run_id=run_id,
        runner=runner,
        model=model,
        question="q",
        answer={"a": 1},
        scorer="static_json",
        passed=passed,
        score=score,
        rationale="ok" if passed else "differs",
        details={} if error else result.to_dict(),
        ops=ops or ops_metrics(None, model),
        error=error,
        source=f"{run_id}.json",
        scenario_path=f"scenario_{scenario_id}",
    )


def test_run_record_layout_matches_the_reference_order() -> None:
    data = record().to_dict()
    assert list(data) == [
        "scenario_id",
        "scenario_type",
        "run_id",
        "runner",
        "model",
        "question",
        "answer",
        "score",
        "ops",
        "error",
        "source",
        "scenario_path",
        "nodeid",
        "label",
    ]
    assert list(data["score"]) == ["scorer", "passed", "score", "rationale", "details"]
    assert list(data["ops"]) == [
        "turn_count",
        "tool_call_count",
        "unique_tools",
        "tokens_in",
        "tokens_out",
        "duration_ms",
        "est_cost_usd",
    ]
    assert data["score"]["details"]["mode"] == "strict"
    assert json.loads(json.dumps(data)) == data


def test_run_record_round_trip_and_constructors() -> None:
    original = record(passed=False, score=0.5)
    assert RunRecord.from_dict(original.to_dict()) == original
    crashed = RunRecord.for_error(
        scenario_id="4", run_id="r", error="worker gw1 crashed", nodeid="n"
    )
    assert (crashed.passed, crashed.score, crashed.error, crashed.rationale) == (
        False,
        0.0,
        "worker gw1 crashed",
        "worker gw1 crashed",
    )
    assert crashed.ops == dict.fromkeys(ops_metrics(None, ""))  # not measured (ops26 #2)
    assert list(crashed.ops) == list(ops_metrics(None, ""))
    assert set(crashed.ops.values()) == {None}
    fixture = RunRecord.from_result(
        ScoreResult(passed=False, score=0.3, mode="similarity", reason="2 fields differ"),
        scorer="similarity",
        nodeid="tests/test_x.py::test_y",
    )
    assert (fixture.passed, fixture.score, fixture.rationale) == (False, 0.3, "2 fields differ")
    assert fixture.details["mode"] == "similarity"


def test_non_finite_score_is_stored_as_text() -> None:
    data = RunRecord.from_dict({"score": {"score": float("nan")}}).to_dict()
    assert data["score"]["score"] == 0.0
    assert record(score=float("inf")).to_dict()["score"]["score"] == "inf"


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("run_id", "name"),
    [
        ("run-7", "run-7.json"),
        ("../escaped", "_escaped.json"),
        ("a/b\\c", "a_b_c.json"),
        ("x\x00y", "x_y.json"),
        ("_aggregate", "run-_aggregate.json"),
        ("_AGGREGATE", "run-_AGGREGATE.json"),
        (".", "_.json"),
        ("..", "_.json"),
        ("CON", "run-CON.json"),
        ("nul.txt", "run-nul.txt.json"),
        ("com1", "run-com1.json"),
        (" spaced out ", "spaced_out.json"),
        ("", "scenario-11.json"),
        ("héllo wörld", "héllo_wörld.json"),
        ("COM\u00b9", "run-COM\u00b9.json"),  # a device name on Windows too
        ("\u1112\u1161\u11ab", "\ud55c.json"),  # NFD Hangul: macOS stores it as NFC
    ],
)
def test_report_name_sanitises(run_id: str, name: str) -> None:
    assert name_of(run_id, "11", set()) == name


def test_report_name_collisions_and_long_names() -> None:
    taken: set[str] = set()
    names = [name_of(r, "1", taken) for r in ["x", "x", "X", "x-1", ""]]
    assert names == ["x.json", "x-1.json", "X-2.json", "x-1-1.json", "scenario-1.json"]
    long_a, long_b = "a" * 300 + "1", "a" * 300 + "2"
    first, second = name_of(long_a, "1", taken), name_of(long_b, "1", taken)
    assert first != second
    assert len(first.encode()) <= 200
    assert len(second.encode()) <= 200


def test_a_file_named_after_a_run_holds_that_run() -> None:
    """Own names first, names as they stand before cleaned ones, repeats last: ``a b``
    (cleaned to ``a_b``) took ``a_b.json`` from the run named ``a_b`` because it sorted
    first (review diff17a), as ``402[run-1]`` took ``run-1-2.json`` (review switchers17)."""
    records = [
        {"scenario_id": "401", "run_id": "a b", "label": "a b"},
        {"scenario_id": "401", "run_id": "a_b", "label": "a_b"},
        {"scenario_id": "401", "run_id": "run-1", "label": "run-1"},
        {"scenario_id": "401", "run_id": "run-1", "label": "run-1-2"},
        {"scenario_id": "402", "run_id": "run-1", "label": "run-1"},
        {"scenario_id": "403", "run_id": "", "label": None},
        {"scenario_id": "404", "run_id": "Run-1"},
    ]
    assert _report_names(records, set()) == [
        "a_b-1.json",
        "a_b.json",
        "run-1.json",
        "run-1-2.json",
        "run-1-1.json",
        "scenario-403.json",
        "Run-1-3.json",  # run-1.json on a case-insensitive file system is 401's
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["r", "R", "r-1", "r-2", "r-1-1", "r 1", "", "_aggregate"])))
def test_repeated_names_take_the_first_free_suffix(run_ids: list[str]) -> None:
    """The suffix search resumes where it last stopped for its stem (5,000 runs sharing one
    run id took 2 s, quadratic); the names stay those of trying every suffix from 1."""
    records = [{"run_id": r, "scenario_id": "s"} for r in run_ids]
    taken: set[str] = set()
    stems = [_report_stem(r, "s") for r in run_ids]
    given = {
        i: _claim(stem, taken)
        for clean in (True, False)
        for i, (r, stem) in enumerate(zip(run_ids, stems, strict=True))
        if (r == stem) is clean
    }
    expected = []
    for i, stem in enumerate(stems):
        n = 1
        while not given[i] and _claim(f"{stem}-{n}", taken) is None:
            n += 1
        expected.append(given[i] or f"{stem}-{n}.json")
    assert _report_names(records, set()) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=300), min_size=1, max_size=8))
def test_report_names_are_always_safe_and_unique(run_ids: list[str]) -> None:
    taken: set[str] = set()
    names = [name_of(r, "s", taken) for r in run_ids]
    assert len({n.casefold() for n in names}) == len(names)
    for name in names:
        assert name.endswith(".json")
        assert name.casefold() != AGGREGATE_NAME
        assert "/" not in name
        assert "\\" not in name
        assert "\x00" not in name
        assert not name.startswith(".")
        assert os.path.basename(name) == name
        assert len(name.encode()) <= 200
        assert name.split(".")[0].casefold() not in {"con", "prn", "aux", "nul"}


# --------------------------------------------------------------------------- aggregate


def field(path: str, status: str, score: float) -> FieldResult:
    return FieldResult(path, status, score)


def sample_aggregate() -> Aggregate:
    agg = Aggregate.empty()
    agg.add(
        record(
            "1",
            "a",
            scenario_type="count",
            fields=(field("answer.x", "match", 1.0), field("answer.y", "mismatch", 0.5)),
            metrics={"f1": 0.8, "precision": 1.0, "missing_keys": ["answer.z"], "extra_keys": []},
            ops={
                **ops_metrics(None, ""),
                "tokens_in": 10,
                "duration_ms": 100,
                "tool_call_count": 2,
            },
        )
    )
    agg.add(
        record(
            "1",
            "b",
            passed=False,
            score=0.25,
            scenario_type="count",
            fields=(field("answer.y", "omission", 0.0),),
            metrics={"f1": 0.4, "missing_keys": ["answer.y"], "extra_keys": ["answer.q"]},
            ops={**ops_metrics(None, ""), "tokens_out": 5, "duration_ms": 300, "est_cost_usd": 0.5},
            runner="cell_B",
            model="llama",
        ).to_dict()
    )
    agg.add(record("2", "c", passed=False, score=0.0, error="scorer 'x' failed: boom"))
    agg.note(
        {
            "unmatched_trajectories": [{"source": "o.json", "run_id": "o", "scenario_id": "9"}],
            "unmatched_scenarios": [{"id": "5", "path": "scenario_5", "error": None}],
            "duplicates": [{"kind": "run_id", "id": "a", "sources": ["a.json", "b/a.json"]}],
            "errors": [{"source": "bad.jsonl:2", "error": "invalid JSON"}],
        }
    )
    return agg


def test_aggregate_report_figures() -> None:
    report = sample_aggregate().report(generated_at="T")
    assert list(report)[:8] == [
        "generated_at",
        "runners",
        "models",
        "totals",
        "by_scenario_type",
        "ops",
        "results",
        "score_summary",
    ]
    assert report["generated_at"] == "T"
    assert report["runners"] == ["cell_A", "cell_B"]
    assert report["models"] == ["gpt-4o", "llama"]
    assert report["totals"] == {
        "scenarios": 2,
        "scored": 3,
        "passed": 1,
        "pass_rate": 0.3333,
        "errors": 1,
        "load_errors": 1,  # bad.jsonl:2, noted by the join
        "unmatched_trajectories": 1,
        "unmatched_scenarios": 1,
    }
    assert report["by_scenario_type"] == {
        "count": {
            "total": 2,
            "passed": 1,
            "pass_rate": 0.5,
            "score_avg": 0.625,
            "precision_avg": 1.0,
            "f1_avg": 0.6,
        },
        "unknown": {"total": 1, "passed": 0, "pass_rate": 0.0, "score_avg": 0.0},
    }
    assert report["ops"] == {
        "tokens_in_total": 10,
        "tokens_out_total": 5,
        "duration_ms_p50": 200.0,
        "duration_ms_p95": 290.0,
        "tool_calls_total": 2,
        "est_cost_usd_total": 0.5,
    }
    assert report["score_summary"] == {
        "scored_results": 2,
        "score_avg": round(1.25 / 3, 4),
        "score_min": 0.0,
        "score_max": 1.0,
        "score_ci95": [0.0, 1.0],  # t-interval over 3 runs, clipped to [0, 1]
        "precision_avg": 1.0,
        "f1_avg": 0.6,
        "missing_keys_total": 2,
        "extra_keys_total": 1,
        "detail_entries_total": 3,
    }
    assert report["per_field"] == [
        {
            "path": "answer.y",
            "count": 2,
            "failing": 2,
            "mean_score": 0.25,
            "statuses": {"mismatch": 1, "omission": 1},
        }
    ]
    assert report["results"][0] == {
        "scenario_id": "1",
        "run_id": "a",
        "label": None,
        "runner": "cell_A",
        "model": "gpt-4o",
        "passed": True,
        "score": 1.0,
        "error": None,
        "report": "a.json",
        "nodeid": None,
        "reason": None,
    }
    assert report["unmatched"]["trajectories"][0]["source"] == "o.json"
    assert report["unmatched"]["scenarios"] == [{"id": "5", "path": "scenario_5", "error": None}]
    assert report["duplicates"][0]["kind"] == "run_id"
    assert report["errors"] == [
        {"source": "bad.jsonl:2", "error": "invalid JSON"},
        {"source": "c.json", "scenario_id": "2", "run_id": "c", "error": "scorer 'x' failed: boom"},
    ]
    assert report["complete"] is True
    assert report["incomplete_reasons"] == []
    assert json.loads(json.dumps(report)) == report


def test_empty_aggregate_and_single_duration() -> None:
    report = Aggregate.empty().report(generated_at="T")
    assert report["totals"] == {
        "scenarios": 0,
        "scored": 0,
        "passed": 0,
        "pass_rate": 0.0,
        "errors": 0,
        "load_errors": 0,
        "unmatched_trajectories": 0,
        "unmatched_scenarios": 0,
    }
    assert report["ops"]["duration_ms_p50"] is None
    assert report["ops"]["est_cost_usd_total"] is None
    assert report["score_summary"]["score_avg"] is None
    one = Aggregate.empty()
    one.add(record(ops={**ops_metrics(None, ""), "duration_ms": 42}))
    assert one.report()["ops"]["duration_ms_p95"] == 42.0
    assert one.report()["generated_at"].endswith("+00:00")


def test_per_field_lists_only_failing_paths_worst_first_and_capped() -> None:
    agg = Aggregate.empty()
    fields = tuple(field(f"answer.f{i:02d}", "mismatch", i / 100) for i in range(PER_FIELD_TOP + 5))
    agg.add(
        record(
            fields=(*fields, field("answer.ok", "match", 1.0), field("answer.s", "skipped", 0.0))
        )
    )
    rows = agg.report()["per_field"]
    assert [r["path"] for r in rows] == [f"answer.f{i:02d}" for i in range(PER_FIELD_TOP)]


def test_skipped_fields_have_no_score_in_the_field_figures() -> None:
    """A field skipped in some runs (``x-eval-skip``, ``ignore_paths``) pulled its mean down
    with a 0.0 per skip, and a field skipped everywhere showed a mean of 0.0: a baseline
    then called ignoring a field a regression."""
    agg = Aggregate.empty()
    agg.add(
        record(
            "1", "a", fields=(field("answer.x", "match", 1.0), field("answer.n", "skipped", 0.0))
        )
    )
    agg.add(
        record(
            "2", "b", fields=(field("answer.x", "skipped", 0.0), field("answer.n", "skipped", 0.0))
        )
    )
    agg.add(record("3", "c", fields=(field("answer.x", "mismatch", 0.5),)))
    report = agg.report()
    assert report["field_scores"] == {"answer.x": {"count": 2, "mean_score": 0.75, "failing": 1}}
    assert report["per_field"] == [
        {
            "path": "answer.x",
            "count": 2,
            "failing": 1,
            "mean_score": 0.75,
            "statuses": {"match": 1, "mismatch": 1, "skipped": 1},
        }
    ]


def test_the_worst_fields_are_those_that_lost_the_most_score() -> None:
    """A field failing in most runs comes before one an odd answer invented twice, whose
    mean is lower but which cost two points, not eight (realdata24 #3)."""
    agg = Aggregate.empty()
    for n in range(10):
        fields = [field("answer.status", "mismatch" if n < 8 else "match", 0.0 if n < 8 else 1.0)]
        if n < 2:
            fields.append(field("answer.invented", "hallucination", 0.0))
        agg.add(record("1", f"r{n}", passed=False, score=0.2, fields=tuple(fields)))
    worst = agg.report("T")["per_field"]
    assert [(w["path"], w["failing"], w["mean_score"]) for w in worst] == [
        ("answer.status", 8, 0.2),
        ("answer.invented", 2, 0.0),
    ]


def test_incomplete_and_notes_are_sets() -> None:
    agg = sample_aggregate()
    agg.note(  # the same join noted by another worker
        {
            "unmatched_trajectories": [{"source": "o.json", "run_id": "o", "scenario_id": "9"}],
            "errors": [{"source": "bad.jsonl:2", "error": "invalid JSON"}],
        }
    )
    agg.mark_incomplete("worker gw1 crashed")
    agg.mark_incomplete("worker gw1 crashed")
    report = agg.report()
    assert len(report["unmatched"]["trajectories"]) == 1
    assert len(report["errors"]) == 2
    assert report["complete"] is False
    assert report["incomplete_reasons"] == ["worker gw1 crashed"]


def test_a_selection_is_marked_in_the_report() -> None:
    agg = sample_aggregate()
    assert agg.report("T")["selection"] is False
    agg.mark_selection()
    assert agg.report("T")["selection"] is True


# Any order of the runs (as xdist workers send them) gives the serial report (generated_at
# fixed).
_record_strategy = st.builds(
    lambda sid, rid, passed, score, kind, tokens, duration, paths, err: record(
        sid,
        rid,
        passed=passed,
        score=score,
        scenario_type=kind,
        error="boom" if err else None,
        fields=tuple(field(f"answer.{p}", "mismatch", score) for p in paths),
        metrics={"f1": score, "recall": score / 3},
        ops={
            **ops_metrics(None, ""),
            "tokens_in": tokens,
            "duration_ms": duration,
            "est_cost_usd": None if duration is None else duration / 7,
        },
    ),
    st.sampled_from(["1", "2", "011"]),
    st.sampled_from(["r", "r", "x", "", "_aggregate"]),
    st.booleans(),
    st.floats(0, 1),
    st.sampled_from([None, "a", "b"]),
    st.integers(0, 10**6),
    st.one_of(st.none(), st.floats(0, 1e6), st.integers(0, 10**6)),
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
    st.booleans(),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_record_strategy, max_size=12),
    st.integers(1, 4),
    st.randoms(use_true_random=False),
)
def test_the_report_is_independent_of_the_order_records_and_notes_arrive_in(
    records: list[RunRecord], workers: int, rnd: random.Random
) -> None:
    """The controller adds each worker's records and join notes as they arrive: any order,
    and the same join noted by every worker, gives the serial run's report."""
    serial = Aggregate.empty()
    for rec in records:
        serial.add(rec)
    serial.note({"errors": [{"source": "x", "error": "e"}]})
    shuffled = list(records)
    rnd.shuffle(shuffled)
    arrived = Aggregate.empty()
    for n, rec in enumerate(shuffled):
        arrived.add(rec.to_dict())
        if n % workers == 0:
            arrived.note({"errors": [{"source": "x", "error": "e"}]})
    arrived.note({"errors": [{"source": "x", "error": "e"}]})
    assert arrived.report("T") == serial.report("T")


# --------------------------------------------------------------------------- files


def test_write_reports_layout_and_safety(tmp_path: Path) -> None:
    agg = Aggregate.empty()
    for rid in ["../escaped", "_aggregate", "run", "run", ""]:
        agg.add(record("1", rid))
    out = tmp_path / "reports" / "structeval"
    written = write_reports(out, agg, generated_at="T")
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        [
            "_escaped.json",
            "run-_aggregate.json",
            "run.json",
            "run-1.json",
            "scenario-1.json",
            AGGREGATE_NAME,
        ]
    )
    assert not (tmp_path / "reports" / "escaped.json").exists()
    assert [p.name for p in written.run_files] == [
        "scenario-1.json",
        "_escaped.json",
        "run-_aggregate.json",
        "run.json",
        "run-1.json",
    ]
    on_disk = json.loads((out / AGGREGATE_NAME).read_text())
    assert on_disk == written.report
    assert on_disk["totals"]["scored"] == 5
    assert {r["report"] for r in on_disk["results"]} == {p.name for p in written.run_files}
    per_run = json.loads((out / "run.json").read_text())
    assert per_run == record("1", "run").to_dict()


def test_write_reports_replaces_its_own_stale_files_only(tmp_path: Path) -> None:
    first = Aggregate.empty()
    first.add(record("1", "old"))
    first.add(record("1", "kept"))
    write_reports(tmp_path, first)
    (tmp_path / "user-notes.json").write_text("{}")
    second = Aggregate.empty()
    second.add(record("1", "kept", passed=False, score=0.0))
    write_reports(tmp_path, second)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        AGGREGATE_NAME,
        "kept.json",
        "user-notes.json",
    ]
    assert json.loads((tmp_path / "kept.json").read_text())["score"]["passed"] is False


def test_a_stale_name_that_is_the_new_report_is_not_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run id that changes in letter case only (``Run-1`` to ``run-1``): on a
    case-insensitive file system (macOS, Windows) the stale ``Run-1.json`` is the new
    ``run-1.json``, and unlinking it deleted the report just written, while the aggregate
    still listed it (review portability33 #1). Simulated with a hard link: two names, one
    file, as such a file system has."""
    first = Aggregate.empty()
    first.add(record("1", "Run-1"))
    write_reports(tmp_path, first)
    rename = os.replace

    def case_insensitive(src: str, path: str) -> None:
        rename(src, path)
        if os.path.basename(path) == "run-1.json":
            os.unlink(tmp_path / "Run-1.json")
            os.link(path, tmp_path / "Run-1.json")

    monkeypatch.setattr(os, "replace", case_insensitive)
    second = Aggregate.empty()
    second.add(record("1", "run-1", passed=False, score=0.0))
    written = write_reports(tmp_path, second)
    assert [p.name for p in written.run_files] == ["run-1.json"]
    assert (tmp_path / "Run-1.json").exists()  # (the one file's other name)
    assert json.loads((tmp_path / "run-1.json").read_text())["score"]["passed"] is False


def test_a_stale_name_differing_in_case_only_is_removed_where_case_counts(
    tmp_path: Path,
) -> None:
    """On a case-sensitive file system ``Run-1.json`` is another file: it goes."""
    first = Aggregate.empty()
    first.add(record("1", "Run-1"))
    write_reports(tmp_path, first)
    second = Aggregate.empty()
    second.add(record("1", "run-1"))
    write_reports(tmp_path, second)
    assert sorted(p.name for p in tmp_path.iterdir()) == [AGGREGATE_NAME, "run-1.json"]


def test_a_file_not_ours_named_decomposed_is_not_replaced(tmp_path: Path) -> None:
    """A user's ``café.json`` named in NFD (as HFS+ and many macOS tools write names) is the
    same name as the NFC report ``café.json`` on macOS: the report takes the next free name
    (review portability33 #2)."""
    agg = Aggregate.empty()
    agg.add(record("1", "café"))
    decomposed = unicodedata.normalize("NFD", "café.json")
    assert [name for _, name in agg.ordered(reserved={decomposed})] == ["café-1.json"]
    assert [name for _, name in agg.ordered(reserved={"CAFÉ.json"})] == ["café-1.json"]


@pytest.mark.parametrize("previous", ["too big", "not json"])
def test_an_unreadable_aggregate_leaves_no_stale_report_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, previous: str
) -> None:
    """An aggregate over ``MAX_REPORT_BYTES`` was passed by without a word, so the earlier
    run's per-run reports stayed beside the new run's (hostile25 #5): they are per-run
    reports, so they go; other files stay."""
    first = Aggregate.empty()
    first.add(record("1", "old"))
    write_reports(tmp_path, first)
    if previous == "too big":
        monkeypatch.setattr(report_module, "MAX_REPORT_BYTES", 10)
    else:
        (tmp_path / AGGREGATE_NAME).write_text("{", encoding="utf-8")
    (tmp_path / "user-notes.json").write_text("{}", encoding="utf-8")
    second = Aggregate.empty()
    second.add(record("1", "new"))
    write_reports(tmp_path, second)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        AGGREGATE_NAME,
        "new.json",
        "user-notes.json",
    ]


def test_a_report_holding_half_an_emoji_is_reused_after_a_lost_aggregate(
    tmp_path: Path,
) -> None:
    """A run killed before its aggregate leaves its reports; the next run takes them back by
    name. One holding a lone surrogate (written as its escape, which orjson refuses) was "not
    a report", so the next run wrote ``cut-1.json`` beside it for good (review outputs22 #2)."""
    run = Aggregate.empty()
    run.add(record("1", "cut", ops={"note": "\ud83d"}))
    write_reports(tmp_path, run)
    (tmp_path / AGGREGATE_NAME).unlink()
    write_reports(tmp_path, run)
    assert sorted(p.name for p in tmp_path.iterdir()) == [AGGREGATE_NAME, "cut.json"]


@pytest.mark.parametrize(
    "previous",
    [
        '{"results": [{"report": "../victim.json"}, {"report": "_aggregate.json"}]}',
        '{"results": [{"report": "x.json"}, 5]}',
        '{"results": 3}',
        "not json",
    ],
)
def test_stale_cleanup_never_leaves_the_directory(tmp_path: Path, previous: str) -> None:
    out = tmp_path / "reports"
    out.mkdir()
    victim = tmp_path / "victim.json"
    victim.write_text("{}")
    (out / "x.json").write_text("{}")
    (out / AGGREGATE_NAME).write_text(previous)
    agg = Aggregate.empty()
    agg.add(record())
    write_reports(out, agg)
    assert victim.exists()
    assert (out / "x.json").exists()  # only a well-formed previous aggregate removes files
    assert json.loads((out / AGGREGATE_NAME).read_text())["totals"]["scored"] == 1


def test_failed_write_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    agg = Aggregate.empty()
    agg.add(record("1", "run"))
    with pytest.raises(OSError, match="No space left"):
        write_reports(tmp_path, agg)
    assert list(tmp_path.iterdir()) == []  # (the journal could not be written either)


def test_a_folder_or_link_in_the_way_keeps_its_name(tmp_path: Path) -> None:
    (tmp_path / "run.json").mkdir()
    (tmp_path / "other.json").symlink_to(tmp_path / "run.json")
    agg = Aggregate.empty()
    agg.add(record("1", "run"))
    agg.add(record("1", "other"))
    written = write_reports(tmp_path, agg)
    assert sorted(p.name for p in written.run_files) == ["other-1.json", "run-1.json"]
    assert (tmp_path / "run.json").is_dir()
    assert (tmp_path / "other.json").is_symlink()


def test_report_files_keep_big_integers(tmp_path: Path) -> None:
    agg = Aggregate.empty()
    big = 10**30
    agg.add(RunRecord.from_dict({**record().to_dict(), "answer": {"n": big}}))
    written = write_reports(tmp_path, agg)
    assert json.loads(written.run_files[0].read_text())["answer"] == {"n": big}


# --------------------------------------------------------------------------- summary + gates


def test_render_summary_lists_everything() -> None:
    agg = sample_aggregate()
    agg.mark_incomplete("worker gw0 crashed")
    lines = render_summary(agg.report())
    text = "\n".join(lines)
    assert lines[0] == (
        "scenarios 2 | runs 3 | passed 1 | pass rate 0.3333 | mean score 0.4167 | errors 1"
        " | load errors 1"
    )
    assert "by type: count 1/2 mean 0.6250, unknown 0/1 mean 0.0000" in text
    assert "unmatched trajectories: 1 (o.json -> '9', no such scenario)" in text
    assert "scenarios without trajectories: 1 (5)" in text
    assert "duplicates: 1 (run_id 'a' x2)" in text
    assert "errors: 2 (1 loading, 1 in runs)" in text
    assert "bad.jsonl:2: invalid JSON" in text
    assert "worst fields: answer.y (mean 0.25, 2/2 failing)" in text
    assert lines[-1] == "INCOMPLETE run: worker gw0 crashed"


def test_render_summary_truncates_long_lists() -> None:
    agg = Aggregate.empty()
    agg.note(
        {"unmatched_scenarios": [{"id": str(i), "path": f"s{i}", "error": None} for i in range(30)]}
    )
    (line,) = [x for x in render_summary(agg.report()) if x.startswith("scenarios without")]
    assert line.endswith("... (+25 more))")


def test_render_summary_clips_long_duplicate_ids() -> None:
    agg = Aggregate.empty()
    agg.note({"duplicates": [{"kind": "run_id", "id": "r" * 5000, "sources": ["a", "b"]}]})
    (line,) = [x for x in render_summary(agg.report()) if x.startswith("duplicates")]
    assert line == f"duplicates: 1 (run_id '{'r' * 56}... x2)"


def test_render_summary_clips_what_the_data_names() -> None:
    """A model's 20,000-character key printed a 20,046-character "worst fields" line; ids of
    types, flaky scenarios and scenarios without runs are clipped too (review outputs22 #5)."""
    key = "k" * 20_000
    agg = Aggregate.empty()
    agg.add(RunRecord.from_result(score({"a": 1}, {"a": 1, key: 1}), scorer="strict"))
    for passed in (True, False):
        agg.add(record("s" * 500, f"x{passed}", passed=passed, scenario_type="T" * 500))
    agg.note({"unmatched_scenarios": [{"id": "u" * 500, "path": "p", "error": None}]})
    lines = render_summary(agg.report())
    assert max(map(len, lines)) < 400
    (worst,) = [x for x in lines if x.startswith("worst fields: ")]
    assert f"answer.{'k' * 110}..." in worst
    assert all("s" * 120 not in x and "u" * 60 not in x and "T" * 120 not in x for x in lines)


def test_the_summary_never_shows_a_near_miss_as_perfect() -> None:
    """0.9958 rounded to "mean 1.00" read as a perfect field that failed in half its runs
    (switcher26 #6); a pass rate of 0.99996 as "1.0000" beside a failed run."""
    report = {
        "totals": {"scenarios": 1, "scored": 25_000, "passed": 24_999, "pass_rate": 0.99996},
        "score_summary": {"score_avg": 0.99999},
        "by_scenario_type": {"count": {"passed": 1, "total": 2, "score_avg": 0.99999}},
        "per_field": [
            {"path": "answer.observations", "mean_score": 0.9958, "failing": 1, "count": 2}
        ],
    }
    lines = render_summary(report)
    assert lines[0].startswith(
        "scenarios 1 | runs 25000 | passed 24999 | pass rate >0.9999 | mean score >0.9999 |"
    )
    assert "by type: count 1/2 mean >0.9999" in lines
    assert "worst fields: answer.observations (mean >0.99, 1/2 failing)" in lines


def test_an_aggregate_never_rounds_a_near_miss_onto_one_or_zero() -> None:
    """20,000 runs passed of 20,001 was a pass rate of 1.0 (a gate ``pass_rate>=1`` met), and
    a field scoring 0.99999 a mean of 1.0 (diff26a #2): 4 places, but never onto 1 or 0 from
    the other side."""
    aggregate = Aggregate.empty()
    for i in range(20_000):
        aggregate.add(record("1", f"r{i}"))
    near = score({"a": 100_000}, {"a": 100_001}, "similarity")
    assert 0.99998 < near.score < 1.0
    aggregate.add(RunRecord.from_result(near, scorer="similarity", run_id="near", scenario_id="2"))
    report = aggregate.report("T")
    assert report["totals"]["pass_rate"] == 0.9999
    assert report["score_summary"]["score_avg"] == 0.9999
    assert report["score_summary"]["score_min"] == 0.9999
    assert report["per_field"][0]["mean_score"] == 0.9999
    assert gate_failures(report, gates=[parse_gate("pass_rate>=1")]) != []
    lines = render_summary(report)
    assert " | pass rate 0.9999 | mean score 0.9999 |" in lines[0]
    assert "worst fields: answer.a (mean >0.99, 1/1 failing)" in lines
    lonely = Aggregate.empty()
    lonely.add(record("1", "ok"))
    for i in range(20_000):
        lonely.add(record("1", f"x{i}", passed=False, score=0.0))
    assert lonely.report("T")["totals"]["pass_rate"] == 0.0001


def test_near_misses_never_read_as_one_in_reasons_and_failure_heads() -> None:
    """diff26a #2: the threshold reason said ``f1 1.000 < threshold 1``; pytest's FAILED
    line ``score 1.0000, not passed``."""
    from pytest_structeval.collect import failure_text

    gold = {f"k{i}": i for i in range(2000)}
    result = score(gold, {**gold, "k0": -1}, threshold=1.0)
    assert result.reason.endswith("(f1 0.9995 < threshold 1)")
    near = score({"a": 100_000}, {"a": 100_001}, "similarity")
    record = RunRecord.from_result(near, scorer="similarity", run_id="near", scenario_id="2")
    head = failure_text(record, detailed=False).splitlines()[0]
    assert head == "scenario 2 run near (similarity): score >0.9999, not passed"


def test_the_by_type_line_names_the_worst_few_of_many_types() -> None:
    """1,000 scenario types made one 21,897-character terminal line (scale26 #4)."""
    types = {
        f"t{i}": {"passed": i % 5, "total": 5, "pass_rate": (i % 5) / 5, "score_avg": i / 1000}
        for i in range(1000)
    }
    (line,) = [x for x in render_summary({"by_scenario_type": types}) if x.startswith("by type")]
    assert line == (
        "by type (worst 5 of 1000): t0 0/5 mean 0.0000, t5 0/5 mean 0.0050, "
        "t10 0/5 mean 0.0100, t15 0/5 mean 0.0150, t20 0/5 mean 0.0200, ... (+995 more)"
    )
    few_types = {name: types[name] for name in ("t3", "t1", "t2", "t4", "t6", "t7")}
    (line,) = [x for x in render_summary({"by_scenario_type": few_types}) if "by type" in x]
    assert line.startswith("by type: t3 3/5")  # six or fewer: all of them, in the report's order


def test_gate_failures() -> None:
    report = sample_aggregate().report()
    assert gate_failures(report) == []
    assert gate_failures(report, fail_under=0.3, min_score=0.4) == []
    assert gate_failures(report, fail_under=0.8, min_score=0.5) == [
        "structeval: pass rate 0.3333 is under --structeval-fail-under 0.8000",
        "structeval: mean score 0.4167 is under --structeval-min-score 0.5000",
    ]
    assert gate_failures(report, fail_under=0.8, fail_under_flag="--fail-under") == [
        "structeval: pass rate 0.3333 is under --fail-under 0.8000"
    ]
    empty = Aggregate.empty().report()
    assert gate_failures(empty, fail_under=0.0, min_score=0.0) == [
        "structeval: no runs were scored, so --structeval-fail-under 0.0000 fails",
        "structeval: no runs were scored, so --structeval-min-score 0.0000 fails",
    ]


def test_write_reports_lets_a_hook_add_keys_to_the_aggregate(tmp_path: Path) -> None:
    def add_commit(report: dict[str, Any]) -> None:
        report["commit"] = "abc123"

    written = write_reports(tmp_path, Aggregate(), update=add_commit)
    assert written.report["commit"] == "abc123"
    assert json.loads((tmp_path / AGGREGATE_NAME).read_text())["commit"] == "abc123"


def test_notes_are_listed_in_natural_order() -> None:
    """Broken entries of a scenario file were listed ``x.jsonl:10, 406, x.jsonl:7`` (audit 9)."""
    agg = Aggregate.empty()
    agg.note(
        {
            "unmatched_scenarios": [
                {"id": f"sf/x.jsonl:{n}", "path": f"sf/x.jsonl:{n}", "error": "bad"}
                for n in (10, 7, 100)
            ]
            + [{"id": "406", "path": "sf/x.jsonl:9", "error": None}]
        }
    )
    paths = [s["path"] for s in agg.report("T")["unmatched"]["scenarios"]]
    assert paths == ["sf/x.jsonl:7", "sf/x.jsonl:9", "sf/x.jsonl:10", "sf/x.jsonl:100"]


def test_a_duplicate_run_id_names_its_scenario_in_the_summary() -> None:
    """Two scenarios each repeating run ``r`` read ``run_id 'r' x2, run_id 'r' x2`` (review 9)."""
    agg = Aggregate.empty()
    agg.note(
        {
            "duplicates": [
                {"kind": "run_id", "id": "r", "scenario_id": sid, "sources": ["a", "b"]}
                for sid in ("1", "2")
            ]
        }
    )
    (line,) = [x for x in render_summary(agg.report("T")) if x.startswith("duplicates:")]
    assert line == "duplicates: 2 (run_id 'r' x2 in 1, run_id 'r' x2 in 2)"


_METRIC = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**1100), max_value=2**1100),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
)
_DETAILS = st.fixed_dictionaries(
    {"f1": _METRIC, "matched_keys": _METRIC},
    optional={"recall": _METRIC, "missing_keys": st.lists(st.text(max_size=2), max_size=3)},
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([None, "IoT", "FMSR"]), st.none() | _DETAILS),
        min_size=1,
        max_size=12,
    )
)
def test_run_wide_metric_means_are_those_of_all_runs(runs: list[Any]) -> None:
    """The run-wide means are merged from the per-type figures (computed once); they must equal
    the figures taken over all runs at once, whatever the mix of types and values."""
    from pytest_structeval.report import (
        _merged,
        _metric_means,
        _metric_values,
        _metrics_by_type,
    )

    records = [
        {"scenario_type": kind, "score": {"details": details} if details is not None else {}}
        for kind, details in runs
    ]
    scored, metrics, counts = _merged(_metrics_by_type(records).values())
    direct = _metric_values(records)
    assert (scored, counts) == (direct[0], direct[2])
    assert _metric_means(metrics) == _metric_means(direct[1])
    assert {name: sorted(v) for name, v in metrics.items()} == {
        name: sorted(v) for name, v in direct[1].items()
    }


@pytest.mark.parametrize(
    "turns",
    [
        [{"duration_ms": 1e308}, {"duration_ms": 1e308}],  # a sum past the float range
        [{"duration_ms": 10**400}, {"duration_ms": 0.5}],  # an int no float can hold
        [{"input_tokens": 10**400}],
        [{"input_tokens": 1e308, "output_tokens": 1e308}],  # an infinite cost
    ],
)
def test_junk_counters_past_the_float_range_give_no_figure(turns: list[dict[str, Any]]) -> None:
    """A trajectory's counters are data: these raised OverflowError out of ops_metrics (so the
    run's item failed with a traceback and no record) or gave an infinite cost."""
    ops = ops_metrics({"turns": turns}, "gpt-4o")
    assert ops["est_cost_usd"] is None
    assert ops["duration_ms"] is None or type(ops["duration_ms"]) is int


def test_the_aggregate_survives_metrics_and_costs_past_the_float_range() -> None:
    """fsum raised 'intermediate overflow' for finite values whose sum no float holds (a
    custom scorer's metric, summed costs), which stopped the session's report (found by
    test_run_wide_metric_means_are_those_of_all_runs)."""
    big = 8.98846567431158e307
    aggregate = Aggregate.empty()
    for i in range(3):
        aggregate.add(
            RunRecord(
                scenario_id=str(i),
                scenario_type=None,
                run_id=f"r{i}",
                runner="",
                model="",
                question="",
                answer="",
                scorer="custom",
                passed=True,
                score=1.0,
                rationale="",
                details={"mode": "custom", "error_margin": big},
                ops={"est_cost_usd": big, "duration_ms": 5},
            )
        )
    report = aggregate.report()
    assert report["score_summary"]["error_margin_avg"] == big
    assert report["ops"]["est_cost_usd_total"] is None
    assert report["by_scenario_type"]["unknown"]["error_margin_avg"] == big


def test_the_interval_of_values_past_the_float_range_is_none() -> None:
    """(x - mean) ** 2 raised OverflowError for scores near the float range (read back from
    junk report files); such an interval has no float form."""
    from pytest_structeval.stats import mean4, mean_ci95

    assert mean_ci95([1.7e308, -1.7e308, 0.0]) is None
    assert mean4([1.7e308, 1.7e308]) == 1.7e308
    top = 1.7976931348623157e308  # fsum's partial sums overflowed even with each value / n
    assert mean4([top, top, top]) == top
    assert mean_ci95([0.25, 0.75]) is not None


@pytest.mark.parametrize(
    "data",
    [
        {"score": 1.0},
        {"score": {"details": [1, 2]}, "ops": 1.0},
        {"score": {"score": 0.5, "details": "x"}, "ops": ["a"]},
        {"score": "passed", "ops": {}},
    ],
)
def test_a_record_of_another_shape_reads_with_neutral_defaults(data: dict[str, Any]) -> None:
    """from_dict raised AttributeError, TypeError or ValueError when a part of a record file
    had another shape (a score that is a number, details that are a list, ops a float)."""
    record = RunRecord.from_dict(data)
    assert dict(record.details) == {}
    assert record.ops == ops_metrics(None, "")
    assert record.score == (0.5 if data["score"] == {"score": 0.5, "details": "x"} else 0.0)


def test_ops_counters_read_junk_as_the_docstring_says() -> None:
    steps = [
        {"input_tokens": -50, "output_tokens": 12.0, "tool": "N/A"},  # negative: 0; float: 12
        {"input_tokens": 100, "tool": "null"},
        {"tool": " None "},  # placeholders in any case, with blanks, are no tool
        {"tool": "get_rul"},
    ]
    ops = ops_metrics(steps, "gpt-4o")
    assert (ops["tokens_in"], ops["tokens_out"]) == (100, 12)
    assert ops["tool_call_count"] == 1
    assert ops["unique_tools"] == ["get_rul"]


def test_token_totals_are_exact_past_the_float_range() -> None:
    """A run that said 10**400 tokens kept them in its own file but dropped out of the
    aggregate's total, which then disagreed with the files it sums (review)."""
    agg = Aggregate.empty()
    agg.add(record("1", "r1", ops={"tokens_in": 10**400, "tokens_out": 2, "tool_call_count": 1}))
    agg.add(record("2", "r2", ops={"tokens_in": 12, "tokens_out": 3.0, "tool_call_count": 0}))
    ops = agg.report("T")["ops"]
    assert (ops["tokens_in_total"], ops["tokens_out_total"]) == (10**400 + 12, 5)


def test_long_non_ascii_report_names_are_cut_in_bytes() -> None:
    """A 130-character id of two-byte letters is 260 bytes: it is cut by bytes, not
    characters, or the write fails with ENAMETOOLONG (review mutants16-plugin r17)."""
    accented = "é" * 130
    digest = hashlib.sha256(accented.encode()).hexdigest()[:12]
    assert name_of(accented, "s", set()) == "é" * 68 + f"~{digest}.json"
    cjk = "字" * 60  # 60 characters, 180 bytes
    digest = hashlib.sha256(cjk.encode()).hexdigest()[:12]
    assert name_of(cjk, "s", set()) == "字" * 45 + f"~{digest}.json"
    assert len(name_of(cjk, "s", set()).encode()) == 135 + 1 + 12 + 5


def test_bools_are_no_metric_values() -> None:
    """Bool details (``ignore_extra``, ``abstained``) must not become ``*_avg`` figures, nor a
    baseline's ``true`` score 1.0 (review mutants16-plugin st6)."""
    assert finite_number(True) is None
    assert finite_number(False) is None
    agg = Aggregate.empty()
    agg.add(record(metrics={"f1": 0.5, "ignore_extra": True, "abstained": False}))
    report = agg.report("T")
    assert report["by_scenario_type"]["unknown"] == {
        "total": 1,
        "passed": 1,
        "pass_rate": 1.0,
        "score_avg": 1.0,
        "f1_avg": 0.5,
    }
    assert [k for k in report["score_summary"] if k.endswith("_avg")] == ["score_avg", "f1_avg"]


def test_a_reason_of_exactly_reason_chars_is_kept_whole() -> None:
    """The one-line reason is cut only past REASON_CHARS characters (review mutants16-plugin
    r27)."""
    agg = Aggregate.empty()
    for run_id, length in (("r1", REASON_CHARS), ("r2", REASON_CHARS + 1)):
        data = record("1", run_id, passed=False, score=0.0).to_dict()
        data["score"]["rationale"] = "x" * length
        agg.add(data)
    reasons = [r["reason"] for r in agg.report("T")["results"]]
    assert reasons == ["x" * REASON_CHARS, "x" * (REASON_CHARS - 3) + "..."]


def test_only_passed_true_counts_as_passed() -> None:
    """A foreign record's ``"passed": "no"`` is not a pass: totals agree with its results
    entry (review mutants16-plugin r2)."""
    data = record("1", "r1", score=0.5).to_dict()
    data["score"]["passed"] = "no"
    agg = Aggregate.empty()
    agg.add(data)
    report = agg.report("T")
    assert (report["totals"]["passed"], report["totals"]["pass_rate"]) == (0, 0.0)
    assert report["results"][0]["passed"] is False
    assert report["by_scenario_type"]["unknown"]["passed"] == 0


def test_a_run_without_a_score_counts_as_zero_in_the_score_summary() -> None:
    """An error record with no ``score`` scores 0 in score_summary, as in by_scenario_type
    (review mutants16-plugin r3)."""
    agg = Aggregate.empty()
    agg.add(record("1", "r1", score=1.0))
    agg.add({"scenario_id": "2", "run_id": "r2", "error": "boom", "score": {"passed": False}})
    report = agg.report("T")
    summary = report["score_summary"]
    assert (summary["score_avg"], summary["score_min"], summary["score_max"]) == (0.5, 0.0, 1.0)
    assert report["by_scenario_type"]["unknown"]["score_avg"] == 0.5


def test_a_scorer_metric_named_score_does_not_hide_the_run_mean_score() -> None:
    """A custom scorer's own ``score`` metric replaced the run-wide ``score_avg`` (so the
    summary line, ``--structeval-min-score`` and ``score_avg`` gates read it), while the
    type's figure kept the run's (review mutants16-plugin, found writing the r23 test)."""
    agg = Aggregate.empty()
    agg.add(
        {
            "scenario_id": "s",
            "run_id": "r1",
            "scenario_type": "T",
            "score": {"score": 0.9, "passed": True, "details": {"mode": "custom", "score": 0.1}},
        }
    )
    report = agg.report("T")
    assert report["score_summary"]["score_avg"] == 0.9
    assert report["by_scenario_type"]["T"]["score_avg"] == 0.9
    assert gate_failures(report, min_score=0.5) == []


# -- mutation survivors (review mutants18) ---------------------------------------------------


def test_six_or_seven_digit_date_suffixes_are_dropped() -> None:
    """The reference drops a trailing run of 6 or more digits (-YYYYMM, -YYYYMMDD, ...)."""
    assert model_key("claude-haiku-4-5-202510") == "claude-haiku-4-5"
    assert model_key("gpt-4o-1234567") == "gpt-4o"


def test_infinite_token_counter_counts_zero() -> None:
    ops = ops_metrics([{"input_tokens": float("inf"), "output_tokens": 5}], "gpt-4o")
    assert (ops["tokens_in"], ops["tokens_out"]) == (0, 5)


def test_non_ascii_digit_strings_are_junk() -> None:
    ops = ops_metrics([{"input_tokens": "\u0661\u0662", "output_tokens": "7"}], "gpt-4o")
    assert (ops["tokens_in"], ops["tokens_out"]) == (0, 7)


def test_a_zero_counter_is_a_count_not_a_gap() -> None:
    """A turn's own 0 wins over its usage mapping; usage's own 0 wins over the OpenAI name."""
    assert (
        ops_metrics([{"input_tokens": 0, "usage": {"input_tokens": 9}}], "gpt-4o")["tokens_in"] == 0
    )
    assert (
        ops_metrics([{"usage": {"input_tokens": 0, "prompt_tokens": 9}}], "gpt-4o")["tokens_in"]
        == 0
    )


def test_junk_durations_are_left_out() -> None:
    for junk in (True, -5, float("inf"), float("nan")):
        assert ops_metrics([{"duration_ms": junk}, {"duration_ms": 10}], "")["duration_ms"] == 10
    assert ops_metrics([{"duration_ms": True}], "")["duration_ms"] is None


def test_a_call_s_own_name_wins_over_its_function_s() -> None:
    call = {"name": "a", "function": {"name": "b"}}
    assert ops_metrics([{"tool_calls": [call]}], "")["unique_tools"] == ["a"]


def test_a_model_that_is_no_string_gives_no_cost() -> None:
    assert ops_metrics([{"input_tokens": 5}], 5)["est_cost_usd"] is None  # type: ignore[arg-type]


def test_a_cost_with_only_input_or_only_output_tokens() -> None:
    from pytest_structeval.ops import estimate_cost

    assert estimate_cost("gpt-4o", 1_000_000, 0) == 2.5
    assert estimate_cost("gpt-4o", 0, 1_000_000) == 10.0


def test_int_durations_sum_exactly_as_an_int() -> None:
    total = ops_metrics([{"duration_ms": 10**17 + 1}, {"duration_ms": 2}], "")["duration_ms"]
    assert type(total) is int
    assert total == 10**17 + 3


def test_a_dangling_link_as_the_reports_folder_gets_its_folder_made(tmp_path: Path) -> None:
    """concurrent23 #4: pytest said 'File exists'; the CLI followed the link only when it
    wrote files ahead."""
    link = tmp_path / "reports"
    link.symlink_to(tmp_path / "elsewhere")
    agg = Aggregate.empty()
    agg.add(record("1", "run"))
    written = write_reports(link, agg)
    assert written.aggregate_file == link / AGGREGATE_NAME
    assert (tmp_path / "elsewhere" / "run.json").is_file()
