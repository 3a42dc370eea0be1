"""Fixtures for the tests against a live Sigil server (test/integration/python-client.test.ts starts it).

The server and an OAuth client of a fresh test organization come from the environment: SIGIL_BASE_URL,
SIGIL_CLIENT_ID, SIGIL_CLIENT_SECRET. Fault injection happens outside the client, at the edge: a forwarding
proxy that can drop an answer or answer 429/503 itself, and a webhook receiver, both on 127.0.0.1.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from sigil_client import SigilClient


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(
            f"{name} is not set: these tests run against a live server; run them with "
            "`npx vitest run test/integration/python-client.test.ts`, which starts one and sets it"
        )
    return value


@dataclass(frozen=True)
class Server:
    base_url: str
    client_id: str
    client_secret: str


@pytest.fixture(scope="session")
def server() -> Server:
    return Server(_env("SIGIL_BASE_URL"), _env("SIGIL_CLIENT_ID"), _env("SIGIL_CLIENT_SECRET"))


@pytest.fixture()
def sigil(server: Server) -> Iterator[SigilClient]:
    with SigilClient(server.base_url, server.client_id, server.client_secret) as client:
        yield client


@pytest.fixture(scope="session")
def template(server: Server) -> dict[str, Any]:
    with SigilClient(server.base_url, server.client_id, server.client_secret) as client:
        templates = client.list_templates()
    assert templates, "the test organization has a published template"
    return dict(templates[0])


def envelope_request(template: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A create request with a ManualLink recipient for each of the template's roles (nobody is emailed)."""
    return {
        "title": "Services agreement",
        "templateId": template["id"],
        "recipients": [
            {
                "roleName": role["name"],
                "fullName": f"Person {index}",
                "email": f"person{index}@example.com",
                "deliveryChannel": "ManualLink",
            }
            for index, role in enumerate(template["roles"])
        ],
        **extra,
    }


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# ------------------------------------------------------------------------------------------------------------
# A forwarding proxy with faults
# ------------------------------------------------------------------------------------------------------------


@dataclass
class ProxiedRequest:
    method: str
    path: str
    headers: dict[str, str]
    #: What the server answered (None when the proxy answered itself).
    upstream_status: int | None = None
    upstream_body: bytes | None = None
    #: What the client got: a status, or "dropped" (the connection closed without an answer).
    outcome: str = ""


#: A fault for a request: "drop" forwards it and closes the connection without the answer; 429, 503 or 409
#: (idempotency_request_in_progress, as while an earlier attempt runs) is answered by the proxy without
#: forwarding (429 and 409 with Retry-After: 1).
Fault = str | int


@dataclass
class FaultyProxy:
    url: str
    upstream: str
    requests: list[ProxiedRequest] = field(default_factory=list)
    faults: list[tuple[Callable[[str, str], bool], Fault]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail_next(self, method: str, path_prefix: str, *faults: Fault) -> None:
        """The next requests of `method` to paths starting with `path_prefix` meet these faults, in order."""
        with self.lock:
            for fault in faults:
                self.faults.append(
                    (lambda m, p: m == method and p.startswith(path_prefix), fault)
                )

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for index, (matches, fault) in enumerate(self.faults):
                if matches(method, path):
                    del self.faults[index]
                    return fault
        return None

    def to(self, method: str, path_prefix: str) -> list[ProxiedRequest]:
        return [r for r in self.requests if r.method == method and r.path.startswith(path_prefix)]


@pytest.fixture()
def proxy(server: Server) -> Iterator[FaultyProxy]:
    upstream = httpx.Client(base_url=server.base_url, timeout=30)
    state: dict[str, FaultyProxy] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: Any) -> None:  # quiet
            pass

        def _handle(self) -> None:
            proxy = state["proxy"]
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            dropped = ("host", "connection", "content-length", "accept-encoding")
            headers = {k: v for k, v in self.headers.items() if k.lower() not in dropped}
            record = ProxiedRequest(self.command, self.path, {k.lower(): v for k, v in headers.items()})
            with proxy.lock:
                proxy.requests.append(record)
            fault = proxy.take_fault(self.command, self.path)
            if fault in (429, 503, 409):
                code = {429: "rate_limited", 503: "service_unavailable", 409: "idempotency_request_in_progress"}[
                    int(fault)
                ]
                payload = (
                    '{"error":{"code":"%s","message":"injected by the test proxy","details":[],'
                    '"request_id":"proxy"}}' % code
                ).encode()
                self.send_response(int(fault))
                if fault in (429, 409):
                    self.send_header("Retry-After", "1")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                record.outcome = str(fault)
                return
            answer = upstream.request(self.command, self.path, headers=headers, content=body)
            record.upstream_status = answer.status_code
            record.upstream_body = answer.content
            if fault == "drop":
                # The server did the work; its answer is lost on the way back.
                record.outcome = "dropped"
                self.close_connection = True
                return
            self.send_response(answer.status_code)
            for name, value in answer.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)
            record.outcome = str(answer.status_code)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["proxy"] = FaultyProxy(f"http://127.0.0.1:{httpd.server_address[1]}", server.base_url)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state["proxy"]
    finally:
        httpd.shutdown()
        httpd.server_close()
        upstream.close()


# ------------------------------------------------------------------------------------------------------------
# A webhook receiver
# ------------------------------------------------------------------------------------------------------------


@dataclass
class Delivery:
    #: Header names in lower case.
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    url: str
    deliveries: list[Delivery] = field(default_factory=list)

    def wait_for(self, count: int, timeout: float = 60) -> list[Delivery]:
        deadline = time.monotonic() + timeout
        while len(self.deliveries) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.deliveries)} of {count} webhook deliveries after {timeout} s")
            time.sleep(0.05)
        return self.deliveries[:count]


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    state: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length)
            state["receiver"].deliveries.append(Delivery({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["receiver"] = Receiver(f"http://127.0.0.1:{httpd.server_address[1]}/hooks/{uuid.uuid4()}")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state["receiver"]
    finally:
        httpd.shutdown()
        httpd.server_close()
