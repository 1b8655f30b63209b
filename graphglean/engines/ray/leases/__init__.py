"""One rate limit for every worker of a cluster: request and token permits leased in batches.

`LeaseBucket` holds the global request and token buckets; on Ray it lives in one named actor. Each worker's
`LeasedRateLimiter` (the `RateLimiter` interface the `ChatClient` calls) spends permits from a stock it leases
from the bucket: the first lease fills the stock to a batch plus a spare quarter, and each later one, asked for
when only the spare is left, adds a batch. So a worker asks again only once it has spent a batch, never because
time passed: leases follow calls (at most calls / batch plus one per holder), and the next lease is on its way
while the spare is spent, so callers seldom wait on the round trip.

How large a batch (`batch`): at least a quarter second of the worker's share; grown so that the round trip the
worker measures (until the reply is in its process) costs each permit at most 0.5 ms, up to a batch and spare of
the worker's share of one second; and, while the rate binds and no task is coming, to no more than the callers
waiting then (a last lease a task ends without spending is lost, and delayed those who reserved after it).
While the rate binds, the next lease is asked for with nothing left (no spare) and only by a caller short: it
waits on the rate anyway, and the bucket hears of every spend with it.

Schedules (`pace`): callers enough for a least batch ask for a permit each in one lease; what the bank lacks
comes as a schedule the refill earns one permit after the other, each spent within EXPIRY_S of being earned or
void, so it cannot be saved up for a burst and needs no room in the bank's one second (which cuts a stock to
a worker's share of it).

Between tasks (`holding`): a process keeps its stock for its next task. The driver tells the bucket when the
last task of a stage is submitted; while the rate binds, a task ending after that gives back what it has in
hand (one awaited round trip, so the process and the bucket agree), and what processes between tasks kept
goes back too (each learns it at its next task's first call), so no permit idles at a stage's tail; while it
does not bind, they keep it for a later stage.

Why no burst gets through: the bucket counts what every holder still holds (each lease reports it) against
its one second of banked permits, ``level + held <= capacity``. Whatever the workers spend in a second is then
at most what they held plus what was banked, plus a second of refill: the rate plus one second's burst, however
long permits were held. When the bucket is short, a lease is a reservation: the permits are granted at once
and usable after the wait the bucket needs to earn them, so a lease always takes one round trip. That wait
assumes the refill goes on, so the bucket grants nothing beyond ``capacity - held`` (reservations included:
past it the refill would stop short of them), and a reservation given up before it is usable is lost, not
given back (those granted after it were timed after it).

A holder silent for `STALE_S` (a killed worker) is forgotten, and a worker drops a stock whose last report is
that old, so dead workers do not shrink the bank; a live worker with an idle stock reports it now and then. A
429 anywhere pauses the bucket: every worker learns it with its next lease and drops what it holds; a worker
whose schedule serves its callers asks every LEASE_S meanwhile (with no rate configured, a task asks every
REPORT_S, and every LEASE_S once a pause was seen there or anywhere). The learned rate and retries stay per
worker (its own `RateLimiter`).
"""

from .batch import LEASE_S, BatchSize, spare
from .bucket import STALE_S, Lease, LeaseBucket
from .holding import Holding, process_holding
from .limiter import REPORT_S, LeasedRateLimiter
from .pace import EXPIRY_S, PACE_S, Pace
from .ray_wait import ray_result

__all__ = ["EXPIRY_S", "LEASE_S", "PACE_S", "REPORT_S", "STALE_S", "BatchSize", "Holding", "Lease", "LeaseBucket",
           "LeasedRateLimiter", "Pace", "process_holding", "ray_result", "spare"]
