"""Deterministic responders for the fake server.

`synthetic` plays a compliant model for every prompt graphglean sends (graph records from the passage's
proper nouns, one gleaning round, gists and facts as JSON, summaries, intents, entities), so runs,
benchmarks and the README's example work with no real model. `ReplayResponder` replays responses that a real
model gave, recorded in ``replay.jsonl`` files (see ``../shared/README.md``).
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path
from typing import Any, Callable

import attrs

from ...graph.offline.nlp_heuristic import noun_phrases
from ..bodies import rough_tokens
from ..exchange import RecordedRequest, Reply, Responder

MARK_LOOP = "Answer with one word, YES or NO"
MARK_CONTINUE = "The last extraction missed"
MARK_RESUME = "Continue it exactly where it stopped"
MARK_DESCRIBE = "Below are several descriptions of the same"
MARK_SUMMARY = "Rewrite this text in summarized form."
MARK_PROGRESSIVE = "Current summary:"
MARK_GISTS = '"gists"'
MARK_FACTS = '"facts"'
MARK_INTENT = "intent of the message"
MARK_ENTITIES = "named entities"
MARK_REPORT = "writing a community report"
MARK_QUESTION = "---Question---"  # graphglean query's prompts (query_local, query_map, query_reduce)
MARK_MAP = '{"points": ['
MARK_NOTES = "---Notes---"
MARK_RESOLVE = "whether both records name one and the same real-world entity"


def passage_of(prompt: str) -> str:
    """The text after the last ``Passage:`` (or ``Text:``/``Message:``) heading of a prompt."""
    for heading in ("Passage:\n", "Message:\n", "Text to summarize next:\n\n", "New lines of conversation:\n",
                    "Text:\n"):
        if heading in prompt:
            body = prompt.rpartition(heading)[2]
            return body.split("\n\nRecords:")[0].strip()
    return prompt


def answers_given(req: RecordedRequest) -> int:
    """How many of the conversation's questions (the extraction, each gleaning round) the model has answered:
    an answer continued after the cap cut it counts once."""
    given, open_question = 0, False
    for m in req.messages:
        if m.get("role") == "user":
            open_question = MARK_RESUME not in str(m.get("content") or "")
        elif m.get("role") == "assistant" and open_question:
            given, open_question = given + 1, False
    return given


def _records(passage: str, part: int) -> str:
    names = list(dict.fromkeys(p for p, _, _ in noun_phrases(passage)))
    cut = (len(names) * 2 + 2) // 3
    chosen = names[:cut] if part == 0 else names[cut:]
    lines = [f'("entity"<|>{n}<|>person<|>{n} appears in the passage.)' for n in chosen]
    lines += [f'("relationship"<|>{a}<|>{b}<|>{a} is mentioned near {b}.<|>{(len(a) + len(b)) % 9 + 1})'
              for a, b in zip(chosen, chosen[1:])]
    return "##\n".join(lines) + "\n<|COMPLETE|>"


def _sentences(text: str, n: int) -> list[str]:
    parts = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 3]
    return parts[:n] or [text.strip()[:200]]


def synthetic(req: RecordedRequest) -> Reply | str:
    last = req.last_user
    prompt = req.prompt
    if req.max_tokens == 1 or MARK_LOOP in last:
        return Reply("YES" if answers_given(req) < 2 else "NO", finish_reason="length")
    if req.messages and MARK_REPORT in req.messages[0]["content"]:
        return community_report(req.messages[0]["content"])
    if MARK_QUESTION in last:
        return query_answer(last)
    if MARK_CONTINUE in last:
        return _records(passage_of(req.messages[0]["content"]), 1)
    if "Records:" in last:
        return _records(passage_of(last), 0)
    if MARK_DESCRIBE in last:
        lines = [line[2:] for line in last.splitlines() if line.startswith("- ")]
        return " ".join(lines)[:400]
    if MARK_FACTS in prompt:
        body = passage_of(last)
        return json.dumps({"facts": [{"subject": s.split()[0], "predicate": "said", "object": s,
                                      "qualifiers": {}} for s in _sentences(body, 3)]})
    if MARK_GISTS in prompt:
        return json.dumps({"gists": _sentences(passage_of(last), 2)})
    if MARK_INTENT in prompt:
        return "The speaker wants to share news."
    if MARK_ENTITIES in prompt:
        body = passage_of(last)
        return json.dumps({"entities": [{"label": "PERSON", "name": p} for p, _, _ in noun_phrases(body)[:5]]})
    if MARK_SUMMARY in prompt or MARK_PROGRESSIVE in prompt:
        return " ".join(_sentences(passage_of(last), 2))
    if MARK_RESOLVE in prompt:
        return resolution_answer(last)
    return "OK"


_CARD = re.compile(r'^[AB]: "(.*?)" \((.*?)\)', re.M)


def resolution_answer(prompt: str) -> str:
    """A careful model's answer to a resolution batch, a line a pair: SAME for one name written another way, or
    a person's surname alone against the full name ("Scrooge", "Ebenezer Scrooge"), else DIFFERENT ("Tamil
    Nadu" is not "Tamil Nadu Medical Services Corporation")."""
    lines = []
    for n, pair in enumerate(re.split(r"^Pair \d+$", prompt, flags=re.M)[1:], 1):
        cards = [(re.findall(r"\w+", name.casefold()), kind.casefold()) for name, kind in _CARD.findall(pair)[:2]]
        (short, kind_a), (long, kind_b) = sorted(cards, key=lambda c: len(c[0])) if len(cards) == 2 else [([], "")] * 2
        people = all(any(w in k for w in ("person", "character", "people")) for k in (kind_a, kind_b))
        same = bool(short) and (short == long or people and len(short) == 1 < len(long) and short[0] == long[-1])
        lines.append(f"{n}: {'SAME' if same else 'DIFFERENT'}")
    return "\n".join(lines)


def sized(req: RecordedRequest) -> str:
    """An answer of ``max_tokens`` tokens (16 when unset): a word of four characters each."""
    return "word" * (req.max_tokens or 16)


def uneven(req: RecordedRequest) -> Reply:
    """`sized`, after a wait spread evenly over 0 to 2 s, and 3 s more for one request in thirty (by the hash of
    its text: the same every run): a hosted service's own spread of answer times, with no queue behind it."""
    text = req.last_user.encode("utf-8", "surrogatepass")
    late = 3.0 if zlib.crc32(text[::-1]) % 30 == 0 else 0.0
    return Reply(sized(req), delay=2.0 * (zlib.crc32(text) % 10_000) / 10_000 + late)


def _table(context: str, heading: str) -> list[list[str]]:
    """The rows of one ``id|...`` table of a report prompt's context."""
    if heading not in context:
        return []
    body = context.split(heading, 1)[1].split("\n\n", 1)[0]
    return [line.split("|") for line in body.splitlines()[1:] if "|" in line]


def community_report(prompt: str) -> str:
    """A plausible report on the community a report prompt describes: titled after its two most important
    entities, one finding per leading entity citing it and its relationships, rated by its size."""
    context = prompt.rpartition("Community data:\n")[2]
    entities = _table(context, "Entities (")
    relationships = _table(context, "Relationships (")
    reports = re.findall(r"^Report \d+ \(\d+ entities\): (.*)$", context, re.M)
    names = [row[1] for row in entities] or reports
    title = " and ".join(names[:2]) if names else "An unnamed group"
    findings = []
    for row in entities[:3]:
        cited = [r[0] for r in relationships if row[1] in (r[1], r[2])][:3]
        findings.append({"summary": f"{row[1]} is central to the community",
                         "explanation": f"{row[1]} ({row[2]}): {row[3] if len(row) > 3 else ''}".strip(),
                         "references": {"entities": [int(row[0])], "relationships": [int(r) for r in cited]}})
    for text in reports[:3]:
        findings.append({"summary": f"It holds the group {text}", "explanation": f"A part of it: {text}.",
                         "references": {"entities": [], "relationships": []}})
    size = len(entities) + 5 * len(reports)
    return json.dumps({"title": f"Community of {title}",
                       "summary": f"A community of {len(entities)} entities and {len(relationships)} relationships"
                                  + (f", around {', '.join(names[:4])}." if names else "."),
                       "rating": min(10.0, 2.0 + size / 4), "rating_explanation": "Rated by how much it holds.",
                       "findings": findings})


def query_answer(prompt: str) -> str:
    """An answer to one of graphglean query's prompts, from its context and citing it: local, the first entity,
    relationship and source sentence; map, a scored point per report; reduce, the first three notes."""
    context = prompt.rpartition(MARK_QUESTION)[0]
    if MARK_NOTES in context:
        notes = re.findall(r"^- \(importance [^)]*\) (.*)$", context, re.M)
        return "From the community reports: " + " ".join(notes[:3]) if notes else "The notes hold no answer."
    if MARK_MAP in context:
        titles = re.findall(r"^\[(C\d+)\] # (.*)$", context, re.M)
        return json.dumps({"points": [{"description": f"{title} is part of the story [{label}].", "score": 90 - 10 * i}
                                      for i, (label, title) in enumerate(titles[:5])]})
    entity = re.search(r"^\[(E\d+)\] (.*?) \([^)]*\): (.*)$", context, re.M)
    if entity is None:
        return "The context does not say."
    parts = [f"{entity.group(2)}: {entity.group(3)[:200]} [{entity.group(1)}]."]
    relationship = re.search(r"^\[(R\d+)\] (.*?): (.*)$", context, re.M)
    if relationship:
        parts.append(f"{relationship.group(3)[:200]} [{relationship.group(1)}].")
    sentence = re.search(r'^\[(S\d+)\] \([^)]*\) "(.*)"$', context, re.M)
    if sentence:
        parts.append(f'The text says: "{sentence.group(2)}" [{sentence.group(1)}].')
    return " ".join(parts)


_FIRST = ["Ada", "Bram", "Cleo", "Dov", "Esme", "Finn", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lena"]
_LAST = ["Archer", "Brook", "Castle", "Dale", "Ewing", "Frost", "Grove", "Hale", "Irving", "Jordan"]
_CITIES = ["Paris", "Lagos", "Osaka", "Quito", "Perth", "Oslo", "Lima", "Hanoi"]


def dense_corpus(sentences: int, seed: int = 0) -> str:
    """A text that names three entities in every short sentence, three sentences to a paragraph."""
    out = []
    for k in range(sentences):
        i = k + seed
        out.append(f"{_FIRST[i % 12]} {_LAST[(i * 7) % 10]} met {_FIRST[(i * 5 + 3) % 12]} "
                   f"{_LAST[(i * 3 + 1) % 10]} in {_CITIES[i % 8]}.")
    return "\n\n".join(" ".join(out[k:k + 3]) for k in range(0, len(out), 3))


def dense_records(passage: str) -> list[str]:
    """Every record a thorough model writes for ``passage``: each proper noun of each sentence, and each pair of
    neighbours in a sentence, with descriptions long enough to fill a small completion cap."""
    records: dict[str, None] = {}
    for sentence in re.split(r"(?<=[.!?])\s+|\n\s*\n", passage):
        names = list(dict.fromkeys(" ".join(p.split()) for p, _, _ in noun_phrases(sentence)))
        opening = " ".join(sentence.split()[:6])
        for n in names:
            records[f'("entity"<|>{n}<|>person<|>{n} is named in a sentence that begins "{opening}".)'] = None
        for a, b in zip(names, names[1:]):
            records[f'("relationship"<|>{a}<|>{b}<|>{a} and {b} are named in the same sentence.<|>5)'] = None
    return list(records)


def dense(req: RecordedRequest) -> Reply | str:
    """A model that writes many records for every passage (all in its first answer) and then says NO."""
    if req.max_tokens == 1 or MARK_LOOP in req.last_user:
        return Reply("NO", finish_reason="length")
    if MARK_CONTINUE in req.last_user:
        return "<|COMPLETE|>"
    if "Records:" in req.last_user:
        return "##\n".join(dense_records(passage_of(req.last_user))) + "\n<|COMPLETE|>"
    return synthetic(req)


def capped(responder: Responder, tokens: Callable[[str], int] = rough_tokens) -> Responder:
    """``responder``, honouring each request's ``max_tokens`` as a real server does: a longer answer is cut at
    the cap (``tokens`` counts) and finishes with ``length``. Asked to continue a cut answer (the answer so far
    as assistant turns, each followed by graphglean's request to continue), it writes the rest of the answer
    ``responder`` gives to the question, as a model continuing exactly where it stopped does."""
    def respond(req: RecordedRequest) -> Reply | str:
        question, written = _cut_so_far(req)
        if question is not None:
            full = responder(attrs.evolve(req, body={**req.body, "messages": question}))
            full = Reply(full) if isinstance(full, str) else full
            reply = attrs.evolve(full, text=full.text[len(written):] if full.text.startswith(written) else "")
        else:
            reply = responder(req)
            reply = Reply(reply) if isinstance(reply, str) else reply
        cap = req.max_tokens
        if cap is None or cap <= 1 or tokens(reply.text) <= cap:
            return reply
        lo, hi = 0, len(reply.text)
        while lo < hi:  # the longest prefix within the cap
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if tokens(reply.text[:mid]) <= cap else (lo, mid - 1)
        return attrs.evolve(reply, text=reply.text[:lo], finish_reason="length")
    return respond


def thinking(responder: Responder, reasoning: str = "Let me think about what is asked.",
             closed: bool = True) -> Responder:
    """``responder`` (one answering at once) as a reasoning model answers: every answer after a reasoning
    block (``<think>`` ... ``</think>``); ``closed`` False: the block alone, never closed, and no answer
    (reasoning the cap cut, or whose end the model forgot). Replies given as a whole body are left as they are."""
    def respond(req: RecordedRequest) -> Reply | str:
        reply = responder(req)
        reply = Reply(reply) if isinstance(reply, str) else reply
        if reply.body is not None:
            return reply
        text = f"<think>\n{reasoning}\n</think>\n\n{reply.text}" if closed else f"<think>\n{reasoning}"
        return attrs.evolve(reply, text=text)
    return respond


def _cut_so_far(req: RecordedRequest) -> tuple[list[dict[str, str]] | None, str]:
    """For a request to continue a cut answer: the conversation up to the question that answer is to, and the
    answer written so far; else (None, "")."""
    messages = req.messages
    k, pieces = len(messages), []
    while k >= 2 and MARK_RESUME in str(messages[k - 1].get("content")) and messages[k - 2].get("role") == "assistant":
        pieces.insert(0, str(messages[k - 2].get("content") or ""))
        k -= 2
    return (messages[:k], "".join(pieces)) if pieces else (None, "")


class ReplayResponder:
    """Answers a chunk's graph extraction with the responses a real model gave for that chunk, in call order:
    the chunk is found by its text in the prompt, the call by the number of assistant turns already there.
    Other prompts (gists, facts, summaries, reports, resolution questions) get the synthetic model's answers."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        self.misses = 0

    @classmethod
    def from_file(cls, path: str | Path) -> "ReplayResponder":
        with open(path, encoding="utf-8") as f:
            return cls([json.loads(line) for line in f if line.strip()])

    def _entry(self, prompt: str) -> dict[str, Any] | None:
        key_text = passage_of(prompt)
        for entry in self.entries:
            content = entry["content"].strip()
            if content[:2000] in key_text or key_text[:2000] in content:
                return entry
        return None

    def __call__(self, req: RecordedRequest) -> Reply | str:
        first = str(req.messages[0].get("content") or "") if req.messages else ""
        entry = self._entry(first) if "Records:" in first else None
        if entry is None:  # not a recorded chunk (a description summary, say): play the synthetic model
            self.misses += 1
            return synthetic(req)
        calls = entry["calls"]
        k = answers_given(req)
        if req.max_tokens == 1 or MARK_LOOP in req.last_user:
            return Reply("YES" if k < len(calls) else "NO", finish_reason="length")
        if k >= len(calls):
            return "<|COMPLETE|>"
        return calls[k]["response"]
