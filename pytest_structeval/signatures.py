"""The type of ``assert_json_matches``, light enough for the plugin to import.

:class:`AssertJsonMatches` types :func:`pytest_structeval.assert_json_matches` and the
fixture of that name. It lives here, beside nothing heavy, so that the plugin's annotations
name it at runtime (``typing.get_type_hints``, ``inspect.signature(eval_str=True)``) without
importing the scoring engine; :mod:`pytest_structeval.api` re-exports it.
"""

from __future__ import annotations

from typing import Any, Protocol

from .registry import Registry
from .results import ScoreResult

__all__ = ["AssertJsonMatches"]


class AssertJsonMatches(Protocol):
    """The type of :func:`assert_json_matches` and of the fixture of that name, for
    annotating a test's parameter (``assert_json_matches: AssertJsonMatches``)."""

    def __call__(
        self,
        gold: Any,
        model: Any,
        mode: str = "strict",
        threshold: float | None = None,
        *,
        registry: Registry | None = None,
        **options: Any,
    ) -> ScoreResult: ...
