"""The one runner every entry point goes through: REST, GraphQL, MCP, and jobs acting for an organisation.

An operation's declaration (`OperationSpec`) says once what it needs and what it may do: its scope,
plan feature and limits, the error codes it raises, the events it emits, its internal error code.
`run` enforces the first three before the domain function runs (so no entry point can forget them)
and holds the declaration in a context variable while it runs, so the shared mechanisms can check
that what happens was declared: `limit_of` (plan limits), `emit` (events) and the runner itself
(error codes). An undeclared limit, event or error code is a declaration bug: in development and
tests it fails the call loudly; in production it is logged and the call proceeds.
"""
from __future__ import annotations

import contextvars
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal

from leadline.resolvers.auth.scopes import FULL_ACCESS, SCOPES, require_scope
from leadline.resolvers.billing.plans import FEATURES, LIMIT_KEYS, require_feature
from leadline.resolvers.context import RequestContext
from leadline.resolvers.errors import ERROR_STATUS, ApiError, internal_as

log = logging.getLogger("leadline.operations")

Kind = Literal["query", "mutation"]

# Codes any operation may give without declaring them: malformed input, refusals of the key or
# organisation made here, and the generic internal error.
COMMON_ERRORS = frozenset({"VALIDATION_ERROR", "INTERNAL_SERVER_ERROR", "INSUFFICIENT_SCOPE", "ORG_INACTIVE",
                           "ORG_ID_MISSING"})


class DeclarationError(RuntimeError):
    """An operation did something its declaration does not say (or a declaration is malformed)."""


@dataclass(frozen=True)
class OperationSpec:
    name: str
    kind: Kind
    # A scope of the catalogue, or "*": only full-access keys (legacy keys and scope `*`).
    scope: str
    feature: str | None = None
    limits: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    # The group's internal code (e.g. CHAT_HISTORY_FAILED) an unexpected exception becomes.
    internal: str | None = None

    def __post_init__(self) -> None:
        where = f"operation {self.name!r}"
        if not self.scope:
            raise DeclarationError(f"{where} declares no scope")
        if self.scope != FULL_ACCESS and self.scope not in SCOPES:
            raise DeclarationError(f"{where}: unknown scope {self.scope!r}")
        unknown = [c for c in (*self.errors, *((self.internal,) if self.internal else ())) if c not in ERROR_STATUS]
        if unknown:
            raise DeclarationError(f"{where}: unknown error codes {unknown}")
        if [k for k in self.limits if k not in LIMIT_KEYS] or (self.feature and self.feature not in FEATURES):
            raise DeclarationError(f"{where}: unknown plan limit or feature in {self.limits}, {self.feature!r}")

    @property
    def allowed_errors(self) -> frozenset[str]:
        implied = {"LIMIT_EXCEEDED"} if self.limits else set()
        if self.feature:
            implied.add("FEATURE_NOT_ENABLED")
        if self.internal:
            implied.add(self.internal)
        return COMMON_ERRORS | set(self.errors) | implied


_current: contextvars.ContextVar[OperationSpec | None] = contextvars.ContextVar("leadline_operation", default=None)


def current_operation() -> OperationSpec | None:
    return _current.get()


def authorize(ctx: RequestContext, spec: OperationSpec) -> None:
    """Scope, organisation state and plan feature: the checks no entry point may skip."""
    if spec.scope == FULL_ACCESS:
        if ctx.key is None or not ctx.key.full_access:
            raise ApiError("INSUFFICIENT_SCOPE", "This operation needs a full-access API key.",
                           required_scope=FULL_ACCESS)
    else:
        require_scope(ctx, spec.scope)
    if ctx.org is not None and not ctx.org.is_active:
        raise ApiError("ORG_INACTIVE", "This organisation is inactive.")
    if spec.feature:
        require_feature(ctx, spec.feature)


async def run(ctx: RequestContext, spec: OperationSpec, fn: Callable[..., Awaitable[Any]], /, **kwargs: Any) -> Any:
    """Authorise, then call the domain function with the declaration in force."""
    authorize(ctx, spec)
    token = _current.set(spec)
    try:
        if spec.internal:
            with internal_as(spec.internal):
                return await fn(ctx, **kwargs)
        return await fn(ctx, **kwargs)
    except ApiError as err:
        if err.code not in spec.allowed_errors:
            undeclared(ctx, f"raised {err.code}, which it does not declare")
        raise
    finally:
        _current.reset(token)


def check_declared(ctx: RequestContext | None, what: str, value: str) -> None:
    """Called by the shared mechanisms: `what` is "limits" or "events"."""
    spec = _current.get()
    if spec is not None and value not in getattr(spec, what):
        undeclared(ctx, f"used {what[:-1]} {value!r}, which it does not declare")


def undeclared(ctx: RequestContext | None, problem: str) -> None:
    spec = _current.get()
    message = f"operation {spec.name if spec else '?'} {problem}"
    strict = ctx is None or ctx.services.settings.is_development
    if strict:
        raise DeclarationError(message)
    log.warning(message)
