"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``): no websocket
client and no browser-automation dependency. For tests and benchmarks of ``graph.html``.

    with HeadlessChromium() as browser:
        page = browser.open("file:///.../graph.html")
        page.wait_for("document.querySelector('#gg-stats').dataset.nodes")
        page.screenshot("shot.png"); page.errors     # console errors and uncaught exceptions
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-pipe", "--mute-audio", "--hide-scrollbars")
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> str | None:
    """$GRAPHGLEAN_CHROMIUM, else the first Chromium or Chrome on PATH."""
    given = os.environ.get("GRAPHGLEAN_CHROMIUM")
    if given:
        return given
    return next((found for found in map(shutil.which, NAMES) if found), None)


class BrowserError(RuntimeError):
    pass


class HeadlessChromium:
    """One browser process with a fresh profile, closed (and its profile removed) on exit."""

    def __init__(self, executable: str | None = None, width: int = 1280, height: int = 800,
                 timeout_s: float = 60.0) -> None:
        exe = executable or find_chromium()
        if exe is None:
            raise BrowserError("no Chromium found (install the chromium package or set GRAPHGLEAN_CHROMIUM)")
        self.executable, self.width, self.height, self.timeout_s = exe, width, height, timeout_s
        self._next_id = 0
        self._buffer = b""
        self.events: list[dict[str, Any]] = []

    def __enter__(self) -> "HeadlessChromium":
        self._profile = tempfile.mkdtemp(prefix="graphglean-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # the browser reads commands on fd 3 and writes answers on fd 4
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser_r, from_browser_w)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [self.executable, *FLAGS, f"--user-data-dir={self._profile}",
             f"--window-size={self.width},{self.height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=wire)  # Python's own descriptors are not inheritable: only 3 and 4 pass
        os.close(to_browser_r)
        os.close(from_browser_w)
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.call("Browser.close", timeout_s=5)
        except (BrowserError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_browser, self._from_browser):
            os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("timed out waiting for the browser")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                data = os.read(self._from_browser, 1 << 20)
                if not data:
                    raise BrowserError(f"the browser exited (code {self.process.poll()})")
                self._buffer += data
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout_s: float | None = None) -> dict[str, Any]:
        """Send one command and wait for its answer; events that arrive meanwhile are kept in ``events``."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error'].get('message')}")
                return answer.get("result", {})
            self.events.append(answer)

    def open(self, url: str) -> "Page":
        """A new tab with console, exception and network events recorded, navigated to ``url``."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=session)
        self.call("Emulation.setDeviceMetricsOverride", {"width": self.width, "height": self.height,
                                                         "deviceScaleFactor": 1, "mobile": False}, session)
        self.call("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session)
        return page

    def wait_event(self, method: str, session: str | None = None) -> dict[str, Any]:
        """The first (kept) event ``method`` of ``session``, waiting for it when it has not come yet."""
        deadline = time.monotonic() + self.timeout_s
        seen = 0
        while True:
            for e in self.events[seen:]:
                if e.get("method") == method and (session is None or e.get("sessionId") == session):
                    return e
            seen = len(self.events)
            self.events.append(self._read_message(deadline))


class Page:
    def __init__(self, browser: HeadlessChromium, session: str) -> None:
        self.browser, self.session = browser, session

    def _events(self) -> list[dict[str, Any]]:
        return [e for e in self.browser.events if e.get("sessionId") == self.session]

    def evaluate(self, expression: str, await_promise: bool = False) -> Any:
        """The value of a JavaScript expression (of the promise it returns, when ``await_promise``)."""
        answer = self.browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                        "awaitPromise": await_promise}, self.session)
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression}: {answer['exceptionDetails'].get('text')}")
        return answer["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 30.0, poll_s: float = 0.05) -> Any:
        """The first truthy value of ``expression``, polled."""
        deadline = time.monotonic() + timeout_s
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out after {timeout_s} s waiting for {expression}")
            time.sleep(poll_s)

    def mouse(self, kind: str, x: float, y: float, **extra: Any) -> None:
        """One mouse event at page coordinates: kind is mousePressed, mouseReleased, mouseMoved or mouseWheel."""
        params = {"type": kind, "x": x, "y": y, **extra}
        if kind in ("mousePressed", "mouseReleased"):
            params.setdefault("button", "left")
            params.setdefault("clickCount", 1)
        self.browser.call("Input.dispatchMouseEvent", params, self.session)

    def click(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def screenshot(self, path: str | Path) -> Path:
        data = self.browser.call("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        path = Path(path)
        path.write_bytes(base64.b64decode(data))
        return path

    @property
    def errors(self) -> list[str]:
        """Uncaught exceptions, console.error/assert calls and browser log errors, as text."""
        found = []
        for e in self._events():
            p = e.get("params", {})
            if e.get("method") == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                found.append(f"exception: {d.get('exception', {}).get('description') or d.get('text')}")
            elif e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                found.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif e.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                found.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}".strip())
        return found

    @property
    def requests(self) -> list[str]:
        """URLs of every request the page made (the page itself included)."""
        return [e["params"]["request"]["url"] for e in self._events() if e.get("method") == "Network.requestWillBeSent"]
