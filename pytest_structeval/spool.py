"""Per-run report files written ahead, by a process of their own, while the run goes on.

Creating thousands of small files is most of what writing the reports costs, and how long it
takes depends on the disk more than on anything else. A small writer process
(:mod:`~pytest_structeval.spool_writer`) creates them on another core while items are still
being scored: each report under a temporary name in a hidden folder of the reports directory.
At the end :func:`~pytest_structeval.report.write_reports` renames each into place under its
final name (names depend on every record of the run: see ``Aggregate.ordered``) once every
other new file of the reports exists too, so they appear all or not at all (see there). Files
are matched to records by a digest of their
bytes: a record that reaches the end in another form is simply written again, and a file
never taken is removed with the folder.

A process, not a thread: a writer thread waits for the interpreter lock after every file
operation while scoring holds it, and fell behind by thousands of files when measured. A spool
is used by a process that runs no test but scenario items (a serial run of scenarios alone:
other tests would see the child process; a pytest-xdist controller; ``structeval evaluate``)
on a machine with a core to spare: more cores than the run's busy processes (itself, or the
controller's local workers).
With ``-n 2`` on two cores, a controller's spool saved 0.8 s of 13.8 s for 1.6 s more CPU;
with ``-n 1`` there, 1.6 s of 16.2 s.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from . import spool_writer

PREFIX: Final = ".structeval-spool-"
_NAME: Final = re.compile(re.escape(PREFIX) + r"[0-9]+-[0-9a-f]{8}")
CHUNK: Final = 1 << 16
"""Bytes of frames gathered before they are written to the writer's pipe (one system call
and one wake-up of the writer for dozens of reports)."""
BACKLOG: Final = 1 << 22
"""Bytes held for a writer that is behind (a slow disk); past them, reports are left for the
end instead of the run waiting."""


def spare_core(busy: int = 1) -> bool:
    """Whether this process may run on more cores than ``busy`` processes keep busy (the run
    itself, or a pytest-xdist controller's local workers): the writer needs one of its own."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        cores = os.cpu_count() or 1
    return cores > busy


def is_spool(name: str) -> bool:
    """Whether a file name in a reports directory is a spool folder's."""
    return _NAME.fullmatch(name) is not None


def _set_blocking(fd: int, blocking: bool) -> None:
    """``os.set_blocking`` where the platform has it for pipes. Windows before Python 3.12 has
    not: there a write waits for the writer, which costs the run its head start, no more."""
    setter = getattr(os, "set_blocking", None)
    if setter is not None:
        with contextlib.suppress(OSError):
            setter(fd, blocking)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Kill the writer (it ignores Ctrl-C: see spool_writer), reap it and close its pipes, so
    it neither outlives the run nor writes into a folder being removed. A second Ctrl-C while
    it is reaped waits for it all the same (a killed process ends at once)."""
    with contextlib.suppress(OSError):
        process.kill()
    try:
        try:
            process.wait()
        except KeyboardInterrupt:
            process.wait()
            raise
    finally:
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


class ReportSpool:
    """Report files written ahead into ``<reports dir>/.structeval-spool-<pid>-<hex>/``.

    :meth:`put` is called as records arrive; :meth:`close` waits for the writer; :meth:`take`
    then hands out a written file per content; :meth:`discard` removes the folder and whatever
    was not taken. A spool that cannot start or write (a folder that cannot be created, a full
    disk) stops quietly: every report it did not write is written at the end as without a
    spool, where the error is reported.
    """

    def __init__(self, reports_dir: Path) -> None:
        self.reports_dir = reports_dir
        self.folder: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._input: int | None = None  # the writer's stdin, non-blocking where possible
        self._pending = bytearray()  # frames not yet in the pipe
        self._failed = False
        self._count = 0
        self._indices: dict[bytes, list[int]] = {}  # digest -> frame indices
        self._written: set[int] = set()

    def put(self, name: str, data: bytes) -> None:
        """Queue one report's bytes; ``name`` is the file name it will most likely have (a
        file of that name holding the same bytes is left as it is, and not spooled)."""
        if self._failed or len(self._pending) > BACKLOG:
            return
        if self._input is None:
            try:
                self._start()
            except (OSError, ValueError, subprocess.SubprocessError):
                self._failed = True
                return
        try:
            encoded = os.fsencode(name)  # (the writer's locale may differ: it runs with -I)
        except UnicodeEncodeError:  # (report names are encodable: see report._report_stem)
            return
        self._pending += spool_writer.HEADER.pack(len(encoded), len(data))
        self._pending += encoded
        self._pending += data
        self._indices.setdefault(_digest(data), []).append(self._count)
        self._count += 1
        if len(self._pending) >= CHUNK:
            self._flush()

    def close(self) -> None:
        """Wait until the writer has written everything queued, and learn what it wrote. The
        writer stays this spool's until it has been waited for: interrupted here (a Ctrl-C
        while a slow disk is written), :meth:`discard` still stops it."""
        process, fd, self._input = self._process, self._input, None
        if process is None:
            return
        if fd is not None and self._pending and not self._failed:
            _set_blocking(fd, True)
            self._flush(fd)
        self._pending.clear()
        try:
            output, _ = process.communicate()
            self._written = {int(index) for index in output.split()}
        except (OSError, ValueError, subprocess.SubprocessError):
            self._written = set()
            _stop(process)
        self._process = None

    def take(self, data: bytes) -> str | None:
        """The path of a spooled file holding exactly ``data``, which the caller now owns
        (renames into place); ``None`` when there is none. Call after :meth:`close`."""
        indices = self._indices.get(_digest(data), [])
        while indices and self.folder is not None:
            index = indices.pop()
            if index in self._written:
                return os.path.join(self.folder, f"{index}.json")
        return None

    def discard(self) -> None:
        """Stop the writer (one not waited for yet is killed: its files are not wanted) and
        remove the spool folder with every file not taken, the writer's last ones too."""
        process, self._process, self._input = self._process, None, None
        try:
            if process is not None:
                _stop(process)
        finally:
            self._pending.clear()
            self._indices.clear()
            self._written.clear()
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
                self.folder = None

    def _flush(self, fd: int | None = None) -> None:
        """Write pending frames to the pipe: what it takes now (all of it, waiting, when
        ``fd`` is blocking). The pipe is a byte stream: a frame may be split across writes."""
        fd = self._input if fd is None else fd
        if fd is None:
            return
        try:
            while self._pending:
                sent = os.write(fd, self._pending)
                del self._pending[:sent]
        except BlockingIOError:
            return
        except OSError:  # the writer is gone: what it confirmed is still used
            self._failed = True

    def _start(self) -> int:
        if not sys.executable:
            raise OSError("no Python executable to run the writer with")
        self.reports_dir.mkdir(parents=True, exist_ok=True)
        while self.folder is None:
            folder = self.reports_dir / f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
            with contextlib.suppress(FileExistsError):
                folder.mkdir()
                self.folder = folder
        script = spool_writer.__file__
        self._process = subprocess.Popen(
            [sys.executable, "-I", "-S", script, os.fspath(self.folder), str(self.reports_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        if self._process.stdin is None:
            raise OSError("the writer has no input")
        self._input = self._process.stdin.fileno()
        _set_blocking(self._input, False)
        return self._input
