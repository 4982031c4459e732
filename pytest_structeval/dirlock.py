"""One run at a time writes a reports directory, and the next run knows what a killed one wrote.

Writing the reports reads the last run's ``_aggregate.json`` (its files are this run's to
replace or remove), then writes the per-run files and the new aggregate under temporary
names, and renames them into place once all exist, the aggregate last. Two runs that did
this at once (parallel CI jobs given one artefacts folder) each removed files by the list
they had read, so the folder ended with an aggregate naming files the other run had deleted,
and files no aggregate named. :func:`exclusive` holds an advisory lock on the directory for
the whole step (``flock``), so the last run to write is the one the folder holds, whole. Where
there is no such lock (Windows, or a file system that refuses one on a directory, as NFS
may), runs do not take turns.

A run killed between its first per-run file and its aggregate left files that no aggregate
listed, so no later run removed them. Before it writes any file, a run now records the
names it is about to write in a hidden journal (:data:`JOURNAL_NAME`, replaced whole, so a
full disk leaves the last one intact) and removes it once its aggregate is in place; the next
run treats the names a journal lists as the last run's (removes those no aggregate lists
before it writes anything, and the temporary files of all of them that a killed process
left).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Final

if sys.platform != "win32":
    import fcntl

JOURNAL_NAME: Final = ".structeval-writing.json"
WAIT_SECONDS: Final = 300.0
"""How long a run waits for another run writing the same directory before it gives up."""
_POLL_SECONDS: Final = 0.05
# flock refused rather than busy: no lock here (NFS takes an exclusive lock only on a file
# open for writing, which a directory cannot be).
_NO_LOCK: Final = frozenset({errno.EBADF, errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL})


class WaitInterrupted(KeyboardInterrupt):
    """A Ctrl-C while waiting for another run to finish writing: nothing was written yet."""


@contextlib.contextmanager
def exclusive(
    directory: str, wait: float = WAIT_SECONDS, on_wait: Callable[[], None] | None = None
) -> Iterator[bool]:
    """Hold the directory's write lock; ``on_wait()`` once if another run holds it; raise
    ``OSError`` after ``wait`` seconds of waiting, :class:`WaitInterrupted` on a Ctrl-C.
    Yields whether the lock is held (not where there is none to take)."""
    if sys.platform == "win32":
        yield False
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        yield _lock(fd, directory, wait, on_wait)
    finally:
        os.close(fd)  # (releases the lock)


def _lock(fd: int, directory: str, wait: float, on_wait: Callable[[], None] | None) -> bool:
    deadline = time.monotonic() + wait
    waited = False
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                pass
            except OSError as exc:
                if exc.errno in _NO_LOCK:
                    return False
                raise
            if time.monotonic() >= deadline:
                raise OSError(
                    f"another run has been writing reports into {directory} for {wait:.0f} s"
                )
            if not waited and on_wait is not None:
                on_wait()
            waited = True
            time.sleep(_POLL_SECONDS)
    except KeyboardInterrupt:
        raise WaitInterrupted from None


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


JOURNAL_STEM: Final = JOURNAL_NAME[1:]
"""The journal's temporary file, ``<journal name>.<pid>.tmp``, is named as
:func:`~pytest_structeval.files.write_temporary` names one of a file of this name."""


def start_journal(directory: str, names: Iterable[str]) -> None:
    """Record the names this run is about to write, replacing the last journal whole."""
    path = os.path.join(directory, JOURNAL_NAME)
    temporary = f"{path}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temporary)  # (left by a killed process of this pid; a link, never followed)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # (the umask's)
        with open(fd, "w", encoding="utf-8") as handle:
            json.dump(sorted(names), handle)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def end_journal(directory: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(directory, JOURNAL_NAME))
