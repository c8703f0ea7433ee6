"""The link service's handling of Kafka records and superior requests over a scripted superior (no Kafka or
database here: the vehicle lookup and the scope are filled in as the service would load them; the same paths
against the real Kafka and PostgreSQL are tests/integration/exchange)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import orjson
import pytest

from exchange.link.links import MAIN, LinkDown
from exchange.link.service import PlatformService
from fleet import launcher, topics
from fleet.settings import ExchangeSettings, Gb32960ExchangeSettings
from protocols.jt809 import messages as m
from streams.payloads import Terminal, location_batch, location_body, location_report
from tests.unit.exchange.test_links import CENTRE, Superior, eventually
from warehouse.exchange_seed import DEMO_ACCOUNT, DEMO_CENTRE_ID, DEMO_PASSWORD, DEMO_USER_ID
from warehouse.queries.exchange import ExchangedVehicle, SuperiorPlatform

T1 = Terminal("013800000001", device_id=11, car_id=101, enterprise_id=5)


def platform(port: int, version: str = "2019", interval: int = 0) -> SuperiorPlatform:
    return SuperiorPlatform(1, 5, "p", "127.0.0.1", port, CENTRE, "20180920", CENTRE, version, False, 0, 0, 0, 0,
                            "127.0.0.1", 0, interval, (), datetime.now(UTC))


def service(port: int, **kw: object) -> PlatformService:
    svc = PlatformService(platform(port, **kw), "postgresql://unused", "unused", ExchangeSettings(backfill_after_s=30))  # type: ignore[arg-type]
    svc.enterprises = frozenset({5})
    svc.vehicles[101] = ExchangedVehicle(101, "京A12345", 2, T1.phone, "SN0001")
    return svc


def dynamic(superior: Superior) -> list[m.VehicleDynamic]:
    return [x.body for x in superior.received if x.header.msg_id == m.VehicleDynamic.MSG_ID]


def run(coro: object) -> None:
    asyncio.run(asyncio.wait_for(coro, 10))  # type: ignore[arg-type]


def test_first_position_of_a_vehicle_is_preceded_by_its_registration_and_gaps_are_backfilled() -> None:
    async def scenario() -> None:
        superior = Superior("2019")
        svc = service(await superior.start())
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))
        now = datetime.now(UTC)
        old = [location_body(fix_at=now - timedelta(seconds=300 - i)) for i in range(60)]
        await svc.handle_record(topics.JT808_UPLINK, orjson.dumps(location_batch(T1, old)))
        await svc.handle_record(topics.JT808_UPLINK, orjson.dumps(location_report(T1, fix_at=now)))
        await eventually(lambda: len(dynamic(superior)) == 4)
        sent = dynamic(superior)
        assert [b.data_type for b in sent] == [0x1201, 0x1203, 0x1203, 0x1202]
        assert sent[0].data.terminal_id == "SN0001" and sent[0].plate == "京A12345"
        assert [len(b.data.positions) for b in sent[1:3]] == [50, 10]
        times = [p.location.fix_at for b in sent[1:3] for p in b.data.positions]
        assert times == sorted(times)
        assert svc.links_state[MAIN]["backfilled"] == 60
        task.cancel()

    run(scenario())


def test_positions_within_the_interval_are_thinned_and_counted() -> None:
    async def scenario() -> None:
        superior = Superior("2011")
        svc = service(await superior.start(), version="2011", interval=30)
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))
        now = datetime.now(UTC)
        for s in range(0, 60, 10):
            await svc.handle_record(topics.JT808_UPLINK, orjson.dumps(location_report(T1, fix_at=now + timedelta(seconds=s))))
        await eventually(lambda: len(dynamic(superior)) == 3)
        assert [b.data_type for b in dynamic(superior)] == [0x1201, 0x1202, 0x1202]
        assert svc.links_state[MAIN]["thinned"] == 4
        task.cancel()

    run(scenario())


def test_a_record_that_cannot_be_sent_raises_link_down_so_its_offset_is_not_committed() -> None:
    async def scenario() -> None:
        svc = service(1)
        with pytest.raises(LinkDown):
            await svc.handle_record(topics.JT808_UPLINK,
                                    orjson.dumps(location_report(T1, fix_at=datetime.now(UTC))))

    run(scenario())


def test_an_alarm_push_is_forwarded_as_0x1402() -> None:
    async def scenario() -> None:
        superior = Superior("2019")
        svc = service(await superior.start())
        task = asyncio.create_task(svc.links.run())
        await eventually(lambda: svc.links.is_up(MAIN))
        event = {"kind": "push", "enterprise_id": 5, "enterprise_path": "/5/", "push": {"type": 2, "data": {
            "alarmId": 3, "carId": 101, "key": "a0", "startTime": 1_790_000_000_000, "plateNumber": "京A12345",
            "desc": "紧急报警"}}}
        await svc.handle_record(topics.CONSOLE_EVENTS, orjson.dumps(event))
        await eventually(lambda: any(x.header.msg_id == m.AlarmExchange.MSG_ID for x in superior.received))
        alarm = next(x.body for x in superior.received if x.header.msg_id == m.AlarmExchange.MSG_ID)
        assert alarm.data.warn_type == 3 and alarm.data.plate == "京A12345"
        task.cancel()

    run(scenario())


def count(total: int, start: int, end: int) -> m.PositionCount:
    return m.PositionCount(total, datetime.fromtimestamp(start, UTC), datetime.fromtimestamp(end, UTC))


def test_a_0x9101_count_that_differs_from_what_was_sent_is_counted_as_a_mismatch() -> None:
    svc = service(1)
    svc.sent_per_second.update({1000: 5, 1001: 5, 1002: 5, 2000: 7})
    svc._reconcile(count(15, 1000, 1002))
    svc._reconcile(count(5, 1000, 1002))  # the boundary seconds' positions may fall in another window
    assert svc.links_state[MAIN]["mismatches"] == 0
    svc._reconcile(count(4, 1000, 1002))
    svc._reconcile(count(16, 1000, 1002))
    assert svc.links_state[MAIN]["mismatches"] == 2


def test_fleet_up_supervises_the_link_service() -> None:
    specs = {spec.name: spec for spec in launcher.child_specs(terminals=0, simulator=False)}
    assert specs["exchange"].missing_reason() is None
    assert specs["exchange"].argv[-2:] == ["-m", "exchange.link"]
    # the regulator in a box accepts the seeded demo platform's account
    assert specs["regulator"].missing_reason() is None
    assert specs["regulator"].argv[-3:] == ["exchange-sim", "--account", DEMO_ACCOUNT]
    assert DEMO_ACCOUNT == f"{DEMO_USER_ID}:{DEMO_PASSWORD}:{DEMO_CENTRE_ID}:2019"
    # the GB/T 32960 superior in a box, on the port the seeded demo gb32960 platform dials
    assert specs["gb32960-superior"].missing_reason() is None
    assert specs["gb32960-superior"].argv[-1] == "gb32960-exchange-sim"
    assert specs["gb32960-superior"].port == Gb32960ExchangeSettings().box_port


class RecordingProducer:
    def __init__(self, fail: bool = False) -> None:
        self.sent: list[tuple[str, bytes, bytes]] = []
        self.fail = fail

    async def send_and_wait(self, topic: str, value: bytes, key: bytes) -> None:
        if self.fail:
            raise ConnectionError("kafka away")
        self.sent.append((topic, value, key))


def _stored_inspection_db(stored: list[dict[str, object]]) -> object:
    from warehouse.queries import exchange as q

    def db(fn: object, *args: object) -> object:
        if fn is q.store_inspection:
            stored.append(args[0])  # type: ignore[arg-type]
            return 42
        assert fn is q.inspection_push and args == (42,)
        return {"path": "/1/5/", "inspectionId": 42, "platformId": 1, "platformName": "p", "objectType": 1,
                "objectId": "7001", "question": "值班人员请回答", "state": "open",
                "deadline": datetime(2026, 12, 2, 8, 10, tzinfo=UTC), "receivedAt": datetime(2026, 12, 2, 8, tzinfo=UTC)}
    return db


def test_a_stored_inspection_is_pushed_to_the_owner_enterprises_console() -> None:
    svc = service(1)
    stored: list[dict[str, object]] = []
    svc._db = _stored_inspection_db(stored)  # type: ignore[method-assign]
    svc.producer = RecordingProducer()
    request = m.InspectionRequest(1, "7001", 9, "值班人员请回答", 10)
    run(svc._inspection(77, request))
    assert stored[0]["question"] == "值班人员请回答" and stored[0]["source_sn"] == 77
    [(topic, value, key)] = svc.producer.sent
    event = orjson.loads(value)
    assert (topic, key) == (topics.CONSOLE_EVENTS, b"5")
    assert event["kind"] == "push" and event["enterprise_path"] == "/1/5/" and event["enterprise_id"] == 5
    assert event["push"]["type"] == 16
    assert event["push"]["data"] == {"inspectionId": 42, "platformId": 1, "platformName": "p", "objectType": 1,
                                     "objectId": "7001", "question": "值班人员请回答", "state": "open",
                                     "deadline": "2026-12-02T08:10:00Z", "receivedAt": "2026-12-02T08:00:00Z"}


def test_an_inspection_whose_push_fails_stays_stored_for_the_sign_in_read(caplog: pytest.LogCaptureFixture) -> None:
    svc = service(1)
    stored: list[dict[str, object]] = []
    svc._db = _stored_inspection_db(stored)  # type: ignore[method-assign]
    svc.producer = RecordingProducer(fail=True)
    run(svc._inspection(77, m.InspectionRequest(1, "7001", 9, "值班人员请回答", 10)))
    assert len(stored) == 1 and "not pushed to the console" in caplog.text
