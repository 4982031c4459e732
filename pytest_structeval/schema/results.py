"""Schema-mode results: per-field, per-record and per-run, with struct_extract_eval's names.

Record metrics are the reference's (§11): matches and mismatches count on both sides with their
score, omissions only in recall, hallucinations only in precision; skipped and batch errors are
left out; an empty denominator gives 1.0. Runs add the reference's macro means, field-pooled
micro figures, totals, and ``per_field`` keyed by schema path (``steps[].temp``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeAlias

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
    "Emit",
    "FieldAggregation",
    "FieldResult",
    "RecordResult",
    "RunResult",
    "Tally",
    "build_record_result",
    "build_run_result",
    "field_result_appender",
    "prf",
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

    @property
    def gold_value(self) -> Any:
        """The raw gold value (reference name)."""
        return self.gold

    @property
    def extracted_value(self) -> Any:
        """The raw extracted value (reference name)."""
        return self.model

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


class Emit(Protocol):
    """``emit(status, score, path, schema_path, gold, model, ...)``: one field's verdict."""

    def __call__(
        self,
        status: str,
        score: float,
        path: str,
        schema_path: str,
        gold: Any,
        model: Any,
        reason: str | None = None,
        comparator: str = "",
        gold_compared: Any = None,
        extracted_compared: Any = None,
        in_schema: bool = True,
    ) -> None: ...


def field_result_appender(out: list[FieldResult]) -> Emit:
    """An ``emit`` that appends ``FieldResult(...)`` to ``out`` (the scorer's hot path).

    A frozen dataclass fills its slots through the slot descriptors, one method call each,
    which is most of the cost of a result. Here a draft with the same layout gets plain
    attribute writes and then becomes a ``FieldResult`` (``__class__`` assignment, allowed
    between classes of identical layout): an ordinary frozen result, equal to one made by the
    constructor, at under a third of the cost.
    """
    append = out.append
    draft = _FieldResultDraft
    result = FieldResult

    def emit(
        status: str,
        score: float,
        path: str,
        schema_path: str,
        gold: Any,
        model: Any,
        reason: str | None = None,
        comparator: str = "",
        gold_compared: Any = None,
        extracted_compared: Any = None,
        in_schema: bool = True,
    ) -> None:
        fr = draft()
        fr.path = path
        fr.status = status
        fr.score = score
        fr.gold = gold
        fr.model = model
        fr.reason = reason
        fr.comparator = comparator
        fr.schema_path = schema_path
        fr.gold_compared = gold_compared
        fr.extracted_compared = extracted_compared
        fr.in_schema = in_schema
        fr.__class__ = result
        append(fr)

    return emit


def prf(total: float, both: int, omissions: int, hallucinations: int) -> tuple[float, float, float]:
    """Precision, recall and F1 from a score sum and the three counted kinds (reference §11)."""
    p_den = both + hallucinations
    r_den = both + omissions
    precision = total / p_den if p_den else 1.0
    recall = total / r_den if r_den else 1.0
    if not p_den and not r_den:
        return precision, recall, 1.0
    pr = precision + recall
    return precision, recall, (2.0 * precision * recall / pr if pr > 0.0 else 0.0)


# Position of each status in a counts row: [score sum, match, mismatch, omission,
# hallucination, skipped, batch_error, unscored].
_ROW: Final = {MATCH: 1, MISMATCH: 2, OMISSION: 3, HALLUCINATION: 4, SKIPPED: 5, BATCH_ERROR: 6}


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


@dataclass(frozen=True, slots=True)
class RecordResult:
    """One gold/extracted record pair: its field results and precision, recall, F1.

    ``score_sum`` is the summed score of matches and mismatches (the metrics' numerator);
    ``unscored`` lists the paths of unscored keys outside the schema (see ``FieldResult``).
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


#: Per-path rows of a run: [score sum, match, mismatch, omission, hallucination, skipped,
#: batch_error] (the counts at the positions of ``_ROW``).
Tally: TypeAlias = dict[str, list[Any]]


def _count(
    fields: Iterable[FieldResult], tally: Tally | None, *, by_index: bool = False
) -> tuple[list[int], float, list[str]]:
    """One pass over a record's results: its counts row, score sum and unscored paths, and
    (when ``tally`` is given) the per-path rows updated, keyed by schema or instance path.

    Unscored results (gold keys outside the schema) are counted apart, never per path.
    """
    counts = [0] * 8
    total = 0.0
    unscored: list[str] = []
    row_of = _ROW
    score = 0.0
    fr: FieldResult | None = None
    try:
        for fr in fields:
            at = row_of[fr.status]
            if at < 3:
                score = fr.score
                total += score
            elif at == 5 and not fr.in_schema:
                counts[7] += 1
                unscored.append(fr.path)
                continue
            counts[at] += 1
            if tally is not None:
                key = fr.path if by_index else fr.schema_path
                try:
                    row = tally[key]
                except KeyError:
                    row = tally[key] = [0.0, 0, 0, 0, 0, 0, 0]
                row[at] += 1
                if at < 3:
                    row[0] += score
    except KeyError:
        assert fr is not None
        raise ValueError(f"field {fr.path!r} has unknown status {fr.status!r}") from None
    return counts, total, unscored


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
    counts, total, unscored = _count(frozen, tally)
    _, matches, mismatches, omissions, hallucinations, skipped, batch_errors, _ = counts
    precision, recall, f1 = prf(total, matches + mismatches, omissions, hallucinations)
    return RecordResult(
        record_id=record_id,
        fields=frozen,
        precision=precision,
        recall=recall,
        f1=f1,
        matches=matches,
        mismatches=mismatches,
        omissions=omissions,
        hallucinations=hallucinations,
        skipped=skipped,
        batch_errors=batch_errors,
        score_sum=total,
        unscored=tuple(unscored),
        notes=tuple(notes),
        gold=gold,
        extracted=extracted,
    )


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
        _count(record.fields, tally, by_index=by_index)
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
    micro_p, micro_r, micro_f1 = prf(total, matches + mismatches, omissions, hallucinations)
    return RunResult(
        records=tuple(records),
        mean_precision=sum(r.precision for r in records) / count if count else 1.0,
        mean_recall=sum(r.recall for r in records) / count if count else 1.0,
        mean_f1=sum(r.f1 for r in records) / count if count else 1.0,
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
