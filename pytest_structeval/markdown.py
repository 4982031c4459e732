"""A Markdown summary of an aggregate report, for CI pages (``$GITHUB_STEP_SUMMARY``) and PRs.

The blocks come from :func:`~pytest_structeval.summary.summary_blocks` (shared with the HTML
report). Every text is escaped here: a run id with ``|`` or an error quoting ``<think>`` must
not break the table or vanish as HTML.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .files import save_file
from .summary import ROWS_SHOWN, Block, Bullets, GateRow, Heading, Paragraph, Table, summary_blocks

__all__ = ["ROWS_SHOWN", "render_markdown", "write_markdown"]

_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")
_ALIGN = {"l": "---", "r": "---:"}


def render_markdown(
    report: Mapping[str, Any],
    *,
    gates: Sequence[GateRow] = (),
    problems: Sequence[str] = (),
    title: str = "structeval results",
) -> str:
    """Totals, scenario types, gates and problems, what was not read or joined, parse methods,
    repeats, the baseline comparison, the worst fields and the failing runs with why each
    failed; sections without data are left out."""
    blocks = summary_blocks(report, gates=gates, problems=problems, title=title)
    lines: list[str] = []
    for block in blocks:
        lines += _lines(block)
    return "\n".join(lines).rstrip("\n") + "\n"


def _lines(block: Block) -> list[str]:
    if isinstance(block, Heading):
        return [f"{'#' * block.level} {_escaped(block.text)}", ""]
    if isinstance(block, Paragraph):
        label = f"**{_escaped(block.label)}** " if block.label else ""
        return [label + _escaped(block.text), ""]
    if isinstance(block, Bullets):
        return [
            *(
                f"- **{_escaped(label)}** {_escaped(text)}" if label else f"- {_escaped(text)}"
                for label, text in block.items
            ),
            "",
        ]
    return _table(block)


def _table(table: Table) -> list[str]:
    return [
        "| " + " | ".join(map(_escaped, table.header)) + " |",
        "| " + " | ".join(_ALIGN[a] for a in table.align) + " |",
        *("| " + " | ".join(map(_escaped, row)) + " |" for row in table.rows),
        "",
    ]


def _escaped(text: str) -> str:
    """Text safe in Markdown (and the HTML GitHub renders it to)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def write_markdown(path: Path, text: str, *, append: bool = False) -> None:
    """Write (or append, for ``$GITHUB_STEP_SUMMARY``, after a blank line when it holds
    something) the summary, as :func:`~pytest_structeval.files.save_file` writes files."""
    if append and path.is_file() and path.stat().st_size:
        text = "\n" + text
    save_file(path, text.encode("utf-8", "backslashreplace"), append=append)
