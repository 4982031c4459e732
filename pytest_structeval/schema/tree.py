"""The parsed evaluation schema: an immutable ``SchemaNode`` tree.

``parse_eval_schema`` turns a resolved, annotated JSON Schema into nodes once, validating every
``x-eval-*`` key and every comparator/transform parameter, so scoring never meets bad config.
"""

from __future__ import annotations

import itertools
import math
import os
import re
import sys
import unicodedata
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any, Final, NamedTuple

from ..align import AlignSpec
from ..errors import SchemaError, file_lines, hide_usage_error, placed
from ..paths import key_path
from ..registry import Entry, Registry
from .unicode_properties import UnsupportedProperty, property_class

# Every frame of this module reads a user's schema: pytest hides them all when the error is
# one of ours (a bad schema) or a schema's warning a filter made an error, so the traceback
# ends at the user's call (errors.hide_usage_error; any other error, a bug, shows them).
__tracebackhide__ = hide_usage_error

__all__ = [
    "ANY_TYPES",
    "JSON_TYPES",
    "ComparatorSpec",
    "KeyPattern",
    "SchemaFile",
    "SchemaNode",
    "SchemaWarning",
    "TransformSpec",
    "as_schema",
    "declared_types",
    "inferred_types",
    "item_path",
    "json_type",
    "key_schema",
    "node_type",
    "parse_eval_schema",
    "parse_xeval_entry",
    "pattern_path",
    "pattern_schemas",
    "property_spellings",
    "schema_file_of",
    "schema_line",
    "schema_read_from",
    "shape_children",
    "short_repr",
    "values_path",
    "values_schema",
    "warn_schema_at",
    "warning_at_file",
    "written_at",
    "written_table",
]

JSON_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
#: Every non-null JSON type: what a node without any type information allows.
ANY_TYPES = JSON_TYPES - {"null"}


class SchemaWarning(UserWarning):
    """A schema is usable but probably not what its author meant (unknown key, odd comparator)."""


Noted = tuple[str, str | None, int, str | None]
"""A ``SchemaWarning`` given: its message, and the file and line it is located at (``None``
and 0: the caller's line, found from the stack), and the folder that file's name is relative
to (``None``: the working folder)."""
_WARNED: ContextVar[list[Noted] | None] = ContextVar("structeval_schema_warned", default=None)
_PACKAGE: Final = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


SchemaFile = tuple[str, str | None, str | int | None]
"""A file a schema is read from: its name as warnings show it, the folder that name is
relative to (None: the working one), and where in it the schema is written: None, the whole
file; a path of the file's document (a scenario's inline ``schema:``, ``[2].schema``); a
line (a JSONL scenario file's line)."""
_INLINE_MAX_BYTES: Final = 100_000_000  # a scenario file's bound (scenarios.py)

# the schema file being parsed, if any
_FILE: ContextVar[SchemaFile | None] = ContextVar("structeval_schema_file", default=None)


Written = tuple[Callable[[Any], str | None], tuple[Mapping[str, Any], ...]]
"""The objects of a schema document that resolution merged into one node of the resolved
schema (the node's own first, then what its ``$ref`` and combinators name, as
``resolve_schema_references`` reads them: a key's first writing is the one read), and what
tells where an object is written in that document (``Document.path_of``)."""
# within a file's warnings: each resolved node's path -> what it is made of (see written_at)
_WRITTEN: ContextVar[dict[str, Written] | None] = ContextVar(
    "structeval_schema_written", default=None
)


@contextmanager
def warning_at_file(file: SchemaFile | None) -> Iterator[None]:
    """Inside the block, :func:`warn_schema` warns at the schema file ``file``, at the line
    that writes the key it is about: a schema read from a file is parsed there, and its
    problems are the file's. None: at the caller's line, as outside."""
    token = _FILE.set(file)
    written = _WRITTEN.set(None if file is None else {})
    try:
        yield
    finally:
        _WRITTEN.reset(written)
        _FILE.reset(token)


_ANY_VALUE: Final = object()  # (written_at: whatever value the key holds)


def written_table() -> dict[str, Written] | None:
    """Where resolution notes what each node of the resolved schema is made of, by the node's
    path, inside :func:`warning_at_file` with a file; None elsewhere (a warning is then at
    the caller's line: nothing needs noting)."""
    return _WRITTEN.get()


def written_at(
    where: str, key: str, inside: str | None = None, *, value: Any = _ANY_VALUE
) -> tuple[str, str]:
    """``at`` for :func:`warn_schema` of the key ``key`` of the resolved schema's node at
    ``where`` (or of its member ``inside``: ``patternProperties``): the path in the document
    of the object that writes it, the first of those resolution merged into the node (see
    :data:`Written`) that writes the node's ``value`` (branches merged keep the first value
    they meet, which need not be the first object read), so a definition a ``$ref`` names
    warns where the definition writes the key, not where the reference is; else the path in
    the resolved schema (the document's, where no reference or combinator made the node)."""
    table = _WRITTEN.get()
    written = None if table is None else table.get(where)
    if written is not None:
        path_of, pieces = written
        holders = [
            holder
            for holder in (piece if inside is None else piece.get(inside) for piece in pieces)
            if isinstance(holder, Mapping) and key in holder
        ]
        holders.sort(key=lambda holder: value is not _ANY_VALUE and holder[key] != value)
        for holder in holders:
            path = path_of(holder)
            if path is not None:
                return path, key
    return (where if inside is None else key_path(where, inside)), key


# a schema given as a mapping read from a file (a scenario's ``schema:``): it, and that file
_READ: ContextVar[tuple[Any, SchemaFile] | None] = ContextVar(
    "structeval_schema_read", default=None
)


@contextmanager
def schema_read_from(
    schema: Any, shown: str, root: str | None, within: str | int | None = None
) -> Iterator[None]:
    """Inside the block, the mapping ``schema`` (this very object) is the file ``shown``'s
    (relative to ``root``; ``within``: where in it, see :data:`SchemaFile`) where it is
    parsed: its warnings are located there (:func:`schema_file_of`)."""
    token = _READ.set((schema, (shown, root, within)))
    try:
        yield
    finally:
        _READ.reset(token)


def schema_file_of(schema: Any) -> SchemaFile | None:
    """The file the schema mapping was read from, when :func:`schema_read_from` says; None
    otherwise."""
    read = _READ.get()
    return None if read is None or read[0] is not schema else read[1]


def warn_schema(message: str, *, stacklevel: int, at: tuple[str, str] | None = None) -> None:
    """Warn with ``SchemaWarning`` (``stacklevel`` as if ``warnings.warn`` were called here),
    and note it for :func:`noting_warnings`. Inside :func:`warning_at_file`, it is located at
    the schema file instead: at the line that writes ``at`` (the path in the document of the
    object that holds the key, and the key), else at its first line (or the line of the
    schema written inline)."""
    file = _FILE.get()
    if file is not None:
        warn_schema_at(message, file[0], schema_line(file, at), file[1])
        return
    warned = _WARNED.get()
    if warned is not None:
        warned.append((message, None, 0, None))
    # at least ``stacklevel`` up, and past this package's frames: score() parses the schema
    # a few calls down, and the line to show is the user's call
    level, frame = 1, sys._getframe(0)
    while frame.f_back is not None and (
        level <= stacklevel or frame.f_code.co_filename.startswith(_PACKAGE)
    ):
        frame, level = frame.f_back, level + 1
    warnings.warn(SchemaWarning(message), stacklevel=level)


_FILE_WARNINGS: dict[Any, Any] = {}  # (warnings' registry for warnings located in a file)


def schema_line(file: SchemaFile, at: tuple[str, str] | None) -> int:
    """The line of the schema file ``file`` that writes ``at`` (the path in the schema of
    the object that holds a key, and the key), else where the schema starts: line 1 of a
    file that is all schema."""
    shown, root, within = file
    if isinstance(within, int):  # (a JSONL line holds the whole schema)
        return within
    from ..goldline import schema_key_line
    from ..parse import DEFAULT_MAX_BYTES

    read = os.path.join(root or "", shown)
    if within is None:
        return 1 if at is None else schema_key_line(read, *at, DEFAULT_MAX_BYTES)
    where, key = at if at is not None else ("", None)
    return schema_key_line(read, where, key, _INLINE_MAX_BYTES, within)


def warn_schema_at(message: str, filename: str, lineno: int, root: str | None = None) -> None:
    """:func:`warn_schema`, located at ``filename``'s line ``lineno`` (a schema file's own
    problem, wherever it is read from): shown once per line where the filters show it once.
    ``root``: the folder ``filename`` is relative to, when it is not the working folder."""
    warned = _WARNED.get()
    if warned is not None:
        warned.append((message, filename, lineno, root))
    module = filename[:-3] if filename[-3:].lower() == ".py" else filename
    file_lines(filename, root)  # (the line shown: the file's, from any working folder)
    warning = placed(SchemaWarning(message), filename, lineno)  # (a run's error names it)
    warnings.warn_explicit(warning, SchemaWarning, filename, lineno, module, _FILE_WARNINGS)


@contextmanager
def noting_warnings() -> Iterator[list[Noted]]:
    """The warnings :func:`warn_schema` and :func:`warn_schema_at` issue inside the block (in
    this context only), so a caller that keeps a parsed schema can tell whether parsing it
    warned, and give a warning located in a file again (:func:`warn_schema_at`) at each use."""
    warned: list[Noted] = []
    token = _WARNED.set(warned)
    try:
        yield warned
    finally:
        _WARNED.reset(token)


@dataclass(frozen=True, slots=True)
class ComparatorSpec:
    """A comparator by registry name plus its (validated) parameters."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TransformSpec:
    """A transform by registry name plus its (validated) parameters."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)


class KeyPattern(NamedTuple):
    """A ``patternProperties`` entry with a schema: undeclared keys in which ``regex`` finds a
    match (``re.search``, as JSON Schema) are scored by ``node``."""

    regex: re.Pattern[str]
    node: SchemaNode


_UNEXPANDED: Final = "; scored as one value"


def unexpanded_comment(ref: str, why: str) -> str:
    """The ``$comment`` of a ``$ref`` that resolution left unexpanded (a recursion cut)."""
    return f"$ref {ref!r} not expanded ({why}){_UNEXPANDED}"


def unexpanded(schema: Mapping[str, Any]) -> str:
    """That comment when ``schema`` carries one, else ``""``: the reason of the unit's
    mismatch."""
    comment = schema.get("$comment")
    if isinstance(comment, str) and comment.startswith("$ref ") and comment.endswith(_UNEXPANDED):
        return comment
    return ""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class SchemaNode:
    """One schema position. Identity-hashed (usable as a cache key); children are ordered.

    ``type`` is one JSON type, or ``"multi"`` when several non-null types are allowed (the node is
    then scored as one unit). ``nullable`` says ``null`` is allowed too.

    Keys outside ``properties`` go, in this order, to the first of ``patterns`` that matches
    (scored by its node), to ``open_patterns`` (allowed, unscored: their schema states
    nothing), to ``values`` (a map's value schema), or else follow ``additional``; see
    :func:`key_schema`.
    """

    path: str
    name: str | None
    type: str
    allowed_types: frozenset[str]
    nullable: bool = False
    properties: Mapping[str, SchemaNode] = field(default_factory=dict)
    items: SchemaNode | None = None
    compare: ComparatorSpec | None = None
    transforms: tuple[TransformSpec, ...] = ()
    align: AlignSpec | None = None
    skip: bool = False
    required: frozenset[str] = frozenset()
    additional: bool = False
    values: SchemaNode | None = None
    patterns: tuple[KeyPattern, ...] = ()
    open_patterns: tuple[re.Pattern[str], ...] = ()
    #: Why a unit stands for a subtree left unexpanded (a recursive ``$ref``), else "": the
    #: reason of its mismatch.
    opaque: str = ""
    #: The comparator score at which this field counts as a match (``x-eval-threshold``).
    threshold: float = 1.0

    def is_leaf(self) -> bool:
        """No structural children: a scalar, a multi-type node, or a shapeless object/array."""
        return (
            not self.properties and self.items is None and self.values is None and not self.patterns
        )

    def is_unit(self) -> bool:
        """Scored as one value by ``compare``: a leaf, or a container with its own comparator."""
        return self.compare is not None or self.is_leaf()

    def __repr__(self) -> str:
        # Shallow on purpose: the dataclass repr would recurse through thousands of levels.
        return f"SchemaNode(path={self.path!r}, type={self.type!r})"


def property_spellings(node: SchemaNode) -> dict[str, str]:
    """The property names of ``node``'s tree that are not ASCII, by their NFC form (a form
    that two spellings share is left out): a key written composed or decomposed names the
    property the schema spells either way."""
    spellings: dict[str, str | None] = {}
    stack, seen = [node], set()
    while stack:
        at = stack.pop()
        if id(at) in seen:
            continue
        seen.add(id(at))
        for name, child in at.properties.items():
            if not name.isascii():
                form = unicodedata.normalize("NFC", name)
                spellings[form] = name if spellings.get(form, name) == name else None
            stack.append(child)
        stack.extend(x for x in (at.items, at.values) if x is not None)
        stack.extend(pattern.node for pattern in at.patterns)
    return {form: name for form, name in spellings.items() if name is not None}


def item_path(parent: str) -> str:
    """Schema path of the items of array ``parent``: ``steps[]``."""
    return f"{parent}[]"


def values_path(parent: str) -> str:
    """Schema path of the values of map-like object ``parent``: ``prices.*`` (a property named
    ``*`` is written ``prices["*"]``, so the two never meet)."""
    return f"{parent}.*" if parent else "*"


def pattern_path(parent: str, pattern: str) -> str:
    """Schema path of the keys matching ``pattern`` under object ``parent``: ``doc[/^body_/]``
    (a key path never holds ``[/``, so no property can take this name)."""
    return f"{parent}[/{pattern}/]"


def values_schema(schema: Mapping[str, Any], where: str, kind: str) -> tuple[str, Any] | None:
    """``(location, subschema)`` of an object's ``additionalProperties`` when it is a schema
    for the values of undeclared keys (a non-empty object), else None.

    ``true`` and ``{}`` only allow undeclared keys (they stay unscored).
    """
    if kind != "object":
        return None
    extra = schema.get("additionalProperties")
    if isinstance(extra, Mapping) and extra:
        return key_path(where, "additionalProperties"), extra
    return None


_ANY_KEY: Final = re.compile("")


def pattern_schemas(
    schema: Mapping[str, Any], where: str, kind: str
) -> list[tuple[str, str, Any | None]]:
    """``(pattern, location, subschema or None)`` of an object's ``patternProperties``, in
    schema order; None for a schema that states nothing (``true``, ``{}``): matching keys are
    only allowed, like ``additionalProperties: true``. Raises ``SchemaError`` for a malformed
    ``patternProperties`` (not an object, or a non-string pattern)."""
    raw = schema.get("patternProperties") if kind == "object" else None
    if raw is None:
        return []
    base = key_path(where, "patternProperties")
    if not isinstance(raw, Mapping):
        raise SchemaError(f"{base}: must be an object mapping patterns to schemas")
    out: list[tuple[str, str, Any | None]] = []
    for pattern, sub in raw.items():
        if not isinstance(pattern, str):
            raise SchemaError(f"{base}: patterns must be strings, got {short_repr(pattern)}")
        empty = sub is True or (isinstance(sub, Mapping) and not sub)
        out.append((pattern, key_path(base, pattern), None if empty else sub))
    return out


def _compile_pattern(pattern: str, where: str) -> re.Pattern[str]:
    """``pattern``, a ``patternProperties`` key of the object at ``where``, as a Python regex
    (``re.ASCII``: ``\\d``, ``\\w`` and ``\\b`` are ASCII, as in JSON Schema's ECMA-262
    dialect). One Python cannot read (a typo, ``\\p{RGI_Emoji}``), or cannot match as
    ECMA-262 does (``^(?:(a)|b)+\\1$``, valid ECMA-262), gives a ``SchemaWarning`` naming it
    (at the line that writes it) and a pattern matching every key:
    the keys it may match are allowed and unscored, as under an external ``$ref``, rather
    than the whole schema refused or its keys called hallucinations."""
    regex, problem, readable = ecma_pattern(pattern)
    if regex is not None:
        return regex
    cannot = "match this pattern as ECMA-262 does" if readable else "read this pattern"
    warn_schema(
        f"{key_path(key_path(where, 'patternProperties'), pattern)}: Python's re cannot "
        f"{cannot} ({problem}); undeclared keys of this object are allowed and unscored (an "
        "object with nothing else to score is compared as one value)",
        stacklevel=2,
        at=written_at(where, pattern, "patternProperties"),
    )
    return _ANY_KEY


def ecma_regex(pattern: str) -> tuple[re.Pattern[str] | None, str]:
    """A JSON Schema (ECMA-262) ``pattern`` as a Python regex, or None and why Python's ``re``
    cannot read it (with positions in the user's pattern). ``\\d``, ``\\w`` and ``\\b`` are
    ASCII (``re.ASCII``), as in ECMA-262; ``\\s``/``\\S`` are ECMA-262's Unicode white space
    (``\\u00a0``, ``\\u2028``, ``\\ufeff``...), written out as classes; ``$`` outside a class
    ends the text only (Python's ``$`` also matches before a final newline), and ``.`` matches
    no line terminator (``\\r``, ``\\u2028``, ``\\u2029`` either). ECMA-262's own
    forms are translated: named groups ``(?<name>...)`` and their ``\\k<name>`` (a name Python
    cannot take, such as ``a$``, renamed consistently; ``\\u`` escapes in names read),
    ``\\cX`` control escapes, ``[^]`` (any character) and ``[]`` (none); a backreference to a
    group that has matched nothing, or that it does not follow, is empty, and so is one to a
    group a repetition's pass skipped (see :meth:`_Groups._passes`); Unicode property escapes
    (``\\p{L}``, ``\\P{Script=Greek}``) are classes (``unicode_properties``). What has no exact
    Python form (a backreference to a group that a repetition's pass may skip other than by
    its own ``?``: ``^(?:(a)|b)+\\1$``) is refused; the message quotes the pattern as
    written."""
    regex, problem, _ = ecma_pattern(pattern)
    return regex, problem


def is_ecma_regex(pattern: str) -> bool:
    """Whether ``pattern`` reads as ECMA-262 (as far as Python's ``re`` can tell): what
    :func:`ecma_regex` compiles, and what it reads but cannot match as ECMA-262 does."""
    regex, _, readable = ecma_pattern(pattern)
    return regex is not None or readable


def ecma_pattern(pattern: str) -> tuple[re.Pattern[str] | None, str, bool]:
    """:func:`ecma_regex`, and whether Python's ``re`` read the pattern: a pattern it reads
    but cannot match as ECMA-262 does has no regex, a reason, and True."""
    names: dict[str, str] = {}
    try:
        translated, origin, names, unsupported = _ecma_to_python(pattern)
        source, origin = _literal_set_operators(translated, origin)
        regex = _compile_quietly(source)
    except re.error as exc:
        message = exc.msg
        for python, written in names.items():  # a group renamed for Python: as written
            message = message.replace(repr(python), repr(written))
        if exc.pos is None:
            return None, message, False
        at = origin[exc.pos] if exc.pos < len(origin) else len(pattern)
        return None, str(re.error(message, pattern, at)), False
    except OverflowError as exc:
        return None, str(exc), False
    except RecursionError:  # re's parser recurses into groups
        return None, "groups nested too deeply", False
    if unsupported:
        return None, unsupported[0], True
    return regex, "", True


def _literal_set_operators(source: str, origin: list[int]) -> tuple[str, list[int]]:
    """``source`` (a translated pattern, with the origin of each of its characters) with the
    class members Python's ``re`` reads as literals today but warns about as possible future
    set syntax escaped, as literals: a ``[`` opening a class (``[[``), and a doubled ``-``,
    ``&``, ``~`` or ``|`` (``[a--z]``, ``[a&&b]``). ECMA-262 (without the ``v`` flag) reads
    them as literals, and so does ``re``, but with a ``FutureWarning`` that ``-W error`` made
    an exception out of the scorer. The escaped form is the same pattern, read with no
    warning; an escape's origin is its character's."""
    marks = _set_operator_marks(source)
    if not marks:
        return source, origin
    text: list[str] = []
    where: list[int] = []
    last = 0
    for at in marks:
        text += (source[last:at], "\\")
        where += origin[last:at]
        where.append(origin[at])
        last = at
    text.append(source[last:])
    where += origin[last:]
    return "".join(text), where


def _set_operator_marks(source: str) -> list[int]:
    """Where, in Python regex ``source``, a class member stands that ``re`` warns about as a
    possible set operation, read the way ``re``'s parser reads a class (its first ``]`` is a
    member, a ``-`` after a member makes a range unless a ``]`` follows)."""
    marks: list[int] = []
    i, n = 0, len(source)
    while i < n:
        if source[i] == "\\":
            i += 2
        elif source.startswith("(?#", i):  # a comment runs to its first unescaped ")"
            i += 3
            while i < n and source[i] != ")":
                i += 2 if source[i] == "\\" else 1
            i += 1
        elif source[i] != "[":
            i += 1
        else:
            i += 1
            if source.startswith("[", i):  # "Possible nested set"
                marks.append(i)
            i += source.startswith("^", i)
            first = True
            while i < n and not (source[i] == "]" and not first):
                at, i = i, _member_end(source, i)
                member = source[at:i]
                if not first and member in _SET_OPERATORS and source.startswith(member, i):
                    marks.append(at)  # "Possible set difference / intersection / ..."
                first = False
                if source.startswith("-", i) and not source.startswith("-]", i):  # a range
                    at, i = i + 1, _member_end(source, i + 1)
                    if source[at:i] == "-":  # "Possible set difference"
                        marks.append(at)
            i += 1
    return marks


def _member_end(source: str, at: int) -> int:
    """Where the class member starting at ``source[at]`` ends, as ``re``'s parser reads it."""
    if at >= len(source) or source[at] != "\\":
        return min(at + 1, len(source))
    found = _PYTHON_CLASS_ESCAPE.match(source, at)
    return found.end() if found is not None else at + 1


_SET_OPERATORS: Final = ("-", "&", "~", "|")
_PYTHON_CLASS_ESCAPE: Final = re.compile(
    r"\\(?:x[0-9A-Fa-f]{0,2}|u[0-9A-Fa-f]{0,4}|U[0-9A-Fa-f]{0,8}|N\{[^}]*\}?|[0-7]{1,3}|.)?",
    re.DOTALL,
)
# An inline flag group: with verbose mode, a '#' outside a class starts a comment, so the
# scan above could misread a class; and Python 3.10 warns about a global flag not at the start.
_INLINE_FLAGS: Final = re.compile(r"\(\?[aiLmsux-]+[:)]")


def _compile_quietly(source: str) -> re.Pattern[str]:
    """``re.compile(source, re.ASCII)``, read the same under every warnings filter: a pattern
    with inline flags (not ECMA-262; left to Python) is compiled with ``re``'s
    ``FutureWarning`` and ``DeprecationWarning`` ignored, which the escapes of
    :func:`_literal_set_operators` cannot rule out there."""
    if _INLINE_FLAGS.search(source) is None:
        return re.compile(source, re.ASCII)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return re.compile(source, re.ASCII)


_ECMA_SPACE: Final = r"\t-\r\x20\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""ECMA-262's ``\\s`` (WhiteSpace and LineTerminator) as the inside of a class."""
_SPACE_ESCAPES: Final = ("\\s", "\\S")
_ESCAPE: Final = re.compile(
    r"\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0-7]{1,3}|c[A-Za-z]|[pP]\{[^}]*\}|.)?",
    re.ASCII | re.DOTALL,
)
_GROUP_NAME: Final = re.compile(r"<([^>]*)>")


_BACKREFERENCE: Final = re.compile(r"\\([1-9][0-9]*)", re.ASCII)
_QUANTIFIER: Final = re.compile(r"(?:[*+?]|\{([0-9]+)(?:(,)([0-9]*))?\})\??", re.ASCII)
_Path = tuple[tuple[int, int], ...]
"""Where a part of a pattern stands: (the group's position, -1 for the whole pattern; which of
its alternatives) for each group around it, outermost first."""


@dataclass(slots=True)
class _Group:
    path: _Path  # where its "(" stands
    start: int  # its "("
    end: int = -1  # its ")"


@dataclass(slots=True)
class _Node:
    """Any group (capturing or not), or the whole pattern: how many alternatives it has, the
    bounds and text of the quantifier after it (1, 1 and "" when there is none), and whether
    it can match nothing (its quantifier aside)."""

    alternatives: int = 1
    least: int = 1
    most: float = 1
    quantifier: str = ""
    around: bool = False  # a lookaround: it matches no text
    ahead: bool = False  # a lookahead (not a negative one): its captures stay
    end: int = -1  # its ")"
    nullable: bool = False  # one of its alternatives can match nothing
    consumed: bool = False  # (while it is read: its current alternative matches something)

    def next_alternative(self) -> None:
        """The alternative read so far ends."""
        self.nullable = self.nullable or not self.consumed
        self.consumed = False


@dataclass(frozen=True, slots=True)
class _Groups:
    """A pattern's capturing groups (by number and by name) and where its backreferences
    stand, for what ECMA-262 reads as an empty backreference; and what ECMA-262's emptying of
    a repetition's groups at each pass asks of the translation (see :meth:`_passes`)."""

    numbered: list[_Group]
    named: dict[str, _Group]
    places: dict[int, tuple[_Path, bool]]  # a backreference's "\\" -> path, in a lookbehind
    nodes: dict[int, _Node]  # a group's "(" (-1: the whole pattern) -> its shape
    optional: set[int] = field(default_factory=set)  # see _passes
    unsupported: list[str] = field(default_factory=list)
    lookaheads: dict[int, bool] = field(default_factory=dict)  # see _drops_inside

    @classmethod
    def of(cls, pattern: str) -> _Groups:
        numbered: list[_Group] = []
        named: dict[str, _Group] = {}
        places: dict[int, tuple[_Path, bool]] = {}
        nodes: dict[int, _Node] = {-1: _Node()}
        # the groups open here: [position, alternative, capturing group or None, lookbehind]
        stack: list[tuple[int, list[int], _Group | None, bool]] = [(-1, [0], None, False)]

        def atom(end: int, *, empty: bool = False) -> int:
            """An atom ends at ``end``: where its quantifier ends. An atom that cannot match
            nothing (not ``empty``), and not made optional, consumes in its alternative."""
            quantifier = _QUANTIFIER.match(pattern, end)
            if not empty and (quantifier is None or _bounds(quantifier)[0] > 0):
                nodes[stack[-1][0]].consumed = True
            return end if quantifier is None else quantifier.end()

        i, n = 0, len(pattern)
        while i < n:
            char = pattern[i]
            if char == "\\":
                number = _BACKREFERENCE.match(pattern, i)
                name = _GROUP_NAME.match(pattern, i + 2) if pattern[i + 1 : i + 2] == "k" else None
                if number is not None or pattern.startswith("\\k<", i):
                    places[i] = (_path(stack), any(frame[3] for frame in stack))
                if pattern[i + 1 : i + 2] in ("b", "B"):  # an assertion
                    i += 2
                else:  # (a backreference can match nothing)
                    reference = number or name
                    end = reference.end() if reference else i + _escape_length(pattern, i)
                    i = atom(end, empty=reference is not None)
                continue
            if char == "[":
                i = atom(_class_end(pattern, i))
                continue
            if char == "(":
                behind = pattern.startswith(("(?<=", "(?<!"), i)
                name = None
                if not behind and pattern.startswith(("(?<", "(?P<"), i):
                    name = _GROUP_NAME.match(pattern, pattern.index("<", i))
                group = None
                if name is not None or not pattern.startswith("(?", i):
                    group = _Group(_path(stack), i)
                    numbered.append(group)
                    if name is not None:
                        named.setdefault(name[1], group)
                ahead = pattern.startswith("(?=", i)
                nodes[i] = _Node(around=behind or ahead or pattern.startswith("(?!", i))
                nodes[i].ahead = ahead
                stack.append((i, [0], group, behind))
                if name is not None:  # past its name (as past "(?:", "(?=", "(?<!"...)
                    i = name.end()
                elif pattern.startswith("(?", i):
                    i += 4 if behind else 3
                else:
                    i += 1
                continue
            elif char == "|":
                stack[-1][1][0] += 1
                nodes[stack[-1][0]].next_alternative()
            elif char == ")" and len(stack) > 1:
                start, alternative, closed, _ = stack.pop()
                if closed is not None:
                    closed.end = i
                node = nodes[start]
                node.alternatives, node.end = alternative[0] + 1, i
                node.next_alternative()
                quantifier = _QUANTIFIER.match(pattern, i + 1)
                if quantifier is not None:
                    node.quantifier = quantifier[0]
                    node.least, node.most = _bounds(quantifier)
                i = atom(i + 1, empty=node.around or node.nullable)
                continue
            elif char not in "^$*+?":  # (a quantifier after an atom is read with it)
                i = atom(i + 1)
                continue
            i += 1
        nodes[-1].alternatives = stack[0][1][0] + 1
        nodes[-1].next_alternative()
        groups = cls(numbered, named, places, nodes)
        for at in places:
            groups._passes(pattern, at)
        return groups

    def _drops_inside(self, start: int) -> bool:
        """Whether the group at ``start`` holds one whose pass over nothing ECMA-262 may drop
        (worked out once per group)."""
        known = self.lookaheads.get(start)
        if known is None:
            end = self.nodes[start].end
            known = self.lookaheads[start] = any(
                start < at < end and _drops_empty(node) for at, node in self.nodes.items()
            )
        return known

    def has(self, number: str) -> bool:
        return int(number) <= len(self.numbered)

    def reference(self, key: int | str, at: int, python: str | None = None) -> str:
        """The backreference at ``at`` to group ``key`` (a number or a name) in Python's terms:
        one that refers to a group that has matched nothing is empty (Python's ``(?(1)\\1)``)
        and one that comes before its group closes (``\\1(a)``, ``(a\\1)``), or stands in
        another alternative (``(a)|\\1``), is always empty, as in ECMA-262. ``python``: the
        name Python knows a named group by, when it differs (see :func:`_python_name`)."""
        if isinstance(key, str):
            text = f"(?({python or key})(?P={python or key}))"
        else:
            if key > 99:
                raise re.error(
                    f"backreference \\{key} at position {at}: Python's re cannot "
                    "refer to more than 99 groups"
                )
            text = f"(?({key})\\{key})"
        return "(?:)" if self._empty(self._target(key), at) else text

    def _target(self, key: int | str) -> _Group | None:
        if isinstance(key, str):
            return self.named.get(key)
        return self.numbered[key - 1] if key <= len(self.numbered) else None

    def _empty(self, group: _Group | None, at: int) -> bool:
        """Whether the backreference at ``at`` to ``group`` is always empty in ECMA-262 (and
        left to Python: as Python reads it, when it is in a lookbehind)."""
        path, behind = self.places[at]
        if group is None or behind or group.end < 0:  # left to Python
            return False
        return group.end > at or _apart(group.path, path)

    def _passes(self, pattern: str, at: int) -> None:
        """ECMA-262 empties a repetition's groups at the start of each pass; Python's ``re``
        keeps what an earlier pass captured. So a backreference to a group inside a
        repetition that a pass may skip (an optional group, another alternative) reads the
        old capture in Python where ECMA-262 reads an empty one: ``^(?:(a)|b)+\\1$`` takes
        ``ab`` in ECMA-262. When the group's own ``?`` is all that lets a pass skip it, the
        translation puts the ``?`` inside the group (``((?:a)?)``), so each pass sets it, to
        nothing when it is skipped, which a backreference reads as ECMA-262 reads a group
        emptied (``optional``). Anything else cannot be written in Python's ``re``
        (``unsupported``)."""
        number = _BACKREFERENCE.match(pattern, at)
        if number is not None:
            key: int | str = int(number[1])
            written = number[0]
        else:
            name = _GROUP_NAME.match(pattern, at + 2)
            if name is None:
                return
            key, written = name[1], f"\\k{name[0]}"
        group = self._target(key)
        if group is None or group.end < 0 or self.places[at][1] or self._empty(group, at):
            return
        chain = [group.start, *(start for start, _ in reversed(group.path) if start >= 0)]
        if any(self.nodes[start].most == 0 for start in chain):
            return  # it never captures
        around = {start for start, _ in self.places[at][0]}
        problem = ""
        for k, start in enumerate(chain):
            if start in around:
                break
            node = self.nodes[start]
            if node.ahead and self._drops_inside(start):  # (its first way to match counts)
                problem = f"the lookahead at position {start} holds a group"
                break
            # (a pass over nothing sets the group only where it can match nothing too, or
            # captures in a lookaround; a `?` is skipped instead, which leaves the same, but
            # the group's own `?` may go inside it, below)
            own = self.nodes[group.start]
            seen = any(self.nodes[member].around for member in chain[:k])
            if _drops_empty(node) and (
                seen or (node.most > 1 and (own.nullable or own.least == 0))
            ):
                problem = f"its group is inside the group at position {start}"
                break
        if problem:
            self.unsupported.append(
                f"backreference {written} at position {at}: {problem} whose quantifier may "
                "repeat it over nothing, a pass ECMA-262 drops with its captures, where "
                "Python's re keeps them"
            )
            return
        common = next((start for start in chain if start in around), -1)
        skipped: dict[int, int] = {}  # what lets a pass skip the group -> the repetition
        for k, start in enumerate(chain[1:], 1):
            node = self.nodes[start]
            if node.most <= 1:
                continue
            if start in around:  # the reference is in the pass: up to their common group
                inside = chain[: chain.index(common)]
            else:  # after the repetition: the whole pass, its own alternatives too
                inside = chain[:k]
                if node.alternatives > 1:
                    skipped.setdefault(start, start)
            for member in inside:
                shape = self.nodes[member]
                if shape.least == 0 or (member != group.start and shape.alternatives > 1):
                    skipped.setdefault(member, start)
        if not skipped:
            return
        python = pattern.startswith("(?P", group.start)  # (Python's syntax, not ECMA-262's)
        if set(skipped) == {group.start} and self.nodes[group.start].most == 1 and not python:
            self.optional.add(group.start)
            return
        where = min(skipped.items(), key=lambda item: item[0] == group.start)[1]
        self.unsupported.append(
            f"backreference {written} at position {at} refers to a group that a pass of the "
            f"repetition at position {where} may skip: ECMA-262 empties the group at each "
            "pass, where Python's re keeps an earlier pass's capture"
        )


def _drops_empty(node: _Node) -> bool:
    """Whether ECMA-262 may drop a pass of ``node`` that matches nothing: one past the least
    its quantifier asks for, of a group that can match nothing."""
    return node.nullable and node.most > node.least


def _bounds(quantifier: re.Match[str]) -> tuple[int, float]:
    """The least and most passes a quantifier (``*``, ``{2,}``...) allows."""
    if quantifier[1] is None:
        return {"*": (0, math.inf), "+": (1, math.inf), "?": (0, 1)}[quantifier[0][0]]
    least = int(quantifier[1])
    if quantifier[2] is None:
        return least, least
    return least, int(quantifier[3]) if quantifier[3] else math.inf


_NO_GROUPS: Final = _Groups([], {}, {}, {})
_REFERENCES: Final = re.compile(r"\\(?:[1-9]|k<)")


def _path(stack: list[tuple[int, list[int], _Group | None, bool]]) -> _Path:
    return tuple((frame[0], frame[1][0]) for frame in stack)


def _apart(first: _Path, second: _Path) -> bool:
    """Whether two places stand in different alternatives of one group (or of the pattern)."""
    for (group, alternative), (other, other_alternative) in zip(first, second, strict=False):
        if group != other:
            return False
        if alternative != other_alternative:
            return True
    return False


def _class_end(pattern: str, start: int) -> int:
    """Where the class opening at ``pattern[start]`` ends (past its ``]``), as ECMA-262 reads
    it: its first ``]`` closes it."""
    i, n = start + 1, len(pattern)
    i += pattern[i : i + 1] == "^"
    while i < n and pattern[i] != "]":
        i += _escape_length(pattern, i) if pattern[i] == "\\" else 1
    return i + 1


def _is_property(token: str) -> bool:
    """Whether an escape is a Unicode property (``\\p{L}``, ``\\P{Script=Greek}``)."""
    return len(token) > 2 and token[1] in "pP"


def _property(token: str, at: int) -> str:
    """The inside of a class for the property escape ``token`` at ``at``; ``re.error`` (with
    the position in its message) for one that cannot be read."""
    try:
        return property_class(token[3:-1], negated=token[1] == "P")
    except UnsupportedProperty as exc:
        what, why = exc.args
        raise re.error(f"{what} at position {at}{why}") from None


def _escape_length(pattern: str, at: int) -> int:
    """How many characters the escape starting at ``pattern[at]`` (a backslash) takes."""
    found = _ESCAPE.match(pattern, at)
    return found.end() - at if found is not None else 1


def _control(token: str) -> str:
    """``\\cJ`` as the character it names (``\\x0a``); any other escape as it is."""
    if len(token) == 3 and token[1] == "c":
        return f"\\x{ord(token[2]) % 32:02x}"
    return token


def _member(atom: str) -> str:
    """One character of a class written out again: a ``-``, ``^`` or ``[`` escaped, as it may
    now stand where it would mean something else; ``\\cX`` as the character it names."""
    return "\\" + atom if atom in ("-", "^", "[") else _control(atom)


def _ecma_to_python(pattern: str) -> tuple[str, list[int], dict[str, str], list[str]]:
    """``pattern`` in Python's terms (see :func:`ecma_regex`), for each character of it the
    position in ``pattern`` it comes from, the groups renamed (Python's name -> the name as
    written), and why Python's ``re`` cannot match it as ECMA-262 does, though it reads it
    (a backreference into a repetition: see :meth:`_Groups._passes`)."""
    if not any(char in pattern for char in "$\\[(."):
        return pattern, list(range(len(pattern))), {}, []
    names = _python_group_names(pattern)
    renamed: dict[str, str] = {}  # Python's name -> the name as its group writes it
    out: list[tuple[str, int]] = []
    groups = _Groups.of(pattern) if _REFERENCES.search(pattern) else _NO_GROUPS
    # groups whose `?` goes inside them, by the position of their ")"
    closing = {g.end: g for g in groups.numbered if g.start in groups.optional}
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            size = _escape_length(pattern, i)
            token = pattern[i : i + size]
            name = _GROUP_NAME.match(pattern, i + 2) if token == "\\k" else None
            number = _BACKREFERENCE.match(pattern, i)
            if name is not None:  # a backreference: empty while its group has matched nothing
                python = _python_name(name[1], names)
                out.append((groups.reference(name[1], i, python), i))
                size = name.end() - i
            elif number is not None and groups.has(number[1]):
                out.append((groups.reference(int(number[1]), i), i))
                size = number.end() - i
            elif token in _SPACE_ESCAPES:
                out.append((f"[{'^' * (token == _SPACE_ESCAPES[1])}{_ECMA_SPACE}]", i))
            elif _is_property(token):  # (\P{Any} matches nothing)
                out.append((f"[{_property(token, i)}]" if token != "\\P{Any}" else "(?!)", i))
            else:
                out.append((_control(token), i))
            i += size
        elif char == "[":
            end, text = _ecma_class(pattern, i)
            out.append((text, i))
            if end - i == len(text):  # as written: errors inside point into it
                out[-1:] = [(c, i + k) for k, c in enumerate(text)]
            i = end
        elif char == "$":
            out.append((r"\Z", i))
            i += 1
        elif char == ".":  # any character but a line terminator
            out.append((r"[^\n\r\u2028\u2029]", i))
            i += 1
        elif pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            out.append(("(?P<", i))  # a named group (not a lookbehind)
            start = i
            i += 3
            name = _GROUP_NAME.match(pattern, i - 1)
            if name is not None:  # (its name as Python takes it; as written, Python refuses it)
                python = _python_name(name[1], names)
                if python == name[1]:  # (an error inside it points into it)
                    out.extend((char, i + k) for k, char in enumerate(python))
                else:
                    out.append((python, i))
                    renamed.setdefault(python, name[1])
                out.append((">", name.end() - 1))
                i = name.end()
            if start in groups.optional:
                out.append(("(?:", start))
        elif char == ")" and i in closing:  # `(a)?` as `((?:a)?)`: each pass sets it
            quantifier = groups.nodes[closing[i].start].quantifier
            out.extend([(")", i), (quantifier, i + 1), (")", i)])
            i += 1 + len(quantifier)
        else:
            out.append((char, i))
            if char == "(" and i in groups.optional:
                out.append(("(?:", i))
            i += 1
    origin = [at for text, at in out for _ in text]
    return "".join(text for text, _ in out), origin, renamed, groups.unsupported


_NAME_ESCAPE: Final = re.compile(r"\\u(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{4}))")


def _ecma_group_name(written: str) -> str | None:
    """A group name as ECMA-262 reads it (its ``\\u0061`` and ``\\u{61}`` escapes decoded), or
    None where it refuses it: a name starts with ``$``, ``_`` or an ID_Start character (a
    letter) and goes on with those, ID_Continue characters (digits...), U+200C and U+200D."""
    chars: list[str] = []
    i = 0
    while i < len(written):
        escape = _NAME_ESCAPE.match(written, i) if written[i] == "\\" else None
        if written[i] == "\\" and escape is None:
            return None
        code = int(escape[1] or escape[2], 16) if escape is not None else ord(written[i])
        if code > 0x10FFFF:
            return None
        chars.append(chr(code))
        i = escape.end() if escape is not None else i + 1
    try:  # (a pair of surrogate escapes is one character)
        name = "".join(chars).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        return None
    for k, char in enumerate(name):
        if char in "$_" or (k and char in "\u200c\u200d"):
            continue
        if not (char.isidentifier() if k == 0 else f"a{char}".isidentifier()):
            return None
    return name or None


def _python_group_names(pattern: str) -> dict[str, str]:
    """The name to give Python for each group name of ``pattern`` as ECMA-262 reads it: the
    name itself, or ``ecma_<n>`` (held nowhere in the pattern) for one Python cannot take
    (``a$``)."""
    names: dict[str, str] = {}
    i, n = 0, len(pattern)
    while i < n:
        if pattern[i] == "\\":
            i += _escape_length(pattern, i)
        elif pattern[i] == "[":
            i = _ecma_class(pattern, i)[0]
        elif pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            found = _GROUP_NAME.match(pattern, i + 2)
            name = _ecma_group_name(found[1]) if found is not None else None
            if name is not None:
                names[name] = name
            i += 3
        else:
            i += 1
    fresh = (f"ecma_{k}" for k in itertools.count())
    for name in names:
        if not name.isidentifier():
            names[name] = next(free for free in fresh if free not in pattern and free not in names)
    return names


def _python_name(written: str, names: dict[str, str]) -> str:
    """The name Python knows the group ``written`` by (see :func:`_python_group_names`); a name
    ECMA-262 refuses, or one no group takes that Python cannot take, as written (for Python to
    refuse)."""
    name = _ecma_group_name(written)
    if name is None:
        return written
    return names.get(name, name if name.isidentifier() else written)


def _ecma_class(pattern: str, start: int) -> tuple[int, str]:
    """The class opening at ``pattern[start]``: where it ends, and its Python text. As in
    ECMA-262, its first ``]`` closes it: ``[]`` matches nothing and ``[^]`` anything."""
    i, n = start + 1, len(pattern)
    negated = pattern[i : i + 1] == "^"
    i += negated
    atoms: list[str] = []
    places: list[int] = []  # where each atom is
    while i < n and pattern[i] != "]":
        size = _escape_length(pattern, i) if pattern[i] == "\\" else 1
        atoms.append(pattern[i : i + size])
        places.append(i)
        i += size
    if i >= n:  # unterminated: Python says so
        return n, pattern[start:]
    if not atoms:
        return i + 1, r"[\s\S]" if negated else "(?!)"
    if not any(
        atom in _SPACE_ESCAPES or atom.startswith("\\c") or _is_property(atom) for atom in atoms
    ):
        return i + 1, pattern[start : i + 1]
    members: list[str] = []
    other = False  # a \S, outside of which it cannot be written
    k = 0
    while k < len(atoms):
        atom = atoms[k]
        if k + 2 < len(atoms) and atoms[k + 1] == "-":  # a range
            if any(end in _SPACE_ESCAPES or _is_property(end) for end in (atom, atoms[k + 2])):
                return i + 1, pattern[start : i + 1]  # Python refuses it (a bad range)
            members.append(f"{_member(atom)}-{_member(atoms[k + 2])}")
            k += 3
            continue
        if atom == "\\s":
            members.append(_ECMA_SPACE)
        elif atom == "\\S":
            other = True
        elif _is_property(atom):
            members.append(_property(atom, places[k]))
        else:
            members.append(_member(atom))
        k += 1
    body = "".join(members)
    if not (body or other):  # [\P{Any}]
        text = r"[\s\S]" if negated else "(?!)"
    elif not other:
        text = f"[{'^' if negated else ''}{body}]"
    elif not negated:  # not white space, or a member
        text = f"(?:[^{_ECMA_SPACE}]|[{body}])" if body else f"[^{_ECMA_SPACE}]"
    else:  # white space and no member
        text = f"(?:(?![{body}])[{_ECMA_SPACE}])" if body else f"[{_ECMA_SPACE}]"
    return i + 1, text


def key_schema(node: SchemaNode, key: Any) -> SchemaNode | bool:
    """How object ``node`` treats ``key`` when it is not one of its ``properties``: the node
    that scores its value, ``True`` when it is allowed but unscored, ``False`` when the
    schema does not allow it.

    Of the patterns with a schema, the first in schema order that finds a match decides: JSON
    Schema applies every matching pattern, but scoring needs one comparator, and the order lets
    a schema put specific patterns before general ones. Patterns whose schema states nothing
    add no constraint, so they only allow the key. Then come a map's ``values``, then
    ``additional``.
    """
    if isinstance(key, str):
        for regex, sub in node.patterns:
            if regex.search(key) is not None:
                return sub
        for regex in node.open_patterns:
            if regex.search(key) is not None:
                return True
    return node.values if node.values is not None else node.additional


def json_type(value: Any) -> str | None:
    """The JSON type name of a Python value (``bool`` before ``int``); None when not JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return None


def declared_types(schema: Mapping[str, Any], where: str) -> frozenset[str] | None:
    """The type set a schema states (``type``, OpenAPI ``nullable``), or None when it states none.

    Raises ``SchemaError`` for a ``type`` that is not a JSON type name or a list of them.
    """
    raw = schema.get("type")
    if raw is None:
        return None
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise SchemaError(
            f"{key_path(where, 'type')}: must be a type name or a non-empty list of them, "
            f"got {short_repr(raw)}"
        )
    unknown = sorted(set(names) - JSON_TYPES)
    if unknown:
        raise SchemaError(
            f"{key_path(where, 'type')}: unknown type {unknown[0]!r}; "
            f"expected one of {', '.join(sorted(JSON_TYPES))}"
        )
    types = frozenset(names)
    if schema.get("nullable") is True:
        types |= {"null"}
    return types


def inferred_types(schema: Mapping[str, Any]) -> frozenset[str] | None:
    """Types implied by a schema without ``type``: its shape keywords, ``enum`` or ``const``."""
    if any(
        k in schema for k in ("properties", "required", "additionalProperties", "patternProperties")
    ):
        return frozenset({"object"})
    if any(k in schema for k in ("items", "prefixItems")):
        return frozenset({"array"})
    values: list[Any] | None = None
    if "const" in schema:
        values = [schema["const"]]
    elif isinstance(schema.get("enum"), list) and schema["enum"]:
        values = schema["enum"]
    if values is None:
        return None
    found = {json_type(v) for v in values}
    if None in found:
        return None
    return frozenset(t for t in found if t is not None)


# --------------------------------------------------------------------------- parsing

_XEVAL = "x-eval-"
_XEVAL_KEYS = (
    "x-eval-compare",
    "x-eval-transform",
    "x-eval-align",
    "x-eval-skip",
    "x-eval-threshold",
)
_XEVAL_NAMES = tuple(key[len(_XEVAL) :] for key in _XEVAL_KEYS)
_NOT_LOWER = re.compile("[^a-z]")
_UNRESOLVED = ("$ref", "$recursiveRef", "$dynamicRef", "allOf", "anyOf", "oneOf")


def parse_xeval_entry(entry: Any, *, where: str = "") -> tuple[str, dict[str, Any]]:
    """Read the two-shape form: ``"name"`` or ``{"name": {params}}`` -> ``(name, params)``."""
    if isinstance(entry, str) and entry:
        return entry, {}
    if isinstance(entry, Mapping) and len(entry) == 1:
        ((name, params),) = entry.items()
        if isinstance(name, str) and name and isinstance(params, Mapping):
            return name, dict(params)
    raise SchemaError(
        f"{where or 'entry'}: expected a name or a one-key mapping {{name: {{params}}}}, "
        f"got {short_repr(entry)}"
    )


@dataclass(slots=True)
class _Frame:
    """One schema position during parsing; ``children`` index later frames."""

    schema: Mapping[str, Any]
    where: str  # location in the schema document, for messages
    path: str
    name: str | None
    lenient: bool  # under a skip or a container comparator: comparators optional
    kind: str = ""
    allowed: frozenset[str] = frozenset()
    nullable: bool = False
    skip: bool = False
    children: list[int] = field(default_factory=list)
    item: int | None = None
    values: int | None = None
    patterns: list[tuple[re.Pattern[str], int]] = field(default_factory=list)
    open_patterns: list[re.Pattern[str]] = field(default_factory=list)
    node: SchemaNode | None = None


def parse_eval_schema(schema: Mapping[str, Any], *, registry: Registry | None = None) -> SchemaNode:
    """Parse a resolved, annotated schema into a ``SchemaNode`` tree (the input is not changed).

    Every ``x-eval-*`` key and every comparator/transform parameter is checked now, through the
    registry's validators, so a bad schema fails here with its location and never mid-run.
    """
    from ..registry import default_registry

    reg = registry if registry is not None else default_registry()
    frames = [_Frame(as_schema(schema, ""), "", "", None, lenient=False)]
    position = 0
    while position < len(frames):  # breadth-first; children always land after their parent
        _expand(frames[position], frames)
        position += 1
    for frame in reversed(frames):  # children before parents
        frame.node = _build(frame, frames, reg)
    root = frames[0].node
    assert root is not None
    return root


def _expand(frame: _Frame, frames: list[_Frame]) -> None:
    """Queue the structural children of ``frame``."""
    schema, where = frame.schema, frame.where
    frame.kind, frame.allowed, frame.nullable = node_type(schema, where)
    frame.skip = _skip_flag(schema, where)
    lenient = frame.lenient or frame.skip or "x-eval-compare" in schema
    for name, at, raw in shape_children(schema, where, frame.kind):
        sub = as_schema(raw, at)
        path = item_path(frame.path) if name is None else key_path(frame.path, name)
        if name is None:
            frame.item = len(frames)
        else:
            frame.children.append(len(frames))
        frames.append(_Frame(sub, at, path, name, lenient))
    for pattern, at, raw in pattern_schemas(schema, where, frame.kind):
        regex = _compile_pattern(pattern, where)
        if raw is None or regex is _ANY_KEY:
            frame.open_patterns.append(regex)
        else:
            frame.patterns.append((regex, len(frames)))
            sub = as_schema(raw, at)
            frames.append(_Frame(sub, at, pattern_path(frame.path, pattern), None, lenient))
    found = values_schema(schema, where, frame.kind)
    if found is not None:
        at, raw = found
        frame.values = len(frames)
        frames.append(_Frame(as_schema(raw, at), at, values_path(frame.path), None, lenient))


def shape_children(
    schema: Mapping[str, Any], where: str, kind: str
) -> list[tuple[str | None, str, Any]]:
    """``(property name or None for items, location, raw subschema)`` of a node of ``kind``.

    Only objects have properties and only arrays have items; a multi-type node has none. Raises
    ``SchemaError`` for an unresolved schema (``$ref``, ``allOf``, ``anyOf``, ``oneOf``).
    """
    for key in _UNRESOLVED:
        if key in schema:
            raise SchemaError(
                f"{key_path(where, key)}: not resolved; "
                "call resolve_schema_references(schema) first"
            )
    if kind == "object":
        props = schema.get("properties", {})
        base = key_path(where, "properties")
        if not isinstance(props, Mapping):
            raise SchemaError(f"{base}: must be an object")
        out: list[tuple[str | None, str, Any]] = []
        for name, sub in props.items():
            if not isinstance(name, str):
                raise SchemaError(f"{base}: property names must be strings, got {name!r}")
            out.append((name, key_path(base, name), sub))
        return out
    if kind == "array" and "items" in schema:
        at = key_path(where, "items")
        if isinstance(schema["items"], list):
            raise SchemaError(f"{at}: tuple items: call resolve_schema_references(schema) first")
        return [(None, at, schema["items"])]
    return []


def _names_xeval(key: Any) -> bool:
    """Whether ``key`` inside an ``x-eval`` mapping names one of this package's keys, however
    cased or prefixed (``compare``, ``Compare``, ``x-eval-compare``)."""
    if not isinstance(key, str):
        return False
    name = key.lower().replace("_", "-").removeprefix(_XEVAL)
    return name in _XEVAL_NAMES


def _unknown_xeval(key: str, value: Any) -> str:
    """Why ``key`` is ignored, if it is an ``x-eval-*`` key this package does not know, or one
    misspelt in its prefix (``X-Eval-Compare``, ``x_eval_compare``: a tolerance set under it
    would be lost without a word), or ``x-eval`` holding a mapping of this package's names
    (``x-eval: {compare: exact}``); "" otherwise, another vendor's key (``x-evaluation``, an
    ``x-eval`` of other content) included."""
    if key.startswith(_XEVAL):
        if key in _XEVAL_KEYS:
            return ""
        hint = get_close_matches(key[len(_XEVAL) :], _XEVAL_NAMES, n=1)
        return "unknown key ignored" + (f"; did you mean {_XEVAL + hint[0]!r}?" if hint else "")
    squashed = _NOT_LOWER.sub("", key.lower())
    if not squashed.startswith("xeval"):
        return ""
    if squashed == "xeval":  # x-eval: {compare: exact}
        if not (isinstance(value, Mapping) and any(map(_names_xeval, value))):
            return ""
        return (
            "ignored: x-eval keys are written 'x-eval-<name>' one by one "
            "('x-eval-compare: exact', not 'x-eval: {compare: exact}')"
        )
    hint = get_close_matches(squashed[len("xeval") :], _XEVAL_NAMES, n=1)
    if not hint:
        return ""
    return f"ignored: x-eval keys are written 'x-eval-<name>'; did you mean {_XEVAL + hint[0]!r}?"


def _build(frame: _Frame, frames: list[_Frame], reg: Registry) -> SchemaNode:
    """Validate one position's ``x-eval-*`` keys and make its node (children already built)."""
    schema, where = frame.schema, frame.where
    for key in schema:
        unknown = isinstance(key, str) and _unknown_xeval(key, schema[key])
        if unknown:
            written = written_at(where, key, value=schema[key])
            warn_schema(f"{key_path(where, key)}: {unknown}", stacklevel=3, at=written)
    kind, skip = frame.kind, frame.skip
    properties = {frames[i].name or "": _built(frames[i]) for i in frame.children}
    items = _built(frames[frame.item]) if frame.item is not None else None
    values = _built(frames[frame.values]) if frame.values is not None else None
    patterns = tuple(KeyPattern(regex, _built(frames[i])) for regex, i in frame.patterns)
    compare = _comparator(schema, where, kind, reg)
    if (
        compare is None
        and not skip
        and not frame.lenient
        and not properties
        and items is None
        and values is None
        and not patterns
        and not frame.open_patterns  # keys it allows, unscored (a pattern re cannot read)
    ):
        raise SchemaError(
            f"{where or 'schema root'}: this {kind} field has no x-eval-compare; "
            "run annotate_xeval(schema) first or set one"
        )
    return SchemaNode(
        path=frame.path,
        name=frame.name,
        type=kind,
        allowed_types=frame.allowed,
        nullable=frame.nullable,
        properties=properties,
        items=items,
        compare=compare,
        transforms=_transforms(schema, where, reg),
        align=_align(schema, where, kind, items),
        skip=skip,
        required=_required(schema, where),
        additional=_additional(schema),
        values=values,
        patterns=patterns,
        open_patterns=tuple(frame.open_patterns),
        opaque=unexpanded(schema),
        threshold=_threshold(
            schema,
            where,
            compared=compare is not None
            or not (properties or items is not None or values is not None or patterns),
            comparator=None if compare is None else compare.name,
        ),
    )


def _built(frame: _Frame) -> SchemaNode:
    assert frame.node is not None
    return frame.node


def as_schema(value: Any, where: str) -> Mapping[str, Any]:
    """``value`` as a schema object (``true`` is the empty schema); else ``SchemaError``."""
    if value is True:
        return {}
    if not isinstance(value, Mapping):
        raise SchemaError(
            f"{where or 'schema'}: a schema must be an object, got {short_repr(value)}"
        )
    return value


def node_type(schema: Mapping[str, Any], where: str) -> tuple[str, frozenset[str], bool]:
    """(node type, allowed non-null types, nullable); no type information means any type."""
    types = declared_types(schema, where) or inferred_types(schema)
    if types is None:
        return "multi", ANY_TYPES, True
    kinds = types - {"null"}
    if kinds == {"integer", "number"}:
        return "number", kinds, "null" in types
    if not kinds:
        return "null", frozenset({"null"}), True
    kind = next(iter(kinds)) if len(kinds) == 1 else "multi"
    return kind, kinds, "null" in types


_ALL_OR_NOTHING: Final = frozenset({"exact", "numeric", "oneof", "range", "timestamp"})
"""Built-in comparators that score 0 or 1: a threshold below 1 changes nothing for them."""


def _threshold(
    schema: Mapping[str, Any], where: str, *, compared: bool, comparator: str | None
) -> float:
    """``x-eval-threshold``: the comparator score in (0, 1] at which a field counts as a match
    (stickler's per-field threshold); 1 without it. Only a field compared as one value has a
    comparator score to hold against it."""
    if "x-eval-threshold" not in schema:
        return 1.0
    at = key_path(where, "x-eval-threshold")
    value = schema["x-eval-threshold"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise SchemaError(f"{at}: must be a number in (0, 1], got {short_repr(value)}")
    if not compared:
        raise SchemaError(
            f"{at}: applies to a field compared as one value (a leaf, or a container with "
            "its own x-eval-compare); set it on the fields inside"
        )
    name = comparator or "exact"
    if value < 1 and name in _ALL_OR_NOTHING:
        warn_schema(
            f"{at}: has no effect with the {name!r} comparator, which scores 0 or 1 "
            "(a partial-credit comparator such as 'similarity' gives it something to count)",
            stacklevel=4,
            at=written_at(where, "x-eval-threshold", value=value),
        )
    return float(value)


def _skip_flag(schema: Mapping[str, Any], where: str) -> bool:
    skip = schema.get("x-eval-skip", False)
    if not isinstance(skip, bool):
        raise SchemaError(f"{key_path(where, 'x-eval-skip')}: must be true or false, got {skip!r}")
    return skip


_COMPARE: Final = "x-eval-compare"


def _comparator(
    schema: Mapping[str, Any], where: str, kind: str, reg: Registry
) -> ComparatorSpec | None:
    if "x-eval-compare" not in schema:
        return None
    at = key_path(where, "x-eval-compare")
    entry = schema["x-eval-compare"]
    name, params = parse_xeval_entry(entry, where=at)
    spec = ComparatorSpec(_checked(reg.comparators.get, name, params, at), params)
    if spec.name == "numeric" and kind in ("string", "boolean"):
        said = f"{at}: 'numeric' on a {kind} field"
        warn_schema(said, stacklevel=4, at=written_at(where, _COMPARE, value=entry))
    if spec.name == "exact" and kind == "number":
        said = f"{at}: 'exact' on a number field (floats rarely match exactly)"
        warn_schema(said, stacklevel=4, at=written_at(where, _COMPARE, value=entry))
    return spec


def _transforms(schema: Mapping[str, Any], where: str, reg: Registry) -> tuple[TransformSpec, ...]:
    raw = schema.get("x-eval-transform", [])
    at = key_path(where, "x-eval-transform")
    if not isinstance(raw, list):
        raise SchemaError(f"{at}: must be a list of transforms, got {short_repr(raw)}")
    specs = []
    for i, entry in enumerate(raw):
        name, params = parse_xeval_entry(entry, where=f"{at}[{i}]")
        specs.append(
            TransformSpec(_checked(reg.transforms.get, name, params, f"{at}[{i}]"), params)
        )
    return tuple(specs)


def _checked(lookup: Callable[[str], Entry], name: str, params: dict[str, Any], at: str) -> str:
    """Canonical registry name of ``name`` after its validator accepted ``params``."""
    try:
        entry = lookup(name)
        if entry.validate is not None:
            entry.validate(dict(params))
    except (ValueError, TypeError) as exc:  # SchemaError and OptionsError are ValueErrors
        raise SchemaError(f"{at}: {exc}") from exc
    return entry.name


def _align(
    schema: Mapping[str, Any], where: str, kind: str, items: SchemaNode | None
) -> AlignSpec | None:
    if "x-eval-align" not in schema:
        return None
    from ..align import parse_align

    at = key_path(where, "x-eval-align")
    if kind != "array":
        raise SchemaError(f"{at}: only arrays can be aligned, this field is {kind}")
    try:
        spec = parse_align(schema["x-eval-align"])
    except ValueError as exc:
        raise SchemaError(f"{at}: {exc}") from exc
    if spec.key is not None:
        if items is None or items.type != "object":
            raise SchemaError(f"{at}: key alignment needs object items, got {_kind_of(items)}")
        if spec.key not in items.properties:
            said = f"{at}: key {spec.key!r} is not a property of the items"
            written = written_at(where, "x-eval-align", value=schema["x-eval-align"])
            warn_schema(said, stacklevel=4, at=written)
    return spec


def _required(schema: Mapping[str, Any], where: str) -> frozenset[str]:
    raw = schema.get("required", [])
    if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
        raise SchemaError(f"{key_path(where, 'required')}: must be a list of property names")
    return frozenset(raw)


def _additional(schema: Mapping[str, Any]) -> bool:
    """``additionalProperties`` allows the keys that no property or pattern names."""
    extra = schema.get("additionalProperties")
    return extra is not None and extra is not False


def _kind_of(node: SchemaNode | None) -> str:
    return "no items" if node is None else f"{node.type} items"


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr`` cut to ``limit`` characters, for error messages about arbitrary values."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
