"""``similarity`` mode (alias ``json_similarity``): UiPath's JSON similarity, done right.

A continuous score: every gold leaf earns credit in [0, 1] — strings by Levenshtein
similarity over the longer length, numbers by ``1 - |g - m| / |g|`` (a gold of 0 is
all-or-nothing), booleans and null exact — and ``score = matched_leaves / total_leaves``.
Only gold keys count unless ``penalize_extra``; a type mismatch scores 0 for each gold leaf
under it. Unlike the reference, NaN and infinities never earn credit, empty containers are
leaves (an empty gold no longer scores 1.0 against anything), text is NFC-normalised,
extra keys and list elements are always reported (status ``hallucination``) though counted
only with ``penalize_extra``, so the score stays UiPath's, and a missing
``target_output_key`` is an error, never a perfect score. ``notes`` in the metrics holds the
alignment notes (duplicate or unkeyable elements under ``align={"key": ...}``).
``line_by_line`` scores an answer made of lines line by line (see ``lines.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from ..absent import parse_absent
from ..compare import SIMILARITY_DEFAULTS, mean_score, short_of_one
from ..errors import AnswerParseError, LimitError, OptionsError, hide_usage_error
from ..naming import score_text
from ..parse import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from ..paths import (
    ROOT,
    LiteralKey,
    composed,
    index_path,
    key_path,
    reads_answer_key,
    resolve_path,
    split_path,
)
from ..results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    ScoreResult,
    new_score_result,
)
from ..walk import ZERO, WalkPolicy
from ..weights import WeightedSums, Weights, meets, parse_weights
from . import (
    MAX_VALUES,
    TOO_MANY,
    ModeWalk,
    check_read_options,
    check_threshold,
    count_values,
    error_result,
    parse_values,
    prose_noted,
    read_gold,
    read_model,
    reject_unknown,
    walk_targets,
)
from .lines import line_delimiter, line_scores, split_lines

__all__ = ["MODE", "OPTIONS", "score_similarity", "similarity_metrics", "weighted_similarity"]

MODE: Final = "similarity"
OPTIONS: Final = (
    "threshold",
    "numeric_tolerance",
    "case_sensitive",
    "normalize_whitespace",
    "ignore_paths",
    "options",
    "align",
    "max_bytes",
    "max_depth",
    "strict_parse",
    "parse_repairs",
    "penalize_extra",
    "target_output_key",
    "absent_values",
    "weights",
    "line_by_line",
)
_WHOLE: Final = "*"  # UiPath's target_output_key for "the whole output"
_WALK: Final = ModeWalk(
    SIMILARITY_DEFAULTS,
    type_mismatch=ZERO,
    exact_first=False,
    uncounted_note=" (not counted: penalize_extra is off)",
    uncounted_subtrees=True,
)


def score_similarity(
    gold: Any,
    model: Any,
    *,
    threshold: float | None = None,
    numeric_tolerance: Any = None,
    case_sensitive: bool | None = None,
    normalize_whitespace: bool | None = None,
    ignore_paths: Sequence[str] | str | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    align: Any = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_parse: bool = False,
    parse_repairs: bool = True,
    penalize_extra: bool = False,
    target_output_key: str | Sequence[str] | None = None,
    absent_values: Any = None,
    weights: Any = None,
    line_by_line: bool | str | None = None,
    **unknown: Any,
) -> ScoreResult:
    """Score ``model`` against ``gold`` by tree similarity; ``passed`` is
    ``score >= threshold`` (default 1.0).

    ``target_output_key`` compares only the part at a path (``"result.items[0]"``) or at each
    of several paths; model-only leaves are reported, and ``penalize_extra`` counts them in
    the total. Strings are case-sensitive by default, as in the reference. ``absent_values``
    names values that count as a missing key (see ``absent.py``); ``weights`` makes ``score``
    the weighted mean of the leaves (see ``weights.py``). ``line_by_line`` (``True`` or a
    delimiter) makes ``score`` the mean of the line scores (see ``lines.py``).
    """
    __tracebackhide__ = hide_usage_error
    if unknown:
        reject_unknown(MODE, unknown, OPTIONS)
    limit = check_threshold(threshold)
    if not isinstance(penalize_extra, bool):
        raise OptionsError(f"penalize_extra must be true or false, got {penalize_extra!r}")
    keys = None if target_output_key is None else _target_keys(target_output_key)
    delimiter = line_delimiter(line_by_line)
    absent = None if absent_values is None else parse_absent(absent_values)
    weighting = None if weights is None else parse_weights(weights)
    policy = _WALK.policy(
        numeric_tolerance,
        case_sensitive,
        normalize_whitespace,
        ignore_paths,
        options,
        align,
        max_depth,
        extra_counts=penalize_extra,
    )
    cutoff = 1.0 if limit is None else limit
    if delimiter is not None:
        read = (strict_parse, max_bytes, max_depth, parse_repairs)
        weighing = (policy, absent, weighting, penalize_extra, cutoff)
        return _by_line(gold, model, delimiter, keys, target_output_key, read, weighing)
    sides = parse_values(
        MODE, gold, model, cutoff, strict_parse, max_bytes, max_depth, parse_repairs
    )
    if isinstance(sides, ScoreResult):
        return sides
    g = sides[0][0]
    m, method, structured = sides[1]
    if keys is None:
        targets: list[tuple[str, Any, Any]] = [(ROOT, g, m)]
    else:
        selected = _select(keys, g, m)
        if isinstance(selected, str):
            return error_result(MODE, selected, threshold=cutoff, gold=g, model=m, method=method)
        targets = selected
    walked = _walk(targets, keys, target_output_key, method, policy, absent, cutoff)
    if isinstance(walked, ScoreResult):
        return walked
    fields, notes, g, m = walked
    metrics = similarity_metrics(fields, penalize_extra=penalize_extra)
    metrics["notes"] = notes
    score = _leaf_ratio(metrics)
    reason = (
        f"Matched leaves: {round(metrics['matched_leaves'], 6)!r}, "
        f"Total leaves: {metrics['total_leaves']}"
    )
    if weighting is not None:
        score, weight_notes = weighted_similarity(fields, weighting, penalize_extra=penalize_extra)
        metrics["weighted_score"] = score
        notes.extend(weight_notes)
        reason += f", weighted score {score_text(score, '.4f')}"
    result = new_score_result(
        score >= cutoff if weighting is None else meets(score, cutoff),
        score,
        MODE,
        metrics,
        tuple(fields),
        g,
        m,
        reason,
        None,
        cutoff,
        method,
    )
    return prose_noted(result, model, structured=structured)


def _by_line(
    gold: Any,
    model: Any,
    delimiter: str,
    keys: list[str] | None,
    target_output_key: Any,
    read: tuple[bool, int, int, bool],
    weighing: tuple[WalkPolicy, Any, Weights | None, bool, float],
) -> ScoreResult:
    """``line_by_line``: each side's lines (of the part at each ``target_output_key``) read
    one by one and walked as a list; ``score`` is the mean of the line scores."""
    __tracebackhide__ = hide_usage_error
    strict_parse, max_bytes = read[0], read[1]
    policy, absent, weighting, penalize_extra, cutoff = weighing
    check_read_options(*read)
    method = "lines"
    if keys is None:
        parts: list[tuple[str, Any, Any]] = [(ROOT, gold, model)]
    else:
        sides = parse_values(MODE, gold, model, cutoff, *read)
        if isinstance(sides, ScoreResult):
            return sides
        selected = _select(keys, sides[0][0], sides[1][0])
        if isinstance(selected, str):
            return error_result(MODE, selected, threshold=cutoff, method=sides[1][1])
        parts, method = selected, f"{sides[1][1]}+lines"
    targets = []
    structured = False  # whether any model line read as structure (else a text fallback)
    model_lines_seen = 0
    left = [MAX_VALUES, MAX_VALUES]  # the values each side may still hold, over every part
    for prefix, g, m in parts:
        gold_lines = split_lines(g, delimiter, strict_parse, max_bytes)
        if not gold_lines:
            where = "" if keys is None else f" at {prefix}"
            raise AnswerParseError(f"the gold answer has no lines{where}")
        try:
            model_lines = split_lines(m, delimiter, strict_parse, max_bytes)
        except AnswerParseError as exc:
            return error_result(MODE, f"model answer: {exc}", threshold=cutoff)
        values = _read_lines(gold_lines, model_lines, read, cutoff, left)
        if isinstance(values, ScoreResult):
            return values
        targets.append((prefix, values[0], values[1]))
        structured |= values[2]
        model_lines_seen += len(model_lines)
    if not structured and keys is None:  # (with a key the answer itself read as structure)
        method = "lines+text" if model_lines_seen else "empty"
    ends: list[int] = []
    walked = _walk(targets, keys, target_output_key, method, policy, absent, cutoff, ends)
    if isinstance(walked, ScoreResult):
        return walked
    fields, notes, g, m = walked

    def line_score(line: Sequence[FieldResult]) -> float:
        if weighting is not None:
            return weighted_similarity(line, weighting, penalize_extra=penalize_extra)[0]
        return _leaf_ratio(similarity_metrics(line, penalize_extra=penalize_extra))

    lines: list[tuple[str, float | None]] = []
    for (prefix, golds, models), begin, end in zip(targets, [0, *ends[:-1]], ends, strict=True):
        counts = (len(golds), len(models))
        lines += line_scores(fields[begin:end], prefix, *counts, penalize_extra, line_score)
    counted = [(path, s) for path, s in lines if s is not None]
    metrics = similarity_metrics(fields, penalize_extra=penalize_extra)
    if weighting is None:
        score = mean_score([s for _, s in counted])  # (1.0 when every line is ignored)
    else:
        score = _weighted_mean(counted, weighting)
        metrics["weighted_score"] = score
        notes.extend(weighted_similarity(fields, weighting, penalize_extra=penalize_extra)[1])
    metrics.update(notes=notes, lines=len(counted), line_scores=[s for _, s in lines])
    mean = "mean line score" if weighting is None else "mean weighted line score"
    reason = (
        f"Lines: {len(counted)}, {mean} {score_text(score, '.4f')}; Matched leaves: "
        f"{round(metrics['matched_leaves'], 6)!r}, Total leaves: {metrics['total_leaves']}"
    )
    passed = score >= cutoff if weighting is None else meets(score, cutoff)
    result = new_score_result(
        passed, score, MODE, metrics, tuple(fields), g, m, reason, None, cutoff, method
    )
    if structured or keys is not None:
        return result
    prose = "\n".join(line for line in m if isinstance(line, str))
    from .prose import note_prose

    return note_prose(result, model, prose)  # prose without a record: "I don't know."


def _weighted_mean(lines: Sequence[tuple[str, float]], weights: Weights) -> float:
    """The line scores' mean, each line weighing what ``weights`` gives its own path
    (``answer[0]: 3`` counts the first line three times; a glob below the lines, such as
    ``answer[*].v``, weighs fields inside each line and leaves the lines equal). Summed
    exactly; 1.0 when no line counts, as unweighted."""
    total = sum((weights.of(path) for path, _ in lines), Fraction(0))
    if not total:
        return 1.0
    scored = sum((weights.of(path) * Fraction(s) for path, s in lines), Fraction(0))
    return short_of_one(float(scored / total), all(s >= 1.0 for _, s in lines))


def _walk(
    targets: list[tuple[str, Any, Any]],
    keys: list[str] | None,
    target_output_key: Any,
    method: str,
    policy: WalkPolicy,
    absent: Any,
    cutoff: float,
    ends: list[int] | None = None,
) -> tuple[list[FieldResult], list[str], Any, Any] | ScoreResult:
    """Walk the compared parts: their fields, the notes, and the gold and model the result
    shows (the part at one key, ``{key: part}`` for several, else the whole answers);
    ``ends`` receives where each part's fields end."""
    if keys is None or isinstance(target_output_key, str):
        g, m = targets[0][1], targets[0][2]
    else:
        g = {key: t[1] for key, t in zip(keys, targets, strict=True)}
        m = {key: t[2] for key, t in zip(keys, targets, strict=True)}
    notes: list[str] = []
    fields = walk_targets(
        MODE,
        targets,
        policy,
        threshold=cutoff,
        gold=g,
        model=m,
        method=method,
        notes=notes,
        absent=absent,
        ends=ends,
    )
    return fields if isinstance(fields, ScoreResult) else (fields, notes, g, m)


def _read_lines(
    gold_lines: list[Any],
    model_lines: list[Any],
    read: tuple[bool, int, int, bool],
    cutoff: float,
    left: list[int],
) -> tuple[list[Any], list[Any], bool] | ScoreResult:
    """Each line read as an answer: a gold line with the model line at its index (a count or
    an option in prose is read as for any answer), the lines one side lacks on their own;
    and whether any model line read as structure. ``left``: the values the gold and the
    model may still hold (``MAX_VALUES`` holds a side's lines together), spent here."""
    __tracebackhide__ = hide_usage_error
    gold_values: list[Any] = []
    model_values: list[Any] = []
    structured = False
    for i in range(max(len(gold_lines), len(model_lines))):
        parsed: tuple[Any, str, bool] | None = None
        try:
            if i >= len(model_lines):  # a missing line: the gold's alone
                gold_values.append(read_gold(gold_lines[i], *read[:3])[0])
            elif i < len(gold_lines):
                sides = parse_values(MODE, gold_lines[i], model_lines[i], cutoff, *read)
                if isinstance(sides, ScoreResult):
                    error = f"line {i + 1} of the {sides.error}"
                    return error_result(MODE, error, threshold=cutoff)
                gold_values.append(sides[0][0])
                parsed = sides[1]
        except AnswerParseError as exc:  # the gold line (a model line gives a result)
            raise type(exc)(f"line {i + 1} of the gold answer: {exc}") from None
        if i >= len(gold_lines):  # an extra line: the model's alone
            try:
                parsed = read_model(model_lines[i], *read)
            except AnswerParseError as exc:
                error = f"line {i + 1} of the model answer: {exc}"
                return error_result(MODE, error, threshold=cutoff)
        if len(gold_values) > i:
            left[0] -= count_values(gold_values[i], read[2], left[0]) or 1  # (a scalar: one)
            if left[0] < 0:
                raise LimitError(f"gold {TOO_MANY} in its lines together")
        if parsed is not None:
            model_values.append(parsed[0])
            structured |= parsed[2]
            left[1] -= count_values(parsed[0], read[2], left[1]) or 1
            if left[1] < 0:
                error = f"model answer: {TOO_MANY} in its lines together"
                return error_result(MODE, error, threshold=cutoff)
    return gold_values, model_values, structured


def similarity_metrics(
    fields: Sequence[FieldResult], *, penalize_extra: bool = False
) -> dict[str, Any]:
    """``matched_leaves`` (summed credit), ``total_leaves`` (gold leaves, plus the extra
    leaves with ``penalize_extra``), and the counts behind them (``extra_leaves``: every
    reported extra, a whole subtree without ``penalize_extra``); ``skipped`` fields do not
    count. Without ``penalize_extra`` the metrics say ``ignore_extra: True``, as strict
    mode's subset matching does: extras are information, not failures."""
    matched = 0.0
    exact = mismatched = missing = extra = 0
    for f in fields:
        status = f.status
        if status == MATCH:
            exact += 1
        elif status == MISMATCH:
            mismatched += 1
            matched += f.score
        elif status == OMISSION:
            missing += 1
        elif status == HALLUCINATION:
            extra += 1
    metrics: dict[str, Any] = {
        "matched_leaves": matched + exact,
        "total_leaves": exact + mismatched + missing + (extra if penalize_extra else 0),
        "exact_leaves": exact,
        "mismatched_leaves": mismatched,
        "missing_leaves": missing,
        "extra_leaves": extra,
    }
    if not penalize_extra:
        metrics["ignore_extra"] = True
    return metrics


def weighted_similarity(
    fields: Sequence[FieldResult], weights: Weights, *, penalize_extra: bool = False
) -> tuple[float, list[str]]:
    """:func:`similarity_metrics`' matched / total leaves with each leaf counting its weight
    (summed exactly), and the notes on globs that weighed nothing."""
    sums = WeightedSums(fields, weights)
    matched = sums.scored(MATCH, MISMATCH)
    total = sums.weight(MATCH, MISMATCH, OMISSION)
    if penalize_extra:
        total += sums.weight(HALLUCINATION)
    score = short_of_one(min(1.0, float(matched / total)), matched >= total) if total else 1.0
    return score, sums.notes()


def _leaf_ratio(metrics: Mapping[str, Any]) -> float:
    """``matched_leaves / total_leaves`` of :func:`similarity_metrics`, under 1 while any
    counted leaf is not an exact match (see :func:`~pytest_structeval.compare.short_of_one`)."""
    total = metrics["total_leaves"]
    if not total:
        return 1.0
    return short_of_one(
        min(1.0, metrics["matched_leaves"] / total), metrics["exact_leaves"] == total
    )


def _target_keys(value: Any) -> list[str] | None:
    """``target_output_key`` as a list of distinct paths, or None for the whole answer."""
    __tracebackhide__ = hide_usage_error
    if value is None or value == _WHOLE:
        return None
    keys = [value] if isinstance(value, str) else value
    if not isinstance(keys, Sequence) or not keys or not all(isinstance(k, str) for k in keys):
        raise OptionsError(
            f"target_output_key must be a path or a non-empty list of paths, got {value!r}"
        )
    for key in keys:
        if not key:
            raise OptionsError(f"target_output_key '': empty path (use {_WHOLE!r} for all)")
        try:
            split_path(key)  # malformed paths fail before anything is scored
        except OptionsError as exc:
            raise OptionsError(f"target_output_key {key!r}: {exc}") from None
    # Keys are composed here (NFC), so a path typed decomposed names the same key.
    return list(dict.fromkeys(composed(key) for key in keys))


def _select(keys: list[str], gold: Any, model: Any) -> list[tuple[str, Any, Any]] | str:
    """``(path, gold part, model part)`` per key, or the error when a side lacks a key.
    A leading ``answer`` is read on the model as the gold's reading of it (its key
    ``"answer"``, or the root): a model without that key misses it."""
    targets = []
    for key in keys:
        answer_key = reads_answer_key(gold, key)
        parts = []
        for side, value in (("gold", gold), ("model", model)):
            try:
                parts.append(resolve_path(value, key, answer_key=answer_key))
            except (KeyError, IndexError, TypeError) as exc:
                reason = exc.args[0] if exc.args else str(exc)
                return f"target_output_key {key!r} not found in the {side} answer: {reason}"
        targets.append((_canonical(key, answer_key), parts[0], parts[1]))
    return targets


def _canonical(key: str, answer_key: bool) -> str:
    """The field path of ``key`` as the walk writes it (``items[0].name`` ->
    ``answer.items[0].name``); a leading ``answer`` is the root unless ``answer_key``."""
    tokens = split_path(key)
    if tokens[0] == ROOT and not answer_key:
        tokens = tokens[1:]
    path = ROOT
    for token in tokens:
        if isinstance(token, int):
            path = index_path(path, token)
        elif isinstance(token, LiteralKey):
            path = key_path(path, token.value)
        else:  # composed, as the walk's keys are (a key escaped as \u0301 too)
            path = key_path(path, composed(token))
    return path
