"""One declaration per operation, from which the GraphQL root fields, the REST routes and the MCP tools derive.

A domain's `schema/<domain>/operations.py` declares each operation once, on the thin function that
calls its domain code and converts the result to the GraphQL output type:

    ops = Operations("contacts")

    @ops.query(scope="contacts:read", description="List contacts, newest first.",
               rest=Rest("GET", "/v2.0/contacts", reply=spread), mcp=McpTool("list_contacts"))
    async def contacts(ctx: RequestContext, page: int | None = None, limit: int | None = None) -> Paged[ContactType]:
        return paged(await queries.list_contacts(ctx, page, limit), ContactType.from_domain)

The function's parameters after `ctx` are the GraphQL arguments (and the REST path, query and body
fields); its return annotation is the GraphQL output type. The decorator returns an `Operation`:
calling it runs the function through the one runner (resolvers/runner.py), as the GraphQL field,
the REST route and the MCP tool do, so scope, organisation state and plan feature are always checked.

`ops.subscription` declares a GraphQL subscription (over the websocket): the function is an async
generator of `(ctx, ...)` annotated `-> AsyncGenerator[T, None]`. The runner's checks run when the
subscription starts, before the first item (a refusal is the protocol's `error` message), and each
item is produced under the declaration as a query's result is. Subscriptions have no REST route and
no MCP tool.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable

import strawberry
from strawberry.types import Info
from strawberry.utils.str_converters import to_camel_case

from leadline.resolvers.context import RequestContext
from leadline.resolvers.events import EVENT_KINDS
from leadline.resolvers.runner import DeclarationError, OperationSpec, authorize, run
from leadline.schema.bindings import SUCCESS_MARKER, ErrorMarker, McpTool, Rest


@dataclass(frozen=True)
class Operation:
    spec: OperationSpec
    fn: Callable[..., Any]
    domain: str
    description: str
    rest: Rest | None
    mcp: McpTool | None
    marker: ErrorMarker

    @property
    def name(self) -> str:
        """The GraphQL root field's name."""
        return self.spec.name

    @property
    def kind(self) -> str:
        return self.spec.kind

    async def __call__(self, ctx: RequestContext, /, **kwargs: Any) -> Any:
        if self.kind == "subscription":
            return subscribe(ctx, self.spec, self.fn, **kwargs)
        return await run(ctx, self.spec, self.fn, **kwargs)

    def field(self) -> Any:
        """The Strawberry root field: `info` in place of `ctx`, the same arguments and return type."""
        spec, fn = self.spec, self.fn

        async def resolve(info: Info, **kwargs: Any) -> Any:
            if spec.kind == "subscription":
                return subscribe(info.context, spec, fn, **kwargs)
            return await run(info.context, spec, fn, **kwargs)

        signature = inspect.signature(fn)
        arguments = list(signature.parameters.values())[1:]
        info = inspect.Parameter("info", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Info)
        resolve.__signature__ = signature.replace(parameters=[info, *arguments])  # type: ignore[attr-defined]
        # Strawberry resolves string annotations in the resolver's module: the declaring one.
        resolve.__module__ = fn.__module__
        resolve.__name__ = resolve.__qualname__ = fn.__name__
        make = {"mutation": strawberry.mutation, "subscription": strawberry.subscription}.get(self.kind)
        return (make or strawberry.field)(resolver=resolve, description=self.description)


def subscribe(ctx: RequestContext, spec: OperationSpec, fn: Callable[..., Any], **kwargs: Any) -> AsyncIterator[Any]:
    """A subscription's stream, once the runner's checks pass: they run here, before the stream is handed
    over, so a refusal is the subscription's `error` message and no item is produced."""
    authorize(ctx, spec)
    return _stream(ctx, spec, fn(ctx, **kwargs))


_END = object()


async def _next_item(ctx: RequestContext, source: Any) -> Any:
    try:
        return await source.__anext__()
    except StopAsyncIteration:
        return _END


async def _stream(ctx: RequestContext, spec: OperationSpec, source: Any) -> AsyncIterator[Any]:
    """A subscription's items, each produced through the runner (the declaration in force, error codes
    checked); the source generator is closed when the subscriber leaves."""
    try:
        while (item := await run(ctx, spec, _next_item, source=source)) is not _END:
            yield item
    finally:
        await source.aclose()


class Operations:
    """One domain's operations, in declaration order (the order of the GraphQL schema and the route table)."""

    def __init__(self, domain: str, *, marker: ErrorMarker = SUCCESS_MARKER) -> None:
        self.domain = domain
        self.marker = marker
        self.items: list[Operation] = []

    def query(self, **declaration: Any) -> Callable[[Callable[..., Any]], Operation]:
        return self._declare("query", **declaration)

    def subscription(self, **declaration: Any) -> Callable[[Callable[..., Any]], Operation]:
        """A GraphQL subscription: the function is an async generator of (ctx, ...)."""
        return self._declare("subscription", **declaration)

    def mutation(self, **declaration: Any) -> Callable[[Callable[..., Any]], Operation]:
        return self._declare("mutation", **declaration)

    def _declare(self, kind: str, *, scope: str, description: str, rest: Rest | None = None,
                 mcp: McpTool | None = None, feature: str | None = None, limits: tuple[str, ...] = (),
                 errors: tuple[str, ...] = (), events: tuple[str, ...] = (), internal: str | None = None,
                 marker: ErrorMarker | None = None) -> Callable[[Callable[..., Any]], Operation]:
        def declare(fn: Callable[..., Any]) -> Operation:
            if kind == "subscription":
                if not inspect.isasyncgenfunction(fn):
                    raise TypeError(f"{fn.__qualname__}: a subscription is an async generator of (ctx, ...)")
                if rest is not None or mcp is not None:
                    raise DeclarationError(f"{fn.__qualname__}: a subscription has no REST route or MCP tool")
            elif not inspect.iscoroutinefunction(fn):
                raise TypeError(f"{fn.__qualname__}: an operation is an async function of (ctx, ...)")
            unknown = [e for e in events if e not in EVENT_KINDS]
            if unknown:
                raise DeclarationError(f"{fn.__qualname__}: unknown event kinds {unknown}")
            spec = OperationSpec(name=to_camel_case(fn.__name__), kind=kind, scope=scope, feature=feature,
                                 limits=tuple(limits), errors=tuple(errors), events=tuple(events), internal=internal)
            op = Operation(spec, fn, self.domain, description, rest, mcp, marker or self.marker)
            self.items.append(op)
            return op

        return declare
