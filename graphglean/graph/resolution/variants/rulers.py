"""Rulers of one name told apart by their realms: the country a description names next to a ruler's title
("Roi des Belges", "Monaco's sovereign prince", "the Spanish king"), read within one clause ("On a visit to
Morocco, the king ..." names no realm of his). One realm each, of two crowns, makes two rulers; a monarch of
several realms of one crown ("King of Canada", "of the United Kingdom") or of a personal union stays one.

A ruler's given name as the languages of Europe write it ("Louis XIV", "Ludwig XIV.", "Luis XIV"; "Henri IV",
"Henry IV of France"): with one regnal number, one ruler where both name one realm (a question otherwise: the
Charles II of Spain and of England, popes and emperors)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..lexicon import REALM_PARTICLES, ROYAL
from ..names import NameForm
from ..profiles import Profile
from ..verdicts import SAME, Verdict, doubtful
from .countries import countries_of
from .placing import text_words


def realms_apart(a: Profile, b: Profile) -> str:
    """Why two rulers of one name are two: a royal title or a regnal number, and descriptions placing them in
    different countries ("Albert II", King of the Belgians; "Prince Albert II", of Monaco). Other people move;
    a ruler is his realm's."""
    ruling = any(f.royal or (f.numbers and f.person) for p in (a, b) for f in p.forms)
    if not (a.personal and b.personal and ruling):
        return ""
    ca, cb = _realms(a.description), _realms(b.description)
    if len(ca) != 1 or len(cb) != 1 or any(ca | cb <= crown for crown in _CROWNS):
        return ""  # a ruler of several realms ("King of Canada", "of the United Kingdom"; "prince of Greece and
    return "rulers of different realms" if ca != cb else ""  # Denmark"), one of each: two rulers


# realms one monarch has reigned over together (a crown's realms, personal unions)
_CROWNS = tuple(frozenset(c.split(",")) for c in (
    "uk,england,scotland,wales,ireland,canada,australia,new zealand,jamaica,bahamas,belize,papua new guinea,"
    "solomon islands,tuvalu,antigua and barbuda,saint lucia,grenada,saint kitts and nevis",
    "denmark,norway,sweden,iceland,finland", "austria,hungary,czech republic,croatia,slovakia", "poland,lithuania"))


# the title words next to which a description names a realm ("Rei" and "Re" are no titles of names: given names)
_RULER = ROYAL - {"saint", "st", "pope"} | frozenset("monarch sovereign ruler rei re duke".split())
_REALM_OF = frozenset(REALM_PARTICLES)


@lru_cache(maxsize=16384)
def _realms(description: str) -> frozenset[str]:
    """The countries a description names next to a ruler's title: "King of England", "Roi des Belges", "Monaco's
    sovereign prince", "the Spanish king" (not "the king broke with Rome")."""
    found: set[str] = set()
    for clause in re.split(r"[.,;:!?]", description):  # "... visit to Morocco, the king ..." names no realm
        found |= _realms_in(text_words(clause))
    return frozenset(found)


def _realms_in(ws: tuple[str, ...]) -> set[str]:
    found = set()
    for i, w in enumerate(ws):
        if w not in _RULER:
            continue
        found |= countries_of(" ".join(ws[max(0, i - 2):i]))
        if ws[i + 1:i + 2] and ws[i + 1] in _REALM_OF:
            rest = ws[i + 2:i + 5]
            found |= countries_of(" ".join(rest[1:] if rest[:1] in (("the",), ("la",), ("los",)) else rest))
    return found


# one name per line, in English first, then as other languages write it (folded, as keys read them)
_NAMES = """louis ludwig luis luigi lodewijk ludvig ludwik lajos людовик
henry henri enrique heinrich enrico henrique hendrik henryk генрих
charles carlos karl carl carlo karel karol karoly карл
philip philippe felipe philipp filippo filip fulop филипп
john jean juan johann johannes giovanni joao jan janos иоанн
william guillaume guillermo wilhelm guglielmo willem vilhelm
frederick frederic federico friedrich frederik fryderyk фридрих
george georges jorge georg giorgio jerzy георгий
james jacques jaime jakob giacomo jacobo
peter pierre pedro pietro piotr петр
edward edouard eduardo eduard edoardo
francis francois francisco franz francesco franciszek
ferdinand fernando ferdinando
alfonso alphonse afonso alfons
gustav gustave gustavo gustaf
nicholas nicolas nikolaus niccolo nicolo николай
alexander alexandre alejandro alessandro aleksander александр
joseph josef jose giuseppe jozef
paul paolo pablo pavel павел
constantine constantin konstantin costantino константин
michael michel miguel michele михаил
stephen etienne esteban stefan stephan stefano istvan
casimir kazimierz
sigismund sigismond zygmunt
rudolf rudolph rodolfo
victor vittorio
humbert umberto
benedict benoit benedetto benedikt
gregory gregoire gregorio gregor
clement clemente
leo leon leone
catherine catalina katharina caterina ekaterina екатерина
elizabeth elisabeth isabel elisabetta elzbieta erzsebet елизавета
mary marie maria
margaret marguerite margarita margherita margarete margrethe"""
_CANONICAL = {name: line.split()[0] for line in _NAMES.splitlines() for name in line.split()}


# countries the tables read for the many crowns within them ("König von Bayern", "re di Sicilia", "King of
# Germany" and the Holy Roman Emperor): one realm named is no one crown
_MANY_CROWNS = frozenset({"germany", "italy"})


_LESSER = frozenset("duke duc duca duque herzog count comte conte conde graf earl margrave markgraf".split())


def _lesser(p: Profile) -> frozenset[str]:
    """The titles below a crown ``p``'s type or description gives ("Duke of Brittany" reads as France)."""
    return _LESSER.intersection(text_words(p.description + " " + " ".join(sorted(p.written_types))))


def ruler_name(form: NameForm) -> str:
    """"rn:" and a numbered ruler's given name in English and the number ("rn:louis|14" of "Ludwig XIV."), for
    blocking; "" for other names."""
    if len(form.numbers) != 1 or len(form.person) != 1 or form.person[0] not in _CANONICAL:
        return ""
    return f"rn:{_CANONICAL[form.person[0]]}|{form.numbers[0]}"


def regnal_verdict(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """Same for one ruler's name in two languages with one regnal number where both name one realm, by the name
    ("Henry IV of France") or next to a ruler's title ("König von Frankreich", "French king"); a question where
    either names none (popes, emperors, realms the tables do not know: "Carlos II", "Charles II"); None for
    other names."""
    key = ruler_name(fa)
    if not key or fa.person == fb.person or ruler_name(fb) != key or clash:
        return None
    ra, rb = (_realms(p.description) | _realms(" ".join(sorted(p.written_types))) | countries_of(f.qualifier)
              for p, f in ((a, fa), (b, fb)))  # "roi de France", a type
    if a.personal and b.personal and ra and ra == rb and not ra & _MANY_CROWNS and not _lesser(a) | _lesser(b):
        return Verdict(SAME, 0.85, "one ruler's name in two languages, with one regnal number")
    return doubtful(0.5, "one ruler's name in two languages, but no one realm named")
