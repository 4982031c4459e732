"""The ``schema`` scorer: one answer scored field by field against an evaluation schema.

``score(gold, model, mode="schema", schema=...)`` and ``assert_json_matches`` come here. The
schema is a dict, a ``.json``/``.yaml`` file, a parsed ``SchemaNode``, or ``None`` — then it is
inferred from the gold. A dict or file is resolved (``$ref``, ``allOf``...) and every leaf
without ``x-eval-compare`` gets its type default, as ``annotate_xeval`` does. ``passed`` is
``f1 >= threshold`` (default 1.0) and ``score`` is the record F1.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from ..errors import OptionsError
from ..parse import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from ..paths import ROOT
from ..registry import Registry, default_registry
from ..results import ScoreResult
from ..schema.evaluate import PostProcessor, post_processors
from ..schema.infer import infer_schema
from ..schema.io import load_schema
from ..schema.resolve import resolve_schema_references
from ..schema.results import RecordResult, build_record_result
from ..schema.scoring import RecordScorer
from ..schema.tree import SchemaNode, parse_eval_schema
from ..schema.xeval import annotate_xeval
from . import check_threshold, parse_sides, reject_unknown

__all__ = ["MODE", "OPTIONS", "schema_node_for", "score_schema"]

MODE: Final = "schema"
OPTIONS: Final = (
    "threshold",
    "schema",
    "post_process",
    "registry",
    "max_bytes",
    "max_depth",
    "strict_parse",
)


def schema_node_for(schema: Any, gold: Any, registry: Registry) -> SchemaNode:
    """The parsed schema for one answer: the given one (resolved, defaults filled in) or one
    inferred from the gold."""
    if isinstance(schema, SchemaNode):
        return schema
    if schema is None:
        document: dict[str, Any] = infer_schema([gold])
    else:
        if isinstance(schema, (str, os.PathLike)):
            schema = load_schema(schema)
        if not isinstance(schema, Mapping):
            raise OptionsError(
                "schema must be a dict, a path to a .json/.yaml file or a SchemaNode, "
                f"got {type(schema).__name__}"
            )
        document = resolve_schema_references(schema)
    annotate_xeval(document)
    return parse_eval_schema(document, registry=registry)


def _answer_path(path: str) -> str:
    """Schema-mode paths under the ``answer`` root every mode reports."""
    if not path:
        return ROOT
    return ROOT + path if path.startswith("[") else f"{ROOT}.{path}"


def _reason(record: RecordResult, threshold: float) -> str:
    counts = (
        (record.mismatches, "mismatch", "mismatches"),
        (record.omissions, "omission", "omissions"),
        (record.hallucinations, "hallucination", "hallucinations"),
        (record.batch_errors, "batch error", "batch errors"),
    )
    parts = [f"{n} {one if n == 1 else many}" for n, one, many in counts if n]
    detail = f": {', '.join(parts)}" if parts else ""
    return f"F1 {record.f1:.3f} below threshold {threshold:g}{detail}"


def score_schema(
    gold: Any,
    model: Any,
    *,
    threshold: float | None = None,
    schema: Any = None,
    post_process: PostProcessor | Sequence[PostProcessor] | None = None,
    registry: Registry | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    strict_parse: bool = False,
    **unknown: Any,
) -> ScoreResult:
    """Score one answer in schema mode (see the module docstring).

    ``registry`` supplies comparators and transforms (default: the process-wide one);
    ``post_process`` rewrites the field results before the metrics, as in ``evaluate``.
    """
    if unknown:
        reject_unknown(MODE, unknown, OPTIONS)
    limit = check_threshold(threshold)
    passing = 1.0 if limit is None else limit
    reg = registry if registry is not None else default_registry()
    processors = post_processors(post_process)
    sides = parse_sides(
        MODE,
        gold,
        model,
        threshold=passing,
        strict_parse=strict_parse,
        max_bytes=max_bytes,
        max_depth=max_depth,
    )
    if isinstance(sides, ScoreResult):
        return sides
    parsed_gold, parsed_model = sides
    node = schema_node_for(schema, parsed_gold.value, reg)
    fields, notes = RecordScorer(node, reg).score(parsed_gold.value, parsed_model.value)
    for processor in processors:
        fields = list(processor(fields))
    record = build_record_result(None, fields, parsed_gold.value, parsed_model.value, notes)
    passed = record.f1 >= passing
    return ScoreResult(
        passed=passed,
        score=record.f1,
        mode=MODE,
        metrics={
            "precision": record.precision,
            "recall": record.recall,
            "f1": record.f1,
            "total_fields": record.total_fields,
            "matches": record.matches,
            "mismatches": record.mismatches,
            "omissions": record.omissions,
            "hallucinations": record.hallucinations,
            "skipped": record.skipped,
            "batch_errors": record.batch_errors,
            "unscored": [_answer_path(p) for p in record.unscored],
            "notes": list(record.notes),
        },
        fields=tuple(replace(f, path=_answer_path(f.path)) for f in record.fields),
        parsed_gold=parsed_gold.value,
        parsed_model=parsed_model.value,
        reason="" if passed else _reason(record, passing),
        threshold=passing,
        parse_method=parsed_model.method,
    )
