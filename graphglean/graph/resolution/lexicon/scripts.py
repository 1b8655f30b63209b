"""Countries as news in Cyrillic and Arabic script names them (Russian, and the Arabic names the own-name table
lacks), each in the forms its grammar gives it, read as whole words: Russian case endings ("Германии",
"Казахстана", "Польши"; not "канал" of Канада, "груза" of Грузия, "кита" of Китай), Arabic adjectives after the
article ("الفلسطينية"; not the given names "هند", "تركي"). Keys as names are read: folded, accents (й, ё) off."""

from __future__ import annotations

from ....text.words import strip_accents

_NAMES = {
    "germany": "германия", "france": "франция", "italy": "италия", "spain": "испания", "uk": "великобритания",
    "us": "сша", "china": "китай", "japan": "япония", "india": "индия", "brazil": "бразилия",
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
    "turkey ": "تركيا", "uk ": "بريطانيا", "israel ": "إسرائيل اسرائيل", "pakistan ": "باكستان",
    "spain ": "إسبانيا اسبانيا", "italy ": "إيطاليا ايطاليا", "afghanistan ": "أفغانستان افغانستان",
    "palestine": "فلسطين", "egypt ": "مصر", "sudan": "سودان", "saudi arabia": "سعودي سعودية", "morocco": "مغرب",
    "algeria": "جزائر", "tunisia": "تونس", "libya": "ليبيا", "iraq ": "عراق", "syria ": "سوريا", "lebanon": "لبنان",
    "jordan": "أردن", "qatar": "قطر", "kuwait": "كويت", "bahrain": "بحرين", "yemen": "يمن", "iran ": "إيران",
}
_CASES_A = ("а", "ы", "и", "е", "у", "ои", "ою")  # Канада: Канады, Канаде, Канаду, Канадой (й read as и)
_CASES_IA = ("я", "и", "ю", "еи", "ею")  # Германия: Германии, Германию, Германией
_CASES_HARD = ("", "а", "у", "е", "ом", "ы")  # Казахстан: Казахстана, Казахстане, Казахстаном
_CASES_SOFT = ("я", "ю", "е", "ем", "и")  # Китай (read "китаи"): Китая, Китае; Израиль: Израиля
_ARABIC = ("", "ي", "ية", "يون", "يين")  # فلسطين: فلسطيني, فلسطينية, فلسطينيون


def _forms(name: str) -> tuple[str, ...]:
    if "\u0600" <= name[0] <= "\u06ff":  # Arabic: the name, and its adjectives (not "تركي", also a given name)
        if name.endswith("يا"):  # تركيا: تركية
            return (name, name[:-1] + "ة", name[:-1] + "ون", name[:-1] + "ين")
        return (name, *(name + e for e in _ARABIC[1:]))
    if name in ("сша",):  # indeclinable
        return (name,)
    if name.endswith("ия"):
        return tuple(name[:-1] + e for e in _CASES_IA)
    if name.endswith("ы"):  # Нидерланды: Нидерландов, Нидерландах
        return (name, *(name[:-1] + e for e in ("ов", "ам", "ах", "ами")))
    if name.endswith(("а", "я")):
        return tuple(name[:-1] + e for e in _CASES_A)
    if name.endswith(("и", "ь")):  # the whole name, never its stem alone ("кита", a whale's, is no Китай)
        return (name, *(name[:-1] + e for e in _CASES_SOFT))
    return tuple(name + e for e in _CASES_HARD)


SCRIPT_FORMS = {form: country.strip() for country, names in _NAMES.items() for name in names.split()
                for form in _forms(strip_accents(name).casefold())}
# the article and the clitics before it: "الفلسطينية" is read as "فلسطينية"
ARABIC_ARTICLES = ("وال", "بال", "لل", "ال")
