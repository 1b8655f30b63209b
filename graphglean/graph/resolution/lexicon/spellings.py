"""One name romanized two ways: "Mahmoud" and "Mahmud", "Nazarbayev" and "Nazarbaev", "Aleksei Navalnyy" and
"Alexei Navalny", "Kyriakos" and "Kiriakos", "Dostoïevski" and "Dostoevsky", "Tchaikovsky" and "Chaikovsky".
`romanized` writes a Latin word with the letters those systems agree on, so two spellings of one name meet;
names that differ in a sound ("Maria", "Mario"; "Ivanov", "Ivanova") stay apart. Systems that write other
sounds (pinyin's "Mao Zedong", Wade-Giles' "Mao Tse-tung") are not read so: they are the LLM tier's question."""

from __future__ import annotations

import re
from functools import lru_cache

from ....text.words import strip_accents

# longest first, in this order: each rewrites what the ones before left
_SOUNDS = (("sch", "sh"), ("tch", "ch"), ("dzh", "j"), ("zh", "j"), ("dj", "j"), ("kh", "h"), ("ph", "f"),
           ("ck", "k"), ("q", "k"), ("x", "ks"), ("w", "v"), ("ou", "u"), ("oo", "u"), ("ee", "i"), ("y", "i"))
_VOWELS = "aeiou"
_GLIDE = re.compile(rf"(?<=[{_VOWELS}])i(?=[{_VOWELS}])")  # "Nazarbaiev" (of "-bayev"): "Nazarbaev"
_DOUBLE = re.compile(r"(.)\1+")


@lru_cache(maxsize=65536)
def romanized(word: str) -> str:
    """``word`` (Latin letters) as the romanizations of one name agree on writing it; another script as it is."""
    text = strip_accents(word).casefold()
    if not text.isascii() or not text.isalpha():
        return text
    for old, new in _SOUNDS:
        text = text.replace(old, new)
    return _DOUBLE.sub(r"\1", _GLIDE.sub("", _DOUBLE.sub(r"\1", text)))
