"""The fast paths of scenario runs behave exactly like the general code they short-cut.

Report files skipped when unchanged and written through fixed temporary names, item locations
computed without pytest's helper, records shipped across pytest-xdist as JSON text, records
added to the aggregate without a copy, and schema mode's built-ins installed on first use.
"""

from __future__ import annotations

import json
import math
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from pytest_structeval.registry import Registry, _Table, default_registry, install_builtins
from pytest_structeval.report import AGGREGATE_NAME, Aggregate, RunRecord, write_reports
from pytest_structeval.session import _ship, _unship
from tests.plugin_support import AGGREGATE, comparable, scenario, trajectory

SERIAL = ("-p", "no:cacheprovider", "-p", "no:xdist")


def run_record(run_id: str, score: float = 1.0, **fields: Any) -> RunRecord:
    """A finished run of scenario ``<run_id up to the first dash>``; ``fields`` override."""
    values: dict[str, Any] = {
        "scenario_id": run_id.split("-")[0],
        "scenario_type": None,
        "run_id": run_id,
        "runner": "react",
        "model": "gpt-4o",
        "question": "q",
        "answer": '{"a": 1}',
        "scorer": "strict",
        "passed": score == 1.0,
        "score": score,
        "rationale": "r",
        "details": {"mode": "strict", "f1": score, "details": []},
        "ops": {"tokens_in": 3, "tokens_out": 1, "duration_ms": None, "est_cost_usd": None},
    }
    return RunRecord(**{**values, **fields})


def filled(*records: RunRecord | dict[str, Any]) -> Aggregate:
    aggregate = Aggregate.empty()
    for record in records:
        aggregate.add(record)
    return aggregate


# --------------------------------------------------------------------------- report files


def test_rewriting_the_same_reports_leaves_files_alone_and_replaces_changed_ones(
    tmp_path: Path,
) -> None:
    first = write_reports(tmp_path, filled(run_record("1-a"), run_record("2-b")), generated_at="T")
    stats = {p.name: os.stat(p) for p in first.run_files}
    time.sleep(0.01)  # a rewrite would move st_mtime_ns even on coarse clocks

    write_reports(tmp_path, filled(run_record("1-a"), run_record("2-b")), generated_at="T")
    for path in first.run_files:
        after = os.stat(path)
        assert (after.st_ino, after.st_mtime_ns) == (
            stats[path.name].st_ino,
            stats[path.name].st_mtime_ns,
        )

    write_reports(tmp_path, filled(run_record("1-a"), run_record("2-b", 0.5)), generated_at="T")
    changed = json.loads((tmp_path / "2-b.json").read_text("utf-8"))
    assert changed["score"]["score"] == 0.5
    assert os.stat(tmp_path / "2-b.json").st_mtime_ns != stats["2-b.json"].st_mtime_ns
    assert os.stat(tmp_path / "1-a.json").st_ino == stats["1-a.json"].st_ino
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_stale_temporary_files_do_not_break_or_corrupt_a_write(tmp_path: Path) -> None:
    """A temporary file left by a killed process with this pid is side-stepped, not reused."""
    pid = os.getpid()
    stale = [tmp_path / f".{name}.{pid}.tmp" for name in ("1-a.json", AGGREGATE_NAME)]
    for path in stale:
        path.write_bytes(b"left over")
    written = write_reports(tmp_path, filled(run_record("1-a", 0.25)), generated_at="T")

    record = json.loads((tmp_path / "1-a.json").read_text("utf-8"))
    assert record["score"]["score"] == 0.25
    aggregate = json.loads((tmp_path / AGGREGATE_NAME).read_text("utf-8"))
    assert aggregate == written.report
    assert aggregate["results"][0]["report"] == "1-a.json"
    hidden = sorted(p for p in tmp_path.iterdir() if p.name.startswith("."))
    assert hidden == sorted(stale)  # nothing new left behind; others' files untouched
    assert all(p.read_bytes() == b"left over" for p in stale)


@pytest.mark.skipif(os.name != "posix", reason="file modes and umask are POSIX")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
@pytest.mark.parametrize("stale", [False, True], ids=["fresh", "side-stepped"])
def test_report_files_get_the_mode_the_umask_allows(
    tmp_path: Path, umask: int, stale: bool
) -> None:
    """Reports are artefacts others read (CI uploads, a shared folder): the umask decides, as
    for any file the user's tools write, not a temporary file's owner-only 0600."""
    if stale:
        (tmp_path / f".1-a.json.{os.getpid()}.tmp").write_bytes(b"left over")
    old = os.umask(umask)
    try:
        write_reports(tmp_path, filled(run_record("1-a")), generated_at="T")
    finally:
        os.umask(old)
    for name in ("1-a.json", AGGREGATE_NAME):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o666 & ~umask, name


# --------------------------------------------------------------------------- records


def test_untrusted_records_are_made_plain_and_copied() -> None:
    class Opaque:
        def __str__(self) -> str:
            return "opaque"

    raw: dict[Any, Any] = {
        "scenario_id": "1",
        "run_id": "r",
        "answer": (1, float("nan"), {2: Opaque()}),
        "score": MappingProxyType({"score": 1.0, "passed": True, "details": {"f1": math.inf}}),
        "ops": {"tokens_in": 2},
    }
    # A mapping that is not a dict is no to_dict() result: copied even when called trusted.
    for record, trusted in ((raw, False), (MappingProxyType(raw), True)):
        aggregate = Aggregate.empty()
        aggregate.add(record, trusted=trusted)
        (kept,) = aggregate.records
        assert kept["answer"] == [1, "nan", {"2": "opaque"}]
        assert kept["score"] == {"score": 1.0, "passed": True, "details": {"f1": "inf"}}
        json.dumps(kept, allow_nan=False)

    plain_dict = run_record("1-a").to_dict()
    copied = Aggregate.empty()
    copied.add(plain_dict)
    plain_dict["score"]["score"] = 0.0  # the caller changes its dict afterwards
    assert copied.records[0]["score"]["score"] == 1.0


def test_trusted_records_give_the_same_report() -> None:
    records = [
        run_record("2-b", 0.5).to_dict(),
        run_record("1-a").to_dict(),
        run_record("1-a", 0.0).to_dict(),
    ]
    copied, trusted = Aggregate.empty(), Aggregate.empty()
    for record in records:
        copied.add(record)
        trusted.add(record, trusted=True)
    assert trusted.records[0] is records[0]  # kept as it is, not copied
    assert trusted.report("T") == copied.report("T")
    assert trusted.ordered() == copied.ordered()


def test_to_dict_converts_only_what_is_not_plain_already() -> None:
    odd = run_record(
        "1-a",
        details={"mode": "strict", "pairs": (1, 2), 3: "x", "f1": float("-inf")},
    )
    data = odd.to_dict()
    assert data["score"]["details"] == {"mode": "strict", "pairs": [1, 2], "3": "x", "f1": "-inf"}
    assert data["answer"] == '{"a": 1}'
    json.dumps(data, allow_nan=False)
    nested = run_record("1-b", details={"deep": [[{"k": [1.5, {"n": None}]}]]}).to_dict()
    assert nested["score"]["details"] == {"deep": [[{"k": [1.5, {"n": None}]}]]}
    assert RunRecord.from_dict(nested).to_dict() == nested


def test_report_figures_skip_numbers_no_float_can_hold() -> None:
    huge = run_record("1-a", ops={"tokens_in": 10**400, "tokens_out": 7, "duration_ms": 5})
    report = filled(huge, run_record("2-b")).report("T")
    assert report["ops"]["tokens_in_total"] == 10**400 + 3  # counts add exactly, as ints
    assert report["ops"]["tokens_out_total"] == 8
    assert report["ops"]["duration_ms_p50"] == 5.0


def test_records_of_one_run_are_ordered_by_content_whatever_the_arrival() -> None:
    same = [run_record("1-a", score) for score in (0.5, 0.25, 1.0)]
    forward = filled(*same).ordered()
    backward = filled(*reversed(same)).ordered()
    assert forward == backward
    assert [name for _, name in forward] == ["1-a.json", "1-a-1.json", "1-a-2.json"]


# --------------------------------------------------------------------------- xdist transport


@pytest.mark.parametrize(
    "value",
    [
        [{"a": 1.1, "b": [True, None, "é"], "c": -0.0, "d": 2**63 - 1}],
        [{"big": 10**30, "small": -(2**64)}],  # beyond orjson's 64 bits
        [{"text": "lone \ud800 surrogate"}],
        {"nested": [[[[[]]]]] * 3, "n": 1e-320},
    ],
)
def test_shipped_text_round_trips_exactly(value: Any) -> None:
    text = _ship(value)
    assert isinstance(text, str)
    back = _unship(text)
    assert back == value
    assert json.dumps(back) == json.dumps(value)  # same types: ints stay ints


def test_deep_values_fall_back_to_the_standard_library() -> None:
    deep: Any = 1
    for _ in range(300):  # orjson stops at 254 levels
        deep = [deep]
    assert _unship(_ship(deep)) == deep


# --------------------------------------------------------------------------- pytest runs

LOCATION_CONFTEST = """
import json
from pathlib import Path

import pytest


def pytest_collection_modifyitems(config, items):
    pairs = [[list(item.location), list(pytest.Item.location.func(item))] for item in items]
    Path(config.rootpath, "locations.json").write_text(json.dumps(pairs))
"""


def test_item_location_is_what_pytest_computes(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(LOCATION_CONFTEST)
    inside = pytester.path / "evals"
    scenario(inside, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(inside, "scenario_2/turns/01", '{"a": 1}', trajectory("r2", '{"a": 1}'))
    scenario(inside, "deeper/more/scenario_3", '{"a": 1}', trajectory("r3", '{"a": 2}'))
    outside = tmp_path_factory.mktemp("outside")
    scenario(outside, "scenario_4", '{"a": 1}', trajectory("r4", '{"a": 1}'))
    # a folder beside rootdir whose name starts with rootdir's: outside it all the same
    sibling = pytester.path.with_name(pytester.path.name + "-beside")
    scenario(sibling, "scenario_5", '{"a": 1}', trajectory("r5", '{"a": 1}'))
    result = pytester.runpytest(
        *SERIAL,
        *("--structeval-scenarios", "evals"),
        *("--structeval-scenarios", str(outside), "--structeval-scenarios", str(sibling)),
    )
    result.assert_outcomes(passed=4, failed=1)
    pairs = json.loads((pytester.path / "locations.json").read_text("utf-8"))
    assert len(pairs) == 5
    assert all(ours == pytests for ours, pytests in pairs)
    paths = sorted(ours[0] for ours, _ in pairs)
    assert paths[-1] == os.path.join("evals", "scenario_2", "turns", "01")
    assert os.path.join("..", f"{pytester.path.name}-beside", "scenario_5") in paths
    assert any(p.startswith("..") and p.endswith("scenario_4") for p in paths)


LOGREPORT_CONFTEST = """
import json
from pathlib import Path

SEEN = Path(__file__).parent / "seen"
WORKER = []


def pytest_configure(config):
    # Not the PYTEST_XDIST_WORKER variable: an outer xdist run passes it on to this one.
    WORKER.append(hasattr(config, "workerinput"))


def pytest_runtest_logreport(report):
    if WORKER[-1] or report.when != "call":
        return
    records = report.__dict__.get("structeval")
    SEEN.mkdir(exist_ok=True)
    entry = {"type": type(records).__name__, "records": records}
    if isinstance(records, list):
        entry["types"] = sorted({type(r).__name__ for r in records})
    name = report.nodeid.replace("/", "_").replace(":", "_")
    (SEEN / f"{name}.json").write_text(json.dumps(entry))
"""


@pytest.mark.parametrize("workers", [None, "2"])
def test_hooks_see_plain_records_and_workers_give_the_serial_aggregate(
    pytester: pytest.Pytester, workers: str | None
) -> None:
    """Records reach other plugins' hooks as lists of dicts, under pytest-xdist too, also
    when a record needs the standard library's JSON (an integer beyond 64 bits)."""
    if workers is not None:
        pytest.importorskip("xdist")
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(LOGREPORT_CONFTEST)
    sc = pytester.path / "sc"
    scenario(sc, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(sc, "scenario_2", '{"a": 1}', trajectory("r2", '{"a": 2}'))
    big = '{"id": 123456789012345678901234567890}'
    scenario(sc, "scenario_3", big, trajectory("r3", big), trajectory("r4", '{"id": 1}'))
    args = ("--structeval-scenarios", "sc")
    serial = pytester.runpytest_subprocess(*SERIAL, *args)
    serial.assert_outcomes(passed=2, failed=2)
    expected = comparable(pytester.path)
    run_four = expected["files"]["r4.json"]["score"]["details"]["details"][0]
    assert run_four["gold_value"] == 123456789012345678901234567890
    if workers is None:
        seen_runs = sorted((pytester.path / "seen").iterdir())
    else:
        for path in (pytester.path / "seen").iterdir():
            path.unlink()
        (pytester.path / "reports").rename(pytester.path / "serial-reports")
        parallel = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", workers, *args)
        parallel.assert_outcomes(passed=2, failed=2)
        assert comparable(pytester.path) == expected
        seen_runs = sorted((pytester.path / "seen").iterdir())
    assert len(seen_runs) == 4
    by_run = {}
    for path in seen_runs:
        entry = json.loads(path.read_text("utf-8"))
        assert entry["type"] == "list"
        assert entry["types"] == ["dict"]
        (record,) = entry["records"]
        by_run[record["run_id"]] = record
    assert by_run == {name[: -len(".json")]: rec for name, rec in expected["files"].items()}


HEAP_CONFTEST = """
import gc, json, pathlib

def pytest_runtest_call(item):
    gc.collect()
    heap = gc.get_objects()
    folders = sum(1 for o in heap if type(o).__name__ == "_Folder")
    records = sum(
        1 for o in heap if type(o) is dict and type(o.get("score")) is dict and "ops" in o
    )
    with open(pathlib.Path(str(item.config.rootpath)) / "heap.txt", "a") as out:
        out.write(f"{folders} {records}\\n")
"""


def test_the_run_keeps_no_folder_entries_nor_record_trees(pytester: pytest.Pytester) -> None:
    """Once pytest has the items, the index forgets its folders' runs; each phase's records
    leave the report for the session's store as one text. Kept, thousands of them made every
    garbage collection of a run, and the interpreter's at exit, walk them."""
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(HEAP_CONFTEST)
    for i in range(1, 5):
        scenario(pytester.path / "sc", f"scenario_{i}", '{"a": 1}', trajectory(f"r{i}", "{}"))
    result = pytester.runpytest_subprocess(*SERIAL, "--structeval-scenarios", "sc")
    result.assert_outcomes(failed=4)
    heap = (pytester.path / "heap.txt").read_text("utf-8").split()
    assert heap == ["0"] * 8  # (folders, records) before each of the four runs
    report = json.loads((pytester.path / AGGREGATE).read_text("utf-8"))
    assert report["totals"]["scored"] == 4


FREEZE_CONFTEST = """
import gc, json, os, pathlib

SEEN = {}

def pytest_configure(config):
    if os.environ.get("USER_FREEZE") == "1":
        gc.freeze()
    SEEN["configure"] = gc.get_freeze_count()

def pytest_structeval_update_aggregate(config, aggregate):
    SEEN["during"] = gc.get_freeze_count()

def pytest_unconfigure(config):
    SEEN["after"] = gc.get_freeze_count()
    (pathlib.Path(str(config.rootpath)) / "freeze.json").write_text(json.dumps(SEEN))
"""


@pytest.mark.parametrize("user_freeze", [False, True])
def test_the_heap_is_frozen_only_while_the_aggregate_is_built(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, user_freeze: bool
) -> None:
    """Full collections during the session end skip the run's heap; afterwards everything is
    collectable again, and a heap the user froze stays as the user left it."""
    monkeypatch.setenv("USER_FREEZE", "1" if user_freeze else "0")
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(FREEZE_CONFTEST)
    scenario(pytester.path / "sc", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    result = pytester.runpytest_subprocess(*SERIAL, "--structeval-scenarios", "sc")
    result.assert_outcomes(passed=1)
    seen = json.loads((pytester.path / "freeze.json").read_text("utf-8"))
    if user_freeze:  # (frozen objects can still be freed: the count only falls)
        assert seen["configure"] > 10_000
        assert 0.9 * seen["configure"] < seen["after"] <= seen["during"] <= seen["configure"]
    else:
        assert seen["configure"] == seen["after"] == 0
        assert seen["during"] > 10_000  # every object alive when the session ended


# --------------------------------------------------------------------------- registry


def test_schema_builtins_are_not_imported_until_schema_mode_is_used() -> None:
    script = """
import sys
from pytest_structeval import score
from pytest_structeval.registry import default_registry

registry = default_registry()
assert "static_json" in registry.scorers
assert score({"a": 1}, '{"a": 1}').passed
assert not [m for m in sys.modules if m.startswith("pytest_structeval.schema")], "eager"
assert "schema" in registry.scorers
assert "pytest_structeval.schema.builtins" in sys.modules
assert registry.comparators.get("exact").builtin
assert score({"a": 1}, '{"a": 1}', mode="schema").passed
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_prose_readings_mode_answers_and_rapidfuzz_are_imported_when_first_needed() -> None:
    """A run whose answers all parse as data and whose texts all match never compiles the
    prose readings' patterns, mode answers' terms, or loads rapidfuzz (about 80 ms a run)."""
    script = """
import sys
from pytest_structeval import score

LAZY = ("pytest_structeval.modes.prose", "pytest_structeval.modes.car", "rapidfuzz")
assert score({"a": 1, "b": "x"}, '```json\\n{"a": 1, "b": "x"}\\n```').passed
assert score({"a": 1, "b": "x"}, {"a": 1, "b": "x"}, mode="similarity").passed
assert not score({"a": 1}, {"a": 2}).passed
assert not [m for m in LAZY if m in sys.modules], "eager"
counted = score(3, "There are 3 pumps.")
assert counted.passed and counted.parse_method.endswith("count-in-text"), counted
assert "pytest_structeval.modes.prose" in sys.modules
mode = score({"clarification": "Which pump?"}, {"clarification": "Which pump?"}, mode_answers=True)
assert mode.passed and "pytest_structeval.modes.car" in sys.modules, mode
near = score({"a": "pump"}, {"a": "pumps"}, mode="similarity")
assert 0.5 < near.score < 1 and "rapidfuzz" in sys.modules, near
from pytest_structeval.modes import abstention, note_prose

assert abstention("I don't know.") and note_prose.__module__ == "pytest_structeval.modes.prose"
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_pyyaml_is_imported_for_the_first_yaml_file_only(tmp_path: Path) -> None:
    """Scenarios of text and JSON files never load PyYAML (about 20 ms a run); a YAML
    gold does, where it is read."""
    scenario(tmp_path / "json", "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    (tmp_path / "json" / "scenario_2").mkdir()
    (tmp_path / "json" / "scenario_2" / "groundtruth.json").write_text('{"a": [1]}')
    yaml_folder = tmp_path / "yaml" / "scenario_3"
    yaml_folder.mkdir(parents=True)
    (yaml_folder / "groundtruth.yaml").write_text("a: 1\n")
    script = f"""
import sys
from pytest_structeval.scenarios import plan, score_run

joined = plan([{str(tmp_path / "json")!r}])
assert [score_run(r.scenario, r.trajectory).passed for r in joined.runs] == [True], joined
assert len(joined.scenario_ids) == 2 and "yaml" not in sys.modules, "eager"
(scenario,) = plan([{str(tmp_path / "yaml")!r}]).unmatched_scenarios
assert scenario.gold == {{"a": 1}} and "yaml" in sys.modules, scenario
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_deferred_builtins_list_register_and_protect_as_installed_ones() -> None:
    from pytest_structeval.modes import install as install_modes
    from pytest_structeval.schema.builtins import install as install_schema

    schema_only = Registry()
    install_schema(schema_only)
    assert schema_only.scorers.names() == ["schema"]  # the name the registry defers by
    eager = Registry()
    install_modes(eager)
    install_schema(eager)
    lazy = Registry()
    install_builtins(lazy)
    for kind in ("scorers", "comparators", "transforms"):
        table, expected = getattr(lazy, kind), getattr(eager, kind)
        assert table.names() == expected.names()
        assert [table.get(n) for n in table.names()] == [expected.get(n) for n in table.names()]

    registry = Registry()
    install_builtins(registry)
    with pytest.raises(ValueError, match="cannot be replaced"):
        registry.register_comparator("exact", lambda g, m, p: 1.0)
    with pytest.raises(ValueError, match="already registered"):
        registry.register_scorer("schema", lambda g, m, **o: None)
    custom = Registry()
    install_builtins(custom)

    def mine(gold: Any, model: Any, **options: Any) -> None:
        return None

    custom.register_scorer("schema", mine, overwrite=True)
    assert custom.get_scorer("schema") is mine
    assert custom.comparators.get("exact").builtin  # installing these later keeps mine
    assert custom.get_scorer("schema") is mine
    assert default_registry().get_scorer("schema") is not mine


def test_copies_keep_builtins_deferred_and_install_them_independently() -> None:
    calls: list[str] = []

    def source() -> _Table:
        calls.append("source")
        table = _Table("comparator")
        table.add("late", len, builtin=True)
        return table

    original = _Table("comparator")
    original.defer(None, source)
    copy = original.copy()
    assert calls == []
    assert "late" in copy
    assert calls == ["source"]
    assert original.names() == ["late"]
    assert calls == ["source", "source"]
    named = _Table("scorer")
    named.defer({"late"}, source)
    named.add("early", len)
    assert "early" in named
    assert calls == ["source", "source"]  # a use of other names installs nothing
    assert named.names() == ["early", "late"]


def test_concurrent_first_lookups_install_once_and_all_see_the_builtins() -> None:
    calls: list[int] = []

    def slow_source() -> _Table:
        calls.append(1)
        time.sleep(0.05)  # threads arrive while the first one installs
        table = _Table("transform")
        table.add("slow", len, builtin=True)
        return table

    table = _Table("transform")
    table.defer(None, slow_source)
    found: list[bool] = []
    threads = [threading.Thread(target=lambda: found.append("slow" in table)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [True] * 6
    assert calls == [1]


SCHEMA_CONFTEST = """
from pytest_structeval.results import ScoreResult
from pytest_structeval.schema import ComparatorResult


def same_year(gold, model, params):
    return ComparatorResult(1.0 if str(gold)[:4] == str(model)[:4] else 0.0, "year")


def lenient_schema(gold, model, **options):
    return ScoreResult(passed=True, score=1.0, mode="schema", reason="conftest schema scorer")


def pytest_structeval_register(registry):
    registry.register_comparator("year", same_year)
    if {override!r}:
        registry.register_scorer("schema", lenient_schema, overwrite=True)
"""
SCHEMA = '{"type": "object", "properties": {"d": {"type": "string", "x-eval-compare": "year"}}}'


@pytest.mark.parametrize("override", [False, True])
def test_conftest_registrations_win_over_deferred_schema_builtins(
    pytester: pytest.Pytester, override: bool
) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makeconftest(SCHEMA_CONFTEST.format(override=override))
    sc = pytester.path / "sc"
    config = "mode: schema\nschema: schema.json\n"
    folder = scenario(
        sc,
        "scenario_1",
        '{"d": "2024-01-02"}',
        trajectory("r1", '{"d": "2024-12-31"}'),
        config=config,
    )
    (folder / "schema.json").write_text(SCHEMA, encoding="utf-8")
    scenario(
        sc,
        "scenario_2",
        '{"d": "2024-01-02"}',
        trajectory("r2", '{"d": "1999-01-02"}'),
        config=config,
    )
    (sc / "scenario_2" / "schema.json").write_text(SCHEMA, encoding="utf-8")
    result = pytester.runpytest(*SERIAL, "--structeval-scenarios", "sc")
    if override:
        result.assert_outcomes(passed=2)
        record = json.loads((pytester.path / "reports/structeval/r2.json").read_text("utf-8"))
        assert record["score"]["rationale"] == "conftest schema scorer"
    else:  # the custom comparator decides: same year passes, another year fails
        result.assert_outcomes(passed=1, failed=1)
        record = json.loads((pytester.path / "reports/structeval/r1.json").read_text("utf-8"))
        assert record["score"]["passed"] is True
    assert "year" not in default_registry().comparators  # undone after the run
