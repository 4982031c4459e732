"""Schema mode: field-level evaluation driven by an annotated JSON Schema.

The struct_extract_eval API under its own names: ``infer_schema`` or
``resolve_schema_references`` -> ``annotate_xeval`` -> (edit the ``x-eval-*`` keys) ->
``parse_eval_schema`` / ``validate_gold`` -> ``evaluate(gold, extracted, schema)`` -> ``RunResult``.
"""

from __future__ import annotations

from ..errors import GoldValidationError, SchemaError
from ..verdicts import VerdictCache, VerdictWarning, cached_comparator
from .batch import BatchComparator, BatchItem, CompoundComparator, batch_comparator
from .comparators import ComparatorResult, register_comparator
from .evaluate import evaluate
from .infer import infer_schema
from .io import load_schema
from .postprocess import NullHandling, propagate_batch_errors, reclassify_nulls
from .resolve import ExternalReferenceError, resolve_schema_references
from .results import FieldAggregation, FieldResult, RecordResult, RunResult
from .scoring import MAX_JUDGED, RecordScorer, score_record
from .transforms import register_transform
from .tree import (
    ComparatorSpec,
    SchemaNode,
    SchemaWarning,
    TransformSpec,
    parse_eval_schema,
    parse_xeval_entry,
)
from .validate import validate_gold
from .validity import CHECKED_FORMATS, SchemaCheck, Violation, schema_violations
from .xeval import (
    TypeDefaults,
    annotate_xeval,
    current_type_defaults,
    reset_type_defaults,
    set_type_default,
    type_defaults,
)

__all__ = [
    "CHECKED_FORMATS",
    "MAX_JUDGED",
    "BatchComparator",
    "BatchItem",
    "ComparatorResult",
    "ComparatorSpec",
    "CompoundComparator",
    "ExternalReferenceError",
    "FieldAggregation",
    "FieldResult",
    "GoldValidationError",
    "NullHandling",
    "RecordResult",
    "RecordScorer",
    "RunResult",
    "SchemaCheck",
    "SchemaError",
    "SchemaNode",
    "SchemaWarning",
    "TransformSpec",
    "TypeDefaults",
    "VerdictCache",
    "VerdictWarning",
    "Violation",
    "annotate_xeval",
    "batch_comparator",
    "cached_comparator",
    "current_type_defaults",
    "evaluate",
    "infer_schema",
    "load_schema",
    "parse_eval_schema",
    "parse_xeval_entry",
    "propagate_batch_errors",
    "reclassify_nulls",
    "register_comparator",
    "register_transform",
    "reset_type_defaults",
    "resolve_schema_references",
    "schema_violations",
    "score_record",
    "set_type_default",
    "type_defaults",
    "validate_gold",
]
