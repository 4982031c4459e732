"""Kept comparator verdicts (``cached_comparator``): asked once, replayed, refreshed; batch
judges asked only about what is new; the run's mode from the pytest option, ini key, CLI flag
or environment; xdist workers sharing one cache."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.cli import main
from pytest_structeval.registry import Registry, default_registry
from pytest_structeval.schema import (
    BatchItem,
    ComparatorResult,
    VerdictCache,
    cached_comparator,
    register_comparator,
)
from pytest_structeval.verdicts import ENV_MODE, run_mode, set_run_mode
from tests.plugin_support import scenario, trajectory

SCHEMA = {
    "type": "object",
    "properties": {
        "a": {"type": "string", "x-eval-compare": "judge"},
        "b": {"type": "string", "x-eval-compare": "judge"},
    },
}


class Judge:
    """A stand-in for an LLM judge that counts what it is asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[Any, Any]] = []

    def __call__(self, gold: Any, extracted: Any, params: Any) -> ComparatorResult:
        self.asked.append((gold, extracted))
        same = str(gold).casefold() == str(extracted).casefold()
        return ComparatorResult(1.0 if same else 0.25, "judge", "same" if same else "differs")


@pytest.fixture(autouse=True)
def no_run_mode(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(ENV_MODE, raising=False)
    yield
    set_run_mode(None)


def registry_with(fn: Any) -> Registry:
    registry = default_registry().copy()
    register_comparator("judge", fn, registry=registry)
    return registry


def judged(cache: VerdictCache, judge: Any, answer: str, version: str = "v1") -> Any:
    registry = registry_with(cached_comparator(judge, cache, version=version))
    gold = {"a": "Pump", "b": "Valve"}
    return score(gold, answer, "schema", schema=SCHEMA, registry=registry)


def test_asked_once_then_kept(tmp_path: Path) -> None:
    judge = Judge()
    first = judged(VerdictCache(tmp_path), judge, '{"a": "pump", "b": "gate"}')
    assert sorted(judge.asked) == [("Pump", "pump"), ("Valve", "gate")]
    again = VerdictCache(tmp_path)  # another process would see the same files
    second = judged(again, judge, '{"a": "pump", "b": "gate"}')
    assert len(judge.asked) == 2  # nothing asked again
    assert (again.hits, again.asked) == (2, 0)
    assert [(f.path, f.score, f.reason) for f in second.fields] == [
        (f.path, f.score, f.reason) for f in first.fields
    ]
    files = sorted(tmp_path.glob("*/*.json"))
    assert len(files) == 2
    kept = json.loads(files[0].read_text("utf-8"))
    assert kept["version"] == "v1"
    assert {kept["gold"], kept["extracted"]} <= {"Pump", "pump", "Valve", "gate"}
    assert kept["comparator"] == "judge"


def test_a_new_version_or_new_values_are_asked(tmp_path: Path) -> None:
    judge = Judge()
    judged(VerdictCache(tmp_path), judge, '{"a": "pump", "b": "gate"}')
    judged(VerdictCache(tmp_path), judge, '{"a": "pump", "b": "valve"}')
    assert judge.asked[2:] == [("Valve", "valve")]
    judged(VerdictCache(tmp_path), judge, '{"a": "pump", "b": "valve"}', version="v2")
    assert len(judge.asked) == 5


def test_refresh_asks_again_and_replaces(tmp_path: Path) -> None:
    judged(VerdictCache(tmp_path), Judge(), '{"a": "pump", "b": "gate"}')

    def stricter(gold: Any, extracted: Any, params: Any) -> float:
        return float(gold == extracted)

    refreshed = judged(
        VerdictCache(tmp_path, mode="refresh"), stricter, '{"a": "pump", "b": "gate"}'
    )
    assert [f.score for f in refreshed.fields] == [0.0, 0.0]
    replayed = judged(VerdictCache(tmp_path, mode="replay"), Judge(), '{"a": "pump", "b": "gate"}')
    assert [f.score for f in replayed.fields] == [0.0, 0.0]


def test_replay_asks_nothing_and_fails_what_was_not_kept(tmp_path: Path) -> None:
    judged(VerdictCache(tmp_path), Judge(), '{"a": "pump", "b": "gate"}')
    judge = Judge()
    cache = VerdictCache(tmp_path, mode="replay")
    result = judged(cache, judge, '{"a": "pump", "b": "valve"}')
    assert judge.asked == []
    assert (cache.hits, cache.missing) == (1, 1)
    by_path = {f.path: f for f in result.fields}
    assert by_path["answer.a"].status == "match"
    assert by_path["answer.b"].status == "mismatch"
    assert "no kept verdict" in (by_path["answer.b"].reason or "")
    assert not result.passed


def test_an_invalid_or_broken_file_is_no_verdict(tmp_path: Path) -> None:
    judge = Judge()
    judged(VerdictCache(tmp_path), judge, '{"a": "pump", "b": "gate"}')
    for path in tmp_path.glob("*/*.json"):
        path.write_text('{"score": 7, "skip": false}', encoding="utf-8")
    judged(VerdictCache(tmp_path), judge, '{"a": "pump", "b": "gate"}')
    assert len(judge.asked) == 4

    def bad(gold: Any, extracted: Any, params: Any) -> float:
        return 3.0  # not a score: reported by schema mode, never kept

    result = judged(VerdictCache(tmp_path / "bad"), bad, '{"a": "x", "b": "y"}')
    assert all("invalid score 3.0" in (f.reason or "") for f in result.fields)
    assert not list((tmp_path / "bad").glob("*/*.json"))


def test_keys_ignore_key_order_and_tell_types_apart(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    assert cache.key("v", {"x": 1, "y": 2}, "m", {}) == cache.key("v", {"y": 2, "x": 1}, "m", {})
    assert cache.key("v", 1, "1", {}) != cache.key("v", "1", "1", {})
    assert cache.key("v", 10**5000, 1.5, {}) == cache.key("v", 10**5000, 1.5, {})


class BatchJudge:
    is_batch = True

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, items: list[BatchItem]) -> list[Any]:
        self.calls.append([item.path for item in items])
        return [float(i.gold_compared == i.extracted_compared) for i in items]


def test_a_batch_judge_is_asked_only_about_new_items(tmp_path: Path) -> None:
    judge = BatchJudge()
    judged(VerdictCache(tmp_path), judge, '{"a": "Pump", "b": "gate"}')
    assert judge.calls == [["a", "b"]]
    judged(VerdictCache(tmp_path), judge, '{"a": "Pump", "b": "Valve"}')
    assert judge.calls[1:] == [["b"]]
    judged(VerdictCache(tmp_path), judge, '{"a": "Pump", "b": "Valve"}')
    assert len(judge.calls) == 2
    replay = judged(VerdictCache(tmp_path, mode="replay"), judge, '{"a": "x", "b": "Valve"}')
    statuses = {f.path: (f.status, f.reason) for f in replay.fields}
    assert statuses["answer.a"][0] == "batch_error"
    assert "no kept verdict for 1 of 2 fields (a), and replay mode" in (
        statuses["answer.a"][1] or ""
    )
    assert len(judge.calls) == 2


def test_a_short_batch_reply_is_an_error_and_not_kept(tmp_path: Path) -> None:
    def short(items: list[BatchItem]) -> list[float]:
        return [1.0]

    short.is_batch = True  # type: ignore[attr-defined]
    result = judged(VerdictCache(tmp_path), short, '{"a": "x", "b": "y"}')
    assert {f.status for f in result.fields} == {"batch_error"}
    assert "answered 1 for 2 fields" in (result.fields[0].reason or "")
    assert not list(tmp_path.glob("*/*.json"))


def test_the_run_mode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    assert cache.mode == run_mode() == "use"
    monkeypatch.setenv(ENV_MODE, "replay")
    assert cache.mode == "replay"
    set_run_mode("refresh")  # the option wins over the environment
    assert cache.mode == "refresh"
    assert VerdictCache(tmp_path, mode="use").mode == "use"  # and a cache's own mode over both
    monkeypatch.setenv(ENV_MODE, "sometimes")
    set_run_mode(None)
    with pytest.raises(ValueError, match="STRUCTEVAL_VERDICTS must be one of use, refresh"):
        cache.mode  # noqa: B018
    with pytest.raises(ValueError, match="mode must be one of"):
        VerdictCache(tmp_path, mode="always")
    with pytest.raises(ValueError, match="version must be a non-empty string"):
        cached_comparator(Judge(), cache, version="")


CONFTEST = """
import json, os
from pytest_structeval.schema import VerdictCache, cached_comparator

def judge(gold, extracted, params):
    with open(os.path.join(os.environ["JUDGE_LOG"]), "a") as log:
        log.write(json.dumps([gold, extracted]) + "\\n")
    return float(str(gold).lower() == str(extracted).lower())

def pytest_structeval_register(registry):
    cache = VerdictCache(os.environ["JUDGE_CACHE"])
    registry.register_comparator("judge", cached_comparator(judge, cache, version="v1"))
"""


@pytest.fixture
def judged_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    monkeypatch.setenv("JUDGE_LOG", str(pytester.path / "asked.log"))
    monkeypatch.setenv("JUDGE_CACHE", str(pytester.path / "verdicts"))
    sc = pytester.path / "sc"
    for n in range(4):
        folder = scenario(
            sc,
            f"scenario_{n}",
            json.dumps({"a": f"Pump {n}"}),
            trajectory(f"r{n}", json.dumps({"a": f"pump {n}"})),
            config="mode: schema\nschema: schema.json\n",
        )
        (folder / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    return pytester


def asked(project: pytest.Pytester) -> int:
    log = project.path / "asked.log"
    return len(log.read_text("utf-8").splitlines()) if log.exists() else 0


def test_record_then_replay_in_pytest(judged_project: pytest.Pytester) -> None:
    project = judged_project
    project.makeini("[pytest]\n")
    result = project.runpytest("--structeval-scenarios", "sc", "--structeval-verdicts", "replay")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        ["*VerdictMissing('no kept verdict, and replay mode asks no judge*"]
    )
    assert asked(project) == 0
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=4)
    assert asked(project) == 4
    project.makeini("[pytest]\nstructeval_verdicts = replay\n")
    project.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=4)
    assert asked(project) == 4
    project.makeini("[pytest]\nstructeval_verdicts = sometimes\n")
    result = project.runpytest("--structeval-scenarios", "sc")
    result.stderr.fnmatch_lines(["*structeval_verdicts: expected one of use, refresh, replay*"])


def test_xdist_workers_fill_one_cache(judged_project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    project = judged_project
    project.makeini("[pytest]\n")
    project.runpytest_subprocess("--structeval-scenarios", "sc", "-n", "2").assert_outcomes(
        passed=4
    )
    assert asked(project) == 4
    assert len(list((project.path / "verdicts").glob("*/*.json"))) == 4
    replay = project.runpytest_subprocess(
        "--structeval-scenarios", "sc", "-n", "2", "--structeval-verdicts", "replay"
    )
    replay.assert_outcomes(passed=4)
    assert asked(project) == 4


def test_the_cli_flag(judged_project: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    project = judged_project
    plugin = project.path / "judge_plugin.py"
    plugin.write_text(CONFTEST, encoding="utf-8")
    args = ["evaluate", "--scenarios", str(project.path / "sc"), "--plugin", str(plugin)]
    reports = ["--reports-dir", str(project.path / "r")]
    assert main([*args, *reports, "--verdicts", "replay"]) == 1
    assert asked(project) == 0
    assert main([*args, *reports]) == 0
    assert asked(project) == 4
    assert run_mode() == "use"  # main() leaves no mode behind
