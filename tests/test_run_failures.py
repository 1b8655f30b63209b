"""A run whose endpoint refuses one item finishes, writes everything else and lists the item."""

import json

import pytest

from graphglean.testing import FakeLLMServer, refusal, refusing
from graphglean.testing.models.responders import synthetic

from .test_cli import cli, write_config


async def test_one_refused_item_exits_1_with_every_other_output_written(tmp_path):
    refused = lambda req: "Marley was dead" in req.prompt
    respond = refusing(synthetic, refused, refusal("context_length", "openai"))
    async with FakeLLMServer(respond).running() as s:
        cfg = write_config(tmp_path, s.base_url, summary={"enabled": True}, episodic={"enabled": True})
        first = await cli("run", cfg)
        asked = len(s.chat_requests())
        again = await cli("run", cfg)
        asked_again = len(s.chat_requests()) - asked
    out = tmp_path / "out"
    err = first.stderr.decode()
    assert first.returncode == 1, err
    assert "Traceback" not in err and "context_length_exceeded" in err
    for name in ("graph.graphml", "graph.json", "entities.jsonl", "relationships.jsonl", "episodes.jsonl",
                 "summaries.jsonl"):
        assert (out / name).exists(), name
    assert json.loads((out / "graph.json").read_text())["nodes"]
    report = json.loads((out / "report.json").read_text())
    failed = report["failed"]
    assert {f["pass"] for f in failed} == {"graph", "summary", "episodic"}
    assert all(f["status"] == 400 and "context_length_exceeded" in f["error"] and "\n" not in f["error"]
               for f in failed)
    graph_failed = [f for f in failed if f["pass"] == "graph"]
    assert 1 <= len(graph_failed) == report["passes"][0]["errors"] < report["chunks"]
    assert all(f["item"].startswith("chunk-") for f in graph_failed)
    # the re-run finishes the same way, asking only what failed
    assert again.returncode == 1 and "Traceback" not in again.stderr.decode()
    assert 0 < asked_again <= len(failed) + 1


async def test_unknown_model_is_one_line_exit_2(tmp_path):
    async with FakeLLMServer(lambda r: refusal("model_not_found", "openai", model="gpt-4")).running() as s:
        r = await cli("run", write_config(tmp_path, s.base_url))
    err = r.stderr.decode().strip().splitlines()
    assert r.returncode == 2 and "Traceback" not in r.stderr.decode()
    assert any("does not serve model 'gpt-4'" in line for line in err)


@pytest.mark.parametrize("key,sections", [("graph.method", {"graph": {"method": "llm"}}),
                                          ("graph.resolve.method", {"graph": {"resolve": {"method": "llm"}}})])
async def test_the_llm_asked_for_by_name_with_no_endpoint_is_one_line_exit_2(tmp_path, key, sections):
    """No key and no base_url: nothing is sent to the default endpoint (before, seven attempts at
    api.openai.com, or for resolution a silent fall back to rules)."""
    cfg = write_config(tmp_path, **sections)
    data = json.loads(cfg.read_text())
    data["llm"].pop("api_key")
    cfg.write_text(json.dumps(data))
    r = await cli("run", cfg)
    err = r.stderr.decode().strip().splitlines()
    assert r.returncode == 2 and len(err) == 1 and "Traceback" not in err[0]
    assert f"{key}: llm needs an LLM endpoint" in err[0] and "OPENAI_API_KEY" in err[0]
    assert not (tmp_path / "out" / "report.json").exists()
