"""The end-of-run report: per pass calls, cache hits, retries, 429s, tokens, estimated cost, time, errors; and
the whole run's totals (every invocation: resumed, ``--detach`` cycles) beside this invocation's."""

from __future__ import annotations

import json
import re
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable

import trio

from .. import __version__
from ..core.atomic import write_text
from ..core.errors import GraphgleanError, leaves, primary
from ..llm.accounting import CallAccount
from ..llm.batch.waves import Detached
from ..llm.credentials import redact_data
from .runstore import Invocations, now_iso

if TYPE_CHECKING:
    from ..core.config import Config
    from .context import PassOutcome, RunContext

#: the counts of a `CallAccount` the run store keeps of each account of an invocation
COUNTS = ("calls", "requests", "retries", "cache_hits", "rate_limited", "failures", "prompt_tokens",
          "completion_tokens", "batch_calls", "batch_prompt_tokens", "batch_completion_tokens", "cached_tokens")
#: what report.json's ``totals`` and ``invocation`` sum (with ``online_calls``, ``tokens`` and ``cost_usd``)
SECTION_COUNTS = ("calls", "batch_calls", "cache_hits", "retries", "rate_limited", "failures", "prompt_tokens",
                  "completion_tokens", "cached_tokens")

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


def usd(value: float | None, decimals: int = 6) -> str:
    """A cost in dollars with fixed decimals (never ``5e-05`` beside ``0.0``); ``-`` when the price is unknown."""
    return "-" if value is None else f"{value:.{decimals}f}"


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if key == "cached_share":
            return f"{value:.0%}"
        if key.startswith("cost"):
            return usd(value)
        if key == "wall_s":
            return f"{value:.2f}"
    return str(value)


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


def model_of(account_name: str, cfg: Config) -> str:
    """The model an account's calls went to: the embedding model's for ``*.embed`` accounts."""
    return cfg.llm.embedding_model if account_name.endswith(".embed") else cfg.llm.model


def _usd(account: CallAccount, model: str, prices: dict[str, Any], online: bool = False) -> float | None:
    """`cost`, and 0 for an account with no token (whatever the price: nothing was paid)."""
    if not (account.prompt_tokens or account.completion_tokens):
        return 0.0
    return cost(account, model, prices, online)


def account_rows(accounts: dict[str, CallAccount], cfg: Config) -> dict[str, dict[str, Any]]:
    """Each account's counts and what its tokens cost (``cost_online_usd``: had its batches gone online): what
    the run store keeps of an invocation."""
    rows = {}
    for name, acc in sorted(accounts.items()):
        model = model_of(name, cfg)
        rows[name] = {**{k: getattr(acc, k) for k in COUNTS}, "cost_usd": _usd(acc, model, cfg.prices),
                      "cost_online_usd": _usd(acc, model, cfg.prices, online=True)}
    return rows


def _sum_cost(rows: list[dict[str, Any]], key: str) -> float | None:
    costs = [r.get(key) for r in rows]
    return None if None in costs else round(sum(costs), 6)  # type: ignore[arg-type]


def calls_section(runs: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """The calls, tokens and cost of one or more invocations' accounts (account name -> `account_rows` row):
    summed, and per pass (an account's first name: ``graph.resolve`` is the graph pass's)."""
    by_pass: dict[str, list[dict[str, Any]]] = {}
    for accounts in runs:
        for name, row in accounts.items():
            by_pass.setdefault(name.split(".")[0], []).append(row)

    def summed(rows: list[dict[str, Any]]) -> dict[str, Any]:
        out = {k: sum(r.get(k, 0) for r in rows) for k in SECTION_COUNTS}
        out["online_calls"] = out["calls"] - out["batch_calls"]
        out["tokens"] = out["prompt_tokens"] + out["completion_tokens"]
        out["cost_usd"] = _sum_cost(rows, "cost_usd")
        if out["batch_calls"]:
            out["cost_online_usd"] = _sum_cost(rows, "cost_online_usd")
        return out

    passes = [{"pass": name, **summed(rows)} for name, rows in by_pass.items()]
    return {**summed([r for rows in by_pass.values() for r in rows]), "passes": passes}


def whole_run(invocations: list[dict[str, Any]], current: int | None, accounts: dict[str, dict[str, Any]],
              started: str, wall_s: float) -> dict[str, Any]:
    """report.json's view of the whole run beside this invocation's: ``started`` (the first invocation's
    start), ``finished`` (the last one's end: now), ``totals`` over every invocation (``invocations`` as the
    run store keeps them, the one whose id is ``current`` counted by its ``accounts``) and ``invocation``."""
    earlier = [i for i in invocations if i["id"] != current]
    runs = [i["accounts"] for i in earlier] + [accounts]
    finished = now_iso()
    return {"started": earlier[0]["started"] if earlier else started, "finished": finished,
            "totals": {"invocations": len(runs), **calls_section(runs)},
            "invocation": {"started": started, "finished": finished, "wall_s": round(wall_s, 3),
                           **calls_section([accounts])}}


def write_report(out_dir: Path, report: dict[str, Any]) -> None:
    """report.json, with no credential in it; a lone surrogate (a file name that is no UTF-8, a server's
    message) written as U+FFFD, never the reason the report is not written."""
    text = json.dumps(redact_data(report), indent=1, ensure_ascii=False) + "\n"
    write_text(out_dir / "report.json", _SURROGATES.sub("\ufffd", text))


_SURROGATES = re.compile("[\ud800-\udfff]")


def report_stopped(out_dir: Path, error: BaseException, whole: dict[str, Any]) -> None:
    """report.json of an invocation that ``error`` stopped (an interrupt, an endpoint lost, a bug): the run's
    totals and this invocation's so far, and why it stopped; the same command continues. Never raises: the
    error that stopped the run is the one to hear about."""
    leaf = primary(error)
    if all(isinstance(e, Detached) for e in leaves(error)):  # batch mode's --detach: batches left in flight
        why = "detached"
    elif isinstance(leaf, KeyboardInterrupt):
        why = "interrupted (Ctrl-C or a signal): the same command continues"
    elif isinstance(leaf, trio.Cancelled):
        why = "cancelled by its caller: the same command continues"
    else:
        said = str(leaf) if isinstance(leaf, GraphgleanError) else f"{type(leaf).__name__}: {leaf}"
        why = f"stopped: {said}"
    try:
        said = {"detached": str(leaf)} if why == "detached" else {"stopped": why}
        write_report(out_dir, {"version": __version__, **said, **whole, "passes": []})
    except Exception:  # noqa: BLE001 (the run's own error is the one to hear about, whatever this one is)
        pass


@asynccontextmanager
async def accounts_kept(book: Invocations, accounts: Callable[[], dict[str, dict[str, Any]]],
                        every_s: float = 1.0) -> AsyncIterator[None]:
    """While the body runs, this invocation's ``accounts()`` (`account_rows`) go to the run store every
    ``every_s`` when they changed, with the store's other writes: a killed run's calls still count."""
    t0 = trio.current_time()

    async def keep() -> None:
        last = None
        while True:
            await trio.sleep(every_s)
            rows = accounts()
            if rows != last:
                last = rows
                with trio.CancelScope(shield=True):  # a write begun is finished, not torn by the run's end
                    await book.record(rows, trio.current_time() - t0)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(keep)
        try:
            yield
        finally:
            nursery.cancel_scope.cancel()


def run_report(ctx: RunContext, outcomes: list[PassOutcome], wall_s: float,
               whole: dict[str, Any] | None = None) -> dict[str, Any]:
    """report.json of a run: a row per pass (its accounts folded in), chunks, failures, outputs, and ``whole``
    (`whole_run`: the run's totals and this invocation's); the model and prices when a pass called one."""
    rows = []
    accounts = ctx.scheduler.accounts if ctx.scheduler else {}
    costed = account_rows(accounts, ctx.cfg)
    for o in outcomes:
        account, mine = CallAccount(), []
        for name, acc in accounts.items():
            if name == o.name or name.startswith(o.name + "."):
                account.add(acc)
                mine.append(costed[name])
        row = pass_row(o.name, account, _sum_cost(mine, "cost_usd"), o.wall_s, len(o.failed), o.extra)
        if account.batch_calls:  # what the same tokens would have cost online
            row["cost_online_usd"] = _sum_cost(mine, "cost_online_usd")
        rows.append(row)
    report = {"version": __version__, **(whole or {}), "passes": rows, "wall_s": round(wall_s, 3),
              "chunks": len(ctx.chunks), "documents": len(ctx.inputs.documents),
              "lone_surrogates": ctx.inputs.repairs.lone_surrogates,
              "failed": [dict(f, **{"pass": o.name}) for o in outcomes for f in o.failed],
              "outputs": [f for o in outcomes for f in o.files],
              "skipped": ctx.inputs.notes.skipped_rows(),  # files of an input folder not read, with why
              "warnings": ctx.inputs.notes.warnings + [w for o in outcomes for w in o.warnings]}
    report.update(model_fields(ctx.cfg, whole["totals"] if whole else calls_section([costed])))
    if ctx.scheduler:
        report["llm"] = ctx.scheduler.client.server.summary(ctx.scheduler.client.usage_counted)
    return report


def model_fields(cfg: Config, totals: dict[str, Any]) -> dict[str, Any]:
    """``model``, ``prices_known`` and the price table, when a pass of the run called a model (answered or
    from the cache); nothing for a run that asked none (the offline method)."""
    if not (totals.get("calls") or totals.get("cache_hits")):
        return {}
    return {"model": cfg.llm.model,
            "prices_known": cfg.llm.model in cfg.prices or price_of(cfg.llm.model, {}) is not None,
            "default_prices": {k: list(v) for k, v in DEFAULT_PRICES.items()}}
