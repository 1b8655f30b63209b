"""The one exception hierarchy. The CLI turns each of these into a one-line message."""

from __future__ import annotations

from typing import TypeVar

E = TypeVar("E", bound=BaseException)


class GraphgleanError(Exception):
    """Base of every error graphglean raises on purpose."""

    exit_code = 1


class ConfigError(GraphgleanError):
    """A configuration file or value is wrong; the message names the file, line and key."""

    exit_code = 2


class InputError(GraphgleanError):
    """An input file or stream cannot be read as asked; the message names the file."""

    exit_code = 2


class OutputError(GraphgleanError):
    """An output file could not be written; the message names it. What the run made is kept in run.sqlite:
    the same command writes it again without asking the LLM."""


class OutputFolderInUseError(GraphgleanError):
    """Another process is writing the output folder (it holds the folder's lock); the message names it."""

    exit_code = 2


class LLMError(GraphgleanError):
    """An LLM endpoint failed for good (after retries, or at once for a refusal)."""

    def __init__(self, message: str, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class LLMAuthError(LLMError):
    """The endpoint refused the credentials (401/403). Fatal for the whole run."""

    exit_code = 2


class LLMRequestError(LLMError):
    """The endpoint refused this one request (400/404/413/422): too long for the model's context, blocked by a
    content filter, or otherwise rejected. A failure of the item that sent it, not of the run.

    ``kind`` is ``context_length``, ``content_filter`` or ``rejected``; ``params`` names the request parameters
    the refusal is about (``logit_bias``, ``response_format``, ...), empty when it is about none."""

    def __init__(self, message: str, status: int | None = None, body: str = "", *, kind: str = "rejected",
                 params: tuple[str, ...] = ()) -> None:
        super().__init__(message, status, body)
        self.kind = kind
        self.params = params

    def is_about(self, param: str) -> bool:
        """Whether the endpoint refused the request because of ``param`` (not, say, its length)."""
        return param in self.params


class LLMAnswerError(LLMError, ValueError):
    """The endpoint answered this one request, but nothing in the answer can be used: reasoning alone, a refusal,
    or answers the completion cap cut before anything asked for was in them. A failure of the item that asked,
    not of the run: nothing of it is stored, so a later run asks again."""


class LLMParameterError(LLMRequestError):
    """The endpoint does not take a parameter that was sent (``logit_bias``, ``response_format``, an
    ``extra_body`` key). Every request would fail the same way: fatal for the pass, unless the caller
    switches that parameter off and asks again."""

    exit_code = 2


class LLMModelError(LLMRequestError):
    """The endpoint does not serve the configured model or deployment at the configured URL (an unknown
    model, a missing Azure deployment, a base_url whose path does not exist). Fatal for the whole run."""

    exit_code = 2


class LLMCapabilityError(LLMRequestError):
    """The endpoint does not offer what was asked at all (no embeddings on a chat-only server): every such
    request would fail the same way, so it is not retried and not asked again; the caller goes on without."""

    exit_code = 2


class LLMUnreachableError(LLMError):
    """No connection could be made to the endpoint at all."""

    exit_code = 2


#: errors that will fail every other item the same way: they stop the pass instead of failing every item
FATAL = (LLMAuthError, LLMModelError, LLMParameterError, LLMCapabilityError, LLMUnreachableError)


def about_setting(error: E, key: str) -> E:
    """``error`` naming the setting to check (``key``, dotted): the CLI says the configuration line that sets it."""
    error.key = key  # type: ignore[attr-defined]
    return error


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, in order; a plain exception is its own leaf."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def primary(error: BaseException) -> BaseException:
    """The one error a person should hear about from a group that trio's nurseries gathered: an interrupt
    first, then graphglean's own errors (fatal ones first), else the first leaf."""
    found = leaves(error)
    for wanted in (KeyboardInterrupt, *FATAL, ConfigError, InputError, GraphgleanError):
        for leaf in found:
            if isinstance(leaf, wanted):
                return leaf
    return found[0]


def single(error: BaseException) -> BaseException:
    """What a library caller gets instead of trio's exception group: its `primary` error when that is an
    interrupt or one of graphglean's, or when the group holds one error only; else the group unchanged."""
    found = leaves(error)
    first = primary(error)
    if len(found) == 1 or isinstance(first, (KeyboardInterrupt, GraphgleanError)):
        return first
    return error


def stops_run(error: BaseException) -> bool:
    """Whether ``error`` must end the run rather than fail one stage: an interrupt, a cancellation, or one of
    graphglean's errors that are not a failed item (a refused key, an unknown model, bad input, ``--detach``)."""
    for leaf in leaves(error):
        if not isinstance(leaf, Exception):
            return True
        if isinstance(leaf, GraphgleanError) and leaf.exit_code != 1:
            return True
    return False


def _tree(error: BaseException) -> list[BaseException]:
    """``error`` and every exception of the (nested) groups inside it, outermost first."""
    inner = error.exceptions if isinstance(error, BaseExceptionGroup) else ()
    return [error, *(e for sub in inner for e in _tree(sub))]


def _cause(error: BaseException) -> BaseException:
    """The error itself, or the one it carries from another process (a Ray task's ``cause``)."""
    cause = getattr(error, "cause", None)
    return cause if isinstance(cause, BaseException) else error


def _remote_traceback(error: BaseException) -> str:
    """The traceback text an error of another process carries (Ray's task errors: ``traceback_str``, or their
    text when they stand for their cause's class)."""
    text = getattr(error, "traceback_str", None)
    if not isinstance(text, str) and isinstance(getattr(error, "cause", None), BaseException):
        text = str(error)
    return text if isinstance(text, str) else ""


def raised_at(error: BaseException) -> str:
    """Where in graphglean ``error`` was raised (``graph/resolution/profiles.py:78``; empty when not in it):
    enough to report the bug, without a traceback. An error from another process gives its traceback's text
    (``traceback_str``, as Ray's task errors do)."""
    import re
    import traceback

    leaf = leaves(error)[0]
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(leaf.__traceback__)]
    remote = [_remote_traceback(e) for e in _tree(error) if _remote_traceback(e)]
    if remote:
        frames += [(m[0], int(m[1])) for m in re.findall(r'File "([^"]+)", line (\d+)', remote[0])]
    for filename, line in reversed(frames):
        parts = filename.replace("\\", "/").split("/")
        if "graphglean" in parts[:-1]:
            inner = parts[len(parts) - parts[::-1].index("graphglean"):]
            return f"{'/'.join(inner)}:{line}"
    return ""


class StageFailure:
    """A stage that raised after paid calls, as one line: the stage, the exception and where it was raised,
    what was written without it, and the setting that skips it. The run goes on; it exits 1 (a failed item)."""

    def __init__(self, stage: str, error: BaseException, skip: str, instead: str = "") -> None:
        self.stage, self.skip, self.instead = stage, skip, instead
        leaf = _cause(leaves(error)[0])
        where = raised_at(error)
        text = " ".join(str(leaf).split())[:300]
        self.error = f"{type(leaf).__name__}{': ' + text if text else ''}{f' (at {where})' if where else ''}"

    @property
    def line(self) -> str:
        """The error, what was written without the stage, the setting that skips it (the row's item names it)."""
        return "; ".join(p for p in (self.error, self.instead, self.skip) if p)

    def row(self) -> dict[str, object]:
        """The failure as report.json lists a failed item."""
        return {"item": f"stage {self.stage}", "status": None, "error": self.line}


class Contained:
    """``with Contained(stage, skip, into):`` keeps an exception raised inside as a `StageFailure`, whose
    `StageFailure.row` goes to ``into`` (unless it `stops_run`); ``failed`` tells the code after the block
    whether the stage's result exists."""

    def __init__(self, stage: str, skip: str, into: list[dict[str, object]], instead: str = "") -> None:
        self.stage, self.skip, self.into, self.instead = stage, skip, into, instead
        self.failed: StageFailure | None = None

    def __enter__(self) -> "Contained":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: object) -> bool:
        if error is None or not isinstance(error, Exception) or stops_run(error):
            return False
        self.failed = StageFailure(self.stage, error, self.skip, self.instead)
        self.into.append(self.failed.row())
        return True
