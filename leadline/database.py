"""Connecting to MongoDB (or SecantusDB) and registering the Beanie documents."""
from __future__ import annotations

from beanie import init_beanie
from pymongo import AsyncMongoClient

from leadline.models import DOCUMENT_MODELS


async def connect_database(url: str, name: str) -> AsyncMongoClient:
    client = AsyncMongoClient(url, tz_aware=True, serverSelectionTimeoutMS=10_000)
    await init_beanie(database=client[name], document_models=DOCUMENT_MODELS)
    return client
