"""Line by line: similarity's ``line_by_line`` (UiPath's ``line_by_line_evaluator``).

An answer made of lines (JSON Lines, one record or one finding per line) is split on a
delimiter, each line read as an answer of its own, and the lines compared by position as the
elements of one list: line ``i`` of the gold with line ``i`` of the model, their fields at
``answer[i]...``. The score is the mean of the line scores, as UiPath averages them: a line
scores what one similarity evaluation of it would, a missing line 0, and an extra line 0 where
extras count (``penalize_extra``). Blank lines are not lines (as in UiPath), nor are fence
markers (```` ```jsonl ````).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from ..errors import LimitError, OptionsError, hide_usage_error
from ..parse import answer_text, check_size, strip_think
from ..results import SKIPPED, FieldResult

__all__ = ["MAX_LINES", "line_delimiter", "line_scores", "split_lines"]

# Lines a side may have: each is read as an answer (about 25 us a short JSON line; a line the
# parser works hard on, such as a cut-off object nested 200 deep, takes milliseconds).
MAX_LINES: Final = 2_000
# A fence marker: backticks or tildes with an info string, attributes too (```json title="x",
# ```{.json}, ```{json}, hl_lines=[8]); a record written on the fence line (```jsonl {"id": 1},
# {id: 1}, {}, [1]) is a line. A backtick fence's info string has no backtick.
_ATTRIBUTES: Final = r"\{(?=[ \t]*(?:[.#]|[\w-]+[ \t]*[=}\s]|[\d, \t-]+\}))|(?<==)\["
_FENCE_LINE: Final = re.compile(
    rf"[ \t]*(?:`{{3,}}(?:[^`{{\[\n]|{_ATTRIBUTES})*|~{{3,}}(?:[^{{\[\n]|{_ATTRIBUTES})*)\r?"
)


_BOOLEAN_WORDS: Final = frozenset({"yes", "no", "on", "off", "y", "n", "true", "false"})


def line_delimiter(option: Any) -> str | None:
    """``line_by_line`` as the delimiter it splits on: ``True`` is a newline, a non-empty
    string is itself (but a word YAML 1.1 reads as a boolean, ``yes``: meant as one); None
    or ``False`` is off."""
    __tracebackhide__ = hide_usage_error
    if option is None or option is False:
        return None
    if option is True:
        return "\n"
    if isinstance(option, str) and option.lower() in _BOOLEAN_WORDS:
        raise OptionsError(  # YAML 1.1's booleans, which YAML 1.2 (and so a config) reads as text
            f"line_by_line {option!r} would split on that word; write true to split on "
            "newlines (only true and false are booleans)"
        )
    if isinstance(option, str) and option:
        return option
    raise OptionsError(
        f"line_by_line must be true (split on newlines) or a non-empty delimiter, got {option!r}"
    )


def split_lines(value: Any, delimiter: str, strict: bool, max_bytes: int) -> list[Any]:
    """The lines of one side: text (``bytes`` as UTF-8, after ``<think>`` drafts) split on
    ``delimiter``, without blank lines and fence markers; a list's elements; any other value
    is one line. ``LimitError`` past ``max_bytes`` or :data:`MAX_LINES` lines."""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        text = answer_text(value, strict, max_bytes)
        check_size(text, max_bytes)
        lines = []
        for piece in _pieces(strip_think(text), delimiter):
            if piece.strip() and not _FENCE_LINE.fullmatch(piece):
                lines.append(piece)
                if len(lines) > MAX_LINES:
                    raise LimitError(f"answer has more than {MAX_LINES:,} lines")
        return lines
    if not isinstance(value, (list, tuple)):
        return [value]
    if len(value) > MAX_LINES:
        raise LimitError(f"answer has more than {MAX_LINES:,} lines")
    return list(value)


def _pieces(text: str, delimiter: str) -> Iterator[str]:
    """``text.split(delimiter)`` one piece at a time (a long answer is never all in pieces)."""
    start, step = 0, len(delimiter)
    while (end := text.find(delimiter, start)) >= 0:
        yield text[start:end]
        start = end + step
    yield text[start:]


def line_scores(
    fields: Sequence[FieldResult],
    prefix: str,
    gold_lines: int,
    model_lines: int,
    count_extra: bool,
    score_of: Callable[[Sequence[FieldResult]], float],
) -> list[tuple[str, float | None]]:
    """The path and score of each line of one target, from its fields (under ``<prefix>[i]``,
    or one skipped field at ``prefix`` when the whole target is ignored): ``score_of`` of
    each of the ``gold_lines`` lines' fields, then, for each extra model line (a negative
    index), 0 when ``count_extra``; None for a line whose every field is skipped (or that has
    none left), and for an extra line that does not count (reported only). A whole target
    skipped has its ``model_lines`` past the gold's as extra lines, None each (at
    ``prefix``)."""
    lines: dict[int, list[FieldResult]] = {}
    cut = len(prefix) + 1
    for field in fields:
        path = field.path
        if path[cut - 1 : cut] == "[":
            lines.setdefault(int(path[cut : path.index("]", cut)]), []).append(field)
    if fields and not lines:  # one skipped field for the whole target: nothing was aligned
        return [(prefix, None)] * max(gold_lines, model_lines)
    scores: list[tuple[str, float | None]] = []
    for index in [*range(gold_lines), *sorted((i for i in lines if i < 0), reverse=True)]:
        line = lines.get(index, ())
        path = f"{prefix}[{index}]"
        if all(f.status == SKIPPED for f in line):
            scores.append((path, None))
        elif index >= 0:
            scores.append((path, score_of(line)))
        else:
            scores.append((path, 0.0 if count_extra else None))
    return scores
