"""One run at a time writes a reports directory, and the next run knows what a killed one wrote.

Writing the reports reads the last run's ``_aggregate.json`` (its files are this run's to
replace or remove), then writes the per-run files, then the new aggregate. Two runs that did
this at once (parallel CI jobs given one artefacts folder) each removed files by the list
they had read, so the folder ended with an aggregate naming files the other run had deleted,
and files no aggregate named. :func:`exclusive` holds an advisory lock on the directory for
the whole step (``flock``; on a system without it, such as Windows, runs are not serialised),
so the last run to write is the one the folder holds, whole.

A run killed between its first per-run file and its aggregate left files that no aggregate
listed, so no later run removed them. Before it writes any, a run now records the names it is
about to write in a hidden journal (:data:`JOURNAL_NAME`) and removes the journal once its
aggregate is written; the next run treats the names a journal lists as the last run's.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable, Iterator
from typing import Final

JOURNAL_NAME: Final = ".structeval-writing.json"
WAIT_SECONDS: Final = 300.0
"""How long a run waits for another run writing the same directory before it gives up."""
_POLL_SECONDS: Final = 0.05


@contextlib.contextmanager
def exclusive(directory: str, wait: float = WAIT_SECONDS) -> Iterator[None]:
    """Hold the directory's write lock; raise ``OSError`` after ``wait`` seconds of another
    run holding it."""
    try:
        import fcntl
    except ImportError:  # (Windows)
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise OSError(
                        f"another run has been writing reports into {directory} for {wait:.0f} s"
                    ) from None
                time.sleep(_POLL_SECONDS)
        yield
    finally:
        os.close(fd)  # (releases the lock)


def journal_names(directory: str) -> set[str]:
    """The names a killed run's journal lists (none when there is no readable journal)."""
    try:
        with open(os.path.join(directory, JOURNAL_NAME), encoding="utf-8") as handle:
            names = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return set()
    if not isinstance(names, list):
        return set()
    return {name for name in names if isinstance(name, str)}


def start_journal(directory: str, names: Iterable[str]) -> None:
    """Record the names this run is about to write (a journal cut short reads as none)."""
    with open(os.path.join(directory, JOURNAL_NAME), "w", encoding="utf-8") as handle:
        json.dump(sorted(names), handle)


def end_journal(directory: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(directory, JOURNAL_NAME))
