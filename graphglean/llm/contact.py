"""A client's first contact with its endpoint, and the short waits of the server's probes.

The first request of a client of any kind (a chat, an embedding, a probe of the server) waits for one GET of the
server's ``/props`` (the first of the routes `server.reports` reads anyway; a hosted endpoint's models route when
asked explicitly, `Endpoint.first_contact`), made once: any answer at all, a 404 too, finds the server. Before an
answer came:

- a connection refused twice (`FIRST_CONTACT_WAIT_S` apart), or a host name no resolver knows, is a wrong
  ``llm.base_url`` or a server not started: one line naming the setting (`unreachable_error`);
- a server that takes the connection and answers nothing (wedged, a model that never finished loading, a
  tunnel or a container's port whose far end is down) is waited for at most ``llm.timeout_s``, the longest
  silence: after `SAY_S` one line says what the run waits for and how long, and at the end one line names the
  setting (`silent_error`). A first chat answer that takes long is no such thing: a model loading or a long
  prompt keeps a chat waiting (``llm.first_token_timeout_s``), not the server's own routes.

Each route the server is probed at (``/v1/models``, ``/props``, ``/slots``, ``/metrics``: `Endpoint.probe`) is
asked once a client and waits `PROBE_S` at most (never more than ``llm.timeout_s``): a route that answers nothing
in time is taken as one the server does not have.
"""

from __future__ import annotations

import socket
from typing import Any

import httpx
import trio

from ..core.config import url_problem
from ..core.errors import LLMUnreachableError, about_setting
from .server.profile import is_hosted
from .server.reports import server_root

FIRST_CONTACT_TRIES = 2  # connections refused before any answer came, then the run stops (llm.base_url)
FIRST_CONTACT_WAIT_S = 0.3  # between those tries (a server that is just starting, a port just freed)
PROBE_S = 5.0  # the longest a probe of the server's own routes waits for its answer
SAY_S = 3.0  # a first contact waiting longer than this says so, in one line


def probe_s(timeout_s: float) -> float:
    return min(PROBE_S, timeout_s)


def unreachable_because(error: BaseException) -> str:
    """``refused``, ``unresolved`` or ``no resolver`` when the system's own error under ``error`` says so
    (trio's connection attempts come as a group), else ""."""
    seen: list[BaseException] = []
    todo = [error]
    while todo:
        e = todo.pop()
        if any(e is s for s in seen):
            continue
        seen.append(e)
        if isinstance(e, ConnectionRefusedError):
            return "refused"
        if isinstance(e, socket.gaierror):  # no such name; or no answer from the resolver (asked twice)
            return "unresolved" if e.errno in _NO_SUCH_NAME else "no resolver"
        todo += [c for c in (e.__cause__, e.__context__) if c is not None]
        todo += list(getattr(e, "exceptions", ()))
    return ""


_NO_SUCH_NAME = {getattr(socket, n) for n in ("EAI_NONAME", "EAI_NODATA") if hasattr(socket, n)}


def keyed(message: str) -> LLMUnreachableError:
    """An endpoint error about ``llm.base_url``: one line, its file and line the caller's to add (``key``)."""
    return about_setting(LLMUnreachableError(message, None, ""), "llm.base_url")


def unreachable_error(shown: str, host: str, why: str, tries: int, connect_s: float = 0.0) -> LLMUnreachableError:
    """No connection before any answer came (``why``: `unreachable_because`'s word, or ``timed out``)."""
    said = {"unresolved": f"the name {host} does not resolve (no such host)",
            "no resolver": f"the name {host} could not be resolved (no answer from the resolver)",
            "timed out": f"no connection within llm.connect_timeout_s ({connect_s:g} s), {tries} times",
            }.get(why, f"connection refused {tries} times: nothing listens there")
    return keyed(f"llm.base_url: {shown}: {said}; start the server, or set llm.base_url to where it listens")


def silent_error(shown: str, what: str, waited_s: float, connected: bool | None) -> LLMUnreachableError:
    """The first contact heard nothing within ``llm.timeout_s``."""
    how = ("connected, but no answer" if connected else "no answer" if connected is None else "no connection")
    return keyed(f"llm.base_url: {shown}: {how} to {what} within llm.timeout_s ({waited_s:g} s): a server that "
                 "takes connections and answers nothing (wedged, a model that never finished loading, a tunnel or "
                 "port whose far end is down); restart it, or set llm.base_url to where a server answers")


class Contact:
    """One client's first contact: made once (the requests that come meanwhile wait for it and share its
    error); ``said``: a line said it was waiting."""

    def __init__(self) -> None:
        self.lock = trio.Lock()
        self.done = False
        self.error: LLMUnreachableError | None = None
        self.said = False


async def make_contact(endpoint: Any, explicit: bool = False) -> None:
    """`Endpoint.contact` (see the module docstring): raises the `LLMUnreachableError` of an endpoint that is
    not there; returns once it answered, or failed in a way the requests retry as usual."""
    state: Contact = endpoint.contact_state
    async with state.lock:
        if state.error is not None:
            raise state.error
        if endpoint.reached or state.done:
            return
        try:
            await _first_contact(endpoint, explicit)
        except LLMUnreachableError as e:
            state.error = e
            raise
        state.done = True


async def _first_contact(endpoint: Any, explicit: bool) -> None:
    cfg = endpoint.cfg
    shown = endpoint.shown_url()
    if (problem := url_problem(cfg.base_url)) is not None:
        raise keyed(f"llm.base_url: {problem}")
    url = endpoint.url("models") if explicit and is_hosted(cfg) else server_root(cfg.base_url) + "/props"
    what = f"GET {httpx.URL(url).path}"
    wait_s, started = cfg.timeout_s, trio.current_time()
    found: list[LLMUnreachableError | None] = []

    async def say() -> None:
        await trio.sleep(min(SAY_S, wait_s / 2))
        connected = endpoint.connected()
        how = "connected, no answer yet" if connected else "no answer yet" if connected is None else "connecting"
        endpoint.contact_state.said = True
        endpoint.say(f"llm.base_url {shown}: {how} to {what} (waiting up to {wait_s:g} s: llm.timeout_s)")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(say)
        with trio.move_on_at(started + wait_s):
            found.append(await _ask(endpoint, url, shown))
        nursery.cancel_scope.cancel()
    if not found:
        raise silent_error(shown, what, wait_s, endpoint.connected())
    if found[0] is not None:
        raise found[0]
    if endpoint.contact_state.said and endpoint.reached:
        endpoint.say(f"llm.base_url {shown}: answered after {trio.current_time() - started:.0f} s")


async def _ask(endpoint: Any, url: str, shown: str) -> LLMUnreachableError | None:
    """GET ``url`` until an answer, or an error to raise; None also where the requests should retry as usual
    (a connection broken, an answer not HTTP)."""
    tries = 0
    while True:
        try:
            answer = await endpoint.http_get(url)
        except (httpx.ConnectError, httpx.UnsupportedProtocol, httpx.ConnectTimeout) as e:
            why = "timed out" if isinstance(e, httpx.ConnectTimeout) else unreachable_because(e)
            if not why:
                return None
            tries += 1
            if why == "unresolved" or tries >= FIRST_CONTACT_TRIES:
                return unreachable_error(shown, httpx.URL(url).host, why, tries, endpoint.cfg.connect_timeout_s)
            await trio.sleep(FIRST_CONTACT_WAIT_S)
            continue
        except httpx.HTTPError:
            return None
        endpoint.reached = True
        endpoint.probed[url] = answer
        return None
