"""Terminal identity: a terminal phone is stored in one canonical form, digits without
leading zeros, whatever width an administrator types (11-digit SIM, 12-digit 2013 header, 20-digit 2019
header), so the gateway finds the terminal from any header and no terminal is recorded twice."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from flask.testing import FlaskClient

from tests.integration.api.test_fleet_api import get, make, patch, post
from warehouse.db import connect

Login = Callable[[str], dict[str, str]]


def _sim_number() -> str:
    return "13" + str(uuid.uuid4().int)[:9]  # 11 digits, no leading zero


def test_a_device_phone_is_stored_without_leading_zeros_and_is_one_terminal_in_every_width(
        client: FlaskClient, login: Login, pg_url: str) -> None:
    a, b = login("admin_a"), login("admin_b")
    sim = _sim_number()
    device = make(client, a, "device", phone="0" + sim)  # as a 2013 header carries it
    assert device["phone"] == sim
    assert get(client, a, "device", device["id"]).json["data"]["phone"] == sim
    with connect(pg_url) as conn:
        assert conn.execute("SELECT phone FROM device WHERE id = %s", (device["id"],)).fetchone() == (sim,)
    for other_form in (sim, "000000000" + sim):  # the same terminal again, in another enterprise too
        reply = post(client, b, "device", {"phone": other_form, "deviceSn": f"SN{uuid.uuid4().hex[:10]}"})
        assert reply.status_code == 409 and reply.json["data"] == {"field": "phone"}, other_form
    updated = patch(client, a, "device", device["id"], {"phone": "000000000" + sim[::-1]})
    assert updated.status_code == 200 and updated.json["data"]["phone"] == sim[::-1].lstrip("0")


def test_a_car_names_its_master_device_by_any_width_and_a_sim_number_is_canonical(
        client: FlaskClient, login: Login) -> None:
    a = login("admin_a")
    sim = _sim_number()
    device = make(client, a, "device", phone=sim)
    car = make(client, a, "car", masterDevicePhone="0" + sim)
    assert (car["masterDeviceId"], car["masterDevicePhone"]) == (device["id"], sim)
    card = make(client, a, "sim", msisdn="00" + sim)
    assert card["msisdn"] == sim
