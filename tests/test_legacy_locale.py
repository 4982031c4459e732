"""Under a legacy locale (``en_US.ISO-8859-1``, or ``LC_ALL=C PYTHONUTF8=0``: ASCII) file names
and ``os.environ`` take only what the file-system encoding encodes: a run id or scenario id
holding anything else names its item with pytest's escapes (``\\u8fd0``) and its report file
with ``_``, instead of crashing report writing (no summary, no aggregate) and erroring each
item in setup (pytest writes the node id to ``PYTEST_CURRENT_TEST``). Under UTF-8 names are
as they were.

The end-to-end cases run the CLI and pytest in a subprocess under such a locale: ``LC_ALL=C
PYTHONUTF8=0`` works wherever Python does not use UTF-8 for file names regardless (Linux and
the BSDs, not Windows or macOS); ``en_US.ISO-8859-1`` needs that locale: where it is not
installed, the tests make it with glibc's ``localedef`` in a folder of their own, and skip
only where that fails.
"""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import naming, report
from pytest_structeval.naming import ItemNames, safe_name
from pytest_structeval.report import AGGREGATE_NAME
from pytest_structeval.scenarios import id_key
from pytest_structeval.spool_writer import HEADER, write_frames

RUN_IDS = ["\\u8fd0\\u884c-1", "运行-1", "测试-1", "essai-é"]
"""Run ids of one scenario: the first is what the second escapes to (a literal backslash)."""
ANSWERS = ['{"a": 1}', '{"a": 1}', '{"a": 2}', '{"a": 1}']  # the third fails


def _pretend(monkeypatch: pytest.MonkeyPatch, encoding: str) -> None:
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: encoding)


# --------------------------------------------------------------------------- names


def test_names_are_unchanged_where_the_file_system_encoding_is_utf8() -> None:
    if sys.getfilesystemencoding().lower().replace("-", "") != "utf8":
        pytest.skip("this process runs under a legacy locale")
    assert safe_name("运行-1") == "运行-1"
    assert safe_name("café 😀") == "café_😀"
    assert report._report_stem("运行-1", "1") == "运行-1"


@pytest.mark.parametrize(
    ("encoding", "text", "name", "stem"),
    [
        ("ascii", "运行-1", "\\u8fd0\\u884c-1", "_u8fd0_u884c-1"),
        ("ascii", "essai-é", "essai-\\xe9", "essai-_xe9"),
        ("ascii", "a😀 b", "a\\U0001f600_b", "a_U0001f600_b"),
        ("latin-1", "运行-1", "\\u8fd0\\u884c-1", "_u8fd0_u884c-1"),
        ("latin-1", "essai-é", "essai-é", "essai-é"),  # latin-1 encodes é: no change
        ("latin-1", "e\u0301", "e\\u0301", "e_u0301"),  # NFD: é once NFC in a file name
        ("euc-jp", "한行-1", "\\ud55c行-1", "_ud55c行-1"),  # EUC-JP has 行, no hangul
    ],
)
def test_a_legacy_locale_escapes_in_item_names_what_it_cannot_encode(
    monkeypatch: pytest.MonkeyPatch, encoding: str, text: str, name: str, stem: str
) -> None:
    _pretend(monkeypatch, encoding)
    assert safe_name(text) == name
    name.encode(encoding)  # what os.environ (PYTEST_CURRENT_TEST) must do with it
    # The report file is named by the label: its backslashes become "_" as any punctuation.
    assert report._report_stem(name, "1") == stem
    report._report_stem(text, "1").encode(encoding)  # a run id without a label too


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_run_ids_alike_once_escaped_keep_unique_items_and_files(
    monkeypatch: pytest.MonkeyPatch, encoding: str
) -> None:
    _pretend(monkeypatch, encoding)
    given = ItemNames().give_all([("泵站", run_id) for run_id in RUN_IDS])
    head, essai = "\\u6cf5\\u7ad9", "essai-\\xe9" if encoding == "ascii" else "essai-é"
    assert given == [
        (f"{head}[\\u8fd0\\u884c-1]", "\\u8fd0\\u884c-1"),  # its own name, served first
        (f"{head}[\\u8fd0\\u884c-1-2]", "\\u8fd0\\u884c-1-2"),
        (f"{head}[\\u6d4b\\u8bd5-1]", "\\u6d4b\\u8bd5-1"),
        (f"{head}[{essai}]", essai),
    ]
    records = [{"scenario_id": "1", "run_id": r, "label": label} for r, (_, label) in zip(
        RUN_IDS, given, strict=True)]  # fmt: skip
    # Report files for runs without labels (the structeval fixture's) are unique too.
    bare = [{"scenario_id": "1", "run_id": r} for r in ["运行-1", "测试-1", "__-1", "運行-1"]]
    names = report._report_names([*records, *bare], set())
    assert len(set(names)) == len(names)
    for file_name in names:
        file_name.encode(encoding)


def test_encodable_leaves_encodable_text_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    _pretend(monkeypatch, "latin-1")
    assert naming.encodable("Straße ÄÖÜ", lambda c: "?") == "Straße ÄÖÜ"
    assert naming.encodable("Straße 泵", lambda c: "?") == "Straße ?"
    assert naming.fs_encodes("Straße")
    assert not naming.fs_encodes("泵")
    _pretend(monkeypatch, "utf-8")
    assert naming.encodable("泵 😀", lambda c: "?") == "泵 😀"
    assert not naming.fs_encodes("\ud800")  # (a lone surrogate is no name's)


def test_names_an_earlier_run_listed_are_found_as_this_locale_spells_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A UTF-8 run wrote ``运行-1.json``; a run under ASCII sees that file as
    ``\\udce8\\udcbf...`` (its UTF-8 bytes, escaped), and removes it by that name."""
    monkeypatch.setattr(os, "fsdecode", lambda b: b.decode("ascii", "surrogateescape"))
    _pretend(monkeypatch, "ascii")
    name = "运行-1.json"
    assert report._on_disk(tmp_path, name) == name.encode().decode("ascii", "surrogateescape")
    assert report._on_disk(tmp_path, "run-1.json") == "run-1.json"


def test_the_spool_writer_finds_a_report_by_its_bytes_on_disk(tmp_path: Path) -> None:
    """The writer runs with ``-I`` (``PYTHONUTF8`` ignored), so its file-system encoding may
    differ from the run's: the run sends a name as its bytes on disk (latin-1 ``é`` here)."""
    folder, reports = tmp_path / "spool", tmp_path / "reports"
    folder.mkdir()
    reports.mkdir()
    latin = b"essai-\xe9.json"
    try:
        with open(os.path.join(os.fsencode(reports), latin), "wb") as handle:
            handle.write(b"same\n")
    except OSError as exc:  # a file system that takes UTF-8 names only (macOS APFS)
        pytest.skip(f"this file system refuses a latin-1 name: {exc}")

    def frame(name: bytes, data: bytes) -> bytes:
        return HEADER.pack(len(name), len(data)) + name + data

    stream = io.BytesIO(frame(latin, b"same\n") + frame(b"new.json", b"new\n"))
    assert write_frames(stream, str(folder), str(reports)) == [1]  # the first is there already


# --------------------------------------------------------------------------- end to end


@functools.cache
def _file_system_encoding(variables: tuple[tuple[str, str], ...]) -> str:
    env = {**os.environ, **dict(variables)}
    done = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.getfilesystemencoding())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


LOCALES = [
    pytest.param((("LC_ALL", "C"), ("PYTHONUTF8", "0")), "ascii", id="C-ascii"),
    pytest.param((("LC_ALL", "en_US.ISO-8859-1"), ("PYTHONUTF8", "0")), "iso8859-1", id="latin1"),
]


@pytest.fixture(scope="session")
def locales(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the locales this machine lacks (a fresh CI machine has C and C.UTF-8
    alone), made by ``localedef`` and found through ``LOCPATH``: no root, no system change."""
    return tmp_path_factory.mktemp("locales")


def _generated(name: str, folder: Path) -> bool:
    """Whether ``localedef`` made the locale ``name`` (``en_US.ISO-8859-1``) in ``folder``."""
    source, _, charmap = name.partition(".")
    localedef = shutil.which("localedef")
    if not charmap or localedef is None:
        return False
    if (folder / name).is_dir():
        return True
    command = [localedef, "-i", source, "-f", charmap, str(folder / name)]
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


def _legacy_env(
    variables: tuple[tuple[str, str], ...], encoding: str, locales: Path
) -> dict[str, str]:
    found = _file_system_encoding(variables)
    if found != encoding and _generated(dict(variables)["LC_ALL"], locales):
        variables = (*variables, ("LOCPATH", str(locales)))
        found = _file_system_encoding(variables)
    if found != encoding:
        settings = " ".join(f"{k}={v}" for k, v in variables)
        pytest.skip(
            f"{settings}: Python's file-system encoding is {found}, not {encoding} (the locale "
            "is not installed and localedef could not make it, or the platform uses UTF-8 for "
            "file names regardless)"
        )
    env = {**os.environ, **dict(variables)}
    env.pop("PYTHONIOENCODING", None)
    return env


def _tree(root: Path) -> Path:
    folder = root / "ev" / "scenario_1"
    folder.mkdir(parents=True)
    (folder / "groundtruth.json").write_text('{"a": 1}', encoding="utf-8")
    lines = [
        json.dumps({"run_id": run_id, "answer": answer}, ensure_ascii=False)
        for run_id, answer in zip(RUN_IDS, ANSWERS, strict=True)
    ]
    (folder / "trajectory.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root / "ev"


def _report_files(directory: Path) -> list[bytes]:
    """The names in ``directory`` as bytes: the test's own locale may read them otherwise."""
    return sorted(os.listdir(os.fsencode(directory)))


def _expected_files(encoding: str) -> list[bytes]:
    essai = "essai-_xe9.json" if encoding == "ascii" else "essai-é.json"
    names = [AGGREGATE_NAME, "_u6d4b_u8bd5-1.json", "_u8fd0_u884c-1-2.json", "_u8fd0_u884c-1.json"]
    return sorted(name.encode(encoding) for name in [*names, essai])


@pytest.mark.parametrize(("variables", "encoding"), LOCALES)
def test_the_cli_writes_every_report_under_a_legacy_locale(
    tmp_path: Path, variables: tuple[tuple[str, str], ...], encoding: str, locales: Path
) -> None:
    env = _legacy_env(variables, encoding, locales)
    scenarios = _tree(tmp_path)
    reports = tmp_path / "rep"
    outputs = ["--csv", str(tmp_path / "csv"), "--markdown", str(tmp_path / "r.md"),
               "--html", str(tmp_path / "r.html")]  # fmt: skip
    command = [sys.executable, "-m", "pytest_structeval.cli", "evaluate", "--scenarios",
               str(scenarios), "--reports-dir", str(reports), *outputs]  # fmt: skip
    # A run under UTF-8 wrote the folder first: its files (运行-1.json) are removed by the
    # names its aggregate lists, which the legacy locale cannot encode as they stand.
    utf8 = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"}
    first = subprocess.run(command, env=utf8, capture_output=True, check=False, timeout=120)
    assert first.returncode == 1, first.stderr.decode(errors="replace")
    done = subprocess.run(command, env=env, capture_output=True, check=False, timeout=120)
    err = done.stderr.decode("ascii", "replace")
    assert done.returncode == 1, err  # one run fails: exit 1, not a crash
    assert "Traceback" not in err
    assert b"runs 4 | passed 3" in done.stdout
    assert _report_files(reports) == _expected_files(encoding)
    aggregate = json.loads((reports / AGGREGATE_NAME).read_bytes())
    listed = sorted(r["report"].encode(encoding) for r in aggregate["results"])
    assert listed == [name for name in _expected_files(encoding) if name != b"_aggregate.json"]
    assert {r["run_id"] for r in aggregate["results"]} == set(RUN_IDS)
    for output in ("csv/runs.csv", "r.md", "r.html"):
        assert (tmp_path / output).stat().st_size > 0


@pytest.mark.parametrize(("variables", "encoding"), LOCALES)
@pytest.mark.parametrize("workers", [None, "2"])
def test_pytest_runs_scenario_items_under_a_legacy_locale(
    tmp_path: Path,
    variables: tuple[tuple[str, str], ...],
    encoding: str,
    workers: str | None,
    locales: Path,
) -> None:
    env = _legacy_env(variables, encoding, locales)
    if workers is not None:
        pytest.importorskip("xdist")
    _tree(tmp_path)
    if workers is None:  # (xdist cannot send a node id that is no UTF-8: pytest's own)
        # a scenario folder named in UTF-8 (é) whose trajectory does not read: a load error
        broken = os.path.join(os.fsencode(tmp_path), b"ev", b"scenario_\xc3\xa92")
        os.makedirs(broken)
        with open(os.path.join(broken, b"groundtruth.json"), "wb") as file:
            file.write(b'{"a": 1}')
        with open(os.path.join(broken, b"trajectory.json"), "wb") as file:
            file.write(b'{"answer": ')
    args = ["-p", "no:cacheprovider", "--structeval-scenarios", "ev", "-rA"]
    args += ["-p", "no:xdist"] if workers is None else ["-n", workers]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
        timeout=180,
    )
    out = done.stdout.decode("ascii", "replace")
    assert done.returncode == 1, out + done.stderr.decode("ascii", "replace")
    failed = "1 failed" if workers is not None else "2 failed"
    assert f"{failed}, 3 passed in" in out  # and no item errors in setup or teardown
    if workers is None:  # its path as the summary shows it, in the failure text too, not
        # the locale's reading (\udcc3\udca9, or Ã©) (fixlocale37 #2)
        text = done.stdout.decode(encoding, "replace")  # (pytest's node ids: raw bytes)
        shown = "ev/scenario_" + ("\\xe9" if encoding == "ascii" else "é") + "2/trajectory.json"
        said = f"{shown}: invalid JSON: Expecting value"
        assert f"\n{said}" in text  # the failure text
        assert f"\n  {said}" in text  # the structeval summary
        assert f"] - {shown[:20]}" in text  # pytest's short summary (cut to the width)
        assert "\\udc" not in text
    essai = "essai-\\xe9" if encoding == "ascii" else "essai-?"  # (é, as ASCII decodes it)
    for name in ("\\u8fd0\\u884c-1", "\\u8fd0\\u884c-1-2", essai):  # (the third run fails)
        assert f"PASSED ev/scenario_1::1[{name}]" in out.replace("\ufffd", "?")
    assert _report_files(tmp_path / "reports" / "structeval") == _expected_files(encoding)


# --------------------------------------------------------------------------- ids from names


@pytest.mark.parametrize(
    ("encoding", "listed", "text"),
    [
        ("utf-8", "é1", "é1"),
        ("utf-8", "\udce91", "\\xe91"),  # no UTF-8: its byte as an escape
        ("latin-1", "Ã©1", "é1"),  # é's UTF-8 bytes, read as ISO-8859-1 reads them
        ("latin-1", "é1", "\\xe91"),  # é's ISO-8859-1 byte: no UTF-8
        ("ascii", "\udcc3\udca91", "é1"),  # é's UTF-8 bytes, undecodable in ASCII
        ("ascii", "\udce91", "\\xe91"),
        ("ascii", "运行", "运行"),  # not from the disk (ASCII cannot encode it): text already
    ],
)
def test_a_name_reads_as_its_utf8_bytes_under_every_locale(
    monkeypatch: pytest.MonkeyPatch, encoding: str, listed: str, text: str
) -> None:
    """A scenario id taken from a folder name was the locale's reading of its bytes:
    ``scenario_é1`` was ``Ã©1`` under ISO-8859-1 and lone surrogates under ASCII, so its
    trajectories did not join and a UTF-8 run's baseline did not match (runtimeflags34 #3)."""
    monkeypatch.setattr(os, "fsencode", lambda name: name.encode(encoding, "surrogateescape"))
    assert naming.name_text(listed) == text
    assert naming.name_text("scenario_1") == "scenario_1"
    assert id_key(text) == id_key(naming.name_text(listed))
    assert id_key("\udce91") == id_key("\\xe91") == "\\xe91"  # a listing's id in a record


def _utf8_named_tree(root: Path) -> None:
    """Scenario ``é1`` (a UTF-8 folder name), joined by a record's ``scenario_id`` and by a
    file stem, and a folder whose name is no UTF-8 (ISO-8859-1's ``é``), made from bytes so
    the test's own locale does not matter. ``é1``'s gold and schema files repeat a key: a
    ``GoldWarning`` and a ``SchemaWarning`` naming them."""
    base = os.fsencode(root)
    for folder in (
        b"ev/scenario_\xc3\xa91",
        b"ev/scenario_\xe92",
        b"ev/scenario_\xc3\xa93",
        b"runs",
    ):
        os.makedirs(os.path.join(base, folder))
    files = {
        b"ev/scenario_\xc3\xa91/groundtruth.json": b'{"a": 1,\n "a": 1}',
        b"ev/scenario_\xc3\xa91/scenario.yaml": b"mode: schema\nschema: s.json\n",
        b"ev/scenario_\xc3\xa91/s.json": b'{"type": "object",\n "type": "object"}',
        b"ev/scenario_\xe92/groundtruth.json": b'{"a": 1}',
        b"ev/scenario_\xe92/trajectory.json": b'{"run_id": "r2", "answer": {"a": 1}}',
        b"runs/runs.jsonl": b'{"run_id": "t1", "scenario_id": "\\u00e91", "answer": {"a": 1}}\n',
        b"runs/\xc3\xa91.json": b'{"answer": {"a": 1}}',
        b"ev/scenario_\xc3\xa93/groundtruth.json": b'{"a": 1}',  # (no run: an unmatched one)
    }
    for name, data in files.items():
        with open(os.path.join(base, name), "wb") as handle:
            handle.write(data)


@pytest.mark.parametrize(("variables", "encoding"), LOCALES)
def test_scenario_ids_from_folder_names_are_the_same_under_a_legacy_locale(
    tmp_path: Path, variables: tuple[tuple[str, str], ...], encoding: str, locales: Path
) -> None:
    env = _legacy_env(variables, encoding, locales)
    _utf8_named_tree(tmp_path)
    baseline = str(tmp_path / "baseline.json")

    def evaluate(environ: dict[str, str], reports: str, *more: str) -> tuple[bytes, bytes, Any]:
        command = [sys.executable, "-m", "pytest_structeval.cli", "evaluate", "--scenarios",
                   "ev", "--trajectories", "runs", "--reports-dir", reports, *more]  # fmt: skip
        done = subprocess.run(
            command, cwd=tmp_path, env=environ, capture_output=True, check=False, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        aggregate = (tmp_path / reports / AGGREGATE_NAME).read_bytes()
        assert b"\\ud" not in aggregate  # no lone surrogate: "\udcc3" or the like
        return done.stdout, done.stderr, json.loads(aggregate)

    utf8 = {**os.environ, "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"}
    _, _, first = evaluate(utf8, "rep-utf8", "--save-baseline", baseline)
    out, err, legacy = evaluate(env, "rep-legacy", "--baseline", baseline, "--fail-on-regression")
    e = "\\xe9" if encoding == "ascii" else "é"  # (é where ASCII cannot write it: escaped)
    # The warnings say é1's files as the summary and the reports do (fixwarn37 #3)
    assert f"ev/scenario_{e}1/groundtruth.json repeats the key answer.a".encode(encoding) in err
    assert f"ev/scenario_{e}1/s.json repeats the key 'type'".encode(encoding) in err
    assert b"\\ud" not in err  # (was ev/scenario_\udcc3\udca91/groundtruth.json)
    assert b"runs 3 | passed 3" in out
    assert b"unmatched trajectories: 0" in out
    assert b"unchanged 3, new 0, missing 0" in out
    for aggregate in (first, legacy):
        ids = sorted((r["scenario_id"], r["run_id"]) for r in aggregate["results"])
        assert ids == [("\\xe92", "r2"), ("é1", "t1"), ("é1", "é1")]
    _assert_paths_are_text(tmp_path / "rep-legacy")
    # pytest, serially (pytest-xdist cannot send such a node id: execnet's DumpError)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
               "--structeval-scenarios", "ev", "--structeval-trajectories", "runs"]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    for warned in ("groundtruth.json:1: GoldWarning", "s.json:1: SchemaWarning"):
        said = warned.partition(":")[0] + " repeats the key"  # (at a path relative to rootdir)
        shown = f"  ev/scenario_\xc3\xa91/{warned}: ev/scenario_{e}1/{said}"
        assert shown.encode("latin-1", "backslashreplace") in done.stdout, done.stdout
    nodeids = _assert_paths_are_text(tmp_path / "reports" / "structeval")
    assert sorted(nodeids) == sorted(
        [
            "ev/scenario_\\xe92::\\xe92[r2]",
            f"ev/scenario_é1::{e}1[t1]",
            f"ev/scenario_é1::{e}1[{e}1]",
        ]
    )


def _assert_paths_are_text(reports: Path) -> list[str]:
    """The paths in the reports in ``reports`` (``_utf8_named_tree``'s) as their UTF-8 bytes
    spell them, never a lone surrogate nor ISO-8859-1's reading (runs' ``source`` and
    ``scenario_path``, the notes' paths, node ids' paths); the runs' node ids."""
    files = sorted(reports.glob("*.json"))
    for path in files:
        text = path.read_bytes().decode("utf-8")
        assert "\\ud" not in text  # (a lone surrogate's escape)
        assert "Ã" not in text  # (é's UTF-8 bytes as ISO-8859-1 reads them)
    aggregate = json.loads((reports / AGGREGATE_NAME).read_bytes())
    runs = [json.loads(path.read_bytes()) for path in files if path.name != AGGREGATE_NAME]
    assert sorted((r["source"], r["scenario_path"]) for r in runs) == [
        ("ev/scenario_\\xe92/trajectory.json", "ev/scenario_\\xe92"),
        ("runs/runs.jsonl:1", "ev/scenario_é1"),
        ("runs/é1.json", "ev/scenario_é1"),
    ]
    assert [s["path"] for s in aggregate["unmatched"]["scenarios"]] == ["ev/scenario_é3"]
    return [r["nodeid"] for r in runs if r["nodeid"] is not None]
