"""Result types: plain-data conversion and the AssetOpsBench per-key layout."""

from __future__ import annotations

import dataclasses
import math
import os
from types import MappingProxyType
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    SKIPPED,
    FieldResult,
    ScoreResult,
    plain,
)


def test_plain_keeps_key_order_and_makes_json_safe_values() -> None:
    value = {"b": 1, "a": {"z": (1, 2), "y": {3}}, "n": math.nan, "i": -math.inf, 1: "int key"}
    out = plain(value)
    assert list(out) == ["b", "a", "n", "i", "1"]
    assert list(out["a"]) == ["z", "y"]
    assert out["a"] == {"z": [1, 2], "y": [3]}
    assert out["n"] == "nan"
    assert out["i"] == "-inf"
    orjson.dumps(out)  # serialisable as is


def test_plain_handles_deep_nesting_without_recursion() -> None:
    root: dict[str, object] = {}
    node = root
    for _ in range(50_000):
        child: dict[str, object] = {}
        node["k"] = child
        node = child
    out = plain(root)
    depth = 0
    while out:
        out = out["k"]
        depth += 1
    assert depth == 50_000


def test_plain_stringifies_unknown_objects() -> None:
    assert plain({"when": object}) == {"when": str(object)}


@pytest.mark.parametrize(
    ("status", "score", "match_type", "gold_value", "model_value"),
    [
        (MATCH, 1.0, "exact", 1, 1),
        (MISMATCH, 0.5, "partial (0.50)", 1, 1),
        (MISMATCH, 0.0, "mismatch", 1, 1),
        (OMISSION, 0.0, "missing", 1, "MISSING"),
        (HALLUCINATION, 0.0, "extra", "NOT_IN_GOLD", 1),
        (SKIPPED, 0.0, "skipped", 1, 1),
    ],
)
def test_field_result_uses_the_reference_per_key_layout(
    status: str, score: float, match_type: str, gold_value: object, model_value: object
) -> None:
    row = FieldResult("answer.a", status, score, 1, 1, "why").to_dict()
    assert list(row) == [
        "key", "gold_value", "model_value", "exact", "match_type", "similarity", "status", "reason",
    ]  # fmt: skip
    assert row["match_type"] == match_type
    assert row["gold_value"] == gold_value
    assert row["model_value"] == model_value
    assert row["exact"] is (status == MATCH)


def test_score_result_is_frozen_plain_and_truthy_when_passed() -> None:
    fields = (
        FieldResult("answer.a", MATCH, 1.0, 1, 1),
        FieldResult("answer.b", OMISSION, 0.0, 2, None, "missing"),
    )
    result = ScoreResult(False, 0.5, "strict", {"f1": 0.5, "missing_keys": ["answer.b"]}, fields)
    assert not result
    assert [f.path for f in result.failing_fields] == ["answer.b"]
    data = result.to_dict()
    assert data["mode"] == "strict"
    assert data["f1"] == 0.5
    assert [d["key"] for d in data["details"]] == ["answer.a", "answer.b"]
    assert orjson.loads(orjson.dumps(data)) == data
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.score = 1.0  # type: ignore[misc]
    assert ScoreResult(True, 1.0, "strict")


def test_a_score_result_is_unhashable_by_its_own_name_and_equal_by_value() -> None:
    """Its ``metrics`` is a dict, so hashing one raised ``unhashable type: 'dict'`` while type
    checkers took it as hashable (typing34 #4). A field result hashes while its values do."""
    result = score({"a": [1]}, {"a": [1]})
    with pytest.raises(TypeError, match="unhashable type: 'ScoreResult'"):
        hash(result)
    with pytest.raises(TypeError, match="unhashable type: 'ScoreResult'"):
        hash(ScoreResult(True, 1.0, "strict", MappingProxyType({})))
    assert result == score({"a": [1]}, {"a": [1]})
    assert result != score({"a": [1]}, {"a": [2]})
    assert hash(FieldResult("a", MATCH, 1.0, 1, 1)) == hash(FieldResult("a", MATCH, 1.0, 1, 1))
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        hash(score({"a": []}, {"a": []}).fields[0])  # (an empty list is a leaf)


def test_the_repr_names_the_first_failing_paths() -> None:
    """``assert result`` and ``assert result.passed`` show only the repr: it must say where
    the answer is wrong, not only how many fields are (audit 10)."""
    from pytest_structeval import score

    wrong = score(
        {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, {"a": 0, "b": 0, "c": 0, "d": 0, "e": 5}
    )
    assert "failing=4 (answer.a, answer.b, answer.c, +1 more)" in repr(wrong)
    assert "failing=1 (answer.b), " in repr(score({"a": 1, "b": 2}, {"a": 1}))
    assert "failing=0, " in repr(score({"a": 1}, {"a": 1}))


_FLAT_VALUE = st.one_of(
    st.text(max_size=4),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(),  # NaN and infinities too
    st.lists(st.text(max_size=3), max_size=3),
    st.lists(st.integers(), max_size=2),
    st.tuples(st.text(max_size=2)),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
)


@given(st.dictionaries(st.text(max_size=4), _FLAT_VALUE, max_size=6))
@example({"a": math.nan, "b": -math.inf, "c": ["x"], "d": []})
@example({1: "x", None: 2, 2.5: [3]})  # keys that are no text: the general walk
def test_plain_copies_a_flat_dict_as_its_general_walk_does(value: dict[Any, Any]) -> None:
    """A dict goes through a one-level fast copy when it can (a mode's metrics, a field's
    row); a mapping that is no dict always takes the general walk. Both give the same data,
    and the copy shares no list with its source."""
    fast, general = plain(value), plain(MappingProxyType(value))
    assert fast == general
    assert [type(v) for v in fast.values()] == [type(v) for v in general.values()]
    for key, item in value.items():
        if type(item) is list:
            assert fast[key if isinstance(key, str) else str(key)] is not item


def test_skipped_fields_are_not_failing() -> None:
    """An ignored path is reported as skipped but never counts as failing: not in
    failing_fields, not in the repr of a passing result (review mutants16-plugin rs3)."""
    assert FieldResult("answer.b", SKIPPED, 0.0).ok is True
    result = score({"a": 1, "b": 2}, {"a": 1, "b": 5}, mode="strict", ignore_paths=["answer.b"])
    assert [(f.path, f.status) for f in result.fields] == [
        ("answer.a", "match"),
        ("answer.b", "skipped"),
    ]
    assert result.failing_fields == []
    assert repr(result) == (
        "ScoreResult(passed=True, score=1.0, mode='strict', fields=2, failing=0, "
        "reason='strict structured match')"
    )


def test_an_uncounted_extra_is_not_ok_nor_failing() -> None:
    """What ``FieldResult.ok``'s docstring says: ``ok`` goes by the status alone, and
    ``failing_fields`` leaves out an extra that the mode does not count (typing34 #9)."""
    for result in (
        score({"a": 1}, {"a": 1, "x": 2}, "similarity"),
        score({"a": 1}, {"a": 1, "x": 2}, "strict", ignore_extra=True),
    ):
        assert result.passed
        assert [(f.path, f.status, f.ok) for f in result.fields] == [
            ("answer.a", MATCH, True),
            ("answer.x", HALLUCINATION, False),
        ]
        assert result.failing_fields == []
    counted = score({"a": 1}, {"a": 1, "x": 2}, "similarity", penalize_extra=True)
    assert [f.path for f in counted.failing_fields] == ["answer.x"]


def test_plain_sorts_sets_so_reports_never_vary_by_process() -> None:
    """Review xdist28 #4: a custom scorer's set of strings was written in its hash order,
    which changes from process to process (serial against serial, and xdist workers)."""
    from pytest_structeval.results import plain

    tags = {"gamma", "alpha", "delta", "beta"}
    assert plain({"tags": tags, "n": 1}) == {"tags": ["alpha", "beta", "delta", "gamma"], "n": 1}
    assert plain([frozenset({3, "b", None, True, 1.5, "a"})]) == [[None, True, 1.5, 3, "a", "b"]]


def test_numbers_of_subclasses_sort_by_value() -> None:
    """diff28e #6: an IntEnum in a set sorted after the strings, by its repr."""
    import enum

    from pytest_structeval.results import set_order

    class Code(enum.IntEnum):
        OK = 1

    assert sorted({Code.OK, 5, 0, "a"}, key=set_order) == [0, Code.OK, 5, "a"]

    class Letter(str, enum.Enum):  # (a str Enum by its text: diff28f #4)
        A = "a"

    assert sorted({"b", Letter.A, 1}, key=set_order) == [1, Letter.A, "b"]


def test_a_set_of_frozensets_sorts_alike_in_every_process() -> None:
    """Review diff28b #2: frozensets were ordered by their repr, which follows the process's
    hash seed, so a gold given as a set of sets scored 1.0 or 0.0 by PYTHONHASHSEED."""
    import subprocess
    import sys

    code = (
        "from pytest_structeval import score; from pytest_structeval.results import plain;"
        "v = {frozenset({'a', 'b'}), frozenset({'c', 'd'}), ('e', frozenset({'f', 'g'}))};"
        "print(plain([v]), score([['a', 'b'], ['c', 'd'], ['e', ['f', 'g']]], v).score)"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert seen == {"[[['a', 'b'], ['c', 'd'], ['e', ['f', 'g']]]] 1.0\n"}
