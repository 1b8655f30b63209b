"""`TimerFD`: a Linux timerfd, a file descriptor that becomes readable when its time has come.

trio waits for its own deadlines in epoll, whose timeout is whole milliseconds rounded up, so a `trio.sleep`
ends 0-1 ms late (0.5-0.7 ms on average, measured); a task waiting for a timerfd to be readable wakes within
~0.1 ms. Python has the calls from 3.13 on (``os.timerfd_create``); before that they are reached through ctypes.
"""

from __future__ import annotations

import ctypes
import os
import sys

_CLOCK_MONOTONIC = 1
_TFD_NONBLOCK = os.O_NONBLOCK
_TFD_CLOEXEC = getattr(os, "O_CLOEXEC", 0o2000000)


class _TimeSpec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


class _ITimerSpec(ctypes.Structure):
    _fields_ = [("interval", _TimeSpec), ("value", _TimeSpec)]


class TimerFD:
    """A one-shot timer on the monotonic clock. ``arm(delay)`` (re)sets it, and makes it unreadable until then
    even when it had fired: no read is needed between two armings."""

    def __init__(self, fd: int, settime: object) -> None:
        self.fd = fd
        self._settime = settime

    @classmethod
    def open(cls) -> "TimerFD | None":
        """A new timer, or None where there are no timerfds (not Linux, or no C library to call)."""
        if not sys.platform.startswith("linux"):
            return None
        if hasattr(os, "timerfd_create"):  # Python 3.13+
            fd = os.timerfd_create(_CLOCK_MONOTONIC, flags=_TFD_NONBLOCK | _TFD_CLOEXEC)
            return cls(fd, lambda fd, ns: os.timerfd_settime_ns(fd, initial=ns))
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            create, settime = libc.timerfd_create, libc.timerfd_settime
        except (OSError, AttributeError):
            return None
        fd = create(_CLOCK_MONOTONIC, _TFD_NONBLOCK | _TFD_CLOEXEC)
        if fd < 0:
            return None

        def set_ns(fd: int, ns: int) -> None:
            spec = _ITimerSpec(_TimeSpec(0, 0), _TimeSpec(ns // 1_000_000_000, ns % 1_000_000_000))
            if settime(fd, 0, ctypes.byref(spec), None) != 0:
                err = ctypes.get_errno()
                raise OSError(err, os.strerror(err))

        return cls(fd, set_ns)

    def fileno(self) -> int:
        return self.fd

    def arm(self, delay: float) -> None:
        """Fire ``delay`` seconds from now (a delay of zero or less fires at once), replacing any earlier arming."""
        self._settime(self.fd, max(1, int(delay * 1e9)))  # zero would disarm it

    def close(self) -> None:
        os.close(self.fd)
