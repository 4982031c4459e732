"""Two parser gaps, closed: fenced blocks labelled ``yaml``/``yml`` are read as YAML (safely,
within the parser's bounds, and only where they are labelled), and an apostrophe inside a
single-quoted Python string (``{'name': 'O'Brien'}``) no longer ends the string."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from typing import Any

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_structeval.errors import AnswerParseError, LimitError
from pytest_structeval.parse import (
    MAX_YAML_CHARS,
    YAML_BRACKETS,
    Parsed,
    _brackets_nest_over,
    parse_answer,
    parse_answer_detailed,
)
from pytest_structeval.yamlvalue import EXPANSION, _CoreLoader, yaml_value


def fenced(body: str, lang: str = "yaml") -> str:
    return f"```{lang}\n{body}\n```"


# --- YAML blocks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        (
            "Here:\n```yaml\nenergy: 3\nmaterial: 4\n```",
            {"energy": 3, "material": 4},
            "fence:yaml+yaml",
        ),
        (fenced("- FC101\n- COMP-01", "YML"), ["FC101", "COMP-01"], "fence:yml+yaml"),
        (
            "~~~Yaml\nasset: Chiller 6\nalerts: [4, 5]\n~~~",
            {"asset": "Chiller 6", "alerts": [4, 5]},
            "fence:yaml+yaml",
        ),
        # JSON in a YAML block stays JSON
        (fenced('{"a": 1e3}'), {"a": 1000.0}, "fence:yaml+json"),
        (fenced("42"), 42, "fence:yaml+count"),
        (fenced("0x1F"), 31, "fence:yaml+count"),
        (fenced("true"), True, "fence:yaml+json"),
        # YAML 1.2 core scalars, as JSON has them (review 14: 1.1 read "no" and the country
        # code NO as false, 010 as octal 8 and 12:30 as 750)
        (
            fenced("flags: [yes, no, on, NO, True]\nid: 010\nt: 12:30\nn: 1e3\nm: 1_000"),
            {
                "flags": ["yes", "no", "on", "NO", True],
                "id": 10,
                "t": "12:30",
                "n": 1e3,
                "m": "1_000",
            },
            "fence:yaml+yaml",
        ),
        (fenced("0o17"), 15, "fence:yaml+count"),
        (fenced('"Chiller 6"'), "Chiller 6", "fence:yaml+json"),
        (fenced("'it''s'"), "it's", "fence:yaml+yaml"),  # a quoted scalar is a deliberate string
        # dates stay as written (an explicit !!timestamp too), as in groundtruth.yaml
        (
            fenced(
                "when: 2024-01-05\nat: 2024-01-05 10:30:00\nts: !!timestamp 2024-01-05 10:30:00"
            ),
            {"when": "2024-01-05", "at": "2024-01-05 10:30:00", "ts": "2024-01-05 10:30:00"},
            "fence:yaml+yaml",
        ),
        (fenced("2024-01-05: ok"), {"2024-01-05": "ok"}, "fence:yaml+yaml"),
        # aliases and merge keys are copied out
        (
            fenced("base: &b {unit: kW}\npump: {<<: *b, power: 3}"),
            {"base": {"unit": "kW"}, "pump": {"unit": "kW", "power": 3}},
            "fence:yaml+yaml",
        ),
        (fenced("map: !!omap [y: 1, x: 2]"), {"map": {"y": 1, "x": 2}}, "fence:yaml+yaml"),
        (fenced("pairs: !!pairs [x: 1, x: 2]"), {"pairs": [["x", 1], ["x", 2]]}, "fence:yaml+yaml"),
        # no YAML value: the literal decoder still reads what it can
        (fenced('{"a": 1, "b": [1, 2'), {"a": 1, "b": [1, 2]}, "fence:yaml+repaired"),
        (fenced("(1, 2)"), [1, 2], "fence:yaml+literal"),
    ],
)
def test_a_yaml_block_decodes_as_yaml(text: str, value: Any, method: str) -> None:
    parsed = parse_answer_detailed(text)
    assert parsed == Parsed(value, method, True)
    assert type(parsed.value) is type(value)


def test_a_yaml_block_after_a_marker_or_pointed_back_at() -> None:
    stated = 'Final Answer:\n```yaml\nenergy: 3\n```\nThe meters agree on {"energy": 2}.'
    assert parse_answer_detailed(stated) == Parsed(
        {"energy": 3}, "final-answer+fence:yaml+yaml", True
    )
    back = "```yaml\nenergy: 3\n```\nFinal Answer: see above"
    assert parse_answer_detailed(back) == Parsed({"energy": 3}, "fence:yaml+yaml", True)


def test_yaml_is_a_data_language_tried_before_code() -> None:
    text = fenced("energy: 3") + "\n" + fenced("print([1, 2])", "python")
    assert parse_answer_detailed(text) == Parsed({"energy": 3}, "fence:yaml+yaml", True)


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ("Note: x", "Note: x", "text"),  # prose is never YAML
        ("Energy: 3\nMaterial: 4", "Energy: 3\nMaterial: 4", "text"),
        ("```\nNote: x\n```", "Note: x", "fence+text"),  # nor is an unlabelled block
        ("```text\nenergy: 3\n```", "energy: 3", "fence:text+text"),
        # a YAML block that loads to a plain string or to nothing is text
        (fenced("The values follow."), "The values follow.", "fence:yaml+text"),
        (fenced("# only a comment"), "# only a comment", "fence:yaml+text"),
        (fenced("~"), "~", "fence:yaml+text"),
        (fenced("no"), "no", "fence:yaml+text"),  # a word, as in YAML 1.2
        (fenced("2024-01-05"), "2024-01-05", "fence:yaml+text"),
        (fenced("a: 1\n---\nb: 2"), "a: 1\n---\nb: 2", "fence:yaml+text"),  # two documents
        (fenced("a:\n\tb: 1"), "a:\n\tb: 1", "fence:yaml+text"),  # a tab indents nothing
    ],
)
def test_only_a_yaml_value_in_a_labelled_block_is_yaml(text: str, value: str, method: str) -> None:
    assert parse_answer_detailed(text) == Parsed(value, method, False)


@pytest.mark.parametrize(
    "block",
    [
        fenced("The values follow."),
        fenced("# TODO"),
        fenced("key: [unclosed"),
        fenced("a: 1\n---\nb: 2"),
    ],
)
def test_a_yaml_block_without_a_value_never_beats_other_evidence(block: str) -> None:
    after = block + '\nThe meter says {"energy": 14}.'
    assert parse_answer_detailed(after) == Parsed({"energy": 14}, "candidate+json", True)
    earlier = fenced('{"energy": 14}', "json") + "\n" + block
    assert parse_answer_detailed(earlier) == Parsed({"energy": 14}, "fence:json+json", True)


def test_brackets_inside_a_yaml_block_that_does_not_load_are_not_its_value() -> None:
    # A JSON block that is no value hands its bracketed spans on (NDJSON); a broken YAML
    # document's flow collections are fragments of it, and a later span in prose wins.
    text = fenced("items: [1, 2]\nbad: [") + "\nCounts: [3, 5]"
    assert parse_answer_detailed(text) == Parsed([3, 5], "candidate+json", True)


def test_strict_mode_says_a_prose_yaml_block_is_no_answer() -> None:
    with pytest.raises(AnswerParseError, match="1 fenced block"):
        parse_answer(fenced("The values follow."), strict=True)


@pytest.mark.parametrize(
    "body",
    [
        "key: !!python/name:os.system",
        "!!python/object/apply:subprocess.check_output [[ls]]",
        "a: !!set {x, y}",  # no JSON form
        "a: !!binary aGVsbG8=",
        # review 14: PyYAML's constructors raise KeyError, AttributeError or IndexError here
        "a: !!bool x",
        "a: !!timestamp x",
        'a: !!int ""',
        "a: !!float ''",
        "!!int 0b",
    ],
)
def test_yaml_tags_construct_nothing(body: str) -> None:
    parsed = parse_answer_detailed(fenced(body))
    assert "yaml" not in parsed.method.rpartition("+")[2]
    assert not isinstance(parsed.value, dict)


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 10)}]\n" for p, c in zip("abcdefg", "bcdefgh", strict=True)
)


@pytest.mark.parametrize(
    ("body", "max_depth", "message"),
    [
        (LAUGHS, 200, "yaml block over a limit: YAML aliases expand to over 1,000,000 values"),
        ("a: &a [1, *a]", 200, r"nested too deeply \(line 1: \*a\)"),
        ("[" * 100_000 + "]" * 100_000, 200, "max_depth=200"),
        ("[" * 100_000, 200, "max_depth=200"),
        ("a:\n  b:\n    c:\n      d: 1", 3, "max_depth=3"),
        ("- " * 100_000 + "1", 200, "nested too deeply"),  # PyYAML's recursion, caught
        ("a: " + "9" * 5000, 200, "integer of more than 4300 digits"),
    ],
)
def test_yaml_blocks_are_bounded(body: str, max_depth: int, message: str) -> None:
    with pytest.raises(LimitError, match=message):
        parse_answer(fenced(body), max_depth=max_depth)


def test_a_yaml_block_too_long_to_read_as_yaml_is_read_as_any_other() -> None:
    """It was a LimitError for the whole answer (review 14): the value stated after it is
    the answer."""
    block = fenced("log: " + "x " * (MAX_YAML_CHARS // 2))
    assert parse_answer(block + '\nThe reading is {"a": 1}.') == {"a": 1}


def test_the_yaml_bounds_hold_only_for_yaml() -> None:
    deep = "a:\n  b:\n    c:\n      d: 1"
    assert parse_answer(fenced(deep), max_depth=4) == {"a": {"b": {"c": {"d": 1}}}}
    # a JSON body over the YAML size bound is JSON, read as fast as ever
    rows = "[" + "1, " * (MAX_YAML_CHARS // 3) + "1]"
    assert len(parse_answer(fenced(rows))) == MAX_YAML_CHARS // 3 + 1


def test_the_parser_loads_pyyaml_only_for_a_yaml_block() -> None:
    probe = (
        "import sys\n"
        "from pytest_structeval.parse import parse_answer\n"
        "parse_answer('```json\\n{\"a\": 1}\\n```'); parse_answer('Note: x')\n"
        "before = 'yaml' in sys.modules\n"
        "parse_answer('```yaml\\na: 1\\n```')\n"
        "print(before, 'yaml' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "True"]


# orjson-like JSON values with string keys; a dumper that resolves plain scalars as the
# reader does (YAML 1.2 core) quotes every string it would read as something else, so the
# YAML text means exactly the value (PyYAML's own safe_dump follows YAML 1.1: it leaves
# "0E0" or "0o17" plain, which 1.2 reads as numbers). (PyYAML writes the Unicode line breaks
# NEL, LS and PS raw, and reads them back as a space or a newline.)
class CoreDumper(yaml.SafeDumper):
    """``yaml.SafeDumper`` resolving plain scalars as :class:`yamlvalue._CoreLoader` does."""


CoreDumper.yaml_implicit_resolvers = _CoreLoader.yaml_implicit_resolvers


YAML_TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters="\x85\u2028\u2029"),
    max_size=12,
)
YAML_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | YAML_TEXT
)
YAML_VALUES = st.recursive(
    YAML_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(YAML_TEXT, children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.lists(YAML_VALUES, min_size=1, max_size=4),
        st.dictionaries(YAML_TEXT, YAML_VALUES, min_size=1, max_size=4),
    ),
    st.booleans(),
)
def test_yaml_dumped_values_parse_back(value: Any, flow: bool) -> None:
    dumped = yaml.dump(value, Dumper=CoreDumper, default_flow_style=flow, allow_unicode=True)
    assume("```" not in dumped)
    # Only the dump's final newline goes: str.strip() would also take a no-break space
    # that is part of the value (hypothesis found {"\xa0": None}).
    assert parse_answer("Here it is:\n" + fenced(dumped.rstrip("\n")) + "\nDone.") == value


def test_yaml_value_is_json_shaped_and_its_errors_are_value_errors() -> None:
    # an ordered map is an object (its keys in order), where a list of pairs stays a list
    value = yaml_value("a: !!omap [y: 1, x: 2]\nb: !!pairs [x: 1, x: 2]\n2024-01-05: 2024-01-06")
    assert value == {"a": {"y": 1, "x": 2}, "b": [["x", 1], ["x", 2]], "2024-01-05": "2024-01-06"}
    assert list(value["a"]) == ["y", "x"]
    with pytest.raises(ValueError, match=r"^invalid YAML: .*expected a single mapping item"):
        yaml_value("a: !!omap [{x: 1, y: 2}]")
    with pytest.raises(ValueError, match=r"^invalid YAML: a !!set value has no JSON form$"):
        yaml_value("a: !!set {x}")
    with pytest.raises(ValueError, match=r"^invalid YAML: .*\(line 1, column 6\)$") as syntax:
        yaml_value("a: [b")
    assert not isinstance(syntax.value, LimitError)
    with pytest.raises(ValueError, match=r"^invalid YAML: month must be in 1\.\.12$"):
        yaml_value("a: !!timestamp 2024-13-01")
    assert yaml_value("a: 2024-13-01") == {"a": "2024-13-01"}  # an untagged date is text
    # limits are LimitErrors, which the scenario loader still catches as ValueError
    with pytest.raises(LimitError, match=f"over {EXPANSION:,} values"):
        yaml_value(LAUGHS)


# --- apostrophes in single-quoted strings -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "method"),
    [
        ("{'name': 'O'Brien'}", {"name": "O'Brien"}, "repaired"),
        ("['don't', 'it's', 'rock'n'roll']", ["don't", "it's", "rock'n'roll"], "repaired"),
        ("{'country': 'Côte d'Ivoire'}", {"country": "Côte d'Ivoire"}, "repaired"),
        ("{'name': r'O'Brien'}", {"name": "O'Brien"}, "repaired"),
        ("{'name': 'O'Brien", {"name": "O'Brien"}, "repaired"),  # and cut off
        (
            "Final Answer: {'note': 'it's fine', 'n': 2}",
            {"note": "it's fine", "n": 2},
            "final-answer+repaired",
        ),
        ("The record is {'name': 'O'Brien'} as asked.", {"name": "O'Brien"}, "candidate+repaired"),
        # review 14: the candidate scan reads such a string whole too, so a bracket in it is
        # text (the span used to end there, and "code" was dropped as cut off)
        (
            "Result: {'msg': 'can't open file}', 'code': 2}",
            {"msg": "can't open file}", "code": 2},
            "candidate+repaired",
        ),
        ("Result: {'a': 'it's {b', 'c': 1} done", {"a": "it's {b", "c": 1}, "candidate+repaired"),
        # an escaped quote needed no repair, and strings still end where they end
        ("{'name': 'O\\'Brien'}", {"name": "O'Brien"}, "literal"),
        ("{'a':'x',b:1}", {"a": "x", "b": 1}, "literal"),
        ("['a',u'b']", ["a", "b"], "literal"),
        ("['a' 'b']", ["a", "b"], "repaired"),  # the missing comma, between two strings
        ("{'a': 'O', 'b': 'x'}", {"a": "O", "b": "x"}, "literal"),
    ],
)
def test_an_apostrophe_inside_a_single_quoted_string_is_kept(
    text: str, value: Any, method: str
) -> None:
    assert parse_answer_detailed(text) == Parsed(value, method, True)


def test_long_runs_of_apostrophes_parse_in_linear_time() -> None:
    # Each would take hours if any scan restarted at every quote (200,000 of them).
    word = "O'B" * 200_000
    assert parse_answer("{'a': '" + word + "'}") == {"a": word}
    prose = "See [x " + "a'" * 200_000 + "] and (y " + "'b" * 200_000 + ")"
    assert parse_answer(prose) == prose
    # strings that start at every comma and run on over apostrophes, never closed
    prose = "Values [" + ", 'x'y" * 100_000
    assert parse_answer(prose) == prose
    assert parse_answer("('" + "a'" * 200_000) == "a'" * 199_999 + "a"


WORDS = st.lists(st.text(st.sampled_from("abcéÖ"), min_size=1, max_size=4), min_size=1, max_size=5)


@settings(max_examples=200, deadline=None)
@given(WORDS, st.sampled_from(["{{'k': '{}'}}", "['{}', 1]", "Final Answer: ('{}',)"]))
def test_words_joined_by_apostrophes_stay_one_string(words: list[str], shape: str) -> None:
    text = "'".join(words)
    parsed = parse_answer(shape.format(text))
    assert (parsed["k"] if isinstance(parsed, dict) else parsed[0]) == text


SOUP = st.lists(
    st.sampled_from([*"'\"ab1 {}[](),:\\\n-&*!#|>?~", "!!bool ", "!!int ", "!!timestamp "]),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(SOUP, st.booleans(), st.booleans())
def test_quote_and_yaml_soup_raises_only_answer_parse_errors(
    text: str, in_yaml: bool, strict: bool
) -> None:
    with contextlib.suppress(AnswerParseError):
        parse_answer(fenced(text) if in_yaml else text, strict=strict)


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("\xa0: null", {"\xa0": None}),
        ("a: \xa0", {"a": "\xa0"}),
        ("- \u2003\n- b", ["\u2003", "b"]),
        ("\n  \na: 1\n\t\n", {"a": 1}),
    ],
)
def test_a_yaml_block_keeps_unicode_spaces_at_its_ends(body: str, value: Any) -> None:
    """Stripped with str.strip(), a block lost a no-break or em space that YAML reads as
    content ("a: \\xa0" gave {"a": None}); only YAML's own blanks go now."""
    assert parse_answer("Here it is:\n" + fenced(body) + "\nDone.") == value


@pytest.mark.parametrize("count", [250, 400, YAML_BRACKETS])  # the README names 400
@pytest.mark.parametrize("quote", ['"', "'"])
def test_brackets_inside_quotes_do_not_refuse_a_yaml_block(count: int, quote: str) -> None:
    """The bracket bound counts quoted brackets too: 250 of them in a quoted string failed the
    whole answer ("answer nests deeper than max_depth=200")."""
    body = f"note: {quote}" + "[" * count + f"{quote}\nvalue: 3"
    assert parse_answer("Answer:\n" + fenced(body)) == {"note": "[" * count, "value": 3}


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_past_the_bound_quoted_brackets_are_told_apart_by_libyaml() -> None:
    """docs30 #3: 500 brackets in a quoted string failed the answer. The two line-by-line
    quote rules tried (diff30a #6, diff30b #1) each let real nesting reach PyYAML for
    seconds; libyaml's parse tells a quoted or plain-text bracket from one that opens a
    list, so a block whose brackets count past the bound is read only when YAML nests
    within it."""
    for quote in "\"'":
        body = f"note: {quote}" + "[" * 500 + f"{quote}\nvalue: 3"
        assert parse_answer("Answer:\n" + fenced(body)) == {"note": "[" * 500, "value": 3}
    apostrophe = "note: don't panic\npattern: '" + "[" * 450 + "'"  # (diff30b #1)
    assert parse_answer(fenced(apostrophe)) == {"note": "don't panic", "pattern": "[" * 450}
    plain = "a: it's " + "[" * 500 + "]" * 500 + " x'"  # a plain scalar: brackets are text
    assert not _brackets_nest_over(plain, YAML_BRACKETS)
    running = 'a: ["x\n", ' + "[" * 440 + "1" + "]" * 440 + ', "\ny"]'  # (diff30a #6)
    assert _brackets_nest_over(running, YAML_BRACKETS)
    with pytest.raises(LimitError, match="max_depth=200"):
        parse_answer(fenced(running))


def test_a_later_byte_order_mark_keeps_real_nesting_from_pyyaml() -> None:
    """diff31a #2: libyaml drops a BOM that starts a later line and saw one quoted string,
    but such a text is loaded by PyYAML's own reader, which keeps the BOM and met 3,000
    real levels (an error result after 0.56 s): libyaml is asked only about a text it would
    load itself."""
    body = '[\n\ufeff"abc, ' + "[" * 3000 + "]" * 3000 + '"\n]'
    assert _brackets_nest_over(body, YAML_BRACKETS)
    assert parse_answer_detailed(fenced(body)).method == "fence:yaml+text"


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_libyamls_look_is_bounded_and_keeps_its_errors() -> None:
    """mutation31 Y4, Y2, B2, Y3: a text libyaml cannot parse counts as nesting too deep
    (its error never escapes), a byte-order mark that opens the block is no later one, and
    the bound is max_depth itself."""
    from pytest_structeval.yamlvalue import parsed_nesting_within

    broken = "a: 1\n a: [" + "[" * 3000 + "1" + "]" * 3001  # "mapping values are not allowed"
    assert not parsed_nesting_within(broken, 200)
    assert _brackets_nest_over(broken, YAML_BRACKETS)
    with pytest.raises(LimitError, match="max_depth=200"):
        parse_answer_detailed(fenced(broken))
    opened = '\ufeffnote: "' + "[" * 500 + '"\nvalue: 3'
    assert not _brackets_nest_over(opened, YAML_BRACKETS)
    assert parse_answer(fenced(opened)) == {"note": "[" * 500, "value": 3}
    assert _brackets_nest_over("[" * 201 + "1" + "]" * 201, 200)
    assert not _brackets_nest_over("[" * 200 + "1" + "]" * 200, 200)


def test_without_libyaml_quoted_brackets_past_the_bound_still_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PyYAML's own parser costs the depth per token, so it is never asked: quotes are not
    told apart, and such a run of brackets is a candidate nesting past max_depth."""
    from pytest_structeval import yamlvalue

    monkeypatch.setattr(yamlvalue, "_FastLoader", None)
    body = 'note: "' + "[" * 500 + '"\nvalue: 3'
    with pytest.raises(LimitError, match="max_depth=200"):
        parse_answer("Answer:\n" + fenced(body))
    assert _brackets_nest_over("a: it's " + "[" * 500 + "]" * 500 + " x'", YAML_BRACKETS)


def test_a_yaml_value_nesting_past_max_depth_is_refused_once_loaded() -> None:
    body = "a: " + "[" * 250 + "]" * 250
    with pytest.raises(LimitError, match="max_depth=200"):
        parse_answer(fenced(body))
    value = parse_answer(fenced(body), max_depth=260)["a"]
    depth = 0
    while value:
        (value,) = value
        depth += 1
    assert (depth, value) == (249, [])
