"""docs/clients.md's Python example, run as it is written against the live server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import Server

from sigil_client import SigilClient

DOCS = Path(__file__).resolve().parents[3] / "docs" / "clients.md"


def python_example() -> str:
    text = DOCS.read_text(encoding="utf-8")
    section = re.search(r"^## Python\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section, f"{DOCS} has a '## Python' section"
    block = re.search(r"^```python\n(.*?)^```", section.group(1), re.S | re.M)
    assert block, "the Python section has a ```python example"
    return block.group(1)


def test_the_python_example_in_docs_clients_md_runs(server: Server, sigil: SigilClient) -> None:
    code = python_example()
    assert len(code.strip().splitlines()) == 5, "the five-line example"
    env = {
        **os.environ,
        "SIGIL_BASE_URL": server.base_url,
        "SIGIL_CLIENT_ID": server.client_id,
        "SIGIL_CLIENT_SECRET": server.client_secret,
    }
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, f"the example failed:\n{run.stdout}\n{run.stderr}"
    envelope_id, status = run.stdout.split()
    assert status in ("Sending", "Sent", "InProgress", "WaitingForNextSigner")
    assert sigil.get_envelope(envelope_id)["sentAt"] is not None
