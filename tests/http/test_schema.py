"""Bad input never gets a 5xx, and every response matches the published OpenAPI document:
schemathesis generates requests (valid and invalid) for every operation of the live server."""

from __future__ import annotations

import itertools
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from .conftest import Running

EXAMPLES = 12  # per operation and generation mode
CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]


def fuzz(operation: Any, mode: GenerationMode, auth: dict[str, str]) -> None:
    # Valid requests are aimed at a real memory so they reach the core, not just the lookup
    # (except the route that deletes whole memories: the others need this one).
    aim = mode is GenerationMode.POSITIVE and operation.label != "DELETE /v1/memories/{memory}"

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: schemathesis.Case) -> None:
        for name in ("memory", "context"):
            if aim and name in (case.path_parameters or {}):
                case.path_parameters[name] = "default"
        response = case.call(headers=auth, timeout=30)
        assert response.status_code < 500, (case.method, case.formatted_path, response.text)
        case.validate_response(response, checks=CHECKS)

    try:
        check()
    except Unsatisfiable:
        # Nothing invalid can be written for an operation without inputs.
        assert mode is GenerationMode.NEGATIVE, operation.label


def test_no_5xx_and_responses_match_the_schema(server: Running) -> None:
    server.db.create_memory("default")
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    auth = {"Authorization": f"Bearer {server.admin_key}"}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 40
    for operation, mode in itertools.product(operations, list(GenerationMode)):
        fuzz(operation, mode, auth)
