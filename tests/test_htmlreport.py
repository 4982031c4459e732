"""The HTML report: one self-contained page with every run and field, escaped; the pytest
option and ini key, and the CLI flag."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from pytest_structeval import score
from pytest_structeval.cli import main
from pytest_structeval.htmlreport import render_html, write_html
from pytest_structeval.report import Aggregate, RunRecord
from tests.plugin_support import one_pass_one_fail
from tests.test_features_markdown import GOLD, report_of


class _Page(HTMLParser):
    """The page's tags (checked balanced), table rows and text."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.tags: list[str] = []
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag not in {"meta"}:
            self.open.append(tag)
        if tag == "tr":
            self.rows.append([])
        if tag in {"td", "th"}:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        assert self.open.pop() == tag
        if tag in {"td", "th"} and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self.cell is not None:
            self.cell.append(data)


def parsed(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    assert page.open == []  # every tag closed
    return page


RUNS = [
    ("S1", "a", GOLD, '{"status": "ok", "n": 4}'),
    ("<script>alert(1)</script>", "b&c", GOLD, GOLD),
    ("S3", "c", GOLD, "I do not know"),
]


def test_every_run_and_field_failing_first_and_escaped() -> None:
    report = report_of(RUNS)
    text = render_html(report, gates=[("f1>=0.9", 0.5, False)], problems=["gate <missed>"])
    assert text.startswith("<!DOCTYPE html>")
    assert "<script" not in text  # no script at all: the data's is escaped
    page = parsed(text)
    assert {"script", "link", "img", "iframe"}.isdisjoint(page.tags)
    header = ["Scenario", "Run", "Runner / model", "Passed"]
    runs = next(i for i, row in enumerate(page.rows) if row[:4] == header)
    table = page.rows[runs + 1 : runs + 4]
    assert [(row[0], row[1], row[2], row[3]) for row in table] == [
        ("S1", "a", "–", "❌"),  # (these runs name no runner or model)
        ("S3", "c", "–", "❌"),
        ("<script>alert(1)</script>", "b&c", "–", "✅"),
    ]
    assert table[0][5] == (
        "structured answer differs from ground truth: 1 mismatched, 0 missing, 0 extra"
    )
    fields = [row[0] for row in page.rows if row and row[0].startswith("answer.")]
    assert set(fields) >= {"answer.n", "answer.status"}
    body = "".join(page.text)
    assert "Runs (3, 2 failing)" in body
    assert "❌ gate <missed>" in body
    assert re.search(r"generated \d{4}-\d{2}-\d{2}", body)


def test_more_runs_than_the_markdown_shows() -> None:
    report = report_of([(f"S{n}", f"r{n}", GOLD, '{"status": "no"}') for n in range(30)])
    page = parsed(render_html(report))
    assert sum(1 for row in page.rows if row and re.fullmatch(r"S\d+", row[0])) == 30


def test_written_atomically_with_its_folder(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "page.html"
    write_html(target, "<p>x</p>")
    assert target.read_text("utf-8") == "<p>x</p>"
    assert [p.name for p in target.parent.iterdir()] == ["page.html"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    one_pass_one_fail(pytester.path / "sc")
    return pytester


def test_the_pytest_option_and_ini_key_write_the_page(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\n")
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-html", "out/r.html")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["HTML report: *out*r.html"])
    page = parsed((project.path / "out" / "r.html").read_text("utf-8"))
    assert ["2", "r2", "react / gpt-4o", "❌"] in [row[:4] for row in page.rows]
    assert "per-run reports in ../reports/structeval" in "".join(page.text)
    project.makeini("[pytest]\nstructeval_html = ini.html\n")
    project.runpytest("--structeval-scenarios", "sc")
    assert "answer.c" in (project.path / "ini.html").read_text("utf-8")


def test_the_cli_flag_writes_the_page(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project.path / "page.html"
    args = ["evaluate", "--scenarios", str(project.path / "sc"), "--reports-dir"]
    code = main([*args, str(project.path / "r"), "--html", str(out), "--fail-under", "0.5"])
    assert code == 0
    assert f"HTML report: {out}" in capsys.readouterr().out
    assert "Runs (2, 1 failing)" in out.read_text("utf-8")
    assert "per-run reports in r<" in out.read_text("utf-8")


def test_reports_on_another_drive_are_linked_by_a_file_uri(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On Windows, reports on another drive than the page are named by their absolute path
    (``relpath`` raises ValueError), and its link, ``D%3A/ci/...``, was a path below the
    page's folder (review portability33 #9): it is a ``file:`` URI."""
    reports = project.path / "r #1"
    relpath = os.path.relpath

    def other_drive(path: Any, start: Any = None) -> str:
        if os.fspath(path) == os.fspath(reports):
            raise ValueError("path is on mount 'D:', start on mount 'C:'")
        return relpath(path, start)

    monkeypatch.setattr(os.path, "relpath", other_drive)
    out = project.path / "page.html"
    args = ["evaluate", "--scenarios", str(project.path / "sc"), "--reports-dir", str(reports)]
    assert main([*args, "--html", str(out)]) in (0, 1)
    capsys.readouterr()
    hrefs = re.findall(r'<a href="([^"]*)"', out.read_text("utf-8"))
    assert hrefs
    assert all(href.startswith(reports.as_uri() + "/") for href in hrefs), hrefs
    assert reports.as_uri().endswith("/r%20%231")
    for href in hrefs:
        assert Path(unquote(href.removeprefix("file://"))).is_file()
    page = render_html(report_of(RUNS), reports=str(reports))
    assert f'<a href="{reports.as_uri()}/' in page


def test_a_page_that_cannot_be_written_loses_only_itself(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\n")
    (project.path / "afile").write_text("x", encoding="utf-8")
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-html",
        "afile/r.html",
        "--structeval-csv",
        "tables",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["CSV table: *runs.csv", "FAIL structeval: cannot write the HTML report *r.html: *"]
    )


def test_rows_are_marked_by_verdict_not_by_their_text() -> None:
    report = report_of([("❌", "ok-run", GOLD, GOLD), ("S2", "bad", GOLD, '{"status": "no"}')])
    text = render_html(report, gates=[("f1>=0.9", 0.5, False), ("errors==0", 0.0, True)])
    marked = re.findall(r'<tr class="failing">(.*?)</tr>', text)
    assert len(marked) == 2  # the missed gate and the failing run
    assert "f1&gt;=0.9" in marked[0]
    assert "<td>S2</td>" in marked[1]


def test_fields_with_equal_means_put_the_most_failures_first() -> None:
    report = {
        "field_scores": {
            "answer.a": {"count": 10, "mean_score": 0.0, "failing": 1},
            "answer.b": {"count": 10, "mean_score": 0.0, "failing": 9},
            "answer.c": {"count": "\udcff", "mean_score": 0.5, "failing": None},
        }
    }
    page = parsed(render_html(report))
    fields = [row for row in page.rows if row and row[0].startswith("answer.")]
    assert fields == [
        ["answer.b", "0.0000", "9/10"],
        ["answer.a", "0.0000", "1/10"],
        ["answer.c", "0.5000", "–/–"],
    ]


def test_the_cli_prints_its_summary_when_the_page_cannot_be_written(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    (project.path / "afile").write_text("x", encoding="utf-8")
    markdown = project.path / "tables" / "summary.md"
    args = ["evaluate", "--scenarios", str(project.path / "sc"), "--reports-dir"]
    outputs = ["--markdown", str(markdown), "--csv", str(project.path / "tables")]
    page = str(project.path / "afile" / "p.html")
    code = main([*args, str(project.path / "r"), "--html", page, *outputs])
    out, err = capsys.readouterr()
    assert code == 2
    assert "cannot write the HTML report" in err
    assert "scenarios 2 | runs 2 | passed 1" in out
    assert f"Markdown summary: {markdown}" in out  # not called a CSV table beside them
    assert f"CSV table: {project.path / 'tables' / 'runs.csv'}" in out


# -- surviving mutants (mutants15) --------------------------------------------------------------


def test_summary_details_a_user_reads() -> None:
    from pytest_structeval.markdown import render_markdown

    report: dict[str, Any] = {
        "totals": {"errors": 1},
        "score_summary": {"schema_valid_avg": 0.0},
        "errors": [
            {"source": "a", "error": "x"},
            {"source": "b", "error": "y"},
            {"source": "c", "error": "z"},
        ],
        "by_scenario_type": {
            "B": {"total": 1, "passed": 0, "pass_rate": None, "score_avg": None},
            "A": {"total": 1, "passed": 0, "pass_rate": 0.0, "score_avg": 0.0},
        },
    }
    text = render_markdown(report)
    assert "**Answer schema:** valid rate 0.0000 over the scored runs that name one." in text
    assert "**Errors: 3 (2 loading, 1 in runs)**" in text
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.startswith(("| A", "| B"))]
    assert rows == ["| A", "| B"]  # a type without a pass rate sorts last


def test_the_longest_report_names_are_shown_whole_and_linked() -> None:
    """A run id past 115 characters gave a report name the cell cut short (``…``), so the
    page neither linked nor named it (review outputs22 #3)."""
    report = report_of([("1", "run-" + "x" * 400, GOLD, GOLD), ("1", "x" * 400, GOLD, GOLD)])
    names = [r["report"] for r in report["results"]]  # type: ignore[index]
    assert min(len(name) for name in names) > 150  # cut and hashed, as long as names get
    page = render_html(report, reports="out")
    for name in names:
        assert f'<a href="out/{name}">{name}</a>' in page


def test_the_meta_line_follows_the_title_once() -> None:
    page = render_html(
        {"generated_at": "2026-11-29T00:00:00Z", "totals": {}, "results": []}, reports="runs/"
    )
    assert (
        '</h2>\n<p class="meta">generated 2026-11-29T00:00:00Z · per-run reports in runs/</p>'
        in page
    )
    assert page.count('class="meta"') == 1


def test_report_cells_link_to_their_files() -> None:
    report = report_of(RUNS)
    names = [r["report"] for r in report["results"]]  # type: ignore[index]
    linked = render_html(report, reports="../reports dir")
    for name in names:
        href = "../reports%20dir/" + name.replace("&", "%26")
        assert f'<a href="{href}">' in linked
    assert "<a href" not in render_html(report)  # without the folder, names stay text
    page = parsed(linked)
    assert {"a"} <= set(page.tags)


def test_a_runs_system_is_named_as_the_aggregate_names_it() -> None:
    # Runner "a / b" with no model and runner "a" with model "b" both read "a / b" in the
    # runs table, while the aggregate and the page's by-system table call one "a / b #2".
    agg = Aggregate.empty()
    for run_id, runner, model in (("1", "a / b", ""), ("2", "a", "b")):
        result = score(GOLD, GOLD)
        agg.add(
            RunRecord.from_result(
                result, scorer="strict", run_id=run_id, scenario_id="A", runner=runner, model=model
            )
        )
    report = agg.report("2026-11-21T09:00:00+00:00")
    names = set(report["by_runner_model"])
    assert names == {"a / b", "a / b #2"}
    page = parsed(render_html(report))
    cells = {row[1]: row[2] for row in page.rows if row[:1] == ["A"] and len(row) > 3}
    assert set(cells.values()) == names
    assert cells["2"] == "a / b"  # (runner, model) ("a", "b") sorts first
