"""Sigil's public API (/api/v1) for Python: SigilClient, typed errors, and webhook verification."""

from .client import SigilClient
from .errors import (
    AuthenticationError,
    ConflictError,
    ErrorDetail,
    ForbiddenError,
    InvalidRequestError,
    NotFoundError,
    RateLimitedError,
    ServiceUnavailableError,
    SigilConnectionError,
    SigilError,
    WebhookVerificationError,
)
from .webhooks import verify_webhook

__all__ = [
    "AuthenticationError",
    "ConflictError",
    "ErrorDetail",
    "ForbiddenError",
    "InvalidRequestError",
    "NotFoundError",
    "RateLimitedError",
    "ServiceUnavailableError",
    "SigilClient",
    "SigilConnectionError",
    "SigilError",
    "WebhookVerificationError",
    "verify_webhook",
]
__version__ = "0.1.0"
