"""schemathesis against /openapi.json with every check it has (`--checks all`): no 5xx, every response
conforms to the documented schema, schema-valid data is accepted and invalid data refused.

Scaled mode with no worker on the queue: every accepted job stays queued, so the generated
requests exercise validation, submission, polling and cancel without burning CPU on the engine.
(schemathesis's own pytest plugin does not load under this pytest, so each operation's
hypothesis strategy is driven directly, one test per operation.)
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, CheckContext, load_all_checks
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from headdiv.server.main import create_app
from tests.server.conftest import embedded_settings, rq_settings

pytestmark = [pytest.mark.redis, pytest.mark.slow]

_SPEC = create_app(embedded_settings(), mount_dashboard=False).openapi()
OPERATIONS = sorted(f"{method.upper()} {path}" for path, ops in _SPEC["paths"].items() for method in ops)
# negative data needs something to negate: operations without parameters or body have no invalid request
NEGATABLE = {
    f"{method.upper()} {path}"
    for path, ops in _SPEC["paths"].items()
    for method, op in ops.items()
    if op.get("parameters") or op.get("requestBody")
}
CASES = [(op, GenerationMode.POSITIVE) for op in OPERATIONS] + [
    (op, GenerationMode.NEGATIVE) for op in OPERATIONS if op in NEGATABLE
]


def test_the_schema_lists_the_service_endpoints() -> None:
    for expected in (
        "GET /api/v1/health",
        "POST /api/v1/simulations",
        "POST /api/v1/surfaces",
        "POST /api/v1/architectures",
        "POST /api/v1/sweeps/diversity",
        "POST /api/v1/trainings",
        "GET /api/v1/jobs/{job_id}",
        "DELETE /api/v1/jobs/{job_id}",
        "POST /api/v1/hdi",
        "GET /api/v1/theory/architecture",
    ):
        assert expected in OPERATIONS


def accepts_valid_data_but_for_documented_rules(ctx: CheckContext, response: Any, case: schemathesis.Case) -> Any:
    """`positive_data_acceptance`, except a 422 whose every error is a rule between fields or a work budget
    (a `value_error` of a model validator: the `x-rules` of the request's schema, listed in docs/api.md),
    which JSON Schema cannot state, so schema-valid data may rightly break one. A type, missing-field or
    unknown-key 422 on schema-valid data is still a failure."""
    if response.status_code == 422:
        detail = response.json().get("detail")
        if isinstance(detail, list) and detail and all(d.get("type") == "value_error" for d in detail):
            return None
    return positive_data_acceptance(ctx, response, case)


def rejects_invalid_data_or_refuses_its_size(ctx: CheckContext, response: Any, case: schemathesis.Case) -> Any:
    """`negative_data_rejection`, where a 413 also counts as a rejection: invalid data generated past the
    body limit (a list far over its `maxItems`) is refused before it is parsed, as the API documents."""
    if response.status_code == 413:
        return None
    return negative_data_rejection(ctx, response, case)


def all_checks() -> list[Any]:
    """Every check schemathesis has (`--checks all`), positive data acceptance and negative data rejection as
    above."""
    load_all_checks()
    replaced = (positive_data_acceptance, negative_data_rejection)
    checks: list[Any] = [c for c in CHECKS.get_all() if c not in replaced]
    return [*checks, accepts_valid_data_but_for_documented_rules, rejects_invalid_data_or_refuses_its_size]


@pytest.mark.parametrize(("operation_id", "mode"), CASES, ids=[f"{op}-{mode.value}" for op, mode in CASES])
def test_operation_conforms_to_its_schema(
    redis_url: str, queue_name: str, operation_id: str, mode: GenerationMode
) -> None:
    app = create_app(rq_settings(redis_url, queue_name, max_wait_s=0.1), mount_dashboard=False)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    method, path = operation_id.split(" ", 1)
    operation = schema[path][method]
    checks = all_checks()

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case: schemathesis.Case) -> None:
        # a generous read timeout: the first lesson imports the engine, slow on a busy 2-core machine
        case.call_and_validate(checks=checks, timeout=120)

    check()
