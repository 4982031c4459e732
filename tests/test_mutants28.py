"""Behaviour that review mutation28 found no test for: each test fails under one of its
surviving mutants (named in the docstrings)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_structeval.baseline import Baseline, compare, tolerance_label
from pytest_structeval.errors import OptionsError
from pytest_structeval.gates import Checks, PublishError, parse_gate
from pytest_structeval.parse import parse_answer_detailed
from pytest_structeval.report import Aggregate


def test_an_answer_tag_in_a_closed_string_of_a_cut_off_value_belongs_to_it() -> None:
    """M000: the tag branch of ``_marker_in_closed_string`` (only tags in strings the cut
    left open were tested)."""
    parsed = parse_answer_detailed('{"thought": "see <answer>42</answer> here", "x": 1')
    assert parsed.value == {"thought": "see <answer>42</answer> here", "x": 1}
    assert parsed.method == "repaired"


def test_a_marker_in_a_comment_of_a_cut_off_value_follows_it() -> None:
    """M016, M018, M021: a marker whose token is no string (here a comment) raised
    ``AttributeError`` under each."""
    parsed = parse_answer_detailed('{"a": 1 /* c\nFinal Answer: 42')
    assert (parsed.value, parsed.method) == (42, "final-answer+count")


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ("[1, 2] and 3 more ...", "[1, 2] and 3 more ...", "text"),
        ('"abc" x ...', '"abc" x ...', "text"),
        ("[1, 2 <x> (truncated)", "[1, 2 <x> (truncated)", "text"),
        ('{"a": 1} {"b": ...', {"a": 1}, "candidate+json"),
    ],
)
def test_a_cut_note_after_text_that_is_no_one_value(text: str, value: Any, method: str) -> None:
    """M051: the text before the note decodes to nothing (a ``TypeError`` under it)."""
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method) == (value, method)


@pytest.mark.parametrize(
    "note",
    [
        "(rest omitted)",
        "(elided)",
        "[clipped]",
        "[TRUNCATED]",
        "(output truncated)",
        "<snip>",
        "[output truncated by the harness after 4,096 characters of tool output]",
    ],
)
def test_every_word_of_a_cut_note_is_read(note: str) -> None:
    """M194, M195, M197, M201 (the words omit, elid, clip and the case), M202 (a note longer
    than 40 characters, within the 120 it may reach)."""
    parsed = parse_answer_detailed('{"a": [1, 2 ' + note)
    assert (parsed.value, parsed.method) == ({"a": [1, 2]}, "repaired")


@pytest.mark.parametrize(
    "tail",
    ["(see shortcut)", "[output truncated: " + "x" * 130 + "]"],
    ids=["cut-inside-a-word", "past-the-reach"],
)
def test_what_is_no_cut_note(tail: str) -> None:
    """M193 (``cut`` as a whole word only) and M203 (a bracket longer than the reach)."""
    text = '{"a": [1, 2 ' + tail
    parsed = parse_answer_detailed(text)
    assert (parsed.value, parsed.method, parsed.structured) == (text, "text", False)


@pytest.mark.parametrize(
    "metric",
    ["mode_match", "schema_valid", "weighted_score", "car_score", "partial_similarity_score"],
)
def test_each_built_in_rate_is_a_gate_and_held_to_the_unit_interval(metric: str) -> None:
    """M206, M207, M210: a rate left out of ``SCORER_RATES`` was an unknown metric (a gate
    the README allows refused) or accepted past 1."""
    assert parse_gate(f"{metric}>=0.9").key == f"{metric}_avg"
    with pytest.raises(OptionsError, match="is a rate in \\[0, 1\\]"):
        parse_gate(f"{metric}_avg>=2")


def test_a_rate_is_never_summed() -> None:
    """M209: ``mode_match`` counted as a summed metric."""
    with pytest.raises(OptionsError, match="unknown metric 'mode_match_sum'"):
        parse_gate("mode_match_sum>=3")


def test_baseline_entries_naming_only_a_model_are_told_apart() -> None:
    """M074: AssetOpsBench's entries carry a model and no runner; pooling them made one
    model's drop under the other's rise read as unchanged."""
    old = {
        "results": [
            {"scenario_id": "s1", "run_id": "r1", "model": "gpt", "score": 1.0, "passed": True},
            {"scenario_id": "s1", "run_id": "r1", "model": "claude", "score": 0.0, "passed": False},
        ]
    }
    new = {
        "results": [
            {"scenario_id": "s1", "run_id": "r1", "model": "gpt", "score": 0.0, "passed": False},
            {"scenario_id": "s1", "run_id": "r1", "model": "claude", "score": 1.0, "passed": True},
        ]
    }
    section = compare(Baseline("b.json", old), new)
    assert [e["runner_model"] for e in section["regressed"]] == ["gpt"]
    assert [e["runner_model"] for e in section["improved"]] == ["claude"]


def test_a_baseline_run_that_did_not_run_is_no_score() -> None:
    """M205: the README's ``did not run: `` text, as a saved baseline holds it, marks a run
    pytest never scored; it is absent from the comparison, not a 1.0 to regress from."""
    old = {
        "results": [
            {
                "scenario_id": "s1",
                "run_id": "r1",
                "score": 0.0,
                "passed": False,
                "error": "did not run: stopping after 1 failures",
            }
        ]
    }
    new = {"results": [{"scenario_id": "s1", "run_id": "r1", "score": 0.0, "passed": False}]}
    counts = compare(Baseline("b.json", old), new)["counts"]
    assert (counts["compared"], counts["regressed"], counts["new"]) == (0, 0, 1)


def test_a_baseline_section_without_a_tolerance_reads_zero() -> None:
    """M109: a hand-made or old report's section."""
    assert tolerance_label({}) == "0.0000"


def test_publish_writes_what_it_can_and_names_what_it_could_not(tmp_path: Path) -> None:
    """M144, M146: the per-run reports are named only when written, and an output that cannot
    be written is an error naming it, after the others were written."""
    report = Aggregate.empty().report()
    (tmp_path / "blocker").write_text("a file where a folder would be", encoding="utf-8")
    checks = Checks(markdown=tmp_path / "blocker" / "summary.md", html=tmp_path / "page.html")
    with pytest.raises(PublishError, match=r"the Markdown summary .*summary\.md") as raised:
        checks.publish(report, [], reports_dir=tmp_path / "reports")
    assert raised.value.written == [tmp_path / "page.html"]
    assert "per-run reports in reports" in (tmp_path / "page.html").read_text(encoding="utf-8")
    Checks(html=tmp_path / "page.html").publish(report, [], reports_dir=None)
    assert "per-run reports" not in (tmp_path / "page.html").read_text(encoding="utf-8")
