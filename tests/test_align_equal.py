"""Equal elements settle a ``hungarian`` or ``sequence`` alignment without weighing every
pair (``align_equal``): the results must be those of the full weighing, field for field
(review realdata32 #3)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_structeval import score, walk
from pytest_structeval.align import AlignSpec, align_equal, canonical_key

# Leaves that tie and nearly tie: case and whitespace variants, 1 and 1.0 and "1", float
# noise, bools against their text, empty containers.
leaves: st.SearchStrategy[Any] = st.sampled_from(
    [
        "a", "A", " a ", "ab", "b", "1", "1.0", "true", "x y", "x  y",
        1, 1.0, 2, 0.3, 0.1 + 0.2, 12, 10, 14, True, False, None, {}, [],
    ]
)  # fmt: skip
names = st.sampled_from(["a", "b", "c"])
records = st.dictionaries(names, leaves, max_size=3)
texts = st.sampled_from(["a", "A", "ab", "b", "c", "abc", "1", "true"])
elements = st.one_of(
    st.lists(texts, min_size=1, max_size=5),
    st.lists(records, min_size=1, max_size=5),
    st.lists(st.one_of(records, texts, st.lists(texts, max_size=2)), min_size=1, max_size=5),
    st.lists(
        st.fixed_dictionaries({"id": texts}, optional={"v": leaves, "w": texts}),
        min_size=1,
        max_size=5,
    ),
)
OPTIONS = [
    ("strict", {}),
    ("strict", {"ignore_extra": True}),
    ("strict", {"case_sensitive": True, "normalize_whitespace": True}),
    ("strict", {"numeric_tolerance": {"rel": 0.2}}),
    ("strict", {"options": {"**": {"coerce_numeric_strings": False, "strict_types": True}}}),
    ("similarity", {}),
    ("similarity", {"penalize_extra": True}),
]
ALIGNS: list[Any] = [
    "hungarian",
    "sequence",
    {"method": "hungarian", "min_similarity": 0.5},
    {"method": "sequence", "min_similarity": 0.5},
]


@st.composite
def answers(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
    """A gold array and a model array made mostly of its elements: a copy, shuffled, with
    elements added, dropped, duplicated or varied, or drawn anew."""
    gold = draw(elements)
    model = list(gold)
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 3))):
        edit = draw(st.sampled_from(["shuffle", "add", "drop", "copy", "vary", "new"]))
        if edit == "shuffle":
            rng.shuffle(model)
        elif edit == "add":
            model.insert(rng.randrange(len(model) + 1), draw(elements)[0])
        elif edit == "drop" and model:
            model.pop(rng.randrange(len(model)))
        elif edit == "copy" and model:
            model.insert(rng.randrange(len(model) + 1), rng.choice(model))
        elif edit == "vary" and model:
            at = rng.randrange(len(model))
            element = model[at]
            if isinstance(element, dict) and element:
                element = {**element, rng.choice(sorted(element)): draw(leaves)}
            elif isinstance(element, str):
                element = element.upper() if rng.random() < 0.5 else element + "c"
            model[at] = element
        elif edit == "new":
            model = draw(elements)
    return gold, model


def shown(result: Any) -> tuple[Any, ...]:
    fields = tuple(
        (f.path, f.status, f.score, repr(f.gold), repr(f.model), f.reason) for f in result.fields
    )
    return (result.score, result.passed, fields, tuple(result.metrics.get("notes", ())))


def weighed(*args: Any, **kwargs: Any) -> Any:
    """The result with every pair weighed (the shortcut declined)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(walk, "align_equal", lambda *a, **k: None)
        return score(*args, **kwargs)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=answers(), case=st.sampled_from(OPTIONS), how=st.sampled_from(ALIGNS))
def test_equal_elements_settle_as_weighing_does(
    pair: tuple[list[Any], list[Any]],
    case: tuple[str, dict[str, Any]],
    how: Any,
) -> None:
    gold, model = pair
    mode, options = case
    quick = score({"answer": gold}, {"answer": model}, mode, align=how, **options)
    full = weighed({"answer": gold}, {"answer": model}, mode, align=how, **options)
    assert shown(quick) == shown(full)


def test_a_copy_and_a_shuffled_copy_are_settled_without_weighing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The common cases take the shortcut (else the test above compares nothing)."""
    gold = [{"event": f"e{i % 7}", "date": f"2020-01-{i:02d}", "value": i / 3} for i in range(30)]
    shuffled = gold[::-1]
    calls: list[Any] = []
    original = getattr(walk, "align_equal")  # noqa: B009 (walk imports it; mypy)

    def spy(*args: Any, **kwargs: Any) -> Any:
        found = original(*args, **kwargs)
        calls.append(found is not None)
        return found

    monkeypatch.setattr(walk, "align_equal", spy)
    for mode in ("strict", "similarity"):
        assert score(gold, gold, mode, align="sequence").score == 1.0
        assert score(gold, shuffled, mode, align="hungarian").score == 1.0
        assert score(gold, [*shuffled, {"x": 1}], mode, align="hungarian").passed is (
            mode == "similarity"
        )
        assert score(gold, gold[:20], mode, align="sequence").score < 1.0
    assert calls == [True] * 8


def test_equal_pairs_first_is_not_always_the_best_pairing() -> None:
    """Why only whole sides settle: pairing 12 with 12 first would score lower here, as
    the relative error of 14 against 12 is smaller than that of 12 against 10."""
    result = score([12, 10], [12, 14], "similarity", align="hungarian")
    assert [(f.gold, f.model) for f in result.fields] == [(12, 14), (10, 12)]
    assert result.score == pytest.approx((5 / 6 + 0.8) / 2)


@pytest.mark.parametrize(
    ("gold", "model", "method", "expected"),
    [
        (["a", "b"], ["a", "b", "c"], "sequence", ((0, 0), (1, 1))),
        (["a", "b", "c"], ["a", "b"], "sequence", ((0, 0), (1, 1))),
        (["a", "b"], ["b", "a"], "sequence", None),
        (["a", "b", "c"], ["a", "b"], "hungarian", None),  # more gold: the solver decides
        (["a", "b"], ["b", "a"], "hungarian", None),  # no screen given
        (["a", "a"], ["a", "a", "a"], "hungarian", ((0, 0), (1, 1))),
    ],
)
def test_align_equal_settles_only_whole_sides(
    gold: list[str], model: list[str], method: str, expected: Any
) -> None:
    found = align_equal(gold, model, AlignSpec(method), canonical_key)
    assert (found and found.pairs) == expected or (found is None and expected is None)


def test_a_screen_settles_a_shuffle_unless_a_tie_is_possible() -> None:
    spec = AlignSpec("hungarian")
    found = align_equal(["a", "b"], ["c", "b", "a"], spec, canonical_key, lambda x: x)
    assert found is not None
    assert (found.pairs, found.unmatched_model) == (((0, 2), (1, 1)), (0,))
    # two gold copies on the first model copy: the solver would break that tie
    assert align_equal(["a", "a", "b"], ["b", "a", "a"], spec, canonical_key, lambda x: x) is None
    # a model element the screen cannot place might weigh any gold element's maximum
    assert align_equal(["a"], [1, "a"], spec, canonical_key, lambda x: None) is None


def test_a_settled_pairing_keeps_the_note_of_nested_arrays_weighed_in_order() -> None:
    """Past the work of aligning nested arrays while weighing, weighing says so in a note;
    the settled pairing says it too (the same result, note included)."""
    rows = [[f"s{i}", f"t{i}", f"u{i}", f"v{i}", f"w{i}"] for i in range(110)]
    for how, model in (("hungarian", [*rows, ["x"]]), ("sequence", rows)):
        quick = score(rows, model, "strict", align=how)
        full = weighed(rows, model, "strict", align=how)
        assert shown(quick) == shown(full)
        assert "weighed in positional order" in " ".join(quick.metrics["notes"])
