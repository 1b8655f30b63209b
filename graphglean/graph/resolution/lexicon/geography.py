"""Where things are: countries by name, people, capital and own name in several languages, the US, Canadian and
Australian regions that follow a place's name, and web domains' country codes."""

from __future__ import annotations


def read_table(text: str) -> dict[str, str]:
    """A table written "key: name, name; key: name" (a line goes on after a comma, else starts an entry): each
    name to its key."""
    return {name: key for entry in text.replace(",\n", ", ").replace("\n", "; ").split("; ")
            for key, names in [entry.split(": ")] for name in names.split(", ")}

# a country, its abbreviation or its people's adjective, before the name of a public body ("U.K. Ministry of
# Defence", "French Ministry of Foreign Affairs"): canonical country for each
_COUNTRIES = """us: us, u s, usa, u s a, united states, united states of america, american, america
uk: uk, u k, united kingdom, great britain, britain, british, england, english
eu: eu, european union, european
scotland: scotland, scottish; wales: wales, welsh; ireland: ireland, irish; france: france, french
germany: germany, german; italy: italy, italian; spain: spain, spanish; portugal: portugal, portuguese
netherlands: netherlands, dutch; belgium: belgium, belgian; switzerland: switzerland, swiss
austria: austria, austrian; sweden: sweden, swedish; norway: norway, norwegian; denmark: denmark, danish
finland: finland, finnish; poland: poland, polish; ukraine: ukraine, ukrainian
russia: russia, russian, russian federation; turkey: turkey, turkish; greece: greece, greek
israel: israel, israeli; iran: iran, iranian; iraq: iraq, iraqi; saudi arabia: saudi, saudi arabia
egypt: egypt, egyptian; india: india, indian; pakistan: pakistan, pakistani; china: china, chinese, prc
japan: japan, japanese; south korea: korea, south korea, korean, rok; north korea: north korea, dprk
taiwan: taiwan, taiwanese; vietnam: vietnam, vietnamese; indonesia: indonesia, indonesian
philippines: philippines, philippine; australia: australia, australian; new zealand: new zealand
canada: canada, canadian; mexico: mexico, mexican; brazil: brazil, brazilian; argentina: argentina, argentine
chile: chile, chilean; colombia: colombia, colombian; nigeria: nigeria, nigerian; kenya: kenya, kenyan
south africa: south africa, south african; uae: uae, united arab emirates; singapore: singapore, singaporean
malaysia: malaysia, malaysian; thailand: thailand, thai"""
COUNTRIES = read_table(_COUNTRIES)
COUNTRY_LONGEST = max(len(k.split()) for k in COUNTRIES)
# what else places a description in a country (read in descriptions only, never in names): the country and
# its people in other languages, its capital and its largest regions ("è il massimo campionato italiano"), the
# football leagues no other country's shares a name with ("Eredivisie"); not a city whose name is a common word
# of another language ("Bursa": Malay and Indonesian for an exchange)
_COUNTRY_WORDS = """us: estados unidos, états unis, etats unis, vereinigte staaten, stati uniti, estadounidense
uk: reino unido, royaume uni, regno unito, vereinigtes königreich, britannique, britânico, britannico, london
italy: italia, italiano, italiana, italien, italienne, italienisch, italienische, rome, roma, rom, milan, milano
spain: españa, espana, español, española, espanol, espanola, espagne, espagnol, spanien, spanisch, madrid,
barcelona, andalusia, andalucía, andalucia, andaluz, andaluza, andalusian, catalonia, cataluña, catalan
france: francia, francés, francesa, francese, französisch, französische, frankreich, français, française, paris
germany: alemania, alemán, alemana, allemagne, allemand, germania, tedesco, tedesca, deutsch, deutscher, deutsche,
deutschen, berlin, munich, münchen, bavaria, bayern; portugal: português, portuguesa, lisbon, lisboa
brazil: brasil, brasileiro, brasileira, brasileño, brasileña, brésil, brésilien, brasilien, brasiliano, são paulo,
sao paulo, rio de janeiro; argentina: argentino, argentinian, argentinien, buenos aires
mexico: méxico, mexicano, mexicana, mexique, mexiko, messico; russia: rusia, russie, russland, moscow, moskva
japan: japón, japon, giappone, tokyo; china: beijing, shanghai; netherlands: amsterdam, holland, dutch
canada: canadá, canadien, canadienne, toronto, quebec, ontario; india: delhi, mumbai; australia: sydney
us: new york, los angeles, chicago, houston, san francisco, seattle, boston, philadelphia, detroit, miami, atlanta,
dallas, hollywood, silicon valley, las vegas, new orleans, cupertino, brooklyn, manhattan, américain, américaine,
amerikanisch, amerikanische, amerikanischen, americano, americana, amerykański, amerikaans, amerikaanse,
amerikansk, amerikanska, amerikanske; uk: londinense, londonien, londonienne, londoner, londyński
uk: manchester, liverpool, birmingham, britisch, britische, brytyjski, brittisk, brittiska, britisk, inglés,
inglesa, anglais, anglaise,
englisch, englische, inglese; scotland: edinburgh, glasgow; wales: cardiff; ireland: dublin, irlandais, irisch
germany: hamburg, frankfurt, cologne, köln, stuttgart, düsseldorf, dresden, leipzig, bonn, allemande, niemiecki,
niemiecka, duits, duitse, tysk, tyska, tyske, alman, немецкий, bayerische, bayerischen, bavarian, bavarois, bávaro
france: lyon, marseille, toulouse, bordeaux, strasbourg, francuski, francuska, frans, franse, fransk, fransız,
французский; italy: naples, napoli, turin, torino, firenze, venice, venezia, włoski, italiaans
spain: seville, sevilla, bilbao, hiszpański, spaans; portugal: portugais, portugiesisch
russia: ruso, rusa, russe, russo, russa, russisch, russische, rosyjski, российский, российская, русский, россия,
москва, ruský, ruská; romania: românesc, românească, românești, roumain, roumaine, rumano, rumana, rumänisch
china: chinois, chinoise, chino, chinesisch, chinesische, cinese, chiński, shenzhen, guangzhou, wuhan
japan: japonais, japonaise, japonés, japonesa, japanisch, japanische, giapponese, japoński, osaka, kyoto, yokohama
south korea: seoul, busan, coréen, coréenne, coreano, koreanisch, koreański; taiwan: taipei
india: indien, indienne, bangalore, bengaluru, kolkata, chennai; pakistan: karachi, lahore, islamabad
canada: vancouver, montreal, montréal, ottawa, calgary, kanadisch, kanadische
australia: melbourne, brisbane, canberra, australien, australienne, australiano, australisch
netherlands: rotterdam, the hague, den haag, utrecht, eindhoven, néerlandais, holandés, niederländisch,
niederländische, olandese, holenderski, nederlands, nederlandse
switzerland: zurich, zürich, geneva, genève, genf, basel, bern, berne, schweizer, schweizerische, svizzero,
svizzera, suizo, suiza, szwajcarski; austria: vienna, wien, vienne, salzburg, graz, österreichisch,
österreichische, autrichien, austriaco; sweden: stockholm, gothenburg, göteborg, suédois, sueco, schwedisch,
svedese, szwedzki, svensk, svenska, svenske; norway: oslo, norvégien, noruego, norwegisch, norsk, norska, norske
denmark: copenhagen, københavn, kopenhagen, danois, danés, dänisch, dansk, danske, danska
finland: helsinki, finnois, finlandés, finnisch, finsk, finska, finske, suomalainen
poland: warsaw, warszawa, warschau, kraków, krakow, polonais, polaco, polnisch, polacco,
polski, polskiej, polska, polskie, polscy; czech republic: prague, praha, prag, tchèque, checo, tschechisch, český,
česká, české; slovakia: slovenský; romania: rumänische, rumeno, rumena, rumuński, rumuńska, bucharest, bucurești
hungary: budapest, hongrois, húngaro, ungarisch, ungherese, węgierski; turkey: istanbul, ankara, turc, turque,
türkisch; greece: athens, athènes, athen, grec, grecque, griego, griechisch; israel: jerusalem, tel aviv,
israélien, israelí, israelisch; egypt: cairo, égyptien, egipcio, ägyptisch; iran: tehran, teheran, iranien
ukraine: kyiv, kiev, kharkiv, ukrainien, ucraniano, ukrainisch, ucraino, ukraiński, украинский, украина
belgium: brussels, bruxelles,
brüssel, antwerp, antwerpen, belge, belgisch; south africa: johannesburg, cape town, pretoria; nigeria: abuja
vietnam: hanoi, saigon; indonesia: jakarta; thailand: bangkok; philippines: manila; saudi arabia: riyadh
uae: dubai, abu dhabi; kenya: nairobi; colombia: bogotá, bogota, medellín; mexico: guadalajara, monterrey
afghanistan: afghanistan, afghan; albania: albania, albanian; algeria: algeria, algerian; andorra: andorra, andorran
angola: angola, angolan; armenia: armenia, armenian; azerbaijan: azerbaijan, azerbaijani; bahrain: bahrain, bahraini
bangladesh: bangladesh, bangladeshi, dhaka; belarus: belarus, belarusian, minsk; bolivia: bolivia, bolivian
bosnia: bosnia, bosnian, sarajevo; botswana: botswana; cambodia: cambodia, cambodian; cameroon: cameroon, cameroonian
costa rica: costa rica, costa rican; cuba: cuba, cuban, havana; cyprus: cyprus, cypriot; ecuador: ecuador, ecuadorian
dominican republic: dominican republic; el salvador: salvadoran, san salvador; ethiopia: ethiopia, ethiopian
ghana: ghana, ghanaian, accra; guatemala: guatemala, guatemalan; haiti: haiti, haitian; honduras: honduras, honduran
iceland: iceland, icelandic, reykjavik; jordan: jordanian, amman; kazakhstan: kazakhstan, kazakh; kosovo: kosovo
kuwait: kuwait, kuwaiti; kyrgyzstan: kyrgyzstan, kyrgyz; laos: laos, laotian; lebanon: lebanon, lebanese, beirut
libya: libya, libyan; luxembourg: luxembourg; madagascar: madagascar, malagasy; malawi: malawi; mali: mali, malian
malta: malta, maltese; moldova: moldova, moldovan; monaco: monaco, monegasque; mongolia: mongolia, mongolian
montenegro: montenegro, montenegrin; mozambique: mozambique; myanmar: myanmar, burmese; namibia: namibia, namibian
nepal: nepal, nepali, nepalese, kathmandu; nicaragua: nicaragua, nicaraguan; niger: nigerien
north macedonia: north macedonia, macedonian; oman: oman, omani; panama: panamanian; paraguay: paraguay, paraguayan
peru: peru, peruvian; qatar: qatar, qatari, doha; rwanda: rwanda, rwandan; senegal: senegal, senegalese, dakar
sri lanka: sri lanka, sri lankan; sudan: sudan, sudanese, khartoum; syria: syria, syrian, damascus
tajikistan: tajikistan, tajik; tanzania: tanzania, tanzanian; tunisia: tunisia, tunisian; uganda: uganda, ugandan
uruguay: uruguay, uruguayan, montevideo; uzbekistan: uzbekistan, uzbek; venezuela: venezuela, venezuelan, caracas
yemen: yemen, yemeni; zambia: zambia, zambian; zimbabwe: zimbabwe, zimbabwean; somalia: somalia, somali
eritrea: eritrea, eritrean; ivory coast: ivorian, abidjan; congo: kinshasa; gabon: gabon, gabonese
ivory coast: ivory coast, cote ivoire, yamoussoukro; congo: democratic republic of the congo, dr congo, drc, rdc,
lubumbashi; republic of the congo: republic of the congo, republic of congo, congo brazzaville, brazzaville,
congo republic; chad: chadian, djamena, ndjamena, tchad, tchadien; guinea: guinean, conakry, republic of guinea
papua new guinea: papua new guinean; equatorial guinea: equatorial guinean, equatoguinean
guinea bissau: bissau; niger: niamey, republic of niger; benin: cotonou; cameroon: yaounde, douala
gabon: libreville; equatorial guinea: malabo; somalia: mogadishu, somaliland, hargeisa
eritrea: asmara; tanzania: dodoma; georgia: tbilisi, sakartvelo; laos: lao pdr; eswatini: mbabane; myanmar: burma
marshall islands: marshall islands; nauru: nauru; tuvalu: tuvalu
dominica: commonwealth of dominica; saint kitts and nevis: saint kitts and nevis, st kitts
saint vincent and the grenadines: saint vincent and the grenadines; antigua and barbuda: antigua and barbuda
sierra leone: sierra leone; liberia: liberia, liberian; mauritius: mauritius, mauritian; fiji: fiji, fijian
bhutan: bhutan, bhutanese; maldives: maldives; brunei: brunei; estonia: tallinn; latvia: riga; lithuania: vilnius
slovakia: bratislava; slovenia: ljubljana; croatia: zagreb; serbia: belgrade, beograd; bulgaria: bulgarie
romania: bucharest, bucurești; hungary: hongrie, ungarn, hungría; greece: grèce, griechenland, grecia
morocco: rabat, casablanca, maroc, marokko, marruecos; egypt: égypte, ägypten, egipto; new zealand: auckland, néo zélandais; chile: chilien, chileno, chilena; colombia: colombien, kolumbien; peru: pérou
us: san diego, denver, baltimore, pittsburgh, minneapolis, nashville, honolulu, sacramento, san antonio,
milwaukee, cincinnati, kansas city, salt lake city, tampa, oakland, palo alto, menlo park
uk: leeds, sheffield, bristol, belfast, nottingham, leicester, southampton, brighton; france: lille, nantes,
montpellier, rennes, grenoble; germany: hannover, hanover, nuremberg, nurnberg, bremen, dortmund, duisburg,
mannheim, karlsruhe, wiesbaden, mainz, freiburg, heidelberg, potsdam, rostock, kiel, magdeburg, erfurt,
chemnitz, aachen, essener, bochumer,
wuppertaler; italy: bologna, genoa, genova, palermo, verona, bari, catania, trieste, pisa, padua, padova
spain: zaragoza, malaga, alicante, valladolid; netherlands: groningen, maastricht, haarlem, leiden, delft,
arnhem, nijmegen, tilburg; belgium: ghent, gent, liege, bruges, brugge, leuven, charleroi
switzerland: lausanne, lucerne, luzern, lugano, sankt gallen, saint gallen, saint galler; austria: innsbruck, linz
poland: gdansk, wroclaw, poznan, lodz, katowice, szczecin, lublin, bialystok; czech republic: brno, ostrava,
plzen, pilsen; hungary: debrecen, szeged, gyor; romania: cluj, cluj napoca, timisoara, iasi, constanta
bulgaria: plovdiv, varna; serbia: novi sad, nis; croatia: rijeka; greece: thessaloniki, patras
turkey: izmir, antalya, adana, gaziantep, konya, trabzon; russia: novosibirsk, yekaterinburg, kazan,
nizhny novgorod, vladivostok, sochi, murmansk; ukraine: lviv, dnipro, zaporizhzhia, mariupol, kherson,
donetsk, luhansk; china: chongqing, tianjin, chengdu, hangzhou, nanjing, xi'an, xian, suzhou, shenyang,
harbin, qingdao, dalian, xiamen, kunming; japan: nagoya, sapporo, fukuoka, kobe, hiroshima, sendai, nagasaki,
okinawa; south korea: incheon, daegu, gwangju, daejeon, ulsan; india: ahmedabad, pune, jaipur, lucknow,
kanpur, surat, varanasi, amritsar, chandigarh, bhopal, patna, noida, gurgaon, gurugram, new delhi
pakistan: rawalpindi, peshawar, quetta, faisalabad; bangladesh: chittagong, chattogram; indonesia: surabaya,
bandung, medan, yogyakarta, bali; malaysia: kuala lumpur, penang, johor bahru; thailand: chiang mai, phuket,
pattaya; vietnam: ho chi minh city, da nang, hai phong; philippines: quezon city, cebu, davao
australia: hobart, gold coast; new zealand: christchurch; canada: edmonton, winnipeg
mexico: mexico city, tijuana, puebla, cancun, acapulco, oaxaca; brazil: brasilia, fortaleza, belo horizonte,
manaus, recife, porto alegre, curitiba; chile: valparaiso, santiago de chile; colombia: cali, barranquilla
peru: cusco, cuzco, arequipa; venezuela: maracaibo; egypt: giza, luxor, aswan; morocco: marrakesh,
marrakech, fez, tangier; nigeria: kano, ibadan, port harcourt; kenya: mombasa, kisumu; ethiopia: addis ababa
south africa: durban, soweto; tanzania: dar es salaam, zanzibar; ghana: kumasi; iran: isfahan, shiraz,
tabriz, mashhad; iraq: baghdad, basra, mosul, erbil; saudi arabia: jeddah, mecca; uae: sharjah
israel: haifa, eilat; syria: aleppo, homs; afghanistan: kabul, kandahar, herat; uzbekistan: tashkent
kazakhstan: astana, almaty; kyrgyzstan: bishkek; tajikistan: dushanbe; azerbaijan: baku; armenia: yerevan
moldova: chisinau; iceland: reykjavik; malta: valletta; cyprus: nicosia; montenegro: podgorica
north macedonia: skopje; albania: tirana; kosovo: pristina; ecuador: quito; paraguay: asuncion
panama: panama city; nicaragua: managua; honduras: tegucigalpa; guatemala: guatemala city
dominican republic: santo domingo; haiti: port au prince; algeria: algiers; tunisia: tunis
uganda: kampala; rwanda: kigali; zambia: lusaka; zimbabwe: harare; mozambique: maputo; angola: luanda
mali: bamako; niger: niamey; burkina faso: ouagadougou; liberia: monrovia; sierra leone: freetown
madagascar: antananarivo; namibia: windhoek; botswana: gaborone; fiji: suva; mongolia: ulaanbaatar
cambodia: phnom penh; laos: vientiane; myanmar: naypyidaw, yangon, rangoon; maldives: male
antigua and barbuda: antigua and barbuda, antiguan; bahamas: bahamas, bahamian, nassau; barbados: barbados,
barbadian, bridgetown; belize: belize, belizean; guyana: guyana, guyanese; suriname: suriname, surinamese, paramaribo
trinidad and tobago: trinidad and tobago, trinidad, trinidadian, port of spain; saint lucia: saint lucia, st lucia
grenada: grenadian; comoros: comoros; djibouti: djibouti; equatorial guinea: equatorial guinea; gambia: gambia,
gambian, banjul; guinea bissau: guinea bissau; lesotho: lesotho, maseru; eswatini: eswatini, swaziland
seychelles: seychelles; south sudan: south sudan, juba; togo: togo, togolese, lome; burundi: burundi, bujumbura
central african republic: central african republic, bangui; sao tome and principe: sao tome and principe
east timor: east timor, timor leste, dili; papua new guinea: papua new guinea, port moresby
solomon islands: solomon islands, honiara; vanuatu: vanuatu; samoa: samoa, samoan; tonga: tonga, tongan
kiribati: kiribati
san marino: san marino; liechtenstein: liechtenstein, vaduz; vatican: vatican, holy see
cape verde: cape verde, cabo verde, praia; mauritania: nouakchott; mauritius: port louis; nigeria: lagos; pakistan: karachi
france: guadeloupe, martinique, reunion, french guiana, cayenne, mayotte, nouvelle caledonie, new caledonia,
tahiti, papeete, marseillais, lyonnais, parisien, parisienne; denmark: greenland, nuuk, faroe islands
us: puerto rico, san juan puerto rico, guam; netherlands: aruba, curacao
nicaragua: nicaraguense, nicaraguayen; honduras: hondureno, hondurena, hondurien; guatemala: guatemalteco,
guatemalteca; el salvador: salvadoreno, salvadorena; costa rica: costarricense; panama: panameno, panamena
cuba: cubano, cubana, cubain; dominican republic: dominicano, dominicana; venezuela: venezolano, venezolana
colombia: colombiano, colombiana; ecuador: ecuatoriano, ecuatoriana; peru: peruano, peruana; bolivia: boliviano,
boliviana; uruguay: uruguayo, uruguaya; paraguay: paraguayo, paraguaya; puerto rico: puertorriqueno
senegal: senegalais, senegalaise; ivory coast: ivoirien, ivoirienne; cameroon: camerounais, camerounaise
mali: malien, malienne; morocco: marocain, marocaine; algeria: algerien,
algerienne; tunisia: tunisien, tunisienne; haiti: haitien, haitienne; canada: quebecois, quebecoise
serbia: serbia; benin: benin, beninese; burkina faso: burkina faso, burkinabe; el salvador: salvadoran
mauritania: mauritania, mauritanian; palestine: palestine, palestinian; turkmenistan: turkmenistan, turkmen
malawi: malawian; mozambique: mozambican; luxembourg: luxembourgish, luxembourgeois; philippines: filipino, filipina
belgium: belges, flanders, flemish, vlaanderen, vlaams, wallonia, wallonie, walloon, wallon, wallonne
portugal: madeira, azores, acores, funchal; spain: canary islands, canarias, tenerife, gran canaria, mallorca,
majorca, menorca, ibiza, balearic islands, baleares; france: brittany; austria: viennese, wienerisch, klagenfurt
spain: madrileño, madrileña, madrilène, barcelonés, barcelonesa; germany: berlinois, berlinés
france: parisien, parisienne, parisino, parisina; italy: milanese, milanés, napoletano, torinese
russia: moscovite; portugal: lisboeta, portuense; peru: limeño, limeña; argentina: porteño, porteña
brazil: paulistano, paulistana, carioca; uruguay: montevideano, montevideana; colombia: bogotano, bogotana
us: neoyorquino, neoyorquina, new yorker; venezuela: caraqueño, caraqueña; chile: santiaguino, santiaguina
netherlands: eredivisie, eerste divisie; poland: ekstraklasa; sweden: allsvenskan, superettan; norway: eliteserien,
tippeligaen; finland: veikkausliiga; denmark: superligaen; turkey: süper lig, super lig; portugal: primeira liga
spain: laliga; brazil: brasileirão, brasileirao; mexico: liga mx; belgium: jupiler pro league
scotland: scottish premiership"""

COUNTRY_WORDS = read_table(_COUNTRY_WORDS)
# the names of one country, official, former or in its own language (not its people's adjective, nor a part
# of it: "England" is not the U.K.)
_COUNTRY_NAMES = """us: us, u s, usa, u s a, united states, united states of america
uk: uk, u k, united kingdom, united kingdom of great britain and northern ireland; eu: eu, european union
russia: russia, russian federation; uae: uae, u a e, united arab emirates
south korea: south korea, rok, republic of korea; north korea: north korea, dprk
china: china, prc, people's republic of china; germany: germany, federal republic of germany, deutschland
france: france, french republic; czechia: czechia, czech republic; turkey: turkey, turkiye, republic of turkey
myanmar: myanmar, burma; ivory coast: ivory coast, cote d'ivoire; eswatini: eswatini, swaziland
cape verde: cape verde, cabo verde; east timor: east timor, timor leste"""
COUNTRY_NAMES = read_table(_COUNTRY_NAMES)
# the two-letter country codes of web domains (ISO 3166), and the common generic ones; a domain's second level
# before a country code ("co.uk", "com.ar") belongs to its suffix
COUNTRY_TLDS = frozenset(
    "ad ae af ag ai al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt bw by bz ca cc "
    "cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg er es et eu fi fj fk fm fo fr "
    "ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr ht hu id ie il im in io iq ir is it je jm "
    "jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp "
    "mq mr ms mt mu mv mw mx my mz na nc ne nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw "
    "py qa re ro rs ru rw sa sb sc sd se sg sh si sk sl sm sn so sr ss st sv sx sy sz tc td tf tg th tj tk tl tm "
    "tn to tr tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw".split())
GENERIC_TLDS = frozenset(
    "com org net edu gov mil int info biz name pro io ai app dev tech online site store shop blog news media "
    "cloud live xyz club global agency company travel museum jobs".split())
SECOND_LEVEL = frozenset("co com org net ac gov edu or ne go gob nic mil ltd plc".split())
# the country of a national site's domain ("yahoo.co.jp": Japan), canonical as in COUNTRIES; not the codes used
# as generic ones (.co, .io, .ai, .tv, .me, .fm)
TLD_COUNTRIES = {code: country.replace("_", " ") for code, country in (pair.split(":") for pair in """us:us uk:uk gb:uk eu:eu fr:france de:germany it:italy es:spain
pt:portugal nl:netherlands be:belgium ch:switzerland at:austria se:sweden no:norway dk:denmark fi:finland pl:poland
ua:ukraine ru:russia tr:turkey gr:greece il:israel ir:iran iq:iraq sa:saudi_arabia eg:egypt in:india pk:pakistan
cn:china jp:japan kr:south_korea kp:north_korea tw:taiwan vn:vietnam id:indonesia ph:philippines au:australia
nz:new_zealand ca:canada mx:mexico br:brazil ar:argentina cl:chile ng:nigeria ke:kenya za:south_africa ae:uae
sg:singapore my:malaysia th:thailand ie:ireland py:paraguay uy:uruguay bo:bolivia pe:peru ec:ecuador ve:venezuela
cu:cuba do:dominican_republic gt:guatemala hn:honduras ni:nicaragua cr:costa_rica jm:jamaica ht:haiti cz:czech_republic
sk:slovakia hu:hungary ro:romania bg:bulgaria hr:croatia si:slovenia rs:serbia ba:bosnia mk:north_macedonia al:albania
lt:lithuania lv:latvia ee:estonia by:belarus md:moldova az:azerbaijan kz:kazakhstan uz:uzbekistan lu:luxembourg
is:iceland mt:malta cy:cyprus lb:lebanon sy:syria qa:qatar kw:kuwait bh:bahrain om:oman ye:yemen af:afghanistan
bd:bangladesh lk:sri_lanka np:nepal mm:myanmar kh:cambodia mn:mongolia ma:morocco dz:algeria tn:tunisia et:ethiopia
gh:ghana tz:tanzania ug:uganda rw:rwanda sn:senegal cm:cameroon zw:zimbabwe zm:zambia mz:mozambique ao:angola
na:namibia bw:botswana sd:sudan cd:congo cg:republic_of_the_congo ci:ivory_coast cv:cape_verde
td:chad gn:guinea ne:niger bj:benin ge:georgia""".split())}

# regions that follow a place's name after a comma ("Portland, Oregon", "Paris, TX", "Kingston, Ont."): each
# with its abbreviations, canonical
_REGIONS = """alabama: al, ala; alaska: ak; arizona: az, ariz; arkansas: ar, ark; california: ca, calif, cal
colorado: co, colo; connecticut: ct, conn; delaware: de, del; florida: fl, fla; georgia: ga; hawaii: hi
idaho: id; illinois: il, ill; indiana: in, ind; iowa: ia; kansas: ks, kan, kans; kentucky: ky; louisiana: la
maine: me; maryland: md; massachusetts: ma, mass; michigan: mi, mich; minnesota: mn, minn; mississippi: ms, miss
missouri: mo; montana: mt, mont; nebraska: ne, neb, nebr; nevada: nv, nev; new hampshire: nh; new jersey: nj
new mexico: nm; new york: ny; north carolina: nc; north dakota: nd; ohio: oh; oklahoma: ok, okla
oregon: or, ore; pennsylvania: pa, penn; rhode island: ri; south carolina: sc; south dakota: sd
tennessee: tn, tenn; texas: tx, tex; utah: ut; vermont: vt; virginia: va; washington: wa, wash
west virginia: wv; wisconsin: wi, wis; wyoming: wy; district of columbia: dc, d c; puerto rico: pr
ontario: on, ont; quebec: qc, que; british columbia: bc; alberta: ab, alta; manitoba: mb, man
saskatchewan: sk, sask; nova scotia: ns; new brunswick: nb; newfoundland and labrador: nl
new south wales: nsw; victoria: vic; queensland: qld; western australia: w a; south australia: sa
tasmania: tas"""
# the same regions as other languages name them (a description's words: accents dropped, hyphens as spaces),
# above all those whose name holds a country's ("Colombie-Britannique" is no British place, "Nuevo México" none
# in Mexico)
_REGIONREGION_EXONYMS = """new mexico: nouveau mexique, nuevo mexico, novo mexico, nuovo messico
new york: nueva york, nova iorque, nowy jork; british columbia: colombie britannique, columbia britanica,
britisch kolumbien, columbia britannica, brits columbia; nova scotia: nouvelle ecosse, nueva escocia,
neuschottland, nuova scozia, nova escocia; new brunswick: nouveau brunswick, nuevo brunswick, neubraunschweig
new south wales: nouvelle galles du sud, nueva gales del sur, neusudwales, nuovo galles del sud,
nova gales do sul; western australia: australie occidentale, australia occidental, westaustralien,
australia occidentale; south australia: australie meridionale, australia meridional, sudaustralien,
australia meridionale; newfoundland and labrador: terre neuve et labrador, terranova y labrador
north carolina: caroline du nord, carolina del norte, carolina do norte, carolina del nord, nordkarolina
south carolina: caroline du sud, carolina del sur, carolina do sul, carolina del sud, sudkarolina
north dakota: dakota du nord, dakota del norte, norddakota; south dakota: dakota du sud, dakota del sur,
suddakota; west virginia: virginie occidentale, virginia occidental; new jersey: nueva jersey
pennsylvania: pensilvania, pennsylvanie, pensylwania; california: californie, kalifornien
louisiana: louisiane; new hampshire: nuevo hampshire"""
REGION_EXONYMS = read_table(_REGIONREGION_EXONYMS)
REGIONS = {name: region for line in _REGIONS.replace("\n", "; ").split("; ")
           for region, names in [line.split(": ")] for name in [region, *names.split(", ")]} | REGION_EXONYMS

# the country of each region by its full name, which a description's words are read by before a country's
# adjective in it ("British Columbia" is Canada, "New Mexico" the U.S.); not the names that are as often a
# country or a person's ("Georgia", "Victoria", "Virginia Woolf", "Denzel Washington", "Indiana Jones")
_CANADA = ("ontario", "quebec", "british columbia", "alberta", "manitoba", "saskatchewan", "nova scotia", "new brunswick",
           "newfoundland and labrador")
_AUSTRALIA = ("new south wales", "victoria", "queensland", "western australia", "south australia", "tasmania")
REGION_COUNTRIES = {r: "canada" if r in _CANADA else "australia" if r in _AUSTRALIA else "us"
                    for r in set(REGIONS.values()) - {"georgia", "victoria", "virginia", "washington", "indiana",
                                                      "montana"}}
REGION_COUNTRIES |= {name: REGION_COUNTRIES[region] for name, region in REGION_EXONYMS.items()}

# countries by their own names, as keys read them, which a description inflects ("w Polsce", "Türkiye'nin")
ENDONYMS = {k: c for c, names in {
    "turkey": "turkiye", "poland": "polska", "switzerland": "schweiz suisse svizzera", "germany": "deutschland",
    "czech republic": "cesko ceska", "slovakia": "slovensko", "spain": "espana", "italy": "italia",
    "austria": "osterreich", "netherlands": "nederland nederlanden", "belgium": "belgie belgique", "sweden": "sverige",
    "norway": "norge", "denmark": "danmark", "finland": "suomi", "hungary": "magyarorszag",
    "croatia": "hrvatska", "serbia": "srbija", "estonia": "eesti", "latvia": "latvija", "slovenia": "slovenija",
    "albania": "shqiperia", "north macedonia": "makedonija", "greece": "ελλαδα", "russia": "россия",
    "ukraine": "украина украiна",
    "japan": "日本", "china": "中国 中國", "south korea": "대한민국 한국", "india": "भारत", "brazil": "brasil",
    "egypt": "مصر", "lithuania": "lietuva", "sudan": "سودان", "saudi arabia": "سعودي سعودية", "morocco": "مغرب",
    "algeria": "جزائر", "tunisia": "تونس", "libya": "ليبي ليبيا", "iraq": "عراق", "syria": "سوري سوريا",
    "lebanon": "لبنان", "jordan": "أردن", "uae": "إمارات", "qatar": "قطر", "kuwait": "كويت", "bahrain": "بحرين",
    "yemen": "يمن", "iran": "إيران", "palestine": "فلسطين",
}.items() for k in names.split()}
# and, read as written, the English names and adjectives COUNTRIES lacks, and own names that are English words
COUNTRY_EXTRA = {k: c for c, names in {
    "hungary": "hungary hungarian magyar", "czech republic": "czech czechia", "slovakia": "slovak slovakia",
    "romania": "romania romanian", "croatia": "croatia croatian", "serbia": "serbian", "bulgaria": "bulgaria bulgarian",
    "slovenia": "slovenia slovenian", "lithuania": "lithuania lithuanian", "latvia": "latvia latvian",
    "estonia": "estonia estonian", "morocco": "morocco moroccan", "jamaica": "jamaica jamaican", "france": "france",
    "portugal": "portugal", "mexico": "mexico", "vietnam": "vietnam",
}.items() for k in names.split()}
# runs of words that hold a country's word but name a continent, a sea or another country: read whole, before
# their words ("Latin American" is no U.S., "North Korean" no South Korea, "New England" no U.K.)
PLACE_PHRASES = {k: c for c, names in {
    "": "latin america, latin american, south america, south american, north america, north american, "
        "central america, central american, pan american, anglo american, indian ocean, irish sea, english channel, "
        "china sea, south china sea, east china sea, arabian sea, arabian peninsula, new guinea, west indies, "
        "east indies, west indian, east indian, indo european, indo chinese, anglo saxon, german shepherd",
    "north korea": "north korean, korea polnocna, coree du nord, corea del norte, nordkorea, nordkoreanisch",
    "us": "new england, native american, african american, asian american, washington state, state of washington",
    "taiwan": "chinese taipei",
}.items() for k in names.split(", ")}
# a country's key in any table (English name or people, own name, official name) -> the country, canonical; a
# canonical name stands for itself ("espana": "spain", "morocco": "morocco")
# countries' names in French, Spanish, German, Italian, Portuguese and Dutch, where they are not English's (keys
# without accents: "Nouvelle-Zélande"; not "Chili" nor "Suède", words of another sense)
EXONYMS = {k: c for c, names in {
    "new zealand": "nouvelle zelande, nueva zelanda, neuseeland, nuova zelanda, nova zelandia, nieuw zeeland",
    "south korea": "coree du sud, corea del sur, sudkorea, corea del sud, coreia do sul, zuid korea",
    "netherlands": "pays bas, paises bajos, niederlande, paesi bassi, paises baixos",
    "uk": "royaume uni, reino unido, vereinigtes konigreich, regno unito, verenigd koninkrijk",
    "us": "etats unis, estados unidos, vereinigte staaten, stati uniti, verenigde staten",
    "south africa": "afrique du sud, sudafrica, sudafrika, africa do sul, zuid afrika",
    "saudi arabia": "arabie saoudite, arabia saudita, saudi arabien, arabia saudi",
    "germany": "allemagne, alemania, germania, alemanha, duitsland", "france": "frankrijk, frankreich, francia",
    "spain": "espagne, spanien, spagna, espanha, spanje", "italy": "italie, italien",
    "japan": "japon, giappone, japao", "china": "chine, cina", "india": "inde, indien", "greece": "grece, grecia, griechenland",
    "turkey": "turquie, turquia, turchia, turkei", "egypt": "egypte, egipto, agypten, egitto, egito",
    "brazil": "bresil, brasilien, brasile", "mexico": "mexique, mexiko, messico", "russia": "russie, rusia, russland",
    "poland": "pologne, polonia, polen", "austria": "autriche, osterreich", "belgium": "belgica, belgien, belgio",
    "sweden": "schweden, suecia, svezia", "norway": "norvege, norwegen, noruega, norvegia", "ireland": "irlande, irlanda",
    "denmark": "danemark, dinamarca, danimarca", "finland": "finlande, finnland, finlandia",
    "switzerland": "suiza, schweiz, svizzera, suica", "australia": "australie, australien",
    "canada": "kanada", "argentina": "argentine, argentinien", "colombia": "colombie, kolumbien",
    "indonesia": "indonesie, indonesien", "thailand": "thailande, tailandia", "philippines": "philippinen, filipinas",
    "morocco": "maroc, marruecos, marokko", "ukraine": "ucrania, ucraina", "iraq": "irak", "israel": "israele",
}.items() for k in names.split(", ")}
COUNTRY_OF = {c: c for table in (COUNTRIES, COUNTRY_EXTRA, ENDONYMS, COUNTRY_NAMES) for c in table.values()} | \
    COUNTRY_EXTRA | ENDONYMS | COUNTRY_NAMES | COUNTRIES | EXONYMS
COUNTRY_WORDS |= {k: c for k, c in EXONYMS.items() if k not in COUNTRY_WORDS}
