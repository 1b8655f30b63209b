"""Token ids of words in a local server's own tokenizer, asked from its tokenize routes: llama.cpp's
``/tokenize`` (``{"tokens": [...]}``, or ``[{"id", "piece"}]`` with pieces), llama-cpp-python's
``/extras/tokenize`` and vLLM's ``/tokenize`` (``{"count", "tokens", ...}``).

Servers may add special tokens to every text whatever they are asked: llama-cpp-python answers ``[2, 26915]``
for "YES" with gemma (BOS first) and ignores ``add_special_tokens``. Those ids are recognized as what the empty
text tokenizes to, or else as the ids every probe starts or ends with; ids found by dropping them are confirmed
with the server's detokenize route when it has one.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

import trio

from .client import ChatClient
from .credentials import endpoint_key
from .server.reports import server_root

#: (tokenize, detokenize) routes, below the server's root or below base_url
ROUTES = (("/tokenize", "/detokenize"), ("/extras/tokenize", "/extras/detokenize"))


async def single_token_ids(client: ChatClient, words: Sequence[str],
                           found: dict[str, Any] | None = None) -> list[int] | None:
    """The one id of each of ``words`` in the server's tokenizer; None when the server has no tokenize route,
    does not answer within ``llm.timeout_s`` (for the whole probe), or makes some word more than one token.
    ``found`` is told how: the route, the special ids dropped, whether detokenize confirmed them; or why not.
    What a server answered is kept with the responses (a run answered from the cache sends no probe either);
    a probe some route of which gave no answer for good (a timeout, a refused connection, a 429, a 503) is
    made again."""
    found = {} if found is None else found
    key = "tokenize:" + hashlib.sha256(json.dumps([endpoint_key(client.cfg.base_url), client.cfg.model,
                                                   *words]).encode(
        "utf-8", "surrogatepass")).hexdigest()
    kept = await client.recall(key)
    if isinstance(kept, dict) and "ids" in kept:
        found.update(kept.get("found") or {})
        return list(kept["ids"]) if isinstance(kept["ids"], list) else None
    probe = _Probe(client)
    ids = await probe.ids(words, found)
    if probe.answered:
        await client.remember(key, {"ids": ids, "found": found}, "tokenize")
    return ids


# what a server says of a route for good: it answers, refuses this body, has no such route, takes no POST, or has
# it not implemented; a 429, a 503 or a 500 says only how it is doing now
DEFINITIVE = frozenset({200, 400, 404, 405, 422, 501})


class _Probe:
    def __init__(self, client: ChatClient) -> None:
        self.client = client
        self.answered = True  # every request got a definitive answer (a 404 is one): the outcome is the server's

    async def ids(self, words: Sequence[str], found: dict[str, Any]) -> list[int] | None:
        client = self.client
        base, root = client.cfg.base_url.partition("?")[0].rstrip("/"), server_root(client.cfg.base_url)
        candidates = [(root + t, root + d) for t, d in ROUTES] + [(base + t, base + d) for t, d in ROUTES[1:]]
        found["why"] = "the server has no tokenize route (/tokenize, /extras/tokenize)"
        with trio.move_on_after(client.cfg.timeout_s):
            for tokenize, detokenize in dict.fromkeys(candidates):
                probes = [await self._tokenize(tokenize, w) for w in words]
                if any(p is None for p in probes):
                    continue
                ids = without_special(await self._tokenize(tokenize, ""), probes)  # type: ignore[arg-type]
                route = tokenize.removeprefix(root)
                if not all(len(p) == 1 for p in ids):
                    found["why"] = f"{route} makes {' or '.join(words)} more than one token"
                    continue
                if ids != probes and not await self._confirmed(detokenize, words, [p[0] for p in ids]):
                    found["why"] = f"{detokenize.removeprefix(root)} did not give the words back"
                    continue
                found.pop("why", None)
                dropped = sorted({i for p in probes for i in p} - {q[0] for q in ids})
                found["found_by"] = route + (f" (special ids {dropped} the server adds to every text dropped)"
                                             if ids != probes else "")
                return [p[0] for p in ids]
            return None
        self.answered = False
        found["why"] = f"the tokenize probe did not end within llm.timeout_s ({client.cfg.timeout_s:g} s)"
        return None

    async def _post(self, url: str, body: dict[str, Any]) -> Any:
        status, answer = await self.client.post_answer(url, body)
        self.answered = self.answered and status in DEFINITIVE
        return answer

    async def _tokenize(self, url: str, text: str) -> list[int] | None:
        body = {"content": text, "prompt": text, "input": text, "model": self.client.cfg.model, "add_special": False,
                "add_special_tokens": False, "with_pieces": False}
        answer = await self._post(url, body)
        tokens = answer.get("tokens") if isinstance(answer, dict) else None
        if not isinstance(tokens, list):
            return None
        ids = [t.get("id") if isinstance(t, dict) else t for t in tokens]
        return ids if all(type(i) is int for i in ids) else None

    async def _confirmed(self, url: str, words: Sequence[str], ids: list[int]) -> bool:
        """Whether the server's detokenize route (when it has one) turns each id back into its word."""
        for word, token in zip(words, ids):
            answer: Any = await self._post(url, {"tokens": [token], "model": self.client.cfg.model})
            if not isinstance(answer, dict):
                return True  # no detokenize route: the ids stand on the probes alone
            text = next((answer[k] for k in ("content", "text", "prompt") if isinstance(answer.get(k), str)), None)
            if text is not None and text.strip() != word:
                return False
        return True


def without_special(empty: list[int] | None, probes: list[list[int]]) -> list[list[int]]:
    """``probes`` without the special ids the server adds to every text: the ids it gave for the empty text
    (``empty``), split between the start and the end of every probe; else the ids that every probe starts or
    ends with, as long as each keeps one (the caller confirms those with the detokenize route)."""
    if empty:
        for k in range(len(empty), -1, -1):
            head, tail = empty[:k], empty[k:]
            if all(len(p) > len(empty) and p[:k] == head and p[len(p) - len(tail):] == tail for p in probes):
                return [p[k:len(p) - len(tail)] for p in probes]
    start = 0
    while all(len(p) - start > 1 for p in probes) and len({p[start] for p in probes}) == 1:
        start += 1
    end = 0
    while all(len(p) - start - end > 1 for p in probes) and len({p[-1 - end] for p in probes}) == 1:
        end += 1
    return [p[start:len(p) - end] for p in probes]

