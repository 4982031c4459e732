"""Speed of a scenario run against pytest's own per-item cost.

Generates N scenario folders (default 5,000), each with a small gold answer and one
trajectory, then times, in subprocesses:

* the floor: plain pytest running N trivial parametrized tests (pytest's per-item cost);
* ``pytest --structeval-scenarios DIR`` (collect, score, write N reports + the aggregate);
* the same with ``-n 2`` (pytest-xdist).

Target: the scenario run within 1.5x of the floor, and ``-n 2`` faster than serial on a
machine with two free cores. Run: ``uv run python benchmarks/bench_collect.py [N] [repeats]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHAPES = (
    '{{"energy": {i}, "material": {j}}}',
    '```json\n{{"energy": {i}, "material": {j}}}\n```',
    'Final Answer: {{"energy": {i}, "material": {j}}}',
    '<think>maybe {{"energy": 0}}</think>The result is {{"energy": {i}, "material": {j}}}.',
)


def generate(root: Path, count: int) -> None:
    """``count`` scenario folders with one trajectory each, and a plain test module."""
    scenarios = root / "scenarios"
    for i in range(count):
        folder = scenarios / f"scenario_{i:05d}"
        folder.mkdir(parents=True)
        j = (i * 7) % 100
        (folder / "groundtruth.txt").write_text(f'{{"energy": {i}, "material": {j}}}')
        answer = SHAPES[i % len(SHAPES)].format(i=i, j=j)
        record = {
            "run_id": f"run-{i}",
            "runner": "bench",
            "model": "gpt-4o",
            "question": "q",
            "answer": answer,
            "trajectory": {"turns": [{"input_tokens": 100, "output_tokens": 10}]},
        }
        (folder / "trajectory.json").write_text(json.dumps(record))
    plain = root / "plain"
    plain.mkdir()
    (plain / "test_plain.py").write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('i', range({count}))\n"
        "def test_trivial(i):\n    assert i >= 0\n"
    )
    (root / "pytest.ini").write_text("[pytest]\n")


def environment(root: Path) -> dict[str, str]:
    """Bytecode caching on (in a private prefix), as on a user's machine: otherwise every run
    would re-compile, and pytest re-rewrite, each imported module of the plugin's package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    return env


def timed(root: Path, *args: str) -> float:
    """Wall time of one pytest subprocess (it must pass)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=root, env=environment(root), capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed


def best(repeats: int, root: Path, *args: str) -> float:
    return min(timed(root, *args) for _ in range(repeats))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with tempfile.TemporaryDirectory(prefix="structeval-bench-") as tmp:
        root = Path(tmp)
        generate(root, count)
        scenarios = ("--structeval-scenarios", "scenarios")
        timed(root, *scenarios, "-p", "no:xdist", "-k", "00001")  # warm the bytecode caches
        floor = best(repeats, root, "plain", "-p", "no:xdist")
        floor_n2 = best(repeats, root, "plain", "-n", "2")
        serial = best(repeats, root, *scenarios, "-p", "no:xdist")
        parallel = best(repeats, root, *scenarios, "-n", "2")
        reports = len(list((root / "reports" / "structeval").glob("*.json")))
    if reports != count + 1:
        raise SystemExit(f"expected {count} run reports + the aggregate, found {reports} files")
    print(f"{count} items, best of {repeats}")
    print(f"plain pytest (floor)         {floor:7.2f} s  {count / floor:8.0f} items/s")
    print(f"plain pytest -n 2            {floor_n2:7.2f} s  {count / floor_n2:8.0f} items/s")
    print(f"--structeval-scenarios       {serial:7.2f} s  {count / serial:8.0f} items/s")
    print(f"--structeval-scenarios -n 2  {parallel:7.2f} s  {count / parallel:8.0f} items/s")
    print(f"ratio to floor {serial / floor:.2f}x (target <= 1.5x)")
    print(
        f"-n 2 speed-up over serial {serial / parallel:.2f}x "
        f"(plain pytest's own: {floor / floor_n2:.2f}x; xdist pays off when items are slow)"
    )


if __name__ == "__main__":
    main()
