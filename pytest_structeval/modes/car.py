"""Mode answers, AssetOpsBench's CAR (clarification, abstain, response), in strict mode.

A gold that is one key, ``clarification``, ``abstain`` or ``response``, holding text, asks
the agent to take that mode rather than to state values: the model answer must be one such
key too, the same mode, and its text must state the gold's required terms. The text itself
is never compared word for word: two good clarifying questions rarely share their wording.

``car_score`` is 0 for another mode (or none), else the share of required terms stated (1.0
when there are none). Terms come from the ``required_terms`` option (each a text, or
``{"any_of": [...]}`` for synonyms), else from the gold text as upstream derives them: quoted
phrases, ids mixing letters and digits (``FC-101``), and a yes/no stance that opens it.
``optional_terms`` are reported, never scored.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..errors import OptionsError, hide_usage_error
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

__all__ = ["MODES", "Term", "answer_mode", "derived_terms", "parse_terms", "score_mode_answer"]

MODES: Final = ("clarification", "abstain", "response")
MAX_TERMS: Final = 200
"""Terms a list may give, or a gold text yields (the rest are left out, with a note): each
is looked for in the whole model text."""
_MAX_FORMS: Final = 50  # the synonyms of one term
_MAX_TERM_CHARS: Final = 200
# A phrase in double quotes (straight or curly) on one line.
_QUOTED: Final = re.compile(r'"([^"\n]{1,200})"|\u201c([^\u201d\n]{1,200})\u201d')
# An id: a word opening with a letter and holding a digit, its parts joined by - or _
# (FC-101, CWC04009, Chiller_6), not inside a longer word or a date-time (2020-06-26T11).
_ID: Final = re.compile(
    r"(?<![\w-])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*(?![\w-])"
)
_FIRST_WORD: Final = re.compile(r"\W*(\w+)")
# A gold's stance: yes or no as a sentence of its own ("Yes, ...", "No.", "No - ..."), not
# "No data for FC-101" (a model's stance is its first word).
_STANCE: Final = re.compile(r"\W*(yes|no)(?:\s*[,.;:!\u2013\u2014-]|\s*$)")
_NO_TERMS: Final = "no required terms (none given, none in the gold text): scored on the mode"


@dataclass(frozen=True, slots=True)
class Term:
    """A term an answer must (or may) state: stated when its text holds any of ``forms``
    as whole words, or, for a stance (``opening``), opens with one of them."""

    label: str
    forms: tuple[str, ...]
    opening: bool = False

    def stated(self, text: str) -> bool:
        """Whether ``text`` (as :func:`normalised` gives it) states this term."""
        if self.opening:
            first = _FIRST_WORD.match(text)
            return first is not None and first.group(1) in self.forms
        return any(_holds_word(text, form) for form in self.forms)


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
    if len(value) > MAX_TERMS:
        raise OptionsError(f"{name}: at most {MAX_TERMS} terms, got {len(value):,}")
    terms = []
    for i, item in enumerate(value):
        if isinstance(item, Mapping) and set(item) == {"any_of"}:
            forms = item["any_of"]
            if (
                isinstance(forms, (str, bytes))
                or not isinstance(forms, Sequence)
                or not 0 < len(forms) <= _MAX_FORMS
            ):
                raise OptionsError(f"{name}[{i}]: any_of must be a list of 1 to {_MAX_FORMS} texts")
        else:
            forms = [item]
        for form in forms:
            if type(form) is not str or not form.strip() or len(form) > _MAX_TERM_CHARS:
                raise OptionsError(
                    f"{name}[{i}]: {form!r} is not a term ({shape}, of 1 to "
                    f"{_MAX_TERM_CHARS} characters)"
                )
        terms.append(Term(forms[0].strip(), tuple(normalised(form) for form in forms)))
    return tuple(terms)


def derived_terms(text: str) -> tuple[tuple[Term, ...], bool]:
    """The terms upstream reads out of a gold text when none are given, each once: a yes or
    no that opens it, its quoted phrases and its ids (a letter, then letters and digits with
    a digit somewhere); and whether more than :data:`MAX_TERMS` were left out."""
    found: dict[str, Term] = {}
    first = _STANCE.match(normalised(text))
    if first is not None:
        stance = first.group(1)
        found[f"\0{stance}"] = Term(f"stance: {stance}", (stance,), opening=True)
    for quoted in _QUOTED.finditer(text):
        phrase = " ".join((quoted.group(1) or quoted.group(2)).split())
        if phrase:
            found.setdefault(normalised(phrase), Term(phrase, (normalised(phrase),)))
        if len(found) > MAX_TERMS:
            break
    for name in _ID.finditer(text):
        if len(found) > MAX_TERMS:
            break
        found.setdefault(normalised(name.group()), Term(name.group(), (normalised(name.group()),)))
    terms = tuple(found.values())
    return terms[:MAX_TERMS], len(terms) > MAX_TERMS


def score_mode_answer(
    gold: dict[str, Any],
    model: Any,
    *,
    required: tuple[Term, ...] | None,
    optional: tuple[Term, ...],
    threshold: float | None,
    method: str,
    metrics_of: Callable[[Sequence[FieldResult]], dict[str, Any]],
) -> ScoreResult:
    """The strict result for ``gold``, a mode answer (see :func:`answer_mode`): ``score`` is
    ``car_score``, and ``metrics_of`` (strict's metrics) keeps ``f1``, ``missing_keys``...
    meaning what they mean for any answer: the mode's key is the one key."""
    expected, gold_key = answer_mode(gold, text_only=True) or ("", "")
    expected_text = gold[gold_key]
    notes: list[str] = []
    if required is None:
        terms, cut = derived_terms(expected_text)
        if cut:
            notes.append(
                f"the gold text yields over {MAX_TERMS} terms: the first {MAX_TERMS} count"
            )
    else:
        terms = required
    if not terms:
        notes.append(_NO_TERMS)
    gold_path = key_path(ROOT, gold_key)
    given = answer_mode(model)
    missing = [term.label for term in terms]
    stated_optional: list[str] = []
    car = 0.0
    if given is None:
        fields = [FieldResult(gold_path, OMISSION, 0.0, expected_text, None, _no_mode(model))]
    elif given[0] != expected:
        fields = [
            FieldResult(gold_path, OMISSION, 0.0, expected_text, None, f"expected {expected}"),
            FieldResult(key_path(ROOT, given[1]), HALLUCINATION, 0.0, None, model[given[1]]),
        ]
    else:
        said = model[given[1]]
        text = normalised(said if type(said) is str else " ".join(_texts(said)))
        missing = [term.label for term in terms if not term.stated(text)]
        stated_optional = [term.label for term in optional if term.stated(text)]
        car = (len(terms) - len(missing)) / len(terms) if terms else 1.0
        reason = None
        if missing:
            reason = f"required terms not stated: {', '.join(map(repr, missing))}"
        status = MISMATCH if missing else MATCH
        fields = [FieldResult(key_path(ROOT, given[1]), status, car, expected_text, said, reason)]
    metrics: dict[str, Any] = {  # the mode's figures first: a failure's headline shows them
        "car_score": car,
        "mode_match": 1.0 if given is not None and given[0] == expected else 0.0,
        "mode_expected": expected,
        "mode_given": None if given is None else given[0],
        "required_terms": [term.label for term in terms],
        "missing_terms": missing,
        "optional_terms": [term.label for term in optional],
        "optional_terms_stated": stated_optional,
        **metrics_of(fields),
        "notes": notes,
    }
    passed = car == 1.0 if threshold is None else car >= threshold
    reason = _reason(expected, given, len(terms), len(missing))
    if threshold is not None:
        reason += f" (car_score {car:.3f} {'>=' if passed else '<'} threshold {threshold:g})"
    return new_score_result(
        passed, car, "strict", metrics, tuple(fields), gold, model, reason, None, threshold, method
    )


def normalised(text: str) -> str:
    """Text as terms are looked for in it: NFC, case-folded, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def _reason(expected: str, given: tuple[str, str] | None, terms: int, missing: int) -> str:
    if given is None:
        return f"mode answer: expected {expected}, the model answer takes no mode"
    if given[0] != expected:
        return f"mode answer: expected {expected}, got {given[0]}"
    return f"mode answer: {expected}, {terms - missing} of {terms} required terms stated"


def _no_mode(model: Any) -> str:
    """Why a model answer is no mode answer."""
    if type(model) is dict and model:
        keys = ", ".join(map(repr, list(model)[:5])) + (", ..." if len(model) > 5 else "")
        return f"expected one key naming the mode; the model answer has {len(model)}: {keys}"
    return f"expected one key naming the mode ({', '.join(MODES)}); the model answer has none"


def _texts(value: Any) -> list[str]:
    """The keys and scalars a mode answer's non-text value holds, as texts, in order: each
    part once (a value given already parsed may hold one in several places, or itself), and
    without recursion (it may be as deep as ``max_depth`` lets it)."""
    out: list[str] = []
    seen: set[int] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list, tuple)):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, dict):
                for key, item in reversed(node.items()):
                    stack.append(item)
                    stack.append(str(key))
            else:
                stack.extend(reversed(node))
        else:
            out.append(node if type(node) is str else str(node))
    return out


def _holds_word(text: str, form: str) -> bool:
    """Whether ``form`` is in ``text`` with no word character right before or after it where
    it opens or ends with one (``P-101`` is not in ``P-1011``). Substring search first: a
    term is looked for in the whole text, which may be megabytes."""
    opens, ends = _is_word(form[0]), _is_word(form[-1])
    at = text.find(form)
    while at >= 0:
        end = at + len(form)
        if not (opens and at and _is_word(text[at - 1])) and not (
            ends and end < len(text) and _is_word(text[end])
        ):
            return True
        at = text.find(form, at + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"
