"""Countries as news in Cyrillic and Arabic script names them (Russian, and the Arabic names the own-name table
lacks), read as `geography.ENDONYMS` are: a case ending more or less ("Германии", "Казахстана"), in Arabic
after the article ("الفلسطينية"). Keys as names are read: folded, accents (й, ё) off."""

from __future__ import annotations

from ....text.words import strip_accents

_NAMES = {
    "germany": "германия", "france": "франция", "italy": "италия", "spain": "испания", "uk": "великобритания",
    "us": "сша америка", "china": "китай", "japan": "япония", "india": "индия", "brazil": "бразилия",
    "canada": "канада", "australia": "австралия", "turkey": "турция", "iran": "иран", "israel": "израиль",
    "egypt": "египет", "kazakhstan": "казахстан қазақстан", "uzbekistan": "узбекистан", "belarus": "беларусь "
    "белоруссия", "poland": "польша", "georgia": "грузия", "armenia": "армения", "azerbaijan": "азербайджан",
    "moldova": "молдова молдавия", "latvia": "латвия", "lithuania": "литва", "estonia": "эстония",
    "finland": "финляндия", "sweden": "швеция", "norway": "норвегия", "denmark": "дания", "netherlands":
    "нидерланды голландия", "belgium": "бельгия", "switzerland": "швейцария", "austria": "австрия",
    "czech republic": "чехия", "slovakia": "словакия", "hungary": "венгрия", "romania": "румыния",
    "bulgaria": "болгария", "serbia": "сербия", "croatia": "хорватия", "greece": "греция", "syria": "сирия",
    "iraq": "ирак", "afghanistan": "афганистан", "pakistan": "пакистан", "vietnam": "вьетнам",
    "indonesia": "индонезия", "mexico": "мексика", "argentina": "аргентина", "cuba": "куба",
    "kyrgyzstan": "киргизия кыргызстан", "tajikistan": "таджикистан", "turkmenistan": "туркменистан",
    "mongolia": "монголия", "portugal": "португалия", "ireland": "ирландия",
    # Arabic, after its article: "ألمانيا", "فرنسا"...
    "germany ": "ألمانيا المانيا", "france ": "فرنسا", "russia": "روسيا", "china ": "صين", "japan ": "يابان",
    "turkey ": "تركيا", "uk ": "بريطانيا", "israel ": "إسرائيل اسرائيل", "pakistan ": "باكستان", "india ": "هند",
    "spain ": "إسبانيا اسبانيا", "italy ": "إيطاليا ايطاليا", "afghanistan ": "أفغانستان افغانستان",
}
SCRIPT_NAMES = {strip_accents(name).casefold(): country.strip() for country, names in _NAMES.items()
                for name in names.split()}
# the article and the clitics before it: "الفلسطينية" is read as "فلسطينية"
ARABIC_ARTICLES = ("وال", "بال", "لل", "ال")
