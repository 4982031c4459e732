"""Throughput of ``parse_answer`` on realistic answers, next to an ``orjson.loads`` floor.

Run: ``uv run python benchmarks/bench_parse.py`` (about 30 s). Each figure is the best of
several repeats, so a busy machine slows every line alike; compare ratios, not absolutes.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

import orjson

from pytest_structeval.parse import parse_answer

SMALL = '{"energy": 14, "material": 48}'
ANSWERS = {
    "bare": SMALL,
    "fenced": f"```json\n{SMALL}\n```",
    "tilde fenced": f"~~~json\n{SMALL}\n~~~",
    "final answer": f"Thought: the tool returned both counts.\nFinal Answer: {SMALL}",
    "think + prose": (
        "<think>The user wants energy and material counts; the tool said 14 and 48.</think>\n"
        f"Here is the result: {SMALL}"
    ),
}
ROWS = [{"row": i, "name": f"asset {i}", "value": 1.5 * i} for i in range(10_000)]
BIG = orjson.dumps(ROWS, option=orjson.OPT_INDENT_2).decode()
PARAGRAPH = (
    "The chiller's condenser flow (sensor CWF-6) stayed near 2,876 readings; the pump's "
    "vibration [see table 3] rose 4.5% while {the operator's note} flagged 'drift'. "
)
PROSE = PARAGRAPH * (1_000_000 // len(PARAGRAPH)) + f"\nHere is the result: {SMALL}"
# Every footnote marker is a candidate the scan must set aside before it reaches the answer:
# 9,000 of them, under the parser's cap of 10,000 candidates per answer (MAX_CANDIDATES).
CITED = "The pump failed [1], as the survey found [2, 3]. "
CITED_PROSE = f"Here is the result: {SMALL}\n" + CITED * 4_500


def rate(fn: Callable[[], Any], seconds: float = 1.0) -> float:
    """Calls per second: best of five repeats, each sized to take about ``seconds / 5``."""
    number = 1
    while timeit.timeit(fn, number=number) < seconds / 25:
        number *= 4
    best = min(timeit.repeat(fn, number=number, repeat=5))
    return number / best


def line(name: str, per_second: float, floor: float) -> None:
    print(f"{name:>26}: {per_second:>12,.0f} parses/s   {floor / per_second:6.1f}x the floor")


def check() -> None:
    """Every timed input parses to its answer (a test runs this, so the figures stay true)."""
    for text in (*ANSWERS.values(), BIG, PROSE, CITED_PROSE):
        assert parse_answer(text, strict=True) in (orjson.loads(SMALL), ROWS), text[:60]


def main() -> None:
    check()
    floor_small = rate(partial(orjson.loads, SMALL))
    print(f"{'floor orjson.loads(bare)':>26}: {floor_small:>12,.0f} parses/s")
    for name, text in ANSWERS.items():
        line(name, rate(partial(parse_answer, text)), floor_small)
    floor_big = rate(partial(orjson.loads, BIG), 3.0)
    print(f"\n{'floor orjson.loads(10k rows)':>26}: {1000 / floor_big:>9.2f} ms per parse")
    for name, text in (
        ("10k rows", BIG),
        ("prose, answer at the end", PROSE),
        ("citations, answer first", CITED_PROSE),
    ):
        per_second = rate(partial(parse_answer, text), 3.0)
        print(
            f"{name:>26}: {1000 / per_second:>9.2f} ms per parse   "
            f"{floor_big / per_second:6.1f}x the floor ({len(text) / 1e6:.2f} MB)"
        )


if __name__ == "__main__":
    main()
