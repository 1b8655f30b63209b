"""Where a text places things: the countries it names by name, people, city or region in several languages, read
as the longest runs of words a table holds ("British Columbia" is a region, not "British"; "Latin American" no
U.S.), and the words it says beside where."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

from ..lexicon import (COUNTRIES, COUNTRY_EXTRA, COUNTRY_NAMES, COUNTRY_OF, COUNTRY_WORDS, ENDONYMS, PLACE_PHRASES,
                       REGION_COUNTRIES, WORLD_REGIONS)
from ..names import key_of

UNIONS = frozenset({"eu"})  # place nothing in one country: "a European group" is in Germany too
# the countries "European" may place a thing in, as the tables name them
EUROPE = frozenset(c.replace("_", " ") for c in """uk scotland wales ireland france germany italy spain portugal
netherlands belgium switzerland austria sweden norway denmark finland poland ukraine russia turkey greece
czech_republic slovakia hungary romania bulgaria croatia serbia slovenia bosnia north_macedonia albania montenegro
kosovo lithuania latvia estonia belarus moldova luxembourg iceland malta cyprus monaco andorra liechtenstein
san_marino vatican""".split())
# "America" alone is a continent as often ("América Latina", "North America")
# Russian and Serbian names of countries and capitals as sentences inflect them ("из России", "Российской
# Федерации", "из Београда")
_INFLECTED = {key_of(w): c for c, words in {
    "russia": "россии россией российской российского российском рф москвы", "ukraine": "украины украине киева",
    "serbia": "сербии србије београда белграда", "belarus": "беларуси белоруссии минска",
    "kazakhstan": "казахстана"}.items() for w in words.split()}
PLACED = {k: c for k, c in ({key_of(w): c for w, c in COUNTRY_WORDS.items()} | COUNTRIES).items() if k != "america"
          } | COUNTRY_EXTRA | REGION_COUNTRIES | WORLD_REGIONS | PLACE_PHRASES | _INFLECTED
# countries and capitals in scripts written without spaces, read anywhere in a text ("日本最大の自動車メーカー")
_UNSPACED = {"日本": "japan", "東京": "japan", "中国": "china", "北京": "china", "上海": "china", "韩国": "south korea",
             "韓国": "south korea", "대한민국": "south korea", "한국": "south korea", "서울": "south korea",
             "台湾": "taiwan", "台灣": "taiwan", "朝鲜": "north korea", "北朝鮮": "north korea", "美国": "us", "米国": "us",
             "英国": "uk", "德国": "germany", "ドイツ": "germany", "法国": "france", "フランス": "france",
             "俄罗斯": "russia", "ロシア": "russia", "印度": "india", "インド": "india", "ประเทศไทย": "thailand",
             "印度尼西亚": "indonesia", "印尼": "indonesia", "インドネシア": "indonesia", "인도네시아": "indonesia",
             "인도": "india", "日本人": "japan"}
_UNSPACED_LONGEST = sorted(_UNSPACED, key=len, reverse=True)
_UNSPACED_SCRIPT = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")
# a region read as one word run, naming no country but one its name holds ("Western Australia")
_NAMED = {k: c for k, c in COUNTRIES.items() if k != "america"} | {
    r: c if c in r else "" for r, c in REGION_COUNTRIES.items()} | PLACE_PHRASES
_LONGEST = max(len(k.split()) for k in PLACED | _NAMED)


# a country by its name, in English or its own language ("Nigeria", "Deutschland"; not its people's adjective)
_COUNTRY_BY_NAME = {k: c for k, c in {**COUNTRIES, **ENDONYMS, **COUNTRY_NAMES}.items() if c in k or k in ENDONYMS or
                    k in COUNTRY_NAMES}


def country_suffix(key: str) -> tuple[str, str]:
    """A name key ending in a country's name, split: ("jumia", "nigeria") of "jumia nigeria"; ("", "") else."""
    ws = key.split()
    for n in (2, 1):
        if len(ws) > n and (country := _COUNTRY_BY_NAME.get(" ".join(ws[-n:]))):
            return " ".join(ws[:-n]), country
    return "", ""


def country_led(key: str) -> str:
    """A name key that opens with one of a country's names, that name canonical: "us steel" of "u s steel" and
    "united states steel"; "" for a key that opens with none or is only the country."""
    ws = key.split()
    for n in range(min(len(ws) - 1, 9), 0, -1):
        if country := COUNTRY_NAMES.get(" ".join(ws[:n])):
            return " ".join([country, *ws[n:]])
    return ""


@lru_cache(maxsize=16384)
def text_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` as name keys read them (a description is read by several rules), an elided article
    or preposition dropped ("d'Italie", "dell'Australia Occidentale": "italie", "australia occidentale")."""
    return tuple(_ELIDED.sub("", key_of(text)).split())


_ELIDED = re.compile(r"(?<![\w'])(?:l|d|dell|dall|all|nell|sull|coll|quell|un|qu|j|s|n|c|m|t)'(?=\w)")


def names_place(description: str, place: str) -> bool:
    """``description`` names ``place`` (a key): a name of several words as written, one word also inflected or as an
    adjective made of it ("Krakowa", "Amsterdamse", "Wiener"; "Belgradski" of "Belgrade", its last vowel left
    out)."""
    said = text_words(description)
    if " " in place:
        return f" {place} " in f" {' '.join(said)} "
    stem = place[:-1] if len(place) >= 5 and place[-1] in "aeiou" else place
    return any(w == place or len(stem) >= 4 and w.startswith(stem) and len(w) <= len(stem) + 3 for w in said)


def countries_named(text: str) -> set[str]:
    """The countries a text names (by name, abbreviation or adjective)."""
    return _read_places(text_words(text), _NAMED)


def countries_placing(text: str) -> set[str]:
    """The countries ``text`` names in any of several languages: by name, people, capital or region (not a
    language: "an English-language daily")."""
    found = _read_places(text_words(text), PLACED)
    if _UNSPACED_SCRIPT.search(text):
        for name in _UNSPACED_LONGEST:  # "印度尼西亚" is Indonesia, not India
            if name in text:
                found.add(_UNSPACED[name])
                text = text.replace(name, " ")
    return found


@lru_cache(maxsize=16384)
def unplaced_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` (as `text_words` reads them) outside every run that places something ("South
    African", "Cape Town", "Hamburger"): what a description says beside where."""
    ws = text_words(text)
    return tuple(ws[i] for i, n in _runs(ws, PLACED) if not n)


def _read_places(ws: tuple[str, ...], table: dict[str, str]) -> set[str]:
    """What ``table`` gives the runs of ``ws`` it holds, a plural adjective read as its singular ("legislativas
    portuguesas", "españoles"); none for a region or a language ("an English-language daily")."""
    ws = tuple(_singular(w, table) for w in ws)
    found, beyond, end = set(), False, -1
    for i, n in _runs(ws, table):
        if not n:
            continue
        # "bound for Uganda and Rwanda", "bordering Chile, Peru": the list goes on beyond
        beyond = ws[max(0, i - 2):i] in _BEYOND or ws[i - 1:i] == ("bordering",) or \
            beyond and (end == i or end == i - 1 and ws[i - 1:i] in _LIST_GOES_ON)
        end = i + n
        if ws[i + n:i + n + 1] not in _LANGUAGE_OF and not beyond:
            found.add(table[" ".join(ws[i:i + n])])
    return found - {""}


_LIST_GOES_ON = frozenset((w,) for w in "and or und oder et ou y e o i".split())


def _singular(word: str, table: dict[str, str]) -> str:
    """``word``, or the singular ``table`` holds of a Romance adjective's plural: "-os", "-as" ("portuguesas",
    "mexicanos"), "-es" ("españoles", "portugueses"); not a country's or a city's name ("las Indias", "Chinas",
    "Casablancas")."""
    if word in table or len(word) < 6 or not word.endswith("s"):
        return word
    stem = word[:-1] if word.endswith(("os", "as")) else word[:-2] if word.endswith("es") else ""
    return stem if stem in table and stem.endswith(_ADJECTIVE_ENDINGS) and stem not in COUNTRY_OF else word


_ADJECTIVE_ENDINGS = ("esa", "eso", "es", "ol", "an", "ana", "ano", "ina", "ino", "ica", "ico", "ena", "eno", "eira",
                      "eiro", "ese", "aca", "aco", "ita", "ito")


# the words after a people's adjective that make it a language's ("an English-language daily", "the site's English
# edition")
_LANGUAGE_OF = frozenset((w,) for w in "language speaking edition version translation subtitles".split())
# what places a country beyond the node: "on the border with Poland", "an der Grenze zu Polen"
_BEYOND = frozenset({("border", "with"), ("borders", "with"), ("grenze", "zu"), ("frontiere", "avec"),
                     ("frontera", "con"), ("fronteira", "com"), ("confine", "con"), ("granicy", "z"),
                     ("gegenuber", "von"), ("bound", "for"), ("destined", "for"), ("headed", "for"),
                     ("exports", "to"), ("exported", "to"), ("runs", "to"), ("flights", "to"),
                     ("shared", "with")})  # where cargo goes is not where the port is, nor a lake's other shore


def _runs(ws: tuple[str, ...], table: dict[str, str]) -> Iterator[tuple[int, int]]:
    """Each word's index, and the length of the longest run from it that ``table`` holds (0 for none), left to
    right, each word read once."""
    i = 0
    while i < len(ws):
        n = next((n for n in range(min(_LONGEST, len(ws) - i), 0, -1) if " ".join(ws[i:i + n]) in table), 0)
        yield i, n
        i += n or 1
