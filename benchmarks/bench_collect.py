"""Speed of a scenario run against pytest's own per-item cost.

Generates N scenario folders (default 5,000), each with a small gold answer and one
trajectory, then times, in subprocesses (best of R repeats, the variants interleaved so that
load on a shared machine hits them alike):

* the floor: plain pytest running N trivial parametrized tests (pytest's per-item cost);
* the folder-node floor: plain pytest (no structeval) with one directory node per scenario
  folder and one trivial item in each: what the ``folder::id[run]`` layout would cost with a
  pytest node per folder (the plugin builds none: a directory of scenario folders yields their
  items itself);
* ``pytest --structeval-scenarios DIR`` (collect, score, write N reports + the aggregate);
* plain pytest and the scenario run with ``-n 2`` (pytest-xdist).

Each scenario run writes into a fresh reports directory (a rerun into the same directory
skips unchanged files, which would flatter the figure), and the serial and ``-n 2`` run
files are compared byte for byte. Wall time is the figure of merit; CPU time (user + system
of the process tree) is printed too, being steadier on a loaded machine.

Where the time goes: every run loads a small timing plugin (``bench_phases``) that marks the
phases of the pytest process (the controller under ``-n 2``): startup (interpreter and pytest,
up to argument parsing), configure (plugins, options), collection, the run loop, session finish
(reports, terminal summary) and exit (pytest's unconfigure, then the interpreter's shutdown:
a process that ran only scenario items skips its last garbage collections, see
``pytest_structeval/exitgc.py``, so the ratio is printed before exit too). Last, the bench times
creating the serial run's report files afresh (temporary file + rename): what the disk charges
for them. A serial run has a writer process create them while items are scored (see
``pytest_structeval/spool.py``), so little of it is left in its session finish; a ``-n 2``
controller does so only when its two workers leave a core to spare (not on a two-core machine).

Target: the scenario run within 1.5x of the floor, and ``-n 2`` faster than serial on a
machine with two free cores. The bench prints the bound the machine sets: the CPU time plain
pytest's ``-n 2`` spends on trivial items (its controller and two workers pass every item's
reports between processes), divided by the cores, is the least wall time any ``-n 2`` run of
as many items can take. Run: ``uv run python benchmarks/bench_collect.py [N] [repeats]``.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

SHAPES = (
    '{{"energy": {i}, "material": {j}}}',
    '```json\n{{"energy": {i}, "material": {j}}}\n```',
    'Final Answer: {{"energy": {i}, "material": {j}}}',
    '<think>maybe {{"energy": 0}}</think>The result is {{"energy": {i}, "material": {j}}}.',
)

PHASES = '''\
"""Wall-clock and CPU marks of a pytest run's phases (controller only), for bench_collect.py."""
import json
import os
import time

import pytest

MARKS = [["configure", time.perf_counter(), time.process_time()]]


def mark(name):
    MARKS.append([name, time.perf_counter(), time.process_time()])


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    mark("collection")


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    mark("run loop")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    mark("session finish")
    try:
        return (yield)
    finally:
        mark("exit")


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if not hasattr(config, "workerinput"):
        with open(os.environ["BENCH_PHASES"], "w") as handle:
            json.dump(MARKS, handle)
'''

FOLDER_FLOOR = '''\
"""One directory node per scenario folder with one trivial item: pytest's layout cost."""
import pytest


class Trivial(pytest.Item):
    def runtest(self):
        pass

    def reportinfo(self):
        return self.path, None, self.name


class Folder(pytest.Directory):
    def collect(self):
        name = self.path.name[len("scenario_"):] + "[run]"
        yield Trivial.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}")


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path, parent):
    if path.name.startswith("scenario_"):
        return Folder.from_parent(parent, path=path)
'''

PHASE_NAMES = ("startup", "configure", "collection", "run loop", "session finish", "exit")


def generate(root: Path, count: int) -> None:
    """``count`` scenario folders with one trajectory each, a plain test module, the
    folder-floor plugin and the phase-timing plugin."""
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
    (root / "folder_floor.py").write_text(FOLDER_FLOOR)
    (root / "bench_phases.py").write_text(PHASES)
    (root / "pytest.ini").write_text("[pytest]\n")


def environment(root: Path, phases: Path) -> dict[str, str]:
    """Bytecode caching on (in a private prefix), as on a user's machine: otherwise every run
    would re-compile, and pytest re-rewrite, each imported module of the plugin's package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    env["BENCH_PHASES"] = str(phases)
    return env


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float  # user + system of the pytest process and its workers
    phases: dict[
        str, tuple[float, float | None]
    ]  # phase -> (wall, CPU) of the (controller) process


def timed(root: Path, *args: str) -> Timing:
    """One pytest subprocess (it must pass), with its phases."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-p", "bench_phases", *args]
    phases_file = root / "phases.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=root,
        env=environment(root, phases_file),
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    marks = json.loads(phases_file.read_text())
    # perf_counter is the system-wide monotonic clock: the child's marks line up with ours.
    points = [("startup", start, 0.0), *marks, ("end", start + elapsed, None)]
    phases = {  # after the last mark ("exit") only wall time is known
        name: (next_wall - wall, None if next_clock is None else next_clock - clock)
        for (name, wall, clock), (_, next_wall, next_clock) in pairwise(points)
    }
    return Timing(elapsed, cpu, phases)


def run_files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.glob("*.json") if p.name != "_aggregate.json"}


def file_floor(folder: Path, files: dict[str, bytes]) -> float:
    """Seconds to create ``files`` in a fresh ``folder`` as the plugin does: a temporary
    file, then ``os.replace``."""
    folder.mkdir()
    start = time.perf_counter()
    for name, data in files.items():
        tmp = folder / f".{name}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, folder / name)
    return time.perf_counter() - start


def show_phases(best: dict[str, Timing], labels: dict[str, str]) -> None:
    print("\nphases of the pytest process (controller under -n 2), wall s (process CPU s):")
    print(f"{'':16s}" + "".join(f"{labels[name]:>17s}" for name in best))
    for phase in PHASE_NAMES:
        cells = []
        for timing in best.values():
            wall, cpu = timing.phases[phase]
            cells.append(f"{wall:7.2f}" + (f" ({cpu:5.2f})" if cpu is not None else " " * 8))
        print(f"{phase:16s}" + "".join(f"{cell:>17s}" for cell in cells))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with tempfile.TemporaryDirectory(prefix="structeval-bench-") as tmp:
        root = Path(tmp)
        generate(root, count)
        fresh = iter(range(1_000_000))

        def scenario_run(*extra: str, scenarios: str = "scenarios") -> tuple[Timing, Path]:
            reports = root / "reports" / f"run-{next(fresh)}"
            args = ("--structeval-scenarios", scenarios, "--structeval-reports-dir", str(reports))
            return timed(root, *args, *extra), reports

        # Warm the bytecode caches on one folder: every module is imported, nothing is timed.
        scenario_run("-p", "no:xdist", scenarios="scenarios/scenario_00001")
        variants: dict[str, list[Timing]] = {}
        last: dict[str, Path] = {}
        for _ in range(repeats):
            variants.setdefault("floor", []).append(timed(root, "plain", "-p", "no:xdist"))
            variants.setdefault("folders", []).append(
                timed(
                    root, "scenarios", "-p", "no:xdist", "-p", "no:structeval", "-p", "folder_floor"
                )
            )
            timing, last["serial"] = scenario_run("-p", "no:xdist")
            variants.setdefault("serial", []).append(timing)
            variants.setdefault("floor_n2", []).append(timed(root, "plain", "-n", "2"))
            timing, last["parallel"] = scenario_run("-n", "2")
            variants.setdefault("parallel", []).append(timing)
        serial_files, parallel_files = run_files(last["serial"]), run_files(last["parallel"])
        disk = file_floor(root / "reports" / "file-floor", serial_files)
    if len(serial_files) != count:
        raise SystemExit(f"expected {count} run reports, found {len(serial_files)}")
    if serial_files != parallel_files:
        raise SystemExit("-n 2 wrote different run reports than the serial run")

    best = {name: min(ts, key=lambda t: t.wall) for name, ts in variants.items()}
    cpu = {name: min(t.cpu for t in ts) for name, ts in variants.items()}
    labels = {
        "floor": "plain pytest (floor)",
        "folders": "folder-node floor (no plugin)",
        "serial": "--structeval-scenarios",
        "floor_n2": "plain pytest -n 2",
        "parallel": "--structeval-scenarios -n 2",
    }
    print(f"{count} items, best of {repeats} (wall; CPU = user + system, all processes)")
    for name, label in labels.items():
        wall = best[name].wall
        print(f"{label:31s} {wall:7.2f} s  {count / wall:7.0f} items/s  CPU {cpu[name]:6.2f} s")
    floor, serial = best["floor"].wall, best["serial"].wall
    print(
        f"ratio to floor {serial / floor:.2f}x wall, {cpu['serial'] / cpu['floor']:.2f}x CPU "
        f"(target <= 1.5x; a node per scenario folder alone would cost "
        f"{best['folders'].wall / floor:.2f}x)"
    )
    paired = [s.wall / f.wall for f, s in zip(variants["floor"], variants["serial"], strict=True)]
    print(
        "ratio per repeat (floor and scenario run back to back): "
        + ", ".join(f"{r:.2f}x" for r in paired)
        + f"; median {statistics.median(paired):.2f}x"
    )
    before = {  # startup to the end of session finish: each process's exit left out
        name: sum(best[name].phases[phase][0] for phase in PHASE_NAMES if phase != "exit")
        for name in ("floor", "serial")
    }
    print(
        f"ratio before exit {before['serial'] / before['floor']:.2f}x (the scenario run exits "
        "without the interpreter's last garbage collections, which plain pytest's exit spends "
        f"part of its {best['floor'].phases['exit'][0]:.2f} s on)"
    )
    print(
        f"-n 2 speed-up over serial {serial / best['parallel'].wall:.2f}x "
        f"(plain pytest's own: {floor / best['floor_n2'].wall:.2f}x; xdist pays off when items "
        "are slow); -n 2 run files identical to serial"
    )
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    bound = cpu["floor_n2"] / (cores or 1)
    print(
        f"on {cores} cores, plain pytest -n 2 alone needs {cpu['floor_n2']:.2f} s of CPU "
        f"(controller and two workers), so no -n 2 run of these items can take under "
        f"{bound:.2f} s, against {serial:.2f} s for the whole serial scenario run"
    )
    short = {
        "floor": "floor",
        "folders": "folder floor",
        "serial": "scenarios",
        "floor_n2": "floor -n 2",
        "parallel": "scenarios -n 2",
    }
    show_phases(best, short)
    print(
        f"\ncreating the {count} run report files alone (temporary file + rename, fresh "
        f"folder): {disk:.2f} s ({disk / count * 1e6:.0f} us per file)"
    )


if __name__ == "__main__":
    main()
