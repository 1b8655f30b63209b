"""A word is letters, combining marks and digits in every script (text/words): a virama, a Tamil vowel sign or a Thai
vowel is part of its word wherever names and types are split into words."""

import unicodedata

import pytest

from graphglean.graph.building.echoes import words_of
from graphglean.graph.extraction.record_reader import relation_field
from graphglean.graph.formats.neo4j import label_of
from graphglean.graph.schema.ontology import Schema, type_key
from graphglean.graph.schema.proposals import identifier
from graphglean.text.words import words

WORDS = ["व्यक्ति", "நிறுவனம்", "บุคคล", "ორგანიზაცია", "組織", "Ελλάδα", "e\u0301te\u0301"]


@pytest.mark.parametrize("word", WORDS)
def test_a_word_with_marks_is_one_word_everywhere(word):
    assert words(f"{word}, {word}") == [word, word]
    assert type_key(word) == word.casefold() or type_key(word) + "s" == word.casefold()
    assert identifier(f"{word} {word}") == f"{word}_{word}".upper()
    assert words_of(f"the {word}") == ("the", unicodedata.normalize("NFC", word).casefold())  # names in NFC
    assert label_of(word) == word[:1].upper() + word[1:]


def test_a_schema_in_hindi_and_tamil_matches_what_the_model_writes():
    schema = Schema.from_mapping({"entities": {"व्यक्ति": "", "நிறுவனம்": ""},
                                  "relationships": [["व्यक्ति", "काम_करता_है", "நிறுவனம்"]]})
    assert schema.entity_type("व्यक्ति") == "व्यक्ति" and schema.entity_type("வ") is None
    assert schema.entity_type("நிறுவனம்") == "நிறுவனம்" and schema.relation("काम करता है") == "काम_करता_है"
    # a relation that is no schema's, written as a label in Devanagari, is still read as the relation
    assert relation_field(["सहयोग_करता", "वे साथ काम करते हैं।"], lambda r: False)[0] == "सहयोग_करता"
