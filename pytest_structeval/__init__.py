"""pytest-structeval: score structured LLM answers against ground truth.

The scoring engine (parser, comparison, alignment) is imported on first use, so importing
the package — which pytest does for the plugin — stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import errors
from .errors import (
    AnswerParseError,
    ComparatorWarning,
    GoldValidationError,
    GoldWarning,
    LimitError,
    OptionsError,
    SchemaError,
    StructevalError,
)
from .registry import Registry, default_registry
from .results import FieldResult, ScoreResult

if TYPE_CHECKING:
    from .api import JsonMatches, assert_json_matches, assert_json_valid, score
    from .parse import parse_answer
    from .paths import flatten
    from .plugin import StructevalFixture
    from .schema.tree import SchemaWarning
    from .schema.validity import SchemaCheck, Violation, schema_violations
    from .signatures import AssertJsonMatches

__all__ = [
    "AnswerParseError",
    "AssertJsonMatches",
    "ComparatorWarning",
    "FieldResult",
    "GoldValidationError",
    "GoldWarning",
    "JsonMatches",
    "LimitError",
    "OptionsError",
    "Registry",
    "SchemaCheck",
    "SchemaError",
    "SchemaWarning",
    "ScoreResult",
    "StructevalError",
    "StructevalFixture",
    "Violation",
    "assert_json_matches",
    "assert_json_valid",
    "default_registry",
    "errors",
    "flatten",
    "parse_answer",
    "schema_violations",
    "score",
]

_LAZY = {
    "AssertJsonMatches": "signatures",
    "JsonMatches": "api",
    "assert_json_matches": "api",
    "assert_json_valid": "api",
    "SchemaCheck": "schema.validity",
    "SchemaWarning": "schema.tree",
    "Violation": "schema.validity",
    "schema_violations": "schema.validity",
    "score": "api",
    "parse_answer": "parse",
    "flatten": "paths",
    "StructevalFixture": "plugin",
}


if not TYPE_CHECKING:  # (checkers read the imports above: a module __getattr__ would tell
    # them that every name exists, typed Any, so a misspelt import would pass)

    def __getattr__(name: str) -> Any:
        module = _LAZY.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
