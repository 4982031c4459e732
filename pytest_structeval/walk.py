"""The one tree walk that the key-level modes share: gold and model trees -> FieldResults.

Strict (AssetOpsBench) and similarity (UiPath) scoring differ only in *policy* — how a
type mismatch counts, whether model-only fields are reported, how leaves compare — so
traversal, path naming, array alignment and ignore rules live here once.

The walk is iterative (a stack of child iterators), so no input depth can raise
``RecursionError``; nesting beyond ``max_depth`` raises ``LimitError``. Results come out in
document order: gold keys in gold order, then model-only keys; array elements in gold
order, then unmatched model elements at ``[-1]``, ``[-2]``, ...
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from itertools import chain
from operator import add
from typing import Any, Final

import orjson

from .align import (
    CONTAINED,
    HUNGARIAN,
    KEY,
    ORDERED,
    ORDERED_SPEC,
    SEQUENCE,
    Alignment,
    AlignSpec,
    align,
    align_contained,
    align_equal,
    align_past_bound,
    canonical_key,
    element_reasons,
    extra_reason,
    max_weight_matching,
    missing_reason,
    unchosen_reason,
    unpaired_reason,
)
from .compare import (
    LeafOptions,
    OptionResolver,
    as_number,
    compare_leaf,
    leaf_score,
    leaf_scores,
    normalize_text,
    text_form,
)
from .errors import OptionsError, too_deep
from .parse import SCALAR_TYPES
from .paths import DEFAULT_MAX_DEPTH, ROOT, compile_glob, glob_specificity, json_kind, key_path
from .results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    SKIPPED,
    FieldResult,
    new_field_result,
)

__all__ = ["ORDERED_SPEC", "SPLIT", "TYPE_MISMATCH_POLICIES", "ZERO", "WalkPolicy", "walk"]

SPLIT: Final = "split"
ZERO: Final = "zero"
TYPE_MISMATCH_POLICIES: Final = (SPLIT, ZERO)

# Task kinds on the walk stack.
_PAIR: Final = 0  # gold and model nodes at the same path
_GOLD: Final = 1  # gold-only subtree: every leaf is an omission
_GOLD_ZERO: Final = 2  # gold node against a model one of another type: every leaf scores 0
# (a gold leaf there is a mismatch with the model's value; a gold container's leaves, which
# the model does not hold, are missing)
_MODEL: Final = 3  # model-only subtree: every leaf is a hallucination
_FRAME: Final = 4  # two non-empty containers of one kind: their frame, already made

# Node shapes: leaves are scalars and *empty* containers.
_LEAF: Final = 0
_DICT: Final = 1
_LIST: Final = 2
_SCALARS: Final = SCALAR_TYPES
_all_scalars: Final = _SCALARS.issuperset  # over types: a C-speed "all are scalars"

_IGNORED: Final = "ignored (ignore_paths)"
_MISSING_KEY: Final = "missing key"
_NOT_IN_GOLD: Final = "key not in gold"
_ABSENT: Final = object()  # a key the model lacks
_NO_SEGMENTS: Final[dict[str, str]] = {}  # under an empty parent path: never cached
# The path segment of each index below _INDEXED ("[3]"): the ordered array walks join it to
# the array's path, in less than half the time of formatting the index (27 ns against 63).
_INDEXED: Final = 256
_INDEX_SEGMENTS: Final = tuple(f"[{i}]" for i in range(_INDEXED))

Task = tuple[int, Any, Any, str, "str | None"]


@dataclass(frozen=True, slots=True)
class WalkPolicy:
    """What a mode decides about the walk.

    ``resolver`` gives leaf options and ignore rules per path. ``align`` maps array paths or
    globs to alignment specs (the most specific matching pattern wins), ``default_align``
    covers every other array. ``type_mismatch``: ``"split"`` reports the gold leaves as
    omissions and the model leaves as extra (what AssetOpsBench's key flattening gives),
    ``"zero"`` scores each gold leaf 0 (UiPath). ``count_extra`` reports model-only leaves
    as hallucinations. ``exact_first`` makes Hungarian pairing maximise exact leaves before
    partial credit (strict mode, whose F1 counts exact leaves only). ``uncounted_extra``,
    when the mode reports model-only leaves but does not count them (``ignore_extra``, no
    ``penalize_extra``), ends their reasons (``" (not counted: ignore_extra)"``); such a
    subtree nested past ``max_depth`` is then one field, not a ``LimitError``: a part of the
    answer the score never counts cannot fail it. ``extra_subtrees`` reports each model-only
    subtree as one field (similarity's uncounted extras: walking a debug payload leaf by leaf
    cost 12x the scoring of the rest and told nothing more).
    """

    resolver: OptionResolver
    align: Mapping[str, AlignSpec] = field(default_factory=dict)
    default_align: AlignSpec = ORDERED_SPEC
    type_mismatch: str = SPLIT
    count_extra: bool = True
    exact_first: bool = True
    max_depth: int = DEFAULT_MAX_DEPTH
    uncounted_extra: str = ""
    extra_subtrees: bool = False
    #: weighing candidate pairs: the arrays nested in a pair are aligned at this one level,
    #: deeper ones weighed in positional order (the cost multiplied with each level)
    weighing: bool = False
    _align_rules: tuple[tuple[Callable[[str], bool], AlignSpec], ...] = field(
        init=False, repr=False, compare=False
    )
    _pair_policy: WalkPolicy | None = field(init=False, repr=False, compare=False)
    _aligned_pair_policy: WalkPolicy | None = field(init=False, repr=False, compare=False)
    #: ``(option, pattern)`` for every path pattern of the call (options, ignore, align), to
    #: tell which matched no field.
    patterns: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.type_mismatch not in TYPE_MISMATCH_POLICIES:
            raise OptionsError(
                f"type_mismatch must be one of {', '.join(TYPE_MISMATCH_POLICIES)}, "
                f"got {self.type_mismatch!r}"
            )
        if isinstance(self.max_depth, bool) or not isinstance(self.max_depth, int):
            raise OptionsError(f"max_depth must be an integer, got {self.max_depth!r}")
        if self.max_depth < 1:
            raise OptionsError(f"max_depth must be at least 1, got {self.max_depth}")
        ranked = sorted(
            ((glob_specificity(p), order), compile_glob(p), spec)
            for order, (p, spec) in enumerate(self.align.items())
        )
        object.__setattr__(
            self, "_align_rules", tuple((m, spec) for _, m, spec in reversed(ranked))
        )
        patterns = (*self.resolver.patterns, *(("align", pattern) for pattern in self.align))
        object.__setattr__(self, "patterns", patterns)
        # Element similarity for Hungarian pairing sees every model leaf, and compares nested
        # arrays by position (bounded cost), or as they are aligned for small elements.
        plain = not self.align and self.default_align == ORDERED_SPEC and self.count_extra
        object.__setattr__(
            self,
            "_pair_policy",
            None
            if plain
            else replace(self, align={}, default_align=ORDERED_SPEC, count_extra=True),
        )
        object.__setattr__(self, "_aligned_pair_policy", None)

    def align_for(self, path: str) -> AlignSpec:
        """The alignment spec of the array at ``path``."""
        for matches, spec in self._align_rules:
            if matches(path):
                return spec
        return self.default_align

    @property
    def pair_policy(self) -> WalkPolicy:
        """The policy used to score candidate element pairs for Hungarian/unordered."""
        return self._pair_policy or self

    @property
    def aligned_pair_policy(self) -> WalkPolicy:
        """:attr:`pair_policy`, but with the arrays nested in the elements aligned as they
        will be scored (made on first use; the pairs it weighs in turn are walked with their
        nested arrays in positional order: see :attr:`weighing`)."""
        if self._aligned_pair_policy is None:
            aligned = replace(self, count_extra=True, weighing=True)
            object.__setattr__(self, "_aligned_pair_policy", aligned)
        assert self._aligned_pair_policy is not None
        return self._aligned_pair_policy


def walk(
    gold: Any,
    model: Any,
    policy: WalkPolicy,
    prefix: str = ROOT,
    notes: list[str] | None = None,
) -> list[FieldResult]:
    """Compare ``gold`` with ``model`` leaf by leaf; one ``FieldResult`` per counted leaf.

    Ignored paths give one ``skipped`` result per ignored node (never counted). Raises
    ``LimitError`` past ``policy.max_depth`` nested containers. Alignment notes (duplicate
    keys, elements that cannot be keyed) go to ``notes`` as ``"<array path>: <note>"``, in
    document order; the fields they explain also carry them in their reasons.
    """
    flat = _flat_objects(gold, model, policy, prefix)
    return flat if flat is not None else _Walk(policy, notes).run(gold, model, prefix)


def _flat_objects(
    gold: Any, model: Any, policy: WalkPolicy, prefix: str
) -> list[FieldResult] | None:
    """The walk of two objects whose values are all scalars, when nothing is ignored; None
    for any other input.

    Most small answers are such objects, and for them the general walk is one frame with
    nothing to descend into: this is that frame (``_Walk.dict_frame``) without the frame
    stack, the ignore tests and the generator. Same results, in the same order. The model's
    values are checked on the way (a container there is rare), the gold's up front.
    """
    if (
        type(gold) is not dict
        or type(model) is not dict
        or not gold
        or not model
        or policy.resolver.ignores_any
        or not _all_scalars(map(type, gold.values()))
    ):
        return None
    out: list[FieldResult] = []
    scalars = _SCALARS
    segments = _SEGMENTS if prefix else _NO_SEGMENTS
    for key, g in gold.items():
        try:
            path = prefix + segments[key]
        except (KeyError, TypeError):  # a new key, or one no dict can hold
            path = _new_child_path(prefix, key)
        m = model.get(key, _ABSENT)
        if type(g) is type(m) and g == m:
            out.append(new_field_result(path, MATCH, 1.0, g, m, None))
        elif m is _ABSENT:
            out.append(new_field_result(path, OMISSION, 0.0, g, None, _MISSING_KEY))
        elif type(m) in scalars:
            out.append(_leaf_result(g, m, path, None, policy.resolver.options_for(path)))
        else:
            return None
    if policy.count_extra and not model.keys() <= gold.keys():
        for key, m in model.items():
            if key not in gold:
                if type(m) not in scalars:
                    return None
                path = _child_path(prefix, key)
                why = _NOT_IN_GOLD + policy.uncounted_extra
                out.append(new_field_result(path, HALLUCINATION, 0.0, None, m, why))
    return out


def _leaf_result(g: Any, m: Any, path: str, note: str | None, opts: LeafOptions) -> FieldResult:
    """The result of two leaves that are not trivially equal."""
    o = compare_leaf(g, m, opts)
    if o.exact:
        return new_field_result(path, MATCH, 1.0, g, m, None)
    return new_field_result(path, MISMATCH, o.score, g, m, _join(o.reason, note))


def _shape(value: Any) -> int:
    kind = type(value)
    if kind in _SCALARS:
        return _LEAF
    if kind is dict:
        return _DICT if value else _LEAF
    if kind is list or kind is tuple:
        return _LIST if value else _LEAF
    if isinstance(value, Mapping):
        return _DICT if value else _LEAF
    if isinstance(value, (list, tuple)):
        return _LIST if value else _LEAF
    return _LEAF


def _empty_container(value: Any) -> bool:
    """``{}`` or ``[]``: in a model answer these state no value, so where the gold has no
    leaf to hold them against (an extra key or element, content of another kind, content
    under them) they are not extra, only the gold's leaves count. AssetOpsBench flattens
    them to no key at all; here a gold one stays a value ("no errors": ``[]``). The rule
    also keeps the model keys a pairing counts the same paired or not, so Hungarian
    alignment, which leaves empty pairs unpaired, never scores below positional order.
    """
    return isinstance(value, (Mapping, list, tuple)) and not value


def _join(reason: str | None, note: str | None) -> str | None:
    if note is None:
        return reason
    return note if reason is None else f"{reason}; {note}"


def _describe(value: Any) -> str:
    """``object``, ``empty array``, ``string``...: JSON words for a node, for reasons."""
    kind = json_kind(value)
    if kind == "object":
        if not value:
            return "empty object"
        return f"object with {len(value)} key{'s' if len(value) > 1 else ''}"
    if kind == "array":
        return f"array of {len(value)}" if value else "empty array"
    return kind


def _child_path(parent: str, key: Any) -> str:
    """``key_path(parent, key)``, through the segment cache below."""
    try:
        return parent + _SEGMENTS[key] if parent else key_path(parent, key)
    except (KeyError, TypeError):  # a new key, or one no dict can hold
        return _new_child_path(parent, key)


# The path segment (".name", '["a.b"]') of each string key met under a parent: keys repeat
# from answer to answer, and a lookup costs less than deciding how to escape the key. Only
# string keys go in (1, 1.0 and True would share a slot), and it is cleared when full.
_SEGMENTS: dict[str, str] = {}
_SEGMENTS_MAX: Final = 4096


def _new_child_path(parent: str, key: Any) -> str:
    """``key_path(parent, key)``, remembering the segment of a string key."""
    path = key_path(parent, key)
    if parent and isinstance(key, str):
        if len(_SEGMENTS) >= _SEGMENTS_MAX:
            _SEGMENTS.clear()
        _SEGMENTS[key] = path[len(parent) :]
    return path


class _Walk:
    """One walk: the output list and the policy pieces every frame needs.

    The walk is a stack of frames, one per open container. A frame is a generator over
    the container's children: it emits leaf pairs itself (the common case, kept off the
    stack) and yields the children that need a frame of their own; ``run`` pushes those,
    so results come out in document order without recursion.
    """

    __slots__ = (
        "count_extra",
        "extra_subtrees",
        "ignored",
        "ignoring",
        "notes",
        "options_for",
        "out",
        "policy",
        "stack",
        "uncounted",
        "zero",
    )

    def __init__(self, policy: WalkPolicy, notes: list[str] | None = None) -> None:
        self.policy = policy
        self.notes = notes
        self.out: list[FieldResult] = []
        self.stack: list[Iterator[Task]] = []  # run's frames; its length is the top one's depth
        self.options_for = policy.resolver.options_for
        self.ignored = policy.resolver.ignored
        self.ignoring = policy.resolver.ignores_any  # frames skip ignored() calls without it
        self.count_extra = policy.count_extra
        self.zero = policy.type_mismatch == ZERO
        self.uncounted = policy.uncounted_extra
        self.extra_subtrees = policy.extra_subtrees

    def run(self, gold: Any, model: Any, prefix: str) -> list[FieldResult]:
        out = self.out
        if self.ignored(prefix):
            out.append(new_field_result(prefix, SKIPPED, 0.0, gold, model, _IGNORED))
            return out
        max_depth = self.policy.max_depth
        stack = self.stack
        stack.append(iter(((_PAIR, gold, model, prefix, None),)))
        while stack:
            for op, g, m, path, note in stack[-1]:
                if op == _FRAME:
                    child = g
                elif op == _PAIR:
                    child = self.pair(g, m, path, note)
                    if child is None:
                        continue
                    if type(child) is list:  # a type mismatch: both sides at this same level
                        stack[-1] = chain(child, stack[-1])
                        break
                elif op == _MODEL:
                    if _shape(m) == _LEAF:
                        if type(m) in _SCALARS or not _empty_container(m):
                            out.append(self.extra(path, m, note))
                        continue
                    if self.extra_subtrees:
                        out.append(self.extra(path, m, note))
                        continue
                    child = self.side(m, path, note, op)
                else:
                    if self.ignoring and self.hollow(g, path):  # equals {}: one leaf missed
                        self.skip_keys(g, path, gold=True)
                        g = {}
                    if _shape(g) == _LEAF:
                        if op == _GOLD:
                            out.append(new_field_result(path, OMISSION, 0.0, g, None, note))
                        else:
                            out.append(new_field_result(path, MISMATCH, 0.0, g, m, note))
                        continue
                    # (under a node of another type the model holds none of its leaves)
                    child = self.side(g, path, note, _GOLD)
                if len(stack) > max_depth:
                    raise too_deep(max_depth, path)
                stack.append(child)  # a frame: a generator, its own iterator
                break
            else:
                stack.pop()
        return out

    def extra(self, path: str, m: Any, note: str | None) -> FieldResult:
        """The result of a model-only leaf (its reason marked when the mode does not count
        it)."""
        if self.uncounted:
            note = (note or "") + self.uncounted
        return new_field_result(path, HALLUCINATION, 0.0, None, m, note)

    def leaf(self, g: Any, m: Any, path: str, note: str | None) -> None:
        """Compare two leaves (scalars or empty containers) and record the outcome."""
        if type(g) is type(m) and g == m:
            self.out.append(new_field_result(path, MATCH, 1.0, g, m, None))
        else:
            self.out.append(_leaf_result(g, m, path, note, self.options_for(path)))

    def pair(
        self, g: Any, m: Any, path: str, note: str | None
    ) -> Iterator[Task] | list[Task] | None:
        """Record a leaf pair (None), or give a container pair's frame, or the one-sided
        tasks (a list) when the shapes differ.

        Shapes differ on a type mismatch, and also when one side is an empty container
        and the other is not. An empty gold container is a leaf of its own (the gold
        states "none"), so a full model one misses it and adds its own leaves; an empty
        model container only omits the gold leaves (see ``run``: it is never extra).
        """
        if self.ignoring and type(g) is dict:
            g, m = self.emptied(g, m, path)
        elif self.ignoring and self.hollow(m, path):  # against a gold that is no object
            self.skip_keys(m, path, gold=False)
            m = {}
        gs = _shape(g)
        ms = _shape(m)
        if gs == _LEAF and ms == _LEAF:
            self.leaf(g, m, path, note)
            return None
        if gs == ms:
            frame = self.dict_frame if gs == _DICT else self.list_frame
            return frame(g, m, path, note)
        shown = f"expected {_describe(g)}, got {_describe(m)}"
        if json_kind(g) == json_kind(m):  # the same kind, one side empty
            why = _join(shown, note)
            gold_op = _GOLD_ZERO if self.zero and ms != _LEAF else _GOLD
        else:
            why = _join(f"type mismatch: {shown}", note)
            gold_op = _GOLD_ZERO if self.zero else _GOLD
        pending: list[Task] = [(gold_op, g, m, path, why)]
        if self.extra_subtrees and ms != _LEAF:
            # Each child of the model container is one field: the node's own path is the
            # mismatch's.
            pending.append((_FRAME, self.side(m, path, why, _MODEL), None, path, None))
        elif self.count_extra:
            pending.append((_MODEL, None, m, path, why))
        return pending

    def skip_keys(
        self,
        node: Mapping[Any, Any],
        path: str,
        *,
        gold: bool,
        model: Mapping[Any, Any] | None = None,
    ) -> None:
        """One ``skipped`` field per key of the object ``node``, whose keys are all ignored:
        a gold object's (beside the ``model`` object's value at each key), or a model one's."""
        for key, value in node.items():
            at = _child_path(path, key)
            g, m = (value, None if model is None else model.get(key)) if gold else (None, value)
            self.out.append(new_field_result(at, SKIPPED, 0.0, g, m, _IGNORED))

    def hollow(self, node: Any, path: str) -> bool:
        """Whether ``node`` is an object whose keys are all ignored: it equals ``{}`` (README),
        a leaf, not an object left out."""
        return (
            isinstance(node, Mapping)
            and bool(node)
            and all(self.ignored(_child_path(path, key)) for key in node)
        )

    def emptied(self, g: dict[Any, Any], m: Any, path: str) -> tuple[Any, Any]:
        """``g`` and ``m`` with their ignored keys dropped when that leaves the gold ``{}``:
        the gold equals an empty object, which a model object of ignored keys alone matches
        and anything else misses. Each dropped key is one ``skipped`` field; a gold with
        keys of its own is walked key by key instead."""
        model = m if isinstance(m, Mapping) else None
        if g and not self.hollow(g, path):
            return g, m
        if not g and not model:  # {} against {} or a non-object: the leaves compare
            return g, m
        self.skip_keys(g, path, gold=True, model=model)
        if model is None:
            return {}, m
        kept = {}
        for key, value in model.items():
            at = _child_path(path, key)
            if not self.ignored(at):
                kept[key] = value
            elif key not in g:
                self.out.append(new_field_result(at, SKIPPED, 0.0, None, value, _IGNORED))
        return {}, kept

    def dict_frame(
        self, gold: Mapping[Any, Any], model: Mapping[Any, Any], path: str, note: str | None
    ) -> Iterator[Task]:
        append, ignored, ignoring, scalars = self.out.append, self.ignored, self.ignoring, _SCALARS
        segments = _SEGMENTS if path else _NO_SEGMENTS
        for key, g in gold.items():
            try:
                child = path + segments[key]
            except (KeyError, TypeError):  # a new key, or one no dict can hold
                child = _new_child_path(path, key)
            if key in model:
                m = model[key]
                kind = type(g)
                if kind is type(m) and kind in scalars and g == m and not ignoring:
                    append(new_field_result(child, MATCH, 1.0, g, m, None))  # the common case
                elif (task := self.paired_child(g, m, child, note)) is not None:
                    yield task
            elif ignoring and ignored(child):
                append(new_field_result(child, SKIPPED, 0.0, g, None, _IGNORED))
            elif type(g) in scalars:
                append(new_field_result(child, OMISSION, 0.0, g, None, _join(_MISSING_KEY, note)))
            else:
                yield (_GOLD, g, None, child, _join(_MISSING_KEY, note))
        if self.count_extra and not model.keys() <= gold.keys():
            unexpected = _join(_NOT_IN_GOLD, note)
            for key, m in model.items():
                if key not in gold:
                    yield from self.one_sided(_MODEL, None, m, _child_path(path, key), unexpected)

    def paired_child(self, g: Any, m: Any, child: str, note: str | None) -> Task | None:
        """Record a paired child now when nothing lies below it; else the task that walks it.

        Both frames pair their children through here, so dict members and array elements
        take the same route: ignored, leaf, nested frame, flat array or a general pair.
        """
        kind = type(g)
        if self.ignoring and self.ignored(child):
            self.out.append(new_field_result(child, SKIPPED, 0.0, g, m, _IGNORED))
        elif kind in _SCALARS and type(m) in _SCALARS:
            self.leaf(g, m, child, note)
        elif (
            kind is dict
            and type(m) is dict
            and g
            and m
            and not (self.ignoring and self.hollow(g, child))
        ):
            return (_FRAME, self.dict_frame(g, m, child, note), None, child, None)
        elif kind is list and type(m) is list and g and m:
            if not self.flat_arrays(g, m, child, note):
                return (_FRAME, self.list_frame(g, m, child, note), None, child, None)
        else:
            return (_PAIR, g, m, child, note)
        return None

    def list_frame(
        self, gold: Sequence[Any], model: Sequence[Any], path: str, note: str | None
    ) -> Iterator[Task]:
        policy = self.policy
        spec = policy.align_for(path) if policy.align else policy.default_align
        if spec.method == KEY and not _holds_objects(gold) and not _holds_objects(model):
            spec = ORDERED_SPEC  # nothing to key (tags, a list id): a key spec is for objects
        told_model: Mapping[int, str] | None = None  # (in positional order: extra_reason)
        if spec.method == ORDERED:
            append, ignoring, scalars = self.out.append, self.ignoring, _SCALARS
            common = min(len(gold), len(model))
            for i in range(common):
                child = path + _INDEX_SEGMENTS[i] if i < _INDEXED else f"{path}[{i}]"
                g, m = gold[i], model[i]
                kind = type(g)
                if kind is type(m) and kind in scalars and g == m and not ignoring:
                    append(new_field_result(child, MATCH, 1.0, g, m, None))  # the common case
                elif (task := self.paired_child(g, m, child, note)) is not None:
                    yield task
            if common < len(gold):
                missing = _join(missing_reason(len(model)), note)
                for i in range(common, len(gold)):
                    yield from self.one_sided(_GOLD, gold[i], None, f"{path}[{i}]", missing)
            extra: Sequence[int] = range(common, len(model))
        else:
            found = _align(gold, model, path, spec, policy)
            told = element_reasons(gold, model, spec, found)
            if self.notes is not None:
                self.notes.extend(f"{path}: {text}" for text in told.notes)
            partner = dict(found.pairs)
            unchosen = frozenset(found.unchosen_gold)
            for i, g in enumerate(gold):
                j = partner.get(i)
                child = f"{path}[{i}]"
                if i in unchosen:
                    self.unchosen(g, child, spec, note)
                elif j is None:
                    yield from self.one_sided(_GOLD, g, None, child, _join(told.gold[i], note))
                elif self.ignored(child):
                    self.out.append(new_field_result(child, SKIPPED, 0.0, g, model[j], _IGNORED))
                else:
                    yield (_PAIR, g, model[j], child, _join(told.gold.get(i), note))
            extra = found.unmatched_model
            told_model = told.model
        if self.count_extra:
            for k, j in enumerate(extra, 1):
                why = extra_reason(j) if told_model is None else told_model[j]
                yield from self.one_sided(_MODEL, None, model[j], f"{path}[{-k}]", _join(why, note))

    def unchosen(self, g: Any, path: str, spec: AlignSpec, note: str | None) -> None:
        """Record a gold element a ``contained`` answer needed not take (skipped)."""
        ignored = self.ignoring and self.ignored(path)
        why = _IGNORED if ignored else _join(unchosen_reason(spec), note)
        self.out.append(new_field_result(path, SKIPPED, 0.0, g, None, why))

    def flat_arrays(self, gold: list[Any], model: list[Any], path: str, note: str | None) -> bool:
        """Record two arrays of scalars aligned by position without a frame; False (nothing
        recorded) for any other arrays.

        Arrays of scalars (tags, ids, counts) are the common containers with nothing to
        descend into: this is ``list_frame``'s ordered walk of them, without the generator
        and the frame stack. Same results, in the same order.
        """
        policy = self.policy
        if (
            self.ignoring
            or len(self.stack) > policy.max_depth  # a frame would raise LimitError: let it
            or policy.align
            or policy.default_align.method != ORDERED
            or not _all_scalars(map(type, gold))
            or not _all_scalars(map(type, model))
        ):
            return False
        append = self.out.append
        common = len(gold) if len(gold) < len(model) else len(model)
        for i in range(common):
            child = path + _INDEX_SEGMENTS[i] if i < _INDEXED else f"{path}[{i}]"
            g, m = gold[i], model[i]
            if type(g) is type(m) and g == m:
                append(new_field_result(child, MATCH, 1.0, g, m, None))
            else:
                append(_leaf_result(g, m, child, note, self.options_for(child)))
        if common < len(gold):
            missing = _join(f"missing element: the model array has {len(model)}", note)
            for i in range(common, len(gold)):
                append(new_field_result(f"{path}[{i}]", OMISSION, 0.0, gold[i], None, missing))
        if self.count_extra and common < len(model):  # (most arrays have no extra element)
            for k, j in enumerate(range(common, len(model)), 1):
                why = _join(extra_reason(j), note)
                append(self.extra(f"{path}[{-k}]", model[j], why))
        return True

    def side(self, node: Any, path: str, note: str | None, op: int) -> Iterator[Task]:
        """The frame of a one-sided subtree (``op``: ``_GOLD`` or ``_MODEL``). A ``contained``
        gold array the model left empty or out lacks ``count`` elements, not all of them."""
        is_dict = _shape(node) == _DICT
        if op != _MODEL and not is_dict:
            policy = self.policy
            spec = policy.align_for(path) if policy.align else policy.default_align
            if spec.method == CONTAINED:
                found = _align(node, [], path, spec, policy)
                if self.notes is not None:
                    self.notes.extend(f"{path}: {text}" for text in found.notes)
                unchosen = frozenset(found.unchosen_gold)
                for i, value in enumerate(node):
                    child = f"{path}[{i}]"
                    if i in unchosen:
                        self.unchosen(value, child, spec, note)
                    else:
                        why = _join(unpaired_reason(spec, value, "model"), note)
                        yield from self.one_sided(op, value, None, child, why)
                return
        for key, value in node.items() if is_dict else enumerate(node):
            child = _child_path(path, key) if is_dict else f"{path}[{key}]"
            if op == _MODEL:
                yield from self.one_sided(op, None, value, child, note)
            else:
                yield from self.one_sided(op, value, None, child, note)

    def one_sided(self, op: int, g: Any, m: Any, path: str, note: str | None) -> Iterator[Task]:
        """Record an ignored node or a one-sided scalar now; yield anything bigger."""
        if self.ignored(path):
            self.out.append(new_field_result(path, SKIPPED, 0.0, g, m, _IGNORED))
        elif type(m if op == _MODEL else g) not in _SCALARS:
            yield (op, g, m, path, note)
        elif op == _MODEL:
            self.out.append(self.extra(path, m, note))
        else:
            self.out.append(new_field_result(path, OMISSION, 0.0, g, None, note))


# ----------------------------------------------------------------------- array alignment


def _holds_objects(array: Sequence[Any]) -> bool:
    return any(isinstance(element, Mapping) for element in array)


def _align(
    gold: Sequence[Any], model: Sequence[Any], path: str, spec: AlignSpec, policy: WalkPolicy
) -> Alignment:
    """Pair elements by ``spec``; similarities come from the same leaf scoring as the walk."""
    if spec.method == KEY:
        field_path = _child_path(f"{path}[0]", spec.key)
        return align(
            gold, model, spec, key_of=_key_normaliser(policy.resolver.options_for(field_path))
        )
    if spec.method == CONTAINED:
        resolver = policy.resolver

        def can_miss(i: int) -> bool:  # an ignored element's omission would count nothing
            return not (resolver.ignores_any and resolver.ignored(f"{path}[{i}]"))

        key_of = _contained_key(path, policy)
        return align_contained(gold, model, spec.count or 1, key_of, can_miss)
    opts = policy.resolver.options_for(f"{path}[0]")
    deep = not policy.resolver.overrides_any  # (else the leaves' own options may differ)
    keyed = (_deep_key_normaliser if deep else _key_normaliser)(opts)
    unfloored = replace(spec, min_similarity=0.0)
    weigh = _Weigher(gold, model, path, spec.min_similarity, policy)
    past = align_past_bound(gold, model, spec, key_of=keyed, similarity=weigh.scaled)
    if past is not None:
        return past
    saving = not policy.exact_first and not policy.uncounted_extra and not spec.min_similarity
    if (
        (spec.method == HUNGARIAN or (spec.method == SEQUENCE and not saving))
        and deep
        and not policy.resolver.ignores_any
        and not opts.numeric_range
        and opts.timestamp_tolerance is None
    ):
        screen = _screen(gold, opts) if spec.method == HUNGARIAN else None
        settled = align_equal(gold, model, spec, keyed, screen)
        if settled is not None:  # the pairing weighing would find (see align_equal)
            if weigh.would_weigh_positionally():
                note = _positional_note(gold, model)
                settled = replace(settled, notes=(*settled.notes, note))
            return settled  # (no element left on both sides: no leftovers to pair)
    leftovers = saving
    if spec.method == HUNGARIAN or spec.method == SEQUENCE:
        matrix = weigh.matrix()
        if saving and spec.method == SEQUENCE:  # one order-keeping pass weighs both
            matrix = _with_savings(matrix, gold, model, path, policy)
            leftovers = False
        found = align(gold, model, unfloored, matrix=matrix)
    else:
        found = align(gold, model, unfloored, similarity=weigh.scaled, key_of=_key_normaliser(opts))
    if weigh.positional_nested:
        found = replace(found, notes=(*found.notes, _positional_note(gold, model)))
    return _pair_leftovers(found, gold, model, path, policy) if leftovers else found


def _positional_note(gold: Sequence[Any], model: Sequence[Any]) -> str:
    return (
        f"{len(gold)} x {len(model)} elements, too many leaves to pair otherwise: the "
        "arrays nested in them were weighed in positional order while pairing"
    )


def _screen(gold: Sequence[Any], opts: LeafOptions) -> Callable[[Any], Hashable | None] | None:
    """For :func:`align_equal`: a text field every gold element holds (or the elements
    themselves, when all are text), read as it compares, so that a gold element weighs its
    maximum (every leaf exact) only against a model element whose screen is the same. A gold
    text that reads as a number under ``coerce_numeric_strings`` compares by value (float
    noise, tolerances), so it cannot tell; a model value of another type might compare
    exact by its text (``"true"`` against ``True`` where types are not strict), so its
    screen is None. None: no such field."""
    coerce = opts.coerce_numeric_strings

    def text(value: Any) -> Hashable | None:
        """The screen of a leaf: its normalised text; a numeric one (under coerce) never
        equals a gold element's; None for another type."""
        if type(value) is not str:
            return None
        normal = normalize_text(value, opts)
        return _NUMERIC_TEXT if coerce and as_number(normal) is not None else normal

    def plain(value: Any) -> bool:
        found = text(value)
        return found is not None and found is not _NUMERIC_TEXT

    if all(type(g) is str for g in gold):
        return text if all(map(plain, gold)) else None
    if not all(type(g) is dict for g in gold):
        return None
    names = tuple(name for name in gold[0] if all(name in g and plain(g[name]) for g in gold))
    return partial(_screened, names, text) if names else None


_NUMERIC_TEXT: Final = ("\0numeric text",)
_NOT_A_RECORD: Final = ("\0not a record",)
_NO_FIELD: Final = ("\0no field",)


def _screened(
    names: tuple[Any, ...], text: Callable[[Any], Hashable | None], value: Any
) -> Hashable | None:
    """The screen of an element by its fields ``names`` (see :func:`_screen`): their texts.
    An element that is no record, or lacks one of them, cannot weigh a gold record's maximum
    (a leaf of it is missing there)."""
    if not isinstance(value, Mapping):
        return _NOT_A_RECORD
    texts = []
    for name in names:
        if name not in value:
            return _NO_FIELD
        found = text(value[name])
        if found is None:
            return None
        texts.append(found)
    return tuple(texts)


def _pair_leftovers(
    found: Alignment, gold: Sequence[Any], model: Sequence[Any], path: str, policy: WalkPolicy
) -> Alignment:
    """Similarity with ``penalize_extra``: a model element left unpaired adds all its leaves
    to the score's denominator, while a pair that shares no credit adds only the model
    leaves the gold element lacks. So the elements left over (no similarity to share) are
    paired where that saves most, as one more assignment; without it, Hungarian scored below
    positional order. A floor (``min_similarity``) says to leave them, and is obeyed."""
    golds, models = found.unmatched_gold, found.unmatched_model
    if not golds or not models:
        return found
    savings = _savings(gold, model, golds, models, path, policy)
    matched = max_weight_matching(savings)
    extra = [(golds[r], models[c]) for r, c in matched if savings[r][c] > 0]
    if not extra:
        return found
    paired_gold, paired_model = {i for i, _ in extra}, {j for _, j in extra}
    return replace(
        found,
        pairs=tuple(sorted((*found.pairs, *extra))),
        unmatched_gold=tuple(i for i in golds if i not in paired_gold),
        unmatched_model=tuple(j for j in models if j not in paired_model),
    )


def _savings(
    gold: Sequence[Any],
    model: Sequence[Any],
    golds: Sequence[int],
    models: Sequence[int],
    path: str,
    policy: WalkPolicy,
) -> list[list[int]]:
    """Per (gold, model) element pair, the model leaves that pairing them keeps out of
    ``penalize_extra``'s denominator (see :func:`_pair_leftovers`)."""
    pairing = policy.pair_policy
    sizes = [_count_leaves(model[j], policy.max_depth) for j in models]
    return [
        [
            size - sum(r.status == HALLUCINATION for r in walk(gold[i], model[j], pairing, at))
            for j, size in zip(models, sizes, strict=True)
        ]
        for i in golds
        for at in (f"{path}[{i}]",)
    ]


def _with_savings(
    matrix: list[list[float]],
    gold: Sequence[Any],
    model: Sequence[Any],
    path: str,
    policy: WalkPolicy,
) -> list[list[float]]:
    """``sequence`` under ``penalize_extra``: the weights with each pair's savings added
    below any difference of similarity, so the one order-keeping pass pairs by similarity
    first and then, among equal ones, keeps the most extra leaves out (pairing leftovers
    afterwards could cross the pairs and break the order)."""
    savings = _savings(gold, model, range(len(gold)), range(len(model)), path, policy)
    top = max((max(row) for row in savings), default=0)
    if top <= 0:
        return matrix
    tie = _SAVINGS_TIE / top
    return [
        [
            w * (1.0 - _SAVINGS_TIE) + (s * tie if s > 0 else 0.0)
            for w, s in zip(wrow, srow, strict=True)
        ]
        for wrow, srow in zip(matrix, savings, strict=True)
    ]


_SAVINGS_TIE: Final = 1e-9  # far below any similarity that tells two pairings apart


def _key_normaliser(opts: LeafOptions) -> Callable[[Any], Hashable]:
    """Equality key for alignment: strings as compare.py normalises them (a numeric string
    as its number under ``coerce_numeric_strings``, so a quoted id ``"1"`` pairs with 1),
    a bool, where types are not strict, by the text it compares by (``True`` pairs with
    ``"true"``, as the leaves are exact); else structural (numbers by value: ``10**16`` pairs
    with ``1e16``).

    Sound by construction: equal keys mean leaves that compare exact.
    """
    coerce = opts.coerce_numeric_strings
    loose = not opts.strict_types

    def key_of(value: Any) -> Hashable:
        kind = type(value)
        if kind is str:
            text = normalize_text(value, opts)
            number = as_number(text) if coerce else None
            return ("\0str", text) if number is None else canonical_key(number)
        if loose and kind is bool:
            return ("\0str", text_form(value, opts))
        return canonical_key(value)

    return key_of


def _deep_key_normaliser(opts: LeafOptions) -> Callable[[Any], Hashable]:
    """:func:`_key_normaliser` applied to every leaf of an element, for pairing equal
    elements without weighing them (a record whose strings differ only in case is equal
    under ``case_sensitive=False``). The element's own options stand for its leaves'."""
    leaf_key = _key_normaliser(opts)
    return lambda value: canonical_key(value, leaf_key)


def _contained_key(path: str, policy: WalkPolicy) -> Callable[[Any], Hashable]:
    """Equality key of an element of a ``contained`` array: each leaf normalised by its own
    path's options, ignored parts left out (paths named under the element's first index, as
    options name elements with ``[*]``). Such pairing has no weighing to fall back on, so a
    record must be equal as its leaves compare, whatever options other paths have."""
    resolver = policy.resolver
    base = f"{path}[0]"
    if not resolver.overrides_any and not resolver.ignores_any:
        return _deep_key_normaliser(resolver.options_for(base))
    leaf_keys: dict[str, Callable[[Any], Hashable]] = {}
    max_depth = policy.max_depth

    def key_of(value: Any) -> Hashable:
        leaves: list[tuple[str, Hashable]] = []
        stack: list[tuple[Any, str, int]] = [(value, base, 0)]
        while stack:
            node, at, depth = stack.pop()
            if depth and resolver.ignores_any and resolver.ignored(at):
                continue  # (the element itself: see can_miss)
            if depth > max_depth:
                raise too_deep(max_depth, at)
            if isinstance(node, Mapping) and node:
                children = [(item, _child_path(at, key), depth + 1) for key, item in node.items()]
                if not (resolver.ignores_any and all(resolver.ignored(c[1]) for c in children)):
                    stack.extend(children)
                    continue
                node = {}  # its keys all ignored: it equals {} (Walker.emptied), as a leaf
            if isinstance(node, (list, tuple)) and node:
                stack.extend((item, f"{at}[{i}]", depth + 1) for i, item in enumerate(node))
            else:
                leaf = leaf_keys.get(at)
                if leaf is None:
                    leaf = leaf_keys[at] = _key_normaliser(resolver.options_for(at))
                leaves.append((at, leaf(node)))
        leaves.sort(key=lambda pair: pair[0])  # (an object's keys in any order)
        return tuple(leaves)

    return key_of


class _Weigher:
    """Pair weights for Hungarian/unordered alignment of one array.

    The weight of a pair is its contribution to the final score: the sum of leaf scores
    over the gold leaves (similarity), or — with ``exact_first`` — the exact-leaf count
    plus that sum divided by one more than the gold leaves of the whole array, so total
    exact leaves decide first (strict F1) and partial credit breaks ties. Where extra model
    leaves are not counted (strict's ``ignore_extra``), every leaf a pair compares counts
    in precision's denominator, so the tie-break is fewer mismatched leaves instead, and a
    pair with no exact leaf is better left unpaired. Pairing by contribution (not by a
    per-pair mean) is what makes Hungarian never score below positional order where the
    score is a sum over pairs; see :func:`_pair_leftovers` for similarity's
    ``penalize_extra``. ``min_similarity`` applies to the pair's mean leaf score over the
    union of both elements' leaves.
    """

    def __init__(
        self,
        gold: Sequence[Any],
        model: Sequence[Any],
        path: str,
        floor: float,
        policy: WalkPolicy,
    ) -> None:
        self.gold = gold
        self.model = model
        self.path = path
        self.floor = floor
        self.policy = policy
        self.positional_nested = False  # nested arrays weighed in positional order: too many

    @cached_property
    def _sizes(self) -> list[int]:
        return [_count_leaves(g, self.policy.max_depth) for g in self.gold]

    @cached_property
    def spread(self) -> float:
        """One more than all gold leaves of the array: partial credit divided by it stays
        under one exact leaf (0 without ``exact_first``)."""
        return float(sum(self._sizes) + 1) if self.policy.exact_first else 0.0

    @cached_property
    def scale(self) -> float:
        """An upper bound of any weight: the largest gold element's leaf count (+1 with
        ``exact_first``); weights divided by it lie in [0, 1]."""
        return float(max(self._sizes, default=1)) + (1.0 if self.policy.exact_first else 0.0)

    @cached_property
    def _fewer_mismatches(self) -> bool:
        """Strict's ``ignore_extra``: ties go to the pair with fewer mismatched leaves."""
        return self.policy.exact_first and bool(self.policy.uncounted_extra)

    def _weight(self, exact: float, partial: float, mismatched: float) -> float:
        """The pair's contribution to the final score (see the class docstring)."""
        if not self.spread:
            return partial
        if self._fewer_mismatches:
            return exact - mismatched / self.spread
        return exact + partial / self.spread

    def ranks(self, scores: list[float]) -> list[float]:
        """:meth:`_weight` of single compared leaves with these scores."""
        if not self.spread:
            return scores
        spread = self.spread
        if self._fewer_mismatches:
            return [1.0 if s == 1.0 else -1.0 / spread for s in scores]
        return [(s == 1.0) + s / spread for s in scores]

    def _pair(self, g: Any, m: Any, path: str) -> tuple[float, float]:
        """(weight, mean leaf score over the union of leaves) of one candidate pair."""
        resolver = self.policy.resolver
        if type(g) in _SCALARS and type(m) in _SCALARS and not resolver.ignored(path):
            score = leaf_score(g, m, resolver.options_for(path))  # two scalars: no walk
            return self.ranks([score])[0], score
        exact = partial = mismatched = 0.0
        union = 0
        for result in walk(g, m, self._pair_policy_for(g, m), path):
            status = result.status
            if status == SKIPPED:
                continue
            union += 1
            if status == MATCH:
                exact += 1.0
                partial += 1.0
            elif status == MISMATCH:
                partial += result.score
                mismatched += 1.0
        return self._weight(exact, partial, mismatched), (partial / union if union else 1.0)

    @cached_property
    def _aligning(self) -> bool:
        """Whether candidate pairs may align their nested arrays: little enough work (each
        pair's own walk, as much as a dozen leaf pairs, and all gold leaves times all model
        leaves)."""
        max_depth = self.policy.max_depth
        model_leaves = sum(_count_leaves(m, max_depth) for m in self.model)
        pairs = len(self.gold) * len(self.model)
        return _PAIR_WORK * pairs + sum(self._sizes) * model_leaves <= _ALIGNED_WORK

    def _pair_policy_for(self, g: Any, m: Any) -> WalkPolicy:
        """How a candidate pair is walked: with the arrays nested in it aligned as they will be
        scored, when it holds such arrays and is small enough (so a Hungarian pairing of
        arrays of arrays never falls below positional order for want of it); else with them
        in positional order, at a bounded cost for elements of any size."""
        policy = self.policy
        if policy.pair_policy is policy or policy.weighing:
            return policy.pair_policy
        if not (_holds_array(g) and _holds_array(m)):
            return policy.pair_policy
        if not self._aligning:
            self.positional_nested = True  # (the alignment says so: see _align)
            return policy.pair_policy
        return policy.aligned_pair_policy

    def would_weigh_positionally(self) -> bool:
        """Whether weighing every pair would weigh some in positional order (and say so):
        :meth:`_pair_policy_for` does for any pair of elements that both hold an array."""
        policy = self.policy
        return (
            policy.pair_policy is not policy
            and not policy.weighing
            and any(map(_holds_array, self.gold))
            and any(map(_holds_array, self.model))
            and not self._aligning
        )

    def scaled(self, g: Any, m: Any) -> float:
        """Weight in [0, 1] (0 under the floor), for ``align(similarity=...)``."""
        weight, mean = self._pair(g, m, f"{self.path}[0]")
        return 0.0 if mean < self.floor else weight / self.scale

    def matrix(self) -> list[list[float]]:
        """The full weight matrix, scaled into [0, 1], floored entries 0."""
        weights, means = _flat_matrix(self) or self._walk_matrix()
        scale = self.scale
        if means is None:
            return [[w / scale for w in row] for row in weights]
        floor = self.floor
        return [
            [w / scale if mean >= floor else 0.0 for w, mean in zip(wrow, mrow, strict=True)]
            for wrow, mrow in zip(weights, means, strict=True)
        ]

    def _walk_matrix(self) -> tuple[list[list[float]], list[list[float]] | None]:
        """Any element shapes: one sub-walk per distinct (gold, model) pair."""
        model_keys = [_exact_key(m) for m in self.model]
        weights: list[list[float]] = []
        means: list[list[float]] = []
        for i, g in enumerate(self.gold):
            path = f"{self.path}[{i}]"
            seen: dict[Hashable, tuple[float, float]] = {}
            wrow: list[float] = []
            mrow: list[float] = []
            for m, key in zip(self.model, model_keys, strict=True):
                found = seen.get(key)
                if found is None:
                    found = seen[key] = self._pair(g, m, path)
                wrow.append(found[0])
                mrow.append(found[1])
            weights.append(wrow)
            means.append(mrow)
        return weights, means


def _exact_key(value: Any) -> Hashable:
    """Equal keys for values that compare identically (1 and 1.0, True and 1 kept apart):
    their sorted-key JSON; values without a faithful JSON form only equal themselves."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return ("\0id", id(value))
    return ("\0id", id(value)) if b"null" in data else data


# Up to how much pairing work (a dozen per candidate pair, plus all gold leaves of an array
# times all its model leaves) the arrays nested in candidate pairs are aligned while the pairs
# are weighed: 100 x 100 pairs of 5-element arrays (370,000) take 1 s; past it, 200 x 200 of
# them took 4 s aligned, 540 x 540 one-element arrays 11 s.
_PAIR_WORK: Final = 12
_ALIGNED_WORK: Final = 400_000


def _holds_array(value: Any) -> bool:
    """Whether ``value`` is, or holds at any depth, a non-empty array."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (list, tuple)):
            if node:
                return True
        elif isinstance(node, Mapping):
            stack.extend(node.values())
    return False


def _count_leaves(value: Any, max_depth: int) -> int:
    """Leaves under ``value`` (empty containers count one), iteratively."""
    count = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        shape = _shape(node)
        if shape == _LEAF:
            count += 1
        elif depth >= max_depth:
            raise too_deep(max_depth)
        else:
            children = node.values() if shape == _DICT else node
            stack.extend((child, depth + 1) for child in children)
    return count


# ------------------------------------------------- fast pair matrix for records of leaves

_SELF: Final = object()  # the column of an element that is itself a leaf


def _columns(element: Any) -> dict[Any, Any] | None:
    """``{field: leaf}`` of a record of leaves, ``{_SELF: leaf}`` of a leaf, else None."""
    shape = _shape(element)
    if shape == _LEAF:
        return {_SELF: element}
    if shape == _DICT and all(_shape(v) == _LEAF for v in element.values()):
        return dict(element)
    return None


def _flat_matrix(
    weigher: _Weigher,
) -> tuple[list[list[float]], list[list[float]] | None] | None:
    """Column-wise weights (and mean scores, when a floor needs them) when every element is
    a leaf or a record of leaves; None otherwise.

    Gives what a sub-walk per pair would give, but scores each distinct (gold value, model
    value) pair of a field once: arrays of records cost distinct values squared per field.
    """
    resolver = weigher.policy.resolver
    if resolver.ignores_any and any(
        isinstance(e, Mapping) and not e for e in (*weigher.gold, *weigher.model)
    ):
        return None  # {} may equal a record whose keys are all ignored (Walker.emptied)
    gold_cols = [_columns(g) for g in weigher.gold]
    model_cols = [_columns(m) for m in weigher.model]
    golds = [c for c in gold_cols if c is not None]
    models = [c for c in model_cols if c is not None]
    if len(golds) < len(gold_cols) or len(models) < len(model_cols):
        return None
    every_key: dict[Any, None] = {}
    for cols in (*golds, *models):
        every_key.update(dict.fromkeys(cols))
    # Per gold row: its counted fields with their options, and the fields ignored there.
    counted: list[dict[Any, LeafOptions]] = []
    dropped: list[list[Any]] = []
    for i, cols in enumerate(golds):
        base = f"{weigher.path}[{i}]"
        fields: dict[Any, LeafOptions] = {}
        skip: list[Any] = []
        for key in every_key:
            path = base if key is _SELF else _child_path(base, key)
            if resolver.ignored(path):
                skip.append(key)
            elif key in cols:
                fields[key] = resolver.options_for(path)
        if cols and not fields and isinstance(weigher.gold[i], Mapping):
            return None  # a record whose fields are all ignored equals {}: walked
        counted.append(fields)
        dropped.append(skip)
    n, m = len(golds), len(models)
    means_needed = weigher.floor > 0.0
    weights = [[0.0] * m for _ in range(n)]
    partials = [[0.0] * m for _ in range(n)]
    common = [[0.0] * m for _ in range(n)]
    for key in every_key:
        # slot[j]: index of model j's value among the distinct ones; -1 (a 0.0 appended to
        # every score row) when model j lacks the field.
        slot = [-1] * m
        present = [j for j, cols in enumerate(models) if key in cols]
        if not present:
            continue
        model_ids, model_values = _distinct([models[j][key] for j in present])
        for j, d in zip(present, model_ids, strict=True):
            slot[j] = d
        has = [0.0 if d < 0 else 1.0 for d in slot]
        rows: dict[tuple[Hashable, int], tuple[list[float], list[float]]] = {}
        for i, cols in enumerate(golds):
            opts = counted[i].get(key)
            if opts is None:
                continue
            value = cols[key]
            cell = (_value_key(value), id(opts))
            row = rows.get(cell)
            if row is None:
                scores = leaf_scores(value, model_values, opts)
                ranked = [*weigher.ranks(scores), 0.0]  # the last: a model without the field
                scores.append(0.0)
                row = rows[cell] = ([ranked[d] for d in slot], [scores[d] for d in slot])
            weights[i] = list(map(add, weights[i], row[0]))
            if means_needed:
                partials[i] = list(map(add, partials[i], row[1]))
                common[i] = list(map(add, common[i], has))
    if not means_needed:
        return weights, None
    model_sizes = [len(cols) for cols in models]
    # An empty container only the model has is no field of the walk (never extra).
    empties = [[k for k, v in cols.items() if _empty_container(v)] for cols in models]
    means: list[list[float]] = []
    for i, fields in enumerate(counted):
        skip = dropped[i]
        sizes = [
            size
            - sum(k in models[j] for k in skip)
            - sum(k not in fields and k not in skip for k in empties[j])
            for j, size in enumerate(model_sizes)
        ]
        size, crow = len(fields), common[i]
        means.append(
            [
                p / union if (union := size + sizes[j] - crow[j]) else 1.0
                for j, p in enumerate(partials[i])
            ]
        )
    return weights, means


def _value_key(value: Any) -> Hashable:
    """Dedup key of a leaf: same key means same comparison outcome (1 and 1.0 apart)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return (kind, value)
    if kind is float and value == value:
        return (kind, value)
    return (kind, id(value))


def _distinct(values: list[Any]) -> tuple[list[int], list[Any]]:
    index: dict[Hashable, int] = {}
    ids: list[int] = []
    reps: list[Any] = []
    for value in values:
        key = _value_key(value)
        at = index.get(key)
        if at is None:
            at = index[key] = len(reps)
            reps.append(value)
        ids.append(at)
    return ids, reps
