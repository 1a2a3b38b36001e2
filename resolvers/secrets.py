"""Secrets at rest: tool credentials and channel access tokens are stored encrypted, never returned.

Values are sealed with Fernet (AES-128-CBC with an HMAC-SHA256 tag) and stored as `enc:v1:<token>`.
The keys come from configuration, `LEADLINE_SECRET_KEY` (comma-separated: the first seals, every one
opens, so a key can be rotated). Each key is a Fernet key (32 url-safe base64 bytes) or any text of at
least 32 characters (hashed into one). Production refuses to start without it (`configuration_problem`,
checked by `leadline up|serve|worker`). In development without
it, a key is generated once per database and kept there (`SecretKeyRecord`), so every process sharing
the database reads the same secrets, from whatever directory it runs.

A value without the prefix is a legacy clear value (channel tokens stored before encryption): it is
read as is, and `resolvers/channels/admin.py:encrypt_stored_tokens` (run by every starting worker) seals
the stored ones.
"""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from pymongo.errors import DuplicateKeyError

from leadline.config import Settings
from leadline.models.tools import SecretKeyRecord

PREFIX = "enc:v1:"
# What responses, history snapshots and run logs show in place of a secret.
MASK = "********"
MIN_KEY_TEXT = 32
_DEV_RECORD = "development"


class SecretKeyMissing(RuntimeError):
    """Production without LEADLINE_SECRET_KEY: secrets cannot be stored."""


class SecretUnreadable(RuntimeError):
    """A stored secret none of the configured keys opens (the key changed without rotation)."""


def is_sealed(value: object) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def _fernet_key(text: str) -> bytes:
    raw = text.strip().encode()
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32:
            return raw
    except (ValueError, TypeError):
        pass
    if len(text.strip()) < MIN_KEY_TEXT:
        raise SecretKeyMissing(f"LEADLINE_SECRET_KEY: each key is a Fernet key or at least {MIN_KEY_TEXT} characters")
    return base64.urlsafe_b64encode(hashlib.sha256(raw).digest())


@dataclass(frozen=True)
class Keyring:
    fernet: MultiFernet

    @classmethod
    def of(cls, keys: list[str]) -> "Keyring":
        return cls(MultiFernet([Fernet(_fernet_key(k)) for k in keys]))

    def seal(self, value: str) -> str:
        """The stored form of a secret (a sealed value stays as it is)."""
        if is_sealed(value):
            return value
        return PREFIX + self.fernet.encrypt(value.encode()).decode()

    def open(self, value: str | None) -> str | None:
        """The clear secret; a legacy clear value is returned as stored."""
        if value is None or not is_sealed(value):
            return value
        try:
            return self.fernet.decrypt(value[len(PREFIX):].encode()).decode()
        except InvalidToken:
            raise SecretUnreadable("a stored secret cannot be decrypted with the configured keys") from None


def configuration_problem(settings: Settings) -> str | None:
    """Why this deployment cannot store secrets (None: it can). `leadline up|serve|worker` refuse to start
    in production without a usable LEADLINE_SECRET_KEY."""
    if not settings.secret_key.strip():
        if settings.is_development:
            return None
        return ("LEADLINE_SECRET_KEY must be set in production (tool credentials and channel access tokens "
                "are stored encrypted with it; e.g. the output of `python -c \"from cryptography.fernet import "
                "Fernet; print(Fernet.generate_key().decode())\"`)")
    try:
        Keyring.of([k for k in settings.secret_key.split(",") if k.strip()])
    except SecretKeyMissing as exc:
        return str(exc)
    return None


_by_keys: dict[str, Keyring] = {}
_by_database: dict[str, Keyring] = {}
_env_settings: Settings | None = None


async def keyring(settings: Settings) -> Keyring:
    """The keys of this deployment (see the module docstring)."""
    if settings.secret_key.strip():
        text = settings.secret_key
        if text not in _by_keys:
            _by_keys[text] = Keyring.of([k for k in text.split(",") if k.strip()])
        return _by_keys[text]
    if not settings.is_development:
        raise SecretKeyMissing("LEADLINE_SECRET_KEY must be set in production to store secrets")
    return await _development_keyring()


async def process_keyring() -> Keyring:
    """For code without a request's settings at hand (provider adapters, admin commands): the
    process's configuration, read from the environment."""
    global _env_settings
    if _env_settings is None:
        _env_settings = Settings.from_env()
    return await keyring(_env_settings)


async def _development_keyring() -> Keyring:
    database = SecretKeyRecord.database_name()
    if database not in _by_database:
        record = await SecretKeyRecord.get(_DEV_RECORD)
        if record is None:
            try:
                record = SecretKeyRecord(id=_DEV_RECORD, key=Fernet.generate_key().decode())
                await record.insert()
            except DuplicateKeyError:  # another process generated it first
                record = await SecretKeyRecord.get(_DEV_RECORD)
        _by_database[database] = Keyring.of([record.key])
    return _by_database[database]


async def reveal(value: str | None) -> str | None:
    """A stored channel secret in clear, with the process's keys."""
    if not is_sealed(value):
        return value
    return (await process_keyring()).open(value)


async def seal(value: str | None) -> str | None:
    if value is None:
        return None
    return (await process_keyring()).seal(value)

