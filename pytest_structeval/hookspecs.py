"""Extension hooks of pytest-structeval, added to pytest with ``pytest_addhooks``.

Implement them in a ``conftest.py`` or an installed plugin (a module named in the ``pytest11``
entry-point group). They are plain pluggy hook specifications, so pytest validates the argument
names of every implementation.
"""

from __future__ import annotations

from typing import Any

import pluggy
import pytest

from .registry import Registry

hookspec: pluggy.HookspecMarker = pytest.hookspec


@hookspec(historic=True)  # (the session calls each implementation itself: see registry_for)
def pytest_structeval_register(registry: Registry) -> None:
    """Add scorers, comparators and transforms to the registry.

    A plugin's hook, and the hook of the ``conftest.py`` at rootdir (or above it), fill the
    session's registry (``default_registry()``); the hook of a ``conftest.py`` below rootdir
    fills a copy for its folder, on top of the registrations of the folders above it: its
    scorers score the scenarios and tests under that folder, as its fixtures serve them.
    Each hook is called once per pytest process when its registrations are first needed (at
    startup when the run names scenarios or a scorer; on every pytest-xdist worker too), also
    for a ``conftest.py`` that pytest loads later, during collection. Everything registered
    here is removed again when the session ends, so sessions run in one process stay
    isolated. Scorers added here can be named by ``--structeval-scorer``, by ``scorer:`` in a
    ``scenario.yaml``, by ``mode=`` of the ``structeval`` and ``assert_json_matches`` fixtures,
    and by library calls such as ``pytest_structeval.score`` made in a test.

    A name given to ``--structeval-scorer`` is checked when pytest starts, so register that scorer
    in a plugin or in a ``conftest.py`` that pytest loads at startup (the rootdir's).

    Mark the implementation ``@pytest.hookimpl(optionalhook=True)``: pytest refuses a hook no
    loaded plugin declares, so without it the suite stops with an internal error whenever
    the plugin is off (``-p no:structeval``). Example ``conftest.py``::

        import pytest

        from pytest_structeval import score

        def within_one(gold, model, **options):  # strict, accepting numbers off by one
            return score(gold, model, mode="strict", numeric_tolerance={"abs": 1}, **options)

        @pytest.hookimpl(optionalhook=True)
        def pytest_structeval_register(registry):
            registry.register_scorer("within_one", within_one)
    """


@hookspec
def pytest_structeval_update_aggregate(config: pytest.Config, aggregate: dict[str, Any]) -> None:
    """Add to or change the ``_aggregate.json`` data before it is written (controller only).

    ``aggregate`` is the plain dict that becomes the file; keep every value JSON-serialisable.
    Called once at session end, also for interrupted runs (then ``aggregate["complete"]`` is
    false).

    Mark the implementation ``@pytest.hookimpl(optionalhook=True)``, as for
    :func:`pytest_structeval_register`. Example ``conftest.py``::

        import os

        import pytest

        @pytest.hookimpl(optionalhook=True)
        def pytest_structeval_update_aggregate(config, aggregate):
            aggregate["ci"] = {"commit": os.environ.get("GITHUB_SHA", "local")}
    """
