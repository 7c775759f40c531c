"""The committed schemas/ must equal the schemas generated from the code."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from referee.schema import schema_names, schema_text

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


@pytest.mark.parametrize("name", schema_names())
def test_committed_schema_is_current(name: str) -> None:
    path = SCHEMAS / f"{name}.schema.json"
    assert path.exists(), f"run scripts/gen_schemas.py to create {path}"
    assert path.read_text() == schema_text(name), "schema out of date: run scripts/gen_schemas.py"


@pytest.mark.parametrize("name", schema_names())
def test_schema_is_valid_2020_12(name: str) -> None:
    schema = json.loads(schema_text(name))
    jsonschema.Draft202012Validator.check_schema(schema)
