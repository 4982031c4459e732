"""Where a scenario's gold is written in a JSON or YAML file: the line a ``GoldWarning`` of
that gold points at, so the user's editor opens at the key that holds it; and where a schema
file writes a key a ``SchemaWarning`` is about (:func:`schema_key_line`).

Read from the file's own parse (JSON's decoder, YAML's node tree), never guessed from the
text's look: a key of that name may be written inside a value or a block of text. Worked out
only when a warning is given, and once per file version (a scenario file with many messy
golds is read once).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, TypeVar

import yaml

from .files import read_text
from .paths import index_path, key_path
from .yamlvalue import yaml_node

__all__ = ["gold_line", "part_line", "schema_key_line"]

_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")  # an editor's lines: U+2028 and NEL break none
_SPACE: Final = frozenset(" \t\n\r")  # JSON's whitespace
_NULL: Final = "tag:yaml.org,2002:null"


def gold_line(path: str, index: int | None, keys: Sequence[str], limit: int) -> int:
    """The 1-based line of ``path`` that holds the gold of its root object (``index`` None)
    or of its root list's entry ``index``: the first of ``keys`` that gives it a value (not
    null), as the scenario reads it; else where that entry starts. 1 when it cannot be told:
    the file changed, gone or opened from elsewhere, or over ``limit`` bytes."""
    with contextlib.suppress(OSError, ValueError):
        info = os.stat(path)
        lines = _gold_lines(path, (info.st_mtime_ns, info.st_size), tuple(keys), limit)
        if index is None and len(lines) == 1:
            return lines[0]
        if index is not None and 0 <= index < len(lines):
            return lines[index]
    return 1


def part_line(path: str, line: int, part: str, limit: int) -> int:
    """The line of ``path`` where ``part`` of a gold written from ``line`` on stands (a line
    of it that ``line_by_line`` reads, a ``target_output_key`` part), found as written;
    ``line`` when it is not there as it reads (an escaped JSON string) or the file does not
    read."""
    wanted = part.strip()
    if not wanted:
        return line
    with contextlib.suppress(OSError, ValueError):
        text = read_text(path, limit)
        breaks = [match.end() for match in _LINE_BREAK.finditer(text)]
        at = text.find(wanted, breaks[line - 2] if 2 <= line <= len(breaks) + 1 else 0)
        if at >= 0:
            return _line_of(at, breaks)
    return line


def schema_key_line(
    path: str, where: str, key: str | None, limit: int, within: str | None = None
) -> int:
    """The 1-based line of the schema file ``path`` where the key ``key`` of the object at
    ``where`` (a path in the schema document, as its messages write it: a JSONSchemaBench
    file's document is its ``schema``) is written (a repeated key: the last one, the one
    read); else the first line that writes a key ``key`` (a node the schema reaches through a
    ``$ref`` is named where it is used); 1 when it cannot be told: the file changed or gone,
    or over ``limit`` bytes. ``within``: the schema is written inline in the file (a
    scenario's ``schema:``), at that path of the file's document (``schema``,
    ``options.schema``, ``[2].schema``): ``where`` is below it, and so is the key's first
    line; ``key`` None: the line of the inline schema itself."""
    with contextlib.suppress(OSError, ValueError):
        info = os.stat(path)
        version = (info.st_mtime_ns, info.st_size)
        paths, keys = _schema_keys(path, version, limit, within is None)
        if key is None or within is None:
            if key is None:
                return paths.get(within or "") or 1
            return paths.get(key_path(where, key)) or keys.get(key) or 1
        if not where:
            full = key_path(within, key)
        else:  # (a path below the root starts with its key, or "[" for an escaped one)
            full = key_path(within + ("" if where[0] == "[" else ".") + where, key)
        found = paths.get(full)
        if found is None:  # the first line of the key below the inline schema
            segment = key_path("-", key)[1:]  # (".key", or '["key"]' escaped)
            found = next(
                (
                    line
                    for named, line in paths.items()  # (in text order)
                    if named.startswith(within)
                    and named[len(within) : len(within) + 1] in (".", "[")
                    and named.endswith(segment)
                ),
                None,
            )
        return found or paths.get(within) or 1
    return 1


_T = TypeVar("_T")
_WRAPPER_KEYS: Final = frozenset({"description", "meta", "schema", "tests"})
_MAX_MEMBERS: Final = 1_000_000  # members walked in one file (a YAML alias is walked once)


@functools.lru_cache(maxsize=4)
def _schema_keys(
    path: str, version: tuple[int, int], limit: int, unwrap: bool = True
) -> tuple[dict[str, int], dict[str, int]]:
    """The line of each key of the schema file ``path`` by its path in the document, and the
    first line of each key; empty for a file that does not read. ``version`` keys the cache.
    ``unwrap``: a JSONSchemaBench file's document is its ``schema`` (a file that holds a
    schema inline is read whole)."""
    read = _found_in(
        path,
        limit,
        functools.partial(_json_keys, unwrap=unwrap),
        functools.partial(_yaml_keys, unwrap=unwrap),
    )
    if read is None:
        return {}, {}
    found, breaks = read
    paths: dict[str, int] = {}
    keys: dict[str, int] = {}
    for where, key, at in sorted(found, key=lambda one: one[2]):  # (text order)
        line = _line_of(at, breaks)
        paths[where] = line
        keys.setdefault(key, line)
    return paths, keys


def _json_keys(text: str, unwrap: bool) -> list[tuple[str, str, int]]:
    """``(path, key, offset)`` of each object key of the JSON ``text``, in text order
    (``unwrap``: see :func:`_schema_keys`)."""
    at = _past_space(text, 0)
    if not text.startswith("{" if unwrap else ("{", "["), at):
        return []
    named = {key: value_at for key, _, value_at in _json_members(text, at)} if unwrap else {}
    if "schema" in named and set(named) <= _WRAPPER_KEYS:  # a JSONSchemaBench file
        at = named["schema"]
        if not text.startswith("{", at):
            return []
    found: list[tuple[str, str, int]] = []
    stack = [("", at)]
    while stack and len(found) < _MAX_MEMBERS:
        parent, at = stack.pop()
        for index, (key, start, value_at) in enumerate(_json_members(text, at)):
            where = index_path(parent, index) if key is None else key_path(parent, key)
            if key is not None:
                found.append((where, key, start))
            if text[value_at] in "{[":
                stack.append((where, value_at))
    return found


def _yaml_keys(text: str, unwrap: bool) -> list[tuple[str, str, int]]:
    """:func:`_json_keys` of a YAML text (each node walked once: an alias is not followed)."""
    root = yaml_node(text)
    if not isinstance(root, yaml.MappingNode):
        return [] if unwrap or not isinstance(root, yaml.SequenceNode) else _yaml_walk(root)
    named = {k.value: v for k, v in root.value if isinstance(k, yaml.ScalarNode)}
    wrapped = unwrap and "schema" in named and set(named) <= _WRAPPER_KEYS  # a JSONSchemaBench file
    if wrapped and isinstance(named["schema"], yaml.MappingNode):
        root = named["schema"]
    return _yaml_walk(root)


def _yaml_walk(root: yaml.Node) -> list[tuple[str, str, int]]:
    """``(path, key, offset)`` of each mapping key under the YAML node ``root``."""
    found: list[tuple[str, str, int]] = []
    seen: set[int] = set()
    stack: list[tuple[str, yaml.Node]] = [("", root)]
    while stack and len(found) < _MAX_MEMBERS:
        parent, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    where = key_path(parent, key.value)
                    found.append((where, key.value, int(key.start_mark.index)))
                    stack.append((where, value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((index_path(parent, i), item) for i, item in enumerate(node.value))
    return found


@functools.lru_cache(maxsize=4)
def _gold_lines(
    path: str, version: tuple[int, int], keys: tuple[str, ...], limit: int
) -> tuple[int, ...]:
    """The gold's line of each entry of ``path`` (a root object is one entry); ``()`` for a
    file that does not read. ``version`` keys the cache: an edited file is read again."""
    read = _found_in(
        path,
        limit,
        functools.partial(_json_entries, keys=keys),
        functools.partial(_yaml_entries, keys=keys),
    )
    if read is None:
        return ()
    found, breaks = read
    return tuple(_line_of(at, breaks) for at in found)


def _found_in(
    path: str, limit: int, in_json: Callable[[str], list[_T]], in_yaml: Callable[[str], list[_T]]
) -> tuple[list[_T], list[int]] | None:
    """What ``in_json`` or ``in_yaml`` (by the file's suffix) finds in the text of ``path``,
    and the offset after each of its line breaks (see :func:`_line_of`); ``None`` for a file
    that does not read."""
    try:
        text = read_text(path, limit)
        found = (in_json if os.path.splitext(path)[1].lower() == ".json" else in_yaml)(text)
    except (OSError, ValueError, IndexError, RecursionError, yaml.YAMLError):
        return None
    return found, [match.end() for match in _LINE_BREAK.finditer(text)]


def _line_of(at: int, breaks: list[int]) -> int:
    """The line of the character at offset ``at``, given the offsets after each break."""
    return bisect.bisect_right(breaks, at) + 1


# --------------------------------------------------------------------------- YAML


def _yaml_entries(text: str, keys: Sequence[str]) -> list[int]:
    root = yaml_node(text)
    if isinstance(root, yaml.MappingNode):
        return [_yaml_gold_at(root, keys)]
    if isinstance(root, yaml.SequenceNode):
        return [_yaml_gold_at(entry, keys) for entry in root.value]
    return []


def _yaml_gold_at(entry: yaml.Node, keys: Sequence[str]) -> int:
    """Where ``entry``'s gold key is written (the last of a repeated key: the one read)."""
    if isinstance(entry, yaml.MappingNode):
        written = {
            key.value: (key, value)
            for key, value in entry.value
            if isinstance(key, yaml.ScalarNode) and key.value in keys
        }
        for name in keys:
            if name in written and written[name][1].tag != _NULL:
                return int(written[name][0].start_mark.index)
    return int(entry.start_mark.index)


# --------------------------------------------------------------------------- JSON

_DECODER: Final = json.JSONDecoder()


def _json_entries(text: str, keys: Sequence[str]) -> list[int]:
    at = _past_space(text, 0)
    if text.startswith("{", at):
        return [_json_gold_at(text, at, keys)]
    if text.startswith("[", at):
        return [_json_gold_at(text, start, keys) for _, start, _ in _json_members(text, at)]
    return []


def _json_gold_at(text: str, at: int, keys: Sequence[str]) -> int:
    """Where the gold key of the entry at ``at`` is written (a repeated key: the last one)."""
    if not text.startswith("{", at):
        return at
    written = {key: (start, value) for key, start, value in _json_members(text, at) if key in keys}
    for name in keys:
        if name in written and not text.startswith("null", written[name][1]):
            return written[name][0]
    return at


def _past_space(text: str, at: int) -> int:
    """The offset of the first character from ``at`` on that is no JSON whitespace."""
    while text[at : at + 1] in _SPACE:
        at += 1
    return at


def _json_members(text: str, at: int) -> Iterator[tuple[Any, int, int]]:
    """``(key, where the member is written, where its value starts)`` of each member of the
    JSON object or array (key ``None``) that starts at ``at``, in a text that parses."""
    is_object = text[at] == "{"
    close = "}" if is_object else "]"
    at = _past_space(text, at + 1)
    while not text.startswith(close, at):
        start, key = at, None
        if is_object:
            key, at = _DECODER.raw_decode(text, at)
            at = _past_space(text, _past_space(text, at) + 1)  # past the ":"
        value_at = at
        at = _DECODER.raw_decode(text, at)[1]
        yield key, start, value_at
        at = _past_space(text, at)
        if text.startswith(",", at):
            at = _past_space(text, at + 1)
