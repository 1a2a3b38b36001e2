"""The base of every organisation-owned document: tenancy is enforced here, once.

`TenantDocument.find_many/find_one/aggregate` refuse a query that is not scoped by `org_id`,
so a forgotten scope fails loudly in tests instead of leaking another organisation's data.
Code reads through `find_in`/`get_in` (which merge the organisation into one filter dict,
the shape SecantusDB index-accelerates); system jobs that must cross organisations say so
with `find_across_orgs`.
"""
from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from decimal import Decimal
from typing import Annotated, Any, Iterable, Protocol

from beanie import Document, PydanticObjectId
from bson import Decimal128, ObjectId
from pydantic import BeforeValidator, ConfigDict, Field
from pymongo import ASCENDING, IndexModel, InsertOne
from pymongo.errors import BulkWriteError
from pymongo.results import BulkWriteResult, DeleteResult, UpdateResult


# Money is stored exactly (Decimal128) and read back as Decimal.
Money = Annotated[Decimal, BeforeValidator(lambda v: v.to_decimal() if isinstance(v, Decimal128) else v)]


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class HasOrg(Protocol):
    org_id: ObjectId


OrgRef = ObjectId | HasOrg


def org_of(ref: OrgRef) -> ObjectId:
    return ref if isinstance(ref, ObjectId) else ref.org_id


DUPLICATE_KEY = 11000


class TenancyError(RuntimeError):
    """A query on an organisation-owned collection without the organisation in its filter."""


def _require_org(cls: type, args: tuple) -> None:
    if len(args) == 1 and isinstance(args[0], dict) and "org_id" in args[0]:
        return
    raise TenancyError(f"{cls.__name__} queried without org_id; use find_in/get_in (got {args!r})")


class _TenantQuery:
    """Beanie's `find_one`/`find_many`, guarded.

    Called on the class, a filter without `org_id` is refused. Called on an instance (as Beanie
    itself does inside save, replace, delete and sync), the instance's organisation is added.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None):
        objtype = objtype or type(obj)
        beanie_method = getattr(Document, self.name).__func__

        if obj is None:
            def guarded(*args: Any, **kwargs: Any):
                _require_org(objtype, args)
                return beanie_method(objtype, *args, **kwargs)

            return guarded

        def scoped(filter: dict[str, Any], *args: Any, **kwargs: Any):
            return beanie_method(objtype, {**filter, "org_id": obj.org_id}, *args, **kwargs)

        return scoped


# SecantusDB uses an index only when a filter's fields are exactly a prefix of its key, so the
# `{_id, org_id}` shape of get_in and of Beanie's scoped saves needs an index of its own.
ID_ORG_INDEX = IndexModel([("_id", ASCENDING), ("org_id", ASCENDING)], name="_id_org_id")


# SecantusDB answers an `$in` read in time growing faster than its matches (500 found ids: ~150 ms,
# ten reads of 50: ~30 ms), so lists are read IN_BATCH values per command, a few commands at once.
IN_BATCH = 50
# Groups read at once: a few keep the database busy; thousands (100,000 ids) would exhaust the
# connection pool and time out waiting for it.
IN_BATCH_CONCURRENCY = 4


async def in_batches(values: Iterable[Any], read) -> list[Any]:
    """`read(group)` for each IN_BATCH-sized group of the distinct values, results concatenated."""
    wanted = list(dict.fromkeys(values))
    if not wanted:
        return []
    groups = [wanted[i:i + IN_BATCH] for i in range(0, len(wanted), IN_BATCH)]
    if len(groups) == 1:
        return await read(groups[0])
    gate = asyncio.Semaphore(IN_BATCH_CONCURRENCY)

    async def one(group: list) -> list:
        async with gate:
            return await read(group)

    return [row for rows in await asyncio.gather(*(one(g) for g in groups)) for row in rows]


class TenantDocument(Document):
    org_id: PydanticObjectId
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        settings = cls.__dict__.get("Settings")
        if settings is not None:
            indexes = list(getattr(settings, "indexes", []))
            if not any(getattr(i, "document", {}).get("name") == "_id_org_id" for i in indexes):
                settings.indexes = [*indexes, ID_ORG_INDEX]

    # --- the organisation-scoped read API --------------------------------------------------
    @classmethod
    def scoped(cls, ref: OrgRef, filter: dict[str, Any] | None = None) -> dict[str, Any]:
        """One merged filter dict (never `$and`), with the organisation first."""
        return {"org_id": org_of(ref), **(filter or {})}

    @classmethod
    def find_in(cls, ref: OrgRef, filter: dict[str, Any] | None = None, **kwargs: Any):
        return cls.find_many(cls.scoped(ref, filter), **kwargs)

    @classmethod
    async def find_one_in(cls, ref: OrgRef, filter: dict[str, Any] | None = None, **kwargs: Any):
        return await cls.find_one(cls.scoped(ref, filter), **kwargs)

    @classmethod
    async def get_in(cls, ref: OrgRef, doc_id: ObjectId | str | None):
        """The organisation's document with this id, or None (another organisation's is None too)."""
        if doc_id is None:
            return None
        if not isinstance(doc_id, ObjectId):
            if not ObjectId.is_valid(doc_id):
                return None
            doc_id = ObjectId(doc_id)
        return await cls.find_one(cls.scoped(ref, {"_id": doc_id}))

    @classmethod
    async def get_many_in(cls, ref: OrgRef, ids: Iterable[ObjectId]) -> list[Any]:
        """The organisation's documents among these ids; other organisations' are dropped.

        The filter is `{_id: {$in}}` alone: SecantusDB's planner uses no index for an `$in` on a key
        followed by other fields (`{org_id, _id: {$in}}` scans the collection), so the organisation is
        checked on the documents instead. Read IN_BATCH ids per command (see `in_batches`)."""
        org = org_of(ref)

        async def read(group: list) -> list:
            return await cls.find_across_orgs({"_id": {"$in": group}}).to_list()

        return [d for d in await in_batches(ids, read) if d.org_id == org]

    @classmethod
    async def find_raw_by_ids_in(cls, ref: OrgRef, ids: Iterable[ObjectId],
                                 projection: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """`get_many_in` as raw rows (a projection keeps `org_id` for the check)."""
        org = org_of(ref)
        fields = None if projection is None else {**projection, "org_id": 1}
        collection = cls.get_pymongo_collection()

        async def read(group: list) -> list:
            return await collection.find({"_id": {"$in": group}}, fields).to_list()

        return [row for row in await in_batches(ids, read) if row.get("org_id") == org]

    @classmethod
    async def find_in_each(cls, ref: OrgRef, field: str, values: Iterable[Any],
                           filter: dict[str, Any] | None = None) -> list[Any]:
        """The organisation's documents whose `field` is one of `values` (IN_BATCH per command)."""
        async def read(group: list) -> list:
            return await cls.find_many(cls.scoped(ref, {**(filter or {}), field: {"$in": group}})).to_list()

        return await in_batches(values, read)

    @classmethod
    async def find_raw_in_each(cls, ref: OrgRef, field: str, values: Iterable[Any],
                               filter: dict[str, Any] | None = None,
                               projection: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """`find_in_each` as raw rows."""
        collection = cls.get_pymongo_collection()

        async def read(group: list) -> list:
            return await collection.find(cls.scoped(ref, {**(filter or {}), field: {"$in": group}}), projection).to_list()

        return await in_batches(values, read)

    @classmethod
    async def find_raw_across_orgs_each(cls, field: str, values: Iterable[Any],
                                        projection: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """System work: rows of any organisation whose `field` is one of `values` (IN_BATCH per command)."""
        collection = cls.get_pymongo_collection()

        async def read(group: list) -> list:
            return await collection.find({field: {"$in": group}}, projection).to_list()

        return await in_batches(values, read)

    @classmethod
    async def count_in(cls, ref: OrgRef, filter: dict[str, Any] | None = None) -> int:
        return await cls.get_pymongo_collection().count_documents(cls.scoped(ref, filter))

    @classmethod
    def new(cls, ref: OrgRef, **fields: Any):
        return cls(org_id=org_of(ref), **fields)

    # --- guards on Beanie's own entry points (see _TenantQuery) -----------------------------
    model_config = ConfigDict(ignored_types=(_TenantQuery,))
    find_many = _TenantQuery("find_many")
    find_one = _TenantQuery("find_one")

    @classmethod
    def aggregate(cls, pipeline: list[dict[str, Any]], *args: Any, **kwargs: Any):  # type: ignore[override]
        raise TenancyError(f"{cls.__name__}.aggregate: use aggregate_in(ctx, pipeline)")

    @classmethod
    async def aggregate_in(cls, ref: OrgRef, pipeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Run a pipeline on the organisation's documents: its first stage is the scoped $match.

        The organisation is set inside `pipeline[0]["$match"]` (added when the pipeline does not start
        with one), keeping one dict and the caller's field order: without an index matching the whole
        filter, SecantusDB narrows by the first field, so a caller may put its most selective first.
        The documents come back raw.
        """
        stages = list(pipeline)
        match = stages.pop(0)["$match"] if stages and "$match" in stages[0] else {}
        # Beanie's Document.aggregate goes through find_all(), which the guard refuses; use pymongo.
        scoped = {**match, "org_id": org_of(ref)}
        cursor = await cls.get_pymongo_collection().aggregate([{"$match": scoped}, *stages])
        return await cursor.to_list()

    # --- raw (pymongo) access, scoped the same way ------------------------------------------
    # For what Beanie's documents do not express: conditional and multi-document updates, projections
    # of raw rows, bulk writes. Domain code never touches the collection itself (a test scans for it).
    @classmethod
    async def find_raw_in(cls, ref: OrgRef, filter: dict[str, Any] | None = None,
                          projection: dict[str, Any] | None = None, *, sort: list | None = None,
                          limit: int = 0) -> list[dict[str, Any]]:
        cursor = cls.get_pymongo_collection().find(cls.scoped(ref, filter), projection)
        if sort:
            cursor = cursor.sort(sort)
        if limit:
            cursor = cursor.limit(limit)
        return await cursor.to_list()

    @classmethod
    async def find_one_raw_in(cls, ref: OrgRef, filter: dict[str, Any] | None = None,
                              projection: dict[str, Any] | None = None) -> dict[str, Any] | None:
        return await cls.get_pymongo_collection().find_one(cls.scoped(ref, filter), projection)

    @classmethod
    async def update_one_in(cls, ref: OrgRef, filter: dict[str, Any], update: dict[str, Any] | list,
                            **kwargs: Any) -> UpdateResult:
        return await cls.get_pymongo_collection().update_one(cls.scoped(ref, filter), update, **kwargs)

    @classmethod
    async def update_many_in(cls, ref: OrgRef, filter: dict[str, Any], update: dict[str, Any] | list,
                             **kwargs: Any) -> UpdateResult:
        return await cls.get_pymongo_collection().update_many(cls.scoped(ref, filter), update, **kwargs)

    @classmethod
    async def find_one_and_update_in(cls, ref: OrgRef, filter: dict[str, Any], update: dict[str, Any] | list,
                                     **kwargs: Any) -> dict[str, Any] | None:
        return await cls.get_pymongo_collection().find_one_and_update(cls.scoped(ref, filter), update, **kwargs)

    @classmethod
    async def delete_one_in(cls, ref: OrgRef, filter: dict[str, Any]) -> DeleteResult:
        return await cls.get_pymongo_collection().delete_one(cls.scoped(ref, filter))

    @classmethod
    async def delete_many_in(cls, ref: OrgRef, filter: dict[str, Any]) -> DeleteResult:
        return await cls.get_pymongo_collection().delete_many(cls.scoped(ref, filter))

    @classmethod
    async def bulk_write_in(cls, ref: OrgRef, requests: list, *, ordered: bool = False) -> BulkWriteResult:
        """A bulk write whose every request is the organisation's: each filter (or inserted document)
        must hold this `org_id`, else TenancyError before anything is written."""
        org = org_of(ref)
        for request in requests:
            scope = request._doc if isinstance(request, InsertOne) else request._filter
            if not isinstance(scope, dict) or scope.get("org_id") != org:
                raise TenancyError(f"{cls.__name__}.bulk_write_in: a request outside organisation {org}: {request!r}")
        return await cls.get_pymongo_collection().bulk_write(requests, ordered=ordered)

    @classmethod
    async def insert_many_in(cls, ref: OrgRef, documents: list["TenantDocument"]) -> set[int]:
        """`insert_many_across_orgs` for documents of this organisation only (checked first)."""
        org = org_of(ref)
        if any(document.org_id != org for document in documents):
            raise TenancyError(f"{cls.__name__}.insert_many_in: a document outside organisation {org}")
        return await cls.insert_many_across_orgs(documents)

    # --- the explicit escape hatch for system work (jobs, webhooks, auth) -----------------
    @classmethod
    def find_across_orgs(cls, filter: dict[str, Any], **kwargs: Any):
        return Document.find_many.__func__(cls, filter, **kwargs)

    @classmethod
    def find_one_across_orgs(cls, filter: dict[str, Any], **kwargs: Any):
        return Document.find_one.__func__(cls, filter, **kwargs)

    @classmethod
    async def bulk_write_across_orgs(cls, requests: list, *, ordered: bool = False) -> BulkWriteResult:
        """System work addressing documents of several organisations (by id, say) in one round trip."""
        return await cls.get_pymongo_collection().bulk_write(requests, ordered=ordered)

    @classmethod
    async def find_raw_across_orgs(cls, filter: dict[str, Any],
                                   projection: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return await cls.get_pymongo_collection().find(filter, projection).to_list()

    @classmethod
    async def update_many_across_orgs(cls, filter: dict[str, Any], update: dict[str, Any]) -> UpdateResult:
        return await cls.get_pymongo_collection().update_many(filter, update)

    @classmethod
    async def insert_many_across_orgs(cls, documents: list["TenantDocument"]) -> set[int]:
        """Insert in one unordered command, documents of any organisations (each carries its own).

        Returns the positions refused by a unique index (a redelivery, a concurrent creator); the rest
        are stored. Any other write error raises. Ids are assigned here, so callers know them.
        """
        if not documents:
            return set()
        for document in documents:
            if document.id is None:
                document.id = ObjectId()
        try:
            await cls.insert_many(documents, ordered=False)
        except BulkWriteError as exc:
            errors = exc.details.get("writeErrors", [])
            if any(e.get("code") != DUPLICATE_KEY for e in errors):
                raise
            return {e["index"] for e in errors}
        return set()
