"""Repository-level conftest: enables ``pytester`` for the plugin's own tests."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see the same output on a laptop and in a GitHub Actions job: no ``::error``
    annotations and no step summary unless a test asks for them."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
