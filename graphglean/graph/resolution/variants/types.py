"""Types a model wrote in the text's language, or as an occupation: read as the English type the rules know
("Unternehmen", "entreprise", "empresa" as company; "Stadt", "ville", "город" as city; "Politiker",
"homme politique", "Komponist" as person). A type the table does not hold stays as written."""

from __future__ import annotations

from functools import lru_cache

from ....text.words import strip_accents
from ..lexicon import THINGS


def _table(groups: dict[str, str]) -> dict[str, str]:
    return {word: canonical for canonical, words in groups.items() for word in words.split("|")}


TYPE_WORDS = _table({
    "person": "persona|personne|osoba|kişi|인물|人物|شخص|человек|личность|persoon|henkilö|személy|πρόσωπο|व्यक्ति|"
              "người|pessoa|personaggio|persönlichkeit|personaje|personnage|politician|politiker|homme politique|"
              "femme politique|político|polityk|politik|politikus|politico|политик|政治家|정치인|composer|komponist|"
              "compositeur|compositor|kompozytor|compositore|композитор|writer|author|novelist|poet|schriftsteller|"
              "schriftstellerin|autor|écrivain|écrivaine|escritor|escritora|scrittore|pisarz|писатель|作家|작가|actor|"
              "actress|acteur|actrice|schauspieler|schauspielerin|attore|attrice|aktor|актёр|актер|俳優|배우|musician|"
              "singer|musiker|sänger|sängerin|chanteur|chanteuse|cantante|muzyk|певец|певица|歌手|가수|athlete|"
              "sportler|footballer|fußballspieler|fussballspieler|footballeur|futbolista|calciatore|piłkarz|"
              "футболист|monarch|king|queen|emperor|empress|könig|königin|roi|reine|rey|reina|król|królowa|король|"
              "королева|国王|天皇|painter|maler|peintre|pintor|pittore|scientist|physicist|chemist|philosopher|"
              "philosoph|philosophe|filósofo|filosofo|journalist|journaliste|periodista|businessman|businesswoman|"
              "unternehmer|empresario|priest|pope|saint|artist|künstler|artiste|explorer|inventor|erfinder|"
              # occupations in more languages (Hungarian, Czech, Turkish, Nordic, Dutch, Finnish, Portuguese, CJK)
              "zeneszerző|író|költő|színész|színésznő|énekes|sportoló|labdarúgó|skladatel|spisovatel|herec|"
              "herečka|zpěvák|fotbalista|filozof|filosof|besteci|yazar|siyasetçi|oyuncu|şarkıcı|futbolcu|tonsättare|"
              "författare|forfatter|skådespelare|skuespiller|sångare|sanger|fotbollsspelare|fodboldspiller|componist|"
              "schrijver|politicus|zanger|voetballer|säveltäjä|kirjailija|poliitikko|näyttelijä|laulaja|ator|atriz|"
              "cantor|cantora|actriz|escritora|作曲家|小説家|選手|政治人物|演员|运动员|球员|작곡가|선수|trainer",
    "city": "stadt|ville|ciudad|cidade|città|город|miasto|město|mesto|şehir|kaupunki|város|πόλη|市|都市|도시|城市|"
            "gemeinde|commune|municipio|município|comune|gmina|obec|dorf|pueblo|wieś|деревня|село",
    "country": "pays|país|paese|staat|land|kraj|ülke|страна|государство|国|国家|나라|국가",
    "region": "région|región|regione|bundesland|provinz|provincia|województwo|oblast|область",
    "company": "unternehmen|firma|entreprise|société|empresa|compañía|compagnie|azienda|società|bedrijf|onderneming|"
               "selskap|företag|virksomhed|yritys|cég|şirket|компания|предприятие|企業|会社|公司|기업|회사|spółka|"
               "przedsiębiorstwo|společnost|podnik|konzern|groupe|grupo|gruppo",
    "organization": "organisation|organización|organizzazione|organizacja|organizace|organisatie|организация|組織|"
                    "组织|단체|기관|kuruluş|örgüt|institution|institución|instytucja|behörde|agence|agencia",
    "club": "verein|klub|kulüp|клуб|클럽|俱乐部|구단|sportverein",
    "sports team": "equipo|equipo deportivo|squadra|drużyna|mannschaft|équipe|team|takım|команда",
    "newspaper": "zeitung|journal|periódico|diario|giornale|gazeta|газета|新聞|신문|krant|dagblad|tidning|avis|"
                 "quotidien|tageszeitung",
    "university": "universität|université|universidad|università|uniwersytet|univerzita|universiteit|университет|"
                  "üniversite|大学|대학교|대학|hochschule",
    "political party": "partei|parti|partido|partito|partia|партия|政党|정당",
    "bank": "banque|banco|банк|銀行|은행",
    "ship": "schiff|navire|bateau|buque|barco|nave|navio|statek|okręt|loď|корабль|судно|gemi|艦|軍艦|船|舰|军舰|"
            "함선|군함|schip|fregat|kruiser|onderzeeboot|niszczyciel|fregata|krążownik|fregatte|zerstörer|kreuzer|"
            "frégate|croiseur|fragata|крейсер|эсминец|фрегат",
    "event": "ereignis|événement|evento|wydarzenie|событие|事件|사건",
    "product": "produkt|produit|producto|prodotto|製品|产品|제품",
    "software": "logiciel|système d'exploitation|sistema operativo|sistema operacional|betriebssystem|"
                "system operacyjny|операционная система|オペレーティングシステム|操作系统|운영체제|besturingssysteem",
    "aircraft": "flugzeug|avion|avión|aereo|aeronave|samolot|самолёт|самолет|航空機|飞机|항공기|verkehrsflugzeug|"
                "avion de ligne|airliner|jetliner|airplane|aeroplane|plane|jet|passenger jet|regional jet|business jet|"
                "narrow-body|wide-body|narrowbody|widebody|avião|aereo di linea|旅客機|客机|여객기",
    "website": "serwis internetowy|portal internetowy|webový portál|webová stránka|웹사이트|ウェブサイト|网站|網站|сайт|"
               "веб-сайт|вебсайт|интернет-издание|site web|site internet|sitio web|sítio web|webseite|internetseite|"
               "internetportal|webportal|portale|portail|portal|nettsted|webbplats|hjemmeside|web sitesi|haber sitesi|"
               "news website|news portal|naujienų portalas|online shop|onlineshop|webshop",
})

# the same types in more languages and scripts (Nordic, Baltic, Romanian, Catalan, Czech, Hindi, Arabic...)
TYPE_WORDS |= _table({
    "city": "stad|by|ciutat|comuna|kommune|miestas|linn|pilsēta|grad|град|kota|thành phố|शहर|مدينة|kent|"
            "kleinstadt|großstadt|grossstadt|hauptstadt|municipality|municipalité|municipalidad|localidad|località",
    "island": "ø|ö|ön|øy|insel|île|isla|isola|ilha|wyspa|ostrov|остров|島|岛|섬|ada|saari|sziget",
    "river": "řeka|fluss|rivière|fleuve|río|fiume|rio|rzeka|река|川|河|강|nehir|joki|folyó|älv|elv|rivier|upė",
    "company": "aktiebolag|bolag|yhtiö|sociedad|automobilka|constructeur automobile|carmaker|automaker|airline|"
               "航空会社|aerolínea|compagnie aérienne|fluggesellschaft|linia lotnicza|havayolu|авиакомпания|"
               "companhia aérea|compagnia aerea|कंपनी|شركة|công ty|firma|unternehmensgruppe|brewery|brauerei|"
               "brasserie|cervecería",
    "organization": "organisasjon|organismo|organisme|instituto|institut|istituto|agentura|urząd|ведомство|fundación|"
                    "fondation|stiftung|asociación|association|verband|संगठन|منظمة|tổ chức",
    "club": "seura|jalkapalloseura|urheiluseura|idrottsförening|idrottsklubb|fotbollsförening|clube|voetbalclub|fotbalový klub|club de fútbol|club de football|fußballverein|fussballverein|"
            "fotbollsklubb|fodboldklub|fotballklubb|klub piłkarski|futbol kulübü|футбольный клуб",
    "band": "musikgruppe|zespół|kapela|grupo musical|gruppo musicale|groupe de musique|乐队|樂隊|밴드|バンド|"
            "rockband|popgruppe",
    "website": "strona internetowa|nettside|वेबसाइट|موقع|trang web",
    "ship": "laev|fartyg|skepp|örlogsskepp|krigsskepp|regalskepp|slagskepp|skib|skip|alus|hajó|ferry|färja|ferje|færge|traghetto|ferri|паром|passagierschiff",
    "product": "produs|termék|ürün|tuote|produto|produktmodell|produk|продукт|продукция|bidhaa|sản phẩm",
    "car": "auto|automobile|voiture|coche|automóvil|carro|samochód|автомобиль|automobil|bil|otomobil|自動車|汽车|"
           "mobil|ô tô|autó|araba|자동차|suv|hatchback|sedan|pickup|car model|kompaktwagen|kleinwagen|sportwagen|"
           "geländewagen|pkw|crossover|city car|supermini|coupé|coupe|convertible|roadster|minivan|kereta|xe hơi|車",
    "conference": "conferencia|conférence|konferenz|conferenza|conferência|konferencja|конференция|会議|会议|회의",
    "national park": "þjóðgarður|nationalpark|nasjonalpark|kansallispuisto|parc national|parque nacional|"
                     "parco nazionale|park narodowy|národní park|национальный парк|国立公園|国家公园|國家公園|국립공원",
    "motorcycle": "motorbike|motorrad|moto|motocicleta|motocicletta|motocykl|мотоцикл|オートバイ|バイク|摩托车|오토바이|"
                  "superbike|sport bike|sportbike|scooter",
})


# Greek, Hebrew and Portuguese types, and associations
TYPE_WORDS |= _table({
    "person": "лицо|персона|персонаж|деятель|אדם|אישיות|pessoa física|personalidade",
    "organization": "οργανισμός|οργάνωση|φορέας|υπηρεσία|ארגון|förening|forening|yhdistys|egyesület|vereniging|"
                    "organização|instituição|órgão|fundação|associação|autarquia|entidade",
    "company": "εταιρεία|εταιρία|επιχείρηση|όμιλος|חברה",
    "country": "χώρα|κράτος|מדינה",
    "region": "περιφέρεια|νομός|επαρχία",
    "political party": "κόμμα|מפלגה",
    "bank": "τράπεζα|בנק",
    "club": "σύλλογος|ποδοσφαιρικός σύλλογος|παε|מועדון",
    "sports team": "ομάδα|קבוצה|lag|fotbollslag|hockeylag|joukkue|csapat|tým|drużyna piłkarska",
    "university": "πανεπιστήμιο|אוניברסיטה",
    "newspaper": "εφημερίδα|עיתון",
    "river": "ποταμός|ποτάμι|נהר",
    "island": "νησί|νήσος|אי",
})


# institutes, utilities, railways and airlines, as models type them
TYPE_WORDS |= _table({
    "organization": "instituut|institute|overheidsinstantie|agentschap",
    "company": "energieversorger|energiekonzern|versorger|utility|electric utility|power company|energy company|"
               "railway|railway company|rail operator|airline company|luchtvaartmaatschappij|flygbolag|lentoyhtiö",
})


# occupations, vessels and papers of more languages, and English occupations a model gives as a type
TYPE_WORDS |= _table({
    "person": "presidente|presidenta|président|présidente|präsident|präsidentin|prezydent|президент|cumhurbaşkanı|"
              "primeiro-ministro|primeira-ministra|primer ministro|premier ministre|premierminister|kanzler|"
              "kanzlerin|bundeskanzler|bundeskanzlerin|alcalde|alcaldesa|prefeito|prefeita|maire|sindaco|"
              "bürgermeister|senador|senadora|sénateur|diputado|diputada|deputado|deputada|député|abgeordneter|"
              "mtu|mwanasiasa|kiongozi|kutató|棋手|kierowca|سیاستمدار|ahli politik|politiko|piloto|tennista|racing driver|"
              "chess player|tennis player|footballer|researcher|professor|manager|economist|engineer|lawyer|"
              "journalist|businessman|entrepreneur|scientist|physician|doctor|activist|diplomat|official|leader|"
              "minister|president|senator|monarch|ruler|player|athlete|singer|actor|director|sportowiec|"
              "naukowiec|polityk|pisarz|siyasetçi|sporcu|oyuncu|politikerin|sportlerin|wissenschaftler|"
              "wissenschaftlerin|forscher|forscherin|politique|chercheur|chercheuse|investigador|investigadora|"
              "ricercatore|ricercatrice|cientista|político|política|politica|deportista|calciatore",
    "ship": "vessel|research vessel|container ship|cargo ship|tanker|cruise ship|ocean liner|liner|warship|"
            "icebreaker|سفينة|forschungsschiff|containerschiff|kreuzfahrtschiff|eisbrecher",
    "newspaper": "quotidiano|समाचार पत्र|daily|daily newspaper|gazette|tabloid|weekly|dziennik|gazete|jornal",
    "website": "web|web portal|online platform|e-commerce site|e-commerce platform|online store|online shop|"
               "online marketplace|webshop|webwinkel|platforma|platforma internetowa|sklep internetowy|plataforma|"
               "plateforme|piattaforma|sitio web|site web|situs web|e-ticaret sitesi|tienda online|loja online|"
               "negozio online|onlineshop|online-shop|portal|internetportal|platformă|magazin online|платформа|"
               "网站|ウェブサイト|웹사이트|موقع",
    "organization": "kurum|kuruluş|instytucja|urząd|úřad|ente|ente pubblico|organismo público",
    "region": "sonderverwaltungszone|special administrative region|kanton|voivodeship|canton|cantone|prefecture|"
              "prefectura|prefettura|präfektur|comunidad autónoma|autonomous community|condado|contea|comté|"
              "dipartimento|prowincja",
})
# and more again: people, places, companies and things as models type them in still other languages
TYPE_WORDS |= _table({
    "person": "boxer|jugador|jugadora|πολιτικός|رجل أعمال|fysiker|खिलाड़ी|cartoonist|militaire|réalisateur|"
              "réalisatrice|حاكم|سیاستدان|konge|kung|penyanyi|executive|cầu thủ|coureur|nogometaš|treinador|"
              "спортсмен|спортсменка|ingenieur|podnikatel|mechaniker|navegante|poète|poetessa|monarca|kaiser|"
              "schilder|joueur|joueuse|персона|nhân vật|ব্যক্তি|isik|особа|fashion designer|designer|"
              "schriftstellerin|musician|composer|painter|sculptor|architect|photographer|zawodnik|zawodniczka|"
              "sportsmenka|biathlete|skier|cyclist|swimmer|runner|поэт|поэтесса|dichter|dichterin|poeta|poetessa|poetisa|digter|"
              "orang|individu|บุคคล|사람",
    "place": "ort|ortschaft|lieu|lugar|luogo|local|localidade|localidad|località|miejsce|miejscowość|место|地名|地名・地域|"
             "plaats|sted|ställe|paikka|yer|場所|地点|장소|مكان",
    "city": "місто|oraș|ქალაქი|քաղաք|parish|شہر|نگر|नगर|నగరం|நகரம்|ನಗರ|നഗരം|শহর|เมือง",
    "region": "il|県|powiat|provincie|περιφέρεια|estado|département|departamento|राज्य|bundesstaat|kraj",
    "company": "selskab|vállalat|supermarket|restaurant chain|auction house|department store|"
               "fournisseur d'accès|car manufacturer|manufacturer|retailer|broadcaster|rundfunkanstalt",
    "brand": "marque|biermarke|marca|merk|märke|ブランド|品牌|브랜드",
    "organization": "orchester|orchestra|organisation militaire|organització|机构|機構|기구",
    "magazine": "magazin|revista|rivista|czasopismo|журнал|雑誌|杂志|잡지",
    "newspaper": "صحيفة|газета|新聞|报纸|報紙|신문",
    "ship": "fregatt|buque escuela|museum ship|선박|船舶",
    "lake": "see|lac|lago|jezioro|jezero|озеро|湖|호수|göl|järvi|sø|innsjø",
    "mountain": "massif|mittelgebirge|góra|berg|montagne|montaña|montagna|hora|гора|山|산|dağ|vuori",
    "airport": "havalimanı|havaalanı|letiště|flughafen|aéroport|aeropuerto|aeroporto|lotnisko|аэропорт|空港|机场|공항|"
               "נמל תעופה|مطار|हवाई अड्डा|bandara|sân bay|lufthavn|flygplats|lentoasema|repülőtér|"
               "luchthaven|αεροδρόμιο|аеропорт|airfield|international airport",
    "street": "straße|strasse|rue|calle|via|ulica|улица|通り|街道|거리|cadde|sokak|avenue|boulevard|road",
    "film": "película|filme|filmu|фильм|映画|电影|영화",
    "product": "ゲーム機|カメラ|game console|console|camera|smartphone|phone|device",
    "car": "mașină",
    "software": "app|application software|mobile app",
    "currency": "moneda|währung|devise|valuta|waluta|валюта|通貨|货币|통화",
    "award": "pris|prix|premio|preis|nagroda|премия|賞|奖|상",
})
# Indonesian and Malay, Swahili, Tagalog, Ukrainian, Arabic, Persian, Hindi, Vietnamese, Greek and Hebrew types,
# and the kinds of warship a model names as the type
TYPE_WORDS |= _table({
    "company": "perusahaan|syarikat|kampuni|kompanya|компанія|شرکت|εταιρεία|חברה|công ty cổ phần",
    "university": "universitas|universiti|chuo kikuu|університет|جامعة|دانشگاه|विश्वविद्यालय|trường đại học|"
                  "πανεπιστήμιο|אוניברסיטה",
    "city": "kota|mji|lungsod|شهر|עיר",
    "country": "מדינה|دولة|بلد|देश|negara|nchi|quốc gia|χώρα|країна",
    "region": "provinsi|kabupaten|mkoa|lalawigan",
    "club": "نادي|باشگاه|klabu|câu lạc bộ|клуб футбольний|מועדון",
    "newspaper": "gazeti|surat kabar|koran|pahayagan|روزنامه|báo|εφημερίδα|עיתון",
    "website": "інтернет-магазин|интернет-магазин|toko online|situs web|tovuti",
    "person": "mwanasiasa|mchezaji|politikus|tokoh|pemain sepak bola|pulitiko|manlalaro|політик|футболіст|"
              "співак|співачка|سياسي|لاعب|سیاستمدار|राजनेता|chính trị gia|פוליטיקאי|אדם|איש|אישה|אישיות|ספורטאי|"
              "שחקן|זמר|זמרת|סופר|מלך|شخصية|ملك|कलाकार|नेता|ca sĩ|diễn viên|nhà văn|mwandishi|msanii",
    "political party": "partai|chama|partido político",
    "ship": "जहाज़|जहाज|पोत|विमानवाहक पोत|पनडुब्बी|kapal|kapal selam|barko|fähre|fährschiff|submarine|submarino|sous-marin|sottomarino|u-boot|"
            "okręt podwodny|подводная лодка|潜水艦|潜艇|잠수함|destroyer|frigate|corvette|cruiser|battleship|"
            "aircraft carrier|patrol boat|ferry boat|freighter|lake freighter|bulk carrier|ore carrier|cargo vessel|"
            "steamship|steamer|schooner|sailing ship|crucero|buque|navío|barco|acorazado|destructor|fragata|"
            "croiseur|cuirassé|navire|paquebot|kreuzer|fregatte|zerstörer|schlachtschiff|incrociatore|nave|"
            "крейсер|корабль|эсминец|巡洋艦|戦艦|駆逐艦|巡洋舰|驱逐舰|순양함",
})
# occupations a model gives as the type, and the contests a person is never ("Roland Garros", an aviator;
# "Roland-Garros", a "tournoi")
TYPE_WORDS |= _table({
    "person": "aviator|aviatrix|aviateur|aviatrice|aviador|aviadora|flieger|fliegerin|pilot|pilote|biologist|"
              "mathematician|astronomer|historian|playwright|rapper|filmmaker|film director|producer|dancer|golfer|"
              "statesman|admiral|soldier|bishop|rabbi|imam|surgeon|teacher|banker|investor|revolutionary|"
              "navigator|astronaut|cosmonaut|missionary|comedian|chef|jockey|mountaineer|climber|sailor|"
              "chief adviser|chief advisor|special adviser|special advisor|senior adviser|senior advisor|"
              "farmer|student|tycoon|billionaire|jogador|jogadora|treinador|treinadora|entrenador|entrenadora|"
              "dictador|dictadora|feltaláló|tenista|virologe|virologin|biologe|biologin|soziologe|soziologin|"
              "psychologe|psychologin|theologe|theologin|archäologe|archäologin|politologe|politologin",
    "tournament": "tournoi|torneo|turnier|torneio|turniej|турнир|トーナメント|锦标赛|토너먼트|championship|"
                  "championnat|campeonato|campionato|meisterschaft|mistrzostwa|чемпионат|grand slam|grand prix|"
                  "competition|compétition|competición|wettbewerb|race|course cycliste|rennen|marathon",
})
TYPE_WORDS |= _table({
    "person": "presenter|entertainer|narrator|writer|author|poet|coach|referee|judge|king|queen|prince|princess|"
              "emperor|empress|pope|officer|detective|nurse|philosopher|founder|ceo|chairman|chairwoman|"
              "spokesperson|spokesman|spokeswoman|mayor|governor|chancellor|prime minister|prosecutor|attorney|"
              "inventor|explorer|commander|warrior|conqueror|saint|prophet|cricketer|celebrity|influencer|"
              "youtuber|blogger|reporter|correspondent|critic|scholar|lecturer|priest|monk|nun|pastor|cleric|"
              "sheikh|emir|sultan|shah|tsar|czar|dictator|congressman|congresswoman|legislator|lawmaker|"
              "tv host|television presenter|news anchor|"
              # rulers and nobles, as models type them in their text's language
              "koning|koningin|könig|königin|roi|reine|rey|reina|regina|rei|rainha|król|królowa|kong|dronning|"
              "drottning|kuningas|kuningatar|király|királynő|βασιλιάς|βασίλισσα|король|королева|国王|女王|天皇|"
              "皇帝|왕|여왕|raja|ratu|malkia|mfalme|grand duke|grand-duc|grande-duchesse|grand duchess|prinz|"
              "prinzessin|príncipe|princesa|principe|principessa|prins|prinses|infanta|infante|duke|duchess|"
              "herzog|herzogin|duc|duchesse|duque|duquesa|count|countess|earl|baron|baroness|marquis|fürst|"
              "kaiserin|imperatore|empereur|emperador|imperador|cesarz|император|императрица|khan|maharaja|"
              "yang di-pertuan agong|سلطان|ملك|ملكة|أمير|"
              # people in business and sport, in more languages
              "erhvervsmand|forretningsmand|affärsman|liikemies|üzletember|işadamı|geschäftsmann|"
              "geschäftsfrau|homme d'affaires|femme d'affaires|hombre de negocios|uomo d'affari|zakenman|"
              "biznesmen|бизнесмен|pengusaha|mfanyabiashara|kajakozó|kayaker|canoeist|sportoló|úszó|futó",
    "river": "rijeka|reka|река|sungai|mto|sông|nehri|ποταμός|נהר|نهر|नदी"})
TYPE_WORDS |= _table({"organization": "public body|public agency|agency|authority|autorità|autoridad|autorité|"
                                       "agentur|behörde|agenzia|agência|"
                                       # bodies models type by what they are, not as "organization"
                                       # (not a last word of other things': "celestial body", "art movement")
                                       "trade union|labor union|labour union|federation|confederation|alliance|"
                                       "coalition|league|council|committee|commission|ministry|"
                                       "society|foundation|regulator|parliament|legislature|tribunal|"
                                       "supreme court|constitutional court|high court|court of justice|"
                                       "police|secret police|army|military|armed forces|navy|air force|militia|"
                                       "political movement|social movement|government body|governing body|"
                                       "regulatory body|statutory body|bureau|directorate|secretariat|"
                                       "think tank|stock exchange",
                      "company": "emittente|emisora|radiodiffuseur|startup|cooperative|holding|record label|"
                                 "state-owned enterprise|telecom operator|mobile operator|network operator"})
# the same kinds in more languages: ministries and institutions, universities, parties, clubs, companies, sites
TYPE_WORDS |= _table({
    "organization": "ministerio|ministère|ministerium|ministero|ministerstwo|ministerie|bakanlık|kementerian|"
                    "gewerkschaft|sindicato|syndicat|профсоюз|sendika|gericht|суд|mahkeme|"
                    "министерство|міністерство|وزارة|मंत्रालय|istituzione|instituição|lembaga|badan|instansi|"
                    "kurum|kuruluş|intézmény|instytucja|учреждение|ведомство|спецслужба|مؤسسة|संस्था|संस्थान|"
                    "기관|机构|機関|องค์กร|tổ chức",
    "university": "universidade|uczelnia|大學|大学校|มหาวิทยาลัย|universitet|yliopisto|egyetem|üniversite|"
                  "universitas|جامعة|विश्वविद्यालय|đại học",
    "political party": "partid|partidul|partid politic|partij|politieke partij|حزب|पार्टी|राजनीतिक दल|พรรค|"
                       "parti politique|partido político|partito politico|partia polityczna|"
                       "พรรคการเมือง|đảng|parti siyasi|siyasi parti|partai|partai politik|سیاسی جماعت|"
                       "политическая партия",
    "club": "klubas|klubs|kulübü|spor kulübü|futbol kulübü|クラブ|क्लब|สโมสร|نادي|نادي رياضي|timu|klabu|"
            "klub sepak bola",
    "company": "บริษัท|şirket|perusahaan|empresa pública|spółka|cég|yritys|företag|selskap|virksomhed",
    "website": "situs|situs web|เว็บไซต์|nachrichtenportal|news portal|portal|domain|web domain|domain name|url|"
               "news site|online news site|nachrichtenseite|sito|sito web|sito internet|sitio|verkkosivusto|"
               "sivusto|uutissivusto|websted|webside|vefsíða|weboldal|webstránka|webová stránka|spletna stran|"
               "web stranica|ιστότοπος|web sitesi|internet sitesi|website berita",
    "magazine": "zeitschrift|wochenzeitschrift|nachrichtenmagazin|hebdomadaire|semanario|settimanale|tygodnik",
    "district": "ortsteil|stadtteil|quartier|barrio|bairro|dzielnica|neighborhood|neighbourhood|wijk|bydel",
    "media": "medio de comunicación|medio|média|médias|medien|medium|mídia|meio de comunicação|mezzo di comunicazione"})
_CANONICAL = frozenset(TYPE_WORDS.values())
_HEAD_FIRST = frozenset("de di da do du des del della dei degli dos das van von für na".split())
# the last part of a German compound says its kind ("Forschungsschiff", "Regionalzeitung", "Kreisstadt")
_GERMAN_HEADS = {"schiff": "ship", "zeitung": "newspaper", "zeitschrift": "magazine", "magazin": "magazine",
                 "stadt": "city", "gemeinde": "city", "dorf": "city", "insel": "island", "fluss": "river",
                 "verein": "club", "partei": "political party",
                 "unternehmen": "company", "konzern": "company", "politiker": "person", "politikerin": "person",
                 "spieler": "person", "spielerin": "person", "fahrer": "person", "fahrerin": "person",
                 "trainer": "person", "sänger": "person", "sängerin": "person", "künstler": "person"}


@lru_cache(maxsize=16384)
def english_type(type_: str) -> str:
    """The English type for ``type_`` (lower-cased): from the table, by the last word of an English type of
    several ("container ship"), by the last part of a German compound ("Forschungsschiff"), else ``type_``."""
    if type_ in TYPE_WORDS:
        return TYPE_WORDS[type_]
    if "_" in type_ and (spaced := english_type(type_.replace("_", " "))) != type_.replace("_", " "):
        return spaced  # "SITIO_WEB", as constants are written
    if (plain := strip_accents(type_)) in _unaccented():  # "ΟΡΓΑΝΙΣΜΟΣ": capitals without their accents
        return _unaccented()[plain]
    words = type_.split()
    if len(words) > 1 and words[-1] in TYPE_WORDS:
        return TYPE_WORDS[words[-1]]
    if len(words) > 1 and words[-1] in _CANONICAL:  # "intergovernmental organization"
        return words[-1]
    if len(words) > 2 and words[1] in _HEAD_FIRST and words[0] in TYPE_WORDS:  # "agencia de la onu": the head
        return TYPE_WORDS[words[0]]  # before a preposition (an English "city hall", "device driver": the last)
    head = next((h for h in _GERMAN_HEADS if type_.endswith(h) and len(type_) > len(h) + 2), "")
    if head:
        return _GERMAN_HEADS[head]
    return "person" if words and (_occupation(words[-1], len(words) == 1) or type_.endswith(_CJK_CALLINGS)) else type_


@lru_cache(maxsize=1)
def _unaccented() -> dict[str, str]:
    """The table's words without their accents, less those that are then an English thing's word ("song", not
    Vietnamese "sông", a river)."""
    return {plain: kind for word, kind in TYPE_WORDS.items() if (plain := strip_accents(word)) not in THINGS}


# English nouns of a calling by their ending ("virologist", "pianist", "comedian", "technician"), less the things
# and animals that end so
_NOT_CALLINGS = frozenset("playlist checklist wishlist shortlist blacklist whitelist amphibian "
                          "reptilian avian mammalian median meridian ruffian autopista entrevista conquista "
                          "reconquista minorista mayorista varejista atacadista grossista contratista".split())


# the endings of CJK nouns of a calling ("野球選手", a baseball player; "政治家", "小説家"; "축구 선수")
_CJK_CALLINGS = ("選手", "选手", "선수", "政治家", "作家", "小説家", "歌手", "俳優", "女優", "演员", "运动员", "导演",
                 "監督", "감독", "배우", "가수", "정치인", "인물", "人物", "棋士", "力士", "実業家", "企業家", "起業家",
                 "企业家", "音楽家", "画家", "建築家", "思想家", "学者", "기업인", "사업가")


def _occupation(word: str, one: bool = True) -> bool:
    """An English calling ("-ist", "-ian"), or a Romance one as a type of one word ("beisbolista", "ciclista";
    not "cadena minorista", a retail chain, nor "partido comunista")."""
    return len(word) >= 6 and word.isalpha() and word not in _NOT_CALLINGS and (
        word.isascii() and word.endswith(("ist", "ian")) or len(word) >= 8 and word.endswith("ista") and one)
