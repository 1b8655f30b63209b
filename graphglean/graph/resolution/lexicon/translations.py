"""The words institutions, events and bodies are named with, in the languages models write names in, each read as
one English word ("banco", "banque", "Bank", "银行": bank), and the cities English names otherwise ("München":
munich): so "Banco Central do Brasil" reads as "Central Bank of Brazil" does, word for word. German compounds
are read by their parts ("Bundesverfassungsgericht": federal constitutional court), Chinese by its words.
Names are compared as `names.key_of` writes them: lower case, accents left out."""

from __future__ import annotations

from functools import lru_cache

from . import COUNTRY_OF

_WORDS = """bank: banco, banque, banca, banka, bankasi, банк, 银行, 銀行, 은행
central: centrale, zentral, zentrale, zentralbank:central bank, centralny, центральный, centrala, 中央
national: nacional, nationale, nazionale, nationaal, narodowy, narodowe, национальный, nasional, ulusal, 国家, 国立
federal: federale, federal, bundes, federalny, федеральный, 联邦, 連邦
people: people's, peoples, popular, populaire, popolare, volks, народный, rakyat, 人民
university: universidad, universidade, universita, universite, universitat, universiteit, uniwersytet, universitet,
университет, universitesi, universitas, 大学, 대학교
technical: tecnica, tecnico, technique, technische, technischen, techniczna, technicka, teknik, технический, 工业, 理工
court: tribunal, cour, gericht, gerichtshof, tribunale, corte, sad, суд, 法院, 裁判所, 법원
supreme: supremo, suprema, supreme, oberster, oberste, верховный, 最高
constitutional: constitucional, constitutionnel, constitutionnelle, verfassungs, costituzionale, konstytucyjny,
конституционный, 宪法, 憲法
ministry: ministerio, ministere, ministerium, ministero, ministerie, ministerstwo, министерство, kementerian,
bakanligi, 部, 省
foreign: exteriores, etrangeres, auswartiges, auswartige, esteri, estrangeiros, zagranicznych, иностранных, 外交, 外務
affairs: asuntos, affaires, angelegenheiten, affari, negocios, spraw, дел
finance: finanzas, finances, finanzen, finanze, financas, finansow, финансов, 财政, 財務
health: salud, sante, gesundheit, salute, saude, zdrowia, здравоохранения, 卫生, 厚生
education: educacion, education, bildung, istruzione, educacao, edukacji, образования, 教育
defence: defense, defensa, verteidigung, difesa, defesa, obrony, обороны, 国防, 防衛
interior: interieur, inneren, interno, interni, wewnetrznych, внутренних, 内政
justice: justicia, justiz, giustizia, justica, sprawiedliwosci, юстиции, 司法
republic: republica, republique, republik, repubblica, republiek, rzeczpospolita, республика, 共和国
democratic: democratico, democratica, democratique, demokratische, demokratischen, demokratyczna,
демократическая, 民主
socialist: socialista, socialiste, sozialistische, socjalistyczna, социалистическая
social: sociale, soziale, sozial, socjaldemokratyczna:social democratic
christian: cristiano, cristiana, chretien, chretienne, christlich, christliche, chrzescijanska
union: union, uniao, unione, unia, союз, 联盟
party: partido, parti, partei, partito, partij, partia, партия, 党
workers: obrero, obreros, trabalhadores, ouvriers, arbeiter, arbeiterpartei:workers party, lavoratori, robotnicza
world: mundo, monde, welt, mondo, mundial, mondiale, swiata, мира, 世界
cup: copa, coupe, coppa, puchar, pokal, кубок, 杯
championship: campeonato, championnat, meisterschaft, campionato, mistrzostwa, чемпионат, 锦标赛
games: juegos, jeux, spiele, giochi, jogos, igrzyska, игры
olympic: olimpicos, olimpicas, olympiques, olympische, olympischen, olimpici, olimpiadi, olimpijskie, олимпийские, 奥运
festival: festspiele, festivale
international: internacional, internationale, internazionale, internationaal, miedzynarodowy, международный, 国际
european: europeo, europea, europeen, europeenne, europaische, europaischen, europeu, europeia, europejski, европейский
museum: museo, musee, museu, muzeum, музей, 博物馆, 博物館
institute: instituto, institut, istituto, instytut, институт, 研究所
academy: academia, academie, akademie, accademia, akademia, академия, 科学院
school: escuela, ecole, schule, scuola, escola, szkola, школа, 学校
hospital: hopital, krankenhaus, ospedale, szpital, больница, 医院, 病院
council: consejo, conseil, consiglio, conselho, rada, совет, 理事会
parliament: parlamento, parlement, parlament, парламент, 议会, 議会
assembly: asamblea, assemblee, versammlung, assemblea, assembleia, zgromadzenie, собрание
state: estado, etat, staat, stato, estatal, estadual, panstwowy, государственный
railways: ferrocarriles, ferrovie, bahn, koleje
airlines: aerolineas, fluggesellschaft
police: policia, polizei, polizia, policja, полиция, 警察
army: ejercito, armee, heer, esercito, exercito, armia, армия, 陆军
navy: armada, marine, marina, marinha, 海军
united: unidos, unidas, unis, unies, vereinte, vereinigte, uniti, unite, zjednoczone, объединённых, объединенных
nations: naciones, nations, nationen, nazioni, nacoes, narodow, наций
organization: organizacion, organisation, organizzazione, organizacao, organizacja, организация, 组织, 機関
commission: comision, kommission, commissione, comissao, komisja, комиссия, 委员会
agency: agencia, agence, agentur, agenzia, agencia, agencja, агентство, 机构
office: oficina, bureau, amt, ufficio, urzad
service: servicio, dienst, servizio, servico, sluzba, служба
security: seguridad, securite, sicherheit, sicurezza, seguranca, bezpieczenstwa, безопасности, 安全
climate: clima, climat, klima, климат, 气候
conference: conferencia, conference, konferenz, conferenza, konferencja, конференция, 会议
summit: cumbre, sommet, gipfel, vertice, cupula, szczyt, саммит, 峰会
science: ciencias, ciencia, sciences, wissenschaften, wissenschaft, scienze, ciencias, nauk, наук, 科学
technology: tecnologia, technologie, technologii, технологий, 技术
arts: artes, kunste, arti, sztuk, искусств, 艺术
library: biblioteca, bibliotheque, bibliothek, biblioteka, библиотека, 图书馆
film: cine, cinema, kino, фильм, 电影
province: provincia, provinz, prowincja, провинция, provincie, provinsi
community: comunidad, communaute, comunita, comunidade
region: regione, regiao, регион
canton: kanton, cantone
prefecture: prefectura, prefettura, prafektur"""
# the levels of a country's divisions whose names one country does not repeat ("Provincia di Bergamo", "Province
# of Bergamo"); not a county's or a department's (Orange County in California and in Florida; San Martín in
# Mendoza and San Juan; a company's marketing department)
LEVELS = frozenset("province community region canton prefecture state".split())
_CITIES = """munich: munchen, monaco di baviera; cologne: koln; vienna: wien, viena, vienne; prague: praha, prag, praga
warsaw: warszawa, varsovie, varsovia, warschau; lisbon: lisboa, lissabon, lisbonne; rome: roma, rom
milan: milano, mailand; naples: napoli, neapel; turin: torino; florence: firenze, florenz; venice: venezia, venedig
moscow: moskva, moskau, moscou, moscu, москва; saint petersburg: sankt peterburg, санкт петербург
kyiv: kiev, kyjiw, київ, киев; brussels: bruxelles, brussel, bruselas; geneva: geneve, genf, ginevra
zurich: zurich, zurigo; the hague: den haag, la haye; copenhagen: kobenhavn, kopenhagen; gothenburg: goteborg
athens: athina, athen, atenas, αθηνα; belgrade: beograd, belgrad, београд; bucharest: bucuresti, bukarest
seville: sevilla; beijing: 北京, peking, pekin; tokyo: 东京, 東京; seoul: 서울; cairo: al qahira, le caire, kairo
mexico city: ciudad de mexico; new york: nueva york; london: londres, londra; paris: parigi; berlin: berlino
frankfurt: francfort, francoforte; hamburg: hambourg, amburgo; nuremberg: nurnberg; basel: bale, basilea"""



def _table(text: str) -> dict[str, str]:
    """Each variant of a line "word: variant, variant:reading" read as the word (or as its own reading)."""
    table = {}
    for line in text.replace(",\n", ", ").splitlines():
        word, variants = line.split(": ", 1)
        table[word] = word
        for variant in variants.split(", "):
            form, _, reading = variant.partition(":")
            table[form] = reading or word
    return table


WORD_OF = _table(_WORDS)
CITY_OF = {variant: city for line in _CITIES.replace("\n", "; ").split("; ") for city, variants in [line.split(": ")]
           for variant in [city, *variants.split(", ")]}
# words that join a name's parts and say nothing of it, in the languages above
_JOINING = frozenset("""of the de do da dos das del della delle dei degli di du des la le les l el lo los las y e et
und and fur fuer der die das den dem des von zu zur zum w we na i a en van het voor of for in""".split())
_COMPOUND_PARTS: dict[str, list[str]] = {}  # by their first two letters, longest first
for _part in sorted((w for w in WORD_OF if w.isascii() and len(w) >= 3 and " " not in w), key=len, reverse=True):
    _COMPOUND_PARTS.setdefault(_part[:2], []).append(_part)
_HAN_WORDS = sorted((w for w in WORD_OF if not w.isascii() and "\u4e00" <= w[0] <= "\u9fff"), key=len, reverse=True)


@lru_cache(maxsize=65536)
def translated(key: str) -> tuple[tuple[str, ...], bool, bool]:
    """The words of a name's key read in English (sorted), its joining words left out (a word the tables do not
    hold stays as written: "fifa"); whether one of them is a place (else the name is one many give: "national
    museum", "technical university", "1992 olympic games", "colorado party"); and whether a word of another
    language was read ("banco", "Universität"; not "U.S.", a country written another way)."""
    out: list[str] = []
    placed = foreign = False
    ws = key.split()
    i = 0
    while i < len(ws):
        for n in (3, 2):  # "ciudad de mexico", "sankt peterburg"
            if (phrase := " ".join(ws[i:i + n])) in CITY_OF or phrase in COUNTRY_OF:
                out.append(CITY_OF.get(phrase) or COUNTRY_OF[phrase])
                i, placed = i + n, True
                break
        else:
            w = ws[i]
            i += 1
            if w in _JOINING:
                continue
            place = CITY_OF.get(w) or COUNTRY_OF.get(w)
            read = [place] if place else _read(w)
            # a place tells which ("Brasil"); a word of the name's own does not (the Colorado parties of Paraguay and
            # of Uruguay), nor a year (the 1992 Olympic Games were held in Albertville and in Barcelona)
            placed = placed or bool(place) or not _PLACES.isdisjoint(read or ())
            foreign = foreign or bool(read) and not place and read != [w]
            out.extend(read or [w])
    return tuple(sorted(out)), placed, foreign


_PLACES = frozenset(COUNTRY_OF.values()) | frozenset(CITY_OF.values())


def _read(word: str) -> list[str] | None:
    if word in WORD_OF:
        return WORD_OF[word].split()
    if len(word) >= 10 and word.isascii():  # "bundesverfassungsgericht"
        return _parts(word)
    if "\u4e00" <= word[0] <= "\u9fff":  # "中国人民银行"
        return None if (read := _han(word)) is None else list(read)
    return None


@lru_cache(maxsize=65536)
def _parts(word: str) -> list[str] | None:
    """A compound read as the table's words end to end ("bundes|verfassungs|gericht"), else None."""
    if not word:
        return []
    for part in _COMPOUND_PARTS.get(word[:2], ()):
        if word.startswith(part) and (rest := _parts(word[len(part):])) is not None:
            return [*WORD_OF[part].split(), *rest]
    return None


@lru_cache(maxsize=65536)
def _han(text: str) -> tuple[str, ...] | None:
    """Chinese or Japanese words read longest first, countries among them ("中国", "日本"); None where a character
    is left over (each remainder read once)."""
    if not text:
        return ()
    for w in _HAN_READ:
        if text.startswith(w) and (rest := _han(text[len(w):])) is not None:
            return (*([COUNTRY_OF[w]] if w in COUNTRY_OF else WORD_OF[w].split()), *rest)
    return None


# the Han words the tables read, countries first, each group longest first
_HAN_READ = (*sorted((c for c in COUNTRY_OF if "\u4e00" <= c[:1] <= "\u9fff"), key=len, reverse=True), *_HAN_WORDS)
