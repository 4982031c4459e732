"""Scenario folders and files, saved trajectories, and the rules that join them into runs.

A *scenario* is a ``scenario_<id>/`` folder holding the gold answer, or one entry of a scenario
file (a JSON list, JSONL, or YAML list of scenario objects: the AssetOpsBench
``--scenarios scenarios.json`` form); a *trajectory* is one saved agent run (JSON or JSONL)
naming the scenario it answered. :func:`plan` discovers both and joins them; :func:`score_run`
scores one joined pair. The pytest collector and ``structeval evaluate`` both go through these
two functions, so they produce the same runs and the same reports.

Nothing is dropped silently: a broken file becomes an error entry or an error run, and every
trajectory or scenario left without a partner is listed in :class:`JoinResult`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import stat
import traceback
import unicodedata
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import orjson

from .errors import (
    LimitError,
    OptionsError,
    SchemaError,
    StructevalError,
    data_warning,
    warning_place,
)
from .files import MAX_DEPTH, TooLarge, nul_error, read_head, read_lines, read_text, text_lines
from .metadata import METADATA_KEYS, with_metadata
from .naming import (
    SCENARIO_FILE_SUFFIXES,
    FirstFree,
    few,
    name_text,
    natural_key,
    nearest,
    printable,
    read_rate,
    scalar_text,
    scenario_folder_id,
    warning_path,
)
from .ops import ops_metrics
from .parse import (
    DEFAULT_MAX_BYTES,
    check_json_depth,
    decimal_number,
    digit_limit,
    digit_run,
    parse_answer,
    strip_think,
)
from .paths import composed
from .registry import DEFAULT_SCORER, Registry, default_registry, takes_registry
from .repeats import (
    Repeat,
    config_repeat_errors,
    gold_repeat_note,
    json_repeats,
    own_keys_may_repeat,
    record_repeat_note,
)
from .report import RunRecord
from .results import ScoreResult
from .roots import ALWAYS_SKIPPED, folder_skip, outermost

__all__ = [
    "MAX_SCENARIO_FILE_BYTES",
    "MAX_TRAJECTORY_BYTES",
    "JoinResult",
    "Run",
    "Scenario",
    "Trajectory",
    "discover_scenarios",
    "folder_trajectories",
    "id_key",
    "join",
    "load_trajectories",
    "looks_like_scenario",
    "no_runs_message",
    "plan",
    "score_run",
]

MAX_TRAJECTORY_BYTES: Final = 100_000_000
"""A trajectory file larger than this is an error entry instead of being read into memory."""
MAX_SCENARIO_FILE_BYTES: Final = 100_000_000
"""A scenario file larger than this is reported as broken instead of being read into memory."""
_GOLD_FILES: Final = ("groundtruth.json", "groundtruth.yaml", "groundtruth.yml", "groundtruth.txt")
_CONFIG_FILES: Final = ("scenario.yaml", "scenario.yml", "scenario.json")
_QUESTION_FILE: Final = "question.txt"
_RUBRIC_FILE: Final = "characteristic_form.txt"
# AssetOpsBench's later upstream keeps a scenario's evaluation_metadata in a file of its own.
_METADATA_FILES: Final = ("groundtruth_eval.json", "groundtruth_eval.yaml", "groundtruth_eval.yml")
_METADATA_KEY: Final = "evaluation_metadata"
_MARKERS: Final = frozenset(
    {*_GOLD_FILES, *_CONFIG_FILES, *_METADATA_FILES, _QUESTION_FILE, _RUBRIC_FILE}
)
_TRAJECTORY_DIR: Final = "trajectories"
_REPORTS_HERE: Final = (
    "this scenario folder is the reports folder: its reports would be read back as scenario "
    "and trajectory files; write reports elsewhere"
)
_TRAJECTORY_FILE = re.compile(r"trajectory.*\.jsonl?", re.IGNORECASE | re.DOTALL)
_TRAJECTORY_KEYS: Final = ("run_id", "scenario_id", "answer", "trajectory")
# Found while scanning a folder (outside scenario folders), like pytest's test_*.py: a random
# JSON file in the tree is never read as scenarios. A file given as a path may have any name.
_SCENARIO_FILE = re.compile(r".*scenarios\.(?:json|jsonl|yaml|yml)", re.IGNORECASE | re.DOTALL)
_SCORER_KEYS: Final = ("scorer", "mode", "scoring_method")
_GOLD_KEYS: Final = ("ground_truth", "expected_answer")
_RUBRIC_KEY: Final = "characteristic_form"
_FILE_MARK: Final = -1  # a scenario file on the discovery stack (see _scan)
_DIGITS = re.compile(r"[0-9]+")
# Where a folder string already ends a path prefix (``C:`` is one on Windows: ``C:name``).
_SEPARATORS: Final = tuple(filter(None, (os.sep, os.altsep, ":" if os.name == "nt" else "")))


# --------------------------------------------------------------------------- data types


@dataclass(frozen=True, slots=True)
class Scenario:
    """One scenario (a folder, or an entry of a scenario file): its gold and how to score it.

    ``gold`` is raw text (``groundtruth.txt``, a string ``expected_answer``: the scorer parses
    it, like any answer) or an already-parsed value (``groundtruth.json``/``.yaml``, a
    non-string ``expected_answer``). ``error`` set means the scenario is broken or has no gold:
    each of its runs becomes an error record with that message.

    ``path`` is the scenario folder, or the scenario file that defines it; ``entry`` is
    ``None`` for a folder, else where in that file: ``":<line>"`` (JSONL, 1-based),
    ``"[<index>]"`` (a list entry, 0-based) or ``""`` (the whole file). ``holds_python`` says
    whether a folder holds ``*.py`` files, which the engine never reads: pytest collects the
    test modules among them next to the folder's runs. ``unread`` names the JSON files and
    trajectory-like folders (``runs/``, ``trajectory/``) in a folder that nothing reads: a
    trajectory under another name would otherwise be lost without a word. ``gold_notes``:
    what each scoring of the gold warns of (a ``GoldWarning``: a key the gold repeats);
    ``schema_notes``: what each scoring warns of its schema files (a ``SchemaWarning`` at a
    file's line: a key the file repeats); ``schema_file``: the file ``schema`` was read from
    (shown), where the warnings of its parse are located; ``schema_in``: where in that file
    a schema written inline is (a path of its document: ``schema``, ``[2].schema``; a JSONL
    line), None for a schema file.
    """

    id: str
    path: str
    gold: Any = None
    question: str = ""
    type: str | None = None
    scorer: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    threshold: float | None = None
    schema: Any = None
    answer_schema: Any = None  # a SchemaCheck, when scenario.yaml names one
    error: str | None = None
    files: tuple[str, ...] = ()
    trajectory_files: tuple[str, ...] = ()
    entry: str | None = None
    holds_python: bool = False
    unread: tuple[str, ...] = ()
    gold_notes: tuple[str, ...] = ()
    schema_notes: tuple[SchemaNote, ...] = ()
    schema_file: str | None = None
    schema_in: str | int | None = None

    @property
    def location(self) -> str:
        """``folder``, ``file:line``, ``file[index]`` or ``file``: for messages and reports."""
        return self.path if self.entry is None else self.path + self.entry

    def gold_at(self, root: str | None = None, part: Any = None) -> tuple[str, int]:
        """The file and line that hold the gold, where a warning about it points: a folder's
        gold file, or its config file at the gold's key; a JSONL file's line; the gold's key
        in a scenario file (its entry's, in a list). ``root``: the folder the paths are
        relative to, when it is not the current one (see :func:`discover_scenarios`).
        ``part``: a text read out of the gold (a ``line_by_line`` line): the line it stands
        on, when it is written there as it reads."""
        from .goldline import gold_line, part_line

        def line(shown: str, index: int | None, limit: int) -> int:
            return gold_line(os.path.join(root or "", shown), index, _GOLD_KEYS, limit)

        shown, at, limit = self.path, 1, DEFAULT_MAX_BYTES
        names = {os.path.basename(f).casefold(): f for f in self.files}
        if self.entry is not None:
            limit = MAX_SCENARIO_FILE_BYTES
            if self.entry.startswith(":"):
                at = int(self.entry[1:])
            else:
                at = line(self.path, int(self.entry[1:-1]) if self.entry else None, limit)
        elif gold_file := next((names[n] for n in _GOLD_FILES if n in names), None):
            shown = gold_file
        elif config := next((names[n] for n in _CONFIG_FILES if n in names), None):
            shown, at = config, line(config, None, limit)
        else:
            return self.path, 1
        if isinstance(part, str) and part is not self.gold:
            at = part_line(os.path.join(root or "", shown), at, part, limit)
        return shown, at


@dataclass(frozen=True, slots=True)
class Trajectory:
    """One saved agent run. ``answer`` is text, or a value that is already parsed.

    ``error``: the record could not be read, so it is no run. ``unscorable``: it is a run
    (it joins, and names its runner and model), but has nothing to score, such as a record
    without an ``answer`` field (a runner that wrote ``output``): its run is an error record.
    ``repeated``: the record writes a key of its own twice (two ``answer`` keys): it is read
    as the last value says, as ``json.loads`` reads it, and the join lists it.
    """

    run_id: str = ""
    scenario_id: str | None = None
    runner: str = ""
    model: str = ""
    question: str = ""
    answer: Any = None
    trajectory: Any = None
    source: str = ""
    line: int | None = None
    error: str | None = None
    index: int | None = None  # the position in a .json file holding a list of records
    unscorable: str | None = None
    owners: tuple[str, ...] = ()  # the locations of the scenarios listing its file
    repeated: str | None = None  # the keys its record writes twice (the last value is read)
    repeated_keys: tuple[str, ...] = ()  # ... by name

    @property
    def location(self) -> str:
        """``file``, ``file:line`` (JSONL) or ``file[index]`` (a list), for messages and
        reports."""
        if self.line is not None:
            return f"{self.source}:{self.line}"
        return self.source if self.index is None else f"{self.source}[{self.index}]"

    @property
    def stem(self) -> str:
        """The file name without its suffix: the join key when ``scenario_id`` is missing
        (read as :func:`~pytest_structeval.naming.name_text` reads a name)."""
        return name_text(Path(self.source).stem)


@dataclass(frozen=True, slots=True)
class Run:
    """One (scenario, trajectory) pair: one test item. ``label`` is unique within the scenario."""

    scenario: Scenario
    trajectory: Trajectory
    label: str

    @property
    def run_id(self) -> str:
        """The trajectory's ``run_id``, else the label its item is named by (the file stem or
        ``stem-<line>``), so reports, messages and baselines name the run as the item does."""
        return self.trajectory.run_id or self.label


@dataclass(frozen=True, slots=True)
class JoinResult:
    """Runs to score plus everything that did not join, so nothing disappears unreported.

    ``scenario_files`` lists every scenario file read (shown paths), even one whose scenarios
    all lost to duplicates, so a collector can own the errors located in it.
    ``unread_scenarios`` have trajectory files of their own, none of which could be read:
    their load errors stand for their runs, so they are not "without trajectories".
    """

    runs: tuple[Run, ...] = ()
    unmatched_trajectories: tuple[Trajectory, ...] = ()
    unmatched_scenarios: tuple[Scenario, ...] = ()
    unread_scenarios: tuple[Scenario, ...] = ()
    duplicates: tuple[dict[str, Any], ...] = ()
    errors: tuple[dict[str, Any], ...] = ()
    repeated_keys: tuple[dict[str, Any], ...] = ()
    scenario_files: tuple[str, ...] = ()
    scenario_ids: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """Nothing found: no scenario, trajectory or error (the roots hold no scenario)."""
        return not (
            self.runs
            or self.unmatched_scenarios
            or self.unread_scenarios
            or self.unmatched_trajectories
            or self.errors
            or self.duplicates
        )

    def notes(self) -> dict[str, Any]:
        """Plain data for :meth:`pytest_structeval.report.Aggregate.note`."""
        near = _near_ids([t.scenario_id for t in self.unmatched_trajectories], self.scenario_ids)
        return {
            "unmatched_trajectories": [
                {"source": t.location, "run_id": t.run_id, "scenario_id": t.scenario_id}
                | ({"near": near[t.scenario_id]} if t.scenario_id in near else {})
                for t in self.unmatched_trajectories
            ],
            "unmatched_scenarios": [
                {"id": s.id, "path": s.location, "error": s.error}
                | ({"unread": list(s.unread)} if s.unread else {})
                for s in self.unmatched_scenarios
            ],
            "duplicates": [dict(d) for d in self.duplicates],
            "errors": [dict(e) for e in self.errors],
            "repeated_keys": [dict(r) for r in self.repeated_keys],
        }


_NEAR_SCORE: Final = 75  # rapidfuzz's ratio (0-100): 'pump' is near 'pumps' (89), '1' not '11'
_NEAR_WORK: Final = 10_000_000  # comparisons: past that, no suggestion (a whole wrong folder)
_PARENT_LEVELS: Final = 8  # folder levels of an id a run may name as a scenario's parent


def _near_ids(wanted: Sequence[str | None], ids: Sequence[str]) -> dict[str, str]:
    """For each id a trajectory asked for and no scenario has, the scenario id nearest it
    in spelling, when one is near (a typo's likely fix), or the first scenario nested in a
    folder of that id (``4`` for a multi-turn parent, which is no scenario: ``4/turns/02``)."""
    asked = {w for w in wanted if w is not None}
    if not asked or not ids or len(asked) * len(ids) > _NEAR_WORK:
        return {}
    from rapidfuzz import fuzz, process

    parents: dict[str, str] = {}  # a folder's join key -> the first scenario nested in it
    for sid in ids:  # (the folders of the first few levels: parents of turns are shallow)
        segments = id_key(sid).split("/", _PARENT_LEVELS)  # (the last part: the rest)
        for end in range(1, len(segments)):
            parents.setdefault("/".join(segments[:end]), sid)
    near = {}
    for wrong in asked:
        inside = parents.get(id_key(wrong))
        if inside is not None:
            near[wrong] = inside
            continue
        best = process.extractOne(wrong, ids, scorer=fuzz.ratio, score_cutoff=_NEAR_SCORE)
        if best is not None:
            near[wrong] = best[0]
    return near


def no_runs_message(
    scenarios: int,
    roots: Sequence[str],
    *,
    unreadable: int = 0,
    unmatched: int = 0,
    option: str = "--structeval-trajectories",
    given: Sequence[str] = (),
) -> str:
    """Why a run that asked for scenarios scored none: the plugin and ``structeval evaluate``
    both fail such a run (a CI job pointed at the wrong folder must not pass). ``unreadable``
    of the ``scenarios`` found could not be read: when that is all of them, their errors say
    why, and trajectory file names are beside the point. ``unmatched`` trajectories named no
    scenario found; without any, the trajectories were never found: the paths ``given`` with
    ``option`` held none, or none was given (``option`` names the way)."""
    where = ", ".join(roots) or "the scenario paths"
    found = f"{scenarios} scenario{'s' * (scenarios != 1)} found under {where}"
    if scenarios == 0:
        return f"structeval: no scenario runs: no scenario found under {where}"
    if unreadable >= scenarios:
        return (
            f"structeval: no scenario runs: {scenarios} scenario folders or entries found under "
            f"{where} and none could be read (see the errors above)"
        )
    if unmatched:
        return (
            f"structeval: no scenario runs: {found} and no "
            f"trajectory joined {'any of them' if scenarios != 1 else 'it'}: the {unmatched} "
            f"trajector{'ies' if unmatched != 1 else 'y'} found name{'s' * (unmatched == 1)} other "
            "scenarios (see 'unmatched trajectories' above)"
        )
    inside = (
        "inside a scenario folder only trajectory*.json[l] files and a trajectories/ folder "
        "are read"
    )
    if given:
        return (
            f"structeval: no scenario runs: {found} and no "
            f"trajectory for them: {', '.join(given)} held no readable trajectory ({inside})"
        )
    return (
        f"structeval: no scenario runs: {found} and no "
        f"trajectory for them: give trajectories kept elsewhere with {option} PATH ({inside})"
    )


# --------------------------------------------------------------------------- helpers


# A byte of a file name that is no UTF-8, as the file-system encoding's "surrogateescape"
# decodes it: an id written from os.listdir (json.dumps keeps it) joins the name's escape.
_ESCAPED_BYTE: Final = re.compile("[\udc80-\udcff]")


def id_key(raw: str) -> str:
    """Normalise a scenario id for joining.

    A ``scenario_`` prefix (any case) is dropped, and every ``/``-separated segment made only
    of ASCII digits loses its leading zeros (``011`` -> ``11``, ``4/turns/02`` -> ``4/turns/2``).
    Anything else compares exactly (after Unicode NFC normalisation: macOS stores ``café`` in
    folder names decomposed): ``SGT-001`` never joins ``SGT-1``. A byte of a name that is no
    UTF-8, as ``os.listdir`` gives it (``"\\udcff"``), is its escape (``\\xff``): the id
    :func:`~pytest_structeval.naming.name_text` gives the folder.
    """
    text = raw.strip()
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
        if _ESCAPED_BYTE.search(text):  # a name's byte that is no UTF-8, as Python lists it
            text = _ESCAPED_BYTE.sub(lambda m: f"\\x{ord(m[0]) - 0xDC00:02x}", text)
    text = scenario_folder_id(text) or text
    if "/" not in text:  # the common case, without the split and join
        return (text.lstrip("0") or "0") if text.isdigit() and text.isascii() else text
    segments = [
        (seg.lstrip("0") or "0") if _DIGITS.fullmatch(seg) else seg for seg in text.split("/")
    ]
    return "/".join(segments)


def _why(exc: Exception) -> str:
    """An error's text without the absolute path an ``OSError`` carries: messages name the
    file as shown (relative to rootdir), so that runs from different checkouts (xdist's
    ``--tx popen//chdir=...``) report alike."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


_UNREAD: Final = object()  # what orjson did not read


def _json_value(text: str) -> Any:
    """``json.loads`` with exact integers; deep nesting and digit limits become ``ValueError``.

    orjson first, for speed, where it gives the same value: not when a long digit run could be
    an integer it would turn into a float. Whatever orjson refuses (``NaN``, ``1e400``, lone
    surrogates, deep nesting, errors) goes to ``json``, which decides and words the error.
    Either way nesting past ``MAX_DEPTH`` is refused by that bound itself (orjson takes 1,024
    levels, and ``json`` on Python 3.12 and later far more).
    """
    value: Any = _UNREAD
    if not digit_run(text):  # (orjson reads an integer outside [-2**63, 2**64) as a float)
        with contextlib.suppress(orjson.JSONDecodeError):
            value = orjson.loads(text)
    try:
        if value is _UNREAD:  # (1e400 is the integer it writes, as in an answer)
            value = json.loads(text, parse_float=decimal_number)
        if text.count("[") + text.count("{") > MAX_DEPTH:  # (n levels take n openers)
            check_json_depth(value, MAX_DEPTH)
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except LimitError as exc:
        if value is _UNREAD:  # a number over 4,300 digits
            raise ValueError(f"invalid JSON: {exc}") from None
        raise ValueError("invalid JSON: nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {digit_limit(exc) or exc}") from None
    return value


def read_answer_file(
    path: str, max_bytes: int = DEFAULT_MAX_BYTES, *, repeated: list[Repeat] | None = None
) -> Any:
    """A gold or answer file: ``.json``/``.yaml``/``.yml`` as a value, any other as its text
    (stripped, line endings LF), for the parser. ``OSError`` or ``ValueError`` (empty,
    invalid) otherwise. ``repeated`` receives the keys a JSON or YAML file writes twice in
    one object (see :func:`_structured`)."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix in (".json", ".yaml", ".yml"):
        return _structured(path, max_bytes, repeated=repeated)
    text = text_lines(read_text(path, max_bytes)).strip()
    if not text:
        raise ValueError("file is empty")
    return text


def _structured(
    path: str, limit: int, *, blank: Any = None, repeated: list[Repeat] | None = None
) -> Any:
    """A JSON or YAML file (by suffix) as a value; an empty one is ``blank`` when given, else
    an error. A key written twice in one object keeps its last value, as ``json.loads`` and
    PyYAML keep it; ``repeated`` receives each such repeat, with its lines."""
    text = read_text(path, limit)
    if not text.strip():
        if blank is not None:
            return blank
        raise ValueError("file is empty")
    if os.path.splitext(path)[1].lower() == ".json":
        value = _json_value(text)
        if repeated is not None:
            repeated.extend(json_repeats(text))
        return value
    from .yamlvalue import yaml_value  # (PyYAML: loaded for a YAML file only)

    return yaml_value(text, repeated=repeated)


SchemaNote = tuple[str, str, int]
"""A ``SchemaWarning`` a scenario's schema file deserves: what it says, the file (shown) and
the line it points at."""


def _schema_note(repeated: list[Repeat], value: Any, shown: str) -> SchemaNote | None:
    """The note for the keys a schema file repeats, if any (see
    :func:`~pytest_structeval.schema.io.repeat_note`)."""
    if not repeated:  # (most files: schema mode is not loaded for them)
        return None
    from .schema.io import repeat_note

    note = repeat_note(repeated, value, warning_path(shown))
    return None if note is None else (note[0], shown, note[1])


def _join(folder: str, name: str) -> str:
    """``str(Path(folder) / name)`` for a plain file name, without building paths."""
    if folder == os.curdir or not folder:
        return name
    return folder + name if folder.endswith(_SEPARATORS) else folder + os.sep + name


@dataclass(frozen=True, slots=True)
class _Root:
    """Where relative inputs live and how paths are shown.

    Without a base, paths are opened and shown as given. With one (the plugin passes pytest's
    rootdir), relative inputs are opened under it and every path in the output is shown POSIX
    style relative to it when it lies inside, so workers with different working directories
    produce identical records. Walks never enter the reports folder (see :func:`plan`).
    """

    base: str | None = None
    reports: tuple[int, int] | None = None  # the reports folder's (st_dev, st_ino)
    inferred: Callable[[str], bool] | None = None  # see plan(); called with absolute paths
    skip: Callable[[str], bool] | None = None  # folders walks pass by (pytest's norecursedirs)
    real_base: str | None = None  # the base's real path: a path spelled through it is inside

    @classmethod
    def of(
        cls,
        root: str | os.PathLike[str] | None,
        reports_dir: str | os.PathLike[str] | None = None,
        *,
        inferred: Callable[[str], bool] | None = None,
        skip: Sequence[str] = (),
    ) -> _Root:
        reports = None
        if reports_dir is not None:
            try:
                info = os.stat(reports_dir)
            except OSError:  # not there yet: nothing of ours to read back
                pass
            else:
                reports = (info.st_dev, info.st_ino)
        base = None if root is None else os.path.abspath(root)
        names = folder_skip(skip) if skip else None  # (one regex for all the patterns)
        real = None if base is None else os.path.realpath(base)
        return cls(base, reports, inferred, names, None if real == base else real)

    def guessed(self, path: str) -> bool:
        """Whether ``path`` lies where scenarios were inferred rather than asked for."""
        return self.inferred is not None and self.inferred(os.path.abspath(path))

    def skips(self, name: str) -> bool:
        """Whether a walk passes by the folder ``name``."""
        return self.skip is not None and self.skip(name)

    def visited_at_start(self) -> set[tuple[int, int]]:
        """The ``visited`` set a folder walk starts with: the reports folder counts as seen,
        so reports of an earlier run are never read back as trajectories or scenario files."""
        return set() if self.reports is None else {self.reports}

    def refuse_reports(self, start: Path, kind: str, raw: str | os.PathLike[str]) -> None:
        """Raise ``OSError`` (a usage error) when a given path is the reports folder: walks
        never enter it, so its data would be skipped without a word."""
        if self.is_reports(os.fspath(start)):
            raise OSError(
                f"{kind} path is the reports folder: {printable(os.fspath(raw))}; "
                "write reports elsewhere"
            )

    def is_reports(self, path: str) -> bool:
        """Whether ``path`` is the reports folder (asked of given paths and of folders a walk
        skipped)."""
        if self.reports is None:
            return False
        try:
            info = os.stat(path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == self.reports

    def open(self, raw: str | os.PathLike[str]) -> Path:
        path = Path(raw)
        return path if self.base is None or path.is_absolute() else Path(self.base) / path

    def show(self, path: str | os.PathLike[str]) -> str:
        if self.base is None:
            return os.fspath(path)
        full = os.path.normpath(os.path.join(self.base, path))
        for base in (self.base, self.real_base):  # (a linked checkout: either spelling)
            if base is None:
                continue
            try:
                relative = os.path.relpath(full, base)
            except ValueError:  # another drive (Windows)
                continue
            if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
                return Path(relative).as_posix()
        return Path(full).as_posix()

    def locate(self, shown: str) -> str:
        """Where to open a path that :meth:`show` named (its inverse, as a string)."""
        if self.base is None or os.path.isabs(shown):
            return shown
        return _join(self.base, shown)

    def child(self, shown: str, name: str) -> str:
        """``show(<folder shown as shown> / name)``, by concatenation: discovery names every
        file and folder it meets, and :meth:`show` costs a ``relpath`` each."""
        if self.base is None:
            return _join(shown, name)
        if os.path.isabs(shown):  # outside the base, yet a child may lie inside it
            return self.show(os.path.join(shown, name))
        return name if shown == os.curdir else f"{shown}/{name}"


# --------------------------------------------------------------------------- scenarios


@dataclass(slots=True)
class _Dir:
    """One listed folder. Paths are strings: ``path`` opens it, ``shown`` names it in output."""

    path: str
    shown: str
    files: dict[str, str]  # casefolded name -> name (the first, for lookups by name)
    names: list[str]  # every file name, two that differ only in case included
    subdirs: list[str]  # names


def _list_dir(path: str, shown: str, visited: set[tuple[int, int]]) -> _Dir | None:
    """Files and subfolders of ``path``, sorted naturally; ``None`` for a symlink loop.

    One ``stat`` (for loop detection) and one ``scandir``, whose entries already know
    whether they are folders; files and folders are sorted apart (a stable split of one
    sorted listing gives the same two lists)."""
    info = os.stat(path)
    ident = (info.st_dev, info.st_ino)
    if ident in visited:
        return None
    visited.add(ident)
    names: list[str] = []
    subdirs: list[str] = []
    with os.scandir(path) as scan:
        for entry in scan:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:  # a looping link: a file to the read, which reports it if it matters
                is_dir = False
            if is_dir:
                if name not in ALWAYS_SKIPPED:
                    subdirs.append(name)
            else:  # files, and links, pipes and devices, which the read reports if they matter
                names.append(name)
    if len(names) > 1:
        names.sort(key=natural_key)
    if len(subdirs) > 1:
        subdirs.sort(key=natural_key)
    files: dict[str, str] = {}
    for name in names:
        files.setdefault(name.casefold(), name)
    return _Dir(path, shown, files, names, subdirs)


def _walk_files(
    root: str,
    shown: str,
    where: _Root,
    suffixes: tuple[str, ...],
    *,
    owner: str | None = None,
) -> Iterator[tuple[str, str, str | None]]:
    """``(file, shown, None)`` for files under ``root`` with one of ``suffixes``, and
    ``(folder, shown, error)`` for folders that cannot be listed. Recursive; files and folders
    interleave in natural order (``a/``, ``b.json``, ``c/``); symlink loops are visited once.
    ``owner``: the scenario folder whose trajectories are sought; the walk never enters it
    or a folder above it (through a link such as ``trajectories/up -> ..`` or ``../..``):
    its gold, and its siblings' golds, are no trajectories."""
    visited = where.visited_at_start()
    folder = None if owner is None else os.path.abspath(owner)
    while folder is not None:
        try:
            info = os.stat(folder)
        except OSError:  # it was just listed; if it is gone, there is nothing to re-enter
            pass
        else:
            visited.add((info.st_dev, info.st_ino))
        parent = os.path.dirname(folder)
        folder = None if parent == folder else parent
    stack: list[tuple[str, str, bool]] = [(root, shown, True)]
    while stack:
        path, label, is_dir = stack.pop()
        if not is_dir:
            yield path, label, None
            continue
        try:
            listing = _list_dir(path, label, visited)
        except OSError as exc:
            yield path, label, f"cannot list folder: {_why(exc)}"
            continue
        if listing is None:
            continue
        names = [(n, False) for n in listing.names if n.lower().endswith(suffixes)]
        names += [(n, True) for n in listing.subdirs]
        names.sort(key=lambda child: natural_key(child[0]), reverse=True)
        stack.extend((_join(path, n), where.child(label, n), is_dir) for n, is_dir in names)


def discover_scenarios(
    paths: Iterable[str | os.PathLike[str]],
    *,
    root: str | os.PathLike[str] | None = None,
    reports_dir: str | os.PathLike[str] | None = None,
    inferred: Callable[[str], bool] | None = None,
    skip_folders: Sequence[str] = (),
) -> list[Scenario]:
    """Every scenario under ``paths``, recursively, in a deterministic (natural) order.

    A path is a folder or a scenario file (see :func:`_scenario_file`). In folders,
    ``scenario_<id>/`` folders (prefix in any case) are scenarios; inside one, any subfolder
    holding a ``groundtruth.*``, ``question.txt``, ``scenario.*`` or ``characteristic_form.txt``
    is a scenario too, with id ``<parent id>/<relative path>`` (``4/turns/02``), and a
    ``trajectories/`` subfolder holds trajectories, never scenarios. Outside scenario folders,
    files named ``*scenarios.json``, ``.jsonl``, ``.yaml`` or ``.yml`` are scenario files. A
    scenario file reached twice (given, and found in a given folder) is read once.
    ``root``, ``reports_dir``, ``inferred``, ``skip_folders``: see :func:`plan`. A missing path
    raises ``FileNotFoundError``, any other non-folder, non-scenario-file path
    ``NotADirectoryError``, one that cannot be checked another ``OSError`` (usage errors).
    """
    where = _Root.of(root, reports_dir, inferred=inferred, skip=skip_folders)
    starts = []
    for raw in paths:
        start = where.open(raw)
        where.refuse_reports(start, "scenario", raw)
        check_scenario_path(start, shown=os.fspath(raw))
        starts.append(_as_listed(start, raw))
    found: list[Scenario] = []
    seen: set[str] = set()
    top = Path(where.base) if where.base is not None else Path.cwd()
    for start in outermost(starts, folder_skip(skip_folders)):
        if start.is_dir():
            found.extend(_scan(start, where, seen, _nested_prefix(start, top)))
        else:
            found.extend(_scenario_file(os.fspath(start), where.show(start), where, seen))
    return found


def check_scenario_path(path: Path, *, shown: str | None = None) -> bool:
    """Whether ``path`` is a folder (True) or a scenario file (False); ``FileNotFoundError``
    when it is missing, ``NotADirectoryError`` when it is neither (a named pipe or a device
    included, whatever its name), another ``OSError`` when it cannot be checked. The plugin
    calls it at startup, so a wrong path is a usage error before collection begins."""
    shown = os.fspath(path) if shown is None else shown
    mode = _reach(path, "scenario", shown).st_mode
    if stat.S_ISDIR(mode):
        return True
    if not stat.S_ISREG(mode):
        raise NotADirectoryError(
            "scenario path is not a folder or a regular file (a pipe, socket or device): "
            + printable(shown)
        )
    if path.suffix.lower() not in SCENARIO_FILE_SUFFIXES:
        raise NotADirectoryError(
            "scenario path is neither a folder nor a scenario file ("
            + ", ".join(SCENARIO_FILE_SUFFIXES)
            + f"): {printable(shown)}"
        )
    return False


def refuse_reports_folder(paths: Iterable[Path], kind: str, reports_dir: Path) -> None:
    """``OSError`` when one of the ``kind`` (scenario, trajectory) ``paths`` is the reports
    folder, which walks never enter: the plugin asks at startup, as the CLI does."""
    where = _Root.of(None, reports_dir)
    for path in paths:
        where.refuse_reports(path, kind, path)


def _is_trajectory_dir(name: str) -> bool:
    """Whether the folder ``name`` is a scenario's ``trajectories/``: in any letter case, as
    the files beside it are matched (``Trajectories/``, as Finder or Explorer may name it)."""
    return name.casefold() == _TRAJECTORY_DIR


def _as_listed(path: Path, raw: str | os.PathLike[str]) -> Path:
    """``path`` (``raw`` opened) with each component typed in ``raw`` spelt as its folder lists
    it, where the typed spelling is not listed but an entry of the same name NFC and
    case-folded is the same file: on a case-insensitive file system (macOS, Windows)
    ``evals/Scenario_4/Turns`` opens ``evals/scenario_4/turns``, and its ids must be the ones a
    scan of the whole tree gives (``4/turns/02``), or its runs would not join. A folder that
    cannot be listed keeps the typed spelling, and so does every component on a
    case-sensitive file system, where a path that opens is listed as typed."""
    given = Path(raw)
    parts = path.parts
    first = max(len(parts) - (len(given.parts) - bool(given.anchor)), 1 if path.anchor else 0)
    fixed = Path(*parts[:first])
    for name in parts[first:]:
        fixed = fixed / _listed_name(fixed, name)
    return fixed


def _listed_name(folder: Path, name: str) -> str:
    """``name`` in ``folder`` as the folder lists it (see :func:`_as_listed`)."""
    if name == os.pardir:
        return name
    try:
        typed = os.stat(folder / name)
    except OSError:
        return name
    if _only_spelling(folder, name, typed):
        return name
    try:
        with os.scandir(folder) as entries:
            names = [entry.name for entry in entries]
    except OSError:
        return name
    if name in names:
        return name
    key = composed(name).casefold()
    for listed in names:
        if composed(listed).casefold() == key:
            with contextlib.suppress(OSError):
                if os.path.samestat(typed, os.stat(folder / listed)):
                    return listed
    return name


def _only_spelling(folder: Path, name: str, typed: os.stat_result) -> bool:
    """Whether ``name``, which opens ``typed`` in ``folder``, is the only spelling that does:
    its case swapped and its other Unicode normal forms open something else or nothing (a
    case-sensitive file system, Linux's), or it has none. Then the folder lists it as typed,
    and is not listed to find out (a folder of 300,000 files took 125 ms)."""
    others = {name.swapcase(), *(unicodedata.normalize(form, name) for form in ("NFC", "NFD"))}
    for other in others - {name}:
        with contextlib.suppress(OSError):
            if os.path.samestat(typed, os.stat(folder / other)):
                return False
    return True


def _nested_prefix(start: Path, top: Path) -> str | None:
    """The id of a folder given inside a scenario folder, when it is a nested scenario or a
    folder of them (``scenario_4/turns/02`` is scenario ``4/turns/02``, ``scenario_4/turns``
    holds them); ``None`` when it is read as a folder of scenarios.

    It must lie in a ``scenario_*`` folder below ``top`` (rootdir; the current folder for
    ``structeval evaluate``: the project and the folders above it are never scenarios, even
    when one is named ``scenario_planner``), outside its ``trajectories/``, and hold a
    scenario's files within ``_NESTED_DEPTH`` levels but no scenario file
    (``*scenarios.jsonl``) or ``scenario_*`` folder, which only a folder of scenarios holds."""
    absolute = Path(os.path.abspath(start))
    if scenario_folder_id(absolute.name) is not None:
        return None
    enclosing = next((a for a in absolute.parents if scenario_folder_id(a.name) is not None), None)
    if enclosing is None:
        return None
    for above, project in ((enclosing, top), (Path(os.path.realpath(enclosing)), top.resolve())):
        if above == project or above in project.parents:  # the project, or above it
            return None
    within = absolute.relative_to(enclosing)
    if any(map(_is_trajectory_dir, within.parts)):  # a scan never reads scenarios there
        return None
    found = False
    queue: deque[tuple[Path, int]] = deque([(absolute, 0)])
    for _ in range(_NESTED_LISTINGS):
        if not queue:
            break
        folder, depth = queue.popleft()
        try:
            with os.scandir(folder) as entries:
                listed = sorted((e.name, e.is_dir()) for e in entries)  # the same everywhere
        except OSError:
            continue
        files = {name.casefold() for name, is_dir in listed if not is_dir}
        folders = [name for name, is_dir in listed if is_dir]
        if any(_SCENARIO_FILE.fullmatch(name) for name in files) or any(
            scenario_folder_id(name) is not None for name in folders
        ):
            return None
        found = found or not _MARKERS.isdisjoint(files)
        if depth < _NESTED_DEPTH:
            queue.extend(
                (folder / name, depth + 1) for name in folders if not _is_trajectory_dir(name)
            )
    nested = f"{scenario_folder_id(enclosing.name)}/{within.as_posix()}"
    return name_text(nested) if found else None


_NESTED_DEPTH: Final = 3  # levels below a given folder searched for a nested scenario
_NESTED_LISTINGS: Final = 200  # folders listed at most for it


_PACKAGE: Final = os.path.dirname(os.path.abspath(__file__))


def _trace(exc: BaseException) -> str | None:
    """The traceback of an exception a scorer raised, chained causes and grouped exceptions
    included, in the scorer's own frames (this package's, which call it, left out unless the
    error is in them): what a user debugging a custom scorer needs, shown with its item's
    failure and never written to a report. ``None`` for this package's own errors raised in
    its own code (a gold over a limit): their message says all."""
    shown = traceback.TracebackException.from_exception(exc)
    if isinstance(exc, StructevalError) and all(_in_package(f.filename) for f in shown.stack):
        return None
    pending, seen = [shown], set()
    while pending:  # every exception of the chain and the groups
        each = pending.pop()
        if id(each) in seen:
            continue
        seen.add(id(each))
        own = [f for f in each.stack if not _in_package(f.filename)]
        if own:
            each.stack = traceback.StackSummary.from_list(own)
        pending += [e for e in (each.__cause__, each.__context__) if e is not None]
        pending += getattr(each, "exceptions", None) or []
    return "".join(shown.format()).rstrip("\n")


def _in_package(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE + os.sep)


def _raised_warning(exc: BaseException, scenario_path: str) -> str | None:
    """A run's error for a ``GoldWarning`` or ``SchemaWarning`` that a warnings filter made
    an error (``-W error``, ``filterwarnings = error``), as the warning would have been shown:
    where it points (the gold's or the schema's file and line, else the scenario), what it
    is and that the filter raised it; no traceback, as the package's frames say nothing of
    the gold or the schema. ``None`` for any other exception."""
    about = data_warning(exc)
    if about is None:
        return None
    place = warning_place(exc)
    where = f"scenario {scenario_path}" if place is None else f"{name_text(place[0])}:{place[1]}"
    kind = type(exc).__name__
    return f"{where}: the {about}'s {kind}, raised as an error by the warnings filter: {exc}"


def _said(exc: BaseException) -> str:
    """``Type: message`` of an exception, even one whose ``str()`` fails."""
    try:
        text = str(exc)
    except Exception:  # a scorer's exception class may break anything
        text = "<its message could not be read>"
    return f"{type(exc).__name__}: {text}"


def _reach(path: Path, kind: str, shown: str) -> os.stat_result:
    """``path``'s ``stat``; ``FileNotFoundError`` when it is missing, another ``OSError``
    when a folder above it denies access or its name is too long: usage errors, each one line
    naming the ``kind`` of path (``scenario``, ``trajectory``) and the path as ``shown``, its
    control characters escaped (``evals\\r`` from a script saved with CRLF line endings)."""
    try:
        return path.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise FileNotFoundError(f"{kind} path does not exist: {printable(shown)}") from None
    except OSError as exc:
        message = f"{kind} path cannot be reached: {printable(shown)} ({_why(exc)})"
        raise OSError(message) from None
    except ValueError:  # (an ini key or the Python API can hold one; a shell cannot)
        raise OSError(f"{kind} path holds a NUL character: {shown!r}") from None


def _scan(start: Path, where: _Root, seen: set[str], prefix: str | None = None) -> list[Scenario]:
    """Pre-order walk. Stack items: (path, shown, name, id prefix or None outside a scenario
    tree, mark): mark ``None`` = a folder to visit, ``_FILE_MARK`` = a scenario file to read,
    else a "finish" entry that re-checks a marker-less ``scenario_`` folder once its subtree is
    done (the value is ``len(out)`` when it was entered). Such a folder with no scenario in it
    is a broken scenario, unless scenarios were only inferred there (see :func:`plan`) and it
    is a folder of Python code with no sign of a scenario (``tests/scenario_login/``)."""
    out: list[Scenario] = []
    # Marker-less scenario_ folders awaiting their finish entry: (holds Python, has evidence,
    # its listing)
    waiting: dict[str, tuple[bool, bool, _Dir]] = {}
    visited = where.visited_at_start()
    name = os.path.basename(os.path.abspath(start))  # "." and ".." have a name too
    stack: list[tuple[str, str, str, str | None, int | None]] = [
        (os.fspath(start), where.show(start), name, prefix, None)
    ]
    while stack:
        path, shown, name, prefix, mark = stack.pop()
        if mark == _FILE_MARK:
            out.extend(_scenario_file(path, shown, where, seen))
            continue
        if mark is not None:
            code, evident, held = waiting.pop(path)
            code_only = code and not evident and where.guessed(path)
            if len(out) == mark and not code_only:  # nothing nested: report it, don't drop it
                if evident:  # runs but no gold: each run fails with why (a misnamed gold)
                    out.append(_load_scenario(held, prefix or name, where))
                else:
                    message = _no_gold_message(held.files, {})
                    out.append(
                        Scenario(id=prefix or name, path=shown, error=message, holds_python=code)
                    )
            elif evident and len(out) > mark:  # its own runs beside nested scenarios: unread
                out.append(Scenario(id=prefix or name, path=shown, error=_RUNS_ABOVE))
            continue
        sid = prefix if prefix is not None else scenario_folder_id(name_text(name))
        try:
            listing = _list_dir(path, shown, visited)
        except OSError as exc:  # reported as a broken scenario, even outside scenario_ folders
            error = f"cannot list folder: {_why(exc)}"
            out.append(Scenario(id=sid or shown, path=shown, error=error))
            continue
        if listing is None:
            if sid is not None and prefix is None and where.is_reports(path):
                out.append(Scenario(id=sid, path=shown, error=_REPORTS_HERE))
            continue
        children: list[tuple[str, int | None]]
        subdirs = [c for c in listing.subdirs if not where.skips(c)]
        if sid is not None:
            children = [(c, None) for c in subdirs if not _is_trajectory_dir(c)]
            if children and _only_context(listing):  # a multi-turn parent: its turns are scored
                waiting[path] = (False, False, listing)
                stack.append((path, shown, name, sid, len(out)))
            elif not _MARKERS.isdisjoint(listing.files):
                out.append(_load_scenario(listing, sid, where))
            elif (evident := _has_evidence(listing)) or prefix is None:  # nested: runs, no gold
                waiting[path] = (_holds_python(listing), evident, listing)
                stack.append((path, shown, name, sid, len(out)))
        else:
            if not where.guessed(path):
                lookalike = _lookalike_error(name, listing)
                if lookalike is not None:  # never dropped without a word
                    out.append(Scenario(id=shown, path=shown, error=lookalike))
            children = [(c, None) for c in subdirs]
            files: list[tuple[str, int | None]] = [
                (n, _FILE_MARK) for n in listing.names if _SCENARIO_FILE.fullmatch(n)
            ]
            if files:  # interleave with the folders, in natural order
                children = sorted(children + files, key=lambda c: natural_key(c[0]))
        for child, kind in reversed(children):
            stack.append(
                (
                    _join(path, child),
                    where.child(shown, child),
                    child,
                    None if sid is None else f"{sid}/{name_text(child)}",
                    kind,
                )
            )
    return out


def _only_context(listing: _Dir) -> bool:
    """Whether a folder's scenario files are a question (or a judge's rubric) alone: nothing
    to score (no gold, config or metadata file, no trajectory). Such a ``scenario_`` folder
    holding scenario folders is their parent (AssetOpsBench's ``scenario_4/question.txt``
    beside ``scenario_4/turns/02/``), and a folder of another name holding it is no scenario
    that lost its name (upstream's ``default/``)."""
    marked = _MARKERS.intersection(listing.files)
    return bool(marked) and marked <= _CONTEXT_FILES and not _has_evidence(listing)


_CONTEXT_FILES: Final = frozenset({_QUESTION_FILE, _RUBRIC_FILE})


def _lookalike_error(name: str, listing: _Dir) -> str | None:
    """Why a folder that is no scenario folder but holds a scenario's files (a gold, a
    ``scenario.yaml``) is not scored: its name has no id (``scenario_``) or is not
    ``scenario_<id>`` (``scenario-3``, ``scenarios_4``). ``None`` for other folders, and for
    one holding only a question or a rubric (:func:`_only_context`: nothing to score)."""
    found = sorted(listing.files[n] for n in _MARKERS.intersection(listing.files))
    if not found or _only_context(listing):
        return None
    if name.casefold() == "scenario_":
        return f"holds {', '.join(found)} but its name has no id: name it scenario_<id>"
    return (
        f"holds {', '.join(found)} but is not named scenario_<id>, so it is not scored: "
        "rename it or move those files"
    )


_RUNS_ABOVE: Final = (
    "no groundtruth.* in folder, and its trajectory files are not read: the scenario "
    "folders nested in it are scored; move each run into the folder of its scenario"
)


def _no_gold_message(files: Mapping[str, str], config: Mapping[str, Any]) -> str:
    """``files``: a folder's casefolded file names -> names. A rubric, or a file named like a
    gold file but not as one (``ground_truth.json``, ``gold.yaml``), is named."""
    message = "no groundtruth.* in folder"
    rubric = _RUBRIC_FILE if _RUBRIC_FILE in files else _RUBRIC_KEY if _RUBRIC_KEY in config else ""
    if rubric:
        return message + f" ({rubric} is a rubric for a judge, not gold)"
    near = [name for folded, name in files.items() if _NEAR_GOLD.fullmatch(folded)]
    if near:
        return message + f" ({', '.join(near)}: a gold file is named {', '.join(_GOLD_FILES)})"
    return message


_NEAR_GOLD = re.compile(
    r"(?:ground[ _-]?truth|gold|expected[ _-]?answer|answer)s?(?:\.[a-z0-9]+)?"
    r"|groundtruth\.[a-z0-9]+"
)


def _load_scenario(listing: _Dir, sid: str, where: _Root) -> Scenario:
    """Read one scenario folder; every problem is collected into ``error``, never raised."""
    errors: list[str] = []
    used: list[str] = []  # shown paths of the files that define the scenario

    def at(name: str) -> str:
        return _join(listing.path, name)

    def use(name: str) -> None:
        used.append(where.child(listing.shown, name))

    config: Mapping[str, Any] = {}
    config_files = [n for n in listing.names if n.casefold() in _CONFIG_FILES]
    repeats: list[Repeat] = []  # the keys the config writes twice
    if len(config_files) > 1:
        errors.append(f"several config files: {', '.join(config_files)} (keep one)")
    elif config_files:
        use(config_files[0])
        try:
            loaded = _structured(at(config_files[0]), DEFAULT_MAX_BYTES, blank={}, repeated=repeats)
        except (OSError, ValueError) as exc:
            errors.append(f"{config_files[0]}: {_why(exc)}")
        else:
            if loaded is None and not config_files[0].lower().endswith(".json"):
                loaded = {}  # YAML holding only comments: no settings, as an empty file
            if isinstance(loaded, Mapping):
                config = loaded
            else:
                errors.append(f"{config_files[0]}: must be a mapping, got {type(loaded).__name__}")
    notes: list[str] = []
    if repeats:
        shown = where.child(listing.shown, config_files[0])
        in_gold = None if _gold_files(listing) else _gold_key(config)
        notes += _sorted_repeats(repeats, in_gold, shown, errors, config_files[0])

    settings = _Settings(config, listing.path, where, errors, used)
    configured = config.get(_METADATA_KEY) is not None
    metadata = _metadata_file(listing, errors, use, configured=configured)
    if metadata is not None and configured:
        errors.append(f"{_METADATA_KEY} in the scenario config and in {metadata[0]}: keep one")
    elif metadata is not None:
        settings.options, problems = with_metadata(settings.options, metadata[2], metadata[1])
        errors.extend(problems)
    question = settings.question
    question_files = [n for n in listing.names if n.casefold() == _QUESTION_FILE]
    for name in question_files:
        use(name)
    if len(question_files) > 1:
        errors.append(f"several question files: {', '.join(question_files)} (keep one)")
    elif question_files:
        try:
            question = text_lines(read_text(at(question_files[0]), DEFAULT_MAX_BYTES)).strip()
        except (OSError, ValueError) as exc:
            errors.append(f"{question_files[0]}: {_why(exc)}")
    for name in listing.names:
        if name.casefold() == _RUBRIC_FILE:  # never read (a judge's rubric), but it is ours
            use(name)

    gold = _gold(listing, where, config, settings.max_bytes, errors, used, notes)
    trajectory_files = [
        where.child(listing.shown, name)
        for name in listing.names
        if _TRAJECTORY_FILE.fullmatch(name.casefold())
    ]
    for folder in filter(_is_trajectory_dir, listing.subdirs):  # (Trajectories/ too)
        found = _walk_files(
            at(folder),
            where.child(listing.shown, folder),
            where,
            (".json", ".jsonl"),
            owner=listing.path,
        )
        for _, shown, problem in found:
            if problem is None:
                trajectory_files.append(shown)
            else:
                errors.append(f"{name_text(shown)}: {problem}")
    read = {*used, *trajectory_files}
    unread = tuple(
        shown
        for name in listing.names
        if name.casefold().endswith((".json", ".jsonl"))
        and (shown := where.child(listing.shown, name)) not in read
    ) + tuple(
        where.child(listing.shown, name) + "/"
        for name in listing.subdirs
        if _NEAR_TRAJECTORY_DIR.fullmatch(name.casefold()) and not _marked(at(name))
    )
    trajectory_files.extend(settings.trajectories)
    return settings.scenario(
        sid,
        listing.shown,
        None,
        gold=gold,
        question=question,
        trajectory_files=trajectory_files,
        holds_python=_holds_python(listing),
        unread=unread,
        gold_notes=tuple(notes),
        config_file=where.child(listing.shown, config_files[0]) if config else None,
    )


# A folder a trajectory may be put in by mistake: only ``trajectories/`` (in any case) is read.
_NEAR_TRAJECTORY_DIR = re.compile(r"trajector(?:y|ys|ie)|traject|runs?|traces?")


def _marked(folder: str) -> bool:
    """Whether ``folder`` holds a scenario file (a nested scenario, read as one)."""
    try:
        return any(name.casefold() in _MARKERS for name in os.listdir(folder))
    except OSError:
        return False


def _metadata_file(
    listing: _Dir, errors: list[str], use: Callable[[str], None], *, configured: bool
) -> tuple[str, str, Any] | None:
    """The folder's ``groundtruth_eval.*`` (upstream's later home of ``evaluation_metadata``)
    as (its name, where its metadata was read, the metadata): the file holds that mapping,
    bare or under its key (an empty file, or YAML of comments only, holds none, as an empty
    scenario config holds no settings). None when there is none or it cannot be read, or
    only a file or folder of a near name (``ground_truth_eval.json``) while the scenario
    config holds no metadata (not ``configured``): each an error of the scenario, as the
    terms would otherwise be lost without a word."""
    names = [n for n in listing.names if n.casefold() in _METADATA_FILES]
    for name in names:
        use(name)
    if len(names) > 1:
        errors.append(f"several evaluation metadata files: {', '.join(names)} (keep one)")
    if not names and not configured:
        near = [
            n for n in (*listing.names, *listing.subdirs) if _NEAR_METADATA.fullmatch(n.casefold())
        ]
        if near:
            errors.append(
                f"{', '.join(near)}: evaluation metadata is read from a file named "
                f"{', '.join(_METADATA_FILES)}"
            )
    if len(names) != 1:
        return None
    name = names[0]
    repeats: list[Repeat] = []
    try:
        loaded = _structured(
            _join(listing.path, name), DEFAULT_MAX_BYTES, blank={}, repeated=repeats
        )
    except (OSError, ValueError) as exc:
        errors.append(f"{name}: {_why(exc)}")
        return None
    errors.extend(f"{name}: {problem}" for problem in config_repeat_errors(repeats))
    if loaded is None and not name.lower().endswith(".json"):
        loaded = {}  # YAML holding only comments: no metadata, as an empty file
    if not isinstance(loaded, Mapping) or _METADATA_KEY not in loaded:
        return name, name, loaded
    errors.extend(
        f"{name}: {key!r} beside {_METADATA_KEY}: "
        + ("move it inside" if key in METADATA_KEYS else "unknown key")
        for key in loaded
        if key != _METADATA_KEY
    )
    return name, f"{name}: {_METADATA_KEY}", loaded[_METADATA_KEY]


# A metadata file's name with a slip (``ground_truth_eval.json``, ``groundtruth-eval.yaml``,
# ``groundtruth_evaluation.json``), or a folder of the right name: JSON and YAML only, as a
# script or notes beside the gold (``gold_eval.py``) are the user's own files.
_NEAR_METADATA = re.compile(r"ground[ _.-]?truth[ _.-]?eval(?:uation)?s?\.(?:json|ya?ml)")


def looks_like_scenario(folder: str | os.PathLike[str], *, depth: int = 0) -> bool:
    """Whether ``folder``, or a folder at most ``depth`` levels below it, holds a gold file, a
    trajectory file, a ``trajectories/`` folder or a scenario config naming its gold: what a
    scenario tree holds, and a test folder or a project that happens to be named
    ``scenario_*`` does not (a ``question.txt`` alone is no proof). Folders that cannot be
    listed hold nothing."""
    pending = [(os.fspath(folder), 0)]
    visited: set[tuple[int, int]] = set()
    while pending:
        current, level = pending.pop()
        try:
            listing = _list_dir(current, current, visited)
        except OSError:
            continue
        if listing is None:
            continue
        if _has_evidence(listing):
            return True
        if level < depth:
            pending.extend((_join(current, name), level + 1) for name in listing.subdirs)
    return False


MAX_LISTINGS_BESIDE: Final = 2000
"""Folders :func:`scenario_ids_beside` lists at most: a look around, never a project walk."""


def scenario_ids_beside(
    roots: Sequence[str],
    top: str,
    *,
    depth: int = 3,
    reports_dir: str | None = None,
    skip_folders: Sequence[str] = (),
) -> set[str]:
    """The join keys (:func:`id_key`) of the scenario folders beside ``roots``: at most
    ``depth`` levels below each folder that holds a root, from the root's parent up to, not
    including, ``top`` (rootdir: the project holds more than one tree, ``examples/`` beside
    ``evals/``, and a root outside it has nothing around it), the roots themselves left out.

    A run that picked some groups of a tree (``pytest evals/group_a``) discovers only those;
    a trajectory of a shared folder that joins none of them but names a scenario found here
    belongs to a scenario left out, not to no scenario. Nearest folders first, hidden ones,
    ``skip_folders`` patterns and the reports folder passed by, and at most
    :data:`MAX_LISTINGS_BESIDE` listings.
    """
    where = _Root.of(top, reports_dir, skip=skip_folders)
    top = os.path.abspath(top)
    inside = os.path.join(top, "")
    left_out = {os.path.normcase(os.path.abspath(root)) for root in roots}
    pending: deque[tuple[str, int]] = deque()
    for root in roots:
        here = os.path.dirname(os.path.abspath(root))
        while here != top and here.startswith(inside):  # (top "/" is inside itself)
            pending.append((here, 0))
            here = os.path.dirname(here)
    visited = where.visited_at_start()
    found: set[str] = set()
    listings = 0
    while pending and listings < MAX_LISTINGS_BESIDE:
        folder, level = pending.popleft()
        if os.path.normcase(folder) in left_out:
            continue
        try:
            listing = _list_dir(folder, folder, visited)
        except OSError:
            continue
        listings += 1
        if listing is None:
            continue
        sid = scenario_folder_id(name_text(os.path.basename(folder))) if level else None
        if sid is not None and _has_evidence(listing):
            found.add(id_key(sid))  # its nested turns are no join target of a shared folder
        elif level < depth:
            pending.extend(
                (_join(folder, name), level + 1)
                for name in listing.subdirs
                if not where.skips(name)
            )
    return found


def _names_gold(config: str) -> bool:
    """Whether a scenario config file mentions a gold key (``expected_answer``,
    ``ground_truth``): a look at its text, enough to tell a scenario's config from a project's."""
    try:
        head = read_head(config, 65536)
    except OSError:  # a pipe named scenario.yaml would block a plain open() (pytest's startup)
        return False
    return any(key.encode() in head for key in _GOLD_KEYS)


def _has_evidence(listing: _Dir) -> bool:
    """:func:`looks_like_scenario` of one folder already listed (discovery's own listing)."""
    files = listing.files
    return (
        any(map(_is_trajectory_dir, listing.subdirs))
        or any(name in files for name in _GOLD_FILES)
        or any(_TRAJECTORY_FILE.fullmatch(folded) for folded in files)
        or any(
            name in files and _names_gold(_join(listing.path, files[name]))
            for name in _CONFIG_FILES
        )
    )


def _holds_python(listing: _Dir) -> bool:
    """Whether a listed folder holds Python files (``conftest.py``, test modules)."""
    return any(folded.endswith(".py") for folded in listing.files)


def _gold_files(listing: _Dir) -> list[str]:
    """The names of a listed folder's gold files (``groundtruth.*``)."""
    return [n for n in listing.names if n.casefold() in _GOLD_FILES]


def _gold_key(config: Mapping[str, Any]) -> str | None:
    """The config key whose value is the gold, when no gold file is (see :func:`_config_gold`)."""
    return next((key for key in _GOLD_KEYS if config.get(key) is not None), None)


def _sorted_repeats(
    repeats: Sequence[Repeat], gold_key: str | None, where: str, errors: list[str], name: str
) -> list[str]:
    """The keys a scenario config (``where``, in messages ``name``) writes twice: the
    scenario's errors (in ``errors``, first: a second ``options:`` drops the first, and the
    rest reads the config as it is left), but inside its gold (under ``gold_key``), which
    keeps its last value as ``json.loads`` does: the ``GoldWarning`` note returned. Inside a
    gold key that is not the gold (a gold file's copy), nothing."""
    in_gold = [
        Repeat(repeat.path[1:], repeat.key, repeat.line, repeat.first)
        for repeat in repeats
        if repeat.path[:1] == (gold_key,)
    ]
    config = [
        repeat for repeat in repeats if repeat.path[:1] == () or repeat.path[0] not in _GOLD_KEYS
    ]
    errors[:0] = [f"{name}: {problem}" for problem in config_repeat_errors(config)]
    said = f"the {gold_key} of {warning_path(where)}"
    return [gold_repeat_note(in_gold, where=said)] if in_gold else []


def _gold(
    listing: _Dir,
    where: _Root,
    config: Mapping[str, Any],
    max_bytes: int,
    errors: list[str],
    used: list[str],
    notes: list[str],
) -> Any:
    """The gold: a ``groundtruth.*`` file, else config ``ground_truth``/``expected_answer``;
    a key the gold file writes twice is a ``GoldWarning`` note (in ``notes``)."""
    files = listing.files
    gold_files = _gold_files(listing)
    used.extend(where.child(listing.shown, name) for name in gold_files)
    if len(gold_files) > 1:
        errors.append(f"several gold files: {', '.join(gold_files)} (keep one)")
        return None
    if gold_files:
        name = gold_files[0]
        repeats: list[Repeat] = []
        try:
            gold = read_answer_file(_join(listing.path, name), max_bytes, repeated=repeats)
        except (OSError, ValueError) as exc:
            errors.append(f"{name}: {_why(exc)}")
            return None
        if repeats:
            shown = warning_path(where.child(listing.shown, name))
            notes.append(gold_repeat_note(repeats, where=shown))
        for key in _GOLD_KEYS:  # AssetOpsBench folders hold the gold twice: alike, or broken
            if config.get(key) is not None and not _file_says(gold, config[key]):
                at = _first_difference(*(_read_as_gold(x) for x in (gold, config[key])))
                errors.append(f"{name} and the config's {key} disagree{at}: keep one")
                return None
        return gold
    return _config_gold(config, errors, _no_gold_message(files, config))


def _file_says(gold: Any, value: Any) -> bool:
    """Whether a gold file says what a config's gold ``value`` says: the same value, the same
    text, or the same once each text (``groundtruth.txt``, a string ``expected_answer``: what
    the scorer parses) is parsed: ``34`` is ``"34.0"``, a JSON value's layout does not count.
    Prose must match as the scorer compares it (its line endings too: the file is scored)."""
    if _same_gold(gold, value):
        return True
    if isinstance(gold, str) and isinstance(value, str) and gold.strip() == value.strip():
        return True
    return _same_gold(*(_read_as_gold(x) for x in (gold, value)))


_UNREADABLE: Final = object()  # a gold text the parser refuses
_NOTHING: Final = object()  # no value at a path on one side


def _read_as_gold(gold: Any) -> Any:
    """A gold as the scorer reads it: a text parsed (``_UNREADABLE`` when it cannot be),
    any other value as it is."""
    if not isinstance(gold, str):
        return gold
    try:
        return parse_answer(gold)
    except (StructevalError, ValueError, RecursionError):
        return _UNREADABLE


def _first_difference(first: Any, second: Any) -> str:
    """`` (answer.zip: "02134" vs 2134)``: the first path, in the order the golds are written,
    where two golds read differently, and what each says there (a YAML typing that two texts
    hide, ``02134`` read as a number, shows); ``""`` when none can be named."""
    from .paths import ROOT, index_path, key_path

    stack: list[tuple[str, Any, Any]] = [(ROOT, first, second)]
    while stack:
        path, a, b = stack.pop()
        if a is _UNREADABLE or b is _UNREADABLE:
            return ""
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            keys = [*a, *(key for key in b if key not in a)]
            stack += [
                (key_path(path, k), a.get(k, _NOTHING), b.get(k, _NOTHING)) for k in reversed(keys)
            ]
        elif isinstance(a, list) and isinstance(b, list):
            stack += [
                (
                    index_path(path, i),
                    a[i] if i < len(a) else _NOTHING,
                    b[i] if i < len(b) else _NOTHING,
                )
                for i in reversed(range(max(len(a), len(b))))
            ]
        elif a is _NOTHING or b is _NOTHING or not _same_gold(a, b):
            return f" ({path}: {_gold_said(a)} vs {_gold_said(b)})"
    return ""


def _gold_said(value: Any) -> str:
    """A gold value as a message names it: as JSON writes it, clipped; ``nothing`` for none."""
    if value is _NOTHING:
        return "nothing"
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):
        text = repr(value)
    return text if len(text) <= _SAID_CHARS else text[: _SAID_CHARS - 3] + "..."


_SAID_CHARS: Final = 60


def _config_gold(config: Mapping[str, Any], errors: list[str], missing: str) -> Any:
    """``ground_truth`` or ``expected_answer``: text (parsed by the scorer) or a parsed value.

    ``characteristic_form`` is never gold: it is prose for a judge, and ``static_json`` would
    compare it as text (a rubric mentioning one number even "equals" that number).
    """
    given = [config[key] for key in _GOLD_KEYS if config.get(key) is not None]
    if len(given) > 1 and not _same_gold(*given):
        where = _first_difference(*given)
        errors.append(f"{' and '.join(_GOLD_KEYS)} disagree{where}: keep one")
        return None
    for key in _GOLD_KEYS:
        value = config.get(key)
        if value is None:
            continue
        if isinstance(value, str) and not value.strip():
            errors.append(f"{key} is empty")
            return None
        return value
    null = next((key for key in _GOLD_KEYS if key in config), None)
    errors.append(missing if null is None else f"{null} is null")
    return None


def _same_gold(a: Any, b: Any) -> bool:
    """Whether two gold values say the same, as the scorers read them: ``1`` is ``1.0`` but
    not ``true``, and a NaN written twice is the same gold."""
    from .schema.comparators import json_equal

    if json_equal(a, b):
        return True
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError):
        return False


_KNOWN_KEYS: Final = frozenset(
    {
        *_SCORER_KEYS,
        *_GOLD_KEYS,
        "id",
        "options",
        "threshold",
        "schema",
        "answer_schema",
        "type",
        "question",
        "text",
        "trajectories",
        _METADATA_KEY,
    }
)


def _stray_keys(config: Mapping[str, Any]) -> list[str]:
    """Errors for the keys of a scenario config that quietly change nothing but were meant
    to: a built-in scorer's option at the top level (it belongs under ``options``), and a
    slip of a key read here (see :func:`_slip_of`). Any other key is the user's own
    (AssetOpsBench's ``category``, a ``model``, a ``question_id``, ...)."""
    errors = []
    for key in config:
        if not isinstance(key, str) or key in _KNOWN_KEYS:
            continue
        if key.casefold() in _scorer_options():
            name = key if key in _scorer_options() else f"{key} ({key.casefold()})"
            errors.append(f"scenario config: {name} is a scorer option: put it under options:")
            continue
        meant = _slip_of(key)
        if meant is not None and meant not in config:
            errors.append(f"scenario config: unknown key {key!r} (did you mean {meant!r}?)")
    return errors


@functools.cache
def _scorer_options() -> frozenset[str]:
    from .modes.schema import OPTIONS as SCHEMA_OPTIONS
    from .modes.similarity import OPTIONS as SIMILARITY_OPTIONS
    from .modes.strict import OPTIONS as STRICT_OPTIONS

    return frozenset({*STRICT_OPTIONS, *SIMILARITY_OPTIONS, *SCHEMA_OPTIONS})


_SLIPS: Final = {"trajectory": "trajectories", "option": "options"}


@functools.lru_cache(maxsize=1024)
def _slip_of(key: str) -> str | None:
    """The known key ``key`` is one slip away from, letter case aside (``MODE``, ``Mode``):
    two neighbouring letters swapped (``mdoe``), or for a key of five letters or more one
    letter added, dropped or changed (``treshold``, ``scorrer``); a known key that ``key``
    extends or shortens (``question_id``, ``score``) is another word. ``trajectory`` and
    ``option`` too."""
    key = key.casefold()
    if key in _KNOWN_KEYS:
        return key
    if key in _SLIPS:
        return _SLIPS[key]
    for known in sorted(_KNOWN_KEYS):
        if key.startswith(known) or known.startswith(key):
            continue
        if _swapped(key, known) or (len(known) >= 5 and _one_edit(key, known)):
            return known
    return None


def _swapped(a: str, b: str) -> bool:
    """Whether ``a`` is ``b`` with two neighbouring letters swapped."""
    if len(a) != len(b):
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and a[diff[0]] == b[diff[1]]
        and a[diff[1]] == b[diff[0]]
    )


def _one_edit(a: str, b: str) -> bool:
    """Whether one letter added, dropped or changed turns ``a`` into ``b``."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((i for i, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return short[i:] == long[i + 1 :]


class _Settings:
    """The keys a ``scenario.yaml`` and a scenario-file entry share, read and checked once.

    ``folder`` is where relative paths (``schema``, ``trajectories``) start: the scenario
    folder, or the folder of the scenario file. Problems go to ``errors``; the files read go to
    ``used``. Other keys are ignored (AssetOpsBench's ``text``, ``category``, ...), but for a
    scorer option written at the top level and a near miss of a key read here (``mdoe``,
    ``treshold``): those are errors (see :func:`_stray_keys`). ``schemas`` caches schema
    files across the entries of one scenario file.
    """

    __slots__ = (
        "answer_file",
        "answer_key",
        "answer_schema",
        "errors",
        "max_bytes",
        "options",
        "question",
        "root",
        "schema",
        "schema_file",
        "schema_key",
        "schema_notes",
        "scorer",
        "threshold",
        "trajectories",
        "type",
        "used",
    )
    scorer: str | None
    options: dict[str, Any]
    max_bytes: int
    threshold: float | None
    schema: Any
    answer_schema: Any
    type: str | None
    question: str
    trajectories: list[str]

    def __init__(
        self,
        config: Mapping[str, Any],
        folder: str,
        where: _Root,
        errors: list[str],
        used: list[str],
        schemas: dict[str, tuple[Any, str | None, SchemaNote | None]] | None = None,
    ) -> None:
        self.errors = errors
        self.used = used
        self.schema_notes: list[SchemaNote] = []
        self.schema_file: str | None = None
        self.schema_key: str | None = None  # where the config writes a schema inline
        self.answer_file: str | None = None  # the same of the answer_schema
        self.answer_key: str | None = None
        self.root = where.base  # (the folder the files' shown names are relative to)
        if not config:  # most folders have no scenario.yaml: nothing to read or check
            self.scorer = self.threshold = self.schema = self.answer_schema = self.type = None
            self.options = {}
            self.max_bytes = DEFAULT_MAX_BYTES
            self.question = ""
            self.trajectories = []
            return
        named = {key: config[key] for key in _SCORER_KEYS if config.get(key) is not None}
        if len({repr(value) for value in named.values()}) > 1:
            errors.append(
                "scenario config: "
                + " and ".join(f"{key} {value!r}" for key, value in named.items())
                + " disagree"
            )
        scorer = next(iter(named.values()), None)
        if scorer is not None and (not isinstance(scorer, str) or not scorer):
            errors.append(f"scenario config: scorer must be a non-empty string, got {scorer!r}")
            scorer = None
        self.scorer = scorer

        options = config.get("options", {})
        if options is None:
            options = {}
        if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
            errors.append("scenario config: options must be a mapping with string keys")
            options = {}
        self.options = dict(options)
        if config.get(_METADATA_KEY) is not None:
            self.options, problems = with_metadata(self.options, config[_METADATA_KEY])
            errors.extend(problems)
        max_bytes = self.options.get("max_bytes", DEFAULT_MAX_BYTES)
        if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1:
            max_bytes = DEFAULT_MAX_BYTES  # the scorer names the bad option value
        self.max_bytes = max_bytes

        threshold = config.get("threshold")
        if threshold is not None and (
            isinstance(threshold, bool) or not isinstance(threshold, (int, float))
        ):
            errors.append(f"scenario config: threshold must be a number, got {threshold!r}")
            threshold = None
        elif threshold is not None:  # here, where it was written, and as written (80, not 80.0)
            try:
                threshold = read_rate(threshold)
            except ValueError as exc:
                errors.append(f"scenario config: threshold: {exc}")
                threshold = None
        self.threshold = threshold

        schema = config.get("schema")
        for key in ("schema", "threshold"):  # a scorer option here too: one place only
            if config.get(key) is not None and self.options.get(key) is not None:
                errors.append(
                    f"scenario config: {key} is given at the top level and under options (keep one)"
                )
        key = "schema"
        if schema is None and self.options.get("schema") is not None:
            schema = self.options.pop("schema")  # a file of it is the folder's, as above
            key = "options.schema"
        self.schema = self._schema(schema, folder, where, schemas)
        self.schema_file, self.schema_key = self._schema_place(
            schema, self.schema, key, folder, where
        )
        self.answer_schema = self._answer_schema(config, folder, where, schemas)

        kind = config.get("type")
        try:
            kind = None if kind is None else scalar_text(kind, "type")
        except ValueError as exc:
            errors.append(f"scenario config: {exc}")
            kind = None
        self.type = kind

        self.question = ""
        for key in ("question", "text"):
            if config.get(key) is not None:
                try:
                    self.question = scalar_text(config[key], key).strip()
                except ValueError as exc:  # a list or a mapping was taken for the question
                    errors.append(f"scenario config: {exc}")
                break
        self.trajectories = self._trajectories(config.get("trajectories"), folder, where)
        if not _KNOWN_KEYS.issuperset(config):
            errors.extend(_stray_keys(config))

    def _schema(
        self,
        schema: Any,
        folder: str,
        where: _Root,
        cache: dict[str, tuple[Any, str | None, SchemaNote | None]] | None,
        key: str = "schema",
    ) -> Any:
        """An inline mapping, or a JSON/YAML file relative to ``folder``."""
        if isinstance(schema, str):
            path = os.path.join(folder, schema)
            self.used.append(where.show(path))
            loaded = None if cache is None else cache.get(path)
            if loaded is None:
                repeated: list[Repeat] = []
                try:
                    value = _structured(path, DEFAULT_MAX_BYTES, repeated=repeated)
                    loaded = (value, None, _schema_note(repeated, value, where.show(path)))
                except (OSError, ValueError) as exc:
                    loaded = (None, f"{key} {schema}: {_why(exc)}", None)
                if cache is not None:
                    cache[path] = loaded
            value, problem, note = loaded
            if note is not None and note not in self.schema_notes:
                self.schema_notes.append(note)
            if problem is not None:
                self.errors.append(problem)
            elif not isinstance(value, Mapping):
                self.errors.append(
                    f"{key} {schema}: expected a mapping (a JSON Schema object), "
                    f"got {type(value).__name__}"
                )
                return None
            return value
        if schema is not None and not isinstance(schema, Mapping):
            self.errors.append(f"scenario config: {key} must be a file name or a mapping")
            return None
        return schema

    @staticmethod
    def _schema_place(
        given: Any, schema: Any, key: str, folder: str, where: _Root
    ) -> tuple[str | None, str | None]:
        """Where ``schema`` (read from ``given``: a file name, or written at ``key`` of the
        config) is written, for its warnings: the file (shown), or the key of the config
        that writes it inline."""
        if isinstance(given, str) and schema is not None:
            return where.show(os.path.join(folder, given)), None
        if isinstance(schema, Mapping):  # (a JSONSchemaBench wrapper: its schema)
            return None, key + ".schema" if _is_schema_wrapper(schema) else key
        return None, None

    def _answer_schema(
        self,
        config: Mapping[str, Any],
        folder: str,
        where: _Root,
        cache: dict[str, tuple[Any, str | None, SchemaNote | None]] | None,
    ) -> Any:
        """The JSON Schema every answer must meet (``answer_schema``), ready to check once
        :meth:`scenario` knows where it is written."""
        if "answer_schema" in self.options:
            self.errors.append(
                "scenario config: answer_schema belongs at the top level, beside schema, "
                "not under options"
            )
        given = config.get("answer_schema")
        schema = self._schema(given, folder, where, cache, "answer_schema")
        self.answer_file, self.answer_key = self._schema_place(
            given, schema, "answer_schema", folder, where
        )
        return schema

    @staticmethod
    def _written(
        file: str | None, key: str | None, path: str, entry: str | None, config_file: str | None
    ) -> tuple[str | None, str | int | None]:
        """The file a scenario's schema is read from and where in it (see
        :data:`~pytest_structeval.schema.tree.SchemaFile`): its own file (``file``), or the
        config or scenario-file entry that writes it at ``key``."""
        if key is None:
            return file, None
        if entry is None:
            return config_file, key
        if entry.startswith(":"):  # (a JSONL line)
            return path, int(entry[1:])
        return path, f"{entry}.{key}".lstrip(".")

    def _trajectories(self, listed: Any, folder: str, where: _Root) -> list[str]:
        """Shown paths of the trajectory files under ``trajectories``: one path or a list,
        each a ``.json``/``.jsonl`` file or a folder searched recursively, relative to
        ``folder``. They belong to this scenario like the files inside a scenario folder."""
        if listed is None:
            return []
        names = [listed] if isinstance(listed, str) else listed
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            self.errors.append("scenario config: trajectories must be a path or a list of paths")
            return []
        out: list[str] = []
        for name in names:
            path = os.path.normpath(os.path.join(folder, name))
            shown = where.show(path)
            try:  # not os.path.isdir/exists: they call a folder that cannot be searched missing
                info = os.stat(path)
            except (FileNotFoundError, NotADirectoryError):
                self.errors.append(f"trajectories {name}: no such file or folder")
                continue
            except (OSError, ValueError) as exc:  # (ValueError: a NUL in the name)
                self.errors.append(f"trajectories {name}: {_why(exc)}")
                continue
            if stat.S_ISDIR(info.st_mode):
                for _, label, problem in _walk_files(path, shown, where, (".json", ".jsonl")):
                    if problem is None:
                        out.append(label)
                    else:
                        self.errors.append(f"{name_text(label)}: {problem}")
            else:
                out.append(shown)  # a file that is not .json/.jsonl is reported when loaded
        return out

    def scenario(
        self,
        sid: str,
        path: str,
        entry: str | None,
        *,
        gold: Any,
        question: str,
        trajectory_files: Sequence[str],
        holds_python: bool = False,
        unread: tuple[str, ...] = (),
        gold_notes: tuple[str, ...] = (),
        config_file: str | None = None,
    ) -> Scenario:
        """The scenario these settings describe; every problem met so far is its ``error``.
        ``config_file``: a folder's config file (shown), which may write the schema inline."""
        # (their warnings: at the line of their file, or of the config or entry writing them)
        schema_file, schema_in = self._written(
            self.schema_file, self.schema_key, path, entry, config_file
        )
        answer_schema = None
        if self.answer_schema is not None:
            from .schema.tree import schema_read_from
            from .schema.validity import SchemaCheck

            file, within = self._written(
                self.answer_file, self.answer_key, path, entry, config_file
            )
            try:
                with (
                    contextlib.nullcontext()
                    if file is None
                    else schema_read_from(self.answer_schema, file, self.root, within)
                ):
                    answer_schema = SchemaCheck(self.answer_schema)
            except SchemaError as exc:  # (a JSONSchemaBench wrapper whose schema is no object)
                self.errors.append(f"answer_schema: {exc}")
        return Scenario(
            id=sid,
            path=path,
            gold=gold,
            question=question,
            type=self.type,
            scorer=self.scorer,
            options=self.options,
            threshold=self.threshold,
            schema=self.schema,
            answer_schema=answer_schema,
            error="; ".join(self.errors) or None,
            files=tuple(self.used),
            trajectory_files=tuple(trajectory_files),
            entry=entry,
            holds_python=holds_python,
            unread=unread,
            gold_notes=gold_notes,
            schema_notes=tuple(self.schema_notes),
            schema_file=schema_file,
            schema_in=schema_in if schema_file is not None else None,
        )


# --------------------------------------------------------------------------- scenario files


def _is_schema_wrapper(schema: Mapping[str, Any]) -> bool:
    """Whether an inline schema is a JSONSchemaBench wrapper (its ``schema`` is read)."""
    from .schema.io import _is_wrapper

    return _is_wrapper(schema)


def _scenario_file(path: str, shown: str, where: _Root, seen: set[str]) -> list[Scenario]:
    """The scenarios of the scenario file at ``path`` (named ``shown``; ``[]`` if already in
    ``seen``), the AssetOpsBench ``--scenarios scenarios.json`` form.

    ``.jsonl``: one scenario object per non-blank line; ``.json``, ``.yaml``, ``.yml``: a list
    of scenario objects or a single one. An object has ``id`` (a string or a number) and the
    keys of a folder's ``scenario.yaml`` (see :class:`_Settings`), with ``expected_answer`` or
    ``ground_truth`` as gold. Never raises: a broken file, line or entry is a scenario with
    ``error`` located at ``file``, ``file:<line>`` or ``file[<index>]``, and the others load.
    """
    real = os.path.realpath(path)
    if real in seen:
        return []
    seen.add(real)
    try:
        text = read_text(path, MAX_SCENARIO_FILE_BYTES)
    except (OSError, ValueError) as exc:
        return [_broken_entry(shown, "", f"cannot read scenario file: {_why(exc)}")]
    items: list[tuple[str, Any, str | None]] = []  # (entry, value, error)
    repeats: dict[str, list[Repeat]] = {}  # the keys each entry writes twice
    if os.path.splitext(path)[1].lower() == ".jsonl":
        for number, line in enumerate(text_lines(text).split("\n"), start=1):  # (CR too)
            if line.strip():
                try:
                    items.append((f":{number}", _json_value(line), None))
                except ValueError as exc:
                    items.append((f":{number}", None, str(exc)))
                    continue
                repeats[f":{number}"] = [
                    Repeat(r.path, r.key, number, number) for r in json_repeats(line)
                ]
    elif text.strip():
        found: list[Repeat] = []
        try:
            if path.lower().endswith(".json"):
                loaded = _json_value(text)
                found = json_repeats(text)
            else:
                from .yamlvalue import yaml_value

                loaded = yaml_value(text, repeated=found)
        except ValueError as exc:
            return [_broken_entry(shown, "", str(exc))]
        if isinstance(loaded, list):
            items = [(f"[{index}]", value, None) for index, value in enumerate(loaded)]
            for r in found:
                if r.path:
                    entry = repeats.setdefault(f"[{r.path[0]}]", [])
                    entry.append(Repeat(r.path[1:], r.key, r.line, r.first))
        elif isinstance(loaded, Mapping):
            items = [("", loaded, None)]
            repeats[""] = found
        elif loaded is not None:
            message = (
                f"expected a list of scenarios or one scenario object, got {type(loaded).__name__}"
            )
            return [_broken_entry(shown, "", message)]
    if where.guessed(path) and not any(
        problem is not None or _scenario_shaped(value) for _, value, problem in items
    ):
        return []  # test data named like a scenario file (see plan)
    if not items:
        return [_broken_entry(shown, "", "no scenarios in file")]
    folder = os.path.dirname(path)
    schemas: dict[str, tuple[Any, str | None, SchemaNote | None]] = {}
    return [
        _broken_entry(shown, entry, problem)
        if problem is not None
        else _file_entry(value, shown, entry, folder, where, schemas, repeats.get(entry, ()))
        for entry, value, problem in items
    ]


def _scenario_shaped(value: Any) -> bool:
    """Whether a scenario file's entry names a gold (or a judge's rubric, reported as such)."""
    return isinstance(value, Mapping) and any(k in value for k in (*_GOLD_KEYS, _RUBRIC_KEY))


def _broken_entry(shown: str, entry: str, error: str) -> Scenario:
    """A file, line or list entry that is not a usable scenario: kept (and reported) under
    its location, which also serves as its id since it has no usable one."""
    return Scenario(id=shown + entry, path=shown, error=error, files=(shown,), entry=entry)


def _file_entry(
    value: Any,
    shown: str,
    entry: str,
    folder: str,
    where: _Root,
    schemas: dict[str, tuple[Any, str | None, SchemaNote | None]],
    repeats: Sequence[Repeat] = (),
) -> Scenario:
    """One scenario object of a scenario file; ``repeats``: the keys it writes twice."""
    if not isinstance(value, Mapping):
        return _broken_entry(
            shown, entry, f"expected a scenario object, got {type(value).__name__}"
        )
    raw_id = value.get("id")
    if raw_id is None:
        hint = " (this looks like a trajectory record)" if "scenario_id" in value else ""
        return _broken_entry(shown, entry, "missing id" + hint)
    try:
        sid = scalar_text(raw_id, "id")
    except ValueError as exc:
        return _broken_entry(shown, entry, str(exc))
    if not sid.strip():
        return _broken_entry(shown, entry, "id is empty")
    errors: list[str] = []
    notes = _sorted_repeats(repeats, _gold_key(value), shown + entry, errors, "scenario config")
    settings = _Settings(value, folder, where, errors, [shown], schemas)
    rubric = f" ({_RUBRIC_KEY} is a rubric for a judge, not gold)" if _RUBRIC_KEY in value else ""
    gold = _config_gold(value, errors, f"no expected_answer{rubric}")
    return settings.scenario(
        sid,
        shown,
        entry,
        gold=gold,
        question=settings.question,
        trajectory_files=settings.trajectories,
        gold_notes=tuple(notes),
    )


# --------------------------------------------------------------------------- trajectories


def load_trajectories(
    paths: Iterable[str | os.PathLike[str]],
    *,
    exclude: Collection[str] = (),
    root: str | os.PathLike[str] | None = None,
    reports_dir: str | os.PathLike[str] | None = None,
) -> list[Trajectory]:
    """Trajectories from ``.json`` (one object) and ``.jsonl`` (one per line) files.

    Directories are searched recursively in natural order. Files in ``exclude`` (compared as
    files, however they are spelt or linked) are skipped: :func:`plan` uses it for the
    scenarios' own files.
    Each file is read once, however often the paths reach it (``runs runs/sub``, a path
    given twice, a link): its runs would count twice. Unreadable files and bad lines become
    ``Trajectory(error=...)`` entries; a missing path raises ``FileNotFoundError`` (a usage
    error). ``root``, ``reports_dir``: see :func:`plan`.
    """
    where = _Root.of(root, reports_dir)
    read: set[Any] = set()  # the files read (see _file_identity)
    excluded: set[Any] | None = None  # the scenarios' own (see _same_file): made lazily, as
    # most runs pass no trajectory paths
    out: list[Trajectory] = []
    for raw in paths:
        start = where.open(raw)
        _reach(start, "trajectory", os.fspath(raw))
        where.refuse_reports(start, "trajectory", raw)
        if excluded is None:
            excluded = {_same_file(os.fspath(where.open(p))) for p in exclude}
        shown = where.show(start)
        if not start.is_dir():  # a file, or a pipe or device, which the read then reports
            found: Iterable[tuple[str, str, str | None]] = [(os.fspath(start), shown, None)]
        else:
            found = _walk_files(os.fspath(start), shown, where, (".json", ".jsonl"))
        empty = True
        for path, label, problem in found:
            empty = False
            if problem is not None:
                out.append(Trajectory(source=label, error=problem))
            elif (identity := _file_identity(path)) not in read and (
                _same_file(path, identity) not in excluded
            ):
                read.add(identity)
                out.extend(_load_file(path, label, None))
        if empty:  # a wrong folder, or runs saved under another suffix: never passed over
            out.append(Trajectory(source=shown, error="no .json or .jsonl file in this folder"))
    return out


def folder_trajectories(
    scenarios: Iterable[Scenario], *, root: str | os.PathLike[str] | None = None
) -> list[Trajectory]:
    """Trajectories a scenario owns (``Scenario.trajectory_files``: the files in its folder,
    or listed under ``trajectories``). Each file is read once, however it is spelt (through
    a link too: one ``stat`` each, not a ``realpath``, which cost a tenth of a second in
    5,000 folders), so no run counts twice.

    A record without ``scenario_id`` belongs to each id that lists the file through a
    spelling of its own (a folder's ``trajectory.json``, linked from another folder, is each
    folder's run), shown under that spelling; only a file no id lists on its own (one shared
    file) gives one record, which joins by file name or ``run_id``. When two scenarios share
    an id, each record's ``owners`` are the scenarios listing its file, so a losing
    duplicate's own runs are told from the used one's."""
    where = _Root.of(root)
    scenarios = list(scenarios)
    # file -> (its spellings -> the ids listing each, the locations of its owners)
    files: dict[Any, tuple[dict[str, dict[str, None]], dict[str, None]]] = {}
    for scenario in scenarios:
        for source in scenario.trajectory_files:
            spellings, locations = files.setdefault(_file_identity(where.locate(source)), ({}, {}))
            spellings.setdefault(source, {})[scenario.id] = None
            locations[scenario.location] = None
    keys = [id_key(scenario.id) for scenario in scenarios]
    shared_ids = len(set(keys)) < len(keys)
    out: list[Trajectory] = []
    for spellings, locations in files.values():
        first = next(iter(spellings))
        owners = tuple(locations) if shared_ids else ()
        given: dict[str, tuple[str, str]] = {}  # an id's key -> (the id, the spelling shown)
        for source, ids in spellings.items():
            owner = _one_id(ids)
            if owner is not None:
                given.setdefault(id_key(owner), (owner, source))
        # One owner, under the spelling read: a record without an id of its own is its run
        # as read (no copy of each record made to say so, as below).
        only = next(iter(given.values())) if len(given) == 1 else None
        default = only[0] if only is not None and only[1] == first else None
        for record in _load_file(where.locate(first), first, default):
            # Its own id decides; with no id's own spelling, its file name or run_id joins it.
            if record.scenario_id is not None or not given:
                out.append(replace(record, owners=owners) if owners else record)
                continue
            for owner, source in given.values():
                out.append(replace(record, scenario_id=owner, source=source, owners=owners))
    return out


def _one_id(ids: Mapping[str, None]) -> str | None:
    """The id a file's spelling belongs to: the one id the scenarios listing it share (``1``
    and ``01`` are one), else None (a shared file joins by file name or ``run_id``)."""
    first = next(iter(ids))
    return first if len({id_key(i) for i in ids}) == 1 else None


def _same_file(path: str, identity: Any = None) -> Any:
    """:func:`_file_identity` (``identity``, when known), with a broken link named by the
    missing file it points to: what matches a scenario's own files, so that its broken
    trajectory link, reached again through another spelling or link, is one error."""
    identity = _file_identity(path) if identity is None else identity
    if not isinstance(identity, str):
        return identity
    try:
        return os.path.realpath(path)
    except ValueError:  # a NUL in the path
        return path


def _file_identity(path: str) -> Any:
    """What names one file however it is spelt: its device and inode; the path itself
    when it cannot be read (each spelling of a broken link is its own load error), or its
    real path where the file system gives no inode (0, as some Windows ones do)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return path
    return (info.st_dev, info.st_ino) if info.st_ino else os.path.realpath(path)


def _load_file(path: str, source: str, default_id: str | None) -> list[Trajectory]:
    """The records of one trajectory file opened at ``path`` and named ``source``. A JSONL
    file over :data:`MAX_TRAJECTORY_BYTES` is read a line at a time, each line within it."""
    suffix = os.path.splitext(path)[1].lower()
    try:
        content = read_text(path, MAX_TRAJECTORY_BYTES)
    except (OSError, ValueError) as exc:
        if isinstance(exc, TooLarge) and suffix == ".jsonl":
            return _load_lines(path, source, default_id)
        error = f"cannot read trajectory file: {_why(exc)}"
        return [Trajectory(scenario_id=default_id, source=source, error=error)]
    if suffix == ".jsonl":
        out = []
        # (a lone CR ends a line too; one never stands inside a JSON string, raw)
        for number, line in enumerate(text_lines(content).split("\n"), start=1):
            if line.strip():
                out.append(_parse_record(line, source, number, default_id))
        return out
    if suffix != ".json":
        error = "not a .json or .jsonl file"
        return [Trajectory(scenario_id=default_id, source=source, error=error)]
    try:
        value = _json_value(content)
    except ValueError as exc:
        return [Trajectory(scenario_id=default_id, source=source, error=str(exc))]
    records = value if isinstance(value, list) else [value]
    # (a record's own keys: what is inside them is its data; read again only where one of
    # them may be written twice)
    found = json_repeats(content) if own_keys_may_repeat(content, records) else []
    if isinstance(value, list):  # several runs in one file: each is read like a JSONL line
        if value and not any(map(_is_record, value)):  # a chat log, a table: one problem
            items = f"{len(value)} item" + ("s" if len(value) > 1 else "")
            error = f"a list of {items}, none a trajectory record"
            return [Trajectory(scenario_id=default_id, source=source, error=error)]
        own: dict[Any, list[Repeat]] = {}
        for r in found:
            if len(r.path) == 1:
                own.setdefault(r.path[0], []).append(Repeat((), r.key, r.line, r.first))
        return [
            _record(item, source, default_id, index=i, repeated=own.get(i))
            for i, item in enumerate(value)
        ]
    return [_record(value, source, default_id, repeated=[r for r in found if not r.path])]


def _load_lines(path: str, source: str, default_id: str | None) -> list[Trajectory]:
    """The records of a JSONL file too large to read whole (200,000 real trajectories are
    about 2 GB), a line at a time: a line over the limit, or not UTF-8, is that line's error."""
    out: list[Trajectory] = []
    number = 0
    try:
        for number, line in enumerate(read_lines(path, MAX_TRAJECTORY_BYTES), start=1):
            text, error = _line_text(line)
            if error is not None:
                out.append(
                    Trajectory(scenario_id=default_id, source=source, line=number, error=error)
                )
            elif text.strip():
                out.append(_parse_record(text, source, number, default_id))
    except OSError as exc:
        after = f" (after line {number})" if number else ""
        error = f"cannot read trajectory file: {_why(exc)}{after}"
        out.append(Trajectory(scenario_id=default_id, source=source, error=error))
    return out


def _line_text(line: bytes | None) -> tuple[str, str | None]:
    """A line :func:`read_lines` gave as text, or why it is none (over the limit, not UTF-8)."""
    if line is None:
        return "", f"line over the {MAX_TRAJECTORY_BYTES} byte limit"
    if b"\0" in line:
        return "", nul_error(line, "the line").reason
    try:
        return str(line, "utf-8"), None
    except UnicodeDecodeError as exc:
        return "", f"invalid UTF-8: {exc.reason} at byte {exc.start}"


def _is_record(value: Any) -> bool:
    """An object holding one of the trajectory keys (``run_id``, ``answer``, ...)."""
    return isinstance(value, dict) and not value.keys().isdisjoint(_TRAJECTORY_KEYS)


def _parse_record(text: str, source: str, line: int, default_id: str | None) -> Trajectory:
    """One JSONL line."""
    try:
        value = _json_value(text)
    except ValueError as exc:
        return Trajectory(scenario_id=default_id, source=source, line=line, error=str(exc))
    found = (
        [Repeat((), r.key, line, line) for r in json_repeats(text) if not r.path]
        if own_keys_may_repeat(text, [value])
        else []
    )
    return _record(value, source, default_id, line=line, repeated=found)


def _record(
    record: Any,
    source: str,
    default_id: str | None,
    *,
    line: int | None = None,
    index: int | None = None,
    repeated: list[Repeat] | None = None,
) -> Trajectory:
    """A trajectory from one decoded record, or one with ``error`` saying why it is none;
    ``repeated``: the keys the record writes twice (relative to it, with their lines)."""
    try:
        if not isinstance(record, dict):
            raise ValueError(f"expected a JSON object, got {type(record).__name__}")
        if not _is_record(record):
            raise ValueError(
                "not a trajectory record (none of " + ", ".join(_TRAJECTORY_KEYS) + ")"
            )
        run_id = _text_field(record, "run_id")
        runner = _text_field(record, "runner")
        model = _text_field(record, "model")
        question = _text_field(record, "question")
        raw_id = record.get("scenario_id")
        scenario_id = default_id if raw_id is None else scalar_text(raw_id, "scenario_id")
    except ValueError as exc:  # the owning scenario, if known, still has this run
        return Trajectory(
            scenario_id=default_id, source=source, line=line, error=str(exc), index=index
        )
    answer = record.get("answer")
    if isinstance(answer, str):  # (CRLF from a Windows agent reads as LF, as a .txt gold does)
        answer = text_lines(answer)
    return Trajectory(
        run_id=run_id,
        scenario_id=scenario_id,
        runner=runner,
        model=model,
        question=question,
        answer=answer,
        trajectory=record.get("trajectory"),
        source=source,
        line=line,
        index=index,
        unscorable=None if "answer" in record else _no_answer(record),
        repeated=record_repeat_note(repeated) if repeated else None,
        repeated_keys=tuple(dict.fromkeys(r.key for r in repeated or ())),
    )


def _no_answer(record: dict[str, Any]) -> str:
    """Why a record without ``answer`` has nothing to score, naming the keys it has."""
    keys = [key if len(key) <= 40 else key[:37] + "..." for key in record]
    near = nearest("answer", [key for key in record if key != "answer"])
    slip = "" if near is None else f"{near!r} is not it, keys are exact; "
    return f"no 'answer' field ({slip}its keys: {few(keys, 10)})"


def _text_field(record: dict[str, Any], name: str) -> str:
    """A string field of a trajectory record; missing or ``null`` is ``""``."""
    value = record.get(name)
    return "" if value is None else scalar_text(value, name)


# --------------------------------------------------------------------------- join


def _owning_loser(
    trajectory: Trajectory,
    used: Scenario,
    slot: int,
    losers_of: Mapping[int, Sequence[int]],
    losers: Sequence[Scenario],
) -> int | None:
    """The losing duplicate (its index) whose own run ``trajectory`` is: a scenario of the
    used one's id that lists its file, when the used one does not (a file both list stays
    the used one's)."""
    owners = trajectory.owners
    if not owners or slot not in losers_of or used.location in owners:
        return None
    return next((i for i in losers_of[slot] if losers[i].location in owners), None)


def join_keys(trajectory: Trajectory) -> list[str]:
    """The keys (:func:`id_key`) a trajectory joins by, in order (see :func:`join`)."""
    if trajectory.scenario_id is not None:
        return [id_key(trajectory.scenario_id)]
    return [id_key(trajectory.stem), id_key(trajectory.run_id)]


def join(scenarios: Sequence[Scenario], trajectories: Sequence[Trajectory]) -> JoinResult:
    """Pair trajectories with scenarios.

    Keys, in order: ``scenario_id`` when the record has one (authoritative: a wrong id is
    reported as unmatched, never re-guessed); otherwise the file stem, then ``run_id``, when
    that names a scenario. Ids compare through :func:`id_key`. With two scenarios of one id
    (folders, file entries, or both) the first in discovery order wins and the other is an
    error entry; the trajectories of files it lists and the first does not (``owners``) are
    its runs, error records that say so, never runs of the first (scored against another
    gold). Runs come out in scenario order, then trajectory order, a losing scenario's last.
    """
    index: dict[str, int] = {}
    kept: list[Scenario] = []
    dup_sources: dict[str, list[str]] = {}
    errors: list[dict[str, Any]] = []
    losers: list[Scenario] = []  # the other scenarios of an id, each with its error
    losers_of: dict[int, list[int]] = {}  # the used scenario's slot -> its losers
    for scenario in scenarios:
        key = id_key(scenario.id)
        if key in index:
            first = kept[index[key]]
            dup_sources.setdefault(key, [first.location]).append(scenario.location)
            message = f"duplicate scenario id {scenario.id!r}: {name_text(first.location)} is used"
            losers_of.setdefault(index[key], []).append(len(losers))
            losers.append(replace(scenario, error=message))
            continue
        index[key] = len(kept)
        kept.append(scenario)
    duplicates = [
        {"kind": "scenario_id", "id": kept[index[key]].id, "sources": sources}
        for key, sources in dup_sources.items()
    ]

    by_scenario: list[list[Trajectory]] = [[] for _ in kept]
    by_loser: list[list[Trajectory]] = [[] for _ in losers]
    unmatched: list[Trajectory] = []
    # (scenario slot, run id, runner, model) -> sources: agents numbering their runs alike
    # (``run01``) are no duplicates of one another
    run_sources: dict[tuple[int, str, str, str], list[str]] = {}
    owned_unread: set[int] = set()  # scenarios owning a trajectory file that failed to load
    repeated = [  # read as the last value says, and listed
        {"source": t.location, "keys": list(t.repeated_keys), "problem": t.repeated}
        for t in trajectories
        if t.repeated is not None and t.error is None
    ]
    for trajectory in trajectories:
        if trajectory.error is not None:
            errors.append({"source": trajectory.location, "error": trajectory.error})
            if trajectory.scenario_id is not None:
                owner = index.get(id_key(trajectory.scenario_id))
                if owner is not None and (
                    _owning_loser(trajectory, kept[owner], owner, losers_of, losers) is None
                ):  # (a losing duplicate's unreadable file is no file of the used one)
                    owned_unread.add(owner)
            continue
        slot = next((index[k] for k in join_keys(trajectory) if k in index), None)
        loser = (
            None if slot is None else _owning_loser(trajectory, kept[slot], slot, losers_of, losers)
        )
        if loser is not None:
            by_loser[loser].append(trajectory)
        elif slot is None:
            unmatched.append(trajectory)
        else:
            by_scenario[slot].append(trajectory)
            if trajectory.run_id:
                run = (slot, trajectory.run_id, trajectory.runner, trajectory.model)
                run_sources.setdefault(run, []).append(trajectory.location)
    duplicates.extend(  # one run id twice in one scenario; run-1 of every scenario is fine
        {
            "kind": "run_id",
            "id": run_id,
            "scenario_id": kept[slot].id,
            "scenario_path": kept[slot].location,
            "sources": sources,
        }
        for (slot, run_id, _, _), sources in run_sources.items()
        if len(sources) > 1
    )

    runs: list[Run] = []
    lonely: list[Scenario] = []
    unread: list[Scenario] = []
    for slot, (scenario, group) in enumerate(zip(kept, by_scenario, strict=True)):
        if not group:
            (unread if slot in owned_unread else lonely).append(scenario)
            if scenario.error is not None:
                errors.append({"source": scenario.location, "error": scenario.error})
            continue
        labels = FirstFree()  # a run id shared within the scenario: -2, -3 ...
        for trajectory in group:
            runs.append(Run(scenario, trajectory, labels(_label_base(trajectory))))
    for scenario, group in zip(losers, by_loser, strict=True):
        if not group:  # its error entry stands for it (it is no scenario of the run)
            errors.append(
                {"source": scenario.location, "error": scenario.error, "scenario_id": scenario.id}
            )
            continue
        labels = FirstFree()
        for trajectory in group:
            runs.append(Run(scenario, trajectory, labels(_label_base(trajectory))))
    return JoinResult(
        runs=tuple(runs),
        unmatched_trajectories=tuple(unmatched),
        unmatched_scenarios=tuple(lonely),
        unread_scenarios=tuple(unread),
        duplicates=tuple(duplicates),
        errors=tuple(errors),
        repeated_keys=tuple(repeated),
        scenario_files=tuple(dict.fromkeys(s.path for s in scenarios if s.entry is not None)),
        scenario_ids=tuple(s.id for s in kept),
    )


def _label_base(trajectory: Trajectory) -> str:
    """What names a run in its scenario before a repeat's suffix: its run id, else its file's
    stem, with its line or index."""
    position = trajectory.line if trajectory.index is None else trajectory.index
    return trajectory.run_id or (
        trajectory.stem if position is None else f"{trajectory.stem}-{position}"
    )


def plan(
    scenario_paths: Iterable[str | os.PathLike[str]],
    trajectory_paths: Iterable[str | os.PathLike[str]] = (),
    *,
    root: str | os.PathLike[str] | None = None,
    reports_dir: str | os.PathLike[str] | None = None,
    inferred: Callable[[str], bool] | None = None,
    skip_folders: Sequence[str] = (),
) -> JoinResult:
    """Discover scenarios, load in-folder and external trajectories, and join them.

    Files that define a scenario (gold, config, schema, question) and in-folder trajectory
    files are never loaded a second time from ``trajectory_paths``. With ``root``, relative
    paths are opened under it and every path string in the result is relative to it (POSIX)
    when the file lies inside; without it, paths are kept as given. Folder walks never enter
    ``reports_dir``: an earlier run's reports look like trajectories (and ``*scenarios.json``
    like scenario files). A ``scenario_<id>`` folder that is the reports folder is broken.

    ``inferred(path)`` (absolute paths) tells where scenarios were only inferred, from pytest's
    arguments, rather than asked for: there a ``scenario_*`` folder holding Python files and
    nothing of a scenario (no gold, config, question or trajectory file, no nested scenario) is
    a folder of tests (``tests/scenario_login/``), not a broken scenario; and a
    ``*scenarios.*`` file that parses and none of whose entries names a gold (or a rubric)
    is test data (``tests/data/login_scenarios.yaml``). Everything else that is broken is
    reported wherever it lies. ``skip_folders``: folder name patterns discovery
    passes by (pytest's ``norecursedirs``).
    """
    scenarios = discover_scenarios(
        scenario_paths,
        root=root,
        reports_dir=reports_dir,
        inferred=inferred,
        skip_folders=skip_folders,
    )
    inner = folder_trajectories(scenarios, root=root)
    owned = list(dict.fromkeys(f for s in scenarios for f in (*s.files, *s.trajectory_files)))
    outer = load_trajectories(trajectory_paths, exclude=owned, root=root, reports_dir=reports_dir)
    return join(scenarios, inner + outer)


# --------------------------------------------------------------------------- scoring


def _schema_read(scenario: Scenario, root: str | None) -> contextlib.AbstractContextManager[None]:
    """The context in which the scenario's schema, read from its file, is that file's: the
    warnings of its parse are located there (at the key's line), as its repeated keys'."""
    if scenario.schema_file is None:
        return contextlib.nullcontext()
    from .schema.tree import schema_read_from

    return schema_read_from(scenario.schema, scenario.schema_file, root, scenario.schema_in)


def score_run(
    scenario: Scenario,
    trajectory: Trajectory,
    *,
    default_scorer: str = DEFAULT_SCORER,
    registry: Registry | None = None,
    nodeid: str | None = None,
    run_id: str | None = None,
    label: str | None = None,
    stops: tuple[type[BaseException], ...] = (),
    root: str | None = None,
    elsewhere: Callable[[str], str] | None = None,
) -> RunRecord:
    """Score one run. Never raises: every failure is a record with ``error`` and ``passed=False``,
    but for a Ctrl-C and the exceptions in ``stops`` (in pytest: ``pytest.exit``'s, which stop
    the session, and ``pytest.skip``'s and ``pytest.fail``'s, which decide the item).

    The scorer is the scenario's ``scorer``/``mode``, else ``default_scorer``, looked up in
    ``registry`` (the default registry when ``None``). The stored answer is ``<think>``-stripped.
    ``run_id`` names the run in the record (default: the trajectory's; see :attr:`Run.run_id`),
    ``label`` its report file (see :class:`~pytest_structeval.report.RunRecord`). The scorer
    gets the answer as the trajectory holds it (the modes strip ``<think>`` blocks as they
    read it: stripping twice can read a text that once stripped differently). ``root``: the
    folder the scenario's paths are relative to, when it is not the current one (its gold
    file is read there again, to locate a warning about the gold). ``elsewhere``: for a
    scorer ``registry`` lacks, where a ``conftest.py`` registers it for another folder only
    (`` ('lenient' is registered by ...)``), added to the error; ``""`` when none does.
    """
    answer = (
        strip_think(trajectory.answer) if isinstance(trajectory.answer, str) else trajectory.answer
    )
    scorer = scenario.scorer or default_scorer
    # (paths on disk as the report shows them: their UTF-8 text under every locale)
    source, scenario_path = name_text(trajectory.location), name_text(scenario.location)

    def record(
        *,
        passed: bool = False,
        score: float = 0.0,
        rationale: str,
        details: dict[str, Any] | None = None,
        error: str | None = None,
        result: ScoreResult | None = None,
        trace: str | None = None,
    ) -> RunRecord:
        return RunRecord(
            scenario_id=scenario.id,
            scenario_type=scenario.type,
            run_id=trajectory.run_id if run_id is None else run_id,
            runner=trajectory.runner,
            model=trajectory.model,
            question=trajectory.question or scenario.question,
            answer=answer,
            scorer=scorer,
            passed=passed,
            score=score,
            rationale=rationale,
            details={} if details is None else details,
            ops=ops_metrics(trajectory.trajectory, trajectory.model),
            error=error,
            source=source,
            scenario_path=scenario_path,
            nodeid=nodeid,
            label=label,
            result=result,
            trace=trace,
        )

    def failed(message: str, trace: str | None = None) -> RunRecord:
        return record(rationale=message, error=message, trace=trace)

    problem = trajectory.error or trajectory.unscorable
    if problem is not None:
        return failed(f"trajectory {source}: {problem}")
    if scenario.error is not None:
        return failed(f"scenario {scenario_path}: {scenario.error}")
    try:
        fn = (registry or default_registry()).get_scorer(scorer)
    except StructevalError as exc:  # the scenario's config names it, when it names one
        said = f"{exc}{elsewhere(scorer) if elsewhere is not None else ''}"
        return failed(said if scenario.scorer is None else f"scenario {scenario_path}: {said}")
    options = dict(scenario.options)
    if registry is not None and takes_registry(fn):
        options["registry"] = registry  # e.g. schema mode looks comparators up there
    if scenario.threshold is not None:
        options["threshold"] = scenario.threshold
    if scenario.schema is not None:
        options["schema"] = scenario.schema
    from .modes import gold_written_at, is_builtin_scorer, warn_gold  # (with the first run)

    what = f"scorer {scorer!r} failed:"
    try:
        locate = functools.partial(scenario.gold_at, root)
        with gold_written_at(scenario.gold, locate, every=is_builtin_scorer(fn), root=root):
            for note in scenario.gold_notes:  # (what the gold's file says of it)
                warn_gold(note, scenario.gold)
            if scenario.schema_notes:
                from .schema.tree import warn_schema_at

                for said, shown, line in scenario.schema_notes:  # (at its path relative
                    warn_schema_at(said, shown, line, root)  # to root, as a gold's is)
            with _schema_read(scenario, root):
                returned: object = fn(scenario.gold, trajectory.answer, **options)  # (a user's)
        if not isinstance(returned, ScoreResult):  # (the scorer's answer: no traceback)
            return failed(
                f"{what} TypeError: returned {type(returned).__name__}, expected ScoreResult"
            )
        result = returned
        if scenario.answer_schema is not None:
            from .answer_schema import with_validity

            try:
                result = with_validity(result, scenario.answer_schema)
            except SchemaError as exc:
                return failed(f"scenario {scenario_path}: answer_schema: {exc}")
        value = result.score
        if isinstance(value, bool) or not (isinstance(value, (int, float)) and 0 <= value <= 1):
            bad = f"returned score {value!r}, expected a number in [0, 1]"  # or NaN
            return failed(f"{what} TypeError: {bad}")
        details = result.to_dict()
    except stops:
        raise
    except (OptionsError, SchemaError) as exc:  # the scenario's options or schema, not the run
        unknown = getattr(exc, "unknown", ())
        if scenario.schema is not None and "schema" in unknown:
            rest = f"; options for {scorer!r}: {exc}" if len(unknown) > 1 else ""
            return failed(  # (a key of the config, not of its options)
                f"scenario {scenario_path}: scenario config: schema is read by the schema "
                f"scorer only, and scorer {scorer!r} scores this scenario (say scorer: schema)"
                + rest
            )
        kind = "schema" if isinstance(exc, SchemaError) else f"options for {scorer!r}"
        return failed(f"scenario {scenario_path}: {kind}: {exc}")
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # a scorer bug, a gold limit, a sys.exit, a pytest.fail
        # outside pytest: the other runs go on
        raised = _raised_warning(exc, scenario_path)
        if raised is not None:  # the gold's or the schema's warning: no scorer's failure
            return failed(raised)
        return failed(f"{what} {_said(exc)}", _trace(exc))
    passed = bool(result.passed)
    return record(
        passed=passed,
        score=float(result.score),
        rationale=result.reason or result.error or ("passed" if passed else "failed"),
        details=details,
        result=result,
    )
