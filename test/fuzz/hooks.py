"""Schemathesis hooks for Sigil's fuzz test (test/fuzz/schemathesis.test.ts): real ids where the API wants them.

A generated uuid names nothing, so without help every route with an id in its path would answer 404 and the
fuzzer would never reach what lies behind it. The test creates the resources first (an organization, its
template, envelopes in several states, sandbox envelopes, a webhook endpoint and a delivery) and writes,
for each operation, the sets of values that reach one of them into the JSON file named by
SIGIL_FUZZ_RESOURCES:

    {"GET /api/v1/envelopes/{id}": [{"path": {"id": "…"}}, {"path": {"id": "…"}, "headers": {"x-service-sandbox": "true"}}],
     "POST /api/v1/envelopes/from-template": [{"body": {"templateId": "…"}}]}

`map_case` runs for every generated case of the examples, coverage and fuzzing phases (stateful cases keep
the ids their links carry from the call that created the resource) and picks
one of the operation's sets. Each part of the set replaces the case's own values only where the case
generated valid data: the path parameters, the headers (a synthetic envelope exists only with the sandbox
header, so without valid headers such a set is not used at all) and top-level fields of a JSON object body.
Deliberately invalid values (negative mode: a malformed uuid, a missing parameter, a wrong type) are kept,
since they are what the case tests; and one case in KEEP_GENERATED_ONE_IN keeps all its generated values, so
the 404 of an id that names nothing is still exercised. The choice depends only on the generated values, so
a run with the same seed makes the same choices.
"""

from __future__ import annotations

import json
import os
import zlib
from typing import Any

import schemathesis
from schemathesis.core.parameters import ParameterLocation

KEEP_GENERATED_ONE_IN = 8

with open(os.environ["SIGIL_FUZZ_RESOURCES"], encoding="utf-8") as handle:
    RESOURCES: dict[str, list[dict[str, dict[str, Any]]]] = json.load(handle)


def _is_valid(case: Any, location: ParameterLocation) -> bool:
    """Whether the case's values at `location` were generated as valid data (or there is no metadata)."""
    meta = case.meta
    if meta is None:
        return True
    component = meta.components.get(location)
    if component is not None and component.mode.is_negative:
        return False
    data = meta.phase.data
    # A coverage or fuzzing case that breaks exactly one parameter names where it is.
    return not (meta.generation.mode.is_negative and getattr(data, "parameter_location", None) == location)


def _pick(label: str, generated: Any) -> dict[str, dict[str, Any]] | None:
    choices = RESOURCES.get(label)
    if not choices:
        return None
    digest = zlib.crc32(json.dumps(generated, sort_keys=True, default=repr).encode("utf-8"))
    if digest % KEEP_GENERATED_ONE_IN == 0:
        return None
    return choices[(digest // KEEP_GENERATED_ONE_IN) % len(choices)]


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    operation = context.operation
    if operation is None:
        return case
    # The stateful phase chains calls through the document's links: an id there names what the previous call
    # created (a team, a role), and replacing it would break the chain it tests.
    if case.meta is not None and case.meta.phase.name == "stateful":
        return case
    body = case.body if isinstance(case.body, dict) else None
    choice = _pick(operation.label, [case.path_parameters or {}, body])
    if choice is None:
        return case
    path = choice.get("path") or {}
    headers = choice.get("headers") or {}
    fields = choice.get("body") or {}
    if path and not _is_valid(case, ParameterLocation.PATH):
        return case
    if headers and not _is_valid(case, ParameterLocation.HEADER):
        return case
    if path:
        case.path_parameters = {**(case.path_parameters or {}), **path}
    if headers:
        merged = case.headers.copy() if case.headers is not None else {}
        for name, value in headers.items():
            merged[name] = value
        case.headers = merged
    if fields and body is not None and _is_valid(case, ParameterLocation.BODY):
        case.body = {**body, **fields}
    return case
