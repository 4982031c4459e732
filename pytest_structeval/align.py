"""Array alignment: which gold element is compared with which model element.

One engine for every mode, so an array is paired the same way whether it is scored strictly,
by similarity or through a schema. Five methods:

* ``ordered``: by position; the longer side's tail is unmatched.
* ``unordered``: multiset matching; equal elements pair first (first with first), then, when the
  caller gives a similarity, the leftovers are paired by Hungarian so a near miss is reported as
  one mismatch instead of an omission plus a hallucination.
* ``key``: by the value of one field of object elements; duplicates pair in order of appearance
  and are reported in ``notes``, as are elements that cannot be keyed.
* ``hungarian``: the one-to-one assignment of maximum total similarity, exact at every size and
  shape; pairs under ``min_similarity`` (or at 0) are unmatched on both sides.
* ``sequence``: the pairs of maximum total similarity that keep both sides' order (a weighted
  longest common subsequence), for lists whose order means something: a step inserted or
  dropped costs that step, not every position after it, while a reversed list stays wrong.

Indices in an :class:`Alignment` refer to the input sequences; callers turn them into paths.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Final, Literal

import orjson

from pytest_structeval.errors import LimitError, OptionsError, hide_usage_error
from pytest_structeval.parse import SCALAR_TYPES

__all__ = [
    "CONTAINED",
    "HUNGARIAN",
    "KEY",
    "MAX_PAIRING_WORK",
    "METHODS",
    "ORDERED",
    "ORDERED_SPEC",
    "SEQUENCE",
    "SPEC_FIELDS",
    "UNORDERED",
    "AlignSpec",
    "Alignment",
    "Backend",
    "ElementReasons",
    "align",
    "align_contained",
    "align_equal",
    "align_past_bound",
    "canonical_key",
    "element_reasons",
    "extra_reason",
    "max_weight_matching",
    "missing_reason",
    "parse_align",
    "similarity_matrix",
    "unchosen_reason",
    "unpaired_reason",
]

ORDERED: Final = "ordered"
UNORDERED: Final = "unordered"
KEY: Final = "key"
HUNGARIAN: Final = "hungarian"
SEQUENCE: Final = "sequence"
CONTAINED: Final = "contained"
METHODS: Final = (ORDERED, UNORDERED, KEY, HUNGARIAN, SEQUENCE, CONTAINED)
# By similarity: the methods that take ``min_similarity`` and a similarity or matrix.
_SIMILAR: Final = (HUNGARIAN, UNORDERED, SEQUENCE)

Backend = Literal["auto", "python", "scipy"]

# Importing scipy.optimize costs about a second, so "auto" leaves matrices under 200 x 200 to
# the exact Python solver (random ones take ~30 ms there, contrived worst cases ~0.3 s).
_SCIPY_MIN_CELLS: Final = 40_000
# Under this many cells the Python solver runs on the whole matrix without first splitting it
# into independent components (the split costs about as much as the solve at that size).
_SPLIT_MIN_CELLS: Final = 400
# Canonical keys are built iteratively; this only stops cyclic containers from looping forever.
_MAX_KEY_DEPTH: Final = 10_000
# Values that hold nothing, passed by their type alone when counting.
_SCALARS: Final = SCALAR_TYPES
_ONLY_DICTS: Final = frozenset({dict})
# Index lists in notes are cut after this many entries.
_NOTE_INDICES: Final = 20
MAX_PAIRING_WORK: Final = 10_000_000
"""Values visited to weigh every gold element against every model element (the similarity
of a pair walks both): ``m`` times the values in the gold array plus ``n`` times those in
the model's: about ten seconds of weighing at most. Past it, :func:`align_past_bound` pairs
without weighing (5,000 x 5,000 strings took 75 s and 3.4 GB weighed)."""
MAX_PAIRING_TEXT: Final = 2 * 10**11
"""Characters of text in the gold array times those in the model's: what weighing every
pair compares by edit distance, which costs the product of two texts' lengths (about 25
billion character pairs a second). Past it, as past :data:`MAX_PAIRING_WORK` (200 x 200
strings of 10,000 characters took 109 s weighed)."""


@dataclass(frozen=True, slots=True)
class AlignSpec:
    """How to pair the elements of one array; validated on construction. ``count``: how
    many of the gold's elements a ``contained`` answer takes."""

    method: str
    key: str | None = None
    min_similarity: float = 0.0
    count: int | None = None

    def __post_init__(self) -> None:
        __tracebackhide__ = hide_usage_error
        if self.method not in METHODS:
            raise OptionsError(
                f"unknown align method {self.method!r}; expected one of {', '.join(METHODS)}"
            )
        if self.method == KEY:
            if not isinstance(self.key, str) or not self.key.strip():
                raise OptionsError(f"align by key needs a non-empty field name, got {self.key!r}")
        elif self.key is not None:
            raise OptionsError(f"align key {self.key!r} only applies to method 'key'")
        if self.method == CONTAINED:
            count = self.count
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise OptionsError(
                    f"align 'contained' needs count, how many of the gold's elements the answer "
                    f"takes (a whole number >= 1), got {count!r}"
                )
        elif self.count is not None:
            raise OptionsError(f"align count {self.count!r} only applies to method 'contained'")
        sim = self.min_similarity
        if isinstance(sim, bool) or not isinstance(sim, (int, float)) or not 0 <= sim <= 1:
            raise OptionsError(f"align min_similarity must be a number in [0, 1], got {sim!r}")
        object.__setattr__(self, "min_similarity", float(sim))
        if sim and self.method not in _SIMILAR:
            raise OptionsError(
                f"align min_similarity only applies to 'hungarian', 'unordered' and "
                f"'sequence', not {self.method!r}"
            )


ORDERED_SPEC: Final = AlignSpec(ORDERED)
"""Pairing by position: the default of every array."""


@dataclass(frozen=True, slots=True)
class Alignment:
    """Pairs ``(gold_index, model_index)`` sorted by gold index, plus what stayed unpaired."""

    pairs: tuple[tuple[int, int], ...]
    unmatched_gold: tuple[int, ...]
    unmatched_model: tuple[int, ...]
    notes: tuple[str, ...] = ()
    #: by key: the gold and the model elements whose key is repeated on either side (paired,
    #: or left over, in order of appearance), so callers can say so next to each of them
    duplicate_gold: tuple[int, ...] = ()
    duplicate_model: tuple[int, ...] = ()
    #: contained: the gold elements the answer did not take and needed not (not missing)
    unchosen_gold: tuple[int, ...] = ()
    #: contained: why each unpaired model element (by index) is extra
    model_reasons: tuple[tuple[int, str], ...] = ()


_MATCH_BY: Final = {
    "key_field": KEY,
    KEY: KEY,
    HUNGARIAN: HUNGARIAN,
    ORDERED: ORDERED,
    UNORDERED: UNORDERED,
    SEQUENCE: SEQUENCE,
    CONTAINED: CONTAINED,
}
SPEC_FIELDS: Final = frozenset({"method", "match_by", "key", "min_similarity", "ordered", "count"})
"""The settings of one align spec: a mapping of only these is one spec, not per-path specs."""
_SHAPES: Final = (
    "'ordered', 'unordered', 'hungarian', 'sequence', {'key': 'field'}, "
    "{'method': 'hungarian', 'min_similarity': 0.5} or {'method': 'contained', 'count': 3}"
)


def parse_align(value: Any) -> AlignSpec:
    """Read an ``align`` option, including struct_extract_eval's ``x-eval-align`` forms.

    Accepted: a method name, ``{"key": "id"}``, ``{"method": ..., "key": ..., "min_similarity":
    ...}``, ``{"match_by": "key_field" | "hungarian", ...}`` and ``{"ordered": true}``. Conflicting
    or unknown settings raise :class:`OptionsError` instead of one silently winning.
    """
    __tracebackhide__ = hide_usage_error
    if isinstance(value, AlignSpec):
        return value
    if isinstance(value, str):
        if value == KEY:
            raise OptionsError("align 'key' needs the field name, e.g. {'key': 'id'}")
        if value not in METHODS:
            raise OptionsError(f"unknown align method {value!r}; expected {_SHAPES}")
        return AlignSpec(value)
    if not isinstance(value, Mapping):
        raise OptionsError(f"align must be {_SHAPES}; got {type(value).__name__} {value!r}")
    unknown = sorted(str(k) for k in value if k not in SPEC_FIELDS)
    if unknown:
        raise OptionsError(
            f"unknown align setting(s) {', '.join(unknown)} in {dict(value)!r}; "
            f"allowed: {', '.join(sorted(SPEC_FIELDS))}"
        )
    if "method" in value and "match_by" in value:
        raise OptionsError(f"align {dict(value)!r}: give 'method' or 'match_by', not both")
    method: str | None = None
    named = value.get("method", value.get("match_by"))
    if named is not None:
        if not isinstance(named, str) or named not in _MATCH_BY:
            raise OptionsError(
                f"unknown align method {named!r}; expected one of {', '.join(_MATCH_BY)}"
            )
        method = _MATCH_BY[named]
    if "ordered" in value:
        ordered = value["ordered"]
        if not isinstance(ordered, bool):
            raise OptionsError(f"align 'ordered' must be true or false, got {ordered!r}")
        if ordered and method not in (None, ORDERED):
            raise OptionsError(f"align {dict(value)!r}: 'ordered': true contradicts {named!r}")
        if not ordered and method in (None, ORDERED):
            raise OptionsError(
                f"align {dict(value)!r}: 'ordered': false does not say how to pair elements; "
                "add match_by 'key_field' (with key) or 'hungarian', or use 'unordered'"
            )
        method = method or ORDERED
    if "key" in value and method is None:
        method = KEY
    if method is None:
        raise OptionsError(f"align {dict(value)!r} names no method; expected {_SHAPES}")
    return AlignSpec(method, value.get("key"), value.get("min_similarity", 0.0), value.get("count"))


# --------------------------------------------------------------------------- canonical keys


class _Never:
    """A key equal only to itself: NaN and unhashable oddities never pair with anything else."""

    __slots__ = ()


_BOOL: Final = "\0bool"
_LIST: Final = "\0list"
_DICT: Final = "\0dict"
_SET: Final = "\0set"
_CONTAINERS: Final = (Mapping, list, tuple, set, frozenset)
_OTHER: Final = "\0other"


def _atom(value: Any) -> Hashable:
    """Key of a non-container: numbers by value (1 == 1.0), bools apart, NaN unequal to all."""
    if isinstance(value, bool):
        return (_BOOL, value)
    if isinstance(value, float) and value != value:
        return _Never()
    if value is None or isinstance(value, (str, int, float)):
        return value
    try:
        hash(value)
    except TypeError:
        return _Never()
    return (_OTHER, type(value).__qualname__, value)


def _order(value: Any) -> tuple[int, str, Any]:
    """Sort key giving the keys of any dict, or the members of any set, one canonical order."""
    if isinstance(value, str):
        return (0, "", value)
    if isinstance(value, (int, float)):
        return (1, "", value)
    return (2, type(value).__qualname__, repr(value))


def canonical_key(value: Any, leaf: Callable[[Any], Hashable] | None = None) -> Hashable:
    """A hashable key such that equal keys mean equal values under alignment equality.

    JSON semantics: key order in objects does not matter, tuples equal lists (sets compare as
    sets), ``1 == 1.0`` but ``True != 1``, NaN equals nothing (it never earns credit). The key
    of a container is a flat tuple of tokens built iteratively, so neither building nor
    comparing keys recurses. ``leaf`` keys the values that are not containers (dict keys
    aside) instead of the default, e.g. strings as a comparison normalises them.
    """
    __tracebackhide__ = hide_usage_error
    atom = _atom if leaf is None else leaf
    if not isinstance(value, _CONTAINERS):
        return atom(value)
    tokens: list[Hashable] = []
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, _Token):
            tokens.append(node.key)
            continue
        if not isinstance(node, _CONTAINERS):
            tokens.append(atom(node))
            continue
        if depth >= _MAX_KEY_DEPTH:
            raise LimitError(f"value nested deeper than {_MAX_KEY_DEPTH} levels (cyclic?)")
        if isinstance(node, Mapping):
            tokens.append((_DICT, len(node)))
            for k in sorted(node, key=_order, reverse=True):
                stack.append((node[k], depth + 1))
                stack.append((_Token(_atom(k)), depth + 1))
        elif isinstance(node, (set, frozenset)):
            tokens.append((_SET, len(node)))
            stack.extend((child, depth + 1) for child in sorted(node, key=_order, reverse=True))
        else:
            tokens.append((_LIST, len(node)))
            stack.extend((child, depth + 1) for child in reversed(node))
    return tuple(tokens)


class _Token:
    """An already-computed dict-key token waiting on the canonical-key stack."""

    __slots__ = ("key",)

    def __init__(self, key: Hashable) -> None:
        self.key = key


_ORJSON_OPTS: Final = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def _dedup_key(value: Any) -> Hashable:
    """Fast identity key for caching pair scores: sorted-key orjson bytes when safe.

    orjson writes NaN and infinities as ``null``, so output containing ``null`` (and anything
    orjson refuses) takes :func:`canonical_key` instead; equal keys still mean equal values.
    """
    try:
        data = orjson.dumps(value, option=_ORJSON_OPTS)
    except (TypeError, orjson.JSONEncodeError):
        return canonical_key(value)
    return canonical_key(value) if b"null" in data else data


def similarity_matrix(
    gold: Sequence[Any], model: Sequence[Any], pair_score: Callable[[Any, Any], float]
) -> list[list[float]]:
    """``matrix[i][j] = pair_score(gold[i], model[j])``, scoring each distinct pair once.

    Elements are deduplicated by a canonical key, and identical elements score 1.0 without a
    call (``pair_score(x, x)`` must be 1.0, as every built-in scorer makes it). Arrays full of
    repeated or unchanged records therefore cost far fewer than ``n * m`` scorings.
    """
    gold_ids, gold_reps, gold_keys = _distinct(gold)
    model_ids, model_reps, model_keys = _distinct(model)
    model_index = {k: j for j, k in enumerate(model_keys)}
    distinct_rows: list[list[float]] = []
    for g, gk in zip(gold_reps, gold_keys, strict=True):
        same = model_index.get(gk)
        if same is None:
            distinct_rows.append([pair_score(g, m) for m in model_reps])
        else:
            row = [pair_score(g, m) for m in model_reps[:same]]
            row.append(1.0)
            row.extend(pair_score(g, m) for m in model_reps[same + 1 :])
            distinct_rows.append(row)
    return [[row[j] for j in model_ids] for row in (distinct_rows[i] for i in gold_ids)]


def _distinct(items: Sequence[Any]) -> tuple[list[int], list[Any], list[Hashable]]:
    """Map each item to the index of its first equal item: (ids, representatives, keys)."""
    index: dict[Hashable, int] = {}
    ids: list[int] = []
    reps: list[Any] = []
    for item in items:
        key = _dedup_key(item)
        at = index.get(key)
        if at is None:
            at = index[key] = len(reps)
            reps.append(item)
        ids.append(at)
    return ids, reps, list(index)


# --------------------------------------------------------------------------------- align


def align(
    gold: Sequence[Any],
    model: Sequence[Any],
    spec: AlignSpec,
    *,
    similarity: Callable[[Any, Any], float] | None = None,
    matrix: Sequence[Sequence[float]] | None = None,
    key_of: Callable[[Any], Any] | None = None,
    backend: Backend = "auto",
) -> Alignment:
    """Pair ``gold`` with ``model`` elements by ``spec``.

    ``similarity`` (0..1; or a precomputed gold x model ``matrix`` of it) drives ``hungarian``,
    ``sequence`` and the leftover phase of ``unordered``; scores are clamped to [0, 1].
    ``key_of`` maps an element (``unordered``) or a key value (``key``) to what must be equal
    for a pair, e.g. a casefold; its results compare by ``==`` (unhashable ones by
    :func:`canonical_key`, the default). ``backend`` picks the assignment solver (see
    :func:`max_weight_matching`).
    """
    n, m = len(gold), len(model)
    if spec.method == ORDERED:
        k = min(n, m)
        return Alignment(tuple((i, i) for i in range(k)), tuple(range(k, n)), tuple(range(k, m)))
    if spec.method == KEY:
        return _align_by_key(gold, model, spec.key or "", key_of or canonical_key)
    if spec.method == CONTAINED:
        return align_contained(gold, model, spec.count or 1, key_of or canonical_key)
    if matrix is not None and (len(matrix) != n or any(len(row) != m for row in matrix)):
        raise ValueError(f"align matrix must be {n} x {m} (gold x model)")
    if spec.method == UNORDERED:
        return _align_unordered(
            gold, model, spec, similarity, matrix, key_of or canonical_key, backend
        )
    if matrix is None and similarity is None:
        raise TypeError(f"{spec.method} alignment needs similarity= or matrix=")
    if spec.method == SEQUENCE:
        return _sequence(gold, model, spec, similarity, matrix)
    return _hungarian(
        gold, model, list(range(n)), list(range(m)), spec, similarity, matrix, backend
    )


def align_past_bound(
    gold: Sequence[Any],
    model: Sequence[Any],
    spec: AlignSpec,
    *,
    key_of: Callable[[Any], Any] | None = None,
    similarity: Callable[[Any, Any], float] | None = None,
) -> Alignment | None:
    """``None`` when pairing ``gold`` with ``model`` by similarity is within
    :data:`MAX_PAIRING_WORK`; past it, the pairs made without weighing every pair, with a
    note saying so. Equal elements (by ``key_of``, default :func:`canonical_key`) pair first:
    for ``sequence`` in order, as a diff of the two arrays pairs them, and each stretch
    between two such pairs in order; for the others as ``unordered`` pairs them, and the rest
    in order. Given ``similarity``, a pair in order that shares nothing or is under the
    ``min_similarity`` floor is left unpaired, as weighing leaves it."""
    n, m = len(gold), len(model)
    if spec.method not in _SIMILAR or not n or not m:
        return None
    if m * _values(gold, MAX_PAIRING_WORK // m) + n * _values(model, MAX_PAIRING_WORK // n) > (
        MAX_PAIRING_WORK
    ):
        past = f"weighing every pair would visit over {MAX_PAIRING_WORK:,} values"
    elif _text(gold) * _text(model) > MAX_PAIRING_TEXT:
        past = f"weighing every pair would compare over {MAX_PAIRING_TEXT:,} characters of text"
    else:
        return None
    keyed = key_of or canonical_key
    stretches: list[tuple[Sequence[int], Sequence[int]]]
    if spec.method == SEQUENCE:
        equal, stretches = _diff(gold, model, keyed)
        how = "equal elements paired in order, the rest in order between them"
    else:
        found = _align_unordered(gold, model, spec, None, None, keyed, "auto")
        equal, stretches = list(found.pairs), [(found.unmatched_gold, found.unmatched_model)]
        how = "equal elements paired first, the rest in order"
    in_order = [pair for golds, models in stretches for pair in zip(golds, models, strict=False)]
    if similarity is not None:  # as weighing leaves them: nothing shared, or under the floor
        floor = spec.min_similarity
        in_order = [
            (i, j) for i, j in in_order if (w := similarity(gold[i], model[j])) > 0.0 and w >= floor
        ]
    pairs = sorted((*equal, *in_order))
    paired_gold, paired_model = {i for i, _ in pairs}, {j for _, j in pairs}
    note = f"{n:,} x {m:,} elements: {past}, so {how} (align by key for such arrays)"
    return Alignment(
        tuple(pairs),
        tuple(i for i in range(n) if i not in paired_gold),
        tuple(j for j in range(m) if j not in paired_model),
        notes=(note,),
    )


def align_equal(
    gold: Sequence[Any],
    model: Sequence[Any],
    spec: AlignSpec,
    key_of: Callable[[Any], Any],
    screen: Callable[[Any], Hashable | None] | None = None,
) -> Alignment | None:
    """The alignment that weighing every pair would find, found without weighing, when equal
    elements settle it alone; ``None`` when they do not (then weigh).

    ``key_of`` must key elements so that equal keys mean a pair whose every leaf compares
    exact, and which therefore weighs the most that its gold element can weigh against any
    model element, and the most any gold element can weigh against its model element (a
    gold element scores only the leaves the model element has). Then:

    * ``sequence``: where each element of the shorter side equals the one at its index on
      the other (a copy, a copy with a tail added or cut), the pairs by index. Each first
      pair is in a best order-keeping pairing and taken where totals tie (a pair over a
      skip), and what follows is the same problem one element shorter, step by step.
    * ``hungarian``, with ``len(gold) <= len(model)``: where every gold element equals the
      model element at its own index, those pairs; or, given ``screen``, where every other
      gold element has an equal model element to pair with (the first one; each taken once).
      Each gold element then weighs its maximum, so the total is the sum of the rows' maxima,
      which no assignment exceeds. Which of several equal partners is taken, and which model
      elements stay extra, is what the solver's ties give: it puts each gold element on its
      own index when that weighs its maximum, else on the first model element that does, and
      takes those when they are distinct. So ``screen`` must show which model elements can
      weigh a gold element's maximum at all: only those whose screen equals the gold
      element's (``None``: a gold element it cannot say this of, or a model element that
      might weigh the maximum of any). The pairing is taken only when each such model
      element equals the gold element, so no other element ties with it.

    ``hungarian`` with more gold elements than model ones, ``unordered`` and the rest: None.
    """
    n, m = len(gold), len(model)
    if not n or not m or spec.method not in (SEQUENCE, HUNGARIAN):
        return None
    gold_keys = [_hashable(key_of(item)) for item in gold]
    model_keys = [_hashable(key_of(item)) for item in model]
    common = min(n, m)
    same = [i for i in range(common) if gold_keys[i] == model_keys[i]]
    if len(same) == common and (spec.method == SEQUENCE or n <= m):
        return Alignment(
            tuple((i, i) for i in range(common)),
            tuple(range(common, n)),
            tuple(range(common, m)),
        )
    if spec.method == SEQUENCE or n > m or screen is None:
        return None
    # Per screen: the first model element with it, and the key all such elements share
    # (a fresh object, equal to no key, when they differ).
    places: dict[Hashable, tuple[int, Hashable]] = {}
    for j, item in enumerate(model):
        seen = screen(item)
        if seen is None:
            return None
        first = places.get(seen)
        if first is None:
            places[seen] = (j, model_keys[j])
        elif first[1] != model_keys[j]:
            places[seen] = (first[0], _Never())
    on_index = frozenset(same)
    chosen: list[int] = []
    for i, item in enumerate(gold):
        if i in on_index:
            chosen.append(i)
            continue
        seen = screen(item)
        place = None if seen is None else places.get(seen)
        if place is None or place[1] != gold_keys[i]:
            return None
        chosen.append(place[0])
    if len(set(chosen)) != n:  # two gold elements on one model element: the solver decides
        return None
    taken = set(chosen)
    return Alignment(tuple(enumerate(chosen)), (), tuple(j for j in range(m) if j not in taken))


_LOOK_AHEAD: Final = 32  # elements :func:`_diff` looks past a difference for equal ones
_RUN: Final = 8  # equal pairs in a row that settle where a difference ends


def _diff(
    gold: Sequence[Any], model: Sequence[Any], key_of: Callable[[Any], Any]
) -> tuple[list[tuple[int, int]], list[tuple[Sequence[int], Sequence[int]]]]:
    """The equal elements a diff pairs in order, and the stretches of gold and model indices
    between them, in about linear time. At a difference it looks up to ``_LOOK_AHEAD``
    elements ahead on either side (model elements inserted, gold elements dropped) and at a
    changed element, and goes on where the longest run of equal pairs follows (up to
    ``_RUN``; the nearest on a tie). Short of a full run, the next copy of either element
    further on is tried too, and taken with a full run (a longer block inserted or
    dropped); with none, the element counts as changed."""
    gold_keys = [_hashable(key_of(item)) for item in gold]
    model_keys = [_hashable(key_of(item)) for item in model]
    n, m = len(gold_keys), len(model_keys)
    in_gold: dict[Hashable, list[int]] = {}
    in_model: dict[Hashable, list[int]] = {}
    for places, keys in ((in_gold, gold_keys), (in_model, model_keys)):
        for index, key in enumerate(keys):
            places.setdefault(key, []).append(index)

    def run(i: int, j: int) -> int:
        length = 0
        while length < _RUN and i < n and j < m and gold_keys[i] == model_keys[j]:
            i, j, length = i + 1, j + 1, length + 1
        return length

    equal: list[tuple[int, int]] = []
    stretches: list[tuple[Sequence[int], Sequence[int]]] = []
    i = j = start_i = start_j = 0
    while i < n and j < m:
        if gold_keys[i] == model_keys[j]:
            if start_i < i or start_j < j:
                stretches.append((range(start_i, i), range(start_j, j)))
            equal.append((i, j))
            i, j = i + 1, j + 1
            start_i, start_j = i, j
            continue
        best, to = run(i + 1, j + 1), (i + 1, j + 1)  # a changed element
        for step in range(1, _LOOK_AHEAD + 1):
            if best == _RUN:
                break
            for ahead in ((i, j + step), (i + step, j)):  # inserted, dropped
                length = run(*ahead)
                if length > best:
                    best, to = length, ahead
        if best < _RUN:  # a longer block inserted or dropped: the next copy further on
            model_at = in_model.get(gold_keys[i], [])
            gold_at = in_gold.get(model_keys[j], [])
            far_j = bisect_right(model_at, j + _LOOK_AHEAD)
            far_i = bisect_right(gold_at, i + _LOOK_AHEAD)
            for far in (
                (i, model_at[far_j]) if far_j < len(model_at) else None,
                (gold_at[far_i], j) if far_i < len(gold_at) else None,
            ):
                if far is not None and run(*far) == min(_RUN, n - far[0], m - far[1]):
                    to = far
                    break
        i, j = to
    stretches.append((range(start_i, n), range(start_j, m)))
    return equal, stretches


def _values(items: Sequence[Any], cap: int) -> int:
    """The values in ``items`` and all they hold, counted up to just past ``cap`` (so a
    cyclic container stops too). Arrays of builtin scalars or of flat dicts of them (most
    arrays) are counted by type checks in C, and a container elsewhere is looked into only
    when it holds more than such scalars: walking each value through Python-level checks
    cost a fifth of schema mode's time on records with one small array."""
    kinds = set(map(type, items))
    if kinds <= _SCALARS:
        return len(items)
    if kinds == _ONLY_DICTS and _SCALARS.issuperset(
        map(type, chain.from_iterable(map(dict.values, items)))
    ):
        return len(items) + sum(map(len, items))
    count = 0
    stack: list[Any] = [items]
    while stack and count <= cap:
        node = stack.pop()
        kind = type(node)
        if kind in _SCALARS:
            continue
        if kind is dict:
            held: Any = node.values()
        elif kind is list or kind is tuple:
            held = node
        elif isinstance(node, Mapping):
            held = node.values()
        elif isinstance(node, (list, tuple)) or node is items:
            held = node
        else:
            continue
        count += len(held)
        if not _SCALARS.issuperset(map(type, held)):
            stack.extend(held)
    return count


def _text(items: Sequence[Any]) -> int:
    """The characters of the strings in ``items`` and all they hold (keys too), walking at
    most :data:`MAX_PAIRING_WORK` containers (``_values`` has bounded what lies within)."""
    chars = 0
    stack: list[Any] = [items]
    budget = MAX_PAIRING_WORK
    while stack and budget:
        node = stack.pop()
        budget -= 1
        if isinstance(node, str):
            chars += len(node)
        elif isinstance(node, Mapping):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return chars


def _align_unordered(
    gold: Sequence[Any],
    model: Sequence[Any],
    spec: AlignSpec,
    similarity: Callable[[Any, Any], float] | None,
    matrix: Sequence[Sequence[float]] | None,
    key_of: Callable[[Any], Any],
    backend: Backend,
) -> Alignment:
    """Equal elements first (first with first), then leftovers by similarity when given."""
    waiting: dict[Hashable, deque[int]] = {}
    for j, item in enumerate(model):
        waiting.setdefault(_hashable(key_of(item)), deque()).append(j)
    pairs: list[tuple[int, int]] = []
    rest_gold: list[int] = []
    for i, item in enumerate(gold):
        queue = waiting.get(_hashable(key_of(item)))
        if queue:
            pairs.append((i, queue.popleft()))
        else:
            rest_gold.append(i)
    taken = {j for _, j in pairs}
    rest_model = [j for j in range(len(model)) if j not in taken]
    if rest_gold and rest_model and (similarity is not None or matrix is not None):
        extra = _hungarian(gold, model, rest_gold, rest_model, spec, similarity, matrix, backend)
        pairs.extend(extra.pairs)
        rest_gold, rest_model = list(extra.unmatched_gold), list(extra.unmatched_model)
    pairs.sort()
    return Alignment(tuple(pairs), tuple(rest_gold), tuple(rest_model))


def align_contained(
    gold: Sequence[Any],
    model: Sequence[Any],
    count: int,
    key_of: Callable[[Any], Any],
    can_miss: Callable[[int], bool] | None = None,
) -> Alignment:
    """The answer takes ``count`` distinct elements out of the gold's: each model element
    pairs with the first equal gold element, in model order, unless it repeats an earlier one
    or ``count`` are paired already. Of the distinct gold elements left, as many as the
    answer lacks are missing; the others, and the gold's repeats, were not chosen and need no
    partner. Elements ``can_miss`` refuses (ignored ones: their omission would count nothing)
    are out of the pool: never lacking, and paired only where the pool holds no other copy."""
    eligible = (
        range(len(gold)) if can_miss is None else [i for i in range(len(gold)) if can_miss(i)]
    )
    first: dict[Hashable, int] = {}
    for i in eligible:
        first.setdefault(_hashable(key_of(gold[i])), i)
    distinct = set(first.values())
    for i, item in enumerate(gold):  # an ignored element pairs only where no copy stands in
        first.setdefault(_hashable(key_of(item)), i)
    pairs: list[tuple[int, int]] = []
    taken: set[Hashable] = set()
    extra: list[int] = []
    reasons: list[tuple[int, str]] = []
    listed: set[Hashable] = set()
    for j, item in enumerate(model):
        key = _hashable(key_of(item))
        listed.add(key)
        partner = first.get(key)
        if partner is None:
            why = "not one of the gold's elements"
        elif key in taken:
            why = "listed again"
        elif len(pairs) == count:
            why = f"past the {count} elements asked for"
        else:
            taken.add(key)
            pairs.append((partner, j))
            continue
        extra.append(j)
        reasons.append((j, why))
    paired = {i for i, _ in pairs}
    left = [i for i in sorted(distinct) if i not in paired]
    short = min(count - len(pairs), len(left))
    lacking = set(left[:short])
    notes = []
    if len(listed) != count:
        noun = "element" if len(listed) == 1 else "elements"
        asked = "is" if count == 1 else "are"
        notes.append(f"the answer lists {len(listed)} distinct {noun}; {count} {asked} asked for")
    if len(distinct) < count:
        noun = "element" if len(distinct) == 1 else "elements"
        held = "" if len(distinct) == len(first) else " not ignored"
        notes.append(
            f"the gold holds {len(distinct)} distinct {noun}{held}, fewer than count {count}"
        )
    return Alignment(
        tuple(sorted(pairs)),
        tuple(sorted(lacking)),
        tuple(extra),
        notes=tuple(notes),
        unchosen_gold=tuple(i for i in range(len(gold)) if i not in paired and i not in lacking),
        model_reasons=tuple(reasons),
    )


def unchosen_reason(spec: AlignSpec) -> str:
    """Why a gold element a ``contained`` answer did not take is no omission."""
    return f"not chosen ({spec.count} of the gold's elements asked for)"


def missing_reason(model_size: int) -> str:
    """Why a gold element past the model's last, in positional order, is missing."""
    return f"missing element: the model array has {model_size}"


def extra_reason(index: int) -> str:
    """Why a model element no gold element took is extra, naming it by its model index."""
    return f"extra element (model index {index})"


@dataclass(frozen=True)
class ElementReasons:
    """What an alignment says of the elements: every mode puts these on the fields of each
    element (``gold``: why a gold element is unpaired, or the repeated key a paired one was
    paired by; ``model``: why an unpaired model element is extra) and ``notes`` on the
    result once (the alignment's own, and which keys failed to pair any element)."""

    gold: Mapping[int, str]
    model: Mapping[int, str]
    notes: tuple[str, ...]


def element_reasons(
    gold: Sequence[Any], model: Sequence[Any], spec: AlignSpec, found: Alignment
) -> ElementReasons:
    """The :class:`ElementReasons` of ``found``, the alignment of ``gold`` with ``model``."""
    if spec.method == ORDERED:
        return ElementReasons(
            dict.fromkeys(found.unmatched_gold, missing_reason(len(model))),
            {j: extra_reason(j) for j in found.unmatched_model},
            found.notes,
        )
    partner = dict(found.pairs)
    dup_gold: Mapping[int, str] = {}
    dup_model: Mapping[int, str] = {}
    if found.notes:  # (a field's reason says what concerns its element only)
        dup_gold, dup_model = _duplicate_notes(gold, model, found, partner, spec.key or "")
    notes = found.notes
    if spec.key is not None and not found.pairs:
        no_pair = _no_pair_note(gold, model, spec.key)
        notes = notes if no_pair is None else (*notes, no_pair)
    unchosen = frozenset(found.unchosen_gold)
    gold_reasons = {
        i: _joined(unpaired_reason(spec, gold[i], "model"), dup_gold.get(i))
        for i in found.unmatched_gold
        if i not in unchosen
    }
    gold_reasons.update((i, dup_gold[i]) for i in partner if i in dup_gold)
    if found.model_reasons:
        dup_model = dict(found.model_reasons)
    model_reasons = {}
    for j in found.unmatched_model:
        why = extra_reason(j)
        if spec.method == CONTAINED:
            why = f"{why}: {dup_model[j]}"
        elif spec.method == KEY:
            why = _joined(f"{why}; {unpaired_reason(spec, model[j], 'gold')}", dup_model.get(j))
        model_reasons[j] = why
    return ElementReasons(gold_reasons, model_reasons, notes)


def _joined(reason: str, note: str | None) -> str:
    return reason if note is None else f"{reason}; {note}"


def unpaired_reason(spec: AlignSpec, element: Any, other: str) -> str:
    """Why an element found no partner among the ``other`` side's elements."""
    if spec.method == KEY:
        key = spec.key
        if not isinstance(element, Mapping):
            return f"element is not an object; it cannot be paired by key {key!r}"
        if key in element:
            return f"no unpaired {other} element with {key} = {_short(element[key])}"
        return f"element has no key field {key!r}"
    if spec.method == CONTAINED:
        return f"the answer takes fewer than the {spec.count} of the gold's elements asked for"
    if spec.method == HUNGARIAN or spec.method == SEQUENCE:
        how = " in order" if spec.method == SEQUENCE else ""
        if spec.min_similarity:
            return f"no {other} element paired{how} (similarity floor {spec.min_similarity:g})"
        return f"no {other} element paired{how}"
    return f"no equal or similar {other} element"


_SAMPLE: Final = 3  # key values a no-pairing note shows per side


def _no_pair_note(gold: Sequence[Any], model: Sequence[Any], key: str) -> str | None:
    """The note for key alignment that paired no element although both sides have keyed
    elements, with the first key values of each side: a whole array of omissions plus
    hallucinations is then almost always keys spelled or typed differently (``1`` against
    ``"A-1"``), which the values show. None when a side has no keyed element (the
    alignment's own notes say so)."""
    samples = []
    for side in (gold, model):
        values = [e[key] for e in side if isinstance(e, Mapping) and key in e]
        if not values:
            return None
        shown = ", ".join(_short(v) for v in values[:_SAMPLE])
        samples.append(shown + (", ..." if len(values) > _SAMPLE else ""))
    return f"no element paired by key {key!r} (gold values {samples[0]}; model values {samples[1]})"


def _duplicate_notes(
    gold: Sequence[Any],
    model: Sequence[Any],
    found: Alignment,
    partner: Mapping[int, int],
    field: str,
) -> tuple[dict[int, str], dict[int, str]]:
    """Notes for the gold and the model elements (by index) whose key the alignment found
    repeated on either side: they were paired, or left over, by order of appearance.

    One short note per element, so a long array of duplicates never repeats every alignment
    note in every reason (the full notes go to the result once).
    """
    gold_notes = {
        i: _duplicate_note(gold[i][field], field, partner.get(i)) for i in found.duplicate_gold
    }
    unpaired = set(found.unmatched_model)
    model_notes = {
        j: _duplicate_note(model[j][field], field, None)
        for j in found.duplicate_model
        if j in unpaired
    }
    return gold_notes, model_notes


def _duplicate_note(value: Any, field: str, partner: int | None) -> str:
    outcome = (
        "left over after pairing in order of appearance"
        if partner is None
        else f"paired in order of appearance (model index {partner})"
    )
    return f"duplicate key {_short(value)} for field {field!r}: {outcome}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _hashable(key: Any) -> Hashable:
    """A caller's ``key_of`` result, made hashable through :func:`canonical_key` if needed."""
    try:
        hash(key)
    except TypeError:
        return canonical_key(key)
    return key  # type: ignore[no-any-return]


def _hungarian(
    gold: Sequence[Any],
    model: Sequence[Any],
    rows: list[int],
    cols: list[int],
    spec: AlignSpec,
    similarity: Callable[[Any, Any], float] | None,
    matrix: Sequence[Sequence[float]] | None,
    backend: Backend,
) -> Alignment:
    """Maximum-similarity pairing of ``gold[rows]`` with ``model[cols]``.

    Scores are clamped to [0, 1] (NaN counts 0) and those under the floor are zeroed *before*
    solving, so the optimum is taken over admissible pairs only; zero pairs are then unmatched.
    """
    if not rows or not cols:
        return Alignment((), tuple(rows), tuple(cols))
    if matrix is not None:
        if len(rows) == len(gold) and len(cols) == len(model):
            raw: Sequence[Sequence[float]] = matrix  # every index: no sub-matrix to cut out
        else:
            raw = [[matrix[i][j] for j in cols] for i in rows]
    else:
        assert similarity is not None
        raw = similarity_matrix([gold[i] for i in rows], [model[j] for j in cols], similarity)
    weights = _admissible(raw, spec.min_similarity)
    pairs: list[tuple[int, int]] = []
    free_rows = list(rows)
    free_cols = list(cols)
    for r, c in _assign(weights, backend):
        if weights[r][c] > 0.0:
            pairs.append((rows[r], cols[c]))
            free_rows[r] = free_cols[c] = -1
    return Alignment(
        tuple(pairs),
        tuple(i for i in free_rows if i >= 0),
        tuple(j for j in free_cols if j >= 0),
    )


def _sequence(
    gold: Sequence[Any],
    model: Sequence[Any],
    spec: AlignSpec,
    similarity: Callable[[Any, Any], float] | None,
    matrix: Sequence[Sequence[float]] | None,
) -> Alignment:
    """The order-keeping pairs of maximum total similarity (a weighted longest common
    subsequence, by dynamic programming: n x m steps, one byte of memory each). Admissible
    pairs only, as for :func:`_hungarian`; where totals tie, a pair is taken over a skip, and
    the earlier pair over a later one (``["a", "b", "a"]`` against ``["a"]`` pairs the first).
    """
    n, m = len(gold), len(model)
    if not n or not m:
        return Alignment((), tuple(range(n)), tuple(range(m)))
    if matrix is None:
        assert similarity is not None
        matrix = similarity_matrix(gold, model, similarity)
    weights = _admissible(matrix, spec.min_similarity)
    # best[j]: the best total of gold[i:] with model[j:], row by row from the last gold
    # element up; moves[i][j] says how that total starts.
    below = [0.0] * (m + 1)
    moves: list[bytearray] = [bytearray()] * n
    for i in range(n - 1, -1, -1):
        row = weights[i]
        best = [0.0] * (m + 1)
        move = bytearray(m + 1)
        for j in range(m - 1, -1, -1):
            skip_gold, skip_model = below[j], best[j + 1]
            if skip_model >= skip_gold:  # (keeps the gold element for a later model one)
                total, how = skip_model, _SKIP_MODEL
            else:
                total, how = skip_gold, _SKIP_GOLD
            weight = row[j]
            if weight > 0.0 and below[j + 1] + weight >= total:
                total, how = below[j + 1] + weight, _PAIR
            best[j] = total
            move[j] = how
        moves[i] = move
        below = best
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        how = moves[i][j]
        if how == _PAIR:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif how == _SKIP_GOLD:
            i += 1
        else:
            j += 1
    paired_gold = {i for i, _ in pairs}
    paired_model = {j for _, j in pairs}
    return Alignment(
        tuple(pairs),
        tuple(i for i in range(n) if i not in paired_gold),
        tuple(j for j in range(m) if j not in paired_model),
    )


_PAIR, _SKIP_GOLD, _SKIP_MODEL = 0, 1, 2


def _admissible(raw: Sequence[Sequence[float]], floor: float) -> list[list[float]]:
    """Scores clamped to [0, 1]; NaN, zero and sub-floor scores become 0 (never paired)."""
    values = set(chain.from_iterable(raw))  # (similarity matrices hold few distinct values)
    low, high, whole = min(values), max(values), sum(values)
    if whole == whole and low >= 0.0 and low >= floor and high <= 1.0:
        # The common case, checked at C speed: every score is already admissible or 0. The
        # rows are only read from here on, so lists are used as they are.
        return [row if type(row) is list else list(row) for row in raw]
    return [
        [(1.0 if x > 1.0 else float(x)) if x > 0.0 and x >= floor else 0.0 for x in row]
        for row in raw
    ]


def _align_by_key(
    gold: Sequence[Any], model: Sequence[Any], field: str, key_of: Callable[[Any], Any]
) -> Alignment:
    """Pair by ``key_of(element[field])``; the n-th duplicate in gold takes the n-th in model."""
    notes: list[str] = []
    gold_groups = _key_groups(gold, field, key_of, "gold", notes)
    model_groups = _key_groups(model, field, key_of, "model", notes)
    pairs: list[tuple[int, int]] = []
    duplicate_gold: list[int] = []
    duplicate_model: list[int] = []
    for key, gold_at in gold_groups.items():
        model_at = model_groups.get(key, [])
        pairs.extend(zip(gold_at, model_at, strict=False))
        if len(gold_at) > 1 or len(model_at) > 1:
            duplicate_gold.extend(gold_at)
            duplicate_model.extend(model_at)
            notes.append(
                f"duplicate key {_show(gold[gold_at[0]][field])} for field {field!r} "
                f"(gold at {shown_indices(gold_at)}, model at {shown_indices(model_at)}): "
                "paired in order of appearance"
            )
    for key, model_at in model_groups.items():
        if key not in gold_groups and len(model_at) > 1:
            duplicate_model.extend(model_at)
            notes.append(
                f"duplicate key {_show(model[model_at[0]][field])} for field {field!r} "
                f"(gold at [], model at {shown_indices(model_at)}): paired in order of appearance"
            )
    pairs.sort()
    gold_done = {i for i, _ in pairs}
    model_done = {j for _, j in pairs}
    return Alignment(
        tuple(pairs),
        tuple(i for i in range(len(gold)) if i not in gold_done),
        tuple(j for j in range(len(model)) if j not in model_done),
        tuple(notes),
        tuple(sorted(duplicate_gold)),
        tuple(sorted(duplicate_model)),
    )


def _key_groups(
    items: Sequence[Any], field: str, key_of: Callable[[Any], Any], side: str, notes: list[str]
) -> dict[Hashable, list[int]]:
    """Indices per key in order of appearance; unkeyable elements go into one note per cause."""
    groups: dict[Hashable, list[int]] = {}
    not_objects: list[int] = []
    keyless: list[int] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            not_objects.append(i)
        elif field not in item:
            keyless.append(i)
        else:
            groups.setdefault(_hashable(key_of(item[field])), []).append(i)
    if not_objects:
        notes.append(
            f"{side} elements at {shown_indices(not_objects)} are not objects; "
            f"they cannot be paired by key {field!r}"
        )
    if keyless:
        notes.append(
            f"{side} elements at {shown_indices(keyless)} have no key field {field!r}; "
            "they cannot be paired"
        )
    return groups


def shown_indices(at: Sequence[int]) -> str:
    """``[0, 3, 5]``, cut after a few entries so notes stay readable."""
    shown = ", ".join(str(i) for i in at[:_NOTE_INDICES])
    more = f", ... ({len(at) - _NOTE_INDICES} more)" if len(at) > _NOTE_INDICES else ""
    return f"[{shown}{more}]"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------ assignment solver


def max_weight_matching(
    weights: Sequence[Sequence[float]], *, backend: Backend = "auto"
) -> list[tuple[int, int]]:
    """Exact maximum-weight assignment of a rectangular matrix of finite numbers.

    Returns ``min(rows, cols)`` pairs ``(row, col)`` sorted by row whose total weight is maximal
    (scipy's ``linear_sum_assignment(maximize=True)`` semantics). ``backend="scipy"`` uses scipy
    (``pytest-structeval[fast]``), ``"python"`` the built-in exact solver, ``"auto"`` scipy for
    large matrices when importable. Among optimal assignments, identity pairs ``(i, i)`` are
    preferred, so equal elements keep their positions.
    """
    rows: list[list[float]] = []
    width = -1
    for r, row in enumerate(weights):
        try:
            values = [float(x) for x in row]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"weights row {r} holds a non-number: {exc}") from None
        if width >= 0 and len(values) != width:
            raise ValueError(f"weights must be rectangular: row {r} has {len(values)} entries")
        if not all(map(math.isfinite, values)):
            raise ValueError(f"weights row {r} holds NaN or an infinity")
        width = len(values)
        rows.append(values)
    return _assign(rows, backend)


def _assign(rows: list[list[float]], backend: Backend) -> list[tuple[int, int]]:
    """Dispatch to a solver, then prefer identity pairs among equal-weight alternatives."""
    __tracebackhide__ = hide_usage_error
    n = len(rows)
    m = len(rows[0]) if n else 0
    if n == 0 or m == 0:
        return []
    if backend not in ("auto", "python", "scipy"):
        raise OptionsError(f"unknown backend {backend!r}; expected 'auto', 'python' or 'scipy'")
    if backend == "scipy":
        solver = _scipy_solver()
        if solver is None:
            raise OptionsError("backend 'scipy' needs scipy: pip install 'pytest-structeval[fast]'")
        pairs = solver(rows)
    else:
        bests = [_best_column(row, i) for i, row in enumerate(rows)]
        greedy = _greedy(bests, m)
        if greedy is not None:
            pairs = greedy
        else:
            solver = _scipy_solver() if backend == "auto" and n * m >= _SCIPY_MIN_CELLS else None
            pairs = solver(rows) if solver is not None else _python_assign(rows, bests)
    return _prefer_identity(rows, pairs)


@functools.cache
def _scipy_solver() -> Callable[[list[list[float]]], list[tuple[int, int]]] | None:
    """scipy's LAPJV-based solver, imported once, or None when the extra is not installed."""
    try:
        import numpy
        from scipy.optimize import linear_sum_assignment
    except ImportError:
        return None

    def solve(rows: list[list[float]]) -> list[tuple[int, int]]:
        found = linear_sum_assignment(numpy.asarray(rows, dtype=float), maximize=True)
        return list(zip(found[0].tolist(), found[1].tolist(), strict=True))

    return solve


def _best_column(row: list[float], i: int) -> tuple[float, int]:
    """Row ``i``'s maximum and its column, preferring the diagonal, then the lowest index."""
    best = max(row)
    return best, (i if i < len(row) and row[i] == best else row.index(best))


def _greedy(bests: list[tuple[float, int]], m: int) -> list[tuple[int, int]] | None:
    """Each row on its best column (``bests``), if those are all distinct (and rows <= ``m``).

    Every row must be assigned, so the sum of row maxima bounds any assignment; reaching it
    is optimal. This settles near-permutations (unchanged records) in one pass at C speed.
    """
    if len(bests) > m:
        return None
    pairs = [(i, j) for i, (_, j) in enumerate(bests)]
    return pairs if len({j for _, j in pairs}) == len(pairs) else None


def _python_assign(
    rows: list[list[float]], bests: list[tuple[float, int]]
) -> list[tuple[int, int]]:
    """Exact pure-Python assignment: split into independent parts, then solve each.

    With no negative weight, rows and columns only linked through zeros never need each other,
    so each connected component of positive entries is solved alone; leftovers pair at weight 0.
    Small or zero-free matrices go to the solver directly: splitting costs more than it saves.
    """
    n, m = len(rows), len(rows[0])
    if n * m <= _SPLIT_MIN_CELLS or min(min(row) for row in rows) != 0.0:
        return _lap(rows, bests)
    pairs: list[tuple[int, int]] = []
    for comp_rows, comp_cols in _components(rows):
        sub = [[rows[i][j] for j in comp_cols] for i in comp_rows]
        pairs.extend((comp_rows[r], comp_cols[c]) for r, c in _lap(sub))
    used_rows = {i for i, _ in pairs}
    used_cols = {j for _, j in pairs}
    free_rows = [i for i in range(n) if i not in used_rows]
    free_cols = [j for j in range(m) if j not in used_cols]
    pairs.extend(zip(free_rows, free_cols, strict=False))
    return pairs


def _components(rows: list[list[float]]) -> list[tuple[list[int], list[int]]]:
    """Connected components (rows, cols) of the bipartite graph of positive entries."""
    n, m = len(rows), len(rows[0])
    row_adj = [[j for j, x in enumerate(row) if x > 0.0] for row in rows]
    col_adj: list[list[int]] = [[] for _ in range(m)]
    for i, adj in enumerate(row_adj):
        for j in adj:
            col_adj[j].append(i)
    row_seen = [False] * n
    col_seen = [False] * m
    found: list[tuple[list[int], list[int]]] = []
    for start in range(n):
        if row_seen[start] or not row_adj[start]:
            continue
        row_seen[start] = True
        comp_rows, comp_cols = [start], []
        todo = [start]
        while todo:
            for j in row_adj[todo.pop()]:
                if not col_seen[j]:
                    col_seen[j] = True
                    comp_cols.append(j)
                    for i in col_adj[j]:
                        if not row_seen[i]:
                            row_seen[i] = True
                            comp_rows.append(i)
                            todo.append(i)
        found.append((sorted(comp_rows), sorted(comp_cols)))
    return found


def _lap(
    rows: list[list[float]], bests: list[tuple[float, int]] | None = None
) -> list[tuple[int, int]]:
    """Maximum-weight assignment by shortest augmenting paths with potentials (O(n^2 m)).

    Crouse's rectangular LAPJV (the algorithm behind scipy), on costs ``-w`` (read off the
    weights, never materialised), warm-started by giving each row its best column (``bests``,
    from :func:`_best_column`) when free: the duals (row minima, zero column prices) are then
    feasible and every greedy pair tight, so only the remaining rows need a search.
    """
    transposed = len(rows) > len(rows[0])
    if transposed:
        rows = [list(col) for col in zip(*rows, strict=True)]
        bests = None
    if bests is None:
        bests = [_best_column(row, i) for i, row in enumerate(rows)]
    n, m = len(rows), len(rows[0])
    inf = math.inf
    u = [-best for best, _ in bests]
    v = [0.0] * m
    col4row = [-1] * n
    row4col = [-1] * m
    for i, (_, j) in enumerate(bests):
        if row4col[j] < 0:
            row4col[j] = i
            col4row[i] = j
    path = [-1] * m
    for cur in range(n):
        if col4row[cur] >= 0:
            continue
        spc = [inf] * m
        remaining = list(range(m))
        visited_rows: list[int] = []
        scanned: list[int] = []
        min_val = 0.0
        i = cur
        sink = -1
        while sink < 0:
            visited_rows.append(i)
            wrow = rows[i]
            base = min_val - u[i]
            lowest = inf
            index = -1
            for it, j in enumerate(remaining):
                r = base - wrow[j] - v[j]
                s = spc[j]
                if r < s:
                    path[j] = i
                    spc[j] = r
                else:
                    r = s
                if r <= lowest and (r < lowest or row4col[j] < 0):
                    lowest = r
                    index = it
            min_val = lowest
            j = remaining[index]
            last = remaining.pop()
            if index < len(remaining):
                remaining[index] = last
            scanned.append(j)
            if row4col[j] < 0:
                sink = j
            else:
                i = row4col[j]
        u[cur] += min_val
        for i in visited_rows:
            if i != cur:
                u[i] += min_val - spc[col4row[i]]
        for j in scanned:
            v[j] -= min_val - spc[j]
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == cur:
                break
    if transposed:
        return sorted((j, i) for i, j in enumerate(col4row))
    return list(enumerate(col4row))


def _prefer_identity(
    rows: list[list[float]], pairs: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Move to ``(i, i)`` pairs wherever that does not lower the total (stable tie-breaking)."""
    n, m = len(rows), len(rows[0])
    col_of = [-1] * n
    row_of = [-1] * m
    for i, j in pairs:
        col_of[i] = j
        row_of[j] = i
    for i in range(min(n, m)):
        a = col_of[i]
        if a == i:
            continue
        j = row_of[i]
        here = rows[i]
        if a >= 0 and j >= 0:
            if here[i] + rows[j][a] >= here[a] + rows[j][i]:
                col_of[j], row_of[a] = a, j
            else:
                continue
        elif a >= 0:
            if here[i] < here[a]:
                continue
            row_of[a] = -1
        elif j >= 0:
            if here[i] < rows[j][i]:
                continue
            col_of[j] = -1
        col_of[i] = row_of[i] = i
    return [(i, j) for i, j in enumerate(col_of) if j >= 0]
