"""Path syntax, escaping, flattening, globs and lookup (pytest_structeval.paths)."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_structeval.errors import LimitError, OptionsError
from pytest_structeval.paths import (
    ROOT,
    LiteralKey,
    PathRules,
    check_depth,
    compile_glob,
    compile_globs,
    first_too_deep,
    flatten,
    glob_specificity,
    index_path,
    json_kind,
    key_path,
    path_prefixes,
    resolve_path,
    split_path,
)

# --- rendering and reading paths ----------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("energy", "answer.energy"),
        ("asset_id", "answer.asset_id"),
        ("energy-kwh", "answer.energy-kwh"),
        ("2nd", "answer.2nd"),
        ("café", "answer.café"),
        ("a.b", 'answer["a.b"]'),
        ("a[0]", 'answer["a[0]"]'),
        ("x]", 'answer["x]"]'),
        ('say "hi"', 'answer["say \\"hi\\""]'),
        ("it's", 'answer["it\'s"]'),
        ("two words", 'answer["two words"]'),
        ("tab\there", 'answer["tab\\there"]'),
        ("", 'answer[""]'),
        ("0", 'answer["0"]'),
        ("-1", 'answer["-1"]'),
        ("*", 'answer["*"]'),
        ("back\\slash", 'answer["back\\\\slash"]'),
        ("bell\x07", 'answer["bell\\u0007"]'),
    ],
)
def test_key_path_escapes_only_keys_that_need_it(key: str, expected: str) -> None:
    assert key_path(ROOT, key) == expected
    assert split_path(expected) == (ROOT, key)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (1, "answer[<1>]"),
        (1.5, "answer[<1.5>]"),
        (True, "answer[<True>]"),
        (None, "answer[<None>]"),
        ((1, "a"), "answer[<(1, 'a')>]"),
        ((1, "x>]"), "answer[<(1, 'x>]')>]"),
        (b"raw", "answer[<b'raw'>]"),
        (float("inf"), "answer[<inf>]"),
    ],
)
def test_non_string_keys_render_as_literals_and_read_back(key: object, expected: str) -> None:
    assert key_path(ROOT, key) == expected
    assert split_path(expected) == (ROOT, LiteralKey(key))


def test_int_key_string_key_and_index_are_three_different_paths() -> None:
    paths = {key_path(ROOT, 1), key_path(ROOT, "1"), index_path(ROOT, 1)}
    assert paths == {"answer[<1>]", 'answer["1"]', "answer[1]"}
    assert split_path("answer[1]") == (ROOT, 1)
    assert split_path('answer["1"]') == (ROOT, "1")
    assert split_path("answer[<1>]") == (ROOT, LiteralKey(1))


def test_index_path_and_negative_indices() -> None:
    assert index_path("answer.items", 0) == "answer.items[0]"
    assert index_path("answer", -1) == "answer[-1]"
    assert split_path("answer[1][0]") == (ROOT, 1, 0)
    assert split_path("answer.rows[-2].id") == (ROOT, "rows", -2, "id")


def test_key_path_with_an_empty_parent_has_no_leading_dot() -> None:
    assert key_path("", "a") == "a"
    assert key_path("", "a.b") == '["a.b"]'
    assert split_path('["a.b"].c') == ("a.b", "c")


def test_split_path_reads_user_written_paths_leniently() -> None:
    assert split_path("items[0].name") == ("items", 0, "name")
    assert split_path('answer["a"].b') == (ROOT, "a", "b")
    assert split_path("answer.my key") == (ROOT, "my key")


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("a..b", "empty key"),
        (".a", "cannot start with '.'"),
        ("a.", "empty key"),
        ("a[", "expected an index"),
        ("a[x]", "expected an index"),
        ("a[0", r"expected '\]'"),
        ('a["b]', "unterminated quoted key"),
        ("a[<1]", "unterminated key"),
        ("a[<foo bar>]", "not a Python literal"),
        ("a[<[1]>]", "not hashable"),
        ('a["\\x"]', "bad quoted key"),
        ("a]b", r"expected '\.' or '\['"),
        ("a.*", "wildcard"),
        ("a[0]b", r"expected '\.' or '\['"),
    ],
)
def test_split_path_rejects_malformed_paths_clearly(path: str, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        split_path(path)


def test_split_path_rejects_absurdly_long_indices() -> None:
    with pytest.raises(OptionsError, match="index is too long"):
        split_path("answer[" + "9" * 5000 + "]")


def test_split_path_rejects_non_strings() -> None:
    with pytest.raises(OptionsError, match="must be a string"):
        split_path(3)  # type: ignore[arg-type]


def test_json_kind_names() -> None:
    values: list[Any] = [{}, [], (), "x", 1, 1.5, True, None, {1}]
    kinds = [json_kind(v) for v in values]
    assert kinds == [
        "object",
        "array",
        "array",
        "string",
        "number",
        "number",
        "bool",
        "null",
        "set",
    ]


# --- flatten ------------------------------------------------------------------------


def test_flatten_reference_example() -> None:
    value = {"a": {"b": 2}, "c": [3, {"d": 4}]}
    assert flatten(value) == {"answer.a.b": 2, "answer.c[0]": 3, "answer.c[1].d": 4}


def test_flatten_keeps_insertion_order() -> None:
    value = {"z": 1, "a": [{"y": 2, "b": 3}], "m": 4}
    assert list(flatten(value)) == ["answer.z", "answer.a[0].y", "answer.a[0].b", "answer.m"]


def test_flatten_nested_lists_and_tuples_are_indexed_alike() -> None:
    value = [("Engines & motors", 5), ["Lines & drives", 2]]
    assert flatten(value) == {
        "answer[0][0]": "Engines & motors",
        "answer[0][1]": 5,
        "answer[1][0]": "Lines & drives",
        "answer[1][1]": 2,
    }


def test_dotted_key_and_nesting_never_collide() -> None:
    dotted = flatten({"a.b": 1})
    nested = flatten({"a": {"b": 1}})
    assert dotted == {'answer["a.b"]': 1}
    assert nested == {"answer.a.b": 1}
    assert dotted.keys().isdisjoint(nested.keys())
    both = flatten({"a.b": 1, "a": {"b": 2}})
    assert both == {'answer["a.b"]': 1, "answer.a.b": 2}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, {"answer": {}}),
        ([], {"answer": []}),
        ({"a": []}, {"answer.a": []}),
        ({"a": {}, "b": [[]]}, {"answer.a": {}, "answer.b[0]": []}),
    ],
)
def test_empty_containers_are_leaves(value: Any, expected: dict[str, Any]) -> None:
    flat = flatten(value)
    assert flat == expected
    assert all(type(flat[k]) is type(expected[k]) for k in expected)


def test_empty_object_and_empty_array_flatten_differently() -> None:
    assert flatten({})["answer"] == {}
    assert flatten([])["answer"] == []
    assert type(flatten({})["answer"]) is not type(flatten([])["answer"])


@pytest.mark.parametrize("scalar", [34, "text", None, True, 1.5, ""])
def test_top_level_scalar_is_the_single_root_leaf(scalar: Any) -> None:
    assert flatten(scalar) == {"answer": scalar}


def test_flatten_custom_prefix() -> None:
    assert flatten({"a": [1]}, prefix="answer.rows[0]") == {"answer.rows[0].a[0]": 1}
    assert flatten({"a": 1}, prefix="") == {"a": 1}


def test_flatten_treats_sets_and_other_objects_as_leaves() -> None:
    assert flatten({"s": {1, 2}}) == {"answer.s": {1, 2}}


def test_flatten_non_string_keys() -> None:
    assert flatten({1: "a", "1": "b"}) == {"answer[<1>]": "a", 'answer["1"]': "b"}


def _nested_lists(depth: int) -> list[Any]:
    value: list[Any] = [1]
    for _ in range(depth - 1):
        value = [value]
    return value


def test_flatten_deep_nesting_raises_limit_error_not_recursion_error() -> None:
    deep = _nested_lists(100_000)
    with pytest.raises(LimitError, match="max_depth=200"):
        flatten(deep)
    with pytest.raises(LimitError):
        flatten(deep, max_depth=1_000)


def test_flatten_depth_limit_boundary() -> None:
    assert flatten(_nested_lists(200)) == {"answer" + "[0]" * 200: 1}
    with pytest.raises(LimitError):
        flatten(_nested_lists(201))


def test_a_too_deep_value_is_refused_without_writing_out_its_shared_parts() -> None:
    """diff30b #5: the parts held in several places ahead of the path too deep were written
    out before it was named (24k integers and 201 lists took 6.7 s and 1.8 GB in
    plain_value). Here they are 2**30 leaves written out: the walk before this ran out of
    time, and a walk that skips a part searched before at that level or above names the
    path at once."""
    shared: Any = [0]
    for _ in range(30):
        shared = [shared, shared]
    chain: Any = [1]
    for _ in range(44):
        chain = [chain]
    with pytest.raises(LimitError, match=r"max_depth=40 at answer\[1\](?:\[0\]){39}$"):
        check_depth([shared, chain], 40)
    check_depth([shared, chain], 46)
    assert first_too_deep([shared, chain], 46) == ""
    loop: list[Any] = [1]
    loop.append([loop, loop])
    assert first_too_deep(loop, 3) == "answer[1][0][1]"
    # diff31a #4: a loop through one part held 100,000 times was walked through every copy
    # at each level (4 s; 0.1 s once each part's distinct parts are listed once)
    held = [[1]] * 100_000
    cycle: list[Any] = [held]
    cycle.append(cycle)
    assert first_too_deep(cycle, 200) == "answer" + "[1]" * 198 + "[0][0]"
    with pytest.raises(LimitError, match=r"max_depth=200 at answer\[1\]\[1\]"):
        check_depth(cycle, 200)


def test_a_part_searched_shallower_is_searched_again_deeper() -> None:
    """mutation31 F3/F4: a part that fits where it is met first may not fit one level
    deeper, so it is searched again there (and never again at a level searched)."""
    inner: Any = [[1]]  # two levels: fits at level 2 of max_depth=3, not at level 3
    value = [inner, [inner]]
    assert first_too_deep(value, 3) == "answer[1][0][0]"
    with pytest.raises(LimitError, match=r"max_depth=3 at answer\[1\]\[0\]\[0\]$"):
        check_depth(value, 3)
    wrapped: Any = [1]  # (F2: searched again at a level searched, 2**40 walks)
    for _ in range(40):
        wrapped = [[wrapped], [wrapped]]
    assert first_too_deep(wrapped, 200) == ""


def test_check_depth_lists_a_container_met_again_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """mutation31 C3: each container's distinct parts are listed once, however often the
    levels meet it (a loop through 100,000 copies: 3 listings, not 597)."""
    import pytest_structeval.paths as paths

    listed: list[int] = []
    original = paths.next_containers

    def counted(level: list[Any]) -> list[Any]:
        listed.append(len(level))
        return original(level)

    monkeypatch.setattr(paths, "next_containers", counted)
    cycle: list[Any] = [[[1]] * 100_000]
    cycle.append(cycle)
    with pytest.raises(LimitError):
        paths.check_depth(cycle, 200)
    assert len(listed) <= 3


def test_flatten_deeper_than_the_recursion_limit_when_allowed() -> None:
    deep: Any = 1
    for _ in range(3_000):
        deep = {"a": deep}
    assert flatten(deep, max_depth=3_000) == {"answer" + ".a" * 3_000: 1}


# --- globs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("answer.items[*].id", "answer.items[0].id", True),
        ("answer.items[*].id", "answer.items[12].id", True),
        ("answer.items[*].id", "answer.items[-1].id", True),
        ("answer.items[*].id", "answer.items.id", False),
        ("answer.items[*].id", "answer.items[0].idx", False),
        ("answer.items[*].id", "answer.items[0].id.x", False),
        ("answer.*.name", "answer.x.name", True),
        ("answer.*.name", 'answer["a.b"].name', True),
        ("answer.*.name", "answer[<1>].name", True),
        ("answer.*.name", "answer[0].name", False),
        ("answer.*.name", "answer.a.b.name", False),
        ("answer.**.id", "answer.id", True),
        ("answer.**.id", 'answer.a[0]["x.y"].id', True),
        ("answer.**.id", "answer.a.ids", False),
        ("answer.**", "answer.anything[3].below", True),
        ("answer", "answer", True),
        ("answer", "answer.a", False),
        # Without the root, a pattern is relative to it.
        ("items[*].id", "answer.items[0].id", True),
        ("*.name", "answer.x.name", True),
        ("*.name", "answer.name", False),
        ("**.id", "answer.deep.er.id", True),
        ("[*].id", "answer[3].id", True),
        ("answer_x", "answer.answer_x", True),
        # Keys are matched by value, escaped or not.
        ('answer["a.b"]', 'answer["a.b"]', True),
        ('answer["a.b"]', "answer.a.b", False),
        ('answer["a"]', "answer.a", True),
        ('answer["*"]', 'answer["*"]', True),
        ('answer["*"]', "answer.x", False),
        ("answer[<1>]", "answer[<1>]", True),
        ("answer[<1>]", "answer[1]", False),
    ],
)
def test_compile_glob(pattern: str, path: str, expected: bool) -> None:
    assert compile_glob(pattern)(path) is expected


def test_compile_glob_subtree_matches_paths_below_a_match_only() -> None:
    matches = compile_glob("answer.items[*].id", subtree=True)
    assert matches("answer.items[0].id")
    assert matches("answer.items[0].id.value")
    assert matches("answer.items[0].id[2]")
    assert not matches("answer.items[0].identity")
    assert not matches("answer.items")


def test_compile_globs_any_of_several() -> None:
    matches = compile_globs(["answer.a", "answer.b[*]"])
    assert matches("answer.a")
    assert matches("answer.b[0]")
    assert not matches("answer.c")
    assert not compile_globs([])("answer")


def test_consecutive_double_stars_do_not_blow_up() -> None:
    matches = compile_glob("**.**.**.**.**.x")
    assert not matches("answer" + ".a" * 200 + ".y")
    assert matches("answer" + ".a" * 200 + ".x")


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("answer.price_*", "whole segment"),
        ("", "empty path pattern"),
        ("answer[", "expected an index"),
        ("answer..x", "empty key"),
    ],
)
def test_compile_glob_rejects_bad_patterns(pattern: str, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        compile_glob(pattern)


def test_glob_specificity_ranks_deeper_then_exact_then_fewer_wildcards() -> None:
    ranked = sorted(
        ["**", "answer.items", "answer.items[*].name", "answer.items[0].name", "answer.*[*].name"],
        key=glob_specificity,
    )
    assert ranked == [
        "**",
        "answer.items",
        "answer.*[*].name",
        "answer.items[*].name",
        "answer.items[0].name",
    ]
    assert glob_specificity("items") == glob_specificity("answer.items")


# --- resolve_path -------------------------------------------------------------------

DOC = {"a": {"b": [1, {"c": 2}]}, "x.y": {"z": 3}, "items": [{"name": "n0"}], 7: "seven"}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a.b[1].c", 2),
        ("answer.a.b[1].c", 2),
        ("a.b[0]", 1),
        ("a", {"b": [1, {"c": 2}]}),
        ("answer", DOC),
        ('["x.y"].z', 3),
        ('answer["x.y"].z', 3),
        ("items[0].name", "n0"),
        ("answer.items[0]", {"name": "n0"}),
        ("answer[<7>]", "seven"),
    ],
)
def test_resolve_path(path: str, expected: Any) -> None:
    assert resolve_path(DOC, path) == expected


def test_resolve_path_top_level_array_and_scalar() -> None:
    assert resolve_path([10, [20, 30]], "answer[1][0]") == 20
    assert resolve_path([10, [20, 30]], "[1][1]") == 30
    assert resolve_path(5, "answer") == 5


def test_resolve_path_reads_a_leading_answer_as_a_key_first() -> None:
    value = {"answer": {"x": 1}, "x": 2, "y": 3}
    assert resolve_path(value, "answer") == {"x": 1}  # UiPath target_output_key="answer"
    assert resolve_path(value, "answer.x") == 1
    assert resolve_path(value, "x") == 2
    assert resolve_path(value, "answer.y") == 3  # not a key path: answer is the root
    assert resolve_path({"answer": None}, "answer.answer") is None  # a reported leaf path


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        ("a.missing", KeyError, "key 'missing' is missing at answer.a"),
        ("a.b[5]", IndexError, r"index \[5\] is out of range, answer.a.b has 2 items"),
        ("a.b[-1]", IndexError, "negative index"),
        ("a.b.c", TypeError, "cannot look up key 'c', answer.a.b is an array"),
        ("a.b[1].c[0]", TypeError, r"cannot take index \[0\], answer.a.b\[1\].c is a number"),
        ("a[0]", TypeError, "is an object"),
        ("a..b", OptionsError, "empty key"),
        ("", OptionsError, "empty path"),
    ],
)
def test_resolve_path_misses_raise_clear_errors(
    path: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        resolve_path(DOC, path)


def test_resolve_path_index_into_string_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="is a string"):
        resolve_path({"s": "text"}, "s[0]")


# --- real data ----------------------------------------------------------------------


def _real_json_values() -> list[Any]:
    """Every schema and schema test document of JSONSchemaBench (keys like ``^[a-z]+$``)."""
    import json

    from tests.realdata import require_data

    root = require_data("schemas")
    values: list[Any] = []
    for file in sorted(root.rglob("*.json")):
        record = json.loads(file.read_text(encoding="utf-8"))
        if isinstance(record, dict) and "schema" in record:
            values.append(record["schema"])
            values.extend(test["data"] for test in record.get("tests", ()))
    return values


@pytest.mark.realdata
def test_real_json_schemas_flatten_without_collisions_and_navigate_back() -> None:
    values = _real_json_values()
    assert len(values) > 300
    escaped = 0
    for value in values:
        flat = flatten(value, max_depth=10_000)
        assert len(flat) == _count_leaves(value)  # no two leaves share a path
        for path, leaf in flat.items():
            node = value
            for token in split_path(path)[1:]:
                node = node[token.value if isinstance(token, LiteralKey) else token]
            assert node is leaf, path
            escaped += '["' in path
    assert escaped > 0  # real schemas do hold keys that need escaping


def _count_leaves(value: Any) -> int:
    count, stack = 0, [value]
    while stack:
        node = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        if isinstance(node, (dict, list)) and node:
            stack.extend(children)
        else:
            count += 1
    return count


def test_a_key_too_long_to_name_is_a_limit_error() -> None:
    from pytest_structeval import score
    from pytest_structeval.errors import LimitError

    with pytest.raises(LimitError, match="too long to name"):
        flatten({10**5000: 1})
    for mode in ("strict", "similarity", "schema"):
        result = score({"a": 1}, {10**5000: 1}, mode)  # a model answer never raises
        assert result.error == "model answer: a key is an integer of 16610 bits, too long to name"
        with pytest.raises(LimitError, match="too long to name"):
            score({10**5000: 1}, {"a": 1}, mode)  # a gold at fault raises


def test_a_literal_key_holding_both_quotes_reads_back() -> None:
    value = {("a'\"b",): 1}
    (path,) = flatten(value)
    assert split_path(path)[1].value == ("a'\"b",)
    assert resolve_path(value, path) == 1


def test_a_glob_with_two_doublestars_without_subtree_stops_at_the_match() -> None:
    matches = compile_glob("**.a.**.b")
    assert matches("answer.a.x.b")
    assert not matches("answer.a.x.b.c")  # its parent matched first: still no subtree


def test_a_key_wildcard_in_a_two_doublestar_glob_is_no_index() -> None:
    assert compile_glob("x.*")("answer.x[0]") is False
    assert compile_glob("**.x.**.*")("answer.x[0]") is False


def test_path_rules_naming_one_node_rank_by_specificity_then_the_later_given() -> None:
    assert PathRules([("a.*", 1), ("*.b", 2)]).ranked("answer.a.b") == (0, 1)
    assert PathRules([("*.b", 2), ("a.*", 1)]).ranked("answer.a.b") == (0, 1)
    assert glob_specificity("**.b") == (1, False, -1)  # a ** adds no depth of its own
    assert PathRules([("a.*", 1), ("**.b", 2)]).winner("answer.a.b") == 0
    assert PathRules([("a.*", 1), ("**.b", 2)]).winner("answer.x") is None


def test_the_path_rule_naming_the_nearest_node_wins() -> None:
    """``**.price`` names the price itself: it beats a rule on the price's parent, whatever
    their order (api25 #1); a trailing ``**`` names the node above it, so ``**`` and
    ``answer.**`` stay the defaults under every named node."""
    rules = PathRules([("answer.items", "items"), ("**.price", "price"), ("**", "all")])
    assert rules.winner("answer.items[0].price") == 1
    assert rules.ranked("answer.items[0].price") == (2, 0, 1)
    assert rules.winner("answer.items[0].q") == 0
    assert rules.winner("answer.total") == 2
    assert rules.winner("answer.price.currency") == 1  # below the node it names
    tail = PathRules([("answer.items", 1), ("answer.**", 2), ("items[*].**", 3)])
    assert tail.winner("answer.items[0].price") == 2
    assert tail.winner("answer.items") == 0
    assert tail.winner("answer.other") == 1
    indexed = PathRules([("items[0].price", 1), ("**.price", 2)])  # ranked path by path
    assert [indexed.winner(f"answer.items[{i}].price") for i in (0, 1, 0)] == [0, 1, 0]
    quoted = PathRules([('answer["a[0]"]', 1), ("**", 2)])
    assert [quoted.winner(p) for p in ('answer["a[0]"]', 'answer["a[1]"]')] == [0, 1]
    shaped = PathRules([("**.price", 1), ("items", 2)])  # one ranking for every element
    assert [shaped.winner(f"answer.items[{i}].price") for i in range(3)] == [0, 0, 0]
    assert shaped.covered == {0, 1}
    odd = PathRules([("**", 1), ("answer[<1>]", 2)])  # a non-string key
    assert odd.winner("answer[<1>].x") == 1
    assert path_prefixes("answer.a[0]") == ("answer", "answer.a", "answer.a[0]")


def test_an_index_out_of_range_names_the_path_and_the_length() -> None:
    with pytest.raises(
        IndexError, match=r"a\[2\]: index \[2\] is out of range, answer.a has 2 items"
    ):
        resolve_path({"a": [1, 2]}, "a[2]")
    with pytest.raises(IndexError, match=r"is out of range, answer.a has 1 item$"):
        resolve_path({"a": [1]}, "a[1]")


def test_null_takes_no_article_in_messages() -> None:
    with pytest.raises(TypeError, match=r"answer\.a is null$"):
        resolve_path({"a": None}, "a[0]")


def test_a_quoted_answer_key_in_a_pattern_is_that_key_not_the_root() -> None:
    """Review property29b #2: ``["answer"]`` named the whole answer, so ignoring it passed a
    wrong answer with 1.0 (an ``{"answer": ...}`` envelope is common)."""
    from pytest_structeval import score

    gold = {"answer": "Chiller 6", "site": "CWC04009"}
    model = {"answer": "Chiller 9", "site": "MAIN"}
    for pattern in ('["answer"]', 'answer["answer"]', "answer.answer"):
        result = score(gold, model, ignore_paths=[pattern])
        assert [(f.path, f.status) for f in result.fields] == [
            ("answer.answer", "skipped"),
            ("answer.site", "mismatch"),
        ]
    assert score(gold, model, ignore_paths=["answer"]).passed  # the bare name: the root
    cased = score({"answer": "A", "b": "B"}, {"answer": "a", "b": "b"}, "similarity",
                  options={'["answer"]': {"case_sensitive": False}})  # fmt: skip
    assert [f.status for f in cased.fields] == ["match", "mismatch"]
