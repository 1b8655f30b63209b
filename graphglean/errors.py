"""The one exception hierarchy. The CLI turns each of these into a one-line message."""

from __future__ import annotations


class GraphgleanError(Exception):
    """Base of every error graphglean raises on purpose."""

    exit_code = 1


class ConfigError(GraphgleanError):
    """A configuration file or value is wrong; the message names the file, line and key."""

    exit_code = 2


class InputError(GraphgleanError):
    """An input file or stream cannot be read as asked; the message names the file."""

    exit_code = 2


class LLMError(GraphgleanError):
    """An LLM endpoint failed for good (after retries, or at once for 4xx)."""

    def __init__(self, message: str, status: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class LLMAuthError(LLMError):
    """The endpoint refused the credentials (401/403). Fatal for the whole run."""

    exit_code = 2


class LLMRequestError(LLMError):
    """The endpoint rejected the request itself (400/404): bad model, bad parameter."""

    exit_code = 2


class LLMUnreachableError(LLMError):
    """No connection could be made to the endpoint at all."""

    exit_code = 2


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, in order; a plain exception is its own leaf."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def primary(error: BaseException) -> BaseException:
    """The one error a person should hear about from a group that trio's nurseries gathered: an interrupt
    first, then graphglean's own errors (fatal ones first), else the first leaf."""
    found = leaves(error)
    for wanted in (KeyboardInterrupt, LLMAuthError, LLMRequestError, LLMUnreachableError, GraphgleanError):
        for leaf in found:
            if isinstance(leaf, wanted):
                return leaf
    return found[0]
