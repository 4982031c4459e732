"""Benchmark ``score(..., mode="similarity")`` against a floor measured in the same run.

Run: ``uv run python benchmarks/bench_similarity.py [--seconds S]``.

Cases (issue 3):

* a 50-leaf order document, 3 deep (customer with address, 6 line items of 5 fields with a
  tag list, totals), with realistic slips (typo, case change, numeric drift, shortened tag
  list, missing key, number sent as a string, extra key): evaluations/s against the floor
  (``orjson.loads`` of both sides plus ``==``). Target: no more than 16x the floor (UiPath's
  evaluator is about 81x).
* Hungarian alignment of two shuffled 200-element arrays of ``{"name", "value", "unit"}``
  with 10 % of values off, end to end through ``score(..., align="hungarian")``, on the
  scipy and on the pure-Python assignment backend. Target: under 0.1 s and optimal.

Times are CPU time of this process (``time.process_time``), best of repeated rounds; floor
and scorer rounds alternate and each lasts about 20 ms.
"""

from __future__ import annotations

import argparse
import copy
import random
import time
from typing import Any

import orjson
from _timing import paired_rates

from pytest_structeval import align as align_module
from pytest_structeval import score

DOCUMENT_TARGET_RATIO = 16.0
HUNGARIAN_TARGET_SECONDS = 0.1


def order_document(n: int) -> dict[str, Any]:
    """50 leaves: 6 header fields, a 7-leaf customer, 6 items (33 leaves), 4 totals."""
    items: list[dict[str, Any]] = [
        {
            "sku": f"SKU-{n}-{i:03d}",
            "name": f"Widget model {i} deluxe",
            "qty": i + 1,
            "price": round(9.99 + 3.5 * i, 2),
            "tags": ["hardware", "sale"][: 1 + i % 2],
        }
        for i in range(6)
    ]
    subtotal = round(sum(it["qty"] * it["price"] for it in items), 2)
    return {
        "order_id": f"ORD-{n:06d}",
        "date": "2026-03-14",
        "status": "shipped",
        "paid": True,
        "currency": "EUR",
        "notes": None,
        "customer": {
            "name": "Jane Smith",
            "email": "jane.smith@example.com",
            "phone": "+44 20 7946 0958",
            "address": {
                "street": "221B Baker Street",
                "city": "London",
                "zip": "NW1 6XE",
                "country": "UK",
            },
        },
        "items": items,
        "totals": {
            "subtotal": subtotal,
            "tax": round(subtotal * 0.2, 2),
            "shipping": 4.95,
            "total": round(subtotal * 1.2 + 4.95, 2),
        },
    }


def with_slips(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    model = copy.deepcopy(doc)
    model["customer"]["name"] = "Jane Smyth"  # typo
    model["customer"]["address"]["city"] = "london"  # case change
    del model["customer"]["phone"]  # missing key
    item = model["items"][rng.randrange(6)]
    item["price"] = round(item["price"] * 1.02, 2)  # numeric drift
    model["items"][1]["tags"] = model["items"][1]["tags"][:1]  # shortened list
    model["items"][2]["qty"] = str(model["items"][2]["qty"])  # number as a string
    model["totals"]["total"] = round(model["totals"]["total"] + 0.05, 2)
    model["confidence"] = 0.93  # extra key
    return model


def documents(seconds: float) -> None:
    rng = random.Random(3)
    golds = [order_document(n) for n in range(100)]
    pairs = [(orjson.dumps(g), orjson.dumps(with_slips(g, rng))) for g in golds]
    texts = [(g.decode(), m.decode()) for g, m in pairs]
    loads = orjson.loads

    def floor() -> None:
        for g, m in pairs:
            _ = loads(g) == loads(m)

    def ours() -> None:
        for g, m in texts:
            score(g, m, "similarity")

    floor_rate, rate = paired_rates(floor, ours, len(pairs), seconds)
    ratio = floor_rate / rate
    example = score(texts[0][0], texts[0][1], "similarity")
    verdict = "ok" if ratio <= DOCUMENT_TARGET_RATIO else "MISSED"
    print(
        f"  50-leaf order documents: {rate:,.0f} evals/s  floor {floor_rate:,.0f}/s  "
        f"ratio {ratio:.1f}x  target <= {DOCUMENT_TARGET_RATIO:g}x: {verdict}"
    )
    print(f"    total leaves {example.metrics['total_leaves']}, score {example.score:.3f}")


def hungarian_case() -> tuple[str, str]:
    rng = random.Random(5)
    units = ["kW", "V", "A", "degC", "rpm", "bar"]
    gold: list[dict[str, Any]] = [
        {
            "name": f"sensor {i:03d} {rng.choice(['inlet', 'outlet', 'bearing'])}",
            "value": round(rng.uniform(1, 500), 2),
            "unit": rng.choice(units),
        }
        for i in range(200)
    ]
    model = copy.deepcopy(gold)
    for row in rng.sample(model, 20):
        row["value"] = round(row["value"] * rng.uniform(0.8, 1.2), 2)
    rng.shuffle(model)
    return orjson.dumps(gold).decode(), orjson.dumps(model).decode()


def hungarian(repeat: int) -> None:
    gold, model = hungarian_case()
    scipy_solver = align_module._scipy_solver
    backends = [("scipy", scipy_solver), ("pure Python", lambda: None)]
    if scipy_solver() is None:
        backends = backends[1:]
        print("  (scipy not installed: pure-Python backend only)")
    for label, solver in backends:
        align_module._scipy_solver = solver  # type: ignore[assignment]
        try:
            times = []
            result = None
            for _ in range(repeat):
                start = time.process_time()
                result = score(gold, model, "similarity", align="hungarian")
                times.append(time.process_time() - start)
        finally:
            align_module._scipy_solver = scipy_solver
        assert result is not None
        best = min(times)
        verdict = "ok" if best < HUNGARIAN_TARGET_SECONDS else "MISSED"
        print(
            f"  Hungarian 200x200 records ({label}): best {best:.3f} s, "
            f"median {sorted(times)[len(times) // 2]:.3f} s, score {result.score:.4f}  "
            f"target < {HUNGARIAN_TARGET_SECONDS} s: {verdict}"
        )
    ordered = score(gold, model, "similarity")
    print(f"    (positional order scores {ordered.score:.4f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per rate measurement")
    parser.add_argument("--repeat", type=int, default=7, help="runs of the Hungarian case")
    args = parser.parse_args()
    print("similarity mode")
    documents(args.seconds)
    hungarian(args.repeat)


if __name__ == "__main__":
    main()
