"""Process exit without the interpreter's last garbage collections, once a process only scored.

At exit CPython collects garbage over the whole heap, more than once, to free what reference
counting cannot. For a run of 5,000 scenarios that took 0.3-0.5 s on a two-core machine, as
long as all its report files took to write. A process that scored scenarios and ran no other
test holds nothing whose finaliser matters then (its reports are written and closed), so an
``atexit`` handler freezes the heap (``gc.freeze``): those collections skip it, reference
counting still frees what it can, and the operating system takes the rest, as Python permits
(``__del__`` of an object still alive at exit is not guaranteed to run). mypy ends its process
without freeing its heap for the same reason.

What a frozen heap would lose is a finaliser of an object in a reference cycle, so the handler
first flushes every open file written through a buffer: data a plugin or conftest left in an
unclosed file in a cycle still reaches the disk. It runs after pytest's own last collections
(which report unraisable exceptions) and after every ``atexit`` handler registered later; one
registered earlier still runs, its objects intact (``atexit.register(gc.unfreeze)`` in a
conftest restores the usual exit). A process that ran any other test exits as usual. Several
sessions in one process (pytester, ``pytest.main`` called twice): the last one to end decides.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io

_WRITERS = (io.BufferedWriter, io.BufferedRandom, io.TextIOWrapper)


class _ExitFreeze:
    """Whether the heap is frozen at exit, and whether the handler is registered yet."""

    wanted = False
    registered = False


def skip_exit_collections(skip: bool) -> None:
    """Freeze the heap at this process's exit (``skip``) or exit as usual; a later call
    overrides an earlier one."""
    _ExitFreeze.wanted = skip
    if skip and not _ExitFreeze.registered:
        _ExitFreeze.registered = True
        atexit.register(_freeze)


def _freeze() -> None:
    if not _ExitFreeze.wanted:
        return
    for obj in gc.get_objects():
        if isinstance(obj, _WRITERS):
            with contextlib.suppress(Exception):  # closed, detached, a broken pipe...
                obj.flush()
    gc.freeze()
