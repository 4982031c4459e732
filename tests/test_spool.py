"""Report files written ahead by a writer process (spool.py, spool_writer.py) give exactly the
files the plain end-of-run writer gives, never hold the run up, leave nothing behind, and are
used only where a core is to spare: a serial run of scenario items alone, a pytest-xdist
controller whose local workers leave one, ``structeval evaluate``."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import cli, spool_writer
from pytest_structeval import spool as spool_module
from pytest_structeval.report import AGGREGATE_NAME, write_ahead, write_reports
from pytest_structeval.session import local_workers
from pytest_structeval.spool import PREFIX, ReportSpool, is_spool
from pytest_structeval.spool_writer import HEADER, write_frames
from tests.plugin_support import AGGREGATE, comparable, scenario, trajectory
from tests.test_collect_speed_paths import filled, run_record

SERIAL = ("-p", "no:cacheprovider", "-p", "no:xdist")


def spool_folders(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(PREFIX))


def frame(name: str, data: bytes) -> bytes:
    return HEADER.pack(len(name.encode()), len(data)) + name.encode() + data


# --------------------------------------------------------------------------- the writer


def test_the_writer_writes_each_frame_and_skips_unchanged_reports(tmp_path: Path) -> None:
    folder, reports = tmp_path / "spool", tmp_path / "reports"
    folder.mkdir()
    reports.mkdir()
    (reports / "same.json").write_bytes(b"same\n")
    (reports / "changed.json").write_bytes(b"old\n")
    stream = io.BytesIO(
        frame("a.json", b"one\n")
        + frame("same.json", b"same\n")
        + frame("changed.json", b"new\n")
        + frame("x.json", b"cut")[:-1]  # a frame cut short ends the input
    )
    assert write_frames(stream, str(folder), str(reports)) == [0, 2]
    assert (folder / "0.json").read_bytes() == b"one\n"
    assert (folder / "2.json").read_bytes() == b"new\n"
    assert sorted(p.name for p in folder.iterdir()) == ["0.json", "2.json"]


def test_a_failed_write_stops_the_writer_but_it_reads_on(tmp_path: Path) -> None:
    stream = io.BytesIO(frame("a.json", b"1") + frame("b.json", b"2"))
    assert write_frames(stream, str(tmp_path / "missing"), str(tmp_path)) == []
    assert stream.read() == b""  # everything read: the run never blocks on a full pipe


# --------------------------------------------------------------------------- the spool


def test_a_spool_hands_out_one_written_file_per_put(tmp_path: Path) -> None:
    reports = tmp_path / "new" / "reports"
    spool = ReportSpool(reports)
    for name, data in (("a.json", b"one\n"), ("b.json", b"two\n"), ("c.json", b"one\n")):
        spool.put(name, data)
    spool.close()
    first, second = spool.take(b"one\n"), spool.take(b"one\n")
    assert first is not None
    assert second is not None
    assert first != second
    assert Path(first).read_bytes() == Path(second).read_bytes() == b"one\n"
    assert spool.take(b"one\n") is None  # two puts, two files
    assert spool.take(b"three\n") is None
    kept = spool.take(b"two\n")
    assert kept is not None
    assert Path(kept).read_bytes() == b"two\n"
    assert spool.folder is not None
    assert is_spool(spool.folder.name)
    assert spool.folder.parent == reports  # created with its parents

    spool.discard()
    assert spool_folders(reports) == []


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet="ab.-_\u00e9", max_size=6),
            st.sampled_from([b"", b"x", b"{}\n", b"\x00\xff", b"y" * 70_000]) | st.binary(),
        ),
        max_size=12,
    )
)
def test_every_put_is_taken_once_with_exactly_its_bytes(puts: list[tuple[str, bytes]]) -> None:
    """Whatever the names and bytes (repeats, empty, larger than a chunk), each put comes back
    as one file holding exactly its bytes, and nothing else does."""
    with tempfile.TemporaryDirectory() as folder:
        spool = ReportSpool(Path(folder))
        for name, data in puts:
            spool.put(name or "r.json", data)
        spool.close()
        for _, data in puts:
            path = spool.take(data)
            assert path is not None
            assert Path(path).read_bytes() == data
        assert all(spool.take(data) is None for _, data in puts)
        spool.discard()
        assert spool_folders(Path(folder)) == []


def test_a_report_the_folder_already_holds_is_not_spooled(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"same\n")
    spool = ReportSpool(tmp_path)
    spool.put("a.json", b"same\n")
    spool.put("b.json", b"same\n")  # same bytes, another name: spooled
    spool.close()
    taken = spool.take(b"same\n")
    assert taken is not None
    assert Path(taken).name == "1.json"
    assert spool.take(b"same\n") is None
    spool.discard()


def test_a_spool_that_cannot_write_stops_quietly(tmp_path: Path) -> None:
    """The reports 'folder' is a file: nothing is spooled, nothing raises; the end-of-run
    writer meets the error and reports it as it would without a spool."""
    blocked = tmp_path / "reports"
    blocked.write_text("a file")
    spool = ReportSpool(blocked)
    spool.put("a.json", b"one\n")
    spool.put("b.json", b"two\n")
    spool.close()
    assert spool.take(b"one\n") is None
    spool.discard()
    assert blocked.read_text() == "a file"


def test_a_writer_that_dies_costs_only_its_files(tmp_path: Path) -> None:
    spool = ReportSpool(tmp_path)
    spool.put("a.json", b"one\n")
    process = spool._process
    assert process is not None
    process.kill()
    process.wait()
    for i in range(3):  # a closed pipe: the spool stops, the run goes on
        spool.put(f"{i}.json", b"x" * 100_000)
    spool.close()
    assert spool.take(b"one\n") is None  # never confirmed: written at the end instead
    spool.discard()
    assert spool_folders(tmp_path) == []


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="stops the writer with SIGSTOP")
def test_a_writer_that_falls_behind_never_holds_the_run_up(tmp_path: Path) -> None:
    """A stalled writer (a slow disk): once the pipe is full, reports are left for the end
    instead of the run waiting; what the writer did accept is still written."""
    spool = ReportSpool(tmp_path)
    spool.put("first.json", b"first\n")
    process = spool._process
    assert process is not None
    os.kill(process.pid, signal.SIGSTOP)
    done, rescued = threading.Event(), []

    def rescue() -> None:  # a put that waited for the writer would never return: resume it
        if not done.wait(120):
            rescued.append(True)
            os.kill(process.pid, signal.SIGCONT)

    watchdog = threading.Thread(target=rescue, daemon=True)
    watchdog.start()
    try:
        blobs = [f"{i:05d}".encode() * 800 for i in range(2_000)]  # 8 MB: over the backlog
        for i, blob in enumerate(blobs):
            spool.put(f"{i}.json", blob)
    finally:
        done.set()
        watchdog.join()
        os.kill(process.pid, signal.SIGCONT)
    assert not rescued  # every put returned while the writer was stopped
    spool.close()
    taken = [spool.take(blob) for blob in blobs]
    accepted = [path for path in taken if path is not None]
    assert 0 < len(accepted) < len(blobs)
    assert taken[: len(accepted)] == accepted  # the first ones, in order, then none
    for blob, path in zip(blobs, accepted, strict=False):
        assert Path(path).read_bytes() == blob
    assert spool.take(b"first\n") is not None
    spool.discard()


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="stops the writer with SIGSTOP")
@pytest.mark.filterwarnings("error::ResourceWarning")
def test_a_ctrl_c_while_waiting_for_the_writer_stops_it_and_removes_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """runtimeflags34 #5: close() let go of the writer before waiting for it, so a Ctrl-C
    there (a slow disk) left discard() nothing to stop: the writer outlived the run
    ('subprocess N is still running' under -X dev) and wrote on into the folder being
    removed, which stayed, partial reports inside, though the run said the last run's
    reports were left as they were."""
    spool = ReportSpool(tmp_path)
    spool.put("first.json", b"first\n")
    process = spool._process
    assert process is not None
    os.kill(process.pid, signal.SIGSTOP)  # a writer still busy: it never finishes by itself

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(process, "communicate", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            spool.close()
        spool.discard()
        assert process.returncode is not None  # killed and reaped
        assert process.stdout is not None
        assert process.stdout.closed
        assert spool_folders(tmp_path) == []
    finally:
        if process.returncode is None:
            process.kill()
            process.wait()


def test_a_platform_without_non_blocking_pipes_still_spools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows before Python 3.12 has no ``os.set_blocking`` for pipes: writes then wait."""
    monkeypatch.delattr(os, "set_blocking")
    blobs = [b"x" * 1_000 + str(i).encode() for i in range(200)]  # three chunks
    spool = ReportSpool(tmp_path)
    for i, blob in enumerate(blobs):
        spool.put(f"{i}.json", blob)
    spool.close()
    for blob in blobs:
        path = spool.take(blob)
        assert path is not None
        assert Path(path).read_bytes() == blob
    spool.discard()


def test_reports_larger_than_the_pipe_arrive_whole(tmp_path: Path) -> None:
    big = b"[" + b"1234567890," * 100_000 + b"0]\n"  # 1 MB: split across many writes
    spool = ReportSpool(tmp_path)
    for i in range(3):
        spool.put(f"{i}.json", big + bytes([48 + i]))
    spool.close()
    for i in range(3):
        path = spool.take(big + bytes([48 + i]))
        assert path is not None
        assert Path(path).read_bytes() == big + bytes([48 + i])
    spool.discard()


# --------------------------------------------------------------------------- write_reports


def test_spooled_files_are_renamed_into_place_and_the_rest_written(tmp_path: Path) -> None:
    records = [run_record("1-a"), run_record("2-b", 0.5), run_record("3-c")]
    spool = ReportSpool(tmp_path)
    write_ahead(spool, records[0].to_dict())
    write_ahead(spool, records[1].to_dict())
    write_ahead(spool, run_record("2-b", 0.25).to_dict())  # replaced by a later report
    spool.close()
    assert spool.folder is not None
    ahead = {p.read_bytes(): os.stat(p).st_ino for p in spool.folder.iterdir()}
    assert len(ahead) == 3

    written = write_reports(tmp_path, filled(*records), generated_at="T", spool=spool)
    spool.discard()

    expected = write_reports(tmp_path / "plain", filled(*records), generated_at="T")
    assert [p.name for p in written.run_files] == [p.name for p in expected.run_files]
    for path, other in zip(written.run_files, expected.run_files, strict=True):
        assert path.read_bytes() == other.read_bytes()
    assert written.report == expected.report
    inodes = {p.name: os.stat(p).st_ino for p in written.run_files}
    assert inodes["1-a.json"] == ahead[(tmp_path / "1-a.json").read_bytes()]  # moved in
    assert inodes["2-b.json"] == ahead[(tmp_path / "2-b.json").read_bytes()]
    assert inodes["3-c.json"] not in ahead.values()  # never spooled: written at the end
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_spooled_report_still_takes_a_free_name(tmp_path: Path) -> None:
    """Written ahead under the name it would most likely get, a report still gets the name
    the end assigns: here a file not ours holds that name."""
    (tmp_path / "1-a.json").write_text("a user's file")
    record = run_record("1-a")
    spool = ReportSpool(tmp_path)
    write_ahead(spool, record.to_dict())
    written = write_reports(tmp_path, filled(record), generated_at="T", spool=spool)
    spool.discard()
    assert [p.name for p in written.run_files] == ["1-a-1.json"]
    assert (tmp_path / "1-a.json").read_text() == "a user's file"
    assert json.loads((tmp_path / "1-a-1.json").read_text())["run_id"] == "1-a"


def test_an_unchanged_report_is_left_alone_even_when_spooled(tmp_path: Path) -> None:
    record = run_record("1-a")
    write_reports(tmp_path, filled(record), generated_at="T")
    before = os.stat(tmp_path / "1-a.json")
    time.sleep(0.01)
    spool = ReportSpool(tmp_path)
    write_ahead(spool, record.to_dict())
    write_reports(tmp_path, filled(record), generated_at="T", spool=spool)
    spool.discard()
    after = os.stat(tmp_path / "1-a.json")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert spool_folders(tmp_path) == []


def test_memory_running_out_while_writing_ahead_only_costs_the_head_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review limits33 #3: under ``ulimit -v`` encoding a large record for the spool raised
    MemoryError in the per-item hook, an INTERNALERROR that ended the session. The spool is
    a head start: the report is left for the end, as one that cannot be encoded is."""
    import pytest_structeval.report as report

    record = run_record("1-a")

    def out_of_memory(record: object) -> bytes:
        raise MemoryError

    spool = ReportSpool(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(report, "report_bytes", out_of_memory)
        write_ahead(spool, record.to_dict())
    written = write_reports(tmp_path, filled(record), generated_at="T", spool=spool)
    spool.discard()
    assert [p.name for p in written.run_files] == ["1-a.json"]
    assert json.loads((tmp_path / "1-a.json").read_text())["run_id"] == "1-a"


def test_a_spool_folder_removed_under_the_run_only_costs_the_head_start(tmp_path: Path) -> None:
    """Two runs share a reports folder: one removes the other's spool folder as a leftover.
    The other still writes every report, at the end."""
    records = [run_record("1-a"), run_record("2-b")]
    spool = ReportSpool(tmp_path)
    for record in records:
        write_ahead(spool, record.to_dict())
    spool.close()
    assert spool.folder is not None
    shutil.rmtree(spool.folder)
    written = write_reports(tmp_path, filled(*records), generated_at="T", spool=spool)
    spool.discard()
    expected = write_reports(tmp_path / "plain", filled(*records), generated_at="T")
    for path, other in zip(written.run_files, expected.run_files, strict=True):
        assert path.read_bytes() == other.read_bytes()


def test_spool_folders_a_killed_run_left_are_removed_and_nothing_else(tmp_path: Path) -> None:
    left = tmp_path / f"{PREFIX}4242-0badcafe"
    left.mkdir()
    (left / "0.json").write_bytes(b"half")
    lookalikes = [f"{PREFIX}x", f"{PREFIX}4242-0badcafe.keep", ".structeval-spool"]
    for name in lookalikes:
        (tmp_path / name).mkdir()
    write_reports(tmp_path, filled(run_record("1-a")), generated_at="T")
    assert not left.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["1-a.json", AGGREGATE_NAME, *lookalikes]
    )


# --------------------------------------------------------------------------- in a run


SPOOL_CONFTEST = """
import json, os, pathlib, time
import pytest

def pytest_runtest_teardown(item):
    root = pathlib.Path(str(item.config.rootpath))
    reports = root / "reports" / "structeval"
    seen = sorted(p.name for p in reports.glob(".structeval-spool-*")) if reports.is_dir() else []
    with open(root / "spools.txt", "a") as out:
        out.write(json.dumps(seen) + "\\n")

@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session):
    # Which report files are the very files the writer process created?
    root = pathlib.Path(str(session.config.rootpath))
    reports = root / "reports" / "structeval"
    spooled = []
    deadline = time.monotonic() + 30
    while reports.is_dir() and time.monotonic() < deadline:
        spooled = [p for p in reports.glob(".structeval-spool-*/*.json")]
        if len(spooled) >= 4:
            break
        time.sleep(0.05)
    inodes = {os.stat(p).st_ino for p in spooled}
    result = yield
    moved = sorted(p.name for p in reports.glob("*.json") if os.stat(p).st_ino in inodes)
    (root / "moved.txt").write_text(json.dumps(moved))
    return result
"""


def _scenarios(root: Path) -> None:
    for i in range(1, 5):
        run = trajectory(f"r{i}", '{"a": 1}' if i % 2 else '{"a": 2}')
        scenario(root / "sc", f"scenario_{i}", '{"a": 1}', run)


ARGS = ("--structeval-scenarios", "sc")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """Four scenario runs (two pass), and a conftest noting spool folders after each item."""
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(SPOOL_CONFTEST)
    _scenarios(pytester.path)
    return pytester


def _seen(root: Path) -> list[list[str]]:
    seen = [json.loads(line) for line in (root / "spools.txt").open()]
    (root / "spools.txt").unlink()
    return seen


def test_a_serial_run_of_scenarios_writes_ahead_and_gives_the_same_files(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester = project
    monkeypatch.setattr(spool_module, "CHUNK", 1)  # each report to the writer at once
    monkeypatch.setattr(spool_module, "spare_core", lambda: True)  # (on a one-core machine too)
    pytester.runpytest_inprocess(*SERIAL, *ARGS).assert_outcomes(passed=2, failed=2)
    seen = _seen(pytester.path)
    assert len(seen) == 4
    assert all(len(names) == 1 and is_spool(names[0]) for names in seen)
    moved = json.loads((pytester.path / "moved.txt").read_text())
    assert moved == [f"r{i}.json" for i in range(1, 5)]  # renamed in, not written again
    spooled = comparable(pytester.path)
    assert spool_folders(pytester.path / AGGREGATE.parent) == []

    # Another test in the run: no writer process, everything written at the end; same files.
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    (pytester.path / AGGREGATE.parent).rename(pytester.path / "spooled")
    pytester.runpytest_subprocess(*SERIAL, *ARGS, "test_other.py").assert_outcomes(
        passed=3, failed=2
    )
    assert _seen(pytester.path) == [[]] * 5
    assert comparable(pytester.path) == spooled


def test_no_spool_without_a_core_to_spare(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool_module, "spare_core", lambda busy=1: False)
    project.runpytest_inprocess(*SERIAL, *ARGS).assert_outcomes(passed=2, failed=2)
    assert _seen(project.path) == [[]] * 4


CONTROLLER_CONFTEST = """
import json, pathlib

WORKER = []

def pytest_configure(config):
    WORKER.append(hasattr(config, "workerinput"))

def pytest_runtest_logreport(report):  # on the pytest-xdist controller: before its record
    if WORKER[-1]:
        return
    root = pathlib.Path(__file__).parent
    reports = root / "reports" / "structeval"
    seen = sorted(p.name for p in reports.glob(".structeval-spool-*")) if reports.is_dir() else []
    with open(root / "controller.txt", "a") as out:
        out.write(json.dumps(seen) + "\\n")
"""


@pytest.mark.parametrize(("workers", "spooled"), [("1", True), ("2", False)])
def test_an_xdist_controller_writes_ahead_when_its_workers_leave_a_core(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: str, spooled: bool
) -> None:
    """On a two-core machine (as patched), ``-n 1`` leaves the writer a core, ``-n 2`` does
    not; either way the files are the serial run's."""
    pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(CONTROLLER_CONFTEST)
    _scenarios(pytester.path)
    pytester.runpytest_subprocess(*SERIAL, *ARGS).assert_outcomes(passed=2, failed=2)
    expected = comparable(pytester.path)
    (pytester.path / AGGREGATE.parent).rename(pytester.path / "serial")
    (pytester.path / "controller.txt").unlink()
    asked: list[int] = []

    def two_cores(busy: int = 1) -> bool:
        asked.append(busy)
        return busy < 2

    monkeypatch.setattr(spool_module, "spare_core", two_cores)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-n", workers, *ARGS)
    result.assert_outcomes(passed=2, failed=2)
    assert asked == [int(workers)]
    seen = [json.loads(line) for line in (pytester.path / "controller.txt").open()]
    assert len(seen) == 12  # setup, call and teardown of four items
    assert any(seen) is spooled
    assert comparable(pytester.path) == expected
    assert spool_folders(pytester.path / AGGREGATE.parent) == []


@pytest.mark.parametrize(
    ("specs", "local"),
    [
        ([], 0),
        (["popen"], 1),
        (["3*popen", "popen//chdir=A"], 4),
        (["ssh=host//chdir=x", "socket=1.2.3.4:8888", "2*ssh=h"], 0),
        (["2*popen//via=proxy", "id=w//popen//python=python3"], 1),
    ],
)
def test_local_workers_counts_the_popen_specs_not_via_another_host(
    specs: list[str], local: int
) -> None:
    assert local_workers(specs) == local


@pytest.mark.parametrize("ahead", [True, False])
def test_structeval_evaluate_writes_ahead_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ahead: bool
) -> None:
    _scenarios(tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "--scenarios", "sc", "--fail-under", "0.5"]
    assert cli.main([*argv, "--reports-dir", "plain"]) == 0
    taken: list[str | None] = []
    real_take = ReportSpool.take

    def take(self: ReportSpool, data: bytes) -> str | None:
        taken.append(real_take(self, data))
        return taken[-1]

    monkeypatch.setattr(ReportSpool, "take", take)
    monkeypatch.setattr(cli, "spare_core", lambda busy=1: ahead)
    assert cli.main([*argv, "--reports-dir", "spooled"]) == 0
    assert len(taken) == (4 if ahead else 0)
    assert all(path is not None for path in taken)  # every report renamed in
    assert comparable(tmp_path, Path("spooled/_aggregate.json")) == comparable(
        tmp_path, Path("plain/_aggregate.json")
    )
    assert spool_folders(tmp_path / "spooled") == []
    capsys.readouterr()


def test_an_interrupted_run_leaves_no_spool_behind(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(
        "def pytest_runtest_teardown(item):\n"
        "    if item.name.startswith('3'):\n"
        "        raise KeyboardInterrupt\n"
    )
    _scenarios(pytester.path)
    result = pytester.runpytest_subprocess(*SERIAL, "--structeval-scenarios", "sc")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = json.loads((pytester.path / AGGREGATE).read_text("utf-8"))
    assert report["complete"] is False
    assert report["totals"]["errors"] == 1  # the run that did not run
    assert sorted(p.name for p in (pytester.path / AGGREGATE.parent).iterdir()) == [
        AGGREGATE_NAME,
        *[f"r{i}.json" for i in range(1, 5)],
    ]
    assert spool_folders(pytester.path / AGGREGATE.parent) == []


# -- mutation survivors (review mutants18b) --------------------------------------------------


def test_a_spare_core_is_one_more_than_the_busy_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer needs a core of its own: two cores and two busy processes leave none."""
    monkeypatch.setattr(spool_module.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert spool_module.spare_core(1)
    assert not spool_module.spare_core(2)


def test_write_new_never_replaces_a_file(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(b"old")
    with pytest.raises(FileExistsError):
        spool_writer.write_new(str(path), b"new")
    assert path.read_bytes() == b"old"


def test_write_new_gives_the_mode_the_umask_allows(tmp_path: Path) -> None:
    """Reports are artefacts other users read: 0o666 under the umask, not owner-only."""
    old = os.umask(0o022)
    try:
        spool_writer.write_new(str(tmp_path / "r.json"), b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "r.json").st_mode) == 0o644


def test_the_writer_ignores_ctrl_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C reaches the whole process group: the writer must outlive it, the run closes it."""
    old = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    try:
        assert spool_writer.main(["writer", str(tmp_path), str(tmp_path)]) == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)


def _frames(*items: tuple[bytes, bytes]) -> bytes:
    return b"".join(spool_writer.HEADER.pack(len(n), len(d)) + n + d for n, d in items)


def test_a_failed_write_stops_all_writing(tmp_path: Path) -> None:
    """After one write fails the rest is read and dropped: the run writes what is missing."""
    folder, reports = tmp_path / "spool", tmp_path / "reports"
    folder.mkdir()
    reports.mkdir()
    (folder / "0.json").write_bytes(b"in the way")  # frame 0 cannot be created
    stream = io.BytesIO(_frames((b"a.json", b"A"), (b"b.json", b"B")))
    assert spool_writer.write_frames(stream, str(folder), str(reports)) == []
    assert not (folder / "1.json").exists()


def test_write_all_writes_what_a_short_write_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One os.write may take only part of the buffer (a pipe, a signal): the rest follows."""
    real = os.write
    monkeypatch.setattr(spool_writer.os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    spool_writer.write_new(str(tmp_path / "r.json"), b"0123456789")
    monkeypatch.undo()
    assert (tmp_path / "r.json").read_bytes() == b"0123456789"
