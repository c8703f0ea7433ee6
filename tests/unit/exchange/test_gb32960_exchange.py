"""GB/T 32960 forwarding: the frames relayed (pure), and the link against the superior in a box over loopback TCP
(platform login 0x05 accepted / refused, data recorded, heartbeat, loss and reconnect, logout 0x06)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from datetime import UTC, datetime, timedelta

import pytest

from exchange.gb32960 import forwarding as f
from exchange.gb32960.box import SuperiorBox, parse_account, parse_aes
from exchange.gb32960.link import LinkDown, SuperiorLink
from exchange.link.backoff import Backoff
from fleet.gb32960_records import GbUplink
from protocols.gb32960 import Encryption, Protocol, decode_frame, encode_frame
from protocols.gb32960.cipher import AesKey, decrypt_frame, encrypt_frame
from protocols.gb32960.messages import PlatformLogin, RealtimeReport, VehicleData, VehicleData2025
from tests.support.tasks import cancel_then_stop

pytestmark = pytest.mark.timeout(30)
AT = datetime(2026, 3, 1, 4, 5, 6, tzinfo=UTC)
VIN = "LGB12345678901234"
KEY = AesKey(bytes(range(16)), bytes(range(16, 32)))


def _report(protocol: Protocol, at: datetime = AT) -> bytes:
    if protocol is Protocol.GB32960_2025:
        block: object = VehicleData2025(status=1, charging=3, run_mode=1, speed_kmh=42.5, mileage_km=12345.6,
                                        total_voltage_v=612.3, total_current_a=-35.2, soc_pct=76, dcdc=1, gear=0x2E,
                                        insulation_kohm=5000)
    else:
        block = VehicleData(status=1, charging=3, run_mode=1, speed_kmh=42.5, mileage_km=12345.6,
                            total_voltage_v=612.3, total_current_a=-35.2, soc_pct=76, dcdc=1, gear=0x2E,
                            insulation_kohm=5000, accelerator_pct=20, brake_pct=0)
    return encode_frame(0x02, RealtimeReport(at, (block,)), vin=VIN, protocol=protocol)


def _uplink(frame: bytes, *, car_id: int | None = 7, command: int = 0x02, protocol: str = "gb32960",
            received_at: datetime = AT) -> GbUplink:
    return GbUplink(protocol, VIN, 1, car_id, 1, command, 0xFE, decode_frame(frame).header.protocol.value,
                    frame.hex(), {}, "c", "g", received_at.isoformat())


@pytest.mark.parametrize("source,version", [(Protocol.GB32960_2016, "2025"), (Protocol.GB32960_2025, "2016")])
def test_a_terminal_of_the_other_edition_has_its_report_written_in_the_superiors(source: Protocol,
                                                                                 version: str) -> None:
    out = f.relay(_uplink(_report(source)), frozenset({7}), version, backfill=True)
    assert isinstance(out, f.Outgoing) and out.command == 0x03 and out.left_out == ()
    sent = decode_frame(out.frame)
    assert (sent.header.protocol, sent.header.command, sent.header.vin) == (f.framing(version), 0x03, VIN)
    (vehicle,) = sent.body.blocks
    assert isinstance(vehicle, VehicleData2025 if version == "2025" else VehicleData)
    assert (vehicle.speed_kmh, vehicle.mileage_km, vehicle.total_voltage_v, vehicle.total_current_a, vehicle.soc_pct,
            vehicle.gear) == (42.5, 12345.6, 612.3, -35.2, 76, 0x2E)
    assert sent.body.collected_at == AT


@pytest.mark.parametrize("protocol,version", [(Protocol.GB32960_2016, "2016"), (Protocol.GB32960_2025, "2025")])
def test_a_frame_is_relayed_with_its_data_unit_byte_for_byte_in_the_superiors_framing(protocol: Protocol,
                                                                                      version: str) -> None:
    frame = _report(protocol)
    out = f.relay(_uplink(frame), frozenset({7}), version, backfill=False)
    assert isinstance(out, f.Outgoing)
    assert out.frame == frame  # real-time, same VIN, same data unit, same framing: the very frame
    back = f.relay(_uplink(frame), frozenset({7}), version, backfill=True)
    assert isinstance(back, f.Outgoing) and back.command == 0x03
    decoded = decode_frame(back.frame)
    assert (decoded.header.command, decoded.header.vin, decoded.raw[24:-1]) == (0x03, VIN, frame[24:-1])
    assert decoded.raw[:2] == protocol.start


def test_only_data_of_exchanged_gb32960_vehicles_of_the_superiors_edition_goes() -> None:
    frame = _report(Protocol.GB32960_2016)
    assert f.relay(_uplink(frame, car_id=8), frozenset({7}), "2016", False) is None
    assert f.relay(_uplink(frame, car_id=None), frozenset({7}), "2016", False) is None
    assert f.relay(_uplink(frame, command=0x01), frozenset({7}), "2016", False) is None
    encrypted = encrypt_frame(frame, KEY)  # a terminal's own AES data unit: unreadable here, so never rewritten
    assert f.relay(_uplink(encrypted), frozenset({7}), "2025", False) == (
        "a gb32960-2016 frame for a GB/T 32960-2025 superior: its data unit is encrypted (0x03) and cannot be "
        "written in another edition")
    assert isinstance(f.relay(_uplink(encrypted), frozenset({7}), "2016", False), f.Outgoing)
    assert f.relay(_uplink(frame, protocol="gb17691"), frozenset({7}), "2016", False) == \
        "protocol gb17691 is not GB/T 32960"
    original_backfill = f.relay(_uplink(frame, command=0x03), frozenset({7}), "2016", False)
    assert isinstance(original_backfill, f.Outgoing) and original_backfill.command == 0x03
    with pytest.raises(ValueError, match="2016 or 2025"):
        f.relay(_uplink(frame), frozenset({7}), "2019", False)


@pytest.mark.parametrize("protocol,version", [(Protocol.GB32960_2016, "2016"), (Protocol.GB32960_2025, "2025")])
def test_an_aes_superior_gets_the_data_unit_encrypted_with_its_key_and_nothing_else_changed(
        protocol: Protocol, version: str) -> None:
    frame = _report(protocol)
    for backfill in (False, True):
        out = f.relay(_uplink(frame), frozenset({7}), version, backfill, KEY)
        assert isinstance(out, f.Outgoing)
        sent = decode_frame(out.frame)
        assert sent.header.encryption == Encryption.AES128 and sent.raw[24:-1] != frame[24:-1]
        clear = decode_frame(decrypt_frame(out.frame, KEY))
        assert (clear.header.command, clear.header.vin, clear.raw[24:-1]) == (out.command, VIN, frame[24:-1])
    # a data unit its terminal encrypted (with the terminal's own key) goes as the terminal sent it
    theirs = encode_frame(0x02, bytes(32), vin=VIN, protocol=protocol, encryption=Encryption.AES128)
    out = f.relay(_uplink(theirs), frozenset({7}), version, False, KEY)
    assert isinstance(out, f.Outgoing) and out.frame == theirs


def test_a_platform_is_linked_without_encryption_or_with_aes_and_its_key_only() -> None:
    from exchange.gb32960.service import _unlinked, link_key
    from warehouse.queries.gb32960_exchange import Gb32960Superior

    def row(encryption: int, key: AesKey | None = None) -> Gb32960Superior:
        return Gb32960Superior(1, 1, "p", "h", 1, "u", "pw", encryption, "2016", frozenset(), AT,
                               key and key.key.hex(), key and key.iv.hex())

    assert _unlinked(row(1)) is None and link_key(row(1)) is None
    assert _unlinked(row(3, KEY)) is None and link_key(row(3, KEY)) == KEY
    assert link_key(row(1, KEY)) is None  # a key kept on a row without encryption is not used
    assert "AES-128 without an AES key" in (_unlinked(row(3)) or "")
    assert "RSA is not supported" in (_unlinked(row(2)) or "")


def test_late_frames_and_login_serials() -> None:
    uplink = _uplink(_report(Protocol.GB32960_2016), received_at=AT)
    assert not f.is_late(uplink, AT + timedelta(seconds=30), 30)
    assert f.is_late(uplink, AT + timedelta(seconds=31), 30)
    serial = f.LoginSerial()
    assert [serial.next(AT), serial.next(AT)] == [1, 2]
    assert serial.next(AT + timedelta(days=1)) == 1  # a new China day starts again at 1
    login = decode_frame(f.login_frame("2025", AT, 3, "user1", "secret", 1))
    assert login.raw[:2] == b"$$" and login.body == PlatformLogin(AT, 3, "user1", "secret", 1)


def test_account_text() -> None:
    assert parse_account("u:p") == ("u", "p")
    for bad in ("u", ":p", "u:", "a" * 13 + ":p"):
        with pytest.raises(ValueError, match="account"):
            parse_account(bad)


def test_aes_key_text() -> None:
    assert parse_aes(f"u:{KEY.key.hex()}:{KEY.iv.hex()}") == ("u", KEY)
    for bad in ("u", f"u:{KEY.key.hex()}", f":{KEY.key.hex()}:{KEY.iv.hex()}", f"u:00:{KEY.iv.hex()}",
                f"u:{KEY.key.hex()}:{KEY.iv.hex()}:x"):
        with pytest.raises(ValueError, match="AES key"):
            parse_aes(bad)


def _link(port: int, password: str = "pw", version: str = "2016", encryption: int = 1) -> SuperiorLink:
    return SuperiorLink("127.0.0.1", port, "user1", password, encryption, version, heartbeat_s=0.2,
                        login_timeout_s=2, backoff=Backoff(0.05, 0.1, 0.01))


async def _up(link: SuperiorLink, timeout_s: float = 5) -> None:
    async with asyncio.timeout(timeout_s):
        await link.up.wait()


@pytest.mark.parametrize("version", ["2016", "2025"])
def test_link_logs_in_relays_heartbeats_reconnects_and_logs_out(version: str) -> None:
    async def main() -> None:
        box = SuperiorBox({"user1": "pw"})
        await box.start()
        link = _link(box.port, version=version)
        task = asyncio.create_task(link.run())
        try:
            await _up(link)
            assert box.status.logins == [("user1", True)]
            frame = _report(Protocol.GB32960_2016 if version == "2016" else Protocol.GB32960_2025)
            await link.send(frame)
            await box.wait_for(lambda: len(box.of(VIN)) == 1, 5)
            assert box.of(VIN)[0].data_hex == frame[24:-1].hex() and box.of(VIN)[0].collected_at == AT
            await box.wait_for(lambda: box.status.heartbeats >= 2, 5)
            port = box.port
            await box.abort()
            async with asyncio.timeout(5):
                while link.up.is_set():
                    await asyncio.sleep(0.02)
            assert link.losses == 1
            with pytest.raises(LinkDown):
                await link.send(frame)
            box2 = SuperiorBox({"user1": "pw"}, port=port)
            await box2.start()
            await _up(link)
            assert box2.status.logins == [("user1", True)]
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await box2.wait_for(lambda: box2.status.logouts == 1, 5)
        await box2.stop()
        await box.stop()

    asyncio.run(main())


def test_the_box_reads_an_accounts_aes_frames_and_refuses_what_does_not_decrypt() -> None:
    async def main() -> None:
        box = SuperiorBox({"user1": "pw"}, keys={"user1": KEY})
        await box.start()
        link = _link(box.port, encryption=Encryption.AES128)
        task = asyncio.create_task(link.run())
        try:
            await _up(link)
            frame = _report(Protocol.GB32960_2016)
            out = f.relay(_uplink(frame), frozenset({7}), "2016", False, KEY)
            assert isinstance(out, f.Outgoing)
            await link.send(out.frame)
            await box.wait_for(lambda: len(box.of(VIN)) == 1, 5)
            got = box.of(VIN)[0]
            assert (got.data_hex, got.collected_at, got.encrypted) == (frame[24:-1].hex(), AT, True)
            other = f.relay(_uplink(frame), frozenset({7}), "2016", False, AesKey(bytes(16), bytes(16)))
            assert isinstance(other, f.Outgoing)
            await link.send(other.frame)
            await box.wait_for(lambda: box.status.errors.get("CipherError") == 1, 5)
            assert len(box.of(VIN)) == 1
            await link.send(frame)  # a clear frame of the same account is still read
            await box.wait_for(lambda: len(box.of(VIN)) == 2, 5)
            assert box.status.counts == {(0x02, True): 1, (0x02, False): 1}
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())


def test_a_box_left_running_keeps_its_last_frames_and_counts_every_one(monkeypatch: pytest.MonkeyPatch) -> None:
    import exchange.gb32960.box as box_module

    monkeypatch.setattr(box_module, "KEEP_RECEIVED", 3)

    async def main() -> None:
        box = SuperiorBox({"user1": "pw"})
        await box.start()
        link = _link(box.port)
        task = asyncio.create_task(link.run())
        try:
            await _up(link)
            frames = [_report(Protocol.GB32960_2016, at=AT + timedelta(seconds=n)) for n in range(5)]
            for frame in frames:
                await link.send(frame)
            await box.wait_for(lambda: box.status.counts[0x02, False] == 5, 5)
            assert [r.collected_at for r in box.of(VIN)] == [AT + timedelta(seconds=n) for n in (2, 3, 4)]
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())


def test_a_wrong_password_is_refused_and_the_link_stays_down() -> None:
    async def main() -> None:
        box = SuperiorBox({"user1": "pw"})
        await box.start()
        states: list[tuple[str, str | None]] = []
        link = _link(box.port, password="wrong")
        link.on_state = lambda state, error: states.append((state, error))
        task = asyncio.create_task(link.run())
        try:
            async with asyncio.timeout(5):
                while len(box.status.logins) < 2:
                    await asyncio.sleep(0.02)
            assert box.status.logins[:2] == [("user1", False), ("user1", False)]
            assert not link.up.is_set() and link.losses == 0
            assert any(error and "flag 0x02" in error for _, error in states)
        finally:
            await cancel_then_stop(task, box)

    asyncio.run(main())


def test_a_link_stopped_at_any_moment_of_its_login_stops() -> None:
    """Stopping the service cancels the link's task; it must end whatever the link was waiting for, including
    a login answer arriving in the same turn of the loop as the cancellation (asyncio.wait_for on 3.11 lost
    that cancellation and the link went on reconnecting for ever)."""
    async def main() -> None:
        box = SuperiorBox({"user1": "pw"})
        await box.start()
        rng = random.Random(7)
        still_running = 0
        try:
            for _ in range(150):
                link = SuperiorLink("127.0.0.1", box.port, "user1", "wrong", 1, "2016", heartbeat_s=0.2,
                                    login_timeout_s=2, backoff=Backoff(0.0, 0.0, 0.0))
                task = asyncio.create_task(link.run())
                await asyncio.sleep(rng.uniform(0, 0.01))  # connecting, logging in, refused, again...
                task.cancel()
                done, _ = await asyncio.wait({task}, timeout=1)
                if not done:
                    still_running += 1
                    while not task.done():  # let asyncio.run end
                        task.cancel()
                        await asyncio.sleep(0)
                    break
        finally:
            await box.stop()
        assert still_running == 0

    asyncio.run(main())


def test_the_box_command_runs_and_refuses_a_bad_account() -> None:
    from click.testing import CliRunner

    from fleet.cli import main

    result = CliRunner().invoke(main, ["gb32960-exchange-sim", "--port", "0", "--duration", "0.3"])
    assert result.exit_code == 0, result.output
    assert "gb32960 superior in a box on 127.0.0.1:" in result.output
    result = CliRunner().invoke(main, ["gb32960-exchange-sim", "--account", "nopassword", "--duration", "0.1"])
    assert result.exit_code == 2 and "expected USERNAME:PASSWORD" in result.output
    result = CliRunner().invoke(main, ["gb32960-exchange-sim", "--account", "u:p", "--aes", f"v:{'0' * 32}:{'0' * 32}",
                                       "--duration", "0.1"])
    assert result.exit_code == 2 and "no account v" in result.output


def test_a_report_that_cannot_be_written_in_the_other_edition_costs_that_frame_not_the_link(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise ValueError("pack 1: 300 cells")

    monkeypatch.setattr(f, "transcode", refuse)
    out = f.relay(_uplink(_report(Protocol.GB32960_2016)), frozenset({7}), "2025", False)
    assert out == ("a gb32960-2016 frame for a GB/T 32960-2025 superior: it cannot be written in another edition "
                   "(pack 1: 300 cells)")
    assert isinstance(f.relay(_uplink(_report(Protocol.GB32960_2016)), frozenset({7}), "2016", False), f.Outgoing)
