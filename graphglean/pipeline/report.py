"""The end-of-run report: per pass calls, cache hits, retries, 429s, tokens, estimated cost, time, errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..llm.accounting import CallAccount

if TYPE_CHECKING:
    from .context import PassOutcome, RunContext

#: USD per 1M tokens (input, output). Override or extend with ``prices:`` in the configuration.
DEFAULT_PRICES = {
    "gpt-4o-mini": (0.15, 0.60), "gpt-4o": (2.50, 10.0), "gpt-4.1": (2.0, 8.0), "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40), "o3-mini": (1.10, 4.40), "o4-mini": (1.10, 4.40), "gpt-4-turbo": (10.0, 30.0), "gpt-4": (30.0, 60.0),
    "gpt-3.5-turbo": (0.50, 1.50), "text-embedding-3-small": (0.02, 0.0), "text-embedding-3-large": (0.13, 0.0),
}


def price_of(model: str, prices: dict[str, Any]) -> tuple[float, float] | None:
    if model in prices:
        p = prices[model]
        return (p.input, p.output)
    for name in sorted(DEFAULT_PRICES, key=len, reverse=True):  # dated variants: gpt-4o-mini-2024-07-18
        if model == name or model.startswith(name + "-"):
            return DEFAULT_PRICES[name]
    return None


def cost(account: CallAccount, model: str, prices: dict[str, Any]) -> float | None:
    price = price_of(model, prices)
    if price is None:
        return None
    return round((account.prompt_tokens * price[0] + account.completion_tokens * price[1]) / 1e6, 6)


def pass_row(name: str, account: CallAccount, cost_usd: float | None, wall_s: float, errors: int,
             extra: dict[str, Any] | None = None) -> dict[str, Any]:
    row = {"pass": name, **account.snapshot(), "cost_usd": cost_usd,
           "wall_s": round(wall_s, 3), "errors": errors}
    row.update({k: v for k, v in (extra or {}).items() if k not in row})  # a pass's stats never hide its calls
    return row


def format_table(rows: list[dict[str, Any]]) -> str:
    cols = [("pass", "pass"), ("calls", "calls"), ("cache_hits", "cached"), ("retries", "retries"),
            ("rate_limited", "429s"), ("prompt_tokens", "tokens in"), ("completion_tokens", "tokens out"),
            ("cost_usd", "cost $"), ("wall_s", "wall s"), ("errors", "errors")]
    cells = [[h for _, h in cols]] + [["-" if r.get(k) is None else str(r.get(k, "")) for k, _ in cols] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def run_report(ctx: RunContext, outcomes: list[PassOutcome], wall_s: float) -> dict[str, Any]:
    """report.json of a run: a row per pass (its accounts folded in), chunks, failures, outputs, prices."""
    rows = []
    accounts = ctx.scheduler.accounts if ctx.scheduler else {}
    for o in outcomes:
        account, costs = CallAccount(), []
        for name, acc in accounts.items():
            if name == o.name or name.startswith(o.name + "."):
                account.add(acc)
                model = ctx.cfg.llm.embedding_model if name.endswith(".embed") else ctx.cfg.llm.model
                costs.append(cost(acc, model, ctx.cfg.prices))
        total = None if None in costs else round(sum(costs), 6)  # type: ignore[arg-type]
        rows.append(pass_row(o.name, account, total, o.wall_s, len(o.failed), o.extra))
    return {"passes": rows, "wall_s": round(wall_s, 3), "chunks": len(ctx.chunks),
            "documents": len(ctx.inputs.documents), "model": ctx.cfg.llm.model,
            "failed": [dict(f, **{"pass": o.name}) for o in outcomes for f in o.failed],
            "outputs": [f for o in outcomes for f in o.files],
            "warnings": [w for o in outcomes for w in o.warnings],
            "prices_known": ctx.cfg.llm.model in ctx.cfg.prices or price_of(ctx.cfg.llm.model, {}) is not None,
            "default_prices": {k: list(v) for k, v in DEFAULT_PRICES.items()},
            **({"llm": ctx.scheduler.client.server.summary(ctx.scheduler.client.usage_counted)} if ctx.scheduler
               else {})}
