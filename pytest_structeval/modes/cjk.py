"""Letters of the scripts that write what follows a word onto it (Han and kana: no spaces at
all; Hangul: particles and counters), as regex class ranges. Prose reading (numbers, choices)
and mode answers' terms both need them; neither should have to load the other for them."""

from __future__ import annotations

from typing import Final

__all__ = ["HANGUL", "SPACELESS"]

# Han (with the iteration marks and Hangzhou numerals), Hiragana, Katakana (half-width too).
# Such a letter next to a word, a number or a term is no part of it (``共有34个`` states 34,
# ``P-101ですか`` names P-101). Hangul puts spaces between words but writes particles and
# counters onto them (``P-101이``, ``34개``): a Hangul letter after a word or a number is no
# part of it either, nor one next to a word of another script.
SPACELESS: Final = (
    r"\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303c\u3040-\u30ff\u31f0-\u31ff"
    r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U0001b000-\U0001b16f"
    r"\U00020000-\U0003134f"
)
HANGUL: Final = r"\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff\uffa0-\uffdc"
