import json
import warnings
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphglean.core.config import Config
from graphglean.core.config_loader import field_docs, load_config, load_config_text
from graphglean.core.errors import ConfigError

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
    shown = yaml.safe_load((ROOT / "config.example.yaml").read_text())
    for key, _default, doc in field_docs():
        assert doc, key
        section = shown
        for part in key.split("."):  # the whole path: llm.seed shown does not show graph.communities.seed
            assert isinstance(section, dict) and part in section, f"config.example.yaml does not show {key}"
            section = section[part]


# YAML as people write it: strings are the text as written, whatever YAML 1.1 would make of it

@pytest.mark.parametrize("text,get,expected", [
    ("llm:\n  cache: {mode: off}\n", lambda c: c.llm.cache.mode, "off"),
    ("llm:\n  cache:\n    mode: ${GG_UNSET:-off}\n", lambda c: c.llm.cache.mode, "off"),
    ("llm:\n  cache: {mode: ${GG_UNSET:-off}}\n", lambda c: c.llm.cache.mode, "off"),
    ("llm:\n  logit_bias_ids: {YES: 9642, NO: 2360}\n", lambda c: c.llm.logit_bias_ids, {"YES": 9642, "NO": 2360}),
    ("llm:\n  azure: {api_version: 2024-06-01}\n", lambda c: c.llm.azure.api_version, "2024-06-01"),
    ("llm:\n  model: ${GG_UNSET:-0613}\n", lambda c: c.llm.model, "0613"),
    ("llm:\n  azure:\n    deployment: 0613\n", lambda c: c.llm.azure.deployment, "0613"),
    ("llm:\n  model: 1e3\n", lambda c: c.llm.model, "1e3"),
    ("graph:\n  language: no\n", lambda c: c.graph.language, "no"),
    ("graph:\n  entity_types: [person, yes, 2024-01-01, 007]\n", lambda c: c.graph.entity_types,
     ["person", "yes", "2024-01-01", "007"]),
    ("llm:\n  seed: ${GG_UNSET:-}\n", lambda c: c.llm.seed, None),
    ("llm:\n  seed: 0613\n", lambda c: c.llm.seed, 613),
    ("llm:\n  tokens_per_minute: 2_000_000\n", lambda c: c.llm.tokens_per_minute, 2_000_000),
    ("llm:\n  temperature: ${GG_UNSET:-1e-1}\n", lambda c: c.llm.temperature, 0.1),
    ("graph:\n  enabled: off\n  directed: yes\n", lambda c: (c.graph.enabled, c.graph.directed), (False, True)),
    ("prices:\n  0613: {input: 1, output: 2}\n", lambda c: c.prices["0613"].output, 2.0),
    ("llm:\n  model: !!str 12\n  seed: !!null 12\n", lambda c: (c.llm.model, c.llm.seed), ("12", None)),
])
def test_yaml_as_people_write_it(monkeypatch, text, get, expected):
    monkeypatch.delenv("GG_UNSET", raising=False)
    assert get(load_config_text(text)) == expected


def test_variables_inside_lists_and_mappings_are_interpolated_and_typed(monkeypatch):
    monkeypatch.setenv("GG_STOP", "END")
    monkeypatch.setenv("GG_N", "3")
    monkeypatch.delenv("GG_UNSET", raising=False)
    cfg = load_config_text(
        "llm:\n  extra_body: {top_p: ${GG_UNSET:-0.9}, n: ${GG_N}, stop: [${GG_STOP}, '${GG_N}', x-${GG_N}],\n"
        "               flag: ${GG_UNSET:-true}, tag: ${GG_UNSET:-no}, off: ${GG_UNSET:-}, v: 0613}\n"
        "graph:\n  entity_types:\n    - ${GG_STOP}\n    - ${GG_UNSET:-person}\n")
    assert cfg.llm.extra_body == {"top_p": 0.9, "n": 3, "stop": ["END", "3", "x-3"], "flag": True, "tag": "no",
                                  "off": None, "v": "0613"}
    assert cfg.graph.entity_types == ["END", "person"]


def test_unset_variable_inside_a_mapping_names_its_line_and_key(monkeypatch):
    monkeypatch.delenv("GG_UNSET", raising=False)
    assert err("llm:\n  model: m\n  extra_body:\n    top_p: ${GG_UNSET}\n").startswith(
        "c.yaml:4: llm.extra_body.top_p: environment variable GG_UNSET is not set")


@pytest.mark.parametrize("text,line,key", [
    ("graph:\n  record_delimiter: ##\n", 2, "graph.record_delimiter"),
    ("graph:\n  language: English\n  tuple_delimiter: #|#   # the field separator\n", 3, "graph.tuple_delimiter"),
    ("summary:\n  chunk_delimiter: #\n", 2, "summary.chunk_delimiter"),
    ("graph:\n  entity_types:\n    - person\n    - #x\n", 4, "graph.entity_types.1"),
])
def test_a_comment_where_a_value_was_meant_is_a_one_line_error(text, line, key):
    message = err(text)
    assert message.startswith(f"c.yaml:{line}: {key}: the value is empty because #")
    assert "quote it" in message and "\n" not in message


def test_an_empty_value_with_an_ordinary_comment_is_still_empty():
    cfg = load_config_text("llm:\n  seed:        # empty = not sent\n  base_url:   #\tnone\n")
    assert cfg.llm.seed is None and cfg.llm.base_url == ""


def test_repeated_keys_are_an_error_and_merges_work():
    assert err("llm:\n  model: a\n  seed: 1\n  model: b\n") == (
        "c.yaml:4: llm.model: repeated key (first on line 2); one of them would be ignored")
    cfg = load_config_text("llm:\n  model: m\n  cache: &c {mode: off, path: x.sqlite}\n"
                           "  azure:\n    <<: {deployment: d, api_version: v1}\n    api_version: v2\n")
    assert cfg.llm.cache.mode == "off" and (cfg.llm.azure.deployment, cfg.llm.azure.api_version) == ("d", "v2")


def test_a_quoted_variable_is_a_number_where_a_number_is_wanted(monkeypatch):
    monkeypatch.setenv("GG_RPM", "120")
    cfg = load_config_text('llm:\n  requests_per_minute: "${GG_RPM}"\n  model: "${GG_RPM}"\n')
    assert cfg.llm.requests_per_minute == 120 and cfg.llm.model == "120"


# relative paths in a configuration file are relative to its folder

PATHS = ("input:\n  path: data/in.txt\noutput:\n  dir: out\nllm:\n  cache: {path: cache/c.sqlite}\n"
         "graph:\n  examples: ex.txt\nepisodic:\n  templates: tpl\n")


def _paths(cfg):
    return (cfg.input.path, cfg.output.dir, cfg.llm.cache.path, cfg.graph.examples, cfg.episodic.templates)


def test_relative_paths_resolve_against_the_config_folder(tmp_path, monkeypatch):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "c.yaml").write_text(PATHS)
    monkeypatch.chdir(tmp_path)
    expected = tuple(str(Path("project", p)) for p in ("data/in.txt", "out", "cache/c.sqlite", "ex.txt", "tpl"))
    assert _paths(load_config("project/c.yaml")) == expected
    absolute = load_config(tmp_path / "project" / "c.yaml")
    assert _paths(absolute) == tuple(str(tmp_path / p) for p in expected)
    monkeypatch.chdir(tmp_path / "project")  # a config in the current folder: paths as written
    assert _paths(load_config("c.yaml")) == ("data/in.txt", "out", "cache/c.sqlite", "ex.txt", "tpl")


def test_absolute_home_and_special_path_values_are_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    c = tmp_path / "c.yaml"
    c.write_text(f"input: {{path: '-'}}\noutput: {{dir: {tmp_path / 'abs'}}}\nllm:\n  cache: {{path: ~/c.sqlite}}\n"
                 "graph: {examples: none}\n")
    cfg = load_config(c)
    assert _paths(cfg) == ("-", str(tmp_path / "abs"), str(tmp_path / "home" / "c.sqlite"), "none", "")
    c.write_text("graph: {examples: default}\n")
    assert load_config(c).graph.examples == "default"


def test_defaults_text_configs_and_library_use_are_relative_to_the_current_folder():
    assert _paths(Config()) == ("examples/", "output", "", "default", "")
    assert _paths(load_config_text(PATHS)) == ("data/in.txt", "out", "cache/c.sqlite", "ex.txt", "tpl")
    assert load_config_text(PATHS, base_dir="/srv/p").input.path == "/srv/p/data/in.txt"


def test_cli_overrides_stay_relative_to_the_current_folder(tmp_path, monkeypatch):
    from graphglean.cli import main

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # main() sets its own
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "stave.txt").write_text((ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text())
    (tmp_path / "here.txt").write_text("Ebenezer Scrooge met Jacob Marley in London. Marley was dead.")
    (tmp_path / "project" / "c.yaml").write_text("input: {path: stave.txt}\noutput: {dir: results}\n"
                                                  "chunking: {size: 300, overlap: 30}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("GRAPHGLEAN_BASE_URL", raising=False)
    assert main(["run", "project/c.yaml"]) == 0
    report = json.loads((tmp_path / "project" / "results" / "report.json").read_text())
    assert report["documents"] == 1 and report["chunks"] > 5
    assert main(["run", "project/c.yaml", "--input", "here.txt", "--output", "mine"]) == 0
    assert json.loads((tmp_path / "mine" / "report.json").read_text())["chunks"] == 1


def test_every_setting_that_names_a_file_or_folder_is_resolved_as_a_path():
    import re

    import attrs

    def leaves(cls, prefix=""):
        for f in attrs.fields(cls):
            if attrs.has(f.type):
                yield from leaves(f.type, f"{prefix}{f.name}.")
            else:
                yield f"{prefix}{f.name}", f

    unmarked = [key for key, f in leaves(Config) if f.type is str and f.metadata.get("path") is None
                and re.search(r"\b(file|folder|path|directory)\b", f.metadata["doc"], re.I)]
    assert unmarked == [], "give these setting(..., path=(...)) so they resolve against the config's folder"


YAML_BITS = st.sampled_from(["llm", "graph", "model", "seed", "extra_body", "cache", "mode", "prices", "m", "input",
                             ":", ": ", "\n", "\n  ", "\n    ", "- ", "[", "]", "{", "}", ", ", "#", "##", "'", '"',
                             "&a ", "*a", "<<: ", "!!str ", "!!int ", "!x ", "? ", "|", ">", "~", "no", "0613",
                             "2024-06-01", "${GG_UNSET:-}", "${GG_UNSET}", "${GG_UNSET:-x}", "1.5", "-3", "\t", "é"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(YAML_BITS, max_size=40).map("".join))
def test_any_text_loads_or_is_a_one_line_config_error(monkeypatch, text):
    monkeypatch.delenv("GG_UNSET", raising=False)
    try:
        load_config_text(text, "c.yaml")
    except ConfigError as e:
        assert str(e).startswith("c.yaml") and "\n" not in str(e)


TRICKY = ["no", "off", "0613", "2024-06-01", "1_000", "0x1F", "1e3", ".inf", "~", "", "##", "'quoted'", "[a, 1]",
          "{a: 1}", "${GG_UNSET:-}", "${GG_UNSET:-0.5}", "'${GG_UNSET:-7}'", "!!str 5", "-1", "true", "é", "- x"]


def test_every_key_with_any_tricky_value_loads_or_is_a_one_line_error(monkeypatch):
    monkeypatch.delenv("GG_UNSET", raising=False)
    for key, _default, _doc in field_docs():
        *sections, name = key.split(".")
        indent = "  " * len(sections)
        head = "".join(f"{'  ' * i}{s}:\n" for i, s in enumerate(sections))
        for value in TRICKY:
            text = f"{head}{indent}{name}: {value}\n"
            try:
                load_config_text(text, "c.yaml")
            except ConfigError as e:
                assert str(e).startswith("c.yaml:") and "\n" not in str(e), (text, str(e))


def test_a_key_written_over_several_lines_is_named_on_one_line():
    with pytest.raises(ConfigError) as e:
        load_config_text("? llm\n\n  llm", "c.yaml")
    assert "\n" not in str(e.value) and str(e.value).startswith("c.yaml:1: 'llm\\nllm': unknown key")
