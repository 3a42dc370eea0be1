"""Typed errors: every refusal of the API is a SigilError carrying the specification's error body.

The body is ``{"error": {"code", "message", "details", "request_id"}}``; each item of ``details`` has a
``field`` (a dotted path such as ``recipients.0.roleName``) and a ``message``, and a field refused by the
request's schema also a ``code`` and often ``params``. Subclasses name the common statuses so callers can
``except NotFoundError`` without comparing numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass(frozen=True)
class ErrorDetail:
    """One item of the error body's ``details``."""

    field: str | None
    message: str
    code: str | None = None
    params: dict[str, Any] | None = None


class SigilError(Exception):
    """An HTTP answer of 400 or above from Sigil, with the specification's error body."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: list[ErrorDetail] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details: list[ErrorDetail] = details or []
        self.request_id = request_id
        self.retry_after = retry_after

    @property
    def field(self) -> str | None:
        """The first field the error names (``details[0].field``), if any."""
        for detail in self.details:
            if detail.field:
                return detail.field
        return None

    @property
    def fields(self) -> list[str]:
        """Every field the error names, in the server's order."""
        return [detail.field for detail in self.details if detail.field]

    @classmethod
    def from_response(cls, response: httpx.Response) -> SigilError:
        """The typed error for an error response (any body: a proxy's HTML page becomes ``http_<status>``)."""
        code = f"http_{response.status_code}"
        message = response.reason_phrase or "request failed"
        details: list[ErrorDetail] = []
        request_id = response.headers.get("x-request-id")
        try:
            body = response.json()
        except ValueError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            code = str(error.get("code") or code)
            message = str(error.get("message") or message)
            request_id = error.get("request_id") or request_id
            for item in error.get("details") or []:
                if isinstance(item, dict):
                    details.append(
                        ErrorDetail(
                            field=item.get("field"),
                            message=str(item.get("message", "")),
                            code=item.get("code"),
                            params=item.get("params"),
                        )
                    )
        error_class = _BY_STATUS.get(response.status_code, SigilError)
        return error_class(
            response.status_code,
            code,
            message,
            details,
            request_id,
            retry_after_seconds(response),
        )


class InvalidRequestError(SigilError):
    """400: the request is malformed; ``field`` names what to fix."""


class AuthenticationError(SigilError):
    """401: missing, wrong or revoked credentials (after one token renewal)."""


class ForbiddenError(SigilError):
    """403: a scope is missing, API access is off, or the address is not allowed."""


class NotFoundError(SigilError):
    """404: no such resource in the caller's organization (or a document not ready yet)."""


class ConflictError(SigilError):
    """409: the resource's state does not allow it, or an Idempotency-Key was reused with another body."""


class RateLimitedError(SigilError):
    """429, after the retries: ``retry_after`` says when to try again."""


class ServiceUnavailableError(SigilError):
    """503, after the retries: a dependency of the server is down."""


_BY_STATUS: dict[int, type[SigilError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitedError,
    503: ServiceUnavailableError,
}


@dataclass(eq=False)
class SigilConnectionError(Exception):
    """The server could not be reached (or did not answer) on any attempt."""

    method: str
    url: str
    attempts: int
    cause: Exception = field(repr=False)

    def __str__(self) -> str:
        return f"{self.method} {self.url}: no answer after {self.attempts} attempt(s): {self.cause!r}"


class WebhookVerificationError(Exception):
    """A webhook delivery that is not authentic or not fresh: answer it with 401 and do not process it."""


def retry_after_seconds(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (Sigil sends delta-seconds), or None."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return max(0.0, seconds)
