"""The scoring fast paths give exactly what the general code gives.

Covers the frame-free walks of flat records and arrays of scalars, the path-segment cache,
the numeric comparison that shares one difference, the fast result constructors, and the
gold parse cache of the key-level modes.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import pickle
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import modes, score
from pytest_structeval import walk as walk_module
from pytest_structeval.compare import (
    SIMILARITY_DEFAULTS,
    STRICT_DEFAULTS,
    LeafOptions,
    LeafOutcome,
    OptionResolver,
    Tolerance,
    compare_leaf,
    leaf_score,
)
from pytest_structeval.compare import _explain as explain
from pytest_structeval.errors import LimitError
from pytest_structeval.modes import parse_sides, parse_values
from pytest_structeval.paths import flatten, key_path
from pytest_structeval.results import (
    MATCH,
    MISMATCH,
    FieldResult,
    ScoreResult,
    new_field_result,
    new_score_result,
)
from pytest_structeval.walk import SPLIT, ZERO, WalkPolicy, walk

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, width=32)
    | st.sampled_from(["a", "A ", "3", "x.y", ""])
)
keys = st.sampled_from(["a", "b", "c", "a.b", "1", "", "k y"])
records = st.dictionaries(keys, scalars, max_size=4)
arrays = st.lists(scalars, max_size=4)
# Values that mostly take the fast paths and sometimes leave them midway (a nested value, an
# array of records, an empty container where the other side has a scalar).
nodes = st.recursive(
    scalars | arrays,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=4),
    max_leaves=10,
)

POLICIES = [
    WalkPolicy(OptionResolver(STRICT_DEFAULTS)),
    WalkPolicy(OptionResolver(SIMILARITY_DEFAULTS), type_mismatch=ZERO, count_extra=False),
    WalkPolicy(
        OptionResolver(
            STRICT_DEFAULTS.updated({"numeric_tolerance": {"rel": 0.1}}),
            {"answer.b": {"case_sensitive": True}},
        ),
        type_mismatch=SPLIT,
    ),
    WalkPolicy(OptionResolver(STRICT_DEFAULTS), max_depth=2),
]


@contextmanager
def general_walk_only() -> Iterator[None]:
    """Switch the frame-free walks off: everything goes through the frames."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk_module, "_flat_objects", lambda gold, model, policy, prefix: None)
        mp.setattr(walk_module._Walk, "flat_arrays", lambda self, *args: False)
        yield


def walked(gold: Any, model: Any, policy: WalkPolicy) -> list[FieldResult] | str:
    try:
        return walk(gold, model, policy)
    except LimitError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(nodes, nodes, st.sampled_from(range(len(POLICIES))))
def test_frame_free_walks_equal_the_frame_walk(gold: Any, model: Any, which: int) -> None:
    policy = POLICIES[which]
    fast = walked(gold, model, policy)
    with general_walk_only():
        assert fast == walked(gold, model, policy)


@settings(max_examples=200, deadline=None)
@given(records, records, st.sampled_from(range(len(POLICIES))))
def test_flat_records_equal_the_frame_walk(gold: Any, model: Any, which: int) -> None:
    policy = POLICIES[which]
    fast = walked({"r": gold, **gold}, {"r": model, **model}, policy)
    with general_walk_only():
        assert fast == walked({"r": gold, **gold}, {"r": model, **model}, policy)


def test_the_fast_paths_are_taken() -> None:
    policy = POLICIES[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk_module._Walk, "run", None)  # the frame walk would fail
        assert [f.status for f in walk({"a": 1, "b": "x"}, {"a": 1, "b": "y"}, policy)] == [
            MATCH,
            "mismatch",
        ]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(walk_module._Walk, "list_frame", None)  # nor may an array get a frame
        results = walk({"t": [1, 2], "u": {"v": [3]}}, {"t": [1], "u": {"v": [3, 4]}}, policy)
    assert [(f.path, f.status) for f in results] == [
        ("answer.t[0]", MATCH),
        ("answer.t[1]", "omission"),
        ("answer.u.v[0]", MATCH),
        ("answer.u.v[-1]", "hallucination"),
    ]


def test_arrays_past_the_depth_limit_still_raise() -> None:
    policy = WalkPolicy(OptionResolver(STRICT_DEFAULTS), max_depth=2)
    assert len(walk({"a": [1, 2]}, {"a": [1, 2]}, policy)) == 2
    with pytest.raises(LimitError, match=r"answer\.a\.b"):
        walk({"a": {"b": [1]}}, {"a": {"b": [1]}}, policy)


# --- paths through the segment cache -------------------------------------------------------

odd_keys = st.one_of(
    st.text(max_size=5),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, width=16),
    st.tuples(st.integers(0, 2)),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["answer", "answer.x[0]", ""]), odd_keys)
def test_cached_child_paths_equal_key_path(parent: str, key: Any) -> None:
    assert walk_module._child_path(parent, key) == key_path(parent, key)
    assert walk_module._child_path(parent, key) == key_path(parent, key)  # from the cache


def test_keys_that_share_a_hash_keep_their_own_paths() -> None:
    walk_module._child_path("answer", "1")  # a string key in the cache
    for key in (1, True, 1.0):
        assert walk_module._child_path("answer", key) == key_path("answer", key)


def test_walk_paths_equal_flatten_paths_for_escaped_keys() -> None:
    value = {"a.b": 1, "1": {"x y": [2]}, "": 3, "ok": {"z": None}}
    paths = [f.path for f in walk(value, value, POLICIES[0])]
    assert paths == list(flatten(value))
    assert paths == [f.path for f in walk(value, value, POLICIES[0])]  # cached now


class OddKeys(Mapping[Any, Any]):
    """A mapping whose keys no dict could hold."""

    def __init__(self, items: list[tuple[Any, Any]]) -> None:
        self.items_ = items

    def __getitem__(self, key: Any) -> Any:
        for k, v in self.items_:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[Any]:
        return (k for k, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)


def test_unhashable_mapping_keys_still_get_paths() -> None:
    value = {"a": OddKeys([([1], 2)])}
    assert [f.path for f in walk(value, value, POLICIES[0])] == ["answer.a[<[1]>]"]


# --- numbers: one shared difference ---------------------------------------------------------

numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 0.0, -0.0, 1e-13, 10**400, 2**63]),
)
number_options = st.sampled_from(
    [
        STRICT_DEFAULTS,
        SIMILARITY_DEFAULTS,
        LeafOptions(tolerance=Tolerance(rel=0.05)),
        LeafOptions(tolerance=Tolerance(abs=0.5)),
        LeafOptions(tolerance=Tolerance(rel=0.01, abs=2)),
        LeafOptions(numeric_credit="exact"),
    ]
)


def reference_outcome(gold: Any, model: Any, opts: LeafOptions) -> LeafOutcome:
    """compare_leaf as score-then-explain, the way it was built before the shared path."""
    value = leaf_score(gold, model, opts)
    if value == 1.0:
        return LeafOutcome(True, 1.0)
    return LeafOutcome(False, value, explain(gold, model, opts, value))


@settings(max_examples=500, deadline=None)
@given(numbers, numbers, number_options)
def test_number_comparison_equals_score_then_explain(gold: Any, model: Any, opts: Any) -> None:
    got, want = compare_leaf(gold, model, opts), reference_outcome(gold, model, opts)
    assert got.exact == want.exact
    assert got.reason == want.reason
    assert got.score == want.score or (math.isnan(got.score) and math.isnan(want.score))


# --- results built by the fast constructors --------------------------------------------------


def test_fast_constructors_build_ordinary_frozen_results() -> None:
    args = ("answer.a", MATCH, 1.0, [1], {"b": 2}, None)
    fast, plain = new_field_result(*args), FieldResult(*args)
    assert type(fast) is FieldResult
    assert fast == plain
    assert repr(fast) == repr(plain)
    assert hash(new_field_result("p", MATCH, 1.0, 1, 1, None)) == hash(
        FieldResult("p", MATCH, 1.0, 1, 1, None)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.score = 0.0  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(fast)) == plain
    assert dataclasses.replace(fast, path="answer.b").path == "answer.b"
    assert copy.deepcopy(fast) == plain

    fields = (fast,)
    score_args = (True, 1.0, "strict", {"f1": 1.0}, fields, {"a": 1}, {"a": 1}, "ok", None, None)
    made = new_score_result(*score_args, "json")
    assert type(made) is ScoreResult
    assert made == ScoreResult(*score_args, "json")
    assert made.to_dict() == ScoreResult(*score_args, "json").to_dict()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.passed = False  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(made)) == made


# --- the gold parse cache ----------------------------------------------------------------------


def counted_gold_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The gold texts parsed from now on (not taken from a cache)."""
    parsed: list[str] = []
    read = modes._read_gold

    def counting(gold: Any, *args: Any) -> Any:
        parsed.append(gold)
        return read(gold, *args)

    monkeypatch.setattr(modes, "_read_gold", counting)
    modes._parse_gold.cache_clear()
    monkeypatch.setattr(modes, "_LONG_GOLD", [])
    return parsed


def test_a_gold_text_is_parsed_once_and_never_changed_by_scoring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each result has its own copy of the parse (a caller may change it: maintainer26 #1)."""
    parsed = counted_gold_parses(monkeypatch)
    gold = '{"rows": [{"id": 1, "v": "x"}, {"id": 2, "v": "y"}], "n": 2, "tags": ["a", "b"]}'
    fresh = score(gold, gold).parsed_gold
    runs = [
        score(gold, '{"rows": [{"id": 2, "v": "Y"}], "n": 3}'),
        score(gold, '{"rows": [{"id": 2, "v": "y"}, {"id": 1}]}', align={"key": "id"}),
        score(gold, '{"rows": [], "tags": ["b"]}', "similarity", align="hungarian"),
        score(gold, '{"n": "2"}', ignore_paths=["answer.rows"], numeric_tolerance=0.1),
        score(gold, "Final Answer: [1, 2]", "similarity", target_output_key="tags"),
    ]
    assert parsed == [gold]
    assert all(run.parsed_gold == fresh and run.parsed_gold is not fresh for run in runs[:4])
    assert fresh == {
        "rows": [{"id": 1, "v": "x"}, {"id": 2, "v": "y"}],
        "n": 2,
        "tags": ["a", "b"],
    }
    score(gold, gold, strict_parse=True)
    assert parsed == [gold, gold]  # its own key


def test_only_the_last_large_gold_keeps_its_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """One long gold is kept (the runs of one scenario share it), not each: bounded memory."""
    parsed = counted_gold_parses(monkeypatch)
    gold = '{"text": "' + "x" * 9_000 + '"}'
    other = '{"text": "' + "y" * 9_000 + '"}'
    score(gold, gold)
    score(gold, gold)
    assert parsed == [gold]
    score(other, other)
    score(gold, gold)
    assert parsed == [gold, other, gold]


def test_parse_values_is_parse_sides_without_the_model_wrapper() -> None:
    common = ("strict", '{"a": 1}', "```json\n{'a': 2}\n```", None, False, 10_000, 10)
    sides = parse_sides(
        *common[:3], threshold=None, strict_parse=False, max_bytes=10_000, max_depth=10
    )
    values = parse_values(*common)
    assert not isinstance(sides, ScoreResult)
    assert not isinstance(values, ScoreResult)
    assert values[0] == (sides[0].value, sides[0].method, sides[0].structured)
    assert values[1] == (sides[1].value, sides[1].method, sides[1].structured)
    error = parse_values("strict", "1", "x" * 50, None, False, 20, 10)
    assert isinstance(error, ScoreResult)
    assert error.error is not None


def test_resolver_says_whether_it_ignores_anything() -> None:
    assert not OptionResolver(STRICT_DEFAULTS).ignores_any
    assert OptionResolver(STRICT_DEFAULTS, None, ["answer.a"]).ignores_any


def test_a_bool_never_equals_a_number_in_a_nested_object() -> None:
    """The nested-object fast path compares types before values: True == 1 in Python, but a
    bool is no number (review mutants16-core k2)."""
    for gold, model, path in [
        ({"a": True, "b": [1]}, {"a": 1, "b": [1]}, "answer.a"),
        ({"o": {"a": True}, "b": [1]}, {"o": {"a": 1}, "b": [1]}, "answer.o.a"),
        ({"o": {"a": 0}, "b": [1]}, {"o": {"a": False}, "b": [1]}, "answer.o.a"),
    ]:
        result = score(gold, model, "strict")
        assert result.passed is False
        assert result.score == 0.5
        first = result.fields[0]
        assert (first.path, first.status, first.score) == (path, MISMATCH, 0.0)
    same = score({"o": {"a": 1}, "b": [1]}, {"o": {"a": 1.0}, "b": [1]}, "strict")
    assert same.passed is True
    assert [f.status for f in same.fields] == [MATCH, MATCH]


def test_a_bool_never_equals_a_number_in_an_array_beside_containers() -> None:
    """An array element next to a container goes through the general leaf walk, which must
    keep True and 1 apart too (review mutants16-core k1)."""
    result = score([True, {"x": 1}], [1, {"x": 1}], "strict")
    assert result.passed is False
    assert result.score == 0.5
    assert [(f.path, f.status, f.score, f.reason) for f in result.fields] == [
        ("answer[0]", MISMATCH, 0.0, "type mismatch: bool vs number"),
        ("answer[1].x", MATCH, 1.0, None),
    ]
