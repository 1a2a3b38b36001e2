"""Where a process's database time goes, for benchmarks: with `LEADLINE_DB_PROFILE=<file>` set, every
database command this process sends is timed (pymongo command monitoring) and, at exit, a JSON summary
`{"<command> <collection>": {"count", "ms"}}` is written to the file. Off by default: it costs a few
microseconds per command."""
from __future__ import annotations

import atexit
import json
import os
import threading
from collections import defaultdict

from pymongo import monitoring

_installed = False


class _Timer(monitoring.CommandListener):
    def __init__(self) -> None:
        self.pending: dict[int, str] = {}
        self.totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
        self.lock = threading.Lock()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        command = event.command_name
        target = event.command.get(command)
        label = f"{command} {target}" if isinstance(target, str) else command
        self.pending[event.request_id] = label

    def _done(self, event, failed: bool = False) -> None:
        label = self.pending.pop(event.request_id, event.command_name)
        with self.lock:
            row = self.totals[label + (" (failed)" if failed else "")]
            row[0] += 1
            row[1] += event.duration_micros / 1000

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        self._done(event)

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        self._done(event, failed=True)

    def dump(self, path: str) -> None:
        rows = {k: {"count": v[0], "ms": round(v[1], 1)} for k, v in
                sorted(self.totals.items(), key=lambda kv: -kv[1][1])}
        with open(path, "w") as out:
            json.dump(rows, out, indent=1)


def install_from_env() -> None:
    """Call before the database client is created (clients register listeners when they are made)."""
    global _installed
    path = os.environ.get("LEADLINE_DB_PROFILE")
    if not path or _installed:
        return
    _installed = True
    timer = _Timer()
    monitoring.register(timer)
    atexit.register(timer.dump, path)
