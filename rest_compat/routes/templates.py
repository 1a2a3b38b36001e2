"""Template routes (spec: Endpoints → Templates). Error bodies of this group carry `error: true`."""
from __future__ import annotations

from leadline.rest_compat.table import ERROR_MARKER, Route, spread

TEMPLATE = "_id templateId name language category status quality_score rejectedReason components brandNumber " \
           "createdAt updatedAt"

ROUTES = [
    Route("GET", "/v2.0/templates", "templates:read", summary="List templates", marker=ERROR_MARKER,
          operation=f"""query($status: String, $category: String) {{
              templates(status: $status, category: $category) {{ data {{ {TEMPLATE} }} total }} }}""",
          reply=spread),
    Route("GET", "/v2.0/templates/{id}", "templates:read", summary="Get a template", marker=ERROR_MARKER,
          operation=f"""query($id: String!) {{ template(id: $id) {{ {TEMPLATE} group {{ _id name }} }} }}"""),
    Route("POST", "/v2.0/templates", "templates:write", summary="Submit a template for review", marker=ERROR_MARKER,
          body="input", status=201,
          operation="""mutation($input: CreateTemplateInput!) {
              createTemplate(input: $input) { templateDbId templateId name language category status } }"""),
]
