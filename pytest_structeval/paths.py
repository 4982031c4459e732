"""Paths of leaves in a JSON-shaped value: syntax, escaping, flattening, globs, lookup.

One path names one place in a value, and different places never share a path: that is
what lets every mode compare two trees leaf by leaf. The syntax:

* the root is ``answer``; a key is ``.key`` when it is identifier-ish, else ``["key"]``
  (a JSON string), so ``{"a.b": 1}`` gives ``answer["a.b"]`` and ``{"a": {"b": 1}}``
  gives ``answer.a.b``. Keys are escaped when they are empty, hold ``.``, ``[``, ``]``,
  quotes, ``*``, a backslash, whitespace or unprintable characters, or look like an
  index (``"0"``, ``"-1"``);
* an index is ``[0]``; unmatched model elements of an aligned array get negative
  indices (``[-1]``);
* a non-string key (Python literals allow ``{1: "a"}``) is ``[<repr>]``, e.g.
  ``answer[<1>]``, distinct from the string key ``answer["1"]`` and the index ``answer[1]``.
"""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Generic, TypeVar

from .errors import LimitError, OptionsError, hide_usage_error, too_deep
from .parse import DEFAULT_MAX_DEPTH

__all__ = [
    "CONTAINERS",
    "DEFAULT_MAX_DEPTH",
    "ROOT",
    "GlobMatcher",
    "LiteralKey",
    "PathRules",
    "compile_glob",
    "compile_globs",
    "composed",
    "flatten",
    "glob_specificity",
    "index_path",
    "index_pattern",
    "json_kind",
    "key_path",
    "path_prefixes",
    "reads_answer_key",
    "resolve_path",
    "split_path",
    "unmatched_note",
    "unused_glob_notes",
]

T = TypeVar("T")

ROOT: Final = "answer"

# A key outside this set (or looking like an index) is written as a JSON string.
_PLAIN_KEY = re.compile(r"[^\s.\[\]\"'*\\]+")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_INDEX = re.compile(r"-?[0-9]+")
_DELIMITER = re.compile(r"[.\[\]]")  # ends a key written unquoted
_FLOAT_WORDS: Final = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}


@dataclass(frozen=True, slots=True)
class LiteralKey:
    """A non-string mapping key as ``split_path`` returns it (``answer[<1>]`` -> ``LiteralKey(1)``).

    A wrapper, because a bare int in a split path means a list index.
    """

    value: Any


def _key_segment(key: object) -> str:
    """The path text that names ``key`` under its parent (without the parent)."""
    if isinstance(key, str):
        if key.isidentifier() or (
            _PLAIN_KEY.fullmatch(key) is not None
            and key.isprintable()
            and _INDEX.fullmatch(key) is None
        ):
            return "." + key
        return "[" + json.dumps(key, ensure_ascii=False) + "]"
    try:
        return f"[<{key!r}>]"
    except ValueError:  # an int past Python's digit limit for str()
        raise unnameable_key(key) from None


def unnameable_key(key: Any) -> LimitError:
    """The error for a key too long to name: an int past Python's digit limit for ``str``."""
    bits = key.bit_length() if isinstance(key, int) else "?"
    return LimitError(f"a key is an integer of {bits} bits, too long to name")


def key_path(parent: str, key: object) -> str:
    """The path of ``parent[key]`` for a mapping key (escaped when it needs to be)."""
    segment = _key_segment(key)
    if not parent and segment[0] == ".":
        return segment[1:]
    return parent + segment


def index_path(parent: str, index: int) -> str:
    """The path of ``parent[index]`` for a list element."""
    return f"{parent}[{index}]"


# --- reading paths back -------------------------------------------------------------


class _Wildcard:
    """A glob token: ``*`` (one key), ``[*]`` (one index) or ``**`` (any segments)."""

    __slots__ = ()


_ANY_KEY: Final = _Wildcard()
_ANY_INDEX: Final = _Wildcard()
_ANY_PATH: Final = _Wildcard()

_Token = str | int | LiteralKey | _Wildcard


def _literal_key(text: str, path: str) -> str | LiteralKey:
    """Read the ``repr`` inside ``[<...>]`` back into the key it came from."""
    __tracebackhide__ = hide_usage_error
    if text in _FLOAT_WORDS:
        return LiteralKey(_FLOAT_WORDS[text])
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise OptionsError(
            f"path {path!r}: key <{text}> is not a Python literal and cannot be read back"
        ) from None
    if isinstance(value, str):
        return value
    try:
        hash(value)
    except TypeError:
        raise OptionsError(f"path {path!r}: key <{text}> is not hashable") from None
    return LiteralKey(value)


def _literal_end(path: str, start: int) -> int:
    """Index of the ``>`` that closes a ``[<`` literal starting at ``start`` (quote-aware)."""
    __tracebackhide__ = hide_usage_error
    i, n = start, len(path)
    while i < n:
        char = path[i]
        if char in "'\"":
            i += 1
            while i < n and path[i] != char:
                i += 2 if path[i] == "\\" else 1
        elif char == ">" and path.startswith(">]", i):
            return i
        i += 1
    raise OptionsError(f"path {path!r}: unterminated key '[<' at offset {start - 2}")


def _tokenize(path: str, *, glob: bool) -> list[_Token]:
    """Split a path (or, with ``glob``, a pattern) into keys, indices and wildcards."""
    __tracebackhide__ = hide_usage_error
    if not isinstance(path, str):
        raise OptionsError(f"a path must be a string, got {type(path).__name__}")
    tokens: list[_Token] = []
    i, n = 0, len(path)
    while i < n:
        char = path[i]
        if char == "[":
            i += 1
            if path.startswith('"', i):
                match = _JSON_STRING.match(path, i)
                if match is None:
                    raise OptionsError(f"path {path!r}: unterminated quoted key at offset {i}")
                try:
                    tokens.append(json.loads(match.group()))
                except ValueError as exc:
                    raise OptionsError(
                        f"path {path!r}: bad quoted key at offset {i}: {exc}"
                    ) from None
                i = match.end()
            elif path.startswith("<", i):
                end = _literal_end(path, i + 1)
                tokens.append(_literal_key(path[i + 1 : end], path))
                i = end + 1
            elif glob and path.startswith("*]", i):
                tokens.append(_ANY_INDEX)
                i += 1
            else:
                match = _INDEX.match(path, i)
                if match is None:
                    raise OptionsError(
                        f"path {path!r}: expected an index, a quoted key or a literal key "
                        f"after '[' at offset {i - 1}"
                    )
                try:
                    tokens.append(int(match.group()))
                except ValueError:
                    raise OptionsError(f"path {path!r}: index is too long") from None
                i = match.end()
            if not path.startswith("]", i):
                raise OptionsError(f"path {path!r}: expected ']' at offset {i}")
            i += 1
        else:
            if char == ".":
                if not tokens:
                    raise OptionsError(f"path {path!r}: a path cannot start with '.'")
                i += 1
            elif tokens:
                raise OptionsError(f"path {path!r}: expected '.' or '[' at offset {i}")
            delimiter = _DELIMITER.search(path, i)
            end = n if delimiter is None else delimiter.start()
            key = path[i:end]
            if not key:
                raise OptionsError(f'path {path!r}: empty key at offset {i} (write [""])')
            if "*" in key:
                if not glob:
                    raise OptionsError(
                        f"path {path!r}: '*' is a wildcard; write a key holding '*' as [\"{key}\"]"
                    )
                if key not in ("*", "**"):
                    raise OptionsError(
                        f"pattern {path!r}: a wildcard must be a whole segment "
                        f"('*', '**' or '[*]'), got {key!r}"
                    )
                tokens.append(_ANY_KEY if key == "*" else _ANY_PATH)
            else:
                tokens.append(key)
            i = end
    return tokens


def split_path(path: str) -> tuple[str | int | LiteralKey, ...]:
    """Split a path into its keys and indices: the exact inverse of ``key_path``/``index_path``.

    ``split_path('answer["a.b"][0]') == ("answer", "a.b", 0)``. Non-string keys come back
    as ``LiteralKey``. Raises ``OptionsError`` for malformed text.
    """
    __tracebackhide__ = hide_usage_error
    return tuple(t for t in _tokenize(path, glob=False) if not isinstance(t, _Wildcard))


# --- flattening ---------------------------------------------------------------------


def flatten(
    value: Any, prefix: str = ROOT, *, max_depth: int = DEFAULT_MAX_DEPTH
) -> dict[str, Any]:
    """Map every leaf path of ``value`` to its leaf, in insertion order.

    Dicts give keyed children, lists and tuples indexed ones; scalars and *empty*
    containers are leaves, so ``{}`` and ``[]`` stay visible and never equal each other.
    The walk is iterative; nesting deeper than ``max_depth`` containers raises ``LimitError``.
    """
    __tracebackhide__ = hide_usage_error
    out: dict[str, Any] = {}
    if not (isinstance(value, CONTAINERS) and value):
        out[prefix] = value
        return out
    # The current container is kept in locals; its ancestors wait on the stack.
    parent = prefix
    is_dict = isinstance(value, dict)
    items: Iterator[tuple[Any, Any]] = (
        iter(value.items()) if isinstance(value, dict) else enumerate(value)
    )
    stack: list[tuple[str, Iterator[tuple[Any, Any]], bool]] = []
    while True:
        for key, child in items:
            if not is_dict:
                path = f"{parent}[{key}]"
            elif type(key) is str and key.isidentifier() and parent:
                path = f"{parent}.{key}"
            else:
                path = key_path(parent, key)
            if isinstance(child, CONTAINERS) and child:
                if len(stack) + 1 >= max_depth:
                    raise too_deep(max_depth, path)
                stack.append((parent, items, is_dict))
                parent = path
                is_dict = isinstance(child, dict)
                items = iter(child.items()) if isinstance(child, dict) else enumerate(child)
                break
            out[path] = child
        else:
            if not stack:
                return out
            parent, items, is_dict = stack.pop()


CONTAINERS: Final = (dict, list, tuple)
"""The types :func:`flatten` descends into (an empty one is a leaf)."""


def next_containers(level: list[Any]) -> list[Any]:
    """The non-empty containers the containers of ``level`` hold, each once: a shared one, or
    a cycle, is no fan-out (an empty one holds no value and no level)."""
    return list(
        {
            id(child): child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, CONTAINERS) and child
        }.values()
    )


def check_depth(value: Any, max_depth: int) -> None:
    """Raise ``LimitError`` when ``value`` nests more than ``max_depth`` non-empty containers,
    with the walk's message (``... at <path of the first one too deep>``).

    For values that may share parts or loop (a value given already parsed). Level by level,
    so it never recurses and stops one level past the limit; only a value over it pays for
    :func:`first_too_deep`, which names the path. (Decoded JSON holds no shared part:
    :func:`~pytest_structeval.parse.check_json_depth` draws the same line faster.)
    """
    __tracebackhide__ = hide_usage_error
    level = [value] if isinstance(value, CONTAINERS) and value else []
    inner: dict[int, tuple[Any, list[Any]]] = {}  # id -> (a container, its distinct ones)
    for _ in range(max_depth):
        # (a container met again, at this level or another, lists what it holds once)
        for node in level:
            if id(node) not in inner:
                inner[id(node)] = (node, next_containers([node]))
        level = list({id(c): c for node in level for c in inner[id(node)][1]}.values())
        if not level:
            return
    raise too_deep(max_depth, first_too_deep(value, max_depth))


def first_too_deep(value: Any, max_depth: int) -> str:
    """The path :func:`flatten` names when ``value`` nests past ``max_depth`` (the first
    non-empty container too deep, in its order), or ``""`` when none is.

    Without writing out a part held in several places: a part searched to the end at some
    level holds nothing too deep at that level or above, so it is searched again only when
    met deeper (a cycle is, until it passes the bound). A container's own non-empty
    containers are listed once, each in its first place (the same part later in it is at
    the same level), so a large list met at many levels costs once.
    """
    inner: dict[int, tuple[Any, bool, list[tuple[Any, Any]]]] = {}  # id -> (it, dict?, kids)

    def containers_in(node: Any) -> tuple[Any, bool, list[tuple[Any, Any]]]:
        known = inner.get(id(node))
        if known is None:  # (``node`` is kept in the entry, so its id is never reused)
            is_dict = isinstance(node, dict)
            pairs = node.items() if is_dict else enumerate(node)
            kids: dict[int, tuple[Any, Any]] = {}  # (a part held again here: its first place)
            for k, c in pairs:
                if isinstance(c, CONTAINERS) and c and id(c) not in kids:
                    kids[id(c)] = (k, c)
            known = inner[id(node)] = (node, is_dict, list(kids.values()))
        return known

    searched: dict[int, int] = {}  # id -> the deepest level it was searched to the end at
    if not (isinstance(value, CONTAINERS) and value):
        return ""
    _, is_dict, kids = containers_in(value)
    stack: list[tuple[Any, str, bool, Iterator[tuple[Any, Any]]]] = [
        (value, ROOT, is_dict, iter(kids))
    ]
    while stack:
        node, path, is_dict, items = stack[-1]
        level = len(stack) + 1  # of the children (the root is level 1)
        for key, child in items:
            child_path = key_path(path, key) if is_dict else index_path(path, key)
            if level > max_depth:
                return child_path
            if searched.get(id(child), 0) < level:
                _, child_is_dict, child_kids = containers_in(child)
                stack.append((child, child_path, child_is_dict, iter(child_kids)))
                break
        else:
            stack.pop()
            searched[id(node)] = level - 1
    return ""


# --- globs --------------------------------------------------------------------------

# One rendered key segment: plain, JSON-quoted, or a Python-literal key.
_LITERAL_SEG = r"\[<(?:[^'\"<>\[\]]|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")*>\]"
_KEY_SEG = r"(?:\.[^.\[\]]+" r'|\["(?:[^"\\]|\\.)*"\]' f"|{_LITERAL_SEG})"
_INDEX_SEG = r"\[-?[0-9]+\]"
_LITERAL_SEGMENT = re.compile(_LITERAL_SEG)
_ANY_SEG = f"(?:{_KEY_SEG}|{_INDEX_SEG})"


def _glob_tokens(pattern: str) -> list[_Token]:
    """Tokens of a glob pattern below the root (a leading bare ``answer`` is the root; a
    quoted ``["answer"]`` is the key of that name), keys composed (NFC) as the matcher
    composes paths."""
    __tracebackhide__ = hide_usage_error
    tokens = [composed(t) if type(t) is str else t for t in _tokenize(pattern, glob=True)]
    if not tokens:
        raise OptionsError("empty path pattern")
    return tokens[1:] if tokens[0] == ROOT and _rooted(pattern) else tokens


def _rooted(pattern: str) -> bool:
    """Whether ``pattern`` starts with the bare root name ``answer``."""
    return pattern.startswith(ROOT) and pattern[len(ROOT) : len(ROOT) + 1] in ("", ".", "[")


def composed(text: str) -> str:
    """``text`` composed (NFC): how a path or key typed decomposed (``u`` + U+0308, as macOS
    spells file names) and one typed composed (``ü``) name the same place."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _glob_regex(pattern: str) -> str:
    """Regex source for one glob pattern, anchored at the root (see ``compile_glob``)."""
    __tracebackhide__ = hide_usage_error
    parts = [re.escape(ROOT)]
    previous: _Token | None = None
    for token in _glob_tokens(pattern):
        if token is _ANY_PATH:
            if previous is not _ANY_PATH:
                parts.append(f"{_ANY_SEG}*")
        elif token is _ANY_KEY:
            parts.append(_KEY_SEG)
        elif token is _ANY_INDEX:
            parts.append(_INDEX_SEG)
        elif isinstance(token, int):
            parts.append(re.escape(f"[{token}]"))
        else:
            key = token.value if isinstance(token, LiteralKey) else token
            parts.append(re.escape(_key_segment(key)))
        previous = token
    return "".join(parts)


@lru_cache(maxsize=1024)
def _compiled(patterns: tuple[str, ...], subtree: bool) -> re.Pattern[str]:
    body = "|".join(f"(?:{_glob_regex(p)})" for p in patterns)
    suffix = r"(?:[.\[].*)?" if subtree else ""
    return re.compile(f"(?:{body}){suffix}", re.DOTALL)


def compile_globs(
    patterns: Iterable[str], *, subtree: bool = False, compose_paths: bool = False
) -> Callable[[str], bool]:
    """One predicate that is true when any of ``patterns`` matches (see ``compile_glob``).

    The predicate (a :class:`GlobMatcher`) keeps what it learnt about each path it was asked
    about, so make one per scoring call. An empty collection matches nothing.
    """
    __tracebackhide__ = hide_usage_error
    patterns = tuple(patterns)
    if not patterns:
        return _never
    return GlobMatcher(patterns, subtree, compose_paths)


class GlobMatcher:
    """Glob patterns against paths: a pattern with at most one ``**`` as a regex (one C-level
    match), one with several as an automaton over the path's segments.

    A backtracking regex costs depth to the power of its number of ``**`` per path, so a
    model's deep answer took minutes against ``**.meta.**.x``. In the automaton a path's state
    is its parent path's state stepped over its last segment, kept per path: a walk that asks
    about a parent before its children pays one step per path, whatever the depth. A path
    whose parent is unknown is split once and its prefixes filled in; one that cannot be
    split (a key Python cannot read back) or lies outside the root is matched by regex.

    Pattern keys are composed (NFC). With ``compose_paths`` the paths are too, for a mode that
    keeps keys as written (schema mode); the key-level modes compose keys themselves, and a
    decomposed key left in their paths is one whose composed twin is in the same object, so
    it is matched as it is spelt.
    """

    __slots__ = (
        "_compose",
        "_each",
        "_fast",
        "_fast_index",
        "_patterns",
        "_slow_index",
        "_states",
        "_subtree",
    )

    def __init__(
        self, patterns: tuple[str, ...], subtree: bool, compose_paths: bool = False
    ) -> None:
        tokens = [_segment_tokens(p) for p in patterns]  # (OptionsError here)
        slow = [i for i, t in enumerate(tokens) if sum(token is _ANY_PATH for token in t) > 1]
        self._slow_index = tuple(slow)
        self._fast_index = tuple(i for i in range(len(patterns)) if i not in slow)
        fast = tuple(patterns[i] for i in self._fast_index)
        self._fast = _compiled(fast, subtree) if fast else None
        self._each = tuple(_compiled((p,), subtree) for p in patterns)  # (cached across calls)
        self._patterns = tuple(tokens[i] for i in slow)
        self._subtree = subtree
        self._compose = compose_paths
        #: path -> (each automaton pattern's positions, a bit per automaton pattern matched)
        self._states: dict[str, tuple[tuple[int, ...], int]] = {}

    def __call__(self, path: str) -> bool:
        if self._compose:
            path = composed(path)
        if self._fast is not None and self._fast.fullmatch(path) is not None:
            return True
        return bool(self._patterns) and bool(self._state(path)[1])

    def matching(self, path: str) -> int:
        """A bit per pattern (bit ``i``: ``patterns[i]``) that matches ``path``."""
        if self._compose:
            path = composed(path)
        bits = 0
        for i in self._fast_index:
            if self._each[i].fullmatch(path) is not None:
                bits |= 1 << i
        if self._patterns:
            found = self._state(path)[1]
            for j, i in enumerate(self._slow_index):
                if found >> j & 1:
                    bits |= 1 << i
        return bits

    def _state(self, path: str) -> tuple[tuple[int, ...], int]:
        state = self._states.get(path)
        if state is not None:
            return state
        if path == ROOT:
            masks = tuple(_closure(tokens, 1) for tokens in self._patterns)
            return self._keep(path, masks, 0)
        if not path.startswith(ROOT) or path[len(ROOT) : len(ROOT) + 1] not in (".", "["):
            return self._by_regex(path)
        for start in _last_segment_starts(path):
            parent = self._states.get(path[:start])
            if parent is not None:
                return self._step(path, parent, path[start:])
        try:
            tokens = split_path(path)[1:]
        except OptionsError:  # a key Python cannot read back: the text alone decides
            return self._by_regex(path)
        state = self._state(ROOT)
        prefix = ROOT
        for token in tokens:  # the whole path, once: fill in its prefixes
            segment = _token_segment(token)
            prefix += segment
            state = self._states.get(prefix) or self._step(prefix, state, segment)
        return state

    def _by_regex(self, path: str) -> tuple[tuple[int, ...], int]:
        """A path the automaton cannot step to, matched pattern by pattern (not kept)."""
        found = 0
        for j, i in enumerate(self._slow_index):
            if self._each[i].fullmatch(path) is not None:
                found |= 1 << j
        return ((), found)

    def _step(
        self, path: str, parent: tuple[tuple[int, ...], int], segment: str
    ) -> tuple[tuple[int, ...], int]:
        if not parent[0]:  # (no automaton state to step from)
            return self._by_regex(path)
        index = segment[0] == "[" and segment[1:2] in _INDEX_STARTS
        masks = tuple(
            _advance(tokens, mask, segment, index) if mask else 0
            for tokens, mask in zip(self._patterns, parent[0], strict=True)
        )
        return self._keep(path, masks, parent[1] if self._subtree else 0)

    def _keep(self, path: str, masks: tuple[int, ...], matched: int) -> tuple[tuple[int, ...], int]:
        """Record ``path``'s state; ``matched``: the patterns a parent matched (subtree)."""
        for i, (tokens, mask) in enumerate(zip(self._patterns, masks, strict=True)):
            if mask >> len(tokens) & 1:
                matched |= 1 << i
        if len(self._states) >= _MAX_KEPT_STATES:  # a bound on memory, not on correctness
            self._states.clear()
        state = (masks, matched)
        self._states[path] = state
        return state


_MAX_KEPT_STATES: Final = 200_000
_INDICES: Final = re.compile(r"\[-?[0-9]+\]")
_INDEX_STARTS: Final = frozenset("-0123456789")


def _segment_tokens(pattern: str) -> tuple[_Wildcard | str, ...]:
    """A pattern's tokens below the root: wildcards, and literals as their segment text."""
    return tuple(
        token if isinstance(token, _Wildcard) else _token_segment(token)
        for token in _glob_tokens(pattern)
    )


def _token_segment(token: str | int | LiteralKey) -> str:
    """A key or index as the segment of a path ``key_path``/``index_path`` write."""
    if type(token) is int:
        return f"[{token}]"
    return _key_segment(token.value if isinstance(token, LiteralKey) else token)


def _closure(tokens: tuple[_Wildcard | str, ...], mask: int) -> int:
    """``mask`` with the positions a ``**`` may skip to without consuming a segment."""
    for i, token in enumerate(tokens):
        if token is _ANY_PATH and mask >> i & 1:
            mask |= 1 << (i + 1)
    return mask


def _advance(tokens: tuple[_Wildcard | str, ...], mask: int, segment: str, index: bool) -> int:
    """The positions reached from ``mask`` by consuming ``segment``."""
    reached = 0
    for i, token in enumerate(tokens):
        if not mask >> i & 1:
            continue
        if token is _ANY_PATH:
            reached |= 1 << i
        elif token == segment if type(token) is str else (token is _ANY_INDEX) == index:
            reached |= 1 << (i + 1)
    return _closure(tokens, reached)


def _last_segment_starts(path: str) -> Iterator[int]:
    """Where the last segment of a path built by ``key_path``/``index_path`` may begin,
    latest first: one place, except for a non-string key's ``[<...>]``, whose text may hold
    ``[<`` itself (the caller takes the first place whose prefix it knows).

    A quoted key is JSON text, whose quotes inside are escaped: the last ``["`` opens it."""
    if path[-1] != "]":
        yield path.rfind(".")
    elif path[-2] == '"':
        yield path.rfind('["')
    elif path[-2] == ">":
        start = path.rfind("[<")
        while start > 0:
            if _LITERAL_SEGMENT.fullmatch(path, start) is not None:  # one segment, not more
                yield start
            start = path.rfind("[<", 0, start)
    else:
        yield path.rfind("[")


def compile_glob(
    pattern: str, *, subtree: bool = False, compose_paths: bool = False
) -> Callable[[str], bool]:
    """Compile a path glob into a predicate over flattened paths.

    ``*`` matches one key segment, ``[*]`` one index (negative ones too), ``**`` any
    number of segments (zero included). Patterns are anchored at the root: one whose
    first segment is ``answer`` is a full path, any other is relative to the root
    (``items[*].id`` means ``answer.items[*].id``; ``**.id`` an ``id`` at any depth).
    Keys match by value whether written escaped or not (``answer["a"]`` is ``answer.a``),
    composed or decomposed (NFC: ``ü`` is ``u`` + U+0308; the paths too with
    ``compose_paths``, see :class:`GlobMatcher`). With ``subtree``, every path below a match
    matches too. ``OptionsError`` when malformed.
    """
    __tracebackhide__ = hide_usage_error
    return compile_globs((pattern,), subtree=subtree, compose_paths=compose_paths)


def index_pattern(path: str) -> str | None:
    """``path`` with every array index as ``[*]`` (``answer.items[*].n``), or None when it
    has no index (a key that merely contains brackets is no index: ``answer["a[0]"]``)."""
    if "[" not in path:
        return None
    try:
        tokens = split_path(path)
    except OptionsError:
        return None
    if not any(type(token) is int for token in tokens):
        return None
    out = ""
    for token in tokens:
        if type(token) is int:
            out += "[*]"
        else:
            out = key_path(out, token.value if isinstance(token, LiteralKey) else token)
    return out


class PathRules(Generic[T]):
    """``(pattern, value)`` rules over paths, each covering the paths its glob matches and
    everything below them (``options``, ``weights``, ``absent_values``).

    At a path, the rule naming the nearest node wins: the path itself, else its nearest
    ancestor, so ``**.price`` beats ``answer.items`` at ``answer.items[0].price`` (a ``**``
    adds no segment of its own, so a rank fixed per pattern put it level with the parent's
    and let that win). A trailing ``**`` names the node above it (``answer.**`` is
    ``answer``). Of rules naming one node, :func:`glob_specificity` ranks, then the later
    given. Make one per scoring call: it keeps each path's ranking, by the path's shape (its
    indices as ``[*]``) when no pattern names an index, so the elements of an array are
    ranked once. ``covered`` gathers the rules that covered any path ranked.
    """

    __slots__ = ("_by_shape", "_cache", "_matchers", "_static", "covered", "patterns", "values")

    def __init__(self, rules: Iterable[tuple[str, T]], *, compose_paths: bool = False) -> None:
        __tracebackhide__ = hide_usage_error
        given = list(rules)
        for pattern, _ in given:
            if not isinstance(pattern, str) or not pattern:
                raise OptionsError(f"a path glob must be a non-empty string, got {pattern!r}")
        #: The patterns and their values, as given.
        self.patterns: tuple[str, ...] = tuple(pattern for pattern, _ in given)
        self.values: tuple[T, ...] = tuple(value for _, value in given)
        # First, in a loop (a generator's frame would not hide): a malformed pattern raises
        # here, in this call's frames, which a usage error's traceback leaves out.
        static = []
        indexed = False
        for pattern in self.patterns:
            static.append(glob_specificity(pattern))
            indexed |= any(type(token) is int for token in _glob_tokens(pattern))
        self._static = tuple(static)
        self._by_shape = not indexed
        self._matchers = tuple(
            (
                compile_glob(pattern, subtree=True, compose_paths=compose_paths),
                compile_glob(_named_node(pattern), compose_paths=compose_paths),
            )
            for pattern in self.patterns
        )
        self._cache: dict[str, tuple[int, ...]] = {}
        self.covered: set[int] = set()

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def ranked(self, path: str) -> tuple[int, ...]:
        """The indices of the rules covering ``path``, the winner last."""
        key = path
        if self._by_shape and "[" in path and '"' not in path and "<" not in path:
            key = _INDICES.sub("[*]", path)  # (a quoted or literal key may hold "[0]")
        found = self._cache.get(key)
        if found is not None:
            return found
        prefixes: tuple[str, ...] | None = None
        keys = []
        for index, (covers, names) in enumerate(self._matchers):
            if not covers(path):
                continue
            if prefixes is None:
                prefixes = path_prefixes(path)
            depth = next((d for d in range(len(prefixes) - 1, -1, -1) if names(prefixes[d])), 0)
            keys.append((depth, self._static[index], index))
        found = tuple(index for *_, index in sorted(keys))
        self.covered.update(found)
        if len(self._cache) >= _MAX_KEPT_STATES:  # a bound on memory, not on correctness
            self._cache.clear()
        self._cache[key] = found
        return found

    def winner(self, path: str) -> int | None:
        """The index of the rule that decides at ``path``; None when none covers it."""
        ranked = self.ranked(path)
        return ranked[-1] if ranked else None


def _named_node(pattern: str) -> str:
    """The node a covering pattern names: itself without a trailing ``**`` (a pattern read
    already: ``**`` only ever follows a ``.`` or starts it)."""
    while pattern.endswith(".**"):
        pattern = pattern[:-3]
    return ROOT if pattern == "**" else pattern


def path_prefixes(path: str) -> tuple[str, ...]:
    """``path``'s ancestors and itself, the root first; ``(path,)`` alone when it cannot be
    split (a key Python cannot read back) or lies outside the root."""
    try:
        tokens = split_path(path)
    except OptionsError:
        return (path,)
    if not tokens or tokens[0] != ROOT:
        return (path,)
    prefixes = [ROOT]
    for token in tokens[1:]:
        prefixes.append(prefixes[-1] + _token_segment(token))
    return tuple(prefixes)


def unused_glob_notes(
    option: str,
    patterns: Iterable[str],
    used: set[int],
    covered: Collection[int] = (),
    paths: Iterable[str] = (),
    *,
    keys_only: bool = False,
) -> list[str]:
    """A note for each pattern (by its index) not in ``used``: a misspelt path in a glob
    option changes nothing, and without the note nothing would say so. One in ``covered``
    matched, but a more specific pattern decided each field it covers. ``paths``,
    ``keys_only``: see :func:`unmatched_note`."""
    return [
        f"{option} pattern {pattern!r} decided no field (a more specific pattern decides each "
        "it covers)"
        if index in covered
        else unmatched_note(option, pattern, paths, keys_only=keys_only)
        for index, pattern in enumerate(patterns)
        if index not in used
    ]


def unmatched_note(
    option: str, pattern: str, paths: Iterable[str], *, keys_only: bool = False
) -> str:
    """The note for a pattern of a path option that matched none of the fields' ``paths``;
    one in the dotted index style of other tools (``answer.items.0.name``) is shown the form
    that names array elements here, when that form covers a field (for an option that
    applies to the values of object keys only, ``keys_only``, a field that is one)."""
    note = f"{option} pattern {pattern!r} matched no field"
    bracketed = _DOTTED_INDEX.sub(r"[\1]", pattern)
    if bracketed != pattern:
        matcher = GlobMatcher((bracketed,), subtree=True)
        if keys_only:
            paths = (path for path in paths if not _ENDS_IN_INDEX.search(path))
        if any(matcher.matching(path) for path in paths):
            note += f" (array elements are written [0]: {bracketed!r})"
    return note


_DOTTED_INDEX: Final = re.compile(r"\.(\d+)(?=[.\[]|$)")
_ENDS_IN_INDEX: Final = re.compile(r"\[-?\d+\]$")  # an array element's path, not a key's


def glob_specificity(pattern: str) -> tuple[int, bool, int]:
    """Sort key ranking how specifically ``pattern`` names a place (greater = more specific).

    Deeper patterns (more segments, ``**`` not counted) first, then exact paths before
    globs, then fewer wildcards.
    """
    __tracebackhide__ = hide_usage_error
    tokens = _glob_tokens(pattern)
    wildcards = sum(isinstance(t, _Wildcard) for t in tokens)
    depth = sum(t is not _ANY_PATH for t in tokens)
    return (depth, wildcards == 0, -wildcards)


def _never(path: str) -> bool:
    return False


# --- lookup -------------------------------------------------------------------------


def resolve_path(value: Any, path: str, *, answer_key: bool | None = None) -> Any:
    """Return the part of ``value`` at ``path`` (``"a.b"``, ``"items[0].name"``, ``'x["a.b"]'``).

    A leading ``answer`` is first read as a top-level key when ``value`` has one (so
    UiPath's ``target_output_key="answer"`` means that key); when the path does not
    resolve that way, ``answer`` names the root, so paths copied from reports work too
    (see :func:`reads_answer_key`). ``answer_key`` imposes one reading instead: the one
    the other side of a comparison took.
    A miss raises ``KeyError`` (missing key), ``IndexError`` (index out of range or
    negative) or ``TypeError`` (key into a non-object, index into a non-array), each
    naming the failing path; malformed text raises ``OptionsError``.
    """
    __tracebackhide__ = hide_usage_error
    tokens = split_path(path)
    if not tokens:
        raise OptionsError("empty path")
    if tokens[0] != ROOT:
        return _navigate(value, tokens, path)
    if answer_key is None:
        answer_key = reads_answer_key(value, path)
    return _navigate(value, tokens if answer_key else tokens[1:], path)


def reads_answer_key(value: Any, path: str) -> bool:
    """Whether :func:`resolve_path` reads the leading ``answer`` of ``path`` as the top-level
    key ``"answer"`` of ``value`` (it has one, and ``path`` resolves through it), not as the
    root."""
    tokens = split_path(path)
    if not tokens or tokens[0] != ROOT or not (isinstance(value, Mapping) and ROOT in value):
        return False
    try:
        _navigate(value, tokens, path)
    except (KeyError, IndexError, TypeError):
        return False
    return True


def _navigate(value: Any, tokens: tuple[str | int | LiteralKey, ...], path: str) -> Any:
    where = ROOT
    current = value
    for token in tokens:
        if isinstance(token, int):
            if not isinstance(current, (list, tuple)):
                raise TypeError(
                    f"{path}: cannot take index [{token}], {where} is {_with_article(current)}"
                )
            if token < 0:
                raise IndexError(f"{path}: negative index [{token}] (indices count from 0)")
            if token >= len(current):
                raise IndexError(
                    f"{path}: index [{token}] is out of range, {where} has {len(current)} "
                    + ("item" if len(current) == 1 else "items")
                )
            current = current[token]
            where = index_path(where, token)
        else:
            key = token.value if isinstance(token, LiteralKey) else token
            if not isinstance(current, Mapping):
                raise TypeError(
                    f"{path}: cannot look up key {key!r}, {where} is {_with_article(current)}"
                )
            if key not in current and type(key) is str:
                key = composed(key)  # keys are composed where text is (strict, similarity)
            if key not in current:
                raise KeyError(f"{path}: key {key!r} is missing at {where}")
            current = current[key]
            where = key_path(where, key)
    return current


def _with_article(value: Any) -> str:
    kind = json_kind(value)
    if kind == "null":
        return kind
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def json_kind(value: Any) -> str:
    """The JSON name of a value's type (``object``, ``array``, ``string``, ``number``, ...).

    Messages use it so users read JSON words, not Python class names.
    """
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__
