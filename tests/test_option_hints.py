"""Messages for the slips users of other tools make (review newuser28 #4): each names what
was meant."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_structeval import score
from pytest_structeval.errors import OptionsError


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"numeric_tolerence": 0.1},
            "strict mode: unknown option(s) 'numeric_tolerence' (did you mean "
            "'numeric_tolerance'?); known: threshold, ",
        ),
        (
            {"options": {"answer.a": {"case_sensitve": True}}},
            "options['answer.a']: unknown option 'case_sensitve' (did you mean "
            "'case_sensitive'?) (known: ",
        ),
        (
            {"options": {"answer.meta": {"skip": True}}},
            "; to leave a field out of the score, name it in ignore_paths",
        ),
    ],
)
def test_an_unknown_option_names_the_one_meant(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError) as raised:
        score({"a": 1}, {"a": 1}, **options)
    assert message in str(raised.value)


def test_an_option_far_from_every_name_gets_no_guess() -> None:
    with pytest.raises(OptionsError) as raised:
        score({"a": 1}, {"a": 1}, colour="blue")
    assert "did you mean" not in str(raised.value)


@pytest.mark.parametrize("name", ["subset", "Partial"])
def test_a_subset_scorer_points_at_ignore_extra(name: str) -> None:
    with pytest.raises(OptionsError, match=r"a subset match .* is strict mode with ignore_extra"):
        score({"a": 1}, {"a": 1}, name)


def test_a_dotted_index_in_a_path_option_gets_the_bracketed_form() -> None:
    """Agenta's and deepdiff's ``items.0.name`` names no field here: ``items[0].name`` does."""
    gold = {"items": [{"name": "a", "q": 1}]}
    model = {"items": [{"name": "b", "q": 1}]}
    result = score(gold, model, ignore_paths=["answer.items.0.name"], weights={"answer.x": 2})
    assert result.metrics["notes"] == [
        "ignore_paths pattern 'answer.items.0.name' matched no field (array elements are "
        "written [0]: 'answer.items[0].name')",
        "weights pattern 'answer.x' matched no field",
    ]
    fixed = score(gold, model, ignore_paths=["answer.items[0].name"])
    assert fixed.passed
    weighed = score({"x": [1, 2]}, {"x": [1, 3]}, weights={"answer.x.0": 2})
    assert weighed.metrics["notes"] == [  # (diff28b #3: the weights had no hint)
        "weights pattern 'answer.x.0' matched no field (array elements are written [0]: "
        "'answer.x[0]')"
    ]
    for mode in ("strict", "similarity", "schema"):  # (diff28c #7: absent_values had none)
        absent = score(
            {"x": [{"v": None, "w": 1}]},
            {"x": [{"v": "N/A", "w": 1}]},
            mode,
            absent_values={"answer.x.0.v": [None, "N/A"]},
        )
        assert absent.metrics["notes"] == [
            "absent_values pattern 'answer.x.0.v' matched no field (array elements are "
            "written [0]: 'answer.x[0].v')"
        ]
        followed = score(
            {"x": [{"v": None, "w": 1}]},
            {"x": [{"v": "N/A", "w": 1}]},
            mode,
            absent_values={"answer.x[0].v": [None, "N/A"]},
        )
        assert followed.metrics["notes"] == []
    # absent values are object keys' values: an element's own index gets no hint (diff28d #2),
    # one whose element holds keys does (diff28e #1: a glob covers what lies below it)
    element = score([None, 1], ["N/A", 1], absent_values={"answer.0": [None, "N/A"]})
    assert element.metrics["notes"] == ["absent_values pattern 'answer.0' matched no field"]
    holder = score(
        [{"v": "N/A", "w": 1}], [{"v": None, "w": 1}], absent_values={"answer.0": [None, "N/A"]}
    )
    assert holder.metrics["notes"] == [
        "absent_values pattern 'answer.0' matched no field (array elements are written [0]: "
        "'answer[0]')"
    ]
    assert score(
        [{"v": "N/A", "w": 1}], [{"v": None, "w": 1}], absent_values={"answer[0]": [None, "N/A"]}
    ).passed
    # an object with number-like keys is written dotted: a key it lacks gets no hint that
    # would be wrong too (diff28a #4)
    keyed = score(
        {"scores": {"2023": 1}}, {"scores": {"2023": 1}}, ignore_paths=["answer.scores.2024"]
    )
    assert keyed.metrics["notes"] == ["ignore_paths pattern 'answer.scores.2024' matched no field"]
