"""The link service's vehicle lookup against the real PostgreSQL: the vehicles of a record's positions that are
not cached yet (every vehicle, after each reload of the platform) are read in one query, not one round trip each,
and each still goes to the superior with its own plate, colour, phone and device SN."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import psycopg

from exchange.link.links import MAIN
from exchange.link.service import PlatformService
from fleet import topics
from fleet.settings import ExchangeSettings
from protocols.jt809 import messages as m
from streams.payloads import location_report
from tests.integration.streams.support import insert_terminals
from tests.unit.exchange.test_links import CENTRE, Superior, eventually
from warehouse.queries import exchange as q
from warehouse.queries.exchange import SuperiorPlatform


def test_vehicles_reads_many_cars_in_one_query_and_leaves_out_a_car_that_does_not_exist(pg_url: str) -> None:
    terminals = insert_terminals(pg_url, 3, enterprise_name="link-lookup")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE car SET plate_color = 1 WHERE id = %s", (terminals[1].car_id,))
        plates = dict(conn.execute("SELECT id, plate_number FROM car WHERE id = ANY(%s)",
                                   ([t.car_id for t in terminals],)).fetchall())
        found = q.vehicles(conn, {t.car_id: t.device_id for t in terminals} | {-1: terminals[0].device_id})
    assert set(found) == {t.car_id for t in terminals}
    for terminal in terminals:
        vehicle = found[terminal.car_id]
        assert (vehicle.plate, vehicle.phone) == (plates[terminal.car_id], terminal.phone)
        assert vehicle.device_sn.startswith("SN")
    assert found[terminals[1].car_id].plate_colour == 1
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the same as the one-car lookup
        assert [q.vehicle(conn, t.car_id, t.device_id) for t in terminals] == [found[t.car_id] for t in terminals]


@contextlib.asynccontextmanager
async def _linked_service(pg_url: str, terminals: list[Any]) -> AsyncIterator[tuple[PlatformService, Superior, list[str]]]:
    """A link service for the terminals' enterprise, logged in to a superior in this process; the names of
    the queries it runs are listed in the third item."""
    superior = Superior("2019")
    port = await superior.start()
    platform = SuperiorPlatform(1, terminals[0].enterprise_id, "p", "127.0.0.1", port, CENTRE, "20180920", CENTRE,
                                "2019", False, 0, 0, 0, 0, "127.0.0.1", 0, 0, (), datetime.now(UTC))
    svc = PlatformService(platform, pg_url, "unused", ExchangeSettings())
    svc.enterprises = frozenset({terminals[0].enterprise_id})
    lookups: list[str] = []
    real_db = svc._db

    def counted_db(fn: Any, *args: Any) -> Any:
        lookups.append(fn.__name__)
        return real_db(fn, *args)

    svc._db = counted_db  # type: ignore[method-assign]
    task = asyncio.create_task(svc.links.run())
    try:
        await eventually(lambda: svc.links.is_up(MAIN))
        yield svc, superior, lookups
    finally:
        task.cancel()
        await asyncio.to_thread(real_db.close)  # what run() does when the service stops


def _dynamic(superior: Superior) -> list[m.VehicleDynamic]:
    return [x.body for x in superior.received if x.header.msg_id == m.VehicleDynamic.MSG_ID]


def _plates(pg_url: str, terminals: list[Any]) -> dict[int, str]:
    with psycopg.connect(pg_url) as conn:
        return dict(conn.execute("SELECT id, plate_number FROM car WHERE id = ANY(%s)",
                                 ([t.car_id for t in terminals],)).fetchall())


def test_a_record_of_uncached_vehicles_costs_one_lookup_and_each_vehicle_goes_registered_with_its_plate(
        pg_url: str) -> None:
    terminals = insert_terminals(pg_url, 5, enterprise_name="link-lookup")
    plates = _plates(pg_url, terminals)

    async def scenario() -> tuple[list[m.VehicleDynamic], list[str]]:
        async with _linked_service(pg_url, terminals) as (svc, superior, lookups):
            now = datetime.now(UTC).replace(microsecond=0)
            record = [location_report(t, fix_at=now) for t in terminals]  # one batch record, as the gateway writes
            await svc.handle_record(topics.JT808_UPLINK, orjson.dumps(record))
            await eventually(lambda: len(_dynamic(superior)) == 10)
            return _dynamic(superior), lookups

    sent, lookups = asyncio.run(asyncio.wait_for(scenario(), 20))
    assert lookups == ["vehicles"]
    assert sorted((b.plate, b.data_type) for b in sent) == sorted(
        (plates[t.car_id], kind) for t in terminals for kind in (0x1201, 0x1202))


def test_a_reload_reads_the_cached_vehicles_again_in_one_query_and_forwarding_then_looks_up_nothing(
        pg_url: str) -> None:
    terminals = insert_terminals(pg_url, 3, enterprise_name="link-lookup")
    renamed = f"京R{terminals[0].car_id % 100000:05d}"

    async def scenario() -> tuple[list[m.VehicleDynamic], list[str], list[str]]:
        async with _linked_service(pg_url, terminals) as (svc, superior, lookups):
            now = datetime.now(UTC).replace(microsecond=0)
            await svc.handle_record(topics.JT808_UPLINK, orjson.dumps([location_report(t, fix_at=now) for t in terminals]))
            await eventually(lambda: len(_dynamic(superior)) == 6)
            with psycopg.connect(pg_url, autocommit=True) as conn:  # an administrator renames a vehicle
                conn.execute("UPDATE car SET plate_number = %s WHERE id = %s", (renamed, terminals[0].car_id))
            await svc.refresh_vehicles()
            at_reload = list(lookups)
            later = now + timedelta(seconds=30)
            await svc.handle_record(topics.JT808_UPLINK,
                                    orjson.dumps([location_report(t, fix_at=later) for t in terminals]))
            await eventually(lambda: len(_dynamic(superior)) == 9)
            return _dynamic(superior)[6:], at_reload, lookups

    after, at_reload, lookups = asyncio.run(asyncio.wait_for(scenario(), 20))
    assert at_reload == ["vehicles", "vehicles"]  # the first record's lookup, then the reload's own
    assert lookups == at_reload  # the record after the reload waited for no lookup
    plates = _plates(pg_url, terminals)
    assert plates[terminals[0].car_id] == renamed
    assert sorted(b.plate for b in after) == sorted(plates.values())
    assert all(b.data_type == 0x1202 for b in after)  # registered once: the reload does not register again
