"""Why a run failed: the ``reason`` of each ``results`` entry of the aggregate, and the Reason
column of the Markdown summary's failing runs (which showed an empty cell for a run that was
scored but did not pass)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import ScoreResult, score
from pytest_structeval.markdown import render_markdown, write_markdown
from pytest_structeval.report import REASON_CHARS, Aggregate, RunRecord
from tests.plugin_support import comparable, scenario, trajectory

GOLD = {"status": "ok", "n": 3}


def scored(run_id: str, gold: Any, model: Any, mode: str = "strict", **options: Any) -> RunRecord:
    result = score(gold, model, mode, **options)
    return RunRecord.from_result(result, scorer=mode, run_id=run_id, scenario_id=f"S-{run_id}")


def custom(run_id: str, rationale: str, *, passed: bool = False) -> RunRecord:
    """A run of a custom scorer whose rationale is any text."""
    result = ScoreResult(passed=passed, score=0.25, mode="custom", reason=rationale)
    return RunRecord.from_result(result, scorer="custom", run_id=run_id, scenario_id="C")


def results(*records: RunRecord) -> dict[str, dict[str, Any]]:
    agg = Aggregate.empty()
    for record in records:
        agg.add(record)
    return {entry["run_id"]: entry for entry in agg.report("T")["results"]}


def test_each_failing_run_says_why_and_a_passing_one_says_nothing() -> None:
    entries = results(
        scored("pass", GOLD, GOLD),
        scored("strict", GOLD, {"status": "ok", "n": 4}),
        scored("sim", {"p": 10, "q": 10}, {"p": 10, "q": 6}, "similarity", threshold=0.9),
        RunRecord.for_error(
            scenario_id="E", run_id="err", error="scorer 'x' failed: boom\nTraceback ..."
        ),
    )
    assert entries["pass"]["reason"] is None
    assert entries["strict"]["reason"] == (
        "structured answer differs from ground truth: 1 mismatched, 0 missing, 0 extra"
    )
    assert (
        entries["sim"]["reason"]
        == score(
            {"p": 10, "q": 10}, {"p": 10, "q": 6}, "similarity", threshold=0.9
        ).reason.splitlines()[0]
    )
    assert entries["err"]["reason"] == "scorer 'x' failed: boom"
    assert list(entries["strict"])[-1] == "reason"  # added last; the other keys keep their order


def test_a_reason_is_one_short_line() -> None:
    long = "why " * 200
    entries = results(
        custom("multi", "\n\n  first   line\twith gaps  \nsecond line"),
        custom("long", long),
        custom("huge", "x" * 5_000_000),
        custom("blank", "  \n "),
    )
    assert entries["multi"]["reason"] == "first line with gaps"
    assert entries["long"]["reason"] == long.strip()[: REASON_CHARS - 3] + "..."
    assert entries["huge"]["reason"] == "x" * (REASON_CHARS - 3) + "..."
    assert entries["blank"]["reason"] == "not passed"


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=400))
def test_any_rationale_gives_a_bounded_single_line(rationale: str) -> None:
    (entry,) = results(custom("r", rationale)).values()
    reason = entry["reason"]
    assert isinstance(reason, str)
    assert reason
    assert len(reason) <= REASON_CHARS
    assert len(reason.splitlines()) == 1
    assert reason == reason.strip()


def test_an_aggregate_record_without_a_rationale_still_gets_a_reason() -> None:
    """Records arrive as plain dicts too (xdist, a reference per-run file): a failing one
    with no rationale reads "not passed", one with only an error gives the error."""
    agg = Aggregate.empty()
    agg.add({"scenario_id": "1", "run_id": "a", "score": {"passed": False, "score": 0.0}})
    agg.add({"scenario_id": "1", "run_id": "b", "score": None, "error": "gold is broken"})
    agg.add({"scenario_id": "1", "run_id": "c", "score": {"passed": True, "rationale": "ok"}})
    reasons = [entry["reason"] for entry in agg.report("T")["results"]]
    assert reasons == ["not passed", "gold is broken", None]


def test_the_failing_runs_table_shows_the_reason() -> None:
    agg = Aggregate.empty()
    for record in (
        scored("ok", GOLD, GOLD),
        scored("wrong", GOLD, {"status": "ok", "n": 4}),
        RunRecord.for_error(scenario_id="E", run_id="err", error="scorer 'x' failed: boom"),
        custom("odd", "a | b <think> **c**\nmore"),
    ):
        agg.add(record)
    text = render_markdown(agg.report("T"))
    table = text.split("### Failing runs (3)\n\n")[1].splitlines()
    assert table[0] == "| Scenario | Run | Score | Reason | Report |"
    assert table[2:5] == [
        "| C | odd | 0.2500 | a \\| b &lt;think&gt; \\*\\*c\\*\\* | odd.json |",
        "| E | err | 0.0000 | error: scorer 'x' failed: boom | err.json |",
        "| S-wrong | wrong | 0.5000 | structured answer differs from ground truth: 1 mismatched, "
        "0 missing, 0 extra | wrong.json |",
    ]


def test_an_error_keeps_its_whole_text_in_the_table_and_long_cells_are_clipped() -> None:
    agg = Aggregate.empty()
    agg.add(RunRecord.for_error(scenario_id="E", run_id="e", error="line1\nline2 " + "y" * 400))
    agg.add(custom("c", "z" * 400))
    text = render_markdown(agg.report("T"))
    (error_row,) = [line for line in text.splitlines() if line.startswith("| E |")]
    error_cell = error_row.split(" | ")[3]
    assert error_cell.startswith("error: line1 line2 yyy")  # the whole error, on one line
    assert error_cell.endswith("…")
    assert len(error_cell) == REASON_CHARS
    (custom_row,) = [line for line in text.splitlines() if line.startswith("| C |")]
    assert custom_row.split(" | ")[3] == "z" * (REASON_CHARS - 3) + "..."  # the reason as kept


def test_a_lone_surrogate_in_a_reason_is_escaped_and_the_file_is_written(tmp_path: Path) -> None:
    # A rationale quoting a model answer can hold one (JSON "\\udcff"): writing the summary
    # raised UnicodeEncodeError at session end and left an empty file.
    agg = Aggregate.empty()
    agg.add(custom("s", "bad \udcff char"))
    page = tmp_path / "summary.md"
    write_markdown(page, render_markdown(agg.report("T")))
    assert "bad \\\\udcff char" in page.read_text(encoding="utf-8")  # Markdown-escaped


def test_an_aggregate_written_before_reasons_renders_an_empty_cell() -> None:
    agg = Aggregate.empty()
    agg.add(scored("wrong", GOLD, {"status": "ok", "n": 4}))
    report = json.loads(json.dumps(agg.report("T")))
    for entry in report["results"]:
        del entry["reason"]
    assert "| S-wrong | wrong | 0.5000 |  | wrong.json |" in render_markdown(report)


def test_reasons_are_the_same_for_any_split_of_the_runs() -> None:
    records = [
        scored("a", GOLD, GOLD),
        scored("b", GOLD, "no idea"),
        custom("c", "first\nsecond"),
        RunRecord.for_error(scenario_id="E", run_id="d", error="did not run: worker crashed"),
    ]
    whole = Aggregate.empty()
    for record in records:
        whole.add(record)
    for order in (records[2:] + records[:2], records[::-1]):
        arrived = Aggregate.empty()
        for record in order:
            arrived.add(json.loads(json.dumps(record.to_dict())))  # as a worker's record arrives
        assert arrived.report("T")["results"] == whole.report("T")["results"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    sc = pytester.path / "sc"
    scenario(
        sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'), trajectory("r2", '{"a": 2}')
    )
    scenario(sc, "scenario_2", '{"b": 1, "c": 2}', trajectory("r3", "I could not find it."))
    return pytester


def test_plugin_reasons_in_the_aggregate_and_markdown_serial_and_under_xdist(
    project: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    args = ("-p", "no:cacheprovider", "--structeval-scenarios", "sc")
    serial = project.runpytest_subprocess(*args, "-p", "no:xdist", "--structeval-markdown", "s.md")
    serial.assert_outcomes(passed=1, failed=2)
    expected = comparable(project.path)
    reasons = {e["run_id"]: e["reason"] for e in expected["aggregate"]["results"]}
    assert reasons == {
        "r1": None,
        "r2": "structured answer differs from ground truth: 1 mismatched, 0 missing, 0 extra",
        "r3": "model answer has no structure: 0 mismatched, 2 missing, 1 extra",
    }
    page = (project.path / "s.md").read_text(encoding="utf-8")
    assert f"| 2 | r3 | 0.0000 | {reasons['r3']} | r3.json |" in page

    shutil.rmtree(project.path / "reports")
    parallel = project.runpytest_subprocess(*args, "-n", "2", "--structeval-markdown", "p.md")
    parallel.assert_outcomes(passed=1, failed=2)
    assert comparable(project.path) == expected
    assert (project.path / "p.md").read_text(encoding="utf-8") == page
