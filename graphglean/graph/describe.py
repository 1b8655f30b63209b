"""Description summaries: when a node's or edge's descriptions together exceed a token budget, the LLM
writes one description from them. Long lists are map-reduced in groups that fit the budget; no input is
truncated first."""

from __future__ import annotations

from typing import Any

import networkx as nx
import trio

from ..answers import answered
from ..prompts import load_template, render
from ..scheduler import PassLLM, Scheduler
from ..tokens import Tokenizer

PASS = "graph.describe"


def _groups(descriptions: list[str], budget: int, tokenizer: Tokenizer) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    used = 0
    for d in descriptions:
        n = tokenizer.count(d)
        if groups[-1] and used + n > budget:
            groups.append([])
            used = 0
        groups[-1].append(d)
        used += n
    return groups


async def _summarize(llm: PassLLM, name: str, kind: str, descriptions: list[str], budget: int,
                     tokenizer: Tokenizer, language: str) -> str:
    template = load_template("describe_summary")
    while True:
        groups = _groups(descriptions, budget * 4, tokenizer)
        if len(groups) == len(descriptions) > 1:  # each alone fills the budget: no round would shrink the list
            groups = [descriptions]
        outs = []
        for group in groups:
            prompt = render(template, name=name, kind=kind, language=language,
                            descriptions="\n".join(f"- {d}" for d in group))
            result = await llm.chat(llm.request([{"role": "user", "content": prompt}], max_tokens=budget,
                                                 valid=answered))
            outs.append(result.text.strip())
        if len(outs) == 1:
            return outs[0]
        descriptions = outs


def _over_budget(graph: nx.Graph, tokenizer: Tokenizer, budget: int) -> list[tuple[str, Any, dict[str, Any]]]:
    items: list[tuple[str, Any, dict[str, Any]]] = []
    for n, d in graph.nodes(data=True):
        if len(d.get("descriptions", [])) > 1 and tokenizer.count(d["description"]) > budget:
            items.append(("entity", d.get("name") or n, d))
    for a, b, d in graph.edges(data=True):
        if len(d.get("descriptions", [])) > 1 and tokenizer.count(d["description"]) > budget:
            items.append(("relationship", f"{graph.nodes[a].get('name', a)} and {graph.nodes[b].get('name', b)}", d))
    return items


async def summarize_descriptions(graph: nx.Graph, scheduler: Scheduler, tokenizer: Tokenizer, budget: int,
                                 language: str = "English") -> int:
    """Replace ``description`` of every node and edge whose descriptions exceed ``budget`` tokens.
    Returns how many were summarized; failures keep the joined descriptions and are in the scheduler's errors."""
    llm = scheduler.llm(PASS)
    # counting every joined description of a large graph takes a second: in a worker thread
    items = await trio.to_thread.run_sync(_over_budget, graph, tokenizer, budget, abandon_on_cancel=True)

    async def one(item: tuple[str, Any, dict[str, Any]]) -> str:
        kind, name, data = item
        return await _summarize(llm, str(name), kind, data["descriptions"], budget, tokenizer, language)

    outcomes = await scheduler.map(one, items, pass_name=PASS)
    for outcome in outcomes:
        if outcome.ok:
            outcome.item[2]["description"] = outcome.value
            outcome.item[2]["summarized"] = True
    return sum(o.ok for o in outcomes)
