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
    """``paths`` in their order, each once, without those another one's walk reads. A file
    stays (a folder walk reads only files named ``*scenarios.*``, and a file reached twice
    is read once). A folder goes when another given folder holds it by its path; else when a
    folder that is walked (given, or held by a given one with no folder between that a walk
    passes by) holds it, or is it, by its real path: ``link/scenario_1`` with ``evals``
    (``link`` pointing there), ``shared/x`` with ``evals`` and ``evals/ext`` pointing to
    ``shared``. A folder reached only through one given inside it (``evals/up`` pointing to
    ``evals``'s parent) never drops it.

    ``skips`` says which folders a walk passes by, so a folder below one (``evals/.archive``)
    is read on its own; ``nested`` replaces it for the path step (pytest collects an argument
    inside another through it, whatever its walk rules: the plugin passes a rule that passes
    by nothing). Each kept path is returned as given (its first spelling). Linear in the
    number of paths (a glob may give thousands)."""
    given: dict[Path, tuple[Path, Path]] = {}  # absolute -> (as given, real)
    for path in paths:
        given.setdefault(Path(os.path.abspath(path)), (path, Path(os.path.realpath(path))))
    folders = {absolute for absolute, (_, real) in given.items() if not real.is_file()}
    held = {a for a in folders if _holder(a, folders, nested or skips) is not None}
    walked: dict[Path, Path] = {}  # real -> absolute, the first walked folder of each
    for absolute in given:  # (in the order given: the first spelling of a folder stays)
        if absolute in folders and (
            absolute not in held or _holder(absolute, folders, skips) is not None
        ):
            walked.setdefault(given[absolute][1], absolute)
    out, files = [], set()
    for absolute, (path, real) in given.items():
        if absolute not in folders:
            if real not in files:  # one file, two spellings
                files.add(real)
                out.append(path)
        elif absolute not in held and not _read_through(absolute, real, walked, skips):
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
    absolute: Path, real: Path, walked: Mapping[Path, Path], skips: Callable[[str], bool]
) -> bool:
    """Whether the walk of another folder (``walked``: by real path) reads ``real``: it is
    that folder's real path (the first spelling stays) or lies in it, with no folder between
    that a walk passes by, unless that folder is reached only through ``absolute`` itself."""
    first = walked.get(real)
    if first is not None and first != absolute and absolute not in first.parents:
        return True
    passed_by = skips(real.name)
    for parent in real.parents:
        holder = walked.get(parent)
        if holder is not None and not passed_by and absolute not in holder.parents:
            return True
        passed_by = passed_by or skips(parent.name)
    return False
