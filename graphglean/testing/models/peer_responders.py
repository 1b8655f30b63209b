"""A compliant model for graphglean's graph prompts and for the prompts of the peers' own engines, GraphRAG 3.3
and LightRAG 1.5, so tests can build an index and run those engines' indexers and query paths against the fake
server: extraction records in each one's format (names in any script: "Zoë Ångström", "Société Générale"),
description summaries, GraphRAG's community reports, global map points, DRIFT's primer and local JSON,
LightRAG's keywords, and prose for every answer. Any JSON schema a request sends in ``response_format`` is
answered by an object of that schema. Every other prompt goes to `responders.synthetic`.

    python -m graphglean.testing.serve --responder graphglean.testing.models.peer_responders:peers
"""

from __future__ import annotations

import json
from typing import Any

import regex

from ..exchange import RecordedRequest, Reply
from .responders import MARK_CONTINUE, MARK_LOOP, passage_of, synthetic

# GraphRAG 3.3's prompts (graphrag/prompts/...), LightRAG 1.5's (lightrag/prompt.py)
GRAPHRAG_EXTRACT = "-Real Data-\n######################\nEntity_types:"
GRAPHRAG_CONTINUE = "MANY entities and relationships were missed"
GRAPHRAG_LOOP = "Answer Y if there are still entities"
GRAPHRAG_SUMMARIZE = "Description List:"
GRAPHRAG_MAP = '"points": ['
DRIFT_LOCAL = "'follow_up_queries'"
LIGHTRAG_KEYWORDS = "User Query:"
LIGHTRAG_EXTRACT = "---Input Text---"
LIGHTRAG_CONTINUE = "Based on the last extraction task"
LIGHTRAG_SUMMARIZE = "Description List:\n\n```"
MAX_NAMES = 15  # entities written for one passage


def peers(req: RecordedRequest) -> Reply | str:
    """The answer a compliant model gives to any of these prompts (see the module docstring)."""
    prompt, last = req.prompt, req.last_user
    schema = _json_schema(req.body)
    if schema is not None:
        return json.dumps(_instance(schema, _names(prompt)))
    for marker, answer in ((GRAPHRAG_LOOP, "N"), (GRAPHRAG_CONTINUE, "<|COMPLETE|>"),
                           (LIGHTRAG_CONTINUE, "<|COMPLETE|>"), (MARK_CONTINUE, "<|COMPLETE|>")):
        if marker in last:
            return answer
    if req.max_tokens == 1 or MARK_LOOP in last:
        return Reply("NO", finish_reason="length")
    if "Records:" in last:  # graphglean's own extraction
        return _records(_text_names(passage_of(last)), "<|>", '("entity"<|>{n}<|>person<|>{d})',
                        '("relationship"<|>{a}<|>{b}<|>{d}<|>5)', "##\n")
    if GRAPHRAG_EXTRACT in prompt:
        data = prompt.rpartition(GRAPHRAG_EXTRACT)[2]
        kind = (data.partition("\n")[0].split(",")[0].strip() or "person").upper()
        text = data.partition("Text:")[2].rpartition("######################")[0]
        names = [n.upper() for n in _text_names(text)]
        return _records(names, "<|>", '("entity"<|>{n}<|>' + kind + "<|>{d})",
                        '("relationship"<|>{a}<|>{b}<|>{d}<|>5)', "\n##\n")
    if LIGHTRAG_EXTRACT in last:
        text = last.partition(LIGHTRAG_EXTRACT)[2].partition("```")[2].partition("```")[0]
        return _records(_text_names(text), "<|#|>", "entity<|#|>{n}<|#|>Person<|#|>{d}",
                        "relation<|#|>{a}<|#|>{b}<|#|>mention<|#|>{d}", "\n")
    if LIGHTRAG_SUMMARIZE in prompt:
        return " ".join(prompt.partition(LIGHTRAG_SUMMARIZE)[2].partition("```")[0].split())[:600]
    if GRAPHRAG_SUMMARIZE in prompt:
        return _summary(prompt)
    if GRAPHRAG_MAP in prompt:
        return json.dumps({"points": [{"description": f"The reports name {n} [Data: Reports ({i})]", "score": 60}
                                      for i, n in enumerate(_names(prompt)[:3])]})
    if DRIFT_LOCAL in prompt:
        names = _names(prompt)
        return json.dumps({"response": "The sources name " + ", ".join(names[:3]) + ".", "score": 70,
                           "follow_up_queries": [f"Who is {n}?" for n in names[:2]] or ["What happened next?"]})
    if LIGHTRAG_KEYWORDS in prompt and "high_level_keywords" in prompt:
        words = _names(prompt.rpartition(LIGHTRAG_KEYWORDS)[2].partition("\n")[0])
        return json.dumps({"high_level_keywords": ["relationships", *words[:1]],
                           "low_level_keywords": words[:3] or ["people"]})
    if "---Role---" in prompt:
        names = _names(prompt)
        return "## Answer\n\nThe data names " + (", ".join(names[:5]) or "nothing relevant") + "."
    return synthetic(req)


def _records(names: list[str], delimiter: str, entity: str, relation: str, separator: str) -> str:
    rows = [entity.format(n=n, d=f"{n} appears in the text.") for n in names]
    rows += [relation.format(a=a, b=b, d=f"{a} is mentioned near {b}.") for a, b in zip(names, names[1:])]
    return separator.join(rows) + "\n<|COMPLETE|>"


def _json_schema(body: Any) -> dict[str, Any] | None:
    fmt = body.get("response_format") if isinstance(body, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
        return schema if isinstance(schema, dict) else None
    return None


def _instance(schema: dict[str, Any], names: list[str], defs: dict[str, Any] | None = None) -> Any:
    """A value of JSON ``schema`` (objects, arrays, strings, numbers; ``$ref`` to ``$defs``) about ``names``."""
    defs = {**(defs or {}), **schema.get("$defs", {})}
    if "$ref" in schema:
        return _instance(defs[schema["$ref"].rsplit("/", 1)[-1]], names, defs)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return _instance(schema[key][0], names, defs)
    kind = schema.get("type")
    if kind == "object":
        return {k: _instance(v, names, defs) if k != "title" else _title(names)
                for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [_instance(schema.get("items", {"type": "string"}), names[i:] or names, defs) for i in range(2)]
    if kind == "integer":
        return 70
    if kind == "number":
        return 7.5
    if kind == "boolean":
        return True
    return f"{_title(names)}: " + "; ".join(f"{n} is named in the data" for n in names[:3]) + "."


def _title(names: list[str]) -> str:
    return " and ".join(names[:2]) + " community" if names else "A community"


_CAPITALIZED = regex.compile(r"\b\p{Lu}[\w'\-]*\p{L}(?:[ \t]+(?:(?:de|of|la|van|von)[ \t]+)?\p{Lu}[\w'\-]*\p{L})*")
_DATA_HEADINGS = ("---Data tables---", "-Data-", "Text:", "---Context---", "Query:")
_COMMON = {"The", "This", "That", "These", "Those", "A", "An", "It", "He", "She", "They", "We", "In", "On", "At",
           "And", "But", "Of", "For", "With", "Who", "What", "Where", "When", "Why", "How", "Which", "Output",
           "Data", "Reports", "Entities", "Relationships", "Sources", "Id", "By", "If", "Or", "So", "As", "To"}


def _mentions(text: str) -> list[str]:
    """Every capitalized name of ``text``, as often as it is written (a sentence's first word left out)."""
    found = []
    for name in _CAPITALIZED.findall(text):
        words = name.split()
        while words and words[0] in _COMMON:
            words = words[1:]
        if words and len(" ".join(words)) > 2:
            found.append(" ".join(words))
    return found


def _text_names(text: str) -> list[str]:
    """The capitalized names of a passage, in order of first mention."""
    return list(dict.fromkeys(_mentions(text)))[:MAX_NAMES]


def _names(text: str) -> list[str]:
    """Capitalized names in ``text`` (its data part, after the last data heading, when it has one), most
    frequent first."""
    starts = [text.rindex(h) + len(h) for h in _DATA_HEADINGS if h in text]
    counts: dict[str, int] = {}
    for name in _mentions(text[max(starts):] if starts else text):
        counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda n: -counts[n])[:12]


def _summary(prompt: str) -> str:
    listed = prompt.partition("Description List:")[2].partition("#######")[0]
    try:
        parts = json.loads(listed)
    except ValueError:
        parts = [listed.strip()]
    return " ".join(str(p) for p in parts)[:600]
