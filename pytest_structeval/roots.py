"""The scenario paths a run reads: each once, and none inside another (``evals`` and
``evals/hard`` given together, as overlapping globs give them, read ``evals/hard`` once). Light
on purpose: the plugin finds its roots in every pytest run, scenarios or not."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["outermost"]


def outermost(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """``paths`` in their order, each once, without the folders that lie in another one of
    them (a folder scan reads those with it); files stay (a folder scan reads only files named
    ``*scenarios.*``, and a file reached twice is read once). Compared as absolute paths."""
    unique = list(dict.fromkeys(Path(os.path.abspath(path)) for path in paths))
    folders = {path for path in unique if not path.is_file()}
    return [
        path
        for path in unique
        if path not in folders or not any(parent in folders for parent in path.parents)
    ]
