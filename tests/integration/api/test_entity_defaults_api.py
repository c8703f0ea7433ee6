"""A declared field's ``default`` (api/query/grammar.py FieldSpec) is what a create without the field stores: the
console's new-record form starts with it, so a switch shows what saving will store. Each declaration is held to
the migrated schema's column DEFAULT, and every switch (a bool the form creates) whose column has one declares
it: a switch cannot show "unset", so without it a new platform's "enabled" showed off and was created on."""

from __future__ import annotations

import json
from typing import Any

from api.query.entities import QUERYABLE
from warehouse.db import connect


def _parsed(default: str) -> Any:
    """A column DEFAULT as information_schema writes it: true, 30, '2019'::text, '[]'::jsonb."""
    text = default.split("::")[0].strip()
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("'") and text.endswith("'"):
        inner = text[1:-1].replace("''", "'")
        return json.loads(inner) if "::json" in default else inner
    try:
        return int(text)
    except ValueError:
        return float(text)


def test_declared_defaults_are_the_schemas_and_every_switch_declares_its_own(pg_url: str) -> None:
    with connect(pg_url) as conn:
        defaults = {(t, c): d for t, c, d in conn.execute(
            "SELECT table_name, column_name, column_default FROM information_schema.columns"
            " WHERE table_schema = 'public' AND column_default IS NOT NULL").fetchall()}
    checked, wrong = 0, []
    for entity in QUERYABLE.values():
        if not entity.table:
            continue
        for name, field in entity.fields.items():
            if not field.create or field.virtual:
                continue
            column = defaults.get((entity.table, field.column))
            if field.default is not None:
                checked += 1
                if column is None or _parsed(column) != field.default:
                    wrong.append(f"{entity.name}.{name}: declared {field.default!r}, column DEFAULT {column}")
            elif field.type == "bool" and column is not None:
                wrong.append(f"{entity.name}.{name}: a switch whose column defaults to {column} declares no default")
    assert wrong == []
    assert checked >= 8  # the exchange platforms' enabled / encrypted, the notification rules' switches
