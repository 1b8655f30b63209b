"""Answers garbled the ways small local models garble the record format, to test that none of it becomes a node.

`garbled_line` breaks one record line: a doubled or broken field delimiter (``<||#|>``, ``<|#||>``, ``<||#``,
``|#|>``, ``<#>``), the fields after the first joined by plain pipes (``Government|Offeror|evaluates|...``), a
relationship's two names joined by an arrow (``Navy -> Contractor``), an arrow before a name (``-> "Navy``), or a
stray quote inside one. `garbled_answer` breaks a seeded share of an answer's lines; `garbling` wraps a responder
so that the fake server answers with them. `quote_garbled_answer` quotes names the ways small models quote them
(``"X"/"Y"``, ``"X" (rumor)``, ``"X", "Y"``, ``"X" or "Y"``, ``"X" shop``, ``X"``, curly quotes).
"""

from __future__ import annotations

import random
from typing import Callable

import attrs

from ..exchange import RecordedRequest, Reply

BROKEN = ("<||#|>", "<|#||>", "<|#|#|>", "<||#", "|#|>", "<#>", "<|||>")


def garbled_line(line: str, rng: random.Random) -> str:
    """``line`` (a record in the ``<|>`` or ``<|#|>`` format) garbled one way, chosen by ``rng``."""
    d = next((d for d in ("<|#|>", "<|>") if d in line), None)
    if d is None:
        return line
    head, *fields = line.split(d)
    if len(fields) < 2:
        return line
    way = rng.randrange(5)
    if way == 0:  # a broken delimiter between two fields, as the format's own delimiter breaks
        k = rng.randrange(len(fields) - 1)
        broken = rng.choice(BROKEN if "#" in d else [b.replace("#", "") for b in BROKEN if b != "<#>"])
        return d.join([head, *fields[:k + 1]]) + broken + d.join(fields[k + 1:])
    if way == 1:  # the fields after the first joined by pipes
        return head + d + "|".join(fields)
    if way == 2 and "relation" in head.lower():  # the two names joined by an arrow
        return head + d + f"{fields[0]} -> {fields[1]}" + "".join(d + f for f in fields[2:])
    if way == 3:  # an arrow before the first name
        return head + d + '-> "' + fields[0].strip('"') + "".join(d + f for f in fields[1:])
    words = fields[0].split()  # a stray quote before the first name's last word
    if len(words) < 2:
        return line
    return head + d + " ".join(words[:-1]) + ' "' + words[-1] + "".join(d + f for f in fields[1:])


def garbled_answer(answer: str, share: float, rng: random.Random) -> str:
    """``answer`` with about ``share`` of its lines garbled."""
    return "\n".join(garbled_line(line, rng) if rng.random() < share else line for line in answer.split("\n"))


def garbling(responder: Callable[[RecordedRequest], Reply | str], share: float, seed: int = 0,
             quotes: bool = False) -> Callable[[RecordedRequest], Reply | str]:
    """``responder`` (one that answers at once) whose answers have ``share`` of their lines garbled, the same
    way for the same answer (``quotes``: their names quoted, `quote_garbled_answer`)."""
    def respond(req: RecordedRequest) -> Reply | str:
        reply = responder(req)
        text = reply.text if isinstance(reply, Reply) else reply
        garble = quote_garbled_answer if quotes else garbled_answer
        garbled = garble(text, share, random.Random(f"{seed}:{text}"))
        return attrs.evolve(reply, text=garbled) if isinstance(reply, Reply) else garbled
    return respond


NOTES = ("rumor", "mentioned", "unclear", "person", "\u0bb5\u0ba4\u0ba8\u0bcd\u0ba4\u0bbf")  # the last: Tamil "rumor"
WORDS = ("shop", "group", "area")
# the ways: alternatives by a slash, a comma or "or"; a note in brackets; a lone closing quote; a word after the
# quoted name; curly quotes
QUOTINGS = ('"{name}"/"{other}"', '"{name}" ({note})', '"{name}", "{other}"', '"{name}" or "{other}"', '{name}"',
            '"{name}" {word}', "\u201c{name}\u201d/\u201c{other}\u201d")


def _quoted_name(name: str, rng: random.Random) -> str:
    """``name`` quoted one way, chosen by ``rng``, with another form of it (in capitals)."""
    way = rng.choice(QUOTINGS)
    return way.format(name=name, other=name.upper(), note=rng.choice(NOTES), word=rng.choice(WORDS))


def quote_garbled_line(line: str, rng: random.Random) -> str:
    """``line`` (a record in the ``<|>`` or ``<|#|>`` format) with its first name quoted as small models quote."""
    d = next((d for d in ("<|#|>", "<|>") if d in line), None)
    if d is None:
        return line
    head, *fields = line.split(d)
    name = fields[0].strip().strip('"') if fields else ""
    if len(fields) < 2 or not name or '"' in name:  # a name quoted already is left as it is
        return line
    return d.join([head, _quoted_name(name, rng), *fields[1:]])


def quote_garbled_answer(answer: str, share: float, rng: random.Random) -> str:
    """``answer`` with about ``share`` of its lines' first names quoted as small models quote them."""
    return "\n".join(quote_garbled_line(line, rng) if rng.random() < share else line for line in answer.split("\n"))
