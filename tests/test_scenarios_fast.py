"""Discovery's fast paths give exactly what the plain ways of doing the same thing give.

``files.read_text`` (raw descriptor reads, BOM by hand) against
``open().read().decode("utf-8-sig")``, ``_json_value`` (orjson first) against ``json.loads``,
``id_key``'s one-segment shortcut against the segment-wise rule, the empty-config
``_Settings`` shortcut against the general path, and a whole :func:`plan` on a tree full of
odd and broken files against the same plan forced through the plain readers.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_structeval import scenarios
from pytest_structeval.files import TooLarge, read_text
from pytest_structeval.parse import decimal_number, digit_run
from pytest_structeval.scenarios import _json_value, _Root, _Settings, id_key, plan

BOM = b"\xef\xbb\xbf"


def plain_read(path: str, limit: int) -> str:
    """The reference: a file object, ``fstat`` for the limit, the ``utf-8-sig`` codec."""
    with open(path, "rb", buffering=0) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise TooLarge(f"{size} bytes, over the {limit} byte limit")  # (a ValueError)
        data = handle.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # (read_text says what a UTF-16 file is)
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # (little-endian: PowerShell's)
            how = " (as Windows PowerShell's > writes it)" if data[:1] == b"\xff" else ""
            exc.reason += f": the file is UTF-16{how}: save it as UTF-8"
            raise
        if b"\0" not in data:
            raise
        text = "\0"
    if "\0" in text:  # (and what one without a byte-order mark most likely is)
        at = data.index(b"\0")
        told = "a NUL byte: the file looks like UTF-16 without a byte-order mark (or is not text)"
        raise UnicodeDecodeError("utf-8", data, at, at + 1, told + ": save it as UTF-8")
    return text


def outcome(fn: Any, *args: Any) -> tuple[str, str]:
    """``("ok", repr(value))`` or ``(exception type, message)``: NaN-safe, comparable."""
    try:
        return "ok", repr(fn(*args))
    except Exception as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"42",
        BOM,
        BOM + b'{"a": 1}',
        BOM + BOM + b"x",
        b"caf\xc3\xa9 \xe2\x82\xac",
        b"\xff\xfe bad",
        BOM + b" ok \xff",
        b"ok \xc3",  # truncated sequence at the end
        b"x" * 200_000,  # more than one read's worth
        b"\r\n\x00 bytes",
        b"\xff\x00 bad and NUL",
    ],
)
def test_read_text_matches_a_file_object(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    for limit in (10**9, 3):
        assert outcome(read_text, str(path), limit) == outcome(plain_read, str(path), limit)


def test_read_text_errors_read_like_open(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for name in ("folder", "missing", "dangling"):
        path = str(tmp_path / name)
        got = outcome(read_text, path, 100)
        assert got[0] in {"IsADirectoryError", "FileNotFoundError"}
        assert got == outcome(plain_read, path, 100)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_read_text_reads_files_whose_size_is_unknown() -> None:
    # st_size is 0: the first read is short of the content, the rest follows.
    text = read_text("/proc/self/status", 10**6)
    assert text.startswith("Name:")
    assert len(text) > 100


def test_read_text_of_a_file_that_changes_size_between_calls(tmp_path: Path) -> None:
    path = tmp_path / "grows.txt"
    for size in (0, 1, 5, 70_000):
        path.write_bytes(b"a" * size)
        assert read_text(str(path), 10**6) == "a" * size


# --------------------------------------------------------------------------- JSON

_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec=None), max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(_json_values, st.booleans())
def test_json_value_equals_json_loads_on_documents(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)  # NaN, Infinity, lone surrogates too
    assert outcome(_json_value, text) == ("ok", repr(json.loads(text)))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]:,"\\ 0123456789.eE+-truefalsnNIiy\x01\t', max_size=24))
@example("1E309")  # (hypothesis found it: json.loads reads inf)
def test_json_value_equals_json_loads_on_any_text(text: str) -> None:
    # (a number past the float range, 1E309, is the integer it writes: property29)
    expected = outcome(functools.partial(json.loads, parse_float=decimal_number), text)
    got = outcome(_json_value, text)
    if expected[0] == "ok":
        assert got == expected
    else:
        assert got == ("ValueError", f"invalid JSON: {expected[1]}")


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["0", "9", "1" * 9, "٣", "１", "[", "{", "-", " ", "é", "\ud800", "𝟗"]),
        max_size=30,
    )
)
def test_digit_run_is_nineteen_ascii_digits_in_a_row(parts: list[str]) -> None:
    """The byte mask tells what ``[0-9]{19}`` does: non-ASCII digits, surrogates and
    multi-byte characters break a run."""
    text = "".join(parts)
    assert digit_run(text) == (re.search("[0-9]{19}", text) is not None)


@pytest.mark.parametrize(
    "text",
    [
        "18446744073709551616",
        "-9223372036854775809",
        "[9999999999999999999, -9999999999999999999]",
        '{"n": 123456789012345678901234567890}',
        "1e400",
        "-1e400",
        "NaN",
        '"\\ud800"',
        "1.0e-400",
        "0.1",
        "1" * 5000,
    ],
)
def test_json_value_keeps_what_orjson_would_change(text: str) -> None:
    # (a number past the float range is the integer it writes, as in an answer: property29)
    expected = outcome(functools.partial(json.loads, parse_float=decimal_number), text)
    if expected[0] == "ok":
        assert outcome(_json_value, text) == expected
    else:
        assert outcome(_json_value, text)[0] == "ValueError"


@pytest.mark.parametrize("prefix", ["", '{"n": 123456789012345678901234567890, "v": '])
def test_json_nested_past_the_bound_is_refused_on_every_python(prefix: str) -> None:
    """Python 3.12 and later decode 2,000 levels where 3.11 raised RecursionError: the bound
    is the reader's own (``MAX_DEPTH``, as for YAML), with or without orjson's fast path."""
    deep = prefix + "[" * 2000 + "]" * 2000 + ("}" if prefix else "")
    with pytest.raises(ValueError, match=r"^invalid JSON: nested too deeply$"):
        _json_value(deep)
    shallow = prefix + "[" * 900 + "]" * 900 + ("}" if prefix else "")
    assert _json_value(shallow) == json.loads(shallow)


# --------------------------------------------------------------------------- ids and settings


def segment_wise_id_key(raw: str) -> str:
    """The rule as documented, one segment at a time (no shortcut)."""
    text = unicodedata.normalize("NFC", raw.strip())
    match = re.fullmatch(r"scenario_(.+)", text, re.IGNORECASE | re.DOTALL)
    if match:
        text = match.group(1)
    return "/".join(
        (seg.lstrip("0") or "0") if re.fullmatch(r"[0-9]+", seg) else seg for seg in text.split("/")
    )


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789/ _aSsCENARIO٣²\u0301é\n", max_size=16))
def test_id_key_equals_the_segment_wise_rule(raw: str) -> None:
    assert id_key(raw) == segment_wise_id_key(raw)


def test_empty_config_settings_equal_the_general_path(tmp_path: Path) -> None:
    where = _Root.of(tmp_path)

    def fields(config: dict[str, Any]) -> dict[str, Any]:
        errors: list[str] = []
        used: list[str] = []
        made = _Settings(config, str(tmp_path), where, errors, used)
        values = {name: getattr(made, name) for name in _Settings.__slots__}
        return {**values, "errors": list(errors), "used": list(used)}

    shortcut = fields({})
    general = fields({"unrelated": 1})  # not empty: every check runs, none applies
    assert shortcut == general
    assert shortcut["options"] is not fields({})["options"]  # each scenario owns its options


# --------------------------------------------------------------------------- whole trees


def build_odd_tree(base: Path) -> None:
    """Scenario folders and files with every kind of odd or broken content."""

    def put(rel: str, data: str | bytes) -> None:
        path = base / "scen" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")

    run = {"run_id": "r", "answer": "1"}
    put("scenario_1/groundtruth.txt", "42")
    put("scenario_1/trajectory.json", json.dumps(run))
    put("scenario_2/groundtruth.json", BOM + b'{"a": 1}')
    put("scenario_2/Trajectory_A.json", json.dumps({**run, "run_id": "x"}))
    put(
        "scenario_2/trajectory_b.jsonl",
        "\n".join([json.dumps(run), "", "{bad", "[1]", '{"foo": 1}', '{"run_id": [1]}']),
    )
    put("scenario_3/groundtruth.json", '{"big": 123456789012345678901234567890, "nan": NaN}')
    put("scenario_3/trajectory.json", '{"run_id": "b", "answer": {"n": 99999999999999999999}}')
    put("scenario_4/groundtruth.txt", b"\xff\xfe bad utf8")
    put("scenario_5/groundtruth.txt", BOM + b" ok \xff")
    put("scenario_6/groundtruth.txt", "   ")
    put("scenario_7/groundtruth.txt", "1")
    put("scenario_7/groundtruth.json", "1")
    put(
        "scenario_8/scenario.yaml",
        "scorer: similarity\nthreshold: 0.5\nexpected_answer: '{\"a\": 1}'\n"
        "schema: sub\ntrajectories: [runs, missing.json]\n",
    )
    put("scenario_8/sub/readme.md", "a folder given as the schema file")
    put("scenario_8/runs/a.json", json.dumps({**run, "run_id": "8a"}))
    put("scenario_8/runs/deeper/b.jsonl", json.dumps({**run, "run_id": "8b"}))
    put("scenario_9/turns/01/groundtruth.txt", "1")
    put("scenario_9/turns/02/groundtruth.yaml", "a: 2024-01-01\n")
    put("scenario_9/turns/10/groundtruth.yaml", "a: &x [1]\nb: *x\n")
    put("scenario_9/turns/2/question.txt", "q?")
    put("scenario_10/.hidden/groundtruth.txt", "1")
    put("scenario_10/__pycache__/groundtruth.txt", "1")
    put("Scenario_011/GroundTruth.TXT", "{}")
    put("scenario_12/characteristic_form.txt", "rubric")
    for name in ("x2", "x10", "X1", "ß", "ss"):
        put(f"scenario_{name}/groundtruth.txt", name)
    put("my_scenarios.jsonl", '{"id": 20, "expected_answer": "1"}\n{"id": 20}\nnot json\n')
    put("all_scenarios.yaml", "- id: 21\n  expected_answer: {a: 1}\n- 5\n")
    put("bad_scenarios.json", "")
    put("nested/deeper/scenario_30/groundtruth.txt", "3")
    put("nested/deeper/scenario_30/trajectory.jsonl", BOM + json.dumps(run).encode())
    put("scenario_32/groundtruth.json", "[" * 3000 + "]" * 3000)
    put("scenario_33/scenario.yaml", "mode: strict\nscorer: similarity\noptions: [1]\ntype: 5\n")
    put("scenario_33/groundtruth.txt", "1")
    put("scenario_34/groundtruth.txt", "1")
    put("scenario_34/trajectory.json", "")
    scen = base / "scen"
    (scen / "scenario_40").symlink_to(scen / "scenario_1")  # the same folder twice
    (scen / "nested" / "loop").symlink_to(scen)  # a symlink loop
    (scen / "scenario_41").symlink_to(scen / "nope")  # dangling
    put("scenario_42/groundtruth.txt", "1")
    (scen / "scenario_42" / "question.txt").symlink_to(scen / "missing.txt")
    ext = base / "ext"
    (ext / "a").mkdir(parents=True)
    (ext / "a" / "20.json").write_text(json.dumps({"run_id": "e1", "answer": "1"}))
    (ext / "a" / "scenario_21.jsonl").write_text(
        json.dumps({"run_id": "e2", "answer": "1"}) + '\n{"scenario_id": "011", "answer": 1}\nxx\n'
    )
    (ext / "c.json").write_text(json.dumps({"run_id": "orphan", "scenario_id": "999"}))


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_plan_equals_the_plan_through_the_plain_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_odd_tree(tmp_path)
    runs = [
        (["scen"], ["ext"], str(tmp_path)),
        ([str(tmp_path / "scen")], [str(tmp_path / "ext")], None),
    ]
    fast = [repr(plan(s, t, root=r)) for s, t, r in runs]

    monkeypatch.setattr(scenarios, "read_text", plain_read)
    monkeypatch.setattr(scenarios, "digit_run", lambda text: True)  # always json.loads
    monkeypatch.setattr(scenarios, "id_key", segment_wise_id_key)
    monkeypatch.setattr(scenarios, "natural_key", scenarios.natural_key.__wrapped__)
    plain = [repr(plan(s, t, root=r)) for s, t, r in runs]
    assert fast == plain

    # The tree does exercise the odd cases (a silent skip would compare equal too).
    result = plan(["scen"], ["ext"], root=tmp_path)
    errors = {e["source"]: e["error"] for e in result.errors}
    assert "position 0: invalid start byte" in errors["scen/scenario_4"]
    assert "position 4: invalid start byte" in errors["scen/scenario_5"]
    assert errors["scen/scenario_32"] == "groundtruth.json: invalid JSON: nested too deeply"
    assert "No such file or directory" in errors["scen/scenario_42"]
    assert errors["scen/scenario_34/trajectory.json"].startswith("invalid JSON")
    gold = {run.scenario.id: run.scenario.gold for run in result.runs}
    assert gold["2"] == {"a": 1}
    assert gold["3"]["big"] == 123456789012345678901234567890
    assert math.isnan(gold["3"]["nan"])
    answers = {run.trajectory.run_id: run.trajectory.answer for run in result.runs}
    assert answers["b"] == {"n": 99999999999999999999}
    schema_error = next(r for r in result.runs if r.scenario.id == "8").scenario.error
    assert schema_error is not None
    assert "Is a directory" in schema_error


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-16-le"])
def test_a_utf16_file_is_told_as_such(tmp_path: Path, codec: str) -> None:
    """Review messages29 #10: a gold, config or schema saved as UTF-16 (PowerShell's ``>``)
    read "can't decode byte 0xff in position 0" and no more."""
    from pytest_structeval.schema import load_schema

    path = tmp_path / "groundtruth.json"
    bom = b"\xfe\xff" if codec == "utf-16-be" else b"\xff\xfe"
    path.write_bytes((b"" if codec == "utf-16" else bom) + '{"a": 1}'.encode(codec))
    told = r"the file is UTF-16( \(as Windows PowerShell.s > writes it\))?: save it as UTF-8$"
    with pytest.raises(UnicodeDecodeError, match=told):
        read_text(str(path), 1000)
    schema = tmp_path / "schema.json"
    schema.write_bytes(path.read_bytes())
    with pytest.raises(ValueError, match="the file is UTF-16"):
        load_schema(schema)
    path.write_bytes(b'\xff{"a": 1}')  # not UTF-16: the codec's words alone
    with pytest.raises(UnicodeDecodeError, match=r"invalid start byte$"):
        read_text(str(path), 1000)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("name", ["groundtruth.txt", "question.txt", "trajectory.jsonl"])
def test_a_utf16_file_without_a_byte_order_mark_is_told_as_such(
    tmp_path: Path, codec: str, name: str
) -> None:
    """Review portability33 #7: without a BOM, UTF-16 of ASCII text is valid UTF-8 full of
    NULs: a gold read as ``"{\\u0000\"\\u0000a..."`` and a JSONL line as invalid JSON, the
    encoding never named. No text input holds a NUL."""
    folder = tmp_path / "scenario_1"
    folder.mkdir()
    (folder / "groundtruth.json").write_text('{"a": 1}')
    record = '{"run_id": "r", "answer": {"a": 1}}\r\n'
    (folder / "trajectory.json").write_text(record)
    content = {"trajectory.jsonl": record}.get(name, "Pump 6 tripped.\r\n")
    if name == "groundtruth.txt":
        (folder / "groundtruth.json").unlink()
    (folder / name).write_bytes(content.encode(codec))
    told = "a NUL byte: the (file|line) looks like UTF-16 without a byte-order mark"
    result = plan([folder])
    errors = [str(e.get("error")) for e in result.notes()["errors"]]
    errors += [str(r.scenario.error) for r in result.runs if r.scenario.error]
    errors += [str(r.trajectory.error) for r in result.runs if r.trajectory.error]
    assert any(re.search(told, error) for error in errors), errors
    with pytest.raises(UnicodeDecodeError, match=told):
        read_text(str(folder / name), 1000)
    (folder / "x.txt").write_bytes("Pumpe ß".encode(codec))  # (not UTF-8 either)
    with pytest.raises(UnicodeDecodeError, match=told):
        read_text(str(folder / "x.txt"), 1000)
