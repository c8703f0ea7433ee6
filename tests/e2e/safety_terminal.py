"""A terminal of a test's own enterprise raising active-safety alarms against the e2e stack, for the
safety alarm dialog's Chromium tests (tests/e2e/test_safety_alarm_dialog.py): the enterprise (its
administrator, car and terminal), a bare JT/T 808 terminal, its DSM reports, the attachment upload a real
terminal makes after 0x9208, and the waits on the console's live socket."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from fleet.phones import canonical_phone
from fleet.topics import CONSOLE_EVENTS
from protocols.jt808 import (
    AlarmAttachmentUploadRequest,
    AlarmNumber,
    FrameReader,
    LocationReport,
    Message,
    TerminalResponse,
    decode_frame,
    encode_frame,
)
from protocols.jt808.messages import PlatformResponse
from simulator.attachments import UploadResult, upload
from tests.e2e.conftest import ConsoleStack
from tests.e2e.support import stomp_frames
from warehouse.db import connect
from warehouse.seed import DemoEnterprise, _admin_user, _enterprise, _role

# The worker stores and pushes within a second; the slack is for a loaded machine (never a sleep).
PUSH_TIMEOUT_MS = 45_000
DSM_FATIGUE = 1
TERMINAL_ID = "E2E9DSM"  # the alarm number's 7-character terminal id


def own_enterprise(stack: ConsoleStack) -> dict[str, Any]:
    """A new enterprise with an administrator, a car and its terminal (phone + auth code)."""
    tag = secrets.token_hex(3)
    ent = DemoEnterprise(f"e2e9{tag}", f"报警测试企业{tag}", f"报警测试{tag}", f"alarm_e2e_{tag}", "Z")
    phone = canonical_phone(f"0177{secrets.randbelow(10**8):08d}")
    plate = f"京Z{tag[:5].upper()}"
    with connect(stack.db_url) as conn:
        enterprise_id = _enterprise(conn, ent, None)
        _admin_user(conn, ent, enterprise_id, _role(conn, enterprise_id))
        car = conn.execute("INSERT INTO car (enterprise_id, plate_number, plate_color, vin) VALUES (%s, %s, 2, %s)"
                           " RETURNING id", (enterprise_id, plate, f"VIN9E2E{tag}")).fetchone()
        device = conn.execute(
            "INSERT INTO device (enterprise_id, phone, device_sn, device_name, auth_code, car_id, protocol,"
            " protocol_version) VALUES (%s, %s, %s, %s, 'E2E9', %s, 'jt808', '2013') RETURNING id",
            (enterprise_id, phone, f"SIM9{tag}", f"报警终端{tag}", car[0] if car else None)).fetchone()
        assert car is not None and device is not None
        conn.execute("UPDATE car SET master_device_id = %s WHERE id = %s", (device[0], car[0]))
        conn.commit()
    return {"user": ent.admin, "enterprise_id": enterprise_id, "car_id": car[0], "device_id": device[0],
            "phone": phone, "plate": plate}


class Terminal:
    """A bare JT/T 808 terminal over a blocking socket (Playwright's sync API owns this thread's loop).
    Replies are matched by serial; the platform's commands (0x9208, ...) are kept in arrival order."""

    def __init__(self, port: int, phone: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.settimeout(PUSH_TIMEOUT_MS / 1000)  # a loaded machine's slack, never a sleep
        self.phone, self.seq, self.frames = phone, 0, FrameReader()
        self.inbox: list[Message] = []
        self.commands: list[Message] = []
        self.last_fix_at = datetime.min.replace(tzinfo=UTC)

    def next_fix_at(self) -> datetime:
        """Now (whole seconds), or a second after the last fix it gave: the worker keeps a terminal's
        fixes in order and an alarm is one per car, key and start second."""
        self.last_fix_at = max(datetime.now(UTC).replace(microsecond=0), self.last_fix_at + timedelta(seconds=1))
        return self.last_fix_at

    def send(self, msg_id: int, body: Any, seq: int | None = None) -> int:
        if seq is None:
            self.seq += 1
            seq = self.seq
        self.sock.sendall(encode_frame(msg_id, body, phone=self.phone, seq=seq, version="2013"))
        return seq

    def _next(self) -> Message:
        while not self.inbox:
            data = self.sock.recv(65536)
            assert data, "the gateway closed the connection"
            self.inbox.extend(decode_frame(f) for f in self.frames.feed(data) if isinstance(f, bytes))
        return self.inbox.pop(0)

    def reply_to(self, seq: int) -> PlatformResponse:
        """The platform's 0x8001 answering ``seq`` (commands that come first are kept for ``next_command``)."""
        while True:
            msg = self._next()
            if isinstance(msg.body, PlatformResponse):
                if msg.body.reply_seq == seq:
                    return msg.body
            else:
                self.commands.append(msg)

    def next_command(self) -> Message:
        while not self.commands:
            msg = self._next()
            if not isinstance(msg.body, PlatformResponse):
                self.commands.append(msg)
        return self.commands.pop(0)

    def answer(self, command: Message) -> None:
        self.send(0x0001, TerminalResponse(command.header.seq, command.header.msg_id, 0))

    def close(self) -> None:
        self.sock.close()


def dsm_report(fix_at: datetime, dsm_type: int = DSM_FATIGUE, level: int = 2, attachments: int = 2) -> LocationReport:
    """A 0x0200 with one DSM alarm (0x65) of ``dsm_type`` and ``level`` starting at ``fix_at`` (one alarm
    per car, key and start time), announcing ``attachments`` files (0x9208 follows when there are any)."""
    lat, lng = 39.9087, 116.3975
    dsm = {"alarm_id": 1, "flag": 0, "type": dsm_type, "level": level, "fatigue_degree": 7, "speed_kmh": 56,
           "altitude_m": 50, "lat": lat, "lng": lng, "time": fix_at.isoformat(), "vehicle_status": 1,
           "alarm_no": AlarmNumber(TERMINAL_ID, fix_at, 0, attachments).to_json()}
    return LocationReport(0, 3, lat, lng, 50, 56.0, 90, fix_at, {"mileage_km": 100.0, "dsm_alarm": dsm})


def upload_in_thread(request: AlarmAttachmentUploadRequest, files: list[tuple[str, int, bytes]],
                      phone: str) -> UploadResult:
    """What the terminal does after 0x9208: its own connection to the server the request names. In a
    thread of its own, since this thread's event loop is Playwright's."""
    outcome: list[UploadResult | BaseException] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(upload(request.server_ip, request.tcp_port, request, files, TERMINAL_ID,
                                              phone=phone)))
        except BaseException as exc:  # re-raised in the test's thread
            outcome.append(exc)

    thread = threading.Thread(target=run, name="attachment-upload")
    thread.start()
    thread.join(PUSH_TIMEOUT_MS / 1000)
    assert outcome, "the attachment upload did not finish"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def shown_photo_key(page: Any) -> str:
    """The object key (alt) of the dialog's photo, once the browser has decoded it."""
    page.wait_for_function("() => { const img = document.querySelector('[data-testid=safety-alarm-dialog] "
                           "[data-testid=media-photo]'); return img && img.complete && img.naturalWidth > 0; }",
                           timeout=PUSH_TIMEOUT_MS)
    return str(page.get_by_test_id("safety-alarm-dialog").get_by_test_id("media-photo").get_attribute("alt"))


def watch_subscriptions(page: Any) -> list[str]:
    """The STOMP frames the page's live socket sends (SUBSCRIBE among them), from now on."""
    sent: list[str] = []

    def on_socket(socket: Any) -> None:
        socket.on("framesent", lambda payload: sent.extend(stomp_frames(payload)))

    page.on("websocket", on_socket)
    return sent


def wait_subscribed(page: Any, sent: list[str]) -> None:
    """Until the console has subscribed to its enterprise's messages (pushes 2 and 13): an alarm raised
    before would pop nothing, as on any console opened after it."""
    deadline = time.monotonic() + PUSH_TIMEOUT_MS / 1000
    while not any(frame.startswith("SUBSCRIBE") and "/message" in frame for frame in sent):
        assert time.monotonic() < deadline, f"the console never subscribed to its messages: {sent[:5]}"
        page.wait_for_timeout(100)  # lets Playwright deliver the socket's events


def redeliver_push(kafka_bootstrap: str, alarm_id: int, push_type: int, since: datetime) -> None:
    """What an at-least-once delivery does to the console: the streams worker's record of push
    ``push_type`` for ``alarm_id`` (produced after ``since``) written again, the same key and bytes on
    the same partition of console.events.v1, so the API relays it once more, after what it relayed
    before and before whatever the worker pushes next."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=kafka_bootstrap, enable_auto_commit=False, group_id=None)
    try:
        partitions = [TopicPartition(CONSOLE_EVENTS, p) for p in consumer.partitions_for_topic(CONSOLE_EVENTS) or ()]
        consumer.assign(partitions)
        starts = consumer.offsets_for_times({tp: int(since.timestamp() * 1000) for tp in partitions})
        for tp in partitions:
            start = starts.get(tp)
            if start is None:
                consumer.seek_to_end(tp)
            else:
                consumer.seek(tp, start.offset)
        deadline = time.monotonic() + PUSH_TIMEOUT_MS / 1000
        while True:
            assert time.monotonic() < deadline, f"no push {push_type} of alarm {alarm_id} on {CONSOLE_EVENTS}"
            for tp, records in consumer.poll(timeout_ms=1000).items():
                for record in records:
                    push = json.loads(record.value).get("push") or {}
                    if push.get("type") == push_type and (push.get("data") or {}).get("alarmId") == alarm_id:
                        producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
                        try:
                            producer.send(CONSOLE_EVENTS, record.value, key=record.key, partition=tp.partition)
                            producer.flush()
                        finally:
                            producer.close()
                        return
    finally:
        consumer.close()
