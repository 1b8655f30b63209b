"""Candidate pairs for entity resolution, in near-linear time.

Each node gets block keys from its names: the normalized key and its spaced, singular and unqualified forms,
personal-name words, acronyms and initials, the country a name names, owner and thing of possessives, rare
words, and MinHash bands of character trigrams (misspellings). Only nodes sharing a key are compared. A block larger than ``max_block`` is
either an exact-name block (its members are linked to its first member: one pair each) or too common to mean
anything (skipped), so no key yields quadratic work.
"""

from __future__ import annotations

import re
import zlib
from collections import defaultdict
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...text.words import unspaced
from .descriptions.aliases import aliases_of_profile
from .lexicon import ARTICLES, CITY_JOINERS, CLUB_COMPOUNDS, COUNTRY_NAMES, JOINING, PARTICLES
from .lexicon.nicknames import full_forms
from .lexicon.spellings import romanized, sounded
from .names import NameForm, key_of, read_name, saints_written, words_of
from .organizations.translated import translation_key
from .organizations.written import says_sport, team_readings, without_group_words
from .descriptions.spouses import other_surnames
from .persons import initials_first
from .profiles import Corpus, Profile, kinds
from .variants.acronyms import LONGEST, content_initials, initials_within, left_out, syllable_keys
from .variants.articles import LEADING, glued
from .variants.makers import made
from .variants.placing import PLACED, countries_placing, country_led, country_suffix
from .variants.places import river_key
from .variants.rulers import ruler_name
from .variants.types import english_type
from .variants.vessels import afloat, designation

# a one-word name's block read against the block of the longer names holding its word: a personal name against
# the names starting or ending with it ("Scrooge", "Ebenezer Scrooge"), a thing against the made things ending
# with it ("Duster", "Dacia Duster"), an acronym against the names whose words' initials its letters can spell
# ("ÖBB", "Österreichische Bundesbahnen"); never the longer names among themselves ("Apple TV", "Sony TV")
ONE_AGAINST_MANY = {"ws:": "wm:", "ts:": "tm:", "as:": "am:", "ys:": "ym:", "ls:": "lm:"}
# the types a club is given ("organization" as often): a two-word name of one meets a one-word name of its first
CLUB_TYPES = frozenset({"club", "sports team", "team", "football club", "sports club", "organization", "organisation"})
EXACT = ("k:", "c:", "s:", "q:", "p:", "ws:", "ts:", "n:")  # prefixes whose large blocks are still one name: linked as a star
_BANDS, _ROWS = 6, 3
_PRIME = (1 << 31) - 1
CLOSE_COSINE = 0.8  # embeddings this alike (cosine) are candidates


@lru_cache(maxsize=65536)
def web_spellings(form: NameForm, papers: bool = True) -> frozenset[str]:
    """A name written as one word, as a web domain spells it: without spaces, with and without its article,
    legal form or club abbreviation ("theguardian", "guardian"; "airbnb" of "Airbnb, Inc.")."""
    first = form.surface.split(maxsplit=1)[0].casefold() if form.surface.strip() else ""
    written = first + form.compact if first in ARTICLES and not form.compact.startswith(first) else ""
    words = form.surface.split()  # "sueddeutsche.de" of "Süddeutsche Zeitung": a paper's site without its kind
    paper = read_name(" ".join(words[:-1])) if papers and len(words) >= 2 and \
        english_type(key_of(words[-1])) == "newspaper" else None
    return frozenset(w.replace("'", "") for w in (form.compact, written, form.trade.replace(" ", ""),
                                                  form.team.replace(" ", ""), glued(form), form.umlauts,
                                                  paper and paper.compact, paper and paper.umlauts) if w)


def site_stem(form: NameForm) -> str:
    """The label a web domain's name is read by: its registrable label ("zillow" of "zillow.com"), or a
    subdomain's first one of six letters or more ("timesofindia" of "timesofindia.indiatimes.com"; not "de" of
    "de.wikipedia.org")."""
    first = form.site.split(".", 1)[0] if form.site and not form.stem else ""
    return form.stem or (first if len(first) >= 6 else "")


_CAPITALS_NUMBER = re.compile(r"[A-Z]{2,}(?:\d+|[IVX]+)")


def numbers_differ(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """Two names' numbers are other numbers of one kind: not a year against an edition or a year written short
    ("Tour de France 2019", "106th Tour de France"; "Mundial 82", "1982 FIFA World Cup"; "SV Darmstadt 98",
    "Darmstadt 1898")."""
    year = [len(n) == 4 and n[:2] in ("19", "20") for n in (*x, *y)]
    one = len(x) == len(y) == 1 and (year[0] != year[1] or {len(x[0]), len(y[0])} == {2, 4} and x[0][-2:] == y[0][-2:])
    return bool(x and y and x != y) and not one


def numbered_capitals(form: NameForm) -> bool:
    """Written in capitals ending in a number ("WWII", "WW2")."""
    return bool(_CAPITALS_NUMBER.fullmatch(form.surface.strip()))


def numbered_initials(form: NameForm) -> frozenset[str]:
    """The initials of a name of three words or more whose last is a number, with that number written whole, as
    written and as digits ("wwii", "ww2" of "World War II"); empty for other names."""
    ws, numbered = form.key.split(), form.numbered.split()
    if len(ws) < 3 or not numbered or not numbered[-1].isdigit():
        return frozenset()
    initials = "".join(w[0] for w in ws[:-1] if w not in ARTICLES)
    return frozenset({initials + ws[-1], initials + numbered[-1]})


def numbered_acronym(x: NameForm, y: NameForm) -> bool:
    """``x`` is written in capitals, the initials of ``y``'s words and then ``y``'s last word, a number, whole
    ("WWII" or "WW2" of "World War II", not of "World War I")."""
    return numbered_capitals(x) and x.compact in numbered_initials(y)


def club_key(form: NameForm) -> str:
    """A club's abbreviation and name ("sl|benfica" of "SL Benfica"), as `spelled_club_key` spells it out."""
    return f"{form.club.replace(' ', '')}|{form.team}"


def lead_initials(words: list[str]) -> str:
    """The initials of ``words``, joining words left out ("Sport Lisboa e": "sl"), a club's compound word giving
    two ("Fotbollförening": "ff")."""
    return "".join(CLUB_COMPOUNDS.get(w) or w[0] for w in words if w not in JOINING)


def spelled_club_key(form: NameForm) -> str:
    """The initials of a name's words before its last, and its last ("sl|benfica" of "Sport Lisboa e Benfica");
    "" for a name of fewer than three words."""
    ws = form.key.split()
    return f"{lead_initials(ws[:-1])}|{ws[-1]}" if len(ws) >= 3 else ""


def acronym_keys(p: Profile) -> set[str]:
    """The acronyms and club abbreviations ``p``'s names are written as, which other names' initials may spell
    out ("NATO"; "sl|benfica" of "SL Benfica")."""
    return {f.acronym or f.compact for f in p.forms if f.acronym or numbered_capitals(f)} | {
        club_key(f) for f in p.forms if f.team} | {k for f in p.forms if (k := headed_key(f))}


def headed_key(form: NameForm) -> str:
    """"ha:" and the first letter and last word of a name led by an acronym ("ha:p|orlen" of "PKN Orlen"), or "hz:"
    and the first word and the acronym's first letter of one ending in it ("hz:sporting|c" of "Sporting CP"),
    which the name it abbreviates has too; "" for other names."""
    words = form.surface.split()
    if len(words) < 2:
        return ""
    for at in (0, -1):
        letters = words[at].replace(".", "")
        if 2 <= len(letters) <= LONGEST and letters.isupper() and letters.isalpha():
            ks = form.key.split()
            if len(ks) < 2:
                return ""
            return f"ha:{ks[0][0]}|{ks[-1]}" if at == 0 else f"hz:{ks[0]}|{ks[-1][0]}"
    return ""


@lru_cache(maxsize=4096)
def _club_typed(types: frozenset[str]) -> bool:
    return bool(types & CLUB_TYPES) or says_sport(w for t in types for w in t.replace("_", " ").split())


def block_keys(p: Profile, corpus: Corpus, acronyms: set[str], rare_below: int = 0) -> set[str]:
    """The block keys of one node; ``rare_below`` > 0 adds the broad keys (rare words, owners) that find
    the pairs only the LLM can decide."""
    keys = {"k:" + k for k in aliases_of_profile(p)}  # "Volkswagen AG, also known as VW" meets "VW"
    for f in p.forms:
        keys.update(("k:" + f.key, "c:" + f.compact, "s:" + f.singular, "q:" + f.core, "k:" + f.numbered,
                     "k:" + saints_written(f.key)))  # "Sault Ste. Marie" meets "Sault Sainte Marie"
        if f.umlauts:  # "Müller" meets "Mueller"
            keys.add("c:" + f.umlauts)
        if stem := site_stem(f):  # "zillow.com" meets "Zillow", "theguardian.com" "The Guardian", "airbnb.com" "Airbnb, Inc."
            keys.add("c:" + stem)
        elif (rest := country_suffix(f.key)[0]) and not p.personal:  # "Jumia Nigeria" meets "jumia.com.ng"
            keys.add("c:" + rest.replace(" ", ""))
        keys.update("c:" + w for w in web_spellings(f))
        if f.legal:  # "成都市" (core "成都") meets "成都" (core "成", 都 read as an affix)
            keys.add("q:" + f.key)
        if f.team:  # "AFC Ajax" meets "Ajax", "FC Basel 1893" "FC Basel"
            keys.update(["a:" + club_key(f), *("k:" + k for k in team_readings(f.team))])
        if (spelled := spelled_club_key(f)) in acronyms:  # "Sport Lisboa e Benfica" meets "SL Benfica"
            keys.add("a:" + spelled)
        grouped = without_group_words(f.trade or f.key)
        if grouped:  # "Alibaba Group Holding Limited" meets "Alibaba"
            keys.update(("k:" + grouped, "q:" + grouped))
        if f.key in COUNTRY_NAMES:  # "USA" meets "United States", "PRC" "China"
            keys.add("n:" + COUNTRY_NAMES[f.key])
        elif led := country_led(f.core):  # "U.S. Steel" meets "United States Steel Corporation"
            keys.add("n:" + led)
        if (translation := translation_key(f)) and not p.personal:  # "Banco Central do Brasil" meets "Central Bank"
            keys.add("t:" + translation)
        if f.unprefixed:  # "U.K. Ministry of Defence" meets "Ministry of Defence"
            keys.add("k:" + f.unprefixed)
        keys.update("k:" + k for k in f.spelled)
        if f.key.endswith("es"):  # viruses: the singular rule read "viruse"
            keys.add("s:" + f.key[:-2])
        if f.qualifier:
            keys.add("q:" + f.qualifier)
        # typed a person, or untyped; particles do not count ("Mohammed bin Rashid Al Maktoum")
        if f.person and len([w for w in f.person if w not in PARTICLES]) <= 4 and p.person_compatible:
            keys.update(("p:" + " ".join(f.person), "p:" + " ".join(map(romanized, f.person))))  # "Mahmoud", "Mahmud"
            if rare_below and len(f.person) >= 2:  # "Gaddafi", "Qadhafi": a question for the LLM tier
                keys.add("ph:" + " ".join(map(sounded, f.person)))
            if len(f.person) >= 2:  # "Hillary Rodham" meets "Hillary Clinton": both name the husband, Bill Clinton
                keys.update(f"pm:{f.person[0]} {surname}" for surname in other_surnames(p.description))
            if 2 <= len(f.person) <= 3:  # "Bong Joon-ho" meets "Joon-ho Bong": the same names in another order
                keys.add("po:" + " ".join(sorted(f.person)))
            if len(f.person) == 1:
                keys.add("ws:" + f.person[0])
                if len(f.person[0]) >= 3 and unspaced(f.person[0]):  # "安倍晋三" meets "安倍"
                    keys.update("wm:" + f.person[0][:n] for n in (2, 3) if n < len(f.person[0]))
            else:
                first = initials_first(f)  # "Путин В. В." meets "Владимир Владимирович Путин"
                keys.update(("wm:" + f.person[0], "wm:" + f.person[-1], f"pf:{first[0][0]}|{first[-1]}",
                             *(f"pf:{n[0]}|{first[-1]}" for n in full_forms(first[0]))))  # "Bill", "William"
        elif f.person and p.person_compatible and len(f.person) <= 8:  # "Gabriel José de la Concordia García
            keys.add(f"pf:{f.person[0][0]}|{f.person[-1]}")  # Márquez" meets "Gabriel García Márquez"
        # any two of a name's words in their order, particles and initials aside (not in EXACT): "Mario Vargas"
        # meets "Jorge Mario Pedro Vargas Llosa", "Gustavo Petro" "Gustavo Francisco Petro Urrego", "Phạm Minh
        # Chính" "Ông Phạm Minh Chính" (a title no lexicon holds)
        named = [w for w in f.person if w not in PARTICLES and len(w) > 1] if p.person_compatible else []
        if 2 <= len(named) <= 6:
            keys.update(f"pt:{w} {v}" for i, w in enumerate(named) for v in named[i + 1:])
        if ruled := ruler_name(f):  # "Ludwig XIV." meets "Louis XIV"
            keys.add(ruled)
        if afloat(p) and (ship := designation(f.surface)) is not None:  # "ORP Błyskawica" meets "Błyskawica"
            keys.add("k:" + ship.name)
        if river := river_key(f):  # "Frankfurt (Oder)" meets "Frankfurt an der Oder", and a one-word "Frankfurt"
            keys.update(("w:" + river, "tm:" + river.partition("|")[0]))
        if len(kws := f.key.split()) > 1 and kws[0] in LEADING:  # "De Telegraaf" meets "Telegraaf"
            keys.add("k:" + " ".join(kws[1:]))
        if not p.personal and any(c.isdigit() for c in f.key):  # a maker before a model: "Boeing 737 MAX" meets
            keys.update("m:" + " ".join(kws[i:]) for i in range(min(2, len(kws))))  # "737 MAX"
        elif len(kws) == 2 and made(p):  # "Dacia Duster" against a one-word "Duster" only
            keys.add("tm:" + kws[1])
        if len(kws) == 2 and p.types & CLUB_TYPES:  # "PSV Eindhoven" against a one-word "PSV" only
            keys.add("tm:" + kws[0])
        if f.team and " " in f.team:  # "FC Bayern München" meets "FC Bayern"
            head = f.team.rsplit(" ", 1)[0]
            keys.add("k:" + head)
            if " " in head and head.rsplit(" ", 1)[1] in CITY_JOINERS:  # "RCD Espanyol de Barcelona", "Espanyol"
                keys.add("k:" + head.rsplit(" ", 1)[0])
        elif len(kws) > 1 and kws[-1] in PLACED and _club_typed(p.types) and countries_placing(kws[-1]):
            keys.add("k:" + " ".join(kws[:-1]))  # "Ajax Amsterdam" meets "AFC Ajax"
        if len(kws) == 1 and not p.personal:
            keys.add("ts:" + kws[0])
            if "organization" in kinds(p.types):  # a company's one word meets the words of legal names: "Vestas",
                keys.add("ls:" + kws[0])  # "Vestas Wind Systems A/S" (not a place's, a concept's: "Steel")
        elif f.legal and not p.personal and 2 <= len(core := _content_words(f.core)) <= 4:
            keys.update("lm:" + w for w in core)
        if len(kws) > 1 and (led := f"ha:{kws[0][0]}|{kws[-1]}") in acronyms:  # "Polski Koncern Naftowy Orlen"
            keys.add(led)  # meets "PKN Orlen"
        keys.update(led for w in kws[1:] if (led := f"hz:{kws[0]}|{w[0]}") in acronyms)  # "Sporting Clube de
        # Portugal" meets "Sporting CP", "Red Bull New York" "Red Bull NY"
        if headed := headed_key(f):
            keys.add(headed)
        if f.acronym:  # "ÖBB" meets "Österreichische Bundesbahnen" ("ob") and "PDVSA" "Petróleos de Venezuela"
            keys.add("a:" + f.acronym)
            if len(f.acronym) >= 3:  # as `acronyms.acronym_verdict` reads them
                keys.update("as:" + i for i in initials_within(f.acronym))
        elif not p.personal and 2 <= len(spelled := content_initials(f)) <= LONGEST + 1:
            keys.update("am:" + i for i in left_out(spelled))
        if not p.personal:  # "Pemex" meets "Petróleos Mexicanos"
            keys.update(syllable_keys(f))
        if numbered_capitals(f):  # "WW2" meets "World War II"
            keys.add("a:" + f.compact)
        keys.update("a:" + i for i in numbered_initials(f) if i in acronyms)
        keys.update("a:" + i for i in (f.initials, f.short_initials) if i and i in acronyms)
        if f.head:
            owner = read_name(f.owner)
            keys.add("h:" + f.head + "|" + (owner.person[-1] if owner.person else owner.key))
            if rare_below:
                keys.add("o:" + owner.key)
        if rare_below:
            keys.update("r:" + w for w in words_of(f) if corpus.df.get(w, 0) < rare_below and len(w) > 2)
    return keys


def _content_words(key: str) -> list[str]:
    """The words of a name that can stand for it alone: not articles, joining words or numbers."""
    return [w for w in key.split() if len(w) > 2 and w not in ARTICLES and w not in JOINING and not w.isdigit()]


def minhash_bands(texts: Sequence[str], seed: int = 7) -> np.ndarray:
    """(len(texts), bands) band hashes of the character-trigram MinHash of each text."""
    n_hash = _BANDS * _ROWS
    rng = np.random.default_rng(seed)
    a = rng.integers(1, _PRIME, size=n_hash, dtype=np.int64)
    b = rng.integers(0, _PRIME, size=n_hash, dtype=np.int64)
    out = np.zeros((len(texts), _BANDS), dtype=np.int64)
    step = 20000
    for start in range(0, len(texts), step):
        part = texts[start:start + step]
        grams = [[zlib.crc32(t[i:i + 3].encode()) for i in range(max(1, len(t) - 2))] for t in (f" {x} " for x in part)]
        lengths = np.fromiter((len(g) for g in grams), dtype=np.int64, count=len(grams))
        flat = np.fromiter((h for g in grams for h in g), dtype=np.int64, count=int(lengths.sum()))
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        hashed = (a[:, None] * flat[None, :] + b[:, None]) % _PRIME  # (n_hash, total grams)
        mins = np.minimum.reduceat(hashed, starts, axis=1).T  # (texts, n_hash)
        bands = mins.reshape(len(part), _BANDS, _ROWS)
        out[start:start + len(part)] = (bands * np.array([1, 1_000_003, 998_244_353])[:_ROWS]).sum(axis=2)
    return out


def rare_threshold(documents: int) -> int:
    """Words in fewer descriptions than this are rare (broad blocking)."""
    return max(20, int(0.01 * documents))


def minhash_text(p: Profile) -> str:
    """What the MinHash bands of a node are made of: its shortest name, spaces removed."""
    return min((f.compact for f in p.forms), key=len)


def candidate_pairs(profiles: Sequence[Profile], corpus: Corpus, max_block: int = 40,
                    broad: bool = False) -> tuple[list[tuple[int, int]], int]:
    """Distinct (i, j) index pairs (i < j) to compare, and how many blocks were too large to use. ``broad``
    adds rare shared words, shared owners and MinHash bands: pairs no rule merges, for the LLM tier."""
    acronyms = set().union(*map(acronym_keys, profiles))
    rare_below = rare_threshold(corpus.documents) if broad else 0
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(profiles):
        for k in block_keys(p, corpus, acronyms, rare_below):
            blocks[k].append(i)
    if broad and profiles:
        bands = minhash_bands([minhash_text(p) for p in profiles])
        for i, row in enumerate(bands.tolist()):
            for band, h in enumerate(row):
                blocks[f"m{band}:{h}"].append(i)
    pairs, skipped = block_pairs(blocks, max_block)
    return sorted(pairs), skipped


def block_pairs(blocks: Mapping[str, list[Any]], max_block: int) -> tuple[set[tuple[Any, Any]], int]:
    """The pairs (smaller first) the blocks give, and how many were too large to use. Members are listed in
    node order; a one-word name's block is read with the longer names' block of its word (`ONE_AGAINST_MANY`)."""
    pairs: set[tuple[Any, Any]] = set()
    skipped = 0
    for k, members in blocks.items():
        if k.startswith(tuple(ONE_AGAINST_MANY.values())):
            continue
        if k[:3] in ONE_AGAINST_MANY:  # a one-word name against the longer names starting or ending with it
            longer = blocks.get(ONE_AGAINST_MANY[k[:3]] + k[3:], [])
            # past a handful of longer names a one word has many readings: it could merge with none; an
            # acronym's letters are read against each name by the rule, so twice as many may be read
            most = max_block // 2 if k.startswith("as:") else max_block // 4
            if len(longer) > most or len(members) * len(longer) > max_block * max_block:
                skipped += 1
            else:
                pairs.update((min(i, j), max(i, j)) for i in members for j in longer if i != j)
            if k.startswith("as:"):  # different acronyms of one initial run ("UNESCO", "UNICEF")
                continue
        if len(members) < 2:
            continue
        if len(members) > max_block:
            if k.startswith(EXACT):
                first = members[0]
                pairs.update((min(first, j), max(first, j)) for j in members[1:])
            else:
                skipped += 1
            continue
        pairs.update(all_pairs(members))
    return pairs, skipped


def vector_pairs(vectors: np.ndarray, max_block: int = 40, threshold: float = CLOSE_COSINE,
                 seed: int = 11) -> list[tuple[int, int, float]]:
    """(i, j, cosine) of rows of ``vectors`` at least ``threshold`` alike: random-hyperplane bands find the
    candidates (no all-pairs product), the exact cosine keeps the close ones."""
    if len(vectors) < 2:
        return []
    unit, codes = hyperplane_codes(vectors, seed)
    found: set[tuple[int, int]] = set()
    for band in range(codes.shape[1]):
        groups: dict[int, list[int]] = defaultdict(list)
        for i, code in enumerate(codes[:, band].tolist()):
            groups[code].append(i)
        for members in groups.values():
            if 2 <= len(members) <= max_block:
                found.update(all_pairs(members))
    out = []
    for i, j in sorted(found):
        cosine = float(unit[i] @ unit[j])
        if cosine >= threshold:
            out.append((i, j, cosine))
    return out


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """The rows of ``vectors`` made unit length (a zero row stays zero)."""
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def hyperplane_codes(vectors: np.ndarray, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``vectors`` made unit length, and their (rows, 10) random-hyperplane band codes: rows
    sharing a band's code are candidates. Row by row: the same for a row alone or among others."""
    unit = unit_rows(vectors)
    bands, bits = 10, 10
    planes = np.random.default_rng(seed).standard_normal((bands * bits, unit.shape[1]))
    signs = (unit @ planes.T > 0).reshape(len(unit), bands, bits)
    return unit, (signs * (1 << np.arange(bits))).sum(axis=2)


def all_pairs(members: list[Any]) -> Iterable[tuple[Any, Any]]:
    for x in range(len(members)):
        for y in range(x + 1, len(members)):
            i, j = members[x], members[y]
            yield (i, j) if i < j else (j, i)
