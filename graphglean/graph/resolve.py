"""Entity resolution: one node per real-world entity, after the merge and before description summaries.

    resolution = await resolve_entities(graph, config)        # under trio; resolve_entities_sync anywhere
    resolution.graph, resolution.merges                       # the resolved graph; one record per merge

Candidates come from `blocking` (near-linear), verdicts from `evidence` (rules). Merges are made strongest
first, and a merge happens only when no pair across the two clusters is DIFFERENT, so A~B and B~C never pull
in an A that differs from C. A name with two readings that differ from each other ("Cratchit": Bob or Martha)
merges with neither. With ``method: llm`` the pairs the rules are unsure of go to the LLM in batches on the
scheduler, and its answers are merged under the same consistency check. The input graph is not changed.
"""

from __future__ import annotations

import re
import hashlib
from typing import Any, Awaitable, Callable, Iterable

import attrs
import networkx as nx
import numpy as np
import trio

from ..config import Config
from ..prompts import load_template, render
from ..scheduler import Scheduler
from .blocking import candidate_pairs, vector_pairs
from .evidence import DIFFERENT, NONE, SAME, UNSURE, Corpus, Evidence, Profile, Verdict, profile_of

PASS = "graph.resolve"
_ANSWER = re.compile(r"^\W*(?:pair\W*)?(\d+)\W*(SAME|DIFFERENT|DIFF|YES|NO)\b", re.I | re.M)
_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)


@attrs.define
class ResolutionStats:
    method: str = "rules"
    entities_before: int = 0
    entities_after: int = 0
    candidate_pairs: int = 0
    skipped_blocks: int = 0
    rule_merges: int = 0
    llm_pairs: int = 0
    llm_merges: int = 0
    llm_unanswered: int = 0
    refused_merges: int = 0  # merges a DIFFERENT pair across the clusters prevented


@attrs.define
class AnswerMemo:
    """LLM answers kept across runs (the run store): ``done`` maps a prompt's hash to the answer; ``save`` is
    awaited as each answer arrives. A resumed run asks only what it has no answer for."""

    done: dict[str, str] = attrs.field(factory=dict)
    save: Callable[[str, str], Awaitable[None]] | None = None


@attrs.define
class Resolution:
    graph: nx.Graph
    merges: list[dict[str, Any]]  # one line of resolution.jsonl per merge
    stats: ResolutionStats


class _Clusters:
    """Union-find whose unions are refused when any pair across the two sides is DIFFERENT."""

    def __init__(self, n: int, verdict: Any, max_cross: int = 4096) -> None:
        self.parent = list(range(n))
        self.members: dict[int, list[int]] = {i: [i] for i in range(n)}
        self.verdict = verdict
        self.max_cross = max_cross

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> bool | None:
        """True when merged, False when refused, None when already one cluster."""
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return None
        a, b = self.members[ri], self.members[rj]
        if len(a) * len(b) > self.max_cross:
            return False
        if any(self.verdict(x, y).kind == DIFFERENT for x in a for y in b):
            return False
        if len(a) < len(b):
            ri, rj, a, b = rj, ri, b, a
        self.parent[rj] = ri
        a.extend(b)
        del self.members[rj]
        return True


class _Resolver:
    def __init__(self, graph: nx.Graph) -> None:
        self.graph = graph
        self.nodes = list(graph.nodes)
        self.profiles = [profile_of(graph, n) for n in self.nodes]
        self.corpus = Corpus.of(graph, self.profiles)
        self.evidence = Evidence(graph, {p.key: p for p in self.profiles}, self.corpus)
        self.memo: dict[tuple[int, int], Verdict] = {}
        self.llm_different: set[tuple[int, int]] = set()

    def verdict(self, i: int, j: int) -> Verdict:
        pair = (i, j) if i < j else (j, i)
        if pair in self.llm_different:
            return Verdict(DIFFERENT, 0.0, "the LLM said different")
        v = self.memo.get(pair)
        if v is None:
            v = self.memo[pair] = self.evidence.verdict(self.profiles[pair[0]], self.profiles[pair[1]])
        return v

    def rule_links(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int, Verdict]]:
        links = [(i, j, v) for i, j in pairs if (v := self.verdict(i, j)).kind == SAME]
        return self._unique_readings(links)

    def _unique_readings(self, links: list[tuple[int, int, Verdict]]) -> list[tuple[int, int, Verdict]]:
        """Drop a name's links to readings that are not one entity: "Cratchit" is neither Bob nor Martha
        Cratchit, "BVC" neither of two councils with those initials. Fuller names (more words) must all be
        one entity; as full ones must not differ ("Fezziwig": Mr. or Mrs.)."""
        targets: dict[int, list[int]] = {}
        for i, j, _ in links:
            targets.setdefault(i, []).append(j)
            targets.setdefault(j, []).append(i)
        ambiguous: set[tuple[int, int]] = set()
        for x, ys in targets.items():
            ys = [y for y in ys if self.words(y) >= self.words(x)]
            if len(ys) > 64:
                ambiguous.update((min(x, y), max(x, y)) for y in ys)
                continue
            for k, y1 in enumerate(ys):
                for y2 in ys[k + 1:]:
                    v = self.verdict(y1, y2).kind
                    fuller = self.words(y1) > self.words(x) and self.words(y2) > self.words(x)
                    if v == DIFFERENT or (fuller and v != SAME):
                        ambiguous.update(((min(x, y1), max(x, y1)), (min(x, y2), max(x, y2))))
        kept = []
        for i, j, v in links:
            if (i, j) in ambiguous:
                self.memo[(i, j)] = Verdict(UNSURE, v.score * 0.6, v.rule + ", but the name has other readings")
            else:
                kept.append((i, j, v))
        return kept

    def words(self, i: int) -> int:
        f = self.profiles[i].forms[0]
        return len(f.person) if f.person else len(f.key.split())

    def cluster(self, clusters: _Clusters, links: Iterable[tuple[int, int, Verdict]], tier: str,
                log: list[dict[str, Any]], stats: ResolutionStats) -> int:
        merged = 0
        order = sorted(links, key=lambda t: (-t[2].score, self.profiles[t[0]].name, self.profiles[t[1]].name))
        for i, j, v in order:
            done = clusters.union(i, j)
            if done:
                merged += 1
                log.append({"a": self.profiles[i].name, "b": self.profiles[j].name, "rule": v.rule,
                            "score": round(v.score, 3), "tier": tier, "_i": i})
            elif done is False:
                stats.refused_merges += 1
        return merged

    def owner_clusters(self, clusters: _Clusters) -> dict[str, str]:
        out: dict[str, str] = {}
        for root, members in clusters.members.items():
            if len(members) > 1:
                for m in members:
                    for f in self.profiles[m].forms:
                        out[f.key] = str(root)
        return out


async def resolve_entities(graph: nx.Graph, config: Config | None = None, scheduler: Scheduler | None = None, *,
                           method: str | None = None, memo: AnswerMemo | None = None) -> Resolution:
    """Merge the nodes of ``graph`` that name one entity; returns a new graph and the merge log.

    ``method``: ``rules`` (no LLM call), ``llm`` (rules, then the LLM on uncertain pairs) or ``auto``
    (default: ``config.graph.resolve.method``; auto = llm when an endpoint is configured). Without a
    ``scheduler`` the llm method makes one from ``config.llm`` for this call.
    """
    cfg = config or Config()
    rc = cfg.graph.resolve
    chosen = method or rc.method
    if chosen == "auto":
        chosen = "llm" if cfg.llm.has_endpoint else "rules"
    if chosen == "llm" and scheduler is None:
        from ..llm.client import ChatClient
        from ..tokens import Tokenizer

        async with ChatClient.from_config(cfg.llm, count_tokens=Tokenizer(cfg.llm.model).count) as client:
            return await _resolve(graph, cfg, Scheduler(client, fail_fast=cfg.fail_fast), chosen, memo)
    return await _resolve(graph, cfg, scheduler, chosen, memo)


async def _resolve(graph: nx.Graph, cfg: Config, scheduler: Scheduler | None, method: str,
                   memo: AnswerMemo | None) -> Resolution:
    rc = cfg.graph.resolve
    stats = ResolutionStats(method=method, entities_before=graph.number_of_nodes())
    r = _Resolver(graph)
    pairs, stats.skipped_blocks = candidate_pairs(r.profiles, r.corpus, rc.max_block, broad=method == "llm")
    stats.candidate_pairs = len(pairs)
    log: list[dict[str, Any]] = []
    # first round: owners of possessives are compared through the clusters of plain names
    first = _Clusters(len(r.nodes), r.verdict)
    r.cluster(first, r.rule_links(pairs), "rules", [], ResolutionStats())
    r.evidence.owner_cluster = r.owner_clusters(first)
    for pair in [p for p in pairs if any(f.head for k in p for f in r.profiles[k].forms)]:
        r.memo.pop(pair, None)
    clusters = _Clusters(len(r.nodes), r.verdict)
    stats.rule_merges = r.cluster(clusters, r.rule_links(pairs), "rules", log, stats)
    if method == "llm" and scheduler is not None:
        if rc.embeddings:
            pairs = sorted(set(pairs) | await _similar(r, scheduler, rc.max_block))
            stats.candidate_pairs = len(pairs)
        asked = _questions(r, clusters, pairs, rc.llm_pairs_per_entity)
        stats.llm_pairs = len(asked)
        answers = await _ask_llm(r, asked, scheduler, rc.llm_batch, memo or AnswerMemo())
        stats.llm_unanswered = sum(1 for p in asked if p not in answers)
        links = []
        for (i, j), same in answers.items():
            if same:
                links.append((i, j, Verdict(SAME, 0.7, f"LLM: {r.verdict(i, j).rule or 'no rule applies'}")))
            else:
                r.llm_different.add((i, j))
        stats.llm_merges = r.cluster(clusters, links, "llm", log, stats)
    out, kept = _merged_graph(r, clusters)
    for line in log:
        line["into"] = out.nodes[kept[clusters.find(line.pop("_i"))]]["name"]
    stats.entities_after = out.number_of_nodes()
    return Resolution(out, log, stats)


async def _similar(r: _Resolver, scheduler: Scheduler, max_block: int) -> set[tuple[int, int]]:
    """Pairs whose embedded name and description are close; those no rule decides become LLM questions.
    Embedding failures leave the rules' candidates as they are (they are in the scheduler's errors)."""
    llm = scheduler.llm(PASS + ".embed")
    texts = [f"{p.name}: {' '.join(p.description.split())[:300]}" for p in r.profiles]
    batches = [list(range(k, min(k + 256, len(texts)))) for k in range(0, len(texts), 256)]

    async def one(batch: list[int]) -> list[list[float]]:
        return (await llm.embed([texts[i] for i in batch])).vectors

    rows: dict[int, list[float]] = {}
    for outcome in await scheduler.map(one, batches, pass_name=PASS + ".embed"):
        if outcome.ok and outcome.value is not None:
            rows.update(zip(outcome.item, outcome.value))
    index = sorted(rows)
    if len(index) < 2 or len({len(rows[i]) for i in index}) != 1:
        return set()
    found = set()
    for a, b, cosine in vector_pairs(np.array([rows[i] for i in index], dtype=float), max_block):
        i, j = index[a], index[b]
        if r.verdict(i, j).kind == NONE:
            r.memo[(i, j)] = Verdict(UNSURE, 0.4 * cosine, f"similar descriptions (cosine {cosine:.2f})")
        found.add((i, j))
    return found


def _questions(r: _Resolver, clusters: _Clusters, pairs: list[tuple[int, int]], per_entity: int) -> list[tuple[int, int]]:
    """UNSURE pairs across clusters: one per cluster pair, at most ``per_entity`` per node, strongest first."""
    unsure = [(i, j, v) for i, j in pairs if (v := r.verdict(i, j)).kind == UNSURE and clusters.find(i) != clusters.find(j)]
    unsure.sort(key=lambda t: (-t[2].score, t[0], t[1]))
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


def _card(r: _Resolver, i: int, letter: str) -> str:
    p = r.profiles[i]
    data = r.graph.nodes[r.nodes[i]]
    desc = " ".join(p.description.split())
    desc = desc[:400] + ("..." if len(desc) > 400 else "")
    nbrs = sorted(r.graph.neighbors(r.nodes[i]), key=lambda n: -r.graph.degree(n))[:4]
    related = ", ".join(str(r.graph.nodes[n].get("name") or n) for n in nbrs) or "none"
    return f'{letter}: "{p.name}" ({data.get("type") or "unknown"}) {desc or "(no description)"} Related: {related}.'


async def _ask_llm(r: _Resolver, asked: list[tuple[int, int]], scheduler: Scheduler, batch: int,
                   memo: AnswerMemo) -> dict[tuple[int, int], bool]:
    llm = scheduler.llm(PASS)
    template = load_template("graph_resolve")
    batches = [asked[k:k + batch] for k in range(0, len(asked), batch)]

    async def one(pairs: list[tuple[int, int]]) -> dict[int, bool]:
        text = "\n\n".join(f"Pair {n}\n{_card(r, i, 'A')}\n{_card(r, j, 'B')}" for n, (i, j) in enumerate(pairs, 1))
        prompt = render(template, pairs=text)
        key = hashlib.sha256(f"{llm.model}\n{prompt}".encode()).hexdigest()[:32]
        answer = memo.done.get(key)
        if answer is None:
            result = await llm.chat(llm.request([{"role": "user", "content": prompt}], max_tokens=8 * len(pairs) + 16))
            answer = result.text
            if memo.save is not None:
                with trio.CancelScope(shield=True):  # a paid answer is always kept
                    await memo.save(key, answer)
        return read_answers(answer)

    answers: dict[tuple[int, int], bool] = {}
    for outcome in await scheduler.map(one, batches, pass_name=PASS):
        if outcome.ok and outcome.value is not None:
            for n, pair in enumerate(outcome.item, 1):
                if n in outcome.value:
                    answers[pair] = outcome.value[n]
    return answers


def read_answers(text: str) -> dict[int, bool]:
    """Pair number -> same, from lines like "3: SAME", "Pair 3 - different", "**3.** YES" (reasoning skipped)."""
    return {int(m.group(1)): m.group(2).upper() in ("SAME", "YES") for m in _ANSWER.finditer(_THINKING.sub("", text))}


def _informative(p: Profile, data: dict[str, Any]) -> tuple[Any, ...]:
    f = p.forms[0]
    words = len(f.person) if f.person else len(f.key.split())
    return (-words, -int(data.get("frequency") or 0), len(f.surface), f.surface)


def _union(lists: Iterable[Iterable[Any]]) -> list[Any]:
    out: dict[Any, None] = {}
    for values in lists:
        for v in values or []:
            out.setdefault(v if not isinstance(v, list) else tuple(v), None)
    return [list(v) if isinstance(v, tuple) else v for v in out]


def _merge_attrs(datas: list[dict[str, Any]]) -> dict[str, Any]:
    """Lists united in order, counts and weights summed, flags or-ed; the rest from the first."""
    merged = dict(datas[0])
    for key in {k for d in datas for k in d}:
        values = [d[key] for d in datas if key in d]
        if all(isinstance(v, list) for v in values):
            merged[key] = _union(values)
        elif key in ("frequency", "weight") and all(isinstance(v, (int, float)) for v in values):
            merged[key] = sum(values)
        elif all(isinstance(v, bool) for v in values):
            merged[key] = any(values)
    types = merged.get("types")
    if isinstance(types, list):
        merged["type_conflict"] = len(types) > 1
    if "descriptions" in merged:
        merged["description"] = "\n".join(merged["descriptions"])
    return merged


def _merged_graph(r: _Resolver, clusters: _Clusters) -> tuple[nx.Graph, dict[int, Any]]:
    g = r.graph
    out: nx.Graph = g.__class__()
    out.graph.update(g.graph)
    keep: dict[int, Any] = {}
    for root, members in sorted(clusters.members.items(), key=lambda kv: min(kv[1])):
        members = sorted(members, key=lambda m: _informative(r.profiles[m], g.nodes[r.nodes[m]]))
        node = r.nodes[members[0]]
        datas = [g.nodes[r.nodes[m]] for m in members]
        names = [r.profiles[m].name for m in members]
        out.add_node(node, **_merge_attrs(datas))
        out.nodes[node]["aliases"] = _union([names] + [d.get("aliases") or [] for d in datas])
        out.nodes[node]["name"] = names[0]
        if len(members) > 1:
            out.nodes[node]["merged_from"] = [str(r.nodes[m]) for m in members]
        keep[root] = node
    index = {n: i for i, n in enumerate(r.nodes)}
    for a, b, data in g.edges(data=True):
        ca, cb = keep[clusters.find(index[a])], keep[clusters.find(index[b])]
        if ca == cb and a != b:
            continue  # a self-loop only the merge made
        if out.has_edge(ca, cb):
            out.edges[ca, cb].update(_merge_attrs([out.edges[ca, cb], data]))
        else:
            out.add_edge(ca, cb, **data)
    return out, keep


def resolve_entities_sync(graph: nx.Graph, config: Config | None = None, **kw: Any) -> Resolution:
    """`resolve_entities` from synchronous code, including a Jupyter cell where an asyncio loop is running."""
    from ..sync import run_sync

    return run_sync(resolve_entities, graph, config, **kw)


__all__ = ["Resolution", "ResolutionStats", "resolve_entities", "resolve_entities_sync", "NONE"]
