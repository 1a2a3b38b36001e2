"""Lead categories, addressed by name case-insensitively (spec: Lead segmentation 4, 5)."""
from __future__ import annotations

from dataclasses import dataclass

from leadline.models.leads import LeadCategory, LeadSegmentation
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.json_limits import clip
from leadline.resolvers.leads import cascade, store
from leadline.resolvers.leads.writes import CategoryWrite, Problems, category, category_changes, name_key


@dataclass(frozen=True)
class CategoryList:
    categories: list[LeadCategory]
    categorization_enabled: bool


@dataclass(frozen=True)
class CategoryChange:
    category: LeadCategory
    contacts_updated: int


@dataclass(frozen=True)
class CategoryDeleted:
    name: str
    reassigned_to: str | None
    contacts_updated: int


def not_found(name: str) -> ApiError:
    return ApiError("CATEGORY_NOT_FOUND", f"No lead category named '{clip(name)}'.")


def exists(name: str) -> ApiError:
    return ApiError("CATEGORY_EXISTS", f"A lead category named '{clip(name)}' already exists.")


def find(config: LeadSegmentation, name: str) -> LeadCategory | None:
    key = name_key(name)
    return next((c for c in config.categories if c.name_key == key), None)


def index_of(config: LeadSegmentation, name: str) -> int:
    key = name_key(name)
    for i, c in enumerate(config.categories):
        if c.name_key == key:
            return i
    raise not_found(name)


async def list_categories(ctx: RequestContext) -> CategoryList:
    config = await store.load(ctx)
    return CategoryList(config.categories, config.isCategorizationEnabled)


async def get_category(ctx: RequestContext, name: str) -> LeadCategory:
    found = find(await store.load(ctx), name)
    if found is None:
        raise not_found(name)
    return found


async def create_category(ctx: RequestContext, write: CategoryWrite) -> LeadCategory:
    problems = Problems()
    new = category(write, "", problems)
    problems.raise_if_any()

    def change(config: LeadSegmentation) -> LeadCategory:
        if find(config, new.name) is not None:
            raise exists(new.name)
        config.categories.append(new)
        return new

    return (await store.write(ctx, change))[1]


async def update_category(ctx: RequestContext, name: str, write: CategoryWrite) -> CategoryChange:
    """A rename moves every contact of the category to the new name (one bulk update)."""
    problems = Problems()
    changes = category_changes(write, problems)
    problems.raise_if_any()

    def change(config: LeadSegmentation) -> tuple[str, LeadCategory]:
        current = config.categories[index_of(config, name)]
        old_name = current.name
        new_name = changes.get("name")
        if new_name is not None and name_key(new_name) != current.name_key and find(config, new_name) is not None:
            raise exists(new_name)
        for field, value in changes.items():
            setattr(current, field, value)
        return old_name, current

    _, (old_name, updated) = await store.write(ctx, change)
    moved = await cascade.move(ctx, old_name, updated.name) if updated.name != old_name else 0
    return CategoryChange(updated, moved)


async def delete_category(ctx: RequestContext, name: str, reassign_to: str | None) -> CategoryDeleted:
    """Refused with CATEGORY_IN_USE while contacts carry it, unless `reassign_to` names another
    category (they move there first) or is empty (they lose their category first)."""
    config = await store.load(ctx)
    doomed = find(config, name)
    if doomed is None:
        raise not_found(name)
    target: str | None = None
    if reassign_to is not None and reassign_to.strip():
        found = find(config, reassign_to)
        if found is None:
            raise not_found(reassign_to)
        if found.name_key == doomed.name_key:
            raise validation_error([detail("reassignTo", "INVALID_VALUE",
                                           "reassignTo must name another category than the one deleted")])
        target = found.name
    moved = 0
    if reassign_to is None:
        in_use = await cascade.contacts_in(ctx, doomed.name)
        if in_use:
            raise ApiError("CATEGORY_IN_USE", f"{in_use} contact{'s are' if in_use != 1 else ' is'} in lead category "
                                              f"'{clip(doomed.name)}'; pass reassignTo (another category, or empty to "
                                              f"clear) to move them first.", details={"contactCount": in_use})
    else:
        moved = await cascade.move(ctx, doomed.name, target)

    def change(config: LeadSegmentation) -> None:
        config.categories = [c for c in config.categories if c.name_key != doomed.name_key]

    await store.write(ctx, change)
    return CategoryDeleted(doomed.name, target, moved)
