"""English given names' short forms ("Bernie" of "Bernard", "Bill" of "William"): a person goes by either, and a
namesake bears either too, so the two are one only where the descriptions are alike (`persons`)."""

from __future__ import annotations

_SHORT_FORMS = """bernard: bernie; william: bill billy will willy; robert: bob bobby rob robbie; richard: dick rick
ricky; james: jim jimmy jamie; michael: mike mick mickey; thomas: tom tommy; anthony: tony; antonio: tony;
edward: ted teddy ed eddie ned; theodore: ted teddy; edmund: ed; edwin: ed; joseph: joe joey; david: dave davy;
christopher: chris; alexander: alex sandy; benjamin: ben; donald: don; ronald: ron ronnie; john: jack johnny;
elizabeth: liz lizzie beth betty betsy; katherine: kate katie kathy; catherine: kate katie cathy; kathleen: kathy;
susan: sue susie; patricia: pat patty; patrick: pat; margaret: peggy maggie meg; jennifer: jenny; andrew: andy
drew; lawrence: larry; laurence: larry; gerald: jerry; jerome: jerry; timothy: tim; nicholas: nick; samuel: sam;
matthew: matt; stephen: steve; steven: steve; gregory: greg; charles: chuck charlie; henry: hank harry hal;
harold: hal harry; frederick: fred freddie; francis: frank; kenneth: ken kenny; philip: phil; phillip: phil;
vincent: vince; douglas: doug; jeffrey: jeff; geoffrey: jeff; eugene: gene; abraham: abe; nathaniel: nate;
nathan: nate; joshua: josh; daniel: dan danny; peter: pete; terence: terry; wallace: wally; walter: walt"""
SHORT_FORMS = frozenset((short, full) for line in _SHORT_FORMS.replace("\n", " ").split("; ")
                        for full, shorts in [line.split(": ")] for short in shorts.split())


def short_form_of(x: str, y: str) -> bool:
    """One of two given names is the other's short form ("bernie", "bernard"), either way."""
    return (x, y) in SHORT_FORMS or (y, x) in SHORT_FORMS


def full_forms(short: str) -> frozenset[str]:
    """The given names ``short`` is a short form of ("william" of "bill")."""
    return _FULL.get(short, frozenset())


_FULL = {short: frozenset(f for s, f in SHORT_FORMS if s == short) for short, _ in SHORT_FORMS}
