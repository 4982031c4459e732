"""SIGTERM read as Ctrl-C, so a run that is stopped keeps what it scored.

A CI job that is cancelled, ``timeout`` and ``docker stop`` end a process with SIGTERM, whose
default action kills it on the spot: every run scored so far is lost and the last run's
``_aggregate.json`` stays, still ``complete: true``. Raised as :class:`Terminated`, a
``KeyboardInterrupt``, the signal takes the path Ctrl-C takes: the runs scored so far are
written, marked incomplete. Only a default handler is replaced (never one a program or
another plugin set), and only in the main thread, where Python runs signal handlers.

Only the process that installed the handler reads the signal so: a child forked from it (a
test's ``os.fork``, ``multiprocessing``) inherits the handler, and dies of SIGTERM as it
would have, never running the session's end as its own. The signal is read once: GNU
``timeout`` sends it twice (to the process, then to its group), and a second one raised in
pytest's handling of the first would end the run in a traceback.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType
from typing import Any


class Terminated(KeyboardInterrupt):
    """The process was sent SIGTERM (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__("terminated (SIGTERM)")


class TerminateAsInterrupt:
    """While installed, SIGTERM raises :class:`Terminated`; :attr:`received` tells whether
    it came (the ``structeval`` program then exits 143, as a process SIGTERM ended)."""

    def __init__(self) -> None:
        self.received = False
        self._previous: Any = None
        self._installed = False
        self._pid = 0  # the process that installed it

    def install(self) -> None:
        """Replace SIGTERM's default handler (see the module docstring); else do nothing."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return
        self._pid = os.getpid()
        self._previous = signal.signal(signal.SIGTERM, self._raise)
        self._installed = True

    def restore(self) -> None:
        """Put back the handler from before, unless someone replaced this one since."""
        if self._installed and signal.getsignal(signal.SIGTERM) == self._raise:
            signal.signal(signal.SIGTERM, self._previous)
        self._installed = False

    def _raise(self, signum: int, frame: FrameType | None) -> None:
        if os.getpid() != self._pid:  # a forked child: the default action, as without us
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        if self.received:  # the run is already stopping
            return
        self.received = True
        raise Terminated
