"""Object keys as a JSON text names them, so that two answers naming one field alike compare.

A Python-literal answer keys an object by ``1988`` or ``True`` where a JSON gold writes
``"1988"`` or ``"true"`` (AssetOpsBench v1 builds its keys with an f-string, so they match
there), and a text copied from macOS may spell ``Würzburg`` decomposed (NFD): each names
the field the other does. Every mode names non-string keys by their JSON text before it
compares; the key-level modes also compose keys (NFC), as they compose text values.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from typing import Any

from .paths import unnameable_key

__all__ = ["key_text", "named_keys"]


def key_text(key: Any) -> str:
    """A key as JSON text names it: ``True`` as ``"true"``, ``None`` as ``"null"``, ``1`` as
    ``"1"``, ``1.5`` as ``"1.5"`` and infinity as ``"Infinity"`` (what ``json.dumps``
    writes); a string as it is, any other key as its Python text. Raises ``LimitError`` for
    an int too long to write."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:
        return "true" if key is True else "false" if key is False else "null"
    if isinstance(key, float) and not math.isfinite(key):
        return "NaN" if key != key else "Infinity" if key > 0 else "-Infinity"
    try:
        return str(key)
    except ValueError:  # an int past Python's digit limit for str()
        raise unnameable_key(key) from None


def named_keys(
    value: Any,
    method: str,
    text: object = None,
    *,
    compose: bool = True,
    spelled: Mapping[str, str] | None = None,
) -> Any:
    """``value`` with every object key as :func:`key_text` names it and, with ``compose``,
    every string key in NFC; else, with ``spelled`` (names by their NFC form), a key spelt
    another way as ``spelled`` spells it. A key whose new name another key of the same
    object already has (``{1: 'a', '1': 'b'}``) stays as it is: nothing is lost.

    ``value`` itself is returned when no key changes, at once when the answer was JSON text
    (``method``; with ``compose``, in ASCII without ``\\u`` escapes: ``text`` is the raw
    answer when it is a ``str``), which has no other keys. Iterative; raises ``LimitError``
    for a key too long to name. Each container is copied once (shared ones stay shared; a
    cycle stays one, for the walk to refuse)."""
    kind = type(value)
    if kind is not dict and kind is not list and not isinstance(value, (Mapping, tuple)):
        return value  # (a scalar; the type tests first spare most answers the ABC check)
    # (a one-character search is a memchr; most texts hold no backslash, and a two-character
    # search reads them character by character, at 25 times the cost: 0.7 µs for 1 KB)
    if method.rpartition("+")[2] == "json" and (
        not compose
        or (isinstance(text, str) and text.isascii() and ("\\" not in text or "\\u" not in text))
    ):
        return value
    respell = None if compose or not spelled else spelled
    if not _renamed(value, compose, respell):
        return value
    root = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    copies: dict[int, Any] = {}  # a container met again (shared, or a cycle) has one copy
    while stack:
        holder, slot = stack.pop()
        node = holder[slot]
        if not isinstance(node, (Mapping, list, tuple)):
            continue
        copy = copies.get(id(node))
        if copy is not None:
            holder[slot] = copy
        elif isinstance(node, Mapping):
            names = {
                key for key in node if type(key) is str and not _respelt(key, compose, respell)
            }
            obj: dict[Any, Any] = {}
            for key, child in node.items():
                if type(key) is str and not _respelt(key, compose, respell):
                    obj[key] = child
                    continue
                name = key_text(key)
                if not name.isascii() and (compose or respell is not None):
                    name = unicodedata.normalize("NFC", name)
                    if respell is not None:
                        name = respell.get(name, name)
                obj[key if name in names else name] = child
                names.add(name)
            holder[slot] = copies[id(node)] = obj
            stack.extend((obj, key) for key in obj)
        else:
            items = list(node)
            holder[slot] = copies[id(node)] = items
            stack.extend((items, i) for i in range(len(items)))
    return root[0]


def _respelt(key: str, compose: bool, respell: Mapping[str, str] | None) -> bool:
    """Whether string ``key`` is renamed: NFC changes it (when keys are composed), or
    ``respell`` spells its NFC form otherwise."""
    if key.isascii():
        return False
    if compose:
        return not unicodedata.is_normalized("NFC", key)
    return respell is not None and respell.get(unicodedata.normalize("NFC", key), key) != key


def _renamed(value: Any, compose: bool, respell: Mapping[str, str] | None = None) -> bool:
    """Whether a key under ``value`` is not a string, or one :func:`_respelt` renames.
    Each container once (shared ones, and cycles); the per-key tests run in C."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is dict or isinstance(node, Mapping):
            try:
                plain = all(map(str.isascii, node))
            except TypeError:  # a key that is no string
                return True
            if not plain:  # (all() stopped at a non-ASCII key: a later one may be no string)
                if not all(isinstance(key, str) for key in node):
                    return True
                if compose and not all(map(_composed, node)):
                    return True
                if respell is not None and any(_respelt(k, False, respell) for k in node):
                    return True
            children: Any = node.values()
        else:
            children = node
        stack.extend(c for c in children if isinstance(c, (Mapping, list, tuple)))
    return False


def _composed(key: str) -> bool:
    return unicodedata.is_normalized("NFC", key)
