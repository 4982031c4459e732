"""The run summary as blocks (headings, paragraphs, bullets, tables) read from an aggregate
report, for the renderers that share it: Markdown (``markdown.py``) and HTML
(``htmlreport.py``).

Built from the ``_aggregate.json`` content alone, so the pytest plugin and ``structeval
evaluate`` produce the same summary. Text from the data (ids, paths, error messages) is made
printable, put on one line and clipped here; each renderer escapes it for its own syntax.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .baseline import FIELDS_SHOWN, baseline_caveat, tolerance_label
from .naming import printable, score_text
from .report import (
    REASON_CHARS,
    errors_split,
    repeat_unit,
    run_name,
    system_names,
    system_of,
    worst_types,
)

__all__ = [
    "ROWS_SHOWN",
    "Block",
    "Bullets",
    "GateRow",
    "Heading",
    "Paragraph",
    "Table",
    "summary_blocks",
]

ROWS_SHOWN: Final = 20
"""How many failing runs, regressed items, worst fields and scenario types each table lists."""
CELL_WIDTH: Final = 120
_REPORT_WIDTH: Final = 200
"""A report file's name is at most 150 bytes before its suffixes (``report._NAME_BYTES``):
shown whole, so the HTML page links it (a cut name is text)."""
_NAMED: Final = 5  # entries named per kind of loose end, as in the terminal summary
_SPACE = re.compile(r"\s+")

GateRow = tuple[str, float | None, bool]  # (gate text, compared figure, met)


@dataclass(frozen=True, slots=True)
class Heading:
    text: str
    level: int = 3


@dataclass(frozen=True, slots=True)
class Paragraph:
    """``text``, after ``label`` in bold when there is one."""

    text: str
    label: str = ""


@dataclass(frozen=True, slots=True)
class Bullets:
    """``(label, text)`` items: the label in bold, when there is one."""

    items: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Table:
    """``align`` has one letter per column: ``l`` left, ``r`` right; ``failing`` marks the
    rows that show a failure (a failing run, a missed gate)."""

    header: tuple[str, ...]
    align: str
    rows: tuple[tuple[str, ...], ...]
    failing: tuple[bool, ...] = ()


Block = Heading | Paragraph | Bullets | Table


def clip(value: Any, width: int = CELL_WIDTH) -> str:
    """Text from the data (a reason, a message) on one printable line, at most ``width``
    characters, its whitespace runs folded to one space."""
    return _cut(printable(_SPACE.sub(" ", str(value)).strip()), width)


def clip_name(value: Any, width: int = CELL_WIDTH) -> str:
    """An id, a type or a field path from the data as :func:`clip` shows text, but with its
    whitespace escaped (``a\\tb``), never folded: ``a b``, ``a\\tb`` and ``a\\nb`` are three
    ids, as the terminal and the CSV tables show them. A long one keeps its start and its
    end (``cell_Z_hybrid_…_run01``): ids of one batch often differ only there."""
    text = printable(str(value))
    if len(text) <= width:
        return text
    tail = width // 3
    return f"{text[: width - 1 - tail]}…{text[-tail:]}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def num(value: Any, digits: int = 4) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–"
    return str(value) if isinstance(value, int) else score_text(value, f".{digits}f")


def _signed(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–"
    return f"{value:+.4f}"


def _table(
    header: Sequence[str],
    align: str,
    rows: Sequence[Sequence[str]],
    failing: Sequence[bool] = (),
) -> Table:
    return Table(tuple(header), align, tuple(tuple(row) for row in rows), tuple(failing))


def _section(report: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = report.get(name)
    return value if isinstance(value, Mapping) else {}


def summary_blocks(
    report: Mapping[str, Any],
    *,
    gates: Sequence[GateRow] = (),
    problems: Sequence[str] = (),
    title: str = "structeval results",
    every_run: bool = False,
) -> list[Block]:
    """Totals, scenario types, gates and problems, what was not read or joined, parse methods,
    repeats, the baseline comparison, the worst fields and the failing runs with why each
    failed; sections without data are left out. ``every_run`` (the HTML report) gives tables
    of every run, every field and every array field pattern instead of the first failing ones."""
    blocks: list[Block] = [Heading(clip(title), 2)]
    blocks += _totals(report)
    blocks += _types(_section(report, "by_scenario_type"))
    blocks += _runner_models(_section(report, "by_runner_model"), every_run)
    blocks += _checks(gates, problems)
    blocks += _loose_ends(report)
    blocks += _parse(_section(report, "parse"))
    blocks += _repeats(report)
    blocks += _baseline(_section(report, "baseline"))
    if every_run:
        blocks += _all_fields(report.get("field_scores"))
        blocks += _all_fields(report.get("field_patterns"), "Array fields, elements pooled")
        blocks += _all_runs(report.get("results"))
    else:
        blocks += _worst_fields(report.get("per_field"))
        blocks += _failing_runs(report.get("results"))
    return blocks


def _totals(report: Mapping[str, Any]) -> list[Block]:
    totals = _section(report, "totals")
    summary = _section(report, "score_summary")
    ci = summary.get("score_ci95")
    ci_text = f"{num(ci[0])} – {num(ci[1])}" if isinstance(ci, Sequence) and len(ci) == 2 else "–"
    row = [
        num(totals.get("scenarios")),
        num(totals.get("scored")),
        num(totals.get("passed")),
        num(totals.get("pass_rate")),
        num(summary.get("score_avg")),
        ci_text,
        num(_section(report, "parse").get("parse_rate")),
        num(totals.get("errors")),
    ]
    header = [
        "Scenarios",
        "Runs",
        "Passed",
        "Pass rate",
        "Mean score",
        "95% CI",
        "Parse rate",
        "Errors",
    ]
    blocks: list[Block] = [_table(header, "rrrrrrrr", [row])]
    valid = summary.get("schema_valid_avg")
    if isinstance(valid, (int, float)):
        blocks.append(
            Paragraph(
                f"valid rate {num(valid)} over the scored runs that name one.", "Answer schema:"
            )
        )
    recovered = report.get("recovered_crashes") or []
    if recovered:
        blocks.append(Paragraph(clip("; ".join(map(str, recovered)), 400), "Recovered:"))
    if report.get("complete") is False:
        reasons = report.get("incomplete_reasons") or ["unknown reason"]
        blocks.append(Paragraph(clip("; ".join(map(str, reasons)), 400), "Incomplete run:"))
    return blocks


def _types(types: Mapping[str, Any]) -> list[Block]:
    """Each scenario type's figures, worst pass rate first (what gates such as
    ``pass_rate[IoT]>=0.9`` read); left out when no run has a type."""
    if not set(types) - {"unknown"}:
        return []
    ranked = worst_types(types)
    rows = [
        [
            clip_name(name),
            num(row.get("total")),
            num(row.get("passed")),
            num(row.get("pass_rate")),
            num(row.get("score_avg")),
        ]
        for name, row in ranked[:ROWS_SHOWN]
    ]
    shown = f" (worst {ROWS_SHOWN} of {len(ranked)})" if len(ranked) > ROWS_SHOWN else ""
    header = ["Scenario type", "Runs", "Passed", "Pass rate", "Mean score"]
    return [Heading(f"By scenario type{shown}"), _table(header, "lrrrr", rows)]


def _runner_models(systems: Mapping[str, Any], every: bool) -> list[Block]:
    """Each runner and model's figures, in name order, when the run compares several: the
    first :data:`ROWS_SHOWN`, or ``every`` one (the HTML report)."""
    entries = [(name, row) for name, row in systems.items() if isinstance(row, Mapping)]
    if len(entries) < 2:
        return []
    shown_rows = len(entries) if every else ROWS_SHOWN
    rows = [
        [
            clip_name(name),
            num(row.get("runs")),
            num(row.get("passed")),
            num(row.get("pass_rate")),
            num(row.get("score_avg")),
            num(row.get("pass_at_k")),
            num(row.get("pass_hat_k")),
            num(len(row["flaky"]) if isinstance(row.get("flaky"), list) else None),
        ]
        for name, row in entries[:shown_rows]
    ]
    shown = f" (first {shown_rows} of {len(entries)})" if len(entries) > shown_rows else ""
    header = ["Runner / model", "Runs", "Passed", "Pass rate", "Mean score", "pass@k", "pass^k"]
    return [
        Heading(f"By runner and model{shown}"),
        _table([*header, "Flaky"], "lrrrrrrr", rows),
    ]


def _checks(gates: Sequence[GateRow], problems: Sequence[str]) -> list[Block]:
    if not gates and not problems:
        return []
    blocks: list[Block] = [Heading("Checks")]
    if gates:
        rows = [
            [clip(text), num(value), "✅ met" if met else "❌ missed"] for text, value, met in gates
        ]
        missed = [not met for _, _, met in gates]
        blocks.append(_table(["Gate", "Value", "Result"], "lrl", rows, missed))
    if problems:
        blocks.append(Bullets(tuple(("", f"❌ {clip(problem, 400)}") for problem in problems)))
    return blocks


def _loose_ends(report: Mapping[str, Any]) -> list[Block]:
    """The terminal summary's errors, unmatched and duplicate entries, counted with the first
    few named: a CI page must not look cleaner than the run was."""
    unmatched = _section(report, "unmatched")
    kinds: list[tuple[str, Any, Callable[[Mapping[str, Any]], str]]] = [
        ("Errors", report.get("errors"), lambda e: f"{e.get('source')}: {e.get('error')}"),
        ("Unmatched trajectories", unmatched.get("trajectories"), lambda t: f"{t.get('source')}"),
        (
            "Scenarios without trajectories",
            unmatched.get("scenarios"),
            lambda s: f"{s.get('path')}",
        ),
        ("Duplicates", report.get("duplicates"), _duplicate),
        (
            "Repeated keys",
            report.get("repeated_keys"),
            lambda r: f"{r.get('source')}: {r.get('problem')}",
        ),
    ]
    totals = _section(report, "totals")
    items = []
    for label, entries, show in kinds:
        if not isinstance(entries, list) or not entries:
            continue
        count = f"{len(entries)}"
        if label == "Errors" and isinstance(totals.get("errors"), int):  # (a table's: runs)
            count += f" ({errors_split(totals, len(entries))})"
        named = [clip(show(e), 200) for e in entries[:_NAMED] if isinstance(e, Mapping)]
        more = f"; +{len(entries) - _NAMED} more" if len(entries) > _NAMED else ""
        items.append((f"{label}: {count}", f"({'; '.join(named)}{more})"))
    return [Heading("Not scored or not joined"), Bullets(tuple(items))] if items else []


def _duplicate(entry: Mapping[str, Any]) -> str:
    """``run_id r of scenario 1 in a.json, b.json`` (a scenario id names its sources)."""
    sources = ", ".join(map(str, entry.get("sources") or ()))
    scenario = entry.get("scenario_id")
    of = "" if scenario is None else f" of scenario {scenario}"
    return f"{entry.get('kind')} {entry.get('id')}{of} in {sources}"


def _parse(parse: Mapping[str, Any]) -> list[Block]:
    methods = parse.get("methods")
    if not parse.get("answers") or not isinstance(methods, Mapping):
        return []
    text = (
        f"{parse['structured']} of {parse['answers']} answers parsed to structure, "
        f"{parse['text']} fell back to text, {parse['empty']} were empty, "
        f"{parse['unparsed']} could not be parsed"
        + (f"; {num(parse['abstained'])} declined to answer." if parse.get("abstained") else ".")
    )
    ranked = sorted(  # most used first, as in the terminal summary
        methods.items(),
        key=lambda item: (-item[1] if isinstance(item[1], (int, float)) else 0, str(item[0])),
    )
    rows = [[clip(method), num(count)] for method, count in ranked]
    return [Heading("Parsing"), Paragraph(text), _table(["Parse method", "Answers"], "lr", rows)]


def _repeats(report: Mapping[str, Any]) -> list[Block]:
    repeats = _section(report, "repeats")
    if not repeats.get("repeated"):
        return []
    blocks: list[Block] = [
        Heading("Repeats"),
        Paragraph(
            f"{repeats['repeated']} of {repeats['scenarios']} {repeat_unit(report)} ran more "
            f"than once: pass@k {num(repeats['pass_at_k'])}, pass^k {num(repeats['pass_hat_k'])}, "
            f"{len(repeats['flaky'])} flaky."
        ),
    ]
    scenarios = _section(report, "by_scenario")
    flaky = [sid for sid in repeats["flaky"] if isinstance(scenarios.get(sid), Mapping)]
    rows = [
        [
            clip_name(sid),
            num(scenarios[sid]["runs"]),
            num(scenarios[sid]["passed"]),
            num(scenarios[sid]["score_avg"]),
        ]
        for sid in flaky[:ROWS_SHOWN]
    ]
    if rows:
        blocks.append(_table(["Flaky scenario", "Runs", "Passed", "Mean score"], "lrrr", rows))
    return blocks


def _baseline(section: Mapping[str, Any]) -> list[Block]:
    if not section:
        return []
    generated = (
        f" (generated {clip(section['generated_at'])})" if section.get("generated_at") else ""
    )
    blocks: list[Block] = [
        Heading("Baseline"),
        Paragraph(
            f"Compared with {clip(section.get('source'))}{generated}, "
            f"tolerance {tolerance_label(section)}."
        ),
    ]
    figures = [
        ("Mean score", _section(section, "score_avg")),
        ("Pass rate", _section(section, "pass_rate")),
        ("Parse rate", _section(section, "parse_rate")),
    ]
    rows = [
        [name, num(f.get("baseline")), num(f.get("current")), _signed(f.get("delta"))]
        for name, f in figures
    ]
    blocks.append(_table(["", "Baseline", "Current", "Delta"], "lrrr", rows))
    counts = _section(section, "counts")
    blocks.append(
        Paragraph(
            " · ".join(
                f"{name.capitalize()} {counts.get(name, 0)}"
                for name in ("improved", "regressed", "unchanged", "new", "missing")
            )
        )
    )
    ci = section.get("score_delta_ci95")
    if isinstance(ci, list) and len(ci) == 2:
        blocks.append(
            Paragraph(
                f"Score change 95% CI: {_signed(ci[0])} to {_signed(ci[1])} "
                f"(t-interval over the {counts.get('compared', 0)} compared items)."
            )
        )
    caveat = baseline_caveat(section)
    if caveat is not None:
        blocks.append(Paragraph(caveat[0].upper() + caveat[1:] + "."))
    if section.get("same_runs") is False:
        blocks.append(
            Paragraph(
                "Mean score and pass rate are over the items both hold, each weighing the same; "
                "field means and the parse rate are compared only when both hold the same runs."
            )
        )
    for verdict in ("regressed", "improved"):
        items = section.get(verdict) or []
        if items:
            rows = [
                [
                    clip_name(item["scenario_id"]),
                    _compared_run(item),
                    num(item["baseline_score"]),
                    num(item["score"]),
                    _signed(item["delta"]),
                    f"{num(item['baseline_pass_rate'])} → {num(item['pass_rate'])}",
                ]
                for item in items[:ROWS_SHOWN]
            ]
            header = [f"{verdict.capitalize()} scenario", "Run", "Baseline", "Now", "Delta"]
            blocks.append(_table([*header, "Pass rate"], "llrrrl", rows))
    fields = _section(section, "fields")
    for verdict in ("regressed", "improved"):
        items = fields.get(verdict) or []
        if items:
            rows = [
                [clip_name(f["path"]), num(f["baseline_mean"]), num(f["mean"]), _signed(f["delta"])]
                for f in items[:FIELDS_SHOWN]
            ]
            header = [f"{verdict.capitalize()} field", "Baseline mean", "Mean", "Delta"]
            blocks.append(_table(header, "lrrr", rows))
    return blocks


def _worst_fields(per_field: Any) -> list[Block]:
    if not isinstance(per_field, list) or not per_field:
        return []
    rows = [
        [clip_name(row["path"]), num(row["mean_score"]), _failing(row)]
        for row in per_field[:ROWS_SHOWN]
        if isinstance(row, Mapping)
    ]
    return [Heading("Worst fields"), _table(["Field", "Mean score", "Failing"], "lrr", rows)]


def _all_fields(field_scores: Any, title: str = "Fields") -> list[Block]:
    """Every field path, worst mean first, then most failures (as ``fields.csv``)."""
    if not isinstance(field_scores, Mapping) or not field_scores:
        return []
    from .csvtables import field_rows

    rows = [
        [clip_name(row["path"]), num(row.get("mean_score")), _failing(row)]
        for row in field_rows(field_scores)
    ]
    return [
        Heading(f"{title} ({len(rows)}, worst first)"),
        _table(["Field", "Mean score", "Failing"], "lrr", rows),
    ]


def _failing_runs(results: Any) -> list[Block]:
    if not isinstance(results, list):
        return []
    failing = [r for r in results if isinstance(r, Mapping) and r.get("passed") is not True]
    if not failing:
        return []
    rows = [_run_row(r) for r in failing[:ROWS_SHOWN]]
    shown = f"first {ROWS_SHOWN} of {len(failing)}" if len(failing) > ROWS_SHOWN else len(failing)
    return [
        Heading(f"Failing runs ({shown})"),
        _table(["Scenario", "Run", "Score", "Reason", "Report"], "llrll", rows),
    ]


def _all_runs(results: Any) -> list[Block]:
    """Every run, failing ones first, each with its verdict and why."""
    if not isinstance(results, list) or not results:
        return []
    runs = [r for r in results if isinstance(r, Mapping)]
    runs.sort(key=lambda r: r.get("passed") is True)  # stable: report order within each
    failed = [r.get("passed") is not True for r in runs]
    systems = system_names(runs)  # as the aggregate names them (runner "a / b" beside a / b)
    rows = []
    for run, bad in zip(runs, failed, strict=True):
        scenario, run_id, *rest = _run_row(run)
        system = system_of(run)
        who = systems[system] if any(system) else "–"
        rows.append([scenario, run_id, clip_name(who), "❌" if bad else "✅", *rest])
    header = ["Scenario", "Run", "Runner / model", "Passed", "Score", "Reason", "Report"]
    return [
        Heading(f"Runs ({len(runs)}, {sum(failed)} failing)"),
        _table(header, "llllrll", rows, failed),
    ]


def _failing(row: Mapping[str, Any]) -> str:
    """``failing/count`` of a field row."""
    return f"{num(row.get('failing'))}/{num(row.get('count'))}"


_WHO_WIDTH: Final = 60  # a runner and model beside a run id in a baseline table


def _compared_run(item: Mapping[str, Any]) -> str:
    """A baseline item's run cell: its run id, with its runner and model when several ran
    that run id (``run01 (react / gpt-4o)``), or ``(all runs)`` for a whole scenario
    (``(all runs of react / gpt-4o)`` when several ran it)."""
    who = item.get("runner_model")
    if item["run_id"] is None:
        return "(all runs)" if who is None else f"(all runs of {clip_name(who, _WHO_WIDTH)})"
    if who is None:
        return clip_name(item["run_id"])
    return f"{clip_name(item['run_id'])} ({clip_name(who, _WHO_WIDTH)})"  # each cut alone


def _run_row(entry: Mapping[str, Any]) -> list[str]:
    return [
        clip_name(entry.get("scenario_id")),
        clip_name(run_name(entry)),
        num(entry.get("score")),
        _why(entry),
        clip_name(entry.get("report") or "", _REPORT_WIDTH),
    ]


def _why(entry: Mapping[str, Any]) -> str:
    """A run's reason cell: ``error: ...`` for a run that could not be scored, else the
    aggregate's one-line ``reason`` (empty for an aggregate written before it had one)."""
    error = entry.get("error")
    if error:
        return clip(f"error: {error}", REASON_CHARS)
    return clip(entry.get("reason") or "", REASON_CHARS)
