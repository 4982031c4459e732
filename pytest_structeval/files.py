"""Bounded reads of files a user points at: never a hang on a named pipe, never unbounded
memory on a device such as ``/dev/zero``, whatever the path turns out to be."""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Iterator
from typing import Final

__all__ = [
    "MAX_REPORT_BYTES",
    "TooLarge",
    "read_head",
    "read_lines",
    "read_text",
    "stream_fd",
    "written_into",
]

MAX_REPORT_BYTES: Final = 128 * 1024 * 1024
"""The largest ``_aggregate.json`` read back (an earlier run's, a baseline)."""

# O_NONBLOCK: opening a named pipe for reading would otherwise wait for a writer.
_READ_FLAGS: Final = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
_BOM: Final = b"\xef\xbb\xbf"


def written_into(path: str | os.PathLike[str]) -> bool:
    """Whether an output named ``path`` is written into what is there rather than replacing
    it: a named pipe, a device or a socket (``/dev/stdout``, also through a symbolic link),
    or this process's standard output or error even when it is redirected to a file."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return True
    return stream_fd(path, info) is not None


def stream_fd(path: str | os.PathLike[str], info: os.stat_result | None = None) -> int | None:
    """The descriptor (1 or 2) of this process's standard output or error when ``path`` is
    the file it writes to (``/dev/stdout``, a link to it, the file it is redirected to), so
    an output written there keeps its order with what the process prints; else None."""
    try:
        info = os.stat(path) if info is None else info
    except OSError:
        return None
    for fd in (1, 2):
        try:
            if os.path.samestat(info, os.fstat(fd)):
                return fd
        except OSError:
            continue
    return None


def text_lines(text: str) -> str:
    """``text`` with CRLF and lone CR line endings as LF, as Python's text mode reads a file:
    a ``.txt`` gold checked out on Windows (``core.autocrlf``) says what it said on Linux."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


class TooLarge(ValueError):
    """A file over the size :func:`read_text` was asked to read whole."""


def read_text(path: str, limit: int) -> str:
    """UTF-8 text of ``path`` (BOM dropped); :class:`TooLarge` when over ``limit`` bytes.

    Raw descriptor calls (open, ``fstat``, read to the end) instead of a file object, and
    the BOM checked by hand instead of the ``utf-8-sig`` codec: discovery reads thousands of
    small files. Errors read as ``open(path, "rb")`` and ``decode("utf-8-sig")`` word them.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
            raise ValueError("not a regular file (a named pipe or a socket)")
        if info.st_size > limit:
            raise TooLarge(f"{info.st_size} bytes, over the {limit} byte limit")
        chunks = [os.read(fd, info.st_size + 1)]  # the whole of a regular file at once
        size = len(chunks[0])
        # A regular file that gave less than was asked is at its end (discovery reads
        # thousands: one system call each saved). Else read on, more if the file grew; never
        # past the limit (a device such as /dev/zero reports size 0 and never ends).
        at_end = stat.S_ISREG(info.st_mode) and size <= info.st_size
        while chunks[-1] and not at_end and size <= limit:
            chunks.append(os.read(fd, min(65536, limit + 1 - size)))
            size += len(chunks[-1])
        if size > limit:
            raise TooLarge(f"over the {limit} byte limit")
    finally:
        os.close(fd)
    data = b"".join(chunks) if any(chunks[1:]) else chunks[0]
    return str(data[3:] if data.startswith(_BOM) else data, "utf-8")


def read_lines(path: str, limit: int) -> Iterator[bytes | None]:
    """The lines of the regular file ``path`` (a BOM dropped), each as bytes, or ``None`` for
    a line of more than ``limit`` bytes before its line ending (the rest of it skipped): a
    file of one record a line (JSONL) of any size, read a line at a time. ``OSError`` for
    anything but a regular file."""
    fd = os.open(path, _READ_FLAGS)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", path)
    with io.BufferedReader(io.FileIO(fd, "rb"), buffer_size=1 << 20) as file:
        if file.peek(3)[:3] == _BOM:
            file.read(3)
        while line := file.readline(limit + 2):  # a line, and room for its CRLF
            ended = line.endswith(b"\n")
            if len(line) - int(line.endswith(b"\r\n")) - int(ended) <= limit:
                yield line
                continue
            while not ended and (rest := file.readline(1 << 20)):
                ended = rest.endswith(b"\n")  # the rest of a line too long to hold
            yield None


def read_head(path: str, size: int) -> bytes:
    """Up to ``size`` bytes from the start of the regular file ``path``; ``OSError`` for
    anything else (a pipe, a device, a folder), which would block or never end."""
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return os.read(fd, size)
    finally:
        os.close(fd)
