"""The LLM tier of entity resolution: which pairs to ask about (rule-uncertain pairs, embedding neighbours),
the batched questions on the scheduler (their answers read and kept by `answers`)."""

from __future__ import annotations

import hashlib
import warnings
from typing import TYPE_CHECKING, Iterable

import numpy as np

from ...core.config import ResolveConfig
from ...core.errors import FATAL
from ...core.prompts import load_template, render
from ...scheduling.scheduler import Scheduler
from .answers import (
    TEMPLATE,
    AnswerMemo,
    answer_key,
    answer_scope,
    ask_key,
    Said,
    raw_answer,
    read_said,
    stored_answer,
)
from .blocking import vector_pairs
from .profiles import Profile
from .verdicts import NONE, UNSURE, Verdict

if TYPE_CHECKING:
    from .resolver import Clusters, Resolver

PASS = "graph.resolve"
EMBED_BATCH = 256  # texts per embedding call


def close_pairs(r: "Resolver", rows: dict[int, list[float]], max_block: int) -> set[tuple[int, int]]:
    """Pairs whose embedded name and description (``rows``, by profile) are close; those no rule decides become
    LLM questions. Embedding failures leave the rules' candidates as they are (they are in the scheduler's
    errors). Seconds of numpy and Python for a large graph: run it in a worker thread."""
    index = sorted(rows)
    if len(index) < 2 or len({len(rows[i]) for i in index}) != 1:
        return set()
    close = vector_pairs(np.array([rows[i] for i in index], dtype=float), max_block)
    return mark_similar(r, [(index[a], index[b], cosine) for a, b, cosine in close])


async def embed_profiles(profiles: list[Profile], scheduler: Scheduler,
                         memo: AnswerMemo | None = None) -> dict[int, list[float]]:
    """The embedding of each profile's `embedding_text`, by position (those whose batch failed are missing).
    Batches answered whole are kept in ``memo``."""
    llm = scheduler.llm(PASS + ".embed")
    model = llm.client.cfg.embedding_model
    texts = [embedding_text(p) for p in profiles]
    batches = [list(range(k, min(k + EMBED_BATCH, len(texts)))) for k in range(0, len(texts), EMBED_BATCH)]
    memo = memo or AnswerMemo()

    async def one(batch: list[int]) -> list[list[float]]:
        asked = [texts[i] for i in batch]
        key = "embed:" + hashlib.sha256("\n".join([model, *asked]).encode("utf-8", "surrogatepass")).hexdigest()[:32]
        vectors = memo.done.get(key)
        if vectors is None:
            vectors = (await llm.embed(asked)).vectors
            if len(vectors) == len(asked):
                await memo.keep(key, vectors)
        return vectors

    rows: dict[int, list[float]] = {}
    try:
        outcomes = await scheduler.map(one, batches, pass_name=PASS + ".embed")
    except FATAL as e:  # a chat-only endpoint (no such model, no route): the rules' candidates still stand
        warnings.warn(f"graph.resolve.embeddings: {e}; entity resolution goes on without embeddings (set "
                      "graph.resolve.embeddings: false, or llm.embedding_model to a model the endpoint serves)",
                      stacklevel=2)
        return {}
    for outcome in outcomes:
        if outcome.ok and outcome.value is not None:
            rows.update(zip(outcome.item, outcome.value))
    failed = [o for o in outcomes if not o.ok]
    if failed:
        warnings.warn(f"graph.resolve.embeddings: {len(failed)} of {len(outcomes)} embedding calls failed (last: "
                      f"{' '.join(str(failed[-1].error).split())[:200]}); their nodes are compared by rules and "
                      "names only", stacklevel=2)
    return rows


def mark_similar(r: "Resolver", close: Iterable[tuple[int, int, float]]) -> set[tuple[int, int]]:
    """Pairs of close embeddings (i < j, cosine) that no rule decides become UNSURE: LLM questions."""
    found = set()
    for i, j, cosine in close:
        if r.verdict(i, j).kind == NONE:
            r.memo[(i, j)] = Verdict(UNSURE, 0.4 * cosine, f"similar descriptions (cosine {cosine:.2f})")
        found.add((i, j))
    return found


def question_bound(entities: int, rc: ResolveConfig) -> int:
    """At most how many questions the LLM tier asks about a graph of ``entities`` nodes: a question names two
    nodes, a node is in at most ``llm_pairs_per_entity`` questions."""
    return entities * rc.llm_pairs_per_entity // 2


def call_bound(entities: int, rc: ResolveConfig) -> tuple[int, int]:
    """At most how many chat calls and embedding calls the LLM tier makes for a graph of ``entities`` nodes:
    ``llm_batch`` of its `question_bound` questions make one call (retries, and re-asks of answers cut short,
    aside)."""
    asked = question_bound(entities, rc)
    return -(-asked // rc.llm_batch), (-(-entities // EMBED_BATCH) if rc.embeddings else 0)


def embedding_text(p: Profile) -> str:
    """What is embedded of a node: its name and the start of its description."""
    return f"{p.name}: {' '.join(p.description.split())[:300]}"


def questions(r: "Resolver", clusters: "Clusters", pairs: list[tuple[int, int]],
              per_entity: int) -> list[tuple[int, int]]:
    """UNSURE pairs across clusters: one per cluster pair, at most ``per_entity`` per node, strongest first."""
    unsure = [(i, j, v) for i, j in pairs
              if (v := r.verdict(i, j)).kind == UNSURE and clusters.find(i) != clusters.find(j)]
    # ties ("Dengue" against "Dengue Virus", "Dengue Cases", "Dengue Fever", ...) go to the pairs whose
    # descriptions and neighbours agree most: with a few questions per node, the likeliest are asked
    unsure.sort(key=lambda t: (*question_strength(r, *t), t[0], t[1]))
    asked, seen, count = [], set(), {}
    for i, j, _ in unsure:
        ci, cj = clusters.find(i), clusters.find(j)
        key = (min(ci, cj), max(ci, cj))
        if key in seen or count.get(i, 0) >= per_entity or count.get(j, 0) >= per_entity:
            continue
        seen.add(key)
        count[i], count[j] = count.get(i, 0) + 1, count.get(j, 0) + 1
        asked.append((i, j))
    return asked


def question_strength(r: "Resolver", i: int, j: int, v: Verdict) -> tuple[float, float]:
    """How a question ranks (smaller first): the verdict's score, then how much the two nodes share."""
    return -v.score, -r.evidence.context(r.profiles[i], r.profiles[j])


def card(r: "Resolver", i: int) -> str:
    """What a question shows of node ``i``: name, type, the start of its description, its best neighbours."""
    p = r.profiles[i]
    data = r.facts.data(r.nodes[i])
    desc = " ".join(p.description.split())
    desc = desc[:400] + ("..." if len(desc) > 400 else "")
    related = ", ".join(r.facts.related(r.nodes[i])) or "none"
    return f'"{p.name}" ({data.get("type") or "unknown"}) {desc or "(no description)"} Related: {related}.'


def pair_id(r: "Resolver", i: int, j: int) -> str:
    """What a saved answer about nodes ``i`` and ``j`` is kept by: their keys, in order (so the answer stands
    when nodes are added, descriptions grow or the pair is asked in another batch)."""
    return "\x1f".join(sorted((str(r.nodes[i]), str(r.nodes[j]))))


def question_cards(r: "Resolver", i: int, j: int) -> tuple[str, str]:
    """The two cards of a question, the node of the smaller key first (whatever order the graph lists them in)."""
    x, y = sorted((i, j), key=lambda k: str(r.nodes[k]))
    return card(r, x), card(r, y)


def ask_order(cards: list[tuple[str, str]], pairs: list[str]) -> list[int]:
    """The positions of questions in the order they are asked: by their cards (then pairs), so that a batch
    holds the same questions whatever order they were chosen in."""
    return sorted(range(len(cards)), key=lambda n: (cards[n], pairs[n]))


async def ask_llm(r: "Resolver", asked: list[tuple[int, int]], scheduler: Scheduler, batch: int,
                  memo: AnswerMemo, max_tokens: int, failed: list[dict[str, object]] | None = None
                  ) -> dict[tuple[int, int], Said]:
    """The LLM's answers to ``asked`` (see `ask_about`): the saved ones, and those asked now."""
    scope = answer_scope(scheduler.llm(PASS).client.cfg)
    ids = [pair_id(r, i, j) for i, j in asked]
    saved = [stored_answer(memo, scope, pair) for pair in ids]
    known = {n: said for n, said in enumerate(saved) if isinstance(said, Said)}
    pending = [n for n, said in enumerate(saved) if said is None]
    cards = [question_cards(r, *asked[n]) for n in pending]
    said = await ask_about(cards, [ids[n] for n in pending], scheduler, batch, memo, max_tokens, failed)
    known.update((pending[n], same) for n, same in said.items())
    return {asked[n]: same for n, same in known.items()}


async def ask_about(cards: list[tuple[str, str]], pairs: list[str], scheduler: Scheduler, batch: int,
                    memo: AnswerMemo, max_tokens: int, failed: list[dict[str, object]] | None = None
                    ) -> dict[int, Said]:
    """The LLM's answers (position -> `Said`) to the questions whose `card` pairs are ``cards`` about the pairs
    ``pairs`` (`pair_id`): asked in `ask_order`, ``batch`` a call. A call is capped at the few tokens the
    answer lines take; one cut there before every pair is answered (a reasoning model thinks first) is asked
    again at a cap raised in proportion to what the answer so far took for its pairs (`raised_cap`), up to
    ``max_tokens``. Each answer is kept in ``memo`` whole, and each pair by its place in it (`answers`): a
    pair a complete answer does not give is not asked again (paid for once), and a reader that learns a new
    form reads it from the kept text. A whole answer that gives no pair a verdict ("OK") is no answer: neither
    cached nor kept, its batch a failed item (in ``failed``, as report.json lists one), asked again next run."""
    llm = scheduler.llm(PASS)
    template = load_template(TEMPLATE)
    scope = answer_scope(llm.client.cfg, template)
    order = ask_order(cards, pairs)
    batches = [order[k:k + batch] for k in range(0, len(order), batch)]

    async def one(questions: list[int]) -> dict[int, Said]:
        text = "\n\n".join(f"Pair {n}\nA: {cards[q][0]}\nB: {cards[q][1]}" for n, q in enumerate(questions, 1))
        prompt, count = render(template, pairs=text), len(questions)
        messages, cap = [{"role": "user", "content": prompt}], 8 * count + 16
        gives = lambda text: bool(read_said(text, count))  # noqa: E731  (an answer to keep reads some pair)
        result = await llm.chat(llm.request(messages, max_tokens=min(cap, max_tokens), valid=gives))
        read = read_said(result.text, count)
        while result.truncated and len(read) < count and cap < max_tokens:
            cap = min(max_tokens, raised_cap(cap, len(read), count))
            result = await llm.chat(llm.request(messages, max_tokens=cap, valid=gives))
            read = read_said(result.text, count)
        cut = result.truncated and len(read) < count
        if not read and not result.truncated:
            raise UnreadAnswer(f"the answer gives none of its {count} pairs a verdict: "
                               f"{' '.join(result.text.split())[:80]!r}")
        key = ask_key(scope, prompt)
        await memo.keep(key, raw_answer(result.text, count, cut))
        for n, q in enumerate(questions, 1):
            await memo.keep(answer_key(scope, pairs[q]), {"ask": key, "at": n})
        return {n: said for n, said in read.items() if not (cut and n == max(read))}  # as `answer_at` reads it

    answers: dict[int, Said] = {}
    for outcome in await scheduler.map(one, batches, pass_name=PASS):
        if outcome.ok and outcome.value is not None:
            for n, q in enumerate(outcome.item, 1):
                if n in outcome.value:
                    answers[q] = outcome.value[n]
        elif outcome.error is not None and failed is not None:
            error = outcome.error
            failed.append({"item": f"resolution batch {outcome.index + 1} ({len(outcome.item)} pairs)",
                           "status": getattr(error, "status", None), "error": str(error) or type(error).__name__})
    return answers


class UnreadAnswer(Exception):
    """An answer in which no pair has a verdict the reader finds."""


def raised_cap(cap: int, answered: int, pairs: int) -> int:
    """The cap to ask again at after an answer cut at ``cap`` read ``answered`` of ``pairs`` answers: what they
    took per pair, for every pair, with a quarter to spare; four times ``cap`` when none was read (the model
    spent the cap on thoughts or a preamble first)."""
    if answered == 0:
        return 4 * cap
    return max(cap + 1, -(-cap * pairs * 5 // (4 * answered)))
