"""What a person does, read from the type a model gave and from what the description says the person is (its
defining clause, or its opening noun phrase): two people of one name with callings of different fields are two,
unless a description names both ("Gerd Müller", a striker; "Gerd Muller", a CSU politician). The fields are
broad, so that one life's callings stay in one ("a lawyer and statesman", "a singer and actress"), and never say
two people are one: relatives and namesakes share a field as often (two Le Pens in politics)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..names import key_of
from ..profiles import Profile, defining_clauses

_FIELDS = {
    "sport": """athlete sportsman sportswoman sportler footballer fussballer fussballspieler footballeur futbolista
        futebolista calciatore pilkarz футболист striker midfielder goalkeeper sturmer torwart centre-back
        center-back fullback full-back winger playmaker
        attaquant delantero attaccante portiere cricketer golfer boxer wrestler cyclist swimmer sprinter skier
        tennis basketball baseball hockey badminton volleyball handball rugby olympian racing rennfahrer coach trainer cheftrainer entrenador allenatore
        jockey quarterback pitcher batsman yachtsman yachtswoman sailor rower canoeist mountaineer sportolo
        labdarugo fotbalista futbolcu fotbollsspelare fodboldspiller
        voetballer jalkapalloilija 選手 运动员 球员 선수 खिलाड़ी क्रिकेटर""",
    "public": """politician politiker politicien politique politico politica polityk politik politikus политик
        政治家 정치인 statesman stateswoman senator senateur senador congressman congresswoman legislator lawmaker
        diplomat chancellor bundeskanzler kanzler kanzlerin mayor burgermeister maire alcalde sindaco
        minister ministerprasident premierminister depute abgeordneter governor gouverneur gobernador lawyer attorney jurist judge richter anwalt avocat juge abogado avvocato
        admiral soldier colonel commander soldat soldado soldato feldherr offizier officier army_officer
        naval_officer military_officer police_officer king queen monarch
        emperor empress prince princess konig konigin roi reine rey reina krol siyasetci politicus poliitikko
        政治人物 राजनेता नेता miniszter kepviselo democrat republican parliamentarian""",
    "performing": """musician singer songwriter composer komponist compositeur compositor compositore kompozytor
        композитор pianist violinist guitarist cellist drummer conductor dirigent rapper musiker sanger sangerin
        chanteur chanteuse cantante muzyk певец певица 歌手 가수 actor actress acteur actrice schauspieler
        schauspielerin attore attrice aktor актёр актер 俳優 배우 comedian filmmaker screenwriter dancer
        ballerina entertainer producer cinematographer zeneszerzo szinesz szineszno enekes skladatel herec herecka zpevak besteci
        oyuncu sarkici tonsattare skadespelare skuespiller sangare sanger componist zanger saveltaja nayttelija
        laulaja ator atriz cantor cantora actriz 作曲家 演员 작곡가 sitar sitarist tabla piano violin guitar cello
        flute saxophonist trumpeter sarod santoor shehnai oud harp harpist organist bassist accordion banjo mandolin
        clarinet oboe trombone वादक गायक गायिका अभिनेता अभिनेत्री संगीतकार""",
    "letters": """writer author novelist poet playwright dramatist essayist schriftsteller schriftstellerin autor
        dichter ecrivain ecrivaine auteur escritor escritora scrittore pisarz писатель 作家 작가 poete poeta
        philosopher philosoph philosophe filosofo filozof filosof thinker historian journalist
        journaliste periodista giornalista dziennikarz reporter columnist critic anthropologist anthropologue
        antropologo sociologist soziologe soziologin sociologue sociologo socjolog linguist iro kolto spisovatel
        yazar forfattare forfatter schrijver kirjailija
        小説家""",
    "science": """scientist physicist chemist biologist mathematician astronomer economist geologist naturalist
        physiker chemiker mathematiker physicien chimiste fisico quimico scienziato inventor erfinder engineer
        ingenieur physician surgeon arzt medecin medico psychiatrist psychologist""",
    "visual": """visual_artist painter sculptor architect photographer designer maler bildhauer architekt peintre sculpteur
        pintor escultor pittore scultore""",
    "business": """businessman businesswoman entrepreneur unternehmer merchant kaufmann banker industrialist
        investor executive tycoon magnate negociant commercant empresario imprenditore""",
    "teaching": """teacher schoolteacher headteacher headmaster headmistress lehrer lehrerin grundschullehrer
        enseignant enseignante instituteur institutrice insegnante nauczyciel nauczycielka учитель учительница
        leraar lerares larare opettaja ogretmen 教師 教师 老师 교사""",
    "religion": """priest bishop pope cardinal pastor rabbi imam monk priester bischof pretre eveque
        sacerdote obispo vescovo ksiadz missionary guru spiritual swami yogi lama ayatollah mullah preacher
        evangelist theologian archbishop arzobispo arcebispo arcivescovo erzbischof archeveque cardenal cardeal
        गुरु आध्यात्मिक संत""",
}
CALLINGS = {key_of(w.replace("_", " ")): field for field, words in _FIELDS.items() for w in words.split()}
# in Russian, Ukrainian and Greek, whose names the rules also read in Latin letters ("Михаил Горбачёв", a hockey
# player, is no "Mikhail Gorbachev", the Soviet leader)
CALLINGS |= {key_of(w.replace("_", " ")): field for field, words in {
    "sport": """хоккеист теннисист теннисистка шахматист шахматистка пловец пловчиха спортсмен спортсменка боксёр
        гимнаст гимнастка биатлонист лыжник фигурист фигуристка легкоатлет вратарь нападающий полузащитник
        хокеїст футболіст тенісист тенісистка ποδοσφαιριστής αθλητής αθλήτρια τενίστας προπονητής""",
    "public": """президент премьер-министр депутат губернатор мэр дипломат генерал полководец князь царь
        государственный_деятель політик президентка πολιτικός πρωθυπουργός πρόεδρος βουλευτής υπουργός
        δήμαρχος στρατηγός""",
    "performing": """певица балерина актриса пианист скрипач дирижёр режиссёр рэпер співак співачка актор
        τραγουδιστής τραγουδίστρια ηθοποιός συνθέτης σοπράνο πιανίστας σκηνοθέτης""",
    "letters": """поэт поэтесса драматург журналист журналистка философ историк письменник поет ποιητής
        συγγραφέας φιλόσοφος δημοσιογράφος ιστορικός μυθιστοριογράφος""",
    "science": """физик химик математик биолог учёный астроном инженер врач хирург фізик вчений μαθηματικός
        χημικός επιστήμονας γιατρός""",
    "visual": "художник художница скульптор архитектор фотограф ζωγράφος γλύπτης αρχιτέκτονας φωτογράφος",
    "business": "предприниматель бизнесмен банкир олигарх підприємець επιχειρηματίας εφοπλιστής",
    "religion": "священник епископ патриарх митрополит монах ιερέας επίσκοπος πατριάρχης μοναχός"}.items()
    for w in words.split()}
# German and Hungarian write a calling as the last part of a compound ("CSU-Politiker", "külügyminiszter"); English
# words ending so are other things ("typewriter", "underwriter")
_TAILS = {w: CALLINGS[w] for w in """politiker minister kanzler kanzlerin komponist schriftsteller schriftstellerin
    trainer maler physiker chemiker mathematiker sanger sangerin schauspieler schauspielerin unternehmer kaufmann
    priester bischof journalist architekt fussballer rennfahrer dirigent bildhauer musiker miniszter""".split()}
# callings as Chinese, Japanese and Korean write them inside an unspaced phrase ("プロサッカー選手")
_UNSPACED = {w: field for field, words in {
    "sport": "選手 サッカー 野球 力士 棋士 运动员 球员 足球 선수 축구",
    "public": "政治家 議員 首相 大統領 知事 市長 政治人物 总统 总理 议员 정치인 대통령 장관",
    "performing": "俳優 歌手 女優 作曲家 音楽家 演员 导演 가수 작곡가",
    "letters": "作家 小説家 詩人 哲学者 诗人 작가 소설가",
    "science": "科学者 物理学者 化学者 数学者 医師 科学家 物理学家 과학자",
    "business": "実業家 経営者 企業家 企业家 实业家 기업인 사업가 경영자",
    "religion": "僧侶 牧師 神父 僧人 牧师 목사 승려"}.items() for w in words.split()}
# (not 감독, a film director and a football manager; 의사, a physician and a martyr; 배우, 시인, 기자 and 신부,
# also "learn", "admit", a press conference and a bride; nor 記者, in 記者会見)
_STUDIES = ("ologist", "ologe", "ologin", "ologue", "ólogo", "ologo")  # "cardiologist", "Kardiologe", "cardiólogo"


@lru_cache(maxsize=16384)
def _fields_in(text: str) -> frozenset[str]:
    found = set()
    words = key_of(text).split()
    found.update(CALLINGS[pair] for pair in map(" ".join, zip(words, words[1:])) if pair in CALLINGS)  # "centre-back"
    for word in words:
        if not word.isascii():  # the unspaced callings are CJK: no word of other scripts holds one
            found.update(field for w, field in _UNSPACED.items() if w in word)
        field = CALLINGS.get(word) or next((_TAILS[word[i:]] for i in range(1, len(word) - 5) if word[i:] in _TAILS),
                                           None) or ("science" if word.endswith(_STUDIES) else None)
        if field:
            found.add(field)
    return frozenset(found)


def callings(p: Profile) -> frozenset[str]:
    """The fields of what ``p`` does, by its type and what its description says it is."""
    return _fields_in(" ".join(sorted(p.written_types))) | _fields_in(" ".join(defining_clauses(p)))  # both cached


def callings_apart(a: Profile, b: Profile) -> str:
    """Why two people of one name are two: each is said to do what the other is not ("" when nothing says so)."""
    if not (a.person_compatible and b.person_compatible) or not (a.personal or b.personal):
        return ""
    ca, cb = callings(a), callings(b)
    if ca | cb <= _BUSINESS_IN_OFFICE:  # "Senator ..., owner of Capital Oil", "Nigerian businessman": one life
        return ""
    return "people of different callings" if ca and cb and not ca & cb else ""


# callings one life often holds both of, read apart on two descriptions (a merchant and an anthropologist, a
# businessman and a footballer stay two)
_BUSINESS_IN_OFFICE = frozenset({"business", "public"})


# sports, in several languages: two things or people of one name in different sports are two ("U.S. Open", the
# tennis Grand Slam; "US Open", the golf major)
_SPORTS = {w: sport for sport, words in {
    "football": "football, futbol, futebol, fussball, voetbal, soccer, pilka nozna, футбол, サッカー, 축구, 足球, "
                "american football, nfl, footballer, futbolista, futebolista, calciatore, footballeur, pilkarz, "
                "футболист, pilkarski, pilkarska, pilkarskie, fotball, fotboll, fodbold, jalkapallo, nogomet, "
                "fudbal",  # "football" is either in American texts,
    "tennis": "tennis, tenis, теннис, テニス, 테니스, 网球, 網球",
    "golf": "golf, golfer, golfista, pga, гольф, ゴルフ, 골프, 高尔夫",
    "basketball": "basketball, nba, baloncesto, basquete, pallacanestro, koszykowka, баскетбол, バスケットボール, 농구, 篮球",
    "baseball": "baseball, mlb, beisbol, beisebol, 野球, 야구, 棒球",
    "cricket": "cricket, cricketer, क्रिकेट",
    "rugby": "rugby, регби",
    "ice hockey": "ice hockey, nhl, хоккей, アイスホッケー, eishockey",
    "volleyball": "volleyball, voleibol, pallavolo, siatkowka, волейбол, バレーボール, 배구, 排球",
    "handball": "handball, balonmano, handebol, pallamano",
    "cycling": "cycling, cyclist, ciclismo, ciclista, radsport, radrennfahrer, cyclisme, cycliste, kolarstwo, "
               "велоспорт, велогонщик",
    "boxing": "boxeo, boxeador, pugile, бокс, боксёр, боксер",
    "chess": "chess, ajedrez, xadrez, scacchi, szachy, шахматы, schach, schachclub, schachklub, schachverein",
    "motor racing": "formula one, formula 1, motorsport, motogp, nascar, racing driver, rally driver, wrc",
    "athletics": "athletics, atletismo, leichtathletik, sprinter, hurdler, marathoner",
    "swimming": "swimming, swimmer, natacion, nadador, schwimmer, nageur, пловец",
    "skiing": "skiing, skier, alpine skiing, ski jumping, ski jumper, nordic combined, cross-country skier, "
              "biathlon, biathlete, skirennlaufer, skispringer, langlaufer, esquiador, лыжник",
    "snooker": "snooker, billiards",
    "sumo": "sumo, 相撲",
    "sailing": "sailing, yachting, regatta, segeln, segelclub, segelverein, парусный спорт",
    "rowing": "rowing, rudern, ruderclub, aviron, roeien, гребля",
    "gymnastics": "gymnastics, gimnasia, ginnastica, gymnastique, гимнастика",
}.items() for w in words.split(", ")}


# the sports' words that begin compounds and no other word ("golf": "Golfstrom", the Gulf Stream; "calcio": calcium)
_COMPOUNDING = frozenset("football fussball futbol tennis basketball baloncesto handball volleyball cricket".split())
_COMPOUND_STARTS = frozenset(w[:4] for w in _COMPOUNDING)


@lru_cache(maxsize=16384)
def sports_of(text: str) -> frozenset[str]:
    """The sports ``text`` names, its two-word names first ("ice hockey" is no "hockey" of another kind)."""
    words, found, i = key_of(text).split(), set(), 0
    while i < len(words):
        pair = " ".join(words[i:i + 2])
        if pair in _SPORTS:
            found.add(_SPORTS[pair])
            i += 2
            continue
        word = words[i]
        if word in _SPORTS:
            found.add(_SPORTS[word])
        elif word[:4] in _COMPOUND_STARTS:  # a compound's first part ("Fußballverein", "Tennisspielerin")
            found.update(_SPORTS[w] for w in _COMPOUNDING if word.startswith(w))
        i += 1
    return frozenset(found)


def sports_apart(a: Profile, b: Profile) -> str:
    """Why two of one name are two: each description names sports the other's does not."""
    sa, sb = sports_of(a.description), sports_of(b.description)
    return "described in different sports" if sa and sb and not sa & sb else ""


# an office held in turn, and the ordinals that count its holders ("the fourth president", "43rd U.S. president")
_OFFICES = frozenset("""president premier chancellor king queen emperor pope governor mayor chairman secretary-general
    prime ceo shah sultan emir""".split())
_ORDINALS = {w: n for n, w in enumerate("""first second third fourth fifth sixth seventh eighth ninth tenth eleventh
    twelfth""".split(), 1)} | {"founding": 1}
_NUMBERED = re.compile(r"^(\d{1,3})(?:st|nd|rd|th)$")


@lru_cache(maxsize=16384)
def _holders(text: str) -> frozenset[tuple[str, int]]:
    """(office, ordinal) pairs ``text`` gives: an ordinal and, within three words after it, an office."""
    words, found = re.findall(r"[\w-]+", re.sub(r"['’]s\b", "", text.casefold())), set()
    for i, w in enumerate(words):
        n = _ORDINALS.get(w) or (int(m.group(1)) if (m := _NUMBERED.match(w)) else 0)
        office = next((o for o in words[i + 1:i + 4] if o in _OFFICES), "") if n else ""
        if office:
            found.add((office, n))
    return frozenset(found)


def offices_apart(a: Profile, b: Profile) -> str:
    """Why two people of one name are two: each description counts them in one office, by other ordinals ("Kenya's
    founding president", "fourth president of Kenya"); "" when nothing says so."""
    if not (a.person_compatible and b.person_compatible):
        return ""
    ha, hb = _holders(a.description), _holders(b.description)
    shared = {o for o, _ in ha} & {o for o, _ in hb}
    return "holders of one office by other counts" if any(
        not {n for o, n in ha if o == office} & {n for o, n in hb if o == office} for office in shared) else ""
