"""Locate ``../shared/data`` (real data beside the repository) for the tests that read it."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def require_data(*parts: str) -> Path:
    """Return ``DATA/parts...``, or skip the test with a clear reason when it is absent."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data not found at {path} (clone ../shared beside the repository)")
    return path
