"""Creating report files: the primitives report writing uses, and the spool's writer process.

This module imports the standard library only: :class:`~pytest_structeval.spool.ReportSpool`
runs it as a script (``python -I -S spool_writer.py FOLDER REPORTS_DIR``), so the writer
starts in milliseconds and never loads pytest or this package.

The writer reads frames from stdin: a header (``<IQ``: name length, data length), the report's
likely file name in the reports folder (its bytes on disk: ``python -I`` ignores
``PYTHONUTF8``, so the writer's file-system encoding may not be the run's), then the report's
bytes. Frame ``n`` is written to
``FOLDER/<n>.json``, unless the reports folder already holds a file of that name with the
same bytes (a rerun: the report will be left as it is). At end of input it prints the indices
it wrote, space-separated. A write that fails stops all writing (the rest is read and
dropped, so the run never blocks on a full pipe): the run writes what is missing itself.
"""

from __future__ import annotations

import os
import signal
import struct
import sys
from typing import BinaryIO, Final

HEADER: Final = struct.Struct("<IQ")
_CREATE: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def write_new(path: str, data: bytes) -> None:
    """Create the file ``path`` (``FileExistsError`` if anything is there) holding ``data``.

    The mode is what the umask allows, as ``open(path, "w")`` gives (reports are artefacts
    that CI uploads and other users read); plain ``os.write`` calls, no file object.
    """
    fd = os.open(path, _CREATE, 0o666)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the descriptor ``fd`` (one ``os.write`` may take only part)."""
    rest = memoryview(data)
    while rest:
        rest = rest[os.write(fd, rest) :]


def holds(path: str | bytes, data: bytes) -> bool:
    """Whether the file at ``path`` holds exactly ``data``: a rerun leaves such a report as
    it is (most are unchanged, and replacing a file costs far more than reading it)."""
    try:
        with open(path, "rb", buffering=0) as handle:
            return os.fstat(handle.fileno()).st_size == len(data) and handle.read() == data
    except OSError:
        return False


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    data = stream.read(size)
    return data if len(data) == size else None


def write_frames(stream: BinaryIO, folder: str, reports_dir: str) -> list[int]:
    """Write the frames of ``stream`` (see the module docstring); the indices written."""
    written: list[int] = []
    failed = False
    index = 0
    reports = os.fsencode(reports_dir)  # (the bytes the run gave: argv is decoded as names are)
    while (header := _read_exactly(stream, HEADER.size)) is not None:
        name_size, data_size = HEADER.unpack(header)
        name = _read_exactly(stream, name_size)
        data = _read_exactly(stream, data_size)
        if name is None or data is None:
            break
        if not failed:
            try:
                if not holds(os.path.join(reports, name), data):
                    write_new(os.path.join(folder, f"{index}.json"), data)
                    written.append(index)
            except (OSError, ValueError):
                failed = True
        index += 1
    return written


def main(argv: list[str]) -> int:
    """The writer process: ``spool_writer.py FOLDER REPORTS_DIR``."""
    # Ctrl-C reaches the whole process group: the run ends by closing the input instead.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    written = write_frames(sys.stdin.buffer, argv[1], argv[2])
    sys.stdout.write(" ".join(map(str, written)))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
