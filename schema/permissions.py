"""Scope requirements on GraphQL fields: `@strawberry.field(permission_classes=needs("billing:read"))`.

The REST route table reads the same declaration back (rest_compat/compile.py checks that a
route's scope equals its operation's), so a scope is written once per operation.
"""
from __future__ import annotations

from functools import cache
from typing import Any

from strawberry.permission import BasePermission

from leadline.resolvers.auth.scopes import SCOPES, require_scope


class ScopePermission(BasePermission):
    scope: str = ""

    def has_permission(self, source: Any, info: Any, **kwargs: Any) -> bool:
        require_scope(info.context, self.scope)  # raises INSUFFICIENT_SCOPE
        return True


@cache
def _permission_for(scope: str) -> type[ScopePermission]:
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")
    return type(f"Requires_{scope.replace(':', '_')}", (ScopePermission,), {"scope": scope})


def needs(scope: str) -> list[type[BasePermission]]:
    return [_permission_for(scope)]


def scope_of(field: Any) -> str | None:
    for permission in getattr(field, "permission_classes", None) or []:
        if issubclass(permission, ScopePermission):
            return permission.scope
    return None
