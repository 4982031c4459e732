"""The trajectory record's repeated-key check (review fixgaps37 4): a record was read twice,
orjson for its value and ``json`` for the keys it writes twice. The second read now runs only
where a key of the record may be written twice, told by counting each key's writing in the
text; it must never miss a repeat, however the keys are spelt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_structeval import scenarios
from pytest_structeval.repeats import json_repeats, own_keys_may_repeat
from tests.plugin_support import write

# keys that share characters, with ones JSON writes escaped or that \u and \/ may spell
KEYS = ["answer", "run_id", "a", "/", 'q"', "\t", "\u00e9", "\U0001f600", "\\", "\x7f"]


@st.composite
def spelt(draw: st.DrawFn, key: str) -> str:
    """``key`` as a JSON string: most often as JSON writes it, else with characters escaped
    otherwise (``\\u`` in either case, a surrogate pair past U+FFFF, ``\\/``)."""
    if not draw(st.integers(0, 3)):
        out = []
        for char in key:
            codes = [f"{ord(char):04x}"]
            if ord(char) > 0xFFFF:
                high, low = divmod(ord(char) - 0x10000, 0x400)
                codes = [f"{0xD800 + high:04x}", f"{0xDC00 + low:04x}"]
            escaped = "".join(f"\\u{code}" for code in codes)
            upper = escaped.upper().replace("\\U", "\\u")
            ways = [json.dumps(char, ensure_ascii=False)[1:-1], escaped, upper]
            out.append(draw(st.sampled_from([*ways, "\\/"] if char == "/" else ways)))
        return '"' + "".join(out) + '"'
    return json.dumps(key, ensure_ascii=False)


# strings a value holds: a key's writing, escapes of other characters, an escaped backslash
# before what reads as an escape, a record written as text inside a string
VALUES = ["x", r"caf\u00e8", r"a\\u0061", r"\/", r"{\"answer\": 1}", r"\ud83d\ude01"]


@st.composite
def written(draw: st.DrawFn, depth: int = 0) -> str:
    """A JSON value as text: objects may write a key twice, keys and strings spelt anyhow."""
    kind = draw(st.sampled_from(["object", "list", "string", "scalar"] if depth < 3 else ["x"]))
    if kind == "object":
        members = draw(st.lists(st.sampled_from(KEYS), max_size=3))
        parts = [f"{draw(spelt(k))}: {draw(written(depth + 1))}" for k in members]
        return "{" + draw(st.sampled_from([", ", ",\n "])).join(parts) + "}"
    if kind == "list":
        return "[" + ", ".join(draw(st.lists(written(depth + 1), max_size=2))) + "]"
    if kind == "string":  # a key's writing may stand in a value too
        body = st.sampled_from(VALUES).map(lambda text: f'"{text}"')
        return draw(st.one_of(st.sampled_from(KEYS).flatmap(spelt), body))
    return draw(st.sampled_from(["1", "null", "true", "-2.5e3"]))


@st.composite
def records(draw: st.DrawFn) -> str:
    """A record: an object whose own keys may repeat, spelt alike or not."""
    own = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4))
    if draw(st.booleans()):  # a key written twice
        own.insert(draw(st.integers(0, len(own))), draw(st.sampled_from(own)))
    parts = [f"{draw(spelt(k))}: {draw(written(1))}" for k in own]
    return "{" + ", ".join(parts) + "}"


def own_repeats(text: str, nested: bool) -> list[Any]:
    """The full check, as the loader filters it: a record's own keys (a list's records')."""
    return [r for r in json_repeats(text) if len(r.path) == (1 if nested else 0)]


@settings(max_examples=250, deadline=None)
@given(st.lists(records(), min_size=1, max_size=3), st.sampled_from(["line", "list", "pretty"]))
@example([r'{"/": 1, "\/": 2}'], "line")
@example(['{"\\ud83d\\ude00": 1, "\U0001f600": 2}'], "pretty")
@example(['{"a": 1}', r'{"a": 1, "\u0061": 2}'], "list")
def test_the_count_never_misses_a_repeated_key(texts: list[str], shape: str) -> None:
    if shape == "list":  # a .json file of several records
        text = "[" + ",\n".join(texts) + "]"
        value = json.loads(text)
        may = own_keys_may_repeat(text, value)
        assert may or not own_repeats(text, nested=True)
        return
    for record in texts:  # a JSONL line, or a .json file of one record
        text = record if shape == "line" else f"\n  {record}\n"
        may = own_keys_may_repeat(text, [json.loads(text)])
        assert may or not own_repeats(text, nested=False), text


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ('{"answer": "x", "run_id": "r"}', False),
        ('{"answer": "x", "answer": "y"}', True),
        ('{"answer": "{\\"answer\\": 1}", "run_id": "\\u00e9"}', False),  # (escaped inside)
        ('{"answer": {"answer": 1}}', True),  # written twice: the full check decides
        ('{"\\u0061nswer": 1, "answer": 2}', True),
        ('{"a/b": 1, "a\\/b": 2}', True),
        ('{"q\\"": 1, "\\u0071\\"": 2}', True),
        ('{"\\ud83d\\ude00": 1, "\U0001f600": 2}', True),
        ('[{"answer": 1}, {"answer": 2, "run_id": "answer"}]', True),
        ('[{"answer": 1}, {"answer": 2}, 3]', False),
    ],
)
def test_what_the_count_tells(text: str, may: bool) -> None:
    value = json.loads(text)
    assert own_keys_may_repeat(text, value if isinstance(value, list) else [value]) is may


def test_records_that_repeat_no_key_are_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second read runs for the record that may repeat a key only, and finds its repeat."""
    read: list[str] = []

    def counted(text: str) -> Any:
        read.append(text)
        return json_repeats(text)

    monkeypatch.setattr(scenarios, "json_repeats", counted)
    clean = {"run_id": "r1", "scenario_id": "1", "answer": '{"a": "caf\\u00e9"}'}
    write(tmp_path / "runs" / "a.json", json.dumps(clean))
    write(tmp_path / "runs" / "b.json", json.dumps([clean, {**clean, "run_id": "r2"}]))
    repeated = '{"run_id": "r3", "answer": "x", "answer": "y"}'
    write(tmp_path / "runs" / "c.jsonl", json.dumps({**clean, "run_id": "r4"}) + "\n" + repeated)
    runs = scenarios.load_trajectories([tmp_path / "runs"], root=tmp_path)
    assert [(t.run_id, t.repeated) for t in runs] == [
        ("r1", None),
        ("r1", None),
        ("r2", None),
        ("r4", None),
        ("r3", "the key 'answer' is written twice (line 2): the last value is read"),
    ]
    assert read == [repeated]
