"""schemathesis against the running embedded stack, over every route of GET /v2.0/openapi.json.

A full-access key of a business organisation with a sandbox chat number; the checks the issue names
(`not_a_server_error`, `status_code_conformance`, `response_schema_conformance`,
`content_type_conformance`), a bounded number of examples per operation and a fixed seed, so the run is
the same in every CI run (`LEADLINE_SCHEMATHESIS_SEED` and `LEADLINE_SCHEMATHESIS_EXAMPLES` explore
further by hand). Requests are paced under the plan's per-second rate limit. Zero failures.
docs/openapi.md says how to run it by hand and read a failure.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

CHECKS = "not_a_server_error,status_code_conformance,response_schema_conformance,content_type_conformance"
EXAMPLES = os.environ.get("LEADLINE_SCHEMATHESIS_EXAMPLES", "15")
SEED = os.environ.get("LEADLINE_SCHEMATHESIS_SEED", "16")
RATE = "50/s"  # the business plan allows 60 requests per second per key


def schemathesis_command(url: str, key: str, report_dir: Path) -> list[str]:
    return [str(Path(sys.executable).parent / "schemathesis"), "run", f"{url}/v2.0/openapi.json",
            "--header", f"Authorization: Bearer {key}", "--checks", CHECKS, "--max-examples", EXAMPLES,
            "--seed", SEED, "--rate-limit", RATE, "--suppress-health-check", "all", "--request-timeout", "30",
            "--report", "junit", "--report-dir", str(report_dir)]


def test_schemathesis_finds_no_failure_on_any_route(running_stack):
    org = json.loads(running_stack.admin("create-org", "--name", "Schemathesis", "--plan", "business"))["orgId"]
    key = json.loads(running_stack.admin("create-key", "--org", org, "--scopes", "*", "--label", "schemathesis"))["key"]
    running_stack.admin("connect-channel", "--org", org, "--platform", "chatapp", "--number", "15550102030",
                        "--business-name", "Acme")
    report_dir = running_stack.workdir / "schemathesis"
    done = subprocess.run(schemathesis_command(running_stack.url, key, report_dir), capture_output=True, text=True,
                          timeout=1500, env={**os.environ, "NO_COLOR": "1"}, cwd=running_stack.workdir)
    output = done.stdout + done.stderr
    summary = output[output.rfind("SUMMARY"):] if "SUMMARY" in output else output[-4000:]
    (running_stack.workdir / "schemathesis.txt").write_text(output)
    print(summary)
    assert done.returncode == 0, summary
    tested = re.search(r"Tested: (\d+)", summary)
    selected = re.search(r"Selected: (\d+)/(\d+)", summary)
    assert tested and selected and tested.group(1) == selected.group(2), summary  # every route
    assert re.search(r"\d+ generated, \d+ passed", summary), summary
