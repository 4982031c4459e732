"""The scenario paths a run reads: each once, and none inside another (``evals`` and
``evals/hard`` given together, as overlapping globs give them, read ``evals/hard`` once). Light
on purpose: the plugin finds its roots in every pytest run, scenarios or not."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
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


def outermost(
    paths: Iterable[Path],
    skips: Callable[[str], bool],
    *,
    nested: Callable[[str], bool] | None = None,
) -> list[Path]:
    """``paths`` in their order, each once, without those another one's walk reads: a file
    stays (a folder walk reads only files named ``*scenarios.*``, and a file reached twice is
    read once); a folder goes when another given folder holds it by its path, and, of the
    rest, when another given folder (or a link given inside one) holds it by its real path:
    ``link/scenario_1`` with ``evals`` (``link`` pointing there), ``shared/x`` with ``evals``
    and ``evals/ext`` pointing to ``shared``. A folder reached only through one given inside
    it (``evals/up`` pointing to ``evals``'s parent) never drops it.

    ``skips`` says which folders a walk passes by, so a folder below one (``evals/.archive``)
    is read on its own; ``nested`` does the same for the path step only (pytest collects an
    argument inside another through it, whatever its walk rules: the plugin passes a rule
    that passes by nothing). Each kept path is returned as given (its first spelling).
    Linear in the number of paths (a glob may give thousands)."""
    kept: list[tuple[Path, Path, Path]] = []  # (as given, absolute, real)
    seen: set[Path] = set()
    for path in paths:
        absolute, real = Path(os.path.abspath(path)), Path(os.path.realpath(path))
        if absolute not in seen and real not in seen:
            seen.update((absolute, real))
            kept.append((path, absolute, real))
    folders = {absolute: real for _, absolute, real in kept if not real.is_file()}
    by_path = nested or skips
    by_real = {real: absolute for absolute, real in folders.items()}
    out = []
    for path, absolute, real in kept:
        if absolute in folders and (
            _holder(absolute, folders, by_path) is not None
            or _read_through(absolute, real, by_real, skips)
        ):
            continue
        out.append(path)
    return out


def _holder(path: Path, folders: Collection[Path], skips: Callable[[str], bool]) -> Path | None:
    """The one of ``folders`` holding ``path`` with no folder a walk passes by between."""
    passed_by = skips(path.name)
    for parent in path.parents:
        if parent in folders and not passed_by:
            return parent
        passed_by = passed_by or skips(parent.name)
    return None


def _read_through(
    absolute: Path, real: Path, by_real: Mapping[Path, Path], skips: Callable[[str], bool]
) -> bool:
    """Whether the walk of another given folder reads ``real``: one whose real path holds it,
    unless that folder is reached only through ``absolute`` itself (a link inside it)."""
    passed_by = skips(real.name)
    for parent in real.parents:
        holder = by_real.get(parent)
        if holder is not None and not passed_by and absolute not in holder.parents:
            return True
        passed_by = passed_by or skips(parent.name)
    return False
