"""``absent_values``: which values mean "no value", for the whole answer or per field, in
every mode."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.absent import drop_absent, parse_absent
from pytest_structeval.errors import OptionsError

GOLD = {"name": "Ada", "middle": None, "note": "N/A", "tags": [None, 1]}
MODEL = {"name": "Ada", "tags": [None, 1]}
MODES = ["strict", "similarity", "schema"]


def statuses(result: Any) -> dict[str, str]:
    return {f.path: f.status for f in result.fields if not f.ok}


@pytest.mark.parametrize("mode", MODES)
def test_absent_values_make_null_and_missing_alike(mode: str) -> None:
    assert not score(GOLD, MODEL, mode).passed
    result = score(GOLD, MODEL, mode, absent_values=[None, "N/A"])
    assert (result.passed, result.score, statuses(result)) == (True, 1.0, {})


@pytest.mark.parametrize("mode", MODES)
def test_a_value_against_an_absent_one_is_an_omission_or_a_hallucination(mode: str) -> None:
    result = score({"a": "x", "b": ""}, {"a": "", "b": "y"}, mode, absent_values=[""])
    assert statuses(result) == {"answer.a": "omission", "answer.b": "hallucination"}
    assert result.parsed_model == {"a": "", "b": "y"}  # what the model said, kept


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_without_the_option_null_and_missing_differ(mode: str) -> None:
    assert statuses(score({"a": 1, "b": None}, {"a": 1}, mode)) == {"answer.b": "omission"}


@pytest.mark.parametrize("mode", MODES)
def test_per_field_the_most_specific_glob_decides(mode: str) -> None:
    policy = {"answer.people[*].*": ["N/A"], "answer.people[*].id": [], "**": [None]}
    gold = {"people": [{"id": "N/A", "city": "N/A"}], "x": None}
    model = {"people": [{"id": "7"}], "x": 1}
    result = score(gold, model, mode, absent_values=policy)
    expected = {"answer.people[0].id": "mismatch", "answer.x": "hallucination"}
    assert statuses(result) == expected


def test_a_glob_covers_what_lies_below_it() -> None:
    gold = {"p": {"a": None, "b": 1}, "q": None}
    model = {"p": {"b": 1}}
    only_p = score(gold, model, absent_values={"answer.p": [None]})
    assert statuses(only_p) == {"answer.q": "omission"}
    all_but_p = score(gold, model, absent_values={"**": [None], "answer.p": []})
    assert statuses(all_but_p) == {"answer.p.a": "omission"}


def test_a_doublestar_glob_turns_the_rule_off_under_a_parents_rule() -> None:
    """api25 #1: ``"**.note": []`` lost to ``answer.items`` at ``answer.items[0].note``."""
    gold, model = {"items": [{"k": 1, "note": None}]}, {"items": [{"k": 1}]}
    result = score(gold, model, absent_values={"answer.items": [None], "**.note": []})
    assert statuses(result) == {"answer.items[0].note": "omission"}


def test_identical_types_only_and_array_elements_stay() -> None:
    result = score({"a": 0, "b": [None]}, {"a": False, "b": [None]}, absent_values=[False, None])
    assert statuses(result) == {"answer.a": "omission"}  # 0 is not false; [None] keeps its element


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("N/A", "absent_values must be a list of values"),
        ([{"a": 1}], "is not a JSON scalar"),
        ({"": [None]}, "a path glob must be a non-empty string"),
        ({"answer.a": None}, "absent_values['answer.a'] must be a list"),
    ],
)
def test_bad_options(option: Any, message: str) -> None:
    for mode in MODES:
        with pytest.raises(OptionsError, match=message.replace("[", r"\[").replace("]", r"\]")):
            score({"a": 1}, {"a": 1}, mode, absent_values=option)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "N/A", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=15,
)


def _entry_values(value: Any) -> list[Any]:
    """The values of every object entry, at any depth."""
    out, stack = [], [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.extend(node.values())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def _empty_entries(value: Any) -> list[Any]:
    """The empty objects and arrays that object entries hold, anywhere in ``value``."""
    out, stack = [], [value]
    while stack:
        node = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, (dict, list)):
            stack.extend(children)
        if isinstance(node, dict):
            out.extend(v for v in node.values() if isinstance(v, (dict, list)) and not v)
    return out


@given(JSON)
def test_dropping_leaves_no_absent_entry_keeps_lists_and_is_idempotent(value: Any) -> None:
    policy = parse_absent([None, "N/A"])
    assert policy is not None
    dropped = drop_absent(value, "answer", policy, 200)
    assert not [v for v in _entry_values(dropped) if v is None or (type(v) is str and v == "N/A")]
    assert not _empty_entries(dropped)
    assert drop_absent(dropped, "answer", policy, 200) == dropped
    if not isinstance(value, dict):
        assert type(dropped) is type(value)
    if isinstance(value, list):
        assert len(dropped) == len(value)


def test_scenario_yaml_takes_the_option(pytester: pytest.Pytester) -> None:
    from tests.plugin_support import scenario, trajectory

    pytester.makeini("[pytest]\n")
    scenario(
        pytester.path / "sc",
        "scenario_1",
        '{"a": 1, "b": null}',
        trajectory("r", '{"a": 1}'),
        config="options:\n  absent_values: [null]\n",
    )
    pytester.runpytest("--structeval-scenarios", "sc").assert_outcomes(passed=1)


# -- review findings (diff15d) ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_an_object_of_absent_entries_is_itself_absent(mode: str) -> None:
    gold = {"name": "Ada", "address": {"street": None, "city": None}}
    for model in ({"name": "Ada", "address": None}, {"name": "Ada"}):
        result = score(gold, model, mode, absent_values=[None])
        assert (result.passed, statuses(result)) == (True, {})
    street = score(
        gold, {"name": "Ada", "address": {"street": "Main St"}}, mode, absent_values=[None]
    )
    assert set(statuses(street).values()) == {"hallucination"}  # one extra, never an omission too


@pytest.mark.parametrize("mode", MODES)
def test_deep_answers_do_not_recurse(mode: str) -> None:
    deep = '{"a": ' * 1_010 + "1" + "}" * 1_010
    result = score('{"a": 1}', deep, mode, max_depth=1_100, absent_values=[None])
    assert not result.passed


@pytest.mark.parametrize("mode", MODES)
def test_a_glob_that_covers_nothing_is_noted(mode: str) -> None:
    result = score({"a": 1}, {"a": 1}, mode, absent_values={"answer.mtea": [None]})
    assert "absent_values pattern 'answer.mtea' matched no field" in result.metrics["notes"]
    used = score({"a": None}, {"a": 1}, mode, absent_values={"answer.a": [None]})
    assert not [n for n in used.metrics["notes"] if "absent_values" in n]


def test_a_bad_glob_names_the_option() -> None:
    with pytest.raises(OptionsError, match=r"^absent_values: path 'a\.\.b': empty key"):
        score({"a": 1}, {"a": 1}, absent_values={"a..b": [None]})


def test_absent_values_leave_parts_past_max_depth_for_the_walk() -> None:
    from pytest_structeval.errors import LimitError

    gold = {"a": {"a": {"b": None}, "z": 1}, "z": 1}
    for absent in (None, [None]):
        with pytest.raises(LimitError):
            score(gold, gold, "strict", max_depth=2, absent_values=absent)


# -- review findings (asks18) -----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("empty", [{}, []])
def test_an_empty_object_or_array_is_absent_too(mode: str, empty: Any) -> None:
    """``"addr": {}`` says no address, as ``{"city": null}`` does: turning the option on must
    not fail an answer that passes without it (schema mode counted the ``{}``)."""
    gold = {"a": 1, "addr": {"city": None}}
    model = {"a": 1, "addr": empty}
    result = score(gold, model, mode, absent_values=[None])
    assert (result.passed, statuses(result)) == (True, {})
    assert score({"a": 1, "addr": empty}, {"a": 1}, mode, absent_values=[None]).passed
    off = score({"a": 1, "addr": empty}, {"a": 1}, mode, absent_values={"answer.a": [None]})
    assert statuses(off) == {"answer.addr": "omission"}  # no absent values apply there
