"""The end-of-run report: per pass calls, cache hits, retries, 429s, tokens, estimated cost, time, errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..llm.accounting import CallAccount

if TYPE_CHECKING:
    from .context import PassOutcome, RunContext

#: USD per 1M tokens (input, output, cached input: prompt tokens the endpoint served from its prompt cache).
#: Override or extend with ``prices:`` in the configuration.
DEFAULT_PRICES = {
    "gpt-4o-mini": (0.15, 0.60, 0.075), "gpt-4o": (2.50, 10.0, 1.25), "gpt-4.1": (2.0, 8.0, 0.50),
    "gpt-4.1-mini": (0.40, 1.60, 0.10), "gpt-4.1-nano": (0.10, 0.40, 0.025), "o3-mini": (1.10, 4.40, 0.55),
    "o4-mini": (1.10, 4.40, 0.275), "gpt-4-turbo": (10.0, 30.0, 10.0), "gpt-4": (30.0, 60.0, 30.0),
    "gpt-3.5-turbo": (0.50, 1.50, 0.50), "text-embedding-3-small": (0.02, 0.0, 0.02),
    "text-embedding-3-large": (0.13, 0.0, 0.13),
}


def price_of(model: str, prices: dict[str, Any]) -> tuple[float, float, float] | None:
    """(input, output, cached input) USD per 1M tokens: the configured ``prices`` (cached input at the input
    price unless given), else the defaults."""
    if model in prices:
        p = prices[model]
        return (p.input, p.output, p.input if p.cached_input is None else p.cached_input)
    for name in sorted(DEFAULT_PRICES, key=len, reverse=True):  # dated variants: gpt-4o-mini-2024-07-18
        if model == name or model.startswith(name + "-"):
            return DEFAULT_PRICES[name]
    return None


def batch_price_of(model: str, prices: dict[str, Any]) -> tuple[float, float] | None:
    """USD per 1M tokens sent in batches: ``prices``' batch_input/batch_output, else half the online price (what
    OpenAI and Azure OpenAI charge)."""
    price = price_of(model, prices)
    if price is None:
        return None
    own = prices.get(model)
    half_in, half_out = price[0] / 2, price[1] / 2
    if own is None:
        return half_in, half_out
    return (half_in if own.batch_input is None else own.batch_input,
            half_out if own.batch_output is None else own.batch_output)


def cost(account: CallAccount, model: str, prices: dict[str, Any], online: bool = False) -> float | None:
    """What ``account``'s tokens cost: cached prompt tokens at the cached rate, those of batches at the batch
    price (``online``: as if the batches' tokens were sent online)."""
    price, batch = price_of(model, prices), batch_price_of(model, prices)
    if price is None or batch is None:
        return None
    if online:
        batch = price[:2]
    batch_in, batch_out = account.batch_prompt_tokens, account.batch_completion_tokens
    fresh_in = account.prompt_tokens - batch_in - account.cached_tokens  # online and not from the prompt cache
    usd = (fresh_in * price[0] + account.cached_tokens * price[2] + (account.completion_tokens - batch_out) * price[1]
           + batch_in * batch[0] + batch_out * batch[1])
    return round(usd / 1e6, 6)


def with_cached_share(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with ``cached_share``: the part of its prompt tokens served from the endpoint's prompt cache."""
    prompt = row.get("prompt_tokens") or 0
    row["cached_share"] = round((row.get("cached_tokens") or 0) / prompt, 3) if prompt else 0.0
    return row


def pass_row(name: str, account: CallAccount, cost_usd: float | None, wall_s: float, errors: int,
             extra: dict[str, Any] | None = None) -> dict[str, Any]:
    row = with_cached_share({"pass": name, **account.snapshot(), "cost_usd": cost_usd,
                             "wall_s": round(wall_s, 3), "errors": errors})
    row.update({k: v for k, v in (extra or {}).items() if k not in row})  # a pass's stats never hide its calls
    return row


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.0%}" if key == "cached_share" and isinstance(value, (int, float)) else str(value)


def format_table(rows: list[dict[str, Any]]) -> str:
    cols = [("pass", "pass"), ("calls", "calls"), ("cache_hits", "cached"), ("retries", "retries"),
            ("rate_limited", "429s"), ("prompt_tokens", "tokens in"), ("cached_share", "in from prompt cache"),
            ("completion_tokens", "tokens out"), ("cost_usd", "cost $"), ("wall_s", "wall s"), ("errors", "errors")]
    if any(r.get("batch_calls") for r in rows):  # batch mode: calls online and in batches, and the online price
        rows = [dict(r, online_calls=r.get("calls", 0) - r.get("batch_calls", 0)) for r in rows]
        cols[1:2] = [("online_calls", "online"), ("batch_calls", "batch")]
        cols.insert(9, ("cost_online_usd", "online $"))
    cells = [[h for _, h in cols]] + [[_cell(k, r.get(k, "")) for k, _ in cols] for r in rows]
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
        account, costs, online = CallAccount(), [], []
        for name, acc in accounts.items():
            if name == o.name or name.startswith(o.name + "."):
                account.add(acc)
                model = ctx.cfg.llm.embedding_model if name.endswith(".embed") else ctx.cfg.llm.model
                costs.append(cost(acc, model, ctx.cfg.prices))
                online.append(cost(acc, model, ctx.cfg.prices, online=True))
        total = None if None in costs else round(sum(costs), 6)  # type: ignore[arg-type]
        row = pass_row(o.name, account, total, o.wall_s, len(o.failed), o.extra)
        if account.batch_calls:  # what the same tokens would have cost online
            row["cost_online_usd"] = None if None in online else round(sum(online), 6)  # type: ignore[arg-type]
        rows.append(row)
    return {"passes": rows, "wall_s": round(wall_s, 3), "chunks": len(ctx.chunks),
            "documents": len(ctx.inputs.documents), "lone_surrogates": ctx.inputs.repairs.lone_surrogates,
            "model": ctx.cfg.llm.model,
            "failed": [dict(f, **{"pass": o.name}) for o in outcomes for f in o.failed],
            "outputs": [f for o in outcomes for f in o.files],
            "warnings": [w for o in outcomes for w in o.warnings],
            "prices_known": ctx.cfg.llm.model in ctx.cfg.prices or price_of(ctx.cfg.llm.model, {}) is not None,
            "default_prices": {k: list(v) for k, v in DEFAULT_PRICES.items()},
            **({"llm": ctx.scheduler.client.server.summary(ctx.scheduler.client.usage_counted)} if ctx.scheduler
               else {})}
