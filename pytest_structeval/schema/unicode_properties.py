"""ECMA-262's Unicode property escapes (``\\p{L}``, ``\\p{Script=Greek}``, ``\\P{Nd}``) as the
inside of a Python character class.

General categories (and ``Assigned``) come from Python's ``unicodedata`` (its Unicode
version: ``unicodedata.unidata_version``), scripts and the other binary properties
(``Emoji``, ``Alphabetic``...) from the tables this package ships (``unicode_scripts``,
``unicode_binary``). Every class is worked out the first time a pattern names it.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable
from difflib import get_close_matches
from functools import cache
from itertools import groupby
from typing import Final

__all__ = ["property_class"]

_LAST: Final = sys.maxunicode  # 0x10FFFF
_Ranges = tuple[tuple[int, int], ...]

_CATEGORIES: Final = {
    "Cc": ("Control", "cntrl"),
    "Cf": ("Format",),
    "Cn": ("Unassigned",),
    "Co": ("Private_Use",),
    "Cs": ("Surrogate",),
    "Ll": ("Lowercase_Letter",),
    "Lm": ("Modifier_Letter",),
    "Lo": ("Other_Letter",),
    "Lt": ("Titlecase_Letter",),
    "Lu": ("Uppercase_Letter",),
    "Mc": ("Spacing_Mark",),
    "Me": ("Enclosing_Mark",),
    "Mn": ("Nonspacing_Mark",),
    "Nd": ("Decimal_Number", "digit"),
    "Nl": ("Letter_Number",),
    "No": ("Other_Number",),
    "Pc": ("Connector_Punctuation",),
    "Pd": ("Dash_Punctuation",),
    "Pe": ("Close_Punctuation",),
    "Pf": ("Final_Punctuation",),
    "Pi": ("Initial_Punctuation",),
    "Po": ("Other_Punctuation",),
    "Ps": ("Open_Punctuation",),
    "Sc": ("Currency_Symbol",),
    "Sk": ("Modifier_Symbol",),
    "Sm": ("Math_Symbol",),
    "So": ("Other_Symbol",),
    "Zl": ("Line_Separator",),
    "Zp": ("Paragraph_Separator",),
    "Zs": ("Space_Separator",),
}
_GROUPS: Final = {
    "C": (("Other",), ("Cc", "Cf", "Cn", "Co", "Cs")),
    "L": (("Letter",), ("Ll", "Lm", "Lo", "Lt", "Lu")),
    "LC": (("Cased_Letter",), ("Ll", "Lt", "Lu")),
    "M": (("Mark", "Combining_Mark"), ("Mc", "Me", "Mn")),
    "N": (("Number",), ("Nd", "Nl", "No")),
    "P": (("Punctuation", "punct"), ("Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps")),
    "S": (("Symbol",), ("Sc", "Sk", "Sm", "So")),
    "Z": (("Separator",), ("Zl", "Zp", "Zs")),
}
_CATEGORY: Final = {
    name: (short,) for short, aliases in _CATEGORIES.items() for name in (short, *aliases)
} | {name: members for short, (aliases, members) in _GROUPS.items() for name in (short, *aliases)}
"""Every name ECMA-262 takes for a General_Category value -> the categories it covers."""
_BINARY: Final = ("Any", "ASCII", "ASCII_Hex_Digit", "AHex", "Assigned")
"""The binary properties written out here; the others are in ``unicode_binary``."""
_NAMES: Final = {"General_Category": "gc", "gc": "gc", "Script": "sc", "sc": "sc"} | {
    "Script_Extensions": "scx",
    "scx": "scx",
}


class UnsupportedProperty(ValueError):
    """A ``\\p{...}`` this module cannot read: not an ECMA-262 property (a misspelt name, a
    property of strings such as ``RGI_Emoji``, which needs the ``v`` flag, a script newer
    than the shipped table). ``args``: what is unsupported, then what is read (and a "did you
    mean")."""

    def __str__(self) -> str:
        return "".join(self.args)


def property_class(body: str, *, negated: bool = False) -> str:
    """The inside of a Python character class for ``\\p{body}`` (``\\P{body}`` when
    ``negated``): ``L``, ``Letter``, ``gc=Lu``, ``General_Category=Nd``, ``Script=Greek``,
    ``sc=Grek``, ``scx=Hira``, or a binary property (``Any``, ``ASCII``, ``Emoji``,
    ``Alpha``...: ECMA-262's 53). Names are exact, as in ECMA-262 (``letter`` is not one).
    Raises ``UnsupportedProperty``."""
    return _class_text(_ranges(body), negated)


@cache
def _class_text(ranges: _Ranges, negated: bool) -> str:
    if negated:
        ranges = _complement(ranges)
    return "".join(
        _escaped(start) if start == end else f"{_escaped(start)}-{_escaped(end)}"
        for start, end in ranges
    )


@cache
def _ranges(body: str) -> _Ranges:
    name, equals, value = body.partition("=")
    if not equals:
        if body in _CATEGORY:
            return _category(_CATEGORY[body])
        if body in _BINARY:
            return _binary(body)
        from .unicode_binary import BINARY

        for aliases, ranges in BINARY.values():
            if body in aliases:
                return _decoded(ranges)
        names = [alias for aliases, _ in BINARY.values() for alias in aliases]
        raise _unsupported(body, [*_CATEGORY, *_BINARY, *names])
    kind = _NAMES.get(name)
    if kind == "gc" and value in _CATEGORY:
        return _category(_CATEGORY[value])
    if kind in ("sc", "scx"):
        from .unicode_scripts import SCRIPTS

        for aliases, script, extensions in SCRIPTS.values():
            if value in aliases:
                return _decoded(extensions if kind == "scx" and extensions else script)
        if value in ("Unknown", "Zzzz"):
            return _complement(_merged(r for entry in SCRIPTS.values() for r in _decoded(entry[1])))
        names = [alias for aliases, _, _ in SCRIPTS.values() for alias in aliases]
        raise _unsupported(body, [f"{name}={alias}" for alias in names])
    if kind == "gc":
        raise _unsupported(body, [f"{name}={category}" for category in _CATEGORY])
    raise _unsupported(body, [f"{known}=" for known in _NAMES])


#: ECMA-262's properties of strings: only its ``v`` flag reads them (patterns are read with
#: ``u``), as sequences of code points, which a class cannot hold.
_OF_STRINGS: Final = frozenset(
    {
        "Basic_Emoji", "Emoji_Keycap_Sequence", "RGI_Emoji", "RGI_Emoji_Flag_Sequence",
        "RGI_Emoji_Modifier_Sequence", "RGI_Emoji_Tag_Sequence", "RGI_Emoji_ZWJ_Sequence",
    }
)  # fmt: skip


def _unsupported(body: str, known: list[str]) -> UnsupportedProperty:
    hint = get_close_matches(body, known, n=1)
    if body in _OF_STRINGS:
        return UnsupportedProperty(
            f"unsupported Unicode property \\p{{{body}}}",
            ": a property of strings, which ECMA-262 reads only with the v flag (patterns "
            "are read with the u flag, as ajv reads them); \\p{Emoji}, \\p{Emoji_Presentation} "
            "and \\p{Extended_Pictographic} are properties of single characters",
        )
    return UnsupportedProperty(
        f"unsupported Unicode property \\p{{{body}}}",
        (f" (did you mean \\p{{{hint[0]}}}?)" if hint else "")
        + ": general categories (L, Letter, gc=Lu...), Script= and Script_Extensions= values "
        "(sc=Greek, scx=Hira...) and ECMA-262's binary properties (Any, ASCII, Emoji, "
        "Alphabetic, White_Space...) are read",
    )


def _binary(name: str) -> _Ranges:
    if name == "Any":
        return ((0, _LAST),)
    if name == "ASCII":
        return ((0, 0x7F),)
    if name == "Assigned":
        return _complement(_category(("Cn",)))
    return ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66))  # ASCII_Hex_Digit


@cache
def _category(categories: tuple[str, ...]) -> _Ranges:
    table = _category_table()
    return _merged(r for category in categories for r in table.get(category, ()))


@cache
def _category_table() -> dict[str, list[tuple[int, int]]]:
    """Every code point's general category, as ranges, in one pass over ``unicodedata``."""
    table: dict[str, list[tuple[int, int]]] = {}
    start = 0
    every = map(unicodedata.category, map(chr, range(_LAST + 1)))
    for category, run in groupby(every):
        end = start + sum(1 for _ in run)
        table.setdefault(category, []).append((start, end - 1))
        start = end
    return table


def _merged(ranges: Iterable[tuple[int, int]]) -> _Ranges:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return tuple(out)


def _complement(ranges: _Ranges) -> _Ranges:
    out: list[tuple[int, int]] = []
    position = 0
    for start, end in ranges:
        if start > position:
            out.append((position, start - 1))
        position = end + 1
    if position <= _LAST:
        out.append((position, _LAST))
    return tuple(out)


def _decoded(text: str) -> _Ranges:
    """Ranges written as base-36 numbers: the gap before each, then its length less one."""
    numbers = [int(word, 36) for word in text.split()]
    out: list[tuple[int, int]] = []
    position = 0
    for gap, span in zip(numbers[::2], numbers[1::2], strict=True):
        start = position + gap
        out.append((start, start + span))
        position = start + span + 1
    return tuple(out)


def _escaped(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
