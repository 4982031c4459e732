"""Line by line: similarity's ``line_by_line`` (UiPath's ``line_by_line_evaluator``).

An answer made of lines (JSON Lines, one record or one finding per line) is split on a
delimiter, each line read as an answer of its own, and the lines compared by position as the
elements of one list: line ``i`` of the gold with line ``i`` of the model, their fields at
``answer[i]...``. The score is the mean of the line scores, as UiPath averages them: a line
scores what one similarity evaluation of it would, and a missing or extra line scores 0.
Blank lines are not lines (as in UiPath), nor are fence markers (```` ```jsonl ````).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from ..errors import LimitError, OptionsError, hide_usage_error
from ..parse import check_size, strip_think
from ..results import FieldResult

__all__ = ["MAX_LINES", "line_delimiter", "line_scores", "split_lines"]

MAX_LINES: Final = 100_000  # lines per side: each is read as an answer (about 25 us a line)

_FENCE_LINE: Final = re.compile(r"[ \t]*(?:`{3,}|~{3,})[ \t]*[\w+#.-]*[ \t]*\r?")


def line_delimiter(option: Any) -> str | None:
    """``line_by_line`` as the delimiter it splits on: ``True`` is a newline, a non-empty
    string is itself; None or ``False`` is off."""
    __tracebackhide__ = hide_usage_error
    if option is None or option is False:
        return None
    if option is True:
        return "\n"
    if isinstance(option, str) and option:
        return option
    raise OptionsError(
        f"line_by_line must be true (split on newlines) or a non-empty delimiter, got {option!r}"
    )


def split_lines(value: Any, delimiter: str, max_bytes: int) -> list[Any]:
    """The lines of one side: text (after ``<think>`` drafts) split on ``delimiter``, without
    blank lines and fence markers; a list's elements; any other value is one line.
    ``LimitError`` for text over ``max_bytes``, or more than :data:`MAX_LINES` lines."""
    if isinstance(value, str):
        check_size(value, max_bytes)
        pieces = strip_think(value).split(delimiter)
        lines = [p for p in pieces if p.strip() and not _FENCE_LINE.fullmatch(p)]
    elif isinstance(value, (list, tuple)):
        lines = list(value)
    else:
        return [value]
    if len(lines) > MAX_LINES:
        raise LimitError(f"answer has {len(lines):,} lines, over {MAX_LINES:,}")
    return lines


def line_scores(
    fields: Sequence[FieldResult], prefixes: Sequence[str], score_of: Any
) -> list[float]:
    """The score of each line: ``score_of(fields)`` over the fields under ``<prefix>[i]``,
    for every gold line (in order, prefix by prefix), then 0 for each extra model line (its
    fields sit at a negative index)."""
    lines: dict[tuple[int, int], list[FieldResult]] = {}
    extra: set[tuple[int, int]] = set()
    for field in fields:
        path = field.path
        for t, prefix in enumerate(prefixes):
            cut = len(prefix)
            if path.startswith(prefix) and path[cut : cut + 1] == "[":
                index = int(path[cut + 1 : path.index("]", cut)])
                if index < 0:
                    extra.add((t, index))
                else:
                    lines.setdefault((t, index), []).append(field)
                break
    return [score_of(lines[key]) for key in sorted(lines)] + [0.0] * len(extra)
