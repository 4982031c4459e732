"""The public scoring API: ``score``, ``assert_json_matches``, ``JsonMatches`` and the
failure text they share with the pytest plugin.

A failure shows only what failed — the failing paths as a compact table (path, gold,
model, score, reason) under the headline metrics — because a whole-object diff hides the
one wrong field (promptfoo#2382, dirty-equals#53).

Frames on the way from a user's call to an ``OptionsError`` set ``__tracebackhide__``, so
pytest shows the user's line and the message, not the engine's internals.
"""

from __future__ import annotations

import itertools
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final
from unicodedata import normalize

from .answer_schema import as_check, take_answer_schema, with_validity
from .errors import AnswerParseError
from .naming import (
    columns,
    fit_columns,
    printable,
    score_beside,
    score_text,
    threshold_text,
    within_slack,
)
from .parse import DEFAULT_MAX_BYTES
from .registry import Registry, default_registry, takes_registry
from .repeats import Repeat, gold_repeat_note
from .results import HALLUCINATION, MISMATCH, OMISSION, FieldResult, ScoreResult
from .signatures import AssertJsonMatches as AssertJsonMatches

__all__ = [
    "JsonMatches",
    "assert_json_matches",
    "assert_json_valid",
    "assertrepr_lines",
    "check_result",
    "explain",
    "failed_matchers",
    "nested_assertrepr_lines",
    "render_failure",
    "score",
]

MAX_ROWS: Final = 50
PATH_WIDTH: Final = 80
VALUE_WIDTH: Final = 40
REASON_WIDTH: Final = 100
BRIEF_WIDTH: Final = 60
MAX_MATCHERS: Final = 5
MAX_NOTES: Final = 5
MAX_WALK_NODES: Final = 10_000
MAX_WALK_DEPTH: Final = 64
_ABSENT: Final = "-"


def score(
    gold: Any,
    model: Any,
    mode: str = "strict",
    threshold: float | None = None,
    *,
    registry: Registry | None = None,
    **options: Any,
) -> ScoreResult:
    """Score ``model`` against ``gold`` with the scorer registered as ``mode``.

    Both answers may be raw text (fences, prose, ``Final Answer:``, Python literals),
    parsed values, or a ``pathlib.Path`` to a file holding one (:func:`_from_file`).
    Unknown modes and options raise ``OptionsError``; a bad gold raises; a bad model answer
    gives a failed result with ``error`` set.
    """
    __tracebackhide__ = True
    scorer = (registry or default_registry()).get_scorer(mode)
    check = take_answer_schema(options) if options else None
    if threshold is not None:
        options["threshold"] = threshold
    if registry is not None and takes_registry(scorer):
        options["registry"] = registry  # e.g. schema mode looks comparators up there
    if type(gold) is not str and _is_path(gold):
        gold = _gold_file(gold, options)
    if type(model) is not str and _is_path(model):
        try:
            model = _from_file(model, "model answer", options)
        except AnswerParseError as exc:
            from .modes import error_result

            scorer(gold, "", **options)  # a bad gold or option still raises, as with any answer
            result = error_result(mode, str(exc), threshold=threshold)
            return result if check is None else with_validity(result, check)
    result = scorer(gold, model, **options)
    if not isinstance(result, ScoreResult):
        raise TypeError(f"scorer {mode!r} returned {type(result).__name__}, not ScoreResult")
    return result if check is None else with_validity(result, check)


def _is_path(value: Any) -> bool:
    """``isinstance(value, os.PathLike)`` without its ABC check for the answers most calls
    pass (text and parsed values, never paths): an ABC check costs as much as a small parse."""
    kind = type(value)
    return kind is not str and kind is not dict and isinstance(value, os.PathLike)


def _from_file(
    path: os.PathLike[str],
    side: str,
    options: Mapping[str, Any],
    repeated: list[Repeat] | None = None,
) -> Any:
    """A gold or answer file read as a scenario's ``groundtruth.*`` is: ``.json``/``.yaml``
    as a value, any other file as answer text. A ``str`` is always the answer itself.
    ``repeated``: the keys such a file writes twice in one object."""
    __tracebackhide__ = True
    from .scenarios import read_answer_file

    limit = options.get("max_bytes", DEFAULT_MAX_BYTES)
    try:
        bound = limit if type(limit) is int and limit > 0 else DEFAULT_MAX_BYTES  # (checked later)
        return read_answer_file(os.fspath(path), bound, repeated=repeated)
    except (OSError, ValueError) as exc:
        raise AnswerParseError(f"{side} file {os.fspath(path)}: {exc}") from None


def _gold_file(path: os.PathLike[str], options: Mapping[str, Any]) -> Any:
    """The gold file at ``path`` (see :func:`_from_file`); a key it writes twice in one
    object keeps its last value, with a ``GoldWarning`` (as a scenario's gold file does)."""
    __tracebackhide__ = True
    repeated: list[Repeat] = []
    gold = _from_file(path, "gold", options, repeated)
    if repeated:
        from .modes import warn_gold

        warn_gold(gold_repeat_note(repeated, where=os.fspath(path)), gold)
    return gold


def assert_json_matches(
    gold: Any,
    model: Any,
    mode: str = "strict",
    threshold: float | None = None,
    *,
    registry: Registry | None = None,
    **options: Any,
) -> ScoreResult:
    """Score, then raise ``AssertionError`` listing the failing paths unless the result
    passed (and, with ``threshold``, reached it). Returns the result for further checks."""
    __tracebackhide__ = True
    result = score(gold, model, mode, threshold=threshold, registry=registry, **options)
    return check_result(result, threshold)


def check_result(
    result: ScoreResult, threshold: float | None = None, *, detailed: bool = True
) -> ScoreResult:
    """Return ``result`` when it passed (and reached ``threshold``), else raise
    ``AssertionError`` with :func:`render_failure` (its headline only unless ``detailed``)."""
    __tracebackhide__ = True
    if not _accepted(result, threshold):
        raise AssertionError(render_failure(result, detailed=detailed))
    return result


def _accepted(result: ScoreResult, threshold: float | None) -> bool:
    return result.passed and (threshold is None or result.score >= threshold)


class JsonMatches:
    """``model == JsonMatches(gold, mode=..., **options)`` scores ``model`` against ``gold``.

    The last :class:`ScoreResult` stays on ``.result``. After a successful match ``repr``
    is the matched value (the dirty-equals trick), so pytest's diff of a bigger structure
    does not flag this part as different; after a failure ``repr`` ends with the score and
    the failing fields in brief, and the plugin shows the failing paths.
    """

    __slots__ = ("_matched", "gold", "mode", "options", "registry", "result", "threshold")
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # mutable: keeps the last result

    def __init__(
        self,
        gold: Any,
        mode: str = "strict",
        *,
        threshold: float | None = None,
        registry: Registry | None = None,
        **options: Any,
    ) -> None:
        self.gold: Any = gold
        self.mode: str = mode
        self.threshold: float | None = threshold
        self.registry: Registry | None = registry
        self.options: dict[str, Any] = options
        self.result: ScoreResult | None = None
        self._matched: tuple[Any] | None = None

    def __eq__(self, other: object) -> bool:
        __tracebackhide__ = True
        result = score(
            self.gold,
            other,
            self.mode,
            threshold=self.threshold,
            registry=self.registry,
            **self.options,
        )
        self.result = result
        ok = _accepted(result, self.threshold)
        self._matched = (other,) if ok else None
        return ok

    def __ne__(self, other: object) -> bool:
        __tracebackhide__ = True
        return not self.__eq__(other)

    @property
    def failed(self) -> bool:
        """Whether the last comparison was made and did not match."""
        return self.result is not None and self._matched is None

    def __repr__(self) -> str:
        if self._matched is not None:  # shown as the value it matched (no diff there)
            try:
                return repr(self._matched[0])
            except ValueError:  # an int past Python's digit limit: shown as the matcher
                pass
        extra = "".join(f", {k}={v!r}" for k, v in self.options.items())
        if self.threshold is not None:
            extra = f", threshold={self.threshold!r}{extra}"
        text = f"JsonMatches({_show(self.gold, 60)}, mode={self.mode!r}{extra})"
        if self.result is not None:
            text += f" -> {score_text(self.result.score, '.2f')}: {_brief(self.result)}"
        return text

    def explain(self) -> list[str]:
        """The failure lines of the last comparison (empty before any comparison)."""
        return explain(self.result) if self.result is not None else []


# --------------------------------------------------------------------------- failure text


def render_failure(result: ScoreResult, *, max_rows: int = MAX_ROWS, detailed: bool = True) -> str:
    """The assertion message: headline, metrics, then a table of the failing paths only;
    the one-line headline alone when not ``detailed`` (``--structeval-diff off``)."""
    return "\n".join(explain(result, max_rows=max_rows)) if detailed else _headline(result)


def explain(result: ScoreResult, *, max_rows: int = MAX_ROWS) -> list[str]:
    """:func:`render_failure` as lines (what ``pytest_assertrepr_compare`` returns)."""
    lines = [_headline(result)]
    if result.error is None:
        figures = _figures(result.metrics)
        if figures:
            lines.append(figures)
        if result.parse_method not in (None, "json", "value"):
            lines.append(f"model answer parsed via {result.parse_method}")
        lines += _notes(result.metrics)
        lines += _violation_lines(result.metrics.get("schema_violations"))
    return lines + _failing_paths(result, max_rows=max_rows)


def _violation_lines(found: Any, limit: int = MAX_NOTES) -> list[str]:
    """Where and why an answer breaks its ``answer_schema``, clipped."""
    if not isinstance(found, list) or not found:
        return []
    lines = [
        printable("schema: " + _clip(f"{v.get('path')}: {v.get('message')}", REASON_WIDTH))
        for v in found[:limit]
        if isinstance(v, Mapping)
    ]
    if len(found) > limit:
        lines.append(f"... and {len(found) - limit} more schema violations")
    return lines


def assert_json_valid(
    answer: Any,
    schema: Any,
    *,
    formats: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
    repair: bool = True,
) -> Any:
    """Parse ``answer`` as :func:`score` does and raise ``AssertionError`` listing where and
    why it breaks the JSON Schema ``schema`` (an object, a boolean, or a file's path);
    return the parsed answer when it is valid. Text that holds no structure is checked as a
    string. ``formats=False`` leaves ``format`` unchecked."""
    __tracebackhide__ = True
    from .parse import parse_answer
    from .schema.validity import MAX_VIOLATIONS

    check = as_check(schema, formats=formats, name="schema")
    value = parse_answer(
        _from_file(answer, "answer", {"max_bytes": max_bytes})
        if isinstance(answer, os.PathLike)
        else answer,
        max_bytes=max_bytes,
        repair=repair,
    )
    found = check.violations(value)
    if found:
        count = f"{len(found)}{'+' if len(found) >= MAX_VIOLATIONS else ''}"
        lines = [f"answer breaks its JSON Schema: {count} violation{'s' if len(found) > 1 else ''}"]
        lines += [
            printable(f"{v.path}: {v.message}  [{v.keyword} at {v.schema_path}]") for v in found
        ]
        raise AssertionError("\n".join(lines))
    return value


def _notes(metrics: Mapping[str, Any]) -> list[str]:
    """The mode's notes (duplicate keys, patterns that matched nothing...), clipped: they
    often explain the table below them."""
    notes = metrics.get("notes")
    if not isinstance(notes, list) or not notes:
        return []
    lines = [f"note: {_clip(str(note), REASON_WIDTH)}" for note in notes[:MAX_NOTES]]
    if len(notes) > MAX_NOTES:
        lines.append(f"... and {len(notes) - MAX_NOTES} more notes")
    return lines


def _failing_paths(result: ScoreResult, *, max_rows: int = MAX_ROWS) -> list[str]:
    """The table of the failing paths (or the error, or ``no failing fields``) as lines."""
    if result.error is not None:
        return [f"error: {result.error}"]
    failing = result.failing_fields
    if not failing:
        return ["no failing fields"]
    rows = [
        tuple(
            printable(cell)  # values and keys come from the model: no escapes, no bidi controls
            for cell in (
                _clip_middle(f.path, PATH_WIDTH),
                *_values_shown(f),
                score_text(f.score, ".2f"),
                _clip(_reason(f), REASON_WIDTH),
            )
        )
        for f in failing[:max_rows]
    ]
    header = ("path", "gold", "model", "score", "reason")
    widths = [max(columns(r[c]) for r in (header, *rows)) for c in range(4)]
    lines = []
    for row in (header, *rows):
        cells = [
            cell + " " * (width - columns(cell))
            for cell, width in zip(row[:4], widths, strict=True)
        ]
        lines.append("  ".join([*cells, row[4]]).rstrip())
    if len(failing) > max_rows:
        lines.append(f"... and {len(failing) - max_rows} more failing fields")
    return lines


def _values_shown(field: FieldResult) -> tuple[str, str]:
    """A failing field's gold and model cells; two values that would show alike (``Å`` and
    ``A`` + U+030A, which schema mode's ``exact`` tells apart) are shown escaped, so the
    table says how they differ."""
    gold = _ABSENT if field.status == HALLUCINATION else _show(field.gold, VALUE_WIDTH)
    model = _ABSENT if field.status == OMISSION else _show(field.model, VALUE_WIDTH)
    if gold != _ABSENT and normalize("NFC", gold) == normalize("NFC", model):
        gold, model = _escaped(field.gold), _escaped(field.model)
    return gold, model


def _escaped(value: Any) -> str:
    """A value as JSON with every character past ASCII escaped (``"A\\u030a"``), clipped."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError):  # not a JSON value (a custom scorer's): Python's form
        text = ascii(value)
    return _clip(text, VALUE_WIDTH)


def _reason(field: FieldResult) -> str:
    """A failing field's reason, or what its status and comparator say (schema mode's
    comparators explain only some misses: the score and both values are in the table)."""
    if field.reason is not None:
        return str(field.reason)  # a custom scorer's may be any object
    comparator = getattr(field, "comparator", None)
    if field.status == MISMATCH and comparator:
        if 0.0 < field.score < 1.0:
            return f"{comparator} gives partial credit; a match needs 1"
        return f"{comparator}: values differ"
    if field.status == OMISSION:
        return "missing from the answer"
    if field.status == HALLUCINATION:
        return "not in the gold"
    return field.status


def assertrepr_lines(left: object, right: object, *, detailed: bool = True) -> list[str] | None:
    """Lines for ``pytest_assertrepr_compare`` when either side of ``==`` is a
    ``JsonMatches`` (its last result) or a ``ScoreResult``; None otherwise.

    A failed result is explained (the right side's first, where a matcher usually stands).
    A passed ``ScoreResult`` compared with something else is a slip (``== 1.0``, ``== True``):
    the lines say to assert ``.passed``; two passed results are left to pytest's diff.
    """
    found = []
    for side in (right, left):
        result = side.result if isinstance(side, JsonMatches) else side
        if isinstance(result, ScoreResult):
            found.append((side, result))
    if not found:
        return None
    side, result = next(((s, r) for s, r in found if not r.passed), found[0])
    if result.passed:
        other = left if side is right else right
        if isinstance(other, ScoreResult) or isinstance(side, JsonMatches):
            return None  # pytest's own diff; a matcher's passed result is an earlier one
        return [
            f"a ScoreResult never equals {type(other).__name__} {_clip(repr(other), BRIEF_WIDTH)}:"
            f" assert result.passed, or compare result.score ({result.mode} score "
            f"{score_text(result.score, '.4f')}, passed)"
        ]
    head = _compare_head(result)
    return [head, *explain(result)] if detailed else [head]


def nested_assertrepr_lines(left: object, right: object, *, detailed: bool = True) -> list[str]:
    """Lines for the failed :class:`JsonMatches` inside the operands of ``==`` (see
    :func:`failed_matchers`); empty when there are none.

    Each gets a line naming where it sits, then (when ``detailed``) its failing-paths table
    without the metrics: these lines follow pytest's own diff of the structure, and pytest
    truncates the whole explanation to about 8 lines without ``-vv``.
    """
    found = failed_matchers(left, right)
    lines: list[str] = []
    for where, matcher in found[:MAX_MATCHERS]:
        result = matcher.result
        if result is not None:  # always: a failed matcher was compared
            head = f"{where}: {_compare_head(result)}"
            violations = _violation_lines(result.metrics.get("schema_violations"))
            lines += [head, *violations, *_failing_paths(result)] if detailed else [head]
    if len(found) > MAX_MATCHERS:
        lines.append(f"... and {len(found) - MAX_MATCHERS} more failed JsonMatches")
    return lines


def failed_matchers(left: object, right: object) -> list[tuple[str, JsonMatches]]:
    """``(where, matcher)`` for each :class:`JsonMatches` whose last comparison failed, found
    inside the dicts, lists and tuples of both operands (``where`` reads like
    ``right['body'][0]``), in reading order, each matcher once.

    Iterative and bounded (:data:`MAX_WALK_DEPTH` levels, :data:`MAX_WALK_NODES` values in
    all): it runs on the operands of any failing ``==`` of a test suite.
    """
    found: list[tuple[str, JsonMatches]] = []
    seen: set[int] = set()
    budget = MAX_WALK_NODES
    # (value, depth, where); ``where`` is (name,) or (parent's where, key), formatted on a find.
    stack: list[tuple[object, int, tuple[Any, ...]]] = [
        (right, 0, ("right",)),
        (left, 0, ("left",)),
    ]
    while stack and budget > 0:
        value, depth, where = stack.pop()
        budget -= 1
        if isinstance(value, JsonMatches):
            if value.failed and id(value) not in seen:
                seen.add(id(value))
                found.append((_where(where), value))
        elif (
            isinstance(value, (dict, list, tuple))
            and depth < MAX_WALK_DEPTH
            and id(value) not in seen
        ):
            seen.add(id(value))  # also stops cycles
            items: Iterable[tuple[Any, Any]] = (
                value.items() if isinstance(value, dict) else enumerate(value)
            )
            children = [(v, depth + 1, (where, k)) for k, v in itertools.islice(items, budget)]
            stack.extend(reversed(children))
    return found


def _where(where: tuple[Any, ...]) -> str:
    """``right['body'][0]`` from the (parent, key) chain of :func:`failed_matchers`."""
    keys: list[str] = []
    while len(where) == 2:
        where, key = where
        keys.append(f"[{_clip(repr(key), VALUE_WIDTH)}]")
    return str(where[0]) + "".join(reversed(keys))


def _compare_head(result: ScoreResult) -> str:
    score = score_text(result.score, ".4f")
    return f"structured answer does not match ({result.mode} score {score})"


def _brief(result: ScoreResult) -> str:
    """A compared result in a few words (a matcher's ``repr`` inside pytest's diff)."""
    if result.error is not None:
        return _clip(f"error: {result.error}", BRIEF_WIDTH)
    counts = Counter(f.status for f in result.failing_fields)
    if counts:
        return ", ".join(_counted(n, status) for status, n in counts.items())
    return _clip(result.reason, BRIEF_WIDTH)


def _counted(count: int, status: str) -> str:
    """``1 mismatch``, ``60 mismatches``, ``2 batch errors``."""
    word = status.replace("_", " ")
    if count != 1:
        word += "es" if word.endswith("h") else "s"
    return f"{count} {word}"


def _headline(result: ScoreResult) -> str:
    verdict = "passed" if result.passed else "not passed"
    score, limit = score_text(result.score, ".4f"), ""
    threshold = result.threshold
    if threshold is not None:
        shown = threshold_text(threshold)
        if (result.score >= threshold) == result.passed or (  # (a mode's verdict, not a
            result.passed and within_slack(result.score, threshold)  # scorer's own rule)
        ):
            score, shown = score_beside(result.score, threshold, result.passed, places=4)
        limit = f", threshold {shown}"
    return f"{result.mode}: score {score} ({verdict}{limit}): {result.reason}"


def _figures(metrics: Mapping[str, Any]) -> str:
    """The mode's numeric headline metrics, in its own order (lists are in the table)."""
    shown = []
    for name, value in metrics.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        text = str(value) if isinstance(value, int) else score_text(value, ".4g")
        shown.append(f"{name}{text}" if text[0] == ">" else f"{name}={text}")
        if len(shown) == 6:
            break
    return "  ".join(shown)


def _show(value: Any, width: int) -> str:
    """Compact JSON-ish text of a leaf or subtree, clipped to ``width``.

    Built iteratively and only as far as ``width`` reaches, so a huge or deeply nested
    subtree costs no more than a short one.
    """
    out: list[str] = []
    size = 0
    stack: list[tuple[bool, Any]] = [(False, value)]
    while stack and size <= width:
        raw, item = stack.pop()
        if raw:
            text = item
        elif isinstance(item, Mapping):
            text = "{"
            parts: list[tuple[bool, Any]] = []
            for n, (k, v) in enumerate(item.items()):
                if n >= width:
                    parts.append((True, ",..."))
                    break
                sep = "," if n else ""
                parts += [
                    (True, f"{sep}{_scalar(k if isinstance(k, str) else str(k))}:"),
                    (False, v),
                ]
            stack.append((True, "}"))
            stack.extend(reversed(parts))
        elif isinstance(item, (list, tuple, set, frozenset)):
            text = "["
            parts = []
            for n, v in enumerate(item):
                if n >= width:
                    parts.append((True, ",..."))
                    break
                parts += [(True, ",")] if n else []
                parts.append((False, v))
            stack.append((True, "]"))
            stack.extend(reversed(parts))
        else:
            text = _scalar(item)
        out.append(text)
        size += len(text)
    return _clip("".join(out) + ("..." if stack else ""), width)


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # more digits than Python prints
            return f"<int of {value.bit_length()} bits>"
    return repr(value)


def _clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` terminal columns."""
    text = " ".join(text.split()) if "\n" in text else text
    if len(fit_columns(text, width)) == len(text):  # (stops after ``width`` columns)
        return text
    return fit_columns(text, width - 3) + "..."


def _clip_middle(path: str, width: int) -> str:
    """A path cut to ``width`` columns in its middle: its root and its leaf both stay
    readable (a model's extra key can be any length)."""
    if len(fit_columns(path, width)) == len(path):
        return path
    head = (width - 3) // 2
    return f"{fit_columns(path, head)}...{fit_columns(path, width - 3 - head, from_end=True)}"
