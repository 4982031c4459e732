"""Built-in key-level scoring modes and the steps they share.

``strict`` (alias ``static_json``) scores like AssetOpsBench's static_json, ``similarity``
(alias ``json_similarity``) like UiPath's JSON similarity evaluator. Both parse both sides,
turn their options into a :class:`~pytest_structeval.walk.WalkPolicy`, walk, and reduce the
field results to metrics; the shared steps live here so each mode module holds only its
policy and its metrics. (``schema`` mode is registered by ``schema/builtins.py``.)

Prose answers (the parser's text fallback) are read once more here, for all three modes:
against a numeric gold as the one number they state (``count-in-text``), against a gold
that is one option letter as the option they state (``choice-in-text``), and otherwise
checked for an abstention ("I don't know"), which the result notes without scoring it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

import orjson

from ..absent import AbsentPolicy, drop_absent
from ..align import SPEC_FIELDS, AlignSpec, parse_align
from ..compare import OVERRIDE_KEYS, LeafOptions, OptionResolver
from ..errors import AnswerParseError, GoldWarning, LimitError, OptionsError, hide_usage_error
from ..files import utf8_text
from ..keys import named_keys
from ..naming import did_you_mean
from ..parse import (
    DEFAULT_MAX_DEPTH,
    SCALAR_TYPES,
    Parsed,
    check_parse_options,
    parse_answer_detailed,
)
from ..parse import _number as parse_number  # the parser's own number reading
from ..parse import _parse_valid as parse_fields  # (value, method, structured); options checked
from ..paths import CONTAINERS, ROOT, GlobMatcher, flatten, unmatched_note
from ..results import FieldResult, ScoreResult
from ..walk import ORDERED_SPEC, WalkPolicy, walk

if TYPE_CHECKING:
    from ..registry import Registry

__all__ = [
    "MAX_VALUES",
    "TOO_MANY",
    "ModeWalk",
    "abstention",
    "check_depth",
    "check_threshold",
    "chosen_option",
    "count_values",
    "error_result",
    "install",
    "note_prose",
    "parse_align_option",
    "parse_sides",
    "parse_values",
    "reject_unknown",
    "too_many_values",
    "walk_targets",
]


def install(registry: Registry) -> None:
    """Register the built-in key-level scorers."""
    from .similarity import score_similarity
    from .strict import score_strict

    registry.register_scorer("strict", score_strict, aliases=("static_json",))
    registry.register_scorer("similarity", score_similarity, aliases=("json_similarity",))


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
    is a number and the answer only prose, the one number the prose states is the answer
    (see :func:`_stated_count`); when the gold is one option letter, the option the prose
    states (see :func:`_stated_choice`).
    """
    __tracebackhide__ = hide_usage_error
    check_read_options(strict_parse, max_bytes, max_depth, parse_repairs)
    parsed_gold = read_gold(gold, strict_parse, max_bytes, max_depth, compose_keys)
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
        return error_result(mode, f"model answer: {exc}", threshold=threshold, gold=parsed_gold[0])
    if not parsed_model[2]:  # prose: what kind of answer the gold asks for may read it
        gold_value = parsed_gold[0]
        kind = type(gold_value)
        if kind is int or kind is float:
            parsed_model = _stated_count(parsed_model, model)
        elif kind is str and len(gold_value) == 1 and "A" <= gold_value <= "Z":
            parsed_model = _stated_choice(parsed_model)
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
    gold: Any, strict_parse: bool, max_bytes: int, max_depth: int, compose_keys: bool = True
) -> tuple[Any, str, bool]:
    """The gold's parse as ``(value, method, structured)`` (cached for texts, see
    ``_parse_gold``); it raises for a gold that cannot be read (options checked already).
    A cached value is handed out as a copy of its containers: it lands in the result's
    ``parsed_gold`` (and an empty one in a field's ``gold``), and a caller changing it there
    must not change how the next answer to that gold is scored."""
    __tracebackhide__ = hide_usage_error
    gold_args = (gold, strict_parse, max_bytes, max_depth, compose_keys)
    if type(gold) is str and len(gold) <= _GOLD_CACHE_CHARS:
        kept = _parse_gold(*gold_args)
    elif type(gold) is not str:
        parsed = _read_gold(*gold_args)  # the same parse, uncached: the caller's own value
        return parsed.value, parsed.method, parsed.structured
    else:  # the same text object as last time: the runs of one scenario
        known = [k for args, k in _LONG_GOLD if args[0] is gold and args[1:] == gold_args[1:]]
        kept = known[0] if known else _keep(_read_gold(*gold_args))
        _LONG_GOLD[:] = [(gold_args, kept)]
    parsed, flat, text = kept
    value = parsed.value
    if flat:  # a flat object (the usual gold): one C-level copy
        value = value.copy()
    elif text is not None:  # nested JSON data: decoded again, in C (half a Python copy)
        value = orjson.loads(text)
    elif type(value) is dict or type(value) is list:  # (a parse shares no container: YAML
        value = _copy_tree(value, _COPY_DEPTH)  # aliases are copied out as it is read)
    return value, parsed.method, parsed.structured


def _keep(parsed: Parsed) -> tuple[Parsed, bool, bytes | None]:
    """A parse as the gold caches keep it, with how to copy its value fast: whether it is an
    object holding no container (one ``dict.copy``), else its JSON text when that is short
    and decoding it gives the same value back (no NaN or infinity, string keys, integers
    within 64 bits)."""
    value = parsed.value
    if type(value) is dict and SCALAR_TYPES.issuperset(map(type, value.values())):
        return parsed, True, None
    if type(value) is not dict and type(value) is not list:
        return parsed, False, None
    try:
        text = orjson.dumps(value)
    except orjson.JSONEncodeError:  # (a key or number JSON has no form for, or deep nesting)
        return parsed, False, None
    if len(text) > _GOLD_CACHE_CHARS:  # decoding copies every string: Python shares them
        return parsed, False, None
    return parsed, False, text if orjson.loads(text) == value else None


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
    parsed = parse_fields(model, strict_parse, max_bytes, max_depth, parse_repairs)
    value, method, structured = parsed
    named = named_keys(value, method, model, compose=compose_keys)  # LimitError: too long
    return parsed if named is value else (named, method, structured)


_COUNT_CHARS: Final = 24
# A number standing alone in prose: not part of an identifier (``CWC04013``, ``COMP-01``), a
# date or time (``2020-06-01``, ``10:30``), a version or a percentage; ``1,234`` is one number.
# Nor an index or citation (``history[3]``, ``[1]``), a code argument (``limit=1``), a
# number (``#4``) or a compound word (``90-day``). The minus sign (U+2212) is a sign; a
# number right after an en dash or another dash is not read (a range, or a sign we cannot tell).
_LONE_NUMBER = re.compile(
    r"(?<![\w.,:/+\-\[=#\u2010-\u2015\u2212\ufe63\uff0d])"
    r"([-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
    r"(?![\w%\]=]|[.,:/\-\u2010-\u2015\u2212]\d|-[^\W\d_])"
)
# A list item's or heading's number opening its line ("1. I could not...", "### 2) Summary"):
# what comes before it on the line, and what follows it.
# Emphasis may hold the number or the item ("**1.** None", "**2. Nothing else.**"), and a
# no-break space may follow it.
_MARKER_BEFORE = re.compile(r"[ \t]*(?:#{1,6}[ \t]+|>[ \t]*|[*+-][ \t]+)?(?:\*{1,3}|_{1,3})?")
_MARKER_AFTER = re.compile(r"(?:[.)](?:\*{1,3}|_{1,3})?|(?:\*{1,3}|_{1,3})[.)])[ \t\u00a0]+\S")
# What names a thing by its number rather than counting: a reference word (``step 17``,
# ``page 3``, ``version 2``) or a standard (``IEC 60599``, ``ISO 9001``; not ``USD 500``).
_LABEL_BEFORE = re.compile(
    r"(?:\b(?i:steps?|pages?|lines?|items?|sections?|chapters?|fig(?:ure)?s?\.?|tables?|rows?"
    r"|columns?|turns?|attempts?|iterations?|versions?|phases?|stages?|rules?|clauses?"
    r"|index|no\.|nr\.)|\b(?:IEC|ISO|IEEE|ANSI|API|ASTM|ASME|NEC|NFPA|NEMA|DIN|EN|BS|UL|RFC|ITU|SAE))"
    r"[ \t]*$"
)
_LABEL_REACH: Final = 16  # characters before a number where its label may stand
_LABEL_GOES_ON = re.compile(  # after a plural label: "steps 4 and 5", "steps 4, 5, and 6"
    r"\s*(?:,\s*(?:and|or)?|&|and|or|to|through|-|\u2013|\u2014)\s*"
)


def _opens_line(answer: Any, region: str) -> bool:
    """Whether ``region`` (a marker's region) begins a line of ``answer``: ``Final Answer:\n1.
    ...`` opens a list where ``Final Answer: 5. Five.`` states a count. Its first line is
    looked for as written (emphasis the parser took off may stand before it: ``**1. ...**``);
    unknown (False) when it is not found (a box)."""
    if isinstance(answer, (bytes, bytearray, memoryview)):
        answer = bytes(answer).decode("utf-8-sig", "replace")
    if not isinstance(answer, str):
        return False
    if region not in answer:  # as written, else by its first line (marks were taken off)
        region = region.partition("\n")[0]
    opens = False
    at = answer.find(region)
    for _ in range(_COPIES):  # every copy must open its line: which one is the region's?
        if at < 0:
            return opens
        if answer[answer.rfind("\n", 0, at) + 1 : at].strip(_LINE_MARKS):
            return False
        opens = True
        at = answer.find(region, at + 1)
    return opens


_COPIES: Final = 20  # copies of a region looked at (an answer repeating it more is prose)


_LINE_MARKS: Final = " \t*_`>"  # what may open a line before its text: emphasis, a quote


def _stated_count(parsed: tuple[Any, str, bool], answer: Any) -> tuple[Any, str, bool]:
    """A prose answer to a count question ("There are 34 corrective work orders.") as the one
    number it states, method ``...count-in-text``; unchanged when it states none or several.
    ``answer`` is the text the region was read from (where the region's first line begins).

    Only against a numeric gold: against text gold ("Chiller 6") the words are the answer,
    and the parser alone cannot tell the two apart."""
    text, method, _ = parsed
    if not isinstance(text, str) or not method.endswith("text"):
        return parsed
    found = _numbers_stated(text, method, answer, 1)
    if len(found) != 1 or len(found[0]) > _COUNT_CHARS:  # (a long digit string: an id, a hash)
        return parsed
    return parse_number(found[0]), method[: -len("text")] + "count-in-text", True


def _numbers_stated(text: str, method: str, answer: Any, enough: int) -> list[str]:
    """The different numbers a prose answer states, in order, past ``enough`` of them at
    most one more: those no label names ("step 2") and no list item or heading opens."""
    found: list[str] = []
    labelled_to = -1  # where the last number a label names ends
    line_start = searched = 0  # the start of the line searched up to ``searched``
    for match in _LONE_NUMBER.finditer(text):
        start = match.start()
        word_end = start
        while word_end and text[word_end - 1] in " \t":
            word_end -= 1
        named = word_end and (text[word_end - 1].isalpha() or text[word_end - 1] == ".")
        label = named and _LABEL_BEFORE.search(text, max(0, start - _LABEL_REACH), start)
        if label:  # only a plural one ("steps", not "step 2, and 5 orders") names what follows
            labelled_to = match.end() if label[0].rstrip().endswith("s") else -1
            continue
        if labelled_to >= 0 and _LABEL_GOES_ON.fullmatch(text, labelled_to, start):
            labelled_to = match.end()
            continue
        line_start = text.rfind("\n", searched, start) + 1 or line_start  # (once per text)
        searched = start
        if (
            _MARKER_AFTER.match(text, match.end())
            and _MARKER_BEFORE.fullmatch(text, line_start, start)
            and (line_start or method == "text" or _opens_line(answer, text))  # (its first line)
        ):
            continue  # a list item or heading number: it counts nothing
        number = match[1].replace(",", "").replace("\u2212", "-")
        if all(float(number) != float(seen) for seen in found):
            found.append(number)
            if len(found) > enough:
                break
    return found


# --- multiple choice ----------------------------------------------------------------------
#
# Against a gold that is one option letter, prose states its option in one of three ways,
# strongest first: a last line that is the option alone ("…\n\nC", "**C**", "Answer: (C)"),
# a conclusion ("the correct option is C.", "C is correct"), a mention ("option C", a line
# opening "(C) Chiller 6"). A capital standing in a sentence is never an option ("A pump
# failed", "I think so"): a letter counts only when the text marks it as one. Letters are
# capitals: "option c" is not read.

_UNMARKED: Final = str.maketrans("", "", "*_`")  # emphasis and code marks around a final line
_CHOICE_WINDOW_CHARS: Final = 2_000
_OPTION_LINE = re.compile(
    r"(?i:(?:the\s+)?(?:final\s+|correct\s+|right\s+|best\s+)?(?:answer|option|choice)"
    r"(?:\s+is)?\s*(?:[:=-]\s*)?)?"
    r"(?:\(([A-Z])\)|\[([A-Z])\]|([A-Z])[).:]?)[.!]?"
)
# A letter set off as an option: wrapped ("(C)", "**C**") or followed by ")" or by
# punctuation ending a statement ("C.", "C;", "C, as the oil shows", "D, I think"; not the
# "U." of "U.S.", a "C, D" that lists several, nor a "C?" that asks) or by the line's end.
_SET_OFF = (
    r"[*_]*(?:\(([A-Z])\)|\[([A-Z])\]"
    r"|([A-Z])(?=[*_]*(?:\)|[.;:!](?!\w)"
    r"|,(?![ \t]*(?:and[ \t]+)?(?!I\s+(?!and\b|or\b)[a-z])[A-Z]\b)|[ \t]*(?:\n|\Z))))"
)
_CORRECTING = r"(?:actually|wait|no|hmm|rather|on\s+second\s+thought)\b"
_CONCLUSION = re.compile(
    r"(?i:\b(?:answer|option|choice)\s+(?:is|would\s+be|should\s+be)"
    r"(?:\s+(?:actually|really|definitely|clearly|indeed|therefore|instead))?\s*(?::\s*)?"
    rf"(?:(?:option|choice)\s+)?|\b(?:answer|correction)\s*:\s*"
    # a correction after a first conclusion ("The answer is C. Actually, it is D."): two
    # conclusions, so no one choice, as with "Correction: D"; a bare letter only where the
    # correction opens a sentence ("Actually, D."), never after a negation ("(no D)")
    rf"|\b{_CORRECTING},?\s+(?:I\s+think\s+)?"
    r"(?:it(?:'s|\s+is|\s+should\s+be|\s+must\s+be)|that(?:'s|\s+is))\s+"
    rf"(?:(?:option|choice)\s+)?|(?:^[ \t]*|(?<=[.!?] )){_CORRECTING},\s+"
    rf"(?:(?:option|choice)\s+)?){_SET_OFF}"
    r"|(?:^[ \t]*|(?<=[.!?;:,] )|(?i:\b(?:option|choice))\s+)[*_]*\(?([A-Z])\)?[*_]*"
    r"\s+(?i:is\s+(?:the\s+)?(?:correct|right|best)\b|is\s+the\s+answer\b)",
    re.M,
)
# A sentence that rules an option out ("Option C is not suitable", "we can eliminate option
# C") mentions no choice (a conclusion, "the answer is C, not B", stands).
_RULED_OUT = re.compile(
    r"\b(?:not|no|never|isn't|aren't|wasn't|cannot|can't|eliminated?|exclude[ds]?|excluding"
    r"|rule[ds]?\s+out|ruling\s+out|incorrect|wrong|unsuitable|reject(?:ed|s)?)\b",
    re.I,
)
_SENTENCES = re.compile(r"[^.!?\n]*(?:[.!?]+|\n|$)")
_MENTION = re.compile(
    # "option I chose", "the choice I made": the pronoun, not option I
    r"(?i:\b(?:option|choice))\s+[*_]*\(?([A-Z])\)?(?![\w'-]|(?<=I)[*_)]*\s+[a-z])"
    r"|^[ \t]*(?:[-+*][ \t]+)?[*_]*(?:\(([A-Z])\)|\[([A-Z])\]|([A-Z])\))(?=\s|\Z)",
    re.M,
)
# Beside a mention, any other "(B)" names another option ("(A) and (B)"), or a unit ("Load
# current (A)"): either way the mention is no longer the one choice stated.
_PARENTHESISED = re.compile(r"(?<![\w(])\(([A-Z])\)(?![\w)])")
# After a marker ("Answer: C. Chiller 6") a region opening "C." states option C; prose that
# merely opens so ("I. Overview", "A. Smith reported...") does not.
_MARKED_OPENING = re.compile(r"[*_]*([A-Z])\.(?=\s)")
# A list numbered in Roman numerals ("(I) and (III)", "II) Inspect"): its "(I)" or "V)" is a
# numeral, so no mention beside one is a choice.
_ROMAN_ITEM = re.compile(r"(?:\(|^[ \t]*)(?:I{2,3}|IV|VI{1,3}|IX)\)", re.M)


def _stated_choice(parsed: tuple[Any, str, bool]) -> tuple[Any, str, bool]:
    """A prose answer to a multiple-choice question as the option it states (see
    :func:`chosen_option`), method ``...choice-in-text``; unchanged when it states none, or
    several different ones. Only against a gold that is one capital letter."""
    text, method, _ = parsed
    if not isinstance(text, str) or not method.endswith("text"):
        return parsed
    letter = chosen_option(text, marked=method != "text")
    if letter is None:
        return parsed
    return letter, method[: -len("text")] + "choice-in-text", True


def chosen_option(text: str, *, marked: bool = False) -> str | None:
    """The option letter ``text`` states, or None.

    A last non-empty line that is only the option wins ("The answer is B?\\n\\nC" is C: a
    final line is the final answer). Otherwise the conclusions decide when they name one
    letter, and none when they name several: "the answer is C", "C is correct", and when
    ``text`` is a marked answer region (``Answer: C\\n\\nBecause...``), a first line that
    is only the option. Without a conclusion, the mentions ("option C", a line opening
    "(C)" or "C)", a marked region opening "C.") decide the same way, any "(B)" beside them
    counting as one more. So an answer that lists options or weighs two states no choice.
    Conclusions and mentions are read in the first and last :data:`_CHOICE_WINDOW_CHARS`
    characters, where an answer states and concludes, so the reading stays cheap.
    """
    line = _option_line(text.rstrip().rsplit("\n", 1)[-1])
    if line is not None:
        return line
    scanned = _ends(text)
    letters = _letters(_CONCLUSION, scanned)
    if marked:
        first = _option_line(text.lstrip().split("\n", 1)[0])
        if first is not None:
            letters.add(first)
    if not letters:
        letters = _mentioned(scanned)
        opening = _MARKED_OPENING.match(text) if marked else None
        if opening is not None:
            letters.add(opening[1])
        if letters:
            letters |= _letters(_PARENTHESISED, scanned)
            if _ROMAN_ITEM.search(scanned):
                return None
    return letters.pop() if len(letters) == 1 else None


def _option_line(line: str) -> str | None:
    """The option a line states alone ("C", "**(C)**", "Answer: C."), else None."""
    found = _OPTION_LINE.fullmatch(line.translate(_UNMARKED).strip())
    return None if found is None else str(next(filter(None, found.groups())))


def _ends(text: str) -> str:
    """``text``, or of a long one its first and last :data:`_CHOICE_WINDOW_CHARS` characters
    cut at line breaks (else at spaces), joined so that no cut makes a line start."""
    if len(text) <= 2 * _CHOICE_WINDOW_CHARS:
        return text
    head, tail = text[:_CHOICE_WINDOW_CHARS], text[-_CHOICE_WINDOW_CHARS:]
    cut = head.rfind("\n")
    head = head[:cut] if cut >= 0 else head.rpartition(" ")[0]
    cut = tail.find("\n")
    if cut >= 0:
        return f"{head}\n{tail[cut + 1 :]}"
    return f"{head} {tail.partition(' ')[2]}"


def _letters(pattern: re.Pattern[str], text: str) -> set[str]:
    return {letter for found in pattern.finditer(text) for letter in found.groups() if letter}


def _mentioned(text: str) -> set[str]:
    """The letters mentioned as options, leaving out the sentences that rule one out (each
    sentence is searched in place, so a "line opening (C)" still means a line)."""
    return {
        letter
        for sentence in _SENTENCES.finditer(text)
        if not _RULED_OUT.search(sentence[0])
        for found in _MENTION.finditer(text, sentence.start(), sentence.end())
        for letter in found.groups()
        if letter
    }


# --- abstention ---------------------------------------------------------------------------
#
# "I don't know" is not a wrong answer: a run should say how often its model declined. An
# answer abstains when it is short prose that says it cannot answer and states nothing
# else: no number, no hedge or contrast that goes on to give an answer anyway.

_ABSTENTION_CHARS: Final = 400  # longer prose that declines a detail is a partial answer
_APOSTROPHES: Final = str.maketrans("\u2018\u2019\u02bc", "'''")
_ABSTAINING = re.compile(
    r"\bI\s+(?:do\s+not|don't|did\s+not|didn't)\s+know\b"
    r"|\b(?:cannot|can\s+not|can't|could\s+not|couldn't|unable\s+to|not\s+able\s+to"
    r"|not\s+possible\s+to|impossible\s+to|no\s+way\s+to)\s+(?:be\s+)?"
    r"(?:determined?|answer(?:ed)?|tell|told|say|said|know|known|concluded?|assess(?:ed)?"
    r"|(?:provide|give)\s+(?:an?\s+|the\s+)?answer)\b"
    r"|(?:\binsufficient|(?:\bnot|n't)\s+(?:have\s+)?(?:enough|sufficient))\s+"
    r"(?:information|data|evidence)\b"
    r"|\b(?:information|data|evidence)\s+(?:is|are|was|were)\s+"
    r"(?:insufficient|not\s+sufficient|not\s+enough)\b",
    re.I,
)
# A number outside an identifier (3, 45%, 2024-01-06, -5; not T-020 or WO-B56D3391).
_STATES_NUMBER = re.compile(r"\d(?<!\w\d)(?<!\w-\d)")  # a digit first: a fast scan
_STATES_ANYWAY = re.compile(
    r"\b(?:but|however|although|though|nevertheless|nonetheless|that\s+said|instead"
    r"|yet|probabl[ey]|likely|perhaps|maybe|possibly|approximately|roughly|estimated?"
    r"|I\s+(?:think|believe|guess|suspect)|(?:my|best)\s+(?:best\s+)?(?:guess|estimate))\b",
    re.I,
)
_SENTENCE_BREAK = re.compile(r"[.!?](?:\s|$)")
# What a sentence before an abstention may say: why there is no answer ("There are no
# readings for T-005.", "Sorry, the data is missing.").
_ABSENCE = re.compile(
    r"\b(?:no|not|none|nothing|missing|unavailable|lacks?|lacking|without|sorry"
    r"|unfortunately)\b|n't\b",
    re.I,
)
_QUOTED_CHARS: Final = 100


def abstention(text: str) -> str | None:
    """The sentence in which a prose answer declines to answer, or None when it does not.

    An abstention is at most :data:`_ABSTENTION_CHARS` characters of prose holding one of
    the phrases of :data:`_ABSTAINING` ("I don't know", "cannot be determined", "unable to
    answer", "insufficient information"...), and no number outside an identifier and no
    word that goes on to answer anyway ("but", "however", "probably", "I think"...):
    "I don't know the exact date, but it is 34" states a value and is not one.
    """
    if len(text) > 4 * _ABSTENTION_CHARS:  # bounds the work before the exact length
        return None
    flat = " ".join(text.translate(_APOSTROPHES).split())
    if len(flat) > _ABSTENTION_CHARS:
        return None
    if _STATES_NUMBER.search(flat):  # the cheapest test first: most answers state numbers
        return None
    found = _ABSTAINING.search(flat)
    if found is None or _STATES_ANYWAY.search(flat):
        return None
    start = max((b.end() for b in _SENTENCE_BREAK.finditer(flat, 0, found.start())), default=0)
    if not all(_ABSENCE.search(s) for s in _SENTENCES.findall(flat[:start]) if s.strip()):
        return None  # an answer first ("The cause is wear. The date cannot be determined.")
    stop = _SENTENCE_BREAK.search(flat, found.end())
    sentence = flat[start : len(flat) if stop is None else stop.start() + 1].strip()
    if len(sentence) > _QUOTED_CHARS:
        sentence = sentence[: _QUOTED_CHARS - 3].rstrip() + "..."
    return sentence


def note_prose(result: ScoreResult, answer: Any, text: str | None = None) -> ScoreResult:
    """``result`` of a prose answer (``text``, else its model answer as parsed; ``answer``:
    the model answer as given), with what the prose says about the answer:
    ``metrics["abstained"] = True`` and a reason that opens with the abstaining sentence when
    it abstains (see :func:`abstention`; the score stays, an abstention is not a right
    answer), and against a numeric gold a note naming the numbers it states when there are
    several (none of them is read as the answer, see :func:`_stated_count`). Modes call it
    for text answers only, so a structured answer costs nothing."""
    model = result.parsed_model if text is None else text
    if type(model) is not str:
        return result
    gold, method = result.parsed_gold, result.parse_method or "text"
    if (type(gold) is int or type(gold) is float) and method.endswith("text"):
        numbers = _numbers_stated(model, method, answer, _NUMBERS_NAMED)
        if len(numbers) > 1:
            named = ", ".join(numbers[:_NUMBERS_NAMED]) + (
                ", ..." if len(numbers) > _NUMBERS_NAMED else ""
            )
            note = (
                f"several numbers stated ({named}): none read as the answer; a "
                "'Final Answer: N' line picks one"
            )
            notes = [*result.metrics.get("notes", ()), note]
            result = replace(result, metrics={**result.metrics, "notes": notes})
    said = abstention(model)
    if said is None:
        return result
    reason = f'model abstained: "{said}"' + (f"; {result.reason}" if result.reason else "")
    return replace(result, metrics={**result.metrics, "abstained": True}, reason=reason)


_NUMBERS_NAMED: Final = 3  # numbers a note on prose names


# Gold texts up to this size keep their parse (at most _GOLD_CACHE_SIZE of them): a bounded
# memory cost, and the same gold is scored against many answers (runs, models, retries).
_GOLD_CACHE_CHARS: Final = 8_192
_GOLD_CACHE_SIZE: Final = 256
# The last longer gold text parsed, kept by identity: a scenario's runs score against the same
# text object, and a 2 MB gold took 2.7 s to parse for each run (one kept: bounded memory).
_LONG_GOLD: list[tuple[tuple[Any, ...], tuple[Parsed, bool, bytes | None]]] = []


@lru_cache(maxsize=_GOLD_CACHE_SIZE)
def _parse_gold(
    gold: Any, strict_parse: bool, max_bytes: int, max_depth: int, compose_keys: bool
) -> tuple[Parsed, bool, bytes | None]:
    """:func:`_read_gold`, kept (see :func:`_keep`) for gold texts up to
    :data:`_GOLD_CACHE_CHARS`; :func:`read_gold` hands out copies (scoring never changes a
    parsed value, but a caller may)."""
    return _keep(_read_gold(gold, strict_parse, max_bytes, max_depth, compose_keys))


def _read_gold(
    gold: Any, strict_parse: bool, max_bytes: int, max_depth: int, compose_keys: bool
) -> Parsed:
    """Parse a gold answer (an empty one is an error), its keys named as JSON text names them
    (:func:`~pytest_structeval.keys.named_keys`)."""
    __tracebackhide__ = hide_usage_error
    if isinstance(gold, (bytes, bytearray, memoryview)):  # strictly: a byte replaced would
        try:  # score every answer against U+FFFD
            gold = utf8_text(bytes(gold), "the text")
        except UnicodeDecodeError as exc:
            raise AnswerParseError(f"the gold answer is not valid UTF-8: {exc}") from None
    if isinstance(gold, str) and not gold.strip():
        raise AnswerParseError("the gold answer is empty")
    parsed = parse_answer_detailed(
        gold, strict=strict_parse, max_bytes=max_bytes, max_depth=max_depth
    )
    if isinstance(gold, str) and (not parsed.structured or "repaired" in parsed.method):
        _warn_messy_gold(gold, parsed)
    value = named_keys(parsed.value, parsed.method, gold, compose=compose_keys)
    return parsed if value is parsed.value else Parsed(value, parsed.method, parsed.structured)


_GOLD_SHOWN: Final = 60  # characters of a messy gold a warning quotes


def _warn_messy_gold(gold: str, parsed: Parsed) -> None:
    """A :class:`GoldWarning` for a gold read with a repair, or one that starts like JSON
    (``{``, ``[``) yet reads as text: every answer is scored against that reading, and a
    correct structured answer fails against a gold read as text. (Once per gold text:
    the parse is cached; a long gold is quoted by its start and end, with its length, so
    two golds that start alike do not read as one warning.)"""
    text = gold.strip()
    if len(text) <= _GOLD_SHOWN:
        shown = repr(text)
    else:
        half = (_GOLD_SHOWN - 3) // 2
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        shown = f"{text[:half]!r}...{text[-half:]!r} ({len(text):,} characters, {digest})"
    if parsed.structured:
        message = f"the gold answer needed a repair to read ({parsed.method}): {shown}"
    elif text[:1] in ("{", "["):
        message = f"the gold answer looks like JSON but reads only as text: {shown}"
    else:
        return
    warnings.warn(GoldWarning(message), stacklevel=2)


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
    ``ends`` receives where each target's fields end (their paths may overlap)."""
    __tracebackhide__ = hide_usage_error
    used: set[int] = set()
    if absent is not None:
        depth = policy.max_depth
        targets = [
            (p, drop_absent(g, p, absent, depth, used), drop_absent(m, p, absent, depth, used))
            for p, g, m in targets
        ]
    try:
        if len(targets) == 1:
            prefix, g, m = targets[0]
            fields = walk(g, m, policy, prefix, notes)
            if ends is not None:
                ends.append(len(fields))
        else:
            fields = []
            for prefix, g, m in targets:
                fields.extend(walk(g, m, policy, prefix, notes))
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
        level = _next_level(level)
    return total


def _next_level(level: list[Any]) -> list[Any]:
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


def check_depth(value: Any, max_depth: int, prefix: str = ROOT) -> None:
    """Raise ``LimitError`` when ``value`` nests more than ``max_depth`` non-empty containers,
    with the walk's message (``... at <path of the first one too deep>``).

    For values given already parsed, which no parse has bounded. Level by level, so it never
    recurses and stops one level past the limit; only a value over it pays for ``flatten``,
    which names the path.
    """
    __tracebackhide__ = hide_usage_error
    level = [value] if isinstance(value, CONTAINERS) and value else []
    for _ in range(max_depth):
        level = _next_level(level)
        if not level:
            return
    flatten(value, prefix, max_depth=max_depth)  # raises: it descends into the same containers
