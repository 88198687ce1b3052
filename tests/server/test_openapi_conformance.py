"""schemathesis against /openapi.json: no 5xx, and every response conforms to the documented schema.

Scaled mode with no worker on the queue: every accepted job stays queued, so the generated
requests exercise validation, submission, polling and cancel without burning CPU on the engine.
(schemathesis's own pytest plugin does not load under this pytest, so each operation's
hypothesis strategy is driven directly, one test per operation.)
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from server.main import create_app
from tests.server.conftest import embedded_settings, rq_settings

pytestmark = [pytest.mark.redis, pytest.mark.slow]

_SPEC = create_app(embedded_settings(), mount_dashboard=False).openapi()
OPERATIONS = sorted(f"{method.upper()} {path}" for path, ops in _SPEC["paths"].items() for method in ops)


def test_the_schema_lists_the_service_endpoints() -> None:
    for expected in (
        "GET /api/v1/health",
        "POST /api/v1/simulations",
        "POST /api/v1/surfaces",
        "POST /api/v1/architectures",
        "POST /api/v1/sweeps/diversity",
        "GET /api/v1/jobs/{job_id}",
        "DELETE /api/v1/jobs/{job_id}",
        "POST /api/v1/hdi",
        "GET /api/v1/theory/architecture",
    ):
        assert expected in OPERATIONS


@pytest.mark.parametrize("operation_id", OPERATIONS)
def test_operation_conforms_to_its_schema(redis_url: str, queue_name: str, operation_id: str) -> None:
    app = create_app(rq_settings(redis_url, queue_name, max_wait_s=0.1), mount_dashboard=False)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    method, path = operation_id.split(" ", 1)
    operation = schema[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def check(case: schemathesis.Case) -> None:
        # Cross-field rules (tilts per head, shared_dims <= d_k) and the work budget cannot be written in
        # JSON Schema, so a schema-valid body may rightly get a 422: that one check is left out.
        case.call_and_validate(excluded_checks=[positive_data_acceptance])

    check()
