"""One run at a time writes a reports directory, and a killed run's files are the next run's to
remove (concurrent23: parallel jobs sharing one folder deleted each other's reports; a run
killed while writing left reports no aggregate listed, forever)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pytest_structeval import dirlock
from pytest_structeval.dirlock import (
    JOURNAL_NAME,
    WaitInterrupted,
    exclusive,
    journal_names,
    start_journal,
)
from pytest_structeval.report import AGGREGATE_NAME, write_reports
from tests.plugin_support import scenario, trajectory
from tests.test_collect_speed_paths import filled, run_record

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
open(os.path.join(sys.argv[1], ".released"), "w").close()  # then the lock goes with the process
"""

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")


def hold_lock(folder: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    return holder


def folder_state(folder: Path) -> tuple[set[str], set[str]]:
    """(run files the aggregate lists, run files in the folder)."""
    report = json.loads((folder / AGGREGATE_NAME).read_text("utf-8"))
    listed = {r["report"] for r in report["results"]}
    present = {p.name for p in folder.glob("*.json") if p.name != AGGREGATE_NAME}
    return listed, present


def test_a_run_waits_for_another_writing_the_folder(tmp_path: Path) -> None:
    holder = hold_lock(tmp_path, 0.3)
    with exclusive(str(tmp_path), wait=30):
        assert (tmp_path / ".released").exists()  # (written just before the holder let go)
    holder.wait()


def test_a_run_gives_up_on_a_folder_held_too_long(tmp_path: Path) -> None:
    holder = hold_lock(tmp_path, 30)
    try:
        with (
            pytest.raises(OSError, match="another run has been writing reports into"),
            exclusive(str(tmp_path), wait=0.2),
        ):
            pass
    finally:
        holder.kill()
        holder.wait()


def test_write_reports_waits_and_the_folder_holds_the_last_run_whole(tmp_path: Path) -> None:
    first = filled(*(run_record(f"{i}-a") for i in range(5)))
    write_reports(tmp_path, first)
    holder = hold_lock(tmp_path, 0.3)  # another run in the middle of writing
    second = filled(*(run_record(f"{i}-b") for i in range(3)))
    write_reports(tmp_path, second)
    assert (tmp_path / ".released").exists()
    holder.wait()
    listed, present = folder_state(tmp_path)
    assert listed == present == {"0-b.json", "1-b.json", "2-b.json"}


def stop_renaming_after(
    monkeypatch: pytest.MonkeyPatch, count: int, error: BaseException
) -> list[str]:
    """Make the renaming of reports into place raise ``error`` after ``count`` renames (a
    Ctrl-C, a kill, a failure there); the names renamed in."""
    renamed: list[str] = []
    real = os.replace

    def rename(src: str, dst: str) -> None:
        if not os.path.basename(dst).startswith("."):  # (a report, not the journal)
            if len(renamed) == count:
                raise error
            renamed.append(os.path.basename(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", rename)
    return renamed


def test_the_files_of_a_run_killed_while_writing_are_removed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_reports(tmp_path, filled(run_record("1-a")))
    with monkeypatch.context() as patch:
        renamed = stop_renaming_after(patch, 2, KeyboardInterrupt())
        with pytest.raises(KeyboardInterrupt):
            write_reports(tmp_path, filled(*(run_record(f"{i}-c") for i in range(4))))
    assert renamed == ["0-c.json", "1-c.json"]
    assert journal_names(str(tmp_path)) >= {"0-c.json", "3-c.json", "1-a.json"}
    write_reports(tmp_path, filled(run_record("1-a"), run_record("2-a")))
    listed, present = folder_state(tmp_path)
    assert listed == present == {"1-a.json", "2-a.json"}
    assert not (tmp_path / JOURNAL_NAME).exists()


def test_a_journal_never_names_a_file_outside_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / JOURNAL_NAME).write_text(json.dumps(["../outside.json", "notes.txt", AGGREGATE_NAME]))
    (folder / "notes.txt").write_text("mine")
    write_reports(folder, filled(run_record("1-a")))
    assert outside.exists()
    assert (folder / "notes.txt").read_text() == "mine"


HOLDING_HOOK = """
import os, pathlib, time


def pytest_structeval_update_aggregate(config, aggregate):
    # (called while this run holds the reports folder's lock) say so, and keep holding it
    # until the test says the other run is waiting for it
    handshake = pathlib.Path(os.environ["HANDSHAKE"])
    (handshake / "holding").touch()
    deadline = time.monotonic() + 120
    while not (handshake / "go").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
"""

WAITING = b"structeval: waiting for another run writing reports into "


def test_two_pytest_runs_sharing_a_reports_folder_leave_one_whole_run(
    pytester: pytest.Pytester,
) -> None:
    """The first run holds the folder while it finishes its aggregate; the second, started
    meanwhile, waits for it (and says so), then replaces its files: the folder is the second
    run, listed and present. The runs take their turns by a handshake, not by timing: a first
    run slow to start under load let the second write first."""
    pytester.makeini("[pytest]\n")
    for tree, prefix, count in (("slow", "a", 6), ("quick", "c", 4)):
        for i in range(count):
            run = trajectory(f"{prefix}{i}", '{"a": 1}')
            scenario(pytester.path / tree, f"scenario_{prefix}{i}", '{"a": 1}', run)
    (pytester.path / "slow" / "conftest.py").write_text(HOLDING_HOOK)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q"]
    out = ["--structeval-reports-dir", "shared"]
    env = {**os.environ, "HANDSHAKE": str(pytester.path), "PYTHONUNBUFFERED": "1"}
    slow = subprocess.Popen(
        [*command, "--structeval-scenarios", "slow", *out], cwd=pytester.path, env=env
    )
    deadline = time.monotonic() + 120
    while not (pytester.path / "holding").exists():  # (the first run holds the folder)
        assert slow.poll() is None, "the first run ended before it wrote its reports"
        assert time.monotonic() < deadline, "the first run never reached its reports"
        time.sleep(0.01)
    quick = subprocess.Popen(
        [*command, "--structeval-scenarios", "quick", *out],
        cwd=pytester.path,
        env=env,
        stdout=subprocess.PIPE,
    )
    assert quick.stdout is not None
    said = b""
    for line in quick.stdout:  # (until it waits; at the end of its output, if it never does)
        said += line
        if line.startswith(WAITING):
            break
    (pytester.path / "go").touch()  # the first run lets go of the folder
    said += quick.stdout.read()
    assert quick.wait() == 0, said
    assert slow.wait() == 0
    assert WAITING in said
    listed, present = folder_state(pytester.path / "shared")
    assert listed == present == {f"c{i}.json" for i in range(4)}


INTERRUPT_HOOK = textwrap.dedent(
    """
    def pytest_structeval_update_aggregate(config, aggregate):
        raise KeyboardInterrupt
    """
)
INTERRUPT_RENAMING = textwrap.dedent(
    """
    import os

    real = os.replace


    def rename(src, dst):
        if os.path.basename(dst) == "r1.json":
            raise KeyboardInterrupt
        real(src, dst)


    os.replace = rename
    """
)


def test_ctrl_c_while_pytest_renames_the_reports_says_so_and_exits_2(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeini("[pytest]\n")
    for i in range(3):
        scenario(pytester.path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", '{"a": 1}'))
    pytester.makeconftest(INTERRUPT_RENAMING)
    result = pytester.runpytest_subprocess("-p", "no:xdist", "--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*interrupted at the end of the run: its files in * may mix*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    reports = pytester.path / "reports" / "structeval"
    assert (reports / JOURNAL_NAME).exists()
    assert sorted(p.name for p in reports.iterdir()) == [JOURNAL_NAME, "r0.json"]


def test_ctrl_c_before_pytest_renames_the_reports_leaves_them_as_they_were(
    pytester: pytest.Pytester,
) -> None:
    """Review limits33 #1: every new file is a temporary one until all exist, so a Ctrl-C
    while they are written (here: in the aggregate hook, the last step before the renames)
    leaves the last run's reports whole, and says so rather than that they may mix."""
    pytester.makeini("[pytest]\n")
    for i in range(3):
        scenario(pytester.path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", '{"a": 1}'))
    assert pytester.runpytest_subprocess("-p", "no:xdist", "--structeval-scenarios", "sc").ret == 0
    reports = pytester.path / "reports" / "structeval"
    before = {p.name: p.read_bytes() for p in reports.iterdir()}
    scenario(pytester.path / "sc", "scenario_0", '{"a": 2}', trajectory("r0", '{"a": 1}'))
    scenario(pytester.path / "sc", "scenario_3", '{"a": 1}', trajectory("r3", '{"a": 1}'))
    pytester.makeconftest(INTERRUPT_HOOK)
    result = pytester.runpytest_subprocess("-p", "no:xdist", "--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*interrupted at the end of the run: the reports in * are left as they were"]
    )
    assert "may mix" not in result.stdout.str()
    assert {p.name: p.read_bytes() for p in reports.iterdir()} == before


def test_a_wait_is_announced_once_and_a_ctrl_c_in_it_says_nothing_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """diff23c #3: a Ctrl-C while waiting read as 'interrupted while writing'."""
    holder = hold_lock(tmp_path, 30)
    told: list[str] = []
    naps: list[float] = []

    def nap(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(dirlock.time, "sleep", nap)
    try:
        with (
            pytest.raises(WaitInterrupted),
            exclusive(str(tmp_path), on_wait=lambda: told.append("w")),
        ):
            pass
    finally:
        holder.kill()
        holder.wait()
    assert told == ["w"]
    assert isinstance(WaitInterrupted(), KeyboardInterrupt)  # callers that know no better


def test_a_file_system_that_refuses_the_lock_is_written_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """diff23c #6: NFS takes an exclusive flock only on a file open for writing (EBADF)."""

    def refused(fd: int, operation: int) -> None:
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(dirlock.fcntl, "flock", refused)
    written = write_reports(tmp_path, filled(run_record("1-a")))
    assert [p.name for p in written.run_files] == ["1-a.json"]


def test_a_journal_that_cannot_be_replaced_is_kept_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """diff23c #2: on a full disk the journal was truncated first, and its names lost."""
    start_journal(str(tmp_path), ["1-c.json", "2-c.json"])

    def full(obj: object, handle: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(dirlock.json, "dump", full)
    with pytest.raises(OSError, match="No space left"):
        start_journal(str(tmp_path), ["3-d.json"])
    assert journal_names(str(tmp_path)) == {"1-c.json", "2-c.json"}
    assert sorted(p.name for p in tmp_path.iterdir()) == [JOURNAL_NAME]


def test_a_link_loop_as_the_reports_folder_is_an_error_not_a_crash(
    pytester: pytest.Pytester,
) -> None:
    """diff23c #1: Path.resolve() raised RuntimeError on Python 3.11 (a traceback)."""
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    (pytester.path / "loop").symlink_to(pytester.path / "loop")
    result = pytester.runpytest_subprocess(
        "-p", "no:xdist", "--structeval-scenarios", "sc", "--structeval-reports-dir", "loop"
    )
    # (review limits33 #6: '[Errno 17] File exists', which named no link)
    result.stdout.fnmatch_lines(
        ["FAIL structeval: cannot write reports to *loop: it is a symbolic-link loop: name a*"]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_the_journal_never_writes_through_a_planted_link(tmp_path: Path) -> None:
    """diff23d #3: its temporary file was opened with a plain open(), following a link."""
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / f"{JOURNAL_NAME}.{os.getpid()}.tmp").symlink_to(victim)
    start_journal(str(folder), ["1-a.json"])
    assert victim.read_text() == "mine"
    assert not (folder / JOURNAL_NAME).is_symlink()
    assert journal_names(str(folder)) == {"1-a.json"}


HOLDER_CONFTEST = """
import pathlib, subprocess, sys

HOLD = {hold!r}


def pytest_sessionstart(session):
    folder = pathlib.Path(str(session.config.rootpath)) / "reports" / "structeval"
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-c", HOLD, str(folder), "1"]
    holder = subprocess.Popen(command, stdout=subprocess.PIPE)
    holder.stdout.readline()
"""


@pytest.mark.parametrize("verbosity", [["-q"], []], ids=["quiet", "default"])
def test_the_wait_is_announced_on_a_line_of_its_own(
    pytester: pytest.Pytester, verbosity: list[str]
) -> None:
    """diff23d #2: under -q it was appended to the progress line; diff23e #2: my first fix
    left an empty line before it at the default verbosity."""
    pytester.makeini("[pytest]\n")
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    pytester.makeconftest(HOLDER_CONFTEST.format(hold=HOLD))
    args = (*verbosity, "-p", "no:xdist", "--structeval-scenarios", "sc")
    result = pytester.runpytest_subprocess(*args)
    result.assert_outcomes(passed=1)
    lines = result.outlines
    at = next(i for i, line in enumerate(lines) if "waiting for another run" in line)
    assert lines[at].startswith("structeval: waiting for another run writing reports into ")
    assert lines[at - 1].strip()  # (the progress line, not an empty one)


def test_the_journal_gets_the_mode_the_umask_allows(tmp_path: Path) -> None:
    """diff23e #4: as report files do (it was 0o644 whatever the umask)."""
    before = os.umask(0o002)
    try:
        start_journal(str(tmp_path), ["1-a.json"])
    finally:
        os.umask(before)
    assert (tmp_path / JOURNAL_NAME).stat().st_mode & 0o777 == 0o664


BECOMES_A_FILE = """
import pathlib, shutil


def pytest_runtest_teardown(item):
    if item.name.startswith("2"):  # (the last item)
        folder = pathlib.Path(str(item.config.rootpath)) / "reports" / "structeval"
        shutil.rmtree(folder, ignore_errors=True)
        folder.write_text("a file now")
"""


def test_a_reports_folder_that_became_a_file_is_named_as_at_startup(
    pytester: pytest.Pytester,
) -> None:
    """Review limits33 #6: it was '[Errno 17] File exists', where the startup check says
    'is a file: name a folder'."""
    pytester.makeini("[pytest]\n")
    for i in range(3):
        scenario(pytester.path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", '{"a": 1}'))
    pytester.makeconftest(BECOMES_A_FILE)
    result = pytester.runpytest_subprocess("-p", "no:xdist", "--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["FAIL structeval: cannot write reports to */structeval: it is a file: name a folder"]
    )
    assert (pytester.path / "reports" / "structeval").read_text() == "a file now"


def test_write_reports_names_a_file_or_a_link_loop_where_the_folder_should_be(
    tmp_path: Path,
) -> None:
    (tmp_path / "file").write_text("mine")
    with pytest.raises(OSError, match=r"^it is a file: name a folder$"):
        write_reports(tmp_path / "file", filled(run_record("1-a")))
    (tmp_path / "link").symlink_to(tmp_path / "file")
    with pytest.raises(OSError, match=r"^it is a file: name a folder$"):
        write_reports(tmp_path / "link", filled(run_record("1-a")))
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    with pytest.raises(OSError, match=r"^it is a symbolic-link loop: name a folder$"):
        write_reports(tmp_path / "loop1", filled(run_record("1-a")))
    assert (tmp_path / "file").read_text() == "mine"
