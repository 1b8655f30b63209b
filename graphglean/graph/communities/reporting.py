"""`report_communities`: an LLM report for every community of at least ``min_report_size`` entities, on the
run's scheduler (counted, cached, priced, concurrent with the other passes).

    reports = await report_communities(graph, communities, config)       # under trio
    reports = report_communities_sync(graph, communities, config)        # anywhere

A report is kept by its community's fingerprint (`ReportMemo`, the run store in a run): while a community's
members, descriptions and relationships are unchanged, its report is reused with no call. Deeper communities
start first; a community whose members do not fit in ``report_max_input_tokens`` waits for its children's
reports and is written from them. An answer no report can be read from is asked again once; a second one
fails that community alone."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import attrs
import networkx as nx
import trio

from ...core.config import CommunitiesConfig, Config
from ...core.errors import LLMRequestError
from ...core.prompts import load_template, render
from ...core.sync import entry_point, run_sync
from ...core.tokens import Tokenizer
from ...scheduling.scheduler import PassLLM, Scheduler
from .context import ReportContext, build_context, fits_whole, members_of
from .reading import NotAReport, holds_report, read_report
from .records import Communities, Community, CommunityReport

PASS = "graph.communities"
TEMPLATE = "community_report"
REPORT_MAX_TOKENS = 2000  # an answer's cap: GraphRAG's report length; a longer answer is read up to its cut
_AGAIN = ("That answer was not the JSON report asked for ({error}). Answer again with only the JSON object: "
          '{"title": ..., "summary": ..., "rating": ..., "rating_explanation": ..., "findings": [...]}.')


@attrs.define
class ReportStats:
    communities: int = 0
    levels: int = 0
    reportable: int = 0  # communities of min_report_size entities or more
    made: int = 0  # reports an LLM call wrote in this run
    cached: int = 0  # reports reused: unchanged since an earlier run, or answered by the response cache
    failed: int = 0  # no report could be read from the answer, even when asked again (or the call failed)
    too_small: int = 0  # communities below min_report_size: no report, no call
    asked_again: int = 0  # answers that were not a report, asked once more
    dropped_references: int = 0  # cited ids or names the community does not hold
    cut: int = 0  # answers cut at the token cap, read up to their last complete part
    context_tokens: int = 0  # tokens of the contexts of the reports made


@attrs.define
class CommunityReports:
    reports: dict[int, CommunityReport] = attrs.field(factory=dict)  # by community id
    failed: dict[int, str] = attrs.field(factory=dict)  # community id -> why
    stats: ReportStats = attrs.field(factory=ReportStats)

    def ordered(self) -> list[CommunityReport]:
        return sorted(self.reports.values(), key=lambda r: (r.level, r.community))


@attrs.define
class ReportMemo:
    """Reports kept across runs by `report_key`; ``save`` is awaited as each is made."""

    done: dict[str, Any] = attrs.field(factory=dict)
    save: Callable[[str, Any], Awaitable[None]] | None = None

    async def keep(self, key: str, report: CommunityReport) -> None:
        self.done[key] = report.to_json()
        if self.save is not None:
            with trio.CancelScope(shield=True):  # a paid report is always kept
                await self.save(key, self.done[key])


def report_key(community: Community, cc: CommunitiesConfig) -> str:
    """What a report depends on beyond the prompt and model (the memo's pass fingerprint): its community's
    content and the settings that shape its context."""
    return f"{community.fingerprint}:{cc.report_max_input_tokens}:{cc.min_report_size}"


def prompt_parts(cfg: Config) -> tuple[Any, ...]:
    """What shapes every report's answer besides its context: for the memo's fingerprint."""
    return (load_template(TEMPLATE), cfg.graph.language, REPORT_MAX_TOKENS, cfg.llm.json_mode)


def report_call_bound(entities: int, cc: CommunitiesConfig) -> tuple[int, int]:
    """The most report calls a graph of ``entities`` nodes can take, and how many levels that assumes: each
    level's communities are disjoint, so at most ``entities // min_report_size`` of them get a report; with
    ``levels`` 0, each level below the first is taken to at least halve the communities it splits."""
    levels = cc.levels
    if not levels:
        levels, size = 1, entities
        while size > cc.max_cluster_size:
            levels, size = levels + 1, size // 2
    return levels * (entities // cc.min_report_size), levels


class Reporter:
    """Asks for one report and reads it; a non-report is asked again once, in the same conversation."""

    def __init__(self, llm: PassLLM, cfg: Config, stats: ReportStats) -> None:
        self.llm, self.stats = llm, stats
        self.template, self.language = load_template(TEMPLATE), cfg.graph.language
        self.json_mode = cfg.llm.json_mode

    def prompt(self, ctx: ReportContext) -> str:
        return render(self.template, language=self.language, context=ctx.text)

    async def ask(self, ctx: ReportContext, community: Community) -> CommunityReport:
        messages = [{"role": "user", "content": self.prompt(ctx)}]
        for attempt in range(2):
            result = await self._chat(messages)
            try:
                report = read_report(result.text, ctx, community.id, community.level, result.finish_reason == "length")
            except NotAReport as e:
                if attempt:
                    raise
                self.stats.asked_again += 1
                messages += [{"role": "assistant", "content": result.text},
                             {"role": "user", "content": render(_AGAIN, error=str(e)[:200])}]
                continue
            if result.cached:
                self.stats.cached += 1
            else:
                self.stats.made += 1
                self.stats.context_tokens += ctx.tokens
            self.stats.dropped_references += report.dropped_references
            self.stats.cut += report.cut
            return report
        raise AssertionError("unreachable")

    async def _chat(self, messages: list[dict[str, str]]) -> Any:
        fmt = {"type": "json_object"} if self.json_mode else None
        request = self.llm.request(messages, max_tokens=REPORT_MAX_TOKENS, response_format=fmt, valid=holds_report)
        try:
            return await self.llm.chat(request)
        except LLMRequestError as e:
            if fmt is None or not e.is_about("response_format"):
                raise
            self.json_mode = False  # the endpoint does not take response_format: remember, ask plainly
            return await self.llm.chat(self.llm.request(messages, max_tokens=REPORT_MAX_TOKENS, valid=holds_report))


@entry_point
async def report_communities(graph: nx.Graph, communities: Communities, config: Config | None = None,
                             scheduler: Scheduler | None = None, *, memo: ReportMemo | None = None,
                             tokenizer: Tokenizer | None = None) -> CommunityReports:
    """A report for each community of ``communities`` (from `find_communities` on ``graph``) with at least
    ``config.graph.communities.min_report_size`` entities. Without a ``scheduler`` one is made from
    ``config.llm`` for this call; ``memo`` holds reports of earlier runs (reused while their community is
    unchanged)."""
    cfg = config or Config()
    tokenizer = tokenizer or Tokenizer(cfg.llm.model)
    if scheduler is None:
        from ...llm.client import ChatClient

        async with ChatClient.from_config(cfg.llm, cfg.output.dir, count_tokens=tokenizer.count) as client:
            return await _report(graph, communities, cfg, Scheduler(client, fail_fast=cfg.fail_fast), memo, tokenizer)
    return await _report(graph, communities, cfg, scheduler, memo, tokenizer)


async def _report(graph: nx.Graph, communities: Communities, cfg: Config, scheduler: Scheduler,
                  memo: ReportMemo | None, tokenizer: Tokenizer) -> CommunityReports:
    cc = cfg.graph.communities
    memo = memo or ReportMemo()
    out = CommunityReports()
    stats = out.stats
    stats.communities, stats.levels = len(communities.items), communities.levels
    wanted = [c for c in communities.items if c.size >= cc.min_report_size]
    stats.reportable, stats.too_small = len(wanted), stats.communities - len(wanted)
    by_id = communities.by_id()
    finished = {c.id: trio.Event() for c in wanted}
    reporter = Reporter(scheduler.llm(PASS), cfg, stats)
    count, budget = tokenizer.count, cc.report_max_input_tokens

    async def one(c: Community) -> CommunityReport:
        try:
            stored = memo.done.get(report_key(c, cc))
            if stored is not None:
                stats.cached += 1
                report = out.reports[c.id] = attrs.evolve(CommunityReport.from_json(stored), community=c.id,
                                                           level=c.level)
                return report
            members = await trio.to_thread.run_sync(members_of, graph, c, count, abandon_on_cancel=True)
            children = []
            if not fits_whole(members, budget, count):
                kids = [by_id[k] for k in c.children if k in finished]
                for kid in kids:
                    await finished[kid.id].wait()
                children = [(kid, out.reports[kid.id]) for kid in kids if kid.id in out.reports]
            ctx = await trio.to_thread.run_sync(build_context, members, budget, count, children,
                                                abandon_on_cancel=True)
            report = out.reports[c.id] = await reporter.ask(ctx, c)
            await memo.keep(report_key(c, cc), report)
            return report
        finally:
            finished[c.id].set()

    # deeper communities start first: a parent may wait for its children, never the other way round
    outcomes = await scheduler.map(one, wanted, pass_name=PASS, weight=lambda c: float(c.level + 1))
    for o in outcomes:
        if not o.ok:
            out.failed[o.item.id] = " ".join(str(o.error).split())[:300] or type(o.error).__name__
    stats.failed = len(out.failed)
    return out


async def ask_reports(scheduler: Scheduler, cfg: Config, jobs: list[tuple[Community, ReportContext]],
                      keep: Callable[[Community, CommunityReport], Awaitable[None]] | None = None,
                      ) -> tuple[list[tuple[int, dict[str, Any]]], dict[int, str], dict[str, int]]:
    """Reports of prepared contexts (the Ray engine's tasks, a level at a time): each community's report as
    JSON, the communities that failed and why, and the counts of `ReportStats`; ``keep`` is awaited with each
    report as it is made."""
    stats = ReportStats()
    reporter = Reporter(scheduler.llm(PASS), cfg, stats)

    async def one(job: tuple[Community, ReportContext]) -> CommunityReport:
        report = await reporter.ask(job[1], job[0])
        if keep is not None:
            with trio.CancelScope(shield=True):  # a paid report is always kept
                await keep(job[0], report)
        return report

    outcomes = await scheduler.map(one, jobs, pass_name=PASS)
    done = [(o.item[0].id, o.value.to_json()) for o in outcomes if o.ok and o.value is not None]
    failed = {o.item[0].id: " ".join(str(o.error).split())[:300] or type(o.error).__name__
              for o in outcomes if not o.ok}
    return done, failed, attrs.asdict(stats)


def report_communities_sync(graph: nx.Graph, communities: Communities, config: Config | None = None,
                            **kw: Any) -> CommunityReports:
    """`report_communities` from synchronous code, including a Jupyter cell where an asyncio loop is running."""
    return run_sync(report_communities, graph, communities, config, **kw)
