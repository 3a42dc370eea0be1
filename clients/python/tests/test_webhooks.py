"""Webhook management through the client, and verify_webhook on real deliveries from the live server."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from conftest import Receiver

from sigil_client import SigilClient, WebhookVerificationError, verify_webhook


def test_a_real_delivery_verifies_and_tampering_or_staleness_is_refused(
    sigil: SigilClient, receiver: Receiver
) -> None:
    endpoint = sigil.create_webhook(receiver.url, event_types=["envelope.completed"])
    secret = endpoint["secret"]
    assert endpoint["secretHint"].endswith(secret[-4:])
    try:
        listed = sigil.list_webhooks()["endpoints"]
        assert endpoint["id"] in [item["id"] for item in listed]
        assert all("secret" not in item for item in listed), "the secret is shown at creation only"

        queued = sigil.test_webhook(endpoint["id"])
        (delivery,) = receiver.wait_for(1)
        headers, body = delivery.headers, delivery.body

        event = verify_webhook(secret, headers, body)
        assert event["type"] == "envelope.completed"
        assert event["id"] == queued["eventId"]
        assert headers["x-service-delivery"] == queued["id"]
        assert set(event["data"]) >= {"envelope_id", "status", "external_reference"}
        # A list of secrets (a rotation) verifies when any of them signed.
        assert verify_webhook(["an-old-secret", secret], headers, body)["id"] == event["id"]

        timestamp = int(headers["x-service-timestamp"])
        tampered = body.replace(b'"envelope.completed"', b'"envelope.cancelled"')
        assert tampered != body
        with pytest.raises(WebhookVerificationError, match="signature"):
            verify_webhook(secret, headers, tampered)
        with pytest.raises(WebhookVerificationError, match="signature"):
            verify_webhook("not-the-secret", headers, body)
        with pytest.raises(WebhookVerificationError, match="tolerance"):
            verify_webhook(secret, headers, body, now=timestamp + 301)
        with pytest.raises(WebhookVerificationError, match="tolerance"):
            verify_webhook(secret, headers, body, tolerance_seconds=60, now=timestamp - 61)
        assert verify_webhook(secret, headers, body, now=timestamp + 300)["id"] == event["id"]

        # An old delivery re-signed by an attacker without the secret: a fresh timestamp breaks the signature.
        replayed = {**headers, "x-service-timestamp": str(timestamp + 1000)}
        with pytest.raises(WebhookVerificationError, match="signature"):
            verify_webhook(secret, replayed, body, now=timestamp + 1000)

        # After a rotation both secrets verify during the grace period (X-Service-Signature-Previous).
        rotated = sigil.rotate_webhook_secret(endpoint["id"])
        assert rotated["secret"] != secret
        sigil.test_webhook(endpoint["id"])
        _, second = receiver.wait_for(2)
        assert "x-service-signature-previous" in second.headers
        assert verify_webhook(rotated["secret"], second.headers, second.body)["type"] == "envelope.completed"
        assert verify_webhook(secret, second.headers, second.body)["type"] == "envelope.completed"
        with pytest.raises(WebhookVerificationError):
            verify_webhook(secret, delivery.headers | {"x-service-signature-previous": "x"}, tampered)

        # A replay sends the stored body byte for byte, as a new delivery of the same event.
        replay = sigil.replay_webhook_delivery(queued["id"])
        assert replay["replayOf"] == queued["id"] and replay["eventId"] == event["id"]
        third = receiver.wait_for(3)[2]
        assert third.body == body and third.headers["x-service-delivery"] == replay["id"]
        assert verify_webhook(rotated["secret"], third.headers, third.body)["id"] == event["id"]

        deliveries = sigil.list_webhook_deliveries(endpoint_id=endpoint["id"])
        assert deliveries["total"] == 3
        assert sigil.get_webhook_delivery(queued["id"])["status"] == "succeeded"
        updated = sigil.update_webhook(endpoint["id"], enabled=False)
        assert updated["enabled"] is False
    finally:
        sigil.delete_webhook(endpoint["id"])
    assert endpoint["id"] not in [item["id"] for item in sigil.list_webhooks()["endpoints"]]


def test_verify_webhook_matches_the_signature_rule_byte_for_byte() -> None:
    """The rule of the specification computed here by hand: sha256= + hex HMAC of `timestamp.body`."""
    body = '{"id":"e1","type":"envelope.sent","created_at":"2026-12-05T10:00:00.000Z","data":{"name":"Dana ש"}}'
    raw = body.encode("utf-8")
    signature = hmac.new(b"whsec_test", b"1795312800." + raw, hashlib.sha256).hexdigest()
    headers = {"x-service-timestamp": "1795312800", "x-service-signature": f"sha256={signature}"}
    assert verify_webhook("whsec_test", headers, raw, now=1795312800)["data"] == {"name": "Dana ש"}
    assert verify_webhook("whsec_test", headers, body, now=1795312800)["type"] == "envelope.sent"
    with pytest.raises(WebhookVerificationError, match="malformed X-Service-Signature"):
        verify_webhook("whsec_test", {**headers, "x-service-signature": signature}, raw, now=1795312800)
    with pytest.raises(WebhookVerificationError, match="X-Service-Timestamp"):
        verify_webhook("whsec_test", {"x-service-signature": f"sha256={signature}"}, raw, now=1795312800)
    with pytest.raises(WebhookVerificationError, match="no webhook secret"):
        verify_webhook([], headers, raw, now=1795312800)
