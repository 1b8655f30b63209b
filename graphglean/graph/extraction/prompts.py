"""The graph pass's prompts, built from the configuration, and the escaping of the passage itself."""

from __future__ import annotations

from pathlib import Path

import attrs

from ...core.config import GraphConfig
from ...core.errors import ConfigError
from ...core.prompts import load_template, render

INPUT_FIELD = "input_text"  # the extraction template's field for the passage


def neutralize(text: str, delimiters: tuple[str, ...] = ()) -> str:
    """Break every record delimiter in a passage, so text that imitates records cannot forge them.

    ``<|`` and ``|>`` become ``<¦`` and ``¦>`` (the parser knows no delimiter with ``¦``), ``##`` becomes
    ``# #``, and any other configured delimiter gets a space after its first character; the passage still
    reads the same to the model.
    """
    text = text.replace("<|", "<\u00a6").replace("|>", "\u00a6>").replace("##", "# #")
    for d in delimiters:
        if len(d) > 1:
            text = text.replace(d, d[0] + " " + d[1:])
    return text


@attrs.frozen
class GraphPrompts:
    extraction_template: str
    continue_prompt: str
    loop_prompt: str
    fields: dict[str, str]
    resume_prompt: str = ""  # asks for the rest of an answer the completion cap cut
    # the template cut at its ``{input_text}`` fields: a prompt is their join with the passage, the same text
    # `render` makes, without scanning the template (examples and all) for fields once a chunk
    _around_input: tuple[str, ...] = attrs.field(init=False, eq=False, repr=False)
    _delimiters: tuple[str, ...] = attrs.field(init=False, eq=False, repr=False)

    @_around_input.default
    def _cut_template(self) -> tuple[str, ...]:
        return tuple(self.extraction_template.split("{" + INPUT_FIELD + "}"))

    @_delimiters.default
    def _record_delimiters(self) -> tuple[str, ...]:
        return tuple(self.fields[k] for k in ("tuple_delimiter", "record_delimiter", "completion_delimiter"))

    @classmethod
    def from_config(cls, cfg: GraphConfig) -> "GraphPrompts":
        fields = _fields(cfg)
        template = render(load_template("graph_extraction"), examples=examples_text(cfg), **fields)
        return cls(template, render(load_template("graph_continue"), **fields).strip(),
                   render(load_template("graph_loop"), **fields).strip(), fields,
                   render(load_template("graph_resume"), **fields).strip())

    def extraction(self, passage: str) -> str:
        """The extraction prompt of ``passage``: ``render(extraction_template, input_text=...)`` of it neutralized."""
        return neutralize(passage, self._delimiters).join(self._around_input)


def _fields(cfg: GraphConfig) -> dict[str, str]:
    return {"tuple_delimiter": cfg.tuple_delimiter, "record_delimiter": cfg.record_delimiter,
            "completion_delimiter": cfg.completion_delimiter, "language": cfg.language,
            "entity_types": ", ".join(cfg.entity_types)}


def examples_text(cfg: GraphConfig) -> str:
    """The few-shot examples the extraction prompt shows (``graph.examples``), rendered."""
    if cfg.examples == "none":
        return ""
    if cfg.examples == "default":
        return render(load_template("graph_examples"), **_fields(cfg))
    try:
        return render(Path(cfg.examples).read_text(encoding="utf-8"), **_fields(cfg))
    except OSError as e:
        raise ConfigError(f"graph.examples: cannot read {cfg.examples}: {e.strerror}") from None
