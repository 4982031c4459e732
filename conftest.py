"""Repository-level conftest: enables ``pytester`` for the plugin's own tests."""

from __future__ import annotations

import pytest

# pytester's in-process runs unload every module first imported inside them. These are
# imported here, once, so a test never mixes classes of two copies of a module: the api
# (JsonMatches) and schema mode, which the plugin imports only when a run first uses it.
import pytest_structeval.api
import pytest_structeval.modes.schema
import pytest_structeval.schema.builtins  # noqa: F401

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see the same output on a laptop and in a GitHub Actions job: no ``::error``
    annotations and no step summary unless a test asks for them."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
