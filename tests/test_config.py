import pytest

from graphglean.config import Config, field_docs, load_config, load_config_text
from graphglean.errors import ConfigError

from .conftest import ROOT


def err(text: str, name: str = "c.yaml") -> str:
    with pytest.raises(ConfigError) as e:
        load_config_text(text, name)
    return str(e.value)


def test_defaults_and_contract_names():
    cfg = load_config_text("")
    assert cfg.llm.max_concurrency == 64 and cfg.llm.cache.mode == "readwrite"
    assert cfg.chunking.size == 1200 and cfg.chunking.overlap == 100
    assert cfg.graph.entity_types == ["organization", "person", "geo", "event"]
    assert cfg.graph.max_gleanings == 1 and cfg.output.dir == "output"
    # a default list is not shared between instances
    Config().graph.entity_types.append("x")
    assert Config().graph.entity_types == ["organization", "person", "geo", "event"]


def test_negative_value_names_file_line_and_key():
    text = "llm:\n  model: m\n  max_concurrency: -3\n"
    assert err(text, "config.yaml") == "config.yaml:3: llm.max_concurrency: expected a positive integer, got -3"


@pytest.mark.parametrize("text,expected", [
    ("llm:\n  modle: x\n", "c.yaml:2: llm.modle: unknown key"),
    ("graph:\n  enabled: 3\n", "c.yaml:2: graph.enabled: expected true or false, got 3"),
    ("chunking:\n  size: big\n", "c.yaml:2: chunking.size: expected an integer, got 'big'"),
    ("chunking:\n  size: 100\n  overlap: 100\n", "c.yaml:3: chunking.overlap: must be less than chunking.size"),
    ("llm:\n  cache: {mode: maybe}\n", "c.yaml:2: llm.cache.mode: expected one of off, read, write, readwrite"),
    ("summary: {detail: 1.5}\n", "c.yaml:1: summary.detail: expected a number in [0, 1]"),
    ("llm: [1, 2]\n", "c.yaml:1: llm: expected a mapping"),
    ("llm:\n  model: [unclosed\n", "c.yaml:3: YAML syntax error"),
    ("llm:\n  api_key: ${GG_SURELY_UNSET_VAR}\n", "c.yaml:2: llm.api_key: environment variable GG_SURELY_UNSET_VAR"),
    ("prices:\n  m: {input: -1}\n", "c.yaml:2: prices.m.input: expected a non-negative number"),
    ("llm:\n  logit_bias_ids: {YES: x}\n", "c.yaml:2: llm.logit_bias_ids: expected a {YES: id, NO: id} mapping"),
])
def test_bad_configs(text, expected):
    assert err(text).startswith(expected)


def test_interpolation(monkeypatch):
    monkeypatch.setenv("GG_RPM", "120")
    monkeypatch.setenv("GG_KEY", "k-123")
    monkeypatch.delenv("GG_UNSET", raising=False)
    cfg = load_config_text("llm:\n  requests_per_minute: ${GG_RPM}\n  api_key: ${GG_KEY}\n"
                           "  base_url: ${GG_UNSET:-http://x/v1}\n  model: m-${GG_UNSET:-}\n")
    assert cfg.llm.requests_per_minute == 120
    assert cfg.llm.api_key == "k-123" and cfg.llm.base_url == "http://x/v1" and cfg.llm.model == "m-"


def test_missing_and_directory(tmp_path):
    with pytest.raises(ConfigError, match="configuration file not found"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)


def test_example_config_loads_and_documents_every_key():
    cfg = load_config(ROOT / "config.example.yaml")
    assert cfg.llm.model
    text = (ROOT / "config.example.yaml").read_text()
    for key, _default, doc in field_docs():
        assert doc, key
        assert key.rsplit(".", 1)[-1] + ":" in text, f"config.example.yaml does not show {key}"
