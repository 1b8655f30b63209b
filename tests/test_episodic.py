import json

import pytest
import trio

from graphglean.core.answers import parse_json_output
from graphglean.core.config import Config
from graphglean.episodic import ChunkInfo, EpisodicGistExtraction, template_family
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer, Reply

from .helpers import llm_config


def chunks(n):
    return {f"c{i}": ChunkInfo(f"Caroline went to group {i}.", metadata={"date": f"{i} May 2023",
                                                                          "speaker": "Caroline"})
            for i in range(n)}


def test_template_family_by_dataset_name():
    assert template_family("musique") == "wikipedia" and template_family("2wikimultihopqa") == "wikipedia"
    assert template_family("locomo_3") == "locomo" and template_family("Wikipedia") == "wikipedia"


def test_a_dataset_naming_no_template_family_is_a_config_error():
    from graphglean.core.config_loader import load_config_text
    from graphglean.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"c.yaml:2.*episodic.dataset.*locomo.*wikipedia"):
        load_config_text("episodic:\n  dataset: wikipedai\n", "c.yaml")
    assert load_config_text("episodic:\n  dataset: wikipedia\n").episodic.dataset == "wikipedia"


def test_json_repair_cases():
    assert parse_json_output('Here:\n```json\n{"gists": ["a", "b, c", "cut') == {"gists": ["a", "b, c"]}
    assert parse_json_output('{"facts": ["the marriage was annulled", null]}')["facts"][0].endswith("annulled")
    assert parse_json_output('{"gists": ["x, \\"y", "z", "tail, with') == {"gists": ['x, "y', "z"]}


async def test_stages_pipelined_in_order_with_gists_in_stage_two():
    log = []

    async def respond(req):
        passage = req.last_user.rpartition("Passage:\n")[2].strip()
        stage = "facts" if '"facts"' in req.last_user else "gists"
        log.append((stage, passage))
        await trio.sleep(0.01 if stage == "gists" and "group 0" not in passage else 0)
        if stage == "gists":
            return json.dumps({"gists": [f"gist of {passage.splitlines()[-1]}"]})
        return json.dumps({"facts": [{"subject": "Caroline", "predicate": "went", "object": "group",
                                      "qualifiers": {"date": None}}]})

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s, max_concurrency=2)) as c:
            out = await EpisodicGistExtraction(Scheduler(c, max_active_items=2), Config()).batch_openie(chunks(8))
    assert list(out) == [f"c{i}" for i in range(8)]
    first = out["c0"]
    assert first.verbatim == "Date: 0 May 2023\nCaroline: Caroline went to group 0."
    assert first.gists == ["gist of Caroline: Caroline went to group 0."]
    assert first.facts[0]["qualifiers"] == {"date": ""}
    facts_prompts = [r.last_user for r in s.requests if '"facts"' in r.last_user]
    assert "Previously extracted gists for this session:\n- gist of Caroline: Caroline went to group 0." in facts_prompts[0]
    assert log.index(("facts", first.verbatim)) < log.index(("gists", out["c7"].verbatim))
    assert s.requests[0].body["response_format"] == {"type": "json_object"}


async def test_bad_json_retried_once_then_kept_with_error():
    def respond(req):
        if "group 1" in req.prompt:
            return "I cannot do JSON today."
        if "group 2" in req.prompt and req.assistant_turns == 0:
            return "oops"
        return json.dumps({"gists": ["g"]} if '"gists"' in req.prompt and '"facts"' not in req.prompt
                          else {"facts": ["f"]})

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s)) as c:
            out = await EpisodicGistExtraction(Scheduler(c), Config()).batch_openie(chunks(3))
    assert out["c0"].gists == ["g"] and out["c0"].facts == ["f"]
    assert out["c1"].gists == [] and out["c1"].metadata["errors"]
    assert out["c2"].gists == ["g"] and not out["c2"].metadata["errors"]


async def test_failure_isolated_to_its_chunk():
    def respond(req):
        return Reply(status=500, body={"error": "down"}) if "group 1" in req.prompt else json.dumps({"gists": ["g"], "facts": ["f"]})

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s, max_retries=1)) as c:
            out = await EpisodicGistExtraction(Scheduler(c), Config()).batch_openie(chunks(3))
    assert list(out) == ["c0", "c1", "c2"] and out["c1"].gists == [] and "HTTP 500" in out["c1"].metadata["errors"][0]
    assert out["c2"].facts == ["f"]


async def test_user_template_folder_overrides(tmp_path):
    (tmp_path / "episodic_gist_extraction_locomo.txt").write_text('MY GIST PROMPT "gists" Passage:\n{passage}')
    cfg = Config()
    cfg.episodic.templates = str(tmp_path)
    async with FakeLLMServer(lambda r: json.dumps({"gists": ["g"], "facts": ["f"]})).running() as s:
        async with ChatClient(llm_config(s)) as c:
            await EpisodicGistExtraction(Scheduler(c), cfg).batch_openie(chunks(1))
    assert s.requests[0].last_user.startswith("MY GIST PROMPT")
    assert "Previously extracted gists" in s.requests[1].last_user  # the shipped fact template still applies


def test_sync_wrapper_from_plain_code():
    import threading

    ready, stop = threading.Event(), threading.Event()
    box = {}

    async def serve():  # the fake server in a thread of its own: the code under test is synchronous
        async with FakeLLMServer(lambda r: json.dumps({"gists": ["g"], "facts": ["f"]})).running() as s:
            box["url"] = s.base_url
            ready.set()
            while not stop.is_set():
                await trio.sleep(0.01)

    thread = threading.Thread(target=trio.run, args=(serve,))
    thread.start()
    try:
        ready.wait(10)
        cfg = Config()
        cfg.llm = llm_config(type("S", (), {"base_url": box["url"]})())
        out = EpisodicGistExtraction(None, cfg).batch_openie_sync(chunks(2))
    finally:
        stop.set()
        thread.join()
    assert [o.gists for o in out.values()] == [["g"], ["g"]]


def test_missing_template_folder_is_a_config_error(tmp_path):
    import pytest

    from graphglean.core.errors import ConfigError

    cfg = Config()
    cfg.episodic.templates = str(tmp_path / "nope")
    with pytest.raises(ConfigError, match="episodic.templates: .* is not a folder"):
        EpisodicGistExtraction(None, cfg)


def test_json_reader_fails_only_with_value_error():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.text(max_size=200), st.text(alphabet='{}[]",: \\ab1n', max_size=60)))
    def check(text):
        try:
            parse_json_output(text)
        except ValueError:
            pass

    check()


def test_truncation_keeps_exactly_the_complete_items():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.text(max_size=15), min_size=1, max_size=6), st.integers(0, 10**6))
    def check(items, cut_seed):
        full = json.dumps({"gists": items})
        cut = cut_seed % len(full)
        try:
            value = parse_json_output(full[:cut])
        except ValueError:  # nothing usable left: the caller retries or records the error
            return
        if isinstance(value, dict) and isinstance(value.get("gists"), list):
            got = value["gists"]
            assert got == items[: len(got)]  # a prefix of the real items, nothing half-written

    check()
