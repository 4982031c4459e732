"""SIGTERM read as Ctrl-C (terminate.py): installed only over the default handler, in the
main thread, and put back after."""

from __future__ import annotations

import os
import signal
import threading
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
