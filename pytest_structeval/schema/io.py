"""Load an evaluation schema from a JSON or YAML file (or take one already in memory)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import LimitError, SchemaError
from ..files import utf8_text
from ..parse import check_json_depth, decimal_number
from ..yamlvalue import MAX_DEPTH, yaml_value

__all__ = ["load_schema", "schema_from_bytes"]

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


def schema_from_bytes(data: bytes, path: str | os.PathLike[str]) -> Mapping[str, Any]:
    """:func:`load_schema` of a file whose bytes the caller has read (``path`` picks the
    reader by its suffix and names the file in errors)."""
    path = Path(path)
    suffix = _check_suffix(path)
    try:
        text = utf8_text(data)  # a BOM dropped, as from every file read
        loaded = (  # a number past the float range is the integer it writes, as in YAML
            json.loads(text, parse_float=decimal_number) if suffix == ".json" else yaml_value(text)
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
    return _unwrap(loaded, str(path))


def _check_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise SchemaError(
            f"{path}: unsupported schema file type {suffix!r}; use .json, .yaml or .yml"
        )
    return suffix


def _unwrap(data: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    if "schema" in data and set(data) <= _WRAPPER_KEYS:
        inner = data["schema"]
        if not isinstance(inner, Mapping):
            raise SchemaError(f"{where}: the wrapper's 'schema' must be an object")
        return inner
    return data
