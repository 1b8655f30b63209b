"""The fake server's timer (one task wakes every sleeper at its deadline) and its listener (every waiting
connection accepted at one wake-up)."""

import math
import select
import socket
import sys

import pytest
import trio
import trio.testing

from graphglean.llm.http.plain_socket import PlainSocket
from graphglean.testing.wire.listen import serve_plain_tcp
from graphglean.testing.wire.timer import Timer
from graphglean.testing.wire.timerfd import TimerFD

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="timerfds are Linux's")


async def _sleepers(timer: Timer, delays: list[float]) -> list[tuple[float, float]]:
    """(deadline, time woken) of a sleeper for each delay, all started at once."""
    woke = []

    async def sleeper(delay: float) -> None:
        deadline = trio.current_time() + delay
        await timer.sleep_until(deadline)
        woke.append((deadline, trio.current_time()))

    async with trio.open_nursery() as nursery:
        for delay in delays:
            nursery.start_soon(sleeper, delay)
    return woke


async def test_every_sleeper_wakes_and_none_before_its_deadline():
    timer = Timer()
    async with trio.open_nursery() as nursery:
        await nursery.start(timer.run)
        woke = await _sleepers(timer, [0.03, 0.01, 0.02, 0.01, 0.0, 0.025])
        # one added later with an earlier deadline than the one the timer waits for re-arms it
        late = await _sleepers(timer, [0.05, 0.001])
        nursery.cancel_scope.cancel()
    assert len(woke + late) == 8 and all(t >= d for d, t in woke + late)


async def test_virtual_time_with_a_mock_clock(autojump_clock):
    timer = Timer()
    async with trio.open_nursery() as nursery:
        await nursery.start(timer.run)
        assert timer._fd is None  # a timerfd follows the real clock, not trio's virtual one
        start = trio.current_time()
        woke = await _sleepers(timer, [3600.0, 60.0, 1.5, 60.0])
        nursery.cancel_scope.cancel()
    assert [t - start for _, t in woke] == [1.5, 60.0, 60.0, 3600.0]  # each at its deadline, in order


@linux_only
async def test_on_trios_own_clock_the_timer_waits_on_a_timerfd_and_closes_it():
    timer = Timer()
    async with trio.open_nursery() as nursery:
        await nursery.start(timer.run)
        fd = timer._fd
        assert fd is not None
        await timer.sleep(0.001)
        nursery.cancel_scope.cancel()
    with pytest.raises(OSError):
        select.select([fd.fd], [], [], 0)  # closed


async def test_a_cancelled_sleeper_leaves_the_others_asleep_until_their_deadlines():
    timer = Timer()
    woke = []
    async with trio.open_nursery() as nursery:
        await nursery.start(timer.run)

        async def sleeper(name: str, delay: float) -> None:
            deadline = trio.current_time() + delay
            await timer.sleep_until(deadline)
            woke.append((name, trio.current_time() >= deadline))

        async with trio.open_nursery() as sleepers:
            sleepers.start_soon(sleeper, "kept", 0.02)
            with trio.CancelScope() as doomed:
                doomed.cancel()
                await timer.sleep(0.01)  # a cancelled sleep raises at once, as trio.sleep does
            async with trio.open_nursery() as cancelled:
                cancelled.start_soon(sleeper, "cancelled", 0.01)
                await trio.testing.wait_all_tasks_blocked()
                cancelled.cancel_scope.cancel()
        nursery.cancel_scope.cancel()
    assert woke == [("kept", True)]


async def test_sleepers_outlive_a_stopped_timer_and_a_timer_never_run_sleeps_as_trio_does():
    timer = Timer()
    done = []

    async def sleeper(delay: float) -> None:
        deadline = trio.current_time() + delay
        await timer.sleep_until(deadline)
        done.append(trio.current_time() >= deadline)

    async with trio.open_nursery() as outer:
        async with trio.open_nursery() as timer_nursery:
            await timer_nursery.start(timer.run)
            outer.start_soon(sleeper, 0.05)
            await trio.testing.wait_all_tasks_blocked()
            timer_nursery.cancel_scope.cancel()  # the sleeper is woken early: it must sleep on by itself
    await sleeper(0.01)  # no timer running at all
    assert done == [True, True]


@linux_only
def test_a_timerfd_is_readable_once_its_time_has_come_and_arming_replaces_the_time_and_clears_an_expiry():
    fd = TimerFD.open()
    assert fd is not None
    try:
        fd.arm(3600)
        assert select.select([fd], [], [], 0.02)[0] == []
        fd.arm(0.001)  # earlier: replaces the hour
        assert select.select([fd], [], [], 5)[0] == [fd]
        fd.arm(3600)  # arming again clears the expiry it had: the timer waits on it with no read between
        assert select.select([fd], [], [], 0)[0] == []
        fd.arm(-1)  # past: fires at once rather than disarming
        assert select.select([fd], [], [], 5)[0] == [fd]
    finally:
        fd.close()


async def test_the_listener_accepts_every_waiting_connection_as_a_plain_socket():
    seen = []

    async def handler(stream: PlainSocket) -> None:
        assert stream.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        seen.append(await stream.receive_some(100))
        await stream.send_all(b"bye")
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        addresses = await nursery.start(serve_plain_tcp, handler, 0, "127.0.0.1")
        port = addresses[0][1]
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]  # all wait in the backlog
        for i, client in enumerate(clients):
            client.sendall(b"%d" % i)
        for client in clients:
            client.setblocking(False)
            with trio.fail_after(10):
                await trio.lowlevel.wait_readable(client)
            assert client.recv(10) == b"bye"
            client.close()
        nursery.cancel_scope.cancel()
    assert sorted(seen) == sorted(b"%d" % i for i in range(20))
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)  # the listener closed with its task


def test_a_sleeper_that_never_wakes_leaves_the_timer_running():
    """A deadline of infinity (a fake answer that hangs for good) is no time to arm a timerfd for."""
    async def main():
        timer = Timer()
        woke: list[float] = []
        async with trio.open_nursery() as nursery:
            await nursery.start(timer.run)
            forever = trio.CancelScope()

            async def sleeps_forever() -> None:
                with forever:
                    await timer.sleep(math.inf)

            nursery.start_soon(sleeps_forever)
            await trio.sleep(0.01)

            async def sleeps() -> None:
                await timer.sleep(0.02)
                woke.append(trio.current_time())

            nursery.start_soon(sleeps)
            await trio.sleep(0.05)
            forever.cancel()
            nursery.cancel_scope.cancel()
        return woke

    assert len(trio.run(main)) == 1
