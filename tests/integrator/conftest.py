"""One real `leadline up` (database, Redis, worker, API, MCP) in a temporary directory, for the tests that
use the service as an integrator does: the README's quick start and schemathesis."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from leadline.embedded import free_port

REPO = Path(__file__).resolve().parents[2]


def clean_env() -> dict[str, str]:
    env = dict(os.environ)
    for name in ("MONGODB_URL", "REDIS_URL", "MONGODB_DATABASE", "LEADLINE_REDIS_PREFIX"):
        env.pop(name, None)
    env["LEADLINE_LOG_LEVEL"] = "WARNING"
    return env


@dataclass
class RunningStack:
    workdir: Path
    data_dir: Path
    port: int
    url: str
    proc: subprocess.Popen

    def admin(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "leadline.cli", "admin", *args, "--data-dir", str(self.data_dir)],
                              env=clean_env(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout


@pytest.fixture(scope="package")
def running_stack(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("integrator")
    # The README's commands run from the checkout: `.venv/bin/leadline`, data in `.leadline`.
    (workdir / ".venv").symlink_to(Path(sys.prefix))
    data_dir = workdir / ".leadline"
    port = free_port()
    out = (workdir / "up.out").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "leadline.cli", "up", "--port", str(port), "--mcp-port",
                             str(free_port()), "--data-dir", str(data_dir)], cwd=workdir, env=clean_env(),
                            stdout=out, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while "Leadline is up" not in (workdir / "up.out").read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("leadline up did not start:\n" + (workdir / "up.out").read_text())
        time.sleep(0.2)
    yield RunningStack(workdir, data_dir, port, f"http://127.0.0.1:{port}", proc)
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(90)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    out.close()
