"""The T/JSATL12-2017 §4.2 active-safety blocks over the one command path, on the real PostgreSQL and Kafka:
8106 asks for 0xF364, 8103 sends the ADAS block given as fields (whole, encoded by the codec) to
jt808.downlink.v1 and keeps it on the command row as hex; a field out of the standard's range is a 400
naming the parameter, and nothing is written or sent."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.command_params import block_field_key
from protocols.jt808 import SetParameters, decode_body
from protocols.jt808.messages.active_safety_params import ADAS_PARAMS
from tests.integration.api.conftest import Demo, error_text
from tests.integration.api.test_commands_api import (
    Downlinked,
    Login,
    kafka_app,  # noqa: F401  (fixture)
    make_vehicle,
    rows,
)


def adas_fields(**changes: int) -> dict[str, Any]:
    values = {**ADAS_PARAMS.defaults(), **changes}
    return {block_field_key(k): v for k, v in values.items() if not k.startswith("reserved")}


def test_adas_block_read_with_8106_and_written_whole_with_8103(kafka_app: Flask, client: FlaskClient,  # noqa: F811
                                                              login: Login, demo: Demo, pg_url: str,
                                                              kafka_bootstrap: str) -> None:
    downlinked = Downlinked(kafka_bootstrap)
    try:
        [target] = make_vehicle(pg_url, demo.enterprises["a"], online=True)
        base = f"/api/device/{target.device_id}/command"
        query = client.post(f"{base}/8106.json", headers=login("admin_a"), json={"ids": ["F364"]})
        assert query.status_code == 200, query.json
        [(_, asked)] = downlinked.read({str(query.json["data"]["id"])})
        assert asked["msg_id"] == 0x8106 and asked["body_hex"].upper() == "01" "0000F364"

        bad = client.post(f"{base}/8103.json", headers=login("admin_a"),
                          json={"paramList": [{"id": "F364", "value": adas_fields(alarm_speed_threshold_kmh=61)}]})
        assert bad.status_code == 400 and bad.json["data"] == {"field": "F364"}
        assert "alarm_speed_threshold_kmh must be 0 to 60 km/h, got 61" in error_text(bad, "en-US")
        assert [r[1] for r in rows(pg_url, target.device_id)] == [0x8106]  # nothing written for the refusal

        good = client.post(f"{base}/8103.json", headers=login("admin_a"),
                           json={"paramList": [{"id": "F364", "value": adas_fields(alarm_speed_threshold_kmh=45)}]})
        assert good.status_code == 200, good.json
        [(_, sent)] = downlinked.read({str(good.json["data"]["id"])})
        body = decode_body(0x8103, bytes.fromhex(sent["body_hex"]), "2013")
        assert isinstance(body, SetParameters)
        (param,) = body.params
        assert param.id == 0xF364
        block = param.value_bytes()
        assert ADAS_PARAMS.decode(block) == {**ADAS_PARAMS.defaults(), "alarm_speed_threshold_kmh": 45}
        stored = rows(pg_url, target.device_id)[-1]
        assert stored[1] == 0x8103 and stored[3] == {"paramList": [{"id": "F364", "hex": block.hex().upper()}]}
    finally:
        downlinked.consumer.close()


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
