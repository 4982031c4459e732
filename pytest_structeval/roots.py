"""The scenario paths a run reads: each once, and none inside another (``evals`` and
``evals/hard`` given together, as overlapping globs give them, read ``evals/hard`` once). Light
on purpose: the plugin finds its roots in every pytest run, scenarios or not."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable, Sequence
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
    reads (it holds them, and no folder between is one a walk passes by, per ``skips``: a
    given ``evals/.archive`` stays); files stay (a folder walk reads only files named
    ``*scenarios.*``, and a file reached twice is read once). A folder counts as inside
    another by its path and by its real path, so ``evals`` and a link to it are one, and a link
    inside ``evals`` to a folder elsewhere is read with ``evals``. Each kept path is returned
    as given (its first spelling), so reports name it alike."""
    kept: list[tuple[Path, Path, Path]] = []  # (as given, absolute, real)
    seen: set[Path] = set()
    for path in paths:
        absolute, real = Path(os.path.abspath(path)), Path(os.path.realpath(path))
        if absolute not in seen and real not in seen:
            seen.update((absolute, real))
            kept.append((path, absolute, real))
    folders = [(a, r) for _, a, r in kept if not r.is_file()]

    def read_with_another(absolute: Path, real: Path) -> bool:
        for outer_absolute, outer_real in folders:
            if outer_absolute == absolute:
                continue
            for outer, inner in ((outer_absolute, absolute), (outer_real, real)):
                if outer in inner.parents and not any(
                    skips(part) for part in inner.relative_to(outer).parts
                ):
                    return True
        return False

    return [path for path, a, r in kept if r.is_file() or not read_with_another(a, r)]
