"""pytest's ``pytest_ignore_collect`` verdicts on the folders of one directory, taken at once.

pytest asks that hook about every entry of a directory it walks, and so does
:class:`~pytest_structeval.collect.ScenarioParent` (``--ignore``, ``norecursedirs`` and a
conftest's ``collect_ignore`` must keep working on scenario folders). For a directory of 5,000
scenario folders those calls were the largest share of the collection (about 170 µs each:
the hook relay, two ``stat`` calls for a virtualenv, nine ``norecursedirs`` patterns matched
one by one). :class:`IgnoreRules` reaches the same verdicts for a whole listing: each pattern is
matched against every name in one ``fnmatch.filter``, the ignore lists are read once.

It does so only where the verdict is known to be pytest's: the hook has no implementation but
pytest's own, this plugin's and hypothesis's, and pytest is a release whose rules were compared
with this module (:data:`CHECKED`). Anywhere else (a conftest or another plugin implements the
hook, a newer pytest) every folder is asked through the hook, as pytest's own walk asks. So is
any folder one of the other two implementations might judge (a symbolic link; ``.hypothesis``).
``tests/test_ignore.py`` compares both ways on generated folders and configurations.
"""

from __future__ import annotations

import fnmatch
import inspect
import os
import sys
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any, Final

import pytest

__all__ = ["CHECKED", "IgnoreRules"]

CHECKED: Final = ((8, 4), (9, 3))
"""pytest releases (from, up to but not including) whose ``pytest_ignore_collect``,
``_in_venv`` and ``fnmatch_ex`` this module mirrors: the same from 8.4.0 through 9.2.0
(earlier releases detected virtualenvs by other files). Extend it only once
``tests/test_ignore.py`` passes on the newer release."""

# hypothesis's implementation: its module, and the one folder name it judges
_HYPOTHESIS: Final = ("_hypothesis_pytestplugin", ".hypothesis")


class IgnoreRules:
    """pytest's verdicts on the child folders of ``directory``: which of them
    ``pytest_ignore_collect``, asked as pytest's walk of ``directory`` asks it, passes by."""

    def __init__(self, session: pytest.Session, directory: Path) -> None:
        self._config = session.config
        self._hook = session.gethookproxy(directory).pytest_ignore_collect
        # Before 9.1 pytest hands out hooks that once took a py.path as a wrapper function
        # (which another plugin may wrap again).
        caller = inspect.unwrap(self._hook)
        self._fast = CHECKED[0] <= _release() < CHECKED[1] and _known(caller.get_hookimpls())
        self._directory = directory

    def ignored(self, paths: Sequence[Path], *, links: Collection[Path] = ()) -> set[Path]:
        """Those of ``paths``, child folders of the directory, that pytest passes by;
        ``links`` are those that are symbolic links (the caller's listing knows them)."""
        if not self._fast:
            return {path for path in paths if self._asked(path)}
        verdicts = self._rules(paths)
        return {
            path
            for path, verdict in zip(paths, verdicts, strict=True)
            if (self._asked(path) if path in links or path.name == _HYPOTHESIS[1] else verdict)
        }

    def _asked(self, path: Path) -> bool:
        return bool(self._hook(collection_path=path, config=self._config))

    def _rules(self, paths: Sequence[Path]) -> list[bool]:
        """``_pytest.main.pytest_ignore_collect`` (8.4-9.x) for folders of one directory."""
        config = self._config
        ignore_paths = set(_conftest_paths(config, "collect_ignore", self._directory))
        ignore_paths.update(_absolute(x) for x in config.getoption("ignore") or ())
        globs = _conftest_paths(config, "collect_ignore_glob", self._directory)
        globs.extend(_absolute(x) for x in config.getoption("ignore_glob") or ())
        texts = [str(path) for path in paths]
        names = [path.name for path in paths]
        globbed: set[str] = set()  # full paths
        for glob in globs:
            globbed.update(fnmatch.filter(texts, str(glob)))
        norecurse: set[str] = set()  # names, or full paths for patterns with a separator
        for pattern in config.getini("norecursedirs"):
            norecurse.update(_norecurse(pattern, names, texts))
        venvs = not config.getoption("collect_in_virtualenv")
        return [
            name == "__pycache__"
            or path in ignore_paths
            or text in globbed
            or (venvs and _in_venv(text))
            or name in norecurse
            or text in norecurse
            for path, name, text in zip(paths, names, texts, strict=True)
        ]


def _release() -> tuple[int, int]:
    return (int(pytest.version_tuple[0]), int(pytest.version_tuple[1]))


def _known(impls: Sequence[Any]) -> bool:
    """Whether every implementation of the hook is one whose verdict :class:`IgnoreRules`
    knows: pytest's own, this plugin's, hypothesis's."""
    from _pytest import main

    from . import plugin

    ours = {main.pytest_ignore_collect, plugin.pytest_ignore_collect}
    return all(
        impl.function in ours or getattr(impl.function, "__module__", None) == _HYPOTHESIS[0]
        for impl in impls
    )


def _conftest_paths(config: pytest.Config, name: str, directory: Path) -> list[Path]:
    """A conftest list (``collect_ignore``, ``collect_ignore_glob``) as pytest reads it for
    the entries of ``directory``."""
    return list(config._getconftest_pathlist(name, path=directory) or ())


def _absolute(path: str | os.PathLike[str]) -> Path:
    """``_pytest.pathlib.absolutepath``."""
    return Path(os.path.abspath(path))


def _norecurse(pattern: str, names: list[str], texts: list[str]) -> list[str]:
    """The names (or full paths) ``_pytest.pathlib.fnmatch_ex(pattern, path)`` matches: a
    pattern without a separator is matched against the folder name, one with a separator
    against the whole path (relative patterns anywhere in it)."""
    if sys.platform.startswith("win") and os.sep not in pattern and "/" in pattern:
        pattern = pattern.replace("/", os.sep)
    if os.sep not in pattern:
        return fnmatch.filter(names, pattern)
    if not os.path.isabs(pattern):
        pattern = f"*{os.sep}{pattern}"  # every path here is absolute
    return fnmatch.filter(texts, pattern)


def _in_venv(path: str) -> bool:
    """``_pytest.main._in_venv``: a ``pyvenv.cfg`` file, or conda's ``conda-meta/history``."""
    return os.path.isfile(os.path.join(path, "pyvenv.cfg")) or os.path.isfile(
        os.path.join(path, "conda-meta", "history")
    )
