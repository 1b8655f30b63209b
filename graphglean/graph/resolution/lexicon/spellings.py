"""One name romanized two ways. `transliterated` reads only what the romanizations of Russian and its
neighbours write differently and no two names differ by: a last "y", "iy", "yy", "ij" ("Navalnyy", "Navalny";
"Zelenskiy"), "ei"/"ey" ("Sergei", "Sergey"), "x"/"ks" ("Alexei", "Aleksei"), a glide before "-ev"
("Nazarbayev", "Nazarbaev"), "Tch" ("Tchaikovsky", "Chaikovsky"). `romanized` reads more ("Mahmoud", "Mahmud";
"Kyriakos", "Kiriakos"; doubled letters), which also joins names that are two in their own language ("Zhou" and
"Zhu" in pinyin, "Ryo" and "Rio", "Ana" and "Anna"): a question for the LLM tier, never a merge by itself. Names
that differ in a sound ("Maria", "Mario"; "Ivanov", "Ivanova") stay apart, and other systems (pinyin's "Mao
Zedong", Wade-Giles' "Mao Tse-tung") are the LLM tier's to know. `sounded` hears more still ("Gaddafi",
"Qadhafi"): names that sound alike are the LLM tier's question, which broad blocking brings it."""

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


_FINAL_Y = re.compile(r"(?<=[^aeiouy])(?:iy|yy|ij|yi|ii|y)$")
_FINAL_EI = re.compile(r"(?<=[aeo])[iyj]$")  # "Sergei", "Sergey", "Sergej"
_GLIDE_EV = re.compile(r"(?<=[aeiou])[yj](?=ev)")  # "Nazarbayev", "Aliyev"


@lru_cache(maxsize=65536)
def transliterated(word: str) -> str:
    """``word`` (Latin letters) with what the romanizations of one Russian name write differently written one
    way; another script as it is."""
    text = strip_accents(word).casefold()
    if not text.isascii() or not text.isalpha():
        return text
    text = _GLIDE_EV.sub("", text[:1] + text[1:].replace("x", "ks"))  # not a first "x": pinyin's "Xu" is no "Ksu"
    text = _FINAL_EI.sub("y", _FINAL_Y.sub("y", text))
    return "ch" + text[3:] if text.startswith("tch") else text


@lru_cache(maxsize=65536)
def romanized(word: str) -> str:
    """``word`` (Latin letters) as the romanizations of one name agree on writing it; another script as it is."""
    text = strip_accents(word).casefold()
    if not text.isascii() or not text.isalpha():
        return text
    for old, new in _SOUNDS:
        text = text.replace(old, new)
    return _DOUBLE.sub(r"\1", _GLIDE.sub("", _DOUBLE.sub(r"\1", text)))


_K = str.maketrans("qcgj", "kkkk")  # Arabic's "j" is Egypt's "g" ("Najib", "Naguib")
_INNER_H = re.compile(r"(?<=.)h")
_VOWEL_RUN = re.compile(r"[aeiou]+")


@lru_cache(maxsize=65536)
def sounded(word: str) -> str:
    """``word`` as a romanizer hears it, for a question only: `romanized`, "dh" and "th" as "d" and "t", "q", "c",
    "g" and "j" as "k", no "h" after its first letter, each run of vowels one ("Gaddafi", "Qadhafi", "Kadhafi":
    "kadafa"; "Muammar", "Moammar": "mamar"; not "Maria"); another script as it is."""
    text = romanized(word)
    if not text.isascii():
        return text
    text = _INNER_H.sub("", text.replace("dh", "d").replace("th", "t").translate(_K))
    return _DOUBLE.sub(r"\1", _VOWEL_RUN.sub("a", text))
