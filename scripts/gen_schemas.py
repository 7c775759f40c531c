"""Write schemas/*.schema.json from the code (tests check they are up to date).

    .venv/bin/python scripts/gen_schemas.py
"""

from __future__ import annotations

from pathlib import Path

from referee.ledger.schemagen import schema_names, schema_text

OUT = Path(__file__).resolve().parent.parent / "schemas"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name in schema_names():
        path = OUT / f"{name}.schema.json"
        path.write_text(schema_text(name))
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
