"""The scenario engine over the real AssetOpsBench-style data in ../shared/data/assetops."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from pytest_structeval.cli import main
from pytest_structeval.report import AGGREGATE_NAME
from pytest_structeval.scenarios import discover_scenarios, load_trajectories, plan
from tests.realdata import require_data

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def smartgrid() -> Path:
    return require_data("assetops", "hpml_smartgrid")


def test_smartgrid_discovery_and_join(smartgrid: Path) -> None:
    scenarios = discover_scenarios([smartgrid / "scenarios"])
    assert len(scenarios) == 61
    assert all(s.error is None for s in scenarios)
    assert all(isinstance(s.gold, str) and s.gold.startswith("{") for s in scenarios)
    by_id = {s.id: s for s in scenarios}
    assert by_id["SGT-001"].type == "IoT"
    assert by_id["AOB-FMSR-001"].type == "FMSR"
    assert by_id["SGT-001"].question.startswith("List all available sensors for transformer T-011")

    trajectories = load_trajectories([smartgrid / "trajectories"])
    assert len(trajectories) == 1247
    assert all(t.error is None for t in trajectories)

    result = plan([smartgrid / "scenarios"], [smartgrid / "trajectories"])
    assert len(result.runs) == 1247
    assert len({r.scenario.id for r in result.runs}) == 31
    assert len(result.unmatched_scenarios) == 30
    assert result.unmatched_trajectories == ()
    assert result.errors == ()
    assert result.duplicates == ()
    per_scenario = Counter(r.scenario.id for r in result.runs)
    assert per_scenario["SGT-009"] == 126
    assert per_scenario["AOB-FMSR-001"] == 15
    labels = [(r.scenario.id, r.label) for r in result.runs]
    assert len(set(labels)) == len(labels)


def test_smartgrid_full_cli_run(
    smartgrid: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = tmp_path / "reports"
    started = time.perf_counter()
    code = main(
        [
            "evaluate",
            "--scenarios", str(smartgrid / "scenarios"),
            "--trajectories", str(smartgrid / "trajectories"),
            "--reports-dir", str(reports),
        ]
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    out = capsys.readouterr().out
    with capsys.disabled():
        print(f"\nhpml_smartgrid: 1247 runs scored and reported in {elapsed:.2f} s")
    assert code == 1  # prose answers fail against structured rubrics, and no gate is given
    assert "structeval: 1247 of 1247 runs failed; with no gate every run must pass" in out
    assert "unmatched trajectories: 0" in out
    assert "scenarios without trajectories: 30" in out

    aggregate = json.loads((reports / AGGREGATE_NAME).read_text())
    assert aggregate["complete"] is True
    assert aggregate["totals"]["scenarios"] == 31
    assert aggregate["totals"]["scored"] == 1247
    assert aggregate["totals"]["errors"] == 0
    assert aggregate["errors"] == []
    assert aggregate["unmatched"]["trajectories"] == []
    assert len(aggregate["unmatched"]["scenarios"]) == 30
    assert sum(v["total"] for v in aggregate["by_scenario_type"].values()) == 1247
    assert len(aggregate["runners"]) == 23
    assert len(aggregate["models"]) == 6
    assert aggregate["ops"]["tool_calls_total"] > 0

    names = [r["report"] for r in aggregate["results"]]
    assert len(names) == len(set(names)) == 1247
    on_disk = {p.name for p in reports.iterdir()} - {AGGREGATE_NAME}
    assert on_disk == set(names)
    sample = json.loads((reports / names[0]).read_text())
    assert sample["ops"]["turn_count"] >= 0
    assert sample["score"]["scorer"] == "static_json"


def test_couchdb_flattened_turns(tmp_path: Path) -> None:
    root = require_data("assetops", "ibm_couchdb", "scenarios")
    found = {s.id: s for s in discover_scenarios([root])}
    assert sorted(found) == ["3", "4", "4_turn_02", "4_turn_03", "4_turn_04", "4_turn_05"]
    assert json.loads(found["3"].gold)["asset"] == "Chiller 6"
    assert json.loads(found["4_turn_03"].gold) == {
        "observations": 2876,
        "start": "2020-06-01T00:00:00",
        "end": "2020-06-30T23:45:00",
    }
    assert found["4_turn_04"].gold == '{"anomalies_found": true}'
    for sid in ("4", "4_turn_05"):  # question only / rubric only: reported, never scored on prose
        assert found[sid].gold is None
        assert "no groundtruth" in (found[sid].error or "")
    assert "characteristic_form.txt" in (found["4_turn_05"].error or "")

    result = plan([root])
    assert result.runs == ()
    assert [e["source"] for e in result.errors] == [
        found["4"].path,
        found["4_turn_05"].path,
    ]


def test_couchdb_gold_scored_from_a_saved_answer(tmp_path: Path) -> None:
    root = require_data("assetops", "ibm_couchdb", "scenarios")
    runs = tmp_path / "runs"
    runs.mkdir()
    answer = '{"asset": "Chiller 6", "sensor": "Chiller 6 Condenser Water Flow"}'
    (runs / "scenario_4_turn_02.json").write_text(json.dumps({"run_id": "t2", "answer": answer}))
    (runs / "t3.json").write_text(
        json.dumps({"run_id": "t3", "scenario_id": "4_turn_03", "answer": {"observations": 2876}})
    )
    code = main(
        [
            "evaluate",
            "--scenarios",
            str(root),
            "--trajectories",
            str(runs),
            "--reports-dir",
            str(tmp_path / "o"),
        ]
    )
    assert code == 1  # t3 fails, and no gate is given
    aggregate = json.loads((tmp_path / "o" / AGGREGATE_NAME).read_text())
    assert {(r["run_id"], r["passed"]) for r in aggregate["results"]} == {
        ("t2", True),
        ("t3", False),
    }
    assert {s["id"] for s in aggregate["unmatched"]["scenarios"]} == {
        "3",
        "4",
        "4_turn_04",
        "4_turn_05",
    }
