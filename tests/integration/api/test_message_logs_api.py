"""Message logs (api/query/entities_messages.py) through the generic query, count and
export routes: original messages (both directions), upstream messages and downstream messages (the
commands). Frames are written by the streams writer itself (streams.message_log, twice: a redelivered
batch adds nothing); each test module uses its own vehicle of enterprise A."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient

from protocols.jt808 import LocationReport, TextMessage, encode_frame
from streams import message_log
from streams.db import Database
from streams.messages import parse_uplink
from streams.payloads import Terminal, frame_uplink
from tests.integration.api.conftest import Demo, error_text
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
T0 = datetime(2026, 4, 12, 9, 0, tzinfo=UTC)
RANGE = {"start": T0.isoformat(), "end": (T0 + timedelta(hours=1)).isoformat()}


@dataclass(frozen=True)
class Car:
    terminal: Terminal
    plate: str
    frames: dict[str, bytes]


def make_car(pg_url: str, enterprise_id: int) -> tuple[Terminal, str]:
    tag = uuid.uuid4().hex[:8]
    plate = f"测M{tag[:5]}"
    phone = f"9{int(tag, 16) % 10**11:011d}"
    with connect(pg_url) as conn:
        car_id = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                              (enterprise_id, plate)).fetchone()[0]  # type: ignore[index]
        device_id = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn) VALUES (%s, %s, %s, %s) RETURNING id",
            (enterprise_id, car_id, phone, f"SN{tag}")).fetchone()[0]  # type: ignore[index]
        conn.commit()
    return Terminal(phone, int(device_id), int(car_id), enterprise_id), plate


def store(pg_url: str, terminal: Terminal, frames: dict[str, bytes]) -> None:
    uplinks = [parse_uplink(orjson.dumps(frame_uplink(terminal, frames[name], received_at=T0 + timedelta(minutes=i))))
               for i, name in enumerate(("position1", "position2", "heartbeat"), start=1)]
    sent = {"phone": terminal.phone, "device_id": terminal.device_id, "car_id": terminal.car_id,
            "enterprise_id": terminal.enterprise_id, "msg_id": 0x8300, "seq": 5, "packages": 1,
            "raw_hex": frames["text"].hex(), "body_hex": "", "command_id": None, "event": "sent", "reason": None,
            "connection_id": "c", "gateway_id": "gw-test", "at": (T0 + timedelta(minutes=4)).isoformat()}

    async def write() -> None:
        db = Database(pg_url, name="message-log-test")
        try:
            for _ in range(2):  # a redelivered batch
                await message_log.store_uplinks(db, uplinks)
                await message_log.store_downlinks(db, [sent, {**sent, "event": "failed", "reason": "offline"}])
        finally:
            await db.close()

    asyncio.run(write())


@pytest.fixture(scope="module")
def car(pg_url: str, demo: Demo) -> Car:
    terminal, plate = make_car(pg_url, demo.enterprises["a"])
    report = dict(alarm_flags=0, status_flags=3, lat=39.9, lng=116.4, altitude_m=50, direction_deg=90)
    frames = {
        "position1": encode_frame(0x0200, LocationReport(speed_kmh=30.0, fix_at=T0, **report),  # type: ignore[arg-type]
                                  phone=terminal.phone, seq=1),
        "position2": encode_frame(0x0200, LocationReport(speed_kmh=40.0, fix_at=T0, **report),  # type: ignore[arg-type]
                                  phone=terminal.phone, seq=2),
        "heartbeat": encode_frame(0x0002, b"", phone=terminal.phone, seq=3),
        "text": encode_frame(0x8300, TextMessage(flags=0x08, text="注意安全"), phone=terminal.phone, seq=5),
    }
    store(pg_url, terminal, frames)
    return Car(terminal, plate, frames)


def query(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any], **params: str) -> Any:
    return client.post(f"/api/common/query/{entity}.json", headers=headers, json=body,
                       query_string={"countable": "true", **params})


def page(client: FlaskClient, headers: dict[str, str], entity: str, body: dict[str, Any], **params: str) -> dict[str, Any]:
    reply = query(client, headers, entity, body, **params)
    assert reply.status_code == 200, reply.json
    data: dict[str, Any] = reply.json["data"]
    return data


def window(car: Car, field: str = "time") -> dict[str, Any]:
    return {"carId.eq": car.terminal.car_id, "rangeConditions": [{"fieldName": field, **RANGE}]}


def test_original_messages_list_every_frame_once_newest_first_with_hex_and_decoded(
        client: FlaskClient, login: Login, car: Car) -> None:
    data = page(client, login("admin_a"), "originalMessage", window(car))
    rows = data["list"]
    assert data["total"] == 4  # three uplinks and the sent downlink, each once although stored twice
    assert [(r["direction"], r["msgIdHex"], r["seq"]) for r in rows] == [
        (1, "0x8300", 5), (0, "0x0002", 3), (0, "0x0200", 2), (0, "0x0200", 1)]
    assert {r["protocol"] for r in rows} == {"jt808"}
    assert {r["plateNumber"] for r in rows} == {car.plate} and {r["phone"] for r in rows} == {car.terminal.phone}
    assert rows[0]["rawHex"] == car.frames["text"].hex() and rows[0]["gatewayId"] == "gw-test"
    assert json.loads(rows[0]["decoded"])["body"]["text"] == "注意安全"
    last = rows[3]
    assert last["rawHex"] == car.frames["position1"].hex() and last["rawTruncated"] is False
    assert json.loads(last["decoded"])["body"]["speed_kmh"] == 30.0


def test_a_gb_terminals_frames_are_listed_under_their_protocol_with_the_commands_own_id(
        client: FlaskClient, login: Login, pg_url: str, demo: Demo) -> None:
    from streams.gb_frames import parse_frame
    from streams.gb_payloads import GbVehicle, realtime
    from streams.validation import Limits

    terminal, plate = make_car(pg_url, demo.enterprises["a"])
    vehicle = GbVehicle(f"LGBAPI{uuid.uuid4().hex[:11].upper()}", terminal.device_id, terminal.car_id,
                        terminal.enterprise_id)
    records = [realtime(vehicle, T0 + timedelta(minutes=i), received_at=T0 + timedelta(minutes=i, seconds=1))
               for i in (1, 2)]
    frames = [parse_frame(orjson.dumps(r), Limits(max_future_s=300, max_speed_kmh=220)) for r in records]

    async def write() -> None:
        db = Database(pg_url, name="message-log-test")
        try:
            for _ in range(2):  # a redelivered batch adds nothing
                await message_log.store_gb_uplinks(db, message_log.DevicePhones(), frames)
        finally:
            await db.close()

    asyncio.run(write())
    body = {"carId.eq": terminal.car_id, "rangeConditions": [{"fieldName": "time", **RANGE}]}
    rows = page(client, login("admin_a"), "originalMessage", body)["list"]
    assert [(r["protocol"], r["msgIdHex"], r["phone"], r["plateNumber"]) for r in rows] == [
        ("gb32960", "0x02", terminal.phone, plate)] * 2
    assert [r["rawHex"] for r in rows] == [records[1]["raw_hex"], records[0]["raw_hex"]]
    assert json.loads(rows[0]["decoded"])["name"] == "Real-time data"
    # the upstream log (the uplinks) lists them too
    assert page(client, login("admin_a"), "upstreamMessage", body)["total"] == 2


def test_original_messages_filter_by_direction_and_message_id(client: FlaskClient, login: Login, car: Car) -> None:
    headers = login("admin_a")
    assert page(client, headers, "originalMessage", {**window(car), "direction": 1})["total"] == 1
    positions = page(client, headers, "originalMessage", {**window(car), "msgId.eq": 0x0200})
    assert [r["seq"] for r in positions["list"]] == [2, 1]
    count = client.post("/api/common/count/originalMessage.json", headers=headers, json=window(car))
    assert count.json["data"] == 4


def test_a_phone_is_found_in_the_form_a_2013_or_2019_header_writes_it(client: FlaskClient, login: Login,
                                                                       car: Car) -> None:
    headers = login("admin_a")
    phone = car.terminal.phone
    for written in (phone, phone.rjust(12, "0"), phone.rjust(20, "0")):
        assert page(client, headers, "originalMessage", {**window(car), "phone": written})["total"] == 4, written
    assert page(client, headers, "originalMessage", {**window(car), "phone.like": "0" + phone[:6]})["total"] == 4


def test_upstream_messages_are_the_uplinks(client: FlaskClient, login: Login, car: Car) -> None:
    data = page(client, login("admin_a"), "upstreamMessage", window(car), orderBy="time", desc="false")
    assert [r["msgIdHex"] for r in data["list"]] == ["0x0200", "0x0200", "0x0002"]
    assert "direction" not in data["list"][0]


def test_frame_logs_need_a_vehicle_and_a_time_range(client: FlaskClient, login: Login, car: Car) -> None:
    headers = login("admin_a")
    for entity in ("originalMessage", "upstreamMessage"):
        no_car = query(client, headers, entity, {"rangeConditions": [{"fieldName": "time", **RANGE}]})
        assert no_car.status_code == 400 and "carId" in error_text(no_car, "en-US")


def test_another_enterprise_sees_none_of_the_frames(client: FlaskClient, login: Login, car: Car) -> None:
    other = login("admin_b")
    assert page(client, other, "originalMessage", window(car))["total"] == 0
    assert page(client, other, "upstreamMessage", window(car))["total"] == 0
    assert page(client, login("admin"), "originalMessage", window(car), isParent="true")["total"] == 4


def test_original_messages_export_with_hex(client: FlaskClient, login: Login, car: Car) -> None:
    reply = client.post("/api/common/export/originalMessage.csv", headers=login("admin_a"),
                        json={**window(car), "msgId.eq": 0x8300})
    assert reply.status_code == 200, reply.data[:300]
    text = reply.data.decode("utf-8-sig")
    assert car.frames["text"].hex() in text and "0x8300" in text


def test_downstream_messages_are_the_commands_with_their_outcome(client: FlaskClient, login: Login, car: Car,
                                                                 pg_url: str) -> None:
    t = car.terminal
    with connect(pg_url) as conn:
        conn.execute(
            "INSERT INTO command (enterprise_id, car_id, device_id, phone, msg_id, seq, payload, created_by_name,"
            " state, result, reply_msg_id, created_at, sent_at, answered_at)"
            " VALUES (%s, %s, %s, %s, 33536, 5, %s, 'admin_a', 'answered', 0, 1, %s, %s, %s)",
            (t.enterprise_id, t.car_id, t.device_id, t.phone, json.dumps({"content": "注意安全", "tts": True}),
             T0 + timedelta(minutes=4), T0 + timedelta(minutes=4), T0 + timedelta(minutes=4, seconds=2)))
        conn.commit()
    headers = login("admin_a")
    data = page(client, headers, "downstreamMessage",
                {"carId.eq": t.car_id, "rangeConditions": [{"fieldName": "createTime", **RANGE}]})
    assert data["total"] == 1
    row = data["list"][0]
    assert (row["plateNumber"], row["msgIdHex"], row["state"], row["result"], row["createdByName"]) == (
        car.plate, "0x8300", "answered", 0, "admin_a")
    assert json.loads(row["payload"]) == {"content": "注意安全", "tts": True}
    assert row["answeredAt"] == (T0 + timedelta(minutes=4, seconds=2)).isoformat()
    assert page(client, login("admin_b"), "downstreamMessage", {"carId.eq": t.car_id})["total"] == 0


@pytest.fixture
def client(english_client: FlaskClient) -> FlaskClient:
    """This module reads error texts in English (``error_text``): its console speaks en-US."""
    return english_client
