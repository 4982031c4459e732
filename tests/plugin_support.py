"""Builders shared by the tests: files, scenario folders, trajectories, reports."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import gates as gate_engine
from pytest_structeval.gates import Gate, evaluate_gates, rate_gate

AGGREGATE = Path("reports/structeval/_aggregate.json")

PYTEST_RELEASE = tuple(int(part) for part in pytest.__version__.split(".")[:2])

collects_as_pytest_9 = pytest.mark.skipif(
    PYTEST_RELEASE < (9, 0),
    reason="pytest 8 drops an argument when another inside it is given too (pytest sc "
    "sc/sub collects sc/sub alone); the scenarios follow pytest's own collection",
)


def first_free_naively(
    names: Iterable[str], reserved: Iterable[str] = (), sep: str = "-"
) -> list[str]:
    """What ``naming.FirstFree`` must give, found the slow way: each name, else the first of
    ``<name><sep>2``, ``<name><sep>3`` ... that neither ``reserved`` nor an earlier name took."""
    taken = set(reserved)
    chosen = []
    for name in names:
        key, n = name, 1
        while key in taken:
            n += 1
            key = f"{name}{sep}{n}"
        taken.add(key)
        chosen.append(key)
    return chosen


def write(path: Path, text: str | bytes) -> Path:
    """``text`` (or bytes) at ``path``, parent folders created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def trajectory(
    run_id: str, answer: Any, scenario_id: str | None = None, **extra: Any
) -> dict[str, Any]:
    """A trajectory record in the reference layout, with one turn so ops are non-trivial."""
    record: dict[str, Any] = {
        "run_id": run_id,
        "scenario_id": scenario_id,
        "runner": "react",
        "model": "gpt-4o",
        "question": "q?",
        "answer": answer,
        "trajectory": {
            "turns": [
                {
                    "index": 0,
                    "text": "t",
                    "tool_calls": [{"name": "lookup"}],
                    "input_tokens": 100,
                    "output_tokens": 10,
                    "duration_ms": 50,
                }
            ]
        },
    }
    record.update(extra)
    return record


def scenario(
    root: Path,
    folder: str,
    gold: str,
    *runs: Mapping[str, Any],
    config: str | None = None,
    gold_file: str = "groundtruth.txt",
) -> Path:
    """``root/folder`` with a gold file, an optional ``scenario.yaml`` and one in-folder
    trajectory file per run (``trajectory_<n>.json``)."""
    path = root / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / gold_file).write_text(gold, encoding="utf-8")
    if config is not None:
        (path / "scenario.yaml").write_text(config, encoding="utf-8")
    for n, run in enumerate(runs):
        (path / f"trajectory_{n}.json").write_text(json.dumps(run), encoding="utf-8")
    return path


def one_pass_one_fail(root: Path) -> None:
    """``scenario_1`` (run ``r1``) passes; ``scenario_2`` (run ``r2``) fails on ``answer.c``."""
    scenario(root, "scenario_1", '{"a": 1}', trajectory("r1", '{"a": 1}'))
    scenario(root, "scenario_2", '{"b": 2, "c": 3}', trajectory("r2", '{"b": 2, "c": 4}'))


def write_trajectories(directory: Path, runs: Iterable[Mapping[str, Any]]) -> Path:
    """One ``<run_id>.json`` per run in ``directory`` (an external trajectory folder)."""
    directory.mkdir(parents=True, exist_ok=True)
    for run in runs:
        (directory / f"{run['run_id']}.json").write_text(json.dumps(run), encoding="utf-8")
    return directory


def aggregate(root: Path, reports: Path = AGGREGATE) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / reports).read_text(encoding="utf-8"))
    return data


def comparable(root: Path, reports: Path = AGGREGATE) -> dict[str, Any]:
    """The aggregate plus every per-run file, minus ``generated_at``: what must not depend on
    how the run was split across processes."""
    data = aggregate(root, reports)
    data.pop("generated_at")
    files = {
        p.name: json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((root / reports).parent.glob("*.json"))
        if p.name != reports.name
    }
    return {"aggregate": data, "files": files}


# ------------------------------------------------------------ gates, as the tests name them


def gate_failures(
    report: Mapping[str, Any],
    *,
    fail_under: float | None = None,
    min_score: float | None = None,
    gates: Sequence[Gate] = (),
    fail_under_flag: str = "--structeval-fail-under",
    min_score_flag: str = "--structeval-min-score",
) -> list[str]:
    """One-line reasons why ``report`` misses its gates, as the plugin gives them (the
    pass-rate and mean-score options first, then ``gates`` in the order given)."""
    every: list[Gate] = []
    if fail_under is not None:
        every.append(rate_gate("pass_rate", fail_under, fail_under_flag))
    if min_score is not None:
        every.append(rate_gate("score_avg", min_score, min_score_flag))
    every.extend(gates)
    return [o.reason for o in evaluate_gates(report, every) if o.reason is not None]


def type_label(name: str) -> str:
    """A scenario type as a gate writes it in brackets."""
    return gate_engine._TYPES.label(name)


def system_label(name: str) -> str:
    """A runner and model as a gate writes it in braces."""
    return gate_engine._SYSTEMS.label(name)


def type_metrics(report: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    """The figures gates in brackets compare, by scenario type."""
    return gate_engine._group_metrics(report, gate_engine._TYPES)


def system_metrics(report: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    """The figures gates in braces compare, by runner and model."""
    return gate_engine._group_metrics(report, gate_engine._SYSTEMS)
