"""Verifying a webhook delivery exactly as Sigil signs it (docs/webhooks.md, "Verifying a delivery").

Sigil sends ``X-Service-Timestamp`` (Unix seconds) and ``X-Service-Signature: sha256=<hex>``, the lowercase hex
HMAC-SHA256 of ``<timestamp>.<raw body>`` keyed with the endpoint's secret; during the grace period after a
secret rotation also ``X-Service-Signature-Previous``, the same with the previous secret. A receiver that
checks every signature header against every secret it holds needs no change during a rotation.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Mapping, Sequence
from typing import cast

from .errors import WebhookVerificationError
from .types import WebhookEvent

__all__ = ["SIGNATURE_HEADERS", "verify_webhook"]

TIMESTAMP_HEADER = "x-service-timestamp"
#: The current secret's signature, then the previous secret's (sent only during a rotation's grace period).
SIGNATURE_HEADERS = ("x-service-signature", "x-service-signature-previous")
_SIGNATURE = re.compile(r"^sha256=([0-9a-f]{64})$")
_TIMESTAMP = re.compile(r"^[0-9]{1,15}$")


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header by its name in any case (a dict from a web framework, or httpx/Starlette headers)."""
    value = headers.get(name)
    if value is not None:
        return value
    for key, candidate in headers.items():
        if key.lower() == name:
            return candidate
    return None


def verify_webhook(
    secrets: str | Sequence[str],
    headers: Mapping[str, str],
    body: bytes | str,
    tolerance_seconds: float = 300,
    *,
    now: float | None = None,
) -> WebhookEvent:
    """The delivery's event, once its signature and timestamp check out; WebhookVerificationError otherwise.

    ``secrets``: the endpoint's secret, or during a rotation the new and the old one. ``body``: the raw request
    body exactly as received (before any JSON parsing). ``tolerance_seconds``: the replay window around now.
    """
    keys = [secrets] if isinstance(secrets, str) else list(secrets)
    keys = [key for key in keys if key]
    if not keys:
        raise WebhookVerificationError("no webhook secret to verify with")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)

    timestamp = _header(headers, TIMESTAMP_HEADER)
    if timestamp is None or not _TIMESTAMP.match(timestamp):
        raise WebhookVerificationError("missing or malformed X-Service-Timestamp")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookVerificationError(
            f"X-Service-Timestamp is outside the {tolerance_seconds:g}-second tolerance window"
        )

    signatures = []
    for name in SIGNATURE_HEADERS:
        value = _header(headers, name)
        match = _SIGNATURE.match(value) if value is not None else None
        if match:
            signatures.append(bytes.fromhex(match.group(1)))
    if not signatures:
        raise WebhookVerificationError("missing or malformed X-Service-Signature")

    signed = timestamp.encode("ascii") + b"." + raw
    authentic = False
    # Every pair is compared (no early exit), each in constant time.
    for key in keys:
        expected = hmac.new(key.encode("utf-8"), signed, hashlib.sha256).digest()
        for signature in signatures:
            authentic |= hmac.compare_digest(expected, signature)
    if not authentic:
        raise WebhookVerificationError("the signature does not match the body with any of the secrets")

    try:
        event = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WebhookVerificationError(f"the body is not JSON: {error}") from error
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise WebhookVerificationError("the body is not a webhook event")
    return cast(WebhookEvent, event)
