"""CSV tables of the aggregate (runs.csv, fields.csv): contents, the formula guard, the
pytest option and ini key, and the CLI flag."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from pytest_structeval.cli import main
from pytest_structeval.csvtables import FIELD_COLUMNS, RUN_COLUMNS, render_csv, write_csv
from tests.plugin_support import one_pass_one_fail
from tests.test_features_markdown import GOLD, report_of


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_runs_and_fields_tables() -> None:
    report = report_of(
        [
            ("S1", "a", GOLD, '{"status": "ok", "n": 4}'),
            ("=HYPERLINK(1)", "-b", GOLD, GOLD),  # ids from the data: no formula
            ("S3", "c", GOLD, "I do not know"),
        ]
    )
    tables = render_csv(report)
    runs = rows(tables["runs.csv"])
    assert runs[0] == list(RUN_COLUMNS)
    by_id = {row[0]: row for row in runs[1:]}
    assert by_id["S1"][1:6] == [
        "a",
        "false",
        "0.5",
        "",
        "structured answer differs from ground truth: 1 mismatched, 0 missing, 0 extra",
    ]
    assert by_id["'=HYPERLINK(1)"][1:4] == ["'-b", "true", "1.0"]
    assert by_id["S3"][2] == "false"
    fields = rows(tables["fields.csv"])
    assert fields[0] == list(FIELD_COLUMNS)
    means = [float(row[2]) for row in fields[1:]]
    assert means == sorted(means)  # worst first
    assert {row[0] for row in fields[1:]} >= {"answer.n", "answer.status"}


def test_a_report_without_results_gives_headers_only(tmp_path: Path) -> None:
    written = write_csv(tmp_path / "out", {"results": "junk", "field_scores": {"a": "junk"}})
    assert [p.name for p in written] == ["runs.csv", "fields.csv"]
    assert rows((tmp_path / "out" / "runs.csv").read_text("utf-8")) == [list(RUN_COLUMNS)]
    assert rows((tmp_path / "out" / "fields.csv").read_text("utf-8")) == [list(FIELD_COLUMNS)]


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    one_pass_one_fail(pytester.path / "sc")
    return pytester


def test_the_pytest_option_and_ini_key_write_the_tables(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\n")
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-csv", "tables")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["CSV table: *runs.csv", "CSV table: *fields.csv"])
    runs = rows((project.path / "tables" / "runs.csv").read_text("utf-8"))
    assert [row[:3] for row in runs[1:]] == [["1", "r1", "true"], ["2", "r2", "false"]]
    assert runs[0][-3:] == ["label", "runner", "model"]  # (last: older columns keep places)
    assert [row[-3:] for row in runs[1:]] == [["r1", "react", "gpt-4o"], ["r2", "react", "gpt-4o"]]
    project.makeini("[pytest]\nstructeval_csv = ini-tables\n")
    project.runpytest("--structeval-scenarios", "sc")
    fields = rows((project.path / "ini-tables" / "fields.csv").read_text("utf-8"))
    assert fields[1][0] == "answer.c"  # the failing field first


def test_the_cli_flag_writes_the_tables(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    out = project.path / "cli-tables"
    args = ["evaluate", "--scenarios", str(project.path / "sc"), "--reports-dir"]
    code = main([*args, str(project.path / "r"), "--csv", str(out), "--fail-under", "0.5"])
    assert code == 0
    assert f"CSV table: {out / 'runs.csv'}" in capsys.readouterr().out
    report = json.loads((project.path / "r" / "_aggregate.json").read_text("utf-8"))
    assert len(rows((out / "runs.csv").read_text("utf-8"))) == 1 + len(report["results"])


def test_a_csv_folder_that_cannot_be_written_loses_only_the_tables(
    project: pytest.Pytester,
) -> None:
    project.makeini("[pytest]\n")
    (project.path / "afile").write_text("x", encoding="utf-8")  # (a folder under a file: the
    result = project.runpytest(  # file itself as the folder is a usage error, see test_outputs)
        "--structeval-scenarios",
        "sc",
        "--structeval-csv",
        "afile/t",
        "--structeval-markdown",
        "s.md",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["Markdown summary: *s.md", "FAIL structeval: cannot write the CSV tables in *afile/t: *"]
    )
    assert (project.path / "s.md").read_text("utf-8").startswith("## structeval results")


def _field_order(report_fields: dict) -> list[str]:
    text = render_csv({"results": [], "field_scores": report_fields})["fields.csv"]
    return [line.split(",")[0] for line in text.splitlines()[1:]]


def test_a_field_without_a_mean_sorts_with_the_best() -> None:
    rows = {
        "answer.c": {"count": 4, "failing": 0},
        "answer.a": {"count": 4, "mean_score": 0.5, "failing": 1},
    }
    assert _field_order(rows) == ["answer.a", "answer.c"]


def test_equal_fields_are_ordered_by_path() -> None:
    same = {"count": 4, "mean_score": 0.5, "failing": 1}
    assert _field_order({"answer.b": same, "answer.a": same}) == ["answer.a", "answer.b"]


def test_non_mapping_result_entries_are_skipped() -> None:
    text = render_csv({"results": [{"scenario_id": "1", "run_id": "r"}, "junk", None]})["runs.csv"]
    assert text.splitlines()[1].startswith("1,r,")


def test_a_lone_surrogate_is_written_as_its_escape(tmp_path: Path) -> None:
    """Half an emoji in a run id or a key made the tables a UnicodeEncodeError that ended the
    run in a traceback, with no summary and no gate (review robust17)."""
    report = {
        "results": [{"scenario_id": "1", "run_id": "\ud83dx", "passed": True}],
        "field_scores": {'answer["\udc00k"]': {"count": 1, "mean_score": 1.0, "failing": 0}},
    }
    runs, fields = write_csv(tmp_path, report)
    assert "1,\\ud83dx,true" in runs.read_text("utf-8")
    assert 'answer[""\\udc00k""]' in fields.read_text("utf-8")


def test_a_nul_is_written_as_its_escape_and_the_tables_read_back(tmp_path: Path) -> None:
    """Python 3.10's csv writer refuses a NUL (the session ended in a traceback, with no
    summary), and its reader refuses one in the file (review outputs22 #1)."""
    report = {
        "results": [{"scenario_id": "a\x00b", "run_id": "\x00r", "passed": True}],
        "field_scores": {"answer.k\x00": {"count": 1, "mean_score": 1.0, "failing": 0}},
    }
    runs, fields = write_csv(tmp_path, report)
    assert "\x00" not in runs.read_text("utf-8") + fields.read_text("utf-8")
    with runs.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[1][:3] == ["a\\x00b", "\\x00r", "true"]
    assert "answer.k\\x00" in fields.read_text("utf-8")
