"""Scoring modes (being built)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..registry import Registry


def install(registry: Registry) -> None:
    """Register the built-in scorers."""
