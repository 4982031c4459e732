"""Compare a run with a baseline: an earlier ``_aggregate.json`` (or the reports folder holding it).

The aggregate already keeps what a comparison needs (each run's score and verdict in
``results``, every field path's mean score in ``field_scores``), so saving a baseline is
copying the file (``--structeval-save-baseline`` does it at the end of a complete run).

Runs are matched by scenario id and run id. A scenario whose runs share no run id with the
baseline (new trajectories, random run ids) is compared as a whole: its mean score and pass
rate. An item *regressed* when its score or pass rate dropped by more than the tolerance, and
*improved* when one rose by more and neither dropped; scenarios or runs on one side only are
*new* or *missing* (never a regression: ``-k`` or a shard runs a subset). The tolerance is an
absolute amount (``0.05``) or, written ``5%``, a share of each baseline figure, in the manner of
pytest-benchmark's ``--benchmark-compare-fail=mean:5%``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .errors import OptionsError
from .files import MAX_REPORT_BYTES, read_text
from .naming import plain_number, printable, score_text, system_label
from .paths import composed
from .reportformat import AGGREGATE_NAME, FORMAT_VERSION, NOT_RUN
from .stats import finite_number as _number
from .stats import mean4, mean_ci95

__all__ = [
    "FIELDS_SHOWN",
    "Baseline",
    "BaselineMissing",
    "Tolerance",
    "aggregate_file",
    "baseline_caveat",
    "compare",
    "improvement_failures",
    "item_label",
    "load_baseline",
    "new_failures",
    "parse_tolerance",
    "regression_failures",
    "tolerance_label",
]

FIELDS_SHOWN: Final = 20
"""How many regressed and improved field paths the section lists (all are counted)."""
_SHOWN_IN_REASON: Final = 3
_SLACK: Final = 1e-9
"""Added to the change allowed: figures are compared on the reports' four-decimal grid, where
a change of exactly the tolerance is none, but a relative room such as 0.2 x 0.35 lands a hair
under its decimal value (0.06999999999999999)."""

_Outcome = tuple[float, bool]  # (score, passed) of one run


@dataclass(frozen=True, slots=True)
class Baseline:
    """A loaded baseline: where it came from and the aggregate report it holds."""

    source: str
    report: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How far a figure may move before it counts: ``amount`` itself (scores and rates lie in
    [0, 1]) or, when ``relative``, that share of the baseline figure."""

    amount: float = 0.0
    relative: bool = False

    def allowed(self, base: float) -> float:
        """The change of a figure whose baseline value is ``base`` that still counts as none."""
        return (self.amount * abs(base) if self.relative else self.amount) + _SLACK

    def __str__(self) -> str:
        return f"{self.amount * 100:g}%" if self.relative else f"{self.amount:.4f}"


def parse_tolerance(value: str | float | Tolerance) -> Tolerance:
    """``0.05`` (an absolute amount in [0, 1]) or ``5%`` (a share of the baseline figure, 0 to
    100 %); ``OptionsError`` for anything else."""
    if isinstance(value, Tolerance):
        return value
    text = str(value).strip()
    relative = text.endswith("%")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        read = plain_number(text[:-1] if relative else text)
        number = math.nan if read is None else read
    limit = 100.0 if relative else 1.0
    if not (math.isfinite(number) and 0.0 <= number <= limit):
        raise OptionsError(
            f"expected a number in [0, 1] or a percentage such as 5%, got {str(value)!r}"
        )
    return Tolerance(number / 100.0 if relative else number, relative)


class BaselineMissing(OptionsError):
    """:func:`load_baseline` of a path that names no file: a first run has none yet. The
    caller says what to do (the plugin and the CLI each name their own options)."""

    def __init__(self, message: str, target: Path) -> None:
        super().__init__(message)
        self.target = target
        """The aggregate file that was looked for."""


def load_baseline(
    path: str | Path, *, source: str | None = None, role: str = "baseline"
) -> Baseline:
    """Read an ``_aggregate.json`` file, or the one inside a reports folder.

    ``source`` names it in messages and reports (default: ``path``), after ``role`` (what
    the file is to the caller: ``structeval compare`` reads a "current" one too).
    ``OptionsError`` when it is missing (:class:`BaselineMissing`), unreadable, or not an
    aggregate report (no ``results`` list), so a typo fails the run at startup instead of
    comparing with nothing.
    """
    shown = str(path) if source is None else source
    name = f"{role} {shown!r}"
    target = aggregate_file(path)
    where = printable(os.fspath(target))  # (a \r from a script saved with CRLF, escaped)
    try:
        text = read_text(os.fspath(target), MAX_REPORT_BYTES)
        if not text.strip():
            raise ValueError("the file is empty")
        report = json.loads(text)
    except FileNotFoundError:
        raise BaselineMissing(f"{name}: no such file: {where}", target) from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise OptionsError(f"{name}: cannot read {where}: {exc}") from None
    if not isinstance(report, dict) or not isinstance(report.get("results"), list):
        raise OptionsError(f"{name}: {where} is not an aggregate report (no 'results' list)")
    layout = report.get("format_version", FORMAT_VERSION)  # AssetOpsBench's have none
    if not isinstance(layout, int) or isinstance(layout, bool) or layout < 1:
        raise OptionsError(f"{name}: {where} has an unknown report format {layout!r}")
    if layout > FORMAT_VERSION:
        raise OptionsError(
            f"{name}: {where} has report format {layout}, newer than this "
            f"pytest-structeval reads ({FORMAT_VERSION}); compare with the version that wrote it"
        )
    for _, scenario_id, run_id, score, passed in _entries(report):
        if score is not None and not _fraction(score):
            raise OptionsError(
                f"{name}: {where}: run {scenario_id}/{run_id} has score {score!r}, "
                "not a number from 0 to 1"
            )
        if passed is not None and not isinstance(passed, bool):
            raise OptionsError(
                f"{name}: {where}: run {scenario_id}/{run_id} has passed {passed!r}, "
                "not true or false"
            )
    for path, row in _mapping(report.get("field_scores")).items():
        mean = _mapping(row).get("mean_score")
        if mean is not None and not _fraction(mean):
            raise OptionsError(
                f"{name}: {where}: field {path} has mean_score {mean!r}, not a number from 0 to 1"
            )
    return Baseline(shown, report)


def _fraction(value: Any) -> bool:
    """Whether ``value`` is a finite number from 0 to 1 (a score, a mean score)."""
    return _number(value) is not None and 0 <= value <= 1


def aggregate_file(path: str | Path) -> Path:
    """The aggregate a baseline path names: the file itself, or the one in a reports folder."""
    target = Path(path)
    return target / AGGREGATE_NAME if target.is_dir() else target


def _mapping(value: Any) -> Mapping[str, Any]:
    """A section of a report that may come from anywhere (a baseline file): itself when it is
    a mapping, else empty, so a malformed section compares as a missing one."""
    return value if isinstance(value, Mapping) else {}


_System = tuple[str, str] | None  # (runner, model) of a result entry; None: not recorded
_BySystem = dict[_System, list[_Outcome]]
_Runs = dict[str, dict[str, _BySystem]]


def _runs(report: Mapping[str, Any]) -> _Runs:
    """``{scenario id: {run id: {(runner, model): [(score, passed), ...]}}}`` from a report's
    ``results`` (``None`` for the system of an entry that records none: a report written
    before the entries named it).

    Accepts our compact entries and AssetOpsBench's full ones (``score`` is then a mapping
    holding ``score`` and ``passed``), so a reference aggregate works as a baseline too.
    """
    runs: _Runs = {}
    for entry, scenario_id, run_id, score, passed in _entries(report):
        if str(entry.get("error") or "").startswith(NOT_RUN):
            continue  # never scored (-x, Ctrl-C): new or missing, never a change
        systems = runs.setdefault(scenario_id, {}).setdefault(run_id, {})
        systems.setdefault(_system(entry), []).append((_number(score) or 0.0, passed is True))
    return runs


def _system(entry: Mapping[str, Any]) -> _System:
    if "runner" not in entry and "model" not in entry:
        return None
    return composed(str(entry.get("runner") or "")), composed(str(entry.get("model") or ""))


def _system_label(system: _System) -> str:
    """``react / gpt-4o`` (either alone, or ``unknown``), as ``by_runner_model`` names it."""
    return system_label(*(system or ("", "")))


def _split(old: Mapping[_System, Any], now: Mapping[_System, Any]) -> bool:
    """Whether one run id's outcomes are compared per runner and model: several ran it on a
    side (agents numbering their runs alike, ``run01``), and both sides record who did. One
    runner and model on each side are compared whoever they are (a new model against the
    old one's baseline)."""
    return (len(old) > 1 or len(now) > 1) and None not in old and None not in now


def _pooled(systems: Mapping[_System, list[_Outcome]]) -> list[_Outcome]:
    return [outcome for outcomes in systems.values() for outcome in outcomes]


def _systems(runs: Mapping[str, _BySystem]) -> _BySystem:
    """A scenario's outcomes per runner and model, over all its run ids."""
    systems: _BySystem = {}
    for by_system in runs.values():
        for system, outcomes in by_system.items():
            systems.setdefault(system, []).extend(outcomes)
    return systems


def _entries(
    report: Mapping[str, Any],
) -> Iterator[tuple[Mapping[str, Any], str, str, Any, Any]]:
    """``(entry, scenario id, run id, score, passed)`` of each entry of ``results``, as
    written (the ids NFC)."""
    results = report.get("results")
    for entry in results if isinstance(results, list) else ():
        if not isinstance(entry, Mapping):
            continue
        score: Any = entry.get("score")
        passed: Any = entry.get("passed")
        if isinstance(score, Mapping):
            score, passed = score.get("score"), score.get("passed")
        # (NFC: a baseline saved where names are decomposed, as macOS stores folder names)
        scenario_id = composed(str(entry.get("scenario_id") or ""))
        run_id = composed(str(entry.get("run_id") or ""))
        yield entry, scenario_id, run_id, score, passed


def _item(
    scenario_id: str,
    run_id: str | None,
    before: Sequence[_Outcome],
    after: Sequence[_Outcome],
    tolerance: Tolerance,
) -> tuple[str, dict[str, Any]]:
    """One compared item (a run, or a whole scenario when ``run_id`` is None) and its verdict."""
    base_score, score = mean4([s for s, _ in before]), mean4([s for s, _ in after])
    base_rate, rate = mean4([float(p) for _, p in before]), mean4([float(p) for _, p in after])
    delta, rate_delta = round(score - base_score, 4), round(rate - base_rate, 4)
    score_room, rate_room = tolerance.allowed(base_score), tolerance.allowed(base_rate)
    if delta < -score_room or rate_delta < -rate_room:
        verdict = "regressed"
    elif delta > score_room or rate_delta > rate_room:
        verdict = "improved"
    else:
        verdict = "unchanged"
    return verdict, {
        "scenario_id": scenario_id,
        "run_id": run_id,
        "runs": [len(before), len(after)],
        "baseline_score": base_score,
        "score": score,
        "delta": delta,
        "baseline_pass_rate": base_rate,
        "pass_rate": rate,
        "pass_rate_delta": rate_delta,
    }


def _one_sided(
    scenario_id: str, run_id: str | None, runs: int, runner_model: str | None = None
) -> dict[str, Any]:
    item = {"scenario_id": scenario_id, "run_id": run_id, "runs": runs}
    return item if runner_model is None else {**item, "runner_model": runner_model}


def _item_figure(items: Sequence[Mapping[str, Any]], before: str, after: str) -> dict[str, Any]:
    """The mean of the compared items' figures on each side, every item (a run, or a
    scenario compared as a whole) weighing the same: a selection, a shard, scenarios added or
    removed and a different number of repeats do not move it, only changed scores do."""
    if not items:
        return _figure(None, None)
    return _figure(mean4([i[before] for i in items]), mean4([i[after] for i in items]))


def _figure(before: Any, after: Any) -> dict[str, float | None]:
    b, a = _number(before), _number(after)
    return {
        "baseline": b,
        "current": a,
        "delta": None if b is None or a is None else round(a - b, 4),
    }


def _fields(before: Any, after: Any, tolerance: Tolerance) -> dict[str, Any] | None:
    """Field paths present in both ``field_scores``: mean-score deltas beyond the tolerance."""
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return None  # an aggregate written before field_scores existed
    rows = []
    for path in sorted(before.keys() & after.keys()):
        b = _number(_mapping(before[path]).get("mean_score"))
        a = _number(_mapping(after[path]).get("mean_score"))
        if a is not None and b is not None:
            rows.append({"path": path, "baseline_mean": b, "mean": a, "delta": round(a - b, 4)})
    regressed = sorted(
        (r for r in rows if r["delta"] < -tolerance.allowed(r["baseline_mean"])),
        key=lambda r: r["delta"],
    )
    improved = sorted(
        (r for r in rows if r["delta"] > tolerance.allowed(r["baseline_mean"])),
        key=lambda r: -r["delta"],
    )
    return {
        "compared": len(rows),
        "regressed_count": len(regressed),
        "improved_count": len(improved),
        "regressed": regressed[:FIELDS_SHOWN],
        "improved": improved[:FIELDS_SHOWN],
    }


def compare(
    baseline: Baseline, report: Mapping[str, Any], *, tolerance: float | Tolerance = 0.0
) -> dict[str, Any]:
    """The ``baseline`` section of ``report`` (plain data; deterministic order). A number as
    ``tolerance`` is an absolute amount."""
    if not isinstance(tolerance, Tolerance):
        tolerance = Tolerance(float(tolerance))
    before, after = _runs(baseline.report), _runs(report)
    found: dict[str, list[dict[str, Any]]] = {"improved": [], "regressed": [], "unchanged": []}
    new: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []

    def compare_item(
        scenario_id: str, run_id: str | None, base: _BySystem, current: _BySystem
    ) -> None:
        """One run id's outcomes (or a whole scenario's), per runner and model where
        :func:`_split` says so: one model's drop never hides in another's rise."""
        if not _split(base, current):
            verdict, item = _item(scenario_id, run_id, _pooled(base), _pooled(current), tolerance)
            found[verdict].append(item)
            return
        for system in sorted(base.keys() | current.keys(), key=str):
            who = _system_label(system)
            if system not in current:
                missing.append(_one_sided(scenario_id, run_id, len(base[system]), who))
            elif system not in base:
                new.append(_one_sided(scenario_id, run_id, len(current[system]), who))
            else:
                verdict, item = _item(scenario_id, run_id, base[system], current[system], tolerance)
                found[verdict].append({**item, "runner_model": who})

    for scenario_id in sorted(before.keys() | after.keys()):
        old, now = before.get(scenario_id), after.get(scenario_id)
        if old is None or now is None:
            if now is not None:
                new.append(_one_sided(scenario_id, None, sum(map(len, now.values()))))
            elif old is not None:
                missing.append(_one_sided(scenario_id, None, sum(map(len, old.values()))))
            continue
        common = sorted(old.keys() & now.keys())
        if not common:  # re-runs get new ids: the scenario as a whole, per runner and model
            compare_item(scenario_id, None, _systems(old), _systems(now))
            continue
        for run_id in common:
            compare_item(scenario_id, run_id, old[run_id], now[run_id])
        new.extend(
            _one_sided(scenario_id, r, len(_pooled(now[r])))
            for r in sorted(now.keys() - old.keys())
        )
        missing.extend(
            _one_sided(scenario_id, r, len(_pooled(old[r])))
            for r in sorted(old.keys() - now.keys())
        )

    def worst_first(item: Mapping[str, Any]) -> tuple[float, float, str, str]:
        return (
            min(item["delta"], item["pass_rate_delta"]),
            item["delta"],
            item["scenario_id"],
            item["run_id"] or "",
        )

    found["regressed"].sort(key=worst_first)
    found["improved"].sort(
        key=lambda i: (-max(i["delta"], i["pass_rate_delta"]), *worst_first(i)[1:])
    )
    compared = [item for items in found.values() for item in items]
    # Like for like: no run on one side only, and a scenario compared as a whole (no run id
    # in common) as many runs on each side.
    same_runs = not new and not missing and all(i["runs"][0] == i["runs"][1] for i in compared)
    parse_rate = _figure(
        _mapping(baseline.report.get("parse")).get("parse_rate"),
        _mapping(report.get("parse")).get("parse_rate"),
    )
    if not same_runs:  # the reports hold no parse outcome per run: other runs, no delta
        parse_rate["delta"] = None
    return {
        "source": baseline.source,
        "generated_at": baseline.report.get("generated_at"),
        # what the baseline run left out reads as "new" here
        "baseline_selection": baseline.report.get("selection") is True,
        "baseline_complete": baseline.report.get("complete") is not False,
        "tolerance": tolerance.amount,
        "tolerance_relative": tolerance.relative,
        "same_runs": same_runs,
        "score_avg": _item_figure(compared, "baseline_score", "score"),
        # The t-interval of the same item changes: is a drop more than noise?
        "score_delta_ci95": mean_ci95((i["delta"] for i in compared), lower=-1.0),
        "pass_rate": _item_figure(compared, "baseline_pass_rate", "pass_rate"),
        "parse_rate": parse_rate,
        "counts": {
            "compared": sum(len(items) for items in found.values()),
            **{verdict: len(items) for verdict, items in found.items()},
            "new": len(new),
            "missing": len(missing),
        },
        "regressed": found["regressed"],
        "improved": found["improved"],
        "new": new,
        "missing": missing,
        "fields": _fields(
            baseline.report.get("field_scores"), report.get("field_scores"), tolerance
        )
        if same_runs  # a field's mean pools every run that has it: other runs, other means
        else None,
    }


def item_label(item: Mapping[str, Any]) -> str:
    """``scenario[run] 1.0000 -> 0.5000`` for a compared item (a scenario alone: its mean;
    ``scenario[run] (react / gpt-4o)`` when several runners and models ran that run id)."""
    run = item.get("run_id")
    name = f"{item['scenario_id']}[{run}]" if run is not None else f"{item['scenario_id']} (mean)"
    who = item.get("runner_model")
    before, after = score_text(item["baseline_score"], ".4f"), score_text(item["score"], ".4f")
    return f"{name}{f' ({who})' if who else ''} {before} -> {after}"


def regression_failures(report: Mapping[str, Any], *, flag: str) -> list[str]:
    """One line when the report's ``baseline`` section lists regressed items, else nothing."""
    return _change_failures(report, "regressed", flag, "")


def improvement_failures(report: Mapping[str, Any], *, flag: str, accept: str) -> list[str]:
    """One line when the report's ``baseline`` section lists improved items, else nothing:
    a baseline that lags behind hides the next regression (pytest-benchmark#148). ``accept``
    says how to make this run the baseline."""
    return _change_failures(report, "improved", flag, f"; accept them with {accept}")


def new_failures(report: Mapping[str, Any], *, flag: str, first: str | None = None) -> list[str]:
    """One line when runs of the report failed that its ``baseline`` section lists as new (a
    run id or a scenario the baseline lacks): ``flag`` lets a run that failed in the baseline
    too pass as no regression, never one the baseline cannot speak for. ``first``: the
    baseline named is not there yet (a first run), so every failing run is new."""
    section = report.get("baseline")
    if first is not None:
        section = {"source": f"{first} (there is none yet)"}
    elif not isinstance(section, Mapping):
        return []
    new = {
        (item.get("scenario_id"), item.get("run_id"), item.get("runner_model"))
        for item in section.get("new") or ()
    }
    failing = [
        f"{scenario_id}[{entry.get('label') or run_id}]"  # (the label: run-1-2, as its item)
        for entry, scenario_id, run_id, _, passed in _entries(report)
        if passed is not True
        and (
            first is not None
            or not new.isdisjoint(
                {
                    (scenario_id, None, None),
                    (scenario_id, None, _system_label(_system(entry))),  # a whole scenario's
                    (scenario_id, run_id, None),
                    (scenario_id, run_id, _system_label(_system(entry))),
                }
            )
        )
    ]
    if not failing:
        return []
    what, them = (
        ("1 failing run is", "it")
        if len(failing) == 1
        else (f"{len(failing)} failing runs are", "them")
    )
    more = len(failing) - _SHOWN_IN_REASON
    return [
        f"structeval: {what} not in baseline {section['source']}, so {flag} cannot excuse "
        f"{them}: {', '.join(failing[:_SHOWN_IN_REASON])}"
        + (f", ... (+{more} more)" if more > 0 else "")
    ]


def _change_failures(report: Mapping[str, Any], kind: str, flag: str, advice: str) -> list[str]:
    section = report.get("baseline")
    if not isinstance(section, Mapping) or not section.get(kind):
        return []
    items = section[kind]
    shown = ", ".join(item_label(item) for item in items[:_SHOWN_IN_REASON])
    more = len(items) - _SHOWN_IN_REASON
    return [
        f"structeval: {len(items)} of {section['counts']['compared']} compared items "
        f"{kind} against baseline {section['source']} (tolerance "
        f"{tolerance_label(section)}, {flag}): {shown}"
        + (f", ... (+{more} more)" if more > 0 else "")
        + advice
    ]


def baseline_caveat(section: Mapping[str, Any]) -> str | None:
    """Why runs a comparison calls new may not be new: the baseline scored a selection, or
    did not finish. Every output of the comparison says it (terminal, Markdown, HTML)."""
    if section.get("baseline_selection") is True:
        return "the baseline scored a selection: the runs it left out count as new here"
    if section.get("baseline_complete") is False:
        return "the baseline is an incomplete run: a run it did not score is new here"
    return None


def tolerance_label(section: Mapping[str, Any]) -> str:
    """The tolerance of a ``baseline`` section as the user wrote it (``0.0500``, ``5%``)."""
    amount = _number(section.get("tolerance")) or 0.0
    return str(Tolerance(amount, section.get("tolerance_relative") is True))
