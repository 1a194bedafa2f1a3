"""Property-based fuzzing of the API from its own OpenAPI schema (schemathesis): valid and invalid
requests for every operation; no answer may be a server error, and every answer must match the
documented status codes and response schemas. Bounded so that CI stays short."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance
from service_support import SAMPLES, TruthReader

from service.api import create_app

app = create_app(reader=TruthReader([SAMPLES / "15-one-tile.jpg"]))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error_and_the_schema_holds(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance, response_schema_conformance])
