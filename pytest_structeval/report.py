"""Per-run records, the aggregate, report files and the terminal summary.

The layout is AssetOpsBench's (``<run id>.json`` per run plus ``_aggregate.json``), so its users
can switch. :class:`Aggregate` holds plain dicts: a serial run, the pytest-xdist controller
(which keeps each report's records as they arrive and adds them all at session end) and
``structeval evaluate`` all build it the same way, and any order of the runs gives the same
report (apart from ``generated_at``), because every figure is computed at the end from the
multiset of records in a canonical order.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import functools
import hashlib
import importlib.metadata
import json
import math
import os
import re
import shutil
import statistics
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, Final

import orjson

from .baseline import baseline_caveat, item_label
from .dirlock import (
    JOURNAL_NAME,
    JOURNAL_STEM,
    end_journal,
    exclusive,
    journal_names,
    start_journal,
)
from .files import (
    LEFT_QUIET_SECONDS,
    MAX_REPORT_BYTES,
    read_text,
    remove_left_temporaries,
    save_file,
    write_temporary,
)
from .naming import (
    FirstFree,
    cut_message,
    encodable,
    few,
    fs_encodes,
    name_text,
    natural_key,
    printable,
    score_text,
    system_label,
)
from .ops import ops_metrics
from .parse import REFUSED
from .paths import composed, index_pattern
from .reportformat import AGGREGATE_NAME, FORMAT_VERSION, SUMMED_METRICS
from .results import HALLUCINATION, MATCH, SKIPPED, ScoreResult, huge_ints_named, plain
from .spool import ReportSpool, is_spool
from .spool_writer import holds
from .stats import finite_number as _number
from .stats import mean4, mean_ci95, round4

__all__ = [
    "AGGREGATE_NAME",
    "PER_FIELD_TOP",
    "REASON_CHARS",
    "Aggregate",
    "RunRecord",
    "WrittenReports",
    "baseline_lines",
    "render_summary",
    "repeat_unit",
    "reports_fate",
    "run_name",
    "save_report",
    "system_names",
    "system_of",
    "tool_version",
    "write_reports",
]

PER_FIELD_TOP: Final = 20
"""How many of the worst field paths ``per_field`` lists."""
REASON_CHARS: Final = 200
"""The longest ``reason`` of a ``results`` entry: one per run, so it stays short."""
_NAME_CHARS: Final = 120  # a field path, a runner and model or a flaky entry in a summary line

_NOTE_KINDS: Final = (
    "unmatched_trajectories",
    "unselected_trajectories",  # pytest: of scenarios an argument left out (see PassedBy)
    "unmatched_scenarios",
    "duplicates",
    "errors",
    "skipped_runs",  # pytest: scenario items, and tests using the structeval fixture, skipped
    "repeated_keys",  # trajectory records that write a key twice: read as the last says
)
_NOTE_PATHS: Final = ("source", "path", "scenario_path")  # a note's path on disk
_NOTE_PATH_LISTS: Final = ("sources", "unread")  # ... and its lists of them


def _show_paths(entry: dict[str, Any]) -> None:
    """A join note's paths on disk, in place, as the report shows them: their UTF-8 text."""
    for key in _NOTE_PATHS:
        path = entry.get(key)
        if isinstance(path, str) and not path.isascii():
            entry[key] = name_text(path)
    for key in _NOTE_PATH_LISTS:
        paths = entry.get(key)
        if isinstance(paths, list):
            entry[key] = [name_text(p) if isinstance(p, str) else p for p in paths]


_JOIN_TOTALS: Final = (
    ("load_errors", "errors"),
    ("unmatched_trajectories", "unmatched_trajectories"),
    ("unmatched_scenarios", "unmatched_scenarios"),
)
"""The totals counted from the join's notes: ``None`` when those are unknown."""
_NAME_BYTES: Final = 150  # well under the usual 255-byte file-name limit, suffixes included
_UNSAFE = re.compile(r"[^\w.+=@-]")
_WINDOWS_RESERVED: Final = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"{device}{i}" for device in ("com", "lpt") for i in (*"123456789", "¹", "²", "³")}
)
# Metric names in the reference's score_summary order; others follow alphabetically.
_KNOWN_METRICS: Final = (
    "partial_exact_match_accuracy",
    "strict_exact_match_accuracy",
    "partial_similarity_score",
    "precision",
    "recall",
    "f1",
    "total_gold_keys",
    "total_model_keys",
    "matched_keys",
    "exact_value_matches",
)
_NOT_METRICS: Final = frozenset({"threshold", "details", "mode", "reason", "error", "parse_method"})
_COUNTED: Final = {
    "missing_keys": "missing_keys_total",
    "extra_keys": "extra_keys_total",
    "details": "detail_entries_total",
}
"""List-valued ``details`` entries whose lengths ``score_summary`` totals."""
UNPARSED: Final = "unparsed"
"""Parse outcome of a model answer that could not be parsed at all (``strict_parse``, limits)."""


# --------------------------------------------------------------------------- one run


@dataclass(frozen=True, slots=True)
class RunRecord:
    """The outcome of one run, in the per-run report layout (see :meth:`to_dict`).

    ``error`` is set when the run could not be evaluated (broken scenario, unknown scorer,
    scorer exception, gold over a limit); such a run never passes. ``label`` is a scenario
    run's name within its scenario (a repeated run id's is ``run-1-2``): its item is named
    ``<id>[<label>]`` and its report file after it. ``result`` keeps the
    :class:`ScoreResult` for in-process failure messages, and ``trace`` the traceback of a
    scorer that raised (its own frames), for the item's failure; neither is serialised.
    """

    scenario_id: str
    scenario_type: str | None
    run_id: str
    runner: str
    model: str
    question: str
    answer: Any
    scorer: str
    passed: bool
    score: float
    rationale: str
    details: Mapping[str, Any]
    ops: Mapping[str, Any]
    error: str | None = None
    source: str | None = None
    scenario_path: str | None = None
    nodeid: str | None = None
    label: str | None = None
    result: ScoreResult | None = field(default=None, compare=False, repr=False)
    trace: str | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain builtins in the reference key order; our extras (``error`` ...) come last.

        ``answer``, ``details`` and ``ops`` that already are plain data are shared with the
        record, not copied (see :func:`_as_plain`); anything else is converted by ``plain``.
        """
        return {
            "scenario_id": self.scenario_id,
            "scenario_type": self.scenario_type,
            "run_id": self.run_id,
            "runner": self.runner,
            "model": self.model,
            "question": self.question,
            "answer": _as_plain(self.answer),
            "score": {
                "scorer": self.scorer,
                "passed": self.passed,
                "score": plain(self.score),
                "rationale": self.rationale,
                "details": _as_plain(self.details),
            },
            "ops": _as_plain(self.ops),
            "error": self.error,
            "source": self.source,
            "scenario_path": self.scenario_path,
            "nodeid": self.nodeid,
            "label": self.label,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        """Inverse of :meth:`to_dict`; missing keys, and parts of another shape (a record
        file from anywhere), take neutral defaults."""
        score = _score(data)
        value = _number(score.get("score"))
        ops = data.get("ops")
        return cls(
            scenario_id=str(data.get("scenario_id") or ""),
            scenario_type=data.get("scenario_type"),
            run_id=str(data.get("run_id") or ""),
            runner=str(data.get("runner") or ""),
            model=str(data.get("model") or ""),
            question=str(data.get("question") or ""),
            answer=data.get("answer"),
            scorer=str(score.get("scorer") or ""),
            passed=bool(score.get("passed")),
            score=0.0 if value is None else value,
            rationale=str(score.get("rationale") or ""),
            details=dict(_details(data)),
            ops=dict(ops) if isinstance(ops, Mapping) and ops else ops_metrics(None, ""),
            error=data.get("error"),
            source=data.get("source"),
            scenario_path=data.get("scenario_path"),
            nodeid=data.get("nodeid"),
            label=data.get("label"),
        )

    @classmethod
    def for_error(
        cls,
        *,
        scenario_id: str,
        run_id: str,
        error: str,
        nodeid: str | None = None,
        scenario_type: str | None = None,
        scenario_path: str | None = None,
        source: str | None = None,
        scorer: str = "",
        label: str | None = None,
        runner: str = "",
        model: str = "",
        question: str = "",
    ) -> RunRecord:
        """A failed run that has no result (a crashed worker's item, an item never run): its
        runner and model keep it among their own runs. Its ``ops`` are null, not measured
        (zeros read as a run that made no tool call, and lowered the run's totals)."""
        return cls(
            scenario_id=scenario_id,
            scenario_type=scenario_type,
            run_id=run_id,
            runner=runner,
            model=model,
            question=question,
            answer=None,
            scorer=scorer,
            passed=False,
            score=0.0,
            rationale=error,
            details={},
            ops=dict.fromkeys(ops_metrics(None, "")),
            error=error,
            source=source,
            scenario_path=scenario_path,
            nodeid=nodeid,
            label=label,
        )

    @classmethod
    def from_result(
        cls,
        result: ScoreResult,
        *,
        scorer: str,
        run_id: str = "",
        scenario_id: str = "",
        scenario_type: str | None = None,
        runner: str = "",
        model: str = "",
        nodeid: str | None = None,
        question: str = "",
        answer: Any = None,
    ) -> RunRecord:
        """A record for a score computed outside a scenario run (``structeval`` fixture asserts)."""
        return cls(
            scenario_id=scenario_id,
            scenario_type=scenario_type,
            run_id=run_id,
            runner=runner,
            model=model,
            question=question,
            answer=answer,
            scorer=scorer,
            passed=bool(result.passed),
            score=float(result.score),
            rationale=result.reason or result.error or ("passed" if result.passed else "failed"),
            details=result.to_dict(),
            ops=ops_metrics(None, ""),
            nodeid=nodeid,
            result=result,
        )


def _as_plain(value: Any) -> Any:
    """``value`` itself when it already is plain JSON data, else ``plain(value)``.

    Plain means exactly ``dict`` (with ``str`` keys), ``list``, ``str``, ``int``, ``bool``,
    ``None`` and finite ``float``: what ``plain`` returns, so for such values the result is
    the same, without the copy. Record parts mostly arrive plain (``ScoreResult.to_dict()``,
    ``ops_metrics``, answers read from JSON), and checking costs a third of copying.
    Iterative, like ``plain``.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float:
            if math.isfinite(item):
                continue
        elif kind is dict:
            for key in item:
                if type(key) is not str:
                    return plain(value)
            stack.extend(item.values())
            continue
        elif kind is list:
            stack.extend(item)
            continue
        return plain(value)
    return value


# --------------------------------------------------------------------------- names


def _report_stem(run_id: str, scenario_id: str) -> str:
    """A safe file name stem for one run: ``run_id``, or ``scenario-<id>`` when it is empty.

    Characters other than letters, digits and ``._-+=@`` become ``_``, and so do letters the
    file-system encoding cannot encode (a legacy locale's: see :func:`encodable`); leading
    dots go (no hidden files, no ``..``); Windows device names and ``_aggregate`` get a
    ``run-`` prefix; long names are cut and keep a hash of the full id; names are
    NFC-normalised (and :func:`_claim` compares them case-folded, so a case- or
    normalisation-insensitive file system (macOS) cannot merge two reports either)."""
    base = run_id.strip() or f"scenario-{scenario_id}"
    if not base.isascii():
        base = unicodedata.normalize("NFC", base)
    stem = encodable(_UNSAFE.sub("_", base), _underscore).strip(". ") or "_"
    if stem.split(".")[0].casefold() in _WINDOWS_RESERVED or stem.casefold() == "_aggregate":
        stem = f"run-{stem}"
    if len(stem.encode()) > _NAME_BYTES:
        digest = hashlib.sha256(base.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        cut = stem.encode()[: _NAME_BYTES - 13].decode("utf-8", "ignore")
        stem = f"{cut}~{digest}"
    return stem


def _underscore(char: str) -> str:
    return "_"


def _claim(stem: str, taken: set[str]) -> str | None:
    """``<stem>.json``, recorded in ``taken``, unless it is taken (None)."""
    name = f"{stem}.json"
    folded = name.casefold()
    if folded in taken or folded == AGGREGATE_NAME:
        return None
    taken.add(folded)
    return name


def _repeat(stem: str, taken: set[str], tried: dict[str, int]) -> str:
    """The first of ``<stem>-1.json``, ``<stem>-2.json`` ... not taken, recorded in ``taken``.
    ``tried`` keeps, per stem, the suffixes already found taken (``taken`` only grows), so
    that 5,000 runs sharing one run id take linear time, not quadratic."""
    n = tried.get(stem, 0) + 1
    while (name := _claim(f"{stem}-{n}", taken)) is None:
        n += 1
    tried[stem] = n
    return name


def _skipped_name(entry: Mapping[str, Any]) -> str:
    """``S1 [r1]`` for a skipped scenario run, the node id alone for a skipped test that
    uses the ``structeval`` fixture."""
    run = run_name(entry)
    return _clipped(str(entry.get("scenario_id"))) + (f" [{run}]" if run else "")


def run_name(record: Mapping[str, Any]) -> str:
    """What names a run (a record, or a ``results``/``skipped`` entry) in its report file's
    name and in summaries: its label (a scenario run's name, as its item has it), else its
    run id; empty for neither."""
    return str(record.get("label") or record.get("run_id") or "")


def _report_names(records: Sequence[Mapping[str, Any]], taken: set[str]) -> list[str]:
    """A unique ``<stem>.json`` (:func:`_report_stem` of its :func:`run_name`) for each
    record, in order, recorded in ``taken``, so that a file
    named after an item holds that item's run: the runs whose name is a file name as it
    stands (``a_b``) are served first, then those whose name had to be cleaned (``a b``
    also gives ``a_b``), and only then do names two runs share get ``-1``, ``-2`` ...
    ``402[run-1]`` gets ``run-1-1.json`` when ``401[run-1]`` has ``run-1.json``, never
    ``run-1-2.json``, which is ``401[run-1-2]``'s."""
    names = [run_name(record) for record in records]
    stems = [
        _report_stem(name, str(record.get("scenario_id") or ""))
        for name, record in zip(names, records, strict=True)
    ]
    given: list[str | None] = [None] * len(records)
    for clean in (True, False):
        for i, (name, stem) in enumerate(zip(names, stems, strict=True)):
            if (name == stem) is clean:
                given[i] = _claim(stem, taken)
    tried: dict[str, int] = {}
    return [name or _repeat(stem, taken, tried) for stem, name in zip(stems, given, strict=True)]


def reports_fate(where: object, *, renaming: bool, written: bool) -> str:
    """What became of the reports in ``where`` when a run stopped at its end (a Ctrl-C, memory
    running out), ``renaming`` them into place or once ``written``: a pytest run and
    ``structeval evaluate`` say it alike."""
    if renaming:  # each file is whole, but the set may mix this run and the last
        return (
            f"its files in {where} may mix this run's and the last run's "
            "(the next run sorts them out)"
        )
    if written:
        return f"the reports in {where} were written"
    return f"the reports in {where} are left as they were"  # (the new ones were temporary)


def write_ahead(spool: ReportSpool, record: Mapping[str, Any]) -> None:
    """Hand a run's report file to ``spool`` (see spool.py), under the name it gets unless
    another run shares it or a file not ours holds it. A record that cannot be encoded is left
    for :func:`write_reports`, which says why; so is one memory ran out for (``ulimit -v``):
    the spool is a head start, which must never end the run."""
    try:
        name, data = _report_names([record], set())[0], report_bytes(record)
    except (TypeError, ValueError, RecursionError, MemoryError):
        return
    spool.put(name, data)


# --------------------------------------------------------------------------- aggregate


def _canon(value: Any) -> bytes:
    """Canonical bytes of plain data: the sort and de-duplication key."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # integers beyond 64 bits
        return json.dumps(value, sort_keys=True).encode()


def _mean(values: Sequence[float]) -> float | None:
    return mean4(values) if values else None


def _percentile(values: Sequence[float], pct: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return float(values[0])
    return float(statistics.quantiles(sorted(values), n=100, method="inclusive")[pct - 1])


class Aggregate:
    """A summary of many runs, independent of the order they are added in.

    Runs form a multiset (:meth:`add`); notes about the join (unmatched, duplicates, load
    errors) form a set (:meth:`note`), so every xdist worker may note the same join and the
    union still lists each entry once; :meth:`report` computes the ``_aggregate.json`` content.
    """

    __slots__ = (
        "_incomplete",
        "_joins_unknown",
        "_notes",
        "_records",
        "_recovered",
        "_selection",
    )

    def __init__(self) -> None:
        self._records: list[dict[str, Any]] = []
        self._notes: dict[str, dict[bytes, Any]] = {kind: {} for kind in _NOTE_KINDS}
        self._incomplete: set[str] = set()
        self._recovered: set[str] = set()
        self._selection = False
        self._joins_unknown = False

    @classmethod
    def empty(cls) -> Aggregate:
        return cls()

    @property
    def records(self) -> tuple[dict[str, Any], ...]:
        return tuple(self._records)

    @property
    def complete(self) -> bool:
        return not self._incomplete

    def __len__(self) -> int:
        return len(self._records)

    def add(self, record: RunRecord | Mapping[str, Any], *, trusted: bool = False) -> None:
        """Add one run: a :class:`RunRecord` or its ``to_dict()`` (as it arrives from a worker).

        A mapping is copied with ``plain``, so the aggregate holds JSON data of its own.
        ``trusted=True`` skips the copy for a dict the caller knows to be plain data that
        nobody changes afterwards (a ``to_dict()`` result, or the ``json.loads`` of one).
        """
        if isinstance(record, RunRecord):
            self._records.append(record.to_dict())
        elif trusted and type(record) is dict:
            self._records.append(record)
        else:
            self._records.append(plain(record))

    def note(self, notes: Mapping[str, Any]) -> None:
        """Add join notes (``JoinResult.notes()``); repeated entries are kept once. Their
        paths on disk, as the join found them (see ``PassedBy``), are added as their UTF-8
        text (:func:`~pytest_structeval.naming.name_text`), the same under every locale."""
        for kind in _NOTE_KINDS:
            for entry in notes.get(kind) or ():
                value = plain(entry)
                if isinstance(value, dict):
                    _show_paths(value)
                self._notes[kind][_canon(value)] = value

    def mark_incomplete(self, reason: str) -> None:
        """Record why the run is not complete (a crashed worker, an interrupt)."""
        self._incomplete.add(reason)

    def mark_recovered(self, what: str) -> None:
        """Record a crash that lost nothing (its item was run again): the run stays complete,
        and its summary says so."""
        self._recovered.add(what)

    def mark_joins_unknown(self) -> None:
        """Record that the join's notes never arrived (every pytest-xdist worker crashed):
        the load error and unmatched totals are unknown (``None``, which fails a gate on them
        with a reason), not 0."""
        self._joins_unknown = True

    def mark_selection(self) -> None:
        """Record that the run scored a selection of what it would report (``-k``, ``--lf``):
        its figures, and the gates on them, cover the selected runs only."""
        self._selection = True

    def ordered(self, reserved: Iterable[str] = ()) -> list[tuple[dict[str, Any], str]]:
        """Records in canonical order, each with its report file name.

        Names are assigned in this order, so they do not depend on which worker finished first.
        ``reserved`` file names are never given out (files in the reports folder that are not
        ours: a report must not replace them).
        """
        pairs = sorted(((_identity(r), r) for r in self._records), key=itemgetter(0))
        records: list[dict[str, Any]] = []
        for _, group in groupby(pairs, key=itemgetter(0)):
            # Several records of one run (``--dist each``, a repeated test) go by content:
            # canonical bytes are computed for those only.
            runs = [record for _, record in group]
            records.extend(sorted(runs, key=_canon) if len(runs) > 1 else runs)
        # (compared as report names are, NFC and case-folded: macOS takes a name on disk in
        # NFD, as HFS+ and many tools write them, for the same name in NFC)
        taken = {composed(name).casefold() for name in reserved}
        return list(zip(records, _report_names(records, taken), strict=True))

    def report(self, generated_at: str | None = None) -> dict[str, Any]:
        """The ``_aggregate.json`` content (reference keys first, then ours)."""
        return self._report(self.ordered(), generated_at)

    def _report(
        self, ordered: list[tuple[dict[str, Any], str]], generated_at: str | None
    ) -> dict[str, Any]:
        """:meth:`report` from :meth:`ordered` (which :func:`write_reports` has computed)."""
        records = [r for r, _ in ordered]
        passed = sum(1 for r in records if _score(r).get("passed") is True)
        scored = len(records)
        fields = _field_stats(records)
        metrics = _metrics_by_type(records)
        systems = system_names(records)
        by_scenario = _by_scenario(records, systems)
        notes = {kind: sorted(self._notes[kind].values(), key=_note_key) for kind in _NOTE_KINDS}
        run_errors = [
            {
                "source": r.get("source") or r.get("nodeid") or "",
                "scenario_id": r.get("scenario_id"),
                "run_id": r.get("run_id"),
                "error": r["error"],
            }
            for r in records
            if r.get("error")
        ]
        return {
            "generated_at": generated_at
            or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "runners": sorted({str(r["runner"]) for r in records if r.get("runner")}),
            "models": sorted({str(r["model"]) for r in records if r.get("model")}),
            "totals": {
                "scenarios": len({str(r.get("scenario_id")) for r in records}),
                "scored": scored,
                "passed": passed,
                "pass_rate": round4(passed / scored) if scored else 0.0,
                "errors": len(run_errors),
                **{
                    total: None if self._joins_unknown else len(notes[kind])
                    for total, kind in _JOIN_TOTALS
                },
            },
            "by_scenario_type": _by_type(records, metrics),
            "ops": _ops(records),
            "results": [
                {
                    "scenario_id": r.get("scenario_id"),
                    "run_id": r.get("run_id"),
                    "label": r.get("label"),
                    "runner": r.get("runner") or "",
                    "model": r.get("model") or "",
                    "passed": _score(r).get("passed") is True,
                    "score": _score(r).get("score"),
                    "error": r.get("error"),
                    "report": name,
                    "nodeid": r.get("nodeid"),
                    "reason": _reason(r),
                }
                for r, name in ordered
            ],
            "score_summary": _score_summary(records, _merged(metrics.values())),
            "per_field": _per_field(fields),
            "field_scores": _field_scores(fields),
            "field_patterns": _field_scores(_pooled_by_pattern(fields)),
            "parse": _parse_summary(records),
            "by_scenario": by_scenario,
            "repeats": _repeats(by_scenario),
            "by_runner_model": _by_runner_model(records, systems, by_scenario),
            "unmatched": {
                "trajectories": notes["unmatched_trajectories"],
                "scenarios": notes["unmatched_scenarios"],
                "not_selected": notes["unselected_trajectories"],
            },
            "duplicates": notes["duplicates"],
            "repeated_keys": notes["repeated_keys"],
            "errors": notes["errors"] + run_errors,
            "skipped": notes["skipped_runs"],
            "complete": self.complete,
            "incomplete_reasons": sorted(self._incomplete),
            "recovered_crashes": sorted(self._recovered),
            "selection": self._selection,
            "format_version": FORMAT_VERSION,
            "tool_version": tool_version(),
        }


@functools.lru_cache(maxsize=1)
def tool_version() -> str | None:
    """The installed pytest-structeval's version (``None`` when run from a bare source tree)."""
    try:
        return importlib.metadata.version("pytest-structeval")
    except importlib.metadata.PackageNotFoundError:
        return None


def _identity(record: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """Which run a record is: the canonical order's key, before the content."""
    return (
        str(record.get("scenario_id")),
        str(record.get("run_id")),
        str(record.get("source") or ""),
        str(record.get("nodeid") or ""),
    )


def _note_key(entry: Any) -> tuple[Any, str, bytes]:
    """Notes sort by where they point (file or folder, in natural order: ``x.jsonl:7`` before
    ``x.jsonl:10``), then id, then content."""
    if not isinstance(entry, Mapping):
        return ((), "", _canon(entry))
    where = str(entry.get("source") or entry.get("path") or "")
    return (natural_key(where), str(entry.get("id") or ""), _canon(entry))


def _reason(record: Mapping[str, Any]) -> str | None:
    """Why a run did not pass, in one line of at most :data:`REASON_CHARS` characters: the
    first line of its rationale (an error run's is its error); ``None`` for a passed run.
    The per-run file keeps the whole rationale; this line is what a summary can show."""
    score = _score(record)
    if score.get("passed") is True:
        return None
    text = str(score.get("rationale") or record.get("error") or "").lstrip()
    lines = text[: 4 * REASON_CHARS].splitlines()  # a rationale can be huge: read its start
    line = " ".join(lines[0].split()) if lines else ""
    return _clipped(line or "not passed", REASON_CHARS)


def _score(record: Mapping[str, Any]) -> Mapping[str, Any]:
    score = record.get("score")
    return score if type(score) is dict or isinstance(score, Mapping) else {}


def _details(record: Mapping[str, Any]) -> Mapping[str, Any]:
    details = _score(record).get("details")
    return details if type(details) is dict or isinstance(details, Mapping) else {}


def _outcomes(
    records: Iterable[Mapping[str, Any]], group: Callable[[Mapping[str, Any]], str]
) -> dict[str, list[tuple[float, bool]]]:
    """Each run's (score, passed) by ``group(record)``, groups sorted by name; a run without
    a score (an error run) scores 0, as in ``score_summary``."""
    groups: dict[str, list[tuple[float, bool]]] = {}
    for record in records:
        groups.setdefault(group(record), []).append(_outcome(record))
    return dict(sorted(groups.items()))


def _outcome(record: Mapping[str, Any]) -> tuple[float, bool]:
    score = _score(record)
    return _number(score.get("score")) or 0.0, score.get("passed") is True


def _by_type(
    records: Sequence[Mapping[str, Any]], metrics: Mapping[str, _MetricValues]
) -> dict[str, dict[str, Any]]:
    """Per scenario type (``unknown`` when a run has none): runs, passes, pass rate, mean
    score and the mean of each metric its runs report (``f1_avg``...), the figures a gate in
    brackets (``pass_rate[IoT]>=0.9``, ``f1[IoT]>=0.8``) reads. ``metrics``: each type's
    :func:`_metrics_by_type`."""
    out = {}
    for kind, runs in _outcomes(records, _type_of).items():
        passed = sum(ok for _, ok in runs)
        entry: dict[str, Any] = {
            "total": len(runs),
            "passed": passed,
            "pass_rate": round4(passed / len(runs)),
            "score_avg": _mean([value for value, _ in runs]),
        }
        for name, mean in _metric_means(metrics[kind][1]).items():
            entry.setdefault(name, mean)  # (a scorer's own "score" metric never hides the run's)
        out[kind] = entry
    return out


def _type_of(record: Mapping[str, Any]) -> str:
    return str(record.get("scenario_type") or "unknown")


_MAX_TOTAL_BITS: Final = 14_000  # about 4,200 digits


def _ops(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Token and tool-call totals, duration percentiles and total cost, in one pass."""
    totals = {"tokens_in": 0, "tokens_out": 0, "tool_call_count": 0}
    durations: list[float] = []
    costs: list[float] = []
    for record in records:
        ops = record.get("ops")
        if not (type(ops) is dict or isinstance(ops, Mapping)):
            continue
        for name in totals:
            value = ops.get(name)
            if type(value) is int:  # exact, past the float range too, as the run's own file
                totals[name] += value
            elif (number := _number(value)) is not None:
                totals[name] += int(number)
        if (duration := _number(ops.get("duration_ms"))) is not None:
            durations.append(duration)
        if (cost := _number(ops.get("est_cost_usd"))) is not None:
            costs.append(cost)
    return {
        "tokens_in_total": _writable(totals["tokens_in"]),
        "tokens_out_total": _writable(totals["tokens_out"]),
        "duration_ms_p50": _percentile(durations, 50),
        "duration_ms_p95": _percentile(durations, 95),
        "tool_calls_total": _writable(totals["tool_call_count"]),
        "est_cost_usd_total": _total_cost(costs),
    }


def _writable(total: int) -> int | None:
    """A count as a report can write it: past about 4,200 digits (str()'s limit), none."""
    return total if total.bit_length() <= _MAX_TOTAL_BITS else None


def _total_cost(costs: Sequence[float]) -> float | None:
    """The runs' summed cost; ``None`` without costs or past the float range."""
    try:
        return round(math.fsum(costs), 6) if costs else None
    except OverflowError:
        return None


def _score_summary(records: Sequence[Mapping[str, Any]], values: _MetricValues) -> dict[str, Any]:
    """Reference names. ``score_*`` cover every run (an error run scores 0); metric means
    cover the runs that report that metric; ``scored_results`` counts runs a scorer finished.
    ``values``: :func:`_metric_values` of all the runs."""
    scores = [_number(_score(r).get("score")) or 0.0 for r in records]
    scored_results, metrics, counts = values
    summary: dict[str, Any] = {
        "scored_results": scored_results,
        "score_avg": _mean(scores),
        "score_min": round4(min(scores)) if scores else None,  # as the means: 4 decimals
        "score_max": round4(max(scores)) if scores else None,
        "score_ci95": mean_ci95(scores),
    }
    for name, mean in _metric_means(metrics).items():
        summary.setdefault(name, mean)  # (a scorer's own "score" metric never hides the run's)
    for name in SUMMED_METRICS:
        if name in metrics:
            total = math.fsum(metrics[name])
            summary[f"{name}_sum"] = int(total) if total.is_integer() else round(total, 4)
    summary.update(counts)
    return summary


_MetricValues = tuple[int, dict[str, list[float]], dict[str, int]]


def _metrics_by_type(records: Iterable[Mapping[str, Any]]) -> dict[str, _MetricValues]:
    """:func:`_metric_values` of each scenario type's runs; :func:`_merged` gives the run's."""
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        grouped.setdefault(_type_of(record), []).append(record)
    return {kind: _metric_values(runs) for kind, runs in grouped.items()}


def _merged(parts: Iterable[_MetricValues]) -> _MetricValues:
    """:func:`_metric_values` of the union of the runs the parts cover (means take ``fsum``,
    exact in any order)."""
    scored_results, counts = 0, dict.fromkeys(_COUNTED.values(), 0)
    metrics: dict[str, list[float]] = {}
    for scored, values, totals in parts:
        scored_results += scored
        for name, numbers in values.items():
            metrics.setdefault(name, []).extend(numbers)
        for name, total in totals.items():
            counts[name] += total
    return scored_results, metrics, counts


def _metric_values(records: Iterable[Mapping[str, Any]]) -> _MetricValues:
    """The runs a scorer finished, each numeric metric's values over them, and the totals
    of the counted lists (missing keys...)."""
    metrics: dict[str, list[float]] = {}
    counts = dict.fromkeys(_COUNTED.values(), 0)
    scored_results = 0
    for record in records:
        details = _details(record)
        if not details:
            continue
        scored_results += 1
        for name, value in details.items():
            if name in _NOT_METRICS:
                continue
            # Metrics are nearly always finite floats: skip the call for those.
            number = value if type(value) is float and math.isfinite(value) else _number(value)
            if number is not None:
                metrics.setdefault(name, []).append(number)
        for name, total in _COUNTED.items():
            value = details.get(name)
            if isinstance(value, list):
                counts[total] += len(value)
    return scored_results, metrics, counts


def _metric_means(metrics: Mapping[str, list[float]]) -> dict[str, float | None]:
    """``<metric>_avg`` of each metric, the reference's metrics first, then by name."""
    names: list[str] = [n for n in _KNOWN_METRICS if n in metrics]
    names += sorted(n for n in metrics if n not in _KNOWN_METRICS)
    return {f"{name}_avg": _mean(metrics[name]) for name in names}


@dataclass(slots=True)
class _FieldStat:
    scores: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    failing: int = 0

    def mean(self) -> float:
        return round4(math.fsum(self.scores) / len(self.scores))

    def lost(self) -> float:
        """The score the field lost across the run (exact, so in any order the same)."""
        return round(math.fsum(1.0 - score for score in self.scores), 4)


def _field_stats(records: Iterable[Mapping[str, Any]]) -> dict[str, _FieldStat]:
    """Per field path over all runs: scores, statuses and how many entries count as failing.

    Matches and skipped fields never fail; skipped fields have no score, and neither fail
    nor score the extras of a run whose mode does not count them (``ignore_extra``: they are
    information only).
    """
    stats: dict[str, _FieldStat] = {}
    for record in records:
        details = _details(record)
        entries = details.get("details")
        if not isinstance(entries, list):
            continue
        extra_ok = details.get("ignore_extra") is True
        for entry in entries:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("key"), str):
                continue
            status = str(entry.get("status") or ("match" if entry.get("exact") else "mismatch"))
            stat = stats.get(entry["key"])
            if stat is None:
                stat = stats[entry["key"]] = _FieldStat()
            stat.statuses[status] += 1
            if status == SKIPPED or (extra_ok and status == HALLUCINATION):
                continue  # not scored (x-eval-skip, ignore_paths, uncounted extras): no 0.0
            stat.scores.append(_number(entry.get("similarity")) or 0.0)
            if status != MATCH:
                stat.failing += 1
    return stats


def _per_field(stats: Mapping[str, _FieldStat]) -> list[dict[str, Any]]:
    """The worst failing field paths: the most score lost across the run first (the sum of
    ``1 - score`` over the field's runs: a field failing in a thousand runs before one an odd
    answer invented twice), then the lowest mean score, the most failures."""
    rows = sorted(
        (-stat.lost(), stat.mean(), -stat.failing, path)
        for path, stat in stats.items()
        if stat.failing
    )
    return [
        {
            "path": path,
            "count": len(stats[path].scores),
            "failing": -neg_failing,
            "mean_score": mean,
            "statuses": dict(sorted(stats[path].statuses.items())),
        }
        for _, mean, neg_failing, path in rows[:PER_FIELD_TOP]
    ]


def _field_scores(stats: Mapping[str, _FieldStat]) -> dict[str, dict[str, Any]]:
    """Every scored field path (sorted): the per-field view a later run compares with
    (baseline). A path skipped in every run has no score and is left out."""
    return {
        path: {"count": len(stat.scores), "mean_score": stat.mean(), "failing": stat.failing}
        for path, stat in sorted(stats.items())
        if stat.scores
    }


def _pooled_by_pattern(stats: Mapping[str, _FieldStat]) -> dict[str, _FieldStat]:
    """The stats of array element paths pooled under their pattern (``answer.items[*].n``
    for ``items[0].n``, ``items[1].n``...): per-field accuracy over list elements."""
    pooled: dict[str, _FieldStat] = {}
    for path, field_stat in stats.items():
        pattern = index_pattern(path)
        if pattern is None:
            continue
        into = pooled.get(pattern)
        if into is None:
            into = pooled[pattern] = _FieldStat()
        into.scores.extend(field_stat.scores)
        into.statuses.update(field_stat.statuses)
        into.failing += field_stat.failing
    return pooled


def _parse_outcome(record: Mapping[str, Any]) -> str | None:
    """How the run's model answer was parsed: the parse method, :data:`UNPARSED` when it could
    not be parsed at all, ``None`` when no scorer said (error runs, scorers without one)."""
    details = _details(record)
    method = details.get("parse_method")
    if isinstance(method, str) and method:
        return method
    error = details.get("error")
    if isinstance(error, str) and error.startswith("model answer:"):
        return UNPARSED
    return None


def _fallback(method: str) -> str | None:
    """``"text"`` or ``"empty"`` when a parse method is the parser's last resort (the answer
    kept as plain text, a refused repair too, or nothing left of it), else ``None``."""
    if method == "text" or method.endswith(("+text", REFUSED)):
        return "text"
    return "empty" if method == "empty" else None


def _parse_summary(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Parse rate = answers parsed to structure / answers whose parse outcome is known (an
    empty answer is known: it is a miss). ``abstained`` counts the runs whose scorer said
    the model declined to answer (``details["abstained"]``), so "I don't know" is told
    apart from a wrong answer."""
    methods: Counter[str] = Counter()
    unparsed = unknown = abstained = 0
    for record in records:
        if _details(record).get("abstained") is True:
            abstained += 1
        outcome = _parse_outcome(record)
        if outcome is None:
            unknown += 1
        elif outcome == UNPARSED:
            unparsed += 1
        else:
            methods[outcome] += 1
    fallbacks: Counter[str | None] = Counter()
    for method, n in methods.items():
        fallbacks[_fallback(method)] += n
    answers = sum(methods.values()) + unparsed
    return {
        "answers": answers,
        "structured": fallbacks[None],
        "text": fallbacks["text"],
        "empty": fallbacks["empty"],
        "unparsed": unparsed,
        "unknown": unknown,
        "abstained": abstained,
        "parse_rate": round4(fallbacks[None] / answers) if answers else None,
        "methods": dict(sorted(methods.items())),
    }


_System = tuple[str, str]  # (runner, model) of a run


def system_names(records: Iterable[Mapping[str, Any]]) -> dict[_System, str]:
    """Each runner and model pair's name, ``react-agent / gpt-4o`` (either part alone, or
    ``unknown``): the system a run tried. Names are unique: a pair whose name another pair
    already has (runner ``a / b`` beside runner ``a`` with model ``b``) gets `` #2``."""
    names: dict[_System, str] = {}
    unique = FirstFree(sep=" #")
    for runner, model in sorted({system_of(r) for r in records}):
        names[runner, model] = unique(system_label(runner, model))
    return names


def system_of(record: Mapping[str, Any]) -> _System:
    """A run's ``(runner, model)``, NFC: one system, however its names were stored."""
    return composed(str(record.get("runner") or "")), composed(str(record.get("model") or ""))


def _by_scenario(
    records: Sequence[Mapping[str, Any]], systems: Mapping[_System, str]
) -> dict[str, dict[str, Any]]:
    """Per scenario and runner and model (a system tried k times, as pass@k means: one model's
    pass never counts for another's): runs, passes, mean score, pass@k (any of its k runs
    passed) and pass^k (all k passed). Keyed by the scenario id, or ``<id> [<runner / model>]``
    for a scenario that several runners or models tried (`` #2`` if that is taken: a
    scenario's own id keeps its key)."""
    groups: dict[tuple[str, str], list[tuple[float, bool]]] = {}
    for record in records:
        group = (str(record.get("scenario_id")), systems[system_of(record)])
        groups.setdefault(group, []).append(_outcome(record))
    systems_of = Counter(scenario_id for scenario_id, _ in groups)  # scenario id -> systems
    keys = {group: group[0] for group in groups if systems_of[group[0]] == 1}
    unique = FirstFree(systems_of, sep=" #")  # (every scenario id reserved: none is a key)
    out = {}
    for group, runs in sorted(groups.items()):
        scenario_id, system = group
        passed = sum(ok for _, ok in runs)
        key = keys[group] if group in keys else unique(f"{scenario_id} [{system}]")
        out[key] = {
            "scenario_id": scenario_id,
            "runner_model": system,
            "runs": len(runs),
            "passed": passed,
            "pass_rate": round4(passed / len(runs)),
            "score_avg": _mean([score for score, _ in runs]),
            "pass_at_k": passed > 0,
            "pass_hat_k": passed == len(runs),
        }
    return out


def _by_runner_model(
    records: Sequence[Mapping[str, Any]],
    systems: Mapping[_System, str],
    by_scenario: Mapping[str, Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """Per runner and model: runs, passes, pass rate, mean score, and the repeat figures of
    its scenarios (:func:`_repeats`): how the agents or models of one run compare."""
    rows_of: dict[str, dict[str, Mapping[str, Any]]] = {}
    for key, row in by_scenario.items():
        rows_of.setdefault(row["runner_model"], {})[key] = row
    out = {}
    for system, runs in _outcomes(records, lambda r: systems[system_of(r)]).items():
        passed = sum(ok for _, ok in runs)
        out[system] = {
            "runs": len(runs),
            "passed": passed,
            "pass_rate": round4(passed / len(runs)),
            "score_avg": _mean([value for value, _ in runs]),
            **_repeats(rows_of.get(system, {})),
        }
    return out


def _repeats(by_scenario: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Suite-level flakiness: the share of scenarios (per runner and model, when the run holds
    several) passing at least once (pass@k) and every time (pass^k), and the flaky ones
    (some runs passed, some failed)."""
    rows = by_scenario.values()
    count = len(rows)
    return {
        "scenarios": count,
        "repeated": sum(1 for row in rows if row["runs"] > 1),
        "max_runs": max((row["runs"] for row in rows), default=0),
        "pass_at_k": round4(sum(row["pass_at_k"] for row in rows) / count) if count else None,
        "pass_hat_k": round4(sum(row["pass_hat_k"] for row in rows) / count) if count else None,
        "flaky": [key for key, row in by_scenario.items() if 0 < row["passed"] < row["runs"]],
    }


# --------------------------------------------------------------------------- files


@dataclass(frozen=True, slots=True)
class WrittenReports:
    """What :func:`write_reports` wrote: the per-run files (names in ``folder``), the
    aggregate file and the aggregate report."""

    folder: Path
    run_names: tuple[str, ...]
    aggregate_file: Path
    report: Mapping[str, Any]

    @property
    def run_files(self) -> tuple[Path, ...]:
        """The per-run files' paths (made when asked: a run writes thousands)."""
        return tuple(self.folder / name for name in self.run_names)


def report_bytes(value: Any) -> bytes:
    """The bytes of a report file: JSON indented by two, with a final newline."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    except TypeError:  # integers beyond 64 bits, lone surrogates: the stdlib escapes both
        try:
            return json.dumps(value, indent=2).encode() + b"\n"
        except ValueError:  # an integer past Python's int-string limit (a custom scorer's)
            return json.dumps(huge_ints_named(value), indent=2).encode() + b"\n"


def _previous_names(directory: Path) -> tuple[set[str], set[str]]:
    """Per-run file names an earlier run wrote in ``directory``: listed by its
    ``_aggregate.json``, or by the journal of a run killed while writing (:mod:`dirlock`); and
    those of them that only such a journal lists (no aggregate describes them). An aggregate
    that is there but cannot be read (over ``MAX_REPORT_BYTES``, not JSON) lists nothing, so
    every per-run report beside it is the earlier run's: kept, they were read as this run's
    (and none is known to be the journal's alone)."""
    journal = journal_names(os.fspath(directory))
    listed: set[str] | None = set()
    try:
        previous = json.loads(read_text(os.path.join(directory, AGGREGATE_NAME), MAX_REPORT_BYTES))
        results = previous["results"]
        listed = {r["report"] for r in results if isinstance(r.get("report"), str)}
    except FileNotFoundError:
        pass
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        listed = None
    if listed is None:
        with os.scandir(directory) as entries:
            found = {
                e.name
                for e in entries
                if e.is_file(follow_symlinks=False) and _is_run_report(e.path)
            }
        names, strays = journal | found, set()
    else:
        names, strays = journal | listed, journal - listed
    return _reports_named(directory, names), _reports_named(directory, strays)


def _reports_named(directory: Path, names: Iterable[str]) -> set[str]:
    """The listed ``names`` that can be per-run reports of ``directory``, as spelled on disk."""
    listed = (name for name in names if Path(name).name == name and _run_report_name(name))
    return {_on_disk(directory, name) for name in listed}


def _on_disk(directory: Path, name: str) -> str:
    """A listed file name as this process spells the file. POSIX names are bytes: a run under
    another locale wrote them otherwise, most likely as UTF-8 (that of most runs, macOS and
    Windows), which a legacy locale reads as other characters (``运行-1.json`` as
    ``è¿\x90è¡\x8c-1.json``); a name it cannot encode at all is that file's, and so is one
    it spells as another file that is not there (``é`` in latin-1) where the UTF-8 one is."""
    if name.isascii():
        return name
    encodes = fs_encodes(name)
    if encodes and os.path.lexists(os.path.join(directory, name)):
        return name
    utf8 = os.fsdecode(name.encode("utf-8", "surrogateescape"))
    return utf8 if not encodes or os.path.lexists(os.path.join(directory, utf8)) else name


def _run_report_name(name: str) -> bool:
    """Whether a file name is one a per-run report can have (a ``.json`` file, not hidden,
    not the aggregate)."""
    return name.endswith(".json") and not name.startswith(".") and name != AGGREGATE_NAME


def _is_run_report(path: str) -> bool:
    """Whether the file at ``path`` holds a per-run report (this layout is the reference's
    too): ``scenario_id``, ``run_id``, ``ops`` and a ``score`` that names its scorer. A report
    holding half an emoji (a lone surrogate, which :func:`report_bytes` writes as its escape)
    is one too: orjson refuses such a file, the standard library reads it."""
    if not _run_report_name(os.path.basename(path)):
        return False
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            data = json.loads(raw)
    except (OSError, ValueError, RecursionError):  # (JSONDecodeError is a ValueError)
        return False
    return (
        isinstance(data, dict)
        and {"scenario_id", "run_id", "ops"} <= data.keys()
        and isinstance(data.get("score"), dict)
        and "scorer" in data["score"]
    )


def save_report(path: str | os.PathLike[str], report: Mapping[str, Any]) -> None:
    """Write an aggregate report to ``path`` as ``_aggregate.json`` is written (atomically),
    creating its folder: how a run's aggregate becomes the next run's baseline."""
    save_file(path, report_bytes(report))


def write_reports(
    reports_dir: str | os.PathLike[str],
    aggregate: Aggregate,
    *,
    generated_at: str | None = None,
    update: Callable[[dict[str, Any]], None] | None = None,
    spool: ReportSpool | None = None,
    on_wait: Callable[[], None] | None = None,
    on_replace: Callable[[], None] | None = None,
) -> WrittenReports:
    """Write every per-run report and ``_aggregate.json``, all or nothing as far as a file
    system allows.

    Call once, at the end of a session, on the controller: names are assigned in canonical
    record order, so serial and distributed runs write the same files. Every new file is
    created under a temporary name first (:func:`~pytest_structeval.files.write_temporary`, or
    ``spool``'s file written ahead), and only once all of them exist, the aggregate's too, are
    they renamed into place, ``_aggregate.json`` last, and the per-run files an earlier run of
    this directory wrote (listed in its ``_aggregate.json``) and this run did not removed, so
    the folder never mixes two runs. A failure before the renames (a full disk) removes the
    temporary files and leaves the folder as it was, and the ``OSError`` raised names the file
    and says so; one during the renames says the folder may mix two runs (the next run sorts
    them out: see :mod:`dirlock`). ``on_replace()`` is called right before the first change to
    the folder's reports: a Ctrl-C before it leaves them as they were. A per-run file that
    already holds the same bytes is left as it is; other files are left alone, and a report
    whose name one of them holds takes the next free name (``-1``). ``update(report)`` may add
    keys to the aggregate report (the ``pytest_structeval_update_aggregate`` hook) before it
    is written. The ``spool``'s writer is waited for first; spool folders a killed run left
    behind are removed. One run at a time writes a directory (``on_wait()`` when it waits for
    another), and the files a killed run wrote count as the last run's (:mod:`dirlock`).
    """
    directory = Path(reports_dir)
    _make_folder(directory)
    if spool is not None:
        spool.close()
    with exclusive(os.fspath(directory), on_wait=on_wait) as held:
        return _write_reports(directory, aggregate, generated_at, update, spool, on_replace, held)


def _make_folder(directory: Path) -> None:
    """Make the reports folder (through a link to a folder not made yet: its target). What is
    there instead is named as the startup check names it, not as ``File exists``: a file
    (one that replaced the folder during the run), or a symbolic-link loop."""
    try:
        Path(os.path.realpath(directory)).mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        what, code = "a file", errno.EEXIST
        try:
            os.stat(directory)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            what, code = "a symbolic-link loop", errno.ELOOP
        told = OSError(f"it is {what}: name a folder")
        told.errno = code
        raise told from None


def _write_reports(
    directory: Path,
    aggregate: Aggregate,
    generated_at: str | None,
    update: Callable[[dict[str, Any]], None] | None,
    spool: ReportSpool | None,
    on_replace: Callable[[], None] | None,
    held: bool,
) -> WrittenReports:
    """:func:`write_reports` once the directory is this run's to write (``held``: locked)."""
    folder = os.fspath(directory)
    stale, strays = _previous_names(directory)
    with os.scandir(folder) as entries:
        files = {e.name: e.is_file(follow_symlinks=False) for e in entries}
    # A file no earlier run listed is someone else's (a gold or trajectory file when the folder
    # is also data), and so is anything but a regular file (a folder, a link): reports take
    # other names rather than replace it, unless it is a per-run report itself (one a killed
    # run wrote before its aggregate).
    reserved = {
        name
        for name, regular in files.items()
        if name not in stale and not (regular and _is_run_report(os.path.join(folder, name)))
    }
    ordered = aggregate.ordered(reserved=reserved)
    names = [name for _, name in ordered]
    # Room first (a full disk): what a killed run left that no aggregate lists goes now, and so
    # do spool folders killed runs left, and temporary files of these reports a process no
    # longer running left (under the lock no other process writes them: none is too recent).
    _remove_stale(folder, strays.difference(names), names)
    targets = {AGGREGATE_NAME, JOURNAL_STEM, *names, *stale}
    remove_left_temporaries(folder, targets, files, quiet=0.0 if held else LEFT_QUIET_SECONDS)
    ours = spool.folder if spool is not None else None
    for name in files:
        if is_spool(name) and (ours is None or name != ours.name):
            shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
    if ours is not None and not ours.is_dir():  # (a concurrent run removed it as a leftover)
        spool = None
    # The journal first: a run killed from here on leaves names the next run sorts out (its
    # temporary files among them). Then every new file under a temporary name (beside its
    # target: a rename within a folder, and creating files in a new folder costs the kernel
    # twice as much); nothing is replaced yet.
    moves: list[tuple[str, int]] = []  # (temporary path, index in ordered)
    journal = os.path.lexists(os.path.join(folder, JOURNAL_NAME))  # (a killed run's)
    writing = JOURNAL_NAME
    try:
        start_journal(folder, [*stale, *names])
        for index, (record, name) in enumerate(ordered):
            path, data = os.path.join(folder, name), report_bytes(record)
            ahead = spool.take(data) if spool is not None else None
            if name in files and holds(path, data):
                continue
            if ahead is None:
                writing = name
                ahead = write_temporary(path, data)
            moves.append((ahead, index))
        writing = AGGREGATE_NAME
        report = aggregate._report(ordered, generated_at)
        if update is not None:
            update(report)
        target = directory / AGGREGATE_NAME
        whole = write_temporary(os.fspath(target), report_bytes(report))
        moves.append((whole, -1))
    except BaseException as exc:
        for ahead, _ in moves:
            with contextlib.suppress(OSError):
                os.unlink(ahead)
        if not journal:  # (a killed run's stays: this one lists all its names, and more)
            with contextlib.suppress(OSError):
                end_journal(folder)
        if isinstance(exc, OSError):
            kept = "the last run's reports are left as they were"
            raise _not_written(exc, writing, kept) from exc
        raise
    # Into place: only now may a Ctrl-C or a failure leave the folder mixing two runs.
    if on_replace is not None:
        on_replace()
    done = 0
    try:
        for ahead, index in moves[:-1]:
            writing = names[index]
            os.replace(ahead, os.path.join(folder, writing))
            done += 1
        stale.difference_update(names)
        if stale:
            _remove_stale(folder, stale, names)
        writing = AGGREGATE_NAME
        os.replace(whole, target)
        done += 1
        end_journal(folder)
    except BaseException as exc:
        for ahead, _ in moves[done:]:
            with contextlib.suppress(OSError):
                os.unlink(ahead)
        if isinstance(exc, OSError):
            mixed = "its files may mix this run's and the last run's (the next run sorts them out)"
            raise _not_written(exc, writing, mixed) from exc
        raise
    return WrittenReports(directory, tuple(names), target, report)


def _not_written(exc: OSError, name: str, became: str) -> OSError:
    """``exc`` as the run tells it: which file it was writing, the error, and what the
    reports folder holds now."""
    why = f"[Errno {exc.errno}] {exc.strerror}" if exc.errno and exc.strerror else str(exc)
    told = OSError(f"{printable(name)}: {why}: {became}")
    told.errno = exc.errno
    return told


def _remove_stale(folder: str, stale: Collection[str], written: Sequence[str]) -> None:
    """Remove the ``stale`` names from ``folder``, except one that is the same file as a
    ``written`` report: on a case-insensitive file system (macOS, Windows) ``Run-1.json`` is
    ``run-1.json`` when a run id changes in letter case only, and unlinking it would delete
    the report just written. File identity decides, so a case-sensitive file system still
    removes the old file; where a file system gives no identity (inode 0), the names compared
    NFC and case-folded decide. (Nothing stale, nothing to look at: no ``lstat`` of each
    report written.)"""
    if not stale:
        return
    kept: set[tuple[int, int]] = set()
    folded: set[str] | None = None
    for name in written:
        with contextlib.suppress(OSError):
            status = os.lstat(os.path.join(folder, name))
            kept.add((status.st_dev, status.st_ino))
    for name in stale:
        path = os.path.join(folder, name)
        try:
            status = os.lstat(path)
        except OSError:
            continue
        if status.st_ino == 0:
            if folded is None:
                folded = {composed(n).casefold() for n in written}
            if composed(name).casefold() in folded:
                continue
        elif (status.st_dev, status.st_ino) in kept:
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)


# --------------------------------------------------------------------------- terminal summary


def _clipped(text: str, width: int = 60) -> str:
    """``text`` cut to ``width`` characters (an id can be any length)."""
    return text if len(text) <= width else f"{text[: width - 3]}..."


def _unmatched_cell(entry: Mapping[str, Any]) -> str:
    """An unmatched trajectory for the summary: where, and the scenario id it asked for
    with the nearest id found (``runs/a.jsonl:1 -> 'pump', no such scenario (did you mean
    'pumps'?)``)."""
    cell = str(entry.get("source"))
    wanted = entry.get("scenario_id")
    if wanted is None:  # joined by the file stem or the run id, neither of which matched
        return cell
    cell += f" -> {_clipped(repr(wanted))}, no such scenario"
    near = entry.get("near")
    return cell + (f" (did you mean {_clipped(repr(near))}?)" if near is not None else "")


def repeat_unit(report: Mapping[str, Any]) -> str:
    """What the report's repeats are of: scenarios, or, when several runners or models ran,
    (scenario, runner / model) pairs (``by_scenario`` is keyed so then)."""
    systems = report.get("by_runner_model")
    several = isinstance(systems, Mapping) and len(systems) > 1
    return "(scenario, runner / model) pairs" if several else "scenarios"


def _group_cell(name: str, entry: Mapping[str, Any], runs: str = "total") -> str:
    """``IoT 3/4 mean 0.8125``: a scenario type's (or a runner and model's) runs passed, and
    their mean score (a run that errored scores 0, as in the mean of the first line)."""
    mean = entry.get("score_avg")
    passed, total = entry["passed"], entry[runs]
    shown = _clipped(name, _NAME_CHARS)
    return f"{shown} {passed}/{total} mean {score_text(0.0 if mean is None else mean, '.4f')}"


def _types_line(types: Mapping[str, Any]) -> str:
    """``by type: ...``: each scenario type in the report's order, or, past a few, the worst
    (by pass rate, then mean score) and how many more (1,000 types made one 21,897-character
    line)."""
    if len(types) <= _TYPES_SHOWN + 1:
        return "by type: " + ", ".join(_group_cell(k, v) for k, v in types.items())
    shown = few([_group_cell(k, v) for k, v in worst_types(types)], _TYPES_SHOWN)
    return f"by type (worst {_TYPES_SHOWN} of {len(types)}): {shown}"


_TYPES_SHOWN: Final = 5


def worst_types(types: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """``by_scenario_type``'s entries worst first: the lowest pass rate, then the lowest mean
    score, a missing figure last (the Markdown and HTML tables, and the terminal's by-type
    line once it holds more types than it shows)."""
    entries = [(name, row) for name, row in types.items() if isinstance(row, Mapping)]
    return sorted(
        entries, key=lambda e: (_rank(e[1].get("pass_rate")), _rank(e[1].get("score_avg")))
    )


def _rank(value: Any) -> float:
    """A figure as a sort key: a missing one sorts last."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return float("inf")
    return float(value)


def joins_unknown(totals: Mapping[str, Any]) -> bool:
    """Whether the join's totals are unknown (see :meth:`Aggregate.mark_joins_unknown`)."""
    return "load_errors" in totals and totals["load_errors"] is None


def errors_split(totals: Mapping[str, Any], listed: int) -> str:
    """``2 loading, 1 in runs`` for the ``listed`` errors of a report with these ``totals``
    (``loading unknown`` when the join's figures are)."""
    runs = totals.get("errors")
    runs = runs if isinstance(runs, int) else 0  # the headline's: runs that could not be scored
    loading = "loading unknown" if joins_unknown(totals) else f"{listed - runs} loading"
    return f"{loading}, {runs} in runs"


def render_summary(report: Mapping[str, Any]) -> list[str]:
    """Terminal lines for an aggregate report (the pytest summary and the CLI print these)."""
    totals = report.get("totals", {})
    summary = report.get("score_summary", {})
    mean = summary.get("score_avg")
    lines = [
        f"scenarios {totals.get('scenarios', 0)} | runs {totals.get('scored', 0)}"
        f" | passed {totals.get('passed', 0)} | pass rate "
        f"{score_text(totals.get('pass_rate', 0.0), '.4f')} | mean score "
        f"{score_text(0.0 if mean is None else mean, '.4f')} | errors {totals.get('errors', 0)}"
        + (f" | load errors {totals['load_errors']}" if totals.get("load_errors") else "")
    ]
    if report.get("selection") is True:
        lines.append(
            "selection: this run scored a selection (-k, -m, --lf, --sw, --deselect, a path "
            "inside the scenarios): its figures and gates cover the selected runs only"
        )
    types = report.get("by_scenario_type", {})
    if set(types) - {"unknown"}:
        lines.append(_types_line(types))
    systems = report.get("by_runner_model") or {}
    if len(systems) > 1:
        cells = [_group_cell(k, v, "runs") for k, v in systems.items()]
        lines.append("by runner / model: " + few(cells))
    lines.extend(_quality_lines(report))
    unmatched = report.get("unmatched", {})
    trajectories = unmatched.get("trajectories", [])
    scenarios = unmatched.get("scenarios", [])
    unselected = unmatched.get("not_selected", [])
    if joins_unknown(totals):
        lines.append("unmatched trajectories and scenarios without trajectories: unknown")
    else:
        lines.append(
            f"unmatched trajectories: {len(trajectories)}"
            + (f" ({few([_unmatched_cell(t) for t in trajectories])})" if trajectories else "")
            + (f"; {len(unselected)} more of scenarios not selected" if unselected else "")
        )
        lines.append(
            f"scenarios without trajectories: {len(scenarios)}"
            + (f" ({few([_clipped(str(s.get('id'))) for s in scenarios])})" if scenarios else "")
        )
    unread = [str(path) for s in scenarios for path in s.get("unread") or ()]
    if unread:
        lines.append(
            f"  never read in their folders: {few(unread)} (a scenario folder's trajectories "
            "are trajectory*.json[l] files and a trajectories/ folder)"
        )
    duplicates = report.get("duplicates", [])
    if duplicates:
        lines.append(
            f"duplicates: {len(duplicates)} ("
            + few(
                [
                    f"{d.get('kind')} {_clipped(repr(d.get('id')))} x{len(d.get('sources', []))}"
                    + (f" in {d['scenario_id']}" if d.get("scenario_id") is not None else "")
                    for d in duplicates
                ]
            )
            + ")"
        )
    repeated = report.get("repeated_keys", [])
    if repeated:
        lines.append(
            f"repeated keys: {len(repeated)} ("
            + few(
                [f"{r.get('source')} {', '.join(map(str, r.get('keys') or ()))}" for r in repeated]
            )
            + "; records read as the last value of a key written twice says)"
        )
    skipped = report.get("skipped", [])
    if skipped:
        lines.append(
            f"skipped runs: {len(skipped)} (" + few([_skipped_name(s) for s in skipped]) + ")"
        )
    errors = report.get("errors", [])
    if errors:
        lines.append(f"errors: {len(errors)} ({errors_split(totals, len(errors))})")
        lines.extend(f"  {e.get('source')}: {cut_message(str(e.get('error')))}" for e in errors[:5])
        if len(errors) > 5:
            lines.append(f"  ... (+{len(errors) - 5} more in {AGGREGATE_NAME})")
    worst = report.get("per_field", [])
    if worst:
        shown = [
            f"{_clipped(w['path'], _NAME_CHARS)} (mean {score_text(w['mean_score'], '.2f')}, "
            f"{w['failing']}/{w['count']} failing)"
            for w in worst
        ]
        lines.append("worst fields: " + few(shown))
    lines.extend(baseline_lines(report.get("baseline")))
    recovered = report.get("recovered_crashes") or []
    if recovered:
        lines.append("recovered: " + "; ".join(map(str, recovered)))
    if report.get("complete") is False:
        reasons = report.get("incomplete_reasons") or ["unknown reason"]
        lines.append("INCOMPLETE run: " + "; ".join(reasons))
    return [printable(line) for line in lines]  # ids and paths come from the data


def _quality_lines(report: Mapping[str, Any]) -> list[str]:
    """The confidence interval of the mean score, the parse rate, the answers' validity
    under their ``answer_schema`` and flakiness of repeats."""
    lines = []
    ci = report.get("score_summary", {}).get("score_ci95")
    if ci:
        low, high = score_text(ci[0], ".4f"), score_text(ci[1], ".4f")
        lines.append(f"mean score 95% CI [{low}, {high}] (t-interval over runs)")
    parse = report.get("parse") or {}
    if parse.get("answers"):
        by_count = sorted(parse["methods"].items(), key=lambda item: (-item[1], item[0]))
        methods = few([f"{m} {n}" for m, n in by_count], limit=6)
        lines.append(
            f"parse rate {score_text(parse['parse_rate'], '.4f')}: "
            f"{parse['structured']} structured, "
            f"{parse['text']} text fallback, {parse['empty']} empty, "
            f"{parse['unparsed']} unparsed"
            + (f" ({methods})" if methods else "")
            + (f" | {parse['abstained']} abstained" if parse.get("abstained") else "")
        )
    valid = report.get("score_summary", {}).get("schema_valid_avg")
    if isinstance(valid, (int, float)):
        rate = score_text(valid, ".4f")
        lines.append(f"answer schema: valid rate {rate} over the scored runs that name one")
    repeats = report.get("repeats") or {}
    if repeats.get("repeated"):
        flaky = repeats["flaky"]
        lines.append(
            f"repeats: {repeats['repeated']} of {repeats['scenarios']} {repeat_unit(report)} "
            f"ran more than once (up to {repeats['max_runs']}x) | pass@k "
            f"{score_text(repeats['pass_at_k'], '.4f')} | pass^k "
            f"{score_text(repeats['pass_hat_k'], '.4f')} | flaky {len(flaky)}"
            + (f" ({few([_clipped(key, _NAME_CHARS) for key in flaky])})" if flaky else "")
        )
    return lines


def baseline_lines(section: Any) -> list[str]:
    """A ``baseline`` section in lines: mean-score delta, item counts, the worst regressions
    and the best improvements."""
    if not isinstance(section, Mapping):
        return []
    score = section["score_avg"]
    counts = section["counts"]
    before, after, delta = score["baseline"], score["current"], score["delta"]
    same = section.get("same_runs") is not False
    mean = "mean score" if same else "mean score of compared items"
    change = (
        f"{mean} {score_text(before, '.4f')} -> {score_text(after, '.4f')} ({delta:+.4f})"
        if delta is not None
        else f"{mean} not comparable"
    )
    lines = [
        f"baseline {section['source']}: {change} | "
        + ", ".join(f"{name} {counts[name]}" for name in _BASELINE_COUNTS)
    ]
    caveat = baseline_caveat(section)
    if caveat is not None:
        lines.append(caveat)
    for kind in ("regressed", "improved"):
        if section[kind]:
            lines.append(f"{kind}: " + few([item_label(item) for item in section[kind]], limit=3))
    fields = section.get("fields")
    if isinstance(fields, Mapping) and fields.get("regressed_count"):
        # (a field can drop while every run's score holds: its items say nothing of it)
        worst = [
            f"{_clipped(printable(row['path']))} {score_text(row['baseline_mean'], '.4f')} -> "
            f"{score_text(row['mean'], '.4f')}"
            for row in fields["regressed"]
        ]
        count = fields["regressed_count"]  # (the section lists the worst of them)
        lines.append(f"fields regressed: {count} ({few(worst, limit=3, total=count)})")
    ci = section.get("score_delta_ci95")
    if isinstance(ci, list) and len(ci) == 2:
        lines.append(
            f"score change 95% CI [{ci[0]:+.4f}, {ci[1]:+.4f}] "
            f"(t-interval over the {counts['compared']} compared items)"
        )
    return lines


_BASELINE_COUNTS: Final = ("improved", "regressed", "unchanged", "new", "missing")
