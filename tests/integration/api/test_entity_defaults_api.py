"""A new record's form starts with what a create without a field stores: the meta of an entity
(``GET /api/common/meta/{entity}.json``) gives each field a create may set the ``default`` of its column, read
from the schema (warehouse/queries/records.py ``column_defaults``). Before, a new platform's "enabled" switch
showed off and the platform was created on."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from api.query.entities import QUERYABLE
from warehouse.db import connect
from warehouse.queries.records import column_defaults

Login = Any


def _defaults(client: FlaskClient, headers: dict[str, str], entity: str) -> dict[str, Any]:
    meta = client.get(f"/api/common/meta/{entity}.json", headers=headers).json["data"]  # type: ignore[index]
    return {f["name"]: f["default"] for f in meta["fields"]}


def test_a_fields_default_is_what_its_column_stores_when_a_create_leaves_it_out(client: FlaskClient,
                                                                                login: Login) -> None:
    headers = login("admin")
    platform = _defaults(client, headers, "superiorPlatform")
    assert (platform["enabled"], platform["encrypted"], platform["version"], platform["positionInterval"]) == \
        (True, False, "2019", 30)
    assert platform["name"] is None and platform["createdAt"] is None  # no DEFAULT; not set by a create
    car = _defaults(client, headers, "car")
    assert car["plateColor"] == 2
    rule = _defaults(client, headers, "platformAlarmNotifyRule")
    assert (rule["windowEnable"], rule["voiceEnable"]) == (True, False)


def test_every_switch_a_create_sets_starts_as_its_column_stores(pg_url: str) -> None:
    """A switch cannot show "unset": each bool a create may set has a constant DEFAULT, so the form shows it."""
    with connect(pg_url) as conn:
        defaults = column_defaults(conn)
    switches = [(e.name, name, (e.table, f.column)) for e in QUERYABLE.values() if e.table
                for name, f in e.fields.items() if f.create and not f.virtual and f.type == "bool"]
    assert len(switches) >= 8
    assert [(entity, name) for entity, name, column in switches if not isinstance(defaults.get(column), bool)] == []



def test_a_column_the_declaration_presents_otherwise_gives_no_default(client: FlaskClient, login: Login) -> None:
    """A fence's attributes are kept as bits (DEFAULT 0) and read and written as a list: no default."""
    fence = _defaults(client, login("admin"), "fence")
    assert fence["attributes"] is None
