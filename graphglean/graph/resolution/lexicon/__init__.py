"""The words reading a name relies on: articles, titles and their gender, generational markers, number words,
legal forms of companies, countries and the institutions a country prefix may stand before, kinship words.

English first, with the common forms of the main European languages; a language they miss is still read by
its key, only with less evidence. All words are folded (lower case, accents kept where a name keeps them).
"""

from __future__ import annotations

from .geography import (  # noqa: F401  (the lexicon is one namespace to its readers)
    COUNTRIES, COUNTRY_EXTRA, COUNTRY_LONGEST, COUNTRY_NAMES, COUNTRY_OF, COUNTRY_TLDS, COUNTRY_WORDS,
    ENDONYMS, GENERIC_TLDS, PLACE_PHRASES, REGION_COUNTRIES, REGION_EXONYMS, REGIONS, SECOND_LEVEL,
    TLD_COUNTRIES)
from .regions import SMALL_REGIONS, WORLD_REGION_EXONYMS, WORLD_REGIONS  # noqa: F401  (read through the lexicon)
from .levels import AFFIX_LEVELS, PLACE_LEVELS  # noqa: F401  (read through the lexicon)
from .scripts import ARABIC_ARTICLES, SCRIPT_FORMS  # noqa: F401  (read through the lexicon)

ARTICLES = frozenset("the a an le la les l der die das el los las il lo gli un une una uno ein eine het".split())
PARTICLES = frozenset("van von de da di del della der den du dos das bin ibn bint al el la las los le ter ten zu".split())
CONJUNCTIONS = frozenset("and & + or und oder et ou y och og és vs v versus".split())
JOINING = CONJUNCTIONS | frozenset("e i de do da di del".split())  # left out of a name's initials

# titles before a personal name, by the gender they say
MALE = frozenset(
    "mr mister master sir lord uncle nephew brother father grandpa grandfather king prince herr monsieur señor "
    "senor sr don signor signore sig senhor tio tío onkel oncle messrs emperor tsar czar kaiser sultan shah duke "
    "earl baron archduke congressman pope cardinal fr abbot sheikh ks ksiadz abp bp kard padre fray pere frere "
    "pater pfarrer furst fuerst graf freiherr herzog markgraf kurfurst card msgr".split())  # clergy of other languages: "ks. Jan Twardowski" (ksiądz), "Fray Luis de León"
FEMALE = frozenset(
    "mrs missus ms miss misses dame lady aunt auntie niece sister mother grandma grandmother queen princess frau "
    "fräulein fraulein mme madame mlle mademoiselle señora senora sra señorita senorita srta doña dona signora "
    "signorina senhora tia tía tante empress tsarina czarina duchess countess baroness archduchess congresswoman "
    "abbess bundeskanzlerin kanzlerin sheikha shaikha".split())
NEUTRAL = frozenset(
    "old young dr doctor prof professor rev reverend capt captain col colonel gen general lt sgt saint st cousin "
    "dott senator sen president pres vice prime minister premier chancellor bundeskanzler kanzler secretary "
    "ambassador governor gov mayor judge justice chief commander cmdr admiral adm major maj lieutenant sergeant "
    "corporal private officer detective inspector constable sheriff marshal agent bishop archbishop pastor rabbi "
    "imam ayatollah coach councillor councilor alderman representative rep speaker chairman chairwoman chair "
    "président presidente präsident ministerpräsident ministre ministro minister dottore ing avv sri shri smt "
    "hon honourable honorable count excellency rt lic".split())
# the same titles in other languages, as keys read them (accents and Arabic hamzas dropped): "El rey Juan Carlos",
# "Der König", "الأمير محمد بن سلمان"
MALE = MALE | frozenset(
    "rey roi konig koenig principe prinz infante emperador empereur imperatore господин король царь принц "
    "император السيد الامير الملك الشيخ السلطان 국왕 国王 國王 皇帝 王子 kong kung koning krol kral kiraly "
    "kuningas maharaja oba kabaka mwami emir bwana mzee".split())
FEMALE = FEMALE | frozenset(
    "reina reine konigin koenigin princesa principessa prinzessin princesse infanta emperatriz imperatrice "
    "kaiserin rainha госпожа королева царица принцесса императрица السيدة الاميرة الملكة 여사 왕비 "
    "女士 小姐 夫人 女王 公主 dronning drottning koningin krolowa kralovna kralice kiralyno kuningatar "
    "maharani".split())
NEUTRAL = NEUTRAL | frozenset("президент премьер министр الرئيس الدكتور mwalimu mheshimiwa".split()) | frozenset(
    "cumhurbaskani basbakan".split()) | frozenset(
    "datuk dato datin tan tun toh puan seri tunku tengku haji hajjah pehin".split()) | frozenset(  # Malay: "Datuk
    "ir drs bapak kh".split())  # Seri Anwar"; Indonesian: "Ir. Soekarno" (not "Pak", a Korean surname too)
FEMALE = FEMALE | frozenset("ibu hj dra".split())
HONORIFICS = MALE | FEMALE | NEUTRAL
PLURAL_HONORIFICS = frozenset({"misses", "messrs"})
# a royal's, a prelate's or a head of state's style before a title or a name, as keys read it ("H.R.H.": "h r h"),
# in several languages
STYLES = frozenset(tuple(style.split()) for style in """his majesty, her majesty, his royal highness,
her royal highness, his highness, her highness, his holiness, his imperial majesty, her imperial majesty, his serene
highness, her serene highness, his eminence, h m, hm, h r h, hrh, h h, hh, h i m, h s h, hsh, s m, su majestad,
su alteza real, su alteza, sa majeste, son altesse royale, seine majestat, ihre majestat, seine hoheit, ihre hoheit,
sua maesta, s a r, his excellency, her excellency, su excelencia, son excellence""".replace("\n", " ").split(", "))
# "of" between a ruler and a realm, as the ruler's language writes it ("Felipe VI de España", "Roi des Belges",
# "Carl XVI Gustaf av Sverige", "Willem-Alexander der Nederlanden")
REALM_PARTICLES = ("of", "des", "de", "del", "do", "da", "di", "du", "von", "van", "der", "av", "af")
# a title that names its bearer by the given name alone ("King Charles", "Pope Francis", "Prince William")
ROYAL = frozenset("king queen prince princess emperor empress tsar czar tsarina czarina kaiser sultan shah pope "
                  "saint st archduke archduchess pharaoh caliph emir rey reina roi reine konig koenig konigin "
                  "koenigin principe princesa principessa prinz prinzessin princesse infante infanta emperador "
                  "emperatriz empereur imperatrice imperatore kaiserin rainha король королева царь царица принц "
                  "принцесса император императрица الامير الاميرة الملك الملكة السلطان oba kabaka mwami".split()) | frozenset(
    "kong dronning drottning kung koning koningin krol krolowa kral kralice kralovna kiraly kiralyno kuningas "
    "kuningatar maharaja maharani".split())  # kings and queens of more languages (not "Rani", "Regina": names)
# given names that say a gender in nearly every use (names borne by both, "Jordan", "Kim", "Andrea", are in neither)
MALE_GIVEN = frozenset(
    "john james robert michael william david richard joseph thomas charles christopher daniel matthew george "
    "edward henry paul mark donald steven kenneth andrew joshua kevin brian ronald anthony jacob gary eric "
    "jonathan stephen larry justin scott frank benjamin gregory samuel raymond patrick jack dennis jerry tyler "
    "aaron adam nathan peter walter harold arthur albert louis ludwig franz friedrich wilhelm heinrich hans karl "
    "klaus jürgen wolfgang pierre jacques jean-paul françois henri philippe michel nicolas emmanuel giuseppe "
    "giovanni luigi marco francesco antonio alessandro pedro pablo juan carlos josé jose miguel luis diego "
    "fernando vladimir ivan dmitri sergei mikhail nikolai boris alexei igor mohammed muhammad ahmed ali omar "
    "hassan hussein ibrahim yusuf mustafa abdul rajesh rahul amit sanjay vijay arjun hiroshi takeshi kenji "
    "haruki lars sven erik olaf bjorn björn barack elon bill ebenezer jacob isaac abraham moses "
    "ulysses woodrow franklin dwight lyndon ronald gerald jimmy".split())
FEMALE_GIVEN = frozenset(
    "mary patricia jennifer linda elizabeth barbara susan jessica sarah karen nancy lisa betty margaret sandra "
    "ashley kimberly emily donna michelle dorothy carol amanda melissa deborah stephanie rebecca sharon laura "
    "cynthia kathleen amy angela shirley anna brenda pamela emma nicole helen samantha katherine christine "
    "debra rachel carolyn janet catherine maria heather diane julie joyce victoria kelly christina joan evelyn "
    "lauren judith olivia martha cheryl megan hannah jacqueline ann anne jane alice julia grace sophia "
    "charlotte isabella amelia marie sophie claire camille isabelle françoise monique nathalie brigitte "
    "chloé chloe ursula greta ingrid gisela hildegard sabine giulia francesca chiara giovanna lucia carmen "
    "lucía rosa pilar dolores elena natalia olga tatiana svetlana irina anastasia ekaterina fatima aisha "
    "khadija zainab priya sunita anjali lakshmi yuki keiko hanako sakura hillary jacinda angela "
    "theresa margaret indira golda eleanor ada florence marilyn madonna beyoncé beyonce serena venus "
    "oprah melania michelle kamala nancy".split())
# honorific suffixes joined by a hyphen ("Tanaka-san")
SUFFIX_TITLES = frozenset("san sama kun chan sensei senpai dono ji sahib".split())
# the most borne Korean family names, romanized: beside one, "-chan" or "-san" ends a two-syllable given name
# ("Hwang Hee-chan", "Hee-chan Hwang"), not a Japanese title ("Tanaka-san")
KOREAN_FAMILY_NAMES = frozenset("""kim lee yi park pak choi choe jung jeong chung kang cho jo yoon yun jang chang lim im
    han oh seo shin sin kwon son song ahn an yoo yu ryu hong jeon chun ko go moon mun yang bae baek paik heo hur nam
    noh roh ha kwak sung seong cha joo ju woo wu koo gu min na ji jin eom um won bang pyo byun byeon hwang""".split())
# titles after a name written apart (Korean: "문재인 대통령") or joined (Chinese, Japanese: "習近平主席", "安倍首相");
# those that say a gender are in MALE or FEMALE too
TRAILING_TITLES = frozenset("대통령 총리 장관 의원 회장 대표 위원장 주석 국왕 교수 박사 씨 님 총장 사장 선생님 후보 여사 왕비 "
                            "국무위원장 부위원장 국무총리 부총리 부회장 대표이사 당대표 원내대표".split())  # offices, not callings
JOINED_TITLES = frozenset(
    "主席 国家主席 國家主席 首相 总统 總統 大総統 大統領 总理 總理 総理 総理大臣 总书记 總書記 総書記 先生 氏 さん 様 さま "
    "殿 社長 会長 議員 议员 教授 博士 委員長 委员长 书记 書記 市長 市长 知事 陛下 殿下 総裁 总裁 女士 小姐 夫人 女王 国王 國王 皇帝 "
    "王子 公主".split())

# generational markers after a personal name: the same marker means the same generation
GENERATIONS = {"jr": "jr", "junior": "jr", "jun": "jr", "fils": "jr", "filho": "jr", "júnior": "jr", "hijo": "jr",
               "younger": "jr", "sr": "sr", "senior": "sr", "sen": "sr", "père": "sr", "pere": "sr", "elder": "sr",
               # "der Ältere", "Starszy" and their juniors; not "de Jonge", "Del Vecchio", "Le Jeune": surnames too
               "altere": "sr", "jungere": "jr", "starszy": "sr", "mlodszy": "jr"}
# generational markers that are surnames too ("Wim de Jonge", "Claude Le Jeune"): read as such only after a given
# name and a surname ("Pieter Brueghel de Jonge", "Johann Strauss Sohn")
SURNAME_GENERATIONS = {"de jonge": "jr", "de oude": "sr", "le jeune": "jr", "l'ancien": "sr", "il giovane": "jr",
                       "il vecchio": "sr", "el joven": "jr", "el viejo": "sr", "o moco": "jr", "o velho": "sr",
                       "mladsi": "jr", "starsi": "sr"}
# and those read only in parentheses ("Johann Strauss (Sohn)"; "Sohn Hak-kyu", "Johann Severin Vater": surnames)
PARENTHESIZED_GENERATIONS = {"sohn": "jr", "vater": "sr"}
# generational markers written before the name (Hungarian: "id. Antall József", the father; "ifj.", the son)
LEADING_GENERATIONS = {"id": "sr", "idosebb": "sr", "ifj": "jr", "ifjabb": "jr"}
# the article before a generational marker, left out with it ("the Elder", "der Ältere")
GENERATION_ARTICLES = frozenset("the der".split())

ORDINALS = {w: i for i, w in enumerate(
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split())}
CARDINALS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split()) if i}

# legal forms of companies, as they end a name (read after punctuation is gone: "S.p.A." is "s p a");
# each with its canonical form, so "Corp." and "Corporation" are one form
LEGAL_FORMS = {
    "inc": "incorporated", "incorporated": "incorporated", "corp": "corporation", "corporation": "corporation",
    "co": "company", "company": "company", "ltd": "limited", "limited": "limited", "llc": "llc", "l l c": "llc",
    "plc": "plc", "p l c": "plc", "ag": "ag", "gmbh": "gmbh", "kgaa": "kgaa", "kg": "kg", "se": "se", "sa": "sa",
    "s a": "sa", "sas": "sas", "s a s": "sas", "sau": "sau", "s a u": "sau", "spa": "spa", "s p a": "spa",
    "srl": "srl", "s r l": "srl", "sarl": "sarl", "s a r l": "sarl", "nv": "nv", "n v": "nv", "bv": "bv",
    "b v": "bv", "a s": "as", "asa": "asa", "ab": "ab", "oy": "oy", "oyj": "oyj", "abp": "oyj", "sgps": "sgps", "kk": "kk", "k k": "kk",
    "lp": "lp", "l p": "lp", "llp": "llp", "l l p": "llp", "pte": "pte", "pty": "pty", "bhd": "bhd", "tbk": "tbk",
    "ltda": "ltda", "sl": "sl", "s l": "sl", "s a d": "sad", "persero": "persero", "pjsc": "pjsc", "jsc": "jsc", "ooo": "ooo", "cv": "cv", "e v": "ev",
    "s a de c v": "sa de cv", "sa de cv": "sa de cv", "s a b de c v": "sab de cv", "sab de cv": "sab de cv",
    "s de r l de c v": "srl de cv", "s de r l": "srl", "eirl": "eirl", "ltd sti": "ltd sti",
    "pvt": "private", "pvt ltd": "private limited", "private limited": "private limited",
    "sdn bhd": "sdn bhd", "aps": "aps", "kft": "kft", "zrt": "zrt", "nyrt": "nyrt", "sp z o o": "sp zoo",
    "d o o": "doo", "pao": "pjsc", "оао": "ojsc", "пао": "pjsc", "зао": "cjsc",
    "ооо": "ooo", "ао": "jsc", "пат": "pjsc", "тов": "ooo", "прат": "cjsc",
    "s r o": "sro", "sro": "sro", "α ε": "ae", "ε π ε": "epe", "tnhh": "llc",
    "ش م ع": "pjsc", "ش م ع ق": "pjsc", "ش م م": "llc", "ش م خ": "cjsc", "ذ م م": "llc",
    "berhad": "bhd", "publ": "publ", "ab publ": "ab", "pcl": "pcl", "p c l": "pcl", "sab": "sab", "s a b": "sab",
    "จำกัด": "limited", "จำกัด มหาชน": "pcl", "בע מ": "limited", "लिमिटेड": "limited",
    "प्राइवेट लिमिटेड": "private limited", "प्रा लि": "private limited",
    # written in full, as a name's formal form has it ("ORLEN Spółka Akcyjna", "Fenerbahçe Anonim Şirketi")
    "aktiengesellschaft": "ag", "gesellschaft mit beschrankter haftung": "gmbh", "naamloze vennootschap": "nv",
    "besloten vennootschap": "bv", "societe anonyme": "sa", "sociedad anonima": "sa", "societa per azioni": "spa",
    "spolka akcyjna": "sa", "spolka z ograniczona odpowiedzialnoscia": "sp zoo", "akciova spolecnost": "as",
    "spolecnost s rucenim omezenym": "sro", "anonim sirketi": "as", "aktiebolag": "ab", "aksjeselskap": "as",
    "osakeyhtio": "oy", "julkinen osakeyhtio": "oyj", "public limited company": "plc",
    "limited liability company": "llc", "joint stock company": "jsc",
}
# the countries whose listed companies' own legal forms these are (forms of one country or a few; "sa",
# "limited" and their kin are everyone's, "oy", "ab", "gmbh" a subsidiary's as often): such a company may write
# its name with the English word instead ("Kone Oyj", "KONE Corporation")
LEGAL_FORM_COUNTRIES = {form: frozenset(countries.split(", ")) for form, countries in {
    "oyj": "finland", "asa": "norway", "ag": "germany, austria, switzerland", "kk": "japan", "spa": "italy",
    "nv": "netherlands, belgium", "nyrt": "hungary", "tbk": "indonesia", "bhd": "malaysia", "pjsc": "russia",
    "pcl": "thailand", "sab de cv": "mexico"}.items()}
# abbreviations written either way inside names: the full word is the key's
ABBREVIATIONS = {"bros": "brothers", "univ": "university", "dept": "department", "intl": "international",
                 "natl": "national", "assn": "association", "assoc": "association", "inst": "institute",
                 "mfg": "manufacturing", "govt": "government", "&": "and"}
# "St. Louis", "Sankt Gallen" = "St. Gallen", "Sint-Niklaas"; "Main St." is a street
LEADING_ABBREVIATIONS = {"mt": "mount", "ft": "fort", "st": "saint", "sankt": "saint", "sint": "saint", "ste": "sainte"}

INSTITUTIONS = frozenset(
    "ministry department dept agency office bureau service services army navy air force marines marine corps coast "
    "guard police parliament senate congress court government embassy consulate treasury administration commission "
    "committee council authority directorate cabinet census federal reserve ministerium ministère ministerio "
    "ministero bundesamt armed forces military intelligence customs".split())

KIN = frozenset(
    "father mother son daughter husband wife brother sister uncle aunt nephew niece cousin grandson granddaughter "
    "grandfather grandmother grandchild widow widower parent parents child children sibling spouse stepson "
    "stepdaughter stepfather stepmother fiancé fiancée fiance fiancee in-law".split())
# and in the other languages descriptions come in, for saying a node is somebody's relative
KIN_ANY = KIN | frozenset(
    """bruder schwester sohn tochter vater mutter ehefrau ehemann witwe enkel enkelin neffe nichte frère frere
    sœur soeur fille père pere mère mere épouse epouse époux epoux veuve neveu nièce hermano hermana hijo hija
    madre esposa esposo viuda sobrino nieto irmão irmao irmã irma filho filha pai mãe mae fratello sorella figlio
    figlia moglie marito vedova nipote brat siostra syn córka corka ojciec matka żona zona mąż maz broer zus zoon
    dochter vader moeder weduwe padre abuelo abuela nieta sobrina nonno nonna отец мать сын дочь брат сестра муж
    жена вдова вдовец внук внучка дед бабушка дядя племянник племянница батько мати син донька""".split())
MALE_NOUNS = frozenset("husband father son brother uncle nephew grandfather grandson widower king prince emperor "
                       "businessman congressman chairman stepfather stepson boy man gentleman".split())
FEMALE_NOUNS = frozenset("wife mother daughter sister aunt niece grandmother granddaughter widow queen princess "
                         "empress businesswoman congresswoman chairwoman stepmother stepdaughter girl woman lady "
                         "actress".split())
# degrees and honours after a personal name ("John Smith, MD"): not a qualifier
CREDENTIALS = frozenset("md phd esq mba cpa rn dds jd llm obe cbe kbe mbe dbe frs qc kc mp ba ma bsc msc".split())
# what a description calls a node that is not a person ("Lincoln is a cathedral city")
THINGS = frozenset(
    "city town village capital county state country region province district river lake sea ocean mountain island "
    "street road avenue square airport station port bridge building palace castle church cathedral company "
    "carmaker automaker manufacturer maker corporation firm brand business bank university college school "
    "hospital band magazine newspaper journal team club league agency ministry department party product car "
    "model software program programme app book film novel album song ship aircraft planet element".split())

# words that name a company's whole group, apart after the name ("Alibaba Group Holding", "Sony Group"), apart
# before it ("Grupo Bimbo", "Groupe Renault") or joined in CJK and Korean ("ソニーグループ", "阿里巴巴集团", "삼성그룹")
GROUP_WORDS = frozenset("group groupe gruppe grupo gruppo groep grupa grup koncern konzern concern holding holdings "
                        "группа холдинг".split())
# a cooperative's words, read as a group word's only before one ("Fonterra Co-operative Group"; not "CHS
# Cooperative", another CHS, nor "Farmers Cooperative")
COOPERATIVE_WORDS = frozenset("cooperative cooperativa kooperative genossenschaft".split())
GROUP_LEADING = frozenset("grupo groupe gruppo grupa grup".split())
GROUP_JOINED = ("ホールディングス", "グループ", "集团", "集團", "控股", "그룹", "홀딩스", "지주")
# legal forms that open a name ("PJSC Lukoil", "PT Bank Mandiri"), as the trailing ones
LEADING_LEGAL_FORMS = {"pjsc": "pjsc", "pao": "pjsc", "ojsc": "ojsc", "oao": "ojsc", "cjsc": "cjsc", "zao": "cjsc",
                       "jsc": "jsc", "ooo": "ooo", "pt": "pt", "пао": "pjsc", "оао": "ojsc", "зао": "cjsc",
                       "ооо": "ooo", "ао": "jsc", "пат": "pjsc", "прат": "cjsc", "тов": "ooo",
                       "công ty cổ phần": "jsc", "công ty tnhh": "llc", "ctcp": "jsc", "บริษัท": "company",
                       "koninklijke": ""}  # the Dutch royal title of a company ("Koninklijke KPN"): no legal form
# legal forms and administrative affixes written without a space in CJK scripts (and Korean's "(주)"), before
# or after the name: each with its canonical form; a place's affix reads "place " and its kind. "集团" (group)
# alone is part of a name, as "Group" is; "北海道" is no "北海" (the North Sea): "道" is left out.
UNSPACED_AFFIXES = {
    "株式会社": "kk", "有限会社": "yugen kaisha", "合同会社": "godo kaisha", "合資会社": "goshi kaisha",
    "有限公司": "limited", "有限责任公司": "llc", "有限責任公司": "llc", "股份有限公司": "company limited by shares",
    "集团有限公司": "group limited", "集團有限公司": "group limited", "控股有限公司": "holdings limited",
    "集团股份有限公司": "group limited by shares", "控股股份有限公司": "holdings limited by shares",
    "(株)": "kk", "(有)": "yugen kaisha", "公司": "company", "集团公司": "group company", "集團公司": "group company",
    "(주)": "jusik hoesa", "주식회사": "jusik hoesa", "(유)": "yuhan hoesa", "유한회사": "yuhan hoesa",
    "市": "place city", "省": "place province", "自治区": "place autonomous region", "自治區": "place autonomous region",
    "特别行政区": "place sar", "特別行政區": "place sar", "县": "place county", "縣": "place county",
    "自治州": "place autonomous prefecture", "自治县": "place autonomous county", "都": "place metropolis",
    "府": "place prefecture", "県": "place prefecture", "특별시": "place special city", "광역시": "place metro city",
    "특별자치시": "place special city", "특별자치도": "place special province", "도": "place province",
    "시": "place city", "군": "place county", "区": "place district", "區": "place district", "町": "place town",
    "村": "place village",
}
UNSPACED_LEADING = frozenset({"株式会社", "有限会社", "合同会社", "(株)", "(有)", "(주)", "주식회사", "(유)", "유한회사"})
# administrative words written apart around a place's name ("г. Казань", "город Казань", "Ленинградская обл.")
# an abbreviation ("г", "обл") counts only with its dot
PLACE_LEADING = {"г": "place city", "гор": "place city", "город": "place city", "м": "place city",
                 "місто": "place city", "пгт": "place town", "с": "place village", "село": "place village",
                 "республика": "place republic", "stadt": "place city", "hansestadt": "place city",
                 "landeshauptstadt": "place city", "gemeinde": "place city", "gemeente": "place city",
                 "comune di": "place city", "città di": "place city", "ciudad de": "place city",
                 "municipio de": "place city", "município de": "place city", "cidade de": "place city",
                 "ville de": "place city", "commune de": "place city", "miasto": "place city",
                 "město": "place city", "grad": "place city"}
PLACE_TRAILING = {"обл": "place oblast", "область": "place oblast", "край": "place krai", "р-н": "place district",
                  "район": "place district", "респ": "place republic"}

# a sports club's abbreviation or generic words, before or after its name ("AFC Ajax", "Sevilla FC",
# "Club Atlético Boca Juniors", "Real Betis Balompié"), as words read after dots are gone ("F.C.": "f c"); an
# ordinal before it belongs to it ("1. FC Köln")
CLUB_FORMS = {form.replace("_", " "): canon for canon, forms in (
    ("fc", "fc f_c fk f_k football_club futbol_club fussballclub fußballclub"), ("afc", "afc a_f_c"),
    ("cf", "cf c_f club_de_futbol"), ("sc", "sc s_c sporting_club sport_club"), ("us", "us u_s unione_sportiva"),
    ("uc", "uc u_c unione_calcio"), ("sk", "sk s_k spor_kulubu"), ("sl", "sl s_l"),
    ("as", "as a_s"), ("ss", "ss s_s"), ("ssc", "ssc s_s_c"), ("ac", "ac a_c"), ("acf", "acf a_c_f"),
    ("rsc", "rsc r_s_c"), ("krc", "krc"), ("gnk", "gnk"), ("hnk", "hnk"), ("nk", "nk"), ("ca", "ca c_a club_atletico"),
    ("cr", "cr c_r club_de_regatas"), ("cd", "cd c_d club_deportivo"), ("rcd", "rcd"), ("ud", "ud u_d"),
    ("sd", "sd"), ("rc", "rc"), ("bv", "bv"), ("vfb", "vfb"), ("vfl", "vfl"), ("tsv", "tsv"), ("tsg", "tsg"),
    ("sv", "sv s_v"), ("fsv", "fsv"), ("ogc", "ogc"), ("osc", "osc"), ("aj", "aj"), ("sfc", "sfc"), ("cfc", "cfc"),
    ("pfc", "pfc"), ("bk", "bk"), ("if", "if"), ("ifk", "ifk"), ("ik", "ik"), ("ff", "ff"), ("bc", "bc b_c"),
    ("hc", "hc h_c"), ("bsc", "bsc"), ("kv", "kv"), ("kaa", "kaa"), ("sbv", "sbv"), ("se", "se"), ("ec", "ec"),
    ("jk", "jk j_k"), ("losc", "losc"), ("rfc", "rfc r_f_c"), ("kk", "kk"),
    ("tc", "tc torna_club"), ("te", "te torna_egylet"), ("vsc", "vsc"), ("vtk", "vtk"),  # Hungarian
    ("ts", "ts towarzystwo_sportowe"),  # Polish, never dotted ("T. S. Eliot")
    ("balompie", "balompie"), ("calcio", "calcio"), ("olympique", "olympique olympique_de"),
    # Polish (Klub Sportowy, Klub Piłkarski and their kinds), German, Cyrillic (ФК, ПФК, СК, ХК, БК) and Greek
    # (ΠΑΕ, ΚΑΕ) forms
    ("ks", "ks k_s klub_sportowy"), ("kp", "kp"), ("kks", "kks"), ("mks", "mks"), ("gks", "gks"), ("lks", "lks"),
    ("wks", "wks"), ("rks", "rks"), ("zks", "zks"), ("spvgg", "spvgg"), ("tus", "tus"), ("vfr", "vfr"), ("ssv", "ssv"),
    ("fc", "фк футбольный_клуб футбольний_клуб фудбалски_клуб"), ("pfc", "пфк"), ("sk", "ск"), ("hc", "хк"),
    ("bc", "бк"), ("pae", "παε"), ("kae", "καε"))
    for form in forms.split()}
CLUB_LONGEST = max(len(k.split()) for k in CLUB_FORMS)
HUNGARIAN_CLUBS = frozenset("tc te vsc vtk".split())  # after a place's adjective: "Ferencvárosi TC"
CITY_JOINERS = frozenset({"de", "di", "da", "do", "of", "von"})  # before a club's city: "Espanyol de Barcelona"
# the one-word compounds that a club's abbreviation spells two letters of ("Malmö Fotbollförening", "Malmö FF";
# "Helsingin Jalkapalloklubi", "HJK"), as words read without their accents
CLUB_COMPOUNDS = {w: c for c, words in (
    ("ff", "fotbollforening fotbollsforening"), ("if", "idrottsforening idrottsforeningen idrettsforening idraetsforening"),
    ("ik", "idrottsklubb idrottsklubben"),
    ("bk", "bollklubb bollklubben boldklub boldklubben ballklub ballklubb"),
    ("fk", "fotballklubb fodboldklub fotbollklubb"), ("sk", "sportklubb sportklubben sportklub"),
    ("il", "idrettslag"), ("sv", "sportverein"), ("bv", "ballspielverein"), ("tv", "turnverein"),
    ("fv", "fussballverein"), ("vv", "voetbalvereniging"), ("jk", "jalkapalloklubi"), ("ps", "palloseura"))
    for w in words.split()}
# the club abbreviations that say "club" whatever the context ("FC"; "SC" may be S.C. Johnson, "AS" a Norwegian firm)
CLUB_CERTAIN = frozenset(c for c in set(CLUB_FORMS.values()) if len(c) > 2 or c in ("fc", "cf"))
# what says a node is a sports club: in its type, or in either description (as a word, or inside one:
# "Fußballverein")
SPORTS = frozenset(
    "club team sports sport football soccer league cup stadium season coach player players match goal goals "
    "championship champions derby coached coaches cups leagues seasons matches stadiums clubs teams "
    "footballer footballers goalkeeper midfielder striker uefa fifa fc futbol fútbol fußball fussball calcio "
    "futebol verein basketball hockey rugby "
    "cricket eredivisie bundesliga premiership liga ligue serie deportivo deportiva esportivo sportivo spor "
    "sportif sportive clube squadra équipe equipo equipe elftal ploeg drużyna joukkue".split())
SPORTS_STEMS = ("football", "fussball", "fußball", "futbol", "fútbol", "futebol", "verein", "klub", "kulüb", "piłk",
                "sportegyes", "labdarúg",
                "hockey", "basketbol", "basketball",
                "клуб", "футбол", "хокке", "ποδοσφ", "ποδόσφ", "σύλλογ", "ομάδα", "俱乐部", "俱樂部", "足球", "球队", "球隊",
                "サッカー", "クラブ", "구단", "축구", "نادي", "كرة القدم", "מועדון", "क्लब", "फ़ुटबॉल", "फुटबॉल")

# how German and Scandinavian names are written without their letters ("Müller" as "Mueller", "Søren" as "Soeren")
WRITTEN_OUT = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ø": "oe", "å": "aa", "æ": "ae"})
