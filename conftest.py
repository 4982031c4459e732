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


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """The suite runs on every core (``-n auto`` in pyproject.toml's addopts), but the Quick
    start's main job, ``pytest --structeval-scenarios examples/scenarios``, runs in one process
    as a user's own project runs it: 23 items gain nothing from starting workers."""
    return 0 if config.getoption("structeval_scenarios") else None


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see the same output on a laptop and in a GitHub Actions job: no ``::error``
    annotations and no step summary unless a test asks for them."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(autouse=True)
def _pytest_runs_without_hypothesis(request: pytest.FixtureRequest) -> None:
    """The pytest runs a test starts (pytester's, in a subprocess, or xdist's workers) leave
    out hypothesis's plugin: its terminal summary imports all of hypothesis, 0.8 s a process
    here, and no such run uses it. Set once pytester has cleared ``PYTEST_ADDOPTS``."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
        monkeypatch = request.getfixturevalue("monkeypatch")
        monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
