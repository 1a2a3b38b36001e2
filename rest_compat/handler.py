"""The one generic /v2.0 handler: request → variables → pre-parsed GraphQL operation → envelope.

Bodies are decoded by `load_json` (shared with /graphql): malformed, too deeply nested for the decoder,
or holding an unpaired surrogate escape is INVALID_JSON; a NUL character anywhere is VALIDATION_ERROR.
Every `JSON` value among the variables is checked against the free-form limits before execution
(schema/scalars.py: check_variables), so a refusal names the value's body path (`lead_segments.a.b`).
"""
from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web
from graphql import GraphQLError, execute
from strawberry.execution import optimized_is_awaitable

from leadline.resolvers.errors import ApiError, detail, validation_error
from leadline.resolvers.json_limits import body_problem, clip
from leadline.resolvers.runner import authorize
from leadline.rest_compat.compile import CompiledRoute, VariableSpec
from leadline.rest_compat.envelope import success_response
from leadline.rest_compat.idempotency import is_idempotent, run_idempotent
from leadline.rest_compat.request_keys import CTX, MARKER
from leadline.schema import mask_error
from leadline.schema.scalars import check_variables

_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no"}


def _coerce_query(spec: VariableSpec, raw: str) -> Any:
    if "\x00" in raw:
        raise validation_error([detail(spec.name, "INVALID_VALUE", f"{spec.name} must not contain a null character "
                                                                   "(U+0000)")])
    if spec.type_name in ("String", "ID"):
        return raw
    if spec.type_name == "Int":
        try:
            return int(raw)
        except ValueError:
            raise validation_error([detail(spec.name, "INVALID_TYPE", f"{spec.name} must be an integer")]) from None
    if spec.type_name == "Float":
        try:
            return float(raw)
        except ValueError:
            raise validation_error([detail(spec.name, "INVALID_TYPE", f"{spec.name} must be a number")]) from None
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise validation_error([detail(spec.name, "INVALID_TYPE", f"{spec.name} must be true or false")])


def load_json(raw: bytes | str) -> Any:
    """A request body (or a JSON query parameter) decoded; INVALID_JSON when it is not valid JSON, is
    nested deeper than the decoder goes (about 900 levels) or holds an unpaired surrogate escape;
    VALIDATION_ERROR for a NUL character in any key or string."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise ApiError("INVALID_JSON", "The request body is nested too deeply to be read.") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError("INVALID_JSON", f"The request body is not valid JSON: {clip(exc)}") from None
    # Both can only arrive as \u escapes: skip the walk for the bodies (most) without one.
    escaped = b"\\u" in raw if isinstance(raw, bytes) else "\\u" in raw
    if escaped and (problem := body_problem(value)) is not None:
        raise problem
    return value


async def read_json_object(request: web.Request) -> dict[str, Any]:
    """The request body as a JSON object; an empty body is an empty object."""
    raw = await request.read()
    if not raw.strip():
        return {}
    ctype = request.content_type
    if request.headers.get("Content-Type") and ctype != "application/json" and not ctype.endswith("+json"):
        raise ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the body as JSON with 'Content-Type: application/json'.")
    body = load_json(raw)
    if not isinstance(body, dict):
        raise ApiError("INVALID_BODY", "The request body must be a JSON object.")
    return body


async def collect_variables(request: web.Request, compiled: CompiledRoute) -> dict[str, Any]:
    values: dict[str, Any] = {}
    specs = compiled.variables
    for name, spec in specs.items():
        if name in request.match_info:
            values[name] = _coerce_query(spec, request.match_info[name])
        elif name in request.query and not (compiled.body == "input" and name == "input"):
            values[name] = _coerce_query(spec, request.query[name])
    if compiled.body == "input":
        values["input"] = await read_json_object(request)
    elif compiled.body == "fields":
        body = await read_json_object(request)
        unknown = [k for k in body if k not in specs]
        if unknown:
            raise validation_error([detail(clip(k), "UNKNOWN_FIELD", f"'{clip(k)}' is not a field of this request")
                                    for k in unknown[:20]])
        for name, value in body.items():
            values.setdefault(name, value)
    return values


_VARIABLE = re.compile(r"^Variable '\$(\w+)' has invalid value(?: at ([^:]+))?: (.*)$", re.S)
_UNKNOWN_FIELD = re.compile(r"not to include unknown field '([^']+)'")
_MISSING_FIELD = re.compile(r"Field '([^']+)' of required type '[^']+' was not provided")


def _body_path(variable: str, at: str | None) -> str:
    """`$input` at `.items[2].name` -> `items[2].name`; other variables keep their own name."""
    at = (at or "").lstrip(".")
    if variable == "input":
        return at
    return f"{variable}.{at}" if at else variable


def variable_error(error: GraphQLError) -> ApiError:
    """graphql-core's variable-coercion messages as VALIDATION_ERROR details with body paths."""
    match = _VARIABLE.match(error.message)
    if match is None:
        return validation_error([detail("body", "INVALID_VALUE", clip(error.message, 300))])
    variable, at, text = match.groups()
    path, code = _body_path(variable, at), "INVALID_TYPE"
    if unknown := _UNKNOWN_FIELD.search(text):
        path = ".".join(p for p in (path, clip(unknown.group(1))) if p)
        code, text = "UNKNOWN_FIELD", f"'{clip(unknown.group(1))}' is not a known field"
    elif missing := _MISSING_FIELD.search(text):
        path = ".".join(p for p in (path, missing.group(1)) if p)
        code, text = "REQUIRED", f"'{missing.group(1)}' is required"
    # graphql-core's messages quote the value (up to 240 characters of it).
    return validation_error([detail(clip(path or "body"), code, clip(text, 300))])


def _is_variable_error(error: GraphQLError) -> bool:
    return error.path is None and error.message.startswith("Variable '$")


def to_api_error(error: GraphQLError) -> ApiError:
    original = error.original_error
    if isinstance(original, ApiError):
        return original
    if _is_variable_error(error):
        return variable_error(error)
    masked = mask_error(error)  # logs the unexpected exception
    return ApiError.from_extensions(masked.message, masked.extensions or {"code": "INTERNAL_SERVER_ERROR"})


def make_handler(strawberry_schema, compiled: CompiledRoute):
    op, binding = compiled.operation, compiled.binding
    graphql_schema = strawberry_schema._schema
    operation_ast = compiled.document.definitions[0]
    executor_kwargs = {"executor_class": strawberry_schema.execution_context_class}

    idempotent = is_idempotent(compiled)

    async def handle(request: web.Request) -> web.Response:
        request[MARKER] = op.marker
        ctx = request[CTX]
        # Refusals of the key come before anything about the body (the runner checks again: cheap).
        authorize(ctx, op.spec)
        if idempotent:
            return await run_idempotent(request, ctx, op.marker, lambda: answer(request, ctx))
        return await answer(request, ctx)

    async def answer(request: web.Request, ctx) -> web.Response:
        variables = await collect_variables(request, compiled)
        check_variables(graphql_schema, operation_ast, variables, body_root="input")
        result = execute(graphql_schema, compiled.document, context_value=ctx, variable_values=variables,
                         is_awaitable=optimized_is_awaitable, **executor_kwargs)
        if optimized_is_awaitable(result):
            result = await result
        if result.errors:
            raise to_api_error(result.errors[0])
        reply = binding.reply(result.data[op.name])
        return success_response(reply.body, reply.status or binding.status)

    handle.__name__ = f"rest_{binding.method.lower()}_{op.name}"
    return handle
