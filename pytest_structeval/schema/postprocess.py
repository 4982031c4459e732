"""Post-processors: ``list[FieldResult] -> list[FieldResult]``, run per record before metrics.

Pass one or a list of them as ``evaluate(..., post_process=...)``. They are not applied inside
the Hungarian similarity matrix (as in the reference). As struct_extract_eval's, the built-in
ones change a list they are given in place and return it, so its recipes that ignore the
return value work unchanged; the results themselves are frozen and are replaced, not edited.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..absent import is_absent
from ..results import BATCH_ERROR, HALLUCINATION, MATCH, MISMATCH, OMISSION, SKIPPED
from .results import FieldResult

__all__ = ["NullHandling", "propagate_batch_errors", "reclassify_nulls"]


@dataclass(frozen=True, slots=True)
class NullHandling:
    """Which compared values mean "no value", and what two of them make.

    A value is absent when it *is* one of ``absent_values`` or equals one with the identical
    type (so ``0`` does not catch ``False``). Both absent: ``skipped`` when
    ``both_absent_skip``, else a ``match`` with score 1.
    """

    absent_values: Sequence[Any] = (None,)
    both_absent_skip: bool = True

    def is_absent(self, value: Any) -> bool:
        return is_absent(value, self.absent_values)


_DEFAULT = NullHandling()


def reclassify_nulls(
    results: Sequence[FieldResult], handling: NullHandling | None = None
) -> list[FieldResult]:
    """Treat "absent" compared values (e.g. ``""`` or ``"N/A"``) as missing fields.

    Only comparator verdicts (match / mismatch with a comparator) are judged: gold absent ->
    hallucination, extracted absent -> omission, both -> skipped (or match). Container-level
    results such as ``[]`` vs ``[]`` carry no comparator and are left alone. A list given is
    changed in place and returned (see the module docstring).
    """
    rule = handling if handling is not None else _DEFAULT
    out: list[FieldResult] = []
    for fr in results:
        if fr.status not in (MATCH, MISMATCH) or not fr.comparator:
            out.append(fr)
            continue
        gold_absent = rule.is_absent(fr.gold_compared)
        model_absent = rule.is_absent(fr.extracted_compared)
        if gold_absent and model_absent:
            if rule.both_absent_skip:
                out.append(replace(fr, status=SKIPPED, score=0.0, reason="absent on both sides"))
            else:
                out.append(replace(fr, status=MATCH, score=1.0, reason="absent on both sides"))
        elif gold_absent:
            out.append(replace(fr, status=HALLUCINATION, score=0.0, reason="gold value absent"))
        elif model_absent:
            out.append(replace(fr, status=OMISSION, score=0.0, reason="extracted value absent"))
        else:
            out.append(fr)
    return _in_place(results, out)


def propagate_batch_errors(results: Sequence[FieldResult]) -> list[FieldResult]:
    """If a batch comparator failed on any field of a record, distrust all its verdicts there.

    Every result of that comparator except omissions and hallucinations becomes ``batch_error``.
    A list given is changed in place and returned (see the module docstring).
    """
    failed = {fr.comparator for fr in results if fr.status == BATCH_ERROR and fr.comparator}
    if not failed:
        return results if isinstance(results, list) else list(results)
    return _in_place(
        results,
        [
            replace(
                fr,
                status=BATCH_ERROR,
                score=0.0,
                reason=f"another field of comparator {fr.comparator!r} failed in this record",
            )
            if fr.comparator in failed and fr.status not in (OMISSION, HALLUCINATION, BATCH_ERROR)
            else fr
            for fr in results
        ],
    )


def _in_place(given: Sequence[FieldResult], new: list[FieldResult]) -> list[FieldResult]:
    """``new`` as the list ``given`` itself when it is a list (its contents replaced), so a
    caller that kept ``given`` sees the change; a new list for any other sequence."""
    if isinstance(given, list):
        given[:] = new
        return given
    return new
