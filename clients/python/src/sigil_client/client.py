"""SigilClient: the public API (/api/v1) over httpx, with tokens, retries, typed errors and cursor pages.

- **Tokens.** An OAuth 2.0 client-credentials token is fetched from ``POST /oauth/token`` (HTTP Basic) on first
  use, fetched again once less than ``renew_before_seconds`` of its lifetime is left, and once more when the
  server answers 401 anyway (a revoked token, a server whose clock differs); a second 401 is raised.
- **Retries.** 429 (waiting what ``Retry-After`` says), 503, 409 ``idempotency_request_in_progress`` (an
  earlier attempt with the same key still running) and network errors are retried with exponential
  backoff and jitter, up to ``max_retries`` times. A POST the server treats as idempotent gets one
  ``Idempotency-Key`` before its first attempt and keeps it on every retry, so a create whose answer was lost
  is answered with the envelope it made, never a second one. A POST that is not idempotent (webhook create,
  secret rotation) is retried after a network error only when the connection was never made.
- **Errors.** Every refusal is a :class:`~sigil_client.errors.SigilError` (status, code, message, the fields it
  names); an unreachable server after the retries is a :class:`~sigil_client.errors.SigilConnectionError`.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, cast
from urllib.parse import quote

import httpx

from .errors import SigilConnectionError, SigilError, retry_after_seconds
from .types import (
    Envelope,
    EnvelopeCreate,
    EnvelopePage,
    Recipient,
    Template,
    TokenResponse,
    WebhookDelivery,
    WebhookDeliveryPage,
    WebhookEndpoint,
    WebhookEndpointList,
    WebhookEndpointWithSecret,
)

__all__ = ["SigilClient"]

USER_AGENT = "sigil-client-python/0.1.0"
#: Statuses worth another attempt: the server asked to slow down, or a dependency of it was down.
RETRY_STATUSES = frozenset({429, 503})
#: The 409 code of a request whose Idempotency-Key an earlier attempt still holds (it answers Retry-After: 1).
IN_PROGRESS = "idempotency_request_in_progress"
#: Network errors after which the request certainly never reached the server.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)

Query = Mapping[str, str | int | None]


def _param(value: str | int | datetime | Sequence[str] | None) -> str | int | None:
    """A query value as Sigil reads it: lists comma-separated, date-times in ISO 8601."""
    if value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    return ",".join(value)


def _worth_retrying(response: httpx.Response) -> bool:
    """429, 503, or 409 ``idempotency_request_in_progress`` (an earlier attempt with this key still runs)."""
    if response.status_code in RETRY_STATUSES:
        return True
    if response.status_code != 409:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    error = body.get("error") if isinstance(body, dict) else None
    return isinstance(error, dict) and error.get("code") == IN_PROGRESS


def _segment(value: str) -> str:
    return quote(value, safe="")


class SigilClient:
    """A client of one OAuth client of one organization.

    ``SigilClient(base_url, client_id, client_secret, sandbox=False)``; use it as a context manager or call
    :meth:`close`. With ``sandbox=True`` every /api/v1 request carries ``X-Service-Sandbox: true``.
    """

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        sandbox: bool = False,
        *,
        scopes: Sequence[str] | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff_seconds: float = 0.5,
        max_backoff_seconds: float = 30.0,
        renew_before_seconds: float = 60.0,
        http_client: httpx.Client | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.client_id = client_id
        self._client_secret = client_secret
        self.sandbox = sandbox
        self.scopes = list(scopes) if scopes is not None else None
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.max_backoff_seconds = max_backoff_seconds
        self.renew_before_seconds = renew_before_seconds
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout)
        self._clock = clock
        self._sleep = sleep
        self._token: str | None = None
        self._token_expires_at = 0.0

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **options: Any) -> SigilClient:
        """A client from SIGIL_BASE_URL, SIGIL_CLIENT_ID, SIGIL_CLIENT_SECRET and SIGIL_SANDBOX (``true``)."""
        env = os.environ if environ is None else environ
        missing = [n for n in ("SIGIL_BASE_URL", "SIGIL_CLIENT_ID", "SIGIL_CLIENT_SECRET") if not env.get(n)]
        if missing:
            raise ValueError(f"set {', '.join(missing)} to make a SigilClient from the environment")
        return cls(
            env["SIGIL_BASE_URL"],
            env["SIGIL_CLIENT_ID"],
            env["SIGIL_CLIENT_SECRET"],
            sandbox=env.get("SIGIL_SANDBOX", "").lower() == "true",
            **options,
        )

    def __repr__(self) -> str:
        # The secret and the token stay out of every representation (and so out of logs and tracebacks).
        return f"SigilClient({self.base_url!r}, client_id={self.client_id!r}, sandbox={self.sandbox})"

    def __enter__(self) -> SigilClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    # ------------------------------------------------------------------------------------------------------
    # Tokens
    # ------------------------------------------------------------------------------------------------------

    def access_token(self) -> str:
        """The current bearer token, fetched when there is none or it is about to expire."""
        if self._token is None or self._clock() >= self._token_expires_at - self.renew_before_seconds:
            self._fetch_token()
        assert self._token is not None
        return self._token

    def _fetch_token(self) -> TokenResponse:
        form = {"grant_type": "client_credentials"}
        if self.scopes is not None:
            form["scope"] = " ".join(self.scopes)
        response = self._send(
            "POST",
            "/oauth/token",
            data=form,
            auth=httpx.BasicAuth(self.client_id, self._client_secret),
            retry_network=True,
        )
        token = cast(TokenResponse, response.json())
        self._token = token["access_token"]
        self._token_expires_at = self._clock() + float(token["expires_in"])
        return token

    # ------------------------------------------------------------------------------------------------------
    # Requests
    # ------------------------------------------------------------------------------------------------------

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter: half to all of 0.5 s, 1 s, 2 s … (at most ``max_backoff_seconds``)."""
        ceiling = min(self.max_backoff_seconds, self.backoff_seconds * (2**attempt))
        return random.uniform(ceiling / 2, ceiling)

    def _send(
        self,
        method: str,
        path: str,
        *,
        retry_network: bool,
        headers: Mapping[str, str] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        """One request with retries for 429, 503 and network errors; an error answer raises SigilError."""
        url = f"{self.base_url}{path}"
        all_headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **(headers or {})}
        attempt = 0
        while True:
            try:
                response = self._http.request(method, url, headers=all_headers, **kwargs)
            except httpx.TransportError as error:
                if attempt >= self.max_retries or not (retry_network or isinstance(error, _NOT_SENT)):
                    raise SigilConnectionError(method, url, attempt + 1, error) from error
                self._sleep(self._backoff(attempt))
                attempt += 1
                continue
            if _worth_retrying(response) and attempt < self.max_retries:
                wait = retry_after_seconds(response)
                self._sleep(
                    min(wait, self.max_backoff_seconds) if wait is not None else self._backoff(attempt)
                )
                attempt += 1
                continue
            if response.status_code >= 400:
                raise SigilError.from_response(response)
            return response

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        idempotent_post: bool = False,
        idempotency_key: str | None = None,
    ) -> httpx.Response:
        """An /api/v1 request with the bearer token (renewed once on a 401) and, for idempotent POSTs, one key."""
        headers: dict[str, str] = {}
        if self.sandbox:
            headers["X-Service-Sandbox"] = "true"
        if idempotent_post:
            # One key for every attempt of this call: a retry is the same request to the server.
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        query = {key: value for key, value in (params or {}).items() if value is not None}
        retry_network = method in ("GET", "PUT", "DELETE", "HEAD") or idempotent_post
        renewed = False
        while True:
            headers["Authorization"] = f"Bearer {self.access_token()}"
            try:
                return self._send(
                    method, path, headers=headers, params=query, json=json, retry_network=retry_network
                )
            except SigilError as error:
                if error.status != 401 or renewed:
                    raise
                # The token was refused before its time (revoked, or clocks differ): one fresh token.
                self._token = None
                renewed = True

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self._request(method, path, **kwargs).json()

    def _pdf(self, path: str) -> bytes:
        response = self._request("GET", path)
        return response.content

    # ------------------------------------------------------------------------------------------------------
    # Templates
    # ------------------------------------------------------------------------------------------------------

    def list_templates(self) -> list[Template]:
        """The organization's published templates, with their roles and fields."""
        return cast(list[Template], self._json("GET", "/api/v1/templates"))

    def get_template(self, template_id: str) -> Template:
        return cast(Template, self._json("GET", f"/api/v1/templates/{_segment(template_id)}"))

    # ------------------------------------------------------------------------------------------------------
    # Envelopes
    # ------------------------------------------------------------------------------------------------------

    def create_envelope(
        self, request: EnvelopeCreate | Mapping[str, Any], *, idempotency_key: str | None = None
    ) -> Envelope:
        """``POST /api/v1/envelopes/from-template``: a Draft. Retried with the same Idempotency-Key."""
        return cast(
            Envelope,
            self._json(
                "POST",
                "/api/v1/envelopes/from-template",
                json=dict(request),
                idempotent_post=True,
                idempotency_key=idempotency_key,
            ),
        )

    def get_envelope(self, envelope_id: str) -> Envelope:
        return cast(Envelope, self._json("GET", f"/api/v1/envelopes/{_segment(envelope_id)}"))

    def get_envelope_by_external_reference(self, external_reference: str) -> Envelope:
        """The most recent envelope with that reference (list with ``external_reference`` for all of them)."""
        path = f"/api/v1/envelopes/by-external-reference/{_segment(external_reference)}"
        return cast(Envelope, self._json("GET", path))

    def list_recipients(self, envelope_id: str) -> list[Recipient]:
        path = f"/api/v1/envelopes/{_segment(envelope_id)}/recipients"
        return cast(list[Recipient], self._json("GET", path))

    def list_envelopes(
        self,
        *,
        status: str | Sequence[str] | None = None,
        template_id: str | None = None,
        external_reference: str | None = None,
        external_system: str | None = None,
        created_from: str | datetime | None = None,
        created_to: str | datetime | None = None,
        updated_from: str | datetime | None = None,
        updated_to: str | datetime | None = None,
        q: str | None = None,
        sort: str | None = None,
        order: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> EnvelopePage:
        """One page of ``GET /api/v1/envelopes``; pass its ``nextCursor`` as ``cursor`` for the next one."""
        params = {
            "status": _param(status),
            "templateId": template_id,
            "externalReference": external_reference,
            "externalSystem": external_system,
            "createdFrom": _param(created_from),
            "createdTo": _param(created_to),
            "updatedFrom": _param(updated_from),
            "updatedTo": _param(updated_to),
            "q": q,
            "sort": sort,
            "order": order,
            "limit": limit,
            "cursor": cursor,
        }
        return cast(EnvelopePage, self._json("GET", "/api/v1/envelopes", params=params))

    def iter_envelope_pages(self, **filters: Any) -> Iterator[EnvelopePage]:
        """Every page of the list for these filters (``list_envelopes``' keywords but ``cursor``), lazily."""
        cursor: str | None = filters.pop("cursor", None)
        while True:
            page = self.list_envelopes(**filters, cursor=cursor)
            yield page
            cursor = page["nextCursor"]
            if cursor is None:
                return

    def iter_envelopes(self, **filters: Any) -> Iterator[Envelope]:
        """Every envelope matching the filters, page after page as they are consumed."""
        for page in self.iter_envelope_pages(**filters):
            yield from page["items"]

    def send_envelope(self, envelope_id: str, *, idempotency_key: str | None = None) -> Envelope:
        return self._envelope_action(envelope_id, "send", None, idempotency_key)

    def cancel_envelope(
        self, envelope_id: str, reason: str | None = None, *, idempotency_key: str | None = None
    ) -> Envelope:
        body = {"reason": reason} if reason is not None else None
        return self._envelope_action(envelope_id, "cancel", body, idempotency_key)

    def remind_envelope(self, envelope_id: str, *, idempotency_key: str | None = None) -> Envelope:
        return self._envelope_action(envelope_id, "remind", None, idempotency_key)

    def extend_envelope(
        self, envelope_id: str, expires_at: str | datetime, *, idempotency_key: str | None = None
    ) -> Envelope:
        body = {"expiresAt": _param(expires_at)}
        return self._envelope_action(envelope_id, "extend", body, idempotency_key)

    def _envelope_action(
        self, envelope_id: str, action: str, body: Any, idempotency_key: str | None
    ) -> Envelope:
        path = f"/api/v1/envelopes/{_segment(envelope_id)}/{action}"
        return cast(
            Envelope,
            self._json("POST", path, json=body, idempotent_post=True, idempotency_key=idempotency_key),
        )

    def simulate_sandbox_outcome(
        self,
        envelope_id: str,
        outcome: Literal["Completed", "Declined", "Expired", "Cancelled"],
        *,
        idempotency_key: str | None = None,
    ) -> Envelope:
        """Sandbox only: moves a sent synthetic envelope to a final status (``POST /api/v1/sandbox/envelopes/…``)."""
        path = f"/api/v1/sandbox/envelopes/{_segment(envelope_id)}/{outcome}"
        return cast(
            Envelope,
            self._json("POST", path, idempotent_post=True, idempotency_key=idempotency_key),
        )

    # Documents: PDF bytes, authenticated, no redirect (404 NotFoundError until the document exists).

    def download_original(self, envelope_id: str) -> bytes:
        """The PDF the envelope was made from (its template's or its uploaded file), at any status."""
        return self._pdf(f"/api/v1/envelopes/{_segment(envelope_id)}/documents/original")

    def download_final_pdf(self, envelope_id: str) -> bytes:
        return self._pdf(f"/api/v1/envelopes/{_segment(envelope_id)}/documents/final-pdf")

    def download_audit_trail(self, envelope_id: str) -> bytes:
        return self._pdf(f"/api/v1/envelopes/{_segment(envelope_id)}/documents/audit-trail")

    # ------------------------------------------------------------------------------------------------------
    # Webhooks (scope webhooks.manage)
    # ------------------------------------------------------------------------------------------------------

    def list_webhooks(self) -> WebhookEndpointList:
        return cast(WebhookEndpointList, self._json("GET", "/api/v1/webhooks"))

    def create_webhook(
        self, url: str, event_types: Sequence[str] | None = None, enabled: bool | None = None
    ) -> WebhookEndpointWithSecret:
        """A new endpoint; its ``secret`` is in this answer only. Not idempotent on the server."""
        body: dict[str, Any] = {"url": url}
        if event_types is not None:
            body["eventTypes"] = list(event_types)
        if enabled is not None:
            body["enabled"] = enabled
        return cast(WebhookEndpointWithSecret, self._json("POST", "/api/v1/webhooks", json=body))

    def update_webhook(
        self,
        webhook_id: str,
        *,
        url: str | None = None,
        event_types: Sequence[str] | None = None,
        enabled: bool | None = None,
    ) -> WebhookEndpoint:
        body: dict[str, Any] = {}
        if url is not None:
            body["url"] = url
        if event_types is not None:
            body["eventTypes"] = list(event_types)
        if enabled is not None:
            body["enabled"] = enabled
        path = f"/api/v1/webhooks/{_segment(webhook_id)}"
        return cast(WebhookEndpoint, self._json("PUT", path, json=body))

    def delete_webhook(self, webhook_id: str) -> None:
        self._request("DELETE", f"/api/v1/webhooks/{_segment(webhook_id)}")

    def rotate_webhook_secret(self, webhook_id: str) -> WebhookEndpointWithSecret:
        """A new secret (in this answer only); the previous one keeps signing during the grace period."""
        path = f"/api/v1/webhooks/{_segment(webhook_id)}/secret/rotate"
        return cast(WebhookEndpointWithSecret, self._json("POST", path))

    def test_webhook(self, webhook_id: str, *, idempotency_key: str | None = None) -> WebhookDelivery:
        """Queues a signed sample ``envelope.completed`` delivery to the endpoint."""
        path = f"/api/v1/webhooks/{_segment(webhook_id)}/test"
        return cast(
            WebhookDelivery,
            self._json("POST", path, idempotent_post=True, idempotency_key=idempotency_key),
        )

    def list_webhook_deliveries(
        self,
        *,
        endpoint_id: str | None = None,
        event_type: str | None = None,
        status: str | None = None,
        from_: str | datetime | None = None,
        to: str | datetime | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> WebhookDeliveryPage:
        params = {
            "endpointId": endpoint_id,
            "eventType": event_type,
            "status": status,
            "from": _param(from_),
            "to": _param(to),
            "limit": limit,
            "offset": offset,
        }
        return cast(WebhookDeliveryPage, self._json("GET", "/api/v1/webhooks/deliveries", params=params))

    def get_webhook_delivery(self, delivery_id: str) -> WebhookDelivery:
        path = f"/api/v1/webhooks/deliveries/{_segment(delivery_id)}"
        return cast(WebhookDelivery, self._json("GET", path))

    def replay_webhook_delivery(
        self, delivery_id: str, *, idempotency_key: str | None = None
    ) -> WebhookDelivery:
        path = f"/api/v1/webhooks/deliveries/{_segment(delivery_id)}/replay"
        return cast(
            WebhookDelivery,
            self._json("POST", path, idempotent_post=True, idempotency_key=idempotency_key),
        )
