"""SIGTERM read as Ctrl-C (terminate.py): installed only over the default handler, in the
main thread, and put back after."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from pytest_structeval.terminate import TerminateAsInterrupt, Terminated

pytestmark = pytest.mark.skipif(not hasattr(os, "kill"), reason="sends itself SIGTERM")


@pytest.fixture
def default_sigterm() -> Iterator[None]:
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.usefixtures("default_sigterm")
def test_sigterm_raises_terminated_a_keyboard_interrupt_and_is_put_back() -> None:
    sigterm = TerminateAsInterrupt()
    sigterm.install()
    with pytest.raises(KeyboardInterrupt) as caught:
        os.kill(os.getpid(), signal.SIGTERM)
    assert isinstance(caught.value, Terminated)
    assert str(caught.value) == "terminated (SIGTERM)"
    assert sigterm.received
    sigterm.restore()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.usefixtures("default_sigterm")
def test_a_handler_someone_else_set_is_left_alone() -> None:
    def theirs(signum: int, frame: object) -> None:
        raise AssertionError("not called here")

    signal.signal(signal.SIGTERM, theirs)
    sigterm = TerminateAsInterrupt()
    sigterm.install()
    assert signal.getsignal(signal.SIGTERM) is theirs
    sigterm.restore()
    assert signal.getsignal(signal.SIGTERM) is theirs
    assert not sigterm.received


@pytest.mark.usefixtures("default_sigterm")
def test_a_handler_set_after_it_is_not_undone_by_restore() -> None:
    sigterm = TerminateAsInterrupt()
    sigterm.install()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sigterm.restore()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN


@pytest.mark.usefixtures("default_sigterm")
def test_outside_the_main_thread_nothing_changes() -> None:
    sigterm = TerminateAsInterrupt()
    thread = threading.Thread(target=sigterm.install)
    thread.start()
    thread.join()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


@pytest.mark.usefixtures("default_sigterm")
def test_a_second_sigterm_is_not_raised_again() -> None:
    """Review diff33a F2: GNU ``timeout`` sends SIGTERM twice; the second, raised inside
    pytest's handling of the first, ended the run in a traceback."""
    sigterm = TerminateAsInterrupt()
    sigterm.install()
    try:
        with pytest.raises(Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGTERM)  # read once: no second Terminated
    finally:
        sigterm.restore()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
@pytest.mark.usefixtures("default_sigterm")
# (Python 3.12+ warns of a fork under xdist's threads: this child only sleeps and exits)
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_dies_of_sigterm_as_without_the_handler() -> None:
    """Review diff33a F1: a child forked by a test inherited the handler, so SIGTERM made it
    raise Terminated and run the session's end, writing reports over its parent's."""
    sigterm = TerminateAsInterrupt()
    sigterm.install()
    try:
        pid = os.fork()
        if pid == 0:  # the child: wait to be stopped
            try:
                time.sleep(30)
            finally:
                os._exit(3)  # (a Terminated raised here would end the child with 3)
        time.sleep(0.2)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
    finally:
        sigterm.restore()
    assert os.WIFSIGNALED(status)
    assert os.WTERMSIG(status) == signal.SIGTERM
    assert not sigterm.received
