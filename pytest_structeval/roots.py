"""The scenario paths a run reads: each once, and none inside another (``evals`` and
``evals/hard`` given together, as overlapping globs give them, read ``evals/hard`` once). Light
on purpose: the plugin finds its roots in every pytest run, scenarios or not."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["outermost"]


def outermost(paths: Iterable[Path]) -> list[Path]:
    """``paths`` in their order, each once, without the folders that lie in another one of
    them (a folder scan reads those with it); files stay (a folder scan reads only files named
    ``*scenarios.*``, and a file reached twice is read once). Compared as real paths;
    each kept path is returned as given (its first spelling), so reports name it alike.
    Symbolic links are followed: ``evals`` and a link to it are one folder."""
    given: dict[Path, Path] = {}  # real path -> as given
    for path in paths:
        given.setdefault(Path(os.path.realpath(path)), path)
    folders = {key for key in given if not key.is_file()}
    return [
        path
        for key, path in given.items()
        if key not in folders or not any(parent in folders for parent in key.parents)
    ]
