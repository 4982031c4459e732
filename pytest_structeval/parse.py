"""Recover the structured answer from raw LLM output.

The cascade, in order; each stage runs only when the earlier ones found nothing:

1. A value that is not text is returned as it is; ``bytes`` are decoded as UTF-8 (a BOM is
   tolerated). The size limit is checked first, so nothing below ever sees a huge input.
2. Fast path: the stripped text starts with ``{``/``[`` and is plain JSON (most answers), so
   ``orjson`` decodes it in about a microsecond.
3. ``<think>`` blocks are removed before anything else, so drafts inside them never win.
4. The whole text as one value (a Python literal, JSON with comments, a truncated object...).
5. The answer region: the last ``<answer>...</answer>`` tag (attributes allowed), else the
   last answer marker, else the whole text; then, when it holds one, the content of its last
   ``\\boxed{...}``. A marker starts a line, after markdown or a list number ("3. "), and is
   word-bounded: ``Final Answer:`` / ``Answer:``, a parenthetical before the colon
   (``Answer (JSON):``), ``Final Answer -`` / ``=``, a ``Final Answer`` heading alone on its
   line; or, inside a sentence, "the / my / our final answer (to X) is:". So "Answered",
   "Results", "the final answer is that" and a JSON key ``"answer"`` never cut the text,
   and neither does a marker inside a bracketed span ("Output:" and "Result:" are no
   markers: too common in prose).
   A non-empty region is exclusive: earlier tool output or an echoed example outside it never
   becomes the answer, and text the marker states ("```json {...}``` Final Answer: Chiller 6")
   is the answer. Only a region that points back ("see above", "the JSON above") with no
   value of its own takes the last fenced block before it.
6. Inside a marked region: the region as one value, then the value it opens with (its first
   fenced block, a balanced ``{...}``/``[...]`` at its start, or a number alone on its first
   line), since what follows that value is an explanation.
7. Inside the region: fenced blocks, last parseable first, data-labelled ones (json, json5,
   jsonc, yaml, yml, none) before code (bash, python); when no block is one value, the
   candidates inside the data blocks other than YAML; balanced ``{...}``/``[...]``
   candidates, last first (agents correct themselves, and an echoed schema comes early), then
   ``(...)`` candidates, so a parenthetical never hides the JSON; footnote markers in prose
   ("failed [1].") are skipped; then a count (``34``, "The answer is 34."), so a number is
   taken only when no structure is there.
8. Nothing found: the stripped region is returned as a string (method ``text``, the body only
   when the region is one fenced block, or ``empty`` when nothing is left: a blank answer, or
   only ``<think>`` blocks); ``strict=True`` raises :class:`AnswerParseError` saying what
   was tried.

Decoding one piece tries ``orjson`` first, then a repairing tokenizer that rewrites JSON, JSON5
and Python-literal syntax (``true``/``None``, comments, unquoted keys, ``NaN``) into a Python
literal which ``ast.literal_eval`` evaluates after its AST has been checked to hold literals
only. The tokenizer also repairs what real gold and truncated answers contain: unclosed or
mismatched brackets, an unterminated final string, raw control characters inside strings, a
missing comma between values, a missing colon after a key, a comma typed where an object
needs a colon, an object's last key cut off before its value (dropped), and an apostrophe
inside a single-quoted string (``'O'Brien'``).

A fenced block labelled ``yaml`` or ``yml`` (and only such a block) that is not JSON is read
with ``yaml.safe_load`` and YAML 1.2's core scalars through :mod:`.yamlvalue` (decoder label
``yaml``, PyYAML imported on first use), and counts only when it gives a mapping, a list, a
number, a boolean or a quoted string.

Hard limits (size, nesting depth, integers over 4,300 digits or as large in
``0x``/``0o``/``0b``, a YAML block whose aliases expand too far) raise :class:`LimitError`
even when ``strict`` is false, and so does an unhashable key or set element written in an answer
that is one literal as a whole (:class:`AnswerParseError`); a candidate span or fenced block
with no value is just not the answer, so a non-strict parse raises nothing else. No scan is
worse than linear and nothing recurses without a bound.
"""

from __future__ import annotations

import ast
import json
import numbers
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import chain, repeat
from typing import Any, Final, NoReturn

import orjson

from .errors import (
    AnswerParseError,
    LimitError,
    OptionsError,
    StructevalError,
    hide_usage_error,
    too_deep,
)
from .results import set_order

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "MAX_CANDIDATES",
    "MAX_INT_BITS",
    "MAX_INT_DIGITS",
    "MAX_YAML_CHARS",
    "PIECES",
    "PURE_NUMBER",
    "QUALIFIED_LINE_END",
    "REFUSED",
    "SCALAR_TYPES",
    "TOO_MANY_DIGITS",
    "YAML_BRACKETS",
    "Parsed",
    "Piece",
    "answer_text",
    "check_json_depth",
    "check_size",
    "decimal_number",
    "digit_limit",
    "digit_run",
    "literal_source",
    "parse_answer",
    "parse_answer_detailed",
    "parse_checked",
    "piece_of",
    "plain_value",
    "read_number",
    "repairs_in",
    "strip_think",
]

DEFAULT_MAX_BYTES: Final = 10_000_000
DEFAULT_MAX_DEPTH: Final = 200
# The end of a parse method whose reading needed a repair that ``repair=False`` refused
# (``fence:json+repaired+refused``): the answer is kept whole, as text.
REFUSED: Final = "+refused"
MAX_INT_DIGITS: Final = 4300  # Python's own int-string limit; longer ints are an attack, not data
MAX_INT_BITS: Final = 14_284  # as large in 0x/0o/0b: 10**4300 is about 2**14284
TOO_MANY_DIGITS: Final = f"an integer of more than {sys.get_int_max_str_digits()} digits"


def digit_limit(exc: ValueError) -> str | None:
    """Python's int-string limit error in our words (for a JSON or YAML file): its advice
    (``set_int_max_str_digits``) is no fix a user of this tool can apply."""
    if "sys.set_int_max_str_digits" not in str(exc):
        return None
    return TOO_MANY_DIGITS


@dataclass(frozen=True, slots=True, init=False)
class Parsed:
    """A parsed answer and how it was found.

    ``method`` joins where the value came from and how it was decoded, e.g. ``"json"``,
    ``"fence:json+json"``, ``"final-answer+literal"``, ``"candidate+repaired"``, ``"count"``,
    ``"text"``, ``"empty"`` (the text fallback found nothing) or ``"value"`` (the input was
    already parsed). ``structured`` is false only for the text fallback.
    """

    value: Any
    method: str
    structured: bool

    def __init__(self, value: Any, method: str, structured: bool) -> None:
        # Two per scored pair: write the slots directly instead of the frozen dataclass's
        # object.__setattr__ detour (as results.py does); immutable afterwards.
        _set_value(self, value)
        _set_method(self, method)
        _set_structured(self, structured)


_set_value, _set_method, _set_structured = (
    getattr(Parsed, name).__set__ for name in ("value", "method", "structured")
)


def parse_answer(
    text: str | bytes | Any,
    *,
    strict: bool = False,
    repair: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Any:
    """Return the structured value in ``text`` (see the module docstring for the cascade).

    ``repair=False`` refuses an answer whose reading needed a structural repair (an
    unclosed bracket or string, a missing comma) as a whole: it is text, or with ``strict``
    an error, never a complete fragment found inside it."""
    __tracebackhide__ = hide_usage_error
    try:  # (not through parse_answer_detailed: a bare answer parses in about a microsecond)
        return _parse(text, strict, max_bytes, max_depth, repair)[0]
    except StructevalError as exc:  # a usage error: its traceback ends at the caller's line
        raise exc.with_traceback(None) from None


def parse_answer_detailed(
    text: str | bytes | Any,
    *,
    strict: bool = False,
    repair: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Parsed:
    """Like :func:`parse_answer`, and also say which stage found the value."""
    __tracebackhide__ = hide_usage_error
    try:
        value, method, structured = _parse(text, strict, max_bytes, max_depth, repair)
    except StructevalError as exc:  # a usage error: its traceback ends at the caller's line
        raise exc.with_traceback(None) from None
    return Parsed(value, method, structured)


Piece = tuple[Any, str, str, Any]
"""A value a decoder gave while a text was read, with the text it decoded, how (``json``,
``literal``, ``yaml``) and what else that decoder knows of it (a literal's checked AST with
the number of pairs its dicts write, a YAML block's repeated keys)."""
PIECES: ContextVar[list[Piece] | None] = ContextVar("structeval_pieces", default=None)
"""Set to a list (a gold's parse: ``None`` elsewhere, where nothing is noted), it receives
each object or list a decoder gives while a text is read, with the piece of text it was
decoded from (see :class:`Piece`): where a gold's keys written twice are looked for, in the
piece its value came from (:func:`piece_of`). The bare JSON of the fast path, the whole
text, is no piece. Nothing is looked at while the text is read."""


def piece_of(value: Any, pieces: list[Piece]) -> Piece | None:
    """The piece ``value`` (a parse's value, this very object) was decoded from, if any."""
    for piece in reversed(pieces):  # (the last one decoded, as a rule the only one)
        if piece[0] is value:
            return piece
    return None


def check_parse_options(
    strict: Any,
    max_bytes: Any,
    max_depth: Any,
    repair: Any = True,
    *,
    strict_name: str = "strict",
    repair_name: str = "repair",
) -> None:
    """Raise ``OptionsError`` for a non-bool ``strict`` or ``repair`` or a bound that is not
    a positive integer (int subclasses other than bool are accepted)."""
    __tracebackhide__ = hide_usage_error
    if (
        type(strict) is bool
        and type(repair) is bool
        and type(max_bytes) is int
        and type(max_depth) is int
        and max_bytes > 0
        and max_depth > 0
    ):
        return  # the usual call: a few type tests
    for name, switch in ((strict_name, strict), (repair_name, repair)):
        if not isinstance(switch, bool):
            raise OptionsError(f"{name} must be true or false, got {switch!r}")
    for name, bound in (("max_bytes", max_bytes), ("max_depth", max_depth)):
        if isinstance(bound, bool) or not isinstance(bound, int) or bound < 1:
            raise OptionsError(f"{name} must be a positive integer, got {bound!r}")


def _parse(
    text: Any, strict: bool, max_bytes: int, max_depth: int, repair: bool = True
) -> tuple[Any, str, bool]:
    check_parse_options(strict, max_bytes, max_depth, repair)
    return parse_checked(text, strict, max_bytes, max_depth, repair)


def parse_checked(
    text: Any, strict: bool, max_bytes: int, max_depth: int, repair: bool
) -> tuple[Any, str, bool]:
    """:func:`_parse` once its options are known to be valid (the modes check them first):
    ``(value, method, structured)``."""
    found = _parse_checked(text, strict, max_bytes, max_depth)
    if repair or "repaired" not in found[1]:
        return found
    # The answer's reading needed a repair: refused as a whole, never a fragment of it (a
    # complete object inside a cut-off one would score as if nothing were wrong).
    if strict:
        raise AnswerParseError(
            f"the answer needs a structural repair ({found[1]}), and repairs are off"
        )
    plain = answer_text(text, strict, max_bytes)
    return plain.strip(), found[1] + REFUSED, False


def _parse_checked(
    text: Any, strict: bool, max_bytes: int, max_depth: int
) -> tuple[Any, str, bool]:
    if type(text) is not str:
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = _text_of_bytes(bytes(text), strict, max_bytes)
        elif isinstance(text, str):
            text = str(text)
        else:
            return plain_value(text, max_depth, max_bytes), "value", True
    if len(text) > max_bytes >> 2:  # a character is at most 4 UTF-8 bytes
        check_size(text, max_bytes)
    s = text.strip()
    head = s[:1]
    if head == "\ufeff":
        s = s[1:].lstrip()
        head = s[:1]
    json_tried = head == "{" or head == "["
    if json_tried:
        try:
            return _vetted(orjson.loads(s), s, max_depth), "json", True
        except orjson.JSONDecodeError:
            pass
    return _parse_text(s, strict, max_depth, json_tried)


def check_size(text: str, max_bytes: int) -> None:
    """``LimitError`` when ``text`` is over ``max_bytes`` in UTF-8."""
    if len(text) > max_bytes >> 2:  # (short texts need no encoding to tell)
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise LimitError(f"answer is {size:,} bytes, over max_bytes={max_bytes:,}")


SCALAR_TYPES: Final = frozenset({str, int, float, bool, type(None)})
"""The exact types of JSON's scalars as Python holds them: the walk, schema equality and
:func:`plain_value` test ``type(x) in SCALAR_TYPES`` (subclasses take the slow path)."""
_PLAIN: Final = SCALAR_TYPES | {dict, list, tuple}
_NESTING: Final = (dict, list, tuple)


def plain_value(
    value: Any, max_depth: int = DEFAULT_MAX_DEPTH, max_bytes: int = DEFAULT_MAX_BYTES
) -> Any:
    """A value given already parsed, read as its JSON text would be: a set becomes a sorted
    list (as a set literal in an answer does), a number of another library (``Decimal``,
    ``Fraction``, a numpy scalar) an int or a float, a numpy bool a bool and a numpy array
    its list; the containers holding them become dicts and lists.

    The usual value, builtins only, is checked level by level with the type tests in C and
    returned as it is. ``LimitError`` when it nests more than ``max_depth`` non-empty
    containers, as its JSON text would be refused (a cycle does), whether or not a mode
    walks that deep. A part held in several places is its JSON text in each: ``LimitError``
    when the text written out in full would be over ``max_bytes`` (``[x, x]`` nested 30
    times is 2**30 values, however small it is in memory).
    """
    kind = type(value)
    if kind is dict and SCALAR_TYPES.issuperset(map(type, value.values())):
        return value  # the usual fixture answer: a flat dict, one C-level check
    if kind not in _PLAIN:
        return _converted(value, max_depth, max_bytes)
    level: list[Any] = [value]
    written = 1  # values so far, a part held in several places counted in each
    limit = (max_bytes + 1) // 2
    seen: set[int] = set()  # ids of the containers met
    shared = counted = False
    for _ in range(max_depth):
        containers = [c for c in level if type(c) in _NESTING]
        if counted:  # each container once from here on (a cycle would grow each level)
            containers = list({id(c): c for c in containers if id(c) not in seen}.values())
        if not containers:
            if counted:  # the parts met again were skipped: held deeper there, or a loop
                _check_shared_depth(value, max_depth)
            return value
        known = len(seen)
        seen.update(map(id, containers))
        shared = shared or len(seen) - known < len(containers)  # met again: shared, or a cycle
        level = list(chain.from_iterable(c.values() if type(c) is dict else c for c in containers))
        if shared and not counted:
            written += len(level)
            # Large through shared parts, or growing fast (a cycle): count the parts once each.
            if written > limit >> 4 or written > _FAN_OUT * len(seen):
                _check_written_out(value, max_bytes)
                counted = True
        if not _PLAIN.issuperset(map(type, level)):
            return _converted(value, max_depth, max_bytes)
    if counted:  # the parts met again were skipped: held deeper there, or a loop
        _check_shared_depth(value, max_depth)
    elif any(type(c) in _NESTING and c for c in level):
        _refuse_depth(value, max_depth)
    return value


def _check_shared_depth(value: Any, max_depth: int) -> None:
    """The depth bound for a value holding a part in several places, or a loop: each part
    once a level (see :func:`~pytest_structeval.paths.check_depth`)."""
    from .paths import check_depth  # (it imports this module)

    check_depth(value, max_depth)


def _refuse_depth(value: Any, max_depth: int) -> NoReturn:
    """The walk's ``LimitError`` for a value given parsed that nests deeper than
    ``max_depth``, naming the first path too deep."""
    from .paths import first_too_deep  # (it imports this module)

    raise too_deep(max_depth, first_too_deep(value, max_depth))


_FAN_OUT: Final = 64  # values written out per container met that make plain_value count


def _check_written_out(value: Any, max_bytes: int) -> None:
    """``LimitError`` when ``value`` holds a part in several places and, that part written
    out in each, has more values than a JSON text of ``max_bytes`` can (one byte and a comma
    each). A value holding each part once is as large as it is, here as in the builtin path.

    Counted over the parts once each, bottom up; a way back to a part being counted (a
    cycle) counts one value, as the walk refuses it at ``max_depth``."""
    limit = (max_bytes + 1) // 2
    sizes: dict[int, int] = {}  # a part's values written out (1 while it is being counted)
    alive: list[Any] = []  # the parts counted, kept so no id is reused (a lazy mapping's)
    shared = False
    stack: list[Any] = [value]  # parts, each later again after _COUNTED once its items are in
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        part = pop()
        if part is _COUNTED:
            part = pop()
            items = part.values() if isinstance(part, Mapping) else part
            size = 1 + sum(map(sizes.get, map(id, items), repeat(1)))
            if shared and size > limit:
                raise LimitError(_written_out_message(limit, max_bytes))
            sizes[id(part)] = size if size <= limit else limit + 1  # (its holders are over too)
        elif id(part) in sizes:
            shared = True
        else:
            sizes[id(part)] = 1
            alive.append(part)
            push(part)
            push(_COUNTED)
            items = part.values() if isinstance(part, Mapping) else part
            extend(
                [c for c in items if type(c) in _NESTING or (type(c) not in _PLAIN and _holds(c))]
            )


_COUNTED: Final = object()


def _holds(value: Any) -> bool:
    """Whether ``value`` is a container :func:`_converted` copies the items of."""
    return type(value) in _NESTING or isinstance(value, (Mapping, list, tuple, set, frozenset))


def _written_out_message(limit: int, max_bytes: int) -> str:
    return (
        f"value would hold over {limit:,} values as JSON text (a part held in several places "
        f"is written out in each), more than max_bytes={max_bytes:,} can"
    )


def _converted(value: Any, max_depth: int, max_bytes: int) -> Any:
    """:func:`plain_value`'s copy, built top down without recursion. A part held in several
    places is copied once and held where it was (a cycle stays one), and then bounded as
    :func:`plain_value` bounds such a value; ``LimitError`` at a non-empty container more
    than ``max_depth`` deep."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(root, 0, value, 1)]
    # id of a container given -> it and its copy (kept: a lazy mapping's values are new
    # objects, and one freed could lend its id to another)
    copies: dict[int, tuple[Any, Any]] = {}
    shared = False
    while stack:
        holder, key, item, depth = stack.pop()
        if type(item) in SCALAR_TYPES:  # the most of them
            holder[key] = item
            continue
        known = copies.get(id(item))
        if known is not None and known[0] is item:
            holder[key] = known[1]
            shared = True
            continue
        given = item
        item = _scalar_form(item)
        if type(item) in _PLAIN and type(item) not in _NESTING:
            holder[key] = item
            continue
        if depth > max_depth and _holds(item) and len(item):
            holder[key] = [item]  # a list, so the walk's message names its path
            _refuse_depth(root[0], max_depth)
        if isinstance(item, Mapping):
            new: Any = dict.fromkeys(item)  # the keys' order, values filled below
            stack.extend((new, k, v, depth + 1) for k, v in item.items())
        elif isinstance(item, (list, tuple, set, frozenset)):
            if isinstance(item, (set, frozenset)):
                item = sorted(item, key=lambda e: set_order(_scalar_form(e)))
            new = [None] * len(item)
            stack.extend((new, i, v, depth + 1) for i, v in enumerate(item))
        else:
            holder[key] = item
            continue
        holder[key] = new
        copies[id(given)] = (given, new)
    if shared:
        _check_written_out(root[0], max_bytes)
        _check_shared_depth(root[0], max_depth)
    return root[0]


def _scalar_form(value: Any) -> Any:
    """A number, bool or array of another library as its builtin form; anything else as is."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind.__module__ == "numpy" and callable(getattr(value, "tolist", None)):
        narrow = _narrow_floats(value)  # float16/float32: read as printed
        if getattr(value, "ndim", 0):  # an array: nested lists
            if narrow and value.size:
                return _reshaped([_printed_float(x) for x in value.flat], value.shape)
            return value.tolist()
        return _printed_float(value) if narrow else value.tolist()  # a scalar
    if isinstance(value, (bool, int, float)):
        return value  # an IntEnum, a float subclass: compared as the number they are
    if isinstance(value, Decimal) and value.is_nan():
        return float("nan")  # (a signalling NaN raised InvalidOperation when compared)
    try:
        if isinstance(value, Decimal) and value.is_finite() and value.adjusted() > MAX_INT_DIGITS:
            return float(value)  # 1e999999 as an int would take a million digits
        if isinstance(value, (Decimal, Fraction)):
            whole = value == int(value)
            return int(value) if whole else float(value)
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real):
            return float(value)
    except (ValueError, OverflowError, TypeError):  # NaN, infinity, beyond float range
        try:
            return float(value)
        except (ValueError, OverflowError, TypeError):
            return value
    return value


def _narrow_floats(value: Any) -> bool:
    """Whether a numpy value holds floats narrower than a Python float (float16, float32)."""
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "kind", "") == "f" and getattr(dtype, "itemsize", 8) < 8


def _printed_float(value: Any) -> float:
    """A float32 as its text reads (``0.1``, not ``0.10000000149011612``): what numpy
    prints and writes to JSON, and what the model meant."""
    return float(str(value))


def _reshaped(flat: list[Any], shape: tuple[int, ...]) -> Any:
    """Nested lists of ``shape`` from its row-major ``flat`` values."""
    for size in reversed(shape[1:]):
        flat = [flat[i : i + size] for i in range(0, len(flat), size)]
    return flat


def answer_text(text: str | bytes | bytearray | memoryview, strict: bool, max_bytes: int) -> str:
    """An answer given as text: a ``str`` as it is, bytes decoded as the parser reads them."""
    return text if isinstance(text, str) else _text_of_bytes(bytes(text), strict, max_bytes)


def _text_of_bytes(data: bytes, strict: bool, max_bytes: int) -> str:
    if len(data) > max_bytes:
        raise LimitError(f"answer is {len(data):,} bytes, over max_bytes={max_bytes:,}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if strict:
            raise AnswerParseError(f"answer bytes are not valid UTF-8: {exc}") from None
        return data.decode("utf-8-sig", errors="replace")


def _parse_text(text: str, strict: bool, max_depth: int, json_tried: bool) -> tuple[Any, str, bool]:
    original = text
    if "<" in text:
        text = strip_think(text)
    quick = _common_shape(text, max_depth)
    if quick is not None:
        return quick[0], quick[1], True
    tried: list[str] = []
    where = ""
    region = text
    found = _whole_value(text, max_depth, json_tried and text is original, tried)
    cut_off = None
    marked = None
    if found is not None and found[1] == "repaired" and _final_marked(text):
        # Tool output cut off before a "Final Answer:" reads as one repaired value: the marker
        # rules, and the repaired text is the answer only when nothing marked is, or when the
        # marker stood inside one of its strings, which the text itself closes. (An
        # ``answer:`` line is as likely a key of the truncated value itself.)
        marked = _answer_region(text)
        if not _marker_in_closed_string(text, marked[1]):
            cut_off, found = found, None
    if found is None:
        region, where = marked or _answer_region(text)
        if where or region is not text:  # a marked region, or an answer in emphasis
            found = _whole_value(region, max_depth, False, tried)
            if found is None and where and region:  # (emphasis alone leaves nothing)
                found = _leading_value(region, max_depth)
        if found is None:
            found = _inside(region, max_depth, tried)
        if found is None and where and _has_fence(text) and _points_back(region):
            # "```json {...}``` Final Answer: see above": a block the model fenced is an answer
            # it presented when the marker points back at it; bare JSON before the marker
            # (tool output) is not, and neither is a block when the marker states an answer.
            found = _from_fences(text, max_depth, tried)
            if found is not None:
                where = ""
        if found is None and cut_off is not None and not region.strip():
            # (a marked text answer wins, and so does a pointer such as "see above": it never
            # pulls in bare tool output)
            found, where, region = cut_off, "", text
    if found is not None:
        value, how = found
        return value, where + how, True
    if strict:
        scope = f"the text after {where[:-1]!r}" if where else "the answer"
        raise AnswerParseError(
            f"no structured answer found in {scope}: tried {', '.join(tried)}; "
            f"text begins {region[:80]!r}"
        )
    if not region:
        return region, "empty", False
    fenced = _fenced_text(region)
    if fenced:
        return fenced, where + _fence_label(_fences(region)[0][0]) + "text", False
    return region, where + "text", False


# One fenced block that is the whole text, opening and closing on lines of their own, with no
# other backtick: what ``_fences`` finds there, in one match.
_SINGLE_FENCE = re.compile(r"```(?!`)[ \t]*([\w+#.-]*)[ \t]*\r?\n([^`]*)\n[ \t]*```")


def _common_shape(text: str, max_depth: int) -> tuple[Any, str] | None:
    """The cascade's result for the wrappings most answers use, or None for anything else.

    Prose that opens the text (so it is no value as a whole) followed by ``Final Answer:``
    and JSON to the end; one fenced JSON block; JSON inside prose with nothing else bracketed.
    For these the cascade decodes one span with orjson after a few cheap stages; this takes
    the same stages without the rest of it, and gives up (None) wherever the cascade would go
    on differently, so both always agree (tests/test_parse_fast.py checks it).
    """
    # (_has_boxed and _has_tildes inlined: a call costs as much as the searches)
    if not text or "<" in text or _may_be_value(text) or ("\\" in text and "\\boxed{" in text):
        return None  # tags, a boxed answer, or a text the cascade first reads as one value
    marker = _last_marker(text)
    if marker is not None:  # the region after the marker, as _answer_region gives it
        label, start, _ = marker
        region = text[start:].strip()
        if region[:1] not in _JSON_OPENERS or _inside_brackets(text, start):
            return None
        value = _load_json(region, max_depth)
        return None if value is _NOTHING else (value, f"{label}+json")
    if "```" not in text:  # no marker, no backtick fence: _inside's first stage
        if "~" in text and "~~~" in text:
            return None
        if text[0] in "*`" and _unemphasised(text) is not text:
            return None  # a value in emphasis or inline code, which the cascade reads whole
        return _closing_json(text, max_depth)
    fence = _SINGLE_FENCE.fullmatch(text)
    if fence is None:
        return None
    body = fence.group(2).strip()
    if body[:1] not in _JSON_OPENERS:
        return None
    value = _load_json(body, max_depth)
    if value is _NOTHING:
        return None
    lang = fence.group(1).lower()
    return value, (f"fence:{lang}+json" if lang else "fence+json")


_JSON_OPENERS: Final = ("{", "[")


# --- think blocks and the answer region ------------------------------------------------------

_THINK_TAG = re.compile(r"<(/?)think(?:ing)?(?=[\s>/])[^<>]*>", re.IGNORECASE)
# An opening and a closing _THINK_TAG (neither self-closing "/>") with no "<" between them.
_LEADING_THINK = re.compile(
    r"<think(?:ing)?(?=[\s>/])[^<>]*(?<!/)>[^<]*</think(?:ing)?(?=[\s>/])[^<>]*(?<!/)>",
    re.IGNORECASE,
)


def strip_think(text: str) -> str:
    """Remove ``<think>...</think>`` blocks (case-insensitive) and strip the rest.

    A closing tag with no opening one (chat templates that open the block in the prompt) drops
    everything before it. An unclosed ``<think>`` drops the rest of the text when an answer
    came before it; when it opens the text, only the tag is removed, because dropping
    everything would lose an answer the model wrote at the end of its reasoning.
    """
    if "<" not in text:
        return text.strip()
    if text.count("<") == 2:  # the usual shape: one block opening the text, then the answer
        block = _LEADING_THINK.match(text)
        if block is not None:
            return text[block.end() :].strip()
    kept: list[str] = []
    inside = False
    pos = content_start = 0
    tags = list(_THINK_TAG.finditer(text))
    quoted = _quote_tracker(text, tags)
    for tag in tags:
        if inside:  # reasoning ends at its first closing tag; a "<think>" in it is text
            if tag.group(1):
                inside, pos = False, tag.end()
        elif quoted(tag):
            continue  # a tag named in a string ("the model leaked its <think> block")
        elif tag.group().endswith("/>"):  # an empty <think/>
            kept.append(text[pos : tag.start()])
            pos = tag.end()
        elif tag.group(1):
            kept.clear()
            pos = tag.end()
        else:
            kept.append(text[pos : tag.start()])
            inside, content_start = True, tag.end()
    if not inside:
        kept.append(text[pos:])
        return "".join(kept).strip()
    before = "".join(kept).strip()
    return before or _THINK_TAG.sub("", text[content_start:]).strip()


def _quote_tracker(text: str, tags: list[re.Match[str]]) -> Callable[[re.Match[str]], bool]:
    """Whether one of ``tags`` (asked in order; group 1 is the ``/`` of a closing tag) is
    named rather than used: quoted directly (``'<think>'``, ``"<think>"``, `` `<think>` ``),
    or, when it has no partner (an opening tag never closed, a closing one never opened),
    inside a double-quoted string of its line: an odd number of unescaped ``"`` before it. A
    tag with a partner opens or closes a real block whatever the quotes around it (an inch
    mark, ``5"``). Single quotes are not counted: apostrophes in prose would flip them.
    Linear over all the positions asked."""
    last_close = max((tag.start() for tag in tags if tag.group(1)), default=-1)
    line_start = scanned = count = 0

    def quoted(tag: re.Match[str]) -> bool:
        nonlocal line_start, scanned, count
        pos = tag.start()
        paired = not tag.group(1) and pos < last_close  # an opening tag closed later
        newline = text.rfind("\n", scanned, pos)
        if newline >= 0:
            line_start = scanned = newline + 1
            count = 0
        count += sum(m.group() == '"' for m in _DQUOTE_OR_ESCAPE.finditer(text, scanned, pos))
        scanned = pos
        if pos > line_start and text[pos - 1] in "'\"`":
            return True
        return not paired and count % 2 == 1

    return quoted


_DQUOTE_OR_ESCAPE = re.compile(r'\\.|"', re.DOTALL)  # an escape pair, or a quote it leaves alone


_ANSWER_TAG = re.compile(r"<(/?)answer(?:\s[^<>]*)?(?<!/)>", re.IGNORECASE)  # attributes too
_ANSWER_WORD = re.compile("answer", re.IGNORECASE)
# After a marker's separator: blanks, and an emphasis run only when it closes the marker's own
# markup ("**Final Answer:** 34"); a run that opens the value ("Final Answer: **x**") is the
# value's, and :func:`_unemphasised` takes it off whole.
_AFTER_SEP = r"[ \t]*(?:(?:\*+|_+)(?![^ \t\r\n]))?[ \t]*"
# From a line start: markup or a list number ("3. "), an optional "Final", the word, an
# optional parenthetical ("Answer (JSON):"), then an optional separator: a colon, or after
# "Final Answer" also "=" or a dash between blanks ("Final Answer - x"; "answer = f(x)" is
# code and "Answer-based" a word). The prefix holds no letters but "final", so a match's
# word is the first "answer" on the line.
_MARKER = re.compile(
    r"[ \t>*#_-]*(?:[0-9]{1,3}[.)][ \t]+[ \t>*#_]*)?(?P<final>final[ \t]+)?(?P<word>answer)"
    r"(?!\w)[ \t*_]*(?:\([^()\n]{0,40}\)[ \t*_]*)?"
    r"(?P<sep>[:：=]|(?<=[ \t])[-\u2013\u2014](?=[ \t\r\n]|\Z))?" + _AFTER_SEP,
    re.IGNORECASE,
)
_MARKER_TRIES = 16
"""Markers tried, last first, while each sits inside brackets (an unquoted ``answer:`` key of
tool output): each try scans the text, so hostile text stays linear."""
_MARKER_REACH = 40  # how far before "answer" a marker's line may start (markup, "Final ")
# Inside a sentence, "Therefore, the final answer (to the question) is:" marks the answer too,
# with "the", "my" or "our" before it and a colon after "is": "the final answer should cite
# this" and "the final answer is that ..." stay prose.
_INLINE_LEAD = re.compile(r"(?<!\w)(?:the|my|our)[ \t]+final[ \t]+\Z", re.IGNORECASE)
_INLINE_LEAD_REACH = 16
_INLINE_TAIL = re.compile(
    r"answers?(?!\w)[^\n:.]{0,60}?\b(?:is|are|would[ \t]+be|will[ \t]+be)[ \t*_]*[:：]"
    + _AFTER_SEP,
    re.IGNORECASE,
)


def _marker_in_closed_string(text: str, where: str) -> bool:
    """Whether the marker of the answer region (``where`` its label) stands inside a string
    that the text itself closes (``{"thought": "..\\nFinal Answer: x", "answer": 3``): then it
    belongs to the value. In a string cut off at the end, or outside any, it follows the cut."""
    if where.startswith("answer-tag+"):
        pos = _answer_tag(text)[1]
    else:
        marker = _outer_marker(text)
        pos = -1 if marker is None else marker[2]
    if pos < 0:
        return False
    cut = _cut_note_start(text)  # (a value cut before a note is read without it)
    read = text if cut is None else text[:cut]
    for token in _TOKEN.finditer(read):  # as the repairs read the text: the same tokens
        if token.end() > pos:
            string = token.group("str")
            if string is None or token.start("str") >= pos:
                return False
            if string.startswith("\u201c"):  # typographic, closed by its own mark
                return string.endswith("\u201d")
            return _CLOSED_STRING.fullmatch(string) is not None
    return False


def _final_marked(text: str) -> bool:
    """Whether the answer region is marked by a ``Final Answer`` marker (never one inside
    brackets) or by an answer tag outside brackets (not one in a string of the value)."""
    where = _answer_region(text)[1]
    if where.startswith("answer-tag+"):
        return not _inside_brackets(text, _answer_tag(text)[1])
    return where.startswith("final-answer+")


def _answer_region(text: str) -> tuple[str, str]:
    """Return the text the answer is in and its label prefix (``"final-answer+"``,
    ``"boxed+"``, ``""``...): the marked region, narrowed to its last ``\\boxed{...}``; a
    number boxed keeps a scale word or a percent sign written right after the box
    (``$\\boxed{3}$ million`` is ``3 million``, ``$\\boxed{45}$%`` is ``45%``)."""
    region, where = _marked_region(text)
    if _has_boxed(region):
        boxed, end = _boxed_span(region)
        if boxed:
            if _PURE_NUMBER.fullmatch(boxed):
                after = _AFTER_BOX.match(region, end)
                word = None if after is None else after.group("word")
                if word:
                    boxed += " " + word if word[0].isalpha() else word
            return boxed, where + "boxed+"
    return region, where


# What a box of a number may leave after it: a scale word or a percentage, past the math
# delimiters closing the box.
_BOX_SPACE: Final = r"(?:[ \t\u00a0\u2000-\u200a\u202f~]|\\[,;:! ]|\\q?quad\b|\\thinspace\b)*"
_AFTER_BOX = re.compile(
    rf"{_BOX_SPACE}(?:\$\$?|\\[)\]])?{_BOX_SPACE}(?:\\(?:text|mathrm|textrm|mbox|rm)\{{[ \t]*)?"
    r"(?P<word>[%\uff05\u2030\u066a]|\\%|(?:(?i:percent|per[ \t\u00a0]?cent)|pct|Pct)\b"
    r"|(?i:hundred|thousand|million|billion|trillion|dozen)s?(?![\w-])"
    r"|(?:M{1,2}|[Mm]n|mln|[Bb]n|bln|tn|Mio|Mrd|(?i:lakhs?|crores?|milliards?))(?![\w-]))?"
)


def _marked_region(text: str) -> tuple[str, str]:
    """The region after the last marker, unemphasised; a marker inside brackets (an unquoted
    ``answer:`` key of tool output) gives way to the one before it."""
    if "<" in text:
        tagged = _answer_tag_content(text)
        if tagged:
            return _unemphasised(tagged), "answer-tag+"
    marker = _outer_marker(text)
    if marker is None:
        return _unemphasised(text), ""
    label, start, _ = marker
    line = text[text.rfind("\n", 0, start) + 1 : start]
    return _unemphasised(text[start:].strip(), _open_emphasis(line)), label + "+"


def _outer_marker(text: str) -> tuple[str, int, int] | None:
    """The last marker with a region after it, outside brackets (one inside, an unquoted
    ``answer:`` key of tool output, gives way to the one before it): its label, region start
    and word position."""
    marker = _last_marker(text)
    for _ in range(_MARKER_TRIES):
        if marker is None or not text[marker[1] :].strip():
            return None
        if not _inside_brackets(text, marker[1]):
            return marker
        marker = _last_marker(text, marker[2])
    return None


# A one-line value set in emphasis or inline code ("**Chiller 6**", "`T-011`"): the reader
# sees the inner text. Underscores are left alone: "__init__" is a name.
_WRAPPED = re.compile(r"(\*{1,3}|`{1,2})(?![\s*`])([^\n]*?)(?<![\s*`])\1[.!]?")
_OPENING_RUN = re.compile(r"\*{1,3}(?=[^\s*])")
_EMPHASIS_RUN = re.compile(r"\*+")
_LIST_BULLET = re.compile(r"[ \t>]*[*+-][ \t]+")


def _open_emphasis(line: str) -> str:
    """The emphasis run a marker's line opens and leaves open ("**Final Answer: x**" opens
    ``**`` before the value), or ``""``; a list bullet ("* Final Answer:") is not one."""
    bullet = _LIST_BULLET.match(line)
    runs = _EMPHASIS_RUN.findall(line, bullet.end() if bullet else 0)
    return runs[0] if len(runs) % 2 else ""


def _unemphasised(region: str, opened: str | None = None) -> str:
    """``region`` without the markdown emphasis around its value.

    After a marker (``opened`` is the run its line left open, or ``""``), the region's first
    line loses the run that closes ``opened`` at one of its ends, or, when the marker left
    none open, an opening run never closed on that line (``Final Answer: **Chiller 6``, a cut
    answer). Then a one-line region wrapped in emphasis or inline code (with none inside,
    a closing ``.`` or ``!`` aside) is its inner text; that alone applies to a region no
    marker starts (``opened`` None).
    """
    if opened is not None:
        cut = region.find("\n")
        first, rest = (region, "") if cut < 0 else (region[:cut], region[cut:])
        line = first.rstrip()  # "\r" of a CRLF line too
        if opened:
            if line.count("*") == len(opened):
                if line.endswith(opened):
                    line = line[: -len(opened)].rstrip()
                elif line.startswith(opened):
                    line = line[len(opened) :].lstrip()
        else:
            unclosed = _OPENING_RUN.match(line)
            if unclosed is not None and line.count("*") == unclosed.end():
                line = line[unclosed.end() :]
        region = line + first[len(first.rstrip()) :] + rest
    if region[:1] in "*`":
        wrapped = _WRAPPED.fullmatch(region)
        if wrapped is not None and wrapped.group(1)[0] not in wrapped.group(2):
            return wrapped.group(2)
    return region


def _has_boxed(text: str) -> bool:
    return "\\" in text and "\\boxed{" in text  # a one-character search first


_LATEX_TEXT = re.compile(r"\\(?:text|textbf|textrm|mathrm)\{([^{}]*)\}")


def _boxed_span(text: str) -> tuple[str, int]:
    """The content of the last balanced ``\\boxed{...}`` (the LaTeX answer convention of math
    models), with a ``\\text{...}`` around all of it removed and LaTeX's escaped braces
    ``\\{``/``\\}`` read as braces around an object with a quoted first key; "" when there is
    none or when it sits inside an open ``{``/``[`` (a JSON string that mentions it). With
    where the box ends."""
    start = text.rfind("\\boxed{")
    if start < 0:
        return "", 0
    # (LaTeX's display math, \[ ... \], opens no bracket; the offsets hold)
    display = "\\[" in text
    scanned = text.replace("\\[", "  ").replace("\\]", "  ") if display else text
    if _inside_brackets(scanned, start):
        return "", 0
    start += len("\\boxed{")
    depth = 1
    for brace in _BRACE.finditer(text, start):
        depth += 1 if brace.group() == "{" else -1
        if not depth:
            content = text[start : brace.start()].strip()
            inner = _LATEX_TEXT.fullmatch(content)
            content = (inner.group(1) if inner else content).strip()
            if _BOXED_OBJECT.match(content):  # \{"key": ...\}: LaTeX's braces around JSON
                content = content.replace("\\{", "{").replace("\\}", "}")
            return content, brace.end()  # (math such as \{1, 2\} or \left\{ stays as written)
    return "", 0


_BRACE = re.compile("[{}]")
_BOXED_OBJECT = re.compile(r"""\\\{\s*["'\u201c]""")  # an object with a quoted first key


# An answer that points back at a block shown before it instead of stating one: "see above",
# "See the JSON above.", "The above JSON", "as shown previously", "the previous output", "in
# the code block", "see the JSON". "above" as a preposition ("above the limit", "above 80 C")
# is not a pointer, nor is a block that is not code ("the valve in block B"), nor a code block
# that is only talked about ("no code block needed", "the bug in the code block is fixed",
# "see the json-formatted table").
_BACK_REFERENCE = re.compile(
    r"\babove\b(?=[ \t]*(?:[^\w\s]|$|(?:is|are|contains|holds|has|for|in)\b))"
    r"|\bthe[ \t]+above\b"
    r"|(?:\b(?:is|are|see|refer[ \t]+to)[ \t]+(?:in[ \t]+)?|^[ \t]*in[ \t]+)"
    r"the[ \t]+(?:code|json)[ \t]+(?:block|snippet)s?\b"
    r"|\b(?:see|refer[ \t]+to)[ \t]+the[ \t]+json(?![\w-])"
    r"|\b(?:previous|preceding|earlier)[ \t]+(?:\w+[ \t]+)?"
    r"(?:json|block|code|output|result|answer|response|object|message)s?\b"
    r"|\b(?:as|stated|shown|given|provided|listed|computed)[ \t]+(?:previously|earlier|before)\b",
    re.IGNORECASE | re.MULTILINE,
)
_BACK_REFERENCE_WORDS = 12  # a longer region states something of its own


def _points_back(region: str) -> bool:
    """Whether a marker's value-less text only refers to an answer shown before it."""
    return (
        len(region) <= 20 * _BACK_REFERENCE_WORDS
        and len(region.split()) <= _BACK_REFERENCE_WORDS
        and _BACK_REFERENCE.search(region) is not None
    )


def _inside_brackets(text: str, pos: int) -> bool:
    """Whether ``pos`` sits inside a balanced ``{...}``/``[...]`` span: an unquoted ``answer:``
    key or a ``\\boxed{}`` in a JSON string, not a marker.

    The scan reads strings as the candidate scan does, so braces inside the strings of tool
    output shown before a marker do not count, and neither does a bracket that never closes
    (tool output cut off before the marker). It stops once nothing open before ``pos`` is left.
    """
    before = text[:pos]  # (a slice and two "in" tests beat two bounded str.find calls)
    if "{" not in before and "[" not in before:
        return False  # nothing opened before it (the usual "Final Answer:" line)
    stack: list[tuple[str, int]] = []
    for opener, start, end in _closed_spans(text, stack):
        if start < pos < end and opener != "(":
            return True
        if end > pos and (not stack or stack[0][1] >= pos):
            return False  # nothing still open began before ``pos``
    return False


def _answer_tag_content(text: str) -> str:
    """The content of the last ``<answer>`` tag (see :func:`_answer_tag`)."""
    return _answer_tag(text)[0]


def _answer_tag(text: str) -> tuple[str, int]:
    """The content of the last ``<answer>`` tag, to the next tag or the end, and where that
    tag is (-1: none). An opening tag named in a string is no tag; inside the content, a tag
    inside a string of the content (``{"wrapper": "</answer>"}``: see :func:`_in_string`) is
    content when a closing tag follows it (the content may hold any quotes: a tag that ends
    it needs no partner)."""
    tags = list(_ANSWER_TAG.finditer(text))
    quoted = _quote_tracker(text, tags)
    last_close = max((tag.start() for tag in tags if tag.group(1)), default=-1)
    opened = at = last_at = -1  # where the open tag's content starts, and the tag
    last = ""
    for index, tag in enumerate(tags):
        named = quoted(tag)  # (asked of every tag, in order)
        if opened >= 0:
            following = tags[index + 1].start() if index + 1 < len(tags) else len(text)
            if tag.start() < last_close and _in_string(text, opened, tag, following):
                continue
            last, last_at, opened = text[opened : tag.start()], at, -1
        if not tag.group(1) and not named:
            opened, at = tag.end(), tag.start()
    if opened >= 0:
        return text[opened:].strip(), at
    content = last.strip()
    return content, last_at if content else -1


_FIRST_CHAR = re.compile(r"\S")
_FENCE_OPENING = re.compile(r"`{3,}|~{3,}")
_FENCE_INFO_WORD = re.compile(r"[ \t]*[\w+#.:-]*")  # a one-line fence's language


def _in_string(text: str, start: int, tag: re.Match[str], following: int) -> bool:
    """Whether ``tag`` lies inside a double-quoted string of the content from ``start``: an
    odd number of unescaped ``"`` before it there, and one after it in its line, before the
    ``following`` tag (the string closes: ``"<p></answer></p>"``; a quote left open in prose,
    ``Chiller "6</answer>``, an inch mark, ``3" pipe</answer> ... <answer>3" pipe``, or a
    text answer ending in a quote, ``It is "ok"</answer>``, is no such string). Only a block
    holding a value, which opens with ``{``, ``[`` or ``"`` (in a fenced block too), has such
    strings: prose quotes."""
    first = _FIRST_CHAR.search(text, start)
    fence = None if first is None else _FENCE_OPENING.match(text, first.start())
    if fence is not None:  # a fenced value: on one line after its language, or below it
        line_end = text.find("\n", fence.end())
        info = text[fence.end() : len(text) if line_end < 0 else line_end]
        if "{" in info or "[" in info:  # (```json {"a": 1}```)
            word = _FENCE_INFO_WORD.match(text, fence.end())
            assert word is not None  # (every part of the pattern is optional)
            first = _FIRST_CHAR.search(text, word.end())
        else:  # (the whole info string, ``` json title="x", then the value's lines)
            first = None if line_end < 0 else _FIRST_CHAR.search(text, line_end)
    if first is None or first.group() not in '{["':
        return False
    before = sum(m.group() == '"' for m in _DQUOTE_OR_ESCAPE.finditer(text, start, tag.start()))
    if before % 2 == 0:
        return False
    line_end = text.find("\n", tag.end(), following)
    stop = following if line_end < 0 else line_end
    return any(m.group() == '"' for m in _DQUOTE_OR_ESCAPE.finditer(text, tag.end(), stop))


def _last_marker(text: str, before: int | None = None) -> tuple[str, int, int] | None:
    """Find the last ``Final Answer:`` or ``Answer:`` starting a line (markdown allowed before
    it), or a ``Final Answer`` heading alone on its line, whose word starts before ``before``.
    Return its label, region start and word position. An ``answer:`` inside a YAML block is
    that block's key, not a marker."""
    low = text.lower()
    in_yaml = _in_yaml_block(text) if "yaml" in low or "yml" in low else _never
    if len(low) == len(text):  # str.lower kept every index (it can grow a few characters)
        idx = low.rfind("answer", 0, before)
        while idx >= 0:
            found = _marker_at(text, idx)
            if found is not None and not in_yaml(idx):
                return (*found, idx)
            idx = low.rfind("answer", 0, idx)
        return None
    for word in reversed(
        list(_ANSWER_WORD.finditer(text, 0, len(text) if before is None else before))
    ):
        found = _marker_at(text, word.start())
        if found is not None and not in_yaml(word.start()):
            return (*found, word.start())
    return None


def _never(pos: int) -> bool:
    return False


def _in_yaml_block(text: str) -> Callable[[int], bool]:
    """Whether a position lies in the content of a YAML fenced block of ``text`` (the blocks
    are in order and apart: one bisection)."""
    spans = [(start, end) for lang, start, end in _fence_spans(text) if lang in _YAML_LANGS]
    starts = [start for start, _ in spans]

    def inside(pos: int) -> bool:
        at = bisect_right(starts, pos) - 1
        return at >= 0 and pos < spans[at][1]

    return inside


def _marker_at(text: str, idx: int) -> tuple[str, int] | None:
    """The marker whose word "answer" is at ``idx``, if that word is one: a line marker, else
    an inline "the final answer ... is:"."""
    found = _line_marker_at(text, idx)
    if found is not None:
        return found
    if _INLINE_LEAD.search(text, idx - _INLINE_LEAD_REACH if idx > _INLINE_LEAD_REACH else 0, idx):
        tail = _INLINE_TAIL.match(text, idx)
        if tail is not None:
            return "final-answer", tail.end()
    return None


def _line_marker_at(text: str, idx: int) -> tuple[str, int] | None:
    newline = text.rfind("\n", idx - _MARKER_REACH if idx > _MARKER_REACH else 0, idx)
    if newline < 0 and idx > _MARKER_REACH:
        return None
    marker = _MARKER.match(text, newline + 1)
    if marker is None or marker.start("word") != idx:
        return None
    end = marker.end()
    sep = marker.group("sep")
    if sep:
        if marker.group("final"):
            return "final-answer", end
        return ("answer", end) if sep in ":：" else None
    if marker.group("final") and (end == len(text) or text[end] in "\r\n"):
        return "final-answer", end  # a "## Final Answer" heading
    return None


# --- the region cascade --------------------------------------------------------------------

_VALUE_START = frozenset("{[(\"'-+.0123456789")
_CONTAINERS = (dict, list)


def _whole_value(
    text: str, max_depth: int, json_tried: bool, tried: list[str]
) -> tuple[Any, str] | None:
    """The whole text as one JSON / Python value."""
    if not text or not _may_be_value(text):
        return None  # prose: skip the tokenizer
    tried.append("the whole text as JSON / Python literal")
    try:
        return _decode(text, max_depth, json_tried, whole=True) or _before_cut_note(text, max_depth)
    except LimitError:
        # A limit met by a text that is not one bracketed value ("{deep} then {...}") is met
        # by a span that may not be the answer: the candidates decide, as they do when the
        # text opens with prose.
        if (0, len(text)) in _top_level_spans(text):
            raise
        return None


# A note a harness or a dataset writes after output it cut off: "...", "…", "[output
# truncated]", "…[truncated 926 chars]", "(truncated)", "<snip>". Read in the text's last
# _CUT_NOTE_REACH characters only.
_CUT_NOTE = re.compile(
    r"\s*(?:(?:\.{3}|…)\s*)?"
    r"(?:[\[(<][^\[\]()<>\n]*(?:truncat|\bcut\b|omit|elid|snip|clip|\bmore\b)[^\[\]()<>\n]*[\])>]\s*)?\Z",
    re.IGNORECASE,
)
_CUT_NOTE_REACH: Final = 120


def _before_cut_note(text: str, max_depth: int) -> tuple[Any, str] | None:
    """A value cut off at the end of ``text`` with a note of the cut after it, read without
    the note: only when closing it takes the repairs (the note is what stopped them), so the
    reading is marked ``repaired`` and ``repair=False`` refuses it, never a complete fragment
    inside it."""
    cut = _cut_note_start(text)
    if cut is None:
        return None
    got = _decode(text[:cut], max_depth, False)
    return got if got is not None and got[1] == "repaired" else None


def _cut_note_start(text: str) -> int | None:
    """Where a note of a cut at the end of ``text`` begins (``None``: no note, or nothing
    before it)."""
    note = _CUT_NOTE.search(text, max(0, len(text) - _CUT_NOTE_REACH))
    if note is None or not note.group().strip() or note.start() == 0:
        return None
    return note.start()


def _leading_value(region: str, max_depth: int) -> tuple[Any, str] | None:
    """The value a marked region opens with, when it is followed by more text: its first
    fenced block, a balanced ``{...}``/``[...]`` at its start, or a number alone on its first
    line. What follows such a value is an explanation, so a structure inside it (a draft, the
    tool output, the input) is not the answer, as it would be by last-wins in unmarked text.
    """
    if region.startswith(("```", "~~~")):
        blocks = _fences(region)
        if blocks:  # (else an inline code span opens it: read as the prose it is part of)
            return _from_block(*blocks[0], max_depth)
    head = region[0]
    if head == "{" or head == "[":
        for _, start, end in _closed_spans(region, []):
            if start == 0:
                if head == "[" and _is_citation(region, 0, end):
                    return None
                got = _decode(region[:end], max_depth, False)
                return None if got is None else (got[0], "candidate+" + got[1])
        return None  # never closed: a truncated answer, which the candidate scan closes
    first, newline, rest = region.partition("\n")
    first = first.strip()
    number = _PURE_NUMBER.fullmatch(first) if newline else None
    if number is None or _list_item_marker(first, rest.lstrip().partition("\n")[0]):
        return None
    return read_number(number.group("n")), "count"


MAX_CANDIDATES: Final = 10_000
"""Bracketed spans tried per answer, in preference order: a bound on the work (1 MB of ``()``
holds 500,000 spans, and each costs a decode or a citation check)."""


def _inside(region: str, max_depth: int, tried: list[str]) -> tuple[Any, str] | None:
    """Fenced blocks, then bracketed candidates, then a count."""
    found = _from_fences(region, max_depth, tried) if _has_fence(region) else None
    if found is None:
        found = _closing_json(region, max_depth)
    if found is not None:
        return found
    candidates = _candidates(region)
    citations: list[tuple[int, int]] = []
    found = _first_candidate(region, candidates[:MAX_CANDIDATES], max_depth, citations)
    if found is not None:
        return found
    shown = (
        len(candidates)
        if len(candidates) <= MAX_CANDIDATES
        else f"the first {MAX_CANDIDATES} of {len(candidates)}"
    )
    tried.append(f"{shown} bracketed candidate(s)")
    tried.append("a count")
    count = _count(_without(region, citations) if citations else region)
    return None if count is None else (count, "count")


def _first_candidate(
    text: str, spans: list[tuple[int, int]], max_depth: int, citations: list[tuple[int, int]]
) -> tuple[Any, str] | None:
    """The first span that decodes to a non-empty container ("Notes: []" is prose); footnote
    markers are skipped and added to ``citations``. A template whose every string is a
    placeholder (``{"asset": "<asset name>"}``, echoed after the answer) is taken only when
    no other span is."""
    template = None
    for start, end in spans:
        if _is_citation(text, start, end):
            citations.append((start, end))
            continue
        got = _decode(text[start:end], max_depth, False)
        if got is None and end == len(text):
            got = _before_cut_note(text[start:end], max_depth)
        if got is not None and type(got[0]) in _CONTAINERS and got[0]:
            if not _is_template(got[0]):
                return got[0], "candidate+" + got[1]
            template = template or (got[0], "candidate+" + got[1])
    return template


# A placeholder such as "<asset name as recorded>" or "‹exact sensor name>": words in angle
# brackets with a space between them (an HTML tag such as "<div>" or '<a href="x">' is none).
# (a space inside, by a lookahead: two runs of one class around it backtracked quadratically)
_PLACEHOLDER = re.compile(
    r"\s*[<\u2039](?=[^<>\u2039\u203a=\"']*\s)[^<>\u2039\u203a=\"']*[>\u203a]\s*"
)
_TEMPLATE_LEAVES: Final = 200  # strings looked at: a longer value is data, never a template


def _is_template(value: Any) -> bool:
    """Whether every string in ``value`` (keys aside) is a placeholder, and there is one."""
    seen = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str):
            seen += 1
            if seen > _TEMPLATE_LEAVES or not _PLACEHOLDER.fullmatch(node):
                return False
    return seen > 0


def _closing_json(text: str, max_depth: int) -> tuple[Any, str] | None:
    """Fast path for "prose: {json}" and "prose: {json}. More prose.": JSON from the first
    ``{`` (or ``[``) to the last closer.

    When the text ends with that closer and the span parses, it is the balanced span ending
    last, which the candidate scan would pick first anyway, so the scan is skipped. When prose
    follows it, the same holds if nothing before the span opens a bracket and nothing after it
    does either: then the span is the only ``{``/``[`` candidate the scan could find.
    """
    last = text[-1:]
    if last == "}" or last == "]":
        start, end = text.find(_OPENER_OF[last]), len(text)
    else:
        span = _PROSE_JSON.fullmatch(text)
        if span is None:
            return None
        start, end = span.span(1)
        if text[start] != _OPENER_OF[text[end - 1]]:
            return None
    if start <= 0 or text[start - 1].isalnum() or text[start - 1] == "_":
        return None
    if text[start] == "[" and _is_citation(text, start, end):
        return None
    value = _load_json(text[start:end], max_depth)
    if value is _NOTHING or not value:
        return None
    return value, "candidate+json"


# Prose without an opening bracket, then from the first "{" or "[" to the last closer, then
# prose without a bracket.
_PROSE_JSON = re.compile(r"[^(\[{]*([\[{].*[\]}])[^\[\]{}]*", re.DOTALL)


# Fence languages that hold data; a block in any other language ("bash", "python") is code
# the answer explains, tried only when no data block decodes. Only a block labelled YAML is
# read as YAML: in prose or an unlabelled block, "Note: x" is a sentence, not a mapping.
_YAML_LANGS: Final = frozenset({"yaml", "yml"})
_YAML_SPACE: Final = " \t\r\n"
_DATA_LANGS: Final = frozenset({"", "json", "json5", "jsonc", *_YAML_LANGS})
MAX_YAML_CHARS: Final = 1_000_000
"""The longest fenced block read as YAML: PyYAML reads about 100,000 characters a second, so
a longer block in an answer would stall the run (it is read as any other data block)."""
YAML_BRACKETS: Final = 400
"""Bracket nesting PyYAML reads in about a tenth of a second (its cost grows with the depth
per token; its recursion gives out near 450 deep, after about 2 s past 1,000)."""


def _from_fences(text: str, max_depth: int, tried: list[str]) -> tuple[Any, str] | None:
    """The last data-labelled fenced block that decodes, else the last other one, labelled
    with its language. When no block is one value (NDJSON, say), the bracketed candidates
    inside the data blocks, last block first: the block scopes them, so a value outside it
    never wins over one inside. (A list in a block of code stays a candidate of the text.)"""
    fences = _fences(text)
    order: Sequence[int] = range(len(fences) - 1, -1, -1)
    if len(fences) > 1 and not all(lang in _DATA_LANGS for lang, _ in fences):  # (stable sort)
        order = sorted(order, key=lambda i: fences[i][0] not in _DATA_LANGS)
    order = order[:MAX_CANDIDATES]  # hostile text: as many blocks as bracketed spans, no more
    for i in order:
        found = _from_block(*fences[i], max_depth)
        if found is not None:
            return found
    budget = MAX_CANDIDATES
    for i in order:
        lang, content = fences[i]
        if lang not in _DATA_LANGS:
            break  # (the data blocks come first in ``order``)
        if lang in _YAML_LANGS:
            continue  # brackets in a YAML block that does not load are no answer of their own
        body = content.strip()
        spans = _candidates(body)[:budget]
        found = _first_candidate(body, spans, max_depth, [])
        if found is not None:
            return found[0], _fence_label(lang) + found[1]
        budget -= len(spans)
        if budget <= 0:
            break
    tried.append(f"{len(fences)} fenced block(s)")
    return None


def _from_block(lang: str, content: str, max_depth: int) -> tuple[Any, str] | None:
    """One fenced block decoded as a whole, labelled with its language.

    A YAML block loses only YAML's own white space at its ends: a no-break or em space is
    content there (``a: \u00a0`` is that space, not ``null``)."""
    yaml = lang in _YAML_LANGS
    body = content.strip(_YAML_SPACE) if yaml else content.strip()
    if not body:
        return None
    if yaml:
        got = _decode_yaml(body, max_depth)
    else:
        got = _decode(body, max_depth, False) or _before_cut_note(body, max_depth)
    if got is None or (got[1] == "repaired" and type(got[0]) is str):
        return None  # a lone unclosed string: a ``` inside a JSON string opened this "block"
    return got[0], _fence_label(lang) + got[1]


def _decode_yaml(body: str, max_depth: int) -> tuple[Any, str] | None:
    """A YAML block: JSON as JSON (orjson reads it many times faster than PyYAML, to the same
    value), else the YAML (decoder ``yaml``), else the literal decoder (a truncated ``{...``,
    a tuple).

    YAML is kept only when it gives a mapping, a list, a number, a boolean or a quoted string:
    a block that loads to a plain string or to nothing ("The values follow.", only comments)
    is text, which any other evidence beats (``null`` still decodes as JSON does).
    """
    value = _load_json(body, max_depth) if body[0] in _JSON_START else _NOTHING
    how = "json"
    if value is _NOTHING:
        value, how = _load_yaml(body, max_depth), "yaml"
    if value is _NOTHING:
        return _decode(body, max_depth, True)
    return value, "count" if type(value) in (int, float) else how


def _load_yaml(body: str, max_depth: int) -> Any:
    """:func:`yamlvalue.yaml_value` of a block, or ``_NOTHING`` when it is no YAML value;
    :class:`LimitError` past the depth or alias bound of a value it loads.

    A block over :data:`MAX_YAML_CHARS`, or whose brackets nest past ``max_depth`` and
    :data:`YAML_BRACKETS`, is not read as YAML (the literal decoder still tries it, and
    applies its own bounds): PyYAML would stall on it, and other evidence in the answer may
    still be the value (review 14). Brackets are counted inside quotes too, hence the second
    bound: ``note: "[[[..."`` with a few hundred brackets is read; a value that truly nests
    past ``max_depth`` is refused once loaded.
    """
    if len(body) > MAX_YAML_CHARS or _brackets_nest_over(body, max(max_depth, YAML_BRACKETS)):
        return _NOTHING
    from .yamlvalue import yaml_value  # PyYAML is loaded only when an answer holds YAML

    pieces = PIECES.get()
    repeated: list[Any] | None = None if pieces is None else []
    try:
        value = yaml_value(body, repeated=repeated)
    except LimitError as exc:
        raise LimitError(f"answer has a yaml block over a limit: {exc}") from None
    except ValueError:
        return _NOTHING
    if type(value) in _CONTAINERS:
        check_json_depth(value, max_depth)
    elif type(value) not in _YAML_SCALARS and not (type(value) is str and body[0] in "'\""):
        return _NOTHING
    if repeated and pieces is not None:
        pieces.append((value, body, "yaml", repeated))
    return value


_YAML_SCALARS: Final = frozenset({int, float, bool})
_FLOW_BRACKET = re.compile(r"[\[\]{}]")


def _brackets_nest_over(body: str, max_depth: int) -> bool:
    """Whether ``[``/``{`` nest deeper than ``max_depth`` in ``body``, as YAML reads it.

    PyYAML's scanner costs the flow nesting depth per token, so ``[[[[...`` would stall it
    for seconds before its own recursion gives out; such a block is not read as YAML. The
    brackets are counted first with quotes not told apart (no line-by-line rule tells YAML's
    quoted strings from apostrophes and strings running over lines, and a wrong guess hands
    PyYAML the nesting this bound keeps from it); a block they nest too deep in is then
    parsed by libyaml, which tells a bracket in a quoted string from one that opens a list.
    """
    if body.count("[") + body.count("{") <= max_depth:
        return False  # (the usual block: a count in C, no scan)
    depth = 0
    for bracket in _FLOW_BRACKET.finditer(body):
        if bracket.group() in "[{":
            depth += 1
            if depth > max_depth:
                from .yamlvalue import parsed_nesting_within

                return not parsed_nesting_within(body, max_depth)
        elif depth:
            depth -= 1
    return False


def _fence_label(lang: str) -> str:
    return f"fence:{lang}+" if lang else "fence+"


def _fenced_text(region: str) -> str:
    """The body of a region that is one closed fenced block and nothing else, else "": the
    text fallback of "```\nChiller 6\n```" is "Chiller 6", not the fence markers."""
    if not region.startswith(("```", "~~~")):
        return ""
    fence = region[0]
    last = region.rpartition("\n")[2].strip()
    if last.strip(fence) or len(last) < len(region) - len(region.lstrip(fence)):
        return ""  # the last line is no run of the fence character that could close it
    blocks = _fences(region)
    return blocks[0][1].strip() if len(blocks) == 1 else ""


def _decode(
    text: str, max_depth: int, json_tried: bool, *, whole: bool = False
) -> tuple[Any, str] | None:
    """Decode one piece: JSON, else the repaired literal. Numbers are reported as counts.

    Only a ``whole`` piece (the whole text or region) written as a literal with no value (an
    unhashable key) is an error; any other piece that fails is just not a candidate, so a
    stray span in prose never aborts a parse.
    """
    value: Any = _NOTHING
    how = "json"
    if not json_tried and text[0] in _JSON_START:
        value = _load_json(text, max_depth)
    if value is _NOTHING:
        literal = _decode_literal(text, max_depth, whole)
        if literal is None:
            return None
        value, how = literal
    if type(value) in (int, float):
        how = "count"
    return value, how


# --- JSON -----------------------------------------------------------------------------------

_NOTHING: Final[Any] = object()
_JSON_START = frozenset('{["-0123456789tfn')
_MARKS = bytes(  # digits -> "1", "[" and "{" -> "[", "-" stays, anything else -> " "
    0x31 if 0x30 <= b <= 0x39 else 0x5B if b in (0x5B, 0x7B) else b if b == 0x2D else 0x20
    for b in range(256)
)
# orjson reads an integer outside [-2**63, 2**64) as a float: one of 20 digits may be, and a
# negative one of 19 (-9223372036854775809); 19 digits alone (a tweet id) fit in 64 bits.
_LONG_INT = b"1" * 20
_LONG_NEGATIVE_INT = b"-" + b"1" * 19
_DIGIT_RUN = b"1" * 19  # what both hold: one search rules both out for most texts
_NOT_FLOAT: Final = frozenset({str, int, bool, type(None)})


def digit_run(text: str) -> bool:
    """Whether ``text`` holds 19 ASCII digits in a row, where orjson may have read an
    integer as a float: told on the byte mask, eight times as fast as a regex search
    (0.015 s against 0.12 s on the 9 MB of the 1,247 real trajectories)."""
    return _DIGIT_RUN in text.encode("utf-8", "surrogatepass").translate(_MARKS)


def _load_json(text: str, max_depth: int) -> Any:
    """``orjson.loads`` with the depth limit and exact big integers, or ``_NOTHING``."""
    try:
        value = _vetted(orjson.loads(text), text, max_depth)
    except orjson.JSONDecodeError:
        return _NOTHING
    if type(value) in _CONTAINERS and (pieces := PIECES.get()) is not None:
        pieces.append((value, text, "json", None))
    return value


def _vetted(value: Any, text: str, max_depth: int) -> Any:
    """Apply the depth limit to a value orjson decoded from ``text``, and redo integers past
    64 bits exactly (orjson reads them as floats).

    Both tests read one byte mask of the text (digits -> ``1``, ``[`` and ``{`` -> ``[``):
    one pass over it instead of one per question.
    """
    deep = len(text) > 2 * max_depth and type(value) in _CONTAINERS  # n deep takes 2n chars
    # A flat object of strings, ints, booleans and nulls holds no misread float.
    ints = len(text) >= 20 and not (
        type(value) is dict and _NOT_FLOAT.issuperset(map(type, value.values()))
    )
    if not deep and not ints:
        return value
    marks = text.encode().translate(_MARKS)  # orjson read ``text``, so it encodes
    if deep and marks.count(b"[") > max_depth:
        check_json_depth(value, max_depth)
    if ints and _DIGIT_RUN in marks and (_LONG_INT in marks or _LONG_NEGATIVE_INT in marks):
        try:
            return json.loads(text)
        except RecursionError:
            raise LimitError(f"answer nests deeper than max_depth={max_depth}") from None
        except ValueError as exc:  # the int-string limit
            raise LimitError(f"answer has an integer over {MAX_INT_DIGITS} digits: {exc}") from None
    return value


def check_json_depth(value: Any, max_depth: int) -> None:
    """Raise LimitError when a decoded JSON tree nests more than ``max_depth`` non-empty
    containers: the bound itself, never the interpreter's recursion limit (Python 3.12 and
    later decode far deeper JSON than 3.11 before ``json`` raises RecursionError).

    An empty container is a leaf, as in ``flatten`` and
    :func:`~pytest_structeval.paths.check_depth`, so a value nests as deep read from text as
    given parsed. Walks level by level so the type tests run in C (``set(map(type, ...))``):
    a 10,000-row answer is checked in a couple of milliseconds.
    """
    level: list[Any] = [value] if type(value) in _CONTAINERS and value else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            raise LimitError(f"answer nests deeper than max_depth={max_depth}")
        children = list(chain.from_iterable(c.values() if type(c) is dict else c for c in level))
        kinds = set(map(type, children))
        if dict not in kinds and list not in kinds:
            return
        if kinds.issubset(_CONTAINERS) and all(children):
            level = children
        else:
            level = [c for c in children if type(c) in _CONTAINERS and c]


# --- fenced blocks --------------------------------------------------------------------------

_FENCE_INFO = re.compile(r"[ \t]*([\w+#.-]*)[ \t]*(\r?\n)?")
_BLANK_TO_EOL = re.compile(r"[ \t]*(?:\r?\n|\Z)")


def _has_fence(text: str) -> bool:
    return "```" in text or _has_tildes(text)


def _has_tildes(text: str) -> bool:
    return "~" in text and "~~~" in text  # a one-character search first: it is much faster


def _fences(text: str) -> list[tuple[str, str]]:
    """Return ``(language, content)`` of every fenced block, in order (see
    :func:`_fence_spans`)."""
    return [(lang, text[start:end]) for lang, start, end in _fence_spans(text)]


def _fence_spans(text: str) -> list[tuple[str, int, int]]:
    """Return ``(language, content start, content end)`` of every fenced block, in order.

    A fence is a run of three or more backticks or tildes, and only a run of the same
    character at least as long closes it (CommonMark), so backticks inside JSON strings,
    ``` inside a ```` block and ``` inside a ~~~ block never close it. A fence that opens its
    own line closes only at a line holding nothing but such a run; a backtick fence opened
    mid-line ("Final Answer: ```json {...}```") closes at the next such run, but an unlabelled
    one that closes in the line it opened with text after it (``Format: ```{"a": 0}```.
    Then...``, ``["```", "```"]``, at a line start too) is a code span of the prose, no
    block: its content is a candidate as a bracketed span of the prose is, and never a
    citation. A tilde fence
    opens only at a line start and takes the rest of that line as its info string, as in
    CommonMark (a ``~~~`` inside prose is decoration). An unclosed fence runs to the end of
    the text (a truncated answer) when it opens a line or its info string ends one
    (``Here: ```yaml`` and a line break): a ``` met mid-line in a line that goes on, that
    nothing closes, is no fence (``{"code": "```", "ids": [1]}`` in prose is one value, not
    a block holding its tail).
    """
    blocks: list[tuple[str, int, int]] = []
    fence = ""  # the open block's run of backticks or tildes; "" outside a block
    lang = ""
    content_start = 0
    own_line = runs_on = False  # runs_on: unclosed, the block runs to the end of the text
    opened = 0  # where the open block's fence starts
    size = len(text)
    tilde = _next_tilde_fence(text, 0) if _has_tildes(text) else -1
    backtick = text.find("```")  # searched again only once passed: linear on any text
    pos = 0
    while True:  # str.find, not a regex: most answers hold one block or none
        if fence:
            start = text.find(fence[:3], pos)
        else:
            if 0 <= backtick < pos:
                backtick = text.find("```", pos)
            start = backtick
            if tilde >= 0:
                if tilde < pos:  # passed inside a backtick block: find the next one
                    tilde = _next_tilde_fence(text, pos)
                if tilde >= 0 and (start < 0 or tilde < start):
                    start = tilde
        if start < 0:
            break
        char = text[start]
        end = start + 3
        while end < size and text[end] == char:
            end += 1
        if not fence:
            info = _FENCE_INFO.match(text, end)
            assert info is not None  # every part of the pattern is optional
            fence, lang, opened = text[start:end], info.group(1).lower(), start
            runs_on = _starts_line(text, start) or info.group(2) is not None
            if char == "~":
                newline = text.find("\n", end)
                content_start, own_line = (size if newline < 0 else newline + 1), True
            else:
                content_start = info.end()
                own_line = info.group(2) is not None and _starts_line(text, start)
        elif end - start >= len(fence) and (
            not own_line
            or (
                _starts_line(text, start)
                and (end == size or _BLANK_TO_EOL.match(text, end) is not None)
            )
        ):
            if own_line or lang or not _code_span(text, opened, start, end):
                blocks.append((lang, content_start, start))
            fence = ""
        pos = end
    if fence and runs_on:
        blocks.append((lang, content_start, size))
    return blocks


def _code_span(text: str, opened: int, start: int, end: int) -> bool:
    """Whether a backtick fence opened at ``opened`` and closed by the run ``start:end`` is
    an inline code span: closed in the line it opened, with text after the closer (a fence's
    info string holds no backticks, CommonMark says, wherever the line starts)."""
    return _BLANK_TO_EOL.match(text, end) is None and text.find("\n", opened, start) < 0


def _next_tilde_fence(text: str, pos: int) -> int:
    """Where the next run of three or more tildes starting a line is, or -1."""
    start = text.find("~~~", pos)
    while start >= 0 and not _starts_line(text, start):
        end = start + 3
        while end < len(text) and text[end] == "~":  # skip the whole run
            end += 1
        start = text.find("~~~", end)
    return start


def _starts_line(text: str, pos: int) -> bool:
    while pos and text[pos - 1] in " \t":
        pos -= 1
    return not pos or text[pos - 1] == "\n"


# --- balanced candidates inside prose ---------------------------------------------------------

_OPENER = re.compile(r"[\[({]")
_INNER_EVENT = re.compile(r"""[\[\](){}"']""")  # inside brackets: a bracket or a quote
# Inside a single-quoted string, a quote between two letters (O'Brien, don't, it's) is an
# apostrophe, not the string's end: no literal has a closing quote right before a letter.
_APOSTROPHE = r"(?<=[^\W\d_])'(?=[^\W\d_])"
# A whole one-line string, matched only where a value can start: an unterminated quote
# matches nothing, so the scan steps over it like any other character. (Tried at every quote,
# a string running on over apostrophes to the line's end would make the scan quadratic.)
_STRING_AT = re.compile(rf""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.|{_APOSTROPHE})*'""")
_OPENER_OF = {")": "(", "]": "[", "}": "{"}


def _candidates(text: str) -> list[tuple[int, int]]:
    """Top-level bracketed spans in preference order: ``{``/``[`` last first, then ``(``.

    "Last" is the latest end, so a truncated answer running to the end of the text comes
    before the complete spans inside it. Spans right after a word character are arguments
    (``f(x)``, ``rows[0]``, ``\\boxed{34}``), not answers. A span covering the whole text was
    already tried as a whole value.
    """
    data: list[tuple[int, int]] = []
    parens: list[tuple[int, int]] = []
    for start, end in sorted(_top_level_spans(text), key=_latest_end_first):
        if (start == 0 and end == len(text)) or (
            start and (text[start - 1].isalnum() or text[start - 1] == "_")
        ):
            continue
        (parens if text[start] == "(" else data).append((start, end))
    return data + parens


def _latest_end_first(span: tuple[int, int]) -> tuple[int, int]:
    return -span[1], span[0]


def _top_level_spans(text: str) -> list[tuple[int, int]]:
    """The balanced spans no other span contains, from one pass of :func:`_closed_spans`.

    Openers that never close are dropped and their completed children stay top level; the
    first and the last unclosed ``{``/``[``, and the first and last unclosed ``(``, also
    yield a span to the end of the text: a truncated answer, closed later by the decoder.
    The last one matters when the first fails ("{call 1; {call 2" with a ``}`` missing from
    each: the whole second call, not the completed object inside it).
    """
    stack: list[tuple[str, int]] = []
    spans: list[tuple[int, int]] = []
    for _, start, end in _closed_spans(text, stack):
        while spans and spans[-1][0] > start:  # the spans inside this one closed before it
            spans.pop()
        spans.append((start, end))
    unclosed: dict[bool, list[int]] = {}
    for opener, start in stack:
        unclosed.setdefault(opener == "(", []).append(start)
    spans.extend(
        (start, len(text)) for starts in unclosed.values() for start in {starts[0], starts[-1]}
    )
    return spans


def _closed_spans(text: str, stack: list[tuple[str, int]]) -> Iterator[tuple[str, int, int]]:
    """Yield ``(opener, start, end)`` for each balanced bracketed span as it closes, in one
    linear, string-aware pass. ``stack`` is the pass's own stack of ``(opener, start)``: a
    caller may read it between spans, and at the end it holds the brackets never closed.

    Quotes count only inside brackets (prose apostrophes mean nothing), open a string only
    where a value can start (after a bracket, comma or colon, as in JSON and Python), and
    strings end at their line, so an apostrophe or an inch mark cannot swallow the text.
    A closer with no opener is ignored; a closer also closes what was left open inside it.
    """
    open_counts = {"(": 0, "[": 0, "{": 0}
    pos = 0
    while (m := (_INNER_EVENT if stack else _OPENER).search(text, pos)) is not None:
        i = m.start()
        char = text[i]
        pos = i + 1
        if char == '"' or char == "'":
            if _value_can_start(text, i) and (string := _STRING_AT.match(text, i)) is not None:
                pos = string.end()
        elif char in "([{":
            stack.append((char, i))
            open_counts[char] += 1
        else:
            opener = _OPENER_OF[char]
            if not open_counts[opener]:
                continue
            while True:
                popped, start = stack.pop()
                open_counts[popped] -= 1
                if popped == opener:
                    break
            yield opener, start, i + 1


# A footnote marker: "[1]", "[2, 5]", "[3-4]", "[2.]" (integers of up to three digits only).
_CITATION = re.compile(r"\[[ \t]*[0-9]{1,3}(?:[ \t]*[,;\u2013-][ \t]*[0-9]{1,3})*\.?[ \t]*\]")
# What introduces a value on its line: "Counts: [3, 5]", "x = [1]", "The totals are [3, 5]".
_INTRODUCED = re.compile(r"(?:[:=]|\b(?:is|are|was|were|equals?))\Z", re.IGNORECASE)
# A source list, where ``:`` introduces footnote markers, not a value: "Sources: [1]",
# "References: [1], [2]" (the markers before the span on its line included).
_SOURCES = re.compile(
    r"(?:^|[^\w])(?:sources?|references?|refs?|citations?|footnotes?|see(?:[ \t]+also)?)"
    r"[ \t]*:?(?:[ \t,;]*\[[ \t0-9,;\u2013-]*\])*[ \t,;]*\Z",
    re.IGNORECASE,
)
_CONTEXT_REACH = 80  # how far along its line a span's context is read
_MARKUP = " \t*_>#+-"


def _is_citation(text: str, start: int, end: int) -> bool:
    """Whether the span is a footnote marker in prose rather than a list answer.

    "The pump failed [1]. Replace it.", "[2] IEEE C57.104" and "Sources: [1], [2]" cite;
    "[1]" alone on its line and "The counts are [3, 5]" (introduced by ``:``, ``=``,
    is/are/was/were) are answers.
    Only the line around the span is read, and at most ``_CONTEXT_REACH`` characters of it.
    """
    if _CITATION.fullmatch(text, start, end) is None:
        return False
    if _whole_code_span(text, start, end):
        return False  # code (```[101, 102]```.): no footnote is written as code
    reach = start - _CONTEXT_REACH if start > _CONTEXT_REACH else 0
    newline = text.rfind("\n", reach, start)
    before = text[newline + 1 if newline >= 0 else reach : start].rstrip(" \t*_")
    if _SOURCES.search(before) is not None:
        return True
    if _INTRODUCED.search(before[-8:]) is not None:  # (the longest introducer is 6 long)
        return False
    line_end = text.find("\n", end, end + _CONTEXT_REACH)
    after = text[end : line_end if line_end >= 0 else end + _CONTEXT_REACH]
    return bool(before.strip(_MARKUP)) or _ALNUM.search(after) is not None


_ALNUM = re.compile(r"[^\W_]")
_BACKTICKS = re.compile("`+")


def _whole_code_span(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is the whole content of one inline code span: between two
    equal backtick runs, blanks aside, the first of which opens a span of its line (an even
    number of runs before it there), not two spans' ends (`` `a` [2] `b` ``)."""
    before = text[:start].rstrip(" \t")
    after = text[end:].lstrip(" \t")
    run = len(before) - len(before.rstrip("`"))
    if not run or not after.startswith("`" * run) or after.startswith("`" * (run + 1)):
        return False
    line_start = before.rfind("\n", 0, len(before) - run) + 1
    return len(_BACKTICKS.findall(before, line_start, len(before) - run)) % 2 == 0


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the spans and the blanks before them cut out."""
    kept: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        kept.append(text[pos:start].rstrip(" \t"))
        pos = end
    kept.append(text[pos:])
    return "".join(kept)


def _value_can_start(text: str, pos: int) -> bool:
    pos -= 1
    while pos >= 0 and text[pos] in " \t\r\n":
        pos -= 1
    return pos >= 0 and text[pos] in "[{(,:"


# --- the repairing literal decoder ------------------------------------------------------------

# The tokenizer reads a single-quoted string as the candidate scan does: with its apostrophes
# (``_APOSTROPHE``).
_TOKEN = re.compile(  # leading whitespace rides along with each token
    rf"""
    \s*(?:
    (?P<comment>//[^\n]*|\#[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<str>[rRuU]?(?:'''.*?(?:'''|\Z)|\"\"\".*?(?:\"\"\"|\Z)
                    |"(?:[^"\\]|\\.)*(?:"|\Z)|'(?:[^'\\]|\\.|{_APOSTROPHE})*(?:'|\Z))
            |\u201c[^\u201d]*(?:\u201d|\Z))
  | (?P<num>[-+\u2212]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+
                   |(?:[0-9][0-9_]*(?:\.[0-9][0-9_]*|\.(?=\s*[,\]}}\)]|[eE]))?|\.[0-9][0-9_]*)
                   (?:[eE][-+\u2212]?[0-9_]+)?)[jJ]?)
  | (?P<wide>[-+\u2212\uff0b\uff0d]?[\uff10-\uff19]+(?:[.\uff0e][\uff10-\uff19]+)?)
  | (?P<word>[-+\u2212]?[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>[\[\]{{}}(),:\uff0c\uff1a])
  | (?P<other>.)
  | (?P<end>\Z)
    )""",
    re.DOTALL | re.VERBOSE,
)
_CLOSED_STRING = re.compile(
    rf"""[rRuU]?(?:'''.*'''|\"\"\".*\"\"\"|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.|{_APOSTROPHE})*')""",
    re.DOTALL,
)
# Full-width digits, sign and point (CJK text's "３", "－１．５"): the number they write.
_NARROW: Final = str.maketrans(
    {**{chr(0xFF10 + d): str(d) for d in range(10)}, "\uff0b": "+", "\uff0d": "-", "\uff0e": "."}
)
_PLAIN_STRING = re.compile(r""""[^"\\\x00-\x1f]*"|'[^'\\\x00-\x1f]*'""")
_RAW_CONTROL = re.compile(r"[\x00-\x1f]")
_RAW_CONTROL_MULTILINE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
# An escape, with an octal one's digits whole (\400 is one escape, not \4 and text).
_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.DOTALL)
_VALID_ESCAPES = frozenset("\n\\'\"abfnrtv01234567xNuU")
# Source words -> Python source; NaN and Infinity are names the AST check turns into floats.
_WORDS = {
    "true": "True",
    "false": "False",
    "null": "None",
    "True": "True",
    "False": "False",
    "None": "None",
    "NaN": "NaN",
    "nan": "NaN",
    "Infinity": "Infinity",
    "inf": "Infinity",
}
_NAME_VALUES: dict[str, float] = {"NaN": float("nan"), "Infinity": float("inf")}
_VALUE_WORDS = (*_WORDS, *(p + q for p in "rRuU" for q in "'\""))  # keywords, string prefixes
_VALUE_WORD_HEADS = frozenset(word[0] for word in _VALUE_WORDS)


def _may_be_value(text: str) -> bool:
    """Whether non-empty ``text`` starts like a JSON / Python value (a bracket, quote, digit,
    sign, keyword or string prefix): prose never goes through the tokenizer."""
    head = text[0]
    return head in _VALUE_START or (head in _VALUE_WORD_HEADS and text.startswith(_VALUE_WORDS))


_CLOSER_OF = {"(": ")", "[": "]", "{": "}"}
_OPENER_OF = {closer: opener for opener, closer in _CLOSER_OF.items()}
_GROUP_HEAD = re.compile(r"[-+]?[1-9][0-9]{0,2}")  # a number a thousands group may follow
_DIGIT_GROUP = re.compile(r"[0-9]{3}(?:\.[0-9]+)?")
_GROUP_ENDS = re.compile(r"\s*(?:[,}]|\Z)")  # not a key: no colon follows
_FULL_WIDTH = {"\uff0c": ",", "\uff1a": ":"}  # as CJK text punctuates
_START, _VALUE, _OPEN, _COMMA, _COLON = range(5)


class _Bracket:
    """An open bracket while rewriting: its closer, and for ``{`` where its items split."""

    __slots__ = ("closer", "commas", "item_colon", "item_used", "items", "start")

    def __init__(self, closer: str, start: int) -> None:
        self.closer = closer
        self.start = start  # output index after the opener
        self.commas: list[int] = []  # output index of each separating comma
        self.items: list[bool | None] = []  # per finished item: has a colon / no colon / empty
        self.item_colon = False
        self.item_used = False

    @property
    def opener(self) -> str:
        return _OPENER_OF[self.closer]

    def separate(self, comma_index: int) -> None:
        self.commas.append(comma_index)
        self.items.append(self.item_colon if self.item_used else None)
        self.item_colon = self.item_used = False

    def unseparate(self) -> int:
        """Take back the last separating comma: the item before it is open again. Returns
        where the comma was."""
        cut = self.commas.pop()
        last = self.items.pop()
        self.item_used, self.item_colon = last is not None, last is True
        return cut

    def fill_gap(self, out: list[str]) -> str:
        """Repair two values with nothing between them: a colon after an object key that has
        none (``{"a" 1}``, which a comma would turn into a set), else a missing comma. Returns
        the repair, in words."""
        if self.closer == "}" and self.item_used and not self.item_colon:
            self.item_colon = True
            out.append(":")
            return "added a missing ':' after a key"
        self.separate(len(out))
        out.append(",")
        return "added a missing ','"

    def drop_dangling_key(self, out: list[str], after_colon: bool, lone_string: bool) -> bool:
        """At the end of a truncated answer, drop an object's last key that never got its
        value (``{"a": 1, "b": `` or ``{"a": 1, "b"``), keeping the items before it.

        Only in an object: an item with a colon came before, the key has its colon, or the
        key is a quoted string alone in its braces (``{"b"``, an object cut after its first
        key far more often than a set of one string); in ``{1, 2, 3`` the last element of a
        set is complete."""
        if self.closer != "}" or not (
            after_colon
            or (
                self.item_used
                and not self.item_colon
                and (True in self.items or (lone_string and len(out) == self.start + 1))
            )
        ):
            return False
        if self.commas:
            cut = self.unseparate()
        else:
            cut = self.start
            self.item_used = self.item_colon = False
        del out[cut:]
        return True

    def close(self, out: list[str]) -> bool:
        """Emit the closer; in an object mixing ``k: v`` and ``k, v`` items, turn each
        ``k, v`` comma into a colon (DeepSynth Q36). Return whether anything was repaired."""
        out.append(self.closer)
        if self.closer != "}":
            return False
        self.items.append(self.item_colon if self.item_used else None)
        if True not in self.items or False not in self.items:
            return False
        run: list[int] = []
        for index, has_colon in enumerate([*self.items, None]):
            if has_colon is False:
                run.append(index)
                continue
            if len(run) % 2:
                return False  # cannot pair keys with values; the AST parse will reject it
            for key_index in run[::2]:
                out[self.commas[key_index]] = ":"
            run = []
        return True


def _decode_literal(text: str, max_depth: int, whole: bool) -> tuple[Any, str] | None:
    """Decode a JSON5 / Python literal (with repairs); ``None`` when it is not one.

    An unhashable key or set element raises :class:`AnswerParseError` only when the user
    wrote it in a ``whole`` answer; one the repairs made, or one in a candidate, is a miss.
    """
    rewritten = _to_python(text, max_depth)
    if rewritten is None:
        return None
    source, repairs = rewritten
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    try:
        pairs = _only_literals(tree)
        if pairs < 0:
            return None
        value = ast.literal_eval(tree)
    except AnswerParseError:  # an unhashable key or set element
        if repairs or not whole:
            return None
        raise
    except (ValueError, TypeError, MemoryError, RecursionError):
        return None
    value = _plain(value)
    if type(value) in _CONTAINERS and (pieces := PIECES.get()) is not None:
        pieces.append((value, text, "literal", (tree, pairs)))
    if not repairs:
        return value, "literal"
    noted = _NOTED.get()
    if noted is not None:
        noted.append((value, repairs))
    return value, "repaired"


_NOTED: ContextVar[list[tuple[Any, list[str]]] | None] = ContextVar(
    "structeval_repairs_noted", default=None
)


def repairs_in(
    text: str, *, strict: bool = False, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int
) -> list[str]:
    """The repairs the reading of ``text`` took, in words (``"closed a '{' left open at the
    end"``): for a warning about a messy gold, which must say what to fix. The text is read
    again with the repairs noted, so reading costs nothing extra when no one asks."""
    noted: list[tuple[Any, list[str]]] = []
    token = _NOTED.set(noted)
    try:
        value = parse_answer(text, strict=strict, max_bytes=max_bytes, max_depth=max_depth)
    finally:
        _NOTED.reset(token)
    taken: list[str] = next((made for read, made in reversed(noted) if read is value), [])
    return taken or (noted[-1][1] if noted else [])


_PYTHON_NESTING: Final = 200  # brackets Python's parser reads inside one another
# (a line comment runs to its line's end, a block comment to its first "*/": one way to
# read a run of '#', '/' or '/**/', never 2**n)
_CLOSED_AT_ONCE: Final = re.compile(
    r"(?:\s|//[^\n]*(?:\n|\Z)|\#[^\n]*(?:\n|\Z)|/\*(?:[^*]|\*(?!/))*\*/)*[)\]}]"
)


def literal_source(text: str) -> tuple[str, dict[int, int]] | None:
    """The Python source the literal decoder reads ``text`` as, and where each value and
    each opening bracket of that source is written in ``text``: an offset of the source ->
    the offset in ``text`` (what a repair added is written nowhere: not in it). ``None`` for
    a text the decoder does not read. (For a gold's repeated keys: its lines.)"""
    written: dict[int, int] = {}
    try:
        rewritten = _to_python(text, sys.maxsize, written)
    except LimitError:
        return None
    return None if rewritten is None else (rewritten[0], written)


def _to_python(
    text: str, max_depth: int, written: dict[int, int] | None = None
) -> tuple[str, list[str]] | None:
    """Rewrite ``text`` as Python literal source, or ``None`` when it holds anything else.

    One pass over tokens; it rejects at the first non-literal token, so prose costs almost
    nothing. Also returns the structural repairs it took, in words (none: no repair).
    ``LimitError`` when more than ``max_depth`` non-empty containers nest (an empty one is a
    leaf, as everywhere). ``written`` (given: see :func:`literal_source`) receives where each
    value and opening bracket of the source is written in ``text``.
    """
    out: list[str] = []
    stack: list[_Bracket] = []
    open_counts = {")": 0, "]": 0, "}": 0}
    repairs: list[str] = []
    prev = _START
    pending_key = False  # an unquoted key was just emitted; a colon must follow
    grouped_at = -1  # where an object's value ``1`` or ``1,234`` may take a ``,567`` group
    for m in _TOKEN.finditer(text):
        group = m.lastgroup
        if group is None or group == "comment" or group == "end":  # (every branch is named)
            continue
        tok = m.group(group)
        if pending_key and tok != ":":
            return None
        pending_key = False
        kind = group
        if group == "wide":  # a number, as CJK text writes it
            tok = tok.translate(_NARROW)
            repairs.append("read full-width digits as digits")
            kind = "num"
        if kind == "str" or kind == "num" or kind == "word":
            if kind == "str":
                tok, fixed = _python_string(tok)
                if fixed is not None:
                    repairs.append(fixed)
            elif kind == "num":
                tok = tok.replace("\u2212", "-")  # the minus sign, as typeset text writes it
                if "e" in tok.lower() and tok[-1] not in "jJ" and "x" not in tok.lower():
                    tok = _exact_literal(tok)
                if (
                    grouped_at == len(out) - 2
                    and prev == _COMMA
                    and m.start(group) == m.start()
                    and _DIGIT_GROUP.fullmatch(tok)
                    and _GROUP_ENDS.match(text, m.end())
                ):  # {"n": 1,871}: a thousands separator, where a key could not start
                    stack[-1].unseparate()
                    out.pop()
                    out[-1] += tok
                    grouped_at = -1 if "." in tok else grouped_at
                    repairs.append("read a number with a thousands separator as one number")
                    prev = _VALUE
                    continue
                if prev == _COLON and stack[-1].closer == "}" and _GROUP_HEAD.fullmatch(tok):
                    grouped_at = len(out)
                _check_int_digits(tok)
            else:
                tok = tok.replace("\u2212", "-")  # (−Infinity)
                sign = tok[0] if tok[0] in "+-" else ""
                word = _WORDS.get(tok[len(sign) :])
                if word is not None and (not sign or word in _NAME_VALUES):
                    tok = sign + word
                elif not sign and stack and stack[-1].closer == "}" and prev in (_OPEN, _COMMA):
                    tok = repr(tok)  # an unquoted JavaScript / JSON5 key
                    pending_key = True
                else:
                    return None
            if prev == _VALUE:
                if not stack:
                    return None  # two values side by side at the top: not one answer
                if kind == "num" and tok[0] in "+-" and m.start(group) == m.start():
                    return None  # "2024-12-15", "555-1234": one dashed token, not two numbers
                repairs.append(stack[-1].fill_gap(out))
            if stack:
                if len(stack) > max_depth:  # a value in a container past the bound
                    raise LimitError(f"answer nests deeper than max_depth={max_depth}")
                stack[-1].item_used = True
            if written is not None:
                written[len(out)] = m.start(group)
            out.append(tok)
            prev = _VALUE
        elif kind == "punct":
            if tok in _FULL_WIDTH:
                tok = _FULL_WIDTH[tok]
                grouped_at = -1  # CJK text writes thousands with an ASCII comma
            if tok in "([{":
                if prev == _VALUE:
                    if not stack:
                        return None
                    repairs.append(stack[-1].fill_gap(out))
                if len(stack) > max_depth or (  # a container in one past the bound
                    len(stack) >= max(max_depth, _PYTHON_NESTING)
                    and not _CLOSED_AT_ONCE.match(text, m.end())
                ):
                    raise LimitError(f"answer nests deeper than max_depth={max_depth}")
                if len(stack) >= _PYTHON_NESTING:  # (refused whole: never a fragment of it)
                    raise LimitError(
                        f"answer nests deeper than {_PYTHON_NESTING} brackets, which Python's "
                        "parser reads at most"
                    )
                if stack:
                    stack[-1].item_used = True
                bracket = _Bracket(_CLOSER_OF[tok], len(out) + 1)
                stack.append(bracket)
                open_counts[bracket.closer] += 1
                if written is not None:
                    written[len(out)] = m.start(group)
                out.append(tok)
                prev = _OPEN
            elif tok in ")]}":
                if not open_counts[tok]:
                    repairs.append(f"dropped a {tok!r} that closes nothing")
                    continue
                while stack[-1].closer != tok:  # close what was left open inside
                    inner = stack.pop()
                    open_counts[inner.closer] -= 1
                    repairs.append(f"closed a {inner.opener!r} left open before a {tok!r}")
                    if inner.close(out):
                        repairs.append(_KEY_COMMAS)
                bracket = stack.pop()
                open_counts[tok] -= 1
                if bracket.close(out):
                    repairs.append(_KEY_COMMAS)
                prev = _VALUE
            elif tok == ",":
                if not stack:
                    return None  # a bare `1, 2` tuple is prose more often than data
                stack[-1].separate(len(out))
                out.append(",")
                prev = _COMMA
            else:
                if not stack or stack[-1].closer != "}":
                    return None
                stack[-1].item_colon = True
                out.append(":")
                prev = _COLON
        else:
            return None
    lone_string = prev == _VALUE and not pending_key and out[-1][-1] in "'\""
    if stack and stack[-1].drop_dangling_key(out, prev == _COLON, lone_string):
        repairs.append("dropped a last key that has no value")
        if written is not None:  # (what it dropped is written nowhere in the source)
            for index in [index for index in written if index >= len(out)]:
                del written[index]
    elif pending_key or prev == _START:
        return None
    while stack:  # auto-close a truncated answer
        bracket = stack.pop()
        repairs.append(f"closed a {bracket.opener!r} left open at the end")
        if bracket.close(out):
            repairs.append(_KEY_COMMAS)
    if written is not None:  # (a token's index in ``out`` -> its offset in the source)
        at, by_index = 0, dict(written)
        written.clear()
        for index, token in enumerate(out):
            if index in by_index:
                written[at] = by_index[index]
            at += len(token) + 1
    return " ".join(out), repairs


_KEY_COMMAS: Final = "read an object's `key, value` items as `key: value`"


def _python_string(tok: str) -> tuple[str, str | None]:
    """Return a string token as valid Python source, and the repair it needed, in words
    (``None``: none).

    Plain double-quoted strings are decoded with JSON rules (``\\/``, surrogate pairs) when
    they are valid JSON; other strings keep Python rules, with unknown escapes made literal
    and octal ones past ``\\377`` made the character, the way Python reads them (so no
    SyntaxWarning or DeprecationWarning is ever emitted, and no warning filter changes the
    reading).
    """
    if _PLAIN_STRING.fullmatch(tok):
        return tok, None  # the common case: the same text in JSON and Python
    prefix = 1 if tok[0] in "rRuU" else 0
    if tok[prefix] == "\u201c":  # typographic quotes: “name”, read as written inside
        body = tok[prefix + 1 :]
        closed = body.endswith("\u201d")
        return repr(body[:-1] if closed else body), None if closed else _CUT_STRING
    quote = tok[prefix : prefix + 3] if tok[prefix : prefix + 3] in ("'''", '"""') else tok[prefix]
    triple = len(quote) == 3
    repaired = None
    if _CLOSED_STRING.fullmatch(tok) is None:  # cut off at the end of the text
        tok += quote
        repaired = _CUT_STRING
    if quote == "'" and "'" in tok[prefix + 1 : -1]:
        tok, fixed = _escape_apostrophes(tok, prefix)
        if fixed:
            repaired = repaired or "escaped an apostrophe inside a '-quoted string"
    controls = _RAW_CONTROL_MULTILINE if triple else _RAW_CONTROL
    if controls.search(tok):
        tok = controls.sub(lambda c: f"\\u{ord(c.group()):04x}", tok)
        repaired = repaired or "escaped a raw control character inside a string"
    if tok[0] == '"' and not triple:
        try:
            return repr(orjson.loads(tok)), repaired
        except orjson.JSONDecodeError:
            pass
    if tok[0] not in "rR":
        if "\\u" in tok:  # '\ud83d\ude00', as JavaScript writes an emoji: one, as in JSON
            tok = _SURROGATE_PAIR.sub(_joined_pair, tok)
        tok = _ESCAPE.sub(_keep_unknown_escape, tok)
    return tok, repaired


_CUT_STRING: Final = "closed a string cut off at the end"


# An escaped surrogate pair (an escape consumes its backslash's next character: ``\\ud83d``
# is a backslash and text).
_SURROGATE_PAIR = re.compile(
    r"\\(?:u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|.)", re.DOTALL | re.IGNORECASE
)


def _joined_pair(m: re.Match[str]) -> str:
    """A surrogate pair's two ``\\u`` escapes as the one ``\\U`` escape of its character."""
    if m.group(1) is None:
        return m.group()
    high, low = int(m.group(1), 16) - 0xD800, int(m.group(2), 16) - 0xDC00
    return f"\\U{0x10000 + (high << 10) + low:08x}"


_QUOTE_OR_ESCAPE = re.compile(r"\\.|'", re.DOTALL)


def _escape_apostrophes(tok: str, prefix: int) -> tuple[str, bool]:
    """A closed single-quoted string token with each apostrophe the tokenizer kept inside it
    (``'O'Brien'``) escaped, and whether there was one (an escaped ``\\'`` is none)."""
    body = tok[prefix + 1 : -1]
    escaped = _QUOTE_OR_ESCAPE.sub(_escape_quote, body)
    if escaped == body:
        return tok, False
    if tok[0] in "rR":  # a raw string's value is its body as written
        return repr(body), True
    return f"{tok[: prefix + 1]}{escaped}'", True


def _escape_quote(m: re.Match[str]) -> str:
    return "\\'" if m.group() == "'" else m.group()


def _keep_unknown_escape(m: re.Match[str]) -> str:
    """An escape as source Python reads without a warning and as it reads it today: an
    unknown one (``\\d``) made literal, an octal one past ``\\377`` (``\\400``, which Python
    reads as U+0100 with a SyntaxWarning, or a DeprecationWarning before 3.12) spelled as the
    ``\\u`` escape of that character: so the reading never depends on the warning filters."""
    escaped = m.group(1)
    if escaped[0] in _OCTAL_DIGITS:
        code = int(escaped, 8)
        return m.group() if code <= 0o377 else f"\\u{code:04x}"
    return m.group() if escaped in _VALID_ESCAPES else "\\" + m.group()


_OCTAL_DIGITS: Final = frozenset("01234567")


def _check_int_digits(tok: str) -> None:
    """:class:`LimitError` for an integer literal over :data:`MAX_INT_DIGITS` decimal digits,
    or as large in ``0x``/``0o``/``0b``: Python's int-string limit covers decimal text only,
    so a 20,000-digit hex literal loads at once, then fails every ``str()`` and JSON dump
    (the reports at session end, review 15)."""
    if len(tok) <= MAX_INT_BITS // 4:  # (no literal this short is over either bound)
        return
    body = tok.lstrip("+-").replace("_", "")
    if body[:2].lower() in ("0x", "0o", "0b"):
        try:
            bits = int(body, 0).bit_length()  # (linear for a power-of-two base)
        except ValueError:
            return  # not a literal: the decoder says so
        if bits > MAX_INT_BITS:
            raise LimitError(
                f"answer has an integer of {bits:,} bits, over the limit of {MAX_INT_BITS:,} "
                f"({MAX_INT_DIGITS:,} digits)"
            )
    elif len(body) > MAX_INT_DIGITS and not any(c in body for c in ".eEjJ"):
        raise LimitError(
            f"answer has an integer of {len(body):,} digits, over the limit of {MAX_INT_DIGITS:,}"
        )


def _only_literals(tree: ast.Expression) -> int:
    """Check the AST holds JSON-shaped literals only, turning NaN/Infinity names into floats:
    the number of key-value pairs its dicts write (more than the value holds when a key is
    written twice in one of them), or ``-1`` when it holds anything else.

    Rejects bytes, complex numbers, ``...`` and anything that is not a literal; raises
    AnswerParseError for a list, dict or set used as a key or set element. Iterative; the
    tokenizer has already bounded the depth.
    """
    tree.body = _name_value(tree.body)
    stack: list[ast.expr] = [tree.body]
    pairs = 0
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Constant):
            if type(node.value) not in (str, int, float, bool, type(None)):
                return -1
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            node.elts = [_name_value(e) for e in node.elts]
            if isinstance(node, ast.Set):
                _require_hashable(node.elts, "set element")
            stack.extend(node.elts)
        elif isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                return -1
            keys = [_name_value(k) for k in node.keys if k is not None]
            node.keys = list(keys)
            node.values = [_name_value(v) for v in node.values]
            _require_hashable(keys, "dict key")
            pairs += len(keys)
            stack.extend(keys)
            stack.extend(node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node.operand = _name_value(node.operand)
            operand = node.operand
            if not (isinstance(operand, ast.Constant) and type(operand.value) in (int, float)):
                return -1
        else:
            return -1
    return pairs


def _name_value(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Name) and node.id in _NAME_VALUES:
        return ast.Constant(_NAME_VALUES[node.id])
    return node


def _require_hashable(nodes: list[ast.expr], what: str) -> None:
    """Raise AnswerParseError for a list, dict or set in a key or set element (a tuple of
    them included), which ``ast.literal_eval`` would fail on with a bare TypeError."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Tuple):
            stack.extend(node.elts)
        elif isinstance(node, (ast.List, ast.Dict, ast.Set)):
            kind = type(node).__name__.lower()
            raise AnswerParseError(
                f"Python literal has a {kind} in a {what}; {kind}s are unhashable, "
                f"so the literal has no value (at {ast.unparse(node)[:60]!r})"
            )


def _plain(value: Any) -> Any:
    """Turn tuples into lists and sets into canonically sorted lists, iteratively."""
    holder: list[Any] = [value]
    stack: list[Any] = [holder]
    while stack:
        container = stack.pop()
        keys = list(container) if type(container) is dict else range(len(container))
        for key in keys:
            child = container[key]
            kind = type(child)
            if kind is tuple:
                child = list(child)
            elif kind is set:
                child = sorted(child, key=set_order)
            elif kind is not list and kind is not dict:
                continue
            container[key] = child
            stack.append(child)
    return holder[0]


# --- counts ---------------------------------------------------------------------------------

_NUMBER = (
    r"[-\u2212]?(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
)
_EMPHASIS = r"[*_`]*"
_PURE_NUMBER = re.compile(rf"{_EMPHASIS}(?P<n>{_NUMBER}){_EMPHASIS}\.?")
PURE_NUMBER: Final = _PURE_NUMBER
"""A text that is a number alone, as the count rule reads one (``34``, ``1,234``, ``**34**``,
``34.``): its ``fullmatch``."""
# "The answer is 34.", "Total count: 12", "The number of pumps is 3" ending a sentence; not
# "The serial number is 1000045." (an identifier).
_STATED_NUMBER = re.compile(
    r"\b(?:answer|result|total|count|sum|number[ \t]+of)\b"
    # "result = 5", "number of failures: 34"; "=" after a one-letter variable states that
    # variable ("the result was significant at p = 0.05"), not the result, and a ":" after a
    # digit is a clock time or a ratio ("observed at 10:30", "3:1")
    r"[^.!?\n]{0,60}?(?:\b(?:is|was|equals)|(?<!\d):|(?<!\b[A-Za-z] )(?<!\b[A-Za-z])=)"
    rf"[ \t]*{_EMPHASIS}(?P<n>{_NUMBER}){_EMPHASIS}(?=[.!]?[ \t]*$|[.!][ \t])",
    re.IGNORECASE,
)
# A numbered list item's marker: "1. Check", "2)", a lone "2." the model never finished.
_LIST_ITEM = re.compile(r"[ \t]*([0-9]+)[.)](?:[ \t]|$)")
_STATEMENT_REACH = 300  # a stated count ends the answer; a paragraph before it is not searched
# A line ending in a range's first end and its "to" ("The range is 34 to", "34~", "34个到"):
# the number on the next line is its other end, no count.
_RANGE_OPENS = re.compile(
    r"\d[^\n]{0,24}?(?:\b(?i:to|through|until|till)|[~\u301c\uff5e\u81f3\u5230]"
    r"|(?<=\d)[ \t]*\u2013)[ \t*_]*\Z"  # (or an en dash after the number, "30 –\n34")
)
_RANGE_OPENS_REACH = 40
QUALIFIED_LINE_END: Final = re.compile(
    r"(?<![^\W_])(?i:not|never|[^\W_]+n['\u2019\u02bc]t|than)"
    # (in emphasis, "**not**", "__not__", "<b>not</b>", and before invisible characters)
    r"(?:[ \t*_\u200b\u200c\u200d\u2060\ufeff]|</?(?i:b|strong|i|em|u|mark|span)>)*\Z"
)
"""A line that ends in a negation or a comparison's "than" right above a number: one sentence
broken by a wrap ("The total is not\n34.", "more than\n34"), which states no count (under a
blank line, the number stands alone)."""


def _count(region: str) -> int | float | None:
    """A count, only from text with no structure: the region or its last line is a number
    (``34``, ``**34**``, ``1,234``), or the last line states it as the answer, result, total,
    count or number of something ("The answer is 34.", "Total count: 12"); "a z-score of
    3.054" is prose, and so is the "2." of an unfinished numbered list, the "40" ending
    a range broken after its "to" ("The range is 34 to\n40"), and a number under a line
    that ends in a negation or a "than" ("The total is not\n34.", see
    :data:`QUALIFIED_LINE_END`).

    A number inside a name (``FC101``, ``COMP-01``, ``Chiller 6``) or with a unit (``45%``,
    ``45 kW``) is never taken: collapsing it would score a wrong answer as right.
    """
    m = _PURE_NUMBER.fullmatch(region)
    if m is None:
        before, _, last_line = region.rpartition("\n")
        last_line = last_line.strip()
        m = _PURE_NUMBER.fullmatch(last_line)
        if m is not None and (
            _list_item_marker(last_line, before.rstrip().rpartition("\n")[2])
            or _cut_item(last_line, before.rpartition("\n")[2])
            or _RANGE_OPENS.search(before.rstrip()[-_RANGE_OPENS_REACH:])
            or QUALIFIED_LINE_END.search(before.rpartition("\n")[2][-_RANGE_OPENS_REACH:].rstrip())
        ):
            return None
        if m is None:
            stated = list(_STATED_NUMBER.finditer(last_line[-_STATEMENT_REACH:]))
            m = stated[-1] if stated else None
    return None if m is None else read_number(m.group("n"))


def _list_item_marker(number_line: str, neighbour: str) -> bool:
    """Whether a line such as ``2.`` next to the line ``1. Check`` marks an item of a numbered
    list (one the model never finished, or one whose text is on the next line): no count."""
    return number_line.endswith(".") and _LIST_ITEM.match(neighbour) is not None


def _cut_item(number_line: str, previous: str) -> bool:
    """Whether a bare ``2`` right under the line ``1. Check`` is that list's next number, cut
    off before its text (under a blank line it is a count)."""
    item = _LIST_ITEM.match(previous)
    return item is not None and number_line == str(int(item[1]) + 1)


def read_number(token: str) -> int | float:
    """The value of a ``_NUMBER`` match (``1,234``, ``-2.5``, ``−2.5``, ``1e3``)."""
    token = token.replace(",", "").replace("\u2212", "-")  # the minus sign, as typeset
    if any(c in token for c in ".eE"):
        return decimal_number(token)
    _check_int_digits(token)
    return int(token)


def decimal_number(token: str) -> int | float:
    """A decimal number's text (``2.5``, ``1e3``) as ``float`` reads it, but one past the float
    range as the exact integer it writes (see :func:`_past_float`): the one reading for
    answers, gold files (JSON, YAML) and schemas alike."""
    number = float(token)
    return number if number - number == 0 else _past_float(token, number)


def _exact_literal(token: str) -> str:
    """A number literal with an exponent, as Python source for its exact value: an integer
    for one past the float range (see :func:`_past_float`), else as it is."""
    try:
        number = float(token.replace("_", ""))
    except ValueError:  # ``1e_``: the parse refuses it
        return token
    # (past the float range: the token itself to _past_float, so a LimitError quotes it as
    # written; a fraction that long stays a float, text to the literal parse, never inf)
    return token if number - number == 0 else str(_past_float(token, number))


def _past_float(token: str, number: float) -> int | float:
    """A number written past the float range (``1e400``; ``1.2201e1134``, 500!) as the exact
    integer it is, not infinity, which every other such number and ``Infinity`` would equal
    (``number``, the float read, when it is no such number: decimal text that large is whole
    unless it writes hundreds of fraction digits). One over :data:`MAX_INT_DIGITS` digits is
    a :class:`LimitError`, as an integer written out is."""
    exact = Decimal(token.replace("_", ""))
    if not exact.is_finite():
        return number
    if exact.adjusted() >= MAX_INT_DIGITS:
        raise LimitError(f"a number over {MAX_INT_DIGITS} digits: {token[:40]}")
    whole = exact.to_integral_value()
    return int(whole) if whole == exact else number
