"""Keys written twice in one object of a JSON or YAML file: the last value is read (as
``json.loads`` and PyYAML read it), and the earlier one is lost without a word unless the
reader says so. A scenario config that repeats a key is broken (a second ``options:`` block
drops the first); a gold that does is read as the last value says, with a ``GoldWarning``.

YAML's repeated keys are found as :func:`~pytest_structeval.yamlvalue.yaml_value` builds
its mappings; JSON's here, by a second read of a text already read (a check in C first:
only a text that repeats a key is walked for its lines; a trajectory record's only where
its keys' writings, counted, say one may repeat); a Python literal's in the AST the
parser checked (only when its dicts hold fewer pairs than it writes). A gold text's value
may be a part of it (a fenced block, a marked answer): the part it was read from is checked
(:func:`piece_repeats`), never a model's answer.
"""

from __future__ import annotations

import ast
import bisect
import functools
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple, cast

import orjson

from .keys import key_text
from .parse import literal_source
from .paths import ROOT, index_path, key_path

__all__ = [
    "Repeat",
    "config_repeat_errors",
    "gold_repeat_note",
    "json_repeats",
    "literal_repeats",
    "own_keys_may_repeat",
    "piece_repeats",
    "record_repeat_note",
    "schema_repeat_note",
]


class Repeat(NamedTuple):
    """A key written again in one object: ``key`` at ``line`` (1-based), first written at
    ``first``, in the object found at ``path`` (its keys and list indices from the root);
    lines ``0`` where they are not known (a gold text that writes its value twice)."""

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


class _Repeated(Exception):
    """Raised inside ``json``'s reading at the first object that holds a key twice."""


def _no_repeat(pairs: list[tuple[str, Any]]) -> None:
    if len(pairs) > 1 and len(dict(pairs)) < len(pairs):
        raise _Repeated


# One decoder for every check (building one per call took longer than reading a short text);
# it keeps no state: a repeat ends its reading.
_CHECK: Final = json.JSONDecoder(object_pairs_hook=_no_repeat)


def _repeats_a_key(text: str) -> bool:
    """Whether some object of ``text`` holds a key twice (``json`` builds no value)."""
    try:
        _CHECK.decode(text.removeprefix("\ufeff"))
    except _Repeated:
        return True
    except (ValueError, RecursionError):
        return False
    return False


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


def literal_repeats(tree: ast.Expression) -> list[Repeat]:
    """The keys a Python literal's AST (checked to hold literals only, as the parser reads
    one) repeats within one dict, in text order, named as JSON text names them, lines
    unknown: equal as Python keys are (``1``, ``1.0`` and ``True`` are one key, named as
    first written, the one the dict keeps). Iterative: any depth the parser took; only the
    containers are visited (a value the dict keeps), and a path is named only for a repeat."""
    return [repeat for repeat, _, _ in _literal_repeats(tree)]


def _literal_repeats(tree: ast.Expression) -> list[tuple[Repeat, ast.expr, ast.expr]]:
    """:func:`literal_repeats`, each with the key's node and that of the key it repeats."""
    found: list[tuple[tuple[int, int], tuple[Repeat, ast.expr, ast.expr]]] = []
    # each container met: the node, the entry of the container holding it, its name there
    entries: list[tuple[ast.expr, int, str | int]] = [(tree.body, -1, 0)]
    at = 0
    while at < len(entries):
        node = entries[at][0]
        if type(node) is ast.Dict:
            written = cast("list[ast.expr]", node.keys)  # (no ``**``: the parser refused it)
            keys = [k.value if type(k) is ast.Constant else ast.literal_eval(k) for k in written]
            kept = dict(zip(keys, node.values, strict=True))  # (as Python builds the dict)
            if len(kept) < len(keys):
                first: dict[Any, tuple[Any, ast.expr]] = {}
                for key_node, key in zip(written, keys, strict=True):
                    if key in first:
                        named, first_node = first[key]
                        repeat = Repeat(_path(entries, at), key_text(named), 0, 0)
                        where = (key_node.lineno, key_node.col_offset)
                        found.append((where, (repeat, key_node, first_node)))
                    first.setdefault(key, (key, key_node))
            entries.extend(
                (value, at, key_text(key))
                for key, value in kept.items()
                if type(value) in _AST_CONTAINERS
            )
        else:  # a list or a tuple
            entries.extend(
                (item, at, index)
                for index, item in enumerate(node.elts)  # type: ignore[attr-defined]
                if type(item) in _AST_CONTAINERS
            )
        at += 1
    return [repeat for _, repeat in sorted(found, key=lambda item: item[0])]


def _pairs_held(value: Any) -> int:
    """The key-value pairs of the dicts in a literal's value (dicts and lists only)."""
    held = 0
    stack = [value]
    while stack:
        container = stack.pop()
        items = container.values() if type(container) is dict else container
        if type(container) is dict:
            held += len(container)
        stack.extend(item for item in items if type(item) is dict or type(item) is list)
    return held


_AST_CONTAINERS: Final = (ast.Dict, ast.List, ast.Tuple)


def _path(entries: list[tuple[ast.expr, int, str | int]], at: int) -> tuple[str | int, ...]:
    """The keys and indices from the root to the container of entry ``at``."""
    path: list[str | int] = []
    while at > 0:
        _, at, name = entries[at]
        path.append(name)
    return tuple(reversed(path))


def piece_repeats(piece: tuple[Any, str, str, Any], text: str) -> list[Repeat]:
    """The keys the piece of ``text`` a value was decoded from (see
    :data:`~pytest_structeval.parse.PIECES`) repeats, with the lines of ``text``
    where the piece stands once in it (a JSON or YAML piece's own lines moved there, a
    literal's keys' lines), else with no lines."""
    _, written, how, known = piece
    if how == "json":
        found = json_repeats(written)
    elif how == "yaml":
        found = list(known)
    else:  # (only a literal whose dicts hold fewer pairs than it writes is walked)
        tree, pairs = known
        found = literal_repeats(tree) if _pairs_held(piece[0]) < pairs else []
    if not found:
        return found
    at = text.find(written)
    if at < 0 or text.find(written, at + 1) >= 0:  # (rewritten, or written more than once)
        return [Repeat(r.path, r.key, 0, 0) for r in found]
    before = len(_LINE_BREAK.findall(text, 0, at))
    if how == "literal":
        if _LINE_BREAK.search(written):
            return _literal_lines(written, known[0], before) or found
        return [Repeat(r.path, r.key, before + 1, before + 1) for r in found]
    return [Repeat(r.path, r.key, r.line + before, r.first + before) for r in found]


def _literal_lines(written: str, tree: ast.Expression, before: int) -> list[Repeat]:
    """The repeats of a literal written over several lines, with the lines of its keys (after
    ``before`` lines of the text it stands in): the source Python read it as is one line but
    for strings written over several, so each key's place in that source is taken back to
    where it is written. ``[]`` where that cannot be told (not expected)."""
    rewritten = literal_source(written)
    if rewritten is None:
        return []
    source, places = rewritten
    starts = [0, *(match.end() for match in _LINE_BREAK.finditer(source))]
    breaks = [match.end() for match in _LINE_BREAK.finditer(written)]

    def line_of(node: ast.expr) -> int:
        """The line of ``written`` where ``node`` (of the source's AST) starts; 0: unknown."""
        if not 0 < node.lineno <= len(starts):
            return 0
        start = starts[node.lineno - 1]
        line = source[start : starts[node.lineno] if node.lineno < len(starts) else None]
        ahead = line.encode("utf-8", "surrogatepass")[: node.col_offset]  # (in UTF-8 bytes)
        place = places.get(start + len(ahead.decode("utf-8", "surrogatepass")))
        return 0 if place is None else bisect.bisect_right(breaks, place) + 1 + before

    located = []
    for repeat, node, first in _literal_repeats(tree):
        line, first_line = line_of(node), line_of(first)
        if not line or not first_line:
            return []
        located.append(Repeat(repeat.path, repeat.key, line, first_line))
    return located


def _grouped(
    repeats: Sequence[Repeat],
) -> list[tuple[tuple[str | int, ...], str, int, list[int]]]:
    """Each repeated key once, in text order: how many times it is written, and the lines."""
    lines: dict[tuple[tuple[str | int, ...], str], list[int]] = {}
    for repeat in repeats:
        lines.setdefault((repeat.path, repeat.key), [repeat.first]).append(repeat.line)
    return [(path, key, len(at), sorted(set(at) - {0})) for (path, key), at in lines.items()]


def _lines(lines: list[int], *, of: str = "") -> str:
    if not lines:
        return ""
    if len(lines) == 1:
        return f"line {lines[0]}{of}"
    return f"lines {', '.join(map(str, lines[:-1]))} and {lines[-1]}{of}"


def _listed(parts: list[str]) -> str:
    if len(parts) > MAX_LISTED:
        parts = [*parts[:MAX_LISTED], f"{len(parts) - MAX_LISTED} more"]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _dotted(path: tuple[str | int, ...], key: str) -> str:
    """A key's place in a file, as a config or schema names it: ``options.align``, ``a[0].b``."""
    named = ""
    for part in (*path, key):
        named += f"[{part}]" if isinstance(part, int) else f".{part}" if named else part
    return named


def _written(path: tuple[str | int, ...], key: str, times: int, lines: list[int]) -> str:
    """``'options.align' is written twice (lines 2 and 5)``."""
    count = "twice" if times == 2 else f"{times} times"
    return f"{_dotted(path, key)!r} is written {count} ({_lines(lines)})"


def config_repeat_errors(repeats: Sequence[Repeat]) -> list[str]:
    """Errors for the keys a scenario config repeats (``repeats`` relative to the config
    mapping): ``the key 'options' is written twice (lines 2 and 5): keep one``."""
    return [f"the key {_written(*group)}: keep one" for group in _grouped(repeats)]


def own_keys_may_repeat(text: str, records: Iterable[Any]) -> bool:
    """Whether one of ``records`` (the objects of the JSON ``text`` read as trajectory
    records: its value, or its list's items) may write a key of its own twice; ``False``
    only where none can, told in one search of the text instead of a second read (which
    :func:`json_repeats` is). Exact: a key not spelt with a ``\\u`` escape of one of its
    characters, nor with ``\\/``, is written as orjson writes it (``\\"``, ``\\n``: the
    other escapes have one spelling), so the text holds that writing at least once for each
    record holding the key, and more often where one writes it twice: the writings of the
    keys found (wherever they stand, overlapping too) as many times as the records hold
    keys, each is written once in each record. (One found elsewhere too, in a value or
    deeper: ``True``, and the full check decides.)"""
    keys: dict[str, Any] = {}
    held = 0
    for record in records:
        if type(record) is dict:
            keys.update(record)
            held += len(record)
    if not held:
        return False
    writings = _writings(tuple(keys))
    if writings is None:  # (a lone surrogate: written escaped)
        return True
    search, chars, escapes = writings
    if "\\" in text and escapes.search(text) and _escapes_a_key(text, chars):
        return True
    return len(search.findall(text)) != held


@functools.lru_cache(maxsize=64)
def _writings(
    keys: tuple[str, ...],
) -> tuple[re.Pattern[str], frozenset[str], re.Pattern[str]] | None:
    """For ``keys``: a search for their writings, each found wherever it starts (a
    lookahead: one never hides another that starts inside it); their characters; a search
    for an escape that may spell one of them otherwise (``\\/`` only where one holds a
    ``/``). ``None``: a key orjson cannot write (a lone surrogate)."""
    try:  # (each writing but its opening quote, which the search finds)
        writings = [orjson.dumps(key).decode()[1:] for key in keys]
    except orjson.JSONEncodeError:
        return None
    chars = frozenset("".join(keys))
    search = re.compile('"(?=' + "|".join(map(re.escape, writings)) + ")")
    return search, chars, _SLASH_OR_U if "/" in chars else _U


# (also after an escaped backslash, ``\\u0041``, which is no escape: a needless full check)
_U: Final = re.compile(r"\\u")
_SLASH_OR_U: Final = re.compile(r"\\[u/]")
_ESCAPE: Final = re.compile(r"\\u([0-9a-fA-F]{4})")


def _escapes_a_key(text: str, chars: frozenset[str]) -> bool:
    """Whether ``text`` holds an escape that may spell one of ``chars`` (those of the keys)
    otherwise than orjson writes it: ``\\/`` for a ``/``, ``\\u`` for any (a surrogate's
    for a character past U+FFFF, or a lone one)."""
    if "/" in chars and "\\/" in text:
        return True
    halves = any(ord(char) > 0xFFFF or 0xD800 <= ord(char) < 0xE000 for char in chars)
    for match in _ESCAPE.finditer(text):
        code = int(match[1], 16)
        if chr(code) in chars or (halves and 0xD800 <= code < 0xE000):
            return True
    return False


def record_repeat_note(repeats: Sequence[Repeat]) -> str:
    """What a trajectory record that writes a key of its own twice is listed with: ``the key
    'answer' is written twice (lines 2 and 5): the last value is read``."""
    parts = [_written(*group) for group in _grouped(repeats)]
    keys = "the key" if len(parts) == 1 else "the keys"
    return f"{keys} {_listed(parts)}: the last value is read"


def schema_repeat_note(repeats: Sequence[Repeat], *, where: str) -> str:
    """The ``SchemaWarning`` for the keys a schema file repeats, each named by its place in
    the file: ``<where> repeats the key 'properties' (lines 2 and 9): only the last value is
    read`` (a second ``properties`` block drops the first)."""
    parts = [
        f"{_dotted(path, key)!r} ({_lines(lines)})" if lines else repr(_dotted(path, key))
        for path, key, _, lines in _grouped(repeats)
    ]
    keys = "key" if len(parts) == 1 else "keys"
    return f"{where} repeats the {keys} {_listed(parts)}: only the last value is read"


def gold_repeat_note(repeats: Sequence[Repeat], *, where: str, of: str = "") -> str:
    """The ``GoldWarning`` note for the keys a gold repeats (``repeats`` relative to the gold),
    each named by its answer path: ``<where> repeats the key answer.pump (lines 1 and 3): the
    last value is read``. ``of`` follows each line number (``" of it"``: a gold text's own)."""
    parts = []
    for path, key, _, lines in _grouped(repeats):
        shown = ROOT
        for part in path:
            shown = index_path(shown, part) if isinstance(part, int) else key_path(shown, part)
        at = _lines(lines, of=of)
        parts.append(f"{key_path(shown, key)} ({at})" if at else key_path(shown, key))
    keys = "key" if len(parts) == 1 else "keys"
    return f"{where} repeats the {keys} {_listed(parts)}: only the last value is read"
