"""What a rule answers about two nodes: SAME (the rules may merge), DIFFERENT (never merge, and never let a
cluster join the two), UNSURE (a question for the LLM tier) or NONE (no evidence either way)."""

from __future__ import annotations

import attrs

SAME, DIFFERENT, UNSURE, NONE = "same", "different", "unsure", "none"


@attrs.frozen
class Verdict:
    kind: str
    score: float = 0.0  # orders the merges; not a probability
    rule: str = ""
    doubt: bool = False  # an UNSURE the rules saw evidence against: no rule cluster may hold both nodes
    certain: bool = False  # a SAME the names alone decide: a description naming the other cannot overrule it
    reading: bool = False  # an UNSURE where one name reads as the other ("Smith", "John Smith"): it counts
    # among the name's readings, so that a name of several is merged with none (`Resolver.rule_links`)


NO_EVIDENCE = Verdict(NONE)


def doubtful(score: float, rule: str) -> Verdict:
    """UNSURE with evidence against: the LLM may still merge the two, the rules never put them in one cluster."""
    return Verdict(UNSURE, score, rule, doubt=True)


def rank(v: Verdict) -> tuple[int, float]:
    return ({SAME: 3, UNSURE: 2, NONE: 0}.get(v.kind, 0), v.score)
