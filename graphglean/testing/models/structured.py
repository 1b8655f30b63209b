"""A corpus of four entity types with planted relations, and a model that extracts it under a schema, in the tuple
format (with its relation field) or as JSON when a request carries ``response_format: json_schema``: the same
records either way, so a run in one format and a run in the other can be compared record for record.

    corpus = typed_corpus()
    server = FakeLLMServer(typed_model(corpus))           # cfg.graph.schema = corpus.schema()

`typed_model` answers like `responders.synthetic` (two thirds of a passage's records first, the rest when a
gleaning round asks), answers a request for the rest of a cut JSON answer with the records it did not name,
and hands every other prompt to `synthetic`. ``capped(typed_model(corpus))`` cuts answers at ``max_tokens``.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any, Callable, Iterable

import attrs

from ..exchange import RecordedRequest, Reply, Responder
from ...graph.offline.nlp_heuristic import noun_phrases
from .responders import MARK_LOOP, synthetic

TYPES = {"PERSON": "a human being", "ORGANIZATION": "a company, institution or group",
         "GEO": "a city, region or country", "EVENT": "something that took place at a time"}
PATTERNS = (("PERSON", "WORKS_FOR", "ORGANIZATION"), ("ORGANIZATION", "LOCATED_IN", "GEO"),
            ("PERSON", "ATTENDED", "EVENT"), ("EVENT", "HELD_IN", "GEO"))
_PEOPLE = [f"{a} {b}" for a in ("Ada", "Bram", "Cleo", "Dov", "Esme", "Finn") for b in ("Archer", "Brook", "Castle")]
_ORGS = ["Bluewake Ferries", "Northwind Labs", "Kestrel Bank", "Amber Mills", "Saltmarsh Press", "Cobalt Works"]
_GEOS = ["Lagos", "Osaka", "Quito", "Perth", "Bergen", "Hanoi"]
_EVENTS = ["Harbour Festival", "Spring Summit", "Lantern Fair", "Winter Regatta", "Glass Expo", "River Games"]
_SENTENCES = ("{p} works for {o}, which is based in {g}.", "{p} attended the {e} in {g}.")
MARK_JSON_CONTINUE = "as a new\nJSON object of the same shape"
MARK_JSON_REST = "These of its records were read:"
MARK_TUNE = "You design the schema of a knowledge graph"

Entity = tuple[str, str, str]  # name, type, description
Relationship = tuple[str, str, str, str, int]  # source, target, relation, description, strength


@attrs.frozen
class TypedCorpus:
    documents: list[str]
    type_of: dict[str, str]  # every name the documents use -> its type

    def schema(self, mode: str = "open", leave_out: Iterable[str] = ()) -> dict[str, Any]:
        """A ``graph.schema`` of the corpus's four types (without those in ``leave_out``) and their patterns."""
        out = set(leave_out)
        return {"entities": {t: d for t, d in TYPES.items() if t not in out},
                "relationships": [list(p) for p in PATTERNS if p[0] not in out and p[2] not in out], "mode": mode}

    def records(self, passage: str) -> tuple[list[Entity], list[Relationship]]:
        """What a thorough model writes for ``passage``: its names in order, and the planted relation of each
        pair of neighbours in a sentence whose types a pattern relates."""
        names = re.compile("|".join(sorted(map(re.escape, self.type_of), key=len, reverse=True)))
        entities: dict[str, Entity] = {}
        relationships: dict[tuple[str, str], Relationship] = {}
        for sentence in re.split(r"(?<=[.!?])\s+", passage):
            found = list(dict.fromkeys(m.group() for m in names.finditer(sentence)))
            for n in found:
                entities.setdefault(n, (n, self.type_of[n], f"{n} is named where the text says: {sentence.strip()}"))
            for a, b in zip(found, found[1:]):
                relation = next((r for s, r, t in PATTERNS if (s, t) == (self.type_of[a], self.type_of[b])), None)
                if relation is not None:
                    words = relation.lower().replace("_", " ")
                    relationships.setdefault((a, b), (a, b, relation, f"{a} {words} {b}.", len(a + b) % 9 + 1))
        return list(entities.values()), list(relationships.values())


def typed_corpus(documents: int = 6, sentences: int = 8, seed: int = 0) -> TypedCorpus:
    rng = random.Random(seed)
    type_of = {**dict.fromkeys(_PEOPLE, "PERSON"), **dict.fromkeys(_ORGS, "ORGANIZATION"),
               **dict.fromkeys(_GEOS, "GEO"), **dict.fromkeys(_EVENTS, "EVENT")}
    texts = []
    for _ in range(documents):
        body = [rng.choice(_SENTENCES).format(p=rng.choice(_PEOPLE), o=rng.choice(_ORGS), g=rng.choice(_GEOS),
                                              e=rng.choice(_EVENTS)) for _ in range(sentences)]
        texts.append("\n\n".join(" ".join(body[k:k + 4]) for k in range(0, len(body), 4)))
    return TypedCorpus(texts, type_of)


def wants_json(req: RecordedRequest) -> bool:
    """Whether a request asks for JSON of a schema: ``json_schema``, or ``json_object`` with the schema beside it
    (llama-cpp-python's JSON schema mode)."""
    fmt = (req.body or {}).get("response_format") if isinstance(req.body, dict) else None
    return isinstance(fmt, dict) and (fmt.get("type") == "json_schema" or (
        fmt.get("type") == "json_object" and isinstance(fmt.get("schema"), dict)))


def asks_format(kind: str) -> Callable[[RecordedRequest], bool]:
    """Whether a request's ``response_format`` is of type ``kind`` (what a server that refuses it refuses)."""
    def asks(req: RecordedRequest) -> bool:
        fmt = (req.body or {}).get("response_format") if isinstance(req.body, dict) else None
        return isinstance(fmt, dict) and fmt.get("type") == kind
    return asks


def _passage(prompt: str) -> str:
    body = prompt.rpartition("Passage:\n")[2]
    return re.split(r"\n\n(?:Records|JSON):", body)[0].strip()


def typed_model(corpus: TypedCorpus, json_always: bool = False, json_never: bool = False) -> Responder:
    """The model of the module docstring; ``json_always``: JSON whatever was asked; ``json_never``: the tuple
    format even when a request asks for JSON (a server that takes the parameter and ignores it)."""
    def respond(req: RecordedRequest) -> Reply | str:
        first = str(req.messages[0].get("content") or "") if req.messages else ""
        if MARK_TUNE in first:
            return tune_answer(corpus, _passage(first))
        if "You build a knowledge graph" not in first:
            return synthetic(req)
        if req.max_tokens == 1 or MARK_LOOP in req.last_user:
            return Reply("YES" if _answers_given(req) < 2 else "NO", finish_reason="length")
        entities, relationships = corpus.records(_passage(first))
        if not entities:  # a text of another corpus: its proper nouns, of the first type the prompt lists
            entities, relationships = _named(_passage(first), first)
        cut = (len(entities) * 2 + 2) // 3
        part = 1 if "The last extraction missed" in _asked(req) else 0
        chosen = entities[:cut] if part == 0 else entities[cut:]
        names = {e[0] for e in chosen}
        rels = [r for r in relationships if r[0] in names or r[1] in names]
        if part == 1:  # those not written with the first part
            first_names = {e[0] for e in entities[:cut]}
            rels = [r for r in rels if not (r[0] in first_names and r[1] in first_names)]
        if MARK_JSON_REST in req.last_user:  # the rest of a cut answer: what it did not name
            said = req.last_user
            chosen = [e for e in chosen if f"- entity {e[0]}\n" not in said + "\n"]
            rels = [r for r in rels if f"- relationship {r[0]} -> {r[1]}" not in said]
        as_json = (wants_json(req) or json_always) and not json_never
        return _as_json(chosen, rels) if as_json else _as_tuples(chosen, rels, "relation" in first)
    return respond


def tune_answer(corpus: TypedCorpus, passage: str) -> str:
    """What a model proposes for `graphglean tune` of ``passage``: the corpus's types it names (a text of another
    corpus: CHARACTER and PLACE), with examples it writes and one it does not (never to reach the schema)."""
    entities, relationships = corpus.records(passage)
    if not entities:
        entities = [(n, "CHARACTER", "") for n in _proper_nouns(passage)[:4]]
        relationships = [(a[0], b[0], "MEETS", "", 5) for a, b in zip(entities, entities[1:2])]
    kinds: dict[str, list[str]] = {}
    for name, kind, _ in entities:
        kinds.setdefault(kind, []).append(name)
    return json.dumps({
        "entity_types": [{"type": k, "description": TYPES.get(k, f"a {k.lower()} the text names"),
                          "examples": [*names[:3], "Zorblax Quent"]} for k, names in kinds.items()],
        "relationships": [{"source_type": corpus.type_of.get(a, "CHARACTER"), "relation": r,
                           "target_type": corpus.type_of.get(b, "CHARACTER"), "example": {"source": a, "target": b}}
                          for a, b, r, _, _ in relationships[:6]]})


def _proper_nouns(passage: str) -> list[str]:
    return list(dict.fromkeys(" ".join(p.split()) for p, _, _ in noun_phrases(passage)))


def _named(passage: str, prompt: str) -> tuple[list[Entity], list[Relationship]]:
    listed = re.search(r"^- ([^:\n]+)", prompt, re.M)
    kind = listed.group(1).strip() if listed else "PERSON"
    pattern = re.search(r"^    \S+ (\S+) \S+$", prompt, re.M)  # the first relation the prompt lists
    relation = pattern.group(1) if pattern else "RELATED_TO"
    names = _proper_nouns(passage)
    return ([(n, kind, f"{n} is named in the passage.") for n in names],
            [(a, b, relation, f"{a} is named near {b}.", 5) for a, b in zip(names, names[1:])])


def _answers_given(req: RecordedRequest) -> int:
    """`answers_given`, a cut JSON answer and its rest counting once too."""
    given, open_question = 0, False
    for m in req.messages:
        content = str(m.get("content") or "")
        if m.get("role") == "user":
            open_question = MARK_JSON_REST not in content and "Continue it exactly" not in content
        elif m.get("role") == "assistant" and open_question:
            given, open_question = given + 1, False
    return given


def _asked(req: RecordedRequest) -> str:
    """The question the answer is to (the last user message that is not a request to go on with a cut one)."""
    for m in reversed(req.messages):
        content = str(m.get("content") or "")
        if m.get("role") == "user" and MARK_JSON_REST not in content and "Continue it exactly" not in content:
            return content
    return ""


def _as_json(entities: list[Entity], relationships: list[Relationship]) -> str:
    return json.dumps({"entities": [{"name": n, "type": t, "description": d} for n, t, d in entities],
                       "relationships": [{"source": a, "target": b, "relation": r, "description": d, "strength": s}
                                         for a, b, r, d, s in relationships]}, ensure_ascii=False, indent=1)


def _as_tuples(entities: list[Entity], relationships: list[Relationship], typed: bool) -> str:
    lines = [f'("entity"<|>{n}<|>{t}<|>{d})' for n, t, d in entities]
    lines += [f'("relationship"<|>{a}<|>{b}<|>' + (f"{r}<|>" if typed else "") + f"{d}<|>{s})"
              for a, b, r, d, s in relationships]
    return "##\n".join(lines) + "\n<|COMPLETE|>"
