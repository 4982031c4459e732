"""Files a user points at, whatever the path turns out to be: bounded reads (never a hang on
a named pipe, never unbounded memory on a device such as ``/dev/zero``) and whole writes
(atomic for a regular file, into a pipe or device as ``tee`` does)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Final

from .spool_writer import write_all, write_new

__all__ = [
    "MAX_DEPTH",
    "MAX_REPORT_BYTES",
    "TooLarge",
    "atomic_write",
    "nul_error",
    "read_head",
    "read_lines",
    "read_text",
    "remove_left_temporaries",
    "save_file",
    "stream_fd",
    "utf8_text",
    "write_temporary",
    "written_into",
]

MAX_REPORT_BYTES: Final = 128 * 1024 * 1024
"""The largest ``_aggregate.json`` read back (an earlier run's, a baseline)."""
MAX_DEPTH: Final = 1000
"""The deepest nesting of a data file read (JSON or YAML: scenario files, trajectories,
schemas): PyYAML's own recursion gives out about there."""

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
    return utf8_text(data)


# Byte order marks of wide encodings a text file may be saved in, the longer first, with who
# writes it that way.
_WIDE_BOMS: Final = (
    (b"\xff\xfe\x00\x00", "UTF-32", ""),
    (b"\x00\x00\xfe\xff", "UTF-32", ""),
    (b"\xff\xfe", "UTF-16", " (as Windows PowerShell's > writes it)"),
    (b"\xfe\xff", "UTF-16", ""),
)


def utf8_text(data: bytes, what: str = "the file") -> str:
    """``data`` as UTF-8 text, a BOM dropped. Bytes of a UTF-16 file (as Windows PowerShell's
    ``>`` writes) or a UTF-32 one raise the ``UnicodeDecodeError`` that says so (``what``:
    what the bytes are), not only which byte failed; so do bytes holding a NUL, which no text
    input (JSON, YAML, a gold or question text) holds and UTF-16 without a byte-order mark
    does, where they would read as text full of NULs."""
    try:
        text = str(data[3:] if data.startswith(_BOM) else data, "utf-8")
    except UnicodeDecodeError as exc:
        wide = next((found for found in _WIDE_BOMS if data.startswith(found[0])), None)
        if wide is None:
            if b"\0" in data:
                raise nul_error(data, what) from None
            raise
        _, name, how = wide
        told = f"{exc.reason}: {what} is {name}{how}: save it as UTF-8"
        raise UnicodeDecodeError(exc.encoding, exc.object, exc.start, exc.end, told) from None
    if "\0" in text:
        raise nul_error(data, what)
    return text


def nul_error(data: bytes, what: str = "the file") -> UnicodeDecodeError:
    """The error for text ``data`` holding a NUL byte: most likely UTF-16 without a
    byte-order mark."""
    at = data.index(b"\0")
    told = (
        f"a NUL byte: {what} looks like UTF-16 without a byte-order mark (or is not text): "
        "save it as UTF-8"
    )
    return UnicodeDecodeError("utf-8", data, at, at + 1, told)


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


def atomic_write(path: str, data: bytes) -> None:
    """Write via a temporary file in the same folder and ``os.replace``: readers never see
    a half-written report. Temporary names start with a dot, which report names never do.
    Temporary files of ``path`` that a process no longer running left behind (killed between
    its write and its rename) are removed first (:func:`remove_left_temporaries`)."""
    folder, name = os.path.split(path)
    remove_left_temporaries(folder or os.curdir, [name])
    tmp = write_temporary(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_temporary(path: str, data: bytes) -> str:
    """Create a temporary file beside ``path`` holding ``data``, to be renamed over it: its
    path, ``.<name>.<pid>.tmp``; nothing is left when it cannot be written whole.

    The temporary name is fixed per process, so no random name is drawn as ``mkstemp`` does (a
    third of the cost of a small report write); one left behind by a killed process with the
    same id is side-stepped with a random suffix. Files get the mode the umask allows, not
    ``mkstemp``'s owner-only mode (see :func:`~pytest_structeval.spool_writer.write_new`).
    """
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, _temporary(name, f"{os.getpid()}"))
    try:
        while True:
            try:
                write_new(tmp, data)
                return tmp
            except FileExistsError:
                tag = f"{os.getpid()}.{secrets.token_hex(4)}"
                tmp = os.path.join(folder, _temporary(name, tag))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


_NAME_BYTES: Final = 255  # a file name's limit (bytes on Linux and macOS, UTF-16 units on Windows)


def _temporary(name: str, tag: str) -> str:
    """``.<name>.<tag>.tmp``, ``name`` cut so that it fits the file-name limit whenever
    ``name`` does: a valid output name of 243 to 255 bytes failed with "File name too long"
    from its temporary name. (Counted in UTF-8, which never takes fewer bytes than a legacy
    locale's encoding of the name, nor than its UTF-16 units.)"""
    room = _NAME_BYTES - len(f"..{tag}.tmp")
    if len(name) > room or _utf8_size(name) > room:
        name = name[:room]
        while _utf8_size(name) > room:
            name = name[:-1]
    return f".{name}.{tag}.tmp"


def _utf8_size(name: str) -> int:
    return len(name.encode("utf-8", "surrogatepass"))


LEFT_QUIET_SECONDS: Final = 60.0
"""How long a temporary file must have been untouched before it counts as left behind where
no lock says that no other process is writing the same target."""
# A temporary name, <name>.<pid>.tmp or <name>.<pid>.<8 hex>.tmp after its dot: each form is
# read one way only (its last dot-separated parts are fixed), so an entry has two readings.
_TAGGED: Final = re.compile(r"\.(?P<stem>.+)\.(?P<pid>[1-9][0-9]{0,9})\.[0-9a-f]{8}\.tmp", re.S)
_PLAIN: Final = re.compile(r"\.(?P<stem>.+)\.(?P<pid>[1-9][0-9]{0,9})\.tmp", re.S)


def remove_left_temporaries(
    folder: str,
    targets: Collection[str],
    names: Iterable[str] | None = None,
    *,
    quiet: float = LEFT_QUIET_SECONDS,
) -> None:
    """Remove from ``folder`` the temporary files of ``targets`` (file names in it) that a
    process no longer running left behind: a run killed between writing one and renaming it
    (SIGKILL, the out-of-memory killer) left it forever, up to a whole ``_aggregate.json``.

    Only a regular file named exactly as :func:`write_temporary` names a temporary file of one
    of ``targets`` (``.<name>.<pid>.tmp``, or with the random suffix it side-steps with, the
    name cut as it cuts it) goes, and only when no process of that id runs (this process's
    files never go) and the file has been untouched for ``quiet`` seconds: a process of another
    machine or container sharing the folder has an id this one cannot see, and its file is
    renamed within moments of its last write. ``quiet=0`` where a lock on the folder keeps
    every other writer out. ``names``: the folder's entries, when they are known. Nothing on
    Windows (no safe way to ask whether a process runs); errors are ignored.
    """
    if sys.platform == "win32":
        return
    try:
        entries = os.listdir(folder) if names is None else names
    except OSError:
        return
    long = [t for t in targets if _utf8_size(t) > _NAME_BYTES - len("..4294967295.01234567.tmp")]
    now = time.time()
    for entry in entries:
        if not (entry.startswith(".") and entry.endswith(".tmp")):
            continue
        pid = _left_by(entry, targets, long)
        if pid is None or _running(pid):
            continue
        path = os.path.join(folder, entry)
        with contextlib.suppress(OSError):
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime >= quiet:
                os.unlink(path)


def _left_by(entry: str, targets: Collection[str], long: Sequence[str]) -> int | None:
    """The process id in ``entry`` when it is the name of a temporary file of one of
    ``targets`` (``long``: those whose temporary names are cut); else None."""
    for pattern in (_TAGGED, _PLAIN):
        found = pattern.fullmatch(entry)
        if found is None:
            continue
        stem = found["stem"]
        tag = entry[len(stem) + 2 : -len(".tmp")]
        named = [stem] if stem in targets else [t for t in long if t.startswith(stem)]
        if any(_temporary(target, tag) == entry for target in named):
            return int(found["pid"])
    return None


def _running(pid: int) -> bool:
    """Whether a process ``pid`` may be running here: true for this process, and wherever
    it cannot be told."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # (signal 0: nothing is sent; POSIX only)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # (PermissionError: another user's process)
        return True
    return True


def save_file(path: str | os.PathLike[str], data: bytes, *, append: bool = False) -> None:
    """Write ``data`` to a file the user named (a page, a table, a baseline, a summary),
    creating its folder: atomically (a temporary file renamed over it) where a regular file
    is or none, through a symbolic link to its target (the link stays a link), and into a
    named pipe or a device (``/dev/stdout``) as ``tee`` does, never replacing it; a pipe no
    one reads is an error, not a hang. ``append`` adds ``data`` to the file instead
    (``$GITHUB_STEP_SUMMARY``). ``OSError`` when it cannot be written."""
    if written_into(path):  # opened as named: /dev/stdout resolves to no path on a pipe
        _write_into(os.fspath(path), data)
        return
    real = os.path.realpath(path)
    if os.path.isdir(real):
        raise IsADirectoryError("a folder is there")
    Path(real).parent.mkdir(parents=True, exist_ok=True)
    if append:
        with open(real, "ab") as handle:
            handle.write(data)
    else:
        atomic_write(real, data)


def _write_into(path: str, data: bytes) -> None:
    """Write ``data`` into the stream, named pipe or device at ``path``. This process's own
    standard output or error is written on its descriptor, on a line of its own, after what
    Python buffered for it (a file it is redirected to keeps one order); anything else is
    opened without waiting (a pipe with no reader would block the run forever)."""
    fd = stream_fd(path)
    if fd is not None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                stream.flush()
        write_all(fd, b"\n" + data)  # (pytest's progress line has no end yet)
        return
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | nonblocking)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError("a named pipe no process reads") from None
        raise
    # Writes wait for the reader now. (Windows has no O_NONBLOCK, and before Python 3.12 no
    # os.set_blocking either, as spool._set_blocking knows.)
    setter = getattr(os, "set_blocking", None)
    try:
        if nonblocking and setter is not None:
            setter(fd, True)
        write_all(fd, data)
    finally:
        os.close(fd)
