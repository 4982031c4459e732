"""Built-in key-level scoring modes and the steps they share.

``strict`` (alias ``static_json``) scores like AssetOpsBench's static_json, ``similarity``
(alias ``json_similarity``) like UiPath's JSON similarity evaluator. Both parse both sides,
turn their options into a :class:`~pytest_structeval.walk.WalkPolicy`, walk, and reduce the
field results to metrics; the shared steps live here so each mode module holds only its
policy and its metrics. (``schema`` mode is registered by ``schema/builtins.py``.)

Prose answers (the parser's text fallback) are read once more for all three modes, by
:mod:`.prose`, which this module re-exports (``chosen_option``, ``abstention``,
``note_prose``). It is imported on first use: its readings compile dozens of patterns, which
a run whose answers all parse as data never needs.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from types import FunctionType
from typing import TYPE_CHECKING, Any, Final

import orjson

from ..absent import AbsentPolicy, drop_absent
from ..align import SPEC_FIELDS, AlignSpec, parse_align
from ..compare import OVERRIDE_KEYS, LeafOptions, OptionResolver
from ..errors import (
    AnswerParseError,
    GoldWarning,
    LimitError,
    OptionsError,
    file_lines,
    hide_usage_error,
    own_warnings_context,
    placed,
    warning_filters,
)
from ..files import utf8_text
from ..keys import named_keys
from ..naming import did_you_mean
from ..parse import (
    DEFAULT_MAX_DEPTH,
    MAX_YAML_CHARS,
    PIECES,
    PURE_NUMBER,
    SCALAR_TYPES,
    Parsed,
    Piece,
    check_parse_options,
    parse_answer_detailed,
    parse_checked,
    piece_of,
    repairs_in,
)
from ..paths import (
    CONTAINERS,
    GlobMatcher,
    flatten,
    next_containers,
    unmatched_note,
)
from ..repeats import gold_repeat_note, json_repeats, piece_repeats
from ..results import HALLUCINATION, MISMATCH, OMISSION, FieldResult, ScoreResult
from ..walk import ORDERED_SPEC, WalkPolicy, walk

if TYPE_CHECKING:
    from ..registry import Registry
    from .prose import abstention, chosen_option, note_prose

__all__ = [
    "MAX_VALUES",
    "TOO_MANY",
    "ModeWalk",
    "abstention",
    "check_threshold",
    "chosen_option",
    "count_values",
    "error_result",
    "install",
    "note_prose",
    "parse_align_option",
    "parse_sides",
    "parse_values",
    "prose_noted",
    "reject_unknown",
    "too_many_values",
    "walk_targets",
    "warn_gold",
]


_PROSE_EXPORTS: Final = frozenset({"abstention", "chosen_option", "note_prose"})


def __getattr__(name: str) -> Any:
    """The re-exports of :mod:`.prose`, imported when first asked for."""
    if name in _PROSE_EXPORTS:
        from . import prose

        return getattr(prose, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def prose_noted(result: ScoreResult, model: Any, *, structured: bool) -> ScoreResult:
    """``result``, with what the answer's prose says about it when the answer is prose
    (:func:`.prose.note_prose`)."""
    if structured:
        return result
    from .prose import note_prose

    return note_prose(result, model)


def install(registry: Registry) -> None:
    """Register the built-in key-level scorers."""
    from .similarity import score_similarity
    from .strict import score_strict

    registry.register_scorer("strict", score_strict, aliases=("static_json",))
    registry.register_scorer("similarity", score_similarity, aliases=("json_similarity",))


_PARTIALS: Final = 64  # partials of partials unwrapped to find a scorer
_last_builtin: Any = None  # the last function (or partial) found to be one of ours


def is_builtin_scorer(fn: Any) -> bool:
    """Whether ``fn`` (through ``functools.partial``) is one of this package's scorers, which
    read no gold but the one they are given and the texts they read out of it. Told by the
    functions themselves: a user's scorer may say it comes from any module.

    A scenario run asks once per item, mostly of one function: the last one found to be ours
    is known without looking again (its code cannot change; a plain function or partial
    cannot be made to lead elsewhere)."""
    global _last_builtin
    if fn is _last_builtin:
        return True
    asked = fn
    for _ in range(_PARTIALS):  # (a partial subclass's func may lead back to itself)
        if not isinstance(fn, partial):
            break
        fn = fn.func
    from .similarity import score_similarity
    from .strict import score_strict

    schema = sys.modules.get(f"{__name__}.schema")  # (not loaded: none of its scorers runs)
    ours = (score_strict, score_similarity, getattr(schema, "score_schema", score_strict))
    # Their code, not the function objects: a registry made before a module was imported
    # anew (pytester's in-process runs drop the modules a run imported) holds the old ones.
    # Identity first: code objects compare by value, byte by byte (5 us for score_strict's).
    code = getattr(fn, "__code__", None)
    found = any(code is scorer.__code__ or code == scorer.__code__ for scorer in ours)
    if found and type(asked) in (FunctionType, partial):
        _last_builtin = asked
    return found


def reject_unknown(mode: str, unknown: Mapping[str, Any], known: Sequence[str]) -> None:
    """Raise ``OptionsError`` naming the unknown options of ``mode`` (and the known ones)."""
    __tracebackhide__ = hide_usage_error
    names = ", ".join(f"{name!r}{did_you_mean(name, known)}" for name in sorted(unknown))
    per_path = [name for name in sorted(unknown) if name in OVERRIDE_KEYS]
    hint = (
        f"; per-path option(s) {', '.join(per_path)} go in options, as in "
        f"options={{'**': {{{per_path[0]!r}: ...}}}} for every path"
        if per_path and "options" in known
        else ""
    )
    error = OptionsError(
        f"{mode} mode: unknown option(s) {names}; known: {', '.join(known)}, and for every "
        f"scorer answer_schema{hint}{_taken_elsewhere(mode, unknown)}"
    )
    error.unknown = tuple(sorted(unknown))
    raise error


def _taken_elsewhere(mode: str, unknown: Iterable[str]) -> str:
    """``; required_terms is an option of strict mode``: what another built-in mode takes
    (``evaluation_metadata`` terms in a similarity scenario, ``schema=`` in strict)."""
    from . import schema, similarity, strict  # (an error path: the modes import this module)

    others = [other for other in (strict, similarity, schema) if mode != other.MODE]
    hints = []
    for name in sorted(unknown):
        modes = [other.MODE for other in others if name in other.OPTIONS]
        if modes:
            hints.append(
                f"{name} is an option of {' and '.join(modes)} mode{'s' * (len(modes) > 1)}"
            )
    return "".join(f"; {hint}" for hint in hints)


def check_threshold(threshold: Any) -> float | None:
    """``threshold`` as a float in [0, 1], or None; ``OptionsError`` otherwise."""
    __tracebackhide__ = hide_usage_error
    if threshold is None:
        return None
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or not 0.0 <= threshold <= 1.0
    ):
        raise OptionsError(f"threshold must be a number in [0, 1], got {threshold!r}")
    return float(threshold)


def parse_align_option(value: Any) -> tuple[dict[str, AlignSpec], AlignSpec | None]:
    """Read ``align``: one spec for every array, or ``{path_or_glob: spec}``.

    A mapping whose keys are all spec settings (``key``, ``method``, ``min_similarity``...)
    is one spec; any other mapping is per path. Returns (per-path specs, global spec or None).
    """
    __tracebackhide__ = hide_usage_error
    if value is None:
        return {}, None
    if isinstance(value, (str, AlignSpec)):
        return {}, parse_align(value)
    if not isinstance(value, Mapping):
        raise OptionsError(
            f"align must be a method name, a spec mapping or {{path: spec}}, got {value!r}"
        )
    if value and all(k in SPEC_FIELDS for k in value):
        return {}, parse_align(value)
    per_path: dict[str, AlignSpec] = {}
    for path, spec in value.items():
        if not isinstance(path, str):
            raise OptionsError(f"align: a path must be a string, got {path!r}")
        try:
            per_path[path] = parse_align(spec)
        except OptionsError as exc:
            raise OptionsError(f"align[{path!r}]: {exc}") from None
    return per_path, None


@dataclass(frozen=True)
class ModeWalk:
    """How a mode walks two answers: its leaf defaults, how it scores a type mismatch,
    whether exact pairs are taken first, and what it says of model-only fields when they do
    not count (``uncounted_note``; ``uncounted_subtrees`` lists each field under them).
    :meth:`policy` adds one call's options; strict and similarity differ only in these."""

    defaults: LeafOptions
    type_mismatch: str
    exact_first: bool
    uncounted_note: str
    uncounted_subtrees: bool
    _plain: Mapping[bool, WalkPolicy] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # the policies of calls without leaf, path or alignment options (most calls)
        plain = {
            extra: self._policy({}, None, None, None, DEFAULT_MAX_DEPTH, extra)
            for extra in (True, False)
        }
        object.__setattr__(self, "_plain", plain)

    def policy(
        self,
        numeric_tolerance: Any,
        case_sensitive: Any,
        normalize_whitespace: Any,
        ignore_paths: Sequence[str] | str | None,
        options: Mapping[str, Mapping[str, Any]] | None,
        align: Any,
        max_depth: Any,
        *,
        extra_counts: bool,
    ) -> WalkPolicy:
        """The walk policy of one call (``extra_counts``: model-only fields count against
        the score)."""
        __tracebackhide__ = hide_usage_error
        if (
            numeric_tolerance is None
            and case_sensitive is None
            and normalize_whitespace is None
            and ignore_paths is None
            and options is None
            and align is None
            and type(max_depth) is int
            and max_depth == DEFAULT_MAX_DEPTH
        ):
            return self._plain[extra_counts]
        leaf: dict[str, Any] = {}
        if numeric_tolerance is not None:
            leaf["numeric_tolerance"] = numeric_tolerance
        if case_sensitive is not None:
            leaf["case_sensitive"] = case_sensitive
        if normalize_whitespace is not None:
            leaf["normalize_whitespace"] = normalize_whitespace
        return self._policy(leaf, ignore_paths, options, align, max_depth, extra_counts)

    def _policy(
        self,
        leaf: Mapping[str, Any],
        ignore_paths: Sequence[str] | str | None,
        options: Mapping[str, Mapping[str, Any]] | None,
        align: Any,
        max_depth: Any,
        extra_counts: bool,
    ) -> WalkPolicy:
        __tracebackhide__ = hide_usage_error
        base = self.defaults.updated(leaf) if leaf else self.defaults
        if not ignore_paths and not options and align is None and type(max_depth) is int:
            policy = _plain_policy(base, max_depth, self.type_mismatch, self.exact_first)
        else:
            # (a max_depth of another type is refused by WalkPolicy: as a cache key a list
            # raised TypeError, not OptionsError)
            per_path, default = parse_align_option(align)
            policy = WalkPolicy(
                OptionResolver(base, options, ignore_paths),
                per_path,
                default or ORDERED_SPEC,
                type_mismatch=self.type_mismatch,
                exact_first=self.exact_first,
                max_depth=max_depth,
            )
        if extra_counts:
            return policy
        return replace(
            policy,
            uncounted_extra=self.uncounted_note,
            extra_subtrees=self.uncounted_subtrees,
        )


@lru_cache(maxsize=64)
def _plain_policy(
    base: LeafOptions, max_depth: int, type_mismatch: str, exact_first: bool
) -> WalkPolicy:
    return WalkPolicy(
        OptionResolver(base),
        type_mismatch=type_mismatch,
        exact_first=exact_first,
        max_depth=max_depth,
    )


def error_result(
    mode: str,
    error: str,
    *,
    threshold: float | None,
    gold: Any = None,
    model: Any = None,
    method: str | None = None,
) -> ScoreResult:
    """A pair that could not be evaluated: not passed, score 0, the error said plainly."""
    return ScoreResult(
        passed=False,
        score=0.0,
        mode=mode,
        parsed_gold=gold,
        parsed_model=model,
        reason=f"error: {error}",
        error=error,
        threshold=threshold,
        parse_method=method,
    )


def parse_sides(
    mode: str,
    gold: Any,
    model: Any,
    *,
    threshold: float | None,
    strict_parse: bool,
    max_bytes: int,
    max_depth: int,
    parse_repairs: bool = True,
    compose_keys: bool = True,
) -> tuple[Parsed, Parsed] | ScoreResult:
    """Parse both answers. A bad gold raises; a bad model answer is an error result."""
    __tracebackhide__ = hide_usage_error
    sides = parse_values(
        mode,
        gold,
        model,
        threshold,
        strict_parse,
        max_bytes,
        max_depth,
        parse_repairs,
        compose_keys=compose_keys,
    )
    if isinstance(sides, ScoreResult):
        return sides
    (gold_value, gold_method, gold_structured), (value, method, structured) = sides
    return Parsed(gold_value, gold_method, gold_structured), Parsed(value, method, structured)


def parse_values(
    mode: str,
    gold: Any,
    model: Any,
    threshold: float | None,
    strict_parse: bool,
    max_bytes: int,
    max_depth: int,
    parse_repairs: bool = True,
    *,
    compose_keys: bool = True,
) -> tuple[tuple[Any, str, bool], tuple[Any, str, bool]] | ScoreResult:
    """:func:`parse_sides` with each side's parse as a plain ``(value, method, structured)``
    tuple: the key-level modes score every answer once and need no ``Parsed`` object for it.

    Keys are named as JSON text names them (:func:`~pytest_structeval.keys.named_keys`;
    ``compose_keys``: in NFC too), so ``{1988: 5}`` is ``{"1988": 5}``.

    A gold text is parsed once and its ``Parsed`` reused (see ``_parse_gold``). When the gold
    is a number and the answer only prose, the one number the prose states is the answer; when
    the gold is one option letter, the option the prose states (see :mod:`.prose`).
    """
    __tracebackhide__ = hide_usage_error
    check_read_options(strict_parse, max_bytes, max_depth, parse_repairs)
    data_note: list[str] = []
    parsed_gold = read_gold(gold, strict_parse, max_bytes, max_depth, compose_keys, data_note)
    if _may_hold_too_many(gold, parsed_gold[1]) and too_many_values(parsed_gold[0], max_depth):
        raise LimitError(f"gold {TOO_MANY}")
    try:
        parsed_model = read_model(
            model, strict_parse, max_bytes, max_depth, parse_repairs, compose_keys
        )
        if _may_hold_too_many(model, parsed_model[1]) and too_many_values(
            parsed_model[0], max_depth
        ):
            raise LimitError(TOO_MANY)
    except AnswerParseError as exc:  # (LimitError is one)
        given = not isinstance(model, (str, bytes, bytearray, memoryview))  # (never held: it
        method = "value" if given else None  # may loop, and the report could not write it)
        return error_result(
            mode, f"model answer: {exc}", threshold=threshold, gold=parsed_gold[0], method=method
        )
    if data_note and type(parsed_model[0]) in (dict, list):  # (a text answer: text against
        warn_gold(data_note[0], gold)  # text, as meant: a bulleted list, a Key: value note)
    if not parsed_model[2]:  # prose: what kind of answer the gold asks for may read it
        from .prose import stated_choice, stated_count

        gold_value = parsed_gold[0]
        kind = type(gold_value)
        if kind is int or kind is float:
            parsed_model = stated_count(parsed_model, model)
        elif kind is str and len(gold_value) == 1 and "A" <= gold_value <= "Z":
            parsed_model = stated_choice(parsed_model)
    return parsed_gold, parsed_model


def check_read_options(
    strict_parse: Any, max_bytes: Any, max_depth: Any, parse_repairs: Any
) -> None:
    """``OptionsError`` for a parse option of the wrong shape, named as the modes name it."""
    __tracebackhide__ = hide_usage_error
    check_parse_options(
        strict_parse,
        max_bytes,
        max_depth,
        parse_repairs,
        strict_name="strict_parse",
        repair_name="parse_repairs",
    )


def read_gold(
    gold: Any,
    strict_parse: bool,
    max_bytes: int,
    max_depth: int,
    compose_keys: bool = True,
    data_note: list[str] | None = None,
) -> tuple[Any, str, bool]:
    """The gold's parse as ``(value, method, structured)`` (cached for texts, see
    ``_parse_gold``); it raises for a gold that cannot be read (options checked already).
    A cached value is handed out as a copy of its containers: it lands in the result's
    ``parsed_gold`` (and an empty one in a field's ``gold``), and a caller changing it there
    must not change how the next answer to that gold is scored. The warning the gold
    deserves against an answer that reads as data only (see :func:`_yaml_gold_note`) is
    put in ``data_note``, for the caller to give when its answer is one."""
    __tracebackhide__ = hide_usage_error
    gold_args = (gold, strict_parse, max_bytes, max_depth, compose_keys)
    if type(gold) is str and len(gold) <= _GOLD_CACHE_CHARS:
        kept = _parse_gold(*gold_args)
    elif type(gold) is not str:
        parsed, note, _ = _read_gold(*gold_args)  # the same parse, uncached: the caller's
        if note is not None:  # value (never text: no data note)
            warn_gold(note, gold)
        return parsed.value, parsed.method, parsed.structured
    else:  # the same text object as last time: the runs of one scenario
        known = [k for args, k in _LONG_GOLD if args[0] is gold and args[1:] == gold_args[1:]]
        kept = known[0] if known else _kept(*_read_gold(*gold_args))
        _LONG_GOLD[:] = [(gold_args, kept)]
    parsed, flat, text, note, as_data = kept
    if note is not None:
        warn_gold(note, gold)
    if as_data is not None and data_note is not None:
        data_note.append(as_data)
    value = parsed.value
    if flat:  # a flat object (the usual gold): one C-level copy
        value = value.copy()
    elif text is not None:  # nested JSON data: decoded again, in C (half a Python copy)
        value = orjson.loads(text)
    elif type(value) is dict or type(value) is list:  # (a parse shares no container: YAML
        value = _copy_tree(value, _COPY_DEPTH)  # aliases are copied out as it is read)
    return value, parsed.method, parsed.structured


_Kept = tuple[Parsed, bool, bytes | None, str | None, str | None]


def _kept(parsed: Parsed, note: str | None, data_note: str | None) -> _Kept:
    """A parse as the gold caches keep it, with how to copy its value fast and its warnings:
    whether it is an object holding no container (one ``dict.copy``), else its JSON text
    when that is short and decoding it gives the same value back (no NaN or infinity, string
    keys, integers within 64 bits)."""
    value = parsed.value
    if type(value) is dict and SCALAR_TYPES.issuperset(map(type, value.values())):
        return parsed, True, None, note, data_note
    if type(value) is not dict and type(value) is not list:
        return parsed, False, None, note, data_note
    try:
        text = orjson.dumps(value)
    except orjson.JSONEncodeError:  # (a key or number JSON has no form for, or deep nesting)
        return parsed, False, None, note, data_note
    if len(text) > _GOLD_CACHE_CHARS:  # decoding copies every string: Python shares them
        return parsed, False, None, note, data_note
    return parsed, False, text if orjson.loads(text) == value else None, note, data_note


_COPY_DEPTH: Final = 64  # levels copied by recursion (far below Python's limit)


def _copy_tree(node: Any, depth: int) -> Any:
    """A copy of the dicts and lists of a tree: recursive, the fast way for what answers
    hold; :func:`_copy_deep` below ``depth`` levels."""
    if depth == 0:
        return _copy_deep(node)
    copy = node.copy()
    for key, item in copy.items() if type(copy) is dict else enumerate(copy):
        kind = type(item)
        if kind is dict or kind is list:
            copy[key] = _copy_tree(item, depth - 1)
    return copy


def _copy_deep(node: Any) -> Any:
    """:func:`_copy_tree` without recursion, for golds nesting deeper than it goes
    (``max_depth`` has no upper bound)."""
    root = [node]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, slot = stack.pop()
        copy = holder[slot] = holder[slot].copy()
        pairs = copy.items() if type(copy) is dict else enumerate(copy)
        stack += [(copy, k) for k, v in pairs if type(v) is dict or type(v) is list]
    return root[0]


def read_model(
    model: Any,
    strict_parse: bool,
    max_bytes: int,
    max_depth: int,
    parse_repairs: bool,
    compose_keys: bool = True,
) -> tuple[Any, str, bool]:
    """The model answer's parse as ``(value, method, structured)``, its keys named as JSON
    text names them (see :func:`parse_values`; options checked already).
    ``AnswerParseError`` (``LimitError`` too) for an answer that cannot be read."""
    parsed = parse_checked(model, strict_parse, max_bytes, max_depth, parse_repairs)
    value, method, structured = parsed
    named = named_keys(value, method, model, compose=compose_keys)  # LimitError: too long
    return parsed if named is value else (named, method, structured)


# Gold texts up to this size keep their parse (at most _GOLD_CACHE_SIZE of them): a bounded
# memory cost, and the same gold is scored against many answers (runs, models, retries).
_GOLD_CACHE_CHARS: Final = 8_192
_GOLD_CACHE_SIZE: Final = 256
# The last longer gold text parsed, kept by identity: a scenario's runs score against the same
# text object, and a 2 MB gold took 2.7 s to parse for each run (one kept: bounded memory).
_LONG_GOLD: list[tuple[tuple[Any, ...], _Kept]] = []


@lru_cache(maxsize=_GOLD_CACHE_SIZE)
def _parse_gold(
    gold: Any, strict_parse: bool, max_bytes: int, max_depth: int, compose_keys: bool
) -> _Kept:
    """:func:`_read_gold`, kept (see :func:`_kept`) for gold texts up to
    :data:`_GOLD_CACHE_CHARS`; :func:`read_gold` hands out copies (scoring never changes a
    parsed value, but a caller may)."""
    __tracebackhide__ = hide_usage_error
    return _kept(*_read_gold(gold, strict_parse, max_bytes, max_depth, compose_keys))


def _read_gold(
    gold: Any, strict_parse: bool, max_bytes: int, max_depth: int, compose_keys: bool
) -> tuple[Parsed, str | None, str | None]:
    """Parse a gold answer (an empty one is an error), its keys named as JSON text names them
    (:func:`~pytest_structeval.keys.named_keys`), the warning it deserves, if any, and the
    one it deserves against an answer that reads as data (see :func:`_yaml_gold_note`)."""
    __tracebackhide__ = hide_usage_error
    if isinstance(gold, (bytes, bytearray, memoryview)):  # strictly: a byte replaced would
        try:  # score every answer against U+FFFD
            gold = utf8_text(bytes(gold), "the text")
        except UnicodeDecodeError as exc:
            raise AnswerParseError(f"the gold answer is not valid UTF-8: {exc}") from None
    if isinstance(gold, str) and not gold.strip():
        raise AnswerParseError("the gold answer is empty")
    pieces: list[Piece] = []  # (where a key written twice is looked for)
    noting = PIECES.set(pieces)
    try:
        parsed = parse_answer_detailed(
            gold, strict=strict_parse, max_bytes=max_bytes, max_depth=max_depth
        )
    finally:
        PIECES.reset(noting)
    note = data_note = None
    if isinstance(gold, str) and not parsed.structured:
        note = _messy_gold_note(gold, None)
        data_note = None if note is not None else _yaml_gold_note(gold)
    elif isinstance(gold, str) and _a_part(gold, parsed.method):
        note = _part_gold_note(gold, parsed)
    elif isinstance(gold, str) and "repaired" in parsed.method:
        repairs = repairs_in(gold, strict=strict_parse, max_bytes=max_bytes, max_depth=max_depth)
        note = _messy_gold_note(gold, repairs)
    if isinstance(gold, str) and type(parsed.value) in (dict, list):
        # (json.loads keeps a repeated key's last value, unsaid; so do a literal and YAML)
        piece = piece_of(parsed.value, pieces)
        if piece is not None:  # a part of it: a fenced block, a marked answer, a literal
            repeats = piece_repeats(piece, gold)
        elif parsed.method == "json":  # the whole text, read on the fast path
            repeats = json_repeats(gold)
        else:
            repeats = []
        if repeats:
            said = gold_repeat_note(repeats, where="the gold answer", of=" of it")
            note = f"{said}: {_shown_gold(gold)}" if note is None else f"{note}; {said}"
    value = named_keys(parsed.value, parsed.method, gold, compose=compose_keys)
    if value is not parsed.value:
        parsed = Parsed(value, parsed.method, parsed.structured)
    return parsed, note, data_note


_GOLD_SHOWN: Final = 60  # characters of a messy gold a warning quotes


def _messy_gold_note(gold: str, repairs: list[str] | None) -> str | None:
    """The :class:`GoldWarning` for a gold read with ``repairs`` (their words tell what to
    fix), or, with ``None``, one that starts like JSON (``{``, ``[``) yet reads as text:
    every answer is scored against that reading, and a correct structured answer fails
    against a gold read as text. (A long gold is quoted by its start and end, with its
    length, so two golds that start alike do not read as one warning.)"""
    text = gold.strip()
    shown = _shown_gold(text)
    if repairs is not None:
        done = "; ".join(dict.fromkeys(repairs)) or "repaired"
        return f"the gold answer needed a repair to read ({done}): {shown}"
    if text[:1] in ("{", "["):
        return f"the gold answer looks like JSON but reads only as text: {shown}"
    return None


_GOLD_FIX: Final = (
    "write it as JSON, or as YAML data in groundtruth.yaml (or a ground_truth mapping)"
)


def _a_part(gold: str, method: str) -> bool:
    """Whether a gold text was read as a part of itself: a value found inside it (a
    candidate, ``candidate+json``), or a count read from more than a number (``count: 3``,
    ``The answer is 34.``), where a gold is meant whole. (A marked answer, ``Final Answer:
    34``, a fenced block and an answer tag are parts meant to be read.)"""
    if method.startswith("candidate+"):
        return True
    return method == "count" and not _bare_number(gold)


def _bare_number(gold: str) -> bool:
    """Whether a gold text is a number and nothing more: as the count rule reads one
    (``1,234``, ``**34**``, ``34.``), or as JSON or a Python literal writes it (``NaN``,
    ``1_000``, ``0x1F``), or a word the parser reads as a number (``inf``, ``**nan**``)."""
    text = gold.strip()
    if PURE_NUMBER.fullmatch(text) or text.strip("*_`").lstrip("+-") in _NUMBER_WORDS:
        return True
    if len(text) > _NUMBER_CHARS:
        return False
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return type(value) in (int, float)


_NUMBER_CHARS: Final = 5_000  # (an int's 4,300 digits and its separators)
_NUMBER_WORDS: Final = frozenset({"NaN", "nan", "Infinity", "inf"})  # (parse's number words)


def _part_gold_note(gold: str, parsed: Parsed) -> str:
    """The :class:`GoldWarning` for a gold text read as a part of itself (see :func:`_a_part`):
    every answer is scored against that part, so the rest of the gold counts for nothing (a
    YAML mapping written as ``groundtruth.txt`` read as its one flow list)."""
    lines = gold.strip().count("\n") + 1
    read = _clipped_value(parsed.value)
    of = f"{lines} line" if lines == 1 else f"{lines:,} lines"
    return (
        f"the gold answer read only {read} from a gold of {of} ({parsed.method}): "
        f"{_shown_gold(gold)}; {_GOLD_FIX}"
    )


def _yaml_gold_note(gold: str) -> str | None:
    """The :class:`GoldWarning` for a gold text that reads only as text, yet is YAML data: a
    mapping or a list holding more than one scalar (``pumps: [P-101, P-102]``, ``- P-101`` and
    ``- P-102`` on two lines); a correct answer written as that data fails against the text.
    It is given against an answer that reads as data (an object or a list) only: against a
    text answer, text is what such a gold means as often (a bulleted list of steps, a
    ``Root cause: ...`` note scored by similarity), and text is what it is scored as. (A
    one-entry ``Note: text`` is a sentence, and says nothing.)"""
    text = gold.strip()
    if len(text) > MAX_YAML_CHARS or (":" not in text and not text.startswith("-")):
        return None
    from ..yamlvalue import yaml_value  # (PyYAML: loaded for such a gold only)

    try:
        value = yaml_value(text)
    except (ValueError, RecursionError):  # (LimitError too)
        return None
    if not isinstance(value, (dict, list)) or not _more_than_a_scalar(value):
        return None
    return (
        f"the gold answer reads only as text, yet it is YAML data, {_clipped_value(value)}, "
        f"and an answer that is data is scored against that text: {_shown_gold(gold)}; "
        f"{_GOLD_FIX}"
    )


def _more_than_a_scalar(value: dict[Any, Any] | list[Any]) -> bool:
    """Whether a mapping or list holds more than one value, or any container."""
    items = list(value.values()) if isinstance(value, dict) else value
    return len(items) > 1 or any(isinstance(item, (dict, list)) for item in items)


def _clipped_value(value: Any) -> str:
    """A value as JSON writes it, clipped to ``_GOLD_SHOWN`` characters for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, TypeError, RecursionError):
        text = repr(value)
    return text if len(text) <= _GOLD_SHOWN else text[: _GOLD_SHOWN - 3] + "..."


def _shown_gold(gold: str) -> str:
    """A gold text as a warning quotes it: whole up to ``_GOLD_SHOWN`` characters, else its
    start and end with its length and a digest (two golds that start alike read apart)."""
    text = gold.strip()
    if len(text) <= _GOLD_SHOWN:
        return repr(text)
    half = (_GOLD_SHOWN - 3) // 2
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{text[:half]!r}...{text[-half:]!r} ({len(text):,} characters, {digest})"


_GOLD_WARNED: set[str] = set()  # the GoldWarnings given in this session (or process)
_PACKAGE: Final = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


GoldLocator = Callable[[Any], tuple[str, int]]
"""Where a gold, or a part of it read on its own (its argument), is written: a file name and
a line (worked out only for a warning)."""
_GOLD_AT: ContextVar[tuple[Any, bool, GoldLocator, str | None] | None] = ContextVar(
    "structeval_gold_at", default=None
)


@contextmanager
def gold_written_at(
    gold: Any, locate: GoldLocator, *, every: bool, root: str | None = None
) -> Iterator[None]:
    """Locate the :class:`GoldWarning` of ``gold`` where ``locate`` says it is written (a
    scenario's gold file: the user's line there is no line of Python): with ``every`` (a
    built-in scorer, which reads no gold but that one and the texts read out of it: a line,
    a ``target_output_key`` part) every gold read inside, else that very object only (a
    custom scorer may read golds of its own). ``root``: the folder the file names ``locate``
    gives are relative to, when it is not the working folder."""
    token = _GOLD_AT.set((gold, every, locate, root))
    try:
        yield
    finally:
        _GOLD_AT.reset(token)


def warn_gold(note: str, gold: Any) -> None:
    """Give ``note`` as a :class:`GoldWarning` where ``gold`` was written (see
    :func:`gold_written_at`), else at the first line outside this package (the user's call):
    one gold scores many answers, so it is given once per session where the filters show it
    once (``default``, ``module``, ``once``: the default display), in the session's own
    warnings context (:func:`~pytest_structeval.errors.own_warnings_context`). A filter that
    ignores it does not count it as given, so a later test under other filters still gets
    it; ``error`` raises at each run, ``always`` (which ``pytest.warns`` sets) warns at each,
    and so does a context a test opened itself (``recwarn``, ``catch_warnings``): what a test
    sees never depends on the tests before it."""
    __tracebackhide__ = hide_usage_error  # (under an error filter: the user's call shown)
    place: tuple[str, int, str, dict[Any, Any] | None, dict[str, Any] | None] | None = None
    warning = GoldWarning(note)

    def where() -> tuple[str, int, str, dict[Any, Any] | None, dict[str, Any] | None]:
        nonlocal place
        if place is None:
            written = _GOLD_AT.get()
            if written is not None and (written[1] or written[0] is gold):
                filename, lineno = written[2](gold)
                file_lines(filename, written[3])  # (its line, from any working folder)
                module = filename[:-3] if filename[-3:].lower() == ".py" else filename
                place = (filename, lineno, module or "<unknown>", None, None)
                placed(warning, filename, lineno)  # (the gold's file: a run's error names it)
            else:
                frame = sys._getframe(0)
                while frame.f_code.co_filename.startswith(_PACKAGE) and frame.f_back is not None:
                    frame = frame.f_back
                scope = frame.f_globals
                registry = scope.setdefault("__warningregistry__", {})
                module = str(scope.get("__name__", "<string>"))
                # Globals only with a spec's loader to read the line through: without one
                # (python -c's __main__, exec'd code), Python 3.12+ warns that it misses it
                loaded = getattr(scope.get("__spec__"), "loader", None) is not None
                place = (
                    frame.f_code.co_filename,
                    frame.f_lineno,
                    module,
                    registry,
                    scope if loaded else None,
                )
        return place

    once = _gold_action(note, where) in _SHOWN_ONCE and own_warnings_context()
    if once and note in _GOLD_WARNED:
        return
    filename, lineno, module, registry, scope = where()
    try:
        warnings.warn_explicit(warning, GoldWarning, filename, lineno, module, registry, scope)
    except GoldWarning:  # (under an error filter: this very object)
        raise
    except Exception:  # the caller's loader fails to give its source line (raises):
        # read before anything is warned, so warn without it
        warnings.warn_explicit(warning, GoldWarning, filename, lineno, module, registry)
    if once:  # (shown: under error it raised, and each run of that gold raises)
        _GOLD_WARNED.add(note)


_SHOWN_ONCE: Final = frozenset({"default", "module", "once"})


def _gold_action(note: str, where: Callable[[], tuple[str, int, str, Any, Any]]) -> str:
    """The action the warnings filters in force take for the :class:`GoldWarning` ``note``
    given at ``where()`` (asked only when a filter names a module or a line), as
    ``warnings.warn_explicit`` finds it: the first filter that matches, else the default."""
    for action, message, category, module, lineno in warning_filters():
        if not issubclass(GoldWarning, category) or (
            message is not None and not message.match(note)
        ):
            continue
        if module is not None or lineno:
            _, at, name, _, _ = where()
            if (module is not None and not module.match(name)) or (lineno and lineno != at):
                continue
        return "always" if action == "all" else str(action)
    return str(getattr(warnings, "defaultaction", "default"))


def forget_gold_warnings() -> None:
    """Let every gold warn again: a new pytest session in the same process (its ``-W``
    filters, its warnings summary) must hear of a messy gold too."""
    _GOLD_WARNED.clear()


def walk_targets(
    mode: str,
    targets: Sequence[tuple[str, Any, Any]],
    policy: WalkPolicy,
    *,
    threshold: float | None,
    gold: Any,
    model: Any,
    method: str,
    notes: list[str] | None = None,
    absent: AbsentPolicy | None = None,
    ends: list[int] | None = None,
) -> list[FieldResult] | ScoreResult:
    """Walk each ``(prefix, gold, model)``, alignment notes into ``notes``; nesting past
    ``max_depth`` in the model is an error result, in the gold a raised ``LimitError``.
    With ``absent``, object entries holding an absent value are left out of both sides.
    ``ends`` receives where each target's fields end (their paths may overlap). An empty
    answer (``method`` ``"empty"``) states nothing, so nothing in it is extra: it only misses
    what the gold holds."""
    __tracebackhide__ = hide_usage_error
    used: set[int] = set()
    if absent is not None:
        depth = policy.max_depth
        ignored = policy.resolver.ignored if policy.resolver.ignores_any else None
        targets = [
            (
                p,
                drop_absent(g, p, absent, depth, used, ignored),
                drop_absent(m, p, absent, depth, used, ignored),
            )
            for p, g, m in targets
        ]
    try:
        if len(targets) == 1:
            prefix, g, m = targets[0]
            fields = walk(g, m, policy, prefix, notes)
            if method == "empty":
                fields = _of_nothing(fields, prefix)
            if ends is not None:
                ends.append(len(fields))
        else:
            fields = []
            for prefix, g, m in targets:
                part = walk(g, m, policy, prefix, notes)
                if method == "empty":
                    part = _of_nothing(part, prefix)
                fields.extend(part)
                if ends is not None:
                    ends.append(len(fields))
    except LimitError as exc:
        for prefix, g, _ in targets:  # raise when the gold is at fault: too deep, or a key
            flatten(g, prefix, max_depth=policy.max_depth)  # too long to name
        return error_result(
            mode, f"model answer: {exc}", threshold=threshold, gold=gold, model=model, method=method
        )
    if notes is not None and policy.patterns:
        notes.extend(unmatched_patterns(policy.patterns, fields))
    if notes is not None and absent is not None:
        notes.extend(absent.unused_notes(used, lambda: [field.path for field in fields]))
    return fields


def _of_nothing(fields: list[FieldResult], prefix: str) -> list[FieldResult]:
    """The fields of an empty answer: nothing in it is extra, and what a gold object or
    array holds is missed because the answer is empty (not for the type of its empty text;
    a gold leaf at ``prefix`` keeps its comparison with that text)."""
    return [
        replace(field, reason=_EMPTY_ANSWER)
        if field.path != prefix and field.status in _MISSED
        else field
        for field in fields
        if field.status != HALLUCINATION
    ]


_EMPTY_ANSWER: Final = "the model answer is empty"
_MISSED: Final = frozenset({OMISSION, MISMATCH})  # (a skipped field keeps why it is skipped)


def unmatched_patterns(
    patterns: Sequence[tuple[str, str]], fields: Sequence[FieldResult]
) -> list[str]:
    """A note for each ``(option, pattern)`` that names neither a field's path nor a node
    above one: a misspelt path in ``options``, ``ignore_paths`` or ``align`` changes nothing,
    and without the note nothing would say so."""
    if not patterns:
        return []
    matcher = GlobMatcher(tuple(pattern for _, pattern in patterns), subtree=True)
    matched = 0
    for field in fields:  # one matcher for all patterns, pattern by pattern
        matched |= matcher.matching(field.path)
    unmatched = [pair for i, pair in enumerate(patterns) if not matched >> i & 1]
    if not unmatched:
        return []
    paths = [field.path for field in fields]  # (for the notes' hints)
    return [unmatched_note(option, pattern, paths) for option, pattern in unmatched]


MAX_VALUES: Final = 100_000
"""The most values (object entries and array elements, at any depth) one side may hold. Each
becomes a field, kept and reported: an answer of millions of one-character elements, under
``max_bytes``, took minutes and gigabytes, or killed the run. No LLM writes an answer this
long (it would take some 200,000 output tokens); the largest of the real data holds 6,799."""
TOO_MANY: Final = f"holds more than {MAX_VALUES:,} values (object entries and array elements)"


def _may_hold_too_many(answer: Any, method: str) -> bool:
    """Whether ``answer``, read by ``method``, may hold more than ``MAX_VALUES`` values: a
    text shorter than that cannot (each value takes a character at least), unless YAML's
    aliases repeat what an anchor holds. Most answers are short texts, which so cost no
    count."""
    kind = type(answer)
    short = (kind is str or kind is bytes) and len(answer) <= MAX_VALUES
    return not short or "yaml" in method


def too_many_values(value: Any, max_depth: int, limit: int = MAX_VALUES) -> bool:
    """Whether ``value`` holds more than ``limit`` values (see :func:`count_values`)."""
    return count_values(value, max_depth, limit) > limit


def count_values(value: Any, max_depth: int, limit: int = MAX_VALUES) -> int:
    """The values ``value`` holds, counted level by level, no further than just past
    ``limit`` nor ``max_depth`` levels down, each container once a level: a value given
    already parsed may share parts, or loop, which the walk refuses as too deep."""
    if type(value) is dict and SCALAR_TYPES.issuperset(map(type, value.values())):
        return len(value)  # (most golds given parsed: one level of scalars, checked in C)
    level = [value] if isinstance(value, CONTAINERS) else []
    total = 0
    for _ in range(max_depth + 1):
        if not level:
            break
        total += sum(map(len, level))
        if total > limit:
            break
        level = next_containers(level)
    return total
