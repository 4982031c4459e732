"""Run-level checks of a finished aggregate report: metric gates, baseline regressions, and the
Markdown summary, shared by the pytest plugin and ``structeval evaluate``.

A gate is ``<metric><op><number>`` (``f1>=0.85``, ``parse_rate>=0.99``, ``errors==0``) over the
figures of ``_aggregate.json`` (:func:`report_metrics`), ``<metric>[<type>]<op><number>``
(``pass_rate[IoT]>=0.9``) over one scenario type's figures in ``by_scenario_type``, or
``<metric>{<runner / model>}<op><number>`` (``pass_rate{react / gpt-4o}>=0.9``) over one runner
and model's in ``by_runner_model``; ``[*]`` and ``{*}`` hold each type, or each runner and
model, to the threshold. The older ``--fail-under`` and
``--min-score`` options are gates too (:func:`rate_gate`), so there is one implementation and
one message style: a one-line reason per missed gate. The caller turns reasons into an exit
status without ever lowering an existing failure.
"""

from __future__ import annotations

import json
import math
import operator
import os
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .csvtables import CSV_NAMES
from .errors import OptionsError
from .files import MAX_REPORT_BYTES, read_head, read_text, written_into
from .naming import NUMBER_SYNTAX, did_you_mean, few, printable, threshold_text
from .reportformat import AGGREGATE_NAME, SCORER_METRICS, SCORER_RATES, SUMMED_METRICS

if TYPE_CHECKING:
    from .baseline import Baseline, Tolerance

__all__ = [
    "GATE_METRICS",
    "GROUP_METRICS",
    "SYSTEM_METRICS",
    "Checks",
    "Gate",
    "GateOutcome",
    "evaluate_gates",
    "github_annotations",
    "parse_gate",
    "rate_gate",
    "refuse_shared_files",
    "report_metrics",
    "unread_failure",
]

_OPS: Final[dict[str, Callable[[float, float], bool]]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}
_GATE = re.compile(
    r"\s*([A-Za-z_][A-Za-z0-9_]*)"
    r"(?:\[(\"(?:[^\"\\]|\\.)*\"|[^\[\]\"]*)\]"  # [type] or ["type"] (a JSON string)
    r"|\{(\"(?:[^\"\\]|\\.)*\"|[^{}\"]*)\})?"  # {runner / model} or {"runner / model"}
    rf"\s*(>=|<=|==|>|<)\s*({NUMBER_SYNTAX})\s*",
    re.DOTALL,
)
_EVERY: Final = "*"  # pass_rate[*]: each type; a type named "*" is written ["*"]
_NAMED: Final = 10  # types (runners / models) a message lists before "+N more"
_FAILING_NAMED: Final = 3  # failing types a [*] gate's message names

_TOTALS: Final = (  # the gate metrics read from the aggregate's totals
    "pass_rate",
    "passed",
    "scored",
    "errors",
    "load_errors",
    "unmatched_trajectories",
    "unmatched_scenarios",
    "scenarios",
)
GATE_METRICS: Final = (
    *_TOTALS,
    "score_avg",
    "score_min",
    "score_max",
    "score_ci95_low",
    "score_ci95_high",
    "scored_results",
    "missing_keys_total",
    "extra_keys_total",
    "detail_entries_total",
    "parse_rate",
    "abstained",
    "pass_at_k",
    "pass_hat_k",
    "score_delta",
    "score_delta_ci95_low",
    "score_delta_ci95_high",
    "regressed",
    "improved",
    "fields_regressed",
)
"""Figures every report can have (see :func:`report_metrics`)."""
_RATES: Final = frozenset(
    {
        "pass_rate",
        "score_avg",
        "score_min",
        "score_max",
        "score_ci95_low",
        "score_ci95_high",
        "parse_rate",
        "pass_at_k",
        "pass_hat_k",
    }
)
"""The figures that lie in [0, 1]: a gate on one with a threshold outside is a mistake."""


REFERENCE_NAMES: Final = {
    "mean_precision": "precision_avg",
    "mean_recall": "recall_avg",
    "mean_f1": "f1_avg",
    "total_omissions": "omissions_sum",
    "total_hallucinations": "hallucinations_sum",
    "total_batch_errors": "batch_errors_sum",
}
"""struct_extract_eval's run figures, which gates read under their names here. (Its
``total_fields``, a sum, is ``total_fields_sum``: ``total_fields`` is the mean, as every
scorer metric named bare.)"""

GROUP_METRICS: Final = ("pass_rate", "passed", "total", "scored", "score_avg")
"""Figures a gate can read per scenario type (``by_scenario_type`` entries; ``scored`` is
``total``, the run-wide name of the same count), beside each ``<metric>_avg`` its runs report
(a built-in scorer's metric named bare, ``f1[IoT]``, means its ``_avg``)."""
SYSTEM_METRICS: Final = (
    "pass_rate",
    "passed",
    "runs",
    "scored",
    "score_avg",
    "pass_at_k",
    "pass_hat_k",
    "scenarios",
    "repeated",
    "max_runs",
)
"""Figures a gate can read per runner and model (``by_runner_model`` entries; ``scored`` is
``runs``, the run-wide name of the same count)."""


@dataclass(frozen=True, slots=True)
class _Grouping:
    """A kind of gate that reads one group's figures: the report section it reads, how a
    group is written (``[IoT]``, ``{react / gpt-4o}``) and named in messages, its figures."""

    section: str
    opening: str
    closing: str
    marks: str  # "brackets"
    noun: str  # "scenario type"
    plural: str  # "types"
    figures: tuple[str, ...]  # what a gate can name (``scored`` included)
    scored_as: str  # the section's key for the count a run-wide gate calls ``scored``
    rates: frozenset[str]
    scorer_means: bool  # whether each ``<metric>_avg`` of the group's runs is readable too

    @property
    def own(self) -> tuple[str, ...]:
        """The section's own keys among :attr:`figures`."""
        return tuple(m for m in self.figures if m != "scored")

    def label(self, name: str) -> str:
        """``name`` as a gate writes it inside :attr:`opening` and :attr:`closing`: as it
        is, or as a JSON string when it holds either, or ``"``, has spaces at its ends, is
        empty, unprintable, or ``*``."""
        if (
            name
            and not any(c in name for c in (self.opening, self.closing, '"'))
            and name == name.strip()
            and name.isprintable()
            and name != _EVERY
        ):
            return name
        quoted = json.dumps(name, ensure_ascii=False)  # escapes quotes, backslashes, C0 controls
        return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in quoted)  # \u2028

    def written(self, name: str | None) -> str:
        """``[IoT]``, ``{*}``: a group (``None``: each) as a gate writes it."""
        inner = _EVERY if name is None else self.label(name)
        return f"{self.opening}{inner}{self.closing}"


_TYPES: Final = _Grouping(
    "by_scenario_type",
    "[",
    "]",
    "brackets",
    "scenario type",
    "types",
    GROUP_METRICS,
    "total",
    frozenset({"pass_rate", "score_avg"}),
    scorer_means=True,
)
_SYSTEMS: Final = _Grouping(
    "by_runner_model",
    "{",
    "}",
    "braces",
    "runner / model",
    "runners / models",
    SYSTEM_METRICS,
    "runs",
    frozenset({"pass_rate", "score_avg", "pass_at_k", "pass_hat_k"}),
    scorer_means=False,
)


@dataclass(frozen=True, slots=True)
class Gate:
    """``metric op threshold``; ``flag`` is the option or ini key it came from (for messages).

    ``label`` marks the rate options (``--fail-under``: "pass rate", ``--min-score``: "mean
    score"), whose reason reads "pass rate 0.6200 is under --fail-under 0.8000". With a
    ``grouping`` it compares a figure of one group (``group``: a scenario type, a runner and
    model) or, with ``group`` ``None``, of each (``pass_rate[*]``); without, the run-wide one.
    """

    metric: str
    op: str
    threshold: float
    flag: str
    text: str
    label: str | None = None
    group: str | None = None
    grouping: _Grouping | None = None

    @property
    def key(self) -> str:
        """The report figure compared: the metric itself, or a scorer metric's mean; for a
        group gate, the key of the group's entry."""
        figures = GATE_METRICS if self.grouping is None else self.grouping.figures
        if self.metric not in figures and not self.metric.endswith(("_avg", "_sum")):
            return f"{self.metric}_avg"  # a built-in scorer's metric, named bare
        if self.grouping is None:
            return self.metric
        return self.grouping.scored_as if self.metric == "scored" else self.metric

    @property
    def figure(self) -> str:
        """The compared figure as messages name it: ``f1_avg``, ``pass_rate[IoT]``."""
        if self.grouping is None:
            return self.key
        return f"{self.metric}{self.grouping.written(self.group)}"

    def of(self, name: str) -> str:
        """The figure of one group, as messages name it: ``pass_rate[IoT]``."""
        assert self.grouping is not None
        return f"{self.metric}{self.grouping.written(name)}"


@dataclass(frozen=True, slots=True)
class GateOutcome:
    """One gate against one report: the compared figure (``None`` when the report has none)
    and the reason it failed (``None`` when it is met)."""

    gate: Gate
    value: float | None
    reason: str | None


def parse_gate(text: str, flag: str = "--structeval-gate") -> Gate:
    """``"f1>=0.85"``, ``"pass_rate[IoT]>=0.9"`` or ``"pass_rate{react / gpt-4o}>=0.9"`` as a
    :class:`Gate`; ``OptionsError`` for bad syntax, an unknown metric, or a rate's threshold
    outside [0, 1].

    Known metrics: :data:`GATE_METRICS`, any ``<metric>_avg`` of ``score_summary``, and the
    built-in scorers' metric names (:data:`SCORER_METRICS`), which mean their ``_avg``. In
    brackets, a scenario type names the figures of ``by_scenario_type`` (:data:`GROUP_METRICS`):
    written as it is (``[work order]``), or as a JSON string when it holds ``[``, ``]`` or
    ``"``, starts or ends with a space, or is ``*`` (``["a]b"]``); ``[*]`` means each type.
    In braces, a runner and model (``by_runner_model``'s key) names the figures of its entry
    (:data:`SYSTEM_METRICS`), written alike (``{"a{b}"}``); ``{*}`` means each.
    """
    found = _GATE.fullmatch(text)
    if found is None:
        parts = re.split(r"[,;]", text)
        if len(parts) > 1 and all(_GATE.fullmatch(part) for part in parts):
            raise OptionsError(
                f"{flag} {text!r}: one gate per value: write each on its own line of the ini "
                "key, or give the option once per gate"
            )
        raise OptionsError(
            f"{flag} {text!r}: expected <metric><op><number>, <metric>[<scenario type>]"
            f"<op><number> or <metric>{{<runner / model>}}<op><number> with op one of "
            f"{', '.join(_OPS)}, e.g. f1>=0.85, pass_rate[IoT]>=0.9 or "
            'pass_rate{react / gpt-4o}>=0.9 (a type holding [, ] or " is written as a JSON '
            'string: pass_rate["a]b"]>=0.9; a runner / model holding {, } or " too)'
        )
    written_metric, in_brackets, in_braces, op, number = found.groups()
    metric = REFERENCE_NAMES.get(written_metric, written_metric)
    threshold = float(number)
    if not math.isfinite(threshold):  # 1e999
        raise OptionsError(f"{flag} {text!r}: {number!r} is not a finite number")
    for grouping, written in ((_TYPES, in_brackets), (_SYSTEMS, in_braces)):
        if written is not None:
            group = _group(text, flag, written, grouping)
            named = (metric, written_metric)
            return _group_gate(text, flag, named, group, grouping, op, number, threshold)
    if not _readable(metric, GATE_METRICS, sums=True):
        names = (*GATE_METRICS, *SCORER_METRICS, *REFERENCE_NAMES)
        raise OptionsError(
            f"{flag} {text!r}: unknown metric {metric!r}{did_you_mean(metric, names)}; known: "
            f"{', '.join(names)}, or <metric>_avg for any metric a scorer reports (<metric>_sum "
            "for its counts)"
        )
    _check_rate(text, flag, (metric, written_metric), threshold, _is_rate(metric, _RATES))
    return Gate(metric, op, threshold, flag, f"{written_metric}{op}{number}")


def _group(text: str, flag: str, written: str, grouping: _Grouping) -> str | None:
    """The scenario type in a gate's brackets (the runner and model in its braces); ``None``
    for ``[*]`` (each type)."""
    if written.startswith('"'):
        try:
            name = json.loads(written)
        except ValueError as exc:
            raise OptionsError(
                f"{flag} {text!r}: {written} is not a valid JSON string ({exc})"
            ) from None
    elif written == _EVERY:
        return None
    elif written != written.strip():
        raise OptionsError(
            f"{flag} {text!r}: the {grouping.noun} {written!r} starts or ends with a space; "
            f"write it as a JSON string ({grouping.opening}"
            f"{json.dumps(written, ensure_ascii=False)}{grouping.closing}) if the spaces are "
            "part of the name"
        )
    else:
        name = written
    if not name:
        raise OptionsError(f"{flag} {text!r}: the {grouping.marks} name no {grouping.noun}")
    return str(name)


def _group_gate(
    text: str,
    flag: str,
    named: tuple[str, str],
    group: str | None,
    grouping: _Grouping,
    op: str,
    number: str,
    threshold: float,
) -> Gate:
    """A gate on one group's figure (``group``), or on each group's (``None``). ``named``:
    the metric read, and the name it was written as (``f1_avg``, ``mean_f1``)."""
    metric, written = named
    if not _readable(metric, grouping.figures, scorer_means=grouping.scorer_means):
        scorers = (
            f", a scorer metric ({', '.join(SCORER_METRICS)}) or <metric>_avg for any metric "
            "a scorer reports"
            if grouping.scorer_means
            else ""
        )
        raise OptionsError(
            f"{flag} {text!r}: {written!r} has no figure per {grouping.noun}; a gate in "
            f"{grouping.marks} can name {', '.join(grouping.figures)}"
            f"{scorers}"
        )
    _check_rate(text, flag, named, threshold, _is_rate(metric, grouping.rates))
    shown = grouping.written(group)
    return Gate(
        metric, op, threshold, flag, f"{written}{shown}{op}{number}", group=group, grouping=grouping
    )


def _readable(
    metric: str, figures: Collection[str], *, scorer_means: bool = True, sums: bool = False
) -> bool:
    """Whether a gate can name ``metric``: one of ``figures`` (the run's, or a group's) or,
    with ``scorer_means``, a built-in scorer's metric (meaning its mean) or any
    ``<metric>_avg``; with ``sums`` (run-wide: groups have none), a count's ``<metric>_sum``."""
    if metric in figures:
        return True
    if sums and metric.removesuffix("_sum") in SUMMED_METRICS:
        return True
    return scorer_means and (metric in SCORER_METRICS or metric.endswith("_avg"))


def _is_rate(metric: str, rates: Collection[str]) -> bool:
    """Whether ``metric`` lies in [0, 1]: one of ``rates``, or a strict-mode rate, bare or
    ``_avg``."""
    return metric in rates or metric.removesuffix("_avg") in SCORER_RATES


_COUNTS: Final = frozenset(
    {
        *(m for m in (*GATE_METRICS, *GROUP_METRICS, *SYSTEM_METRICS) if m not in _RATES),
        *(m for m in SCORER_METRICS if m not in SCORER_RATES),
        *(f"{m}_sum" for m in SUMMED_METRICS),
    }
) - {"score_delta", "score_delta_ci95_low", "score_delta_ci95_high"}
"""The figures that are counts, or means of counts: never negative."""


def _check_rate(text: str, flag: str, named: tuple[str, str], threshold: float, rate: bool) -> None:
    """``OptionsError`` for a gate every run meets or none does: a rate's threshold outside
    [0, 1], a count's below 0 (``errors>=-1``). ``named``: the metric read, and the name it
    was written as."""
    metric, written = named
    if rate and not 0.0 <= threshold <= 1.0:
        raise OptionsError(
            f"{flag} {text!r}: {written} is a rate in [0, 1], so this gate is met by every run "
            "or by none"
        )
    count = metric in _COUNTS or (
        metric.endswith("_avg") and metric.removesuffix("_avg") in SCORER_METRICS
    )
    if count and threshold < 0 and not rate:
        raise OptionsError(
            f"{flag} {text!r}: {written} is a count, never negative, so this gate is met by "
            "every run or by none"
        )


def refuse_shared_files(files: Sequence[tuple[str, Path]]) -> None:
    """``OptionsError`` when two of ``files`` (what each is, its path) are one file: the
    last written would replace the others. Streams (``/dev/stdout``) may be shared."""
    named: dict[str, str] = {}
    for what, path in files:
        if written_into(path):
            continue
        key = os.path.normcase(os.path.realpath(path))
        if key in named:
            raise OptionsError(f"{named[key]} and {what} name one file, {path}: give each its own")
        named[key] = what


def rate_gate(kind: str, threshold: float, flag: str) -> Gate:
    """The gate of ``--fail-under`` (``kind="pass_rate"``) or ``--min-score`` (``"score_avg"``)."""
    label = {"pass_rate": "pass rate", "score_avg": "mean score"}[kind]
    return Gate(kind, ">=", threshold, flag, f"{kind}>={threshold_text(threshold)}", label)


def _number(value: Any) -> float | None:
    """A finite figure (counts stay ints, so messages show ``errors 2``), else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):  # (isfinite would raise past the float range)
        return value
    return value if math.isfinite(value) else None


def _section(report: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = report.get(name)
    return value if isinstance(value, Mapping) else {}


def report_metrics(report: Mapping[str, Any]) -> dict[str, float | None]:
    """The figures gates compare, by name (``None`` when the report has no value for one)."""
    totals = _section(report, "totals")
    summary = _section(report, "score_summary")
    metrics: dict[str, float | None] = {name: _number(totals.get(name)) for name in _TOTALS}
    metrics.update((name, _number(value)) for name, value in summary.items())
    ci = summary.get("score_ci95")
    low, high = ci if isinstance(ci, Sequence) and len(ci) == 2 else (None, None)
    metrics["score_ci95_low"], metrics["score_ci95_high"] = _number(low), _number(high)
    parse = _section(report, "parse")
    metrics["parse_rate"] = _number(parse.get("parse_rate"))
    metrics["abstained"] = _number(parse.get("abstained"))
    repeats = _section(report, "repeats")
    metrics["pass_at_k"] = _number(repeats.get("pass_at_k"))
    metrics["pass_hat_k"] = _number(repeats.get("pass_hat_k"))
    baseline = _section(report, "baseline")
    metrics["score_delta"] = _number(_section(baseline, "score_avg").get("delta"))
    delta_ci = baseline.get("score_delta_ci95")
    low, high = delta_ci if isinstance(delta_ci, Sequence) and len(delta_ci) == 2 else (None, None)
    metrics["score_delta_ci95_low"], metrics["score_delta_ci95_high"] = _number(low), _number(high)
    counts = _section(baseline, "counts")
    metrics["regressed"] = _number(counts.get("regressed"))
    metrics["improved"] = _number(counts.get("improved"))
    # (compared only when both sides hold the same runs: None otherwise)
    metrics["fields_regressed"] = _number(_section(baseline, "fields").get("regressed_count"))
    return metrics


def _shown(value: float) -> str:
    """Four decimals, as the report rounds its figures; a threshold finer than that is shown
    whole, so a message never reads "0.5455 is under 0.5455"."""
    if isinstance(value, int) or round(value, 4) != value:
        return repr(value)
    return f"{value:.4f}"


def _group_metrics(
    report: Mapping[str, Any], grouping: _Grouping
) -> dict[str, dict[str, float | None]]:
    def keys(entry: Mapping[str, Any]) -> Iterator[str]:
        yield from grouping.own
        if grouping.scorer_means:
            yield from (str(k) for k in entry if str(k).endswith("_avg") and k not in grouping.own)

    return {
        str(name): {key: _number(entry.get(key)) for key in keys(entry)}
        for name, entry in _section(report, grouping.section).items()
        if isinstance(entry, Mapping)
    }


def evaluate_gates(report: Mapping[str, Any], gates: Sequence[Gate]) -> list[GateOutcome]:
    """Each gate against ``report``. Figures are the reported ones (rates and means rounded to
    four decimals), so the report file alone shows whether a gate was met. A run with no runs
    misses any gate, and so does a figure the report lacks (no baseline, no run reporting
    that metric, no run of the scenario type a gate names)."""
    metrics = report_metrics(report)
    groups = {grouping: _group_metrics(report, grouping) for grouping in (_TYPES, _SYSTEMS)}
    scored = bool(metrics.get("scored"))
    outcomes = []
    for gate in gates:
        what = _shown(gate.threshold) if gate.label else gate.text
        if gate.grouping is None:
            value, reason = _run_wide(gate, what, metrics)
        elif gate.group is None:
            value, reason = _each_group(gate, gate.grouping, groups[gate.grouping])
        else:
            value, reason = _one_group(gate, gate.group, gate.grouping, groups[gate.grouping])
        if not scored:
            reason = f"structeval: no runs were scored, so {gate.flag} {what} fails"
        outcomes.append(GateOutcome(gate, value, reason))
    return outcomes


_Verdict = tuple[float | None, str | None]  # (compared figure, reason it failed)
_NEEDS_BASELINE: Final = " (it needs a baseline)"
_WHY_MISSING: Final = {
    "score_delta": _NEEDS_BASELINE,
    "regressed": _NEEDS_BASELINE,
    "improved": _NEEDS_BASELINE,
    "fields_regressed": " (it needs a baseline holding the same runs)",
    "score_delta_ci95_low": " (it needs a baseline and two compared items)",
    "score_delta_ci95_high": " (it needs a baseline and two compared items)",
    "score_ci95_low": " (it needs two scored runs)",
    "score_ci95_high": " (it needs two scored runs)",
}
_BASELINE_FIGURES: Final = frozenset(k for k, why in _WHY_MISSING.items() if "baseline" in why)


def _needs_baseline(gate: Gate) -> bool:
    """Whether ``gate`` reads a figure that compares with a baseline (``regressed<3``)."""
    return gate.grouping is None and gate.key in _BASELINE_FIGURES


def _run_wide(gate: Gate, what: str, metrics: Mapping[str, float | None]) -> _Verdict:
    value = metrics.get(gate.key)
    if value is None:
        available = ", ".join(k for k, v in metrics.items() if v is not None)
        why = _WHY_MISSING.get(gate.key, "")
        return None, (
            f"structeval: {gate.flag} {what} fails: this run's report has no {gate.key}{why} "
            f"(available: {available})"
        )
    if _OPS[gate.op](value, gate.threshold):
        return value, None
    if gate.label:
        return value, f"structeval: {gate.label} {_shown(value)} is under {gate.flag} {what}"
    return value, f"structeval: {gate.key} {_shown(value)} misses {gate.flag} {what}"


_Groups = Mapping[str, Mapping[str, float | None]]  # group name -> its figures


def _one_group(gate: Gate, group: str, grouping: _Grouping, groups: _Groups) -> _Verdict:
    figures = groups.get(group)
    if figures is None:  # a typo or a group that ran nothing must not pass unseen
        return None, (
            f"structeval: {gate.flag} {gate.text} fails: this run has no {grouping.noun} "
            f"{grouping.label(group)} (its {grouping.plural}: {_few(groups, grouping)})"
        )
    value = figures.get(gate.key)
    if value is None:
        return None, _lacking(gate, group, grouping)
    if _OPS[gate.op](value, gate.threshold):
        return value, None
    return value, f"structeval: {gate.figure} {_shown(value)} misses {gate.flag} {gate.text}"


def _each_group(gate: Gate, grouping: _Grouping, groups: _Groups) -> _Verdict:
    """``pass_rate[*]``: the worst group's figure decides, and the reason names every group
    that misses the threshold (the worst first). A scorer metric (``f1[*]``, ``car_score[*]``)
    is held over the types whose runs report it (mode answers report no ``f1``, ordinary
    answers no ``car_score``); one type at least must, and a type whose runs report no
    scorer metric at all (every run an error) fails it."""
    values: list[tuple[str, float]] = []
    for name, figures in groups.items():
        value = figures.get(gate.key)
        if value is None and gate.key not in grouping.own and _scored_otherwise(figures, grouping):
            continue  # its runs were scored, by metrics of another kind
        if value is None:
            return None, _lacking(gate, name, grouping)
        values.append((name, value))
    if not groups:  # a report without the section must not pass every [*] gate
        return None, (
            f"structeval: {gate.flag} {gate.text} fails: this run's report has no {grouping.plural}"
        )
    if not values:
        return None, (
            f"structeval: {gate.flag} {gate.text} fails: no {grouping.noun} of this run "
            f"reports {gate.key}"
        )
    ranked = sorted(values, key=lambda pair: -_shortfall(gate, pair[1]))  # ties: report order
    failing = [(n, v) for n, v in ranked if not _OPS[gate.op](v, gate.threshold)]
    if not failing:
        return ranked[0][1], None
    named = ", ".join(f"{gate.of(n)} {_shown(v)}" for n, v in failing[:_FAILING_NAMED])
    more = len(failing) - _FAILING_NAMED
    verb = "misses" if len(failing) == 1 else "miss"
    return ranked[0][1], (
        f"structeval: {named}{f' and {more} more' if more > 0 else ''} {verb} "
        f"{gate.flag} {gate.text}"
    )


def _scored_otherwise(figures: Mapping[str, float | None], grouping: _Grouping) -> bool:
    """Whether a type's runs report scorer metrics (a type whose runs all failed to score
    reports none, and must not pass a gate on one unseen)."""
    return any(key.endswith("_avg") and key not in grouping.own for key in figures)


def _shortfall(gate: Gate, value: float) -> float:
    """How far ``value`` falls short of ``gate``: larger is worse (negative: met with room)."""
    gap = value - gate.threshold
    if gate.op == "==":
        return abs(gap)
    return -gap if gate.op in (">=", ">") else gap


def _lacking(gate: Gate, group: str, grouping: _Grouping) -> str:
    return (
        f"structeval: {gate.flag} {gate.text} fails: this run's report has no {gate.key} "
        f"for {grouping.noun} {grouping.label(group)}"
    )


def _few(groups: Mapping[str, object], grouping: _Grouping) -> str:
    return few([grouping.label(name) for name in groups], _NAMED) or "none"


class PublishError(OSError):
    """The outputs :meth:`Checks.publish` could not write (``written``: those it did)."""

    def __init__(self, failures: Sequence[str], written: list[Path]) -> None:
        super().__init__("; ".join(failures))
        self.written = written


@dataclass(frozen=True, slots=True)
class Settled:
    """How :meth:`Checks.settle` ended a run: the baseline it saved (or ``None``) and every
    problem that fails the run."""

    saved: Path | None
    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Checks:
    """What happens to a finished aggregate report besides being written.

    ``gates`` (rate options included) and, with a ``baseline``, the comparison that
    :meth:`annotate` adds as the report's ``baseline`` section; ``fail_on_regression`` turns a
    regressed item into a failure, ``fail_on_improvement`` an improved one. ``markdown`` and
    ``github_summary`` say where :meth:`publish` writes the Markdown summary (``csv``, the
    CSV tables; ``html``, the HTML report), and
    ``save_baseline`` where :meth:`save` writes the report as the next baseline. The plugin and
    the CLI each build one, with their own option names in the ``*_flag`` fields and ``accept``
    (how to accept improved scores, for the message that fails on them).
    """

    gates: tuple[Gate, ...] = ()
    baseline: Baseline | None = None
    first_baseline: str | None = None
    """A baseline named that is not there yet (as named): a first run, which compares
    nothing. Neither a regression check nor a gate on a figure that needs a baseline
    (``regressed<3``) applies; a failing run that only the regression check judges is not
    excused (see :meth:`failures`). ``first_note`` ends the summary's line about it."""
    first_note: str = ""
    tolerance: float | Tolerance = 0.0
    fail_on_regression: bool = False
    regression_flag: str = "--structeval-fail-on-regression"
    fail_on_improvement: bool = False
    improvement_flag: str = "--structeval-fail-on-improvement"
    markdown: Path | None = None
    github_summary: bool = False
    csv: Path | None = None
    html: Path | None = None
    save_baseline: Path | None = None
    accept: str = "--structeval-save-baseline PATH"
    judge_failing_runs: bool = False
    """Whether failing runs are judged here (the CLI, where they are no items, and pytest under
    ``--structeval-gates-decide``, where a failing run is an xfail), so that one the baseline
    lacks fails ``fail_on_regression`` (see :meth:`judges`); otherwise in pytest each is a
    failing item, which its test outcome decides (an ``xfail``, a fixture test expecting a
    failing score)."""

    def __post_init__(self) -> None:
        """``OptionsError`` when two outputs name one file: the last written would replace
        the others, and a saved baseline could hold an HTML page."""
        refuse_shared_files(self.files())

    def refuse_before_run(
        self, reports_dir: str | os.PathLike[str], others: Sequence[tuple[str, Path]] = ()
    ) -> None:
        """``OptionsError`` for what cannot work, found before any run rather than after
        every run was scored: an output naming this run's aggregate report in ``reports_dir``
        or one of ``others`` (pytest's outputs), a CSV folder that is a file, and a gate on a
        figure that compares with a baseline when none is given."""
        aggregate = Path(os.path.abspath(reports_dir)) / AGGREGATE_NAME
        refuse_shared_files([*self.files(), *others, ("this run's aggregate report", aggregate)])
        if self.csv is not None and self.csv.exists() and not self.csv.is_dir():
            raise OptionsError(f"the CSV tables folder {self.csv} is a file: name a folder")
        for gate in self.gates if self.baseline is None and self.first_baseline is None else ():
            if _needs_baseline(gate):
                raise OptionsError(
                    f"{gate.flag} {gate.text!r}: {gate.key} compares this run with a baseline, "
                    "and none is given"
                )

    def files(self) -> list[tuple[str, Path]]:
        """The files these checks write, each with what it is (for messages)."""
        csv = () if self.csv is None else tuple(self.csv / name for name in CSV_NAMES)
        named = (
            ("the Markdown summary", self.markdown),
            ("the HTML report", self.html),
            ("the saved baseline", self.save_baseline),
            *(("the CSV tables", table) for table in csv),
        )
        return [(what, path) for what, path in named if path is not None]

    @property
    def judges(self) -> bool:
        """Whether a gate or ``--fail-on-regression`` decides which failing runs fail the run
        (the CLI's rule; in pytest each is a failing item): a run that failed in the baseline
        too is no regression, one the baseline lacks still fails (see ``new_failures``). With
        neither, every run must pass (``--fail-on-improvement`` alone judges no failure).
        Everything must load unless a gate (not a baseline comparison: it cannot see the runs
        of a file it could not read) says otherwise: see :func:`unread_failure`."""
        return bool(self.applied_gates or self.fail_on_regression)

    @property
    def applied_gates(self) -> tuple[Gate, ...]:
        """The gates this run applies: all, but a gate on a figure that needs a baseline
        when the one named is not there yet (see ``first_baseline``)."""
        if self.first_baseline is None:
            return self.gates
        return tuple(gate for gate in self.gates if not _needs_baseline(gate))

    def notes(self) -> list[str]:
        """Lines for the summary: a baseline named that is not there yet."""
        if self.first_baseline is None:
            return []
        skipped = [gate.text for gate in self.gates if _needs_baseline(gate)]
        unapplied = f"; not applied: {', '.join(skipped)}" if skipped else ""
        return [
            f"baseline {self.first_baseline}: none there yet, nothing compared"
            f"{unapplied}{self.first_note}"
        ]

    def annotate(self, report: dict[str, Any]) -> None:
        """Add the ``baseline`` section (before the report is written)."""
        if self.baseline is not None:
            from .baseline import compare

            report["baseline"] = compare(self.baseline, report, tolerance=self.tolerance)

    def failures(self, report: Mapping[str, Any], *, accepted: bool = False) -> list[str]:
        """One-line reasons: missed gates, then regressions (and, where failing runs are judged
        here and no gate is given, failing runs the baseline lacks) and improvements when they
        fail the run; ``accepted``: this run was saved as the baseline, so its improvements
        are accepted, not failures."""
        gates = self.applied_gates
        reasons = [o.reason for o in evaluate_gates(report, gates) if o.reason is not None]
        if self.fail_on_regression:
            from .baseline import new_failures, regression_failures

            reasons += regression_failures(report, flag=self.regression_flag)
            if self.judge_failing_runs and not gates:  # one the baseline cannot speak for
                flag, first = self.regression_flag, self.first_baseline
                reasons += new_failures(report, flag=flag, first=first)
        if self.fail_on_improvement and not accepted:
            from .baseline import improvement_failures

            reasons += improvement_failures(report, flag=self.improvement_flag, accept=self.accept)
        return reasons

    def met(self, report: Mapping[str, Any]) -> str | None:
        """``gates met: f1>=0.85, pass_rate>=0.9`` for the summary (a met gate would leave
        no trace, and a user could not tell the ini's gates were read), or ``None``."""
        texts = [
            o.gate.text for o in evaluate_gates(report, self.applied_gates) if o.reason is None
        ]
        return f"gates met: {', '.join(texts)}" if texts else None

    def save(self, report: Mapping[str, Any], *, partial: bool = False) -> Path | None:
        """Write ``report`` as the new baseline when asked; the file written, else ``None``.

        ``ValueError`` (saying why) for a run that must not become a baseline: an incomplete
        run, a ``partial`` one (a selection: the runs left out would read as "new" next
        time, and their regressions go unseen), one that skipped scenario runs or scored
        none, or one that misses a gate or fails its
        regression check (saving it would make the next run pass). Improved items are no
        reason: accepting them is what saving is for. ``OSError`` when it cannot be written."""
        if self.save_baseline is None:
            return None
        if report.get("complete") is False:
            raise ValueError("the run is incomplete")
        if partial:
            raise ValueError(
                "the run scored a selection (-k, -m, --lf, --sw, --deselect, a path inside the "
                "scenarios, or a folder picked out of a tree with runs of scenarios around it "
                "not selected); what it left out would read as new next time"
            )
        skipped = report.get("skipped")
        if isinstance(skipped, list) and skipped:
            runs = f"{len(skipped)} run{'s' * (len(skipped) != 1)}"
            raise ValueError(
                f"the run skipped {runs} it would have scored (a skip or xfail, of scenario "
                "items or tests using the structeval fixture); what it left out would read as "
                "new next time"
            )
        if not report.get("results"):
            raise ValueError("no run was scored")
        if self.failures(report, accepted=True):  # gates and regressions; improvements accepted
            raise ValueError("the run fails its gates or its baseline check")
        from .report import save_report

        _refuse_foreign(self.save_baseline, _an_aggregate, "an aggregate report")
        save_report(self.save_baseline, report)
        return self.save_baseline

    def publish(
        self,
        report: Mapping[str, Any],
        problems: Sequence[str],
        *,
        reports_dir: Path | None = None,
    ) -> list[Path]:
        """Write the Markdown summary where asked: the ``markdown`` file (replaced) and, when
        ``github_summary`` is on and ``GITHUB_STEP_SUMMARY`` is set, appended to that file;
        the CSV tables into the ``csv`` folder; and the ``html`` report (naming the
        ``reports_dir`` that holds this run's per-run reports, if it wrote them). Returns the files
        written; when some cannot be written, the others still are and a
        :class:`PublishError` (an ``OSError``) names the failures."""
        written: list[Path] = []
        failed: list[str] = []
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY") if self.github_summary else None
        rows = [
            (o.gate.text, o.value, o.reason is None)
            for o in evaluate_gates(report, self.applied_gates)
        ]
        if self.markdown is not None or step_summary:
            from .markdown import render_markdown, write_markdown

            text = render_markdown(report, gates=rows, problems=problems)
            markdown = self.markdown
            if markdown is not None and step_summary and _same_file(markdown, step_summary):
                markdown = None  # one summary, appended: the step's file may hold others
            for path, append in ((markdown, False), (step_summary, True)):
                if path:
                    try:
                        if not append:
                            _refuse_foreign(Path(path), _MARKDOWN_MARK, "a Markdown summary")
                        write_markdown(Path(path), text, append=append)
                        written.append(Path(path))
                    except OSError as exc:  # each output on its own: one bad path loses one
                        failed.append(f"the Markdown summary {path}: {exc}")
        if self.csv is not None:
            from .csvtables import write_csv

            try:
                for name, mark in zip(CSV_NAMES, _CSV_MARKS, strict=True):
                    _refuse_foreign(self.csv / name, mark, "a CSV table")
                written += write_csv(self.csv, report)
            except OSError as exc:
                failed.append(f"the CSV tables in {self.csv}: {exc}")
        if self.html is not None:
            from .htmlreport import render_html, write_html

            reports = None if reports_dir is None else _seen_from(reports_dir, self.html.parent)
            try:
                page = render_html(report, gates=rows, problems=problems, reports=reports)
                _refuse_foreign(self.html, _HTML_MARK, "an HTML report")
                write_html(self.html, page)
                written.append(self.html)
            except OSError as exc:
                failed.append(f"the HTML report {self.html}: {exc}")
        if failed:
            raise PublishError(failed, written)
        return written

    def unsaved(self, why: str) -> list[str]:
        """Why the run fails when it was asked to save a baseline and has nothing to save: a CI
        step that means to refresh its baseline must not pass having written nothing."""
        if self.save_baseline is None:
            return []
        return [f"structeval: baseline not saved to {self.save_baseline}: {why}"]

    def settle(
        self, report: Mapping[str, Any], problems: Sequence[str], *, written: bool, unsaved: str
    ) -> Settled:
        """The end of a run once its reports were written (``written``; else not, for the
        reason ``unsaved``): save the baseline when asked, and judge the report.
        ``problems``: the run's own, which fail it whatever its gates say; they come first.
        The pytest session and the CLI both end this way, then :meth:`publish_all`."""
        found = list(problems)
        saved = None
        if not written:
            found += self.unsaved(unsaved)
        else:
            try:
                saved = self.save(report, partial=report.get("selection") is True)
            except (OSError, ValueError) as exc:
                found.append(f"structeval: baseline not saved to {self.save_baseline}: {exc}")
        found += self.failures(report, accepted=saved is not None)
        return Settled(saved, tuple(found))

    def publish_all(
        self, report: Mapping[str, Any], problems: Sequence[str], *, reports_dir: Path | None
    ) -> tuple[list[Path], OSError | None]:
        """:meth:`publish`, returning the files written and the error that kept some from
        being written (``None`` when all were)."""
        try:
            return self.publish(report, problems, reports_dir=reports_dir), None
        except OSError as exc:  # (a PublishError names the files it still wrote)
            return getattr(exc, "written", []), exc

    def describe(self, path: Path) -> str:
        """What a file :meth:`publish` wrote is, for the line that names it."""
        if path == self.html:
            return "HTML report"
        if self.csv is not None and path.parent == self.csv and path.name in CSV_NAMES:
            return "CSV table"
        return "Markdown summary"  # the markdown file, or $GITHUB_STEP_SUMMARY


_MARKDOWN_MARK: Final = b"## structeval results"
_CSV_MARKS: Final = (b"scenario_id,run_id,", b"path,count,")
_HTML_MARK: Final = b"<title>structeval results</title>"


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (through links too), existing or not."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _refuse_foreign(path: Path, ours: bytes | Callable[[Path], bool], kind: str) -> None:
    """``FileExistsError`` when ``path`` holds a file this output never wrote: one whose first
    bytes lack the mark ``ours``, or that the test ``ours`` refuses (not ``kind`` of this
    tool). A gold, a trajectory, a per-run report, anyone's file: a slip in a path must not
    destroy it. An empty file, or none, is free; a stream (``/dev/stdout``) is written into,
    never replaced."""
    try:
        if written_into(path) or not path.is_file() or path.stat().st_size == 0:
            return
        mine = ours(path) if callable(ours) else ours in read_head(os.fspath(path), 512)
    except OSError:  # (writing then says what is wrong with the path)
        return
    if not mine:
        raise FileExistsError(
            f"{path.name} is not {kind} structeval wrote, so it is kept: name another path"
        )


def _an_aggregate(path: Path) -> bool:
    """Whether ``path`` holds an aggregate report (a baseline: an ``_aggregate.json``, by this
    tool or AssetOpsBench, however it was reformatted since)."""
    try:
        data = json.loads(read_text(os.fspath(path), MAX_REPORT_BYTES))
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and isinstance(data.get("results"), list) and "totals" in data


def _seen_from(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` where it can be (a page opened from an artefact)."""
    try:
        return os.path.relpath(path, folder)
    except ValueError:  # another drive
        return os.fspath(path)


def github_annotations(
    problems: Sequence[str], environ: Mapping[str, str] = os.environ
) -> list[str]:
    """``::error`` workflow commands for ``problems`` when the run is a GitHub Actions job.

    GitHub turns such stdout lines into annotations on the job's summary page, so a missed
    gate is seen without opening the log. Outside Actions (``GITHUB_ACTIONS`` unset) there
    are none. Newlines and ``%`` are escaped as the workflow-command syntax requires, and the
    rest of a problem's text is made :func:`~pytest_structeval.naming.printable`; the lines
    themselves are commands, to be written as they are.
    """
    if environ.get("GITHUB_ACTIONS") != "true":
        return []
    escaped = (
        printable(p.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")) for p in problems
    )
    return [f"::error title=structeval::{text}" for text in escaped]


def unread_failure(count: int, load_errors: int, *, items: bool = True) -> str:
    """Why a run that no gate judges fails on ``count`` files or entries it could not read
    (``load_errors`` in all). ``items=False``: pytest, where those are no failing item (the
    others are)."""
    what = "1 file or entry" if count == 1 else f"{count} files or entries"
    where = "" if items else (" and is no test item" if count == 1 else " and are no test items")
    return (
        f"structeval: {what} could not be read{where} (see errors); with no gate everything "
        f"must load (a gate such as load_errors<={load_errors} decides instead)"
    )
