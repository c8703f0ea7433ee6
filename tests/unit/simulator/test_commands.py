"""Simulated terminals answer commands like real ones (simulator/commands.py, no network)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from PIL import Image

from protocols.jt808 import (
    CameraShoot,
    CameraShootResponse,
    LocationQueryResponse,
    LocationReport,
    ManualAlarmConfirmation,
    QueryLocation,
    QueryParameters,
    QueryParametersResponse,
    QuerySpecifiedParameters,
    SetParameters,
    StoredMediaSearch,
    StoredMediaSearchResponse,
    StoredMediaUpload,
    TemporaryTracking,
    TerminalControl,
    TerminalParam,
    TerminalResponse,
    TextMessage,
    decode_body,
)
from simulator.camera import take_photo
from simulator.commands import (
    NORMAL,
    SILENT,
    UNSUPPORTED,
    CommandResponder,
    Handled,
    behaviour_for,
    default_params,
)

NOW = datetime(2026, 11, 25, 1, 30, tzinfo=UTC)
POSITION = LocationReport(0, 3, 39.91, 116.39, 50, 42.5, 90, NOW - timedelta(seconds=3),
                          extras={"mileage_km": 12.5, "rssi": 25})


def _responder(behaviour: str = NORMAL) -> CommandResponder:
    return CommandResponder("013800000001", "京A·00001", behaviour, default_params("京A·00001", 5), media_id_start=100)


def _answer(handled: Handled) -> Any:
    (answer,) = handled.answers
    # what goes on the wire decodes back to the same body, in both header layouts
    for version in ("2013", "2019"):
        assert decode_body(answer.msg_id, answer.body.encode(version), version) == answer.body
    return answer.body


def _shoot(**changes: int) -> CameraShoot:
    fields = {"channel": 1, "command": 2, "interval_s": 0, "save_flag": 0, "resolution": 2, "quality": 5,
              "brightness": 128, "contrast": 64, "saturation": 64, "chroma": 128}
    fields.update(changes)
    return CameraShoot(**fields)


def test_a_set_parameter_is_returned_by_the_next_query() -> None:
    r = _responder()
    before = _answer(r.handle(0x8104, 1, QueryParameters(), POSITION, NOW))
    assert isinstance(before, QueryParametersResponse) and before.reply_seq == 1
    ids = [p.id for p in before.params]
    assert {0x0001, 0x0029, 0x0031, 0x0083, *range(0x0055, 0x005D)} <= set(ids)
    assert dict((p.id, p.value) for p in before.params)[0x0055] == 100

    ack = _answer(r.handle(0x8103, 2, SetParameters((TerminalParam(0x0055, 80), TerminalParam(0x0056, 20))),
                           POSITION, NOW))
    assert ack == TerminalResponse(2, 0x8103, 0)
    after = _answer(r.handle(0x8104, 3, QueryParameters(), POSITION, NOW))
    values = {p.id: p.value for p in after.params}
    assert (values[0x0055], values[0x0056], after.reply_seq) == (80, 20, 3)
    assert len(after.params) == len(before.params)


def test_a_specified_query_returns_only_known_requested_ids_in_order() -> None:
    body = _answer(_responder().handle(0x8106, 9, QuerySpecifiedParameters((0x0056, 0x0055, 0xF001)), POSITION, NOW))
    assert body == QueryParametersResponse(9, (TerminalParam(0x0056, 10), TerminalParam(0x0055, 100)))


@pytest.mark.parametrize(
    "msg_id,body",
    [
        (0x8105, TerminalControl(4)),
        (0x8202, TemporaryTracking(10, 600)),
        (0x8203, ManualAlarmConfirmation(0, 1)),
        (0x8300, TextMessage(0x0C, "前方路段拥堵")),
    ],
)
def test_acknowledges_with_the_downlinks_serial_and_id(msg_id: int, body: Any) -> None:
    assert _answer(_responder().handle(msg_id, 0xFFFE, body, POSITION, NOW)) == TerminalResponse(0xFFFE, msg_id, 0)


def test_keeps_the_texts_it_displays() -> None:
    r = _responder()
    r.handle(0x8300, 1, TextMessage(0x08, "请注意安全"), POSITION, NOW)
    assert [t.text for t in r.texts] == ["请注意安全"]


def test_answers_a_position_query_with_its_latest_position() -> None:
    assert _answer(_responder().handle(0x8201, 5, QueryLocation(), POSITION, NOW)) == LocationQueryResponse(5, POSITION)


def test_vehicle_control_locks_and_unlocks_the_doors_and_answers_with_the_position() -> None:
    from protocols.jt808 import VehicleControl, VehicleControlResponse
    from protocols.jt808.messages.t0500_vehicle_control_response import DOORS_LOCKED_BIT

    r = _responder()
    locked = _answer(r.handle(0x8500, 9, VehicleControl.doors(True), POSITION, NOW))
    assert isinstance(locked, VehicleControlResponse) and locked.reply_seq == 9
    assert locked.location.status_flags == POSITION.status_flags | DOORS_LOCKED_BIT and r.doors_locked
    assert r.door_status(0) == DOORS_LOCKED_BIT  # its next reports say so too
    unlocked = _answer(r.handle(0x8500, 10, VehicleControl.doors(False), POSITION, NOW))
    assert not unlocked.location.status_flags & DOORS_LOCKED_BIT and not r.doors_locked
    assert r.door_status(DOORS_LOCKED_BIT) == 0


def test_a_photo_command_answers_0805_then_uploads_real_jpegs() -> None:
    r = _responder()
    handled = r.handle(0x8801, 7, _shoot(command=2, resolution=2), POSITION, NOW)
    reply = _answer(handled)
    assert reply == CameraShootResponse(7, 0, (100, 101))
    assert [m.media_id for m in handled.uploads] == [100, 101]
    for media in handled.uploads:
        assert (media.media_type, media.media_format, media.event_code, media.channel) == (0, 0, 0, 1)
        assert media.location.extras == {} and media.location.lat == POSITION.lat
        image = Image.open(io.BytesIO(media.data))
        assert image.format == "JPEG" and image.size == (640, 480)


def test_a_saved_photo_is_not_uploaded_but_found_by_search_and_uploaded_on_request() -> None:
    r = _responder()
    handled = r.handle(0x8801, 1, _shoot(command=1, save_flag=1, resolution=1, channel=2), POSITION, NOW)
    assert handled.uploads == () and _answer(handled).media_ids == (100,)
    assert Image.open(io.BytesIO(r.stored[0].data)).size == (320, 240)

    found = _answer(r.handle(0x8802, 2, StoredMediaSearch(0, 0, 0, NOW - timedelta(minutes=1), None), POSITION, NOW))
    assert isinstance(found, StoredMediaSearchResponse)
    assert [(i.media_id, i.channel) for i in found.items] == [(100, 2)]
    none = _answer(r.handle(0x8802, 3, StoredMediaSearch(0, 1, 0, None, None), POSITION, NOW))
    assert none.items == ()  # channel 1 has nothing

    upload = r.handle(0x8803, 4, StoredMediaUpload(0, 0, 0, None, None, delete=1), POSITION, NOW)
    assert _answer(upload) == TerminalResponse(4, 0x8803, 0)
    assert [m.media_id for m in upload.uploads] == [100]
    assert r.stored == []


@pytest.mark.parametrize(
    "changes,result",
    [({"channel": 0}, 2), ({"channel": 9}, 2), ({"command": 0xFFFF}, 1), ({"command": 0}, 0)],
)
def test_a_photo_command_it_cannot_carry_out_gets_a_failure_result(changes: dict[str, int], result: int) -> None:
    handled = _responder().handle(0x8801, 3, _shoot(**changes), POSITION, NOW)
    assert _answer(handled) == CameraShootResponse(3, result) and handled.uploads == ()


def test_unknown_commands_are_unsupported_and_undecodable_ones_a_message_error() -> None:
    r = _responder()
    assert _answer(r.handle(0x9101, 4, object(), POSITION, NOW)) == TerminalResponse(4, 0x9101, 3)
    assert _answer(r.handle(0x8801, 5, None, POSITION, NOW)) == TerminalResponse(5, 0x8801, 2)


def test_platform_answers_are_not_commands() -> None:
    for msg_id in (0x8001, 0x8003, 0x8100, 0x8800):
        assert _responder().handle(msg_id, 1, object(), POSITION, NOW) == Handled()


def test_unsupported_and_silent_terminals() -> None:
    assert _answer(_responder(UNSUPPORTED).handle(0x8104, 6, QueryParameters(), POSITION, NOW)) == TerminalResponse(
        6, 0x8104, 3)
    assert _responder(SILENT).handle(0x8801, 6, _shoot(), POSITION, NOW) == Handled()


def test_behaviour_is_a_stable_share_of_phones() -> None:
    phones = [f"0138{i:08d}" for i in range(1, 5001)]
    kinds = [behaviour_for(p, 0.03, 0.02) for p in phones]
    assert kinds == [behaviour_for(p, 0.03, 0.02) for p in phones]
    assert 0.02 < kinds.count(UNSUPPORTED) / len(kinds) < 0.04
    assert 0.01 < kinds.count(SILENT) / len(kinds) < 0.03
    assert behaviour_for("013800000001", 0, 0) == NORMAL
    assert behaviour_for("013800000001", 1, 0) == UNSUPPORTED
    assert behaviour_for("013800000001", 0.03, 0.02) == behaviour_for("13800000001", 0.03, 0.02)  # canonical


def test_photo_has_the_requested_size_and_differs_by_time() -> None:
    a = take_photo("京A·00001", NOW, size=(1024, 768), quality=1)
    b = take_photo("京A·00001", NOW + timedelta(seconds=1), size=(1024, 768), quality=1)
    assert a[:3] == b"\xff\xd8\xff" and a[-2:] == b"\xff\xd9"
    assert Image.open(io.BytesIO(a)).size == (1024, 768)
    assert a != b
    assert len(take_photo("京A·00001", NOW, quality=10)) < len(take_photo("京A·00001", NOW, quality=1))
