"""The main shapes of the public API as TypedDicts: the JSON exactly as Sigil sends it (camelCase keys).

They mirror the server's schemas (domain/envelope.ts, domain/webhook.ts and the /api/v1 routes' OpenAPI
document); ``total=False`` marks request bodies whose fields are optional.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

EnvelopeStatus = Literal[
    "Draft",
    "ReadyToSend",
    "Sending",
    "Sent",
    "Opened",
    "InProgress",
    "WaitingForNextSigner",
    "ProcessingFinalPdf",
    "Completed",
    "DeliveryFailed",
    "FinalPdfFailed",
    "Declined",
    "Cancelled",
    "Expired",
    "Archived",
    "Deleted",
]
WorkflowType = Literal["Sequential", "Parallel", "GroupedRounds"]
DeliveryChannel = Literal["Email", "Sms", "WhatsApp", "ManualLink", "Api"]
AuthenticationMethod = Literal["SecureLink", "OtpSms", "OtpWhatsApp"]
RecipientType = Literal["Signer", "FormFiller", "Approver", "Viewer", "Cc"]


class TokenResponse(TypedDict):
    access_token: str
    token_type: str
    expires_in: int
    scope: str
    expires_at: str


class Recipient(TypedDict):
    id: str
    roleName: str
    fullName: str
    email: str | None
    phone: str | None
    signingOrder: int
    deliveryChannel: DeliveryChannel
    authenticationMethod: AuthenticationMethod
    type: RecipientType
    language: str | None
    required: bool
    status: str
    completedAt: str | None


class _NewRecipientRequired(TypedDict):
    roleName: str
    fullName: str


class NewRecipient(_NewRecipientRequired, total=False):
    """A recipient of a create request; mapped to the template's role by ``roleName``."""

    email: str
    phone: str
    signingOrder: int
    deliveryChannel: DeliveryChannel
    authenticationMethod: AuthenticationMethod
    type: RecipientType
    language: str


class InitialValue(TypedDict):
    fieldDefinitionId: str
    value: Any


class _EnvelopeCreateRequired(TypedDict):
    title: str
    templateId: str
    recipients: list[NewRecipient]


class EnvelopeCreate(_EnvelopeCreateRequired, total=False):
    """The body of ``POST /api/v1/envelopes/from-template``."""

    workflowType: WorkflowType
    expiresAt: str
    externalReference: str
    externalSystem: str
    externalMetadataJson: str
    initialValues: list[InitialValue]
    documents: list[Any]


class Envelope(TypedDict):
    id: str
    status: EnvelopeStatus
    title: str
    workflowType: WorkflowType
    templateId: str | None
    sourceFileId: str | None
    expiresAt: str | None
    externalReference: str | None
    externalSystem: str | None
    externalMetadataJson: str | None
    finalPdfFileId: str | None
    auditTrailFileId: str | None
    reminderCount: int
    allowDelegation: bool
    deadlineSettings: dict[str, Any] | None
    recipients: list[Recipient]
    initialValues: list[InitialValue]
    createdAt: str
    updatedAt: str
    sentAt: str | None
    completedAt: str | None


class EnvelopePage(TypedDict):
    """One page of ``GET /api/v1/envelopes``; ``nextCursor`` is None on the last page."""

    items: list[Envelope]
    nextCursor: str | None


class TemplateRole(TypedDict):
    name: str
    required: bool
    defaultRecipientType: RecipientType
    signingOrder: int


class TemplateField(TypedDict):
    fieldDefinitionId: str
    type: str
    role: str
    label: str
    page: int
    x: float
    y: float
    width: float
    height: float
    required: bool
    options: Any
    properties: dict[str, Any]


class Template(TypedDict):
    id: str
    name: str
    pageCount: int
    createdAt: str
    publishedAt: str | None
    roles: list[TemplateRole]
    fields: list[TemplateField]


class WebhookEndpoint(TypedDict):
    id: str
    url: str
    eventTypes: list[str]
    enabled: bool
    secretHint: str
    previousSecretHint: str | None
    previousSecretExpiresAt: str | None
    secretRotatedAt: str | None
    createdAt: str
    updatedAt: str


class WebhookEndpointWithSecret(WebhookEndpoint):
    """The answer of create and rotation: the only time the signing secret is shown."""

    secret: str


class WebhookEndpointList(TypedDict):
    endpoints: list[dict[str, Any]]
    webhookAccess: bool
    planName: str
    secretGraceHours: int
    maxEndpoints: int


class WebhookDeliveryAttempt(TypedDict):
    attempt: int
    startedAt: str
    durationMs: int
    statusCode: int | None
    error: str | None


class WebhookDelivery(TypedDict):
    id: str
    endpointId: str
    endpointUrl: str
    kind: Literal["event", "test"]
    eventId: str
    eventType: str
    eventCreatedAt: str
    status: str
    attemptCount: int
    lastStatusCode: int | None
    lastError: str | None
    requestId: str | None
    replayOf: str | None
    createdAt: str
    updatedAt: str
    lastAttemptAt: str | None
    nextAttemptAt: str | None
    deliveredAt: str | None
    attempts: list[WebhookDeliveryAttempt]


class WebhookDeliveryPage(TypedDict):
    deliveries: list[WebhookDelivery]
    total: int
    nextOffset: int | None


class WebhookEvent(TypedDict):
    """A delivery's body: ``{ id, type, created_at, data }``."""

    id: str
    type: str
    created_at: str
    data: dict[str, Any]
