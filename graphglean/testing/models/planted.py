"""A corpus with planted communities, for tests and benchmarks of `graph.communities`: groups of people and
places, each document drawing most of its sentences from one group. The `synthetic` responder's records link
names that follow one another in a passage, so the graph's communities should be the groups."""

from __future__ import annotations

import random

import attrs

_FIRST = ["Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena", "Mira", "Nico",
          "Odile", "Pavel"]
_SURNAMES = ["Archer", "Brook", "Castle", "Dale", "Ewing", "Frost", "Grove", "Hale"]
_PLACES = [["Lagos", "Accra"], ["Osaka", "Kyoto"], ["Quito", "Lima"], ["Perth", "Hobart"], ["Oslo", "Bergen"],
           ["Hanoi", "Hue"], ["Tunis", "Sfax"], ["Porto", "Braga"]]
_VERBS = ["met {b} in {c}", "wrote to {b} about {c}", "argued with {b} near {c}", "sailed with {b} to {c}",
          "sold a house to {b} in {c}", "taught {b} the history of {c}"]


@attrs.define
class PlantedCorpus:
    documents: list[str]
    group_of: dict[str, int]  # entity name (case-folded) -> its group
    document_groups: list[int]

    def purity(self, clusters: list[list[str]]) -> float:
        """The share of clustered planted entities that are in their cluster's majority group."""
        agree = total = 0
        for members in clusters:
            groups = [self.group_of[m.casefold()] for m in members if m.casefold() in self.group_of]
            if groups:
                agree += max(groups.count(g) for g in set(groups))
                total += len(groups)
        return agree / total if total else 0.0


def _people(group: int, per_group: int) -> list[str]:
    return [f"{_FIRST[k % len(_FIRST)]} {_SURNAMES[group % len(_SURNAMES)]}" for k in range(per_group)]


def _sentence(rng: random.Random, people: list[str], places: list[str]) -> str:
    a, b = rng.sample(people, 2)
    return f"{a} {rng.choice(_VERBS).format(b=b, c=rng.choice(places))}."


def planted_corpus(groups: int = 4, per_group: int = 10, documents: int = 16, sentences: int = 20,
                   purity: float = 0.95, seed: int = 0) -> PlantedCorpus:
    """``documents`` texts, group after group in turn; each sentence names two people and a place of the
    document's group with probability ``purity``, of another group otherwise."""
    if not 1 <= groups <= len(_SURNAMES) or not 2 <= per_group <= len(_FIRST):
        raise ValueError(f"groups must be 1-{len(_SURNAMES)} and per_group 2-{len(_FIRST)}")
    rng = random.Random(seed)
    people = [_people(g, per_group) for g in range(groups)]
    group_of = {name.casefold(): g for g in range(groups) for name in people[g] + _PLACES[g]}
    texts, owners = [], []
    for d in range(documents):
        own = d % groups
        picks = [own if rng.random() < purity or groups == 1 else rng.choice([g for g in range(groups) if g != own])
                 for _ in range(sentences)]
        body = [_sentence(rng, people[g], _PLACES[g]) for g in picks]
        texts.append("\n\n".join(" ".join(body[k:k + 4]) for k in range(0, len(body), 4)))
        owners.append(own)
    return PlantedCorpus(texts, group_of, owners)


def one_more_document(corpus: PlantedCorpus, group: int, sentences: int = 20, seed: int = 1) -> str:
    """A further document drawing every sentence from ``group``."""
    rng = random.Random(seed)
    groups = 1 + max(corpus.group_of.values())
    per_group = sum(1 for g in corpus.group_of.values() if g == 0) - len(_PLACES[0])
    people = _people(group, per_group)
    assert group < groups
    return " ".join(_sentence(rng, people, _PLACES[group]) for _ in range(sentences))
