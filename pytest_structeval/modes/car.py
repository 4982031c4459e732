"""Mode answers, AssetOpsBench's CAR (clarification, abstain, response), in strict mode.

A gold that is one key, ``clarification``, ``abstain`` or ``response``, holding text, may ask
the agent to take that mode rather than to state values: the model answer must be one such
key too, the same mode, and its text must state the gold's required terms. The text itself
is never compared word for word: two good clarifying questions rarely share their wording.

Opt-in (``mode_answers=True``, or terms given): ``{"response": text}`` is also a common
envelope of ordinary answers, which a comparison by terms alone would pass on the mode.

``car_score`` is 0 for another mode, none, or an answer of other keys besides (unless
``ignore_extra``), and for a yes or no stance the other way; else the share of required terms
stated (1.0 when there are none). Terms come from the ``required_terms`` option (each a text,
or ``{"any_of": [...]}`` for synonyms), else from the gold text as upstream derives them:
quoted phrases, ids mixing letters and digits (``FC-101``, ``AHU-1.SAT``), and a yes or no
that opens it. ``optional_terms`` are reported, never scored.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final

from ..errors import OptionsError, hide_usage_error
from ..naming import score_beside
from ..paths import ROOT, key_path
from ..results import (
    HALLUCINATION,
    MATCH,
    MISMATCH,
    OMISSION,
    FieldResult,
    ScoreResult,
    new_score_result,
)
from .cjk import HANGUL, SPACELESS

__all__ = [
    "MAX_FORMS",
    "MAX_TERMS",
    "MODES",
    "Term",
    "answer_mode",
    "derived_terms",
    "parse_terms",
    "score_mode_answer",
    "stance",
]

MODES: Final = ("clarification", "abstain", "response")
MAX_TERMS: Final = 200
"""Terms a gold text yields at most (the rest are left out, with a note)."""
MAX_FORMS: Final = 200
"""Texts a term list may give, synonyms included: each is looked for in the whole model
text, which may be megabytes."""
_MAX_TERM_CHARS: Final = 200
# A phrase in quotes on one line: double quotes, straight or curly, and the quotation marks
# of other languages: German „…“ (or „…”) and ‚…‘, French «…» and ‹…›, also reversed (»…«,
# ›…‹, written without a space inside: not the `` » et « `` between two quotes, nor a
# breadcrumb's ``Press » Settings » Pumps and « Back``), CJK 「…」 and 『…』, full-width
# ＂…＂. A straight quote right after a digit is an inch mark (a 6" valve), never an opening
# one. Curly single quotes ‘…’ are not read, as ’ is the
# apostrophe too (‘Tom’s pump’), nor straight single ones. A quote inside another is part of
# its phrase („Kühler ‚6‘“ is the term ``Kühler ‚6‘``): quote marks and apostrophes are
# looked past on both sides (:data:`_QUOTE_MARKS`), so the phrase is stated with its marks
# or without them.
_QUOTED: Final = re.compile(
    r'(?<![0-9])"([^"\n]{1,200})"|\u201c([^\u201d\n]{1,200})\u201d'
    r"|\u201e([^\u201c\u201d\n]{1,200})[\u201c\u201d]|\u201a([^\u2018\n]{1,200})\u2018"
    r"|\u00ab([^\u00bb\n]{1,200})\u00bb|\u00bb(?=\S)([^\u00ab\u00bb\n]{1,200})(?<=\S)\u00ab"
    r"|\u2039([^\u203a\n]{1,200})\u203a|\u203a(?=\S)([^\u2039\u203a\n]{1,200})(?<=\S)\u2039"
    r"|\u300c([^\u300d\n]{1,200})\u300d|\u300e([^\u300f\n]{1,200})\u300f"
    r"|\uff02([^\uff02\n]{1,200})\uff02"
)
# Quote marks and apostrophes, straight, curly or of other languages: a space where terms are
# looked for and in the terms (``the "hot" pump`` and ``the hot pump`` are one text, so are
# ``Tom’s`` and ``Tom's``), the same on both sides.
_QUOTE_MARKS: Final = dict.fromkeys(
    map(
        ord,
        "\"'\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a"
        "\u300c\u300d\u300e\u300f\uff02\uff07",
    ),
    " ",
)
_EDGE_PUNCTUATION: Final = " \t.,;:!?"
# The hyphens LLMs and word processors write besides ``-`` (U+2010 hyphen, U+2011
# non-breaking hyphen): read as ``-`` wherever terms are looked for or read out of a gold.
_HYPHENS: Final = str.maketrans({"\u2010": "-", "\u2011": "-"})
# What joins a term's edge of a script written with spaces (a word character but a Han,
# kana or Hangul letter), and a letter so (see :mod:`.prose`): ``FC101`` is not in ``FC1012``,
# but it is in ``FC101号`` and ``FC101이``.
_JOINING: Final = rf"[^\W{SPACELESS}{HANGUL}]"
_JOINING_LETTER: Final = rf"[^\W\d_{SPACELESS}{HANGUL}]"
# An id: a word opening with a letter and holding a digit, its parts joined by -, _ or .
# (FC-101, CWC04009, Chiller_6, AHU-1.SAT), not inside a longer word or a date-time.
_ID: Final = re.compile(
    rf"(?<![.\-\u2010\u2011])(?<!{_JOINING})"
    r"(?=[A-Za-z0-9_.\-\u2010\u2011]*[0-9])[A-Za-z][A-Za-z0-9]*"
    rf"(?:[-_.\u2010\u2011][A-Za-z0-9]+)*(?!{_JOINING}|[\-\u2010\u2011])"
)
# A stance: yes or no as a sentence of its own ("Yes, ...", "No.", "No - ...", "**Yes**,",
# "_Yes_,", "`No`.", "'Yes', ...", "1. No, ...", "Yes" alone on its line), not "No data for
# FC-101", "No-one", "No doubt", or the number sign in "No.5 pump" and "No. of alarms" ("No.
# 5 pumps tripped" is a stance): the same rule for gold and answer, read before whitespace is
# folded (a line break is a stop).
_STANCE: Final = re.compile(
    r"[\W_]*(?:\d{1,3}[.)][^\S\n][\W_]*)?"  # markup, a list marker ("1. No", "1. ✅ Yes")
    r"(yes|no(?!\.(?:\d|[^\S\n]*(?-i:of)\b)))"  # not the number sign: "No.5", "No. of"
    r"[*_`'\"\u2019\u201d\u00bb]*(?:[^\S\n]*[,.;:!\u2013\u2014\n]|\s+-|\s*$)",
    re.IGNORECASE,
)
# Full-width forms (``Ｙｅｓ``, ``，``, ``！``, ``：``, the ideographic space) and the
# ideographic comma and full stop (``、``, ``。``), read as their ASCII kin where a stance is
# looked for: ``Yes，...``, ``No。`` are stances as ``Yes, ...`` and ``No.`` are.
_WIDE: Final[dict[int, int | str]] = {
    **{code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)},
    0x3000: " ",
    0x3001: ",",
    0x3002: ".",
    0xFF61: ".",
    0xFF64: ",",
}
_STANCE_FORMS: Final[dict[int, int | str]] = {**_HYPHENS, **_WIDE}
_NORMAL_FORMS: Final[dict[int, int | str]] = {**_HYPHENS, **_QUOTE_MARKS}
_JSON_WORDS: Final = {None: "null", True: "true", False: "false"}
# What joins the parts of an id in a normalised text: a dot, or a hyphen or a dash of the
# kinds LLMs write (``-``, U+2012 figure dash, U+2013 en dash; U+2010 and U+2011 are ``-``).
_JOINS: Final = "[-.\u2012\u2013]"


@dataclass(frozen=True, slots=True)
class Term:
    """A term an answer must (or may) state: stated when its text holds any of ``forms``
    as whole words, or, for a stance (``opening``), opens with one of them (see :func:`stance`)."""

    label: str
    forms: tuple[str, ...]
    opening: bool = False

    def stated(self, text: str, opening: str | None, seen: dict[str, bool]) -> bool:
        """Whether an answer states this term: its ``text`` as :func:`normalised` gives it,
        ``opening`` its :func:`stance`; ``seen`` remembers each form looked for, as terms may
        share forms."""
        if self.opening:
            return opening in self.forms
        for form in self.forms:
            found = seen.get(form)
            if found is None:
                found = seen[form] = _whole(form).search(text) is not None
            if found:
                return True
        return False


def answer_mode(value: Any, *, text_only: bool = False) -> tuple[str, str] | None:
    """``(mode, key)`` when ``value`` is a mode answer (one key, a mode's name in any letter
    case, holding text when ``text_only``), else None."""
    if type(value) is not dict or len(value) != 1:
        return None
    key, held = next(iter(value.items()))
    if type(key) is not str or key.casefold() not in MODES:
        return None
    if text_only and type(held) is not str:
        return None
    return key.casefold(), key


def parse_terms(value: Any, name: str) -> tuple[Term, ...]:
    """``required_terms``/``optional_terms``: a list of texts, or ``{"any_of": [texts]}``
    for a term any of whose forms will do. ``OptionsError`` on any other shape."""
    __tracebackhide__ = hide_usage_error
    shape = f"{name} must be a list of terms, each a text or {{'any_of': [texts]}}"
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise OptionsError(f"{shape}, got {type(value).__name__}")
    terms = []
    total = 0
    for i, item in enumerate(value):
        if isinstance(item, Mapping) and set(item) == {"any_of"}:
            forms = item["any_of"]
            if isinstance(forms, (str, bytes)) or not isinstance(forms, Sequence) or not forms:
                raise OptionsError(f"{name}[{i}]: any_of must be a non-empty list of texts")
        else:
            forms = [item]
        total += len(forms)
        if total > MAX_FORMS:
            raise OptionsError(f"{name}: at most {MAX_FORMS} texts, synonyms included")
        for form in forms:
            if type(form) is not str or not normalised(form) or len(form) > _MAX_TERM_CHARS:
                raise OptionsError(
                    f"{name}[{i}]: {form!r} is not a term ({shape}, of 1 to "
                    f"{_MAX_TERM_CHARS} characters)"
                )
        terms.append(Term(forms[0].strip(), tuple(dict.fromkeys(map(normalised, forms)))))
    return tuple(terms)


def derived_terms(text: str) -> tuple[tuple[Term, ...], bool]:
    """The terms upstream reads out of a gold text when none are given, each once: a yes or
    no that opens it, its quoted phrases (edge punctuation left out) and its ids; and whether
    more than :data:`MAX_TERMS` were left out."""
    found: dict[str, Term] = {}
    word = stance(text)
    if word is not None:
        found["\0stance"] = Term(f"stance: {word}", (word,), opening=True)
    phrases = (
        " ".join(quoted[quoted.lastindex or 0].split()).strip(_EDGE_PUNCTUATION)
        for quoted in _QUOTED.finditer(text)
    )
    ids = (name.group() for name in _ID.finditer(text))
    for term in (*islice(phrases, MAX_TERMS + 1), *islice(ids, MAX_TERMS + 1)):
        form = normalised(term)
        if form:  # (not a phrase of quote marks alone)
            found.setdefault(form, Term(term, (form,)))
    terms = tuple(found.values())
    return terms[:MAX_TERMS], len(terms) > MAX_TERMS


def score_mode_answer(
    gold: dict[str, Any],
    model: Any,
    gold_mode: tuple[str, str],
    *,
    required: tuple[Term, ...] | None,
    optional: tuple[Term, ...],
    threshold: float | None,
    method: str,
    ignore_extra: bool,
    unused: Sequence[str] = (),
) -> ScoreResult:
    """The strict result for ``gold``, a mode answer whose :func:`answer_mode` is
    ``gold_mode``: ``score`` is ``car_score``; the fields are the mode's key and any other key
    the model gave (its depth bounded by the parse). ``unused``: the key-level options given,
    which a mode answer does not use (a note)."""
    expected, gold_key = gold_mode
    expected_text: str = gold[gold_key]
    notes: list[str] = []
    if required is None:
        terms, cut = derived_terms(expected_text)
        if cut:
            notes.append(
                f"the gold text yields over {MAX_TERMS} terms: the first {MAX_TERMS} count"
            )
        if not terms:
            notes.append("no required terms in the gold text (none given): scored on the mode")
    else:
        terms = required
        if not terms:
            notes.append("required_terms is empty: scored on the mode")
    gold_path = key_path(ROOT, gold_key)
    named = (
        [k for k in model if type(k) is str and k.casefold() in MODES]
        if type(model) is dict
        else []
    )
    given = named[0] if len(named) == 1 else None
    others = [k for k in model if k != given] if type(model) is dict else []
    uncounted = " (not counted: ignore_extra)" if ignore_extra else ""
    fields: list[FieldResult] = []
    missing = [term.label for term in terms]
    stated_optional: list[str] = []
    car = 0.0
    if given is None:
        why = _no_mode(model, named)
        own = next((k for k in named if k.casefold() == expected), None)
        if own is None:
            fields.append(FieldResult(gold_path, OMISSION, 0.0, expected_text, None, why))
        else:  # the model's own key for the mode, beside another mode's
            fields.append(FieldResult(gold_path, MISMATCH, 0.0, expected_text, model[own], why))
            others.remove(own)
        summary = f"expected {expected}, the model answer takes no mode"
    elif given.casefold() != expected:
        summary = f"expected {expected}, got {given.casefold()}"
        fields.append(FieldResult(gold_path, OMISSION, 0.0, expected_text, None, summary))
        fields.append(
            FieldResult(key_path(ROOT, given), HALLUCINATION, 0.0, None, model[given], summary)
        )
    else:
        said = model[given]
        written = said if type(said) is str else " ".join(_texts(said))
        text, opening = normalised(written), stance(written)
        seen: dict[str, bool] = {}
        missing = [term.label for term in terms if not term.stated(text, opening, seen)]
        stated_optional = [t.label for t in optional if t.stated(text, opening, seen)]
        found = len(terms) - len(missing)
        summary = f"{expected}, {found} of {len(terms)} required terms stated"
        reason = f"required terms not stated: {', '.join(map(repr, missing))}" if missing else None
        if others and not ignore_extra:
            reason = f"a mode answer is one key; the model answer also has {_keys(others)}"
            summary = f"{expected}, but {reason}"
        elif _against(terms, missing, opening):
            reason = f"the answer opens with the other stance ({', '.join(missing)} not stated)"
            summary = f"{expected}, but {reason}"
        else:
            car = found / len(terms) if terms else 1.0
        status = MATCH if car == 1.0 else MISMATCH
        fields.append(FieldResult(gold_path, status, car, expected_text, said, reason))
    why = f"not part of a mode answer{uncounted}"
    fields.extend(
        FieldResult(key_path(ROOT, k), HALLUCINATION, 0.0, None, model[k], why) for k in others
    )
    metrics: dict[str, Any] = {
        "car_score": car,
        "mode_match": 1.0 if given is not None and given.casefold() == expected else 0.0,
        "mode_expected": expected,
        "mode_given": None if given is None else given.casefold(),
        "required_terms": [term.label for term in terms],
        "missing_terms": missing,
        "optional_terms": [term.label for term in optional],
        "optional_terms_stated": stated_optional,
        "missing_keys": [f.path for f in fields if f.status == OMISSION],
        "extra_keys": [f.path for f in fields if f.status == HALLUCINATION],
        "notes": notes,
    }
    if unused:
        notes.append(
            f"{', '.join(unused)}: not used for a mode answer (its text is looked for terms)"
        )
    if ignore_extra:
        metrics["ignore_extra"] = True
    passed = car == 1.0 if threshold is None else car >= threshold
    reason = f"mode answer: {summary}"
    if threshold is not None:
        shown, limit = score_beside(car, threshold, passed)
        verdict = ">=" if passed else "<"
        reason += f" (car_score {shown} {verdict} threshold {limit})"
    return new_score_result(
        passed, car, "strict", metrics, tuple(fields), gold, model, reason, None, threshold, method
    )


def normalised(text: str) -> str:
    """Text as terms are looked for in it: NFC, case-folded, quote marks and apostrophes as
    spaces (:data:`_QUOTE_MARKS`), whitespace runs as one space, look-alike hyphens as ``-``;
    no space beside a letter of a script written without them (``『「主」泵』`` is ``主泵``,
    ``『「P-101」泵』`` is ``p-101泵``, as its reader reads them)."""
    folded = " ".join(
        unicodedata.normalize("NFC", text).casefold().translate(_NORMAL_FORMS).split()
    )
    return folded if folded.isascii() else _SPACELESS_GAP.sub("", folded)


_SPACELESS_GAP: Final = re.compile(rf"(?<=[{SPACELESS}]) | (?=[{SPACELESS}])")


def stance(text: str) -> str | None:
    """``yes`` or ``no`` when it opens ``text`` as a sentence of its own (``_STANCE``)."""
    found = _STANCE.match(unicodedata.normalize("NFC", text).translate(_STANCE_FORMS))
    return None if found is None else found.group(1).casefold()


def _against(terms: tuple[Term, ...], missing: list[str], opening: str | None) -> bool:
    """Whether the gold's stance is missing because the answer opens with the other one
    (``opening``, "No" for "Yes"): that is the answer itself, not one term among others."""
    return opening is not None and any(t.opening and t.label in missing for t in terms)


def _no_mode(model: Any, named: list[str]) -> str:
    """Why a model answer takes no mode."""
    if len(named) > 1:
        return f"the model answer names {len(named)} modes: {_keys(named)}"
    if type(model) is dict and model:
        return f"expected one key naming the mode; the model answer has {_keys(list(model))}"
    return f"expected one key naming the mode ({', '.join(MODES)}); the model answer has none"


def _keys(keys: list[Any]) -> str:
    shown = ", ".join(map(repr, keys[:5]))
    return shown + (", ..." if len(keys) > 5 else "")


def _texts(value: Any) -> list[str]:
    """The keys and scalars a mode answer's non-text value holds, as texts, in order (JSON's
    spellings of null, true and false); its depth is checked already."""
    out: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, item in reversed(node.items()):
                stack.append(item)
                stack.append(str(key))
        elif isinstance(node, (list, tuple)):
            stack.extend(reversed(node))
        elif node is None or type(node) is bool:
            out.append(_JSON_WORDS[node])
        else:
            out.append(node if type(node) is str else str(node))
    return out


@functools.lru_cache(maxsize=1024)
def _whole(form: str) -> re.Pattern[str]:
    """``form`` as whole words: where it opens (ends) with a word character, no word
    character right before (after) it; where it opens (ends) with an id, none joined to it
    by ``-`` or ``.`` either, as ids continue so; and where it opens (ends) with a number, no
    letter so joined nor a decimal part or thousands group (``P-101`` is not in ``P-1011``,
    ``XP-101``, ``P-101-B`` or ``P-101.2``, nor ``Chiller 6`` in ``Chiller 6-B``, ``Chiller
    6.1`` or ``Chiller 6,500``; but
    ``P-101`` is in ``P-101/P-102``, ``high`` in ``high-priority``, ``2020`` in
    ``2019-2020``). Han and kana letters, written without spaces, are no word characters
    next to a term, nor Hangul ones after it or before one of another script (``主泵`` is in
    ``主泵已跳闸``, ``P-101`` in ``P-101ですか`` and ``P-101이``, ``주펌프`` in ``주펌프가``
    but not in ``보조주펌프``). The text is searched for the form itself first, in C, and
    the edges are checked where it is found."""
    n = len(form)
    words = form.split()
    before = after = ""
    if re.match(r"\w", form) and not _SPACELESS.match(form):
        joins = _HANGUL_LETTER if _HANGUL_LETTER_RE.match(form) else _JOINING
        before = rf"(?<!{joins}.{{{n}}})"
        if _is_id(words[0]):
            before += rf"(?<!{_JOINING}{_JOINS}.{{{n}}})"
        elif form[0].isdigit():  # a number: 101 is not in P-101, 1.101 or 1,101
            before += rf"(?<!{_JOINING_LETTER}{_JOINS}.{{{n}}})(?<!\d[.,].{{{n}}})"
    last = form[-1]
    if re.match(r"\w", last) and not _SPACELESS.match(last) and not _HANGUL_LETTER_RE.match(last):
        after = rf"(?!{_JOINING})"
        if _is_id(words[-1]):
            after += rf"(?!{_JOINS}{_JOINING})"
        elif last.isdigit():  # Chiller 6 is not in Chiller 6-B or Chiller 6.1
            after += rf"(?!{_JOINS}{_JOINING_LETTER})(?![.,]\d)"
    return re.compile(re.escape(form) + before + after, re.DOTALL)


# A term's edge letter of a script written without spaces joins nothing; one of Hangul only
# Hangul before it (particles follow a word: ``주펌프가`` states ``주펌프``).
_SPACELESS: Final = re.compile(rf"[{SPACELESS}]")
_HANGUL_LETTER: Final = rf"[{HANGUL}]"
_HANGUL_LETTER_RE: Final = re.compile(_HANGUL_LETTER)


def _is_id(word: str) -> bool:
    """Whether a term's first or last word is an id (letters and digits both), which ``-``
    and ``.`` continue (``P-101-B``), unlike a word (``high-priority``) or a number
    (``2019-2020``)."""
    return any(char.isdigit() for char in word) and any(char.isalpha() for char in word)
