"""The Markdown summary: sections, escaping, files and ``$GITHUB_STEP_SUMMARY``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.baseline import Baseline
from pytest_structeval.gates import Checks, parse_gate
from pytest_structeval.htmlreport import render_html
from pytest_structeval.markdown import ROWS_SHOWN, render_markdown, write_markdown
from pytest_structeval.report import Aggregate, RunRecord
from pytest_structeval.stats import mean_ci95


def report_of(runs: list[tuple[str, str, Any, Any]], **extra: Any) -> dict[str, Any]:
    agg = Aggregate.empty()
    for scenario_id, run_id, gold, model in runs:
        result = score(gold, model)
        agg.add(
            RunRecord.from_result(result, scorer="strict", run_id=run_id, scenario_id=scenario_id)
        )
    report = agg.report("2026-11-21T09:00:00+00:00")
    report.update(extra)
    return report


GOLD = {"status": "ok", "n": 3}


def test_a_partial_comparison_says_what_its_means_cover() -> None:
    before = report_of([("S1", "a", GOLD, GOLD), ("S2", "a", GOLD, "no idea")])
    report = report_of([("S1", "a", GOLD, GOLD)])  # a selection of the baseline's runs
    Checks(baseline=Baseline("baseline.json", before)).annotate(report)
    text = render_markdown(report)
    assert "| Mean score | 1.0000 | 1.0000 | +0.0000 |" in text  # S1[a] alone, both sides
    assert "Improved 0 · Regressed 0 · Unchanged 1 · New 0 · Missing 1" in text
    assert (
        "Mean score and pass rate are over the items both hold, each weighing the same; "
        "field means and the parse rate are compared only when both hold the same runs."
    ) in text


@pytest.mark.parametrize(
    ("mark", "caveat"),
    [
        ({"selection": True}, "The baseline scored a selection: the runs it left out count as new"),
        ({"complete": False}, "The baseline is an incomplete run: a run it did not score is new"),
    ],
)
def test_the_baseline_caveat_reaches_the_markdown_and_html_pages(
    mark: dict[str, Any], caveat: str
) -> None:
    """Review maintainer29 #3: only the terminal said it; a step summary read "New 1" bare."""
    before = report_of([("S1", "a", GOLD, GOLD)], **mark)
    report = report_of([("S1", "a", GOLD, GOLD), ("S2", "a", GOLD, GOLD)])
    Checks(baseline=Baseline("baseline.json", before)).annotate(report)
    assert f"{caveat} here." in render_markdown(report)
    assert f"{caveat} here." in render_html(report)
    plain = report_of([("S1", "a", GOLD, GOLD), ("S2", "a", GOLD, GOLD)])
    Checks(baseline=Baseline("baseline.json", report_of([("S1", "a", GOLD, GOLD)]))).annotate(plain)
    assert "The baseline" not in render_markdown(plain)


def test_full_summary() -> None:
    before = report_of([("S1", "a", GOLD, GOLD), ("S2", "a", GOLD, GOLD), ("S2", "b", GOLD, GOLD)])
    report = report_of(
        [
            ("S1", "a", GOLD, '```json\n{"status": "ok", "n": 4}\n```'),
            ("S2", "a", GOLD, GOLD),
            ("S2", "b", GOLD, "no idea"),
        ]
    )
    checks = Checks(
        gates=(parse_gate("f1>=0.9"), parse_gate("errors==0")),
        baseline=Baseline("baseline.json", before),
    )
    checks.annotate(report)
    text = render_markdown(
        report,
        gates=[("f1>=0.9", 0.5, False), ("errors==0", 0.0, True)],
        problems=["structeval: f1_avg 0.5000 misses --structeval-gate f1>=0.9"],
    )
    assert text.startswith("## structeval results\n\n| Scenarios | Runs | Passed | Pass rate |")
    assert text.endswith("\n")
    assert not text.endswith("\n\n")
    ci = report["score_summary"]["score_ci95"]
    mean = report["score_summary"]["score_avg"]
    assert f"| 2 | 3 | 1 | 0.3333 | {mean:.4f} | {ci[0]:.4f} – {ci[1]:.4f} | 0.6667 | 0 |" in text
    assert "| f1&gt;=0.9 | 0.5000 | ❌ missed |" in text
    assert "| errors==0 | 0.0000 | ✅ met |" in text
    assert "- ❌ structeval: f1\\_avg 0.5000 misses --structeval-gate f1&gt;=0.9" in text
    assert "### Parsing" in text
    assert (
        "2 of 3 answers parsed to structure, 1 fell back to text, 0 were empty, "
        "0 could not be parsed."
    ) in text
    assert "| fence:json+json | 1 |" in text
    assert "### Repeats" in text  # S2 ran twice
    assert "| S2 | 2 | 1 |" in text  # and is flaky
    assert (
        "Compared with baseline.json (generated 2026-11-21T09:00:00+00:00), tolerance 0.0000."
        in text
    )
    assert "| Mean score | 1.0000 |" in text
    assert "Improved 0 · Regressed 2 · Unchanged 1 · New 0 · Missing 0" in text
    assert "runs both hold" not in text  # the same runs on both sides
    low, high = mean_ci95([-0.5, 0.0, -1.0], lower=-1.0) or (None, None)
    assert (
        f"Score change 95% CI: {low:+.4f} to {high:+.4f} (t-interval over the 3 compared items)."
    ) in text
    assert "| S1 | a | 1.0000 | 0.5000 | -0.5000 | 1.0000 → 0.0000 |" in text
    assert "| Regressed field | Baseline mean | Mean | Delta |" in text
    assert "### Worst fields" in text
    assert "| answer.n |" in text
    assert "### Failing runs (2)" in text
    assert (
        "| S2 | b | 0.0000 | model answer has no structure: 0 mismatched, 2 missing, 1 extra "
        "| b.json |"
    ) in text


def test_sections_without_data_are_left_out() -> None:
    text = render_markdown(report_of([("1", "a", GOLD, GOLD)]))
    for heading in ("### Checks", "### Repeats", "### Baseline", "### Worst fields", "### Failing"):
        assert heading not in text
    assert "| 1 | 1 | 1 | 1.0000 | 1.0000 | – | 1.0000 | 0 |" in text
    empty = render_markdown(Aggregate.empty().report("T"))
    assert "| 0 | 0 | 0 | 0.0000 | – | – | – | 0 |" in empty


def test_values_from_the_data_cannot_break_the_markdown() -> None:
    agg = Aggregate.empty()
    agg.add(
        RunRecord.for_error(
            scenario_id="a|b",
            run_id="<script>x</script>",
            error="line1\nline2 **bold** `tick` " + "x" * 300,
        )
    )
    report = agg.report("T")
    report["complete"], report["incomplete_reasons"] = False, ["worker gw0 crashed"]
    text = render_markdown(report, title="nightly | eval")
    assert "## nightly \\| eval" in text
    (row,) = [line for line in text.splitlines() if line.startswith("| a\\|b")]
    assert "&lt;script&gt;x&lt;/script&gt;" in row
    assert "line1 line2 \\*\\*bold\\*\\* \\`tick\\`" in row
    assert row.count("|") - row.count("\\|") == 6  # still five cells
    assert "…" in row  # clipped
    assert "**Incomplete run:** worker gw0 crashed" in text


def test_a_recovered_crash_is_said_in_the_summaries() -> None:
    """pluginmix34 #3: a crash whose item was run again leaves the run complete, and says so."""
    from pytest_structeval.report import render_summary

    agg = Aggregate.empty()
    agg.mark_recovered("worker gw0 crashed in t.py::test_a, which was run again")
    report = agg.report("T")
    assert report["complete"] is True
    line = "recovered: worker gw0 crashed in t.py::test_a, which was run again"
    assert line in render_summary(report)
    text = render_markdown(report)
    assert "**Recovered:** worker gw0 crashed in t.py::test\\_a, which was run again" in text
    assert "Incomplete" not in text


def test_long_ids_keep_their_start_and_end_on_the_page() -> None:
    """Run ids of one batch share a long start and differ at the end (``..._run01``): a cut
    that kept the start only showed them as one (realdata24 #2)."""
    from pytest_structeval.summary import CELL_WIDTH, clip_name

    stem = "cell_Z_hybrid_" + "x" * 110  # 130 characters with the run: a label of its own
    first, second = clip_name(stem + "_run01"), clip_name(stem + "_run02")
    assert first != second
    assert len(first) == CELL_WIDTH
    assert first.startswith("cell_Z_hybrid_x")
    assert first.endswith("x_run01")
    assert "…" in first
    assert clip_name("short_run01") == "short_run01"
    agg = Aggregate.empty()
    for run in ("_run01", "_run02"):
        agg.add(
            RunRecord.from_result(score(1, 2), scorer="strict", run_id=stem + run, scenario_id="s")
        )
    text = render_markdown(agg.report("T")).replace("\\_", "_")  # (Markdown escapes _)
    assert first in text
    assert second in text


def test_ids_differing_in_whitespace_stay_apart_on_the_page() -> None:
    """Ids and field paths are escaped as the terminal shows them, never folded: ``a b``,
    ``a\\tb`` and ``a\\nb`` were three rows reading ``a b`` (review outputs22 #4). Reasons
    are prose: their line breaks still fold."""
    agg = Aggregate.empty()
    for sid in ("a b", "a\tb", "a\nb"):
        agg.add(RunRecord.from_result(score(1, 2), scorer="strict", run_id="r", scenario_id=sid))
    agg.add(RunRecord.from_result(score({"k\tx": 1}, {"k\tx": 2}), scorer="strict", run_id="f"))
    text = render_markdown(agg.report("T"))
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.endswith(".json |")]
    assert sorted(rows) == ["| ", "| a b", "| a\\\\nb", "| a\\\\tb"]  # (Markdown doubles \\)
    assert '| answer\\["k\\\\tx"\\] |' in text


def test_failing_runs_are_capped() -> None:
    runs = [(str(n), "a", GOLD, {"status": "no", "n": 3}) for n in range(ROWS_SHOWN + 3)]
    text = render_markdown(report_of(runs))
    assert f"### Failing runs (first {ROWS_SHOWN} of {ROWS_SHOWN + 3})" in text
    table = text.split("### Failing runs")[1]
    assert (
        sum(1 for line in table.splitlines() if line.startswith("| ") and "a |" in line)
        == ROWS_SHOWN
    )


def test_write_and_append(tmp_path: Path) -> None:
    target = tmp_path / "out" / "summary.md"
    write_markdown(target, "one\n")
    write_markdown(target, "two\n")
    assert target.read_text() == "two\n"
    write_markdown(target, "three\n", append=True)
    assert target.read_text() == "two\n\nthree\n"
    fresh = tmp_path / "step.md"
    write_markdown(fresh, "first\n", append=True)
    assert fresh.read_text() == "first\n"


def test_publish_to_a_file_and_the_github_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = report_of([("1", "a", GOLD, GOLD)])
    step = tmp_path / "step_summary.md"
    step.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    assert Checks().publish(report, []) == []  # the switch is off
    checks = Checks(
        gates=(parse_gate("pass_rate>=1"),), markdown=tmp_path / "s.md", github_summary=True
    )
    assert checks.publish(report, []) == [tmp_path / "s.md", step]
    written = (tmp_path / "s.md").read_text()
    assert "| pass\\_rate&gt;=1 | 1.0000 | ✅ met |" in written
    assert step.read_text() == "# earlier step\n\n" + written
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    assert Checks(github_summary=True).publish(report, []) == []  # not on GitHub: nothing


@pytest.mark.parametrize("through_link", [False, True])
def test_a_markdown_file_that_is_the_step_summary_gets_one_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, through_link: bool
) -> None:
    """--structeval-markdown "$GITHUB_STEP_SUMMARY" wrote the summary twice (replaced, then
    appended); now it is appended once, after what the step wrote before."""
    report = report_of([("1", "a", GOLD, GOLD)])
    step = tmp_path / "step_summary.md"
    step.write_text("# earlier step\n")
    named = step
    if through_link:
        named = tmp_path / "link.md"
        named.symlink_to(step)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    checks = Checks(markdown=named, github_summary=True)
    assert checks.publish(report, []) == [step]
    text = step.read_text()
    assert text.startswith("# earlier step\n\n## structeval results")
    assert text.count("## structeval results") == 1


def test_what_was_not_read_or_joined_is_on_the_page() -> None:
    """The terminal listed load errors, unmatched trajectories and duplicates; the Markdown
    summary left them out, so a CI page looked cleaner than the run (audit 9)."""
    report = report_of([("1", "a", GOLD, GOLD)])
    assert "### Not scored or not joined" not in render_markdown(report)
    agg = Aggregate.empty()
    agg.add(RunRecord.from_result(score(GOLD, GOLD), scorer="strict", run_id="a", scenario_id="1"))
    agg.note(
        {
            "unmatched_trajectories": [
                {"source": f"runs/r{n}.json", "run_id": f"r{n}", "scenario_id": "9"}
                for n in range(7)
            ],
            "unmatched_scenarios": [{"id": "2", "path": "sc/scenario_2", "error": None}],
            "duplicates": [
                {
                    "kind": "run_id",
                    "id": "a",
                    "scenario_id": "1",
                    "sources": ["x/a.json", "y/a.json"],
                }
            ],
            "errors": [{"source": "sc/scenario_3/trajectory.json", "error": "invalid JSON"}],
        }
    )
    text = render_markdown(agg.report("T"))
    section = text.split("### Not scored or not joined\n\n")[1].split("\n\n")[0]
    assert section.splitlines() == [
        "- **Errors: 1 (1 loading, 0 in runs)** (sc/scenario\\_3/trajectory.json: invalid JSON)",
        "- **Unmatched trajectories: 7** (runs/r0.json; runs/r1.json; runs/r2.json; "
        "runs/r3.json; runs/r4.json; +2 more)",
        "- **Scenarios without trajectories: 1** (sc/scenario\\_2)",
        "- **Duplicates: 1** (run\\_id a of scenario 1 in x/a.json, y/a.json)",
    ]


def test_parse_methods_are_listed_most_used_first() -> None:
    report = report_of([("1", "a", GOLD, "```json\n" + '{"status": "ok", "n": 3}' + "\n```")])
    report["parse"]["methods"] = {"json": 1, "fence:json+json": 5, "text": 1}
    text = render_markdown(report)
    rows = [line for line in text.splitlines() if line.startswith(("| json", "| fence", "| text"))]
    assert rows == ["| fence:json+json | 5 |", "| json | 1 |", "| text | 1 |"]


def test_an_ampersand_is_escaped() -> None:
    from pytest_structeval.markdown import _escaped

    assert _escaped("R&amp;D") == "R&amp;amp;D"


def test_an_unlabelled_paragraph_has_no_empty_bold() -> None:
    parse = {
        "answers": 2,
        "structured": 1,
        "text": 1,
        "empty": 0,
        "unparsed": 0,
        "methods": {"json": 1, "text": 1},
    }
    md = render_markdown({"parse": parse})
    assert "1 of 2 answers parsed to structure" in md
    assert "****" not in md
