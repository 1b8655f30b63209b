"""A name in an alphabet that transliterates letter by letter (Cyrillic, Greek, Armenian, Georgian, Hangul),
written in Latin letters, so that the rules read "Фёдор Достоевский" against "Fyodor Dostoevsky" and "ПАО
«Северсталь»" against "Severstal" as they read two Latin names. Scripts without written vowels (Arabic, Hebrew)
or whose readings depend on the language (Han: "東京" is Tōkyō in Japanese, Dōngjīng in Chinese; a Chinese
personal name's pinyin is shared by many: "李小鹏", a gymnast and a minister) are left to the LLM tier: a Han
name's pinyin (`pinyin_readings`) only brings the question to it.

The transliteration is anyascii's (ISC licence, pure Python, no dependencies): its tables cover every script
above in a few hundred kilobytes, which tables of our own would only approach. Russian "ё" is written both as
"e" (as anyascii and most Russian text do) and as "yo" (as English writes "Fyodor", "Pyotr")."""

from __future__ import annotations

from functools import lru_cache

import regex
from anyascii import anyascii

_ALPHABETS = regex.compile(r"[\p{Cyrillic}\p{Greek}\p{Armenian}\p{Georgian}\p{Hangul}]")
_OTHERS = regex.compile(r"[^\p{Latin}\p{Cyrillic}\p{Greek}\p{Armenian}\p{Georgian}\p{Hangul}\P{L}]")
_SYLLABLE = regex.compile(r"[A-Z][a-z']*")  # anyascii writes a Hangul syllable capitalized, unspaced: "SonHeungMin"
_HANGUL = regex.compile(r"\p{Hangul}+")
# two letters Greek writes for one sound: "ου" is "ou"; at a word's start "μπ" is "b", "ντ" "d", "γκ" "g"
_GREEK_PAIR_LATIN = {"ου": "ou", "ού": "ou", "μπ": "b", "ντ": "d", "γκ": "g"}
_GREEK_PAIRS = regex.compile(r"ο[υύ]|(?<!\p{L})(?:μπ|ντ|γκ)", regex.I)
_QUOTES = str.maketrans("«»„“”‹›", '"""""""')
_ARMENIAN_YE = regex.compile(r"(?<!\p{L})[Եե]")  # a word's first "ե" is "ye"
_CYRILLIC_YE = regex.compile(r"(?<!\p{L})[Ее]")  # and as English writes Russian, a first "е" ("Ельцин", Yeltsin)
# Serbian and Macedonian Cyrillic as their Latin alphabet writes it, its marks left out as English does
# ("Црвена звезда", Crvena zvezda; "Ђоковић", Djokovic), besides anyascii's Russian reading ("Tsrvena")
_SOUTH_SLAVIC = str.maketrans({"ц": "c", "Ц": "C", "ч": "c", "Ч": "C", "ћ": "c", "Ћ": "C", "ш": "s", "Ш": "S",
                               "ж": "z", "Ж": "Z", "х": "h", "Х": "H", "ђ": "dj", "Ђ": "Dj", "џ": "dz", "Џ": "Dz"})
_SOUTH_SLAVIC_LETTERS = regex.compile(r"[цчћшжхђџЦЧЋШЖХЂЏ]")
# modern Greek "αυ", "ευ": "af", "ef" before a voiceless consonant ("Ελευθέριος", Eleftherios), else "av", "ev"
_GREEK_U = regex.compile(r"([αεΑΕ][́]?)[υύ](?=([θκξπστφχψ])?)", regex.I)


@lru_cache(maxsize=65536)
def latin_spellings(name: str) -> tuple[str, ...]:
    """``name`` in Latin letters where its letters are of the alphabets above (and Latin), the forms of "ё"
    both ways; () for a name with other letters, or with none of those alphabets'."""
    if not _ALPHABETS.search(name) or _OTHERS.search(name):
        return ()
    name = _GREEK_U.sub(lambda m: m[1] + ("φ" if m[2] else "β"), name.translate(_QUOTES))  # "Ελευθέριος"
    name = _GREEK_PAIRS.sub(lambda m: _GREEK_PAIR_LATIN[m[0].casefold()].capitalize() if m[0][0].isupper() else
                            _GREEK_PAIR_LATIN[m[0].casefold()], name)  # "Αύγουστος": "Avgoustos"
    name = _ARMENIAN_YE.sub(lambda m: "Յե" if m[0].isupper() else "յե", name)  # "Երևան": Yerevan
    forms = [_HANGUL.sub(lambda m: _syllables(m.group(), joined), name) for joined in (False, True)]
    forms += [_CYRILLIC_YE.sub(lambda m: "Йе" if m[0].isupper() else "йе", f) for f in forms if _CYRILLIC_YE.search(f)]
    forms += [f.replace("ё", "йо").replace("Ё", "Йо") for f in forms if "ё" in f.casefold()]
    forms += [f.translate(_SOUTH_SLAVIC) for f in forms if _SOUTH_SLAVIC_LETTERS.search(f)]
    return tuple(dict.fromkeys(" ".join(anyascii(f).replace("'", "").split()) for f in forms))


def latin_names(forms) -> list[str]:
    """The Latin spellings of ``forms`` (`names.NameForm`) written in another alphabet, and of their names
    without a legal form ("Magnit" of "ПАО «Магнит»"); not of a qualified name, whose qualifier the rules read in
    its own language ("Ростов, Ярославская область"); and the pinyin readings of a name in Han characters."""
    spelled = (t for f in forms if not f.qualifier for x in (f.surface, f.trade) for t in latin_spellings(x))
    return list(dict.fromkeys([*spelled, *(t for f in forms for t in pinyin_readings(f.surface))]))


@lru_cache(maxsize=65536)
def pinyin_readings(name: str) -> tuple[str, ...]:
    """A name of two to four Han characters in pinyin as Chinese names are written in Latin letters, the family
    name apart ("习近平": "Xi Jinping"), and joined as places are ("北京": "Beijing"). A reading, never a
    spelling: Japanese reads the same characters otherwise ("宮崎駿", Miyazaki Hayao, is "Gong Qijun"), and many
    people share one pinyin; `scripts.across_scripts` makes what it matches a question for the LLM tier."""
    if not _HAN_NAME.fullmatch(name):
        return ()
    syllables = _SYLLABLE.findall(anyascii(name))
    if len(syllables) != len(name):
        return ()
    return syllables[0] + " " + "".join(syllables[1:]).capitalize(), "".join(syllables).capitalize()


_HAN_NAME = regex.compile(r"\p{Han}{2,4}")


def transliterations(*profiles) -> frozenset[str]:
    """The names `latin_names` gives ``profiles`` (`profiles.Profile`): forms that may misread a name."""
    return frozenset(n for p in profiles for n in latin_names(p.forms))


def _syllables(word: str, joined: bool) -> str:
    """A Korean word's syllables in Latin letters, apart ("Son Heung Min", as "Son Heung-min" reads) or
    ``joined`` ("Sonheungmin"; "Busan" of "부산"); the first of a word of three or four (a personal name's) as
    the family name is written ("김민재": "Kim Min Jae", not the Revised Romanization's "Gim")."""
    syllables = _SYLLABLE.findall(anyascii(word))
    if 3 <= len(syllables) <= 4:
        syllables[0] = _FAMILY_NAMES.get(syllables[0], syllables[0])
    return "".join(syllables).capitalize() if joined or len(syllables) > 4 else " ".join(syllables)


# Korean family names as their bearers write them in Latin letters, by their Revised Romanization
_FAMILY_NAMES = dict(pair.split(":") for pair in """
Gim:Kim I:Lee Bak:Park Bag:Park Choe:Choi Jeong:Jung Gang:Kang Jo:Cho Yun:Yoon Im:Lim O:Oh Sin:Shin Gwon:Kwon
An:Ahn Yu:Yoo Go:Ko Mun:Moon Heo:Huh No:Roh Sim:Shim Gu:Koo Gwak:Kwak Seong:Sung Ju:Joo U:Woo Eom:Um
Byeon:Byun Cheon:Chun Gong:Kong Hyeon:Hyun Gi:Ki Geum:Keum Seok:Suk""".split())
