"""Alarms and active safety along the whole chain, on the real Kafka and PostgreSQL: one
terminal registers and authenticates over TCP with the gateway (``python -m gateway``) and raises, in one
run, every kind of alarm; the streams worker (``python -m streams worker``) stores and pushes them and asks
for the DSM alarm's evidence with 0x9208; the terminal uploads it to the attachment server (``python -m
gateway.attachments``) with a chunk left out, resends the range the server's 0x9212 names, and the API (in
process, as in test_commands_roundtrip.py) lists and serves the files; confirming the emergency alarm sends
0x8203 to the terminal, confirming the DSM or the platform alarm sends nothing.

What each report carries, in fix order one second apart (a real terminal keeps reporting a held bit):

| report | alarm bits | 0x14 | speed | item | alarm |
|---|---|---|---|---|---|
| emergency | bit 0 | - | 40 | - | ``a0`` type 1 |
| video | bit 0 | bit 0 | 40 | - | ``v0`` type 2 |
| fast | bit 0 | bit 0 | 100 | - | (overspeed starts) |
| overspeed | bit 0 | bit 0 | 100 | - | ``p_overspeed`` type 3 (rule: 80 km/h for 1 s) |
| adas | bit 0 | bit 0 | 100 | 0x64 forward collision, no attachments | ``adas_1`` type 5 |
| dsm | bit 0 | bit 0 | 100 | 0x65 fatigue, 2 attachments | ``dsm_1`` type 6, 0x9208 |
| tpms | bit 0 | bit 0 | 100 | 0x66 pressure low | ``tpms_2`` type 7 |
| bsd | bit 0 | bit 0 | 100 | 0x67 left rear approach | ``bsd_2`` type 8 |
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from flask.testing import FlaskClient

from api.commands import Downlinks
from api.services import DOWNLINKS_KEY, STORE_KEY
from fleet.enums import DeviceState
from fleet.media_store import LocalMediaStore
from fleet.phones import canonical_phone
from fleet.settings import ApiSettings
from fleet.topics import CONSOLE_EVENTS
from protocols.jt808 import (
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    Authentication,
    LocationReport,
    ManualAlarmConfirmation,
    Message,
    PlatformResponse,
    Registration,
    RegistrationResponse,
    TerminalResponse,
)
from simulator.attachments import upload
from simulator.camera import take_photo
from tests.integration.gateway.support import TerminalClient
from tests.integration.streams.conftest import start_worker
from tests.integration.streams.support import TopicReader, Worker, query, wait_for
from tests.support.processes import AttachmentServerProcess, GatewayProcess
from warehouse.passwords import hash_password

pytestmark = pytest.mark.timeout(180)

PASSWORD = "Chain@2026x"
TERMINAL_ID = "CHAIN09"  # 7 characters: the 2013 registration and the Jiangsu alarm number
LIMIT_KMH, DURATION_S = 80, 1
EMERGENCY = 1 << 0
VIDEO_SIGNAL_LOST = 1 << 0
CHUNK_BYTES = 4096
WAIT_S = 45  # a loaded machine's slack; every wait ends as soon as its condition holds
PERMISSIONS = {"alarm": ["query", "get", "update"], "evidence": ["query", "get"],
               "platformAlarmRule": ["add", "query", "get", "update"]}


@dataclass
class Chain:
    client: FlaskClient
    headers: dict[str, str]
    enterprise_id: int
    device_id: int
    car_id: int
    phone: str
    plate: str
    gateway: GatewayProcess
    attachments: AttachmentServerProcess
    worker: Worker
    media: LocalMediaStore

    def logs(self) -> str:
        return "\n".join(f"--- {name}\n{proc.log_tail(30)}" for name, proc in
                         (("worker", self.worker), ("gateway", self.gateway), ("attachments", self.attachments)))


def _fleet(pg_url: str) -> dict[str, Any]:
    """An enterprise with one car and its terminal (no auth code yet: it registers) and a user who may
    read and handle alarms, read evidence and set the platform alarm rule."""
    from warehouse.seed import seed_demo

    seed_demo(pg_url, terminals=20)  # the permission catalogue (idempotent; the API tests' size)
    tag = uuid.uuid4().hex[:8]
    phone = canonical_phone(f"15{int(tag, 16) % 10**9:09d}")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ent = conn.execute("INSERT INTO enterprise (name, short_name) VALUES (%s, %s) RETURNING id",
                           (f"alarm-chain-{tag}", "alarm-chain")).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE enterprise SET path = %s WHERE id = %s", (f"/{ent}/", ent))
        plate = f"CH{tag[:6].upper()}"
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number) VALUES (%s, %s) RETURNING id",
                           (ent, plate)).fetchone()[0]  # type: ignore[index]
        device = conn.execute(
            "INSERT INTO device (enterprise_id, car_id, phone, device_sn, protocol_version) VALUES"
            " (%s, %s, %s, %s, '2013') RETURNING id", (ent, car, phone, TERMINAL_ID)).fetchone()[0]  # type: ignore[index]
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device, car))
        user = f"chain_{tag}"
        user_id = conn.execute("INSERT INTO app_user (enterprise_id, user_name, password_hash, name) VALUES"
                               " (%s, %s, %s, %s) RETURNING id",
                               (ent, user, hash_password(PASSWORD), "值班员")).fetchone()[0]  # type: ignore[index]
        role = conn.execute("INSERT INTO role (enterprise_id, name) VALUES (%s, %s) RETURNING id",
                            (ent, f"chain {tag}")).fetchone()[0]  # type: ignore[index]
        for code, actions in PERMISSIONS.items():
            conn.execute("INSERT INTO role_permission (role_id, permission_code, actions) VALUES (%s, %s, %s)",
                         (role, code, actions))
        conn.execute("INSERT INTO user_role (user_id, role_id) VALUES (%s, %s)", (user_id, role))
    return {"enterprise": ent, "car": car, "device": device, "phone": phone, "plate": plate, "user": user}


@pytest.fixture(scope="module")
def chain(pg_url: str, kafka_bootstrap: str, stack_env: dict[str, str], free_port: Callable[[], int],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chain]:
    from api import create_app
    from api.db import get_db

    fleet = _fleet(pg_url)
    work = tmp_path_factory.mktemp("alarm-chain")
    media = LocalMediaStore(work / "media")
    app = create_app(ApiSettings(token_secret="alarm-chain"), pg_url, var_dir=work / "api")
    app.extensions[DOWNLINKS_KEY] = Downlinks(kafka_bootstrap, 10.0)
    app.extensions[STORE_KEY] = media  # the store the attachment server writes to
    client = app.test_client()
    token = client.get("/oauth2/token.json", query_string={"grant_type": "password", "username": fleet["user"],
                                                           "password": PASSWORD})
    assert token.status_code == 200 and token.json is not None, token.json
    headers = {"Authorization": f"Bearer {token.json['data']['access_token']}"}
    # The enterprise's overspeed rule, as an administrator sets it (before the worker reads the rules).
    rule = client.post("/api/common/platformAlarmRule.json", headers=headers,
                       json={"name": "链路测试", "overspeedLimit": LIMIT_KMH, "overspeedDuration": DURATION_S})
    assert rule.status_code == 200 and rule.json is not None and rule.json["data"]["overspeedEnabled"], rule.json

    env = stack_env | {"FLEET_MEDIA_ROOT": str(work / "media")}
    attachments = AttachmentServerProcess(env, free_port(), work / "attachments.log")
    gateway = GatewayProcess(env, free_port(), work / "gateway.log", gateway_id="gw-alarm-chain")
    worker: Worker | None = None
    try:
        attachments.start()
        gateway.start()
        worker = start_worker(env | AttachmentServerProcess.env_for(attachments.port), kafka_bootstrap, work,
                              batch_window_s=0.05)
        gateway.wait_downlinks_ready()
        yield Chain(client, headers, fleet["enterprise"], fleet["device"], fleet["car"], fleet["phone"],
                    fleet["plate"], gateway, attachments, worker, media)
    finally:
        if worker is not None:
            worker.stop()
        gateway.stop()
        attachments.stop()
        app.extensions[DOWNLINKS_KEY].close()
        get_db(app).close()


@dataclass
class Terminal:
    """The test's terminal over TCP: requests matched to their reply by serial; the platform's commands
    (anything but a reply) kept in arrival order."""

    link: TerminalClient
    commands: list[Message] = field(default_factory=list)

    async def request(self, msg_id: int, body: Any, reply_id: int = 0x8001) -> Message:
        seq = await self.link.send(msg_id, body)
        while True:
            msg = await self.link.receive(timeout_s=WAIT_S)
            if msg.header.msg_id == reply_id and getattr(msg.body, "reply_seq", None) == seq:
                return msg
            if msg.header.msg_id not in (0x8001, 0x8100):
                self.commands.append(msg)

    async def next_command(self) -> Message:
        while not self.commands:
            msg = await self.link.receive(timeout_s=WAIT_S)
            if msg.header.msg_id not in (0x8001, 0x8100):
                self.commands.append(msg)
        return self.commands.pop(0)

    async def answer(self, command: Message) -> None:
        await self.link.send(0x0001, TerminalResponse(command.header.seq, command.header.msg_id, 0))


def _item(at: datetime, alarm_type: int, level: int | None, attachments: int, serial: int) -> dict[str, Any]:
    """The fields items 0x64-0x67 share (Jiangsu 2017), with the alarm number the terminal files them under."""
    return {"alarm_id": serial, "flag": 0, "type": alarm_type, "level": level, "speed_kmh": 100, "altitude_m": 40,
            "lat": 31.2304, "lng": 121.4737, "time": at.isoformat(), "vehicle_status": 3,
            "alarm_no": AlarmNumber(TERMINAL_ID, at, serial, attachments).to_json()}


def _reports(t0: datetime) -> list[tuple[str, LocationReport]]:
    """The run of the module doc's table, one report a second from ``t0``."""
    plan: list[tuple[str, int, dict[str, Any]]] = [("emergency", 40, {}), ("video", 40, {}), ("fast", 100, {}),
                                                   ("overspeed", 100, {})]
    at = {name: t0 + timedelta(seconds=i) for i, name in enumerate(
        ("emergency", "video", "fast", "overspeed", "adas", "dsm", "tpms", "bsd"))}
    plan += [
        ("adas", 100, {"adas_alarm": _item(at["adas"], 1, 1, 0, 1) | {"front_speed_kmh": 90, "headway_s": 0.8}}),
        ("dsm", 100, {"dsm_alarm": _item(at["dsm"], 1, 2, 2, 2) | {"fatigue_degree": 7}}),
        ("tpms", 100, {"tpms_alarm": _item(at["tpms"], 1 << 2, None, 0, 3) | {"events": [
            {"tyre": 3, "type": 1 << 2, "pressure_kpa": 120, "temperature_c": 35, "battery_pct": 80}]}}),
        ("bsd", 100, {"bsd_alarm": _item(at["bsd"], 2, None, 0, 4)}),
    ]
    out = []
    for name, speed, items in plan:
        extras: dict[str, Any] = {"mileage_km": 1200.5, **items}
        if name != "emergency":
            extras["video_alarm_flags"] = VIDEO_SIGNAL_LOST
        out.append((name, LocationReport(EMERGENCY, 3, 31.2304, 121.4737, 40, float(speed), 90, at[name], extras)))
    return out


EXPECTED_ALARMS = {  # report -> (key, type, level)
    "emergency": ("a0", 1, None), "video": ("v0", 2, None), "overspeed": ("p_overspeed", 3, None),
    "adas": ("adas_1", 5, 1), "dsm": ("dsm_1", 6, 2), "tpms": ("tpms_2", 7, None), "bsd": ("bsd_2", 8, None),
}


def test_a_terminal_raises_every_alarm_kind_uploads_the_evidence_and_gets_only_its_emergency_confirmed(
        chain: Chain, pg_url: str, kafka_bootstrap: str) -> None:
    client, headers = chain.client, chain.headers
    t0 = datetime.now(UTC).replace(microsecond=0) - timedelta(seconds=30)
    reports = _reports(t0)
    photo = take_photo(chain.plate, t0 + timedelta(seconds=5), caption_ascii="DSM fatigue")
    clip = os.urandom(6000)
    assert len(photo) > 2 * CHUNK_BYTES  # the chunk left out is one in the middle of the photo
    events = TopicReader(kafka_bootstrap, CONSOLE_EVENTS)

    def api(method: str, url: str, **kwargs: Any) -> Any:
        reply = client.open(url, method=method, headers=headers, **kwargs)
        assert reply.status_code == 200, (url, reply.status_code, reply.get_data(as_text=True)[:500])
        if not reply.is_json:
            return reply.get_data()  # a file's bytes
        assert reply.json is not None
        return reply.json["data"]

    def alarms() -> dict[str, dict[str, Any]]:
        rows = query(pg_url, "SELECT key, id, type, level, start_time, message_seq, warn_uuid, attachment_count"
                     " FROM alarm WHERE device_id = %s", (chain.device_id,))
        return {r[0]: dict(zip(("key", "id", "type", "level", "start", "seq", "uuid", "attachments"), r, strict=True))
                for r in rows}

    async def main() -> dict[str, Any]:
        terminal = Terminal(await TerminalClient.connect(chain.gateway.port, "0" + chain.phone))
        try:
            registered = (await terminal.request(0x0100, Registration(31, 100, "FLEET", "CHAIN-T1", TERMINAL_ID, 2,
                                                                      chain.plate), reply_id=0x8100)).body
            assert isinstance(registered, RegistrationResponse) and registered.result == 0 and registered.auth_code
            authenticated = (await terminal.request(0x0102, Authentication(registered.auth_code))).body
            assert isinstance(authenticated, PlatformResponse) and authenticated.result == 0
            seqs = {}  # the reports go at once, as a terminal's do (0x9208 must not wait for its "online")
            for name, report in reports:
                acked = await terminal.request(0x0200, report)
                assert isinstance(acked.body, PlatformResponse) and acked.body.result == 0
                seqs[name] = acked.body.reply_seq

            # 0x9208 for the DSM alarm (the one with attachments), over the terminal's own connection
            request = await terminal.next_command()
            assert request.header.msg_id == 0x9208, request
            await terminal.answer(request)
            asked = request.body
            assert isinstance(asked, AlarmAttachmentUploadRequest)
            photo_name = f"00_65_6501_0_{asked.alarm_uuid}.jpg"
            clip_name = f"02_65_6501_1_{asked.alarm_uuid}.mp4"
            uploaded = await upload(asked.server_ip, asked.tcp_port, asked, [(photo_name, 0, photo), (clip_name, 2, clip)],
                                    TERMINAL_ID, drop_chunk=1, phone="0" + chain.phone, chunk_bytes=CHUNK_BYTES)

            # every alarm stored before the confirmations (the rows carry the serials 0x8203 quotes), and
            # the terminal online as the API sees it (it sends 8203 only then)
            found = await asyncio.to_thread(wait_for, lambda: (a := alarms()) and len(a) >= len(EXPECTED_ALARMS) and a,
                                            WAIT_S, "every alarm row", chain.worker)
            await asyncio.to_thread(wait_for, lambda: query(pg_url, "SELECT 1 FROM device WHERE id = %s AND state = %s",
                                                            (chain.device_id, int(DeviceState.ONLINE))),
                                    WAIT_S, "the terminal online", chain.worker)
            # confirming the DSM and the platform overspeed alarm (not confirmable): the handling, no 8203
            for key in ("dsm_1", "p_overspeed"):
                handled = await asyncio.to_thread(api, "POST", f"/api/common/alarm/{found[key]['id']}/confirm.json",
                                                  json={"state": 2, "opinion": "已处理"})
                assert handled["commandId"] is None and handled["alarm"]["state"] == 2, (key, handled)
            # confirming the emergency: the next command the terminal gets is its 8203 (one in flight,
            # in order: an 8203 for the others would have come first)
            confirmed = await asyncio.to_thread(api, "POST", f"/api/common/alarm/{found['a0']['id']}/confirm.json",
                                                json={"state": 1, "opinion": "已联系司机"})
            assert isinstance(confirmed["commandId"], int), confirmed
            confirmation = await terminal.next_command()
            await terminal.answer(confirmation)
            return {"seqs": seqs, "asked": asked, "uploaded": uploaded, "names": (photo_name, clip_name),
                    "confirmation": confirmation, "command_id": confirmed["commandId"]}
        finally:
            await terminal.link.close()

    try:
        done = asyncio.run(main())
        rows = alarms()
        pushes = _pushes(events, chain.device_id, set(EXPECTED_ALARMS), chain)
    finally:
        events.close()
    seqs = done["seqs"]

    # one alarm row per kind, each started by its own report
    assert {key: (r["type"], r["level"], r["start"], r["seq"]) for key, r in rows.items()} == {
        key: (kind, level, t0 + timedelta(seconds=list(seqs).index(name)), seqs[name])
        for name, (key, kind, level) in EXPECTED_ALARMS.items()}
    dsm = rows["dsm_1"]
    assert len(dsm["uuid"]) == 32 and dsm["attachments"] == 2

    # push 2 for every alarm, and 13 for the active-safety ones (5-8), each once
    assert sorted((p["type"], p["data"]["key"]) for p in pushes) == sorted(
        [(2, key) for key, _, _ in EXPECTED_ALARMS.values()]
        + [(13, key) for key, kind, _ in EXPECTED_ALARMS.values() if kind >= 5])
    safety = next(p["data"] for p in pushes if p["type"] == 13 and p["data"]["key"] == "dsm_1")
    assert (safety["alarmId"], safety["warnUuid"], safety["plateNumber"], safety["desc"]) == (
        dsm["id"], dsm["uuid"], chain.plate, "二级 疲劳驾驶报警")

    # the 0x9208 the terminal received names the attachment server and carries a one-time alarm number for
    # the DSM alarm (not its public uuid); no other was sent, and the command row does not keep the number
    asked: AlarmAttachmentUploadRequest = done["asked"]
    assert (asked.server_ip, asked.tcp_port) == ("127.0.0.1", chain.attachments.port)
    assert len(asked.alarm_uuid) == 32 and asked.alarm_uuid != dsm["uuid"]
    assert query(pg_url, "SELECT count(*) FROM alarm_attachment_request WHERE alarm_id = %s AND device_id = %s",
                 (dsm["id"], chain.device_id)) == [(1,)]
    assert query(pg_url, "SELECT count(*) FROM command WHERE device_id = %s AND msg_id = %s AND strpos(body_hex, %s) > 0",
                 (chain.device_id, 0x9208, asked.alarm_uuid.encode().hex())) == [(0,)]
    assert asked.alarm_no == AlarmNumber(TERMINAL_ID, t0 + timedelta(seconds=5), 2, 2)
    assert query(pg_url, "SELECT count(*) FROM command WHERE device_id = %s AND msg_id = %s",
                 (chain.device_id, 0x9208)) == [(1,)]

    # the upload: the chunk left out was asked for by 0x9212 and resent; both files done
    photo_name, clip_name = done["names"]
    uploaded = done["uploaded"]
    assert uploaded.dropped == [(photo_name, CHUNK_BYTES, CHUNK_BYTES)]
    assert uploaded.resend_requests == [(photo_name, ((CHUNK_BYTES, CHUNK_BYTES),))]
    assert uploaded.files_done == [photo_name, clip_name]

    # the evidence list shows both files of the alarm, which has attachments now; the bytes served are the ones sent
    def listed() -> list[dict[str, Any]]:
        return api("POST", "/api/common/query/deviceUploadFile.json", json={"alarmId.eq": dsm["id"]})["list"]

    files = wait_for(lambda: len(found := listed()) == 2 and found, WAIT_S, "the alarm's files listed", chain.worker)
    by_name = {f["fileName"]: f for f in files}
    # the terminal named its files with the number; they are listed with the alarm's uuid in its place
    photo_name, clip_name = (n.replace(asked.alarm_uuid, dsm["uuid"]) for n in (photo_name, clip_name))
    assert set(by_name) == {photo_name, clip_name}
    for name, data in ((photo_name, photo), (clip_name, clip)):
        assert (by_name[name]["warnUuid"], by_name[name]["size"], by_name[name]["sha256"], by_name[name]["carId"]) == (
            dsm["uuid"], len(data), hashlib.sha256(data).hexdigest(), chain.car_id)
        assert api("GET", f"/file{by_name[name]['objectKey']}") == data
    assert by_name[photo_name]["mediaType"] == 0 and by_name[clip_name]["mediaType"] == 2
    assert api("GET", f"/api/common/alarm/{dsm['id']}.json")["atted"] is True

    # 0x8203 with the emergency alarm's message serial and its bit, and only for it
    confirmation: Message = done["confirmation"]
    assert confirmation.header.msg_id == 0x8203, confirmation
    assert confirmation.body == ManualAlarmConfirmation(alarm_seq=seqs["emergency"], alarm_type=EMERGENCY)
    assert query(pg_url, "SELECT id FROM command WHERE device_id = %s AND msg_id = %s",
                 (chain.device_id, 0x8203)) == [(done["command_id"],)]


def _pushes(events: TopicReader, device_id: int, keys: set[str], chain: Chain) -> list[dict[str, Any]]:
    """Pushes 2 and 13 of the device, read until a 2 for each alarm and a 13 for each active-safety one."""
    wanted = {(2, EXPECTED_ALARMS[k][0]) for k in keys} | {
        (13, key) for key, kind, _ in (EXPECTED_ALARMS[k] for k in keys) if kind >= 5}

    def mine(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [r["push"] for r in records if r.get("kind") == "push" and r["push"]["type"] in (2, 13)
                and r["push"]["data"].get("deviceId") == device_id]

    found = mine(events.read_until(lambda rs: {(p["type"], p["data"]["key"]) for p in mine(rs)} >= wanted, WAIT_S))
    assert {(p["type"], p["data"]["key"]) for p in found} >= wanted, chain.logs()
    return found
