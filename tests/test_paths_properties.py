"""Hypothesis properties of paths and leaf comparison."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pytest_structeval.compare import (
    NUMERIC_CREDITS,
    SIMILARITY_DEFAULTS,
    STRICT_DEFAULTS,
    LeafOptions,
    Tolerance,
    compare_leaf,
    leaf_scores,
)
from pytest_structeval.paths import (
    ROOT,
    GlobMatcher,
    LiteralKey,
    _compiled,
    compile_glob,
    flatten,
    index_path,
    key_path,
    resolve_path,
    split_path,
)

# Keys full of the characters the path syntax uses, plus arbitrary text.
tricky_keys = st.one_of(
    st.text(max_size=8),
    st.text(alphabet=".[]\"'*\\ <>-_0123456789aA\t\n", max_size=6),
    st.sampled_from(["", "0", "-1", "a.b", "a[0]", '["x"]', "answer", "*", "**", "[*]"]),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=10),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(tricky_keys, children, max_size=4),
    ),
    max_leaves=25,
)
literal_keys = st.one_of(
    tricky_keys,
    st.integers(),
    st.floats(allow_nan=False),
    st.none(),
    st.tuples(st.integers(), st.text(alphabet="'\">]<[ab", max_size=4)),
)
literal_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(literal_keys, children, max_size=4),
    ),
    max_leaves=20,
)


def count_leaves(value: Any) -> int:
    if isinstance(value, dict) and value:
        return sum(count_leaves(v) for v in value.values())
    if isinstance(value, (list, tuple)) and value:
        return sum(count_leaves(v) for v in value)
    return 1


def navigate(value: Any, path: str) -> Any:
    tokens = split_path(path)
    assert tokens[0] == ROOT
    for token in tokens[1:]:
        if isinstance(token, int):
            assert isinstance(value, (list, tuple))
            value = value[token]
        else:
            assert isinstance(value, dict)
            value = value[token.value if isinstance(token, LiteralKey) else token]
    return value


def check_flatten(value: Any) -> dict[str, Any]:
    flat = flatten(value)
    # Distinct leaves get distinct paths: none was lost to a collision...
    assert len(flat) == count_leaves(value)
    # ...and each path leads back to its own leaf object.
    for path, leaf in flat.items():
        assert navigate(value, path) is leaf
    return flat


@settings(max_examples=120, deadline=None)
@given(json_values)
def test_flatten_never_collides_and_split_path_navigates_back(value: Any) -> None:
    flat = check_flatten(value)
    if not (isinstance(value, dict) and ROOT in value):  # else a top-level "answer" key is meant
        for path, leaf in flat.items():
            assert resolve_path(value, path) is leaf


@settings(max_examples=200, deadline=None)
@given(literal_values)
def test_flatten_never_collides_with_python_literal_keys(value: Any) -> None:
    check_flatten(value)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_every_path_is_its_own_exact_glob(value: Any) -> None:
    """Paths of composed keys, as the key-level modes flatten them (hypothesis found
    ``{"\uf900": None}``, whose NFC form is another character: see the test below)."""
    flat = flatten(value)
    assume(all(path == unicodedata.normalize("NFC", path) for path in flat))
    for path in flat:
        matches = compile_glob(path)
        assert [p for p in flat if matches(p)] == [path]


def test_a_key_whose_composed_form_differs_matches_its_own_glob() -> None:
    """Composed, or with ``compose_paths`` (schema mode, which keeps keys as written)."""
    for key in ("\uf900", "u\u0308", "\u212b"):  # NFC: U+8C48, ü, Å
        (path,) = flatten({key: 1})
        assert compile_glob(path, compose_paths=True)(path)
        assert compile_glob(unicodedata.normalize("NFC", path))(unicodedata.normalize("NFC", path))


empty_containers: list[Any] = [{}, [], ()]
leaves = st.one_of(json_scalars, st.just(float("nan")), st.sampled_from(empty_containers))
tolerances = st.one_of(
    st.none(),
    st.builds(
        Tolerance,
        rel=st.floats(0, 2),
        abs=st.one_of(st.none(), st.floats(0, 1e6)),
    ),
)
leaf_options = st.builds(
    LeafOptions,
    case_sensitive=st.booleans(),
    normalize_whitespace=st.booleans(),
    tolerance=tolerances,
    coerce_numeric_strings=st.booleans(),
    strict_types=st.booleans(),
    numeric_credit=st.sampled_from(NUMERIC_CREDITS),
)
presets = st.sampled_from([STRICT_DEFAULTS, SIMILARITY_DEFAULTS])


@settings(max_examples=500, deadline=None)
@given(leaves, leaves, st.one_of(presets, leaf_options))
def test_compare_leaf_score_is_in_unit_interval_and_consistent(
    gold: Any, model: Any, opts: LeafOptions
) -> None:
    outcome = compare_leaf(gold, model, opts)
    assert 0.0 <= outcome.score <= 1.0
    assert outcome.exact is (outcome.score == 1.0)
    assert (outcome.reason is None) is outcome.exact


@settings(max_examples=200, deadline=None)
@given(leaves, st.lists(leaves, max_size=4), st.one_of(presets, leaf_options))
def test_leaf_scores_agree_with_compare_leaf(
    gold: Any, models: list[Any], opts: LeafOptions
) -> None:
    assert leaf_scores(gold, models, opts) == [compare_leaf(gold, m, opts).score for m in models]


@settings(max_examples=300, deadline=None)
@given(st.integers(), st.integers(), st.one_of(presets, leaf_options))
def test_compare_leaf_numeric_score_in_unit_interval(
    gold: int, model: int, opts: LeafOptions
) -> None:
    outcome = compare_leaf(gold * 10**300, model, opts)
    assert 0.0 <= outcome.score <= 1.0


@settings(max_examples=300, deadline=None)
@given(json_scalars, st.one_of(presets, leaf_options))
def test_compare_leaf_of_a_value_with_itself_is_exact(value: Any, opts: LeafOptions) -> None:
    assert compare_leaf(value, value, opts).exact
    copy = value.encode().decode() if isinstance(value, str) else value
    assert compare_leaf(value, copy, opts).exact


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12), st.text(max_size=12))
def test_exact_strings_are_equal_after_normalisation_not_by_similarity(
    gold: str, model: str
) -> None:
    outcome = compare_leaf(gold, model, SIMILARITY_DEFAULTS)
    if outcome.exact:
        assert gold.strip() == model.strip() or not (gold.isascii() and model.isascii())


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False))
def test_numeric_credit_is_relative_to_gold(gold: float, model: float) -> None:
    outcome = compare_leaf(gold, model, SIMILARITY_DEFAULTS)
    if abs(gold) > 1e-12 and not outcome.exact and math.isfinite(model):
        expected = max(0.0, 1.0 - abs(gold - model) / abs(gold))
        assert abs(outcome.score - expected) <= 1e-9 or math.isinf(gold - model)


_KEYS = st.sampled_from(["a", "b", "meta", "a.b", "x y", '["', "*", "é", "1"])
_SEGMENTS = st.one_of(
    _KEYS.map(lambda k: ("key", k)),
    st.integers(-2, 3).map(lambda i: ("index", i)),
    st.sampled_from([1, None, (1, "]>")]).map(lambda v: ("literal", v)),
)


def _render_path(segments: list[tuple[str, Any]]) -> str:
    path = ROOT
    for kind, value in segments:
        path = index_path(path, value) if kind == "index" else key_path(path, value)
    return path


def _render_pattern(tokens: list[tuple[str, Any]]) -> str:
    text = ROOT
    for kind, value in tokens:
        if kind == "wild":
            text += {"**": ".**", "*": ".*", "[*]": "[*]"}[value]
        else:
            text = _render_path([(kind, value)]).replace(ROOT, text, 1)
    return text


_PATTERN_TOKENS = st.lists(
    st.one_of(_SEGMENTS, st.sampled_from(["**", "*", "[*]"]).map(lambda w: ("wild", w))),
    max_size=5,
)


@given(
    st.lists(_PATTERN_TOKENS, min_size=1, max_size=3),
    st.lists(st.lists(_SEGMENTS, max_size=6), min_size=1, max_size=6),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_glob_matcher_agrees_with_the_regex_in_any_order_of_asking(
    patterns: list[list[tuple[str, Any]]],
    paths: list[list[tuple[str, Any]]],
    subtree: bool,
    rng: Any,
) -> None:
    """The matcher (patterns with several ``**`` as a segment automaton, each path stepped
    from its parent's state) agrees with one regex per pattern on every path, asked in any
    order (parents first or not), pattern by pattern."""
    texts = [_render_pattern(p) for p in patterns]
    asked = {_render_path(p[:n]) for p in paths for n in range(len(p) + 1)}
    order = sorted(asked)
    rng.shuffle(order)
    matcher = GlobMatcher(tuple(texts), subtree)
    each = [_compiled((text,), subtree) for text in texts]
    for path in order:
        bits = sum(1 << i for i, regex in enumerate(each) if regex.fullmatch(path) is not None)
        assert matcher.matching(path) == bits, (texts, path)
        assert matcher(path) == bool(bits)
