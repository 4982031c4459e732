"""``score(mode="schema")``: the shared limits, alignment notes, and schemas that score nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_structeval import assert_json_matches, score
from pytest_structeval.errors import LimitError, SchemaError
from tests.plugin_support import write

FIVE_DEEP = {"a": {"b": {"c": {"d": {"e": 1}}}}}
DEEP_MESSAGE = "value nests deeper than max_depth=3 at answer.a.b.c"


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


# ----------------------------------------------------------------------------- limits


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_parsed_gold_over_max_depth_raises_in_every_mode(mode: str) -> None:
    with pytest.raises(LimitError, match=f"^{DEEP_MESSAGE}$"):
        score(FIVE_DEEP, {"a": 1}, mode, max_depth=3)


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_parsed_model_over_max_depth_is_the_same_error_result(mode: str) -> None:
    result = score({"a": 1}, FIVE_DEEP, mode, max_depth=3)
    assert (result.passed, result.score) == (False, 0.0)
    assert result.error == f"model answer: {DEEP_MESSAGE}"
    assert result.reason == f"error: model answer: {DEEP_MESSAGE}"
    assert (result.parsed_gold, result.parsed_model) == ({"a": 1}, None)  # refused, not held
    assert result.parse_method == "value"


def test_the_depth_limit_counts_containers_as_the_walk_does() -> None:
    # Three nested objects fit max_depth=3; empty containers are leaves, not levels.
    three = {"a": {"b": {"c": 1, "e": {}, "l": []}}}
    assert score(three, three, "schema", max_depth=3).passed
    with pytest.raises(LimitError):
        score({"a": {"b": {"c": [1]}}}, {"a": 1}, "schema", max_depth=3)


def test_the_gold_is_checked_before_the_model() -> None:
    with pytest.raises(LimitError, match=r"at answer\.a\.b\.c$"):
        score(FIVE_DEEP, FIVE_DEEP, "schema", max_depth=3)


def test_five_thousand_levels_raise_or_fail_without_recursion_error() -> None:
    deep = nested(5_000)
    with pytest.raises(LimitError, match="max_depth=200"):
        score(deep, {"a": 1}, "schema")
    result = score({"a": 1}, deep, "schema")
    assert "max_depth=200" in (result.error or "")
    with pytest.raises(LimitError):
        assert_json_matches(deep, {"a": 1}, mode="schema")


def test_text_answers_keep_their_parse_limits_in_schema_mode() -> None:
    with pytest.raises(LimitError, match="max_bytes=10"):
        score('{"a": "' + "x" * 20 + '"}', {"a": "x"}, "schema", max_bytes=10)
    result = score({"a": "x"}, '{"a": "' + "x" * 20 + '"}', "schema", max_bytes=10)
    assert "max_bytes=10" in (result.error or "")
    too_deep = json.dumps(FIVE_DEEP)
    with pytest.raises(LimitError):
        score(too_deep, {"a": 1}, "schema", max_depth=3)
    assert score({"a": 1}, too_deep, "schema", max_depth=3).error is not None


# --------------------------------------------------------------------- schema scores nothing

B_ONLY = {"type": "object", "properties": {"b": {"type": "integer"}}}


def test_a_schema_that_scores_none_of_the_gold_fails_with_a_reason() -> None:
    result = score({"a": 1}, {"a": 2}, "schema", schema=B_ONLY)
    assert not result.passed
    assert result.reason == (
        "nothing scored: the gold's key is not in the schema (answer.a); "
        "check the schema's property names"
    )
    # The reference's metrics stay as they are: an empty denominator gives F1 1.0.
    assert result.score == result.metrics["f1"] == 1.0
    assert result.metrics["unscored"] == ["answer.a"]
    # No threshold makes it pass, and the fixture fails with the reason.
    assert not score({"a": 1}, {"a": 1}, "schema", schema=B_ONLY, threshold=0.0).passed
    with pytest.raises(AssertionError, match="nothing scored"):
        assert_json_matches({"a": 1}, {"a": 1}, mode="schema", schema=B_ONLY)


def test_the_reason_lists_a_few_unscored_keys() -> None:
    gold = {f"k{i}": i for i in range(7)}
    result = score(gold, gold, "schema", schema=B_ONLY)
    assert result.reason == (
        "nothing scored: the gold's keys are not in the schema (answer.k0, answer.k1, "
        "answer.k2, answer.k3, answer.k4 and 2 more); check the schema's property names"
    )


@pytest.mark.parametrize(
    ("gold", "model", "schema"),
    [
        # Some gold key is scored: the unscored ones are only shown, as documented.
        ({"a": 1, "b": 2}, {"a": 5, "b": 2}, B_ONLY),
        # Everything skipped on purpose is the schema author's choice.
        ({"b": 1}, {"b": 2}, {"type": "object", "properties": {"b": {"x-eval-skip": True}}}),
        # An empty gold has nothing the schema could miss; the model's undeclared key is allowed.
        ({}, {"x": 1}, {**B_ONLY, "additionalProperties": True}),
    ],
)
def test_records_that_score_something_or_have_nothing_to_score_still_pass(
    gold: Any, model: Any, schema: Any
) -> None:
    result = score(gold, model, "schema", schema=schema)
    assert result.passed, result.reason
    assert not result.reason.startswith("nothing scored")


def test_a_model_only_key_that_is_scored_still_counts() -> None:
    # The gold's only key is unscored but the model invents a declared one: F1 is 0.
    result = score({"a": 1}, {"a": 1, "b": 2}, "schema", schema=B_ONLY)
    assert not result.passed
    assert result.metrics["hallucinations"] == 1
    assert not result.reason.startswith("nothing scored")


# ------------------------------------------------------------------------------ notes

ROWS_SCHEMA = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "x-eval-align": {"match_by": "key_field", "key": "id"},
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "v": {"type": "integer"}},
            },
        }
    },
}


def test_schema_notes_use_the_answer_paths_of_the_fields() -> None:
    gold = {"rows": [{"id": 1, "v": 1}, {"id": 1, "v": 2}]}
    model = {"rows": [{"id": 1, "v": 2}, {"id": 1, "v": 1}]}
    schema_notes = score(gold, model, "schema", schema=ROWS_SCHEMA).metrics["notes"]
    strict_notes = score(gold, model, align={"answer.rows": {"key": "id"}}).metrics["notes"]
    assert (
        schema_notes
        == strict_notes
        == [
            "answer.rows: duplicate key 1 for field 'id' (gold at [0, 1], model at [0, 1]): "
            "paired in order of appearance"
        ]
    )
    root = {**ROWS_SCHEMA["properties"]["rows"]}
    notes = score(gold["rows"], model["rows"], "schema", schema=root).metrics["notes"]
    assert notes == [strict_notes[0].replace("answer.rows", "answer")]


def test_notes_under_quoted_keys_keep_their_path() -> None:
    schema = {"type": "object", "properties": {"a: b": ROWS_SCHEMA["properties"]["rows"]}}
    rows = [{"id": 1}, {"id": 1}]
    (note,) = score({"a: b": rows}, {"a: b": rows}, "schema", schema=schema).metrics["notes"]
    assert note.startswith('answer["a: b"]: duplicate key 1 ')


# ------------------------------------------------------------------- parsed-schema cache

NUMBER_SCHEMA = {"type": "object", "properties": {"a": {"type": "number"}}}


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Each schema document schema mode parses (the cache is emptied first)."""
    from pytest_structeval.modes import schema as schema_mode

    seen: list[Any] = []
    real = schema_mode.parse_eval_schema

    def spy(document: Any, **kwargs: Any) -> Any:
        seen.append(document)
        return real(document, **kwargs)

    monkeypatch.setattr(schema_mode, "parse_eval_schema", spy)
    monkeypatch.setattr(schema_mode, "_nodes", type(schema_mode._nodes)())
    return seen


def test_a_schema_is_parsed_once_for_many_answers(parses: list[Any], tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("type: object\nproperties: {a: {type: number}}\n", "utf-8")
    for model in ({"a": 1}, {"a": 2}, {"a": 1}):
        score({"a": 1}, model, "schema", schema=dict(NUMBER_SCHEMA))  # equal, not the same
        score({"a": 1}, model, "schema", schema=path)
        score({"a": 1}, model, "schema")  # inferred from the same gold
    assert len(parses) == 3
    score({"a": 2}, {"a": 2}, "schema")  # another gold infers another schema
    assert len(parses) == 4


def test_a_changed_schema_is_parsed_again(parses: list[Any], tmp_path: Path) -> None:
    schema: dict[str, Any] = json.loads(json.dumps(NUMBER_SCHEMA))
    assert not score({"a": 1}, {"a": 1.05}, "schema", schema=schema).passed
    schema["properties"]["a"]["x-eval-compare"] = {"numeric": {"tolerance": {"rel": 0.1}}}
    assert score({"a": 1}, {"a": 1.05}, "schema", schema=schema).passed  # edited in place

    path = tmp_path / "s.json"
    path.write_text(json.dumps(NUMBER_SCHEMA), "utf-8")
    assert not score({"a": 1}, {"a": 1.05}, "schema", schema=path).passed
    path.write_text(json.dumps(schema), "utf-8")  # rewritten at once: same size class, new text
    assert score({"a": 1}, {"a": 1.05}, "schema", schema=path).passed
    assert len(parses) == 4


def test_a_schema_file_that_repeats_a_key_is_parsed_once_and_warns_at_each_use(
    parses: list[Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    pytester: pytest.Pytester,
) -> None:
    """A schema file whose parse warned at its own line (a key written twice) was parsed again
    at every use: it is kept with that warning, given again at each use, where a parse would
    give it (each test under pytest's capture, each ``pytest.warns``), at that file's line."""
    from pytest_structeval.modes import schema as schema_mode
    from pytest_structeval.schema import SchemaWarning

    reads: list[str] = []
    real = schema_mode.schema_from_bytes

    def counted(data: bytes, path: Any) -> Any:
        reads.append(str(path))
        return real(data, path)

    monkeypatch.setattr(schema_mode, "schema_from_bytes", counted)
    text = '{"type": "object",\n "required": ["b"],\n "required": ["a"]}'
    path = write(tmp_path / "s.json", text)
    said = f"{path} repeats the key 'required' (lines 2 and 3): only the last value is read"
    for model in ({"a": 1}, {"b": 1}):
        with pytest.warns(SchemaWarning) as seen:
            score({"a": 1}, model, "schema", schema=path)
        assert [(w.filename, w.lineno, str(w.message)) for w in seen] == [(str(path), 2, said)]
    assert (reads, len(parses)) == ([str(path)], 1)
    # two tests of one session, each under pytest's own capture: each shows it
    pytester.makepyfile(
        test_two=f"""
        from pytest_structeval import score

        def test_one():
            assert score({{"a": 1}}, {{"a": 1}}, "schema", schema={str(path)!r}).passed

        def test_two():
            assert score({{"a": 1}}, {{"a": 2}}, "schema", schema={str(path)!r}).score == 0
        """
    )
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:xdist")
    result.assert_outcomes(passed=2, warnings=2)
    result.stdout.fnmatch_lines(
        [
            "*warnings summary*",
            "test_two.py::test_one",
            "test_two.py::test_two",
            f"*s.json:2: SchemaWarning: {said}",
        ]
    )
    assert (reads, len(parses)) == ([str(path)], 1)
    # the same bytes in another file: its warning names that file (parsed for it)
    other = write(tmp_path / "t.json", text)
    with pytest.warns(SchemaWarning, match=f"^{re.escape(str(other))} repeats") as seen:
        score({"a": 1}, {"a": 1}, "schema", schema=other)
    assert [(w.filename, w.lineno) for w in seen] == [(str(other), 2)]
    assert reads == [str(path), str(other)]
    # an unknown key is the file's problem too, at its line: kept, and given at each use
    odd = write(tmp_path / "u.json", '{"type": "object",\n "x-eval-compre": "exact"}')
    for _ in range(2):
        with pytest.warns(SchemaWarning, match="x-eval-compre") as seen:
            score({"a": 1}, {"a": 1}, "schema", schema=odd)
        assert [(w.filename, w.lineno) for w in seen] == [(str(odd), 2)]
    assert reads == [str(path), str(other), str(odd)]


def test_values_json_writes_alike_are_told_apart(parses: list[Any]) -> None:
    listed = {"type": ["object"], "properties": {"a": {"type": "string"}}}
    score({"a": "x"}, {"a": "x"}, "schema", schema=listed)
    with pytest.raises(SchemaError, match="got \\('object',\\)"):  # a tuple is not a list
        score({"a": "x"}, {"a": "x"}, "schema", schema={**listed, "type": ("object",)})
    score({"1": "x"}, {"1": "x"}, "schema")
    score({1: "x"}, {1: "x"}, "schema")  # schema mode names the int key 1 "1", as JSON
    assert len(parses) == 2


def test_type_defaults_and_registrations_are_part_of_the_parse(parses: list[Any]) -> None:
    from pytest_structeval.registry import default_registry
    from pytest_structeval.schema import ComparatorResult, type_defaults

    assert not score({"a": 1}, {"a": 1.05}, "schema", schema=NUMBER_SCHEMA).passed
    with type_defaults({"number": {"numeric": {"tolerance": {"rel": 0.1}}}}):
        assert score({"a": 1}, {"a": 1.05}, "schema", schema=NUMBER_SCHEMA).passed
    assert not score({"a": 1}, {"a": 1.05}, "schema", schema=NUMBER_SCHEMA).passed

    registry = default_registry().copy()
    lenient = {"type": "object", "properties": {"a": {"x-eval-compare": {"near": {"by": 1}}}}}
    registry.register_comparator("near", lambda g, m, p: ComparatorResult(1.0, "near"))
    assert score({"a": 1}, {"a": 3}, "schema", schema=lenient, registry=registry).passed

    def no_params(params: dict[str, Any]) -> None:
        if params:
            raise ValueError("takes no parameters")

    registry.register_comparator(
        "near", lambda g, m, p: ComparatorResult(1.0, "near"), overwrite=True, validate=no_params
    )
    with pytest.raises(SchemaError, match="takes no parameters"):
        score({"a": 1}, {"a": 3}, "schema", schema=lenient, registry=registry)


def test_schemas_holding_objects_are_parsed_every_time(parses: list[Any]) -> None:
    from pytest_structeval.registry import default_registry
    from pytest_structeval.schema import ComparatorResult

    class Window:  # a parameter whose repr does not show its state
        def __init__(self, size: int) -> None:
            self.size = size

    registry = default_registry().copy()
    registry.register_comparator(
        "window",
        lambda g, m, p: ComparatorResult(float(abs(g - m) <= p["w"].size), "window"),
    )
    window = Window(1)
    schema = {"type": "object", "properties": {"a": {"x-eval-compare": {"window": {"w": window}}}}}
    assert not score({"a": 1}, {"a": 3}, "schema", schema=schema, registry=registry).passed
    window.size = 5
    assert score({"a": 1}, {"a": 3}, "schema", schema=schema, registry=registry).passed
    assert len(parses) == 2


def test_huge_inferred_golds_are_not_kept(parses: list[Any]) -> None:
    from pytest_structeval.modes import schema as schema_mode

    big = {"text": "x" * 70_000}
    for _ in range(2):
        assert score(big, big, "schema").passed
    assert len(parses) == 2
    assert not schema_mode._nodes


# ------------------------------------------------------------------ failed comparators


@pytest.mark.parametrize("fields", [["a"], ["a", "b"]])
def test_a_record_a_comparator_failed_on_never_passes(fields: list[str]) -> None:
    from pytest_structeval.registry import default_registry

    def broken(items: list[Any]) -> list[float]:
        raise RuntimeError("service down")

    broken.is_batch = True  # type: ignore[attr-defined]
    registry = default_registry().copy()
    registry.register_comparator("remote", broken)
    schema = {
        "type": "object",
        "properties": {
            name: {"type": "string", "x-eval-compare": "remote" if name in fields else "exact"}
            for name in ("a", "b")
        },
    }
    result = score(
        {"a": "x", "b": "y"}, {"a": "x", "b": "y"}, "schema", schema=schema, registry=registry
    )
    assert result.metrics["batch_errors"] == len(fields)
    assert result.score == 1.0  # F1 over the fields that were scored, as the reference counts
    assert not result.passed
    paths = ", ".join(f"answer.{name}" for name in fields)
    errors = "1 batch error" if len(fields) == 1 else "2 batch errors"
    assert result.reason == (
        f"{errors}: a comparator failed and could not score {paths} "
        "(F1 1.000 over the fields it did score)"
    )
    with pytest.raises(AssertionError, match="a comparator failed"):
        assert_json_matches(
            {"a": "x", "b": "y"}, {"a": "x", "b": "y"}, "schema", schema=schema, registry=registry
        )


def test_a_schema_that_warns_warns_at_every_use(parses: list[Any]) -> None:
    from pytest_structeval.schema import SchemaWarning

    schema = {"type": "object", "properties": {"a": {"type": "number", "x-eval-comapre": "x"}}}
    for _ in range(2):
        with pytest.warns(SchemaWarning, match="unknown key ignored; did you mean"):
            assert score({"a": 1}, {"a": 1}, "schema", schema=schema).passed
    assert len(parses) == 2


def test_a_schema_file_warns_at_the_line_that_writes_the_key(tmp_path: Path) -> None:
    """Review fixpaths37 #1: a schema file's unknown x-eval key (or a comparator that does not
    fit its field) warned at the caller's line, in a scenario run inside the package
    (``modes/schema.py:167``); it is the file's problem, located at the key's line: in JSON,
    in YAML, under a JSONSchemaBench wrapper, where a ``$ref`` uses a definition (the
    definition's line). A schema given as a dict still warns at the caller's line."""
    from pytest_structeval.schema import SchemaWarning

    files = {
        "s.json": '{"type": "object",\n "properties": {\n  "w": {"type": "integer",\n'
        '        "x-eval-methd": "exact"},\n  "n": {"type": "number", "x-eval-compare": '
        '"exact"}}}',
        "s.yaml": "type: object\nproperties:\n  w:\n    type: integer\n"
        "    x-eval-methd: exact\n  n: {type: number,\n      x-eval-compare: exact}\n",
        "w.json": '{"description": "x",\n "schema": {"type": "object", "properties": {\n'
        '  "w": {"type": "integer",\n   "x-eval-methd": "exact"},\n  "n": {"type": "number",'
        '\n   "x-eval-compare": "exact"}}}}',
        "r.json": '{"type": "object", "properties": {"w": {"$ref": "#/$defs/W"},\n'
        ' "n": {"type": "number",\n "x-eval-compare": "exact"}},\n'
        ' "$defs": {"W": {"type": "integer",\n "x-eval-methd": "exact"}}}',
    }
    lines = {"s.json": [4, 5], "s.yaml": [5, 7], "w.json": [4, 6], "r.json": [5, 3]}
    for name, text in files.items():
        path = write(tmp_path / name, text)
        for check in (score, assert_json_matches):
            with pytest.warns(SchemaWarning) as seen:
                check({"w": 1, "n": 1}, {"w": 1, "n": 1}, "schema", schema=str(path))
            found = [(w.filename, w.lineno, str(w.message)) for w in seen]
            assert sorted(found, key=lambda one: one[2], reverse=True) == [
                (str(path), lines[name][0], "properties.w.x-eval-methd: unknown key ignored"),
                (
                    str(path),
                    lines[name][1],
                    "properties.n.x-eval-compare: 'exact' on a number field "
                    "(floats rarely match exactly)",
                ),
            ], name
    with pytest.warns(SchemaWarning) as seen:
        score({"w": 1, "n": 1}, {"w": 1, "n": 1}, "schema", schema=json.loads(files["s.json"]))
    assert {(w.filename, w.lineno) for w in seen} == {(__file__, seen[0].lineno)}
    assert len(seen) == 2


def test_a_schema_file_is_read_once_per_use(
    parses: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bytes that make the key are the bytes parsed: a file rewritten between two reads
    could otherwise be kept under the old content."""
    from pytest_structeval.modes import schema as schema_mode

    def no_second_read(source: Any) -> Any:
        raise AssertionError(f"{source} read a second time")

    monkeypatch.setattr(schema_mode, "load_schema", no_second_read)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(NUMBER_SCHEMA), "utf-8")
    assert score({"a": 1}, {"a": 1}, "schema", schema=path).passed
    assert len(parses) == 1


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("x-eval-weight", r"unknown key ignored$"),  # no x-eval key is close: no hint
        ("x-eval-comapre", "unknown key ignored; did you mean 'x-eval-compare'"),
        ("X-Eval-Compare", "written 'x-eval-<name>'; did you mean 'x-eval-compare'"),
        ("x_eval_compare", "written 'x-eval-<name>'; did you mean 'x-eval-compare'"),
        ("xeval-transform", "written 'x-eval-<name>'; did you mean 'x-eval-transform'"),
    ],
)
def test_misspelt_x_eval_keys_warn_with_a_fitting_hint(key: str, message: str) -> None:
    from pytest_structeval.schema import SchemaWarning, parse_eval_schema

    field = {"type": "string", "x-eval-compare": "exact", key: "x"}
    with pytest.warns(SchemaWarning, match=message):
        parse_eval_schema({"type": "object", "properties": {"a": field}})


def test_non_string_keys_are_scored_by_their_text() -> None:
    """A Python literal's {1: 'a'} is the JSON object {"1": 'a'}: its fields are scored
    (the difference below scored 1.0, all keys "outside the schema")."""
    result = score("{1: 'a', 2: 'b'}", "{1: 'a', 2: 'c'}", "schema")
    assert [(f.path, f.status) for f in result.fields] == [
        ('answer["1"]', "match"),
        ('answer["2"]', "mismatch"),
    ]
    keyed = score({True: 1, None: 2}, {True: 1, None: 2}, "schema")
    assert keyed.passed
    assert [f.path for f in keyed.fields] == ["answer.true", "answer.null"]
    schema = {"type": "object", "properties": {"7": {"type": "string"}}}
    assert score({7: "x"}, {"7": "x"}, "schema", schema=schema).passed


def test_a_unit_left_by_a_recursion_cut_says_so_when_it_differs() -> None:
    tree = {
        "type": "object",
        "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}},
    }
    gold = {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3, "kids": [{"v": 4}]}]}]}
    model = {"v": 1, "kids": [{"v": 2, "kids": [{"v": 3, "kids": [{"v": 5}]}]}]}
    (miss,) = [f for f in score(gold, model, "schema", schema=tree).fields if not f.ok]
    assert miss.path == "answer.kids[0].kids[0]"
    assert miss.reason == (
        "$ref '#' not expanded (recursion deeper than max_recursion=1); scored as one value"
    )


@pytest.mark.parametrize("key", ["x-eval", "X_Eval"])
def test_an_x_eval_mapping_of_this_packages_names_warns_how_they_are_written(key: str) -> None:
    """Review messages29 #10: ``x-eval: {compare: exact}`` was ignored without a word; an
    ``x-eval`` of other content stays another vendor's (below)."""
    from pytest_structeval.schema import SchemaWarning, parse_eval_schema

    field = {"type": "string", "x-eval-compare": "exact", key: {"compare": "fuzzy", "weight": 2}}
    for inner in ("Compare", "x-eval-compare", "X_Eval_Skip"):  # however cased (diff29b #8)
        other = {"type": "string", "x-eval-compare": "exact", key: {inner: True}}
        with pytest.warns(SchemaWarning, match="x-eval keys are written"):
            parse_eval_schema({"type": "object", "properties": {"a": other}})
    message = "ignored: x-eval keys are written 'x-eval-<name>' one by one ('x-eval-compare"
    with pytest.warns(SchemaWarning, match=re.escape(message)):
        parse_eval_schema({"type": "object", "properties": {"a": field}})


@pytest.mark.parametrize("key", ["x-evaluation", "xEvaluated", "x-eval", "x-evaluator-notes"])
def test_other_vendors_keys_like_x_eval_do_not_warn(key: str) -> None:
    import warnings

    from pytest_structeval.schema import parse_eval_schema

    field = {"type": "string", "x-eval-compare": "exact", key: "x"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parse_eval_schema({"type": "object", "properties": {"a": field}})


def test_a_key_a_string_key_already_names_is_left_as_it_is() -> None:
    """{1: 'a', '1': 'b'}: the int key stays outside the schema (a hallucination), whichever
    comes first, instead of one value silently replacing the other."""
    for model in ({1: "a", "1": "b"}, {"1": "b", 1: "a"}):
        result = score({"1": "b"}, model, "schema")
        assert round(result.score, 4) == 0.6667
        assert [f.status for f in result.fields if not f.ok] == ["hallucination"]


def test_exact_says_when_strings_differ_only_in_leading_or_trailing_whitespace() -> None:
    """Review goldyaml35 3: a YAML ``|`` block keeps its final newline, so every correct
    answer failed ``exact`` while the table showed the same clipped text on both sides with
    "exact: values differ"; the reason now names the cause."""
    from pytest_structeval.schema.comparators import compare_exact
    from pytest_structeval.yamlvalue import yaml_value

    assert compare_exact("a b\n", "a b", {}).reason == (
        "values differ only in trailing whitespace: the gold ends in '\\n', the answer in ''"
    )
    assert compare_exact(" a", "\ta", {}).reason == (
        "values differ only in leading whitespace: the gold starts with ' ', the answer with '\\t'"
    )
    assert compare_exact(" a ", "a", {}).reason == (
        "values differ only in leading and trailing whitespace"
    )
    assert compare_exact("a", "b", {}).reason is None
    gold = yaml_value(
        "pump: P-101\nfinding: |\n  Bearing temperature above limit; trip at 10:42.\n"
    )
    answer = {"pump": "P-101", "finding": "Bearing temperature above limit; trip at 10:42."}
    result = score(gold, json.dumps(answer), mode="schema")
    assert [(f.path, f.reason) for f in result.failing_fields] == [
        (
            "answer.finding",
            "values differ only in trailing whitespace: the gold ends in '\\n', the answer in ''",
        )
    ]
