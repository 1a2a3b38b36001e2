"""`leadline admin`: operator commands, each declared once with its arguments and what it runs.

A domain declares its commands in its own module here (`leadline/admin/<domain>.py`) with `@command`,
and adds that module to `MODULES`; cli.py builds the argument parsers from the registry and runs the
chosen command with the database (and Redis) of the running stack.
"""
from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from leadline.config import Settings

MODULES = ("core", "campaigns", "events", "inbox", "insights")


@dataclass(frozen=True)
class AdminEnv:
    """What a command runs with: the settings, a Redis client (None without REDIS_URL), the services
    when a command needs them (jobs, streams)."""

    settings: Settings
    redis: Any
    services: Any = None

    @property
    def prefix(self) -> str:
        return self.settings.redis_prefix


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, AdminEnv], Awaitable[Any]]
    needs_redis: bool = False
    needs_services: bool = False


COMMANDS: dict[str, Command] = {}


def command(name: str, help: str, *, needs_redis: bool = False, needs_services: bool = False,
            arguments: Callable[[argparse.ArgumentParser], None] = lambda parser: None):
    def register(run):
        if name in COMMANDS:
            raise RuntimeError(f"two admin commands named {name}")
        COMMANDS[name] = Command(name, help, arguments, run, needs_redis, needs_services)
        return run
    return register


def load() -> dict[str, Command]:
    for module in MODULES:
        importlib.import_module(f"leadline.admin.{module}")
    return COMMANDS
