"""Schema-mode results: per-field, per-record and per-run, with struct_extract_eval's names.

Record metrics are the reference's (§11): matches and mismatches count on both sides with their
score, omissions only in recall, hallucinations only in precision; skipped and batch errors are
left out; an empty denominator gives 1.0. Runs add the reference's macro means, field-pooled
micro figures, totals, and ``per_field`` keyed by schema path (``steps[].temp``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeAlias, TypeVar, cast

from ..compare import mean_score, short_of_one
from ..results import (
    BATCH_ERROR,
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    SKIPPED,
    plain,
)
from ..results import FieldResult as _BaseFieldResult

__all__ = [
    "PERFECT",
    "Entry",
    "FieldAggregation",
    "FieldResult",
    "Pair",
    "RecordResult",
    "Row",
    "RunResult",
    "Tally",
    "build_record_result",
    "build_run_result",
    "expand",
    "field_results",
    "field_row",
    "pair_rows",
    "prf",
    "record_from_rows",
    "row_results",
]


@dataclass(frozen=True, slots=True)
class FieldResult(_BaseFieldResult):
    """One schema-mode field outcome; a :class:`pytest_structeval.results.FieldResult`.

    ``path`` is the instance path (``steps[2].temp``, unmatched model elements ``steps[-1]``),
    ``schema_path`` the schema position (``steps[].temp``). ``comparator`` is empty for
    container-level results (``{}``/``{}``, a wrong-typed container). ``in_schema`` is False for
    keys the schema does not declare: a gold one (reproduced or not) is ``skipped``
    ("unscored"); one only the model has is a hallucination, or unscored too where the schema
    allows undeclared keys. (A map's keys, ``additionalProperties: {schema}``, are in it.)
    """

    comparator: str = ""
    schema_path: str = ""
    gold_compared: Any = None
    extracted_compared: Any = None
    in_schema: bool = True

    if TYPE_CHECKING:  # (as the base class: its own dataclass hash is typed afresh)
        __hash__: ClassVar[None]

    @property
    def unscored(self) -> bool:
        """A key outside the schema that is not held against the answer: shown, never counted."""
        return self.status == SKIPPED and not self.in_schema

    def to_dict(self) -> dict[str, Any]:
        """The shared per-key layout plus the schema-mode details."""
        out = _BaseFieldResult.to_dict(self)
        out["schema_path"] = self.schema_path
        out["comparator"] = self.comparator
        out["in_schema"] = self.in_schema
        if self.comparator and (
            self.gold_compared is not self.gold or self.extracted_compared is not self.model
        ):
            out["gold_compared"] = plain(self.gold_compared)
            out["extracted_compared"] = plain(self.extracted_compared)
        return out


class _FieldResultDraft(_BaseFieldResult):
    """A mutable twin of :class:`FieldResult`: same base, same slots, plain attribute writes."""

    __slots__ = FieldResult.__slots__
    # Plain slot stores need object's own setters, not the frozen base's (both of them, or
    # attribute stores do not take their fast path); no-argument construction.
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__
    __init__ = object.__init__


#: One field's verdict as the walk records it: what the metrics read first, then the rest of a
#: ``FieldResult``: ``(status, score, path, schema_path, in_schema, gold, model, reason,
#: comparator, gold_compared, extracted_compared)``. A tuple is cheap to build and, once it
#: holds only atomic values, the garbage collector stops tracking it; results are built from
#: rows only when they are read (see ``RecordResult``).
Row: TypeAlias = tuple[str, float, str, str, bool, Any, Any, "str | None", str, Any, Any]

#: A ``FieldResult`` (or any object with its attributes) as a row.
field_row: Final[Callable[[Any], Row]] = attrgetter(
    "status",
    "score",
    "path",
    "schema_path",
    "in_schema",
    "gold",
    "model",
    "reason",
    "comparator",
    "gold_compared",
    "extracted_compared",
)


#: Marks a perfect pair in a record's row list (see ``Pair``).
PERFECT: Final = "<perfect pair>"

#: A perfect pair: an aligned pair of array elements whose every slot matched, kept as one
#: entry of a record's row list instead of a ``Row`` per slot (a good answer's arrays are mostly
#: such pairs), so that its rows (:func:`pair_rows`, all matches) are built only when read:
#: ``(PERFECT, path, (segments, schema paths, comparators), gold, model, gold_compared,
#: extracted_compared)``, with one item per slot in each sequence.
Pair: TypeAlias = tuple[
    str,
    str,
    tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    Sequence[Any],
    Sequence[Any],
    Sequence[Any],
    Sequence[Any],
]
#: What the schema walk records for a record: rows and perfect pairs.
Entry: TypeAlias = "Row | Pair"


def pair_rows(pair: Pair) -> list[Row]:
    """The rows a perfect pair stands for."""
    _, path, (segments, schema_paths, names), gold, model, gcs, ecs = pair
    return [
        (MATCH, 1.0, path + segment, where, True, g, e, None, name, gc, ec)
        for segment, where, name, g, e, gc, ec in zip(
            segments, schema_paths, names, gold, model, gcs, ecs, strict=True
        )
    ]


def expand(entries: Iterable[Entry]) -> list[Row]:
    """The rows of ``entries`` in order, each perfect pair as its rows."""
    out: list[Row] = []
    append = out.append
    for entry in cast("Iterable[Row]", entries):  # (and perfect pairs, status PERFECT)
        if entry[0] == PERFECT:
            out += pair_rows(cast(Pair, entry))
        else:
            append(entry)
    return out


def field_results(rows: Iterable[Entry]) -> list[FieldResult]:
    """``FieldResult`` objects of ``rows``, in order (a perfect pair: those of its rows)."""
    return row_results(expand(rows))


def row_results(rows: Iterable[Row]) -> list[FieldResult]:
    """``FieldResult`` objects of plain rows (no perfect pair), in order.

    A frozen dataclass fills its slots through the slot descriptors, one method call each,
    which is most of the cost of a result. Here a draft with the same layout gets plain
    attribute writes and then becomes a ``FieldResult`` (``__class__`` assignment, allowed
    between classes of identical layout): an ordinary frozen result, equal to one made by the
    constructor, at under a third of the cost.
    """
    out: list[FieldResult] = []
    append = out.append
    draft = _FieldResultDraft
    result = FieldResult
    for (
        status,
        score,
        path,
        schema_path,
        in_schema,
        gold,
        model,
        reason,
        comparator,
        gc,
        ec,
    ) in rows:
        fr = draft()
        fr.path = path
        fr.status = status
        fr.score = score
        fr.gold = gold
        fr.model = model
        fr.reason = reason
        fr.comparator = comparator
        fr.schema_path = schema_path
        fr.gold_compared = gc
        fr.extracted_compared = ec
        fr.in_schema = in_schema
        fr.__class__ = result
        append(fr)
    return out


_Number = TypeVar("_Number", float, Fraction)


def prf(
    total: _Number, both: _Number, omissions: _Number, hallucinations: _Number
) -> tuple[float | _Number, float | _Number, float | _Number]:
    """Precision, recall and F1 from a score sum and the three counted kinds (reference §11),
    or their summed weights (exact fractions).

    The F1 is the harmonic mean 2PR/(P+R) in one division, 2T/(2B+O+H) (T: ``total``; both
    are 0 when T is), so that it never falls an ulp short of a threshold it meets."""
    p_den = both + hallucinations
    r_den = both + omissions
    precision = total / p_den if p_den else 1.0
    recall = total / r_den if r_den else 1.0
    if not p_den and not r_den:
        return precision, recall, 1.0
    return precision, recall, (2 * total / (p_den + r_den) if total > 0 else 0.0)


def _field_prf(
    total: float, matches: int, mismatches: int, omissions: int, hallucinations: int
) -> tuple[float, float, float]:
    """:func:`prf` of counted fields, each figure under 1 unless every field it counts was
    exact (see :func:`~pytest_structeval.compare.short_of_one`)."""
    precision, recall, f1 = prf(total, matches + mismatches, omissions, hallucinations)
    return (
        short_of_one(float(precision), not (mismatches or hallucinations)),
        short_of_one(float(recall), not (mismatches or omissions)),
        short_of_one(float(f1), not (mismatches or omissions or hallucinations)),
    )


@dataclass(frozen=True, slots=True)
class FieldAggregation:
    """One field path across records: mean score over counted results and status counts."""

    mean_score: float
    matches: int
    mismatches: int
    omissions: int
    hallucinations: int
    skipped: int = 0
    batch_errors: int = 0

    @property
    def count(self) -> int:
        """Counted results (match, mismatch, omission, hallucination)."""
        return self.matches + self.mismatches + self.omissions + self.hallucinations

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean_score": self.mean_score,
            "count": self.count,
            "matches": self.matches,
            "mismatches": self.mismatches,
            "omissions": self.omissions,
            "hallucinations": self.hallucinations,
            "skipped": self.skipped,
            "batch_errors": self.batch_errors,
        }


class _RowsSlot:
    """Gives ``RecordResult`` a slot outside its dataclass fields: the rows its ``fields`` are
    built from on first access (None once built, or when built from results)."""

    __slots__ = ("_rows",)


@dataclass(frozen=True, slots=True)
class RecordResult(_RowsSlot):
    """One gold/extracted record pair: its field results and precision, recall, F1.

    ``score_sum`` is the summed score of matches and mismatches (the metrics' numerator);
    ``unscored`` lists the paths of unscored keys outside the schema (see ``FieldResult``).

    ``evaluate`` builds records from the walk's rows (see :func:`record_from_rows`) and leaves
    ``fields`` unset: the first read of it builds the ``FieldResult`` tuple and stores it, so a
    run whose field results are never read does not pay for them, and the results it does
    build are the same (``==``, ``repr``, ``hash``, pickle, ``dataclasses.replace``).
    """

    record_id: Any
    fields: tuple[FieldResult, ...]
    precision: float
    recall: float
    f1: float
    matches: int = 0
    mismatches: int = 0
    omissions: int = 0
    hallucinations: int = 0
    skipped: int = 0
    batch_errors: int = 0
    score_sum: float = 0.0
    unscored: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    gold: Any = field(default=None, repr=False, compare=False)
    extracted: Any = field(default=None, repr=False, compare=False)

    if not TYPE_CHECKING:  # (typed as the field; only reached while ``fields`` is unset)

        def __getattr__(self, name):
            """Build ``fields`` from the rows on first access."""
            rows = _rows_of(self) if name == "fields" else None
            if rows is None:
                raise AttributeError(
                    f"{type(self).__name__!r} object has no attribute {name!r}", name=name, obj=self
                )
            fields = tuple(field_results(rows))
            object.__setattr__(self, "fields", fields)
            object.__setattr__(self, "_rows", None)
            return fields

    @property
    def field_results(self) -> list[FieldResult]:
        """The field results as a list (reference name)."""
        return list(self.fields)

    @property
    def total_fields(self) -> int:
        """Counted fields: matches + mismatches + omissions + hallucinations."""
        return self.matches + self.mismatches + self.omissions + self.hallucinations

    def to_dict(self) -> dict[str, Any]:
        return {
            "record_id": plain(self.record_id),
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "matches": self.matches,
            "mismatches": self.mismatches,
            "omissions": self.omissions,
            "hallucinations": self.hallucinations,
            "skipped": self.skipped,
            "batch_errors": self.batch_errors,
            "unscored": list(self.unscored),
            "notes": list(self.notes),
            "fields": [f.to_dict() for f in self.fields],
        }


class _RecordDraft(_RowsSlot):
    """A mutable twin of :class:`RecordResult` (same base, same slots), as for results."""

    __slots__ = RecordResult.__slots__
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__
    __init__ = object.__init__
    if TYPE_CHECKING:  # the slots' types

        def __getattr__(self, name: str) -> Any: ...


_get_rows: Final = _RowsSlot._rows.__get__  # type: ignore[attr-defined]


def _rows_of(record: RecordResult) -> list[Entry] | None:
    """The rows of a record whose ``fields`` are not built yet, else None."""
    try:
        rows: list[Entry] | None = _get_rows(record)
    except AttributeError:  # a record built from results
        return None
    return rows


def _counted(record: RecordResult) -> Iterable[Entry]:
    """A record's results as rows, without building them."""
    rows = _rows_of(record)
    return map(field_row, record.fields) if rows is None else rows


#: Position of each status in a counts row: [score sum, match, mismatch, omission,
#: hallucination, skipped, batch_error, unscored]; 0 marks a perfect pair.
_ROW: Final = {
    PERFECT: 0,
    MATCH: 1,
    MISMATCH: 2,
    OMISSION: 3,
    HALLUCINATION: 4,
    SKIPPED: 5,
    BATCH_ERROR: 6,
}

#: Per-path rows of a run: [score sum, match, mismatch, omission, hallucination, skipped,
#: batch_error] (the counts at the positions of ``_ROW``).
Tally: TypeAlias = dict[str, list[Any]]


def _count(
    rows: Iterable[Entry], tally: Tally | None, *, by_index: bool = False
) -> tuple[list[int], float, list[str]]:
    """One pass over a record's rows: its counts row, score sum and unscored paths, and
    (when ``tally`` is given) the per-path rows updated, keyed by schema or instance path.

    Unscored results (gold keys outside the schema) are counted apart, never per path.
    """
    counts = [0] * 8
    total = 0.0
    unscored: list[str] = []
    row_of = _ROW
    key_at = 2 if by_index else 3
    score = 0.0
    row: Row | None = None
    try:
        for row in cast("Iterable[Row]", rows):  # (and perfect pairs, status PERFECT)
            at = row_of[row[0]]
            if at < 3:
                if not at:
                    total = _count_pair(cast(Pair, row), counts, total, tally, by_index)
                    continue
                score = row[1]
                total += score
            elif at == 5 and not row[4]:
                counts[7] += 1
                unscored.append(row[2])
                continue
            counts[at] += 1
            if tally is not None:
                key: str = row[key_at]  # type: ignore[assignment]  # (path or schema path)
                try:
                    tallied = tally[key]
                except KeyError:
                    tallied = tally[key] = [0.0, 0, 0, 0, 0, 0, 0]
                tallied[at] += 1
                if at < 3:
                    tallied[0] += score
    except KeyError:
        assert row is not None
        raise ValueError(f"field {row[2]!r} has unknown status {row[0]!r}") from None
    return counts, total, unscored


def _count_pair(
    pair: Pair, counts: list[int], total: float, tally: Tally | None, by_index: bool
) -> float:
    """:func:`_count` for a perfect pair, slot by slot as for its rows (so every float sum
    adds the same numbers in the same order); returns the record's new score sum."""
    _, path, (segments, schema_paths, _), *_ = pair
    counts[1] += len(segments)
    for key in [path + segment for segment in segments] if by_index else schema_paths:
        total += 1.0
        if tally is None:
            continue
        try:
            tallied = tally[key]
        except KeyError:
            tallied = tally[key] = [0.0, 0, 0, 0, 0, 0, 0]
        tallied[1] += 1
        tallied[0] += 1.0
    return total


def _record(
    record_id: Any,
    fields: tuple[FieldResult, ...] | None,
    rows: list[Entry],
    gold: Any,
    extracted: Any,
    notes: Sequence[str],
    tally: Tally | None,
) -> RecordResult:
    """The record of ``rows``, holding ``fields`` (or its rows, when None)."""
    counts, total, unscored = _count(rows, tally)
    _, matches, mismatches, omissions, hallucinations, skipped, batch_errors, _ = counts
    precision, recall, f1 = _field_prf(total, matches, mismatches, omissions, hallucinations)
    # Built as a draft and turned into a RecordResult (see field_results): with the rows, the
    # ``fields`` slot stays unset until first read.
    record = _RecordDraft()
    record.record_id = record_id
    if fields is None:
        record._rows = rows
    else:
        record.fields = fields
    record.precision = precision
    record.recall = recall
    record.f1 = f1
    record.matches = matches
    record.mismatches = mismatches
    record.omissions = omissions
    record.hallucinations = hallucinations
    record.skipped = skipped
    record.batch_errors = batch_errors
    record.score_sum = total
    record.unscored = tuple(unscored)
    record.notes = tuple(notes)
    record.gold = gold
    record.extracted = extracted
    record.__class__ = RecordResult
    return cast("RecordResult", record)


def build_record_result(
    record_id: Any,
    fields: Iterable[FieldResult],
    gold: Any = None,
    extracted: Any = None,
    notes: Sequence[str] = (),
    *,
    tally: Tally | None = None,
) -> RecordResult:
    """Metrics of one record from its (post-processed) field results.

    ``tally``: the per-schema-path rows of a run being built (see :func:`build_run_result`),
    updated in the same pass.
    """
    frozen = tuple(fields)
    return _record(record_id, frozen, list(map(field_row, frozen)), gold, extracted, notes, tally)


def record_from_rows(
    record_id: Any,
    rows: list[Entry],
    gold: Any = None,
    extracted: Any = None,
    notes: Sequence[str] = (),
    *,
    tally: Tally | None = None,
) -> RecordResult:
    """:func:`build_record_result` from the walk's rows; ``fields`` is built when first read.

    The record keeps ``rows``: the caller must not change the list afterwards.
    """
    return _record(record_id, None, rows, gold, extracted, notes, tally)


@dataclass(frozen=True, slots=True)
class RunResult:
    """All records of a run: macro means (as the reference) and micro (field-pooled) figures."""

    records: tuple[RecordResult, ...]
    mean_precision: float
    mean_recall: float
    mean_f1: float
    micro_precision: float
    micro_recall: float
    micro_f1: float
    total_records: int
    total_fields: int
    total_matches: int
    total_mismatches: int
    total_omissions: int
    total_hallucinations: int
    total_skipped: int
    total_batch_errors: int
    total_unscored: int
    per_field: Mapping[str, FieldAggregation]

    @property
    def per_field_by_index(self) -> dict[str, FieldAggregation]:
        """``per_field`` by instance path (``steps[2].temp``), as the reference keyed it.

        Computed on each access from the records.
        """
        return _per_path(self.records, by_index=True)

    def to_dict(self) -> dict[str, Any]:
        """Plain builtins (JSON-safe), records and fields included."""
        out: dict[str, Any] = {
            name: getattr(self, name)
            for name in (
                "mean_precision",
                "mean_recall",
                "mean_f1",
                "micro_precision",
                "micro_recall",
                "micro_f1",
                "total_records",
                "total_fields",
                "total_matches",
                "total_mismatches",
                "total_omissions",
                "total_hallucinations",
                "total_skipped",
                "total_batch_errors",
                "total_unscored",
            )
        }
        out["per_field"] = {k: v.to_dict() for k, v in self.per_field.items()}
        out["per_field_by_index"] = {k: v.to_dict() for k, v in self.per_field_by_index.items()}
        out["records"] = [r.to_dict() for r in self.records]
        return out


def _per_path(records: Sequence[RecordResult], *, by_index: bool) -> dict[str, FieldAggregation]:
    """Aggregate counted results per schema path (or per instance path)."""
    tally: Tally = {}
    for record in records:
        _count(_counted(record), tally, by_index=by_index)
    return _aggregations(tally)


def _aggregations(tally: Tally) -> dict[str, FieldAggregation]:
    """The tally's paths with at least one counted result."""
    out: dict[str, FieldAggregation] = {}
    for path, (
        score,
        matches,
        mismatches,
        omissions,
        hallucinations,
        skipped,
        errors,
    ) in tally.items():
        counted = matches + mismatches + omissions + hallucinations
        if counted:
            out[path] = FieldAggregation(
                mean_score=score / counted,
                matches=matches,
                mismatches=mismatches,
                omissions=omissions,
                hallucinations=hallucinations,
                skipped=skipped,
                batch_errors=errors,
            )
    return out


def build_run_result(records: Sequence[RecordResult], *, tally: Tally | None = None) -> RunResult:
    """Aggregate records. ``per_field`` only lists paths with at least one counted result.

    ``tally``: the per-schema-path rows the records were built with (``build_record_result(...,
    tally=...)``, one pass for both), else they are counted here.
    """
    count = len(records)
    total = sum(r.score_sum for r in records)
    matches = sum(r.matches for r in records)
    mismatches = sum(r.mismatches for r in records)
    omissions = sum(r.omissions for r in records)
    hallucinations = sum(r.hallucinations for r in records)
    micro_p, micro_r, micro_f1 = _field_prf(total, matches, mismatches, omissions, hallucinations)
    return RunResult(
        records=tuple(records),
        mean_precision=mean_score([r.precision for r in records]),
        mean_recall=mean_score([r.recall for r in records]),
        mean_f1=mean_score([r.f1 for r in records]),
        micro_precision=micro_p,
        micro_recall=micro_r,
        micro_f1=micro_f1,
        total_records=count,
        total_fields=matches + mismatches + omissions + hallucinations,
        total_matches=matches,
        total_mismatches=mismatches,
        total_omissions=omissions,
        total_hallucinations=hallucinations,
        total_skipped=sum(r.skipped for r in records),
        total_batch_errors=sum(r.batch_errors for r in records),
        total_unscored=sum(len(r.unscored) for r in records),
        per_field=_per_path(records, by_index=False) if tally is None else _aggregations(tally),
    )
