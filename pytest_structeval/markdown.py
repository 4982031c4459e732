"""A Markdown summary of an aggregate report, for CI pages (``$GITHUB_STEP_SUMMARY``) and PRs.

Rendered from the ``_aggregate.json`` content alone, so the pytest plugin and
``structeval evaluate`` produce the same text. Every value from the data (ids, paths, error
messages) is escaped and clipped: a run id with ``|`` or an error quoting ``<think>`` must not
break the table or vanish as HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from .baseline import FIELDS_SHOWN, tolerance_label
from .naming import printable
from .report import REASON_CHARS

__all__ = ["ROWS_SHOWN", "render_markdown", "write_markdown"]

ROWS_SHOWN: Final = 20
"""How many failing runs, regressed items, worst fields and scenario types each table lists."""
_CELL_WIDTH: Final = 120
_NAMED: Final = 5  # entries named per kind of loose end, as in the terminal summary
_SPECIAL = re.compile(r"([\\`*_\[\]|~#])")
_SPACE = re.compile(r"\s+")

GateRow = tuple[str, float | None, bool]  # (gate text, compared figure, met)


def _text(value: Any, width: int = _CELL_WIDTH) -> str:
    """Plain text safe inside a table cell: one line, clipped, Markdown and HTML escaped."""
    text = printable(_SPACE.sub(" ", str(value)).strip())
    if len(text) > width:
        text = text[: width - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def _num(value: Any, digits: int = 4) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–"
    return str(value) if isinstance(value, int) else f"{value:.{digits}f}"


def _signed(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "–"
    return f"{value:+.4f}"


def _table(header: Sequence[str], align: str, rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub table; ``align`` has one letter per column: ``l`` left, ``r`` right."""
    marks = {"l": "---", "r": "---:"}
    return [
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(marks[a] for a in align) + " |",
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
    ]


def _section(report: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = report.get(name)
    return value if isinstance(value, Mapping) else {}


def render_markdown(
    report: Mapping[str, Any],
    *,
    gates: Sequence[GateRow] = (),
    problems: Sequence[str] = (),
    title: str = "structeval results",
) -> str:
    """Totals, scenario types, gates and problems, what was not read or joined, parse methods,
    repeats, the baseline comparison, the worst fields and the failing runs with why each
    failed; sections without data are left out."""
    lines = [f"## {_text(title)}", ""]
    lines += _totals(report)
    lines += _types(_section(report, "by_scenario_type"))
    lines += _checks(gates, problems)
    lines += _loose_ends(report)
    lines += _parse(_section(report, "parse"))
    lines += _repeats(report)
    lines += _baseline(_section(report, "baseline"))
    lines += _worst_fields(report.get("per_field"))
    lines += _failing_runs(report.get("results"))
    return "\n".join(lines).rstrip("\n") + "\n"


def _totals(report: Mapping[str, Any]) -> list[str]:
    totals = _section(report, "totals")
    summary = _section(report, "score_summary")
    ci = summary.get("score_ci95")
    ci_text = f"{_num(ci[0])} – {_num(ci[1])}" if isinstance(ci, Sequence) and len(ci) == 2 else "–"
    row = [
        _num(totals.get("scenarios")),
        _num(totals.get("scored")),
        _num(totals.get("passed")),
        _num(totals.get("pass_rate")),
        _num(summary.get("score_avg")),
        ci_text,
        _num(_section(report, "parse").get("parse_rate")),
        _num(totals.get("errors")),
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
    lines = _table(header, "rrrrrrrr", [row])
    if report.get("complete") is False:
        reasons = report.get("incomplete_reasons") or ["unknown reason"]
        lines += [f"**Incomplete run:** {_text('; '.join(map(str, reasons)), 400)}", ""]
    return lines


def _types(types: Mapping[str, Any]) -> list[str]:
    """Each scenario type's figures, worst pass rate first (what gates such as
    ``pass_rate[IoT]>=0.9`` read); left out when no run has a type."""
    if not set(types) - {"unknown"}:
        return []
    entries = [(name, row) for name, row in types.items() if isinstance(row, Mapping)]
    ranked = sorted(
        entries, key=lambda e: (_rank(e[1].get("pass_rate")), _rank(e[1].get("score_avg")))
    )
    rows = [
        [
            _text(name),
            _num(row.get("total")),
            _num(row.get("passed")),
            _num(row.get("pass_rate")),
            _num(row.get("score_avg")),
        ]
        for name, row in ranked[:ROWS_SHOWN]
    ]
    shown = f" (worst {ROWS_SHOWN} of {len(ranked)})" if len(ranked) > ROWS_SHOWN else ""
    header = ["Scenario type", "Runs", "Passed", "Pass rate", "Mean score"]
    return [f"### By scenario type{shown}", "", *_table(header, "lrrrr", rows)]


def _rank(value: Any) -> float:
    """A figure as a sort key: a missing one sorts last."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return float("inf")
    return float(value)


def _checks(gates: Sequence[GateRow], problems: Sequence[str]) -> list[str]:
    if not gates and not problems:
        return []
    lines = ["### Checks", ""]
    if gates:
        rows = [
            [_text(text), _num(value), "✅ met" if met else "❌ missed"]
            for text, value, met in gates
        ]
        lines += _table(["Gate", "Value", "Result"], "lrl", rows)
    lines += [f"- ❌ {_text(problem, 400)}" for problem in problems]
    lines += [""] if problems else []
    return lines


def _loose_ends(report: Mapping[str, Any]) -> list[str]:
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
    ]
    runs = _section(report, "totals").get("errors")
    lines = []
    for label, entries, show in kinds:
        if not isinstance(entries, list) or not entries:
            continue
        count = f"{len(entries)}"
        if label == "Errors" and isinstance(runs, int):  # the table counts runs only
            count += f" ({len(entries) - runs} loading, {runs} in runs)"
        named = [_text(show(e), 200) for e in entries[:_NAMED] if isinstance(e, Mapping)]
        more = f"; +{len(entries) - _NAMED} more" if len(entries) > _NAMED else ""
        lines.append(f"- **{label}: {count}** ({'; '.join(named)}{more})")
    return ["### Not scored or not joined", "", *lines, ""] if lines else []


def _duplicate(entry: Mapping[str, Any]) -> str:
    """``run_id r of scenario 1 in a.json, b.json`` (a scenario id names its sources)."""
    sources = ", ".join(map(str, entry.get("sources") or ()))
    scenario = entry.get("scenario_id")
    of = "" if scenario is None else f" of scenario {scenario}"
    return f"{entry.get('kind')} {entry.get('id')}{of} in {sources}"


def _parse(parse: Mapping[str, Any]) -> list[str]:
    methods = parse.get("methods")
    if not parse.get("answers") or not isinstance(methods, Mapping):
        return []
    lines = [
        "### Parsing",
        "",
        f"{parse['structured']} of {parse['answers']} answers parsed to structure, "
        f"{parse['text']} fell back to text, {parse['empty']} were empty, "
        f"{parse['unparsed']} could not be parsed"
        + (f"; {_num(parse['abstained'])} declined to answer." if parse.get("abstained") else "."),
        "",
    ]
    ranked = sorted(  # most used first, as in the terminal summary
        methods.items(),
        key=lambda item: (-item[1] if isinstance(item[1], (int, float)) else 0, str(item[0])),
    )
    rows = [[_text(method), _num(count)] for method, count in ranked]
    return lines + _table(["Parse method", "Answers"], "lr", rows)


def _repeats(report: Mapping[str, Any]) -> list[str]:
    repeats = _section(report, "repeats")
    if not repeats.get("repeated"):
        return []
    lines = [
        "### Repeats",
        "",
        f"{repeats['repeated']} of {repeats['scenarios']} scenarios ran more than once: "
        f"pass@k {_num(repeats['pass_at_k'])}, pass^k {_num(repeats['pass_hat_k'])}, "
        f"{len(repeats['flaky'])} flaky.",
        "",
    ]
    scenarios = _section(report, "by_scenario")
    flaky = [sid for sid in repeats["flaky"] if isinstance(scenarios.get(sid), Mapping)]
    rows = [
        [
            _text(sid),
            _num(scenarios[sid]["runs"]),
            _num(scenarios[sid]["passed"]),
            _num(scenarios[sid]["score_avg"]),
        ]
        for sid in flaky[:ROWS_SHOWN]
    ]
    if rows:
        lines += _table(["Flaky scenario", "Runs", "Passed", "Mean score"], "lrrr", rows)
    return lines


def _baseline(section: Mapping[str, Any]) -> list[str]:
    if not section:
        return []
    lines = [
        "### Baseline",
        "",
        f"Compared with {_text(section.get('source'))}"
        + (f" (generated {_text(section['generated_at'])})" if section.get("generated_at") else "")
        + f", tolerance {tolerance_label(section)}.",
        "",
    ]
    figures = [
        ("Mean score", _section(section, "score_avg")),
        ("Pass rate", _section(section, "pass_rate")),
        ("Parse rate", _section(section, "parse_rate")),
    ]
    rows = [
        [name, _num(f.get("baseline")), _num(f.get("current")), _signed(f.get("delta"))]
        for name, f in figures
    ]
    lines += _table(["", "Baseline", "Current", "Delta"], "lrrr", rows)
    counts = _section(section, "counts")
    lines += [
        " · ".join(
            f"{name.capitalize()} {counts.get(name, 0)}"
            for name in ("improved", "regressed", "unchanged", "new", "missing")
        ),
        "",
    ]
    ci = section.get("score_delta_ci95")
    if isinstance(ci, list) and len(ci) == 2:
        lines += [
            f"Score change 95% CI: {_signed(ci[0])} to {_signed(ci[1])} "
            f"(t-interval over the {counts.get('compared', 0)} compared items).",
            "",
        ]
    if section.get("same_runs") is False:
        lines += [
            "Mean score and pass rate are over the items both hold, each weighing the same; "
            "field means and the parse rate are compared only when both hold the same runs.",
            "",
        ]
    for verdict in ("regressed", "improved"):
        items = section.get(verdict) or []
        if items:
            rows = [
                [
                    _text(item["scenario_id"]),
                    _text(item["run_id"]) if item["run_id"] is not None else "(all runs)",
                    _num(item["baseline_score"]),
                    _num(item["score"]),
                    _signed(item["delta"]),
                    f"{_num(item['baseline_pass_rate'])} → {_num(item['pass_rate'])}",
                ]
                for item in items[:ROWS_SHOWN]
            ]
            header = [f"{verdict.capitalize()} scenario", "Run", "Baseline", "Now", "Delta"]
            lines += _table([*header, "Pass rate"], "llrrrl", rows)
    fields = _section(section, "fields")
    for verdict in ("regressed", "improved"):
        items = fields.get(verdict) or []
        if items:
            rows = [
                [_text(f["path"]), _num(f["baseline_mean"]), _num(f["mean"]), _signed(f["delta"])]
                for f in items[:FIELDS_SHOWN]
            ]
            header = [f"{verdict.capitalize()} field", "Baseline mean", "Mean", "Delta"]
            lines += _table(header, "lrrr", rows)
    return lines


def _worst_fields(per_field: Any) -> list[str]:
    if not isinstance(per_field, list) or not per_field:
        return []
    rows = [
        [_text(row["path"]), _num(row["mean_score"]), f"{row['failing']}/{row['count']}"]
        for row in per_field[:ROWS_SHOWN]
        if isinstance(row, Mapping)
    ]
    return ["### Worst fields", "", *_table(["Field", "Mean score", "Failing"], "lrr", rows)]


def _failing_runs(results: Any) -> list[str]:
    if not isinstance(results, list):
        return []
    failing = [r for r in results if isinstance(r, Mapping) and r.get("passed") is not True]
    if not failing:
        return []
    rows = [
        [
            _text(r.get("scenario_id")),
            _text(r.get("run_id")),
            _num(r.get("score")),
            _why(r),
            _text(r.get("report") or ""),
        ]
        for r in failing[:ROWS_SHOWN]
    ]
    shown = f"first {ROWS_SHOWN} of {len(failing)}" if len(failing) > ROWS_SHOWN else len(failing)
    lines = [f"### Failing runs ({shown})", ""]
    return lines + _table(["Scenario", "Run", "Score", "Reason", "Report"], "llrll", rows)


def _why(entry: Mapping[str, Any]) -> str:
    """A failing run's reason cell: ``error: ...`` for a run that could not be scored, else
    the aggregate's one-line ``reason`` (empty for an aggregate written before it had one)."""
    error = entry.get("error")
    if error:
        return _text(f"error: {error}", REASON_CHARS)
    return _text(entry.get("reason") or "", REASON_CHARS)


def write_markdown(path: Path, text: str, *, append: bool = False) -> None:
    """Write (or append, for ``$GITHUB_STEP_SUMMARY``) the summary; creates the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as handle:
        if append and path.stat().st_size:
            handle.write("\n")
        handle.write(text)
