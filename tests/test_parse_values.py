"""Values given already parsed: builtins pass through untouched, other libraries' numbers,
sets and arrays read as their JSON text would."""

from __future__ import annotations

import hashlib
import importlib.machinery
import math
from collections.abc import Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_structeval import LimitError, OptionsError, parse_answer, score
from pytest_structeval.parse import Parsed, parse_answer_detailed, plain_value

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=30,
)


@given(json_values.filter(lambda v: not isinstance(v, str)))  # (a str is answer text)
def test_builtin_values_are_returned_as_they_are(value: Any) -> None:
    assert parse_answer(value) is value


@given(st.sets(st.integers() | st.text(max_size=4), max_size=8))
def test_a_set_reads_as_the_sorted_list_its_literal_gives(value: set[Any]) -> None:
    literal = "{" + ", ".join(map(repr, value)) + "}" if value else "set()"
    expected = parse_answer(literal) if value else []
    assert parse_answer(value) == expected
    assert parse_answer(frozenset(value)) == expected


def test_other_numbers_read_as_ints_and_floats() -> None:
    value = {
        "whole": Decimal("2"),
        "part": Decimal("1.5"),
        "third": Fraction(1, 3),
        "nested": (Decimal("0.1"), [{"x": Fraction(4, 2)}]),
        "kept": "1.5",
    }
    plain = parse_answer(value)
    assert plain == {
        "whole": 2,
        "part": 1.5,
        "third": 1 / 3,
        "nested": [0.1, [{"x": 2}]],
        "kept": "1.5",
    }
    assert type(plain["whole"]) is int
    assert list(plain) == list(value)  # the keys keep their order
    assert math.isnan(parse_answer(Decimal("NaN")))
    assert math.isnan(parse_answer(Decimal("sNaN")))  # compared, it raised (fuzz26 #5)
    assert math.isnan(parse_answer({"x": Decimal("-sNaN")})["x"])
    assert parse_answer(Decimal("-Infinity")) == -math.inf
    assert parse_answer(Decimal("1e999999")) == math.inf  # never a million-digit int
    assert parse_answer(Decimal("1e30")) == 10**30


def test_numpy_scalars_and_arrays_read_as_builtins() -> None:
    np = pytest.importorskip("numpy")
    value = {"n": np.int64(5), "f": np.float32(1.5), "ok": np.bool_(True), "m": np.array([[1, 2]])}
    plain = parse_answer(value)
    assert plain == {"n": 5, "f": 1.5, "ok": True, "m": [[1, 2]]}
    assert [type(plain[k]) for k in ("n", "f", "ok")] == [int, float, bool]
    assert score({"n": 5, "ok": True}, {"n": np.int64(5), "ok": np.bool_(True)}).passed


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_every_mode_scores_such_values_as_their_json_form(mode: str) -> None:
    gold = {"price": 1.5, "tags": ["a", "b"], "n": 3}
    model = {"price": Decimal("1.5"), "tags": {"b", "a"}, "n": Fraction(6, 2)}
    result = score(gold, model, mode)
    assert result.passed
    assert result.score == 1.0
    assert not score(gold, {**model, "price": Decimal("1.6")}, mode).passed


def _doubled(leaf: Any, times: int) -> Any:
    """``leaf`` held twice at each of ``times`` levels: 2**times copies once written out."""
    value = leaf
    for level in range(times):
        value = [value, (value,)] if level % 2 else {"a": value, "b": value}
    return value


@pytest.mark.parametrize("leaf", [{"v": 1.5}, {"v": Decimal("1.5")}, {Decimal(1)}])
def test_a_value_of_shared_parts_is_bounded_as_its_json_text(leaf: Any) -> None:
    value = _doubled(leaf, 40)  # small in memory; 2**40 leaves as JSON text
    with pytest.raises(LimitError, match=r"over 5,000,000 values .* max_bytes=10,000,000"):
        plain_value(value)
    result = score({"a": 1}, value)
    assert not result.passed
    assert "max_bytes=10,000,000" in result.reason
    with pytest.raises(LimitError, match="held in several places"):
        score(value, {"a": 1})


def test_a_shared_value_counts_as_written_out_in_each_place() -> None:
    pair = [1, 2]
    value = [pair, pair, pair]  # [[1,2],[1,2],[1,2]]: 10 values, 19 bytes as JSON
    assert plain_value(value, max_bytes=19) is value
    with pytest.raises(LimitError):
        plain_value(value, max_bytes=18)
    assert parse_answer("[[1,2],[1,2],[1,2]]", max_bytes=19) == value
    converted = {"d": Decimal(1), "x": [pair, pair]}  # 9 values, copied: counted as built
    assert plain_value(converted, max_bytes=17) == {"d": 1, "x": [[1, 2], [1, 2]]}
    with pytest.raises(LimitError):
        plain_value(converted, max_bytes=16)
    shared = _doubled({"v": 1.5}, 12)
    assert score(orjson.loads(orjson.dumps(shared)), shared).passed  # read as its tree
    # A value holding each part once is as large as it is, converted or not (review diff19a).
    unshared = [Decimal(1), *range(600)]
    assert plain_value(unshared, max_bytes=1000) == [1, *range(600)]
    assert plain_value(list(range(600)), max_bytes=1000) == list(range(600))


class _Fresh(Mapping[int, Any]):
    """A mapping that builds its values anew on each access: nothing in it is shared."""

    def __init__(self, size: int, depth: int) -> None:
        self.size, self.depth = size, depth

    def __getitem__(self, key: int) -> Any:
        return _Fresh(self.size, self.depth - 1) if self.depth > 1 else [key, key + 1]

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.size))

    def __len__(self) -> int:
        return self.size


def test_a_mapping_building_its_values_on_access_shares_nothing() -> None:
    """Its parts were freed while counted, and a new one at a reused address was taken
    for a part met again (review diff19b)."""
    lazy = _Fresh(200, 2)  # 40,000 lists of 2: 120,000 values, none shared
    copy = plain_value(lazy, max_bytes=200_000)
    assert copy == {i: {k: [k, k + 1] for k in range(200)} for i in range(200)}
    assert plain_value(lazy) == copy  # (a freed list's id once fetched another's copy)


def test_a_large_converted_value_of_shared_parts_is_counted_once() -> None:
    value = {"d": Decimal(1), "x": _doubled([2], 40)}  # a number to convert above the sharing
    with pytest.raises(LimitError, match="held in several places"):
        plain_value(value)


def test_a_cycle_or_a_deep_value_given_parsed_is_refused_as_its_text_would_be() -> None:
    """maintainer29 #2: such a value was left for the walk, which refused it only where a mode
    walked that deep (similarity scored a mismatched one without a word)."""
    deep_message = "nests deeper than max_depth=200 at answer"
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(LimitError, match=deep_message):
        plain_value(cycle)
    looped: dict[str, Any] = {"x": Decimal(1)}  # a cycle through a mapping, copied: depth counts
    looped["self"] = looped
    assert deep_message in score({"x": 1}, looped).reason
    fan: list[Any] = []  # a cycle taken twice a level: 2**200 values written out to max_depth
    fan += [fan, {"again": fan}]
    with pytest.raises(LimitError, match=deep_message):  # (each part met once a level)
        plain_value(fan)
    converted: list[Any] = []  # the same with a number to convert: copied once, a cycle still
    converted += [converted, converted, Decimal(1)]
    with pytest.raises(LimitError, match=deep_message):
        plain_value(converted)
    assert deep_message in score([1], converted).reason
    deep: Any = {Decimal(1)}
    for _ in range(199):
        deep = [deep, Decimal(2)]
    assert plain_value(deep, max_depth=200)[0][0][1] == 2  # 200 levels: read
    with pytest.raises(LimitError, match=deep_message):
        plain_value([deep], max_depth=200)
    assert plain_value([[[set()]]], max_depth=3) == [[[[]]]]  # an empty one is a leaf
    # diff30a #1: a part held in many places, and deeper in one, beside an arm exactly at the
    # bound: the parts met again were skipped, and the last level looked clean
    x = [[["leaf"]]]
    shared = {"a": 1, "b": [x] * 300 + [[[x]]] + [[[[["end"]]]]]}  # 7 levels, an arm of 6
    with pytest.raises(LimitError, match="nests deeper than max_depth=6"):
        plain_value(shared, max_depth=6)
    assert plain_value(shared, max_depth=7) is shared
    for mode in ("strict", "similarity", "schema"):  # under a mismatch too, in every mode
        error = score({"a": 1}, {"a": cycle}, mode=mode).error
        assert error is not None
        assert deep_message in error


CUT_OFF = '{"a": 1, "b": '


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_repairs_can_be_refused_so_a_cut_off_answer_fails_closed(mode: str) -> None:
    assert score({"a": 1}, CUT_OFF, mode).passed  # repaired to {"a": 1}
    refused = score({"a": 1}, CUT_OFF, mode, parse_repairs=False)
    assert (refused.passed, refused.score, refused.parse_method) == (False, 0.0, "repaired+refused")
    strict = score({"a": 1}, CUT_OFF, mode, parse_repairs=False, strict_parse=True)
    assert strict.error is not None
    assert "repairs are off" in strict.error
    # Never a complete fragment of the cut-off answer instead (second review).
    wrapped = 'Here it is: {"person": {"a": 1}, "notes": "she was born in 18'
    assert score({"a": 1}, wrapped, mode).passed is False
    assert score({"a": 1}, wrapped, mode, parse_repairs=False).passed is False
    # JSON5 and Python syntax are no repair: still read.
    assert score({"a": 1}, "{'a': 1,}  // done", mode, parse_repairs=False).passed


def test_a_refused_repair_is_named_in_the_method_and_the_reason() -> None:
    """Not "no structure" read as prose (review asks18): the method says which repair was
    refused, it never reads a count out of the text, and it counts as a text fallback."""
    fenced = '```json\n{"a": 1,, oops\n```'
    assert parse_answer_detailed(fenced, repair=False) == Parsed(
        fenced, "fence:json+repaired+refused", False
    )
    refused = score({"a": 1}, fenced, parse_repairs=False)
    assert refused.reason == (
        "model answer needs a structural repair (fence:json+repaired), and repairs are off:"
        " 0 mismatched, 1 missing, 1 extra"
    )
    count = score(5, '{"count": 5,', parse_repairs=False)
    assert (count.passed, count.parse_method) == (False, "repaired+refused")


def test_parse_answer_without_repairs() -> None:
    fenced = '```json\n{"a": 1,, oops\n```'
    assert parse_answer(fenced) == {"a": 1}
    assert parse_answer(fenced, repair=False) == fenced  # the whole answer, as text
    assert parse_answer("{'a': True, 'b': [1, 2,]}", repair=False) == {"a": True, "b": [1, 2]}
    with pytest.raises(OptionsError, match="repair must be true or false"):
        parse_answer("1", repair="no")  # type: ignore[arg-type]
    with pytest.raises(OptionsError, match="parse_repairs must be true or false"):
        score({"a": 1}, "1", parse_repairs=1)
    assert parse_answer(CUT_OFF) == {"a": 1}  # the switch does not stick
    listing = '[{"id": 1}, {"id": 2}, {"id": 3'
    assert parse_answer(listing, repair=False) == listing  # not {"id": 2}


def test_narrow_numpy_floats_read_as_they_print() -> None:
    """np.float32(0.1) is 0.10000000149011612 as a Python float; it prints (and a JSON
    writer writes) 0.1, which is what the model answered (second review)."""
    np = pytest.importorskip("numpy")
    grid = np.arange(6, dtype=np.float32).reshape(1, 2, 3) / 10
    assert parse_answer({"p": np.float32(0.1), "g": grid, "h": np.float16(0.3)}) == {
        "p": 0.1,
        "g": [[[0.0, 0.1, 0.2], [0.3, 0.4, 0.5]]],
        "h": 0.3,
    }
    assert parse_answer(np.zeros((2, 0), dtype=np.float32)) == [[], []]
    assert score({"p": [0.1, 0.7]}, {"p": np.array([0.1, 0.7], dtype=np.float32)}).passed


def test_a_flat_dict_of_builtins_is_returned_at_once() -> None:
    flat = {"a": 1, "b": "x", "c": None, "d": 1.5, "e": True}
    assert plain_value(flat) is flat
    assert plain_value({"a": Decimal("1.5")}) == {"a": 1.5}


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        (
            '{"a": 1, "b": 2',
            "the gold answer needed a repair to read (closed a '{' left open at the end): "
            '\'{"a": 1, "b": 2\'',
        ),
        (
            '{"n": 1;871}',
            "the gold answer looks like JSON but reads only as text: '{\"n\": 1;871}'",
        ),
        (
            "[" + "x" * 100,
            "the gold answer looks like JSON but reads only as text: '["
            + "x" * 27
            + "'...'"
            + "x" * 28
            + "' (101 characters, "
            + hashlib.sha256(("[" + "x" * 100).encode()).hexdigest()[:8]
            + ")",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
def test_a_messy_gold_warns_once_with_its_reading(gold: str, message: str, mode: str) -> None:
    """A correct structured answer fails against a gold read as text, silently before
    (review realdata18); a gold warns once per session, at the caller's line (it was the
    library's, and the parse cache kept a later session from hearing of it: interplay30 #3)."""
    import warnings

    from pytest_structeval import GoldWarning
    from pytest_structeval.errors import session_warnings
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    with pytest.warns(GoldWarning) as caught:
        score(gold, gold, mode)
    assert [str(w.message) for w in caught] == [message]
    assert caught[0].filename == __file__
    # The session's own context (pytest's for the test), where the default display applies:
    with warnings.catch_warnings(record=True) as shown, session_warnings():
        warnings.simplefilter("default")
        score(gold, gold, mode)
        score(gold, gold, mode)  # once in a session
    assert [str(w.message) for w in shown] == [message]
    with warnings.catch_warnings(), session_warnings():
        warnings.simplefilter("error")
        with pytest.raises(GoldWarning):  # given, yet each run raises under error
            score(gold, gold, mode)
    forget_gold_warnings()  # a new session (the plugin forgets at its start)
    with warnings.catch_warnings(record=True) as shown, session_warnings():
        warnings.simplefilter("default")
        score(gold, gold, mode)
    assert len(shown) == 1


class _GoneLoader:
    """A loader that raises for its source (its zip archive is gone from disk)."""

    def get_source(self, name: str) -> str:
        raise ImportError(f"{name}: the archive is gone")


_GONE = _GoneLoader()


@pytest.mark.parametrize(
    ("scope", "filename"),
    [
        # python -c's __main__: raised ImportError (its loader has no source for the line)
        # on every Python, and on 3.12+ also warned that its globals lack a __spec__.loader
        ({"__name__": "__main__", "__loader__": importlib.machinery.BuiltinImporter}, "<string>"),
        (
            {
                "__name__": "gone",
                "__loader__": _GONE,
                "__spec__": importlib.machinery.ModuleSpec("gone", _GONE),  # type: ignore[arg-type]
            },
            "gone.py",
        ),
    ],
    ids=["python-c", "loader-raises"],
)
def test_a_gold_warning_given_in_code_whose_source_cannot_be_read_is_shown(
    scope: dict[str, Any], filename: str
) -> None:
    """Such code gets its GoldWarning, without the line, instead of an error in place of its
    score (or a DeprecationWarning beside it)."""
    import warnings

    from pytest_structeval import GoldWarning

    scope = {**scope, "score": score}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile("result = score('{\"a\": 1', '{\"a\": 1}')", filename, "exec"), scope)
    assert scope["result"].passed
    assert [(w.category, w.filename, w.lineno) for w in caught] == [(GoldWarning, filename, 1)]


FIX = "write it as JSON, or as YAML data in groundtruth.yaml (or a ground_truth mapping)"
DATA = "and an answer that is data is scored against that text"


@pytest.mark.parametrize(
    ("gold", "message"),
    [
        (
            "pump: P-101\nreadings: [1, 2, 3]",
            "the gold answer read only [1, 2, 3] from a gold of 2 lines (candidate+json): "
            f"'pump: P-101\\nreadings: [1, 2, 3]'; {FIX}",
        ),
        (
            "result: {count: 3}",
            'the gold answer read only {"count": 3} from a gold of 1 line (candidate+literal): '
            f"'result: {{count: 3}}'; {FIX}",
        ),
        (
            "count: 3",
            f"the gold answer read only 3 from a gold of 1 line (count): 'count: 3'; {FIX}",
        ),
        (
            "pumps: [P-101, P-102]",
            'the gold answer reads only as text, yet it is YAML data, {"pumps": ["P-101", '
            f"\"P-102\"]}}, {DATA}: 'pumps: [P-101, P-102]'; {FIX}",
        ),
        (
            "- P-101\n- P-102",
            'the gold answer reads only as text, yet it is YAML data, ["P-101", "P-102"], '
            f"{DATA}: '- P-101\\n- P-102'; {FIX}",
        ),
    ],
)
def test_a_gold_text_read_as_a_part_of_itself_or_that_is_yaml_data_warns(
    gold: str, message: str
) -> None:
    """Review goldyaml35 1: a groundtruth.txt (or a string ground_truth) written as YAML was
    read as one fragment of itself (its one flow list, or a count), or as text, without a
    word: the correct answer scored 0, and a wrong or partial one (``[1, 2, 3]``) 1.0."""
    from pytest_structeval import GoldWarning
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    with pytest.warns(GoldWarning) as caught:
        score(gold, "{}")
    assert [str(w.message) for w in caught] == [message]


TEXT_GOLDS = {  # a text gold written as YAML data, and that data as JSON
    "- Replace the bearing\n- Check alignment": '["Replace the bearing", "Check alignment"]',
    "Root cause: bearing wear\nAction: replace it": (
        '{"Root cause": "bearing wear", "Action": "replace it"}'
    ),
}


@pytest.mark.parametrize("mode", ["strict", "similarity", "schema"])
@pytest.mark.parametrize("gold", TEXT_GOLDS)
def test_a_yaml_like_text_gold_warns_against_an_answer_that_is_data_only(
    gold: str, mode: str
) -> None:
    """Review fixwarn37 #2: a text gold written as bullets or ``Key: value`` lines warned
    'reads only as text, yet it is YAML data ... write it as JSON' in every mode, also
    against a text answer (similarity: text against text, as meant), where a gold written as
    JSON would fail every such answer. It warns where the text fails a correct answer: one
    that is data."""
    import warnings

    from pytest_structeval import GoldWarning
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = score(gold, "Replace the bearing, then check alignment.", mode)
        assert score(gold, gold, mode).passed
    assert text.score > 0 if mode == "similarity" else not text.passed
    answers = ['["Replace the bearing", "Check alignment"]', {"root_cause": "bearing wear"}]
    for answer in answers:
        forget_gold_warnings()
        with pytest.warns(GoldWarning) as caught:
            assert not score(gold, answer, mode).passed
        assert [str(w.message).partition(": '")[0] for w in caught] == [
            f"the gold answer reads only as text, yet it is YAML data, {TEXT_GOLDS[gold]}, {DATA}"
        ]


@pytest.mark.parametrize(
    "gold",
    [
        *['{"a": 1}', "Chiller 6", "34", "{'a': 1}", "```json\n[1]\n```"],
        # a number alone, however written; a marked answer; a sentence; one YAML entry
        *["1,234", "**34**", "-3.5", "1e3", "NaN", "1_000", "0x1F", "Final Answer: 34"],
        # the number words the parser reads: no gold "read only Infinity from ... 'inf'"
        *["inf", "-inf", "+inf", "nan", "**NaN**", "**Infinity**", "`inf`", "-Infinity"],
        *["The pump P-101 tripped.", "Note: the pump tripped", "- P-101"],
        *TEXT_GOLDS,  # (against itself: a text answer)
    ],
)
def test_a_clean_gold_does_not_warn(gold: str) -> None:
    import warnings

    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        score(gold, gold)


def test_two_long_golds_that_start_alike_warn_apart() -> None:
    """Python shows a warning once per text: quoting only the start merged them (diff18e)."""
    import warnings

    from pytest_structeval import GoldWarning
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    start = '{"scenario": "pump maintenance report for the north site", "quarter": 3, "rows": ['
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for end in ("1, 2", "3, 4"):
            score(start + end, "a")
    messages = {str(w.message) for w in caught if issubclass(w.category, GoldWarning)}
    assert len(messages) == 2


def test_two_long_golds_of_one_length_that_differ_inside_warn_apart() -> None:
    """Templated golds differ in the middle (0.93 against 0.97): the quote carries a short
    digest of the whole text (review diff18f)."""
    import warnings

    from pytest_structeval import GoldWarning
    from pytest_structeval.modes import forget_gold_warnings

    forget_gold_warnings()
    pad = "x" * 80
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for value in ("0.93", "0.97"):
            score('{"pad": "' + pad + '", "a": ' + value + ', "end": "' + pad + '"', "a")
    messages = {str(w.message) for w in caught if issubclass(w.category, GoldWarning)}
    assert len(messages) == 2
