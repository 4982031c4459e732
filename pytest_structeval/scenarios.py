"""Scenario folders, saved trajectories, and the rules that join them into runs.

A *scenario* is a ``scenario_<id>/`` folder holding the gold answer; a *trajectory* is one saved
agent run (JSON or JSONL) naming the scenario it answered. :func:`plan` discovers both and joins
them; :func:`score_run` scores one joined pair. The pytest collector and ``structeval evaluate``
both go through these two functions, so they produce the same runs and the same reports.

Nothing is dropped silently: a broken file becomes an error entry or an error run, and every
trajectory or scenario left without a partner is listed in :class:`JoinResult`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

from .errors import StructevalError
from .ops import ops_metrics
from .parse import DEFAULT_MAX_BYTES, strip_think
from .registry import Registry, default_registry
from .report import RunRecord
from .results import ScoreResult

__all__ = [
    "DEFAULT_SCORER",
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
    "plan",
    "score_run",
]

DEFAULT_SCORER: Final = "static_json"
MAX_TRAJECTORY_BYTES: Final = 100_000_000
"""A trajectory file larger than this is an error entry instead of being read into memory."""

_SCENARIO_DIR = re.compile(r"scenario_(.+)", re.IGNORECASE | re.DOTALL)
_GOLD_FILES: Final = ("groundtruth.json", "groundtruth.yaml", "groundtruth.yml", "groundtruth.txt")
_CONFIG_FILES: Final = ("scenario.yaml", "scenario.yml", "scenario.json")
_QUESTION_FILE: Final = "question.txt"
_RUBRIC_FILE: Final = "characteristic_form.txt"
_MARKERS: Final = frozenset({*_GOLD_FILES, *_CONFIG_FILES, _QUESTION_FILE, _RUBRIC_FILE})
_TRAJECTORY_DIR: Final = "trajectories"
_TRAJECTORY_FILE = re.compile(r"trajectory.*\.jsonl?", re.IGNORECASE | re.DOTALL)
_TRAJECTORY_KEYS: Final = ("run_id", "scenario_id", "answer", "trajectory")
_DIGITS = re.compile(r"[0-9]+")
_DIGIT_RUNS = re.compile(r"([0-9]+)")
_SKIP_DIRS: Final = frozenset({"__pycache__", "node_modules"})


# --------------------------------------------------------------------------- data types


@dataclass(frozen=True, slots=True)
class Scenario:
    """One scenario folder: its gold answer and how to score it.

    ``gold`` is the raw text of ``groundtruth.txt`` (the scorer parses it, like any answer) or
    the parsed value of ``groundtruth.json``/``.yaml``. ``error`` set means the folder is
    broken or has no gold: each of its runs becomes an error record with that message.
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
    error: str | None = None
    files: tuple[str, ...] = ()
    trajectory_files: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Trajectory:
    """One saved agent run. ``answer`` is text, or a value that is already parsed."""

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

    @property
    def location(self) -> str:
        """``file`` or ``file:line`` (JSONL), for messages and reports."""
        return self.source if self.line is None else f"{self.source}:{self.line}"

    @property
    def stem(self) -> str:
        """The file name without its suffix: the join key when ``scenario_id`` is missing."""
        return Path(self.source).stem


@dataclass(frozen=True, slots=True)
class Run:
    """One (scenario, trajectory) pair: one test item. ``label`` is unique within the scenario."""

    scenario: Scenario
    trajectory: Trajectory
    label: str


@dataclass(frozen=True, slots=True)
class JoinResult:
    """Runs to score plus everything that did not join, so nothing disappears unreported."""

    runs: tuple[Run, ...] = ()
    unmatched_trajectories: tuple[Trajectory, ...] = ()
    unmatched_scenarios: tuple[Scenario, ...] = ()
    duplicates: tuple[dict[str, Any], ...] = ()
    errors: tuple[dict[str, Any], ...] = ()

    def notes(self) -> dict[str, Any]:
        """Plain data for :meth:`pytest_structeval.report.Aggregate.note`."""
        return {
            "unmatched_trajectories": [
                {"source": t.location, "run_id": t.run_id, "scenario_id": t.scenario_id}
                for t in self.unmatched_trajectories
            ],
            "unmatched_scenarios": [
                {"id": s.id, "path": s.path, "error": s.error} for s in self.unmatched_scenarios
            ],
            "duplicates": [dict(d) for d in self.duplicates],
            "errors": [dict(e) for e in self.errors],
        }


# --------------------------------------------------------------------------- helpers


def id_key(raw: str) -> str:
    """Normalise a scenario id for joining.

    A ``scenario_`` prefix (any case) is dropped, and every ``/``-separated segment made only
    of ASCII digits loses its leading zeros (``011`` -> ``11``, ``4/turns/02`` -> ``4/turns/2``).
    Anything else compares exactly: ``SGT-001`` never joins ``SGT-1``.
    """
    text = raw.strip()
    match = _SCENARIO_DIR.fullmatch(text)
    if match:
        text = match.group(1)
    segments = [
        (seg.lstrip("0") or "0") if _DIGITS.fullmatch(seg) else seg for seg in text.split("/")
    ]
    return "/".join(segments)


def _natural_key(name: str) -> tuple[tuple[Any, ...], str]:
    """Sort ``scenario_2`` before ``scenario_10``; ties fall back to the exact name."""
    parts = _DIGIT_RUNS.split(name.casefold())  # text, digits, text, ..., text
    key = tuple(
        part if i % 2 == 0 else (len(part.lstrip("0")), part.lstrip("0"))
        for i, part in enumerate(parts)
    )
    return key, name


def _read_text(path: str, limit: int) -> str:
    """UTF-8 text of ``path`` (BOM dropped); ``ValueError`` when over ``limit`` bytes.

    One open and one ``fstat``: discovery reads thousands of small files.
    """
    with open(path, "rb", buffering=0) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise ValueError(f"{size} bytes, over the {limit} byte limit")
        return handle.read().decode("utf-8-sig")


def _json_value(text: str) -> Any:
    """``json.loads`` with exact integers; deep nesting and digit limits become ``ValueError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON: {exc}") from None


def _yaml_value(text: str) -> Any:
    """``yaml.safe_load`` made JSON-shaped: dates become ISO strings, aliases are refused.

    Aliases are refused because a shared subtree is walked once per reference when scoring
    (the "billion laughs" blow-up); no gold file needs them.
    """
    try:
        loaded = yaml.safe_load(text)
    except RecursionError:
        raise ValueError("invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid YAML: {exc}") from None
    root: list[Any] = [None]
    seen: set[int] = set()
    stack: list[tuple[Any, Any, Any]] = [(loaded, root, 0)]
    while stack:
        item, parent, slot = stack.pop()
        if isinstance(item, (dict, list)):
            if id(item) in seen:
                raise ValueError("YAML aliases (*ref) are not supported")
            seen.add(id(item))
        if isinstance(item, dict):
            out: dict[Any, Any] = {}
            parent[slot] = out
            for key, value in item.items():
                stack.append((value, out, key))
        elif isinstance(item, list):
            seq: list[Any] = [None] * len(item)
            parent[slot] = seq
            stack.extend((value, seq, i) for i, value in enumerate(item))
        elif isinstance(item, (_dt.date, _dt.datetime)):
            parent[slot] = item.isoformat()
        else:
            parent[slot] = item
    return root[0]


def _structured(path: str, limit: int) -> Any:
    """A JSON or YAML file (by suffix) as a value."""
    text = _read_text(path, limit)
    if not text.strip():
        raise ValueError("file is empty")
    if os.path.splitext(path)[1].lower() == ".json":
        return _json_value(text)
    return _yaml_value(text)


def _scalar_text(value: Any, name: str) -> str:
    """A string field that may arrive as a number; containers and bools are errors."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"{name} must be a string, got {type(value).__name__}")


def _join(folder: str, name: str) -> str:
    """``str(Path(folder) / name)`` for a plain file name, without building paths."""
    return name if folder == os.curdir else os.path.join(folder, name)


@dataclass(frozen=True, slots=True)
class _Root:
    """Where relative inputs live and how paths are shown.

    Without a base, paths are opened and shown as given. With one (the plugin passes pytest's
    rootdir), relative inputs are opened under it and every path in the output is shown POSIX
    style relative to it when it lies inside, so workers with different working directories
    produce identical records.
    """

    base: str | None = None

    @classmethod
    def of(cls, root: str | os.PathLike[str] | None) -> _Root:
        return cls(None if root is None else os.path.abspath(root))

    def open(self, raw: str | os.PathLike[str]) -> Path:
        path = Path(raw)
        return path if self.base is None or path.is_absolute() else Path(self.base) / path

    def show(self, path: str | os.PathLike[str]) -> str:
        if self.base is None:
            return os.fspath(path)
        full = os.path.normpath(os.path.join(self.base, path))
        try:
            relative = os.path.relpath(full, self.base)
        except ValueError:  # another drive (Windows)
            return Path(full).as_posix()
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return Path(full).as_posix()
        return Path(relative).as_posix()

    def locate(self, shown: str) -> str:
        """Where to open a path that :meth:`show` named (its inverse, as a string)."""
        if self.base is None or os.path.isabs(shown):
            return shown
        return os.path.join(self.base, shown)

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
    files: dict[str, str]  # casefolded name -> name
    subdirs: list[str]  # names


def _list_dir(path: str, shown: str, visited: set[tuple[int, int]]) -> _Dir | None:
    """Files and subfolders of ``path``, sorted naturally; ``None`` for a symlink loop."""
    stat = os.stat(path)
    ident = (stat.st_dev, stat.st_ino)
    if ident in visited:
        return None
    visited.add(ident)
    with os.scandir(path) as scan:
        entries = [entry for entry in scan if not entry.name.startswith(".")]
    if len(entries) > 1:
        entries.sort(key=lambda e: _natural_key(e.name))
    files: dict[str, str] = {}
    subdirs: list[str] = []
    for entry in entries:
        if entry.is_dir():
            if entry.name not in _SKIP_DIRS:
                subdirs.append(entry.name)
        elif entry.is_file() or entry.is_symlink():  # a dangling link is reported on read
            files.setdefault(entry.name.casefold(), entry.name)
    return _Dir(path, shown, files, subdirs)


def _walk_files(
    root: str, shown: str, where: _Root, suffixes: tuple[str, ...]
) -> Iterator[tuple[str, str, str | None]]:
    """``(file, shown, None)`` for files under ``root`` with one of ``suffixes``, and
    ``(folder, shown, error)`` for folders that cannot be listed. Recursive; files and folders
    interleave in natural order (``a/``, ``b.json``, ``c/``); symlink loops are visited once."""
    visited: set[tuple[int, int]] = set()
    stack: list[tuple[str, str, bool]] = [(root, shown, True)]
    while stack:
        path, label, is_dir = stack.pop()
        if not is_dir:
            yield path, label, None
            continue
        try:
            listing = _list_dir(path, label, visited)
        except OSError as exc:
            yield path, label, f"cannot list folder: {exc}"
            continue
        if listing is None:
            continue
        names = [(n, False) for n in listing.files.values() if n.lower().endswith(suffixes)]
        names += [(n, True) for n in listing.subdirs]
        names.sort(key=lambda child: _natural_key(child[0]), reverse=True)
        stack.extend((_join(path, n), where.child(label, n), is_dir) for n, is_dir in names)


def discover_scenarios(
    paths: Iterable[str | os.PathLike[str]], *, root: str | os.PathLike[str] | None = None
) -> list[Scenario]:
    """Every scenario under ``paths``, recursively, in a deterministic (natural) order.

    ``scenario_<id>/`` folders (prefix in any case) are scenarios; inside one, any subfolder
    holding a ``groundtruth.*``, ``question.txt``, ``scenario.*`` or ``characteristic_form.txt``
    is a scenario too, with id ``<parent id>/<relative path>`` (``4/turns/02``). A
    ``trajectories/`` subfolder holds trajectories, never scenarios. ``root``: see :func:`plan`.
    A missing or non-directory path raises ``FileNotFoundError``/``NotADirectoryError``.
    """
    where = _Root.of(root)
    found: list[Scenario] = []
    for raw in paths:
        start = where.open(raw)
        if not start.exists():
            raise FileNotFoundError(f"scenario path does not exist: {os.fspath(raw)}")
        if not start.is_dir():
            raise NotADirectoryError(f"scenario path is not a directory: {os.fspath(raw)}")
        found.extend(_scan(start, where))
    return found


def _scan(start: Path, where: _Root) -> list[Scenario]:
    """Pre-order walk. Stack items: (folder, shown, name, id prefix or None outside a scenario
    tree, finish marker)."""
    out: list[Scenario] = []
    visited: set[tuple[int, int]] = set()
    # A "finish" entry re-checks a marker-less scenario_ folder once its subtree is done.
    stack: list[tuple[str, str, str, str | None, int | None]] = [
        (os.fspath(start), where.show(start), start.name, None, None)
    ]
    while stack:
        path, shown, name, prefix, finish_from = stack.pop()
        if finish_from is not None:
            if len(out) == finish_from:  # no nested scenario: report the folder, don't drop it
                message = _no_gold_message({})
                out.append(Scenario(id=prefix or name, path=shown, error=message))
            continue
        sid = prefix
        if prefix is None:
            match = _SCENARIO_DIR.fullmatch(name)
            sid = match.group(1) if match else None
        try:
            listing = _list_dir(path, shown, visited)
        except OSError as exc:  # reported as a broken scenario, even outside scenario_ folders
            out.append(Scenario(id=sid or shown, path=shown, error=f"cannot list folder: {exc}"))
            continue
        if listing is None:
            continue
        children = listing.subdirs
        if sid is not None:
            children = [c for c in children if c != _TRAJECTORY_DIR]
            if _MARKERS.intersection(listing.files):
                out.append(_load_scenario(listing, sid, where))
            elif prefix is None:
                stack.append((path, shown, name, sid, len(out)))
        for child in reversed(children):
            stack.append(
                (
                    _join(path, child),
                    where.child(shown, child),
                    child,
                    None if sid is None else f"{sid}/{child}",
                    None,
                )
            )
    return out


def _no_gold_message(files: Mapping[str, str]) -> str:
    message = "no groundtruth.* in folder"
    if _RUBRIC_FILE in files:
        message += f" ({_RUBRIC_FILE} is a rubric for a judge, not gold)"
    return message


def _load_scenario(listing: _Dir, sid: str, where: _Root) -> Scenario:
    """Read one scenario folder; every problem is collected into ``error``, never raised."""
    files = listing.files
    errors: list[str] = []
    used: list[str] = []  # shown paths of the files that define the scenario

    def at(name: str) -> str:
        return _join(listing.path, name)

    def use(name: str) -> None:
        used.append(where.child(listing.shown, name))

    config: Mapping[str, Any] = {}
    config_files = [files[n] for n in _CONFIG_FILES if n in files]
    if len(config_files) > 1:
        errors.append("several config files: " + ", ".join(config_files))
    elif config_files:
        use(config_files[0])
        try:
            loaded = _structured(at(config_files[0]), DEFAULT_MAX_BYTES)
        except (OSError, ValueError) as exc:
            errors.append(f"{config_files[0]}: {exc}")
        else:
            if isinstance(loaded, Mapping):
                config = loaded
            else:
                errors.append(f"{config_files[0]}: must be a mapping, got {type(loaded).__name__}")

    settings = _settings(config, listing.path, errors, used, where)
    options: Mapping[str, Any] = settings["options"]
    max_bytes = options.get("max_bytes", DEFAULT_MAX_BYTES)
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool):
        max_bytes = DEFAULT_MAX_BYTES

    question = ""
    if _QUESTION_FILE in files:
        use(files[_QUESTION_FILE])
        try:
            question = _read_text(at(files[_QUESTION_FILE]), DEFAULT_MAX_BYTES).strip()
        except (OSError, ValueError) as exc:
            errors.append(f"{_QUESTION_FILE}: {exc}")
    else:
        for key in ("question", "text"):
            if isinstance(config.get(key), str):
                question = config[key].strip()
                break
    if _RUBRIC_FILE in files:
        use(files[_RUBRIC_FILE])

    gold = _gold(listing, where, config, max_bytes, errors, used)
    trajectory_files = [
        where.child(listing.shown, name)
        for folded, name in files.items()
        if _TRAJECTORY_FILE.fullmatch(folded)
    ]
    if _TRAJECTORY_DIR in listing.subdirs:
        found = _walk_files(
            at(_TRAJECTORY_DIR),
            where.child(listing.shown, _TRAJECTORY_DIR),
            where,
            (".json", ".jsonl"),
        )
        for _, shown, problem in found:
            if problem is None:
                trajectory_files.append(shown)
            else:
                errors.append(f"{shown}: {problem}")
    return Scenario(
        id=sid,
        path=listing.shown,
        gold=gold,
        question=question,
        type=settings["type"],
        scorer=settings["scorer"],
        options=options,
        threshold=settings["threshold"],
        schema=settings["schema"],
        error="; ".join(errors) or None,
        files=tuple(used),
        trajectory_files=tuple(trajectory_files),
    )


def _gold(
    listing: _Dir,
    where: _Root,
    config: Mapping[str, Any],
    max_bytes: int,
    errors: list[str],
    used: list[str],
) -> Any:
    """The gold: a ``groundtruth.*`` file, else config ``ground_truth``/``expected_answer``."""
    files = listing.files
    gold_files = [files[n] for n in _GOLD_FILES if n in files]
    used.extend(where.child(listing.shown, name) for name in gold_files)
    if len(gold_files) > 1:
        errors.append("several gold files: " + ", ".join(gold_files))
        return None
    if gold_files:
        name = gold_files[0]
        path = _join(listing.path, name)
        try:
            if os.path.splitext(name)[1].lower() == ".txt":
                text = _read_text(path, max_bytes).strip()
                if not text:
                    raise ValueError("file is empty")
                return text
            return _structured(path, max_bytes)
        except (OSError, ValueError) as exc:
            errors.append(f"{name}: {exc}")
            return None
    for key in ("ground_truth", "expected_answer"):
        if config.get(key) is not None:
            return config[key]
    errors.append(_no_gold_message(files))
    return None


def _settings(
    config: Mapping[str, Any], folder: str, errors: list[str], used: list[str], where: _Root
) -> dict[str, Any]:
    """Scorer, options, threshold, schema and type from a scenario config; unknown keys ignored."""
    scorer = config.get("scorer")
    mode = config.get("mode")
    if scorer is not None and mode is not None and scorer != mode:
        errors.append(f"scenario config: scorer {scorer!r} and mode {mode!r} disagree")
    name = scorer if scorer is not None else mode
    if name is not None and (not isinstance(name, str) or not name):
        errors.append(f"scenario config: scorer must be a non-empty string, got {name!r}")
        name = None

    options = config.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        errors.append("scenario config: options must be a mapping with string keys")
        options = {}

    threshold = config.get("threshold")
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, (int, float))
    ):
        errors.append(f"scenario config: threshold must be a number, got {threshold!r}")
        threshold = None

    schema = config.get("schema")
    if isinstance(schema, str):
        schema_path = Path(folder) / schema
        used.append(where.show(schema_path))
        try:
            schema = _structured(os.fspath(schema_path), DEFAULT_MAX_BYTES)
        except (OSError, ValueError) as exc:
            errors.append(f"schema {schema}: {exc}")
            schema = None
    elif schema is not None and not isinstance(schema, Mapping):
        errors.append("scenario config: schema must be a file name or a mapping")
        schema = None

    kind = config.get("type")
    try:
        kind = None if kind is None else _scalar_text(kind, "type")
    except ValueError as exc:
        errors.append(f"scenario config: {exc}")
        kind = None
    return {
        "scorer": name,
        "options": dict(options),
        "threshold": None if threshold is None else float(threshold),
        "schema": schema,
        "type": kind,
    }


# --------------------------------------------------------------------------- trajectories


def load_trajectories(
    paths: Iterable[str | os.PathLike[str]],
    *,
    exclude: Collection[str] = (),
    root: str | os.PathLike[str] | None = None,
) -> list[Trajectory]:
    """Trajectories from ``.json`` (one object) and ``.jsonl`` (one per line) files.

    Directories are searched recursively in natural order. Files in ``exclude`` (compared by
    resolved path) are skipped: :func:`plan` uses it for scenario config and gold files.
    Unreadable files and bad lines become ``Trajectory(error=...)`` entries; a missing path
    raises ``FileNotFoundError`` (a usage error). ``root``: see :func:`plan`.
    """
    where = _Root.of(root)
    skip: set[str] | None = None  # resolved lazily: most runs pass no trajectory paths
    out: list[Trajectory] = []
    for raw in paths:
        start = where.open(raw)
        if not start.exists():
            raise FileNotFoundError(f"trajectory path does not exist: {os.fspath(raw)}")
        if skip is None:
            skip = {os.path.realpath(where.open(p)) for p in exclude}
        shown = where.show(start)
        if start.is_file():
            found: Iterable[tuple[str, str, str | None]] = [(os.fspath(start), shown, None)]
        else:
            found = _walk_files(os.fspath(start), shown, where, (".json", ".jsonl"))
        for path, label, problem in found:
            if problem is not None:
                out.append(Trajectory(source=label, error=problem))
            elif not (skip and os.path.realpath(path) in skip):
                out.extend(_load_file(path, label, None))
    return out


def folder_trajectories(
    scenarios: Iterable[Scenario], *, root: str | os.PathLike[str] | None = None
) -> list[Trajectory]:
    """Trajectories kept in scenario folders; one without ``scenario_id`` gets the folder id."""
    where = _Root.of(root)
    out: list[Trajectory] = []
    for scenario in scenarios:
        for source in scenario.trajectory_files:
            out.extend(_load_file(where.locate(source), source, scenario.id))
    return out


def _load_file(path: str, source: str, default_id: str | None) -> list[Trajectory]:
    """The records of one trajectory file opened at ``path`` and named ``source``."""
    try:
        content = _read_text(path, MAX_TRAJECTORY_BYTES)
    except (OSError, ValueError) as exc:
        return [Trajectory(source=source, error=f"cannot read trajectory file: {exc}")]
    suffix = os.path.splitext(path)[1].lower()
    if suffix == ".jsonl":
        out = []
        for number, line in enumerate(content.split("\n"), start=1):
            if line.strip():
                out.append(_parse_record(line, source, number, default_id))
        return out
    if suffix != ".json":
        return [Trajectory(source=source, error="not a .json or .jsonl file")]
    return [_parse_record(content, source, None, default_id)]


def _parse_record(text: str, source: str, line: int | None, default_id: str | None) -> Trajectory:
    try:
        record = _json_value(text)
        if not isinstance(record, dict):
            raise ValueError(f"expected a JSON object, got {type(record).__name__}")
        if not any(key in record for key in _TRAJECTORY_KEYS):
            raise ValueError(
                "not a trajectory record (none of " + ", ".join(_TRAJECTORY_KEYS) + ")"
            )
        strings = {
            name: "" if record.get(name) is None else _scalar_text(record[name], name)
            for name in ("run_id", "runner", "model", "question")
        }
        raw_id = record.get("scenario_id")
        scenario_id = default_id if raw_id is None else _scalar_text(raw_id, "scenario_id")
    except ValueError as exc:
        return Trajectory(source=source, line=line, error=str(exc))
    return Trajectory(
        run_id=strings["run_id"],
        scenario_id=scenario_id,
        runner=strings["runner"],
        model=strings["model"],
        question=strings["question"],
        answer=record.get("answer"),
        trajectory=record.get("trajectory"),
        source=source,
        line=line,
    )


# --------------------------------------------------------------------------- join


def join(scenarios: Sequence[Scenario], trajectories: Sequence[Trajectory]) -> JoinResult:
    """Pair trajectories with scenarios.

    Keys, in order: ``scenario_id`` when the record has one (authoritative: a wrong id is
    reported as unmatched, never re-guessed); otherwise the file stem, then ``run_id``, when
    that names a scenario. Ids compare through :func:`id_key`. With two folders of one id the
    first (sorted) wins and the other is an error entry. Runs come out in scenario order, then
    trajectory order.
    """
    index: dict[str, int] = {}
    kept: list[Scenario] = []
    dup_sources: dict[str, list[str]] = {}
    errors: list[dict[str, Any]] = []
    for scenario in scenarios:
        key = id_key(scenario.id)
        if key in index:
            first = kept[index[key]]
            dup_sources.setdefault(key, [first.path]).append(scenario.path)
            errors.append(
                {
                    "source": scenario.path,
                    "error": f"duplicate scenario id {scenario.id!r}: {first.path} is used",
                }
            )
            continue
        index[key] = len(kept)
        kept.append(scenario)
    duplicates = [
        {"kind": "scenario_id", "id": kept[index[key]].id, "sources": sources}
        for key, sources in dup_sources.items()
    ]

    by_scenario: list[list[Trajectory]] = [[] for _ in kept]
    unmatched: list[Trajectory] = []
    run_sources: dict[str, list[str]] = {}
    for trajectory in trajectories:
        if trajectory.error is not None:
            errors.append({"source": trajectory.location, "error": trajectory.error})
            continue
        if trajectory.run_id:
            run_sources.setdefault(trajectory.run_id, []).append(trajectory.location)
        if trajectory.scenario_id is not None:
            candidates = [trajectory.scenario_id]
        else:
            candidates = [trajectory.stem, trajectory.run_id]
        slot = next((index[k] for k in map(id_key, candidates) if k in index), None)
        if slot is None:
            unmatched.append(trajectory)
        else:
            by_scenario[slot].append(trajectory)
    duplicates.extend(
        {"kind": "run_id", "id": run_id, "sources": sources}
        for run_id, sources in run_sources.items()
        if len(sources) > 1
    )

    runs: list[Run] = []
    lonely: list[Scenario] = []
    for scenario, group in zip(kept, by_scenario, strict=True):
        if not group:
            lonely.append(scenario)
            if scenario.error is not None:
                errors.append({"source": scenario.path, "error": scenario.error})
            continue
        labels: set[str] = set()
        for trajectory in group:
            label = _label(trajectory, labels)
            runs.append(Run(scenario, trajectory, label))
    return JoinResult(
        runs=tuple(runs),
        unmatched_trajectories=tuple(unmatched),
        unmatched_scenarios=tuple(lonely),
        duplicates=tuple(duplicates),
        errors=tuple(errors),
    )


def _label(trajectory: Trajectory, taken: set[str]) -> str:
    base = trajectory.run_id or (
        trajectory.stem if trajectory.line is None else f"{trajectory.stem}-{trajectory.line}"
    )
    label, n = base, 1
    while label in taken:
        n += 1
        label = f"{base}-{n}"
    taken.add(label)
    return label


def plan(
    scenario_paths: Iterable[str | os.PathLike[str]],
    trajectory_paths: Iterable[str | os.PathLike[str]] = (),
    *,
    root: str | os.PathLike[str] | None = None,
) -> JoinResult:
    """Discover scenarios, load in-folder and external trajectories, and join them.

    Files that define a scenario (gold, config, schema, question) and in-folder trajectory
    files are never loaded a second time from ``trajectory_paths``. With ``root``, relative
    paths are opened under it and every path string in the result is relative to it (POSIX)
    when the file lies inside; without it, paths are kept as given.
    """
    scenarios = discover_scenarios(scenario_paths, root=root)
    inner = folder_trajectories(scenarios, root=root)
    owned = [f for s in scenarios for f in (*s.files, *s.trajectory_files)]
    outer = load_trajectories(trajectory_paths, exclude=owned, root=root)
    return join(scenarios, inner + outer)


# --------------------------------------------------------------------------- scoring


def score_run(
    scenario: Scenario,
    trajectory: Trajectory,
    *,
    default_scorer: str = DEFAULT_SCORER,
    registry: Registry | None = None,
    nodeid: str | None = None,
) -> RunRecord:
    """Score one run. Never raises: every failure is a record with ``error`` and ``passed=False``.

    The scorer is the scenario's ``scorer``/``mode``, else ``default_scorer``, looked up in
    ``registry`` (the default registry when ``None``). The stored answer is ``<think>``-stripped.
    """
    answer = (
        strip_think(trajectory.answer) if isinstance(trajectory.answer, str) else trajectory.answer
    )
    scorer = scenario.scorer or default_scorer

    def record(
        *,
        passed: bool = False,
        score: float = 0.0,
        rationale: str,
        details: dict[str, Any] | None = None,
        error: str | None = None,
        result: ScoreResult | None = None,
    ) -> RunRecord:
        return RunRecord(
            scenario_id=scenario.id,
            scenario_type=scenario.type,
            run_id=trajectory.run_id,
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
            source=trajectory.location,
            scenario_path=scenario.path,
            nodeid=nodeid,
            result=result,
        )

    def failed(message: str) -> RunRecord:
        return record(rationale=message, error=message)

    if trajectory.error is not None:
        return failed(f"trajectory {trajectory.location}: {trajectory.error}")
    if scenario.error is not None:
        return failed(f"scenario {scenario.path}: {scenario.error}")
    try:
        fn = (registry or default_registry()).get_scorer(scorer)
    except StructevalError as exc:
        return failed(str(exc))
    options = dict(scenario.options)
    if scenario.threshold is not None:
        options["threshold"] = scenario.threshold
    if scenario.schema is not None:
        options["schema"] = scenario.schema
    try:
        result = fn(scenario.gold, answer, **options)
        if not isinstance(result, ScoreResult):
            raise TypeError(f"returned {type(result).__name__}, expected ScoreResult")
        details = result.to_dict()
    except Exception as exc:  # a scorer bug or a gold limit must not stop the other runs
        return failed(f"scorer {scorer!r} failed: {type(exc).__name__}: {exc}")
    passed = bool(result.passed)
    return record(
        passed=passed,
        score=float(result.score),
        rationale=result.reason or result.error or ("passed" if passed else "failed"),
        details=details,
        result=result,
    )
