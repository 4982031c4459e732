"""``evaluate``: score many gold/extracted records against one evaluation schema.

The schema is parsed once; records pair by ``id_field`` when given, else by position, and any
pairing problem is a clear error before scoring starts. A run that scores nothing while the
gold has keys outside the schema (misspelt property names) warns with ``SchemaWarning``: its
F1 of 1.0 comes from empty denominators, not from good answers.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from ..errors import GoldValidationError
from ..registry import Registry, default_registry
from .results import (
    FieldResult,
    RunResult,
    Tally,
    build_record_result,
    build_run_result,
    field_results,
    record_from_rows,
)
from .scoring import RecordScorer
from .tree import SchemaNode, SchemaWarning, parse_eval_schema, warning_at_file

__all__ = ["PostProcessor", "as_node", "evaluate", "post_processed", "post_processors"]

PostProcessor: TypeAlias = Callable[[list[FieldResult]], Iterable[FieldResult] | None]
SchemaSource: TypeAlias = "SchemaNode | Mapping[str, Any] | str | os.PathLike[str]"


def as_node(schema: SchemaSource, registry: Registry | None) -> SchemaNode:
    """A parsed schema from a ``SchemaNode``, an annotated schema dict, or a JSON/YAML file
    (parsed at that file: its warnings point at the line that writes their key, as schema
    mode's do)."""
    if isinstance(schema, SchemaNode):
        return schema
    if not isinstance(schema, (str, os.PathLike, Mapping)):
        raise TypeError(
            "schema must be a SchemaNode, a schema dict or a path to a .json/.yaml file, "
            f"got {type(schema).__name__}"
        )
    from .io import load_schema

    file = None if isinstance(schema, Mapping) else (os.fspath(schema), None, None)
    loaded = load_schema(schema)
    with warning_at_file(file):
        return parse_eval_schema(loaded, registry=registry)


def post_processors(post_process: Any) -> list[PostProcessor]:
    if post_process is None:
        return []
    if callable(post_process):
        return [post_process]
    if isinstance(post_process, Sequence) and all(callable(p) for p in post_process):
        return list(post_process)
    raise TypeError("post_process must be a callable or a list of callables")


def post_processed(
    processors: Sequence[PostProcessor], fields: list[FieldResult]
) -> list[FieldResult]:
    """``fields`` through each of ``processors`` in turn. Each gets the list itself and may
    change it in place, returning it or None (struct_extract_eval's post-processors do), or
    return a new list: either way works. The results in it are frozen: a processor replaces
    a result (``dataclasses.replace``), never edits one."""
    for processor in processors:
        returned = processor(fields)
        if returned is None:  # changed in place
            continue
        try:
            fields = list(returned)
        except TypeError:
            name = getattr(processor, "__name__", type(processor).__name__)
            raise TypeError(
                f"post_process {name} returned {type(returned).__name__}: return the field "
                "results (the list it was given, or a new one), or None"
            ) from None
    return fields


def _id_of(record: Any, id_field: str, side: str, index: int, error: type[ValueError]) -> Any:
    if not isinstance(record, Mapping) or id_field not in record:
        raise error(f"{side} record {index} has no id field {id_field!r}")
    rid = record[id_field]
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        raise error(
            f"{side} record {index}: id field {id_field!r} must be a string or an integer, "
            f"got {rid!r}"
        )
    return rid


def _index_by_id(
    records: Sequence[Any], id_field: str, side: str, error: type[ValueError]
) -> dict[Any, int]:
    seen: dict[Any, int] = {}
    for index, record in enumerate(records):
        rid = _id_of(record, id_field, side, index, error)
        if rid in seen:
            raise error(f"duplicate {side} id {rid!r} (records {seen[rid]} and {index})")
        seen[rid] = index
    return seen


def _pairs(
    gold: Sequence[Any], extracted: Sequence[Any], id_field: str | None
) -> list[tuple[Any, Any, Any]]:
    """(record id, gold record, extracted record) in gold order."""
    if id_field is None:
        if len(gold) != len(extracted):
            raise ValueError(
                f"{len(gold)} gold records but {len(extracted)} extracted records: records pair "
                "by position, so both lists need the same length (or pass id_field=...)"
            )
        return [(i, g, e) for i, (g, e) in enumerate(zip(gold, extracted, strict=True))]
    gold_ids = _index_by_id(gold, id_field, "gold", GoldValidationError)
    model_ids = _index_by_id(extracted, id_field, "extracted", ValueError)
    missing = [rid for rid in gold_ids if rid not in model_ids]
    unknown = [rid for rid in model_ids if rid not in gold_ids]
    if missing:
        others = f"; extracted id(s) {unknown[:20]!r} match no gold record" if unknown else ""
        typed = {str(rid) for rid in missing} & {str(rid) for rid in unknown}
        hint = " (ids compare by type too: 1 and '1' differ)" if typed else ""
        raise ValueError(f"no extracted record for gold id(s) {missing[:20]!r}{others}{hint}")
    if unknown:
        raise ValueError(f"extracted id(s) {unknown[:20]!r} match no gold record")
    return [(rid, gold[i], extracted[model_ids[rid]]) for rid, i in gold_ids.items()]


def evaluate(
    gold: Sequence[Any],
    extracted: Sequence[Any],
    schema: SchemaSource,
    id_field: str | None = None,
    post_process: PostProcessor | Sequence[PostProcessor] | None = None,
    *,
    registry: Registry | None = None,
) -> RunResult:
    """Score every record and aggregate: ``RunResult`` with macro, micro and per-field figures.

    ``schema`` is a parsed ``SchemaNode``, an annotated schema dict (see ``annotate_xeval``) or
    a JSON/YAML file. ``post_process`` (one callable or a list, applied in order) rewrites each
    record's field results before its metrics. ``registry`` supplies comparators and transforms
    (default: the process-wide registry).
    """
    if isinstance(gold, (str, bytes, Mapping)) or isinstance(extracted, (str, bytes, Mapping)):
        raise TypeError("gold and extracted must be lists of records")
    reg = registry if registry is not None else default_registry()
    scorer = RecordScorer(as_node(schema, reg), reg)
    processors = post_processors(post_process)
    pairs = _pairs(gold, extracted, id_field)
    records = []
    tally: Tally = {}
    for rid, g, e in pairs:
        rows, notes = scorer.rows(g, e)
        if not processors:  # field results are built when first read
            records.append(record_from_rows(rid, rows, g, e, notes, tally=tally))
            continue
        fields = post_processed(processors, field_results(rows))
        records.append(build_record_result(rid, fields, g, e, notes, tally=tally))
    run = build_run_result(records, tally=tally)
    if run.total_fields == 0 and not run.total_batch_errors:
        outside = next((r.unscored[0] for r in records if r.gold and r.unscored), None)
        if outside is not None:
            warnings.warn(
                f"evaluate: no record had a field to score, yet the gold has keys outside the "
                f"schema (first: {outside!r}); F1 1.0 here means nothing was compared: check "
                "that the schema declares the gold's properties (and their spelling)",
                SchemaWarning,
                stacklevel=2,
            )
    return run
