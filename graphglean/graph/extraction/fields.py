"""The fields of a record as models write them: delimiters and their corruptions, quoting, entity types, and
the placeholder words that prompts show and models copy back."""

from __future__ import annotations

import functools
import html
import re

#: quotes a model may wrap a field in, and markdown emphasis; the pairs are (opening, closing)
QUOTE_PAIRS = (('"', '"'), ("'", "'"), ("`", "`"), ("\u201c", "\u201d"), ("\u2018", "\u2019"), ("**", "**"))
QUOTES = "\"'`*\u201c\u201d\u2018\u2019"  # not CJK corner brackets: they belong to titles ("「红楼梦」")
OPENERS, CLOSERS = "([\uff08\u3010", ")]\uff09\u3011"

# A field delimiter as models write and garble it: any run of bars, hashes and backslashes (a bar or a hash among
# them) between one or two angle brackets on each side: <|>, <|#|>, <||>, <|#>, <#|>, <#>, <<|>, <|>>, <| |>,
# <|##|>, <|\#|>, <||#|>, <|#||>, <|#|#|>, full-width bars and brackets; and the halves of one, holding a bar:
# <| <|# <||# before a field and |> #|> |#|> after one (also <|" and "|>: the quote is stripped from the field
# afterwards).
_LT, _GT, _BAR = "[<\uff1c]", "[>\uff1e]", "[|\uff5c]"
_MARK = "[|\uff5c#\\\\]"  # what a delimiter holds between its brackets
GENERIC_DELIMITER = (rf"{_LT}{{1,2}}(?=[ \t#\\]*{_BAR}|[ \t\\]*#)(?:[ \t]?{_MARK}){{1,8}}[ \t]?{_GT}{{1,2}}"
                     rf"|{_LT}(?=[ \t#\\]*{_BAR})(?:[ \t]?{_MARK}){{1,8}}(?![ \t]?[|\uff5c#\\>\uff1e])"
                     rf"|(?<![<\uff1c|\uff5c#\\])(?:{_MARK}[ \t]?){{0,7}}{_BAR}[ \t]?{_GT}{{1,2}}")
PIPE = "[|\uff5c]"

COMMON_TYPES = frozenset("""
person people organization organisation org company institution geo location place country city region
event category concept technology product method equipment data artifact artefact work date time law animal
species disease chemical object group role nationality creature material software model dataset theory metric
人物 人 组织 組織 机构 地点 地點 位置 事件 概念 类别 類別 技术 技術 产品 產品 方法 设备 数据 作品 时间 日期
인물 사람 조직 기관 장소 위치 지역 사건 개념 범주 기술 제품 방법 날짜 시간
orang tokoh organisasi lokasi tempat peristiwa kejadian konsep kategori teknologi produk metode
நபர் அமைப்பு இடம் நிகழ்வு கருத்து
""".split())

_SCHEMA_WORDS = ("name", "names", "type", "types", "description", "desc", "entity", "entities", "source", "target",
                 "keywords", "keyword", "strength", "weight", "id", "relation", "relationship", "relationtype")
_STRONG_PLACEHOLDER = re.compile(
    r"(?:entity|node|source|target|subject|object|relation(?:ship)?)(?:[ _-]?\d+|[_-][a-d]|_?name|_?type|_?id)"
    r"|(?:node|source|target|subject|object|relation(?:ship)?) [a-d]"  # not "Entity A": an SPV of a filing
    r"|relation(?:ship)?[ _-]?(?:type|name|keywords?|description|strength)|(?:source|target)[ _-]?entity"
    r"|\.\.\.|…|n/a|(?:entity|relation(?:ship)?)[ _-]?(?:description|keywords?|strength)", re.I)
# only whole HTML entities ("AT&amp;T"): html.unescape alone also reads legacy forms without ";" ("&LT", "&copy")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
_SNAKE = re.compile(r"[a-z]+(?:_[a-z]+)+")
_BRACKETED = re.compile(r"<[A-Za-z_ ]+>|\{[A-Za-z_ ]+\}|\[[A-Za-z_ ]+\]")


def clean_field(field: str) -> str:
    """A field without surrounding space, wrapping quotes or emphasis, and without a lone quote at an edge; a
    quote the text itself needs (``Says "Bah! Humbug!"``) stays."""
    f = _ENTITY.sub(lambda m: html.unescape(m.group(0)), field).strip() if "&" in field else field.strip()
    while f and (f[0] in QUOTES or f[-1] in QUOTES):
        pair = next((p for p in QUOTE_PAIRS if f.startswith(p[0]) and f.endswith(p[1])
                     and len(f) >= len(p[0]) + len(p[1])), None)
        if pair is not None and f[len(pair[0]): len(f) - len(pair[1])].strip(QUOTES + " "):
            f = f[len(pair[0]): len(f) - len(pair[1])].strip()
            continue
        edge = next((q for q in dict.fromkeys((f[0], f[-1])) if q in QUOTES
                     if f.count(q) % 2 == 1 and _lone_edge(f, q) and f.strip(q)), None)
        if edge is None:
            return f
        f = (f[1:] if f.startswith(edge) else f[:-1]).strip()
    return f


def _lone_edge(f: str, q: str) -> bool:
    """An odd quote at an edge is stray unless it pairs with one inside (a name ending in an apostrophe)."""
    if q in "\u201c\u2018":
        return f.startswith(q) and f.count(q) > f.count({"\u201c": "\u201d", "\u2018": "\u2019"}[q])
    if q in "\u201d\u2019":
        opener = {"\u201d": "\u201c", "\u2019": "\u2018"}[q]
        return f.endswith(q) and f.count(q) > f.count(opener) and not (q == "\u2019" and f[-2:-1].isalpha())
    if q == "'" and f.endswith("'") and f[-2:-1] in "sS":
        return False  # a possessive plural: "The Cratchits'"
    return True


def strip_closers(body: str) -> str:
    """Drop the closing brackets that close the record itself, never one the last field needs
    (``partner (deceased)``)."""
    body = body.rstrip()
    while body and body[-1] in CLOSERS:
        close = body[-1]
        open_ = OPENERS[CLOSERS.index(close)]
        if body.count(close) <= body.count(open_):
            break
        body = body[:-1].rstrip()
    return body


def is_known_type(value: str, configured: frozenset[str]) -> bool:
    v = value.strip().lower()
    return v in configured or v in COMMON_TYPES


def looks_like_type(value: str, configured: frozenset[str]) -> bool:
    """A short label rather than a sentence: a known type, or at most three words without a full stop."""
    v = value.strip()
    if is_known_type(v, configured):
        return True
    return 0 < len(v) <= 32 and len(v.split()) <= 3 and not v.endswith((".", "\u3002")) and not any(
        c.isdigit() for c in v)


@functools.lru_cache(maxsize=1 << 14)  # names and types come back in record after record
def is_placeholder(value: str) -> bool:
    """A field a model copied from the prompt's format line instead of filling in (``Entity1``,
    ``<source_entity>``, ``entity_name``, ``RelationType``)."""
    v = value.strip()
    if not v:
        return False
    if _BRACKETED.fullmatch(v):  # <entity_name>, <Entity Name>; not a title such as <Parasite>
        words = re.split(r"[ _]", v[1:-1].lower())
        if v == v.lower() or any(w in _SCHEMA_WORDS for w in words):
            return True
    if _STRONG_PLACEHOLDER.fullmatch(v):
        return True
    if _SNAKE.fullmatch(v) and v.split("_")[-1] in _SCHEMA_WORDS:
        return True
    return False


@functools.lru_cache(maxsize=1 << 14)
def is_header_word(value: str) -> bool:
    """A column name (``Name``, ``Type``, ``Description``): a placeholder only when its row has others."""
    v = value.strip().lower().replace("_", " ")
    return is_placeholder(value) or v in _SCHEMA_WORDS or v in ("entity name", "entity type", "source entity",
                                                                "target entity", "relationship description")


# an arrow between names, as models write relationships ("Navy -> Contractor", "A → B") or put before a field;
# an ASCII arrow only with a space or quote on each side ("x->y" may be a name of its own)
ARROW = r"(?:-{1,2}|={1,2}|\u2014|\u2013)>|[\u2192\u27f6\u2794\u279c\u21d2]"
_SPACED = rf"(?<![^\s\"'\u201c\u201d])(?:{ARROW})(?![^\s\"'\u201c\u201d])|[\u2192\u27f6\u2794\u279c\u21d2]"
_ARROW_SPLIT = re.compile(rf"(?<!\s)\s*(?:{_SPACED})\s*")  # from a run's start only: not once per blank
_EDGE_ARROWS = re.compile(rf"^\s*(?:{ARROW})\s*|\s(?:{ARROW})\s*$")
_BARE_PIPE = re.compile(r"(?<!\s)\s*[|\uff5c]\s*")


def _has_pipe(field: str) -> bool:
    return "|" in field or "\uff5c" in field


def pipe_fields(rest: list[str], needed: int) -> list[str]:
    """A record's fields (after its kind), where a model separated fields by plain pipes inside a delimited
    record (``relation<|#|>Government|Offeror|evaluates|...``): split, when the record has fewer than
    ``needed`` fields. (A name holding a pipe in a full record is checked against the chunk's text later.)"""
    if len(rest) >= needed or not any(map(_has_pipe, rest)):
        return rest
    return [clean_field(p) for f in rest for p in (_BARE_PIPE.split(f) if _has_pipe(f) else [f])]


def arrow_pair(field: str) -> tuple[str, str] | None:
    """The two names of ``A -> B`` (one arrow between two names), else None."""
    parts = _ARROW_SPLIT.split(field)
    if len(parts) != 2:
        return None
    a, b = clean_field(parts[0]), clean_field(parts[1])
    return (a, b) if a and b else None


def without_edge_arrows(field: str) -> str:
    """A name without an arrow before or after it (``-> "Contractor"``, ``Navy ->``)."""
    return clean_field(_EDGE_ARROWS.sub("", field)) if _EDGE_ARROWS.search(field) else field


# -- names: a full stop the sentence left on them, and pronouns that are no names ------------------------------

# words a full stop ends as their abbreviation ("Acme Inc.", "Martin Luther King Jr.", "St."), in the languages
# names come in (initials and dotted initialisms keep theirs too: "Li, M.", "U.S.", "S.p.A.")
_ABBREVIATIONS = frozenset("""inc corp co ltd llc plc bros mfg intl assn assoc dept univ inst govt pty pte bhd tbk
sdn jr sr st ste mt ft pt dr mr mrs ms mme mlle messrs prof gen col capt cpt lt sgt maj adm cmdr rev hon esq ave
blvd rd sq ln hwy no nos vol vols ed eds etc cie gebr nr str abt ing arq lic sra srta dra av gral cnel hno hnos cía
cia ltda ltée kft zrt nyrt bt kht sp spol vs al spp ssp subsp var cf aff nov sect natl intl dist prov twp ctr pkwy
bldg apt fr br msgr rt cpl pvt cdr brig supt""".split())
# personal pronouns alone, less those that are also names, words or brands ("Han", "Ella", "Elle", "Io", "Lei",
# "Esso", "Ono", "Mir", "Ben", "Sen", "Du", "Tu", "Ty", "Ni", "On", "Mimi", "Nina", "Sisi", "Kita")
_PRONOUNS = frozenset("""
i me you he him she her it we us they them himself herself itself themselves
ich mich dich dir er ihn ihm sie es wir uns euch ihnen
je moi toi il nous vous ils elles eux
yo tú él ello nosotros nosotras vosotros vosotras ellos ellas usted ustedes
eu ele ela nós vós eles elas você vocês
egli noi voi
ik jij hij zij het wij jullie hem haar hen
jag hon dem honom henne jeg dere
minä sinä hän
ona oni ony
já vy
siz onlar
я ты он она оно мы вы они его её ее их ему ей им
én ő ők
aku kamu engkau mereka beliau
wewe yeye wao
tôi nó họ
我 你 您 他 她 它 我们 你们 他们 她们 它们 咱们 我們 你們 他們 她們 它們
私 僕 俺 あなた 彼 彼女 彼ら 我々
나 너 그녀 그들 우리 당신
أنا أنت هو هي نحن أنتم هم هن
אני אתה הוא היא אנחנו אתם הם הן
मैं तुम आप वह वे हम
நான் நீ நீங்கள் அவன் அவள் அவர் அவர்கள் நாம் நாங்கள் அது
""".split()) | {"cô ấy", "anh ấy", "ông ấy", "bà ấy", "chúng tôi", "chúng ta"}
_DOTTED = re.compile(r"(?:[^\W\d_]{1,3}\.-?){2,}")  # U.S., S.p.A., e.V., Ph.D., J.-W.; not 2.0.
# types under which a pronoun is a title ("It", a novel; "Her", a film; "Elle", a magazine)
_TITLE_TYPES = frozenset("""work works film movie book novel song album title artwork show series play product brand
band magazine publication game""".split()) | {"creative work", "work of art", "tv show", "tv series"}


def without_sentence_stop(name: str) -> str:
    """``name`` without a full stop the sentence around it left at its end ("Clinica Sur." of "at Clinica Sur.
    Rosa ..."), unless the stop ends an abbreviation the name holds ("Acme Inc.", "Jr.", "U.S.", "Li, M.")."""
    if not name.endswith((".", "\u3002")) or name.endswith(("..", "\u3002\u3002")):
        return name
    words = name.split()
    if words[-1] == name[-1:] or is_abbreviation(words[-1]):
        return name
    return name[:-1].rstrip()


def is_abbreviation(word: str) -> bool:
    """Whether a word ending in a full stop is an abbreviation ("Inc.", "St."), a dotted initialism ("U.S.",
    "S.p.A.", "J.-W."), an initial ("M.", the "s." of "a. s."), or a word of a script whose full stop marks
    abbreviations only (Thai "ปตท.") or an initial of an Indic one ("एन.", "மு.")."""
    stem = word[:-1]
    if not word.endswith(".") or not stem:
        return False
    if len(stem) == 1 or stem.casefold() in _ABBREVIATIONS or _DOTTED.fullmatch(word) is not None:
        return True
    script = ord(stem[-1])
    return 0x0E00 <= script <= 0x0EFF or 0x1000 <= script <= 0x109F or 0x1780 <= script <= 0x17FF or (
        0x0900 <= script <= 0x0DFF and len(stem) <= 3)


def is_pronoun(name: str, type_: str = "") -> bool:
    """Whether ``name`` is a personal pronoun alone ("she", "It", "他", "они"), of any language the parser reads,
    and no title (``type_`` a work: "It", a novel); an acronym in capitals ("IT", "US") is none."""
    n = " ".join(name.split())
    if not n or len(n) > 12 or (len(n) > 1 and n.isupper()) or type_.strip().casefold() in _TITLE_TYPES:
        return False
    return n.casefold() in _PRONOUNS
