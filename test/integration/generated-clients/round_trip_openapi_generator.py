"""Create, send, get and download with the Python client openapi-generator generated from /api/v1's document.

Run by test/integration/openapi-generators.test.ts with the generated package `sigil_og` on PYTHONPATH; reads
SIGIL_BASE_URL, SIGIL_TOKEN, SIGIL_TEMPLATE_ID and SIGIL_PDF_PATH, prints one JSON line of what it saw.
"""

import json
import os

from sigil_og import ApiClient, Configuration, CreateEnvelopeRequest, EnvelopesApi

configuration = Configuration(host=os.environ["SIGIL_BASE_URL"], access_token=os.environ["SIGIL_TOKEN"])
with ApiClient(configuration) as api_client:
    envelopes = EnvelopesApi(api_client)
    # The body as JSON names it, read by the generated model (no dependence on nested models' names).
    request = CreateEnvelopeRequest.from_dict(
        {
            "title": "openapi-generator envelope",
            "templateId": os.environ["SIGIL_TEMPLATE_ID"],
            "workflowType": "Sequential",
            "externalReference": "OG-1",
            "recipients": [
                {"roleName": "Client", "fullName": "Dana Levi", "email": "dana@example.com", "language": "he"},
                {"roleName": "Provider", "fullName": "Sam Cohen", "email": "sam@example.com"},
            ],
        }
    )
    # The methods are named by the document's operationIds.
    created = envelopes.create_envelope_from_template(request, idempotency_key="og-create-1")
    sent = envelopes.send_envelope(str(created.id), idempotency_key="og-send-1")
    got = envelopes.get_envelope(str(created.id))
    pdf = bytes(envelopes.download_original_document(str(created.id)))
    with open(os.environ["SIGIL_PDF_PATH"], "wb") as out:
        out.write(pdf)
    print(
        json.dumps(
            {
                "id": str(created.id),
                # The status enums are kept as their string values (the generated models' use_enum_values).
                "created": str(created.status),
                "sent": str(sent.status),
                "got": str(got.status),
                "externalReference": got.external_reference,
                "languages": [recipient.language for recipient in got.recipients],
                "recipients": [recipient.role_name for recipient in got.recipients],
                "pdfBytes": len(pdf),
            }
        )
    )
