"""What the rules conclude of two organizations' names: a web domain and a name, a club with and without its
abbreviation, a company with and without its legal form (`evidence.Evidence` asks these before the general
rules; each answers None where it has nothing to say)."""

from __future__ import annotations

import re
from typing import Protocol

import attrs

from ..blocking import lead_initials, site_stem, web_spellings
from ..lexicon import (AFFIX_LEVELS, CITY_JOINERS, CLUB_CERTAIN, COUNTRIES, COUNTRY_OF, HUNGARIAN_CLUBS,
                       LEGAL_FORM_COUNTRIES, PLACE_LEVELS, TLD_COUNTRIES)
from ..names import NameForm, key_of
from ..profiles import PLACE_TYPES, SHORT_DESCRIPTION, UNTYPED, Profile, both_places, defined_apart, types_conflict
from ..variants.acronyms import headed
from ..variants.callings import sports_of
from ..variants.countries import described_in, placed_apart
from ..variants.definitions import english, said_apart
from ..variants.makers import made
from ..variants.places import adjective_of
from ..variants.placing import (UNIONS, countries_named, countries_placing, country_suffix, names_place, text_words,
                               unplaced_words)
from ..verdicts import SAME, UNSURE, Verdict, doubtful
from .written import (place_adjective_stem, rare_word, says_sport, without_arabic_article, without_founding_year,
                      without_group_words)


class Judge(Protocol):
    """What the organization rules read of `evidence.Evidence`."""

    def context(self, a: Profile, b: Profile) -> float: ...

    def spelled_alike(self, a: Profile, b: Profile, letters: str) -> bool | None: ...

    def short_form(self, a: Profile, b: Profile, same: Verdict, short: int = 0) -> Verdict: ...

    def disagree(self, a: Profile, b: Profile, short: int = 0, across: bool = False) -> bool: ...


def domain_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "zillow.com" and "Zillow", "theguardian.com" and "The Guardian"; not "booking.com" and "Booking
    Holdings", nor "zalando.de" and "zalando.fr" (one name, other sites: doubt). Only one site is certain: a
    name is a common word as often as a brand ("Match", "Monster", "Shell"), so a domain and a name of another
    type, or of another country than the domain's, are doubt, and descriptions of some length that disagree
    make the pair a question (unless a rare name is described in two languages, which share no word whatever
    they say); a short name ("GE", "BBC") must be described alike (`Evidence.spelled_alike`) or named in the
    other's description."""
    if fa.site and fb.site:
        if fa.site == fb.site:
            return Verdict(SAME, 0.95, "same web domain", certain=True)
        return doubtful(0.5, "one name, other web domains") if fa.stem and fa.stem == fb.stem else None
    x, y, px, py = (fa, fb, a, b) if fa.site else (fb, fa, b, a)
    country = TLD_COUNTRIES.get(x.site.rsplit(".", 1)[-1], "")
    rest, named_country = country_suffix(y.key)  # "Jumia Nigeria" of "jumia.com.ng"
    stem = site_stem(x)  # "economictimes" of "economictimes.indiatimes.com" too, for a name of two words or more
    with_country = bool(country) and named_country == country and rest.replace(" ", "") == stem
    if not stem or not (stem in web_spellings(y) or with_country) or not x.stem and len(y.key.split()) < 2:
        return None
    if stem not in web_spellings(y, papers=False) and not with_country and not names_other(px, y):
        return doubtful(0.4, "a paper's name without its kind, and a site that does not name the paper")
    if py.personal or py.types & PLACE_TYPES:
        return doubtful(0.4, "a web domain and a person or place of its name")
    if types_conflict(a, b):
        return doubtful(0.4, "a web domain and a namesake of another type")
    named = (countries_named(py.description) | described_in(py)) - UNIONS if country else set()  # "Diario peruano"
    if named and country not in named:
        return doubtful(0.4, "a country's web domain, and a namesake of another country")
    if len(stem) <= 3 and not (ev.spelled_alike(a, b, stem) or names_other(px, y) or names_other(py, x)):
        return doubtful(0.4, "a short name and its web domain, not described alike")
    if with_country:  # "Gazeta Polska", a weekly, and "gazeta.pl", a portal: a word in common besides where
        shared = {w for w in unplaced_words(a.description) if len(w) > 3} & set(unplaced_words(b.description))
        return Verdict(SAME, 0.9, "a country's web domain and the name with that country") if shared else \
            doubtful(0.5, "a country's web domain and the name with that country, described with nothing in common")
    # certain: a site is described by its owner ("the website of Linear"), which is no relative
    same = Verdict(SAME, 0.9, "a name and its web domain", certain=True)
    # two languages share no word, however alike they are, and "Bengaluru-based" none with "Indian": a rare name
    # tells, so described in two languages or placed in one country by both
    if not (rare_word(stem) and (english(a.description) != english(b.description) or
                                   (described_in(a) & described_in(b)) - UNIONS)):
        same = ev.short_form(a, b, same, SHORT_DESCRIPTION)
    # one site, two things defined apart: two owners of one name ("kiva.org", Kiva), unless said plainly the other's
    if same.kind == SAME and (defined_apart(a, b) or said_apart(a, b)) and not _owned_plainly(px.description,
                                                                                             y.surface):
        return attrs.evolve(doubtful(0.4, "a name and its web domain, defined as two different things"), certain=True)
    apart = placed_apart(described_in(a), described_in(b))  # "La Nación" of Buenos Aires, "nacion.com" of San José
    return attrs.evolve(doubtful(0.4, "a name and its web domain, described in two countries"), certain=True) \
        if same.kind == SAME and apart else same


def _owned_plainly(description: str, owner: str) -> bool:
    """The site's description names ``owner`` with nothing after it that says which ("the site of Mercado Libre.",
    "das Portal der Bild-Zeitung"; not "of Delta Air Lines" nor "of Mercury, a San Francisco fintech")."""
    owner = " ".join(owner.split())
    plain = rf"(?<![\w.]){re.escape(owner)}(?:\.(?!\w)|[;)\-]|\s*$)"
    return bool(owner) and re.search(plain, description, re.I) is not None


def names_other(p: Profile, other: NameForm) -> bool:
    """``p``'s description names ``other`` (its surface or its web site), as a word of its own."""
    text = p.description.casefold()
    return any(re.search(rf"(?<![\w.]){re.escape(n.casefold())}(?![\w]|\.\w)", text)
               for n in {other.surface.strip(), other.site} if n)


def club_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "AFC Ajax" and "Ajax", "1. FC Köln" and "FC Köln"; not "FC Barcelona" and "Barcelona SC", nor "FC
    Porto" and the city of Porto."""
    if a.personal or b.personal:  # "ks." of "ks. Jan Twardowski" is a priest's title, not Polish "KS" (a club)
        return None
    if not (fa.club and fb.club and fa.club != fb.club) and (city := _its_city(a, b, fa, fb)):
        return Verdict(SAME, 0.85, f"a club with and without its city ({city})")  # "PSV Eindhoven", "AFC Ajax"
    if fa.club and fb.club:
        if fa.club == fb.club and _founded(fa.team, fb.team) and sporting(a) and sporting(b):
            return Verdict(SAME, 0.9, FOUNDED)  # "FC Basel 1893", "FC Basel"
        if fa.team == fb.team and fa.club != fb.club:
            return doubtful(0.5, "different club abbreviations (another club, another sport?)")
        if fa.team == fb.team and fa.key != fb.key and _ordinal(fa) == _ordinal(fb):
            if _club_like(a) and _club_like(b) and sporting(a) and sporting(b):  # both said to be clubs
                return Verdict(SAME, 0.9, "same club abbreviation written another way")  # "Fenerbahçe SK", "... Spor Kulübü"
            if fa.compact != fb.compact:  # "SC Johnson" and "Sport Club Johnson" (not "S.C. Johnson")
                return doubtful(0.4, "a club's abbreviation spelled out, but neither is said to be a club")
        return None
    x, y = (fa, fb) if fa.club else (fb, fa)
    if x.club and _spelled_club(x, y):  # "SL Benfica", "Sport Lisboa e Benfica"
        if _club_like(a) and _club_like(b) and (sporting(a) or sporting(b)):  # not a motorists' "Automobile Club"
            return ev.short_form(a, b, Verdict(SAME, 0.9, "same club abbreviation written another way"),
                                 SHORT_DESCRIPTION)
        return doubtful(0.4, "a club's abbreviation spelled out, but neither is said to be a club")
    # a year in the name tells one club of a city from another ("SC Union 06 Berlin", "Hertha 03"): no rule here
    article = x.team != y.key and without_arabic_article(x.team) == without_arabic_article(y.key)  # "Al-Ahly SC"
    adjective = x.team != y.key and place_adjective_stem(x.team) == y.key and \
        bool(set(x.club.split()) & HUNGARIAN_CLUBS)  # "Ferencvárosi TC", "Ferencváros"; not "FC Metalurgi"
    if not x.club or x.team != y.key and not article and not adjective:
        return None
    if not (_club_like(a) and _club_like(b)):
        return doubtful(0.4, "a club and a namesake of another kind")
    if not (set(x.club.split()) & CLUB_CERTAIN or sporting(a) or sporting(b)):  # "SC Johnson", "Johnson"
        return Verdict(UNSURE, 0.5, "with and without a club's abbreviation, but neither is said to be a club")
    if article and not described_in(a) & described_in(b):  # "Al-Hilal SFC" of Riyadh, "Hilal" of Omdurman
        return doubtful(0.5, "a club with and without the Arabic article, not placed in one country")
    if adjective and not (sporting(a) and sporting(b)):  # "Debreceni VSC", and "Debrecen" a club of the city?
        return doubtful(0.5, "a club named by its place's adjective, and the place's name not said to be a club")
    return Verdict(SAME, 0.9, "with and without its club's abbreviation")


def _its_city(a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> str:
    """The place one club's name has after the other's, its club abbreviation aside ("eindhoven" of "PSV
    Eindhoven" and "PSV", "amsterdam" of "Ajax Amsterdam" and "AFC Ajax"), a city the tables know, where both
    are said to be clubs and the shorter's description names that place (or its adjective: "Amsterdamse",
    "Wiener") or places it in the place's country ("a Dutch football club"); or the one city written in two
    languages after one name ("Bayern München", "Bayern Munich"; "AEK Athen", "AEK Athens"). "" otherwise
    ("Dynamo", a Ukrainian club, is not "Dynamo Moscow"; "Racing" is not "Racing Club"; "Dinamo Zagreb" is not
    "Dinamo Split")."""
    (short, ps), (long, _) = sorted(((fa.team or fa.key, a), (fb.team or fb.key, b)), key=lambda t: len(t[0]))
    ws, ss = long.split(), short.split()
    if ws == ss:  # "KP Legia Warszawa", "Legia Warszawa": one name, a club abbreviation on one side
        return ""
    if len(ws) >= 3 and ws[-2] in CITY_JOINERS and ws[-1] not in COUNTRY_OF:  # "Espanyol de Barcelona"; not
        ws = ws[:-2] + ws[-1:]  # "Universidad de Chile", a country
    if len(ws) < 2 or not (ws[:-1] == ss or len(ss) == len(ws) and ss[:-1] == ws[:-1]):  # the name's shape first
        return ""
    if not (sporting(a) and sporting(b) and _club_like(a) and _club_like(b)):
        return ""
    city = ws[-1]
    placed = countries_placing(city)  # a place the tables know ("Racing Club": "club" is none)
    if not placed:
        return ""
    if ws[:-1] == ss:  # its country is enough only where both or neither have a club abbreviation ("FK Austria",
        alike = (fa.club == fb.club) and placed & described_in(ps)  # a Viennese club, is no "Austria Salzburg")
        return city if names_place(ps.description, city) or alike else ""
    other = ss[-1]  # the names' shape above: one word each after the same words
    one_city = other[:3] == city[:3] and countries_placing(other) == placed and not _country_words(other, city)
    return f"{other} / {city}" if one_city else ""  # "munchen", "munich"


def _country_words(x: str, y: str) -> bool:
    """Either is a country's name or one is the other's adjective ("italia", "italiano"; "brasil"; "paris",
    "parisien": more than a letter after it)."""
    (short, long) = sorted((x, y), key=len)
    return bool({x, y} & (COUNTRY_OF.keys() | COUNTRIES.keys())) or adjective_of(x, y) or adjective_of(y, x) or \
        long.startswith(short) and len(long) - len(short) > 1


FOUNDED = "a club with and without its founding year"


def _founded(team: str, other: str) -> bool:
    """One club's name is the other's and a year after it ("basel 1893", "basel")."""
    return team != other and (without_founding_year(team) == other or without_founding_year(other) == team)


def _spelled_club(x: NameForm, y: NameForm) -> bool:
    """``y`` spells out ``x``'s club abbreviation: the initials of its words before or after the club's own name
    ("Sport Lisboa e Benfica" of "SL Benfica", "Malmö Fotbollförening" of "Malmö FF")."""
    ws, team, n = y.key.split(), x.team.split(), len(x.team.split())
    if not team or len(ws) <= n:
        return False
    spelled = ws[:-n] if ws[-n:] == team else ws[n:] if ws[:n] == team else []
    initials = lead_initials(spelled) if spelled else ""
    return len(initials) >= 2 and initials == x.club.replace(" ", "")


def _ordinal(f: NameForm) -> str:
    """The ordinal a club's name opens with ("1" of "1. FC Köln"), or ""."""
    first = f.key.split(maxsplit=1)[0] if f.key else ""
    return first if first.isdigit() else ""


_PUBLICATIONS = frozenset({"newspaper", "magazine", "publication", "journal", "periodical"})
_BANDS = frozenset({"band", "musical group", "music group", "rock band", "pop group", "orchestra"})


def _band(p: Profile) -> bool:
    return bool(p.types & _BANDS)


def headed_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """Same for a name some of whose words one of the two writes as their acronym, the other words the same
    (`acronyms.headed`: "PKN Orlen", "Sporting CP"), unless the descriptions disagree (two languages cannot) or
    set the two apart: other countries ("ABC News", American and Australian), a club and no club ("TV Berlin", a
    station; "Turnverein Berlin"), a publisher and a publication; a place's initials stand for the place the
    acronym's own description names ("SF Opera": San Francisco, not Santa Fe); None where the names are not so."""
    spelled, short, long = headed(fa, fb), a, fb
    if not spelled:
        spelled, short, long = headed(fb, fa), b, fa
    if not spelled:
        return None
    if clash or a.personal or b.personal or types_conflict(a, b) and not (made(a) and made(b)):
        return None  # a car and a "product" are one kind
    sa, sb = (sports_of(f"{' '.join(sorted(p.written_types))} {p.description}") for p in (a, b))
    if sporting(a) != sporting(b) or sa and sb and not sa & sb or \
            (ca := described_in(a)) and (cb := described_in(b)) and not ca & cb or \
            bool(a.types & _PUBLICATIONS) != bool(b.types & _PUBLICATIONS):  # "DC Comics", "Detective Comics"
        return doubtful(0.5, "some words as their acronym, but set apart by country or kind")
    phrase = " ".join(spelled)  # a place's name whole: "san francisco", "santa fe" (leading), "andhra pradesh"
    place = countries_placing(phrase) and not unplaced_words(phrase) or spelled[-1] in _PLACE_ENDS or \
        spelled[0] in _PLACE_STARTS and long.key.startswith(phrase)
    if place and f" {phrase} " not in f" {key_of(short.description)} ":  # not "prince george's county"
        return doubtful(0.5, "a place's initials, the place not named")  # "AP": Andhra or Arunachal Pradesh
    return ev.short_form(a, b, Verdict(SAME, 0.8, "its leading words as their acronym"), SHORT_DESCRIPTION)


# the first words of place names ("Santa Fe", "New York", "Los Angeles", "São Paulo"), whose initials name many
_PLACE_STARTS = frozenset("san santa santo sao saint st new los las el la port fort mount lake north south east "
                          "west upper lower prince".split())
_PLACE_ENDS = frozenset("county beach city valley springs park island islands bay falls heights hills harbor harbour "
                        "creek field district parish".split())  # "Orange County", "Long Beach"


def _trade_is(x: NameForm, other: NameForm) -> bool:
    """``x``'s name without its legal form is ``other``'s, possessed or not, or its initials written together
    ("J.P. Morgan Chase & Co.", "JPMorgan Chase"; not "Life Time, Inc." and "Lifetime", nor "E.ON SE", "Eon")."""
    initials = sum(len(w) == 1 for w in x.trade.split()) >= 2
    spaced = initials and x.trade.replace(" ", "") == other.compact
    return x.trade in (other.key, _unpossessed(x, other.key)) or spaced


def _one_company(a: Profile, b: Profile, la: str, lb: str) -> str:
    """Why two legal forms of one name are one company's ("" when nothing says so): both described in one
    country and no other, neither as a parent, a holding or a unit, and the English word for a company, with
    its country's form after it on one side ("Zoho Corporation Pvt Ltd", "Zoho Corporation") or a listed
    company's form of that country on the other ("Kone Oyj", "KONE Corporation"; not "Siemens AG" and "Siemens
    Corporation", its American subsidiary, nor "Müller GmbH" and "Müller GmbH & Co. KG")."""
    where = described_in(a)
    if where != described_in(b) or any(_PARENT_OR_UNIT.search(p.description) for p in (a, b)):
        return ""  # "Bosch Corporation", the German group's Japanese unit; "Sony Corporation", a subsidiary
    short, long = sorted((la.split(), lb.split()), key=len)
    if where and " ".join(short) in _ENGLISH_FORMS and long[:len(short)] == short:
        return "one legal form more, both described in one country"
    for x, y in ((la, lb), (lb, la)):
        if x in _ENGLISH_FORMS and where & LEGAL_FORM_COUNTRIES.get(y, frozenset()):
            return "its country's legal form and the English word for it, both described there"
    return ""


_ENGLISH_FORMS = frozenset({"corporation", "company"})
# what every company of a country writes, or its state-owned ones: no other company ("PT Telkom Indonesia (Persero)
# Tbk", "Telkom Indonesia Tbk")
_MARKS = frozenset({"pt", "persero"})
_PARENT_OR_UNIT = re.compile(r"\b(?:subsidiar\w*|unit|arm|division|affiliate\w*|branch|holding|parent|"
                             r"tochter\w*|mutter\w*|filiale?|dochter\w*|datter\w*|dotter\w*|dochern\w*|"
                             r"дочерн\w*)\b|子会社|子公司|持株会社|控股", re.I)


def legal_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "Siemens AG" and "Siemens", "トヨタ自動車株式会社" and "トヨタ自動車"; "Microsoft Corp." and "Microsoft
    Corporation"; a place with and without its administrative affix ("上海市" and "上海", "город Казань" and
    "Казань"); not "Siemens AG" and "Siemens Ltd." (a subsidiary), nor a company and a person or place of its
    name. A stem of one letter ("京" of "京都") is no name to be sure of, and a place's affix must not come with
    descriptions that disagree."""
    if not (fa.legal or fb.legal):
        return None
    if fa.legal and fb.legal and fa.trade == fb.trade:
        if set(fa.legal.split()) - _MARKS == set(fb.legal.split()) - _MARKS:
            return Verdict(SAME, 0.95, f"same {_designator(fa)} written another way")
        if not fa.legal.startswith("place") and (why := _one_company(a, b, fa.legal, fb.legal)):
            return Verdict(SAME, 0.85, why)
        return doubtful(0.5, "different administrative affixes (another place of one name?)"
                        if fa.legal.startswith("place") else "different legal forms (a subsidiary?)")
    if fb.legal and _trade_is(fb, fa):  # "Moody's Corporation", "Moody's"
        x = fb
    elif fa.legal and _trade_is(fa, fb):
        x = fa
    else:
        return None
    place = x.legal.startswith("place")
    if types_conflict(a, b):
        return doubtful(0.4, f"a {'place' if place else 'company'} and a namesake of another type")
    if len(x.trade.replace(" ", "")) <= 1:
        return Verdict(UNSURE, 0.5, "with and without a designator, but the name left is one letter")
    if bool(a.types & _PUBLICATIONS) != bool(b.types & _PUBLICATIONS):  # "Der Spiegel"; "Spiegel Inc.", a retailer
        return doubtful(0.5, "a publication and a company of its name (its publisher, or a namesake?)")
    if place and not both_places(a, b):  # "Comune di Napoli" and the football club, "Stadt Wien" a ship
        return doubtful(0.5, "a place's administrative word, and a namesake not said to be a place")
    if place:
        return _affix_verdict(ev, a, b, x, a if x is fb else b)
    return Verdict(SAME, 0.9, "with and without its legal form")


def _unpossessed(legal: NameForm, key: str) -> str:
    """``key`` without the possessive ``legal``'s trade name dropped ("moody's" against "Moody's Corporation";
    not against "McDonald Corporation", which has none)."""
    return re.sub(r"['’]s$", "", key) if re.search(r"['’]s\b", legal.surface) else key


def group_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "Alibaba Group Holding Limited" and "Alibaba", "ソニーグループ株式会社" and "ソニー", "Grupo Bimbo" and
    "Bimbo": a brand names its group. Not the bare name with a legal form ("Sony Group" and "Sony Corporation": a
    parent and a subsidiary may be meant), nor a group whose description names the other apart from its own name
    ("Heineken Holding N.V. is the controlling shareholder of Heineken N.V."), nor a namesake of another type."""
    ga, gb = (without_group_words(f.trade or f.key) for f in (fa, fb))
    if ga and gb:
        return doubtful(0.5, "one name, other group words (a holding and its group?)") if ga == gb and \
            (fa.trade or fa.key) != (fb.trade or fb.key) else None
    x, y, px, py = (fa, fb, a, b) if ga else (fb, fa, b, a)
    if not (ga or gb) or (ga or gb) != (y.trade or y.key):
        return None
    if y.legal:  # "Sony Group Corporation" or "Sony Group", and "Sony Corporation": a subsidiary may be meant
        return doubtful(0.5, "a group and a company of its name with a legal form (a parent and a subsidiary?)")
    if clash or py.personal or types_conflict(a, b) or py.types & PLACE_TYPES or _band(a) != _band(b) or \
            sporting(a) != sporting(b):  # "Smiths Group", "The Smiths" (a band); "Benetton" (an F1 team)
        return doubtful(0.4, "a group and a namesake of another type")
    own = px.description.replace(x.surface.strip(), " ")
    # CJK writes no spaces: there the other's name anywhere in the rest of the description counts
    if names_other(attrs.evolve(px, description=own), y) or (not y.surface.isascii() and y.surface.strip() in own):
        return doubtful(0.5, "a group described with the other as another company")
    if (pa := described_in(a) - UNIONS) and (pb := described_in(b) - UNIONS) and not pa & pb:  # "Shoprite
        return doubtful(0.5, "a group and a namesake described in another country")  # Holdings", "ShopRite"
    if ev.disagree(a, b, SHORT_DESCRIPTION):
        return Verdict(UNSURE, 0.5, "with and without a group word, but the descriptions disagree")
    return Verdict(SAME, 0.85, "with and without a group word")


def _designator(form: NameForm) -> str:
    return "administrative affix" if form.legal.startswith("place") else "legal form"


def _affix_verdict(ev: Judge, a: Profile, b: Profile, x: NameForm, bare: Profile) -> Verdict:
    """A place with and without its administrative affix: one name may be a city's and a province's ("吉林" and
    "吉林市", "京都" and "京都府"), so the bare name's description must say the affix's level, and no other."""
    level = AFFIX_LEVELS.get(x.legal.removeprefix("place "), "")
    said = levels_said(bare.description)
    if said and level not in said:
        return doubtful(0.4, f"a {'/'.join(sorted(said))} and a {level or 'place'} of one name")
    if ev.disagree(a, b, SHORT_DESCRIPTION):  # an unsegmented CJK sentence is one word: too short to disagree
        return Verdict(UNSURE, 0.5, "with and without its administrative affix, but the descriptions disagree")
    if said != {level}:
        return Verdict(UNSURE, 0.5, "with and without its administrative affix, the bare name's level unsaid")
    return Verdict(SAME, 0.9, "with and without its administrative affix")


_LEVEL_WORDS = sorted(((w, level) for level, ws in PLACE_LEVELS.items() for w in ws), key=lambda p: -len(p[0]))
_LEVELS = re.compile("|".join(f"(?P<l{i}>" + (rf"\b{w}\b" if w[0].isascii() or "\u0400" <= w[0] <= "\u04ff" else w)
                              + ")" for i, (w, _) in enumerate(_LEVEL_WORDS)), re.I)


def levels_said(description: str) -> set[str]:
    """The levels of a place ("city", "province") a description names."""
    return {_LEVEL_WORDS[int(m.lastgroup[1:])][1] for m in _LEVELS.finditer(description)} - {""}


_PLACE_DEFINED = re.compile(r"\b(?:is|was)\s+(?:\w+\s+){0,5}?(?:city|town|village|capital|region|province|state|"
                            r"country|municipality|district|port|county)\b", re.I)
_CLUB_TYPES = frozenset("organization organisation org company team club sports football soccer".split())


def sporting(p: Profile) -> bool:
    """Its type or description says it is a sports club or team (the description's words with the name's own:
    "Club deportivo madrileño" of "Real Madrid Club de Fútbol")."""
    return says_sport(w for t in p.types for w in t.replace("_", " ").split()) or says_sport(p.words) or \
        says_sport(text_words(p.description))


def _club_like(p: Profile) -> bool:
    """A node that may be a club: typed an organization, team or club (or untyped), not described as a place."""
    typed = {w for t in p.types for w in t.replace("_", " ").split()}  # "spor kulübü", "Fußballverein"
    return (p.types <= UNTYPED or bool(typed & _CLUB_TYPES) or says_sport(typed)) and \
        not _PLACE_DEFINED.search(p.description)
