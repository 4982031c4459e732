"""YAML files, gold and schema alike, go through ``yamlvalue.yaml_value``: bounded, one-line
errors, JSON-shaped values, YAML 1.2 core scalars."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_structeval import score
from pytest_structeval.errors import SchemaError
from pytest_structeval.scenarios import discover_scenarios
from pytest_structeval.schema.io import load_schema
from pytest_structeval.yamlvalue import yaml_value


def test_an_alias_bomb_is_an_error_not_a_hang(tmp_path: Path) -> None:
    """Ten aliases per level, seven levels: PyYAML builds it instantly by sharing, and the
    schema walk then visits ten million leaves (it never finished before)."""
    lines = ["  a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    path = tmp_path / "bomb.yaml"
    path.write_text(
        "type: object\n$defs:\n" + "\n".join(lines) + "\nproperties:\n  x:\n    enum: *a7\n"
    )
    with pytest.raises(SchemaError, match=r"bomb\.yaml: malformed YAML: YAML aliases expand"):
        load_schema(path)


def test_aliases_within_bounds_are_copied_out(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "type: object\n"
        "properties:\n"
        "  a: &number {type: number, x-eval-compare: {numeric: {tolerance: {abs: 0.5}}}}\n"
        "  b: *number\n"
    )
    schema = load_schema(path)
    properties = schema["properties"]
    assert properties["a"] == properties["b"]
    assert properties["a"] is not properties["b"]  # a copy each, as JSON would give
    assert score({"a": 1, "b": 2}, {"a": 1.4, "b": 2.4}, mode="schema", schema=path).score == 1.0


def test_a_syntax_error_is_one_line_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("type: object\nproperties: [\n")
    with pytest.raises(SchemaError) as info:
        load_schema(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: malformed YAML: ")
    assert "(line 3, column 1)" in message


@pytest.mark.parametrize("value", ['!!int ""', "!!bool x", "!!timestamp x"])
def test_a_tagged_value_pyyaml_cannot_read_is_malformed_yaml(tmp_path: Path, value: str) -> None:
    """PyYAML's constructors raise IndexError, KeyError or AttributeError on these (review 14):
    a schema file is a SchemaError, a gold file one located load error."""
    schema = tmp_path / "s.yaml"
    schema.write_text(f"type: object\nproperties: {value}\n")
    problem = {
        '!!int ""': "not an integer: '' ",
        "!!bool x": "not a boolean: 'x' ",
        "!!timestamp x": "cannot read a tagged value",
    }[value]
    with pytest.raises(SchemaError, match=f"malformed YAML: {problem}"):
        load_schema(schema)
    folder = tmp_path / "sc" / "scenario_1"
    folder.mkdir(parents=True)
    (folder / "groundtruth.yaml").write_text(f"a: {value}\n")
    [found] = discover_scenarios([tmp_path / "sc"])
    assert found.error is not None
    assert f"invalid YAML: {problem}" in found.error


def test_gold_files_read_yaml_1_2_core_scalars(tmp_path: Path) -> None:
    """YAML 1.1 (PyYAML's own rules) read ``no`` and the country code ``NO`` as false, ``010``
    as octal 8 and ``12:30`` as 750 (review 14); a gold file now means what it shows."""
    folder = tmp_path / "sc" / "scenario_1"
    folder.mkdir(parents=True)
    (folder / "groundtruth.yaml").write_text(
        "answer: no\ncountry: NO\nasset_id: 010\nat: 12:30\nok: true\nrate: 1e3\nop: =\n"
    )
    [found] = discover_scenarios([tmp_path / "sc"])
    assert found.gold == {
        "answer": "no",
        "country": "NO",
        "asset_id": 10,
        "at": "12:30",
        "ok": True,
        "rate": 1000.0,
        "op": "=",  # YAML 1.1's "value" key, which did not load
    }


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("!!bool yes", "not a boolean: 'yes'"),  # YAML 1.1's reading
        ("!!float 1:30", "not a float: '1:30'"),  # base 60
        ("!!int 1_000", "not an integer: '1_000'"),
        ("!!int \u0661\u0662", "not an integer"),  # digits int() takes, YAML does not
        ("!!float 0x" + "f" * 300, "a float out of range"),
    ],
)
def test_explicit_tags_read_as_the_core_schema_reads_plain_scalars(
    value: str, problem: str
) -> None:
    """Review 15: tagged values kept YAML 1.1's readings (``!!bool yes`` true, ``!!float 1:30``
    90) while plain ones follow YAML 1.2's core schema."""
    with pytest.raises(ValueError, match=f"invalid YAML: {problem}"):
        yaml_value(f"a: {value}")
    assert yaml_value("a: !!bool True\nb: !!float 3\nc: !!int 010\nd: !!float -.inf") == {
        "a": True,
        "b": 3.0,
        "c": 10,
        "d": float("-inf"),
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: <<", {"a": "<<"}),
        ("- <<\n- 1", ["<<", 1]),
        ("<<", "<<"),
        ("a: [<<, 1]", {"a": ["<<", 1]}),
        ("<<: 5", {"<<": 5}),  # a merge key only merges mappings
        ("<<: null\nb: 1", {"<<": None, "b": 1}),
        ("<<: [{a: 1}, 3]", {"<<": [{"a": 1}, 3]}),
        ("a: {<<: x}", {"a": {"<<": "x"}}),
    ],
)
def test_a_plain_double_angle_that_merges_nothing_is_text(text: str, value: object) -> None:
    """Review gap: a plain ``<<`` anywhere but as a key merging mappings was malformed YAML
    ('could not determine a constructor for the tag ...merge'); YAML 1.2 reads it as text."""
    assert yaml_value(text) == value


def test_merge_keys_still_merge_mappings(tmp_path: Path) -> None:
    assert yaml_value("d: &d {b: 1, c: 1}\ne:\n  <<: *d\n  c: 2") == {
        "d": {"b": 1, "c": 1},
        "e": {"b": 1, "c": 2},
    }
    assert yaml_value("<<: [{a: 1}, {b: 2}]\nc: 3") == {"a": 1, "b": 2, "c": 3}
    folder = tmp_path / "scenario_1"
    folder.mkdir()
    (folder / "groundtruth.yaml").write_text("status: <<\nlevels: [<<, low]\n", "utf-8")
    (scenario,) = discover_scenarios([tmp_path])
    assert scenario.error is None
    assert scenario.gold == {"status": "<<", "levels": ["<<", "low"]}
    assert score(scenario.gold, '{"status": "<<", "levels": ["<<", "low"]}').passed


def test_a_binary_key_is_no_json_form() -> None:
    """As a ``!!binary`` value is refused (review mutants18b: the key came out as bytes)."""
    from pytest_structeval.yamlvalue import yaml_value

    with pytest.raises(ValueError, match="a !!binary key has no JSON form"):
        yaml_value("? !!binary aGk=\n: 1")


def test_non_string_keys_are_named_by_their_json_text_as_the_mapping_is_built() -> None:
    """Review goldyaml35 4: ``1``/``true`` and ``0``/``false`` are two keys each in YAML 1.2,
    but one in a Python dict (``1 == True``): the gold kept the first key's name with the
    second key's value, and no answer written as the gold could match it."""
    assert yaml_value("1: one\ntrue: T\n0: zero\nfalse: F") == {
        "1": "one",
        "true": "T",
        "0": "zero",
        "false": "F",
    }
    assert yaml_value("null: n\n1.5: f\n.inf: i") == {"null": "n", "1.5": "f", "Infinity": "i"}
    assert yaml_value("!!omap [1: a, true: b]") == {"1": "a", "true": "b"}
    gold = yaml_value("1: one\ntrue: T")
    assert score(gold, '{"1": "one", "true": "T"}').score == 1.0
