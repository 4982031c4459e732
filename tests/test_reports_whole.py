"""Writing the reports is all or nothing as far as a file system allows (review limits33 #1).

On a full disk (``ENOSPC``) or past ``ulimit -f`` (``EFBIG``) the per-run files were replaced
one by one until a write failed: the last run's reports were lost, its ``_aggregate.json``
stayed and described files that were no longer its own, and the message named no file. Now
every new file is written under a temporary name first, and only once all of them exist (the
aggregate's and the journal too) are they renamed into place; a failure before that removes
them and leaves the folder exactly as it was. The full disk is simulated by making the write
primitive raise ``OSError(ENOSPC)`` at the Nth file.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from pytest_structeval import cli, dirlock, spool_writer
from pytest_structeval.dirlock import JOURNAL_NAME, journal_names, start_journal
from pytest_structeval.report import AGGREGATE_NAME, write_ahead, write_reports
from pytest_structeval.spool import ReportSpool
from tests.plugin_support import AGGREGATE, scenario, trajectory
from tests.test_collect_speed_paths import filled, run_record

FIRST = [run_record(f"{i}-a", 0.5 if i == 2 else 1.0) for i in range(5)]
SECOND = [run_record(f"{i}-a", 0.25) for i in range(8)]  # each of the first five changes


def snapshot(folder: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every entry of ``folder``: its bytes, inode and modification time."""
    return {
        p.name: (p.read_bytes(), p.stat().st_ino, p.stat().st_mtime_ns) for p in folder.iterdir()
    }


def full_disk_at(monkeypatch: pytest.MonkeyPatch, nth: int, code: int = errno.ENOSPC) -> None:
    """The ``nth`` file written (1-based) fails as on a full disk, after its creation."""
    calls = [0]
    real = spool_writer.write_all

    def write_all(fd: int, data: bytes) -> None:
        calls[0] += 1
        if calls[0] == nth:
            raise OSError(code, os.strerror(code))
        real(fd, data)

    monkeypatch.setattr(spool_writer, "write_all", write_all)


@pytest.mark.parametrize("nth", [1, 3, 8, 9], ids=["first", "third", "last run file", "aggregate"])
def test_a_full_disk_leaves_the_last_run_s_reports_exactly_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nth: int
) -> None:
    write_reports(tmp_path, filled(*FIRST), generated_at="T")
    before = snapshot(tmp_path)
    full_disk_at(monkeypatch, nth)
    with pytest.raises(OSError, match="No space left") as caught:
        write_reports(tmp_path, filled(*SECOND), generated_at="T")
    assert snapshot(tmp_path) == before  # nothing replaced, nothing left: no journal either
    name = AGGREGATE_NAME if nth == 9 else f"{nth - 1}-a.json"
    assert str(caught.value) == (
        f"{name}: [Errno 28] No space left on device: the last run's reports are left as they were"
    )
    assert caught.value.errno == errno.ENOSPC


def test_a_file_too_large_for_ulimit_f_names_the_aggregate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_reports(tmp_path, filled(*FIRST), generated_at="T")
    before = snapshot(tmp_path)
    full_disk_at(monkeypatch, 9, errno.EFBIG)
    with pytest.raises(OSError, match=r"^_aggregate.json: \[Errno 27\] File too large: the last"):
        write_reports(tmp_path, filled(*SECOND), generated_at="T")
    assert snapshot(tmp_path) == before


def test_a_journal_that_cannot_be_written_leaves_the_reports_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_reports(tmp_path, filled(*FIRST), generated_at="T")
    before = snapshot(tmp_path)

    def full(obj: object, handle: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(dirlock.json, "dump", full)
    with pytest.raises(OSError, match=rf"^{JOURNAL_NAME}: \[Errno 28\] .* left as they were$"):
        write_reports(tmp_path, filled(*SECOND), generated_at="T")
    assert snapshot(tmp_path) == before


def test_spooled_files_are_not_renamed_in_when_a_later_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files the spool wrote ahead wait in its folder with the rest until all exist."""
    write_reports(tmp_path, filled(*FIRST), generated_at="T")
    before = snapshot(tmp_path)
    spool = ReportSpool(tmp_path)
    for record in SECOND[:4]:
        write_ahead(spool, record.to_dict())
    full_disk_at(monkeypatch, 2)  # (the writer is another process: this is the end's 2nd file)
    with pytest.raises(OSError, match=r"^5-a.json: \[Errno 28\]"):
        write_reports(tmp_path, filled(*SECOND), generated_at="T", spool=spool)
    spool.discard()  # (as its owner does: the files it wrote ahead go with it)
    assert snapshot(tmp_path) == before


def test_a_failure_while_renaming_says_the_folder_may_mix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_reports(tmp_path, filled(*FIRST), generated_at="T")
    real = os.replace

    def rename(src: str, dst: str) -> None:
        if os.path.basename(dst) == "3-a.json":
            raise OSError(errno.EIO, "Input/output error")
        real(src, dst)

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", rename)
        with pytest.raises(OSError, match="Input/output") as caught:
            write_reports(tmp_path, filled(*SECOND), generated_at="T")
    assert str(caught.value) == (
        "3-a.json: [Errno 5] Input/output error: its files may mix this run's and the last "
        "run's (the next run sorts them out)"
    )
    assert journal_names(str(tmp_path)) >= {f"{i}-a.json" for i in range(8)}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # none left
    written = write_reports(tmp_path, filled(*FIRST), generated_at="T")  # the next run
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [AGGREGATE_NAME, *(p.name for p in written.run_files)]
    )


def test_a_killed_run_s_extra_files_go_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a disk that stays full, a killed run's extra files (which only its journal lists)
    were removed only after a run had written everything, so no run could: they go first."""
    write_reports(tmp_path, filled(*FIRST), generated_at="T")
    names = [f"{i}-k.json" for i in range(3)]
    for name in names:  # what a run killed while renaming left, beside the last run's files
        (tmp_path / name).write_text(json.dumps(run_record(name[:-5]).to_dict()))
    start_journal(str(tmp_path), [*names, *(f"{i}-a.json" for i in range(5))])
    before = snapshot(tmp_path)
    full_disk_at(monkeypatch, 1)
    with pytest.raises(OSError, match="left as they were"):
        write_reports(tmp_path, filled(*SECOND), generated_at="T")
    after = snapshot(tmp_path)
    assert sorted(after) == sorted(set(before) - set(names))
    del after[JOURNAL_NAME]  # (still naming what it named, and what this run meant to write)
    assert all(after[name] == before[name] for name in after)  # the last run's, untouched
    assert journal_names(str(tmp_path)) >= {*names, *(f"{i}-a.json" for i in range(8))}


def test_a_report_whose_bytes_are_unchanged_is_not_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only changed reports are written (here: one), and an unchanged one keeps its inode."""
    write_reports(tmp_path, filled(*FIRST), generated_at="T")
    before = snapshot(tmp_path)
    writes: list[int] = []
    real = spool_writer.write_all
    monkeypatch.setattr(
        spool_writer, "write_all", lambda fd, data: writes.append(fd) or real(fd, data)
    )
    changed = [*FIRST[:2], run_record("2-a"), *FIRST[3:]]
    write_reports(tmp_path, filled(*changed), generated_at="T")
    assert len(writes) == 2  # the changed report and the aggregate
    after = snapshot(tmp_path)
    assert {name for name in after if after[name] != before[name]} == {"2-a.json", AGGREGATE_NAME}


def test_structeval_evaluate_on_a_full_disk_names_the_file_and_keeps_the_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(3):
        scenario(tmp_path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", '{"a": 1}'))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "spare_core", lambda busy=1: False)
    argv = ["evaluate", "--scenarios", "sc", "--reports-dir", "out"]
    assert cli.main(argv) == 0
    before = snapshot(tmp_path / "out")
    scenario(tmp_path / "sc", "scenario_1", '{"a": 2}', trajectory("r1", '{"a": 1}'))
    full_disk_at(monkeypatch, 1)
    capsys.readouterr()
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.strip() == (
        "structeval: cannot write reports to out: r1.json: [Errno 28] No space left on device: "
        "the last run's reports are left as they were"
    )
    assert snapshot(tmp_path / "out") == before


FULL_DISK_CONFTEST = """
import errno, os
from pytest_structeval import spool_writer

real = spool_writer.write_all


def write_all(fd, data):
    if os.environ.get("FULL") and b'"results"' in data:  # the aggregate
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    real(fd, data)


spool_writer.write_all = write_all
"""


def test_pytest_on_a_full_disk_names_the_file_and_keeps_the_reports(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(FULL_DISK_CONFTEST)
    for i in range(3):
        scenario(pytester.path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", '{"a": 1}'))
    args = ("-p", "no:xdist", "-p", "no:cacheprovider", "--structeval-scenarios", "sc")
    assert pytester.runpytest_subprocess(*args).ret == 0
    reports = (pytester.path / AGGREGATE).parent
    before = snapshot(reports)
    scenario(pytester.path / "sc", "scenario_1", '{"a": 2}', trajectory("r1", '{"a": 1}'))
    monkeypatch.setenv("FULL", "1")
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAIL structeval: cannot write reports to */reports/structeval: _aggregate.json: "
            "[[]Errno 28[]] No space left on device: the last run's reports are left as they were"
        ]
    )
    assert snapshot(reports) == before
