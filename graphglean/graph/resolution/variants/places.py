"""Places with their qualifier and without: one place when the other's description names the qualifier, as its
language inflects it ("Kraków, Polska" and "a city in southern Polsce"; "Trenčín, Slovensko" and "na
Slovensku"), or when the other writes the qualifier into its name ("Frankfurt (Oder)" and "Frankfurt an der
Oder", "Newcastle (Tyne)" and "Newcastle upon Tyne")."""

from __future__ import annotations

from ....text.words import unspaced
from ..lexicon import (COUNTRIES, COUNTRY_OF, COUNTRY_WORDS, PLACE_LEVELS, REGION_COUNTRIES, REGIONS, TLD_COUNTRIES,
                       WORLD_REGION_EXONYMS, WORLD_REGIONS)
from ..names import NameForm, key_of
from ..profiles import Profile, types_conflict
from ..verdicts import SAME, Verdict, doubtful

STEM = 4  # letters a word and its inflected form share, at least
ENDING = 2  # letters of a case ending, at most: "polska" / "polsce", not "austria" / "australia"
# the words between a place and its river or region when written into its name, after key_of
CONNECTORS = frozenset({"an der", "am", "an", "in der", "im", "ob der", "bei", "upon", "on", "on the", "nad", "pod",
                        "na", "sur", "sur la", "sur le", "en", "in", "an dem"})


def inflected(word: str, other: str) -> bool:
    """``other`` is ``word``, or ``word`` with another case ending."""
    if word == other:
        return True
    if len(word) <= STEM:
        return False
    shared = 0
    for x, y in zip(word, other):
        if x != y:
            break
        shared += 1
    return shared >= STEM and len(word) - shared <= ENDING and len(other) - shared <= ENDING


def adjective_of(word: str, other: str) -> bool:
    """``other`` is an adjective made of the name ``word``, its last letter replaced by an adjective's ending
    ("ontario", "ontarienne"; "guyana", "guyanesa"; "malta", "maltese"; not "niger", "nigerian", nor "maine",
    "mainly")."""
    return len(word) > STEM and other.startswith(word[:-1]) and other[len(word) - 1:] in _ADJECTIVE_ENDINGS and \
        other[len(word) - 1] != word[-1]


_ADJECTIVE_ENDINGS = frozenset("""n an ian ean ese esa eso esi ense enses enne en ienne ien iens iennes ano ana anos anas ino
ina eño eña ês ish ic er isch ische ischen ois oise ais aise i ite ský ská ski ska""".split())


def names_qualifier(description: str, qualifier: str, own: str = "") -> bool:
    """``description`` names ``qualifier`` (a key) of a place named ``own``: its words in a row, each perhaps
    with another ending or as an adjective made of it, or without the word of its level ("Красноярский край"
    named "под Красноярском") where that word is no name of the place's own and the description names no
    region of that level; one written without spaces ("東京都") where a phrase of the description begins with
    it, not before the place's own name ("東京都府中市 と同名": a namesake)."""
    wanted, text = qualifier.split(), key_of(description).split()
    if not wanted:
        return False
    if unspaced(qualifier.replace(" ", "")):
        return _unspaced_named(key_of(description), qualifier.replace(" ", ""), own.replace(" ", ""))
    named = [w for w in wanted if w not in _LEVEL_WORDS]
    levels = {level for w in wanted for level in _LEVEL_WORDS.get(w, ())}  # "область": region, "oblast", "край"
    levelled = named and named != wanted and own not in named and not any(
        level in levels for t in text for level in _LEVEL_WORDS.get(t, ()))
    for words in (wanted, named) if levelled else (wanted,):
        for i in range(len(text) - len(words) + 1):
            if all(inflected(w, t) or adjective_of(w, t) for w, t in zip(words, text[i:i + len(words)])):
                return True
    return False


def _unspaced_named(text: str, qualifier: str, own: str) -> bool:
    at = text.find(qualifier)
    while at != -1:
        after = text[at + len(qualifier):]
        if (at == 0 or not unspaced(text[at - 1])) and not (own and after.startswith(own)):
            return True
        at = text.find(qualifier, at + 1)
    return False


_LEVEL_WORDS: dict[str, set[str]] = {}  # a level's word, as keys read it -> its levels
for _level, _words in PLACE_LEVELS.items():
    for _w in filter(None, map(key_of, _words)):
        _LEVEL_WORDS.setdefault(_w, set()).add(_level)


def capitalized(description: str, name: str) -> bool:
    """``description`` writes ``name`` (a key) capitalized, a word for each of its words ("the River Tyne"; not
    "the main border crossing")."""
    words = [key_of(w) for w in description.split() if w[:1].isupper() and "-" not in w]  # not "Haute-Marne"
    return f" {' '.join(name.split())} " in f" {' '.join(words)} "


def written_in(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "Frankfurt (Oder)" and "Frankfurt an der Oder": the qualifier in parentheses written into the name."""
    for x, y, px in ((fa, fb, a), (fb, fa, b)):
        if not (x.paren and x.qualifier and not (y.qualifier and y.paren)):
            continue
        core, tail, ws = x.core.split(), x.qualifier.split(), y.core.split()
        middle = ws[len(core):len(ws) - len(tail)]
        if core and ws[:len(core)] == core and ws[len(ws) - len(tail):] == tail and " ".join(middle) in CONNECTORS:
            if clash or types_conflict(a, b):
                return doubtful(0.5, "a qualifier written into the name, but the types differ")
            if y.qualifier and not names_qualifier(px.description, y.qualifier, x.core):  # "..., Brandenburg"
                return doubtful(0.5, "a place and its river written in, its region not named by the other")
            return Verdict(SAME, 0.9, "a place and its river or region, in parentheses or written in")
    return None


def river_key(form: NameForm) -> str:
    """The place and its qualifier ("frankfurt|oder") of "Frankfurt (Oder)" and of "Frankfurt an der Oder", so
    that blocking brings the two together; "" for a name of neither shape."""
    if form.paren and form.qualifier:
        return f"{form.core}|{form.qualifier}"
    ws = (form.core if form.qualifier else form.key).split()  # "Frankfurt an der Oder, Brandenburg"
    for i in range(1, len(ws) - 1):
        for width in (2, 1):
            if " ".join(ws[i:i + width]) in CONNECTORS and i + width < len(ws):
                return f"{' '.join(ws[:i])}|{' '.join(ws[i + width:])}"
    return ""


def region_of(qualifier: str) -> str:
    """A qualifier's region or country, canonical ("tx": "texas", "u s a": "us"; "costa rica" as descriptions
    name it), else itself unspaced."""
    return REGIONS.get(qualifier) or COUNTRY_OF.get(qualifier) or WORLD_REGION_EXONYMS.get(qualifier) or (
        qualifier if qualifier in WORLD_REGIONS or qualifier in COUNTRIES_DESCRIBED else qualifier.replace(" ", ""))


COUNTRIES_DESCRIBED = frozenset(COUNTRY_WORDS.values())


def region_readings(qualifier: str) -> frozenset[str]:
    """Every region or country a qualifier may name: a two-letter code is also a country's ("Córdoba, AR" is in
    Argentina as often as Arkansas, "Frankfurt, DE" in Germany), and "WA" Western Australia too."""
    readings = {region_of(qualifier), _OTHER_REGIONS.get(qualifier, "")}
    if len(qualifier) == 2 and (country := TLD_COUNTRIES.get(qualifier)):
        readings.add(COUNTRY_OF.get(country, country))
    return frozenset(readings - {""})


# the abbreviations two regions share: one of the table's and Western Australia, or a Brazilian state's code
# ("Londrina, PR", Paraná, not Puerto Rico; "Belém, PA", Pará)
_BRAZILIAN_STATES = dict(pair.split(": ") for pair in """ac: acre, al: alagoas,
ap: amapa, am: amazonas, ba: bahia, ce: ceara, df: distrito federal, es: espirito santo, go: goias, ma: maranhao,
mt: mato grosso, ms: mato grosso do sul, mg: minas gerais, pa: para, pb: paraiba, pr: parana, pe: pernambuco,
pi: piaui, rj: rio de janeiro, rn: rio grande do norte, rs: rio grande do sul, ro: rondonia, rr: roraima,
sc: santa catarina, sp: sao paulo, se: sergipe, to: tocantins""".replace("\n", " ").split(", "))
_OTHER_REGIONS = {"wa": "western australia"} | _BRAZILIAN_STATES


def region_country(qualifier: str) -> str:
    """The country of a region qualifier ("western australia": "australia", "yucatan": "mexico"), else ""."""
    return REGION_COUNTRIES.get(REGIONS.get(qualifier, "")) or WORLD_REGIONS.get(qualifier, "") or (
        "brazil" if qualifier in _BRAZILIAN_STATES.values() else "")


PLACES_NAMED = frozenset(REGIONS.values()) | frozenset(COUNTRIES.values()) | frozenset(WORLD_REGIONS) | \
    COUNTRIES_DESCRIBED
