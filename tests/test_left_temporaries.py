"""Temporary files a killed run left behind are removed by a later run writing the same
target, and nothing else is (review limits33 #5: ``.<name>.<pid>.tmp`` of a run killed
between its write and its rename stayed forever, up to a whole ``_aggregate.json``, and was
uploaded with the artefacts)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_structeval.dirlock import JOURNAL_NAME
from pytest_structeval.files import LEFT_QUIET_SECONDS, _temporary, save_file
from pytest_structeval.report import AGGREGATE_NAME, write_reports
from tests.test_collect_speed_paths import filled, run_record

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="left alone on Windows")


@pytest.fixture(scope="module")
def dead() -> int:
    """The id of a process that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.fixture(scope="module")
def alive() -> Iterator[int]:
    """The id of a process that is running."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield process.pid
    process.kill()
    process.wait()


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_run_removes_the_temporary_files_killed_runs_left_of_its_reports(
    tmp_path: Path, dead: int, alive: int
) -> None:
    write_reports(tmp_path, filled(run_record("1-a"), run_record("2-a")))
    gone = [
        f"._aggregate.json.{dead}.tmp",  # killed at the aggregate's rename
        f".1-a.json.{dead}.tmp",  # a report this run writes
        f".1-a.json.{dead}.0badcafe.tmp",  # (one side-stepped with a random suffix)
        f".2-a.json.{dead}.tmp",  # a report of the last run's this run does not write
        f"{JOURNAL_NAME}.{dead}.tmp",  # killed at the journal's rename
    ]
    kept = [
        f".1-a.json.{alive}.tmp",  # a running process's
        f".1-a.json.{os.getpid()}.0badcafe.tmp",  # this process's own
        f".notes.txt.{dead}.tmp",  # not a file reports are written to
        f".1-a.json.{dead}.tmp.keep",  # not the pattern
        ".1-a.json.tmp",
        f".1-a.json.0{dead}.tmp",
        f".1-a.json.{dead}.xyz.tmp",
        f"1-a.json.{dead}.tmp",  # (no leading dot)
    ]
    for name in gone + kept:
        (tmp_path / name).write_bytes(b"left over")
    (tmp_path / f".3-a.json.{dead}.tmp").mkdir()  # a folder so named is no file we wrote
    (tmp_path / f".3-a.json.{dead}.0badcafe.tmp").symlink_to(tmp_path / "1-a.json")
    kept += [f".3-a.json.{dead}.tmp", f".3-a.json.{dead}.0badcafe.tmp"]
    write_reports(tmp_path, filled(run_record("1-a", 0.5), run_record("3-a")))
    assert hidden(tmp_path) == sorted(name for name in kept if name.startswith("."))
    assert (tmp_path / "1-a.json").exists()


KILLED = textwrap.dedent(
    """
    import os, sys
    from pytest_structeval import report
    from tests.test_collect_speed_paths import filled, run_record

    real = report.write_temporary
    calls = []

    def write_temporary(path, data):
        calls.append(path)
        if len(calls) == 3:
            os._exit(9)  # as a SIGKILL would: nothing cleaned up
        return real(path, data)

    report.write_temporary = write_temporary
    report.write_reports(sys.argv[1], filled(*(run_record(f"{i}-b") for i in range(5, 9))))
    """
)


def test_a_run_killed_while_writing_leaves_nothing_the_next_run_keeps(tmp_path: Path) -> None:
    """Killed before its renames, a run leaves its temporary files and its journal; the next
    run removes them, though it writes other reports."""
    write_reports(tmp_path, filled(run_record("1-a")))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    root = Path(__file__).resolve().parents[1]
    killed = subprocess.run(
        [sys.executable, "-c", KILLED, str(tmp_path)], cwd=root, check=False, capture_output=True
    )
    assert killed.returncode == 9, killed.stderr
    left = hidden(tmp_path)
    assert JOURNAL_NAME in left
    assert [name for name in left if name.endswith(".tmp")] == [
        f".5-b.json.{killed_pid(left)}.tmp",
        f".6-b.json.{killed_pid(left)}.tmp",
    ]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before} == before
    write_reports(tmp_path, filled(run_record("1-a"), run_record("2-a")))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [AGGREGATE_NAME, "1-a.json", "2-a.json"]
    )


def killed_pid(names: list[str]) -> str:
    return next(name for name in names if name.endswith(".tmp")).split(".")[-2]


def test_an_output_removes_its_own_left_temporary_files_once_quiet(
    tmp_path: Path, dead: int, alive: int
) -> None:
    """A Markdown summary, a CSV table, a page, a baseline: no lock keeps other writers out, so
    a file also has to be untouched for a while (a process in another container has an id
    this one cannot see)."""
    long = "s" * 250 + ".md"  # (its temporary name is cut to fit 255 bytes)
    old = time.time() - LEFT_QUIET_SECONDS - 5
    gone, kept = [], []
    for target in ("summary.md", long):
        names = {
            _temporary(target, str(dead)): old,
            _temporary(target, f"{dead}.0badcafe"): old,
            _temporary(target, f"{alive}"): old,  # running
            _temporary(target, f"{dead}.12345678"): time.time(),  # just written
            _temporary("other.md", str(dead)): old,  # not this target
        }
        for name, when in names.items():
            (tmp_path / name).write_bytes(b"left over")
            os.utime(tmp_path / name, (when, when))
        gone += [*names][:2]
        kept += [*names][2:]
    save_file(tmp_path / "summary.md", b"## structeval results\n")
    save_file(tmp_path / long, b"## structeval results\n")
    assert hidden(tmp_path) == sorted(set(kept))
    assert (tmp_path / "summary.md").read_bytes() == b"## structeval results\n"
