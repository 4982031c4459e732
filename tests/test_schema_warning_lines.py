"""A schema file's ``SchemaWarning`` about a key is located at the line that writes that key
(review schemaline38): an unreadable ``patternProperties`` pattern, a reference to another
document under a map's or pattern's schema, branches setting an ``x-eval-*`` key differently,
and a ``pattern`` the validity check cannot read pointed at line 1 of the file (the last at
the caller's line, or inside pytest in a scenario run). A node a ``$ref`` reaches is located
where the document writes it, not at the first line that writes a key of that name."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import assert_json_matches, assert_json_valid, score
from pytest_structeval.schema import SchemaWarning
from tests.plugin_support import write

UNREADABLE = "Python's re cannot read this pattern"

# an unreadable pattern key on line 7 (JSON and YAML)
PATTERN_KEY_JSON = """{
  "type": "object",
  "properties": {
    "a": {"type": "string"},
    "m": {
      "type": "object",
      "patternProperties": {"(?<x": {"type": "string"}}
    }
  }
}
"""
PATTERN_KEY_YAML = """type: object
properties:
  a: {type: string}
  m:
    type: object
    patternProperties:
      "(?<x": {type: string}
"""
# the same pattern key in a definition a $ref names, after a first writing of it elsewhere
PATTERN_KEY_DEFS = """{
  "type": "object",
  "properties": {
    "a": {"type": "object", "patternProperties": {"(?<x": {"type": "string"}}},
    "b": {"$ref": "#/$defs/B"}
  },
  "$defs": {
    "B": {"type": "object",
          "patternProperties": {"(?<x": {"type": "string"}}}
  }
}
"""
# references to another document under a map's and a pattern's schema (lines 7 and 9),
# in definitions, after a first $ref on line 4
EXTERNAL_REFS = """{
  "type": "object",
  "properties": {
    "m": {"$ref": "#/$defs/M"},
    "p": {"type": "object", "patternProperties": {"^p": {"$ref": "#/$defs/P"}}}
  },
  "$defs": {"M": {"type": "object", "additionalProperties": {"$ref": "other.json#/m"}},
    "P": {"type": "object",
      "properties": {"q": {"$ref": "other.json#/p"}}}
  }
}
"""
EXTERNAL_REF_YAML = """type: object
properties:
  a: {type: string}
  m:
    type: object
    additionalProperties:
      $ref: other.yaml#/m
"""
# anyOf branches setting x-eval-compare differently: the one left out is on line 7; through
# $refs, on line 10 (the first x-eval-compare key of the file is on line 6)
CONFLICT = """{
  "type": "object",
  "properties": {
    "a": {"type": "string"},
    "n": {"anyOf": [
      {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 1}}}},
      {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 2}}}}]},
    "r": {"allOf": [{"$ref": "#/$defs/R1"}, {"$ref": "#/$defs/R2"}]}
  },
  "$defs": {"R1": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 1}}}},
    "R2": {"type": "number",
      "x-eval-compare": {"numeric": {"tolerance": {"abs": 3}}}}}
}
"""
# a comparator that does not fit its field, in a definition, after another x-eval-compare
# key on line 4 (the existing callers went to the first line writing the key)
DEFS_COMPARATOR = """{
  "type": "object",
  "properties": {
    "s": {"type": "string", "x-eval-compare": "exact"},
    "w": {"$ref": "#/$defs/W"}
  },
  "$defs": {
    "W": {"type": "number",
      "x-eval-compare": "exact"}
  }
}
"""
# a `pattern` the validity check cannot read, on line 7; in a definition, on line 9 (after a
# readable `pattern` on line 4); under patternProperties, on line 8
VALIDITY_PATTERN = """{
  "type": "object",
  "properties": {
    "m": {"type": "object"},
    "a": {
      "type": "string",
      "pattern": "(?<x"
    }
  }
}
"""
VALIDITY_PATTERN_YAML = """type: object
properties:
  m: {type: object}
  a:
    type: string
    minLength: 1
    pattern: "(?<x"
"""
VALIDITY_PATTERN_DEFS = """{
  "type": "object",
  "properties": {
    "m": {"type": "object", "patternProperties": {"^k": {"type": "string", "pattern": "^v"}}},
    "a": {"$ref": "#/$defs/A"}
  },
  "$defs": {
    "A": {"type": "string",
      "pattern": "(?<y"}
  }
}
"""
VALIDITY_PATTERN_KEY = """{
  "type": "object",
  "properties": {
    "a": {"type": "string", "pattern": "^x"},
    "m": {
      "type": "object",
      "patternProperties": {
        "(?<z": {"type": "string"}
      }
    }
  }
}
"""
# a draft-04 document: `const` is not one of its keywords, so the check reads a copy of the
# object without it (the `pattern` on line 8)
VALIDITY_PATTERN_DRAFT4 = """{
  "$schema": "http://json-schema.org/draft-04/schema#",
  "type": "object",
  "properties": {
    "a": {
      "type": "string",
      "const": "y",
      "pattern": "(?<x"
    }
  }
}
"""
GOLD = {"a": "x", "m": {"k": "v"}}


def located(call: Callable[[], Any]) -> list[tuple[str, int, str]]:
    """The file, line and message of each ``SchemaWarning`` ``call`` gives (sorted)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return sorted(
        (w.filename, w.lineno, str(w.message)) for w in seen if w.category is SchemaWarning
    )


def lines_of(found: list[tuple[str, int, str]]) -> list[tuple[str, int]]:
    return [(filename, lineno) for filename, lineno, _ in found]


@pytest.mark.parametrize(
    ("name", "text", "line"), [("s.json", PATTERN_KEY_JSON, 7), ("s.yaml", PATTERN_KEY_YAML, 7)]
)
def test_an_unreadable_pattern_key_warns_at_its_line(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    path = str(write(tmp_path / name, text))
    for check in (score, assert_json_matches):
        found = located(lambda: check(GOLD, GOLD, "schema", schema=path))  # noqa: B023
        assert lines_of(found) == [(path, line)]
        assert found[0][2].startswith(f"properties.m.patternProperties.(?<x: {UNREADABLE}")


@pytest.mark.parametrize(
    ("name", "text", "line"), [("s.json", PATTERN_KEY_JSON, 7), ("s.yaml", PATTERN_KEY_YAML, 7)]
)
def test_evaluate_and_validate_gold_warn_at_the_files_line(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    """The batch API given a schema file parses it at that file too (it warned at the
    caller's line, as for a schema given as a dict)."""
    from pytest_structeval.schema import evaluate, validate_gold

    annotated = text.replace('"type": "string"}', '"type": "string", "x-eval-compare": "exact"}')
    annotated = annotated.replace("{type: string}", "{type: string, x-eval-compare: exact}")
    path = str(write(tmp_path / name, annotated))
    for call in (
        lambda: evaluate([GOLD], [GOLD], path),
        lambda: validate_gold([GOLD], path),
        lambda: validate_gold([GOLD], Path(path)),
    ):
        found = located(call)
        assert lines_of(found) == [(path, line)]
        assert found[0][2].startswith(f"properties.m.patternProperties.(?<x: {UNREADABLE}")
    if name.endswith(".json"):  # the same schema given as a dict: at the caller's line
        found = located(lambda: validate_gold([GOLD], json.loads(annotated)))
        assert [filename for filename, _ in lines_of(found)] == [__file__]


def test_a_pattern_key_a_reference_reaches_warns_where_the_definition_writes_it(
    tmp_path: Path,
) -> None:
    """Not at the first line that writes the key (the other object's, line 4)."""
    path = str(write(tmp_path / "s.json", PATTERN_KEY_DEFS))
    found = located(lambda: score({"a": {}, "b": {}}, {"a": {}, "b": {}}, "schema", schema=path))
    assert [(line, message.split(":")[0]) for _, line, message in found] == [
        (4, "properties.a.patternProperties.(?<x"),
        (9, "properties.b.patternProperties.(?<x"),
    ]


def test_a_reference_to_another_document_warns_at_its_line(tmp_path: Path) -> None:
    """Under a map's values and a pattern's keys, in definitions: at the ``$ref`` key of the
    object that holds it, not at the first ``$ref`` of the file."""
    path = str(write(tmp_path / "s.json", EXTERNAL_REFS))
    gold = {"m": {"k": 1}, "p": {"pa": {"q": 1}}}
    found = located(lambda: score(gold, gold, "schema", schema=path))
    assert [
        (line, "other.json#/m" in said, "other.json#/p" in said) for _, line, said in found
    ] == [
        (7, True, False),
        (9, False, True),
    ]
    assert all("left unscored" in said for _, _, said in found)
    yaml_path = str(write(tmp_path / "s.yaml", EXTERNAL_REF_YAML))
    found = located(lambda: score(GOLD, GOLD, "schema", schema=yaml_path))
    assert lines_of(found) == [(yaml_path, 7)]


def test_branches_that_set_a_key_differently_warn_at_the_value_left_out(tmp_path: Path) -> None:
    """The branch whose ``x-eval-compare`` is not used: written inline (line 7), and in a
    definition an ``allOf`` names (line 12), not the first such key of the file (line 6)."""
    path = str(write(tmp_path / "s.json", CONFLICT))
    gold = {"a": "x", "n": 1, "r": 1}
    found = located(lambda: score(gold, gold, "schema", schema=path))
    assert [(line, said.split(":")[0]) for _, line, said in found] == [
        (7, "properties.n"),
        (12, "properties.r"),
    ]
    assert all("set x-eval-compare differently" in said for _, _, said in found)


def test_a_definitions_comparator_warns_where_the_definition_writes_it(tmp_path: Path) -> None:
    """'exact' on a number field inside a definition: at the definition's key (line 9), not at
    the file's first ``x-eval-compare`` (line 4)."""
    path = str(write(tmp_path / "s.json", DEFS_COMPARATOR))
    found = located(lambda: score({"s": "a", "w": 1}, {"s": "a", "w": 1}, "schema", schema=path))
    assert [(line, said.split(":")[0]) for _, line, said in found] == [
        (9, "properties.w.x-eval-compare")
    ]


# 'exact' on a number kept from an anyOf branch (line 6), merged before a sibling allOf
# member that sets x-eval-compare to 'numeric' (line 8), a piece resolution reads first
KEPT_FROM_A_BRANCH = """{
  "type": "object",
  "properties": {
    "n": {"allOf": [
      {"anyOf": [{"type": "number",
                  "x-eval-compare": "exact"}]},
      {"type": "number",
       "x-eval-compare": "numeric"}
    ]}
  }
}
"""


def test_a_key_merged_from_several_objects_warns_where_the_kept_value_is_written(
    tmp_path: Path,
) -> None:
    """The node keeps the branch's 'exact' (the first merged): the warning about it points at
    the line that writes 'exact' (line 6), not at the sibling's 'numeric' (line 8), which
    resolution read first; the conflict warns at the value left out (line 8)."""
    path = str(write(tmp_path / "s.json", KEPT_FROM_A_BRANCH))
    found = located(lambda: score({"n": 1}, {"n": 1}, "schema", schema=path))
    assert [(line, said.split(": ")[1][:12]) for _, line, said in found] == [
        (6, "'exact' on a"),
        (8, "branches of "),
    ]


@pytest.mark.parametrize(
    ("name", "text", "line", "pointer"),
    [
        ("v.json", VALIDITY_PATTERN, 7, "#/properties/a/pattern"),
        ("v.yaml", VALIDITY_PATTERN_YAML, 7, "#/properties/a/pattern"),
        ("d.json", VALIDITY_PATTERN_DEFS, 9, "#/$defs/A/pattern"),
        ("k.json", VALIDITY_PATTERN_KEY, 8, "#/properties/m/patternProperties/(?<z"),
        ("4.json", VALIDITY_PATTERN_DRAFT4, 8, "#/properties/a/pattern"),
    ],
)
def test_a_pattern_the_validity_check_cannot_read_warns_at_its_line(
    tmp_path: Path, name: str, text: str, line: int, pointer: str
) -> None:
    """``assert_json_valid`` and ``answer_schema`` given the file's path (it warned at the
    caller's line); a definition's at its own line, not the first ``pattern`` key's."""
    path = str(write(tmp_path / name, text))
    answer = {"a": "x", "m": {"k": "v", "z": "v"}}
    for call in (
        lambda: assert_json_valid(answer, path),
        lambda: score(answer, answer, answer_schema=path),
    ):
        found = located(call)
        assert lines_of(found) == [(path, line)], name
        assert found[0][2].startswith(f"{pointer}: {UNREADABLE}")
    # a schema given as a mapping still warns at the caller's line
    found = located(lambda: assert_json_valid(answer, GOLD_SCHEMA))
    assert lines_of(found) == [(__file__, found[0][1])]


GOLD_SCHEMA = {"type": "object", "properties": {"a": {"type": "string", "pattern": "(?<x"}}}


SCENARIO_YAML = """mode: schema
answer_schema:
  type: object
  properties:
    a:
      type: string
      pattern: "(?<w"
schema:
  type: object
  properties:
    a: {type: string}
    m:
      type: object
      patternProperties:
        "(?<y": {type: string}
"""


def _scenario(folder: Path, config: str, gold: Any = GOLD) -> None:
    write(folder / "scenario.yaml", config)
    write(folder / "groundtruth.json", json.dumps(gold))
    write(folder / "trajectory_0.json", json.dumps({"run_id": "r1", "answer": json.dumps(gold)}))


def test_a_scenario_run_shows_each_warning_at_its_line(pytester: pytest.Pytester) -> None:
    """In pytest's warnings summary: the file and line, and the line's text (a schema file in
    JSON and YAML, a schema and an answer_schema written inline in scenario.yaml); under an
    error filter, the run's error names that file and line, and no frame of the package is
    shown."""
    pytester.makeini("[pytest]\n")
    root = pytester.path / "sk"
    _scenario(root / "scenario_1", "mode: schema\nschema: s.json\nanswer_schema: v.json\n")
    write(root / "scenario_1" / "s.json", PATTERN_KEY_JSON)
    write(root / "scenario_1" / "v.json", VALIDITY_PATTERN)
    _scenario(root / "scenario_2", "mode: schema\nschema: s.yaml\n")
    write(root / "scenario_2" / "s.yaml", EXTERNAL_REF_YAML)
    _scenario(root / "scenario_3", SCENARIO_YAML)
    _scenario(root / "scenario_4", "mode: schema\nschema: s.json\n", {"a": "x", "n": 1, "r": 1})
    write(root / "scenario_4" / "s.json", CONFLICT)
    result = pytester.runpytest("--structeval-scenarios", "sk", "-p", "no:randomly")
    result.assert_outcomes(passed=4, warnings=7)
    result.stdout.fnmatch_lines(
        [
            "sk/scenario_1::1*",
            f"  sk/scenario_1/s.json:7: SchemaWarning: properties.m.patternProperties.(?<x: "
            f"{UNREADABLE}*",
            '    "patternProperties": {"(?<x": {"type": "string"}}',
            "",
            f"  sk/scenario_1/v.json:7: SchemaWarning: #/properties/a/pattern: {UNREADABLE}*",
            '    "pattern": "(?<x"',
            "",
            "sk/scenario_2::2*",
            "  sk/scenario_2/s.yaml:7: SchemaWarning: properties.m.additionalProperties.$ref: "
            "external reference 'other.yaml#/m' is not supported*",
            "    $ref: other.yaml#/m",
            "",
            "sk/scenario_3::3*",
            "  sk/scenario_3/scenario.yaml:15: SchemaWarning: properties.m.patternProperties."
            f"(?<y: {UNREADABLE}*",
            '    "(?<y": {type: string}',
            "",
            "  sk/scenario_3/scenario.yaml:7: SchemaWarning: #/properties/a/pattern: "
            f"{UNREADABLE}*",
            '    pattern: "(?<w"',
            "",
            "sk/scenario_4::4*",
            "  sk/scenario_4/s.json:7: SchemaWarning: properties.n: branches of anyOf/allOf/oneOf "
            "set x-eval-compare differently*",
            '    {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 2}}}}]},',
            "",
            "  sk/scenario_4/s.json:12: SchemaWarning: properties.r: branches of anyOf/allOf/oneOf "
            "set x-eval-compare differently*",
            '    "x-eval-compare": {"numeric": {"tolerance": {"abs": 3}}}}}',
        ]
    )
    result.stdout.no_fnmatch_line("*pytest_structeval/*")
    result = pytester.runpytest(
        "--structeval-scenarios",
        "sk",
        "-p",
        "no:randomly",
        "-W",
        "error::pytest_structeval.schema.SchemaWarning",
    )
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "error: sk/scenario_1/s.json:7: the schema's SchemaWarning, raised as an error by "
            "the warnings filter: properties.m.patternProperties.(?<x: *",
            "error: sk/scenario_2/s.yaml:7: the schema's SchemaWarning, raised as an error by "
            "the warnings filter: properties.m.additionalProperties.$ref: *",
            "error: sk/scenario_3/scenario.yaml:15: the schema's SchemaWarning, raised as an "
            "error by the warnings filter: properties.m.patternProperties.(?<y: *",
            "error: sk/scenario_4/s.json:7: the schema's SchemaWarning, raised as an error by "
            "the warnings filter: properties.n: *",
        ]
    )
    result.stdout.no_fnmatch_line("*pytest_structeval/*")


def test_a_warning_an_error_filter_raises_in_a_test_shows_the_users_line_only(
    pytester: pytest.Pytester,
) -> None:
    """Under ``-W error::...SchemaWarning`` a test's failure showed the package's frames
    between the user's call and the warning (``modes/schema.py: in parse``,
    ``tree.py: in parse_eval_schema``, ``resolve.py: in run``, ``validity.py: in _check``...,
    and the handled ``ExternalReferenceError`` as the warning's context): it shows the user's
    line and the warning, as for a messy gold."""
    pytester.makeini("[pytest]\n")
    for name, text in (
        ("p.json", PATTERN_KEY_JSON),
        ("e.json", EXTERNAL_REFS),
        ("c.json", CONFLICT),
        ("d.json", DEFS_COMPARATOR),
        ("v.json", VALIDITY_PATTERN),
    ):
        write(pytester.path / name, text)
    pytester.makepyfile(
        test_own="""
        from pytest_structeval import assert_json_matches, assert_json_valid, JsonMatches, score

        GOLD = {"a": "x", "m": {"k": "v"}, "n": 1, "r": 1, "p": {}, "s": "a", "w": 1}

        def test_pattern_key():
            score(GOLD, GOLD, "schema", schema="p.json")

        def test_external():
            assert_json_matches(GOLD, GOLD, "schema", schema="e.json")

        def test_branches():
            assert GOLD == JsonMatches(GOLD, mode="schema", schema="c.json")

        def test_comparator():
            score(GOLD, GOLD, "schema", schema={"type": "number", "x-eval-compare": "exact"})

        def test_answer_schema():
            score(GOLD, GOLD, answer_schema="v.json")

        def test_valid():
            assert_json_valid({"a": [{"b": "v"}]}, {"properties": {"a": {"items": {"anyOf": [
                {"properties": {"b": {"pattern": "(?<x"}}}]}}}})
        """
    )
    result = pytester.runpytest(
        "-p", "no:randomly", "-W", "error::pytest_structeval.schema.SchemaWarning"
    )
    result.assert_outcomes(failed=6)
    result.stdout.fnmatch_lines(
        [
            '>       score(GOLD, GOLD, "schema", schema="p.json")',
            "E       pytest_structeval.schema.tree.SchemaWarning: "
            f"properties.m.patternProperties.(?<x: {UNREADABLE}*",
            "test_own.py:6: SchemaWarning",
            '>       assert_json_matches(GOLD, GOLD, "schema", schema="e.json")',
            "E       pytest_structeval.schema.tree.SchemaWarning: *other.json#/m*",
            "test_own.py:9: SchemaWarning",
            '>       assert GOLD == JsonMatches(GOLD, mode="schema", schema="c.json")',
            "E       pytest_structeval.schema.tree.SchemaWarning: properties.n: branches *",
            "test_own.py:12: SchemaWarning",
            ">       score(GOLD, GOLD, *",
            "E       pytest_structeval.schema.tree.SchemaWarning: x-eval-compare: 'exact' on *",
            "test_own.py:15: SchemaWarning",
            '>       score(GOLD, GOLD, answer_schema="v.json")',
            "E       pytest_structeval.schema.tree.SchemaWarning: #/properties/a/pattern: *",
            "test_own.py:18: SchemaWarning",
            ">       assert_json_valid(*",
            "E       pytest_structeval.schema.tree.SchemaWarning: *#/properties/a/items/anyOf/0/*",
            "test_own.py:21: SchemaWarning",
        ]
    )
    for said in ("pytest_structeval/", "During handling", "ExternalReferenceError"):
        result.stdout.no_fnmatch_line(f"*{said}*")


def test_the_package_names_schema_warning_as_it_names_gold_warning(
    pytester: pytest.Pytester,
) -> None:
    """``-W error::pytest_structeval.SchemaWarning``, as ``...GoldWarning`` is written: pytest
    refused the filter (the class was only ``pytest_structeval.schema.SchemaWarning``)."""
    import pytest_structeval

    assert pytest_structeval.SchemaWarning is SchemaWarning
    pytester.makeini("[pytest]\n")
    write(pytester.path / "p.json", PATTERN_KEY_JSON)
    pytester.makepyfile(
        test_own="""
        from pytest_structeval import score

        def test_pattern_key():
            score({"a": "x"}, {"a": "x"}, "schema", schema="p.json")
        """
    )
    result = pytester.runpytest("-p", "no:randomly", "-W", "error::pytest_structeval.SchemaWarning")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"E       *SchemaWarning: *{UNREADABLE}*"])
