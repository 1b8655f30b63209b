"""Description summaries: when a node's or edge's descriptions together exceed a token budget, the LLM
writes one description from them. Long lists are map-reduced in groups that fit the budget; no input is
truncated first.

Every summary call goes through a `SummaryMemo`, keyed by what its prompt is made of, so `stream.py` can make
calls while extraction still runs and the final pass finds them instead of asking again."""

from __future__ import annotations

from typing import Any, Hashable

import attrs
import networkx as nx
import trio

from ...core.prompts import load_template, render
from ...core.tokens import Tokenizer
from ...scheduling.scheduler import PassLLM, Scheduler, rounds_ahead

PASS = "graph.describe"


@attrs.define(eq=False)
class _Call:
    done: trio.Event = attrs.field(factory=trio.Event)
    value: str | None = None
    error: Exception | None = None


class SummaryMemo:
    """Summary calls by their inputs (name, kind, descriptions, budget, language): each is asked once; a second
    caller waits for the first one's answer (or error). A call cancelled midway is forgotten, so asked again."""

    def __init__(self) -> None:
        self._calls: dict[Hashable, _Call] = {}

    async def ask(self, llm: PassLLM, prompt: str, budget: int) -> str:
        key: Hashable = (prompt, budget)
        while (call := self._calls.get(key)) is not None and call.done.is_set() is False:
            await call.done.wait()  # asked by someone else: their answer, or ask again if they were cancelled
        if call is None:
            call = self._calls[key] = _Call()
            try:
                # a node's description: never reasoning (`PassLLM.prose`); one of reasoning alone fails the call
                call.value = (await llm.prose([{"role": "user", "content": prompt}], max_tokens=budget)).text
            except Exception as e:
                call.error = e
            except BaseException:
                del self._calls[key]
                raise
            finally:
                call.done.set()
        if call.error is not None:
            raise call.error
        assert call.value is not None
        return call.value


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


def settled_groups(descriptions: list[str], budget: int, tokenizer: Tokenizer) -> list[list[str]]:
    """The first groups `summarize` makes of any list that starts with ``descriptions``: all but the last,
    which later descriptions may still join."""
    return _groups(descriptions, budget * 4, tokenizer)[:-1]


def group_prompt(name: str, kind: str, group: list[str], language: str) -> str:
    return render(load_template("describe_summary"), name=name, kind=kind, language=language,
                  descriptions="\n".join(f"- {d}" for d in group))


async def summarize(llm: PassLLM, name: str, kind: str, descriptions: list[str], budget: int,
                    tokenizer: Tokenizer, language: str, memo: SummaryMemo | None = None,
                    part_name: str | None = None) -> str:
    """One description from ``descriptions``: groups of up to 4x ``budget`` tokens are summarized, then their
    summaries, until one is left. The groups of a round are asked at once: a long list's summary takes as
    many call times as it has rounds, not as it has groups. The last call (one group) names the thing
    ``name``; a round of several groups names it ``part_name`` (default ``name``): its key, which unlike the
    name it is shown by cannot change while extraction runs, so a group asked early is the group asked at the
    end (`stream`)."""
    memo = memo or SummaryMemo()
    while True:
        groups = _groups(descriptions, budget * 4, tokenizer)
        if len(groups) == len(descriptions) > 1:  # each alone fills the budget: no round would shrink the list
            groups = [descriptions]
        label = name if len(groups) == 1 else (part_name or name)
        rounds_ahead(rounds_after(len(groups)))  # outside an item (streamed): the deepest lists' calls first
        outs = await _each(memo, llm, [group_prompt(label, kind, group, language) for group in groups], budget)
        if len(outs) == 1:
            return outs[0]
        descriptions = outs


def rounds_after(groups: int) -> int:
    """Rounds a list cut into ``groups`` groups still takes after this one: each later round packs at least
    three answers a group (`summary_call_bound`)."""
    rounds = 0
    while groups > 1:
        groups, rounds = -(-groups // 3), rounds + 1
    return rounds


async def _each(memo: SummaryMemo, llm: PassLLM, prompts: list[str], budget: int) -> list[str]:
    """The answers to ``prompts``, asked concurrently; the first error (in prompt order) is raised."""
    outs: list[str | BaseException | None] = [None] * len(prompts)

    async def one(i: int) -> None:
        try:
            outs[i] = await memo.ask(llm, prompts[i], budget)
        except Exception as e:  # noted, so the others still finish and land in the memo
            outs[i] = e

    async with trio.open_nursery() as nursery:
        for i in range(len(prompts)):
            nursery.start_soon(one, i)
    for out in outs:
        if isinstance(out, BaseException):
            raise out
    return [str(out) for out in outs]


def summary_call_bound(total_tokens: int, budget: int) -> int:
    """Most summary calls descriptions of ``total_tokens`` in all can take: the worst of splitting them evenly
    among nodes just over a group's size (dry runs). Round one packs descriptions greedily into groups of 4x
    ``budget``, so two neighbouring groups hold more than that; later rounds pack answers of at most ``budget``
    tokens, so every group but the last holds more than 3x ``budget``."""

    def calls(tokens: int) -> int:
        if tokens <= budget:
            return 0
        groups = tokens // (2 * budget) + 1 if tokens > 4 * budget else 1
        total = groups
        while groups > 1:
            groups = 1 if groups <= 4 else -(-groups // 3)
            total += groups
        return total

    sizes = [budget + 1] + [2 * budget * k + 1 for k in range(2, 65)]
    return max([calls(total_tokens)] + [total_tokens // s * calls(s) + calls(total_tokens % s)
                                        for s in sizes if s <= total_tokens])


def within_budget(descriptions: list[str], budget: int) -> bool:
    """Whether ``descriptions`` certainly fit in ``budget`` tokens, joined or each with its line break, without
    counting: a token is at least one UTF-8 byte, a character at most four."""
    return 4 * sum(map(len, descriptions)) + len(descriptions) <= budget


def needs_summary(descriptions: list[str], budget: int, tokenizer: Tokenizer) -> bool:
    if len(descriptions) < 2 or within_budget(descriptions, budget):
        return False
    return tokenizer.count("\n".join(descriptions)) > budget


def edge_ends(graph: nx.Graph, a: Any, b: Any) -> tuple[Any, Any]:
    """An edge's ends in the order its name gives them: as it points, or an undirected one's by key (as the
    merge keys it), never in the order the graph happens to list them."""
    return (a, b) if graph.is_directed() or str(a) <= str(b) else (b, a)


def edge_name(graph: nx.Graph, a: Any, b: Any) -> str:
    a, b = edge_ends(graph, a, b)
    return f"{graph.nodes[a].get('name', a)} and {graph.nodes[b].get('name', b)}"


def part_name(keys: tuple[Any, ...]) -> str:
    """What a round of several groups names a node (its key) or an edge (its ends' keys, `edge_ends`)."""
    return " and ".join(map(str, keys))


def _over_budget(graph: nx.Graph, tokenizer: Tokenizer, budget: int) -> list[tuple[str, Any, str, dict[str, Any]]]:
    items: list[tuple[str, Any, str, dict[str, Any]]] = []
    for n, d in graph.nodes(data=True):
        if needs_summary(d.get("descriptions", []), budget, tokenizer):
            items.append(("entity", d.get("name") or n, part_name((n,)), d))
    for a, b, d in graph.edges(data=True):
        if needs_summary(d.get("descriptions", []), budget, tokenizer):
            items.append(("relationship", edge_name(graph, a, b), part_name(edge_ends(graph, a, b)), d))
    return items


async def summarize_descriptions(graph: nx.Graph, scheduler: Scheduler, tokenizer: Tokenizer, budget: int,
                                 language: str = "English", memo: SummaryMemo | None = None) -> int:
    """Replace ``description`` of every node and edge whose descriptions exceed ``budget`` tokens.
    Returns how many were summarized; failures keep the joined descriptions and are in the scheduler's errors.
    Calls already made for the same inputs (``memo``: streamed while extraction ran) are not made again."""
    llm = scheduler.llm(PASS)
    memo = memo or SummaryMemo()
    # counting every joined description of a large graph takes a second: in a worker thread
    items = await trio.to_thread.run_sync(_over_budget, graph, tokenizer, budget, abandon_on_cancel=True)

    async def one(item: tuple[str, Any, str, dict[str, Any]]) -> str:
        kind, name, part, data = item
        return await summarize(llm, str(name), kind, data["descriptions"], budget, tokenizer, language, memo, part)

    outcomes = await scheduler.map(one, items, pass_name=PASS, weight=lambda item: len(item[3]["description"]))
    for outcome in outcomes:
        if outcome.ok:
            outcome.item[3]["description"] = outcome.value
            outcome.item[3]["summarized"] = True
    return sum(o.ok for o in outcomes)
