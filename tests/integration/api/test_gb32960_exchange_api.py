"""The GB/T 32960 exchange's entities through the real app (platform-spec §2, the gb32960 exchange's
superiorPlatform, car and inferiorPlatform): gb32960SuperiorPlatform (write-only password, the login's byte limits,
encryption rule and version checked, its link state read from gb32960_link_state) and gb32960ExchangeCar (a vehicle
of the caller's tree added to a platform of it, read with plate, VIN and link state, once only), and tenancy;
gb32960InferiorPlatform with the link state a real GB gateway writes for a scripted inferior platform (online,
frames, vehicles, offline after its logout, a wrong password as last error) and its login / logout / refusal in
the exchange frame logs, and the view's aggregation of several gateways' rows."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
from flask.testing import FlaskClient

from protocols.gb32960 import Response
from protocols.gb32960.messages import PlatformLogin, PlatformLogout
from tests.integration.api.conftest import Demo, error_text
from tests.integration.gateway.gb_support import (
    AT,
    GbTerminal,
    insert_vehicle,
    nth_time,
    realtime_body,
    running_gb_gateway,
    unique_vin,
)
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]
SECRET = "s3cr3t-32960"


def body(**extra: Any) -> dict[str, Any]:
    return {"name": f"g{uuid.uuid4().hex[:10]}", "host": "127.0.0.1", "port": 19960, "username": "fleet32960",
            "password": SECRET, "version": "2016", **extra}


def test_platform_password_is_write_only_and_the_login_fields_are_checked(client: FlaskClient, login: Login,
                                                                          pg_url: str) -> None:
    headers = login("admin_a")
    reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers, json=body())
    assert reply.status_code == 200, reply.json
    created = reply.json["data"]  # type: ignore[index]
    assert "password" not in created and created["encryption"] == 1 and created["linkState"] == "disconnected"
    with connect(pg_url) as conn:
        assert conn.execute("SELECT password FROM gb32960_superior_platform WHERE id = %s",
                            (created["id"],)).fetchone() == (SECRET,)
        conn.execute("INSERT INTO gb32960_link_state (platform_id, state, since, sent, backfilled, last_error) "
                     "VALUES (%s, 'connected', now(), 12, 3, NULL)", (created["id"],))
        conn.commit()
    detail = client.get(f"/api/common/gb32960SuperiorPlatform/{created['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert (detail["linkState"], detail["sent"], detail["backfilled"]) == ("connected", 12, 3)
    assert "password" not in detail
    assert client.post("/api/common/query/gb32960SuperiorPlatform.json?select=password", headers=headers,
                       json={}).status_code == 400
    # GB/T 32960.3-2016 table 17: username 12 bytes, password 20; encryption rule 1-3; version 2016 / 2025
    reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers, json=body(username="用户名五个字"))
    assert reply.status_code == 400 and "12" in error_text(reply)
    for bad in ({"encryption": 4}, {"version": "2019"}, {"port": 0}, {"password": "x" * 21}):
        reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers, json=body(**bad))
        assert reply.status_code == 400, (bad, reply.json)
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{created['id']}.json", headers=headers,
                       json={"version": None})
    assert reply.status_code == 400


def test_an_aes_platform_needs_its_key_and_iv_which_are_write_only_and_rsa_is_refused(client: FlaskClient,
                                                                                    login: Login, pg_url: str) -> None:
    headers = login("admin_a")
    key, iv = "000102030405060708090A0B0C0D0E0F", "f0e0d0c0b0a090807060504030201000"
    url = "/api/common/gb32960SuperiorPlatform.json"
    for bad, field in (({"encryption": 3}, "aesKey"), ({"encryption": 3, "aesKey": key}, "aesIv"),
                       ({"encryption": 2}, "encryption"), ({"aesKey": key[:30], "aesIv": iv}, "aesKey"),
                       ({"aesKey": "zz" * 16, "aesIv": iv}, "aesKey")):
        reply = client.post(url, headers=headers, json=body(**bad))
        assert reply.status_code == 400 and reply.json["data"]["field"] == field, (bad, reply.json)  # type: ignore[index]
    reply = client.post(url, headers=headers, json=body(encryption=3, aesKey=key, aesIv=iv))
    assert reply.status_code == 200, reply.json
    created = reply.json["data"]  # type: ignore[index]
    assert created["aesKeySet"] is True and "aesKey" not in created and "aesIv" not in created
    with connect(pg_url) as conn:  # kept as the link uses it, lowercase hex
        assert conn.execute("SELECT aes_key, aes_iv FROM gb32960_superior_platform WHERE id = %s",
                            (created["id"],)).fetchone() == (key.lower(), iv)
    assert client.post("/api/common/query/gb32960SuperiorPlatform.json?select=aesKey", headers=headers,
                       json={}).status_code == 400
    one = f"/api/common/gb32960SuperiorPlatform/{created['id']}.json"
    # clearing the key of an AES platform would leave it unlinkable: refused; with the rule back to none, allowed
    assert client.patch(one, headers=headers, json={"aesKey": None, "aesIv": None}).status_code == 400
    reply = client.patch(one, headers=headers, json={"encryption": 1, "aesKey": None, "aesIv": None})
    assert reply.status_code == 200 and reply.json["data"]["aesKeySet"] is False  # type: ignore[index]
    # an inferior platform: the key is optional, both or neither
    inferior = {"name": f"i{uuid.uuid4().hex[:10]}", "username": f"u{uuid.uuid4().hex[:10]}", "password": "pw"}
    reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=headers, json={**inferior, "aesIv": iv})
    assert reply.status_code == 400 and reply.json["data"]["field"] == "aesKey"  # type: ignore[index]
    reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=headers,
                        json={**inferior, "aesKey": key, "aesIv": iv})
    assert reply.status_code == 200 and reply.json["data"]["aesKeySet"] is True  # type: ignore[index]


def test_a_platforms_cars_are_the_callers_vehicles_listed_with_the_link_state(client: FlaskClient, login: Login,
                                                                              demo: Demo) -> None:
    headers, other = login("admin_a"), login("admin_b")
    reply = client.post("/api/common/gb32960SuperiorPlatform.json", headers=headers,
                        json=body(version="2025", carIds=[demo.a.car_id]))
    assert reply.status_code == 200, reply.json
    platform = reply.json["data"]  # type: ignore[index]
    assert platform["carIds"] == [demo.a.car_id]
    rows = client.post("/api/common/query/gb32960ExchangeCar.json", headers=headers,
                       json={"platformId": platform["id"]}).json["data"]["list"]  # type: ignore[index]
    assert [(r["carId"], r["vin"], r["platformName"], r["version"], r["linkState"]) for r in rows] == [
        (demo.a.car_id, demo.a.vin, platform["name"], "2025", "disconnected")]
    assert rows[0]["plateNumber"]
    # another tree's vehicle answers as missing, naming the field; a list of something else is refused
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                         json={"carIds": [demo.a.car_id, demo.b.car_id]})
    assert reply.status_code == 404 and reply.json["data"]["field"] == "carIds"  # type: ignore[index]
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                         json={"carIds": ["x"]})
    assert reply.status_code == 400 and "交换车辆不合法" in error_text(reply)
    # the list is replaced; the other tree sees neither the platform nor its vehicles
    reply = client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                         json={"carIds": []})
    assert reply.status_code == 200 and reply.json["data"]["carIds"] == []  # type: ignore[index]
    assert client.post("/api/common/query/gb32960ExchangeCar.json", headers=headers,
                       json={"platformId": platform["id"]}).json["data"]["list"] == []  # type: ignore[index]
    client.patch(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=headers,
                 json={"carIds": [demo.a.car_id]})
    assert client.get(f"/api/common/gb32960SuperiorPlatform/{platform['id']}.json", headers=other).status_code == 404
    assert platform["name"] not in str(client.post("/api/common/query/gb32960ExchangeCar.json", headers=other,
                                                   json={}).json)
    assert client.post("/api/common/gb32960ExchangeCar.json", headers=headers, json={}).status_code in (404, 405)


def test_an_inferior_platforms_password_is_write_only_and_its_username_names_one_account(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    headers, other = login("admin_a"), login("admin_b")
    username = f"u{uuid.uuid4().hex[:11]}"
    reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=headers,
                        json={"name": f"i{uuid.uuid4().hex[:8]}", "username": username, "password": "relay-pw"})
    assert reply.status_code == 200, reply.json
    created = reply.json["data"]  # type: ignore[index]
    assert "password" not in created and created["enabled"] is True and created["username"] == username
    with connect(pg_url) as conn:
        assert conn.execute("SELECT password FROM gb32960_inferior_platform WHERE id = %s",
                            (created["id"],)).fetchone() == ("relay-pw",)
    # the login names the account: a username is one platform's, whoever's enterprise
    reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=other,
                        json={"name": f"i{uuid.uuid4().hex[:8]}", "username": username, "password": "x"})
    assert reply.status_code == 409 and reply.json["data"]["field"] == "username"  # type: ignore[index]
    assert client.get(f"/api/common/gb32960InferiorPlatform/{created['id']}.json", headers=other).status_code == 404


def test_an_inferior_platform_with_a_wrongly_typed_field_is_a_400_naming_it(client: FlaskClient, login: Login) -> None:
    headers = login("admin_a")
    good = {"name": f"i{uuid.uuid4().hex[:10]}", "username": f"u{uuid.uuid4().hex[:8]}", "password": SECRET}
    for field in ("name", "username", "password", "enabled", "remark", "enterpriseId"):
        reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=headers, json={**good, field: ["x"]})
        assert reply.status_code in (400, 404), (field, reply.status_code, reply.json)
        assert (reply.json or {}).get("data", {}).get("field") in (field, None), (field, reply.json)


def _inferior_platform(client: FlaskClient, headers: dict[str, str], password: str) -> dict[str, Any]:
    reply = client.post("/api/common/gb32960InferiorPlatform.json", headers=headers,
                        json={"name": f"i{uuid.uuid4().hex[:8]}", "username": f"u{uuid.uuid4().hex[:11]}",
                              "password": password})
    assert reply.status_code == 200, reply.json
    return reply.json["data"]  # type: ignore[index]


def test_an_inferior_platforms_link_on_a_real_gb_gateway_is_on_its_row_and_in_the_frame_logs(
        client: FlaskClient, login: Login, demo: Demo, pg_url: str, kafka_bootstrap: str) -> None:
    headers = login("admin_a")
    platform = _inferior_platform(client, headers, "relay-pw")
    assert (platform["linkState"], platform["frames"], platform["lastError"]) == ("offline", 0, None)
    vin, other_vin = unique_vin(), unique_vin()
    insert_vehicle(pg_url, vin, enterprise_id=demo.a.enterprise_id)
    insert_vehicle(pg_url, other_vin, enterprise_id=demo.a.enterprise_id)

    def row() -> dict[str, Any]:
        return client.get(f"/api/common/gb32960InferiorPlatform/{platform['id']}.json",  # type: ignore[index]
                          headers=headers).json["data"]

    async def until(check: Any, timeout_s: float = 10.0) -> dict[str, Any]:
        """The platform's row once ``check(row)`` holds (the gateway writes every 0.2 s here)."""
        async with asyncio.timeout(timeout_s):
            while not check(found := row()):
                await asyncio.sleep(0.05)
        return found

    async def main() -> None:
        async with running_gb_gateway(pg_url, kafka_bootstrap, inferior_link_flush_s=0.2) as server:
            link = await GbTerminal.connect(server.port_of("gb32960"), "")
            await link.send(0x05, PlatformLogin(AT, 1, platform["username"], "relay-pw", 1))
            assert (await link.receive()).header.response == Response.SUCCESS
            for n, relayed in enumerate((vin, other_vin, vin), start=1):
                await link.send(0x02, realtime_body(nth_time(n)), vin=relayed)
                assert (await link.receive()).header.response == Response.SUCCESS
            online = await until(lambda r: r["frames"] == 3)
            assert (online["linkState"], online["logins"], online["vehicles"], online["refused"]) == (
                "online", 1, 2, 0)
            assert online["peer"].startswith("127.0.0.1:") and online["linkSince"] and online["lastFrameAt"]
            await link.send(0x06, PlatformLogout(nth_time(9), 1))
            assert (await link.receive()).header.command == 0x06
            offline = await until(lambda r: r["linkState"] == "offline")
            assert (offline["frames"], offline["vehicles"], offline["lastError"]) == (3, 2, None)
            assert offline["linkSince"] >= online["linkSince"]

            # a wrong password: refused (0x02, closed) and shown on the platform's row
            intruder = await GbTerminal.connect(server.port_of("gb32960"), "")
            await intruder.send(0x05, PlatformLogin(AT, 2, platform["username"], "guessed", 1))
            assert (await intruder.receive()).header.response == Response.ERROR
            refused = await until(lambda r: r["lastError"] is not None)
            assert (refused["lastError"], refused["refused"], refused["linkState"], refused["logins"]) == (
                "wrong_password", 1, "offline", 1)
            assert refused["lastErrorAt"]

    asyncio.run(main())
    frames = {}
    for direction in ("Upstream", "Downstream"):
        reply = client.post(f"/api/common/query/exchange{direction}Message.json", headers=headers,
                            json={"gb32960InferiorPlatformId": platform["id"]})
        assert reply.status_code == 200, reply.json
        frames[direction] = sorted(reply.json["data"]["list"], key=lambda r: r["id"])  # type: ignore[index]
    up, down = frames["Upstream"], frames["Downstream"]
    assert [(r["msgIdHex"], r["platformKind"], r["platformName"], r["link"]) for r in up] == [
        ("0x0005", "gb32960_inferior", platform["name"], "main"), ("0x0006", "gb32960_inferior", platform["name"],
                                                                  "main"),
        ("0x0005", "gb32960_inferior", platform["name"], "main")]
    assert all("relay-pw" not in r["decoded"] and "guessed" not in r["decoded"] and "password" not in r["decoded"]
               for r in up)
    assert up[0]["rawHex"] == "" and platform["username"] in up[0]["decoded"] and up[1]["rawHex"]
    assert ['"reason": "wrong_password"' in r["decoded"] for r in down] == [False, False, True]
    assert all(r["rawHex"] for r in down)
    # another tree sees none of it
    assert client.post("/api/common/query/exchangeUpstreamMessage.json", headers=login("admin_b"),
                       json={"gb32960InferiorPlatformId": platform["id"]}).json["data"]["list"] == []  # type: ignore[index]


def test_the_link_of_a_platform_held_by_several_gateways_is_their_aggregate(client: FlaskClient, login: Login,
                                                                            pg_url: str) -> None:
    headers = login("admin_a")
    platform = _inferior_platform(client, headers, "pw")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        # gb-1 holds a live session; gb-2's ended earlier with an error; gb-3 died without writing offline
        for gateway, state, since, frames, vehicles, error, age_min in (
                ("gb-1", "online", "2026-12-04 10:00Z", 10, 4, None, 0),
                ("gb-2", "offline", "2026-12-04 09:00Z", 5, 7, "unknown_vin", 0),
                ("gb-3", "online", "2026-12-04 08:00Z", 1, 1, None, 10)):
            conn.execute(
                "INSERT INTO gb32960_inferior_link_state (platform_id, gateway_id, state, since, peer, frames, "
                "logins, vehicles, last_error, last_error_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, 1, %s, %s, "
                "CASE WHEN %s::text IS NULL THEN NULL ELSE now() END, now() - make_interval(mins => %s))",
                (platform["id"], gateway, state, since, f"{gateway}-peer", frames, vehicles, error, error, age_min))
    found = client.get(f"/api/common/gb32960InferiorPlatform/{platform['id']}.json", headers=headers).json["data"]  # type: ignore[index]
    assert (found["linkState"], found["peer"], found["frames"], found["logins"], found["vehicles"],
            found["lastError"]) == ("online", "gb-1-peer", 16, 3, 7, "unknown_vin")
    # since: gb-1's login; gb-3's older "online" row is stale (not refreshed for three minutes), so not live
    assert found["linkSince"] == "2026-12-04T10:00:00+00:00"
    with psycopg.connect(pg_url, autocommit=True) as conn:  # gb-1's session ends: offline since the latest change
        conn.execute("UPDATE gb32960_inferior_link_state SET state = 'offline', since = '2026-12-04 11:00Z' "
                     "WHERE platform_id = %s AND gateway_id = 'gb-1'", (platform["id"],))
    listed = client.post("/api/common/query/gb32960InferiorPlatform.json", headers=headers,
                         json={"linkState": "offline", "name": platform["name"]}).json["data"]["list"]  # type: ignore[index]
    assert [r["id"] for r in listed] == [platform["id"]]


def test_logins_with_an_unknown_username_are_shown_to_the_roots_administrators_only(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    """Migration 0064, as the GB gateway writes it (warehouse/queries/gb_vehicles.py, added up per username and
    address): the root enterprise's administrator reads the rows, newest first; a subsidiary's reads none."""
    from warehouse.queries.gb_vehicles import save_inferior_links_async

    probe = f"p{uuid.uuid4().hex[:8]}"
    first = {"gateway_id": "gb-it", "username": probe, "address": "198.51.100.20", "attempts": 3,
             "first_at": "2026-12-05T01:00:00+00:00", "last_at": "2026-12-05T01:00:05+00:00"}

    async def write(rows: list[dict[str, Any]]) -> None:
        async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
            await save_inferior_links_async(conn, [], [], rows)

    asyncio.run(write([first]))
    asyncio.run(write([{**first, "gateway_id": "gb-it-2", "attempts": 2, "first_at": "2026-12-05T01:10:00+00:00",
                        "last_at": "2099-01-01T00:00:00+00:00"}]))
    reply = client.get("/api/exchange/gb32960/unknownLogins.json", headers=login("admin"))
    assert reply.status_code == 200, reply.json
    data = reply.json["data"]
    assert data["visible"] is True
    assert data["list"][0]["username"] == probe  # the latest first
    assert {k: data["list"][0][k] for k in ("address", "gatewayId", "attempts")} == {
        "address": "198.51.100.20", "gatewayId": "gb-it-2", "attempts": 5}
    assert data["list"][0]["firstAt"].startswith("2026-12-05T01:00:00")
    below = client.get("/api/exchange/gb32960/unknownLogins.json", headers=login("admin_a"))
    assert below.status_code == 200 and below.json["data"] == {"visible": False, "list": []}
    with connect(pg_url) as conn:
        conn.execute("DELETE FROM gb32960_unknown_login WHERE username = %s", (probe,))
        conn.commit()
