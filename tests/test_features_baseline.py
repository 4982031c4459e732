"""Baselines: loading, per-run / per-scenario / per-field comparison, regression reasons."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.baseline import (
    FIELDS_SHOWN,
    Baseline,
    Tolerance,
    compare,
    item_label,
    load_baseline,
    new_failures,
    parse_tolerance,
    regression_failures,
    tolerance_label,
)
from pytest_structeval.errors import OptionsError
from pytest_structeval.gates import Checks, parse_gate
from pytest_structeval.report import (
    AGGREGATE_NAME,
    Aggregate,
    RunRecord,
    baseline_lines,
    render_summary,
)
from pytest_structeval.reportformat import FORMAT_VERSION


def report_of(runs: list[tuple[str, str, Any, Any]]) -> dict[str, Any]:
    """An aggregate report of (scenario id, run id, gold, model) strict runs."""
    agg = Aggregate.empty()
    for scenario_id, run_id, gold, model in runs:
        result = score(gold, model)
        agg.add(
            RunRecord.from_result(result, scorer="strict", run_id=run_id, scenario_id=scenario_id)
        )
    return agg.report("T")


GOLD = {"a": 1, "b": 2}
GOOD, HALF = {"a": 1, "b": 2}, {"a": 1, "b": 3}


def test_load_baseline_from_a_file_or_a_reports_folder(tmp_path: Path) -> None:
    report = report_of([("1", "r", GOLD, GOOD)])
    (tmp_path / AGGREGATE_NAME).write_text(json.dumps(report))
    by_dir = load_baseline(tmp_path)
    by_file = load_baseline(tmp_path / AGGREGATE_NAME, source="baseline.json")
    assert by_dir.report == by_file.report == report
    assert by_dir.source == str(tmp_path)
    assert by_file.source == "baseline.json"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{", "cannot read"),
        ("[1, 2]", "is not an aggregate report"),
        ('{"totals": {}}', "is not an aggregate report"),
        (b"\xff\xfe", "cannot read"),
        ('{"results": [], "format_version": 3}', "has report format 3, newer than"),
        ('{"results": [], "format_version": "1"}', "has an unknown report format '1'"),
        ('{"results": [], "format_version": 1.0}', "has an unknown report format 1.0"),
        # baseline27: checked as run scores are
        ('{"results": [], "format_version": -3}', "has an unknown report format -3"),
        (
            '{"results": [{"scenario_id": "S", "run_id": "r", "score": 1, "passed": "yes"}]}',
            "run S/r has passed 'yes', not true or false",
        ),
        (
            '{"results": [], "field_scores": {"answer.b": {"mean_score": 7.5}}}',
            "field answer.b has mean_score 7.5, not a number from 0 to 1",
        ),
    ],
)
def test_bad_baselines_are_option_errors(
    tmp_path: Path, content: str | bytes | None, message: str
) -> None:
    path = tmp_path / "baseline.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(OptionsError, match=message):
        load_baseline(path)


def test_reports_say_their_format_and_tool_version(tmp_path: Path) -> None:
    """Users asked for a schema-versioned report; one without the key (AssetOpsBench's) is
    read as today's layout."""
    report = report_of([("1", "r", GOLD, GOOD)])
    assert report["format_version"] == FORMAT_VERSION == 2
    assert report["tool_version"] == importlib.metadata.version("pytest-structeval")
    del report["format_version"]
    (tmp_path / AGGREGATE_NAME).write_text(json.dumps(report))
    assert load_baseline(tmp_path).report == report


def test_runs_compared_by_run_id() -> None:
    before = report_of(
        [
            ("1", "a", GOLD, GOOD),
            ("1", "b", GOLD, HALF),
            ("2", "a", GOLD, GOOD),
            ("3", "x", GOLD, GOOD),
        ]
    )
    after = report_of(
        [
            ("1", "a", GOLD, HALF),
            ("1", "b", GOLD, GOOD),
            ("2", "a", GOLD, GOOD),
            ("4", "y", GOLD, GOOD),
        ]
    )
    section = compare(Baseline("base.json", before), after)
    assert section["counts"] == {
        "compared": 3,
        "improved": 1,
        "regressed": 1,
        "unchanged": 1,
        "new": 1,
        "missing": 1,
    }
    assert section["regressed"] == [
        {
            "scenario_id": "1",
            "run_id": "a",
            "runs": [1, 1],
            "baseline_score": 1.0,
            "score": 0.5,
            "delta": -0.5,
            "baseline_pass_rate": 1.0,
            "pass_rate": 0.0,
            "pass_rate_delta": -1.0,
        }
    ]
    assert section["improved"][0]["run_id"] == "b"
    assert section["new"] == [{"scenario_id": "4", "run_id": None, "runs": 1}]
    assert section["missing"] == [{"scenario_id": "3", "run_id": None, "runs": 1}]
    # Over the compared runs only (1[a], 1[b], 2[a]), not the 3 and 4 one side holds.
    assert section["score_avg"] == {"baseline": 0.8333, "current": 0.8333, "delta": 0.0}
    assert section["pass_rate"] == {"baseline": 0.6667, "current": 0.6667, "delta": 0.0}
    assert section["same_runs"] is False
    assert section["parse_rate"]["delta"] is None  # whole-run figures of other runs
    assert section["fields"] is None
    assert section["source"] == "base.json"
    assert section["generated_at"] == "T"


def test_ids_and_systems_saved_decomposed_match_their_composed_spelling() -> None:
    """unicode32 #1: a baseline saved on macOS (folder names NFD) against a checkout on
    Linux (NFC): the run was "new" and "missing", so ``regressed==0`` held over a pass that
    became a failure, and its failure was said to be "not in baseline"."""
    import unicodedata

    nfd, nfc = (unicodedata.normalize(form, "Würzburg") for form in ("NFD", "NFC"))
    before = systems_report([(nfd, f"run-{nfd}", "m", GOOD), ("2", "b", f"m-{nfd}", GOOD)])
    after = systems_report([(nfc, f"run-{nfc}", "m", HALF), ("2", "b", f"m-{nfc}", HALF)])
    # run id b of two models on each side: compared per model, its model decomposed before
    before["results"] += systems_report([("2", "b", "other", GOOD)])["results"]
    after["results"] += systems_report([("2", "b", "other", GOOD)])["results"]
    section = compare(Baseline("base.json", before), after)
    assert section["counts"]["new"] == section["counts"]["missing"] == 0
    assert section["counts"]["regressed"] == 2
    assert {item["run_id"] for item in section["regressed"]} == {f"run-{nfc}", "b"}
    assert new_failures({**after, "baseline": section}, flag="--x") == []


def systems_report(runs: list[tuple[str, str, str, Any]], *, old: bool = False) -> dict[str, Any]:
    """An aggregate of (scenario id, run id, model, answer) strict runs of runner ``r``;
    ``old``: its results name no runner or model, as before 0.2.0."""
    agg = Aggregate.empty()
    for scenario_id, run_id, model, answer in runs:
        record = RunRecord.from_result(
            score(GOLD, answer), scorer="strict", run_id=run_id, scenario_id=scenario_id
        )
        agg.add({**record.to_dict(), "runner": "r", "model": model})
    report = agg.report("T")
    if old:
        for entry in report["results"]:
            del entry["runner"], entry["model"]
    return report


def test_one_run_id_of_several_runners_or_models_is_compared_per_runner_and_model() -> None:
    """Agents numbering their runs alike (``run01``): a pass of one and a fail of another
    swapped read as unchanged, and one agent's regression hid under another's pass
    (realdata24 #1)."""
    before = systems_report([("1", "run01", "A", GOOD), ("1", "run01", "B", HALF)])
    swapped = systems_report([("1", "run01", "A", HALF), ("1", "run01", "B", GOOD)])
    section = compare(Baseline("b", before), swapped)
    assert (section["counts"]["regressed"], section["counts"]["improved"]) == (1, 1)
    (regressed,) = section["regressed"]
    assert (regressed["run_id"], regressed["runner_model"]) == ("run01", "r / A")
    assert item_label(regressed) == "1[run01] (r / A) 1.0000 -> 0.5000"
    assert regression_failures({"baseline": section}, flag="--fail-on-regression")
    from pytest_structeval.markdown import render_markdown

    page = render_markdown({**swapped, "baseline": section})
    assert "| 1 | run01 (r / A) | 1.0000 | 0.5000 | -0.5000 |" in page
    # a long run id keeps its end beside the runner and model (diff24c #5)
    long = "cell_Z_hybrid_" + "x" * 130
    claude = "us.anthropic.claude-3-5-sonnet-20241022-v2:0"  # a model id as long as a cut's end
    runs = [(f"{long}_run0{n}", m, a) for n in (1, 3) for m, a in ((claude, GOOD), ("B", HALF))]
    long_before = systems_report([("1", r, m, a) for r, m, a in runs])
    long_after = systems_report([("1", r, m, HALF if a is GOOD else GOOD) for r, m, a in runs])
    long_section = compare(Baseline("b", long_before), long_after)
    page = render_markdown({**long_after, "baseline": long_section}).replace("\\_", "_")
    assert f"_run01 (r / {claude})" in page
    assert f"_run03 (r / {claude})" in page
    # a runner and model the baseline lacks is new, one it had and the run lacks is missing
    other = systems_report([("1", "run01", "A", GOOD), ("1", "run01", "C", HALF)])
    section = compare(Baseline("b", before), other)
    assert section["counts"] == {
        "compared": 1,
        "improved": 0,
        "regressed": 0,
        "unchanged": 1,
        "new": 1,
        "missing": 1,
    }
    assert section["new"] == [
        {"scenario_id": "1", "run_id": "run01", "runs": 1, "runner_model": "r / C"}
    ]
    failing = new_failures({**other, "baseline": section}, flag="--fail-on-regression")
    assert [f.rsplit(": ", 1)[-1] for f in failing] == ["1[run01]"]  # C's: nothing excuses it


def test_one_runner_and_model_each_side_are_compared_whoever_they_are() -> None:
    """A new model against the old one's baseline; and a baseline whose results name no
    runner or model (before 0.2.0) is matched by run id alone."""
    before = systems_report([("1", "run01", "A", GOOD)])
    after = systems_report([("1", "run01", "B", HALF)])
    (regressed,) = compare(Baseline("b", before), after)["regressed"]
    assert "runner_model" not in regressed
    old = systems_report([("1", "run01", "A", GOOD), ("1", "run01", "B", HALF)], old=True)
    now = systems_report([("1", "run01", "A", GOOD), ("1", "run01", "B", HALF)])
    counts = compare(Baseline("b", old), now)["counts"]
    assert (counts["compared"], counts["unchanged"]) == (1, 1)  # pooled: one item, not two


def test_new_and_missing_runs_inside_a_shared_scenario() -> None:
    before = report_of([("1", "a", GOLD, GOOD), ("1", "gone", GOLD, GOOD)])
    after = report_of([("1", "a", GOLD, GOOD), ("1", "fresh", GOLD, HALF)])
    section = compare(Baseline("b", before), after)
    assert section["counts"]["unchanged"] == 1
    assert section["new"] == [{"scenario_id": "1", "run_id": "fresh", "runs": 1}]
    assert section["missing"] == [{"scenario_id": "1", "run_id": "gone", "runs": 1}]
    assert section["regressed"] == []  # a new run is never a regression


def test_scenarios_without_shared_run_ids_are_compared_as_a_whole() -> None:
    before = report_of([("S", "old-1", GOLD, GOOD), ("S", "old-2", GOLD, GOOD)])
    after = report_of(
        [("S", "new-1", GOLD, GOOD), ("S", "new-2", GOLD, HALF), ("S", "new-3", GOLD, GOOD)]
    )
    (item,) = compare(Baseline("b", before), after)["regressed"]
    assert item == {
        "scenario_id": "S",
        "run_id": None,
        "runs": [2, 3],
        "baseline_score": 1.0,
        "score": 0.8333,
        "delta": -0.1667,
        "baseline_pass_rate": 1.0,
        "pass_rate": 0.6667,
        "pass_rate_delta": -0.3333,
    }
    assert item_label(item) == "S (mean) 1.0000 -> 0.8333"


def test_a_whole_scenario_is_compared_per_runner_and_model() -> None:
    """Re-runs with new run ids pooled every model: A's drop from pass to fail under B's
    rise read as unchanged, and a model added read as the old one's regression
    (baseline27 #1)."""
    before = systems_report([("S", "mon-1", "A", GOOD), ("S", "mon-2", "B", HALF)])
    swapped = systems_report([("S", "tue-1", "A", HALF), ("S", "tue-2", "B", GOOD)])
    section = compare(Baseline("b", before), swapped)
    assert (section["counts"]["regressed"], section["counts"]["improved"]) == (1, 1)
    (regressed,) = section["regressed"]
    assert (regressed["run_id"], regressed["runner_model"]) == (None, "r / A")
    assert item_label(regressed) == "S (mean) (r / A) 1.0000 -> 0.5000"
    assert regression_failures({"baseline": section}, flag="--fail-on-regression")
    from pytest_structeval.markdown import render_markdown

    page = render_markdown({**swapped, "baseline": section})
    assert "| S | (all runs of r / A) | 1.0000 | 0.5000 | -0.5000 |" in page
    # a model added with new run ids is new: the old model's scenario did not regress
    one = systems_report([("S", "mon-1", "A", GOOD)])
    added = systems_report([("S", "tue-1", "A", GOOD), ("S", "tue-2", "B", HALF)])
    section = compare(Baseline("b", one), added)
    assert (section["counts"]["unchanged"], section["counts"]["regressed"]) == (1, 0)
    assert section["new"] == [
        {"scenario_id": "S", "run_id": None, "runs": 1, "runner_model": "r / B"}
    ]
    failing = new_failures({**added, "baseline": section}, flag="--fail-on-regression")
    assert [f.rsplit(": ", 1)[-1] for f in failing] == ["S[tue-2]"]  # B's: nothing excuses it
    # one runner and model on each side: compared whoever they are, as a run id is
    other = systems_report([("S", "tue-1", "C", HALF)])
    (item,) = compare(Baseline("b", one), other)["regressed"]
    assert "runner_model" not in item


def passing_run_with_score(value: float) -> dict[str, Any]:
    """A report with one passing run of scenario 1 whose score is ``value`` (similarity-like)."""
    record = RunRecord.from_result(score(GOLD, GOOD), scorer="s", run_id="a", scenario_id="1")
    data = record.to_dict()
    data["score"]["score"] = value
    agg = Aggregate.empty()
    agg.add(data)
    return agg.report("T")


def test_tolerance_absorbs_small_drops_but_not_verdict_flips() -> None:
    before = passing_run_with_score(1.0)
    assert compare(Baseline("b", before), passing_run_with_score(0.97))["counts"]["regressed"] == 1
    tolerant = compare(Baseline("b", before), passing_run_with_score(0.97), tolerance=0.05)
    assert tolerant["counts"] == {**tolerant["counts"], "regressed": 0, "unchanged": 1}
    assert (
        compare(Baseline("b", before), passing_run_with_score(1.04), tolerance=0.05)["counts"][
            "unchanged"
        ]
        == 1
    )
    flipped = report_of([("1", "a", GOLD, HALF)])  # fails now: pass rate 1 -> 0
    assert compare(Baseline("b", before), flipped, tolerance=0.9)["counts"]["regressed"] == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", Tolerance(0.0)),
        (" 0.05 ", Tolerance(0.05)),
        (1, Tolerance(1.0)),
        ("5%", Tolerance(0.05, relative=True)),
        ("0.5 %", Tolerance(0.005, relative=True)),
        ("100%", Tolerance(1.0, relative=True)),
    ],
)
def test_parse_tolerance(text: Any, expected: Tolerance) -> None:
    assert parse_tolerance(text) == expected


@pytest.mark.parametrize("text", ["", "-0.1", "1.5", "101%", "-5%", "five", "%", "nan", "inf%"])
def test_bad_tolerances_are_option_errors(text: str) -> None:
    with pytest.raises(OptionsError, match="expected a number in \\[0, 1\\] or a percentage"):
        parse_tolerance(text)


def test_relative_tolerance_is_a_share_of_each_baseline_figure() -> None:
    before = passing_run_with_score(0.5)
    five = parse_tolerance("5%")  # room: 0.025 below a 0.5 score, 0.05 below a 1.0 pass rate
    assert compare(Baseline("b", before), passing_run_with_score(0.48), tolerance=five)[
        "counts"
    ] == {"compared": 1, "improved": 0, "regressed": 0, "unchanged": 1, "new": 0, "missing": 0}
    # the same drop in absolute terms is over an absolute 0.01
    assert (
        compare(Baseline("b", before), passing_run_with_score(0.48), tolerance=0.01)["counts"][
            "regressed"
        ]
        == 1
    )
    section = compare(Baseline("b", before), passing_run_with_score(0.47), tolerance=five)
    assert section["counts"]["regressed"] == 1
    assert (section["tolerance"], section["tolerance_relative"]) == (0.05, True)
    assert tolerance_label(section) == "5%"
    assert (
        compare(Baseline("b", before), passing_run_with_score(0.53), tolerance=five)["counts"][
            "improved"
        ]
        == 1
    )
    # from a zero baseline figure any drop or rise counts
    zero = passing_run_with_score(0.0)
    assert (
        compare(Baseline("b", zero), passing_run_with_score(0.01), tolerance=five)["counts"][
            "improved"
        ]
        == 1
    )


@pytest.mark.parametrize(
    ("base", "share", "after"), [(0.35, "20%", 0.28), (0.7, "5%", 0.665), (0.7, "10%", 0.63)]
)
def test_a_drop_of_exactly_a_relative_tolerance_is_no_regression(
    base: float, share: str, after: float
) -> None:
    """0.2 x 0.35 is 0.06999999999999999 in binary: the room must not fall a hair under the
    decimal drop the reports show (review stats22 #2)."""
    tolerance = parse_tolerance(share)
    before = passing_run_with_score(base)
    exact = compare(Baseline("b", before), passing_run_with_score(after), tolerance=tolerance)
    assert exact["counts"]["regressed"] == 0
    rise = compare(Baseline("b", passing_run_with_score(after)), before, tolerance=tolerance)
    assert rise["counts"]["improved"] == 1  # the room is a share of the lower figure here
    beyond = compare(
        Baseline("b", before), passing_run_with_score(after - 0.0001), tolerance=tolerance
    )
    assert beyond["counts"]["regressed"] == 1


def test_relative_tolerance_on_field_means() -> None:
    before = report_of([("1", "a", {"a": 100.0}, {"a": 100.0})])  # answer.a mean 1.0
    after = report_of([("1", "a", {"a": 100.0}, {"a": 97.0})])  # partial credit 0.97
    fields = compare(Baseline("b", before), after, tolerance=parse_tolerance("5%"))["fields"]
    assert fields["regressed_count"] == 0
    fields = compare(Baseline("b", before), after, tolerance=parse_tolerance("2%"))["fields"]
    assert [row["path"] for row in fields["regressed"]] == ["answer.a"]


def test_field_deltas() -> None:
    before = report_of([("1", "a", GOLD, GOOD), ("2", "a", GOLD, {"a": 5, "b": 2})])
    after = report_of([("1", "a", GOLD, HALF), ("2", "a", GOLD, GOOD)])
    fields = compare(Baseline("b", before), after)["fields"]
    assert fields["compared"] == 2
    assert fields["regressed_count"] == 1
    assert fields["regressed"][0]["path"] == "answer.b"
    assert fields["improved"][0]["path"] == "answer.a"
    assert fields["regressed"][0]["delta"] < 0 < fields["improved"][0]["delta"]


def test_field_lists_are_capped_but_counted() -> None:
    many = {f"k{i:02d}": i for i in range(FIELDS_SHOWN + 5)}
    before = report_of([("1", "a", many, many)])
    after = report_of([("1", "a", many, {k: -1 for k in many})])
    fields = compare(Baseline("b", before), after)["fields"]
    assert fields["regressed_count"] == FIELDS_SHOWN + 5
    assert len(fields["regressed"]) == FIELDS_SHOWN


def test_reference_aggregates_and_old_reports_work_as_baselines() -> None:
    """AssetOpsBench's aggregate repeats each full run (``score`` is a mapping) and has no
    ``field_scores``: runs still compare, fields are simply not compared."""
    reference = {
        "generated_at": "2026-01-01T00:00:00+00:00",
        "totals": {"pass_rate": 1.0},
        "score_summary": {"score_avg": 1.0},
        "results": [
            {"scenario_id": "1", "run_id": "a", "score": {"passed": True, "score": 1.0}},
            "junk entry",
        ],
    }
    section = compare(Baseline("ref", reference), report_of([("1", "a", GOLD, HALF)]))
    assert section["counts"]["regressed"] == 1
    assert section["fields"] is None
    assert section["pass_rate"] == {"baseline": 1.0, "current": 0.0, "delta": -1.0}
    assert section["parse_rate"]["delta"] is None


def test_regression_failures_and_summary_lines() -> None:
    before = report_of([(str(n), "a", GOLD, GOOD) for n in range(5)])
    after = report_of([(str(n), "a", GOLD, HALF) for n in range(5)])
    checks = Checks(baseline=Baseline("base.json", before), fail_on_regression=True)
    checks.annotate(after)
    (reason,) = checks.failures(after)
    assert reason == (
        "structeval: 5 of 5 compared items regressed against baseline base.json (tolerance "
        "0.0000, --structeval-fail-on-regression): 0[a] 1.0000 -> 0.5000, "
        "1[a] 1.0000 -> 0.5000, 2[a] 1.0000 -> 0.5000, ... (+2 more)"
    )
    lines = render_summary(after)
    assert (
        "baseline base.json: mean score 1.0000 -> 0.5000 (-0.5000) | improved 0, regressed 5, "
        "unchanged 0, new 0, missing 0"
    ) in lines
    assert any(line.startswith("regressed: 0[a] 1.0000 -> 0.5000, ") for line in lines)
    # without the switch the comparison is information only
    assert Checks(baseline=Baseline("base.json", before)).failures(after) == []
    # ... but gates can read it
    assert Checks(gates=(parse_gate("regressed<1"),)).failures(after) == [
        "structeval: regressed 5 misses --structeval-gate regressed<1"
    ]
    assert Checks(gates=(parse_gate("improved<1"),)).failures(after) == []  # 0 improved
    # Five runs each dropped by 0.5: the interval is that one value; a gate on its high end
    # fails a run whose drop is more than noise.
    assert after["baseline"]["score_delta_ci95"] == [-0.5, -0.5]
    assert "score change 95% CI [-0.5000, -0.5000] (t-interval over the 5 compared items)" in lines
    assert Checks(gates=(parse_gate("score_delta_ci95_high>=0"),)).failures(after) == [
        "structeval: score_delta_ci95_high -0.5000 misses --structeval-gate "
        "score_delta_ci95_high>=0"
    ]
    assert Checks(gates=(parse_gate("score_delta>=-0.4"),)).failures(after) == [
        "structeval: score_delta -0.5000 misses --structeval-gate score_delta>=-0.4"
    ]
    improved = report_of([(str(n), "a", GOLD, GOOD) for n in range(5)])
    Checks(baseline=Baseline("base.json", after)).annotate(improved)
    assert Checks(gates=(parse_gate("improved<1"),)).failures(improved) == [
        "structeval: improved 5 misses --structeval-gate improved<1"
    ]
    assert regression_failures(report_of([]), flag="--x") == []


def test_compare_is_deterministic_and_plain_data() -> None:
    runs = [(str(n % 3), f"r{n}", GOLD, GOOD if n % 2 else HALF) for n in range(9)]
    before, after = report_of(runs), report_of(list(reversed(runs)))
    section = compare(Baseline("b", before), after)
    assert section == compare(Baseline("b", before), report_of(runs))
    assert json.loads(json.dumps(section)) == section
    assert section["counts"]["unchanged"] == 9


def test_a_baseline_with_scores_past_the_float_range_is_compared() -> None:
    """A baseline is a file from anywhere: an integer score no float holds raised OverflowError
    (math.isfinite), and huge float scores overflowed fsum; they read as no score (0), and
    the means are taken without overflowing."""
    before = report_of([("1", "r1", GOLD, GOOD), ("1", "r2", GOLD, GOOD)])
    before["results"][0]["score"] = 10**400
    before["results"][1]["score"] = 1.7e308
    section = compare(Baseline("b", before), report_of([("1", "r1", GOLD, GOOD)]))
    assert json.loads(json.dumps(section)) == section
    assert section["counts"]["regressed"] + section["counts"]["improved"] >= 1


_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**330), max_value=10**330),
    st.floats(),
    st.text(max_size=5),
)
_JSON = st.recursive(
    _LEAF,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)
_RESULT = st.fixed_dictionaries(
    {}, optional={"scenario_id": _JSON, "run_id": _JSON, "score": _JSON, "passed": _JSON}
)
_SECTION_NAMES = ("totals", "score_summary", "field_scores", "parse", "generated_at")
_REPORT = st.fixed_dictionaries(
    {"results": st.lists(_RESULT | _JSON, max_size=4)},
    optional={name: _JSON for name in _SECTION_NAMES},
)


@settings(max_examples=150, deadline=None)
@given(before=_REPORT, after=_REPORT)
def test_any_report_shaped_baseline_compares_without_raising(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    """A baseline passes load_baseline with a results list; everything else in it is data
    from anywhere. Comparing it gives plain data, whatever the shapes and numbers."""
    section = compare(Baseline("b", before), after)
    assert set(section["counts"]) >= {"compared", "new", "missing"}
    json.dumps(section, default=str)


def test_repeats_with_new_run_ids_do_not_move_the_means_or_the_interval() -> None:
    """Scenarios compared as a whole pooled their runs: five good and one bad run against
    one good and five bad (no score changed) read as a drop of 0.67 (review)."""
    before = report_of(
        [("S1", f"a{n}", GOLD, GOOD) for n in range(5)] + [("S2", "b0", GOLD, {"a": 9})]
    )
    after = report_of(
        [("S1", "c0", GOLD, GOOD)] + [("S2", f"d{n}", GOLD, {"a": 9}) for n in range(5)]
    )
    section = compare(Baseline("b", before), after)
    assert section["counts"]["unchanged"] == 2
    assert section["score_avg"]["delta"] == 0.0
    assert section["score_delta_ci95"] == [0.0, 0.0]
    assert section["same_runs"] is False  # as many runs on each side, it would be
    assert section["fields"] is None


def test_the_interval_is_around_the_same_item_changes_as_the_delta() -> None:
    before = report_of(
        [(f"S{n}", "r", GOLD, GOOD) for n in range(10)]
        + [("B", f"x{n}", GOLD, HALF) for n in range(20)]
    )
    after = report_of(
        [(f"S{n}", "r", GOLD, HALF) for n in range(10)]  # ten items drop by 0.5
        + [("B", f"y{n}", GOLD, GOOD) for n in range(20)]  # one item (20 runs) rises by 0.5
    )
    section = compare(Baseline("b", before), after)
    delta = section["score_avg"]["delta"]
    low, high = section["score_delta_ci95"]
    assert delta == pytest.approx((10 * -0.5 + 0.5) / 11, abs=2e-4)  # (means are rounded)
    assert low <= delta <= high < 0  # one statistic: a mean over items, and its interval


def test_a_run_that_now_passes_at_the_same_score_improved() -> None:
    """A rise of the pass rate alone is an improvement (what --structeval-fail-on-improvement
    fails on) (review mutants16-plugin b4)."""
    before = {"results": [{"scenario_id": "s1", "run_id": "r1", "score": 0.8, "passed": False}]}
    after = {"results": [{"scenario_id": "s1", "run_id": "r1", "score": 0.8, "passed": True}]}
    section = compare(Baseline("b", before), after)
    assert section["counts"] == {
        "compared": 1,
        "improved": 1,
        "regressed": 0,
        "unchanged": 0,
        "new": 0,
        "missing": 0,
    }
    assert [(i["delta"], i["pass_rate_delta"]) for i in section["improved"]] == [(0.0, 1.0)]


def test_a_baseline_passed_other_than_true_is_not_passed() -> None:
    """A converted baseline's ``"passed": "false"`` reads as not passed, as in the aggregate
    (review mutants16-plugin b6)."""
    before = {"results": [{"scenario_id": "s1", "run_id": "r1", "score": 0.8, "passed": "false"}]}
    after = {"results": [{"scenario_id": "s1", "run_id": "r1", "score": 0.8, "passed": True}]}
    section = compare(Baseline("b", before), after)
    assert section["counts"]["improved"] == 1
    assert section["pass_rate"] == {"baseline": 0.0, "current": 1.0, "delta": 1.0}


def test_regressed_items_are_listed_and_named_worst_first() -> None:
    """The worst drop leads the list and the failure line, never hidden behind "+N more"
    (review mutants16-plugin b8)."""
    runs = [{"scenario_id": s, "run_id": "r1", "score": 0.9, "passed": True} for s in "abcd"]
    before = {"results": runs}
    after = {
        "results": [{"scenario_id": s, "run_id": "r1", "score": 0.8, "passed": True} for s in "abc"]
        + [{"scenario_id": "d", "run_id": "r1", "score": 0.1, "passed": False}]
    }
    section = compare(Baseline("old", before), after)
    assert [i["scenario_id"] for i in section["regressed"]] == ["d", "a", "b", "c"]
    assert regression_failures({"baseline": section}, flag="--structeval-fail-on-regression") == [
        "structeval: 4 of 4 compared items regressed against baseline old (tolerance 0.0000, "
        "--structeval-fail-on-regression): d[r1] 0.9000 -> 0.1000, a[r1] 0.9000 -> 0.8000, "
        "b[r1] 0.9000 -> 0.8000, ... (+1 more)"
    ]


def test_improved_items_rank_by_the_larger_of_score_and_pass_rate_rise() -> None:
    """``a`` rose 0.1 in score but 1.0 in pass rate, ``b`` 0.3 in score only: ``a`` first
    (review mutants16-plugin b9)."""
    before = {
        "results": [{"scenario_id": s, "run_id": "r1", "score": 0.5, "passed": False} for s in "ab"]
    }
    after = {
        "results": [
            {"scenario_id": "a", "run_id": "r1", "score": 0.6, "passed": True},
            {"scenario_id": "b", "run_id": "r1", "score": 0.8, "passed": False},
        ]
    }
    improved = compare(Baseline("b", before), after)["improved"]
    assert [(i["scenario_id"], i["delta"], i["pass_rate_delta"]) for i in improved] == [
        ("a", 0.1, 1.0),
        ("b", 0.3, 0.0),
    ]


def test_improved_fields_are_listed_largest_first_and_capped() -> None:
    """Past FIELDS_SHOWN improved paths, the largest rises are the ones kept (review
    mutants16-plugin b14)."""
    count = FIELDS_SHOWN + 5
    row: dict[str, Any] = {"scenario_id": "a", "run_id": "r1", "score": 0.5, "passed": False}
    before = {
        "results": [row],
        "field_scores": {f"answer.f{i:02d}": {"mean_score": 0.0} for i in range(count)},
    }
    after = {
        "results": [row],
        "field_scores": {
            f"answer.f{i:02d}": {"mean_score": round(0.04 * (i + 1), 4)} for i in range(count)
        },
    }
    fields = compare(Baseline("b", before), after)["fields"]
    assert fields["improved_count"] == count
    assert [(r["path"], r["delta"]) for r in fields["improved"][:3]] == [
        ("answer.f24", 1.0),
        ("answer.f23", 0.96),
        ("answer.f22", 0.92),
    ]
    assert len(fields["improved"]) == FIELDS_SHOWN
    assert fields["improved"][-1]["path"] == "answer.f05"


@pytest.mark.parametrize("bad", [1e308, -0.5, True, "0.5", float("nan")])
def test_a_baseline_score_outside_zero_to_one_is_refused(tmp_path: Path, bad: Any) -> None:
    """No run writes such a score; read as it was, 1e308 printed a 300-digit mean and NaN
    read as 0, an improvement (review robust17)."""
    path = tmp_path / "base.json"
    results = [{"scenario_id": "1", "run_id": "r1", "score": 0.5, "passed": True}]
    results.append({"scenario_id": "1", "run_id": "r2", "score": bad, "passed": True})
    path.write_text(json.dumps({"results": results}), encoding="utf-8")
    with pytest.raises(OptionsError, match=r"run 1/r2 has score .*, not a number from 0 to 1"):
        load_baseline(path)
    results[1]["score"] = None  # an error run's missing score stays readable
    path.write_text(json.dumps({"results": results}), encoding="utf-8")
    assert load_baseline(path).report["results"][1]["score"] is None


def test_a_field_that_regressed_is_named_in_the_summary_lines() -> None:
    """A field can drop while every run's score holds (another field rose): the terminal
    said "regressed 0" and named no field (baseline27, minor)."""
    before = report_of([("1", "r", GOLD, {"a": 1, "b": 3})])
    after = report_of([("1", "r", GOLD, {"a": 0, "b": 2})])
    section = compare(Baseline("b", before), after)
    assert section["counts"]["regressed"] == 0
    lines = baseline_lines(section)
    assert "fields regressed: 1 (answer.a 1.0000 -> 0.0000)" in lines
    many = {f"k{i}": i for i in range(6)}
    before = report_of([("1", "a", many, many)])
    after = report_of([("1", "a", many, {k: -1 for k in many})])
    lines = baseline_lines(compare(Baseline("b", before), after))
    (fields,) = [line for line in lines if line.startswith("fields regressed")]
    assert fields.startswith("fields regressed: 6 (answer.k0 1.0000 -> 0.0000, ")
    assert fields.endswith(", ... (+3 more))")
    long = {"k" * 3000: 1}
    before, after = report_of([("1", "a", long, long)]), report_of([("1", "a", long, {"x": 1})])
    lines = baseline_lines(compare(Baseline("b", before), after))
    (fields,) = [line for line in lines if line.startswith("fields regressed")]
    assert len(fields) < 120  # clipped as worst fields are (diff27b #5)
    assert not [line for line in baseline_lines(section) if "improved:" in line]
    # a gate fails on it, as --fail-on-regression (which judges items) does not
    checks = Checks(
        gates=[parse_gate("fields_regressed==0")], baseline=Baseline("b", report_of(RUN_A))
    )
    report = report_of([("1", "r", GOLD, {"a": 0, "b": 2})])
    checks.annotate(report)
    (failure,) = checks.failures(report)
    assert "fields_regressed" in failure
    other = report_of([("1", "x", GOLD, {"a": 0, "b": 2}), ("1", "y", GOLD, GOLD)])
    checks.annotate(other)
    (failure,) = checks.failures(other)
    assert "it needs a baseline holding the same runs" in failure


RUN_A = [("1", "r", GOLD, {"a": 1, "b": 3})]
