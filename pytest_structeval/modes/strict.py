"""``strict`` mode (alias ``static_json``): AssetOpsBench's key-level metrics, done right.

Every leaf path of the gold and model answers is a key; a key present on both sides is
"matched" and "exact" when the leaves are equal after normalisation (or within the numeric
tolerance) — never because a fuzzy similarity reached 1.0. ``passed`` is the strict exact
match (every key exact, nothing missing or extra) and ``score`` is F1; with a ``threshold``,
``passed`` is ``f1 >= threshold``. Metric names and formulas are AssetOpsBench's; ``notes``
adds the alignment notes (duplicate or unkeyable elements under ``align={"key": ...}``).

``ignore_extra=True`` is subset matching (gold ⊆ model): keys and array elements only the
model has are still reported (status ``hallucination``, listed in ``extra_keys``) but count
against nothing — not precision, not the strict match, not ``passed``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from ..absent import parse_absent
from ..compare import STRICT_DEFAULTS, short_of_one
from ..errors import OptionsError, hide_usage_error
from ..naming import score_beside
from ..parse import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, REFUSED
from ..paths import ROOT
from ..results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    ScoreResult,
    new_score_result,
)
from ..walk import SPLIT
from ..weights import WeightedSums, Weights, meets, parse_weights
from . import (
    ModeWalk,
    check_threshold,
    parse_values,
    prose_noted,
    reject_unknown,
    walk_targets,
)

if TYPE_CHECKING:
    from .car import Term

__all__ = ["MODE", "OPTIONS", "key_prf", "score_strict", "strict_metrics", "weighted_key_f1"]

MODE: Final = "strict"
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
    "ignore_extra",
    "absent_values",
    "weights",
    "mode_answers",
    "required_terms",
    "optional_terms",
)
_WALK: Final = ModeWalk(
    STRICT_DEFAULTS,
    type_mismatch=SPLIT,
    exact_first=True,
    uncounted_note=" (not counted: ignore_extra)",
    uncounted_subtrees=False,
)


def score_strict(
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
    ignore_extra: bool = False,
    absent_values: Any = None,
    weights: Any = None,
    mode_answers: bool | None = None,
    required_terms: Any = None,
    optional_terms: Any = None,
    **unknown: Any,
) -> ScoreResult:
    """Score ``model`` against ``gold`` key by key (answers in any shape parse first).

    ``numeric_tolerance`` (``{"rel": r, "abs": a}`` or a number = rel) widens "exact" for
    numbers; strings are case-folded unless ``case_sensitive``; ``ignore_paths`` globs and
    per-path ``options`` refine it; ``align`` pairs array elements (default by position);
    ``ignore_extra`` accepts extra model keys (subset matching, see the module docstring);
    ``absent_values`` names values that count as a missing key (see ``absent.py``);
    ``weights`` makes ``score`` the weighted F1 (see ``weights.py``). With ``mode_answers``
    (on by default when ``required_terms`` or ``optional_terms`` are given), a gold mode
    answer (``{"clarification": text}``, ``abstain``, ``response``) is scored by its mode and
    terms (see ``car.py``).
    """
    __tracebackhide__ = hide_usage_error
    if unknown:
        reject_unknown(MODE, unknown, OPTIONS)
    if type(ignore_extra) is not bool:
        raise OptionsError(f"ignore_extra must be true or false, got {ignore_extra!r}")
    if mode_answers is not None and type(mode_answers) is not bool:
        raise OptionsError(f"mode_answers must be true or false, got {mode_answers!r}")
    terms_given = required_terms is not None or optional_terms is not None
    required: tuple[Term, ...] | None = None
    optional: tuple[Term, ...] = ()
    if terms_given or mode_answers:  # (only then: car's term patterns cost an import)
        from . import car

        if required_terms is not None:
            required = car.parse_terms(required_terms, "required_terms")
        if optional_terms is not None:
            optional = car.parse_terms(optional_terms, "optional_terms")
    if mode_answers is False and terms_given:
        raise OptionsError(
            "required_terms and optional_terms score mode answers: mode_answers is false"
        )
    limit = check_threshold(threshold)
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
        extra_counts=not ignore_extra,
    )
    sides = parse_values(
        MODE, gold, model, limit, strict_parse, max_bytes, max_depth, parse_repairs
    )
    if isinstance(sides, ScoreResult):
        return sides
    g = sides[0][0]
    m, method, structured = sides[1]
    gold_mode = car.answer_mode(g, text_only=True) if mode_answers or terms_given else None
    if gold_mode is not None:
        key_options = {
            "numeric_tolerance": numeric_tolerance,
            "case_sensitive": case_sensitive,
            "normalize_whitespace": normalize_whitespace,
            "ignore_paths": ignore_paths,
            "options": options,
            "align": align,
            "absent_values": absent_values,
            "weights": weights,
        }
        result = car.score_mode_answer(
            g,
            m,
            gold_mode,
            required=required,
            optional=optional,
            threshold=limit,
            method=method,
            ignore_extra=ignore_extra,
            unused=[k for k, v in key_options.items() if v is not None and v is not False],
        )
        return prose_noted(result, model, structured=structured)
    if terms_given:
        raise OptionsError(
            "required_terms and optional_terms apply to mode answers only: a gold "
            f"{{{'|'.join(car.MODES)}: text}}"
        )
    notes: list[str] = []
    # (two texts without a final full stop: see _sentences; any other pair as it is)
    target = (ROOT, g, m) if type(g) is not str or type(m) is not str else _sentences(g, m)
    fields = walk_targets(
        MODE,
        (target,),
        policy,
        threshold=limit,
        gold=g,
        model=m,
        method=method,
        notes=notes,
        absent=absent,
    )
    if isinstance(fields, ScoreResult):
        return fields
    extra = " (not counted)" if ignore_extra else ""
    metrics = strict_metrics(fields, ignore_extra=ignore_extra)
    metrics["notes"] = notes
    strict = metrics["strict_exact_match_accuracy"] == 1.0
    f1 = metrics["f1"]
    if weighting is not None:
        f1, weight_notes = weighted_key_f1(fields, weighting, ignore_extra=ignore_extra)
        metrics["weighted_score"] = f1
        notes.extend(weight_notes)
    if limit is None:
        passed = strict
    elif weighting is None:
        passed = f1 >= limit
    else:
        passed = meets(f1, limit)
    if strict:
        reason = "strict structured match"
        if metrics["extra_keys"]:
            reason += f", {len(metrics['extra_keys'])} extra{extra}"
    else:
        reason = (
            f"{_differs(g, m, method)}: "
            f"{metrics['matched_keys'] - metrics['exact_value_matches']} mismatched, "
            f"{len(metrics['missing_keys'])} missing, {len(metrics['extra_keys'])} extra{extra}"
        )
    if limit is not None:
        name = "f1" if weighting is None else "weighted f1"
        shown, limit_text = score_beside(f1, limit, passed)
        reason += f" ({name} {shown} {'>=' if passed else '<'} threshold {limit_text})"
    result = new_score_result(
        passed, f1, MODE, metrics, tuple(fields), g, m, reason, None, limit, method
    )
    return prose_noted(result, model, structured=structured)


def weighted_key_f1(
    fields: Sequence[FieldResult], weights: Weights, *, ignore_extra: bool = False
) -> tuple[float, list[str]]:
    """:func:`strict_metrics`' F1 with each key counting its weight in E, G and M (summed
    exactly), and the notes on globs that weighed nothing."""
    sums = WeightedSums(fields, weights)
    exact = sums.weight(MATCH)
    matched = sums.weight(MATCH, MISMATCH)
    gold_keys = matched + sums.weight(OMISSION)
    model_keys = matched if ignore_extra else matched + sums.weight(HALLUCINATION)
    f1 = key_prf(exact, gold_keys, model_keys)[2]
    return short_of_one(float(f1), f1 >= 1), sums.notes()


def key_prf(
    exact: int | Fraction, gold_keys: int | Fraction, model_keys: int | Fraction
) -> tuple[float | Fraction, float | Fraction, float | Fraction]:
    """AssetOpsBench's precision E/M, recall E/G and their F1, from counts of keys or their
    summed weights (exact fractions); 1.0 each when nothing was left to compare at all.

    The F1 is 2E/(G+M), the harmonic mean 2PR/(P+R) in one division: from the rounded P and
    R it can fall an ulp short (3 of 3 keys and 2 extra gave 0.7499999999999999, failing a
    threshold of 0.75 that the same pair met weighted)."""
    if not gold_keys and not model_keys:
        return 1.0, 1.0, 1.0
    recall = exact / gold_keys if gold_keys else 0.0
    precision = exact / model_keys if model_keys else 0.0
    return precision, recall, 2 * exact / (gold_keys + model_keys)


def _sentences(gold: str, model: str) -> tuple[str, str, str]:
    """The target of two text answers: without a final full stop, which ends a sentence and
    says nothing of its value (``Final Answer: Yes.`` answers ``Yes``, as ``C.`` answers
    ``C`` and ``34.`` answers ``34``)."""
    return ROOT, _SENTENCE_END.sub("", gold), _SENTENCE_END.sub("", model)


# (after a space too: "Yes ."; a full stop alone is a text of its own, kept)
_SENTENCE_END: Final = re.compile(r"(?<=[^\s.。])\s*[.。](?=\s*\Z)")


def _differs(gold: Any, model: Any, method: str) -> str:
    """The head of a failing reason: the reference's words, unless the gold has structure and
    the model answer had none to compare: it was empty, one string (prose read as one text
    value, or a quoted sentence), or a reading that needed a repair ``parse_repairs=False``
    refused."""
    if method.endswith(REFUSED):
        return (
            f"model answer needs a structural repair ({method[: -len(REFUSED)]}), "
            "and repairs are off"
        )
    if not isinstance(model, str) or not isinstance(gold, (dict, list)):
        return "structured answer differs from ground truth"
    return "model answer is empty" if method == "empty" else "model answer has no structure"


def strict_metrics(fields: Sequence[FieldResult], *, ignore_extra: bool = False) -> dict[str, Any]:
    """AssetOpsBench's metrics over field results (``skipped`` fields do not count).

    With G gold keys, M model keys and E exact keys: recall = partial exact accuracy = E/G,
    precision = E/M, partial similarity = sum of matched keys' scores / G. When nothing is
    left to compare at all (everything ignored) every ratio is 1.0 — vacuously exact. With
    ``ignore_extra`` the extra keys are listed but not in M (flagged ``ignore_extra: True``).
    """
    exact = mismatched = 0
    partial = 0.0
    missing: list[str] = []
    extra: list[str] = []
    for f in fields:
        status = f.status
        if status == MATCH:
            exact += 1
        elif status == MISMATCH:
            mismatched += 1
            partial += f.score
        elif status == OMISSION:
            missing.append(f.path)
        elif status == HALLUCINATION:
            extra.append(f.path)
    partial += exact
    matched = exact + mismatched
    gold_keys = matched + len(missing)
    model_keys = matched if ignore_extra else matched + len(extra)
    precision, recall, f1 = key_prf(exact, gold_keys, model_keys)
    similarity = partial / gold_keys if gold_keys else float(not model_keys)
    metrics: dict[str, Any] = {
        "partial_exact_match_accuracy": recall,
        "strict_exact_match_accuracy": 1.0 if exact == gold_keys == model_keys else 0.0,
        "partial_similarity_score": similarity,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "total_gold_keys": gold_keys,
        "total_model_keys": model_keys,
        "matched_keys": matched,
        "exact_value_matches": exact,
        "missing_keys": missing,
        "extra_keys": extra,
    }
    if ignore_extra:
        metrics["ignore_extra"] = True
    return metrics
