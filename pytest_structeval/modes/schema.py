"""The ``schema`` scorer: one answer scored field by field against an evaluation schema.

``score(gold, model, mode="schema", schema=...)`` and ``assert_json_matches`` come here. The
schema is a dict, a ``.json``/``.yaml`` file, a parsed ``SchemaNode``, or ``None`` — then it is
inferred from the gold. A dict or file is resolved (``$ref``, ``allOf``...) and every leaf
without ``x-eval-compare`` gets its type default, as ``annotate_xeval`` does. ``passed`` is
``f1 >= threshold`` (default 1.0) and ``score`` is the record F1 — except that a record whose
gold keys are all outside the schema never passes: nothing of it was scored (F1 is 1.0 by
the reference's empty-denominator rule), which is a schema mistake, not a good answer. Nor
does a record with ``batch_error`` fields, which F1 leaves out: they were never compared.
"""

from __future__ import annotations

import json
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from ..absent import drop_absent, parse_absent
from ..compare import short_of_one
from ..errors import OptionsError, hide_usage_error
from ..naming import score_beside, score_text
from ..parse import DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH
from ..paths import ROOT
from ..registry import Registry, default_registry
from ..results import (
    BATCH_ERROR,
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    ScoreResult,
)
from ..schema.evaluate import PostProcessor, post_processed, post_processors
from ..schema.infer import infer_schema
from ..schema.io import MAX_KEY_SIZE, Kept, file_bytes, load_schema, schema_from_bytes
from ..schema.resolve import resolve_schema_references
from ..schema.results import RecordResult, build_record_result, prf
from ..schema.scoring import RecordScorer
from ..schema.tree import SchemaNode, parse_eval_schema, schema_file_of, warning_at_file
from ..schema.xeval import annotate_xeval, current_type_defaults
from ..verdicts import NO_VERDICT
from ..weights import WeightedSums, Weights, meets, parse_weights
from . import (
    check_threshold,
    parse_sides,
    prose_noted,
    reject_unknown,
)

__all__ = ["MODE", "OPTIONS", "schema_node_for", "score_schema"]

MODE: Final = "schema"
_SHOWN_PATHS: Final = 5
OPTIONS: Final = (
    "threshold",
    "schema",
    "post_process",
    "registry",
    "max_bytes",
    "max_depth",
    "strict_parse",
    "parse_repairs",
    "absent_values",
    "weights",
)


_NODE_CACHE_SIZE: Final = 128
# each parsed schema, with the warnings its parse gave at its file (a key written twice)
_nodes: Kept[SchemaNode] = Kept(_NODE_CACHE_SIZE)


def schema_node_for(schema: Any, gold: Any, registry: Registry) -> SchemaNode:
    """The parsed schema for one answer: the given one (resolved, defaults filled in) or one
    inferred from the gold.

    Parsing costs several times the scoring of a record, and tests and scenario runs score
    many answers against one schema, so parsed schemas are kept (the last
    :data:`_NODE_CACHE_SIZE`, in a :class:`~pytest_structeval.schema.io.Kept`, as the
    validity check keeps schema files) under what they are made of: the schema's content,
    the registry's comparators and transforms, and the current type defaults. A schema file
    whose parse warns at the file's own line (a key written twice) is kept with that warning,
    given again at each use, as a parse gives it (the filters in force decide whether it
    shows); one whose parse warns at the caller's line (an unknown ``x-eval-*`` key) is not
    kept, so that it warns at every use, at that use's line.
    """
    __tracebackhide__ = hide_usage_error
    if isinstance(schema, SchemaNode):
        return schema
    path = os.fspath(schema) if isinstance(schema, (str, os.PathLike)) else None
    data = None if path is None else file_bytes(path)
    # a schema read from a file (given by its path, or a scenario's read for it) is parsed
    # at that file: its warnings are located there, at the key they are about
    file = (path, None, None) if path is not None else schema_file_of(schema)
    if file is not None:  # (a schema written inline is kept for its place in the file)
        path = file[0] if file[2] is None else f"{file[0]}#{file[2]}"
    key = _node_key(schema, gold, registry, data)

    def parse() -> SchemaNode:
        __tracebackhide__ = hide_usage_error
        with warning_at_file(file):
            return _parse_schema(schema, gold, registry, data)

    return _nodes.get(key, path, parse)


def _node_key(schema: Any, gold: Any, registry: Registry, data: bytes | None) -> Hashable | None:
    """What :func:`_parse_schema` reads, as a key; None when that cannot be told surely.

    A file is its bytes (``data``; its suffix picks the reader). A mapping, or the gold a
    schema is inferred from, is taken as its ``repr``, which tells tuples from lists, ``1``
    from ``"1"`` and NaN from null, once ``json.dumps`` has shown that it holds nothing else
    (no objects whose ``repr`` may hide their state, no cycles).
    """
    content: tuple[Any, ...]
    if isinstance(schema, (str, os.PathLike)):
        if data is None:
            return None
        content = ("file", os.path.splitext(schema)[1].lower(), data)
    elif schema is None or isinstance(schema, Mapping):
        value = gold if schema is None else schema
        try:
            json.dumps(value)
            content = ("inferred" if schema is None else "mapping", repr(value))
        except (TypeError, ValueError, RecursionError):
            return None
    else:
        return None
    if len(content[-1]) > MAX_KEY_SIZE:
        return None  # kept keys stay small: a huge schema or gold is parsed every time
    revisions = registry.comparators.revision, registry.transforms.revision
    return content, revisions, current_type_defaults().revision


def _parse_schema(schema: Any, gold: Any, registry: Registry, data: bytes | None) -> SchemaNode:
    __tracebackhide__ = hide_usage_error
    if schema is None:
        document: dict[str, Any] = infer_schema([gold])
    else:
        if isinstance(schema, (str, os.PathLike)):
            schema = load_schema(schema) if data is None else schema_from_bytes(data, schema)
        elif isinstance(schema, Mapping):
            schema = load_schema(schema)  # a JSONSchemaBench wrapper: its schema
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


def _nothing_scored(record: RecordResult) -> list[str]:
    """The paths of the gold's unscored keys when they are all the record has: the schema
    then scores nothing of the gold (misspelt property names, a schema for another shape),
    and the empty-denominator F1 of 1.0 must not pass it. Empty otherwise."""
    if record.total_fields or record.batch_errors or not record.unscored:
        return []
    # A gold key outside the schema is reported with its (never null) gold value; a
    # model-only one where undeclared keys are allowed has none.
    return [_answer_path(f.path) for f in record.fields if f.unscored and f.gold is not None]


def _some_paths(paths: list[str]) -> str:
    """The first few of ``paths`` for a reason, and how many more there are."""
    shown = ", ".join(paths[:_SHOWN_PATHS])
    return f"{shown} and {len(paths) - _SHOWN_PATHS} more" if len(paths) > _SHOWN_PATHS else shown


def _nothing_scored_reason(paths: list[str]) -> str:
    keys = "key is" if len(paths) == 1 else "keys are"
    return (
        f"nothing scored: the gold's {keys} not in the schema ({_some_paths(paths)}); "
        "check the schema's property names"
    )


def _batch_error_reason(record: RecordResult, paths: list[str]) -> str:
    """Why a record with fields its comparator failed on never passes: those fields are left
    out of F1 (as the reference counts them), so the F1 alone could pass an answer that was
    never compared."""
    errors = "batch error" if len(paths) == 1 else "batch errors"
    return (
        f"{len(paths)} {errors}: a comparator failed and could not score {_some_paths(paths)} "
        f"(F1 {score_text(record.f1, '.3f')} over the fields it did score)"
    )


def weighted_field_f1(fields: Sequence[FieldResult], weights: Weights) -> tuple[float, list[str]]:
    """Schema mode's F1 from precision and recall with each field counting its weight (summed
    exactly; skipped fields and batch errors count nothing, as unweighted), and the notes on
    globs that weighed nothing."""
    sums = WeightedSums(fields, weights, path_of=_answer_path)  # (records lack "answer.")
    f1 = prf(
        sums.scored(MATCH, MISMATCH),
        sums.weight(MATCH, MISMATCH),
        sums.weight(OMISSION),
        sums.weight(HALLUCINATION),
    )[2]
    return short_of_one(float(f1), f1 >= 1), sums.notes()


def _reason(record: RecordResult, threshold: float, weighted: float | None = None) -> str:
    counts = (
        (record.mismatches, "mismatch", "mismatches"),
        (record.omissions, "omission", "omissions"),
        (record.hallucinations, "hallucination", "hallucinations"),
        (record.batch_errors, "batch error", "batch errors"),
    )
    parts = [f"{n} {one if n == 1 else many}" for n, one, many in counts if n]
    detail = f": {', '.join(parts)}" if parts else ""
    name, value = ("F1", record.f1) if weighted is None else ("weighted F1", weighted)
    shown, limit = score_beside(value, threshold, passed=False)
    return f"{name} {shown} below threshold {limit}{detail}"


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
    parse_repairs: bool = True,
    absent_values: Any = None,
    weights: Any = None,
    **unknown: Any,
) -> ScoreResult:
    """Score one answer in schema mode (see the module docstring).

    ``registry`` supplies comparators and transforms (default: the process-wide one);
    ``post_process`` rewrites the field results before the metrics, as in ``evaluate``;
    ``absent_values`` names values that count as a missing key (see ``absent.py``);
    ``weights`` makes ``score`` the weighted F1 (see ``weights.py``).
    """
    __tracebackhide__ = hide_usage_error
    if unknown:
        reject_unknown(MODE, unknown, OPTIONS)
    limit = check_threshold(threshold)
    passing = 1.0 if limit is None else limit
    reg = registry if registry is not None else default_registry()
    try:
        processors = post_processors(post_process)
    except TypeError as exc:  # a usage error, named as one in a scenario's run too
        raise OptionsError(
            f"{exc}, got {type(post_process).__name__} (a scenario config holds none: register "
            "a scorer that calls score(..., mode='schema', post_process=...) in conftest.py)"
        ) from None
    # Keys stay as written here, so globs compose the paths to name a key however it is typed.
    absent = None if absent_values is None else parse_absent(absent_values, compose_paths=True)
    weighting = (
        None
        if weights is None
        else parse_weights(weights, compose_paths=True, leave_out="x-eval-skip in the schema")
    )
    sides = parse_sides(
        MODE,
        gold,
        model,
        threshold=passing,
        strict_parse=strict_parse,
        max_bytes=max_bytes,
        max_depth=max_depth,
        parse_repairs=parse_repairs,
        compose_keys=False,  # properties are named as the schema writes them
    )
    if isinstance(sides, ScoreResult):
        return sides
    parsed_gold, parsed_model = sides
    gold_value, model_value = parsed_gold.value, parsed_model.value
    node = schema_node_for(schema, gold_value, reg)
    scored_gold, scored_model = gold_value, model_value
    used: set[int] = set()
    if absent is not None:  # (paths as the other modes name them: answer.<key>)
        scored_gold = drop_absent(gold_value, ROOT, absent, max_depth, used)
        scored_model = drop_absent(model_value, ROOT, absent, max_depth, used)
    scorer = RecordScorer(node, reg, note_path=_answer_path, max_depth=max_depth)
    fields, notes = scorer.score(scored_gold, scored_model)
    if absent is not None:
        walked = fields  # (the walk's own, before any post-processor)
        notes = [*notes, *absent.unused_notes(used, lambda: [_answer_path(f.path) for f in walked])]
    fields = post_processed(processors, fields)
    record = build_record_result(None, fields, scored_gold, scored_model, notes)
    unscored_gold = _nothing_scored(record)
    failed_comparators = [f.path for f in record.fields if f.status == BATCH_ERROR]
    f1 = record.f1
    weight_notes: list[str] = []
    if weighting is not None:  # (record paths lack the answer. prefix the globs name)
        f1, weight_notes = weighted_field_f1(record.fields, weighting)
    reached = f1 >= passing if weighting is None else meets(f1, passing)
    passed = reached and not unscored_gold and not failed_comparators
    if unscored_gold:
        reason = _nothing_scored_reason(unscored_gold)
    elif failed_comparators:
        reason = _batch_error_reason(record, [_answer_path(p) for p in failed_comparators])
    else:
        reason = "" if passed else _reason(record, passing, None if weighting is None else f1)
    unjudged = sum(1 for f in record.fields if (f.reason or "").startswith(NO_VERDICT))
    if unjudged:  # a recording that is missing must not read as the model's mistake
        fields_word = "field has" if unjudged == 1 else "fields have"
        missing = f"{unjudged} {fields_word} no kept verdict (replay mode asks no judge)"
        reason = f"{missing}; {reason}" if reason else missing
    result = ScoreResult(
        passed=passed,
        score=f1,
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
            "notes": [*record.notes, *weight_notes],
            **({} if weighting is None else {"weighted_score": f1}),
        },
        fields=tuple(replace(f, path=_answer_path(f.path)) for f in record.fields),
        parsed_gold=gold_value,
        parsed_model=model_value,
        reason=reason,
        threshold=passing,
        parse_method=parsed_model.method,
    )
    return prose_noted(result, model, structured=parsed_model.structured)
