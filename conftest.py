"""Repository-level conftest: enables ``pytester`` for the plugin's own tests."""

from __future__ import annotations

import pytest

# pytester's in-process runs unload every module first imported inside them. The plugin
# imports schema mode only when a run first uses it, so without this import a later test
# could mix classes of two copies of the schema package (one kept in a registry, one fresh).
import pytest_structeval.modes.schema
import pytest_structeval.schema.builtins  # noqa: F401

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see the same output on a laptop and in a GitHub Actions job: no ``::error``
    annotations and no step summary unless a test asks for them."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
