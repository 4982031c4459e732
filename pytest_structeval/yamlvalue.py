"""YAML text as JSON-shaped data, within bounds.

``yaml.safe_load`` (never ``yaml.load``) builds values JSON has no form for and shares one
object per alias; :func:`yaml_value` copies its result into plain dicts, lists and scalars,
reading plain scalars as YAML 1.2's core schema does (JSON's), not PyYAML's YAML 1.1. Gold,
scenario and schema files and the parser's ``yaml`` fenced blocks all read YAML here, so a
gold and an answer written alike load alike. libyaml reads them where PyYAML has it, its own
reader otherwise (see :func:`_read`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar, cast

import yaml

from .errors import LimitError
from .files import MAX_DEPTH
from .keys import key_text
from .parse import DEFAULT_MAX_BYTES, MAX_INT_BITS, TOO_MANY_DIGITS, decimal_number, digit_limit
from .repeats import Repeat

if TYPE_CHECKING:
    _Loader: TypeAlias = yaml.SafeLoader | yaml.CSafeLoader  # (CSafeLoader: libyaml's)

__all__ = ["EXPANSION", "EXPANSION_CHARS", "yaml_node", "yaml_value"]

# YAML aliases share a subtree that every later walk visits once per reference: the copy made
# here expands them, and stops a "billion laughs" text or an alias inside its own anchor.
EXPANSION: Final = 1_000_000  # values beyond the text's length in characters
# ... and the text they copy out: one long string aliased a few thousand times is few values,
# yet every report writes each copy in full (a 416 KB answer made a 1.6 GB report). As much
# as the largest answer read (``DEFAULT_MAX_BYTES``) beyond the text's own length.
EXPANSION_CHARS: Final = DEFAULT_MAX_BYTES

_T = TypeVar("_T")

_BOOL, _INT, _FLOAT, _TIMESTAMP, _MERGE, _STR = (
    f"tag:yaml.org,2002:{name}" for name in ("bool", "int", "float", "timestamp", "merge", "str")
)


class _CoreRules(yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """``yaml.SafeLoader``'s rules with the plain scalars of YAML 1.2's core schema, of which
    JSON is a subset: only ``true``/``false`` are booleans (``no``, ``off`` and the country code
    ``NO`` stay text), ``010`` is ten (not 1.1's octal eight), ``12:30`` is text (not 1.1's
    base-60 750), ``1e3`` is a number (1.1 reads it as text), ``1_000`` is text, and a date
    stays the text it is written as (1.1 builds a date-time, ``2024-01-01 10:00:00``, whose ISO
    text differs from the gold's).

    YAML 1.1's merge key stays, as YAML files use it widely: ``<<`` merges a mapping (an alias
    to one) or a list of mappings into the mapping it is a key of. Any other plain ``<<`` (a
    value, or a key of a scalar) is the text ``<<``, as YAML 1.2 reads it, not an error.
    """

    merged_pairs: dict[yaml.Node, int]  # how many pairs a mapping took from its "<<" keys
    repeats: list[tuple[Any, str, int, int]]  # (the object, its key, line, first line)

    def construct_document(self, node: yaml.Node) -> Any:
        self.merged_pairs = {}
        self.repeats = []
        return super().construct_document(node)

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        for key, value in node.value:
            if key.tag == _MERGE and not _mergeable(value):
                key.tag = _STR
        explicit = sum(key.tag != _MERGE for key, _ in node.value)
        super().flatten_mapping(node)  # (the merged pairs first: an explicit key overrides)
        self.merged_pairs.setdefault(node, len(node.value) - explicit)  # (flattened once)

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict[Any, Any]:
        """PyYAML's mapping, each key named by its JSON text as it is built (see
        :func:`_named`): ``1`` and ``true`` are two keys, where a dict keyed by the values
        merged them (``1 == True``) and kept the first one's name with the last one's value."""
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"expected a mapping node, but found {getattr(node, 'id', 'a node')}",
                node.start_mark,
            )
        self.flatten_mapping(node)
        merged = self.merged_pairs.get(node, 0)
        owner = self.constructed_objects.get(node)  # (the dict this mapping fills)
        mapping: dict[Any, Any] = {}
        written: dict[str, int] = {}
        for index, (key_node, value_node) in enumerate(node.value):
            key = _named(self.construct_object(key_node, deep=deep), node, key_node)
            if index >= merged:  # (a key merged in and written again: the override meant)
                self.wrote(owner, written, key, key_node)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def wrote(self, owner: Any, written: dict[str, int], key: str, key_node: yaml.Node) -> None:
        """Note that ``owner``'s ``key`` is written at ``key_node``: a repeat when ``written``
        (the keys written so far, with their lines) holds it already."""
        line = key_node.start_mark.line + 1
        if key in written:
            self.repeats.append((owner, key, line, written[key]))
        else:
            written[key] = line


class _CoreLoader(_CoreRules, yaml.SafeLoader):
    """PyYAML's own reader (pure Python) with the core rules: the reference, and the fallback."""

    def compose_scalar_node(self, anchor: Any) -> yaml.ScalarNode:  # (anchor: a name or None)
        event = self.peek_event()  # type: ignore[no-untyped-call]  # (typeshed: untyped)
        if event.tag == "!" and event.style is None and not event.value:
            # An empty node tagged "!" ("a string"): libyaml reads "", as the YAML spec does,
            # where PyYAML's parser resolved it as an untagged one (null).
            event.implicit = (False, False)
        return super().compose_scalar_node(anchor)


_FastLoader: type[yaml.CSafeLoader] | None = None
if getattr(yaml, "__with_libyaml__", False):  # PyYAML's wheels have it; a source build may not

    class _FastCoreLoader(_CoreRules, yaml.CSafeLoader):
        """libyaml's parser with the same rules: about ten times faster."""

    _FastLoader = _FastCoreLoader


FAST_DEPTH: Final = 50
"""Nesting up to which libyaml reads a text. Its composer recurses in C, with no recursion
check: about 330 bytes of stack a level, and a thread's stack can be as small as 32 KB
(``threading.stack_size``'s least: depth 80-100 overflowed it)."""


def _named(key: Any, node: yaml.Node, key_node: yaml.Node) -> str:
    """A mapping key as JSON text names it (:func:`~pytest_structeval.keys.key_text`: ``1`` is
    ``"1"``, ``true`` ``"true"``, ``null`` ``"null"``, ``.inf`` ``"Infinity"``); what no JSON
    key can name is refused: bytes (``!!binary``), a list or mapping."""
    if type(key) is str:
        return key
    if isinstance(key, bytes):
        raise ValueError("a !!binary key has no JSON form")
    if not isinstance(key, Hashable):
        raise yaml.constructor.ConstructorError(
            "while constructing a mapping",
            node.start_mark,
            "found unhashable key",
            key_node.start_mark,
        )
    return key_text(key)


def _mergeable(node: yaml.Node) -> bool:
    """What a ``<<`` key merges: a mapping, or a list of mappings."""
    if isinstance(node, yaml.SequenceNode):
        return all(isinstance(item, yaml.MappingNode) for item in node.value)
    return isinstance(node, yaml.MappingNode)


_LEFT_OUT: Final = (_BOOL, _INT, _FLOAT, _TIMESTAMP, "tag:yaml.org,2002:value")
_CoreRules.yaml_implicit_resolvers = {  # YAML 1.2 core has no timestamps, nor 1.1's "=" value
    first: [(tag, rx) for tag, rx in resolvers if tag not in _LEFT_OUT]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_CORE_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_CORE_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_CoreRules.add_implicit_resolver(_BOOL, re.compile(f"^(?:{_CORE_BOOL.pattern})$"), list("tTfF"))
_CoreRules.add_implicit_resolver(  # before the float's: "10" is an int
    _INT, re.compile(f"^(?:{_CORE_INT.pattern})$"), list("-+0123456789")
)
_CoreRules.add_implicit_resolver(
    _FLOAT, re.compile(f"^(?:{_CORE_FLOAT.pattern})$"), list("-+0123456789.")
)


def _core_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    """An int as YAML 1.2 core writes it: decimal (leading zeros too), ``0o`` octal, ``0x``
    hex (an explicit ``!!int`` tag reads the same way)."""
    text = str(loader.construct_scalar(node))
    if _CORE_INT.fullmatch(text) is None:  # ("1_000" and other digits int() would take)
        raise yaml.constructor.ConstructorError(
            None, None, f"not an integer: {text!r}", node.start_mark
        )
    body = text.lstrip("+-")
    try:
        if body[:2] in ("0o", "0x"):
            number = int(body[2:], 8 if body[1] == "o" else 16)
            if number.bit_length() > MAX_INT_BITS:  # decimal text has Python's own limit
                raise LimitError(f"invalid YAML: {TOO_MANY_DIGITS}")
            return -number if text.startswith("-") else number
        return int(text, 10)
    except LimitError:
        raise
    except ValueError as exc:
        if digit_limit(exc) is not None:
            raise  # (yaml_value words it)
        raise yaml.constructor.ConstructorError(
            None, None, f"not an integer: {text!r}", node.start_mark
        ) from None


def _core_bool(loader: _Loader, node: yaml.ScalarNode) -> bool:
    """A boolean as YAML 1.2 core writes it, tagged ``!!bool`` or not: ``true``/``false``
    only (1.1's ``!!bool yes`` is no boolean here, as a plain ``yes`` is text)."""
    text = str(loader.construct_scalar(node))
    if _CORE_BOOL.fullmatch(text) is None:
        raise yaml.constructor.ConstructorError(
            None, None, f"not a boolean: {text!r}", node.start_mark
        )
    return text.lower() == "true"


def _core_float(loader: _Loader, node: yaml.ScalarNode) -> float | int:
    """A float as YAML 1.2 core writes it, tagged ``!!float`` or not (1.1's base 60,
    ``!!float 1:30``, and ``_`` separators are no floats here)."""
    text = str(loader.construct_scalar(node))
    if _CORE_FLOAT.fullmatch(text) is None and _CORE_INT.fullmatch(text) is None:
        raise yaml.constructor.ConstructorError(
            None, None, f"not a float: {text!r}", node.start_mark
        )
    body = text.lstrip("+-").lower()
    if body in (".inf", ".nan"):
        value = float(body[1:])
        return -value if text.startswith("-") else value
    if body[:2] in ("0o", "0x"):
        try:
            return float(_core_int(loader, node))
        except OverflowError:  # past 2**1024
            raise yaml.constructor.ConstructorError(
                None, None, f"a float out of range: {text!r}", node.start_mark
            ) from None
    try:
        return decimal_number(text)  # (1e400: the integer it writes, as in an answer)
    except LimitError as exc:
        raise yaml.constructor.ConstructorError(None, None, str(exc), node.start_mark) from None


def _written_timestamp(loader: _Loader, node: yaml.ScalarNode) -> str:
    """An explicit ``!!timestamp``: the text it is written as, as an untagged date is (its
    ISO text, ``isoformat``'s, would turn ``2024-01-02 10:00:00.5`` into
    ``2024-01-02T10:00:00.500000``). A text that is no timestamp is still refused."""
    loader.construct_yaml_timestamp(node)  # (raises for "x", "2024-13-01")
    return str(loader.construct_scalar(node))


def _ordered_map(loader: _Loader, node: yaml.Node) -> Iterator[dict[Any, Any]]:
    """``!!omap``, YAML's ordered mapping: an object, its keys in the order written (a dict
    keeps it), where PyYAML builds a list of pairs, which no object answer matches. Its keys
    are unique, as a mapping's are (a repeat is noted as one). ``!!pairs``, whose keys may
    repeat, stays a list of ``[key, value]`` pairs."""
    mapping: dict[Any, Any] = {}
    yield mapping
    pairs = loader.construct_yaml_omap(node)  # (PyYAML's checks: a list of one-item maps)
    built = next(pairs)
    for _ in pairs:
        pass
    written: dict[str, int] = {}
    for (key, value), item in zip(built, node.value, strict=True):
        key_node = item.value[0][0]
        name = _named(key, node, key_node)
        cast("_CoreRules", loader).wrote(mapping, written, name, key_node)
        mapping[name] = value


def _merge_text(loader: _Loader, node: yaml.ScalarNode) -> str:
    """A plain ``<<`` that is no merge key (see :class:`_CoreLoader`): the text it is."""
    return str(loader.construct_scalar(node))


_CoreRules.add_constructor(_MERGE, _merge_text)
_CoreRules.add_constructor(_INT, _core_int)
_CoreRules.add_constructor(_BOOL, _core_bool)
_CoreRules.add_constructor(_FLOAT, _core_float)
_CoreRules.add_constructor(_TIMESTAMP, _written_timestamp)
_CoreRules.add_constructor("tag:yaml.org,2002:omap", _ordered_map)


def _safe_load(text: str) -> tuple[Any, list[tuple[Any, str, int, int]]]:
    """``yaml.safe_load`` with the core-schema scalars (:class:`_CoreRules`: no tag constructs
    anything but plain data), and the keys written twice in one mapping (see
    :meth:`_CoreRules.wrote`)."""
    return _read(text, _load)


def yaml_node(text: str) -> yaml.Node | None:
    """The node tree of ``text`` as :func:`yaml_value` reads it, before any value is built:
    where each node is written (``start_mark.index``, in characters), aliases unexpanded.
    ``None`` for a text with no document; raises as PyYAML does (``yaml.YAMLError``)."""
    return _read(text, _compose)


def _read(text: str, step: Callable[[type[_Loader], str], _T]) -> _T:
    """``step`` done by libyaml where PyYAML has it and the text nests at most ``FAST_DEPTH``
    deep and holds no byte-order mark past its start (libyaml drops one that starts a later
    line; the pure reader keeps it as text). Whatever libyaml cannot read goes to PyYAML's
    own reader, so an error reads the same on every machine."""
    fast = _FastLoader
    if fast is not None and text.find("\ufeff", 1) < 0:  # libyaml skips a BOM inside a text
        try:
            if _nests_within(text, FAST_DEPTH, fast):
                return step(fast, text)
        except LimitError:  # (the bound on aliases: counted alike on either reader's nodes)
            raise
        except Exception:  # the pure reader decides, in its own words
            pass
    return step(_CoreLoader, text)


def parsed_nesting_within(text: str, limit: int) -> bool:
    """Whether ``text`` parses as YAML whose collections nest at most ``limit`` deep, by
    libyaml's parse: a ``[`` inside a quoted string, a comment or a plain scalar opens
    nothing. False without libyaml (PyYAML's own parser costs the depth per token: a deep
    text would stall it before it could tell), for a text libyaml cannot parse, and for one
    that libyaml would not load (a byte-order mark past its start, which libyaml drops and
    PyYAML's reader keeps: it may see nesting where libyaml saw a string)."""
    fast = _FastLoader
    if fast is None or text.find("\ufeff", 1) >= 0:  # (a later BOM: the pure reader loads it)
        return False
    try:
        return _nests_within(text, limit, fast)
    except Exception:  # (libyaml's error: the text is no YAML it reads)
        return False


def _nests_within(text: str, limit: int, loader_class: type[yaml.CSafeLoader]) -> bool:
    """Whether ``text``'s collections nest at most ``limit`` deep. Each collection opens with
    a character of its own among ``-?:[{``, so a text with few of them needs no look; any
    other is parsed by libyaml alone (its events: a state machine with a stack of its own)."""
    if sum(map(text.count, "-?:[{")) <= limit:
        return True
    depth = 0
    for event in yaml.parse(text, Loader=loader_class):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > limit:
                return False
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return True


def _compose(loader_class: type[_Loader], text: str) -> yaml.Node | None:
    loader = loader_class(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _load(loader_class: type[_Loader], text: str) -> tuple[Any, list[tuple[Any, str, int, int]]]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        if "*" in text and _expands_past(node, 2 * (len(text) + EXPANSION)):
            raise LimitError(f"YAML aliases expand to over {EXPANSION:,} values{_alias_line(text)}")
        value = loader.construct_document(node)
        return value, cast("_CoreRules", loader).repeats
    finally:
        loader.dispose()


def _repeats_at(root: Any, raw: list[tuple[Any, str, int, int]]) -> list[Repeat]:
    """The repeated keys ``raw`` (each with the object that holds it) with the path of that
    object from ``root`` (the first in file order, when aliases share it), in text order."""
    wanted = {id(owner) for owner, _, _, _ in raw}
    paths: dict[int, tuple[str | int, ...]] = {}
    seen: set[int] = set()
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(root, ())]
    while stack and len(paths) < len(wanted):
        item, path = stack.pop()
        if not isinstance(item, (dict, list, tuple)) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            if id(item) in wanted:
                paths[id(item)] = path
            stack.extend((value, (*path, key)) for key, value in reversed(item.items()))
        else:
            stack.extend((value, (*path, i)) for i, value in reversed(list(enumerate(item))))
    found = [Repeat(paths.get(id(owner), ()), key, line, first) for owner, key, line, first in raw]
    return sorted(found, key=lambda repeat: repeat.line)  # (in text order, as built they are not)


def _expands_past(root: yaml.Node, budget: int) -> bool:
    """Whether the values a composed text stands for, each alias and merge key (``<<: *a``)
    copied out, would number over ``budget``, counted on the node graph, whose aliases are
    shared nodes, before anything is built: PyYAML builds every merged mapping in full, so a
    chain of merges cost time and memory quadratic in its length (a 234 KB answer: 30 s and
    672 MB) before the copy that bounds aliases could count them.

    The count is an upper bound (a merge's source mapping, keys a later one overrides), so
    callers allow it twice the copy's bound. An alias back into its own anchor counts
    nothing here: a self-merge builds nothing more, and a true cycle is refused by the copy
    as nesting too deeply."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # on the way down from the root
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, counted = stack.pop()
        children = (
            [value for _, value in node.value]
            if isinstance(node, yaml.MappingNode)
            else node.value
            if isinstance(node, yaml.SequenceNode)
            else ()
        )
        if counted:
            size = sizes[id(node)] = 1 + sum(sizes.get(id(child), 0) for child in children)
            open_nodes.discard(id(node))
            if size > budget:
                return True
            continue
        if id(node) in sizes or id(node) in open_nodes:
            continue
        open_nodes.add(id(node))
        stack.append((node, True))
        stack.extend(
            (child, False)
            for child in children
            if id(child) not in sizes and id(child) not in open_nodes
        )
    return False


def yaml_value(text: str, *, repeated: list[Repeat] | None = None) -> Any:
    """``yaml.safe_load`` with YAML 1.2's core scalars (:class:`_CoreLoader`), made
    JSON-shaped: dates are the text they are written as (an explicit ``!!timestamp`` too, as
    keys too), an ``!!omap`` an object (its keys in order), the pairs of ``!!pairs`` lists of
    ``[key, value]`` pairs, and aliases (``*ref``, and ``<<: *defaults`` merge keys)
    are copied out, within a bound on what they expand to.

    Raises :class:`LimitError` past a bound (nesting deeper than ``MAX_DEPTH``, aliases that
    expand past ``EXPANSION`` values or ``EXPANSION_CHARS`` characters of strings, keys and
    integers, an integer over Python's digit limit) and ``ValueError``
    for any other text that is no JSON-shaped YAML (a syntax error, ``!!binary``, ``!!set``).
    Both messages are one line.

    A key written twice in one mapping keeps its last value, as PyYAML keeps it (a key a
    ``<<`` merge brings in and the mapping writes again is the override merge keys are for,
    no repeat); ``repeated`` receives each such repeat (:class:`~.repeats.Repeat`: where,
    which key, its lines), for the caller to refuse or warn about.
    """
    try:
        loaded, raw = _safe_load(text)
    except LimitError:
        raise
    except RecursionError:
        raise LimitError("invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid YAML: {_yaml_problem(exc)}") from None
    except ValueError as exc:  # PyYAML's int() past the digit limit, or a date out of range
        limit = digit_limit(exc)
        if limit is not None:
            raise LimitError(f"invalid YAML: {limit}") from None
        raise ValueError(f"invalid YAML: {exc}") from None
    except (LookupError, AttributeError, TypeError) as exc:
        # What PyYAML's constructors raise on a tagged scalar they cannot read ("!!bool x",
        # "!!timestamp x", '!!int ""'): a malformed text like any other.
        raise ValueError(f"invalid YAML: cannot read a tagged value ({exc!r})") from None
    pairs = _SURROGATE_ESCAPE.search(text) is not None  # (else no string holds a half)
    root: list[Any] = [None]
    budget = len(text) + EXPANSION  # without aliases there are fewer values than characters
    chars = len(text) + EXPANSION_CHARS  # ... and no more characters written than in the text
    stack: list[tuple[Any, Any, Any, int]] = [(loaded, root, 0, 0)]
    while stack:
        item, parent, slot, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise LimitError(f"YAML aliases expand to over {EXPANSION:,} values{_alias_line(text)}")
        if isinstance(item, dict):
            if depth == MAX_DEPTH:  # PyYAML stops plain nesting first: an alias in its anchor
                raise LimitError(f"invalid YAML: nested too deeply{_alias_line(text)}")
            out: dict[Any, Any] = {}
            parent[slot] = out  # keys pushed last to first, so they are copied in file order
            keys = list(item)  # (strings: named as the mapping was built)
            if pairs:
                keys = [_paired(key) for key in keys]
            chars -= sum(map(_written, keys))
            stack.extend(
                (value, out, key, depth + 1)
                for key, value in zip(reversed(keys), reversed(item.values()), strict=True)
            )
        elif isinstance(item, (list, tuple)):
            if depth == MAX_DEPTH:
                raise LimitError(f"invalid YAML: nested too deeply{_alias_line(text)}")
            seq: list[Any] = [None] * len(item)
            parent[slot] = seq
            stack.extend((value, seq, i, depth + 1) for i, value in enumerate(item))
        elif isinstance(item, (set, bytes)):
            tag = "!!set" if isinstance(item, set) else "!!binary"
            raise ValueError(f"invalid YAML: a {tag} value has no JSON form")
        else:
            item = parent[slot] = _paired(item) if pairs else item
            chars -= _written(item)
        if chars < 0:
            where = _alias_line(text, scalars=True)
            raise LimitError(f"YAML aliases expand to over {EXPANSION_CHARS:,} characters{where}")
    if repeated is not None and raw:
        repeated.extend(_repeats_at(loaded, raw))
    return root[0]


# A ``\uD83D``-style escape of a UTF-16 surrogate, which YAML's double-quoted strings read
# as the half it names (``"\ud83d\ude00"``: two halves, where JSON reads one emoji).
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE_PAIR: Final = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _paired(value: Any) -> Any:
    """A string with each high and low surrogate side by side joined into the character they
    encode, as JSON reads the same escapes (a JSON gold copied into a YAML file, written by
    ``json.dumps`` with ``ensure_ascii``, reads as it did); anything else as is."""
    if not isinstance(value, str):
        return value
    return _SURROGATE_PAIR.sub(_joined_pair, value)


def _joined_pair(pair: re.Match[str]) -> str:
    return pair[0].encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def _written(scalar: Any) -> int:
    """How many characters a scalar counts toward :data:`EXPANSION_CHARS`: never more than its
    YAML text took, unless an alias copied it. A string its length, an integer its digits (a
    4,300-digit one aliased is as long as a string); anything else 1 (a float is at most 24
    characters written out, where ``9.e+15`` took 6, and ``EXPANSION`` bounds the count)."""
    if isinstance(scalar, str):
        return len(scalar)
    if isinstance(scalar, int) and not isinstance(scalar, bool):
        return max(1, scalar.bit_length() * 77 // 256)  # (77/256 < log10 2: never more digits)
    return 1


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """PyYAML's error on one line, ``problem (line L, column C)``: its own text spans several
    lines (a snippet with a caret), which a report field or a summary line cannot show."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if mark is None or problem is None:
        return " ".join(str(exc).split())
    context = getattr(exc, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}"
    return f"{context + ': ' if context else ''}{problem} ({where})"


def _alias_line(text: str, *, scalars: bool = False) -> str:
    """`` (line N: *name)``: the first alias to a mapping or list (or, with ``scalars``, to
    anything: a long text copied out), for an error message (the parser's events only:
    nothing is constructed). By the reader that read the text: where libyaml read it, the
    pure reader may refuse it (a tab after ``[1]``)."""
    anchors: set[str] = set()
    kinds = yaml.NodeEvent if scalars else yaml.CollectionStartEvent
    for loader in (yaml.SafeLoader, _FastLoader):
        if loader is None:
            continue
        try:
            for event in yaml.parse(text, Loader=loader):
                if isinstance(event, yaml.AliasEvent):  # (a NodeEvent too: its anchor is the name)
                    if event.anchor in anchors:
                        mark = event.start_mark
                        where = f"line {mark.line + 1}: " if mark is not None else ""
                        return f" ({where}*{event.anchor})"
                elif isinstance(event, kinds) and event.anchor is not None:
                    anchors.add(event.anchor)
            return ""
        except yaml.YAMLError:
            anchors.clear()
    return ""
