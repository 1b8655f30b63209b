"""Blocking calls queued while one runs go together in the next trip (group commit for SQLite)."""

from __future__ import annotations

import sqlite3
import threading

import pytest
import trio
import trio.testing

from graphglean.core.batched import Batched
from graphglean.llm.cache import ResponseCache
from graphglean.pipeline.runstore import RunStore


def _doubling(trips: list[list[int]], gate: threading.Event | None = None):
    def run(items: list[int]) -> list[int]:
        if gate is not None:
            gate.wait(5)
        trips.append(list(items))
        return [2 * i for i in items]
    return run


async def _twenty_callers(batched: Batched, meanwhile=None) -> dict[int, list[int]]:
    """What 20 concurrent callers got, each for its own two items (``meanwhile`` runs once they started)."""
    got: dict[int, list[int]] = {}

    async def call(k: int) -> None:
        got[k] = list(await batched([k, k + 100]))

    async with trio.open_nursery() as nursery:
        for k in range(20):
            nursery.start_soon(call, k)
        if meanwhile is not None:
            await meanwhile()
    return got


async def test_callers_queued_behind_a_trip_share_the_next_and_each_gets_its_own_results():
    trips: list[list[int]] = []
    gate = threading.Event()
    batched = Batched(_doubling(trips, gate), trio.CapacityLimiter(1))

    async def release() -> None:
        await trio.sleep(0.05)  # a trip in its thread is held while the others queue up
        gate.set()

    assert await _twenty_callers(batched, release) == {k: [2 * k, 2 * k + 200] for k in range(20)}
    assert len(trips) <= 2 and sorted(i for t in trips for i in t) == sorted([*range(20), *range(100, 120)])


THREAD_OR_INLINE = pytest.mark.parametrize("in_thread", [True, False], ids=["thread", "inline"])


def _limiter(in_thread: bool) -> trio.CapacityLimiter | None:
    return trio.CapacityLimiter(1) if in_thread else None


@THREAD_OR_INLINE
async def test_a_failed_trip_fails_every_caller_in_it_and_the_next_trip_runs_afresh(in_thread):
    calls = []

    def run(items: list[str]) -> list[str]:
        calls.append(items)
        if "bad" in items:
            raise sqlite3.OperationalError("disk I/O error")
        return items

    batched = Batched(run, _limiter(in_thread))
    errors = []

    async def call(item: str) -> None:
        try:
            await batched([item])
        except sqlite3.OperationalError as e:
            errors.append((item, str(e)))

    async with trio.open_nursery() as nursery:
        for item in ("bad", "ok1", "ok2"):
            nursery.start_soon(call, item)
    assert sorted(errors) == [(i, "disk I/O error") for i in ("bad", "ok1", "ok2")] or len(errors) == 1
    assert list(await batched(["later"])) == ["later"]


@THREAD_OR_INLINE
async def test_a_cancelled_caller_does_not_lose_the_items_of_others_in_its_trip(in_thread):
    trips: list[list[int]] = []
    batched = Batched(_doubling(trips), _limiter(in_thread))
    result: list[list[int]] = []
    async with trio.open_nursery() as nursery:
        async with batched._lock:  # hold the trips: both callers queue in one
            first = trio.CancelScope()
            nursery.start_soon(_cancelled_call, batched, first)
            await trio.sleep(0.01)
            first.cancel()  # the caller that would have made the trip gives up before it
            nursery.start_soon(_record, batched, result)
            await trio.sleep(0.01)
    assert result == [[6]] and trips == [[1, 3]]


async def _cancelled_call(batched, scope):
    with scope:
        await batched([1])


async def _record(batched, into):
    into.append(list(await batched([3])))


async def test_the_response_cache_and_run_store_write_concurrent_items_in_few_transactions(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    store = RunStore(tmp_path)
    commits: list[str] = []
    for db in (cache._connect(), store._db):
        db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    async with trio.open_nursery() as nursery:
        for k in range(200):
            nursery.start_soon(cache.put, f"k{k}", {"v": k})
            nursery.start_soon(store.save, "graph", f"item{k}", [k])
    assert 2 <= len(commits) <= 10  # 400 writes
    assert await cache.get_many([f"k{k}" for k in range(200)]) == [{"v": k} for k in range(200)]
    assert store.load("graph") == {f"item{k}": [k] for k in range(200)}
    cache.close()
    store.close()


@pytest.mark.parametrize("fail", [True])
async def test_a_refused_batched_write_is_warned_once_and_reported_to_each_caller(tmp_path, fail):
    cache = ResponseCache(tmp_path / "c.sqlite")
    await cache.put("k0", 1)
    cache._connect().execute("CREATE TRIGGER no BEFORE INSERT ON responses BEGIN SELECT RAISE(ABORT, 'refused'); END")
    results = []
    with pytest.warns(UserWarning, match="cannot store answers"):
        async with trio.open_nursery() as nursery:
            for k in range(5):
                nursery.start_soon(lambda k=k: _put(cache, k, results))
    assert results == [False] * 5 and cache.count() == 1
    cache.close()


async def _put(cache, k, into):
    into.append(await cache.put(f"x{k}", k))


class _Batches(trio.abc.Instrument):
    """Counts the scheduler's batches (one wait for I/O before each)."""

    def __init__(self) -> None:
        self.count = 0

    def before_io_wait(self, timeout: float) -> None:
        self.count += 1


async def test_the_callers_of_a_trip_resume_together_not_one_after_another():
    trips: list[list[int]] = []
    gate = threading.Event()
    batched = Batched(_doubling(trips, gate), trio.CapacityLimiter(1))
    batches = _Batches()
    done: list[int] = []

    async def call(k: int) -> None:
        await batched([k])
        done.append(k)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(call, -1)  # its trip holds the thread while the next 100 callers queue in one
        await trio.testing.wait_all_tasks_blocked()
        for k in range(100):
            nursery.start_soon(call, k)
        await trio.testing.wait_all_tasks_blocked()
        trio.lowlevel.add_instrument(batches)
        gate.set()
    trio.lowlevel.remove_instrument(batches)
    assert sorted(done) == list(range(-1, 100)) and len(trips) == 2
    assert batches.count < 20  # one after another, each caller took its own turn of the scheduler: 100+


@THREAD_OR_INLINE
async def test_a_leader_cancelled_before_its_trip_hands_it_to_the_other_callers(in_thread):
    trips: list[list[int]] = []
    batched = Batched(_doubling(trips), _limiter(in_thread))
    got: dict[int, list[int]] = {}

    async def call(k: int) -> None:
        got[k] = list(await batched([k]))

    async with trio.open_nursery() as nursery:
        async with batched._lock:  # the previous trip is still running
            leader = trio.CancelScope()
            nursery.start_soon(_cancelled_call, batched, leader)
            await trio.testing.wait_all_tasks_blocked()
            for k in (5, 6):
                nursery.start_soon(call, k)
            await trio.testing.wait_all_tasks_blocked()
            leader.cancel()
            await trio.testing.wait_all_tasks_blocked()
    assert got == {5: [10], 6: [12]} and [sorted(t) for t in trips] == [[1, 5, 6]]


def _selects(db: sqlite3.Connection) -> list[str]:
    seen: list[str] = []
    db.set_trace_callback(lambda sql: seen.append(sql) if sql.startswith("SELECT key") else None)
    return seen


async def test_a_journal_empty_at_first_use_answers_reads_of_keys_never_written_without_the_database(tmp_path):
    store = RunStore(tmp_path)
    journal = store.journal()
    assert await journal.get("k0") is None
    selects = _selects(journal._db)
    assert await journal.get_many([f"absent{k}" for k in range(50)]) == [None] * 50
    assert selects == []
    await journal.put("k1", {"v": 1})
    assert await journal.get_many(["k1", "absent0"]) == [{"v": 1}, None] and len(selects) == 1
    store.close()
    # a journal that holds answers at first use (a resumed run) reads the database for every key
    store = RunStore(tmp_path)
    journal = store.journal()
    assert await journal.get("k1") == {"v": 1}
    selects = _selects(journal._db)
    assert await journal.get("absent1") is None and len(selects) == 1
    store.clear_journal()  # emptied: nothing written since is asked of the database
    assert await journal.get("k1") is None and len(selects) == 1
    store.close()


async def test_a_shared_response_cache_still_reads_what_another_connection_wrote(tmp_path):
    mine, other = ResponseCache(tmp_path / "c.sqlite"), ResponseCache(tmp_path / "c.sqlite")
    assert await mine.get("k") is None  # empty at first use
    await other.put("k", {"v": 1})
    assert await mine.get("k") == {"v": 1}
    mine.close()
    other.close()


def test_the_written_keys_filter_never_says_no_to_a_key_it_was_given():
    from graphglean.llm.cache import _KeysWritten

    written = _KeysWritten()
    keys = [f"key-{k}" for k in range(20000)]
    for k in keys:
        written.add(k)
    assert all(k in written for k in keys)
    assert sum(f"other-{k}" in written for k in range(20000)) < 200  # "maybe" wrongly: rarely


async def test_inline_trips_run_in_the_trio_thread_and_take_every_caller_ready_meanwhile():
    threads: list[int] = []
    trips: list[list[int]] = []

    def run(items: list[int]) -> list[int]:
        threads.append(threading.get_ident())
        return _doubling(trips)(items)

    assert await _twenty_callers(Batched(run, None)) == {k: [2 * k, 2 * k + 200] for k in range(20)}
    assert len(trips) == 1 and set(threads) == {threading.get_ident()}


async def test_the_journal_and_the_run_store_share_the_store_connection_and_its_transactions(tmp_path):
    store = RunStore(tmp_path)
    journal = store.journal()
    statements: list[str] = []
    store._db.set_trace_callback(lambda sql: statements.append(sql.split()[0]))
    threads: set[int] = set()
    store._db.set_progress_handler(lambda: threads.add(threading.get_ident()), 1)
    async with trio.open_nursery() as nursery:
        for k in range(50):
            nursery.start_soon(journal.put, f"k{k}", {"v": k})
            nursery.start_soon(store.save, "graph", f"item{k}", [k])
    assert statements.count("INSERT") == 100  # the journal's rows too, on this connection
    assert statements.count("COMMIT") == 1 and statements.count("BEGIN") == 1  # in one transaction
    assert threads == {threading.get_ident()}  # in the trio thread
    journal.close()  # the journal does not close the store's connection
    assert store.load("graph") == {f"item{k}": [k] for k in range(50)}
    store.close()
    store = RunStore(tmp_path)  # all committed: a killed run's next start finds them
    assert await store.journal().get_many([f"k{k}" for k in range(50)]) == [{"v": k} for k in range(50)]
    assert store.load("graph") == {f"item{k}": [k] for k in range(50)}
    store.close()


async def test_a_refused_shared_transaction_reaches_the_journal_and_the_store_callers(tmp_path):
    store = RunStore(tmp_path)
    journal = store.journal()
    store._db.execute("CREATE TRIGGER no BEFORE INSERT ON results BEGIN SELECT RAISE(ABORT, 'refused'); END")
    kept, errors = [], []

    async def save() -> None:
        try:
            await store.save("graph", "item", [1])
        except sqlite3.Error as e:
            errors.append(str(e))

    with pytest.warns(UserWarning, match="cannot store answers"):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(save)
            nursery.start_soon(lambda: _put(journal, 0, kept))
    assert kept == [False] and errors == ["refused"]
    assert not store._db.in_transaction and journal.count() == 0  # rolled back, both
    store._db.execute("DROP TRIGGER no")
    await store.save("graph", "item", [2])  # the next trip runs afresh
    assert store.get("graph", "item") == [2]
    store.close()


async def test_trips_in_the_trio_thread_leave_checkpoints_to_a_worker_thread(tmp_path, monkeypatch):
    from graphglean.core import sqlite_writes

    monkeypatch.setattr(sqlite_writes, "CHECKPOINT_ROWS", 100)
    store = RunStore(tmp_path)
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0  # none inside a commit
    checkpoints: list[int] = []
    checkpoint = sqlite_writes.Transactions._checkpoint
    monkeypatch.setattr(sqlite_writes.Transactions, "_checkpoint",
                        lambda self: (checkpoints.append(threading.get_ident()), checkpoint(self)))
    for k in range(5):
        await store.save_many("graph", {f"item{k}-{i}": [i] for i in range(60)})
    assert len(checkpoints) == 2 and threading.get_ident() not in checkpoints  # after rows 120 and 240
    other = sqlite3.connect(tmp_path / "run.sqlite")
    busy, log, copied = other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert busy == 0 and log == copied and len(store.load("graph")) == 300
    other.close()
    store.close()


async def test_the_write_ahead_log_starts_again_after_each_checkpoint_while_writers_go_on(tmp_path, monkeypatch):
    """Checkpoints made while other tasks kept writing never caught up with the log, which then grew with
    every row of the run: no trip runs during a checkpoint, so the log is reused from its start after it."""
    from graphglean.core import sqlite_writes

    monkeypatch.setattr(sqlite_writes, "CHECKPOINT_ROWS", 100)
    store = RunStore(tmp_path)
    value = ["x" * 1000]

    async def writer(w: int) -> None:
        for i in range(300):
            await store.save("graph", f"{w}-{i}", value)

    async with trio.open_nursery() as nursery:
        for w in range(8):
            nursery.start_soon(writer, w)
    wal, db = (tmp_path / "run.sqlite-wal").stat().st_size, (tmp_path / "run.sqlite").stat().st_size
    assert len(store.load("graph")) == 2400
    assert wal < db / 2  # the pages since the last checkpoint, not the run's (it was 5x the database)
    store.close()


async def test_a_failed_checkpoint_is_a_warning_and_the_committed_rows_stay(tmp_path, monkeypatch):
    from graphglean.core import sqlite_writes

    monkeypatch.setattr(sqlite_writes, "CHECKPOINT_ROWS", 10)
    store = RunStore(tmp_path)

    def refuse(*args, **kw):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(sqlite_writes.sqlite3, "connect", refuse)
    with pytest.warns(sqlite_writes.CheckpointWarning, match="run.sqlite: a checkpoint .* failed"):
        await store.save_many("graph", {f"item{i}": [i] for i in range(20)})
    monkeypatch.undo()
    store.close()
    store = RunStore(tmp_path)
    assert len(store.load("graph")) == 20
    store.close()


async def test_a_store_other_processes_write_too_is_written_from_a_worker_thread(tmp_path):
    store = RunStore(tmp_path, shared=True)
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] > 0  # SQLite's own, in that thread
    journal = store.journal()
    threads: set[int] = set()
    store._db.set_progress_handler(lambda: threads.add(threading.get_ident()), 1)
    await store.save("resolve", "item", [1])
    await journal.put("k", {"v": 1})
    assert await journal.get("k") == {"v": 1}
    store._db.set_progress_handler(None, 1)
    assert threads and threading.get_ident() not in threads  # a lock held elsewhere never stalls trio
    store.close()


async def test_queued_results_go_in_the_next_callers_transaction_and_settle_writes_them_when_none_comes(tmp_path):
    store = RunStore(tmp_path)
    journal = store.journal()
    statements: list[str] = []
    store._db.set_trace_callback(lambda sql: statements.append(sql.split()[0]))
    for k in range(5):
        store.queue_save("graph", f"item{k}", [k])
    assert statements == [] and store.get("graph", "item0") is None  # queued, nothing written yet
    await journal.put("k", {"v": 1})  # the next caller that waits takes them into its transaction
    assert statements.count("BEGIN") == 1 and statements.count("INSERT") == 6
    store.queue_save("graph", "late", [9])
    await store.settle()  # no caller came: a trip of their own
    assert store.get("graph", "late") == [9] and statements.count("BEGIN") == 2
    await store.settle()  # nothing queued: no trip at all
    assert statements.count("BEGIN") == 2
    store.close()


def test_results_still_queued_are_written_before_the_journal_is_cleared_and_when_the_store_closes(tmp_path):
    store = RunStore(tmp_path)
    store.queue_save("graph", "a", [1])
    store.clear_journal()
    assert store.get("graph", "a") == [1]
    store.queue_save("graph", "b", [2])
    store.close()  # a run stopped before its pass settled: what was queued is kept
    store = RunStore(tmp_path)
    assert store.load("graph") == {"a": [1], "b": [2]}
    store.close()
