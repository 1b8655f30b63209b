"""Message entities from spaCy, as Zep's own NLP service finds them: no LLM call. Each entity is Zep's shape,
``{"Label", "Name", "Matches": [{"Start", "End", "Text"}]}``, with offsets that slice the message exactly."""

from __future__ import annotations

import functools
from typing import Any

import trio

from ..core.errors import ConfigError
from ..core.spacy_pipeline import INSTALL_HINT, exclusive, load_pipeline


def zep_entities(doc: Any) -> list[dict[str, Any]]:
    """A parsed message's named entities, one per (label, name), each with every place it occurs."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for ent in doc.ents:
        grouped.setdefault((ent.label_, ent.text), []).append(
            {"Start": ent.start_char, "End": ent.end_char, "Text": ent.text})
    return [{"Label": label, "Name": name, "Matches": matches} for (label, name), matches in grouped.items()]


class SpacyEntities:
    """A shared pipeline with only its named-entity components; one worker thread uses it at a time."""

    BATCH = 256  # messages per nlp.pipe call

    def __init__(self, nlp: Any) -> None:
        self.nlp = nlp
        self._one_at_a_time = trio.CapacityLimiter(1)  # no more threads than can use the pipeline

    @classmethod
    async def load(cls, model: str, *, required: bool) -> "SpacyEntities | None":
        """The pipeline for ``enrich.nlp_model`` (empty = the default English models); None when none is
        installed, unless ``required``."""
        nlp = await trio.to_thread.run_sync(functools.partial(load_pipeline, model, "enrich.nlp_model",
                                                              sentences=False))
        if nlp is None and required:
            raise ConfigError(f"enrich.entity_backend: spacy needs spaCy and an English model: {INSTALL_HINT}")
        return None if nlp is None else cls(nlp)

    async def entities(self, texts: list[str]) -> list[list[dict[str, Any]]]:
        """Zep entities of each text, in order."""
        def work() -> list[list[dict[str, Any]]]:
            with exclusive(self.nlp):  # the pipeline is the process's, shared with other enrichers
                return [zep_entities(doc) for doc in self.nlp.pipe(texts, batch_size=64)]

        return await trio.to_thread.run_sync(work, limiter=self._one_at_a_time)
