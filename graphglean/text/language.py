"""The language of a text, offline and cheap: its script from Unicode ranges (Han, Hangul, Cyrillic, ...), and
within a script shared by many languages (Latin, Cyrillic, Arabic) the language whose most frequent words
make up the largest share of its words. A few thousand characters tell; a text too short to tell is ``""``.
Text is read in NFC: decomposed accents (macOS, PDF extractors) are the same letters and words as composed ones."""

from __future__ import annotations

from collections import Counter

import attrs
import regex

from .nfc import nfc

SAMPLE_CHARS = 4000  # of a text: the detection reads no more
MIN_LETTERS = 20  # fewer and the script says nothing
MIN_WORDS = 12  # fewer and the frequent words say nothing
MIN_SHARE = 0.08  # of its words that a language's frequent words must make up
MIN_DISTINCT = 4  # of those frequent words, different ones: running text uses many ("met" alone is no Dutch)

# scripts written by one language (as far as which spaCy pipeline reads them goes)
_SCRIPT_LANGUAGE = {"Hangul": "ko", "Greek": "el", "Hebrew": "he", "Thai": "th", "Georgian": "ka",
                    "Armenian": "hy", "Devanagari": "hi", "Bengali": "bn", "Tamil": "ta", "Telugu": "te",
                    "Gujarati": "gu", "Kannada": "kn", "Malayalam": "ml", "Sinhala": "si", "Ethiopic": "am",
                    "Khmer": "km", "Lao": "lo", "Myanmar": "my", "Han": "zh", "Hiragana": "ja", "Katakana": "ja"}
_SCRIPTS = ("Latin", "Cyrillic", "Arabic", *_SCRIPT_LANGUAGE)
_RUNS = regex.compile("|".join(f"(\\p{{{s}}}+)" for s in _SCRIPTS))
_WORDS = regex.compile(r"[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)?")

# the most frequent words of each language, by script (the languages spaCy has pipelines for, and the next most
# written ones)
_PROFILES: dict[str, dict[str, str]] = {
    "Latin": {
        "en": "the of and to in is that it for was on are as with his they at be this from have not by but or had "
              "an were which you he she we",
        "de": "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden "
              "aus er hat dass sie nach bei um wird",
        "fr": "le la les de des et en un une du est que qui dans pour pas au sur il elle ne se ce sont avec par "
              "plus mais",
        "es": "el la los las de del y en que un una por con para es se no al lo como más pero su sus fue",
        "it": "il lo la gli le di del della che e è un una per non con si da sono al nel alla anche come più ma",
        "pt": "o a os as de do da dos das e em um uma que não para com por é se no na mais como ao foi",
        "nl": "de het een en van in is dat op te zijn niet met voor die er aan ook als maar bij wordt door",
        "sv": "och i att det som en på är av för med till den har inte om ett var jag de men sig från",
        "da": "og i at det som en på er af for med til den har ikke om et var jeg de men sig fra blev",
        "nb": "og i å det som en på er av for med til den har ikke om et var jeg de men seg fra ble",
        "fi": "ja on ei se että oli hän ovat mutta kun tai myös joka sen ole kuin mitä niin tämä jo",
        "pl": "i w z na się nie do to że jest o jak ale po co tak za od jego przez są był być",
        "cs": "a v se na je že to s z do o jako pro ale by jsou jeho k po tak který bylo",
        "sk": "a v sa na je že to s z do o ako pre ale by sú jeho k po tak ktorý bolo",
        "ro": "și în de la a cu nu pe o un care se din mai este să ce fost sunt pentru",
        "hu": "a az és hogy nem is egy van de meg csak el volt mint ha már ki be",
        "tr": "ve bir bu da de için ile olarak çok daha gibi ne o en ama olan var kadar",
        "ca": "el la els les de del i a que en un una per amb no es és al dels com però",
        "hr": "i u je da se na su za od s ne kao to ali sa iz koji bi još biti",
        "sl": "in je da se na za v so z pa ki ne to kot tudi s od bi še biti",
        "lt": "ir yra kad bet su į iš tai jis ne o kaip buvo jo dar per ar",
        "lv": "un ir ka ar par no uz bet kas tas arī bija lai to viņš vai",
        "et": "ja on et ei see oli ka kui mis ta aga nagu siis või ning",
        "id": "yang dan di ini itu dengan untuk dari dalam tidak akan pada ke juga ada adalah",
        "vi": "và của là có không được trong cho những các một người này với đã",
    },
    "Cyrillic": {
        "ru": "и в не на что с по он как это к но из о у за от же так для был",
        "uk": "і в не на що з та як це до у за від але так для був його же",
        "bg": "и в на е да се за не от с че по са както това като към ще",
    },
    "Arabic": {
        "ar": "في من على إلى أن عن مع هذا التي الذي كان ما لا هو",
        "fa": "و در به از که این را با است برای آن یک می شود",
        "ur": "کے میں کی ہے اور سے کو نے پر کا یہ ہیں",
    },
}
_FREQUENT = {script: {code: frozenset(words.split()) for code, words in langs.items()}
             for script, langs in _PROFILES.items()}

NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
         "nl": "Dutch", "sv": "Swedish", "da": "Danish", "nb": "Norwegian", "fi": "Finnish", "pl": "Polish",
         "cs": "Czech", "sk": "Slovak", "ro": "Romanian", "hu": "Hungarian", "tr": "Turkish", "ca": "Catalan",
         "hr": "Croatian", "sl": "Slovenian", "lt": "Lithuanian", "lv": "Latvian", "et": "Estonian",
         "id": "Indonesian", "vi": "Vietnamese", "ru": "Russian", "uk": "Ukrainian", "bg": "Bulgarian",
         "ar": "Arabic", "fa": "Persian", "ur": "Urdu", "zh": "Chinese", "ja": "Japanese", "ko": "Korean",
         "el": "Greek", "he": "Hebrew", "th": "Thai", "ka": "Georgian", "hy": "Armenian", "hi": "Hindi",
         "bn": "Bengali", "ta": "Tamil", "te": "Telugu", "gu": "Gujarati", "kn": "Kannada", "ml": "Malayalam",
         "si": "Sinhala", "am": "Amharic", "km": "Khmer", "lo": "Lao", "my": "Burmese", "xx": "many languages"}


@attrs.frozen
class Detected:
    language: str  # ISO 639-1 code, "" when the text is too short (or its words too rare) to tell
    script: str  # the script of most of its letters, "" when it has too few


def name_of(code: str) -> str:
    """"German (de)"; the code alone for a language without a name here."""
    return f"{NAMES[code]} ({code})" if code in NAMES else code


def _letters(text: str) -> Counter[str]:
    """How many letters of ``text`` each script holds."""
    letters: Counter[str] = Counter()
    for m in _RUNS.finditer(text):
        letters[_SCRIPTS[m.lastindex - 1]] += len(m.group())
    return letters


def script_of(text: str) -> str:
    """The script of most of ``text``'s letters ("Latin", "Cyrillic", "Han", ...); "" for none of these."""
    letters = _letters(nfc(text))
    return letters.most_common(1)[0][0] if letters else ""


def detect(text: str) -> Detected:
    """The language of ``text`` (its first `SAMPLE_CHARS` characters)."""
    sample = nfc(text[:SAMPLE_CHARS])
    letters = _letters(sample)
    if sum(letters.values()) < MIN_LETTERS:
        return Detected("", "")
    script = letters.most_common(1)[0][0]
    if script in ("Han", "Hiragana", "Katakana"):  # Japanese mixes kana into its Han; Chinese has none
        kana = letters["Hiragana"] + letters["Katakana"]
        return Detected("ja" if kana >= 0.1 * (kana + letters["Han"]) else "zh", script)
    if script in _SCRIPT_LANGUAGE:
        return Detected(_SCRIPT_LANGUAGE[script], script)
    words = [w.lower() for w in _WORDS.findall(sample)]
    if len(words) < MIN_WORDS:
        return Detected("", script)
    counts = Counter(words)
    share = {code: sum(counts[w] for w in frequent) / len(words) for code, frequent in _FREQUENT[script].items()}
    best = max(share, key=share.__getitem__)
    distinct = len(_FREQUENT[script][best] & counts.keys())
    return Detected(best if share[best] >= MIN_SHARE and distinct >= MIN_DISTINCT else "", script)
