"""The committed schemas/ must equal the schemas generated from the code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from referee.errors import GameFileError
from referee.ledger import gamefile
from referee.ledger.schemagen import schema_names, schema_text

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.mark.parametrize("name", schema_names())
def test_committed_schema_is_current(name: str) -> None:
    path = SCHEMAS / f"{name}.schema.json"
    assert path.exists(), f"run scripts/gen_schemas.py to create {path}"
    assert path.read_text() == schema_text(name), "schema out of date: run scripts/gen_schemas.py"


@pytest.mark.parametrize("name", schema_names())
def test_schema_is_valid_2020_12(name: str) -> None:
    schema = json.loads(schema_text(name))
    jsonschema.Draft202012Validator.check_schema(schema)


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_pass_the_published_schema(path: Path) -> None:
    data = json.loads(path.read_text())
    gamefile.validate(data)
    gamefile.validate_strict(data)


MUTATIONS = [
    ("format", lambda d: d.update(format="referee/2")),
    ("extra key", lambda d: d.update(colour="red")),
    ("no players", lambda d: d.update(players=[])),
    ("bad id", lambda d: d["players"][0].update(id="Ann")),
    ("player extra", lambda d: d["players"][0].update(age=3)),
    ("option not str", lambda d: d["options"].update(x=1)),
    ("rng empty", lambda d: d.update(rng={})),
    ("bad commitment", lambda d: d.update(rng={"commitment": "md5:00"})),
    ("entry n", lambda d: d["log"][0].update(n=0)),
    ("entry prev", lambda d: d["log"][0].update(prev="xyz")),
    ("move and undo", lambda d: d["log"][0].update(undo=1)),
    ("neither", lambda d: d["log"][0].pop("move")),
    ("move type", lambda d: d["log"][0]["move"].update(type="teleport")),
    ("rules empty", lambda d: d.update(rules="")),
]


@pytest.mark.parametrize(("label", "mutate"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_both_validators_reject_the_same_mutations(label: str, mutate: Any) -> None:
    """The msgspec types used on every read and the published schema agree."""
    data = json.loads(EXAMPLES[0].read_text())
    mutate(data)
    with pytest.raises(GameFileError):
        gamefile.validate(data)
    with pytest.raises(GameFileError):
        gamefile.validate_strict(data)


# --- the typed records (referee/ledger/records.py) name the file format's fields ----------
RECORDS = [("Header", "GameFileDoc"), ("PlayerRecord", "FilePlayer"), ("BotRecord", "FileBot"),
           ("RngRecord", "FileRng"), ("ClockRecord", "FileClock"),
           ("RematchOf", "FileRematchOf"), ("Entry", "LogEntry")]


@pytest.mark.parametrize(("typed", "struct"), RECORDS)
def test_each_typed_record_has_the_fields_of_its_struct(typed: str, struct: str) -> None:
    """A TypedDict the code builds a part of a file with has exactly the keys of the
    Struct that checks that part on reading, and requires none the Struct does not."""
    from referee.ledger import records, schema

    keys = getattr(records, typed)
    fields = getattr(schema, struct)
    assert keys.__required_keys__ | keys.__optional_keys__ == set(fields.__struct_fields__)
    required = {f.name for f in msgspec.structs.fields(fields) if f.required}
    assert keys.__required_keys__ <= required


def test_the_meta_fields_are_those_of_every_meta_record() -> None:
    import typing

    from referee.ledger import records, schema

    kinds = typing.get_args(schema.MetaRecord)
    every = {"kind"} | {name for kind in kinds for name in kind.__struct_fields__}
    keys = records.MetaFields
    assert keys.__required_keys__ | keys.__optional_keys__ == every
    assert keys.__required_keys__ == {"kind"}
