"""Team inbox jobs. TASKS and CRONS are collected by jobs/worker.py."""
from __future__ import annotations

TASKS: list = []
# (task, arq cron keyword arguments)
CRONS: list = []
