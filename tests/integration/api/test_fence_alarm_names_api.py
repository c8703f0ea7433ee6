"""A fence alarm (type 4, stored by the streams' fence step) in the alarm list: named by its kind in the
caller's language, then its fence's name; the terminal's own area alarm with "(terminal)"; an alarm of a
fence the platform does not know by its kind alone."""

from __future__ import annotations

import orjson
from flask.testing import FlaskClient

from tests.integration.api.test_alarms_api import Fleet, add_alarm, client_module, fleet, ok  # noqa: F401
from warehouse.db import connect


def test_a_fence_alarm_is_named_by_its_kind_in_the_callers_language_and_its_fence(
        client: FlaskClient, fleet: Fleet, pg_url: str) -> None:  # noqa: F811
    car = fleet.child_car  # this test's own rows: the child enterprise's car, no other test lists its alarms
    enter = add_alarm(pg_url, fleet.child, car, "fence:41:enter", type_=4, minutes_ago=3)
    leave = add_alarm(pg_url, fleet.child, car, "tfence:41:leave", type_=4, minutes_ago=2)
    add_alarm(pg_url, fleet.child, car, "tfence:99:segment_long", type_=4, minutes_ago=1)
    with connect(pg_url) as conn:
        for alarm_id in (enter, leave):
            conn.execute("UPDATE alarm SET details = %s::jsonb WHERE id = %s",
                         (orjson.dumps({"fenceId": 41, "fenceName": "东区车场"}).decode(), alarm_id))
        conn.commit()
    names = {}
    for language in ("zh-CN", "zh-HK", "en-US"):
        page = ok(client.post("/api/common/query/alarm.json", headers={**fleet.headers, "X-Fleet-Language": language},
                              json={"carId.eq": car.car_id, "type.eq": 4}))
        names[language] = [r["desc"] for r in page["list"]]
    assert names == {
        "zh-CN": ["路段行驶时间过长(终端)", "出区域报警(终端) (东区车场)", "进区域报警 (东区车场)"],
        "zh-HK": ["路段行駛時間過長(終端)", "出區域報警(終端) (东区车场)", "進區域報警 (东区车场)"],
        "en-US": ["Road section time too long (terminal)", "Leaving area (terminal) (东区车场)",
                  "Entering area (东区车场)"],
    }
