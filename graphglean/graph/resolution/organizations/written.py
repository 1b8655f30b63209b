"""How an organization's name is written around the name itself: as a web domain ("zillow.com",
"mercadolibre.com.ar"), with a sports club's abbreviation ("AFC Ajax", "Sevilla FC", "1. FC Köln") or with a
company's legal form ("Siemens AG", "PJSC Lukoil"); and the words that say a club.

``web_domain("www.nytimes.com")`` gives the site ``nytimes.com`` and its stem ``nytimes`` (the label before
the public suffix); ``club_form(["afc", "ajax"])`` gives ``("afc", "ajax")``.
"""

from __future__ import annotations

import re
import unicodedata

from collections.abc import Iterable

import regex

from ....core.tokens import Tokenizer
from ....text.words import LETTERS, strip_accents
from ..lexicon import (
    CLUB_FORMS,
    CLUB_LONGEST,
    COOPERATIVE_WORDS,
    COUNTRY_TLDS,
    GENERIC_TLDS,
    GROUP_JOINED,
    GROUP_LEADING,
    GROUP_WORDS,
    LEADING_LEGAL_FORMS,
    LEGAL_FORMS,
    PLACE_LEADING,
    PLACE_TRAILING,
    SECOND_LEVEL,
    SPORTS,
    SPORTS_STEMS,
    UNSPACED_AFFIXES,
    UNSPACED_LEADING,
)

_CAPS = ("COM", "ORG")  # the domains a name in capitals may end in ("ASP.NET" is no site)
_DOMAIN = re.compile(r"(?:https?://)?((?:[^\W_](?:[\w-]*[^\W_])?\.)+([^\W\d_]{2,24}))/?", re.I)


def web_domain(surface: str) -> tuple[str, str]:
    """(site, stem) of a name written as a web domain, else ("", ""): the site is the host without ``www``, the
    stem its label before the public suffix, hyphens dropped. The top-level domain must be one (a country's or
    a common generic one) written in lower case, unless the whole name is in capitals ("ZILLOW.COM"); a host
    with a subdomain ("maps.google.com") has no stem: it names a part of the site."""
    text = surface.strip()
    m = _DOMAIN.fullmatch(text)
    if not m:
        return "", ""
    tld = m.group(2)
    if tld.casefold() not in COUNTRY_TLDS | GENERIC_TLDS or not (tld.islower() or (text.isupper() and tld in _CAPS)):
        return "", ""
    labels = m.group(1).casefold().split(".")
    if labels[0] in ("www", "www1", "www2", "www3") and len(labels) > 2:
        labels = labels[1:]
    suffix = 2 if len(labels) > 2 and labels[-2] in SECOND_LEVEL and labels[-1] in COUNTRY_TLDS else 1
    site = ".".join(labels)
    registrable = labels[:-suffix]
    stem = registrable[0].replace("-", "") if len(registrable) == 1 else ""
    return site, (stem if len(stem) >= 2 else "")


def club_form(ws: list[str]) -> tuple[str, str]:
    """(canonical club abbreviations, the remaining words) of a name's key words ``ws`` with a club's
    abbreviation or generic words before or after the name; ("", "") when it has none or is nothing else."""
    forms: list[str] = []
    start, end = 0, len(ws)
    ordinal = start < end and ws[0].isdigit() and len(ws[0]) == 1  # "1. FC Köln"
    for n in range(min(CLUB_LONGEST, end - 1), 0, -1):
        lead = 1 if ordinal else 0
        form = CLUB_FORMS.get(" ".join(ws[lead:lead + n]))
        if form and end - lead - n >= 1:
            forms.append(form)
            start = lead + n
            break
    for n in range(min(CLUB_LONGEST, end - start - 1), 0, -1):
        form = CLUB_FORMS.get(" ".join(ws[end - n:end]))
        if form:
            forms.append(form)
            end -= n
            break
    if forms == ["us"]:  # "US Army" is the country's; "US Sassuolo Calcio" a club's Unione Sportiva
        forms, start = [], 0
    if not forms or start >= end or all(len(w) == 1 for w in ws[start:end]):  # "F.K.A." is no club "A"
        return "", ""
    return " ".join(sorted(forms)), " ".join(ws[start:end])


def without_group_words(key: str) -> str:
    """A company name's key without the words that name its whole group ("alibaba" of "alibaba group holding",
    "bimbo" of "grupo bimbo", "ソニー" of "ソニーグループ"), or "" when it has none or is nothing else (a CJK
    stem of one character is no name)."""
    ws = key.split()
    grouped = False
    while len(ws) > 1 and ws[-1] in GROUP_WORDS:
        ws, grouped = ws[:-1], True
    if grouped and len(ws) > 2 and ws[-2:] == ["co", "operative"]:  # "Fonterra Co-operative Group"
        ws = ws[:-2]
    elif grouped and len(ws) > 1 and ws[-1] in COOPERATIVE_WORDS:
        ws = ws[:-1]
    if len(ws) > 1 and ws[0] in GROUP_LEADING:
        ws = ws[1:]
    if ws:
        last = next((g for g in GROUP_JOINED if ws[-1].endswith(g) and len(ws[-1]) - len(g) >= 2), "")
        if last:
            ws[-1] = ws[-1][:-len(last)]
    stem = " ".join(ws)
    return stem if stem != key else ""


def says_sport(words: Iterable[str]) -> bool:
    """Words (of a type or a description) that say a sports club or team: "club", "league", "Fußballverein"."""
    return any(w in SPORTS or any(s in w for s in SPORTS_STEMS) for w in words)


def without_legal_form(text: str) -> tuple[str, str]:
    """``text`` without the legal forms that end it ("Samsung Electronics Co., Ltd.", "Koç Holding A.Ş."), and
    those forms, canonical; a name that is only a legal form keeps it. A legal form that opens the name ("PJSC
    Lukoil", "ПАО «Газпром»", "株式会社ニトリ") is read as one that ends it. A place's administrative affix
    ("上海市", "서울특별시", "г. Казань") is read the same way, canonical "place ..." (one affix only: "京都府"
    is "京都")."""
    text, affix = _without_affix(text)
    forms = [affix] if affix else []
    lead = _LEADING_LEGAL.match(text)
    if lead and (lead.group(1).casefold() != "pt" or len(text[lead.end():].split()) >= 2):
        if form := LEADING_LEGAL_FORMS[lead.group(1).casefold()]:  # "" for a title, not a form ("Koninklijke")
            forms.append(form)
        text = text[lead.end():]
    text = _unquoted(text)
    while True:
        ws = _plain_words(text)
        found = next((n for n in range(min(LEGAL_LONGEST, len(ws) - 1), 0, -1)
                      if " ".join(ws[-n:]) in _LEGAL_PLAIN), 0)
        if not found:
            return text, " ".join(forms)
        forms.insert(0, _LEGAL_PLAIN[" ".join(ws[-found:])])
        cut = _LEGAL_TAIL[found].search(_base_letters(text))  # "A.Ş." as "A.S.", at the same places
        if cut is None:  # written in a way the word pattern does not see: keep the text as it is
            return text, " ".join(forms[1:])
        text = _unquoted(text[:cut.start()].rstrip(" ,"))
        if forms[0] == "company" and text.endswith((" &", " and")):  # "J.P. Morgan & Co."
            text = text.rsplit(" ", 1)[0]


_LEADING_LEGAL = re.compile(r"(" + "|".join(map(re.escape, sorted(LEADING_LEGAL_FORMS, key=len, reverse=True))) + r")\.?\s+(?=[\w«\"„“'])", re.I)
_UNSPACED = sorted(UNSPACED_AFFIXES, key=len, reverse=True)
_PLACE_WORDS = {True: PLACE_LEADING, False: PLACE_TRAILING}


def _place_word(w: str) -> str:
    """The pattern of one administrative word: an abbreviation only with its dot and in lower case ("г. Казань";
    "Г. Жуков" is an initial), a word in any case."""
    return re.escape(w) + r"\." if len(w) <= 3 and "-" not in w else f"(?i:{re.escape(w)})" + r"\b"


_PLACE_AFFIX = {lead: re.compile((r"^({})\s*(?=\w)" if lead else r"(?<=\w)\s+({})$").format("|".join(
    map(_place_word, sorted(table, key=len, reverse=True))))) for lead, table in _PLACE_WORDS.items()}
_QUOTE_PAIRS = ("«»", '""', "“”", "„“", "„”", "''")


def _without_affix(text: str) -> tuple[str, str]:
    """``text`` without one affix written with no space (CJK, Korean "(주)") or one administrative word
    ("г.", "область"), and its canonical form; ("text", "") when it has none or is nothing else ("自治区")."""
    if text in UNSPACED_AFFIXES:
        return text, ""
    for affix in _UNSPACED:
        if text.endswith(affix) and len(text) > len(affix):
            stem = text[:-len(affix)].rstrip(" ,")
            if stem and stem[-1].isalnum():
                return stem, UNSPACED_AFFIXES[affix]
        if affix in UNSPACED_LEADING and text.startswith(affix) and len(text) > len(affix):
            stem = text[len(affix):].lstrip()
            if stem and (stem[0].isalnum() or stem[0] in "«\"“„'"):
                return stem, UNSPACED_AFFIXES[affix]
    for lead, pattern in _PLACE_AFFIX.items():
        m = pattern.search(text)
        if m:
            word = m.group(1).casefold().rstrip(".")
            return (text[m.end():] if lead else text[:m.start()]), _PLACE_WORDS[lead][word]
    return text, ""


def _unquoted(text: str) -> str:
    """``text`` without the quotes around all of it ("«Газпром»")."""
    t = text.strip()
    return t[1:-1].strip() if len(t) > 2 and t[0] + t[-1] in _QUOTE_PAIRS else t


def _base_letters(text: str) -> str:
    """``text`` with each letter's accents dropped, letter for letter ("Ş" is "S"); the letters of scripts whose
    marks are letters of the word stay as they are (see `text.words.strip_accents`)."""
    return "".join(strip_accents(c)[:1] or c if ord(c) < 0x800 or 0x1E00 <= ord(c) <= 0x1FFF else c for c in text)


def _plain_words(text: str) -> list[str]:
    """The words of ``text`` as a legal form is matched: letters (with their marks) and digits, folded, accents
    dropped."""
    return _PLAIN_WORD.findall(strip_accents(unicodedata.normalize("NFKC", text).casefold()))


_PLAIN_WORD = regex.compile(rf"[{LETTERS}\p{{N}}]+(?:'[{LETTERS}\p{{N}}]+)*")
# the legal forms by their words as `_plain_words` reads them ("จำกัด" as NFKC writes it) ...
_LEGAL_PLAIN = {" ".join(_plain_words(form)): canon for form, canon in LEGAL_FORMS.items()}
LEGAL_LONGEST = max(len(k.split()) for k in _LEGAL_PLAIN)
# ... and as they end a name, between the words dots, slashes, quotes or parentheses ("S.p.A.", "A/S", "בע\"מ",
# "(publ)", "จำกัด (มหาชน)")
_LEGAL_TAIL = {n: regex.compile(r"(?:^|[\s,(])(?:" + "|".join(
    r"[\s./\"'״׳()]*".join(map(regex.escape, form.split())) for form in _LEGAL_PLAIN if len(form.split()) == n)
    + r")\)?\.?\s*$", regex.I) for n in range(1, LEGAL_LONGEST + 1)}


# a year after a club's name; not a later one ("FC Barcelona 2009", a season's squad) nor two digits ("84")
_FOUNDED = re.compile(r"(?<=\w) (?:18\d\d|19\d\d)$")  # sports clubs from 1800 ("TSV 1846")


def without_founding_year(team: str) -> str:
    """A club's name key without the year of its founding after it ("basel" of "basel 1893"); the key itself
    where it has none."""
    return _FOUNDED.sub("", team)


def without_arabic_article(key: str) -> str:
    """A club's name key without the Arabic article written in Latin letters ("ahly" of "al ahly")."""
    return key[3:] if key.startswith("al ") else key


def place_adjective_stem(team: str) -> str:
    """A Hungarian club's one-word name, a place's adjective, without its "-i" ("ferencvaros" of "ferencvarosi",
    "debrecen" of "debreceni"); "" for other names."""
    return team[:-1] if " " not in team and len(team) >= 6 and team.endswith("i") else ""


def team_readings(team: str) -> frozenset[str]:
    """The keys a club's name is known by: as written, without its founding year, its Arabic article or its
    place adjective's ending."""
    return frozenset(k for k in (team, without_founding_year(team), without_arabic_article(team),
                                 place_adjective_stem(team)) if k)


def rare_word(word: str) -> bool:
    """A word the web writes rarely: OpenAI's cl100k vocabulary, learnt from web text, holds no token for it
    capitalized ("Tokopedia", "Zalando"); the words it holds whole are common nouns and famous brands, whose
    namesakes are many ("Monster", "Mercury", "Delta", "Amazon")."""
    return len(Tokenizer.cl100k().encode(" " + word.capitalize())) > 1
