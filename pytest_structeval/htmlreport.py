"""The aggregate report as one self-contained HTML page, to open from a CI artefact.

The same summary as the Markdown one (:func:`~pytest_structeval.summary.summary_blocks`),
with every run and every field instead of the first failing ones. No script, no external
file: a style sheet in the page, and every text from the data escaped.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from .files import save_file
from .summary import Block, Bullets, GateRow, Heading, Paragraph, Table, clip, summary_blocks

__all__ = ["render_html", "write_html"]

_REPORT: Final = "Report"  # the runs table's column of per-run report files
_STYLE: Final = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 80em; color: #1f2328 }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .3em }
h3 { margin-top: 1.8em }
table { border-collapse: collapse; margin: .6em 0 }
th, td { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; vertical-align: top }
th { background: #f6f8fa }
td.r, th.r { text-align: right; font-variant-numeric: tabular-nums }
tr.failing { background: #fff5f5 }
p.meta { color: #59636e }
"""


def render_html(
    report: Mapping[str, Any],
    *,
    gates: Sequence[GateRow] = (),
    problems: Sequence[str] = (),
    title: str = "structeval results",
    reports: str | None = None,
) -> str:
    """The page: when and what ran (and where the per-run ``reports`` are, as seen from the
    page), then the summary with every run and every field."""
    blocks = summary_blocks(report, gates=gates, problems=problems, title=title, every_run=True)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{_escaped(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
    ]
    for block in blocks:
        parts.append(_html(block, reports))
        if isinstance(block, Heading) and block.level == 2:
            parts.append(_meta(report, reports))
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def write_html(path: Path, text: str) -> None:
    """Write the page atomically, creating its folder."""
    save_file(os.fspath(path), text.encode("utf-8"))


def _meta(report: Mapping[str, Any], reports: str | None) -> str:
    """``generated ... · runners ... · models ... · per-run reports in ...``."""
    parts = []
    if report.get("generated_at"):
        parts.append(f"generated {clip(report['generated_at'])}")
    for key in ("runners", "models"):
        names = report.get(key)
        if isinstance(names, list) and names:
            parts.append(f"{key} {clip(', '.join(map(str, names)))}")
    if reports is not None:
        parts.append(f"per-run reports in {clip(reports, 400)}")
    return f'<p class="meta">{_escaped(" · ".join(parts))}</p>' if parts else ""


def _html(block: Block, reports: str | None) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{_escaped(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        label = f"<strong>{_escaped(block.label)}</strong> " if block.label else ""
        return f"<p>{label}{_escaped(block.text)}</p>"
    if isinstance(block, Bullets):
        items = "".join(
            f"<li><strong>{_escaped(label)}</strong> {_escaped(text)}</li>"
            if label
            else f"<li>{_escaped(text)}</li>"
            for label, text in block.items
        )
        return f"<ul>{items}</ul>"
    return _table(block, reports)


def _table(table: Table, reports: str | None) -> str:
    """The table; with ``reports`` (where the per-run reports are, seen from the page), a
    ``Report`` cell links to its file."""
    classes = [' class="r"' if a == "r" else "" for a in table.align]
    linked = table.header.index(_REPORT) if reports is not None and _REPORT in table.header else -1
    head = "".join(f"<th{c}>{_escaped(h)}</th>" for c, h in zip(classes, table.header, strict=True))
    rows = []
    marks = table.failing or (False,) * len(table.rows)
    for row, failed in zip(table.rows, marks, strict=True):
        failing = ' class="failing"' if failed else ""
        cells = "".join(
            f"<td{c}>{_link(v, reports) if i == linked and reports else _escaped(v)}</td>"
            for i, (c, v) in enumerate(zip(classes, row, strict=True))
        )
        rows.append(f"<tr{failing}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _link(name: str, reports: str) -> str:
    """A report file's name as a link to it; a name cut short (``…``) or empty stays text.
    A folder given as an absolute path (on Windows, one on another drive than the page's)
    is linked by a ``file:`` URI: ``D:/ci/...`` quoted would be a path below the page's."""
    if not name or name.endswith("…") or "/" in name:
        return _escaped(name)
    if os.path.isabs(reports):
        href = Path(reports, name).as_uri()
    else:
        href = quote(f"{reports.replace(os.sep, '/')}/{name}")
    return f'<a href="{_escaped(href)}">{_escaped(name)}</a>'


def _escaped(text: str) -> str:
    return html.escape(text, quote=True)
