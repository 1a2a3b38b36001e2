"""Connecting to MongoDB (or SecantusDB) and registering the Beanie documents.

Every command has a time budget: pymongo's client-side timeoutMS (CSOT), which also sends maxTimeMS
to the server (`Settings.db_timeout_ms`, env LEADLINE_DB_TIMEOUT_MS). Every write waits for the
journal (`j: true`) unless the URL sets its own write concern, so a write the API answered 2xx for
survives the database being killed right after (SecantusDB fsyncs its log for such a write).
"""
from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pymongo
from beanie import init_beanie
from pymongo import AsyncMongoClient

from leadline.config import Settings
from leadline.models import DOCUMENT_MODELS

# Registering the documents may build a new index on a large collection: far beyond a command's budget.
INDEX_BUILD_SECONDS = 3600.0
WRITE_CONCERN_OPTIONS = {"w", "journal", "j", "wtimeoutms"}


def client_options(url: str, timeout_ms: int) -> dict:
    options: dict = {"tz_aware": True, "serverSelectionTimeoutMS": 10_000, "timeoutMS": timeout_ms or None}
    given = {key.lower() for key, _ in parse_qsl(urlsplit(url).query)}
    if not given & WRITE_CONCERN_OPTIONS:
        options["journal"] = True
    return options


async def connect_database(url: str, name: str, *, timeout_ms: int | None = None,
                           indexes: bool = True) -> AsyncMongoClient:
    """`indexes=False` registers the documents without creating their indexes (operator commands: the
    API creates them at its start), which saves a command per collection."""
    if timeout_ms is None:
        timeout_ms = Settings.from_env().db_timeout_ms
    client = AsyncMongoClient(url, **client_options(url, timeout_ms))
    with pymongo.timeout(INDEX_BUILD_SECONDS):
        await init_beanie(database=client[name], document_models=DOCUMENT_MODELS, skip_indexes=not indexes)
    return client
