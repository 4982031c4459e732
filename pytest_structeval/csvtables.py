"""The aggregate report as CSV tables, for spreadsheets and dataframes: ``runs.csv`` (one row
per run, as the report's ``results``) and ``fields.csv`` (one row per field path, worst mean
first, as ExtractBench's ``fields.csv``).

Text cells come from the data (ids, reasons, paths written by a model): one that a
spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, a tab or a carriage return
first) is written with a leading ``'``, the usual guard; numbers are written as numbers. A
NUL is written as its escape, ``\x00``: Python's ``csv`` module before 3.11 can neither write
nor read one.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from .files import save_file
from .stats import finite_number

__all__ = ["CSV_NAMES", "FIELD_COLUMNS", "RUN_COLUMNS", "field_rows", "render_csv", "write_csv"]

RUN_COLUMNS: Final = (
    "scenario_id",
    "run_id",
    "passed",
    "score",
    "error",
    "reason",
    "report",
    "nodeid",
    "label",  # (from here on: added after the others, so their positions stay)
    "runner",
    "model",
)
FIELD_COLUMNS: Final = ("path", "count", "mean_score", "failing")
CSV_NAMES: Final = ("runs.csv", "fields.csv")
_FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


def render_csv(report: Mapping[str, Any]) -> dict[str, str]:
    """``{"runs.csv": text, "fields.csv": text}`` of an aggregate report."""
    results = report.get("results")
    runs = [r for r in results if isinstance(r, Mapping)] if isinstance(results, list) else []
    runs_csv, fields_csv = CSV_NAMES
    return {
        runs_csv: _table(RUN_COLUMNS, runs),
        fields_csv: _table(FIELD_COLUMNS, field_rows(report.get("field_scores"))),
    }


def field_rows(field_scores: Any) -> list[dict[str, Any]]:
    """The report's ``field_scores`` as rows (``path`` first): worst mean first, then most
    failures."""
    rows = [
        {"path": path, **entry}
        for path, entry in (field_scores.items() if isinstance(field_scores, Mapping) else ())
        if isinstance(entry, Mapping)
    ]
    rows.sort(
        key=lambda row: (
            _mean_or_best(row.get("mean_score")),
            -(finite_number(row.get("failing")) or 0.0),
            str(row["path"]),
        )
    )
    return rows


def write_csv(folder: Path, report: Mapping[str, Any]) -> list[Path]:
    """Write the tables into ``folder`` (created), each atomically; the files written. A lone
    surrogate (half an emoji a tokenizer cut, in an id or a key) is written as its escape,
    ``\\ud83d``: UTF-8 cannot hold it."""
    written = []
    for name, text in render_csv(report).items():
        path = folder / name
        save_file(os.fspath(path), text.encode("utf-8", "backslashreplace"))
        written.append(path)
    return written


def _table(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([_cell(row.get(column)) for column in columns] for row in rows)
    return out.getvalue()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    text = str(value).replace("\x00", "\\x00")
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


def _mean_or_best(value: Any) -> float:
    """A field's mean for sorting; one without a readable mean sorts with the best."""
    mean = finite_number(value)
    return 1.0 if mean is None else mean
