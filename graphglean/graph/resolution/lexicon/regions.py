"""The first-level regions of countries (states, provinces, Länder, voivodeships, counties), and a region's
names in two languages."""

from __future__ import annotations

from .geography import read_table

# the first-level regions of large countries (states, provinces, Länder, autonomous communities, regions), as
# a description's words read them (accents dropped, hyphens as spaces): each places its country, and after a
# comma is a region a place is qualified by ("Londrina, Paraná", "Mérida, Yucatán"); not the names that are
# as often a city elsewhere, a river, a person, a colour or a word ("Córdoba", "Río Negro", "Amazonas", "Pará",
# "Guerrero", "Hidalgo", "Galicia", "Punjab", "Java", "Georgia", "Santa Fe", "Mendoza", "Hesse", "Moravia",
# "Burgundy", "Chihuahua", "Bahía", "La Unión", "Kent"); read by descriptions only, never as a ruler's realm
_WORLD_REGIONS = """brazil: alagoas, amapa, ceara, goias, maranhao, mato grosso, mato grosso do sul, minas gerais,
paraiba, parana, pernambuco, piaui, rio grande do norte, rio grande do sul,
rondonia, roraima, santa catarina, sergipe, tocantins
mexico: aguascalientes, baja california, baja california sur, campeche, chiapas, coahuila, colima,
guanajuato, jalisco, michoacan, nayarit, nuevo leon, oaxaca, puebla, queretaro,
quintana roo, san luis potosi, sinaloa, tamaulipas, tlaxcala, veracruz, yucatan, zacatecas
india: andhra pradesh, arunachal pradesh, assam, bihar, chhattisgarh, gujarat, haryana, himachal pradesh,
jharkhand, karnataka, kerala, madhya pradesh, maharashtra, manipur, meghalaya, mizoram, nagaland, odisha,
rajasthan, sikkim, tamil nadu, telangana, tripura, uttar pradesh, uttarakhand, west bengal
germany: baden wurttemberg, brandenburg, mecklenburg vorpommern, niedersachsen, lower saxony,
nordrhein westfalen, north rhine westphalia, rheinland pfalz, rhineland palatinate, saarland, sachsen, saxony,
sachsen anhalt, saxony anhalt, schleswig holstein, thuringen, thuringia
spain: cantabria, castilla y leon, castile and leon, castilla la mancha, castile la mancha,
extremadura, murcia, pais vasco, basque country, euskadi, catalunya
italy: abruzzo, basilicata, calabria, campania, emilia romagna, friuli venezia giulia, lazio, liguria,
lombardia, lombardy, piemonte, puglia, apulia, sardegna, sardinia, sicilia, sicily, toscana,
tuscany, trentino, umbria, veneto, molise, valle aosta, valle d aosta, aosta valley
france: normandie, normandy, bretagne, provence, alsace, occitanie, nouvelle aquitaine, auvergne,
ile de france, hauts de france, bourgogne, corse, corsica, pays de la loire, grand est, centre val de loire,
bourgogne franche comte, auvergne rhone alpes, provence alpes cote d'azur, cote d'azur, morbihan, finistere,
cotes d'armor, ille et vilaine, loire atlantique, vendee, gironde, dordogne, charente, charente maritime,
pyrenees atlantiques, hautes pyrenees, haute garonne, herault, bouches du rhone, alpes maritimes, haute savoie,
isere, drome, ardeche, puy de dome, cantal, correze, haute vienne, indre et loire, loir et cher, loiret,
eure et loir, seine maritime, calvados, pas de calais, aisne, oise, seine et marne, yvelines, essonne,
hauts de seine, seine saint denis, val de marne, val d'oise, bas rhin, haut rhin, moselle, meurthe et moselle,
vosges, saone et loire, cotes du rhone, lozere, aveyron, ariege, pyrenees orientales
china: guangdong, sichuan, yunnan, hubei, hunan, henan, hebei, shandong, shanxi, shaanxi, jiangsu, zhejiang,
fujian, anhui, jiangxi, guizhou, gansu, qinghai, hainan, heilongjiang, liaoning, inner mongolia, xinjiang,
ningxia, guangxi
czech republic: bohemia, cechy; switzerland: graubunden, grisons, aargau, thurgau
philippines: pampanga, cebu, batangas, bulacan, cavite, ilocos, mindanao, luzon, visayas
indonesia: sumatra, sulawesi, kalimantan, west java, east java, central java
malaysia: selangor, johor, penang, sarawak, kedah, kelantan, pahang, terengganu
pakistan: sindh, khyber pakhtunkhwa
south africa: gauteng, kwazulu natal, western cape, eastern cape
argentina: tucuman, entre rios, chubut, neuquen; austria: steiermark, karnten, vorarlberg, burgenland
uk: northern ireland, irlande du nord, irlanda del norte, nordirland, irlanda do norte, irlanda del nord,
noord ierland, west midlands, east midlands, greater london, greater manchester, merseyside, west yorkshire,
south yorkshire, north yorkshire, tyne and wear, east anglia, lancashire, cumbria, yorkshire,
county antrim, county down"""
# the regions of countries whose towns repeat their names across regions ("Nes", "Herøy", "Nowa Wieś", Japan's
# wards): they place a description and a qualifier, but a place qualified by one is no more the namesake a
# description places in the country alone than another
_SMALL_REGIONS = """scotland: lothian, strathclyde, fife, aberdeenshire; wales: gwynedd, glamorgan
nigeria: anambra, abia, ebonyi, akwa ibom, cross river state, bayelsa, ogun, oyo, osun, ondo,
ekiti, kwara, kogi, benue, borno, yobe, adamawa, taraba, zamfara, nasarawa; ghana: ashanti, greater accra, brong ahafo
norway: troms, finnmark, nordland, vestland, rogaland, trondelag, innlandet, agder, telemark, hordaland,
akershus, ostfold, vestfold, buskerud, oppland, hedmark, more og romsdal, sogn og fjordane
sweden: skane, vastra gotaland, norrbotten, vasterbotten, dalarna, varmland, jamtland, halland, blekinge,
smaland, gotland, ostergotland, sodermanland, vastmanland; finland: uusimaa, pirkanmaa, varsinais suomi,
pohjanmaa, ostrobothnia, kainuu; estonia: harjumaa, tartumaa, ida virumaa
poland: mazowieckie, masovia, malopolskie, lesser poland, slaskie, pomorskie, wielkopolskie, greater poland,
dolnoslaskie, lower silesia, podkarpackie, lubelskie, lodzkie, zachodniopomorskie, warminsko mazurskie,
kujawsko pomorskie, podlaskie, swietokrzyskie, opolskie, lubuskie
netherlands: noord holland, north holland, zuid holland, south holland, gelderland, noord brabant,
north brabant, friesland, fryslan, drenthe, overijssel, zeeland, flevoland
colombia: antioquia, cundinamarca, valle del cauca, boyaca, narino, choco, huila, tolima
new zealand: otago, southland, taranaki, waikato
ireland: county cork, county kerry, county galway, county mayo, county donegal, county clare, county wicklow,
county wexford, county kilkenny, county tipperary, county limerick, county waterford, county sligo,
county meath, county kildare"""

SMALL_REGIONS = frozenset(read_table(_SMALL_REGIONS))
WORLD_REGIONS = read_table(_WORLD_REGIONS) | read_table(_SMALL_REGIONS)
# a world region's names in English or its own language read as one ("Lucca, Tuscany", a "città toscana")
WORLD_REGION_EXONYMS = read_table("""toscana: tuscany; lombardia: lombardy; puglia: apulia; sardegna: sardinia
sicilia: sicily; normandie: normandy; corse: corsica; sachsen: saxony; thuringen: thuringia
niedersachsen: lower saxony; nordrhein westfalen: north rhine westphalia; rheinland pfalz: rhineland palatinate
sachsen anhalt: saxony anhalt; castilla y leon: castile and leon; castilla la mancha: castile la mancha
pais vasco: basque country, euskadi; valle d aosta: valle aosta, aosta valley; mazowieckie: masovia
malopolskie: lesser poland; wielkopolskie: greater poland; dolnoslaskie: lower silesia; noord holland: north holland
zuid holland: south holland; noord brabant: north brabant; friesland: fryslan; pohjanmaa: ostrobothnia""")
