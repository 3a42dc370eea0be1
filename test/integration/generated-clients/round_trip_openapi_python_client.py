"""Create, send, get and download with the client openapi-python-client generated from /api/v1's document.

Run by test/integration/openapi-generators.test.ts with the generated package `sigil_opc` on PYTHONPATH; reads
SIGIL_BASE_URL, SIGIL_TOKEN, SIGIL_TEMPLATE_ID and SIGIL_PDF_PATH, prints one JSON line of what it saw.
"""

import json
import os

from sigil_opc import AuthenticatedClient
# The functions are named by the document's operationIds.
from sigil_opc.api.envelopes import (
    create_envelope_from_template,
    download_original_document,
    get_envelope,
    send_envelope,
)
from sigil_opc.models import CreateEnvelopeRequest, Envelope

client = AuthenticatedClient(base_url=os.environ["SIGIL_BASE_URL"], token=os.environ["SIGIL_TOKEN"])
# The body as JSON names it, read by the generated model (so the script does not depend on nested models' names).
request = CreateEnvelopeRequest.from_dict(
    {
        "title": "openapi-python-client envelope",
        "templateId": os.environ["SIGIL_TEMPLATE_ID"],
        "workflowType": "Sequential",
        "externalReference": "OPC-1",
        "recipients": [
            # The field the issue saw refused ("language must match const ''"): a language code.
            {"roleName": "Client", "fullName": "Dana Levi", "email": "dana@example.com", "language": "he"},
            {"roleName": "Provider", "fullName": "Sam Cohen", "email": "sam@example.com"},
        ],
    }
)
created = create_envelope_from_template.sync_detailed(
    client=client, body=request, idempotency_key="opc-create-1"
)
assert created.status_code == 201, (created.status_code, created.content)
assert isinstance(created.parsed, Envelope), created.parsed
envelope_id = created.parsed.id

sent = send_envelope.sync_detailed(str(envelope_id), client=client, idempotency_key="opc-send-1")
assert sent.status_code == 200, (sent.status_code, sent.content)

got = get_envelope.sync_detailed(str(envelope_id), client=client)
assert got.status_code == 200, (got.status_code, got.content)
assert isinstance(got.parsed, Envelope), got.parsed

original = download_original_document.sync(str(envelope_id), client=client)
pdf = original.payload.read()
with open(os.environ["SIGIL_PDF_PATH"], "wb") as out:
    out.write(pdf)

print(
    json.dumps(
        {
            "id": str(envelope_id),
            "created": str(created.parsed.status),
            "sent": str(sent.parsed.status),
            "got": str(got.parsed.status),
            "externalReference": got.parsed.external_reference,
            "languages": [recipient.language for recipient in got.parsed.recipients],
            "recipients": [recipient.role_name for recipient in got.parsed.recipients],
            "pdfBytes": len(pdf),
        }
    )
)
