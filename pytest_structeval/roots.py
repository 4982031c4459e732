"""The scenario paths a run reads: each once, and none inside another (``evals`` and
``evals/hard`` given together, as overlapping globs give them, read ``evals/hard`` once). Light
on purpose: the plugin finds its roots in every pytest run, scenarios or not."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Final

__all__ = ["ALWAYS_SKIPPED", "folder_skip", "outermost"]

ALWAYS_SKIPPED: Final = frozenset({"__pycache__", "node_modules"})
"""Folders no walk enters (nor hidden ones, named ``.*``)."""


def folder_skip(patterns: Sequence[str] = ()) -> Callable[[str], bool]:
    """Whether a folder walk passes by a folder of that name: hidden, one of
    :data:`ALWAYS_SKIPPED`, or matching one of ``patterns`` (pytest's ``norecursedirs``)."""
    names = re.compile("|".join(map(fnmatch.translate, patterns))) if patterns else None

    def skips(name: str) -> bool:
        return (
            name.startswith(".")
            or name in ALWAYS_SKIPPED
            or (names is not None and names.match(name) is not None)
        )

    return skips


def outermost(paths: Iterable[Path], skips: Callable[[str], bool]) -> list[Path]:
    """``paths`` in their order, each once, without the folders that the walk of another one
    reads: it holds them, and no folder between is one a walk passes by, per ``skips`` (a
    given ``evals/.archive`` stays). Files stay (a folder walk reads only files named
    ``*scenarios.*``, and a file reached twice is read once).

    A folder inside another by its path is read with it; then one inside another of the
    rest by its real path too (``link/scenario_1`` with ``evals``, ``link`` pointing there),
    so a link inside ``evals`` to a folder elsewhere, or to ``evals``'s parent, never drops
    ``evals``. Each kept path is returned as given (its first spelling). Linear in the number
    of paths (a glob may give thousands)."""
    kept: list[tuple[Path, Path, Path]] = []  # (as given, absolute, real)
    seen: set[Path] = set()
    for path in paths:
        absolute, real = Path(os.path.abspath(path)), Path(os.path.realpath(path))
        if absolute not in seen and real not in seen:
            seen.update((absolute, real))
            kept.append((path, absolute, real))
    folders = {absolute for _, absolute, real in kept if not real.is_file()}
    by_path = [e for e in kept if e[1] not in folders or not _inside(e[1], folders, skips)]
    real_folders = {real for _, absolute, real in by_path if absolute in folders}
    return [
        path
        for path, absolute, real in by_path
        if absolute not in folders or not _inside(real, real_folders, skips)
    ]


def _inside(path: Path, folders: Collection[Path], skips: Callable[[str], bool]) -> bool:
    """Whether one of ``folders`` holds ``path`` with no folder a walk passes by between."""
    passed_by = skips(path.name)
    for parent in path.parents:
        if parent in folders and not passed_by:
            return True
        passed_by = passed_by or skips(parent.name)
    return False
