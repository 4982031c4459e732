"""The `pytest` command's process that only scored scenarios, and the structeval program,
exit without the interpreter's last garbage collections.

Each process records, from an ``atexit`` handler registered before the plugin's (so it runs
after it), how many objects the collector had frozen when the process ended.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.plugin_support import scenario, trajectory, write

EXIT_PROBE = """
import atexit, gc, os, pathlib

_out = pathlib.Path(__file__).parent / f"exit-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
atexit.register(lambda: _out.write_text(str(gc.get_freeze_count())))
"""

PLAIN_TEST = "def test_plain():\n    pass\n"

XDIST = pytest.mark.parametrize(
    "xdist",
    [["-p", "no:xdist"], ["-n", "2"]],
    ids=["serial", "n2"],
)
"""Serial and under pytest-xdist. A worker's session end goes on after it tells the controller
it finished, which then gives it 5 s to end (execnet's) before a SIGINT cuts its unconfigure
short, where the heap is frozen at exit: hypothesis's terminal summary, which imports all of
hypothesis on the worker, took that long under load, so the worker did not freeze (the root
conftest leaves that plugin out of the runs a test starts)."""


def frozen_at_exit(root: Path) -> dict[str, int]:
    """Objects frozen at exit, per process (``main``, ``gw0``, ``gw1``...)."""
    return {p.name[len("exit-") :]: int(p.read_text()) for p in root.glob("exit-*")}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # (this suite's own, under -n)
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(EXIT_PROBE)
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(pytester.path / "sc", "scenario_2", '{"a": 2}', trajectory("r2", '{"a": 2}'))
    return pytester


@XDIST
def test_a_process_that_ran_only_scenario_items_skips_them(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", *xdist, "--structeval-scenarios", "sc"
    )
    result.assert_outcomes(passed=2)
    frozen = frozen_at_exit(project.path)
    assert set(frozen) == ({"main"} if "no:xdist" in xdist else {"main", "gw0", "gw1"})
    assert all(count > 10_000 for count in frozen.values()), frozen


@XDIST
def test_a_process_that_ran_any_other_test_exits_as_usual(
    project: pytest.Pytester, xdist: list[str]
) -> None:
    project.makepyfile(test_plain=PLAIN_TEST)
    args = ("-p", "no:cacheprovider", *xdist, "--structeval-scenarios", "sc", "test_plain.py")
    project.runpytest_subprocess(*args).assert_outcomes(passed=3)
    frozen = frozen_at_exit(project.path)
    assert set(frozen) == ({"main"} if "no:xdist" in xdist else {"main", "gw0", "gw1"})
    assert set(frozen.values()) == {0}, frozen


@XDIST
def test_a_run_with_no_item_exits_as_usual(project: pytest.Pytester, xdist: list[str]) -> None:
    result = project.runpytest_subprocess(*xdist, "--structeval-scenarios", "sc", "-k", "nomatch")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    frozen = frozen_at_exit(project.path)
    assert frozen["main"] == 0
    assert set(frozen.values()) == {0}, frozen


@pytest.mark.parametrize("order", [["scenarios", "mixed"], ["mixed", "scenarios"]])
def test_a_program_that_calls_pytest_main_keeps_its_exit(
    project: pytest.Pytester, order: list[str]
) -> None:
    """Its process goes on after the session (and may hold objects whose finalisers matter),
    so not even a session that ran only scenarios freezes it, first or last."""
    project.makepyfile(test_plain=PLAIN_TEST)
    runs = {
        "scenarios": ["--structeval-scenarios", "sc"],
        "mixed": ["--structeval-scenarios", "sc", "test_plain.py"],
    }
    script = write(
        project.path / "twice.py",
        "import sys, pytest\n"
        "import conftest  # the probe's handler first, as a conftest's is\n"
        f"for args in {[runs[name] for name in order]!r}:\n"
        "    assert pytest.main(['-q', '-p', 'no:xdist', '-p', 'no:cacheprovider', *args]) == 0\n",
    )
    done = subprocess.run(
        [sys.executable, str(script)], cwd=project.path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert frozen_at_exit(project.path) == {"main": 0}


def test_a_program_named_pytest_that_calls_pytest_main_keeps_its_exit(
    project: pytest.Pytester,
) -> None:
    """Named like the program and passing it sys.argv, but not pytest's console_main: the
    process may go on after the session (diff23b #3)."""
    script = write(
        project.path / "bin" / "pytest",
        "import sys, pytest\nimport conftest\ncode = pytest.main()\nprint('went on')\n",
    )
    command = [sys.executable, str(script), "-p", "no:xdist", "--structeval-scenarios", "sc"]
    done = subprocess.run(command, cwd=project.path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "went on" in done.stdout
    assert frozen_at_exit(project.path) == {"main": 0}


PYTESTER_SUITE = """
import json


def test_plain():
    pass


def test_scenarios_in_process(pytester):
    pytester.makeini("[pytest]")
    for n in (1, 2):
        folder = pytester.path / "sc" / f"scenario_{n}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(json.dumps({"a": n}))
        run = {"run_id": f"r{n}", "answer": json.dumps({"a": n})}
        (folder / "trajectory.json").write_text(json.dumps(run))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--structeval-scenarios", "sc")
    result.assert_outcomes(passed=2)
"""


@pytest.mark.parametrize("outer", [[], ["-p", "no:structeval"]], ids=["plugin", "no-plugin"])
def test_a_scenario_run_inside_a_test_suite_leaves_its_exit_alone(
    project: pytest.Pytester, outer: list[str]
) -> None:
    """pytester runs a scenario-only session in the suite's process (restoring sys.modules
    after it): the suite ran other tests, so its process exits as usual."""
    project.makepyfile(test_outer=PYTESTER_SUITE)
    args = ("-p", "pytester", "-p", "no:xdist", "-p", "no:cacheprovider", *outer, "test_outer.py")
    project.runpytest_subprocess(*args).assert_outcomes(passed=2)
    assert frozen_at_exit(project.path) == {"main": 0}


@pytest.mark.parametrize(
    ("entry", "frozen"), [("console_main()", True), ("main(sys.argv[1:])", False)]
)
def test_the_structeval_program_skips_them_and_main_called_in_process_does_not(
    project: pytest.Pytester, entry: str, frozen: bool
) -> None:
    """The console script (``console_main``) runs in a process of its own; a program that
    calls :func:`~pytest_structeval.cli.main` keeps its exit as it was."""
    command = [
        sys.executable,
        "-c",
        "import sys, conftest\n"
        "from pytest_structeval.cli import console_main, main\n"
        f"sys.exit({entry})",
        "evaluate", "--scenarios", "sc", "--reports-dir", "out",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=project.path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    count = frozen_at_exit(project.path)["main"]
    assert (count > 10_000) if frozen else count == 0, count


CYCLE_WITH_A_FILE = """
import pathlib


class Holder:  # alive at exit, in a reference cycle: only a garbage collection finalises it
    def __init__(self, path):
        self.me = self
        self.file = open(path, "w", encoding="utf-8")
        self.file.write("written before exit")


HOLDER = Holder(pathlib.Path(__file__).parent / "left-open.txt")
"""


def test_a_file_left_open_in_a_reference_cycle_still_reaches_the_disk(
    project: pytest.Pytester,
) -> None:
    """Without the exit collections nothing finalises the cycle, so the handler flushes every
    open file first: the unclosed file's buffered text is not lost."""
    write(project.path / "conftest.py", EXIT_PROBE + CYCLE_WITH_A_FILE)
    result = project.runpytest_subprocess("-p", "no:xdist", "--structeval-scenarios", "sc")
    result.assert_outcomes(passed=2)
    assert frozen_at_exit(project.path)["main"] > 10_000
    assert (project.path / "left-open.txt").read_text("utf-8") == "written before exit"


BINARY_CYCLE = """
class BinaryHolder:
    def __init__(self, path):
        self.me = self
        self.file = open(path, "wb")
        self.file.write(b"bytes before exit")


BINARY_HOLDER = BinaryHolder(pathlib.Path(__file__).parent / "left-open.bin")
"""


def test_a_binary_file_left_open_in_a_cycle_keeps_its_bytes(project: pytest.Pytester) -> None:
    write(project.path / "conftest.py", EXIT_PROBE + CYCLE_WITH_A_FILE + BINARY_CYCLE)
    result = project.runpytest_subprocess("-p", "no:xdist", "--structeval-scenarios", "sc")
    result.assert_outcomes(passed=2)
    assert frozen_at_exit(project.path)["main"] > 10_000
    assert (project.path / "left-open.bin").read_bytes() == b"bytes before exit"


BLOCKED_WRITER = """
import _thread, subprocess, sys, threading

ORPHANED_ENDS = (  # a child that never reads, and ends once its parent has
    "import os, time\\n"
    "parent = os.getppid()\\n"
    "while os.getppid() == parent:\\n"
    "    time.sleep(0.2)\\n"
)


def _feed():  # blocks writing to a child that never reads, holding the pipe's lock
    child = subprocess.Popen(
        [sys.executable, "-c", ORPHANED_ENDS],
        stdin=subprocess.PIPE,
        start_new_session=True,  # (a group of its own, which the test kills when it ends)
    )
    (pathlib.Path(__file__).parent / "child.pid").write_text(str(child.pid))
    while True:
        child.stdin.write(b"x" * 65536)


"""
STARTS = {
    "threading": "threading.Thread(target=_feed, daemon=True).start()\n",
    "_thread": "_thread.start_new_thread(_feed, ())\n",
}


@pytest.mark.parametrize("start", STARTS)
def test_a_process_with_another_thread_alive_exits_as_usual(
    project: pytest.Pytester, start: str
) -> None:
    """Flushing the other thread's pipe would wait for its lock forever (diff23a #2; a thread
    that _thread started is not in threading's count: diff23b #2)."""
    write(project.path / "conftest.py", EXIT_PROBE + BLOCKED_WRITER + STARTS[start])
    try:
        result = project.runpytest_subprocess(
            "-p", "no:xdist", "--structeval-scenarios", "sc", timeout=60
        )
    finally:  # the child outlives the run that started it: it would sleep on for 2 minutes
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            os.killpg(int((project.path / "child.pid").read_text()), signal.SIGKILL)
    result.assert_outcomes(passed=2)
    assert frozen_at_exit(project.path) == {"main": 0}
