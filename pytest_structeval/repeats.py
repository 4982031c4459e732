"""Keys written twice in one object of a JSON or YAML file: the last value is read (as
``json.loads`` and PyYAML read it), and the earlier one is lost without a word unless the
reader says so. A scenario config that repeats a key is broken (a second ``options:`` block
drops the first); a gold that does is read as the last value says, with a ``GoldWarning``.

YAML's repeated keys are found as :func:`~pytest_structeval.yamlvalue.yaml_value` builds
its mappings; JSON's here, by a second read of a text already read (a check in C first:
only a text that repeats a key is walked for its lines).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from .paths import ROOT, index_path, key_path

__all__ = ["Repeat", "config_repeat_errors", "gold_repeat_note", "json_repeats"]


class Repeat(NamedTuple):
    """A key written again in one object: ``key`` at ``line`` (1-based), first written at
    ``first``, in the object found at ``path`` (its keys and list indices from the root)."""

    path: tuple[str | int, ...]
    key: str
    line: int
    first: int


_LINE_BREAK: Final = re.compile(r"\r\n|\r|\n")
_SPACE: Final = re.compile(r"[ \t\n\r]*")
_DECODER: Final = json.JSONDecoder()
MAX_LISTED: Final = 3  # repeats a message names (then "and N more")


def json_repeats(text: str) -> list[Repeat]:
    """The keys the JSON ``text`` repeats within one object, in text order; ``[]`` for a
    text that repeats none, or that ``json`` does not read (its reader decides that)."""
    if '"' not in text or not _repeats_a_key(text):
        return []
    try:
        return _located(text)
    except (ValueError, IndexError):  # (a text json read: not expected)
        return []


def _repeats_a_key(text: str) -> bool:
    """Whether some object of ``text`` holds a key twice (``json`` builds no value)."""
    found = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> None:
        nonlocal found
        if len(pairs) > 1 and not found and len({key for key, _ in pairs}) < len(pairs):
            found = True

    try:
        json.loads(text.removeprefix("\ufeff"), object_pairs_hook=pairs_hook)
    except (ValueError, RecursionError):
        return False
    return found


def _located(text: str) -> list[Repeat]:
    """Each repeated key of the JSON ``text`` with its line: the text walked once (no
    recursion: any depth the reader took), its scalars decoded by ``json``'s own scanner."""
    breaks = [match.end() for match in _LINE_BREAK.finditer(text)]
    found: list[Repeat] = []
    frames: list[tuple[bool, tuple[str | int, ...], dict[str, int], list[int]]] = []

    def member(at: int) -> tuple[int, tuple[str | int, ...]]:
        """Past the key (of an object) of the member at ``at``: where its value starts."""
        is_object, path, seen, count = frames[-1]
        if not is_object:
            count[0] += 1
            return at, (*path, count[0] - 1)
        line = bisect.bisect_right(breaks, at) + 1
        key, at = _DECODER.raw_decode(text, at)
        if key in seen:
            found.append(Repeat(path, key, line, seen[key]))
        else:
            seen[key] = line
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]  # (always matches)
        return _SPACE.match(text, at + 1).end(), (*path, key)  # type: ignore[union-attr]

    at = _SPACE.match(text, 1 if text.startswith("\ufeff") else 0).end()  # type: ignore[union-attr]
    path: tuple[str | int, ...] = ()
    while True:
        if text[at] in "{[":
            frames.append((text[at] == "{", path, {}, [0]))
            at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            if text[at] not in "}]":
                at, path = member(at)
                continue
            frames.pop()
            at += 1
        else:
            at = _DECODER.raw_decode(text, at)[1]
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        while frames:  # after a value: the next member, or the end of its container
            if text[at] == ",":
                at, path = member(_SPACE.match(text, at + 1).end())  # type: ignore[union-attr]
                break
            frames.pop()
            at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        else:
            return found


def _grouped(
    repeats: Sequence[Repeat],
) -> list[tuple[tuple[str | int, ...], str, int, list[int]]]:
    """Each repeated key once, in text order: how many times it is written, and the lines."""
    lines: dict[tuple[tuple[str | int, ...], str], list[int]] = {}
    for repeat in repeats:
        lines.setdefault((repeat.path, repeat.key), [repeat.first]).append(repeat.line)
    return [(path, key, len(at), sorted(set(at))) for (path, key), at in lines.items()]


def _lines(lines: list[int], *, of: str = "") -> str:
    if len(lines) == 1:
        return f"line {lines[0]}{of}"
    return f"lines {', '.join(map(str, lines[:-1]))} and {lines[-1]}{of}"


def _listed(parts: list[str]) -> str:
    if len(parts) > MAX_LISTED:
        parts = [*parts[:MAX_LISTED], f"{len(parts) - MAX_LISTED} more"]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def config_repeat_errors(repeats: Sequence[Repeat]) -> list[str]:
    """Errors for the keys a scenario config repeats (``repeats`` relative to the config
    mapping): ``the key 'options' is written twice (lines 2 and 5): keep one``."""
    errors = []
    for path, key, times, lines in _grouped(repeats):
        named = ""
        for part in (*path, key):
            named += f"[{part}]" if isinstance(part, int) else f".{part}" if named else part
        count = "twice" if times == 2 else f"{times} times"
        errors.append(f"the key {named!r} is written {count} ({_lines(lines)}): keep one")
    return errors


def gold_repeat_note(repeats: Sequence[Repeat], *, where: str, of: str = "") -> str:
    """The ``GoldWarning`` note for the keys a gold repeats (``repeats`` relative to the gold),
    each named by its answer path: ``<where> repeats the key answer.pump (lines 1 and 3): the
    last value is read``. ``of`` follows each line number (``" of it"``: a gold text's own)."""
    parts = []
    for path, key, _, lines in _grouped(repeats):
        shown = ROOT
        for part in path:
            shown = index_path(shown, part) if isinstance(part, int) else key_path(shown, part)
        parts.append(f"{key_path(shown, key)} ({_lines(lines, of=of)})")
    keys = "key" if len(parts) == 1 else "keys"
    return f"{where} repeats the {keys} {_listed(parts)}: only the last value is read"
