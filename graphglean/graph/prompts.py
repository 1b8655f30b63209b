"""The graph pass's prompts, built from the configuration, and the escaping of the passage itself."""

from __future__ import annotations

from pathlib import Path

import attrs

from ..config import GraphConfig
from ..errors import ConfigError
from ..prompts import load_template, render


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

    @classmethod
    def from_config(cls, cfg: GraphConfig) -> "GraphPrompts":
        fields = {"tuple_delimiter": cfg.tuple_delimiter, "record_delimiter": cfg.record_delimiter,
                  "completion_delimiter": cfg.completion_delimiter, "language": cfg.language,
                  "entity_types": ", ".join(cfg.entity_types)}
        if cfg.examples == "none":
            examples = ""
        elif cfg.examples == "default":
            examples = render(load_template("graph_examples"), **fields)
        else:
            try:
                examples = render(Path(cfg.examples).read_text(encoding="utf-8"), **fields)
            except OSError as e:
                raise ConfigError(f"graph.examples: cannot read {cfg.examples}: {e.strerror}") from None
        template = render(load_template("graph_extraction"), examples=examples, **fields)
        return cls(template, render(load_template("graph_continue"), **fields).strip(),
                   render(load_template("graph_loop"), **fields).strip(), fields)

    def extraction(self, passage: str) -> str:
        delimiters = (self.fields["tuple_delimiter"], self.fields["record_delimiter"],
                      self.fields["completion_delimiter"])
        return render(self.extraction_template, input_text=neutralize(passage, delimiters))
