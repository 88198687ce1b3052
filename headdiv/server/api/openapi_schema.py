"""The published schema says what the API enforces: unknown multipart form fields are refused too.

Request bodies that are pydantic models say `additionalProperties: false` by themselves; the body of a
multipart route is a model FastAPI writes from the form parameters, without it. The model-upload route
refuses unknown fields (headdiv/server/api/routes/models_routes.py), so its schema says so.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI


def _forbid_unknown_form_fields(schema: dict[str, Any]) -> None:
    components = schema.get("components", {}).get("schemas", {})
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            content = operation.get("requestBody", {}).get("content", {})
            ref = content.get("multipart/form-data", {}).get("schema", {}).get("$ref", "")
            name = ref.rsplit("/", 1)[-1]
            if name in components:
                components[name]["additionalProperties"] = False


def install_openapi(app: FastAPI) -> None:
    build = app.openapi  # FastAPI's own, which caches its result in app.openapi_schema

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            _forbid_unknown_form_fields(build())
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
