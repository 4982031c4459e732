"""Names: those that mark scenarios on disk (``scenario_<id>/`` folders and scenario
files), how a name from the data (an id, a path), or a score beside its threshold, is
shown in a line of output, and how a threshold is read (:func:`plain_number`).

One definition for the engine, the collector, the plugin module and the CLI; standard
library only, so the plugin can test a name without importing the engine.
"""

from __future__ import annotations

import functools
import hashlib
import math
import numbers
import os
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

__all__ = [
    "NUMBER_SYNTAX",
    "SCENARIO_FILE_SUFFIXES",
    "FirstFree",
    "ItemNames",
    "columns",
    "counted",
    "encodable",
    "escaped",
    "few",
    "fit_columns",
    "fs_encodes",
    "name_text",
    "natural_key",
    "nearest",
    "node_text",
    "plain_number",
    "printable",
    "read_rate",
    "safe_name",
    "scalar_text",
    "scenario_folder_id",
    "score_beside",
    "score_text",
    "system_label",
    "threshold_text",
    "user_path",
    "warning_path",
]

SCENARIO_FILE_SUFFIXES: Final = (".json", ".jsonl", ".yaml", ".yml")
"""Scenario files: ``.jsonl`` holds one scenario per line, the others a list or one object."""

NUMBER_SYNTAX: Final = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
"""A number as gates and rate options take it: ASCII digits, no ``_``, no ``nan``/``inf``."""
_PLAIN_NUMBER: Final = re.compile(rf"\s*{NUMBER_SYNTAX}\s*")

_PREFIX: Final = "scenario_"
_DIGIT_RUNS: Final = re.compile(r"([0-9]+)")
# Control characters, line separators, bidirectional controls (which reorder what a
# terminal shows: "Trojan Source") and lone surrogates.
_CONTROL: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
# GitHub Actions runs "::cmd::" at the start of a line (after blanks) and "##[cmd]" anywhere.
_COMMAND: Final = re.compile(r"^(\s*):(?=:)|##\[")


def name_text(name: str) -> str:
    """A file or folder name, as ``os.listdir`` gives it (decoded by the file-system
    encoding, undecodable bytes as lone surrogates), as the text its bytes spell in UTF-8:
    the same under every locale. A legacy one reads ``scenario_é1`` (UTF-8 bytes on disk) as
    ``scenario_Ã©1`` (ISO-8859-1) or with lone surrogates (``LC_ALL=C PYTHONUTF8=0``), so an
    id taken from the name did not join a trajectory's ``"é1"`` nor a UTF-8 run's baseline.
    Bytes that are no UTF-8 are written as escapes (``\\xe9``): printable, the same under
    every locale, and never a lone surrogate in a report. A name the file-system encoding
    cannot encode (one from a scenario file's text, not from the disk) is text already."""
    if name.isascii():
        return name
    try:
        raw = os.fsencode(name)
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "backslashreplace")


def node_text(nodeid: str) -> str:
    """A pytest node id as a report writes it: its path (before the first ``::``) read as
    :func:`name_text` reads a name; the names after it are pytest's and this plugin's, text
    already (an item name escapes what the file-system encoding cannot encode)."""
    if nodeid.isascii():
        return nodeid
    path, sep, names = nodeid.partition("::")
    return name_text(path) + sep + names


def scenario_folder_id(name: str) -> str | None:
    """The id in a ``scenario_<id>`` name (prefix in any case), or ``None`` for other names."""
    size = len(_PREFIX)
    if len(name) > size and name[:size].casefold() == _PREFIX:
        return name[size:]
    return None


def few(items: Sequence[str], limit: int = 5, *, total: int | None = None) -> str:
    """``items`` joined, or the first ``limit`` of a longer list and how many more: a line of
    output names a few ("a, b, ... (+3 more)"), never "(+1 more)", which hides no more than
    it takes. ``total``: how many there are, when ``items`` holds only the first of them."""
    count = len(items) if total is None else total
    if count <= limit + 1 and len(items) >= count:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f", ... (+{count - limit} more)"


def counted(number: int, noun: str) -> str:
    """``1 run file``, ``20 run files``."""
    return f"{number} {noun}" + ("" if number == 1 else "s")


def system_label(runner: str, model: str) -> str:
    """A runner and model pair as the reports name it: ``react / gpt-4o``, either part
    alone, or ``unknown``."""
    return f"{runner} / {model}" if runner and model else runner or model or "unknown"


MESSAGE_CHARS: Final = 500
"""The most of a message (a scorer's error) a line of terminal output shows."""


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` (did you mean 'similarity'?)`` for a slip of one of ``names`` (case too), else
    ``""``."""
    close = nearest(name, names)
    return f" (did you mean {close!r}?)" if close is not None else ""


def nearest(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that ``name`` is a slip of (case too), if one is close."""
    import difflib

    folded = {known.casefold(): known for known in names}
    close = difflib.get_close_matches(str(name).casefold(), list(folded), n=1, cutoff=0.75)
    return folded[close[0]] if close else None


def cut_message(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was: a scorer's 200,000-character
    message would otherwise fill the terminal in each line that names it. The reports and a
    traceback keep it whole."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters in all; the reports keep them)"


def user_path(text: str) -> str:
    """A path as given, with ``~`` and ``$VAR``/``${VAR}`` expanded as pytest expands its own
    ``--junitxml`` and ``cache_dir``: a shell leaves ``~`` after ``=`` (``--opt=~/x``) and
    every quoted ``$VAR`` alone, and an ini file never expands them. An unset variable stays
    as written, as in :func:`os.path.expandvars`."""
    return os.path.expanduser(os.path.expandvars(text))


def printable(text: str) -> str:
    """``text`` with control characters and lone surrogates escaped (``\\n``, ``\\x1b``,
    ``\\ud800``: a file or terminal encoding UTF-8 refuses the last) and GitHub Actions
    workflow commands broken (``:\\:error::``, ``##\\[error]``): an id or a folder name from the
    data must not start a line of output of its own, run as a workflow command (an annotation,
    or ``stop-commands``, which would hide the real ones), nor send escape sequences to the
    terminal. Lines this tool means as commands are written without it."""
    if _CONTROL.search(text) is not None:
        text = _CONTROL.sub(lambda match: repr(match.group())[1:-1], text)
    if ":" in text or "##" in text:
        text = _COMMAND.sub(_break_command, text)
    return text


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes: East Asian wide and fullwidth characters
    two, combining marks and invisible format characters none, so a table of model keys in
    Chinese or Japanese stays aligned."""
    if text.isascii():
        return len(text)
    return sum(map(_char_columns, text))


def fit_columns(text: str, width: int, *, from_end: bool = False) -> str:
    """The longest start (or end) of ``text`` that takes at most ``width`` columns."""
    if text.isascii():
        return text[max(len(text) - width, 0) :] if from_end else text[:width]
    taken = 0
    chars = reversed(text) if from_end else iter(text)
    size = 0
    for char in chars:
        taken += _char_columns(char)
        if taken > width:
            break
        size += 1
    return text[len(text) - size :] if from_end else text[:size]


@functools.lru_cache(maxsize=4096)
def _char_columns(char: str) -> int:
    if char == "\xad":  # a soft hyphen is format, but terminals draw it
        return 1
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _break_command(match: re.Match[str]) -> str:
    blanks = match.group(1)
    return "##\\[" if blanks is None else f"{blanks}:\\"


@functools.lru_cache(maxsize=4096)
def natural_key(name: str) -> tuple[tuple[Any, ...], str]:
    """Sort ``scenario_2`` before ``scenario_10``; ties fall back to the exact name.

    Cached: every scenario folder lists the same few names (``groundtruth.txt``, ...)."""
    parts = _DIGIT_RUNS.split(name.casefold())  # text, digits, text, ..., text
    key = tuple(
        part if i % 2 == 0 else (len(part.lstrip("0")), part.lstrip("0"))
        for i, part in enumerate(parts)
    )
    return key, name


def score_text(value: float, spec: str) -> str:
    """``value`` formatted by ``spec`` (``".2f"``, ``".4f"``, ``".4g"``), except that a value
    under 1 never reads as 1: a near miss (0.996) shows ``>0.99``, since "1.00" on a failing
    row, or a pass rate of "1.0000" beside a failed run, reads as perfect."""
    text = format(value, spec)
    if value < 1.0 and float(text) >= 1.0:
        return ">0." + "9" * int(spec[1:-1])
    return text


def score_beside(value: float, limit: float, passed: bool, places: int = 3) -> tuple[str, str]:
    """A score and its threshold as a reason shows them, on the sides the verdict says
    (``passed``: ``>=``; else ``<``): the threshold as :func:`threshold_text` writes it, or
    in full where its float noise decides (``0.6 < 0.6000000000000001``); the score to
    ``places`` decimals, or as many more as it takes (an F1 of 0.89996 against 0.9 is
    ``0.89996``, not ``0.900 < threshold 0.9``; 1/3 against 1/3 is written in full)."""
    if passed and within_slack(value, limit):
        value = limit  # passed within a weighted score's float slack (weights.meets): equal
    limit_text = threshold_text(limit)
    if (value >= float(limit_text)) != passed:  # the noise decided: show it
        limit_text = repr(limit)
    shown_limit = float(limit_text)
    for digits in range(places, 18):
        shown = float(format(value, f".{digits}f"))
        if (shown >= shown_limit) == passed:
            return score_text(value, f".{digits}f"), limit_text
    return repr(value), limit_text


def within_slack(value: float, limit: float) -> bool:
    """Whether ``value`` is under ``limit`` by no more than the float slack a weighted score
    may pass it by (:func:`~pytest_structeval.weights.meets`: 4 units in the last place,
    none for a threshold of 1 or more)."""
    return limit < 1.0 and limit - 4 * math.ulp(limit) <= value < limit


def threshold_text(limit: float) -> str:
    """A threshold as short as ``:g`` writes it, unless that reads as another number
    (``0.9000001`` is not ``0.9``); float noise of a few units in the last place is no other
    number (``0.1 + 0.2`` is 0.3)."""
    short = f"{limit:g}"
    close = math.isclose(float(short), limit, rel_tol=4 * sys.float_info.epsilon)
    return short if close else repr(limit)


# --- node names ---------------------------------------------------------------------

_NAME_LIMIT: Final = 150  # as a report file's name: a long run id names its item and its file alike
# Whitespace, control characters (C0 and C1: U+009B is a terminal's CSI), the bidi controls
# (a U+202E in a run id reversed pytest's own progress line) and lone surrogates.
_UNSAFE_NAME: Final = re.compile(
    "[\\s\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]+"
)
_COLONS: Final = re.compile(r":{2,}")  # "::" splits node ids: any run of colons is one


def encodable(text: str, replace: Callable[[str], str]) -> str:
    """``text`` with ``replace(char)`` for each character the file-system encoding cannot
    encode: the encoding of file names and of ``os.environ``. It is UTF-8 on Windows, on
    macOS and under a UTF-8 locale, where ``text`` is returned as it is (lone surrogates
    aside); a legacy locale (``en_US.ISO-8859-1``, or ``LC_ALL=C PYTHONUTF8=0``: ASCII)
    encodes far fewer, and ``os.open`` or ``os.environ`` raise ``UnicodeEncodeError`` for the
    rest. ASCII is in every such encoding."""
    if fs_encodes(text):
        return text
    encoding = sys.getfilesystemencoding()
    return "".join(char if _encodes(char, encoding) else replace(char) for char in text)


def fs_encodes(text: str) -> bool:
    """Whether the file-system encoding encodes every character of ``text`` (see
    :func:`encodable`; a lone surrogate never counts as encoded)."""
    return text.isascii() or _encodes(text, sys.getfilesystemencoding())


def _encodes(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def escaped(char: str) -> str:
    """``char`` as a Python escape (``\\xe9``, ``\\u8fd0``, ``\\U0001f600``), as pytest
    writes a non-ASCII parametrize id (``_pytest.compat.ascii_escaped``)."""
    return char.encode("unicode_escape").decode("ascii")


def warning_path(path: str) -> str:
    """A path on disk as a warning's message says it: its UTF-8 text (:func:`name_text`),
    as the reports and the summaries show it, with what the file-system encoding cannot
    encode escaped as :func:`escaped` writes it (nothing under UTF-8; ``scenario_\\xe91``
    under ``LC_ALL=C``, as the CLI's summary and pytest's items show it). pytest writes a
    warning, its location and its source line at once, and escapes the whole when one
    character cannot be encoded: the location's lone surrogates and its line breaks too."""
    return encodable(name_text(path), escaped)


def safe_name(text: str) -> str:
    """A node-name fragment that cannot break node ids, nor pytest's own lines that print
    them: no ``::``, brackets, whitespace, control or bidi characters, or lone surrogates.
    pytest writes node ids to the environment (``PYTEST_CURRENT_TEST``), which must encode
    them: characters the file-system encoding cannot encode (under a legacy locale: see
    :func:`encodable`) are escaped as pytest escapes its own ids (``\\u8fd0``), and left as
    they are under UTF-8.

    Long fragments are cut and keep a short hash of the full text, so they stay unique.
    """
    name = _COLONS.sub(":", _UNSAFE_NAME.sub("_", text)).replace("[", "(").replace("]", ")")
    name = encodable(name, escaped)
    if len(name) > _NAME_LIMIT:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        name = f"{name[: _NAME_LIMIT - 11]}~{digest}"
    return name or "_"


class FirstFree:
    """Hands out each name once: ``name`` itself, else the first of ``name<sep>2``,
    ``name<sep>3`` ... not handed out (or reserved) before. The search for a name resumes
    where it last stopped (names are never freed), so thousands of names alike take linear
    time."""

    __slots__ = ("_sep", "_tried", "_used")

    def __init__(self, reserved: Iterable[str] = (), *, sep: str = "-") -> None:
        self._used = set(reserved)
        self._tried: dict[str, int] = {}  # the last suffix each name reached
        self._sep = sep

    def __call__(self, name: str) -> str:
        n = self._tried.get(name, 1)
        key = name if n == 1 else f"{name}{self._sep}{n}"
        while key in self._used:
            n += 1
            key = f"{name}{self._sep}{n}"
        self._tried[name] = n
        self._used.add(key)
        return key


class ItemNames:
    """The item names given so far in one node (a scenario folder or file)."""

    __slots__ = ("_brackets",)

    def __init__(self) -> None:
        # Per sanitised id (which holds no bracket, so ``id[label]`` names one pair only).
        self._brackets: dict[str, FirstFree] = {}

    def give(self, scenario_id: str, label: str) -> tuple[str, str]:
        """A run's item name ``<id>[<label>]``, sanitised, and the part in brackets, which
        also names its report file; a label that only clashes after sanitising gets ``-2``,
        ``-3`` ... (see :class:`FirstFree`)."""
        head = safe_name(scenario_id)
        brackets = self._brackets.get(head) or self._brackets.setdefault(head, FirstFree())
        bracket = brackets(safe_name(label))
        return f"{head}[{bracket}]", bracket

    def give_all(self, runs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """:meth:`give` for each ``(scenario id, label)``, in order, but the labels a node id
        holds as they are served first, as report files are: a run labelled ``a_b`` is
        ``1[a_b]`` even after a run labelled ``a b`` (or ``a\\u202eb``), which is
        ``1[a_b-2]``."""
        given: list[tuple[str, str] | None] = [None] * len(runs)
        for clean in (True, False):
            for i, (scenario_id, label) in enumerate(runs):
                if (safe_name(label) == label) is clean:
                    given[i] = self.give(scenario_id, label)
        return [name for name in given if name is not None]


def scalar_text(value: Any, name: str, *, objects: bool = False) -> str:
    """An id or label (``run_id``, ``type``, ``runner``) that may arrive as a number, as the
    text it names: a number of any library (``numpy.int64(7)``: ``"7"``, a ``Decimal``), and
    with ``objects`` (given in Python, not read from a file) a path or a ``UUID`` by its text;
    containers, bools and non-finite numbers (``Infinity`` would read as ``"inf"``, the id of
    some other run) are ``ValueError``s naming the field."""
    if isinstance(value, str):
        return str.__str__(value)  # (a subclass, numpy's str_ or a str Enum: its text)
    if _is_number(value):
        finite = getattr(value, "is_finite", None)  # (a Decimal past the float range is finite)
        if not (finite() if callable(finite) else math.isfinite(value)):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
        return str(int(value)) if isinstance(value, numbers.Integral) else str(value)
    if not objects:
        raise ValueError(f"{name} must be a string or a number, got {type(value).__name__}")
    path = os.fspath(value) if isinstance(value, os.PathLike) else None
    if isinstance(path, str):
        return path
    if type(value).__module__ == "uuid" and type(value).__name__ == "UUID":
        return str(value)
    raise ValueError(
        f"{name} must be a string, a number, a path or a UUID, got {type(value).__name__}"
    )


def _is_number(value: object) -> bool:
    """A real number of any library (``Decimal`` too), not a bool (nor numpy's)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return False
    return isinstance(value, numbers.Real) or (
        isinstance(value, numbers.Number) and not isinstance(value, numbers.Complex)
    )


def read_rate(given: object) -> float:
    """A rate in [0, 1] (a gate's, a threshold's): a number, or a text :func:`plain_number`
    reads; else a ``ValueError`` with one message everywhere, which says ``0.9`` when
    ``90`` or ``90%`` was meant."""
    if isinstance(given, (int, float)) and not isinstance(given, bool):
        number: float | None = float(given)
    else:
        number = plain_number(given)
    if number is not None and math.isfinite(number) and 0.0 <= number <= 1.0:
        return number
    message = f"expected a number in [0, 1], got {given!r}"
    text = given.strip() if isinstance(given, str) else ""
    percent = text.endswith("%")
    if percent:
        number = plain_number(text[:-1].strip())
    if number is not None and (2.0 <= number <= 100.0 or (percent and 0 <= number <= 100)):
        message += f" (for {number:g}% write {number / 100:g})"  # (1.5 means no percentage)
    raise ValueError(message)


def plain_number(text: object) -> float | None:
    """``text`` as a number written as a gate's threshold is (``0.9``, ``.5``, ``1e-3``);
    ``None`` for anything else, though Python's ``float`` reads it (``0.2_5``, full-width or
    Arabic-Indic digits, ``nan``, ``inf``): every option that takes a number reads one
    syntax."""
    if isinstance(text, str) and _PLAIN_NUMBER.fullmatch(text):
        return float(text)
    return None
