"""YAML is read by libyaml where PyYAML has it, by PyYAML's own reader otherwise: the same
values for every text the pure reader reads, its wording for every error, and no stack
overflow however deep a text nests (libyaml's composer recurses in C)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_structeval import yamlvalue
from pytest_structeval.errors import LimitError
from pytest_structeval.yamlvalue import FAST_DEPTH, yaml_value

needs_libyaml = pytest.mark.skipif(
    yamlvalue._FastLoader is None, reason="this PyYAML has no libyaml: only its own reader runs"
)
PURE, FAST = "_CoreLoader", "_FastCoreLoader"


@pytest.fixture
def readers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The loader classes that read texts, in order."""
    used: list[str] = []
    load = yamlvalue._load

    def recording(loader_class: Any, text: str) -> Any:
        used.append(loader_class.__name__)
        return load(loader_class, text)

    monkeypatch.setattr(yamlvalue, "_load", recording)
    return used


def outcome(text: str, *, fast: bool) -> tuple[str, Any]:
    """``yaml_value(text)`` as ``("value", v)`` or ``(error class, message)``, by libyaml
    first (``fast``) or by the pure reader alone."""
    saved = yamlvalue._FastLoader
    if not fast:
        yamlvalue._FastLoader = None
    try:
        return ("value", yaml_value(text))
    except (ValueError, LimitError) as exc:
        return (type(exc).__name__, str(exc))
    finally:
        yamlvalue._FastLoader = saved


@needs_libyaml
def test_a_small_text_is_read_by_libyaml(readers: list[str]) -> None:
    assert yaml_value("scorer: static_json\nthreshold: 0.9\nflags: [a, b]\n") == {
        "scorer": "static_json",
        "threshold": 0.9,
        "flags": ["a", "b"],
    }
    assert readers == [FAST]


def test_without_libyaml_the_pure_reader_reads_alike(
    readers: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(yamlvalue, "_FastLoader", None)
    assert yaml_value("a: no\nb: 010\nc: 1e3\n<<: {d: 1}\n") == {
        "a": "no",
        "b": 10,
        "c": 1000.0,
        "d": 1,
    }
    assert readers == [PURE]


@needs_libyaml
def test_core_rules_hold_on_libyaml_too(readers: list[str]) -> None:
    """The YAML 1.2 core scalars and the merge-key rule are the loaders' shared rules."""
    text = (
        "a: no\nb: 010\nc: 1e3\nd: 12:30\ne: 2024-01-01\nbase: &b {x: 1}\nf:\n  <<: *b\n  y: <<\n"
    )
    assert yaml_value(text) == {
        "a": "no",
        "b": 10,
        "c": 1000.0,
        "d": "12:30",
        "e": "2024-01-01",
        "base": {"x": 1},
        "f": {"x": 1, "y": "<<"},
    }
    assert readers == [FAST]


@needs_libyaml
@pytest.mark.parametrize(
    "text",
    [
        "a: [1, 2",  # libyaml words it otherwise
        "a: b: c",
        "- a\nb: c",
        "a: 1\n---\nb: 2",
        "\ud800",  # libyaml cannot even take it (no UTF-8 form)
        "a: *nope",
        "x: !!binary aGk=",
        "n: !!int 1_000",
    ],
)
def test_an_error_reads_as_the_pure_reader_words_it(text: str, readers: list[str]) -> None:
    fast, pure = outcome(text, fast=True), outcome(text, fast=False)
    assert fast[0] == "ValueError"
    assert fast == pure
    assert readers[0] == FAST


@needs_libyaml
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("! ", ""),
        ("a: !", {"a": ""}),
        ("[! ]", [""]),
        ("- !\n- x", ["", "x"]),
        ("a:", {"a": None}),
    ],
)
def test_an_empty_node_tagged_as_a_string_reads_alike(text: str, value: Any) -> None:
    """An empty node tagged ``!`` is the empty string in both readers (PyYAML's own parser
    read it as null, libyaml as the spec does: the property test below found the README's
    "lone ``!`` tag" difference breaking its own rule, a value read otherwise)."""
    assert outcome(text, fast=True) == outcome(text, fast=False) == ("value", value)


@needs_libyaml
def test_a_text_nested_past_fast_depth_is_read_by_the_pure_reader(readers: list[str]) -> None:
    shallow, deep = "- " * FAST_DEPTH + "x", "- " * (FAST_DEPTH + 1) + "x"
    value: Any = "x"
    for _ in range(FAST_DEPTH):
        value = [value]
    assert yaml_value(shallow) == value
    assert readers == [FAST]
    assert yaml_value(deep) == [value]
    assert readers == [FAST, PURE]


@needs_libyaml
def test_many_collection_characters_in_a_shallow_text_still_go_to_libyaml(
    readers: list[str],
) -> None:
    text = "".join(f"k{i}: [a-{i}, b: c]\n" for i in range(2 * FAST_DEPTH))
    assert len(yaml_value(text)) == 2 * FAST_DEPTH
    assert readers == [FAST]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "- " * n + "x",
        lambda n: "[" * n + "]" * n,
        lambda n: "{a: " * n + "x" + "}" * n,
        lambda n: "{" * n + "}" * n,
        lambda n: "? " * n + "x",
    ],
    ids=["block sequences", "flow sequences", "flow mappings", "bare braces", "explicit keys"],
)
def test_a_very_deep_text_is_a_limit_error_not_a_crash(make: Callable[[int], str]) -> None:
    """100,000 levels: libyaml's composer would overflow the C stack (a segmentation fault
    that kills the run); the text goes to the pure reader, which stops in Python."""
    with pytest.raises(LimitError, match="nested too deeply"):
        yaml_value(make(100_000))


@needs_libyaml
@pytest.mark.parametrize(
    ("text", "libyaml", "pure"),
    [
        (
            "a: b\tc",
            ("value", {"a": "b\tc"}),
            (
                "ValueError",
                "invalid YAML: while scanning for the next token: found character '\\t' that "
                "cannot start any token (line 1, column 5)",
            ),
        ),
        (
            "[x?y]",
            ("value", ["x?y"]),
            (
                "ValueError",
                "invalid YAML: while parsing a flow sequence: expected ',' or ']', but got '?' "
                "(line 1, column 3)",
            ),
        ),
        (
            "[!, 1]",
            ("value", ["", 1]),
            (
                "ValueError",
                "invalid YAML: could not determine a constructor for the tag '!,' "
                "(line 1, column 2)",
            ),
        ),
    ],
    ids=["tab in a plain scalar", "? in a flow scalar", "! before a comma"],
)
def test_the_documented_texts_libyaml_reads_otherwise(
    text: str, libyaml: tuple[str, Any], pure: tuple[str, Any]
) -> None:
    """The README's list: libyaml reads these as the YAML spec allows, PyYAML's own reader
    refuses them (or reads null)."""
    assert outcome(text, fast=True) == libyaml
    assert outcome(text, fast=False) == pure


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False)
    | st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
    | st.sampled_from(["no", "010", "12:30", "1e3", "- a", "k: v", "#c", "<<", "?", "!"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=6) | st.integers(0, 9), children, max_size=4)
    ),
    max_leaves=20,
)
NOISE = st.sampled_from(
    [*"-:?[]{},#&*!|>'\"%@` \t\n\ufeff\u2028\x85", "<<", "---", "&a ", "*a", "!!str "]
)


@needs_libyaml
@settings(max_examples=300, deadline=None)
@given(
    value=JSONISH,
    flow=st.sampled_from([None, True, False]),
    unicode=st.booleans(),
    width=st.sampled_from([20, 80, 1000]),
    edits=st.lists(st.tuples(st.integers(0, 10_000), NOISE), max_size=3),
)
def test_whatever_the_pure_reader_reads_libyaml_reads_alike(
    value: Any, flow: bool | None, unicode: bool, width: int, edits: list[tuple[int, str]]
) -> None:
    """Where the pure reader gives a value, libyaml gives the same; where it gives an error,
    libyaml gives that error, or (a documented difference) reads what the YAML spec allows."""
    text = yaml.safe_dump(value, default_flow_style=flow, allow_unicode=unicode, width=width)
    for position, noise in edits:
        cut = position % (len(text) + 1)
        text = text[:cut] + noise + text[cut:]
    pure, fast = outcome(text, fast=False), outcome(text, fast=True)
    if pure[0] == "value" or fast[0] != "value":
        assert fast == pure


@given(value=JSONISH, flow=st.sampled_from([None, True, False]))
@settings(max_examples=300, deadline=None)
def test_a_text_nests_no_deeper_than_its_collection_characters(
    value: Any, flow: bool | None
) -> None:
    """The bound that lets a text skip the depth check: each collection opens with a
    character of its own among ``-?:[{``."""
    text = yaml.safe_dump(value, default_flow_style=flow)
    depth = deepest = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            deepest = max(deepest, depth)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    assert deepest <= sum(map(text.count, "-?:[{"))


@needs_libyaml
def test_a_byte_order_mark_inside_a_text_goes_to_the_pure_reader(readers: list[str]) -> None:
    """libyaml drops a BOM that starts a later line, the pure reader keeps it: the two gave
    different values for one text (review diff16a). A BOM at the start is the encoding's."""
    assert yaml_value("[a,\n\ufeffb]") == ["a", "\ufeffb"]
    assert readers == [PURE]
    assert yaml_value("\ufeffa: 1") == {"a": 1}
    assert readers == [PURE, FAST]


def _merge_chain(links: int) -> str:
    """``links`` mappings, each merging the one before it (``<<: *a<i-1>``)."""
    lines = ["a0: &a0 {k0: 0}"]
    lines += [f"a{i}: &a{i} {{<<: *a{i - 1}, k{i}: {i}}}" for i in range(1, links)]
    return "\n".join(lines)


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure"])
def test_a_chain_of_merge_keys_is_refused_before_anything_is_built(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyYAML builds each merged mapping in full, so 6,000 links built 18 million entries
    (30 s, 672 MB) before the alias bound, counted while copying, could stop them (review
    robust17): the bound is now counted on the composed nodes."""
    built: list[object] = []
    construct = yaml.constructor.BaseConstructor.construct_document

    def recording(self: Any, node: Any) -> Any:
        built.append(node)
        return construct(self, node)

    monkeypatch.setattr(yaml.constructor.BaseConstructor, "construct_document", recording)
    kind, message = outcome(_merge_chain(3_000), fast=fast)
    assert (kind, message) == (
        "LimitError",
        "YAML aliases expand to over 1,000,000 values (line 2: *a0)",
    )
    assert built == []
    assert outcome(_merge_chain(4), fast=fast) == (
        "value",
        {f"a{i}": {f"k{j}": j for j in range(i + 1)} for i in range(4)},
    )


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure"])
def test_an_alias_a_merge_or_a_later_key_sets_aside_is_no_cycle(fast: bool) -> None:
    """The bound counted on the nodes took these for cycles: a self-merge builds nothing
    more, and a key given twice keeps its last value (review diff17b)."""
    assert outcome("a: &a {<<: *a, k: v}\n", fast=fast) == ("value", {"a": {"k": "v"}})
    assert outcome("b: &b {<<: {x: *b}, x: 1}\n", fast=fast) == ("value", {"b": {"x": 1}})
    kind, message = outcome("a: &a [1, *a]\n", fast=fast)  # a true cycle still is one
    assert (kind, message) == ("LimitError", "invalid YAML: nested too deeply (line 1: *a)")


def test_a_cycle_libyaml_reads_but_the_pure_reader_refuses_is_refused_in_one_line() -> None:
    """A tab after a flow list: libyaml reads it, the pure reader does not; naming the alias
    by the pure reader raised its ScannerError out of yaml_value, score() and a whole pytest
    session (review robust19)."""
    if yamlvalue._FastLoader is None:
        pytest.skip("libyaml is not built into this PyYAML")
    for text in ("- &a [*a]\t\n- 2", "&a [*a]\t#c"):
        with pytest.raises(LimitError, match=r"^invalid YAML: nested too deeply \(line 1: \*a\)$"):
            yaml_value(text)


# -- mutation survivors (review mutants18) ---------------------------------------------------


def _alias_chain(n: int, flow: str) -> str:
    """n anchors, each holding the previous one: a value nested n deep through aliases."""
    lines = [f"x0: &x0 {flow[:2]}"] + [
        f"x{i}: &x{i} {flow[0]}{'a: ' if flow[0] == '{' else ''}*x{i - 1}{flow[1]}"
        for i in range(1, n)
    ]
    return "\n".join(lines)


def test_alias_nesting_below_max_depth_is_read() -> None:
    """700 levels through aliases is within MAX_DEPTH (1000): read, not refused."""
    value = yaml_value(_alias_chain(700, "[]"))
    node, depth = value["x699"], 0
    while node:
        node, depth = node[0], depth + 1
    assert depth == 699


def test_mapping_nesting_past_max_depth_through_aliases_is_refused() -> None:
    """Mappings nested 1000 deep under the root (1001 levels) pass MAX_DEPTH: refused; one
    level fewer is read."""
    assert yaml_value(_alias_chain(999, "{}"))["x998"]["a"]["a"] is not None
    with pytest.raises(LimitError, match="nested too deeply"):
        yaml_value(_alias_chain(1000, "{}"))


def test_octal_with_digits_8_or_9_is_text() -> None:
    assert yaml_value("a: 0o9\nb: 0o78\nc: 0o17") == {"a": "0o9", "b": "0o78", "c": 15}


def test_hex_with_upper_case_digits_is_an_int() -> None:
    assert yaml_value("a: 0xFF\nb: !!int 0xAb") == {"a": 255, "b": 171}


def test_float_without_leading_digit() -> None:
    """YAML 1.2 core (and the gold's JSON reader's peers) read ``.5`` as a number."""
    assert yaml_value("a: .5\nb: -.25e1\nc: !!float .5") == {"a": 0.5, "b": -2.5, "c": 0.5}


def test_upper_case_nan_is_a_float() -> None:
    value = yaml_value("a: .NAN\nb: .NaN\nc: .nan")
    assert all(isinstance(x, float) and x != x for x in value.values())


def test_hex_and_octal_ints_up_to_max_int_bits_are_read() -> None:
    """The 0x/0o bound is MAX_INT_BITS bits, as large as the decimal digit limit: an int of
    exactly that many bits is read, one bit more is refused."""
    from pytest_structeval.parse import MAX_INT_BITS

    n = 2 ** (MAX_INT_BITS - 1)
    assert yaml_value(f"a: {hex(n)}\nb: 0o{n:o}") == {"a": n, "b": n}
    with pytest.raises(LimitError):
        yaml_value(f"a: {hex(2 * n)}")


# -- mutation survivors (review mutants18b) --------------------------------------------------


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure"])
def test_a_merge_chain_under_the_copy_bound_reads(fast: bool) -> None:
    """1,100 links copy to ~606,000 values (under the bound) though the node graph counts
    ~1.2 million: the graph's count is an upper bound, allowed twice the copy's (review diff17b)."""
    kind, value = outcome(_merge_chain(1_100), fast=fast)
    assert kind == "value"
    assert value["a1099"]["k0"] == 0
    assert len(value["a1099"]) == 1_100


def test_keys_keep_the_file_order() -> None:
    from pytest_structeval.yamlvalue import yaml_value

    assert list(yaml_value("b: 1\na: 2\nc: {z: 1, y: 2}")) == ["b", "a", "c"]
    assert list(yaml_value("b: 1\na: 2\nc: {z: 1, y: 2}")["c"]) == ["z", "y"]


def test_explicit_timestamps_stay_the_text_written_as_values_and_keys() -> None:
    """As an untagged date does: ``isoformat`` wrote ``T`` for the space, ``.500000`` for
    ``.5`` and an upper-case ``T`` for ``t``, so a model repeating the gold's text failed."""
    from pytest_structeval.yamlvalue import yaml_value

    assert yaml_value("d: !!timestamp 2020-01-02") == {"d": "2020-01-02"}
    assert yaml_value("? !!timestamp 2020-01-02\n: x") == {"2020-01-02": "x"}
    assert yaml_value("? !!timestamp 2020-01-02T03:04:05\n: x") == {"2020-01-02T03:04:05": "x"}
    written = ["2024-01-02 10:00:00.5", "2001-12-14t21:59:43.10-05:00", "2024-01-02 11:00:00Z"]
    assert yaml_value("".join(f"- !!timestamp {w}\n" for w in written)) == written
    assert yaml_value("? !!timestamp 2024-01-02 10:00:00.5\n: x") == {"2024-01-02 10:00:00.5": "x"}


def test_the_alias_named_is_the_first_to_a_collection() -> None:
    """A scalar alias before the bomb is no part of it: the message names the list alias."""
    from pytest_structeval.errors import LimitError
    from pytest_structeval.yamlvalue import yaml_value

    lines = ["s: &s x", "t: *s", "l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 8)]
    with pytest.raises(LimitError) as caught:
        yaml_value("\n".join(lines))
    assert str(caught.value).endswith("(line 4: *l0)")


def test_a_text_without_aliases_is_within_the_copy_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy's bound is the text's length plus EXPANSION: values the text itself writes
    are never refused as an alias expansion."""
    from pytest_structeval import yamlvalue

    monkeypatch.setattr(yamlvalue, "EXPANSION", 10)
    assert yamlvalue.yaml_value("[" + ", ".join(["0"] * 50) + "]") == [0] * 50


def test_aliases_copying_out_long_text_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long string aliased many times is few values but much text, which every report writes
    in full (a 416 KB answer made a 1.6 GB report): past the text's length plus
    EXPANSION_CHARS characters of strings and keys, a LimitError."""
    from pytest_structeval import yamlvalue
    from pytest_structeval.errors import LimitError

    monkeypatch.setattr(yamlvalue, "EXPANSION_CHARS", 1000)
    text = "big: &x " + "y" * 100 + "\nitems: [" + ", ".join(["*x"] * 20) + "]"
    with pytest.raises(LimitError, match="YAML aliases expand to over 1,000 characters"):
        yamlvalue.yaml_value(text)
    keyed = "k: &k {" + "z" * 100 + ": 1}\nitems: [" + ", ".join(["*k"] * 20) + "]"
    with pytest.raises(LimitError, match="over 1,000 characters"):
        yamlvalue.yaml_value(keyed)  # keys copied out count as well
    shorter = "big: &x " + "y" * 100 + "\nitems: [" + ", ".join(["*x"] * 5) + "]"
    assert yamlvalue.yaml_value(shorter)["items"] == ["y" * 100] * 5
    digits = "9" * 100  # an integer is as long as a string written out (diff26a #1)
    ints = "big: &x [" + digits + ", " + digits + "]\nitems: [" + ", ".join(["*x"] * 10) + "]"
    with pytest.raises(LimitError, match=r"over 1,000 characters \(line 2: \*x\)"):
        yamlvalue.yaml_value(ints)
    int_keys = "k: &k {? " + digits + " : 1}\nitems: [" + ", ".join(["*k"] * 20) + "]"
    with pytest.raises(LimitError, match=r"over 1,000 characters \(line 2: \*k\)"):
        yamlvalue.yaml_value(int_keys)


@pytest.mark.parametrize(
    "text",
    [
        "\n".join(f"k{i}: {i * 1.5}" for i in range(300)),
        "[" + ", ".join(["9.e+15"] * 300) + "]",  # 6 characters, 18 written out (diff26b #3)
        "\n".join(f"k{i}: {10**40 + i}" for i in range(100)),
        "\n".join(f"k{i}:" for i in range(500)),  # null values written as nothing
        "\n".join(f"{10**30 + i}: ~" for i in range(100)),
    ],
    ids=["floats", "short floats", "long ints", "empty values", "int keys"],
)
def test_scalars_a_text_writes_itself_are_within_the_character_bound(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """What a scalar counts never exceeds the text it was written as."""
    from pytest_structeval import yamlvalue

    monkeypatch.setattr(yamlvalue, "EXPANSION_CHARS", 0)
    assert yamlvalue.yaml_value(text)


def test_a_long_yaml_answer_without_aliases_is_within_the_character_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Text the answer itself writes is never refused as an alias expansion."""
    from pytest_structeval import yamlvalue

    monkeypatch.setattr(yamlvalue, "EXPANSION_CHARS", 0)
    text = "\n".join(f"{'k' * 30}{i}: {'v' * 50}" for i in range(100))
    assert len(yamlvalue.yaml_value(text)) == 100


def test_an_amplifying_yaml_answer_scores_0_with_a_reason() -> None:
    """In an answer's yaml block the bound is an error result, never a gigabyte report."""
    from pytest_structeval import score

    block = "big: &x " + "y" * 400_000 + "\nitems: [" + ", ".join(["*x"] * 100) + "]"
    result = score('{"items": ["a"]}', f"Final Answer:\n```yaml\n{block}\n```")
    assert result.score == 0.0
    assert result.error is not None
    assert "YAML aliases expand to over 10,000,000 characters" in result.error


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.text(max_size=8), max_size=4))
def test_json_copied_into_yaml_reads_as_json_reads_it(value: dict[str, str]) -> None:
    """equiv31 #2: ``json.dumps`` writes an emoji as two escapes (``"\\ud83d\\ude00"``),
    which YAML's double-quoted strings read as two lone halves: a JSON gold copied into a
    ``.yaml`` file failed a correct answer. A pair is one character now, as in JSON."""
    import json

    text = json.dumps(value)  # (every character past ASCII escaped, astral ones as pairs)
    assert yaml_value(text) == json.loads(text)


def test_a_lone_surrogate_escape_stays_a_lone_half() -> None:
    assert yaml_value('a: "\\ud83d x"') == {"a": "\ud83d x"}
    assert yaml_value("a: '\\ud83d\\ude00'") == {"a": "\\ud83d\\ude00"}  # (no escapes in '')
    assert yaml_value('"\\ud83d\\ude00": "\\U0001F600"') == {"\U0001f600": "\U0001f600"}
    # only a high half then a low one is a pair (mutation31 Y7)
    assert yaml_value('a: "\\ud83d\\ud83d"') == {"a": "\ud83d\ud83d"}
    assert yaml_value('a: "\\ude00\\ud83d"') == {"a": "\ude00\ud83d"}
    assert yaml_value('a: "\\ude00\\ude00 x \\ud83d\\ude00"') == {"a": "\ude00\ude00 x \U0001f600"}
