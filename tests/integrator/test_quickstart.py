"""The README's quick start, pasted into a fresh shell against a running `leadline up`.

The shell blocks after the `./scripts/up` block (up to the next top-level section) run line by line in
one `bash` with an almost empty environment (PATH and HOME), from a directory laid out as a checkout
(`.venv`, `.leadline` of the running stack). Only the port differs: the stack listens on a free one.
"""
from __future__ import annotations

import json
import os
import re
import subprocess

from tests.integrator.conftest import REPO

README = REPO / "README.md"


def quick_start_blocks(text: str) -> list[str]:
    """The ```sh blocks after the one running ./scripts/up, before the next `## ` section."""
    blocks = list(re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M))
    start = next(i for i, b in enumerate(blocks) if "./scripts/up" in b.group(1))
    end_of_section = text.find("\n## ", blocks[start].end())
    return [b.group(1) for b in blocks[start + 1:] if end_of_section == -1 or b.start() < end_of_section]


def test_the_readme_names_no_placeholder():
    blocks = quick_start_blocks(README.read_text())
    assert blocks, "the README has no quick start after ./scripts/up"
    for block in blocks:
        assert "sk_..." not in block and " ORG " not in block and "jq" not in block


def test_the_quick_start_works_when_pasted_into_a_fresh_shell(running_stack):
    script = "\n".join(quick_start_blocks(README.read_text())).replace("127.0.0.1:8080", f"127.0.0.1:{running_stack.port}")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(running_stack.workdir)}
    # Line by line, as pasted: each line runs, and a failing one stops the run (`set -e` as a reader would notice).
    done = subprocess.run(["bash", "--norc", "--noprofile", "-e", "-o", "pipefail"], input=script, text=True,
                          capture_output=True, cwd=running_stack.workdir, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    envelopes = [json.loads(line) for line in lines if line.startswith("{\"success\"")]
    assert envelopes and all(e["success"] is True for e in envelopes), done.stdout
    last = json.loads(lines[-1])
    assert last["success"] is True and "data" in last, lines[-1]
