"""The ``pytest`` command's exit without the interpreter's last garbage collections, when its
process only scored scenarios.

At exit CPython collects garbage over the whole heap, more than once, to free what reference
counting cannot. For a run of 5,000 scenarios that took 0.3-0.5 s on a two-core machine, more
than creating all its report files. Such a process has done its work by then (reports written
and closed), so an ``atexit`` handler flushes every open buffered file and freezes the heap
(``gc.freeze``): those collections skip it, reference counting still frees what it can and
the operating system takes the rest. mypy ends its process without freeing its heap for the
same saving.

What a frozen heap costs is the finalisers of objects that are still alive, in reference
cycles, at exit (Python does not promise to run them): a ``__del__``, the trailer a gzip or
zip stream writes on ``close()``, a ``NamedTemporaryFile`` removing itself. Buffered files are
flushed first, so plain files keep their data. The freeze is therefore used only where that is
safe to assume:

* in the process of the ``pytest`` command itself (or of a pytest-xdist worker) whose session
  is that command line's: run by pytest's console entry point, with ``sys.argv[1:]`` as its
  arguments; never in a program that calls ``pytest.main`` and goes on, nor in a session that
  pytester runs inside another (the session decides: this module imports no pytest, as the
  ``structeval`` command uses it too);
* when every item the process collected was a scenario item (the session decides);
* when no other thread is alive at exit, however it was started (a daemon thread could hold a
  file's lock: flushing that file would wait forever, where the usual exit abandons it).

``atexit.register(gc.unfreeze)`` in a conftest (registered before the plugin's handler, it
runs after it) restores the usual exit.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import sys
import threading

_WRITERS = (io.BufferedWriter, io.BufferedRandom, io.TextIOWrapper)


def freeze_heap_at_exit() -> None:
    """Have this process's exit skip the last garbage collections (see the module
    docstring): the caller has checked that the process only scored."""
    atexit.unregister(_freeze)  # (once, however often it is asked)
    atexit.register(_freeze)


def _freeze() -> None:
    if threading.active_count() > 1 or len(sys._current_frames()) > 1:  # (_thread's too)
        return
    for obj in gc.get_objects():
        if isinstance(obj, _WRITERS):
            with contextlib.suppress(Exception):  # closed, detached, a broken pipe...
                obj.flush()
    gc.freeze()
