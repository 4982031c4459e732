"""Where the files a user names go (the HTML page, the CSV tables, the Markdown summary, the
saved baseline): through a symbolic link, into a named pipe or a device as ``tee`` writes,
never over a file the tool did not write, and never two of them into one file (review
robust17: a slip in a path overwrote a gold, a pipe with no reader hung the run, a saved
baseline held an HTML page)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_structeval.cli import main
from pytest_structeval.files import _temporary, save_file
from tests.plugin_support import one_pass_one_fail

GOLD = '{"a": 1}'


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    one_pass_one_fail(pytester.path / "sc")
    return pytester


def test_an_output_never_replaces_a_file_the_tool_did_not_write(project: pytest.Pytester) -> None:
    gold = project.path / "sc" / "scenario_1" / "groundtruth.txt"
    trajectory = next((project.path / "sc" / "scenario_1").glob("trajectory*.json"))
    kept = trajectory.read_bytes()
    result = project.runpytest(
        "--structeval-scenarios", "sc",
        "--structeval-save-baseline", str(gold),
        "--structeval-html", str(trajectory),
    )  # fmt: skip
    result.stdout.fnmatch_lines_random(
        [
            f"FAIL structeval: cannot write the HTML report {trajectory}: {trajectory.name} "
            "is not an HTML report structeval wrote, so it is kept: name another path",
            f"FAIL structeval: baseline not saved to {gold}: groundtruth.txt is not an "
            "aggregate report structeval wrote, so it is kept: name another path",
        ]
    )
    assert gold.read_text("utf-8") == GOLD
    assert trajectory.read_bytes() == kept
    assert result.ret != 0


def test_an_output_replaces_its_own_earlier_file_through_a_link(project: pytest.Pytester) -> None:
    args = ("--structeval-scenarios", "sc", "--structeval-html", "page.html")
    project.runpytest(*args)
    (project.path / "link.html").symlink_to("page.html")
    page = project.path / "page.html"
    page.write_text(page.read_text("utf-8").replace("structeval results</h2>", "old</h2>"))
    project.runpytest("--structeval-scenarios", "sc", "--structeval-html", "link.html")
    assert (project.path / "link.html").is_symlink()  # written through, not replaced
    assert "old</h2>" not in page.read_text("utf-8")
    for name in ("summary.md", "base.json"):  # Markdown and baselines rewrite their own too
        option = "--structeval-markdown" if name.endswith(".md") else "--structeval-save-baseline"
        for _ in range(2):
            result = project.runpytest("--structeval-scenarios", "sc/scenario_1", option, name)
            assert "did not write" not in result.stdout.str()


def test_two_outputs_naming_one_file_are_a_usage_error(
    project: pytest.Pytester, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = project.runpytest(
        "--structeval-scenarios",
        "sc",
        "--structeval-html",
        "out",
        "--structeval-save-baseline",
        "out",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*the HTML report and the saved baseline name one file, *out: give each its own"]
    )
    assert not (project.path / "out").exists()
    with pytest.raises(SystemExit) as stopped:
        main(["evaluate", "--scenarios", str(project.path / "sc"), "--markdown", "t/runs.csv",
              "--csv", "t"])  # fmt: skip
    assert stopped.value.code == 2
    assert "the Markdown summary and the CSV tables name one file" in capsys.readouterr().err


@pytest.mark.parametrize("output", ["html", "markdown", "save-baseline"])
def test_an_output_naming_this_runs_aggregate_is_a_usage_error_before_any_run(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    """Review messages29 #2: refused only after every run was scored, as "a file structeval
    did not write", whose advice ("remove it") would have removed the run's own aggregate."""
    aggregate = "reports/structeval/../structeval/_aggregate.json"
    result = project.runpytest("--structeval-scenarios", "sc", f"--structeval-{output}", aggregate)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    clash = "and this run's aggregate report name one file"
    result.stderr.fnmatch_lines([f"ERROR: the * {clash}, */reports/structeval/_aggregate.json: *"])
    assert not (project.path / "reports").exists()
    reports = project.path / "r"
    cli = ["evaluate", "--scenarios", str(project.path / "sc"), "--reports-dir", str(reports)]
    with pytest.raises(SystemExit) as stopped:
        main([*cli, f"--{output}", str(reports / "_aggregate.json")])
    assert stopped.value.code == 2
    assert clash in capsys.readouterr().err
    assert not reports.exists()
    run_file = project.path / "reports" / "structeval" / "r1.json"  # a run's own: at the end
    if output != "save-baseline":
        result = project.runpytest(
            "--structeval-scenarios", "sc", f"--structeval-{output}", run_file
        )
        result.stdout.fnmatch_lines(
            [
                f"FAIL structeval: cannot write the * {run_file}: r1.json is not a* structeval "
                "wrote, so it is kept: name another path"
            ]
        )


@pytest.mark.parametrize("asked", [[], ["--structeval-fail-under", "0"]])
def test_junitxml_naming_this_runs_aggregate_is_a_usage_error(
    project: pytest.Pytester, asked: list[str]
) -> None:
    """Review diff29a #4: refused only when a gate or an output was asked too; else pytest's
    XML replaced the aggregate the summary announced."""
    aggregate = "reports/structeval/_aggregate.json"
    result = project.runpytest("--structeval-scenarios", "sc", "--junitxml", aggregate, *asked)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: the --junitxml report and this run's aggregate report name one file, *"]
    )


JSON_REPORT_OPTIONS = """
def pytest_addoption(parser):
    # pytest-json-report 1.5's options, without installing it
    group = parser.getgroup("jsonreport")
    group.addoption("--json-report", default=False, action="store_true")
    group.addoption(
        "--json-report-file",
        default=".report.json",
        type=lambda x: None if x.lower() == "none" else x,
    )
"""


def test_json_reports_file_naming_a_structeval_output_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    """pluginmix34 #5: pytest-json-report's file replaced the Markdown summary the run had
    announced, and the next run refused to write over it; only with ``--json-report`` on."""
    if importlib.util.find_spec("pytest_jsonreport") is None:  # (else the plugin itself)
        pytester.makeconftest(JSON_REPORT_OPTIONS)
    pytester.makepyfile(test_a=PASSING_FIXTURE_TEST)
    summary = ("--structeval-markdown", ".report.json")
    clash = pytester.runpytest(*summary, "--json-report")
    assert clash.ret == pytest.ExitCode.USAGE_ERROR
    clash.stderr.fnmatch_lines(
        [
            "ERROR: the Markdown summary and pytest-json-report's --json-report-file name one "
            "file, *.report.json: give each its own"
        ]
    )
    assert pytester.runpytest(*summary).ret == pytest.ExitCode.OK  # (no JSON report)
    unsaved = pytester.runpytest(*summary, "--json-report", "--json-report-file", "NONE")
    assert unsaved.ret == pytest.ExitCode.OK
    assert (pytester.path / ".report.json").read_text().startswith("## structeval results")


PASSING_FIXTURE_TEST = """
def test_a(structeval):
    structeval.score({"a": 1}, '{"a": 1}')
"""

WRITES_OVER = """
import os
import pytest

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    # another plugin's output, on a path the startup check does not know
    with open(os.environ["OTHER_OUTPUT"], "w") as out:
        out.write("{}")
"""


@pytest.mark.parametrize("output", ["markdown", "html", "save-baseline"])
def test_an_output_another_plugin_replaced_at_the_end_fails_the_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, output: str
) -> None:
    """pluginmix34 #5: any other plugin's file on the path of a structeval output: the run
    said ``Markdown summary: PATH`` (or ``baseline saved``) for a file that was not there."""
    pytester.makeconftest(WRITES_OVER)
    pytester.makepyfile(test_a=PASSING_FIXTURE_TEST)
    monkeypatch.setenv("OTHER_OUTPUT", str(pytester.path / "out"))
    result = pytester.runpytest(f"--structeval-{output}", "out")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["FAIL structeval: the * *out was replaced after this run wrote it (another plugin's "
         "output on the same path?): name another path"]
    )  # fmt: skip
    text = result.stdout.str()
    assert "Markdown summary:" not in text
    assert "HTML report:" not in text
    assert "baseline saved" not in text
    (pytester.path / "out").unlink()
    monkeypatch.setenv("OTHER_OUTPUT", str(pytester.path / "elsewhere"))
    assert pytester.runpytest(f"--structeval-{output}", "out").ret == pytest.ExitCode.OK


def test_a_named_pipe_with_no_reader_is_an_error_not_a_hang(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match="a named pipe no process reads"):
        save_file(pipe, b"summary")
    assert pipe.is_fifo()


def test_a_device_is_written_into_and_never_replaced() -> None:
    save_file("/dev/null", b"page")
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("without", [("set_blocking",), ("set_blocking", "O_NONBLOCK")])
def test_a_device_is_written_into_where_os_has_no_set_blocking(
    monkeypatch: pytest.MonkeyPatch, without: tuple[str, ...]
) -> None:
    """Windows before Python 3.12 has no ``os.set_blocking`` (nor ``O_NONBLOCK``): writing
    into a device raised AttributeError (review portability33 #10)."""
    for name in without:
        monkeypatch.delattr(os, name)
    save_file("/dev/null", b"page")


@pytest.mark.parametrize("via_link", [False, True], ids=["named", "symlink"])
def test_standard_output_keeps_its_order_when_redirected_to_a_file(
    tmp_path: Path, via_link: bool
) -> None:
    """``--markdown /dev/stdout > log``: the summary went into the log by its own offset, and
    the CLI's later lines overwrote it; through a link to ``/dev/stdout`` the log itself was
    replaced (review diff17c). ``/dev/stderr`` beside it, also sent to the log, is no clash."""
    (tmp_path / "sc").mkdir()
    one_pass_one_fail(tmp_path / "sc")
    target = "/dev/stdout"
    if via_link:
        (tmp_path / "out.md").symlink_to("/dev/stdout")
        target = "out.md"
    log = tmp_path / "log.txt"
    args = ["evaluate", "--scenarios", "sc", "--fail-under", "0"]
    args += ["--markdown", target, "--html", "/dev/stderr"]
    code = "import sys; from pytest_structeval.cli import main; sys.exit(main(sys.argv[1:]))"
    with log.open("wb") as out:
        done = subprocess.run(
            [sys.executable, "-c", code, *args], cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT
        )
    text = log.read_text("utf-8")
    assert done.returncode == 0, text
    assert "\n## structeval results" in text
    assert text.index("## structeval results") < text.index(f"Markdown summary: {target}")
    assert "<title>structeval results</title>" in text


def test_a_regular_file_under_dev_is_an_ordinary_output(tmp_path: Path) -> None:
    """Every path under ``/dev/`` was taken for a stream: a new file under ``/dev/shm`` could
    not be created, and an old one was appended to (review diff17c)."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm on this machine")
    target = shm / f"structeval-{os.getpid()}-{tmp_path.name}.json"
    try:
        save_file(target, b"one")
        save_file(target, b"two")
        assert target.read_bytes() == b"two"
    finally:
        target.unlink(missing_ok=True)


@pytest.mark.parametrize("name", ["b" * 245 + ".json", "é" * 125 + ".json", "ab" * 127 + "c"])
def test_a_name_at_the_length_limit_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A valid name of 243 to 255 bytes failed with "File name too long" from its temporary
    name, 13 bytes longer (review portability33 #8): the temporary name is cut to fit, also
    when a temporary file left behind makes it take a random suffix."""
    assert len(name.encode()) in (250, 255)
    save_file(tmp_path / name, b"one")
    save_file(tmp_path / name, b"two")  # (over its own)
    assert os.listdir(tmp_path) == [name]
    monkeypatch.setattr(os, "getpid", lambda: 4_194_304)  # (the largest pid Linux gives)
    left = _temporary(name, "4194304")  # as a killed run of that pid left it
    assert len(left.encode()) <= 255
    (tmp_path / left).write_bytes(b"half")
    save_file(tmp_path / name, b"three")
    assert (tmp_path / name).read_bytes() == b"three"
    assert sorted(os.listdir(tmp_path)) == sorted([name, left])


def test_a_reformatted_baseline_may_be_saved_over(project: pytest.Pytester) -> None:
    """Compare, then save over the same baseline: a baseline with CRLF line ends or
    reformatted keys was refused as a file the tool did not write (review diff17c)."""
    base = project.path / "base.json"
    project.runpytest(
        "--structeval-scenarios", "sc/scenario_1", "--structeval-save-baseline", "base.json"
    )
    data = json.loads(base.read_text("utf-8"))
    base.write_bytes(json.dumps(data, sort_keys=True, indent=1).replace("\n", "\r\n").encode())
    args = ["--structeval-baseline", "base.json", "--structeval-save-baseline", "base.json"]
    result = project.runpytest("--structeval-scenarios", "sc/scenario_1", *args)
    result.stdout.fnmatch_lines(["baseline saved: *base.json"])
    assert base.read_bytes().startswith(b'{\n  "generated_at"')


def test_a_long_run_id_names_its_item_and_its_file_whole(tmp_path: Path) -> None:
    """AssetOpsBench run ids run to 144 characters: cut at 120 for the item's name, 36 real
    runs lost their file name, v1's (review diff17c)."""
    run_id = "run-" + "x" * 140
    (tmp_path / "sc" / "scenario_1").mkdir(parents=True)
    (tmp_path / "sc" / "scenario_1" / "groundtruth.txt").write_text("1")
    record = {"run_id": run_id, "answer": "1"}
    (tmp_path / "sc" / "scenario_1" / "trajectory.json").write_text(json.dumps(record))
    args = ["evaluate", "--scenarios", str(tmp_path / "sc"), "--reports-dir", str(tmp_path / "r")]
    assert main(args) == 0
    assert (tmp_path / "r" / f"{run_id}.json").is_file()


# -- mutation survivors (review mutants18) ---------------------------------------------------


def test_standard_error_redirected_to_a_file_is_a_stream(tmp_path) -> None:
    from pytest_structeval.files import stream_fd, written_into

    target = tmp_path / "err.txt"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o644)
    saved = os.dup(2)
    try:
        os.dup2(fd, 2)
        assert stream_fd(str(target)) == 2
        assert written_into(str(target))
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)


# -- mutation survivors (review mutants18b) --------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_read_head_refuses_what_is_no_regular_file(tmp_path: Path) -> None:
    """A device or a pipe may block or never end: read_head reads regular files only."""
    from pytest_structeval.files import read_head

    for path in ("/dev/zero", "/dev/null", str(tmp_path)):
        with pytest.raises(OSError, match="not a regular file"):
            read_head(path, 16)
