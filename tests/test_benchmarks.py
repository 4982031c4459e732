"""The benchmark inputs still mean what the figures say: each parses to its answer.

A parser change once capped the candidates per answer and the "citations" input silently
stopped parsing; only a manual benchmark run noticed. No timing here, only the answers."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_bench_parse_inputs_parse_to_their_answers() -> None:
    spec = importlib.util.spec_from_file_location("bench_parse", BENCHMARKS / "bench_parse.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check()


def test_bench_collect_runs_and_serial_and_xdist_write_the_same_files() -> None:
    """The scenario-run benchmark on a small tree: every variant passes, the serial and
    ``-n 2`` runs write identical report files (the script exits non-zero otherwise), and it
    prints the figures the README quotes."""
    pytest.importorskip("xdist")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_collect.py"), "24", "1"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for line in ("ratio to floor", "ratio per repeat", "-n 2 run files identical to serial"):
        assert line in done.stdout
