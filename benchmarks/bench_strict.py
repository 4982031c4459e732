"""Benchmark ``score(..., mode="strict")`` against a floor measured in the same run.

Run: ``uv run python benchmarks/bench_strict.py [--seconds S]``.

Payloads (issue 2):

* small answers ``{"energy": 14, "material": 48}``, a quarter each bare, fenced, after
  ``Final Answer:``, and after a ``<think>`` block plus prose (some with a wrong value);
* 50-key nested objects (5 sections x 10 fields, mixed types, a few slips);
* one 1 MB answer of 10,000 rows ``{"row": i, "name": "asset i", "value": 1.5 i}``.

The floor is ``orjson.loads`` of both sides (as plain JSON) plus ``==``: what any scorer
must at least spend. Times are CPU time of this process (``time.process_time``), best of
repeated rounds; floor and scorer rounds alternate and each lasts about 20 ms, so a machine
shared with other jobs skews the ratios less.

Targets: small answers no more than 32x the floor (AssetOpsBench is about 96x), the 1 MB
answer under 0.12 s (AssetOpsBench: 0.37 s).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

import orjson
from _timing import paired_rates

from pytest_structeval import score

SMALL_TARGET_RATIO = 32.0
LARGE_TARGET_SECONDS = 0.12


def small_pairs(count: int) -> list[tuple[str, str, bytes, bytes]]:
    """(gold text, model text, gold JSON, model JSON) in the four answer wrappings."""
    rng = random.Random(1)
    out = []
    for i in range(count):
        gold = {"energy": 14 + i % 7, "material": 48 + i % 5}
        model = dict(gold)
        if rng.random() < 0.25:
            model["material"] += 1
        body = orjson.dumps(model).decode()
        wrap = i % 4
        if wrap == 0:
            text = body
        elif wrap == 1:
            text = f"```json\n{body}\n```"
        elif wrap == 2:
            text = f"I checked the work orders.\nFinal Answer: {body}"
        else:
            text = (
                '<think>The user wants counts per category. Draft: {"energy": 0}. '
                "Let me look again at the records.</think>\n"
                f"Here are the counts I found per category: {body}. Let me know if you need more."
            )
        out.append((orjson.dumps(gold).decode(), text, orjson.dumps(gold), orjson.dumps(model)))
    return out


def nested_pairs(count: int) -> list[tuple[str, str, bytes, bytes]]:
    """50-key documents: 5 sections of 10 mixed-type fields; the model has a few slips."""
    rng = random.Random(2)
    out = []
    for n in range(count):
        gold: dict[str, Any] = {}
        for s in range(5):
            section: dict[str, Any] = {}
            for f in range(10):
                kind = f % 5
                if kind == 0:
                    section[f"field_{f}"] = f"value {n}-{s}-{f}"
                elif kind == 1:
                    section[f"field_{f}"] = rng.randint(0, 10_000)
                elif kind == 2:
                    section[f"field_{f}"] = round(rng.uniform(0, 100), 3)
                elif kind == 3:
                    section[f"field_{f}"] = rng.random() < 0.5
                else:
                    section[f"field_{f}"] = None
            gold[f"section_{s}"] = section
        model = orjson.loads(orjson.dumps(gold))
        for _ in range(3):
            section = model[f"section_{rng.randrange(5)}"]
            key = f"field_{rng.randrange(10)}"
            value = section[key]
            if isinstance(value, str):
                section[key] = value.upper()
            elif isinstance(value, bool) or value is None:
                section[key] = not value
            else:
                section[key] = value + 1
        g, m = orjson.dumps(gold), orjson.dumps(model)
        out.append((g.decode(), m.decode(), g, m))
    return out


def large_pair() -> tuple[str, str, bytes, bytes]:
    rows: list[dict[str, Any]] = [
        {"row": i, "name": f"asset {i}", "value": 1.5 * i} for i in range(10_000)
    ]
    model = [dict(r) for r in rows]
    for i in range(0, 10_000, 1_000):
        model[i]["value"] += 0.5
    # Pretty-printed with 4-space indents, as models write it: about 1 MB.
    g, m = json.dumps(rows, indent=4), json.dumps(model, indent=4)
    return g, m, g.encode(), m.encode()


def rates(pairs: Sequence[tuple[str, str, bytes, bytes]], seconds: float) -> tuple[float, float]:
    """(floor, ours) pairs/s on ``pairs``."""
    loads = orjson.loads

    def floor() -> None:
        for _, _, g, m in pairs:
            _ = loads(g) == loads(m)

    def ours() -> None:
        for g, m, _, _ in pairs:
            score(g, m, "strict")

    return paired_rates(floor, ours, len(pairs), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()

    print("strict mode: pairs/s vs floor (orjson.loads both sides + ==), best of rounds")
    for name, pairs, target in (
        ("small answers (4 wrappings)", small_pairs(400), SMALL_TARGET_RATIO),
        ("50-key nested objects", nested_pairs(100), None),
    ):
        floor, ours = rates(pairs, args.seconds)
        ratio = floor / ours
        verdict = ""
        if target is not None:
            verdict = f"  target <= {target:g}x: {'ok' if ratio <= target else 'MISSED'}"
        print(
            f"  {name:30s} {ours:>10,.0f} pairs/s  floor {floor:>11,.0f}/s"
            f"  ratio {ratio:6.1f}x{verdict}"
        )
        for wrap in range(4) if target is not None else ():
            subset = pairs[wrap::4]
            sub_floor, sub_ours = rates(subset, args.seconds / 4)
            sub_ratio = sub_floor / sub_ours
            label = ("bare", "fenced", "Final Answer:", "<think> + prose")[wrap]
            print(f"    {label:28s} ratio {sub_ratio:6.1f}x")

    g, m, gb, mb = large_pair()
    times = []
    floor_times = []
    result = None
    for _ in range(5):
        start = time.process_time()
        _ = orjson.loads(gb) == orjson.loads(mb)
        floor_times.append(time.process_time() - start)
        start = time.process_time()
        result = score(g, m, "strict")
        times.append(time.process_time() - start)
    assert result is not None
    best = min(times)
    verdict = "ok" if best < LARGE_TARGET_SECONDS else "MISSED"
    print(
        f"  1 MB answer ({len(m) / 1e6:.2f} MB, {result.metrics['total_gold_keys']:,} keys): "
        f"best {best:.3f} s, median {statistics.median(times):.3f} s, "
        f"floor {min(floor_times):.4f} s  target < {LARGE_TARGET_SECONDS} s: {verdict}"
    )
    print(f"    f1 {result.score:.4f}, exact {result.metrics['exact_value_matches']:,}")


if __name__ == "__main__":
    main()
