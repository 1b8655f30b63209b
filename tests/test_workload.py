"""A chunk's weight: the answer the scheduler expects it to draw, so that the longest chains start first."""

from __future__ import annotations

import random
import statistics

from hypothesis import given
from hypothesis import strategies as st

from graphglean.graph.extraction.workload import answer_estimate, chunk_weight, listed_names
from graphglean.text.chunking import Chunk

PEOPLE = [f"{first} {last}" for first in ("Ada", "Bram", "Cora", "Dane", "Edda", "Finn")
          for last in ("Ames", "Bellow", "Corrin", "Dastel")]


def chunk(text: str) -> Chunk:
    return Chunk("c", "d", 0, text, 0, len(text), len(text) // 4)


def sentence(rng: random.Random, names: int, long: bool) -> str:
    who = rng.sample(PEOPLE, names)
    where = " near the grain market on the day the ferry came in late from the islands" if long else ""
    return f"{who[0]} met {' and '.join(who[1:])}{where}."


def answer(text: str) -> int:
    """What a record-dense model writes: a record per person of a sentence and per neighbouring pair, each
    describing them by the sentence."""
    size = 0
    for s in text.split(". "):
        names = [p for p in PEOPLE if p in s]
        size += (2 * len(names) - 1) * (len(s) + 30) if names else 0
    return size


def test_sentences_listing_more_people_weigh_more_than_as_long_a_text_naming_few():
    rng = random.Random(3)
    many = " ".join(sentence(rng, 5, long=False) for _ in range(20))
    few = " ".join(sentence(rng, 2, long=True) for _ in range(12))
    filler = " ".join("The carts waited in the lane while the bell rang over the wet roofs." for _ in range(15))
    assert abs(len(many) - len(few)) < 0.2 * len(many) and abs(len(few) - len(filler)) < 0.2 * len(few)
    assert chunk_weight(chunk(many)) > 3 * chunk_weight(chunk(few)) > 9 * chunk_weight(chunk(filler))


def test_the_estimate_ranks_chunks_by_the_answer_they_draw():
    """Chunks of one length whose sentences name two to five people, long or short: ranked by weight as by the
    answer's length (a rank correlation of 0.95 and more), far better than by their names alone."""
    rng = random.Random(7)
    texts = []
    for _ in range(60):
        names, long = rng.randint(2, 5), rng.random() < 0.5
        text = ""
        while len(text) < 3000:
            text += sentence(rng, names, long) + " "
        texts.append(text)
    truth = [answer(t) for t in texts]
    weights = [chunk_weight(chunk(t)) for t in texts]
    by_names = [len({w for w in t.split() if w[0].isupper()}) for t in texts]
    assert _rank_correlation(weights, truth) >= 0.95
    assert _rank_correlation(weights, truth) > _rank_correlation(by_names, truth) + 0.1


def test_a_sentence_opening_word_alone_is_no_name_a_run_of_capitals_is():
    assert answer_estimate("The rain fell on the old roofs. Then it stopped.") == 0
    one = answer_estimate("Ada Ames met the miller at dawn.")
    assert one > 0 and answer_estimate("Ada Ames met Ben Cole at dawn.") > 2 * one
    # a thing named twice in a sentence is one thing: two names, three records, each as long as the sentence
    text = "Ada Ames saw Ben and Ben saw Ada Ames."
    assert answer_estimate(text) == 3 * ((len(text) + 1) / 4 + 8)


def test_text_without_capitals_weighs_its_length():
    text = "\u4e00\u4e8c\u4e09\u3002" * 50
    assert chunk_weight(Chunk("c", "d", 0, text, 0, len(text), 321)) == 321.0
    assert answer_estimate("ein satz ohne namen. noch einer") == 0


REFERENCES = """[14] T. Okafor, L. Brandt, and M. Iwasaki, "Sparse attention," in Proc. MICCAI, 2021, pp. 112-120.
[15] Haldane, R., Mbeki, S., & Quist, A. (2019). Priors for generative decoders. Journal of Imaging Science, 4(2).
[16] P. Lindqvist, A. Ferreira et al., Diffusion Models in Radiology, Springer, Cham, 2022.
Vasquez, D. (Ed.), Learning Systems (pp. 17-60). Norwood Academic Press, Boston.
Author list: Yusuf Demir, Hanna Kowalczyk, Ravi Subramanian, Elif Sahin"""
PROSE = {
    "news": "Chancellor Olaf Scholz met French President Emmanuel Macron in Berlin on Monday, and Reuters said the "
            "European Central Bank, led by Christine Lagarde, would hold rates.",
    "german": "Der Bundeskanzler Olaf Scholz traf am Montag den französischen Präsidenten Emmanuel Macron in Berlin.",
    "chat": "Caroline: Did you see Melanie at the LGBTQ support group in Portland, Oregon, on Sunday?\n"
            "Melanie: Yes! Caroline, it was great.",
    "story": "'Mr. Scrooge!' said Bob. 'I'll give you Mr. Scrooge, the Founder of the Feast!'",
}


def test_names_in_author_and_reference_lists_are_listed_names_in_sentences_are_not():
    listed, judged = listed_names(REFERENCES)
    assert judged >= 25 and listed == judged
    for kind, text in PROSE.items():  # a sentence dense with names is still a sentence, in any language
        assert listed_names(text)[0] == 0, kind
    assert listed_names("said Scrooge.\nTiny Tim, Bob") == (0, 0)  # a line this short is not judged


@given(st.lists(st.sampled_from(["Ada", "Ames", "met", "the", "mill.", "Cora,", "and", "Old", "Mill.", "\n"]),
                max_size=60))
def test_more_text_never_weighs_less(words):
    text = " ".join(words)
    assert answer_estimate(text) >= 0
    assert chunk_weight(chunk(text + " Ada Ames met Cora Bellow at the Old Mill.")) >= chunk_weight(chunk(text))


def _rank_correlation(a: list[float], b: list[float]) -> float:
    def ranks(v: list[float]) -> list[int]:
        order = sorted(range(len(v)), key=v.__getitem__)
        out = [0] * len(v)
        for r, i in enumerate(order):
            out[i] = r
        return out

    return statistics.correlation(ranks(a), ranks(b))
