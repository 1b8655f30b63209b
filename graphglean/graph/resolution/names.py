"""Reading an entity name: its normalized key, and the parts entity resolution reasons about.

``read_name("The Ghost of Jacob Marley")`` gives the key ``ghost of jacob marley``, the head ``ghost`` and the
owner ``Jacob Marley``; ``read_name("Mrs. Fezziwig")`` the honorific ``mrs`` (female) and the core ``fezziwig``.
Word lists cover the common articles and honorifics of English and the main Western European languages; a
name in a language they miss is still read by its key, only with less evidence."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import attrs
import regex

from .lexicon import (
    ABBREVIATIONS, ARTICLES, CONJUNCTIONS, COUNTRIES, COUNTRY_LONGEST, COUNTRY_WORDS, CREDENTIALS, FEMALE,
    GENERATION_ARTICLES, GENERATIONS, HONORIFICS, INSTITUTIONS, JOINED_TITLES, KOREAN_FAMILY_NAMES,
    LEADING_ABBREVIATIONS, LEADING_GENERATIONS, MALE, ORDINALS, PLURAL_HONORIFICS, REGIONS, ROYAL, STYLES,
    SUFFIX_TITLES, PARENTHESIZED_GENERATIONS, SURNAME_GENERATIONS, TRAILING_TITLES, WORLD_REGIONS, WRITTEN_OUT)
from ...text.words import LETTERS, strip_accents, unspaced
from .organizations.written import club_form, web_domain, without_legal_form
from .lexicon.numbers import number_of, numbering, roman_words
from .lexicon.realms import realm_of

_MARKS = dict.fromkeys(map(ord, "™®©℠"), None)
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})
_WORD = regex.compile(rf"[{LETTERS}\p{{N}}]+(?:'[{LETTERS}\p{{N}}]+)*'?|&|\+")
_OF = re.compile(r"\s+of\s+", re.I)
_POSSESSIVE = re.compile(r"^(.*\S)(?:'s|s')\s+(\S.*)$", re.I)
_TRAILING_POSSESSIVE = re.compile(r"(?:'s|s')$", re.I)
_PAREN = re.compile(r"^(.*\S)\s*\(([^()]+)\)$")
_TIGHT_AMPERSAND = re.compile(r"(?<=\w)\.?&(?=\w)")  # "AT&T", "A.T.&T."
_SPACED_AMPERSAND = re.compile(r"\b([^\W\d_]{1,2})\.?\s+&\s+(?=[^\W\d_]{1,2}\b)")  # "AT & T", "R & D"
_SPELLED_AMPERSAND = re.compile(r"\b([A-Z]{1,2})\.? (?:and|und|et|y|e) (?=[A-Z]{1,2}\b)")  # "AT and T", "B and Q"
_INITIAL_FIRST = re.compile(r"\s*[^\W\d_]\.")  # "A.C. Milan", "A. Lincoln": the first word is no article
_CAPITALS_FIRST = re.compile(r"\s*[A-Z]{2,3}\s+[A-Z][a-z]")
_DOTTED_REGNAL = re.compile(r"\s\d{1,2}\.\s*$")  # "Margrethe 2.": a ruler's number as Danish writes it
_SUFFIX_TITLE = re.compile(r"\w-(?:" + "|".join(sorted(SUFFIX_TITLES)) + r")\b")
_IRREGULAR = {"men": "man", "women": "woman", "children": "child", "people": "person", "geese": "goose",
              "mice": "mouse", "feet": "foot", "teeth": "tooth", "wives": "wife", "lives": "life",
              "knives": "knife", "leaves": "leaf", "wolves": "wolf", "halves": "half"}


def fold(text: str) -> str:
    """Compatibility form, trademark-like marks dropped, typographic quotes made plain, case folded."""
    return unicodedata.normalize("NFKC", text.translate(_MARKS)).translate(_QUOTES).casefold()


def words(text: str) -> list[str]:
    """Folded words of ``text``: hyphens, dots and other punctuation separate words; apostrophes inside stay;
    an ampersand between letters joins them ("A&M", "AT&T", "AT and T"), one between words is "and"."""
    folded = fold(_letters_joined(text))
    if "&" in folded:
        folded = _TIGHT_AMPERSAND.sub("", _SPACED_AMPERSAND.sub(r"\1&", folded))
    folded = folded.replace("-", " ").replace(".", " ")
    return [ABBREVIATIONS.get(w, w) for w in (w.strip("'") or w for w in _WORD.findall(folded))]


def _letters_joined(text: str) -> str:
    """Letters joined by a word for "and" written as an ampersand ("AT and T": "AT&T")."""
    return _SPELLED_AMPERSAND.sub(r"\1&", text) if " " in text else text


@lru_cache(maxsize=65536)
def singular(word: str) -> str:
    """English singular of a plural-looking word (only the common regular and irregular forms)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) < 4 or not word.isalpha() or word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("men") and len(word) > 5:  # gentlemen, businessmen
        return word[:-3] + "man"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def _without_articles(ws: list[str]) -> list[str]:
    i = 0
    while i < len(ws) - 1 and (ws[i] in ARTICLES or ws[i] in ("l'", "d'")):
        i += 1
    out = ws[i:]
    if out and out[0].startswith(("l'", "d'")) and len(out[0]) > 2:  # l'Oréal, d'Artagnan: elided article
        out = [out[0][2:]] + out[1:]
    if len(out) > 1 and out[0] in LEADING_ABBREVIATIONS:  # "Mt. Everest", "St. Louis"; "Main St." stays
        out = [LEADING_ABBREVIATIONS[out[0]]] + out[1:]
    return out


def key_of(text: str) -> str:
    """The comparison key: folded, accents and punctuation dropped, leading articles removed (not an initial
    that looks like one: "A.C. Milan", nor a letter of an abbreviation: "U.A.E.")."""
    ws = words(strip_accents(text.translate(_MARKS)))
    if ws and _INITIAL_FIRST.match(text):  # the initials in a row stay, articles or not ("S.L. Benfica")
        n = next((i for i, w in enumerate(ws) if len(w) > 1), len(ws))
        return " ".join(ws[:n] + _without_articles(ws[n:]))
    if _CAPITALS_FIRST.match(text):  # "LA Galaxy", "EL Al": capitals, no article
        return " ".join(ws[:1] + _without_articles(ws[1:]))
    return " ".join(_without_articles(ws))


@attrs.frozen
class NameForm:
    """One surface name read into the parts resolution compares."""

    surface: str
    key: str  # articles, punctuation, marks, accents and case removed
    compact: str  # the key without spaces (counting-house = counting house = countinghouse)
    singular: str  # the key with its last word made singular
    core: str  # the key without a trailing qualifier (", Utah", "(IRS)") or legal form ("Inc.")
    qualifier: str  # that qualifier's key, or ""
    paren: bool  # the qualifier was in parentheses: it may be another name of the whole ("(IRS)")
    parts: tuple[str, ...]  # the keys of a combination ("Scrooge and Marley"), else ()
    head: str  # an owned thing ("Scrooge's Clerk", "Ghost of Marley"): the singular key of the thing ...
    owner: str  # ... and the owner's surface name; both "" otherwise
    elliptic: bool  # "The Poulterer's": a possessive with its noun left out
    honorifics: tuple[str, ...]  # titles (mr, old, uncle, president, a "-san" after the name), for personal names
    person: tuple[str, ...]  # the personal-name words without titles, numbers and generational markers
    plural: bool  # the last word looks plural ("The Miss Fezziwigs", "Portly Gentlemen"; also "Dickens")
    initials: str  # first letters of the content words of a name of 2 or more words
    acronym: str  # the name itself when it looks like an acronym ("IRS", "U.S."), folded, else ""
    spelled: tuple[str, ...] = ()  # "Electronic Health Record (EHR) Systems": keys of "ehr systems" and the long form
    numbers: tuple[str, ...] = ()  # the numbers it holds, as digits ("XIV", "Eighth", "4o", "10b"), sorted
    numbered: str = ""  # the key with each number as digits ("henry the eighth" -> "henry 8")
    generation: str = ""  # "jr" or "sr" (Jr., Junior, the Younger, fils; Sr., the Elder, père)
    trade: str = ""  # the key without a company's legal form ("siemens" of "Siemens AG"), or ""
    legal: str = ""  # that legal form, canonical ("Corp." and "Corporation": "corporation"), or "place ..."
    country: str = ""  # a country before a public body ("U.K. Ministry of Defence": "uk") ...
    unprefixed: str = ""  # ... and the key without it ("ministry of defence"); both "" otherwise
    short_initials: str = ""  # the initials without the legal form or qualifier ("IBM" of "IBM Corp."), or ""
    site: str = ""  # a name written as a web domain: its host without "www" ("nytimes.com") ...
    stem: str = ""  # ... and its label before the public suffix ("nytimes"; "" for a subdomain's host)
    club: str = ""  # a sports club's abbreviations before or after its name, canonical ("afc" of "AFC Ajax") ...
    team: str = ""  # ... and the key without them ("ajax"); both "" otherwise
    umlauts: str = ""  # the compact key with ä, ö, ü, ø, å written out ("mueller" of "Müller"), or "" if the same

    @property
    def gender(self) -> str:
        male = any(h in MALE for h in self.honorifics)
        female = any(h in FEMALE for h in self.honorifics)
        return "m" if male and not female else "f" if female and not male else ""

    @property
    def royal(self) -> bool:
        """A title that names its bearer by the given name alone ("King Charles", "Pope Francis")."""
        return any(h in ROYAL for h in self.honorifics)


_INNER_SKIP = frozenset("da do dos das della delle dello degli dei et und".split())  # "Partido dos Trabalhadores":
_CONTENT_SKIP = ARTICLES | _INNER_SKIP | frozenset("of and for in on at to de du des del di von van".split())  # PT


def _split_owner(text: str) -> tuple[str, str] | None:
    """(owner, thing) of "Owner's Thing" or "Thing of Owner"; None when the name is neither."""
    if m := _POSSESSIVE.match(text):
        return m.group(1), m.group(2)
    parts = _OF.split(text, maxsplit=1)
    if len(parts) == 2 and parts[0].strip() and parts[1].strip():
        return parts[1], parts[0]
    return None


def _qualified(text: str) -> tuple[str, str, bool]:
    """``text`` without a trailing qualifier (", Utah", "(IRS)"), the qualifier's key, and whether it was in
    parentheses; degrees and generational markers are none ("Alexandre Dumas (fils)": "Alexandre Dumas fils")."""
    if (m := _PAREN.match(text)) and \
            not _personal(["given", "family", *key_of(m.group(2)).split()], {}, f"given family ({m.group(2)})")[2]:
        return m.group(1), key_of(m.group(2)), True
    if (realm := realm_of(text, key_of)) is not None:  # "Felipe VI of Spain": the realm as a qualifier
        return realm[0], realm[1], False
    if ", " in text:
        if text.count(", ") > 1 and key_of(text.rpartition(", ")[2]) in COUNTRIES:  # "Hamilton, ON, Canada"
            text = text.rpartition(", ")[0]  # the region, which places the country too
        head, _, tail = text.rpartition(", ")
        tail_words = set(words(tail))
        if tail_words and tail_words <= CREDENTIALS and key_of(tail) not in REGIONS:  # "Baltimore, MD": a state
            return head, "", False
        spaced = {key_of(w) for w in tail.split() if "-" not in w}  # "Tours, Indre-et-Loire": one word
        known = key_of(tail) in _KNOWN_PLACES  # "Rio Grande, Rio Grande do Sul", "Mostar, Bosnia and Herzegovina"
        conjunction = bool(spaced & CONJUNCTIONS) and not known  # "Portland, OR"
        if head and (0 < len(tail_words) <= 3 or known) and not conjunction and not tail_words <= set(GENERATIONS):
            return head, key_of(tail), False
    return text, "", False


_KNOWN_PLACES = frozenset(REGIONS) | frozenset(WORLD_REGIONS) | frozenset(COUNTRY_WORDS.values())


def _initials(key: str) -> str:
    """First letters of the content words of a key of two or more words."""
    content = [w[2:] if w.startswith(("l'", "d'")) and len(w) > 2 else w  # "l'Atlantique"
               for i, w in enumerate(key.split()) if w not in _CONTENT_SKIP or (i == 0 and w in _INNER_SKIP)]
    return "".join(w[0] for w in content) if len(content) >= 2 else ""


def _country_prefix(key: str) -> tuple[str, str]:
    """A country before the name of a public body ("U.K. Ministry of Defence": "uk", "ministry of defence"),
    or ("", "")."""
    ws = key.split()
    for n in range(min(COUNTRY_LONGEST, len(ws) - 1), 0, -1):
        country = COUNTRIES.get(" ".join(ws[:n]))
        rest = _without_articles(ws[n:])
        if country and any(w in INSTITUTIONS for w in rest):
            return country, " ".join(rest)
    return "", ""


def _personal(ws: list[str], romans: dict[str, int], surface: str) -> tuple[list[str], list[str], str]:
    """Titles, personal-name words and generational marker ("jr", "sr" or "") of a name's key words."""
    honorifics: list[str] = []
    joined = _joined_title(ws[-1]) if ws else ""
    if joined:  # "習近平主席": the name, then its title
        ws, honorifics = [*ws[:-1], ws[-1][:-len(joined)]], [joined]
    style = next((n for n in _STYLE_LENGTHS if tuple(ws[:n]) in STYLES), 0)
    titled = ws[style + (style < len(ws) and ws[style] in _STYLE_ARTICLES):]  # "Su Majestad el Rey Felipe VI"
    if style and len(titled) > 1 and titled[0] in HONORIFICS:  # "H.M. King Mswati III": the style says no more
        ws = titled
    elif style and len(titled) > 1 and ws[style - 1] == "excellency":  # "His Excellency Paul Kagame", as "H.E."
        ws, honorifics = titled, ["excellency"]
    while len(ws) > 1 and ws[0] in HONORIFICS:
        honorifics.append(ws.pop(0))
    generation = ""
    if len(ws) > 2 and ws[0] in LEADING_GENERATIONS and (len(ws[0]) > 3 or f"{ws[0]}." in fold(surface).split()):
        generation = LEADING_GENERATIONS[ws.pop(0)]  # "id. Antall József"; not "Id Kah Mosque"
    tables = (SURNAME_GENERATIONS, PARENTHESIZED_GENERATIONS if surface.rstrip().endswith(")") else {})
    for n, table in ((n, t) for n in (2, 1) for t in tables):  # "Pieter Brueghel de Jonge", "Strauss (Sohn)": a
        if not generation and len(surface.split()) >= n + 2 and " ".join(ws[-n:]) in table:  # given name and a
            generation, ws = table[" ".join(ws[-n:])], ws[:-n]  # surname before it, as written ("Hak-kyu Sohn")
    while len(ws) > 1:
        last = ws[-1]
        if last in GENERATIONS and not generation:
            generation = GENERATIONS[last]
        elif last in ("a", "j") and ws[-2] == "d" and len(ws) > 2 and not generation:  # "d. Ä.", "d. J."
            generation, ws = ("sr" if last == "a" else "jr"), ws[:-1]
        elif last in SUFFIX_TITLES and _SUFFIX_TITLE.search(fold(surface)) and not _korean_given(ws) \
                or last in TRAILING_TITLES:
            honorifics.append(last)
        elif not (number_of(last, romans) and (last in romans or last in ORDINALS or _DOTTED_REGNAL.search(surface))):
            break
        ws = ws[:-1]
        if len(ws) > 1 and (ws[-1] == "the" or generation and ws[-1] in GENERATION_ARTICLES):
            ws = ws[:-1]
    return honorifics, ws, generation


def _korean_given(ws: list[str]) -> bool:
    """A Korean family name, then a given name of two syllables whose second reads as a Japanese or Hindi title
    ("Hwang Hee-chan", "Seo Tae-ji"; not "Ko Itakura-san")."""
    return len(ws) == 3 and ws[0] in KOREAN_FAMILY_NAMES and ws[2] in ("chan", "san", "ji", "kun") and len(ws[1]) <= 4


def _joined_title(word: str) -> str:
    """The title a CJK name ends in without a space ("主席" of "習近平主席", "女士" of "王女士"), the longest; ""
    when none or when a title of one character would leave one character ("源氏" is a clan)."""
    found = [t for t in JOINED_TITLES if word.endswith(t) and len(word) - len(t) >= (1 if len(t) > 1 else 2)]
    return max(found, key=len, default="") if found and unspaced(word[0]) else ""


# "His (Her) Excellency" before a name, as protocol writes it ("H.E. Dr. Mohamed Muizzu"; "S.E.", Spanish, French):
# a title, not two initials: two words follow, not initials ("H.E. Bates", "S. E. Hinton", "H. E. B. White")
_EXCELLENCY = re.compile(r"^(?:H|S)\.\s?E\.\s+(?=\S+\s+\S)(?![^\W\d_]\.)")


@lru_cache(maxsize=262144)
def read_name(surface: str) -> NameForm:
    """Read one name (pure; cached)."""
    cased = _EXCELLENCY.sub("Excellency ", " ".join(unicodedata.normalize("NFKC", surface).split()).strip("\"'*<>"))
    cased, legal = without_legal_form(cased)
    text, qualifier, paren = _qualified(fold(_letters_joined(cased)).translate(_QUOTES))
    if qualifier and not legal:  # "Acme Company (AC)"
        text, legal = without_legal_form(text)
    key = key_of(surface)
    core = key_of(text)
    ws = core.split()
    parts: tuple[str, ...] = ()
    spelled = _spelled(surface) or _led(ws)
    if any(w in CONJUNCTIONS for w in ws[1:-1]) and not spelled:
        chunks, cur = [], []
        for w in ws:
            if w in CONJUNCTIONS:
                chunks.append(" ".join(cur))
                cur = []
            else:
                cur.append(w)
        chunks.append(" ".join(cur))
        parts = tuple(c for c in chunks if c)
        if len(parts) == 2 and parts[1] in _FIRM_HEIRS:  # "S.C. Johnson & Son": one firm, not two things
            parts = ()
    head = owner = ""
    elliptic = False
    if not parts:
        split = _split_owner(text)
        if split is not None and key_of(split[0]) and key_of(split[1]):
            owner, thing = split
            head = " ".join(key_of(thing).split()[:-1] + [singular(key_of(thing).split()[-1])])
        elif _TRAILING_POSSESSIVE.search(text) and len(ws) >= 1:
            elliptic = True
    if elliptic:
        core = key_of(_TRAILING_POSSESSIVE.sub("", text))
        ws = core.split()
    if parts or head:  # titles and personal names belong to the owner or the parts, not to the whole
        ws = []
    romans = roman_words(surface)
    honorifics, ws, generation = _personal(ws, romans, surface)
    plural = bool(ws) and (singular(ws[-1]) != ws[-1] or bool(set(honorifics) & PLURAL_HONORIFICS))
    kws = key.split()
    trade = core if legal else ""
    initials, short_initials = _initials(key), _initials(core)
    letters = re.sub(r"[^\w]", "", cased)
    acronym = ""  # capitals, dotted, or with a joining word's small letter ("KfW", Kreditanstalt für Wiederaufbau)
    if 2 <= len(letters) <= 8 and letters.isalpha() and (letters.isupper() or re.fullmatch(r"(\w\.)+\w?\.?", cased)
                                                         or regex.fullmatch(r"\p{Lu}(?:\p{Ll}?\p{Lu}){1,4}", cased)):
        acronym = strip_accents(letters).casefold()  # "ČEZ" of "České energetické závody"
    sing = " ".join(kws[:-1] + [singular(kws[-1])]) if kws else ""
    club, team = club_form(core.split())  # "FC Bayern München e.V.": "fc", "bayern munchen"
    team = " ".join(_without_articles(team.split()))  # "FC St. Pauli": "saint pauli"
    # the ordinal of a club's abbreviation ("1. FC Köln") is not a number of the name
    numbers, numbered = numbering(kws[1:] if club and kws[0].isdigit() else kws, romans)
    country, unprefixed = _country_prefix(core)
    site, stem = web_domain(cased) if "." in cased else ("", "")  # "Amazon.com, Inc." is amazon.com
    umlauts = key_of(f.translate(WRITTEN_OUT)).replace(" ", "") if set(f := fold(surface)) & set("äöüøåæ") else ""
    return NameForm(surface, key, key.replace(" ", ""), sing, core, qualifier, paren, parts, head, owner, elliptic,
                    tuple(honorifics), tuple(ws), plural, initials, acronym, spelled, numbers, numbered,
                    generation, trade, legal, country, unprefixed, "" if short_initials == initials else short_initials,
                    site, stem, club, team, umlauts)


_INNER_PAREN = re.compile(r"^(.*\S)\s*\(([^()]+)\)\s+(\S.*)$")


def _spelled(surface: str) -> tuple[str, ...]:
    """The two forms of a name that spells out an acronym before its end: "Electronic Health Record (EHR)
    Systems" is "EHR Systems" and "Electronic Health Record Systems" when EHR are the initials before it."""
    m = _INNER_PAREN.match(surface)
    if not m:
        return ()
    long, short, rest = m.groups()
    letters = "".join(w[0] for w in key_of(long).split() if w not in _CONTENT_SKIP)
    if key_of(short).replace(" ", "") != letters:
        return ()
    return (key_of(f"{short} {rest}"), key_of(f"{long} {rest}"))


def _led(ws: list[str]) -> tuple[str, ...]:
    """The two forms of a name led by the acronym of the words that follow it ("BMW Bayerische Motoren Werke",
    "H & M Hennes & Mauritz"): the acronym and the words."""
    if len(ws) < 3 or not 2 <= len(ws[0]) <= 6 or not ws[0].isalpha():
        return ()
    rest = [w for w in ws[1:] if w not in _CONTENT_SKIP]
    return (ws[0], " ".join(ws[1:])) if "".join(w[0] for w in rest) == ws[0] else ()


def name_size(form: NameForm) -> tuple[int, int]:
    """How complete a name is: (whole words, initials). A personal name counts its name words (not titles nor
    generations), a web domain its stem ("zillow.com": "Zillow"), a legal form and a region after it ("Paris, TX";
    not "(L.)", "MD") as words; initials in a run one word ("J.R.R."), a lone one an initial ("J. Smith")."""
    ws = (form.stem,) if form.stem else form.person if form.person and not form.legal else tuple(form.key.split())
    q = form.qualifier
    whole, initials, run = len(q.split()) * ((q in REGIONS or q in COUNTRIES) and q not in CREDENTIALS), 0, 0
    for w in (*ws, ""):
        if len(w) == 1:
            run += 1
            continue
        whole, initials, run = whole + (run > 1), initials + (run == 1), 0
        whole += bool(w)
    return whole, initials


def words_of(form: NameForm) -> set[str]:
    """The name's words, each made singular: "Christmas" reads "christma" wherever it stands."""
    return {singular(w) for w in form.key.split()}


# who a firm's name says runs it with its founder, after "&": no second thing of the combination
_FIRM_HEIRS = frozenset(
    "son sons partners associates brothers bros fils sohn sohne soehne hijos figli filhos zonen".split())


_STYLE_LENGTHS = sorted({len(s) for s in STYLES}, reverse=True)
_STYLE_ARTICLES = frozenset("the el la le il der".split())


def saints_written(key: str) -> str:
    """``key`` with a saint's abbreviation inside it written out ("sault saint marie"; not "queen st west")."""
    ws = key.split() if " st" in key else ()  # most keys hold none
    return " ".join(_INNER_SAINTS.get(w, w) if 0 < i < len(ws) - 1 and ws[i + 1] not in _COMPASS else w
                    for i, w in enumerate(ws)) if ws else key


_INNER_SAINTS, _COMPASS = {"st": "saint", "ste": "sainte", "sts": "saints"}, frozenset("north south east west".split())
