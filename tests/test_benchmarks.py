"""The benchmark inputs still mean what the figures say: each parses to its answer.

A parser change once capped the candidates per answer and the "citations" input silently
stopped parsing; only a manual benchmark run noticed. No timing here, only the answers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_bench_parse_inputs_parse_to_their_answers() -> None:
    spec = importlib.util.spec_from_file_location("bench_parse", BENCHMARKS / "bench_parse.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.check()
