"""Ships with and without their prefix ("HMS", "USS", "ORP", "Zr.Ms.") and pennant number ("(R08)",
"(CVN-78)"). One ship when both are ships, their names agree and their prefixes are of one navy or service (a
navy's English prefix and its own: "HNLMS" and "Zr.Ms."). Different pennant numbers are two ships; prefixes
of two services ("HMS", "RMS"), two reigns of one navy ("Zr.Ms.", "Hr.Ms.") or a pennant number on one side
only leave a namesake possible: doubt, for the LLM tier."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from ..names import NameForm, key_of
from ..profiles import Profile
from ..verdicts import DIFFERENT, SAME, Verdict, doubtful

# prefix (letters only, folded) -> (navy or service, reign: "" where the prefix is the same under any sovereign)
PREFIXES: dict[str, tuple[str, str]] = {
    "hms": ("gb", ""), "hmy": ("gb", ""), "uss": ("us", ""), "usns": ("us", ""), "usnsc": ("us", ""),
    "uscgc": ("us coast guard", ""), "hmas": ("au", ""), "hmcs": ("ca", ""), "ccgs": ("ca coast guard", ""),
    "hmnzs": ("nz", ""), "ins": ("in", ""), "orp": ("pl", ""), "hnlms": ("nl", ""), "zrms": ("nl", "king"),
    "hrms": ("nl", "queen"), "sms": ("de imperial", ""), "fgs": ("de", ""), "its": ("it", ""), "esps": ("es", ""),
    "nrp": ("pt", ""), "ara": ("ar", ""), "bap": ("pe", ""), "roks": ("kr", ""), "js": ("jp", ""), "jds": ("jp", ""),
    "kri": ("id", ""), "tcg": ("tr", ""), "hdms": ("dk", ""), "knm": ("no", ""), "hnoms": ("no", ""),
    "hswms": ("se", ""), "rss": ("sg", ""), "pns": ("pk", ""), "htms": ("th", ""), "brp": ("ph", ""),
    "sas": ("za", ""), "rfs": ("ru", ""), "rms": ("royal mail", ""), "ss": ("steamship", ""),
    "mv": ("motor vessel", ""), "ms": ("motor ship", ""), "rv": ("research vessel", ""), "my": ("motor yacht", ""),
}
AFLOAT = frozenset("""ship vessel boat warship carrier destroyer frigate cruiser corvette submarine battleship
liner yacht ferry tanker steamship schooner icebreaker battlecruiser dreadnought minesweeper""".split())
# (other languages' words for these are read as "ship" with every type: `types.TYPE_WORDS`)
_PENNANT = re.compile(r"\s*\(\s*([A-Za-z]{0,4}[\s-]?\d{1,4}[A-Za-z]?)\s*\)\s*$")
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
_PREFIX = re.compile(r"^\s*((?:[A-Za-z]{1,5}\.\s?){1,3}|[A-Za-z]{2,6}\s)")


class Designation(NamedTuple):
    navy: str
    reign: str
    pennant: str
    name: str  # the key of the rest


@lru_cache(maxsize=65536)
def designation(surface: str) -> Designation | None:
    """A ship's prefix and pennant number read off its name (None: neither)."""
    navy = reign = pennant = ""
    text = surface
    if m := _PENNANT.search(text):
        pennant, text = re.sub(r"[\s-]", "", m.group(1)).casefold(), text[:m.start()]
    if m := _PREFIX.match(text):
        letters = re.sub(r"[^A-Za-z]", "", m.group(1))
        if letters.isupper() or m.group(1).count(".") >= 2:  # "HMS", "H.M.S.", "Zr.Ms."; not "Ms." a title
            found = PREFIXES.get(letters.casefold())
            if found and text[m.end():].strip():
                (navy, reign), text = found, text[m.end():]
    if pennant.isdigit() and not navy and not _YEAR.fullmatch(pennant):  # "(402)" after "KRI ..." only
        pennant, text = "", surface
    if not (navy or pennant):
        return None
    name = key_of(text)
    return Designation(navy, reign, pennant, name) if name else None


def afloat(p: Profile) -> bool:
    return any(w in AFLOAT for t in p.types for w in t.replace("_", " ").split())


def vessel_verdict(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    da, db = designation(fa.surface), designation(fb.surface)
    if da is None and db is None:
        return None
    da = da or Designation("", "", "", fa.key)
    db = db or Designation("", "", "", fb.key)
    if da.name != db.name or da == db:
        return None
    if not (afloat(a) and afloat(b)):
        return doubtful(0.4, "a ship and a namesake of another kind") if afloat(a) or afloat(b) else None
    if da.pennant and db.pennant and da.pennant != db.pennant:
        return Verdict(DIFFERENT, 0.0, "ships of different pennant numbers")
    if da.navy and db.navy and da.navy != db.navy:
        return doubtful(0.4, "ships of other navies or services")
    if da.reign and db.reign and da.reign != db.reign:
        return doubtful(0.5, "one navy's prefixes of two reigns (a namesake?)")
    if bool(da.pennant) != bool(db.pennant):
        return doubtful(0.5, "a pennant number on one side only (a namesake?)")
    return Verdict(SAME, 0.85, "a ship with and without its prefix")
