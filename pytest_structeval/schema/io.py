"""Load an evaluation schema from a JSON or YAML file (or take one already in memory)."""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from pathlib import Path
from typing import Any, Final, Generic, TypeVar

from ..errors import LimitError, SchemaError, hide_usage_error
from ..files import MAX_DEPTH, utf8_text
from ..parse import check_json_depth, decimal_number
from ..repeats import Repeat, json_repeats, schema_repeat_note
from ..yamlvalue import yaml_value
from .tree import Noted, noting_warnings, warn_schema_at

__all__ = [
    "MAX_KEY_SIZE",
    "Kept",
    "file_bytes",
    "kept_schema_file",
    "load_schema",
    "repeat_note",
    "schema_from_bytes",
]

MAX_KEY_SIZE: Final = 65_536
"""Characters or bytes of content a :class:`Kept` key may hold: a larger schema (or gold) is
read anew at each use, so kept keys stay small."""
_T = TypeVar("_T")

#: Keys of a JSONSchemaBench file: ``{"description", "meta", "schema", "tests"}``.
_WRAPPER_KEYS = frozenset({"description", "meta", "schema", "tests"})


def load_schema(source: str | os.PathLike[str] | Mapping[str, Any]) -> Mapping[str, Any]:
    """Read a schema from ``.json``/``.yaml``/``.yml`` or return the given mapping.

    A JSONSchemaBench wrapper (``{description, meta, schema, tests}``) yields its ``schema``.
    YAML is read as gold files are (:func:`yaml_value`: ``yaml.safe_load`` with YAML 1.2's
    core scalars, dates as written, aliases expanded within a bound, so an alias bomb is an
    error, not a hang). Unreadable or malformed files raise ``SchemaError``.
    A mapping is returned as is (not copied).
    """
    if isinstance(source, Mapping):
        return _unwrap(source, "schema")
    path = Path(source)
    _check_suffix(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SchemaError(f"{path}: cannot read schema: {exc}") from exc
    return schema_from_bytes(data, path)


def kept_schema_file(path: str | os.PathLike[str]) -> Mapping[str, Any]:
    """:func:`load_schema` of a schema file, parsed once for as long as its bytes stay the
    same: the file is read at each use (its bytes are the key, so a file edited between two
    uses is parsed again) and a warning its parse gave at its own line (a key written twice)
    is given again at each use. The schema is shared between uses: do not change it."""
    __tracebackhide__ = hide_usage_error
    data = file_bytes(path)
    if data is None:
        return load_schema(path)  # (says why it cannot be read)
    suffix = _check_suffix(Path(path))
    key = ("file", suffix, data) if len(data) <= MAX_KEY_SIZE else None
    return _files.get(key, os.fspath(path), lambda: schema_from_bytes(data, path))


def file_bytes(path: str | os.PathLike[str]) -> bytes | None:
    """A schema file's bytes, read once for both a :class:`Kept` key and the parse; None when
    it is not a readable regular file (the loader then says why, and a FIFO never blocks)."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


class Kept(Generic[_T]):
    """The last ``size`` values made from schemas (a file's parsed schema, a parsed schema
    tree), under what they are made of, so that many answers checked against one schema make
    it once. A value whose making warned at a file's own line (a key written twice) is kept
    with that warning, given again at each use, as making it gives it (the filters in force
    decide whether it shows), for the same path only (the warning names the file: the same
    bytes elsewhere are made again for their own path); one whose making warned at the
    caller's line (an unknown ``x-eval-*`` key) is not kept, so it warns at every use, at
    that use's line."""

    def __init__(self, size: int = 128) -> None:
        self._size = size
        # each value, with the warnings its making gave at its file and the path it was
        # given as (they name it)
        self._kept: OrderedDict[Hashable, tuple[_T, tuple[Noted, ...], str | None]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: Hashable | None, path: str | None, make: Callable[[], _T]) -> _T:
        """The value kept under ``key`` (``path``: the file it was read from, if any), else
        ``make()``'s, kept unless ``key`` is None."""
        __tracebackhide__ = hide_usage_error
        if key is not None:
            with self._lock:
                kept = self._kept.get(key)
                if kept is not None:
                    self._kept.move_to_end(key)
            if kept is not None and (not kept[1] or kept[2] == path):
                for message, filename, lineno, root in kept[1]:
                    warn_schema_at(message, filename or "", lineno, root)
                return kept[0]
        with noting_warnings() as warned:
            value = make()
        if key is not None and all(filename is not None for _, filename, _, _ in warned):
            with self._lock:
                self._kept[key] = (value, tuple(warned), path)
                if len(self._kept) > self._size:
                    self._kept.popitem(last=False)
        return value


_files: Kept[Mapping[str, Any]] = Kept()


def schema_from_bytes(data: bytes, path: str | os.PathLike[str]) -> Mapping[str, Any]:
    """:func:`load_schema` of a file whose bytes the caller has read (``path`` picks the
    reader by its suffix and names the file in errors)."""
    path = Path(path)
    suffix = _check_suffix(path)
    repeated: list[Repeat] = []
    try:
        text = utf8_text(data)  # a BOM dropped, as from every file read
        loaded = (  # a number past the float range is the integer it writes, as in YAML
            json.loads(text, parse_float=decimal_number)
            if suffix == ".json"
            else yaml_value(text, repeated=repeated)
        )
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{path}: cannot read schema: {exc}") from exc
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        problem = str(exc).removeprefix("invalid YAML: ")
        raise SchemaError(f"{path}: malformed {suffix[1:].upper()}: {problem}") from exc
    except RecursionError as exc:
        raise SchemaError(f"{path}: nested too deeply for the {suffix[1:].upper()} reader") from exc
    if suffix == ".json":  # YAML's bound (yaml_value keeps it): json's own is the interpreter's
        try:
            check_json_depth(loaded, MAX_DEPTH)
        except LimitError as exc:
            raise SchemaError(f"{path}: nested too deeply for the JSON reader") from exc
    if not isinstance(loaded, Mapping):
        raise SchemaError(f"{path}: a schema file must hold an object, got {type(loaded).__name__}")
    schema = _unwrap(loaded, str(path))
    if suffix == ".json":  # (json.loads keeps a repeated key's last value, unsaid)
        repeated = json_repeats(text)
    note = repeat_note(repeated, loaded, str(path))
    if note is not None:
        warn_schema_at(note[0], str(path), note[1])
    return schema


def repeat_note(repeated: list[Repeat], loaded: Any, where: str) -> tuple[str, int] | None:
    """The ``SchemaWarning`` a schema file that repeats keys deserves (a second
    ``properties`` or ``required`` drops the first), and the line it points at, if any;
    ``loaded``: the file's value, whose JSONSchemaBench wrapper only counts for its
    ``schema`` (its test data is no schema)."""
    if _is_wrapper(loaded):
        repeated = [r for r in repeated if r.path[:1] == ("schema",)]
    if not repeated:
        return None
    return schema_repeat_note(repeated, where=where), min(r.first for r in repeated)


def _is_wrapper(data: Any) -> bool:
    """Whether ``data`` is a JSONSchemaBench file, ``{description, meta, schema, tests}``."""
    return isinstance(data, Mapping) and "schema" in data and set(data) <= _WRAPPER_KEYS


def _check_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise SchemaError(
            f"{path}: unsupported schema file type {suffix!r}; use .json, .yaml or .yml"
        )
    return suffix


def _unwrap(data: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    if _is_wrapper(data):
        inner = data["schema"]
        if not isinstance(inner, Mapping):
            raise SchemaError(f"{where}: the wrapper's 'schema' must be an object")
        return inner
    return data
