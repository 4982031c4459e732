"""Properties of the strict and similarity modes and of the shared walk."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.align import AlignSpec, align
from pytest_structeval.compare import (
    SIMILARITY_DEFAULTS,
    STRICT_DEFAULTS,
    LeafOptions,
    OptionResolver,
    Tolerance,
)
from pytest_structeval.errors import LimitError
from pytest_structeval.parse import check_json_depth, parse_answer, plain_value
from pytest_structeval.paths import check_depth, first_too_deep, flatten
from pytest_structeval.results import HALLUCINATION, MATCH, MISMATCH, OMISSION, FieldResult
from pytest_structeval.walk import SPLIT, ZERO, WalkPolicy, _flat_matrix, _Weigher, walk

MODES = ("strict", "similarity")

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=6)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=12,
)
# Small alphabets, so elements of two lists are often similar but rarely identical.
small_scalars = (
    st.integers(min_value=-3, max_value=3)
    | st.sampled_from(["a", "ab", "abc", "b", "B", "kW", "kw", ""])
    | st.sampled_from([0.5, 1.5, 2.0, True, False, None])
)
records = st.dictionaries(st.sampled_from(["id", "name", "unit"]), small_scalars, max_size=3)
elements = small_scalars | records | st.lists(small_scalars, max_size=2)
element_lists = st.lists(elements, max_size=6)


def text(value: Any) -> str:
    return json.dumps(value)


@settings(max_examples=150, deadline=None)
@given(json_values, json_values)
def test_scores_are_in_the_unit_interval(gold: Any, model: Any) -> None:
    for mode in MODES:
        result = score(text(gold), text(model), mode)
        assert 0.0 <= result.score <= 1.0
        assert result.passed in (True, False)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_any_json_value_matches_itself(value: Any) -> None:
    for mode in MODES:
        result = score(text(value), text(value), mode)
        assert result.passed, result.reason
        assert result.score == 1.0
        if not isinstance(value, str):
            assert score(value, value, mode).score == 1.0


@settings(max_examples=100, deadline=None)
@given(st.data(), element_lists)
def test_a_permutation_scores_1_under_hungarian_and_unordered(data: Any, items: list[Any]) -> None:
    shuffled = data.draw(st.permutations(items))
    for mode in MODES:
        for method in ("hungarian", "unordered"):
            result = score(items, shuffled, mode, align=method)
            assert result.score == 1.0, (mode, method)
            assert result.passed


@settings(max_examples=120, deadline=None)
@given(element_lists, element_lists)
def test_hungarian_never_scores_below_ordered(gold: list[Any], model: list[Any]) -> None:
    assume(gold)
    for mode in MODES:
        ordered = score(gold, model, mode).score
        hungarian = score(gold, model, mode, align="hungarian").score
        assert hungarian >= ordered - 1e-12, mode


@settings(max_examples=150, deadline=None)
@given(json_values, json_values)
def test_every_leaf_is_reported_once(gold: Any, model: Any) -> None:
    """Strict counts every gold leaf and every model leaf exactly once, under unique paths,
    except a model's empty container with no gold leaf to compare it with: it states no
    value, so it is never extra (AssetOpsBench flattens it to no key)."""
    result = score(gold if not isinstance(gold, str) else text(gold), text(model))
    metrics = result.metrics
    paths = [f.path for f in result.fields]
    assert len(paths) == len(set(paths))
    parsed_gold, parsed_model = result.parsed_gold, result.parsed_model
    assert metrics["total_gold_keys"] == len(flatten(parsed_gold))
    model_leaves = flatten(parsed_model).values()
    compared_empty = sum(
        f.status in (MATCH, MISMATCH) and f.model in ({}, []) for f in result.fields
    )
    assert metrics["total_model_keys"] == compared_empty + sum(
        v not in ({}, []) for v in model_leaves
    )
    assert not any(f.status == HALLUCINATION and f.model in ({}, []) for f in result.fields)


# ------------------------------------------------- the Hungarian pair matrix fast path

# Leaves that stress the comparison: big ints, float noise around 0, infinities, NaN,
# numeric strings, identifiers, NFC/NFD text, empty containers.

leaf_values: st.SearchStrategy[Any] = (
    st.integers(min_value=-5, max_value=5)
    | st.integers(min_value=10**300, max_value=10**300 + 2)
    | st.floats(min_value=-6, max_value=6)
    | st.sampled_from([0.0, -0.0, 1e-13, 1e-9, math.inf, -math.inf, math.nan, True, False, None])
    | st.sampled_from(["", "2876", "-0.5", " 3 ", "01234", "Pump 6", "café", "cafe\u0301", "ABC"])
    | st.text(alphabet="abcAB 1-.", max_size=5)
    | st.sampled_from([{}, []])
)
leaf_options = st.builds(
    LeafOptions,
    case_sensitive=st.booleans(),
    normalize_whitespace=st.booleans(),
    tolerance=st.none() | st.just(Tolerance(rel=0.1)) | st.just(Tolerance(abs=0.5)),
    coerce_numeric_strings=st.booleans(),
    strict_types=st.booleans(),
    numeric_credit=st.sampled_from(["relative", "exact"]),
)


flat_records = st.dictionaries(st.sampled_from(["id", "name", "v"]), leaf_values, max_size=3)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(flat_records | leaf_values, min_size=1, max_size=4),
    st.lists(flat_records | leaf_values, min_size=1, max_size=4),
    st.sampled_from([SPLIT, ZERO]),
    st.booleans(),
    st.sampled_from([None, ("answer[*].v",), ("answer[1]",)]),
)
def test_flat_pair_matrix_equals_one_walk_per_pair(
    gold: list[Any],
    model: list[Any],
    mismatch: str,
    exact_first: bool,
    ignore: tuple[str, ...] | None,
) -> None:
    defaults = STRICT_DEFAULTS if exact_first else SIMILARITY_DEFAULTS
    policy = WalkPolicy(
        OptionResolver(defaults, None, ignore),
        default_align=AlignSpec("hungarian"),
        type_mismatch=mismatch,
        exact_first=exact_first,
    )
    weigher = _Weigher(gold, model, "answer", 0.01, policy)  # a floor: means are needed
    fast = _flat_matrix(weigher)
    if fast is None:  # declined only where {} may equal a record of ignored keys, or one is
        assert ignore is not None
        ignored = weigher.policy.resolver.ignored
        hollow = [  # (a gold record of ignored keys alone: it equals {}, see Walker.emptied)
            g
            for i, g in enumerate(gold)
            if isinstance(g, dict) and g and all(ignored(f"answer[{i}].{k}") for k in g)
        ]
        assert hollow or any(isinstance(e, dict) and not e for e in (*gold, *model))
        return
    (fast_weights, fast_means), (slow_weights, slow_means) = fast, weigher._walk_matrix()
    assert fast_means is not None
    assert slow_means is not None
    for f_row, s_row in zip(fast_weights, slow_weights, strict=True):
        assert f_row == [pytest.approx(x, rel=1e-9, abs=1e-12) for x in s_row]
    # A mean decides only whether a pair's weight is floored: a pair of no weight scores 0
    # either way, and there the two may count the union apart (a record whose keys are all
    # ignored against a leaf: the walk counts no field, the columns the model's leaf).
    for weights, f_row, s_row in zip(fast_weights, fast_means, slow_means, strict=True):
        assert [f for w, f in zip(weights, f_row, strict=True) if w] == [
            pytest.approx(s, rel=1e-9, abs=1e-12) for w, s in zip(weights, s_row, strict=True) if w
        ]


def test_the_flat_matrix_leaves_a_record_of_ignored_keys_to_the_walk() -> None:
    """A gold record whose keys are all ignored equals {} (Walker.emptied), which the columns
    cannot say: the walk weighs it (diff29b #2: such pairs weighed 0, so an equal record was
    left unpaired)."""
    policy = WalkPolicy(
        OptionResolver(SIMILARITY_DEFAULTS, None, ("answer[*].v",)),
        default_align=AlignSpec("hungarian"),
        type_mismatch=SPLIT,
    )
    weigher = _Weigher([{"id": 0}, {"v": 0}], [[], {"v": 1}], "answer", 0.01, policy)
    assert _flat_matrix(weigher) is None
    weights, _ = weigher._walk_matrix()
    assert weights[1][1] > 0.0  # {"v": 0} against {"v": 1}: {} against {}, a match


def test_the_flat_matrix_leaves_an_empty_object_against_ignored_keys_to_the_walk() -> None:
    """Found by the property above: ``{}`` against ``{"v": 0}`` with ``v`` ignored is a perfect
    pair in the walk (an object whose keys are all ignored equals ``{}``), and scored 0 in
    the flat matrix, which saw ``{}`` as a leaf."""
    policy = WalkPolicy(
        OptionResolver(SIMILARITY_DEFAULTS, None, ("answer[*].v",)),
        default_align=AlignSpec("hungarian"),
    )
    weigher = _Weigher([{}], [{"v": 0}], "answer", 0.01, policy)
    assert _flat_matrix(weigher) is None
    _, means = weigher._walk_matrix()
    assert means == [[1.0]]


def test_walk_results_are_real_field_results() -> None:
    """The walk's fast constructor builds the same objects as the dataclass one."""
    policy = WalkPolicy(OptionResolver(STRICT_DEFAULTS))
    fields = walk({"a": 1, "b": [2]}, {"a": 1, "b": [3], "c": None}, policy)
    assert fields == [
        FieldResult("answer.a", MATCH, 1.0, 1, 1, None),
        FieldResult("answer.b[0]", MISMATCH, 0.5, 2, 3, "3 vs expected 2 (50% off)"),
        FieldResult("answer.c", HALLUCINATION, 0.0, None, None, "key not in gold"),
    ]
    assert walk({"a": 1}, {"b": 2}, policy)[0] == FieldResult(
        "answer.a", OMISSION, 0.0, 1, None, "missing key"
    )
    # an empty model object omits the gold leaves under it and is nothing extra
    assert walk({"a": 1}, {}, policy) == [
        FieldResult(
            "answer.a", OMISSION, 0.0, 1, None, "expected object with 1 key, got empty object"
        ),
    ]


def _depth_error(check: Any) -> str | None:
    try:
        check()
    except LimitError as exc:
        return str(exc)
    return None


@settings(max_examples=200, deadline=None)
@given(json_values, st.integers(min_value=1, max_value=4))
def test_check_depth_raises_exactly_when_the_walk_does(value: Any, max_depth: int) -> None:
    # Schema mode bounds parsed values with check_depth; strict bounds them in its walk.
    policy = WalkPolicy(OptionResolver(STRICT_DEFAULTS), max_depth=max_depth)
    expected = _depth_error(lambda: flatten(value, max_depth=max_depth))
    assert _depth_error(lambda: check_depth(value, max_depth)) == expected
    assert _depth_error(lambda: walk(value, value, policy)) == expected
    # the parser's bounds, on a decoded answer and on a value given parsed, draw the same
    # line (maintainer29 #2)
    assert (_depth_error(lambda: check_json_depth(value, max_depth)) is None) == (expected is None)
    assert _depth_error(lambda: plain_value(value, max_depth)) == expected


@st.composite
def shared_values(draw: st.DrawFn) -> Any:
    """Small values whose containers are often held in several places (a DAG)."""
    parts: list[Any] = [draw(scalars)]
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        picks = draw(st.lists(st.sampled_from(parts), min_size=0, max_size=3))
        part: Any = picks if draw(st.booleans()) else {str(i): p for i, p in enumerate(picks)}
        parts.append(part)
    return parts[-1]


@settings(max_examples=300, deadline=None)
@given(shared_values(), st.integers(min_value=1, max_value=5))
def test_the_first_too_deep_path_is_the_one_the_walk_names(value: Any, max_depth: int) -> None:
    # diff30b #5: the path is found without writing out the parts held in several places
    expected = _depth_error(lambda: flatten(value, max_depth=max_depth))
    path = first_too_deep(value, max_depth)
    assert (expected is None) == (path == "")
    if expected is not None:
        assert expected.endswith(f" at {path}")
        assert _depth_error(lambda: check_depth(value, max_depth)) == expected
        assert _depth_error(lambda: plain_value(value, max_depth)) == expected


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
@pytest.mark.parametrize(
    ("text", "passes"),
    [
        ("[[[[]]]]", True),
        ('{"a": {"b": [{}]}}', True),
        ("[[[[1]]]]", False),
        ("[[[{}, [2]]]]", False),
    ],
)
def test_a_value_nests_as_deep_read_from_text_as_given_parsed(
    mode: str, text: str, passes: bool
) -> None:
    """maintainer29 #2: an empty innermost container counted as a level in text only, so
    ``[[[[]]]]`` at ``max_depth=3`` raised as text and scored 1.0 as a value."""
    value = json.loads(text)
    for side in (text, value):
        if passes:
            assert score(side, text, mode=mode, max_depth=3).score == 1.0
            assert score(side, value, mode=mode, max_depth=3).score == 1.0
        else:  # a model answer too deep scores 0 with the reason, a gold one raises
            result = score("[1]", side, mode=mode, max_depth=3)
            assert result.score == 0.0
            assert "nests deeper than max_depth=3" in (result.error or "")
            with pytest.raises(LimitError, match="nests deeper than max_depth=3"):
                score(side, "[1]", mode=mode, max_depth=3)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[[['x', []]]]", [[["x", []]]]),  # a Python literal
        ("[[('x', ( ))]]", [[["x", []]]]),
        ("{'a': {'b': {'c': {}}}}", {"a": {"b": {"c": {}}}}),
        ('{"a": {"b": {"c": {}}}', {"a": {"b": {"c": {}}}}),  # repaired: a brace left open
        ("[[['x', [", [[["x", []]]]),  # cut off: the brackets are closed for it
    ],
)
def test_the_literal_reader_counts_depth_as_the_json_reader(text: str, value: Any) -> None:
    """closing-30 gap: the reader of Python literals and repaired JSON counted an empty
    container as a level, so ``{'a': {}}`` was refused at ``max_depth=1``."""
    assert parse_answer(text, max_depth=3) == value
    assert parse_answer("{'a': {}}", max_depth=1) == {"a": {}}
    deeper = text.replace("[]", "[1]").replace("( )", "(1,)").replace("{}", "{'d': 1}")
    if deeper.endswith("["):
        deeper += "1"
    with pytest.raises(LimitError, match="nests deeper than max_depth=3"):
        parse_answer(deeper, max_depth=3)


@pytest.mark.parametrize("repairs", [True, False])
def test_past_pythons_200_brackets_a_literal_is_refused_whole(repairs: bool) -> None:
    """diff31a #1: at the default max_depth, a 201st bracket closed at once (a leaf by the
    depth rule) made the literal reader give up, so a cut-off answer scored through its
    inner fragment (1.0, repairs off too) and a literal equal to a JSON gold read as text."""
    fragment = "[" * 200 + "]" * 200
    limit = "nests deeper than 200 brackets, which Python's parser reads at most"
    for answer in ("[" + fragment, "{'a': " * 200 + "{}" + "}" * 200):
        result = score(json.loads(fragment), answer, parse_repairs=repairs)
        assert (result.score, result.parse_method) == (0.0, None)
        assert limit in (result.error or "")
    for inner in ("[ /* c */ ]", "[ # c\n ]", "[ // c\n ]", "[ /* a\n b */ ]"):
        with pytest.raises(LimitError, match=limit):  # a comment leaves the container empty
            parse_answer("[" * 200 + inner + "]" * 200)
    for run in ("#" * 60, "//" * 60, "/**/" * 60):  # (diff31b #1, diff31c #1: 2**n ways to
        # read a run of them: a hang)
        result = score({"a": 1}, "Here: {'a': " + "[" * 200 + run + " the end")
        assert "nests deeper than max_depth=200" in (result.error or "")
    with pytest.raises(LimitError, match=r"max_depth=200$"):
        parse_answer("[" * 200 + "[ /* c */ 1]" + "]" * 200)
    deep = "[" * 1100 + "1" + "]" * 1100  # past orjson's levels: the literal reader's turn
    with pytest.raises(LimitError, match=limit):
        parse_answer(deep, max_depth=2000)


@settings(max_examples=100, deadline=None)
@given(st.lists(records, max_size=6), st.lists(records, max_size=6))
def test_every_key_alignment_note_reaches_the_result(gold: list[Any], model: list[Any]) -> None:
    assume(gold and model)  # an empty array is a leaf: nothing is paired
    found = align(gold, model, AlignSpec("key", key="id"))
    expected = [f"answer: {note}" for note in found.notes]
    keyed = all(any("id" in e for e in side) for side in (gold, model))
    for mode in MODES:
        result = score(gold, model, mode, align={"key": "id"}, case_sensitive=True)
        notes = result.metrics["notes"]
        # ... plus one note when nothing paired although both sides have keys
        assert notes[: len(expected)] == expected
        no_pair = notes[len(expected) :]
        assert len(no_pair) == (not found.pairs and keyed)
        assert all(n.startswith("answer: no element paired by key 'id'") for n in no_pair)


def test_an_empty_container_only_the_model_has_is_no_field_of_the_pair_means() -> None:
    """Found by hypothesis: the columns counted the model's {} in a pair's union, the walk
    (where an empty model container is never extra) did not: 0.5 against 1.0."""
    policy = WalkPolicy(
        OptionResolver(SIMILARITY_DEFAULTS, None, None),
        default_align=AlignSpec("hungarian"),
        type_mismatch=SPLIT,
        exact_first=False,
    )
    weigher = _Weigher([{"id": {}}], [{"id": {}, "name": {}}], "answer", 0.01, policy)
    fast = _flat_matrix(weigher)
    assert fast is not None
    assert fast[1] == weigher._walk_matrix()[1] == [[1.0]]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=40),
    st.sampled_from(["strict", "schema"]),
)
def test_key_f1_is_2e_over_g_plus_m_rounded_once(
    exact: int, missing: int, extra: int, mode: str
) -> None:
    """F1 = 2E/(G+M) as one correctly rounded float, so an answer whose F1 is exactly a
    threshold meets it (review modes28 #1: 3 of 3 keys and 2 extra gave 0.7499999999999999
    in both modes, failing ``threshold=0.75``)."""
    from fractions import Fraction

    assume(exact + missing + extra > 0)
    gold = {f"k{i}": i for i in range(exact + missing)}
    model = {f"k{i}": i for i in range(exact)} | {f"x{i}": i for i in range(extra)}
    f1 = float(Fraction(2 * exact, 2 * exact + missing + extra))
    result = score(gold, model, mode, threshold=f1)
    assert result.metrics["f1"] == f1
    assert result.passed
