
import numpy as np
import trio

from graphglean.core.config import EnrichConfig
from graphglean.enrich import Enricher, MemoryStore, search
from graphglean.enrich.search import mmr
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer, Reply
from graphglean.testing.models.responders import synthetic
from graphglean.text.inputs import Message

from .helpers import llm_config

TOPICS = ["I adopted a puppy named Biscuit last week.", "The stock market fell sharply on Monday.",
          "Our hiking trip to Mount Rainier was amazing.", "I am learning to bake sourdough bread.",
          "Caroline joined the LGBTQ support group in Boston.", "ok", ""]


def messages(n=len(TOPICS)):
    return [Message("s1", "user" if i % 2 else "assistant", TOPICS[i % len(TOPICS)]) for i in range(n)]


async def test_enrichment_shapes_offsets_and_drain(tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite")
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            async with Enricher(store, Scheduler(c), EnrichConfig(message_window=4)) as enricher:
                uuids = await enricher.add_messages("s1", messages())
                assert len(store.messages("s1")) == len(TOPICS)  # stored before enrichment finished
                stats = await enricher.drain()
    stored = {m.uuid: m for m in store.messages("s1")}
    first = stored[uuids[0]]
    system = first.metadata["system"]
    assert system["token_count"] == first.token_count > 0
    assert system["intent"] == "The speaker wants to share news."
    for entity in system["entities"]:
        assert set(entity) == {"Label", "Name", "Matches"}
        for m in entity["Matches"]:
            assert first.content[m["Start"]:m["End"]] == m["Text"]
    assert "intent" not in stored[uuids[-1]].metadata.get("system", {})  # the empty message: nothing asked
    summaries = store.summaries("s1")
    assert summaries and summaries[-1].message_uuid in stored
    assert stats.embeddings == len(TOPICS) and not store.failures()


async def test_restart_resumes_unfinished_enrichment(tmp_path):
    path = tmp_path / "memory.sqlite"
    gate = trio.Event()

    async def slow(req):
        if not gate.is_set():
            await trio.sleep(30)
        return synthetic(req)

    async with FakeLLMServer(slow).running() as s:
        async with ChatClient(llm_config(s)) as c:
            async with trio.open_nursery() as nursery:  # stopped once enrichment calls are on their way
                async def stop_when_asked():
                    while not s.chat_requests():
                        await trio.sleep(0.01)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(stop_when_asked)
                async with Enricher(MemoryStore(path), Scheduler(c),
                                    EnrichConfig(summaries=False, entity_backend="llm")) as enricher:
                    await enricher.add_messages("s1", messages(5))
                    await enricher.drain()
        store = MemoryStore(path)
        assert len(store.messages("s1")) == 5 and store.pending("intent")  # stored, not yet enriched
        gate.set()
        async with ChatClient(llm_config(s)) as c:
            async with Enricher(store, Scheduler(c), EnrichConfig(summaries=False)) as enricher:
                await enricher.drain()
    assert not store.pending("intent") and not store.pending("embedding")
    assert all("intent" in m.metadata["system"] for m in store.messages("s1") if m.content.strip() not in ("",))


async def test_failures_recorded_per_step_and_retried_on_next_drain(tmp_path):
    store = MemoryStore(tmp_path / "m.sqlite")
    broken = [True]

    def respond(req):
        if broken[0] and "intent of the message" in req.prompt:
            return Reply(status=500, body={"error": "down"})
        return synthetic(req)

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s, max_retries=0)) as c:
            async with Enricher(store, Scheduler(c), EnrichConfig(summaries=False)) as enricher:
                await enricher.add_messages("s1", messages(3))
                await enricher.drain()
                failed = store.failures()
                assert failed and {f[1] for f in failed} == {"intent"} and "HTTP 500" in failed[0][2]
                broken[0] = False
                await enricher.drain()
    assert not store.failures()


async def test_search_ranks_the_exact_topic_first_with_filters_and_mmr(tmp_path):
    store = MemoryStore(tmp_path / "m.sqlite")
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            sched = Scheduler(c)
            async with Enricher(store, sched, EnrichConfig(summaries=False, intent=False)) as enricher:
                await enricher.add_messages("s1", messages(5))
                await enricher.drain()
            embed = sched.llm("search").embed
            results = await search(store, embed, "s1", "the hiking trip to Mount Rainier")
            assert "Mount Rainier" in results[0].content and results[0].score >= results[1].score
            count = results[0].metadata["system"]["token_count"]
            filtered = await search(store, embed, "s1", "puppy", metadata_filter={"system.token_count": count})
            assert filtered and all(r.metadata["system"]["token_count"] == count for r in filtered)
            diverse = await search(store, embed, "s1", "puppy", limit=3, mmr_lambda=0.5)
            assert len(diverse) == 3 and len({r.uuid for r in diverse}) == 3


def test_mmr_prefers_novelty():
    q = np.array([1.0, 0.0])
    cands = np.array([[1.0, 0.0], [0.99, 0.14], [0.7, 0.71]])
    cands /= np.linalg.norm(cands, axis=1, keepdims=True)
    assert mmr(q, cands, 2, 1.0) == [0, 1]
    assert mmr(q, cands, 2, 0.3) == [0, 2]


def test_entities_are_located_in_nfc_with_offsets_into_the_message_as_written():
    from graphglean.enrich.enricher import locate

    text = "Jose\u0301 Marti\u0301 met JOSÉ in Sa\u0303o Paulo"  # decomposed accents, as macOS and PDFs give them
    found = locate("José Martí", text)
    assert found == [{"Start": 0, "End": 12, "Text": "Jose\u0301 Marti\u0301"}]
    assert [m["Text"] for m in locate("josé", text)] == ["Jose\u0301", "JOSÉ"]  # any case when no exact one
    assert locate("São Paulo", text)[0]["Text"] == "Sa\u0303o Paulo"
    assert locate("ராஜ", "ராஜா வந்தார்") == []  # a vowel sign is part of the word: not a name inside another
