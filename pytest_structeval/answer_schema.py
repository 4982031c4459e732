"""The ``answer_schema`` option every scorer takes: is the model's answer valid under a JSON
Schema, beside how well it matches the gold?

The scorer never sees the option: :func:`take_answer_schema` removes it from the options and
:func:`with_validity` adds the verdict to the scorer's result, so built-in and registered
scorers alike get it. An invalid answer fails (``passed`` is False) whatever its score; the
score itself is unchanged, so the two questions stay apart in the reports
(``schema_valid_avg`` is the run's validity rate, and ``schema_valid>=0.95`` a gate).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Final

from .errors import LimitError, OptionsError, hide_usage_error
from .paths import ROOT
from .results import ScoreResult

if TYPE_CHECKING:
    from .schema.validity import SchemaCheck

__all__ = ["ANSWER_SCHEMA", "as_check", "take_answer_schema", "with_validity"]

ANSWER_SCHEMA: Final = "answer_schema"
_SHOWN: Final = 3


def take_answer_schema(options: MutableMapping[str, Any]) -> SchemaCheck | None:
    """Remove ``answer_schema`` from ``options`` and return it ready to check answers
    (:func:`as_check`); None when it is absent or None."""
    __tracebackhide__ = hide_usage_error
    value = options.pop(ANSWER_SCHEMA, None)
    return None if value is None else as_check(value)


def as_check(value: Any, *, formats: bool = True, name: str = ANSWER_SCHEMA) -> SchemaCheck:
    """A schema (an object or a boolean), a ``SchemaCheck`` (kept as it is: its own
    ``formats`` setting stays), or a path to a JSON/YAML schema file, ready to check answers.
    A file is read at each use and parsed again only when its bytes changed
    (:func:`~pytest_structeval.schema.io.kept_schema_file`)."""
    __tracebackhide__ = hide_usage_error
    from .schema.validity import SchemaCheck  # (the engine's schema half, on first use)

    if isinstance(value, SchemaCheck):
        return value
    if isinstance(value, (str, os.PathLike)):  # parsed once while its bytes stay the same
        from .schema.io import kept_schema_file
        from .schema.tree import schema_read_from

        schema = kept_schema_file(value)
        with schema_read_from(schema, os.fspath(value), None):  # (its warnings: at its lines)
            return SchemaCheck(schema, formats=formats)
    if not isinstance(value, (Mapping, bool)):
        raise OptionsError(
            f"{name} must be a JSON Schema (an object or a boolean), a SchemaCheck or "
            f"a schema file's path, got {type(value).__name__}"
        )
    return SchemaCheck(value, formats=formats)


def with_validity(result: ScoreResult, check: SchemaCheck) -> ScoreResult:
    """``result`` with the answer's validity: metrics ``schema_valid`` (1.0 or 0.0) and
    ``schema_violations`` (where and why, the first 50), and not passed when invalid.

    An answer the scorer could not evaluate (``error`` set) was not checked: it counts as
    invalid, and its error says why. One that nests too deeply to check is invalid, with a
    ``limit`` violation saying so; a malformed schema raises ``SchemaError``.
    """
    __tracebackhide__ = hide_usage_error
    from .schema.validity import MAX_VIOLATIONS, Violation

    if result.error is not None:
        found: tuple[Violation, ...] = ()
        valid = False
    else:
        try:
            found = check.violations(result.parsed_model)
        except LimitError as exc:  # the model's answer nests too deeply to check: invalid
            found = (Violation(ROOT, "limit", f"not checked: {exc}", "#"),)
        valid = not found
    metrics = dict(result.metrics)
    metrics["schema_valid"] = 1.0 if valid else 0.0
    metrics["schema_violations"] = [v.to_dict() for v in found]
    reason = result.reason
    if found:
        shown = "; ".join(f"{v.path}: {v.message}" for v in found[:_SHOWN])
        total = f"{len(found)}+" if len(found) >= MAX_VIOLATIONS else str(len(found))
        more = f"; {total} in all" if len(found) > _SHOWN else ""
        reason = f"answer breaks its JSON Schema ({shown}{more})" + (
            f"; {reason}" if reason else ""
        )
    return ScoreResult(
        result.passed and valid,
        result.score,
        result.mode,
        metrics,
        result.fields,
        result.parsed_gold,
        result.parsed_model,
        reason,
        result.error,
        result.threshold,
        result.parse_method,
    )
