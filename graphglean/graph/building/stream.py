"""Description summaries while extraction still runs, so they do not wait for the last chunk as a second wave.

A summary call is made early only when the final pass (`describe.summarize_descriptions`) would make the same
call: the `SummaryMemo` then hands it the answer. Two things make a call certain before the end:

- a node or edge is *settled* when no unfinished chunk can add to it: no unfinished chunk contains the
  rarest word of any of its names (a model names what the passage names, and the passage names a thing by
  its most distinctive word). Its whole summary is made at once.
- otherwise the start of its description list is settled: descriptions are ordered by where they were found,
  so those found before the first unfinished chunk that could add to it stay first. The groups `summarize`
  cuts from that start, all but the last, are summarized already, under the thing's key: its shown name may
  still change, and the final pass names such groups by the key too.

So the early calls are those of the merged graph's long lists, whichever chunks finish first, and every one
started is answered (which had gone out by the end would be a matter of timing): the requests of a run depend
on its input only. A later stage that changes a node's descriptions (entity resolution merging nodes) means
the final pass asks for that node again. A name with a word that occurs in no chunk is left to the final
pass; only a record whose names are nowhere in its chunk (the one guess here) can make an early call that the
same input, answered in another order, would not make.
"""

from __future__ import annotations

import heapq
import re
from typing import Any, Callable, Iterable, Union

import attrs
import trio

from ...core.config import GraphConfig
from ...core.tokens import Tokenizer
from ...scheduling.scheduler import PassLLM, rounds_ahead
from ...text.chunking import Chunk
from ..records import ParseResult
from .describe import SummaryMemo, group_prompt, needs_summary, part_name, settled_groups, summarize
from .merge import GraphAccumulator, display_name, in_found_order, node_attributes, normalize_name
from .profile_memo import ProfileMemo

_WORD = re.compile(r"\w+")
ChunkKey = tuple[str, int, str]
Thing = Union[str, tuple[str, str]]  # a node key, or an edge's pair of node keys


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


@attrs.define
class _Progress:
    cut: int = 0  # where the group still open starts in the settled descriptions
    groups: int = 0  # groups started
    whole: bool = False  # the whole summary started (or none is needed)


class CountingTokenizer(Tokenizer):
    """A tokenizer that counts each text once: the open group of a long list is looked at again as chunks
    finish, and the final pass counts the descriptions of every long list again (thousands on a dense corpus,
    in the build's tail)."""

    def __init__(self, tokenizer: Tokenizer) -> None:  # no super().__init__: ``tokenizer`` does the work
        self.tokenizer = tokenizer
        self._counts: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tokenizer, name)

    def count(self, text: str) -> int:
        n = self._counts.get(text)
        if n is None:
            n = self._counts[text] = self.tokenizer.count(text)
        return n


class DescriptionStream:
    """Tell it of each chunk as the chunk finishes (`add`); it starts, in ``nursery``, the summary calls that
    have become certain, through ``memo``."""

    def __init__(self, chunks: Iterable[Chunk], cfg: GraphConfig, llm: PassLLM, tokenizer: Tokenizer,
                 memo: SummaryMemo, nursery: trio.Nursery) -> None:
        self.cfg, self.llm, self.memo, self.nursery = cfg, llm, memo, nursery
        self.acc = GraphAccumulator(cfg.directed)
        # by (document, index, chunk id): the graph is built from these, not parsed again
        self.parsed: dict[ChunkKey, ParseResult] = {}
        self._pending: set[ChunkKey] = set()
        self._by_word: dict[str, list[ChunkKey]] = {}  # word -> heap of the unfinished chunks holding it
        self._words_of_chunk: dict[ChunkKey, set[str]] = {}
        self._watching: dict[str, set[Thing]] = {}  # word -> what to look at again when a chunk with it ends
        self._progress: dict[Thing, _Progress] = {}
        self.counted = CountingTokenizer(tokenizer)  # the final pass counts with it too
        self.profiles = ProfileMemo()  # entity resolution's profiles of the nodes settled so far
        self._neighbours: dict[str, set[str]] = {}  # what `networkx`'s ``neighbors`` will list of each node
        self._words_cache: dict[str, tuple[tuple[int, int], set[str] | None]] = {}
        self._lock = trio.Lock()
        for c in chunks:
            key = (c.doc_id, c.index, c.id)
            if key not in self._pending:
                self._pending.add(key)
                self._words_of_chunk[key] = words = _words(c.text)
                for w in words:
                    self._by_word.setdefault(w, []).append(key)
        self._frequency = {w: len(heap) for w, heap in self._by_word.items()}  # chunks holding the word
        for heap in self._by_word.values():
            heapq.heapify(heap)

    async def add(self, done: list[tuple[Chunk, Callable[[], ParseResult]]]) -> None:
        """These chunks are done, and each ``parse()`` reads a chunk's records: in a worker thread (CPU work),
        one batch at a time; the calls that became certain start here."""
        async with self._lock:
            starts = await trio.to_thread.run_sync(lambda: [s for c, parse in done for s in self._take(c, parse)])
        for call, args in starts:
            self.nursery.start_soon(call, *args)

    def _take(self, chunk: Chunk, parse: Callable[[], ParseResult]) -> list[tuple[Any, tuple[Any, ...]]]:
        parsed = parse()
        key = (chunk.doc_id, chunk.index, chunk.id)
        self.parsed[key] = parsed
        self.acc.add(parsed)
        self._pending.discard(key)
        touched: set[Thing] = {normalize_name(e.name) for e in parsed.entities}
        for r in parsed.relationships:
            a, b = normalize_name(r.source_name), normalize_name(r.target_name)
            touched |= {a, b, (a, b) if self.cfg.directed or a <= b else (b, a)}
            if a and b:
                self._neighbours.setdefault(a, set()).add(b)
                if not self.cfg.directed:
                    self._neighbours.setdefault(b, set()).add(a)
        # Records cannot move what is settled (that is up to the first unfinished chunk that could add to a
        # thing): only new things, and those waiting on a word of this chunk, are looked at.
        touched = {t for t in touched if t not in self._progress and t and (isinstance(t, str) or all(t))}
        for w in self._words_of_chunk.pop(key, ()):
            touched |= self._watching.pop(w, set())
        starts: list[tuple[Any, tuple[Any, ...]]] = []
        for thing in touched:
            starts += self._review(thing)
        return starts

    def _frontier(self, words: set[str]) -> tuple[ChunkKey | None, str]:
        """The first unfinished chunk holding one of ``words``, and that word."""
        best: ChunkKey | None = None
        best_word = ""
        for w in words:
            heap = self._by_word.get(w)
            while heap and heap[0] not in self._pending:
                heapq.heappop(heap)
            if heap and (best is None or heap[0] < best):
                best, best_word = heap[0], w
        return best, best_word

    def _rare_words(self, key: str) -> set[str] | None:
        """The rarest word of each name of node ``key``; None when a name has no word any chunk holds."""
        node = self.acc.nodes.get(key)
        if node is None:
            return None
        size = (len(node.names), len(node.mentions))
        cached = self._words_cache.get(key)
        if cached is not None and cached[0] == size:
            return cached[1]
        words: set[str] | None = set()
        for surface in {key, *node.names, *node.mentions}:
            known = [w for w in _words(surface) if w in self._frequency]
            if not known:
                words = None
                break
            words.add(min(known, key=lambda w: (self._frequency[w], w)))  # type: ignore[union-attr]
        self._words_cache[key] = (size, words)
        return words

    def _name(self, thing: Thing) -> str:
        keys = [thing] if isinstance(thing, str) else list(thing)
        return " and ".join(display_name(self.acc.nodes[k]) or k for k in keys)

    @staticmethod
    def _part_name(thing: Thing) -> str:
        return part_name((thing,) if isinstance(thing, str) else thing)

    def _review(self, thing: Thing) -> list[tuple[Any, tuple[Any, ...]]]:
        """The calls ``thing`` is now certain to need and that have not started yet."""
        progress = self._progress.setdefault(thing, _Progress())
        first = self.acc.nodes[thing].descriptions if isinstance(thing, str) else (
            self.acc.edges[thing].descriptions if thing in self.acc.edges else None)
        parts = [self._rare_words(k) for k in ([thing] if isinstance(thing, str) else thing)]
        if progress.whole or first is None or any(p is None for p in parts):
            return []
        frontier, word = self._frontier(set().union(*parts))  # type: ignore[arg-type]
        budget = self.cfg.description_max_tokens
        kind = "entity" if isinstance(thing, str) else "relationship"
        if frontier is None:
            progress.whole = True
            if isinstance(thing, str):
                self.profiles.keep(thing, node_attributes(self.acc.nodes[thing]), self._neighbours.get(thing, ()))
            descriptions = [d for d, _ in in_found_order(first)]
            if needs_summary(descriptions, budget, self.counted):
                return [(self._whole, (self._name(thing), self._part_name(thing), kind, descriptions))]
            return []
        self._watching.setdefault(word, set()).add(thing)
        if sum(map(self.counted.count, first)) <= 4 * budget:
            return []  # one group at most: nothing is settled before the whole is
        settled = [d for d, where in in_found_order(first) if where[:3] < frontier]
        starts: list[tuple[Any, tuple[Any, ...]]] = []
        for group in settled_groups(settled[progress.cut:], budget, self.counted):
            starts.append((self._group, (self._part_name(thing), kind, group)))
            progress.cut += len(group)
            progress.groups += 1
        return starts

    async def _whole(self, name: str, part: str, kind: str, descriptions: list[str]) -> None:
        try:
            await summarize(self.llm, name, kind, descriptions, self.cfg.description_max_tokens, self.counted,
                            self.cfg.language, self.memo, part)
        except Exception:  # kept in the memo: the final pass reports it against its node or edge
            pass

    async def _group(self, name: str, kind: str, group: list[str]) -> None:
        rounds_ahead(1)  # a group of a list that takes another round at least
        try:
            await self.memo.ask(self.llm, group_prompt(name, kind, group, self.cfg.language),
                                self.cfg.description_max_tokens)
        except Exception:  # kept in the memo, as above
            pass
