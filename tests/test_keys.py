"""Keys are compared as a JSON text names them: a Python literal's ``{1988: 5}`` is the gold's
``{"1988": 5}`` in every mode (AssetOpsBench v1 matched them; review realdata16), and the
key-level modes compose keys (NFC) as they compose text."""

from __future__ import annotations

import json
import unicodedata
from collections import OrderedDict
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import score
from pytest_structeval.errors import LimitError
from pytest_structeval.keys import key_text, named_keys
from tests.realdata import require_data

MODES = ("strict", "similarity", "schema")


@pytest.mark.parametrize("mode", MODES)
def test_a_python_literal_keyed_by_numbers_matches_its_json_gold(mode: str) -> None:
    gold, literal = '{"1988": 1255, "2012": -1118}', "{1988: 1255, 2012: -1118}"
    for first, second in ((gold, literal), (literal, gold)):
        result = score(first, second, mode)
        assert (result.passed, result.score) == (True, 1.0)
    wrong = score(gold, "{1988: 1255, 2012: -1000}", mode)
    assert [f.path for f in wrong.failing_fields] == ['answer["2012"]']


@pytest.mark.parametrize(
    ("key", "text"),
    [
        (True, "true"),
        (False, "false"),
        (None, "null"),
        (7, "7"),
        (1.5, "1.5"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (float("nan"), "NaN"),
        ("Würzburg", "Würzburg"),
        ((1, "a"), "(1, 'a')"),
    ],
)
def test_key_text_writes_what_json_dumps_writes(key: object, text: str) -> None:
    assert key_text(key) == text


def test_a_key_already_named_stays_as_it_is_and_nothing_is_lost() -> None:
    value = {1: "a", "1": "b", None: "c"}
    assert named_keys(value, "literal") == {1: "a", "1": "b", "null": "c"}
    result = score({"1": "b", 1: "a"}, "{1: 'a', '1': 'b'}")
    assert (result.passed, result.metrics["f1"]) == (True, 1.0)


def test_a_value_without_a_key_to_name_is_returned_as_it_is() -> None:
    value = {"a": [{"b": 1}], "é": 2}
    assert named_keys(value, "value") is value
    text = '{"1": {"2": 3}}'
    parsed = json.loads(text)
    assert named_keys(parsed, "fence:json+json", text) is parsed  # JSON in ASCII: no look


def test_keys_of_any_mapping_are_named() -> None:
    value = {"a": [OrderedDict({1: "x"})], "b": MappingProxyType({None: (2,)})}
    assert named_keys(value, "value") == {"a": [{"1": "x"}], "b": {"null": [2]}}


def test_shared_parts_stay_shared_and_a_cycle_is_left_for_the_walk() -> None:
    shared: dict[Any, Any] = {1: "x"}
    named = named_keys({"a": shared, "b": [shared, (shared,)]}, "value")
    assert named == {"a": {"1": "x"}, "b": [{"1": "x"}, [{"1": "x"}]]}
    assert named["a"] is named["b"][0] is named["b"][1][0]
    cycle: dict[Any, Any] = {1: None}
    cycle[2] = cycle
    cycle[3] = cycle  # two ways round: a depth-bounded copy would take 2**200 steps
    copied = named_keys(cycle, "value")
    assert copied["2"] is copied
    assert copied["3"] is copied
    error = score({"a": 1}, cycle).error
    assert error is not None
    assert "max_depth" in error


@pytest.mark.parametrize("mode", MODES)
def test_a_key_too_long_to_name_fails_the_answer_and_refuses_the_gold(mode: str) -> None:
    huge = 10**5000
    result = score({"a": 1}, {huge: 1, "a": 1}, mode)
    assert result.error is not None
    assert result.error.startswith("model answer: a key is an integer of 16610 bits")
    with pytest.raises(LimitError, match="16610 bits"):
        score({huge: 1}, {"a": 1}, mode)


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_the_key_level_modes_compose_keys(mode: str) -> None:
    """DeepSynth Q58's gold written decomposed (NFD, as macOS writes file names) showed the
    same path twice, as missing and as not in the gold."""
    gold = '{"Aachen": 3.66, "Karlsruhe": 3.71, "Würzburg": 3.80}'
    decomposed = unicodedata.normalize("NFD", gold)
    assert decomposed != gold
    for first, second in ((gold, decomposed), (decomposed, gold)):
        result = score(first, second, mode)
        assert (result.passed, result.score) == (True, 1.0)
    both = {"é": 1, unicodedata.normalize("NFD", "é"): 2}  # two keys: both kept
    assert named_keys(both, "value") == both


def test_schema_mode_reads_a_key_in_either_form_as_the_property_the_schema_spells() -> None:
    """unicode32 #2: a key that named a property only in another Unicode form was "not in
    the schema (unscored)": a gold and a model written decomposed against a composed schema
    passed a wrong value with 1.0 (``evaluate`` too). It is that property, named as the
    schema spells it, in either direction, and in an inferred schema as the gold spells it."""
    from pytest_structeval.schema.evaluate import evaluate
    from pytest_structeval.schema.xeval import annotate_xeval

    nfc, nfd = "café", unicodedata.normalize("NFD", "café")
    for spelt, other in ((nfc, nfd), (nfd, nfc)):
        schema = {"type": "object", "properties": {spelt: {"type": "string"}, "n": {}}}
        wrong = score({other: "x", "n": 1}, {other: "WRONG", "n": 1}, "schema", schema=schema)
        assert (wrong.passed, wrong.score) == (False, 0.5)
        assert [f.path for f in wrong.fields] == [f"answer.{spelt}", "answer.n"]
        mixed = score({spelt: "x", "n": 1}, {other: "x", "n": 1}, "schema", schema=schema)
        assert (mixed.passed, mixed.score) == (True, 1.0)
        batch = evaluate([{other: "x"}], [{other: "y"}], annotate_xeval(schema))
        assert [f.status for f in batch.records[0].fields] == ["mismatch"]
    inferred = score({nfd: "x"}, {nfc: "x"}, "schema")
    assert (inferred.passed, inferred.score) == (True, 1.0)
    both = {"type": "object", "properties": {nfc: {}, nfd: {}}}  # two properties: as written
    assert [
        f.path for f in score({nfc: 1, nfd: 2}, {nfc: 1, nfd: 2}, "schema", schema=both).fields
    ] == [
        f"answer.{nfc}",
        f"answer.{nfd}",
    ]


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=5)


@given(
    st.recursive(
        JSON_SCALARS,
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(
                st.integers(-50, 50) | st.booleans() | st.none(), children, max_size=3
            )
        ),
        max_leaves=15,
    )
)
def test_keys_are_named_as_a_json_round_trip_names_them(value: Any) -> None:
    """Without a string key beside them, every key reads as ``json.dumps`` writes it."""
    assert named_keys(value, "value") == json.loads(json.dumps(value))


@given(
    st.recursive(
        JSON_SCALARS,
        lambda children: st.dictionaries(
            st.integers(-50, 50) | st.none() | st.text("éàüa", min_size=1, max_size=3),
            children,
            max_size=4,
        ),
        max_leaves=15,
    ),
    st.booleans(),
)
def test_keys_beside_non_ascii_string_keys_are_named_too(value: Any, compose: bool) -> None:
    """A non-ASCII string key before an int key hid it (``{'café': 1, 2: 3}``: the int was
    never named, or, composing, ``is_normalized`` raised ``TypeError`` on it: found by
    fuzz26). Letter keys never collide with a number's or null's name."""
    assert named_keys(value, "value", compose=compose) == json.loads(json.dumps(value))


def test_a_literal_answer_with_an_accented_key_before_an_int_key_scores() -> None:
    for mode in ("strict", "similarity"):
        result = score({"café": 1, "2": 3}, "Final Answer: {'café': 1, 2: 3}", mode)
        assert (result.passed, result.score, result.error) == (True, 1.0, None)


def test_every_deepsynth_gold_keyed_by_years_matches_its_python_literal() -> None:
    """Six DeepSynth golds are keyed by years or year ranges; a model answering with a
    Python dict literal of int keys scored 0 in strict mode (review realdata16)."""
    path = require_data("deepsynth", "gold_dev.jsonl")
    golds = [json.loads(line)["gold_raw"] for line in path.read_text().splitlines()]
    numeric = []
    for gold in golds:
        try:
            value = json.loads(gold)
        except ValueError:
            continue
        if isinstance(value, dict) and value and all(k.isdigit() for k in value):
            numeric.append(gold)
    assert len(numeric) >= 2
    for gold in numeric:
        literal = repr({int(k): v for k, v in json.loads(gold).items()})
        for mode in ("strict", "similarity"):
            assert score(gold, literal, mode).score == 1.0, (gold, mode)


def test_a_decomposed_key_written_as_escapes_is_composed_too() -> None:
    """JSON in ASCII can still spell an NFD key with ``\\u`` escapes: the quick path skipped
    it, so the same key failed against its unescaped twin (review diff16a)."""
    decomposed = unicodedata.normalize("NFD", "café")
    escaped, plain = json.dumps({decomposed: 5}), json.dumps({decomposed: 5}, ensure_ascii=False)
    assert escaped.isascii()
    for first, second in ((escaped, plain), (plain, escaped), (json.dumps({"café": 5}), escaped)):
        assert score(first, second).passed


NFC_KEY, NFD_KEY = "Würzburg", unicodedata.normalize("NFD", "Würzburg")


@pytest.mark.parametrize("written", [NFC_KEY, NFD_KEY], ids=["composed", "decomposed"])
@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_option_paths_name_composed_keys_however_they_are_typed(mode: str, written: str) -> None:
    """Keys are composed in these modes, so a path typed decomposed (copied from a macOS
    file) named no key: its ``ignore_paths``, ``options`` and ``target_output_key`` did
    nothing, silently."""
    gold, model = {NFC_KEY: 1.0, "b": 2}, {NFD_KEY: 1.05, "b": 2}
    assert score(gold, model, mode, ignore_paths=[written]).score == 1.0
    tolerant = {written: {"numeric_tolerance": 0.1}}
    assert score(gold, model, mode, options=tolerant).score == 1.0
    if mode == "similarity":
        result = score({"x": gold}, {"x": model, "y": 3}, mode, target_output_key=f"x.{written}")
        assert (result.passed, result.error) == (False, None)  # compared, not "not found"
        result = score({"x": gold}, {"x": model, "y": 3}, mode, target_output_key="x.b")
        assert result.score == 1.0


@pytest.mark.parametrize("written", [NFC_KEY, NFD_KEY], ids=["composed", "decomposed"])
def test_schema_mode_globs_match_a_property_however_either_is_typed(written: str) -> None:
    """Schema mode keeps keys as written (a decomposed property name stays decomposed), so
    glob options compose both sides to compare: a composed glob missed the property."""
    gold, model = {NFD_KEY: None, "b": "c"}, {NFD_KEY: "n/a", "b": "c"}
    result = score(gold, model, "schema", absent_values={written: ["n/a"]})
    assert (result.passed, result.metrics.get("notes")) == (True, [])


@pytest.mark.parametrize("mode", ["strict", "similarity"])
def test_an_option_path_names_one_of_two_spellings_kept_apart(mode: str) -> None:
    """An object holding both spellings keeps two keys; a glob names the composed one only,
    so ignoring it cannot hide a mismatch under the other (review diff17a)."""
    gold, model = {NFC_KEY: 1, NFD_KEY: 2}, {NFC_KEY: 1, NFD_KEY: 3}
    for written in (NFC_KEY, NFD_KEY):
        assert score(gold, model, mode, ignore_paths=[written]).passed is False
        assert score(gold, model, mode, options={written: {"numeric_tolerance": 5}}).passed is False


def test_a_decomposed_target_output_key_reports_the_composed_field_path() -> None:
    """Its fields were reported under the path as typed, so one field showed as two rows
    that print alike in per_field and "worst fields" (review diff17a)."""
    gold, model = {"x": {NFC_KEY: {"n": 1.0}}}, {"x": {NFC_KEY: {"n": 0.5}}}
    escaped = r'x["Wu\u0308rzburg"]'  # the key decomposed, as a JSON escape
    for target in (f"x.{NFD_KEY}", [f"x.{NFC_KEY}", f"x.{NFD_KEY}"], escaped):
        result = score(gold, model, "similarity", target_output_key=target)
        assert [field.path for field in result.fields] == [f"answer.x.{NFC_KEY}.n"], target
