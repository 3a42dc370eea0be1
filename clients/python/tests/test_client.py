"""SigilClient against the live server: the round trip, tokens, retries, typed errors and cursor pages."""

from __future__ import annotations

import socket
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from conftest import FaultyProxy, Server, envelope_request, unique

from sigil_client import (
    InvalidRequestError,
    NotFoundError,
    SigilClient,
    SigilConnectionError,
    SigilError,
)


def test_create_send_get_list_download_round_trip(sigil: SigilClient, template: dict[str, Any]) -> None:
    reference = unique("round-trip")
    created = sigil.create_envelope(envelope_request(template, externalReference=reference))
    assert created["status"] == "Draft"
    assert [r["roleName"] for r in created["recipients"]] == [role["name"] for role in template["roles"]]

    sent = sigil.send_envelope(created["id"])
    assert sent["id"] == created["id"]
    fetched = sigil.get_envelope(created["id"])
    assert fetched["status"] not in ("Draft", "Cancelled")
    assert fetched["externalReference"] == reference
    assert fetched["sentAt"] is not None

    listed = list(sigil.iter_envelopes(external_reference=reference))
    assert [envelope["id"] for envelope in listed] == [created["id"]]

    original = sigil.download_original(created["id"])
    assert original.startswith(b"%PDF-")
    assert len(original) > 500
    # Not signed yet: the final PDF does not exist, and says so as a typed 404.
    with pytest.raises(NotFoundError) as missing:
        sigil.download_final_pdf(created["id"])
    assert missing.value.status == 404 and missing.value.code == "not_found"

    assert sigil.get_template(template["id"])["roles"] == template["roles"]
    assert [r["id"] for r in sigil.list_recipients(created["id"])] == [r["id"] for r in fetched["recipients"]]
    assert sigil.get_envelope_by_external_reference(reference)["id"] == created["id"]
    deadline = (datetime.now(timezone.utc) + timedelta(days=400)).replace(microsecond=0)
    extended = sigil.extend_envelope(created["id"], deadline)
    assert extended["expiresAt"] is not None
    assert datetime.fromisoformat(extended["expiresAt"].replace("Z", "+00:00")) == deadline

    cancelled = sigil.cancel_envelope(created["id"], reason="Round trip done")
    assert cancelled["status"] == "Cancelled"


def test_sandbox_mode_sends_the_sandbox_header(server: Server, template: dict[str, Any]) -> None:
    credentials = (server.base_url, server.client_id, server.client_secret)
    with SigilClient(*credentials, sandbox=True) as sandbox, SigilClient(*credentials) as production:
        synthetic = sandbox.create_envelope(envelope_request(template))
        assert sandbox.send_envelope(synthetic["id"])["status"] == "Sent"
        completed = sandbox.simulate_sandbox_outcome(synthetic["id"], "Completed")
        assert completed["status"] == "Completed"
        assert sandbox.get_envelope(synthetic["id"])["finalPdfFileId"] is not None
        # Sandbox downloads answer fixed sample PDF bytes; production never sees a synthetic envelope.
        assert sandbox.download_final_pdf(synthetic["id"]).startswith(b"%PDF-")
        with pytest.raises(NotFoundError):
            production.get_envelope(synthetic["id"])
        # The list has no sandbox mode, and says so naming the header.
        with pytest.raises(InvalidRequestError) as refused:
            sandbox.list_envelopes()
        assert refused.value.field == "headers.x-service-sandbox"


def test_the_secret_and_token_stay_out_of_representations(server: Server) -> None:
    with SigilClient(server.base_url, server.client_id, server.client_secret) as sigil:
        token = sigil.access_token()
        with pytest.raises(NotFoundError) as missing:
            sigil.get_envelope("00000000-0000-4000-8000-000000000000")
        for text in (repr(sigil), str(sigil), str(missing.value), repr(missing.value)):
            assert server.client_secret not in text and token not in text


def test_an_error_is_typed_and_names_the_field(sigil: SigilClient, template: dict[str, Any]) -> None:
    request = envelope_request(template)
    request["recipients"][0]["roleName"] = "No such role"
    with pytest.raises(InvalidRequestError) as refused:
        sigil.create_envelope(request)
    error = refused.value
    assert isinstance(error, SigilError)
    assert error.status == 400
    assert error.code == "invalid_request"
    assert error.field == "recipients.0.roleName"
    assert error.message
    assert error.request_id


def test_token_is_renewed_before_it_expires(server: Server) -> None:
    token_requests: list[str] = []
    now = [1_000_000.0]

    def record(request: httpx.Request) -> None:
        if request.url.path == "/oauth/token":
            token_requests.append(request.url.path)

    with httpx.Client(event_hooks={"request": [record]}) as http, SigilClient(
        server.base_url, server.client_id, server.client_secret, http_client=http, clock=lambda: now[0]
    ) as sigil:
        sigil.list_templates()
        first = sigil.access_token()
        sigil.list_templates()
        assert len(token_requests) == 1, "one token while it is fresh"
        # The server's tokens live 3600 s; 30 s before the end the client fetches the next one.
        now[0] += 3600 - 30
        sigil.list_templates()
        assert len(token_requests) == 2
        assert sigil.access_token() != first


def test_token_is_renewed_once_on_a_401(server: Server) -> None:
    statuses: list[tuple[str, int]] = []

    def record(response: httpx.Response) -> None:
        statuses.append((response.request.url.path, response.status_code))

    with httpx.Client(event_hooks={"response": [record]}) as http, SigilClient(
        server.base_url, server.client_id, server.client_secret, http_client=http
    ) as sigil:
        revoked = sigil.access_token()
        answer = httpx.post(
            f"{server.base_url}/oauth/revoke",
            data={"token": revoked},
            auth=(server.client_id, server.client_secret),
        )
        assert answer.status_code == 200
        statuses.clear()
        templates = sigil.list_templates()
        assert templates
        assert statuses == [
            ("/api/v1/templates", 401),
            ("/oauth/token", 200),
            ("/api/v1/templates", 200),
        ]
        assert sigil.access_token() != revoked


def test_a_create_whose_answer_was_lost_is_retried_with_the_same_idempotency_key(
    server: Server, proxy: FaultyProxy, template: dict[str, Any], sigil: SigilClient
) -> None:
    reference = unique("retried")
    # The first attempt creates the envelope but its answer never arrives; the second meets a 503, the third
    # the 409 of a key still held by a running attempt.
    proxy.fail_next("POST", "/api/v1/envelopes/from-template", "drop", 503, 409)
    sleeps: list[float] = []
    with SigilClient(
        proxy.url, server.client_id, server.client_secret, sleep=sleeps.append
    ) as through_proxy:
        envelope = through_proxy.create_envelope(envelope_request(template, externalReference=reference))

    attempts = proxy.to("POST", "/api/v1/envelopes/from-template")
    assert [attempt.outcome for attempt in attempts] == ["dropped", "503", "409", "201"]
    keys = {attempt.headers.get("idempotency-key") for attempt in attempts}
    assert len(keys) == 1 and None not in keys, keys
    assert len(sleeps) == 3 and sleeps[2] == 1.0
    # The server created one envelope: the one the lost answer carried, answered again to the retry.
    lost = attempts[0]
    assert lost.upstream_status == 201 and lost.upstream_body is not None
    assert httpx.Response(201, content=lost.upstream_body).json()["id"] == envelope["id"]
    assert [e["id"] for e in sigil.iter_envelopes(external_reference=reference)] == [envelope["id"]]


def test_an_unreachable_server_is_retried_then_a_connection_error() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps: list[float] = []
    with SigilClient(f"http://127.0.0.1:{port}", "id", "secret", max_retries=2, sleep=sleeps.append) as sigil:
        with pytest.raises(SigilConnectionError) as unreachable:
            sigil.list_templates()
    assert unreachable.value.attempts == 3
    assert len(sleeps) == 2 and 0 < sleeps[0] <= 0.5 and 0 < sleeps[1] <= 1.0
    assert "secret" not in str(unreachable.value)


def test_a_429_is_retried_after_retry_after(server: Server, proxy: FaultyProxy) -> None:
    proxy.fail_next("GET", "/api/v1/templates", 429)
    sleeps: list[float] = []
    with SigilClient(
        proxy.url, server.client_id, server.client_secret, sleep=sleeps.append
    ) as through_proxy:
        assert through_proxy.list_templates()
    assert [a.outcome for a in proxy.to("GET", "/api/v1/templates")] == ["429", "200"]
    assert sleeps == [1.0]


def test_cursor_iteration_reads_every_page(sigil: SigilClient, template: dict[str, Any]) -> None:
    reference = unique("paged")
    ids = [
        sigil.create_envelope(envelope_request(template, externalReference=reference, title=f"Paged {n}"))["id"]
        for n in range(5)
    ]
    pages = list(sigil.iter_envelope_pages(external_reference=reference, limit=2))
    assert [len(page["items"]) for page in pages] == [2, 2, 1]
    assert pages[-1]["nextCursor"] is None
    # Newest first by default; every envelope once.
    assert [e["id"] for page in pages for e in page["items"]] == list(reversed(ids))
    assert [e["id"] for e in sigil.iter_envelopes(external_reference=reference, limit=2, order="asc")] == ids
