"""Resume and caching that stay correct: identities, fingerprints, non-answers, the journal, failed writes."""

import json
import sqlite3

import pytest

from graphglean.core.config import Config
from graphglean.enrich import MemoryStore
from graphglean.enrich.store import StoredMessage
from graphglean.launch import run
from graphglean.llm import ChatClient, ResponseCache
from graphglean.llm.cache import CacheWriteWarning
from graphglean.pipeline.context import RunContext
from graphglean.pipeline.runstore import RunStore
from graphglean.testing import FakeLLMServer, Reply
from graphglean.testing.models.responders import synthetic

from .helpers import config, llm_config


def base_config(server, tmp_path, **sections) -> Config:
    cfg = config(server, tmp_path)
    cfg.llm.max_concurrency = 4
    cfg.output.dir = str(tmp_path / "out")
    cfg.chunking.size, cfg.chunking.overlap = 300, 30
    for name, values in sections.items():
        for key, value in values.items():
            setattr(getattr(cfg, name), key, value)
    return cfg


async def quiet_run(cfg, **kw):
    return await run(cfg, notice=lambda _: None, out=open("/dev/null", "w"), **kw)


# -- 1. enrich: identity from session, position and content ------------------------------------------------

async def test_enrich_rerun_over_messages_without_ids_stores_nothing_twice(tmp_path):
    lines = [{"session_id": "s1", "role": "user", "content": "I adopted a puppy named Biscuit."},
             {"session_id": "s1", "role": "assistant", "content": "Congratulations on Biscuit!"},
             {"session_id": "s1", "role": "user", "content": "ok"}]
    data = tmp_path / "chat.jsonl"
    data.write_text("".join(json.dumps(line) + "\n" for line in lines))
    async with FakeLLMServer(synthetic).running() as s:
        cfg = base_config(s, tmp_path, input={"path": str(data), "format": "messages"},
                          graph={"enabled": False}, enrich={"enabled": True})
        for _ in range(3):
            await quiet_run(cfg)
        store = MemoryStore(tmp_path / "out" / "memory.sqlite")
        assert [m.content for m in store.messages()] == [line["content"] for line in lines]
        store.close()
        rows = (tmp_path / "out" / "enrichment.jsonl").read_text().splitlines()
        assert len(rows) == 3
        # the same content at a new position is a new message: appended input is stored, once
        data.write_text(data.read_text() + json.dumps(lines[2]) + "\n")
        await quiet_run(cfg)
        await quiet_run(cfg)
        assert len((tmp_path / "out" / "enrichment.jsonl").read_text().splitlines()) == 4
        store = MemoryStore(tmp_path / "out" / "memory.sqlite")
        store.add_messages([StoredMessage("from-an-older-input", "s0", "user", "stale")])
        store.close()
        await quiet_run(cfg)
        assert len((tmp_path / "out" / "enrichment.jsonl").read_text().splitlines()) == 5
        await quiet_run(cfg, fresh=True)  # --fresh empties the memory store too
        rows = [json.loads(r) for r in (tmp_path / "out" / "enrichment.jsonl").read_text().splitlines()]
        assert len(rows) == 4 and "stale" not in [r["content"] for r in rows]


async def test_enricher_position_makes_adding_idempotent_and_appending_stays_the_default(tmp_path):
    from graphglean.core.config import EnrichConfig
    from graphglean.enrich import Enricher
    from graphglean.scheduling.scheduler import Scheduler
    from graphglean.text.inputs import Message

    turns = [Message("s1", "user", "hi"), Message("s1", "assistant", "hello"), Message("s1", "user", "hi")]
    store = MemoryStore(tmp_path / "memory.sqlite")
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient.from_config(llm_config(s)) as c:
            async with Enricher(store, Scheduler(c), EnrichConfig(summaries=False)) as enricher:
                first = await enricher.add_messages("s1", turns, position=0)
                again = await enricher.add_messages("s1", turns, position=0)
                assert first == again and len(set(first)) == 3  # the repeated "hi" is another message
                assert len(store.messages("s1")) == 3
                await enricher.add_messages("s1", turns[:1])  # no position: a new turn after the stored ones
                assert [m.content for m in store.messages("s1")] == ["hi", "hello", "hi", "hi"]
                await enricher.drain()
    store.close()


# -- 2. summary pass: resumed by content ---------------------------------------------------------------------

async def test_edited_document_gets_a_new_summary(tmp_path):
    doc = tmp_path / "docs" / "a.txt"
    doc.parent.mkdir()
    doc.write_text("Ada Lovelace wrote the first program. She worked with Charles Babbage.")
    async with FakeLLMServer(synthetic).running() as s:
        cfg = base_config(s, tmp_path, input={"path": str(doc.parent)}, graph={"enabled": False},
                          summary={"enabled": True})
        await quiet_run(cfg)
        first = json.loads((tmp_path / "out" / "summaries.jsonl").read_text())
        calls = len(s.chat_requests())
        await quiet_run(cfg)
        assert len(s.chat_requests()) == calls  # unchanged: resumed, nothing asked
        doc.write_text("Grace Hopper built the first compiler. She served in the U.S. Navy.")
        await quiet_run(cfg)
        second = json.loads((tmp_path / "out" / "summaries.jsonl").read_text())
    assert len(s.chat_requests()) == calls + 1
    assert first["doc_id"] == second["doc_id"] and "Grace Hopper" in second["summary"]
    assert "Ada" not in second["summary"]


# -- 3. the run store's fingerprint ----------------------------------------------------------------------------

def fingerprint_of(cfg: Config, *parts) -> str:
    return RunContext(cfg, None, [], None, None).fingerprint(*parts)  # type: ignore[arg-type]


def test_fingerprint_includes_the_endpoint():
    cfg = Config()
    cfg.llm.base_url = "http://127.0.0.1:8000/v1"
    same = fingerprint_of(cfg)
    assert fingerprint_of(cfg) == same
    other_server = Config()
    other_server.llm.base_url = "http://10.0.0.2:8000/v1"  # the same model name on another server
    assert fingerprint_of(other_server) != same
    azure = Config()
    azure.llm.base_url, azure.llm.provider = cfg.llm.base_url, "azure"
    assert fingerprint_of(azure) != same
    deployed = Config()
    deployed.llm.base_url, deployed.llm.provider, deployed.llm.azure.deployment = cfg.llm.base_url, "azure", "gpt4o-eu"
    assert fingerprint_of(deployed) != fingerprint_of(azure)


async def test_graph_pass_redoes_extraction_when_examples_contents_or_logit_bias_ids_change(tmp_path):
    examples = tmp_path / "examples.txt"
    examples.write_text("Example: ...records about a ship...")
    async with FakeLLMServer(synthetic).running() as s:
        cfg = base_config(s, tmp_path, graph={"method": "llm", "examples": str(examples)})
        cfg.llm.cache.mode = "off"
        cfg.graph.resolve.enabled = False  # its questions depend on the graph built; counted are extraction calls
        await quiet_run(cfg)
        calls = len(s.chat_requests())
        await quiet_run(cfg)
        assert len(s.chat_requests()) == calls
        cfg.graph.directed = True  # how the graph is built, not what was asked: extraction is not redone
        await quiet_run(cfg)
        assert len(s.chat_requests()) == calls
        examples.write_text("Example: ...records about a train...")  # same path, other contents
        await quiet_run(cfg)
        assert len(s.chat_requests()) == 2 * calls
        cfg.llm.logit_bias_ids = {"YES": 9642, "NO": 2360}  # other loop-check answers
        await quiet_run(cfg)
        assert len(s.chat_requests()) == 3 * calls


# -- 4. non-answers are never cached -------------------------------------------------------------------------

def gists_question(req) -> bool:
    return '"gists"' in req.prompt and '"facts"' not in req.prompt and req.assistant_turns == 0


def episodic_answers(bad):
    """Gists and facts as JSON, except ``bad`` (a Reply) once for every passage's first gists question."""
    seen = set()

    def respond(req):
        prompt = req.prompt
        if gists_question(req) and prompt not in seen:
            seen.add(prompt)
            return bad
        return synthetic(req)
    return respond


@pytest.mark.parametrize("bad", [
    Reply("I'm sorry, but I can't help with that."),
    Reply("Here are the gists you asked for: the passage is about a puppy."),
    Reply('{"gists": ["Biscuit', finish_reason="content_filter"),
    Reply("", body={"choices": [{"message": {"role": "assistant", "content": None,
                                             "refusal": "I can't assist with that request."},
                                 "finish_reason": "stop"}]}),
], ids=["refusal", "not-json", "content-filter", "refusal-field"])
async def test_non_answers_are_not_replayed_from_the_cache(tmp_path, bad):
    data = tmp_path / "chat.txt"
    data.write_text("Caroline adopted a puppy named Biscuit in Boston last week.")
    async with FakeLLMServer(episodic_answers(bad)).running() as s:
        cfg = base_config(s, tmp_path, input={"path": str(data)}, graph={"enabled": False},
                          episodic={"enabled": True, "dataset": "wikipedia"})
        await quiet_run(cfg, fresh=True)
        bad_asked = sum(map(gists_question, s.chat_requests()))
        cache = ResponseCache(cfg.llm.cache.path)
        texts = [json.loads(v)["choices"][0]["message"].get("content") or ""
                 for (v,) in cache._connect().execute("SELECT value FROM responses")]
        cache.close()
        assert texts and all(t.lstrip().startswith("{") for t in texts), texts  # only the JSON answers
        # the next run asks the bad question again instead of replaying it
        await quiet_run(cfg, fresh=True)
        asked_again = sum(map(gists_question, s.chat_requests()))
        assert asked_again == 2 * bad_asked


async def test_graph_refusals_and_unclear_checks_are_asked_again_next_run(tmp_path):
    from graphglean.testing.models.responders import MARK_LOOP

    from .test_cli import STAVE

    refusing = {"on": True}

    def respond(req):
        if refusing["on"] and (req.max_tokens == 1 or MARK_LOOP in req.last_user):
            return Reply("Maybe", finish_reason="length")
        if refusing["on"] and req.assistant_turns == 0:
            return "I'm sorry, but I cannot extract entities from this text."
        return synthetic(req)

    async with FakeLLMServer(respond).running() as s:
        cfg = base_config(s, tmp_path, input={"path": str(STAVE)}, graph={"method": "llm"})
        await quiet_run(cfg)
        assert (tmp_path / "out" / "entities.jsonl").read_text() == ""
        with sqlite3.connect(cfg.llm.cache.path) as db:  # no answer kept (the server's tokenizer ids are)
            assert db.execute("SELECT COUNT(*) FROM responses WHERE kind != 'tokenize'").fetchone()[0] == 0
        store = RunStore(tmp_path / "out")
        assert store.load("graph") == {}  # nor kept as finished items
        store.close()
        refusing["on"] = False
        await quiet_run(cfg)
    assert (tmp_path / "out" / "entities.jsonl").read_text().count("\n") > 5


# -- 5. the journal: every paid answer of the run, whatever the cache's mode ---------------------------------

async def test_journal_replays_answers_when_the_cache_is_off(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = llm_config(s)  # cache off
        store = RunStore(tmp_path)
        req_messages = [{"role": "user", "content": "Say hi"}]
        async with ChatClient.from_config(cfg, journal=store.journal()) as c:
            first = await c.chat(c.request(req_messages))
        async with ChatClient.from_config(cfg, journal=store.journal()) as c:
            again = await c.chat(c.request(req_messages))
            vectors = await c.embed(["a", "b"])
            await c.embed(["a", "b"])
        assert again.cached and again.text == first.text and len(s.chat_requests()) == 1
        assert len(vectors.vectors) == 2 and sum(r.path.endswith("/embeddings") for r in s.requests) == 1
        store.clear_journal()
        assert store.journal().count() == 0
        store.close()


async def test_journal_is_not_a_second_copy_of_a_readwrite_cache(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        store = RunStore(tmp_path / "out")
        async with ChatClient.from_config(llm_config(s, tmp_path), journal=store.journal()) as c:
            await c.chat(c.request([{"role": "user", "content": "Say hi"}]))
        assert store.journal().count() == 0 and ResponseCache(tmp_path / "cache.sqlite").count() == 1
        store.close()


# -- 6. failed cache writes -----------------------------------------------------------------------------------

async def test_failed_cache_write_leaves_no_open_transaction(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    assert await cache.put("a", {"v": 1})
    db = cache._connect()
    db.execute("PRAGMA query_only = ON")  # the file turned read-only under the run
    with pytest.warns(CacheWriteWarning, match="cannot store answers"):
        assert not await cache.put_many([("b", {"v": 2}), ("c", {"v": 3})])
    assert not db.in_transaction
    db.execute("PRAGMA query_only = OFF")
    assert await cache.put("d", {"v": 4})
    assert await cache.get_many(["a", "b", "c", "d"]) == [{"v": 1}, None, None, {"v": 4}]
    cache.close()


async def test_answer_reaches_the_caller_when_the_cache_cannot_store_it(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient.from_config(llm_config(s, tmp_path)) as c:
            c.cache._connect().execute("PRAGMA query_only = ON")
            with pytest.warns(CacheWriteWarning):
                result = await c.chat(c.request([{"role": "user", "content": "Say hi"}]))
            assert result.text and not c.cache._connect().in_transaction


def test_memory_store_rolls_back_a_failed_batch(tmp_path):
    store = MemoryStore(tmp_path / "memory.sqlite")
    store._db.execute("PRAGMA query_only = ON")
    with pytest.raises(sqlite3.OperationalError):
        store.add_messages([StoredMessage("u1", "s", "user", "hi")])
    store._db.execute("PRAGMA query_only = OFF")
    store.add_messages([StoredMessage("u2", "s", "user", "hello")])
    assert [m.uuid for m in store.messages()] == ["u2"]
    store.close()


async def test_journal_is_kept_until_a_run_finishes_everything(tmp_path):
    from graphglean.testing.models.responders import MARK_CONTINUE

    from .test_cli import STAVE

    failing = {"on": True}

    def respond(req):  # the continuation round of one chunk fails while "on"
        if failing["on"] and "Marley" in req.prompt and MARK_CONTINUE in req.last_user:
            return Reply(status=500)
        return synthetic(req)

    async with FakeLLMServer(respond).running() as s:
        cfg = base_config(s, tmp_path, input={"path": str(STAVE)}, graph={"method": "llm"})
        cfg.llm.cache.mode, cfg.llm.max_retries = "off", 0
        cfg.graph.resolve.enabled = False  # a fuller graph asks it other questions; counted are extraction steps
        result = await quiet_run(cfg)
        failed = result.failed
        assert failed
        store = RunStore(tmp_path / "out")
        assert store.journal().count() > 0  # the failed item's first steps wait there for the next run
        store.close()
        calls = len(s.chat_requests())
        failing["on"] = False
        result = await quiet_run(cfg)
        assert not result.failed
        # only the failed steps were asked again: each failed item's continuation (first extraction and
        # check replayed from the journal)
        assert len(s.chat_requests()) - calls == failed
        store = RunStore(tmp_path / "out")
        assert store.journal().count() == 0
        store.close()


async def test_a_refused_intent_is_a_failed_step_not_the_intent(tmp_path):
    from graphglean.core.config import EnrichConfig
    from graphglean.enrich import Enricher
    from graphglean.scheduling.scheduler import Scheduler
    from graphglean.testing.models.responders import MARK_INTENT
    from graphglean.text.inputs import Message

    def respond(req):
        return "I'm sorry, I can't help with that." if MARK_INTENT in req.prompt else synthetic(req)

    store = MemoryStore(tmp_path / "memory.sqlite")
    async with FakeLLMServer(respond).running() as s:
        async with ChatClient.from_config(llm_config(s, tmp_path)) as c:
            async with Enricher(store, Scheduler(c), EnrichConfig(summaries=False)) as enricher:
                await enricher.add_messages("s1", [Message("s1", "user", "I adopted a puppy named Biscuit.")])
                await enricher.drain()
        message = store.messages()[0]
        assert "intent" not in message.metadata["system"] and "entities" in message.metadata["system"]
        assert [step for _, step, _ in store.failures()] == ["intent"]
        store.close()


async def test_episodic_pass_is_redone_when_a_template_files_contents_change(tmp_path):
    from .conftest import ROOT

    templates = tmp_path / "templates"
    templates.mkdir()
    gist = templates / "episodic_gist_extraction_locomo.txt"
    shipped = (ROOT / "prompts" / gist.name).read_text()
    gist.write_text(shipped)
    data = tmp_path / "a.txt"
    data.write_text("Caroline adopted a puppy named Biscuit in Boston last week.")
    async with FakeLLMServer(synthetic).running() as s:
        cfg = base_config(s, tmp_path, input={"path": str(data)}, graph={"enabled": False},
                          episodic={"enabled": True, "templates": str(templates)})
        cfg.llm.cache.mode = "off"  # the run store alone decides what is asked again
        await quiet_run(cfg)
        first = len(s.chat_requests())
        await quiet_run(cfg)
        assert len(s.chat_requests()) == first  # finished: nothing asked again
        gist.write_text("Be brief.\n" + shipped)  # same path, other contents, in the same process (a notebook)
        await quiet_run(cfg)
        assert len(s.chat_requests()) == 2 * first


@pytest.mark.parametrize("spelling", ["http://localhost:{port}/v1/", "HTTP://LocalHost:{port}/v1"])
async def test_another_spelling_of_the_same_endpoint_reuses_what_was_paid_for(tmp_path, spelling):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = base_config(s, tmp_path)  # http://127.0.0.1:PORT/v1
        await quiet_run(cfg)
        paid = len(s.chat_requests())
        said: list[str] = []
        cfg.llm.base_url = spelling.format(port=s.port)
        await run(cfg, notice=said.append, out=open("/dev/null", "w"), fresh=True)  # the response cache alone
        again = len(s.chat_requests())
        await run(cfg, notice=said.append, out=open("/dev/null", "w"))  # the run store
    assert paid > 0 and again == paid and len(s.chat_requests()) == paid
    assert not [line for line in said if "settings changed" in line]
