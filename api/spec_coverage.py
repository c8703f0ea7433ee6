"""The spec audit: every screen row of both specs' §2 and every call of both specs' §7, with what serves it.

The rows are written down here once, in the specs' own words; what serves each is checked against the
product itself, so the table cannot drift: a call is matched against the API's URL map (method and path), a
screen against the server's route map (``api.routemap.ROUTE_MAP``) or the console's own route table
(``dashboards/src/router``). A row marked missing is checked the other way round: the day its route
appears, the test (tests/unit/api/test_spec_coverage.py) fails until the row says it is served.

``python -m api.spec_coverage > docs/spec-coverage.md`` writes the table; the test checks it is current.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from werkzeug.routing import Map

from api.routemap import ROUTE_MAP

ROOT = Path(__file__).resolve().parent.parent
CONSOLE_ROUTES = (ROOT / "dashboards/src/router/routeTable.ts", ROOT / "dashboards/src/router/AppRoutes.tsx",
                  ROOT / "dashboards/src/router/paths.ts")

# Who builds what is not served yet (the README's roadmap names the same areas).
NEW_ENERGY = "new energy (GB/T 32960, GB 17691 / HJ 1239)"
SEEDS = "the remaining seeds"
NO_PAGE = "-"  # a row the spec itself leaves without a page


@dataclass(frozen=True)
class Screen:
    spec: str           # "console §2" or "platform §2"
    family: str         # the spec's group (Dashboards, Lists, ...)
    item: str           # the spec's word for the screen
    route: str          # a route name of ROUTE_MAP or of the console's route table
    missing: str = ""   # who builds it, when it is not served (``route`` is then the name it will have)
    note: str = ""
    partial: str = ""   # who completes it, when it is routed but not all the spec asks for is there


@dataclass(frozen=True)
class Call:
    spec: str
    method: str
    path: str           # as the spec writes it
    missing: str = ""
    note: str = ""
    partial: str = ""

    def probe(self) -> str:
        """The path with each ``{placeholder}`` replaced by a value the URL map can match."""
        values = {"vin": "LNBSCB3F5JW123456", "command": "8300"}
        return re.sub(r"\{(\w+)[^}]*\}", lambda m: values.get(m.group(1), "1"), self.path.split("?")[0])


# Routed, not yet all the spec asks for: db4403t363CarDetail shows what the HJ 1239 layout carries (no public
# DB4403/T 363 text beyond it).
_PARTIAL = {"db4403t363CarDetail": NEW_ENERGY}


def _screens(spec: str, family: str, items: str, *, prefix: str = "", **special: str) -> list[Screen]:
    """Rows whose route name is ``prefix + Item`` unless ``special`` maps the item to another name
    (a value ``"missing:<owner>:<route>"`` marks it missing)."""
    rows = []
    for item in items.split():
        target = special.get(item.replace("/", "_").replace("-", "_"), prefix + item[:1].upper() + item[1:])
        if target.startswith("missing:"):
            _, owner, route = target.split(":", 2)
            rows.append(Screen(spec, family, item, route, missing=owner))
        else:
            rows.append(Screen(spec, family, item, target, partial=_PARTIAL.get(target, "")))
    return rows


SCREENS: tuple[Screen, ...] = (
    # console-spec §2, routes table
    Screen("console §2", "Routes", "/user/login (login)", "login"),
    Screen("console §2", "Routes", "applyForLicense (/user/license)", "license"),
    Screen("console §2", "Routes", "/user/recover (recover)", NO_PAGE, note="no page attached, as the spec says"),
    Screen("console §2", "Routes", "/ (to /dashboard/index or the stored index URL)", "dashboardIndex"),
    Screen("console §2", "Routes", "/404", "exception404"),
    Screen("console §2", "Routes", "/account/center", "accountCenter"),
    Screen("console §2", "Routes", "/account/settings", "accountSettings"),
    Screen("console §2", "Routes", "/setting/notify/List", "notifyList"),
    Screen("console §2", "Routes", "carDetail", "carDetail"),
    Screen("console §2", "Routes", "nev1CockpitIndex (/cockpit/nev1/index)", "nev1CockpitIndex"),
    Screen("console §2", "Routes", "cockpitIndex (/cockpit/index)", "cockpitIndex"),
    Screen("console §2", "Menu", "welcome", "welcome"),
    Screen("console §2", "Menu", "home", "home"),
    Screen("console §2", "Menu", "report: alarm analysis", "reportAlarmOverview"),
    # platform-spec §2, routes shown
    Screen("platform §2", "Routes", "/user/license (applyForLicense)", "license"),
    Screen("platform §2", "Routes", "/cockpit (hidden layout)", "COCKPIT_PATH"),
    *_screens("platform §2", "Dashboards", "alarm analysis cockpit nev1 index map monitor playback ship trace",
              prefix="dashboard", cockpit="cockpitIndex", nev1="nev1CockpitIndex"),
    *_screens("platform §2", "Detail pages", "alarm car driver role report/alarm db4403t363 gb17691 gb32960 hj1239",
              alarm="listAlarmDetail", car="carDetail", driver="userDriverDetail",
              role="userRoleDetail", report_alarm="reportAlarmDetail",
              db4403t363="db4403t363CarDetail", gb17691="g6CarDetail", gb32960="nevCarDetail",
              hj1239="hj1239CarDetail"),
    *_screens("platform §2", "Exception pages", "403 404 500", prefix="exception"),
    *_screens("platform §2", "Data exchange", "alarmMessage car downstreamMessage gps inferiorPlatform inspectMessage "
              "map notifyMessage playback superiorPlatform upstreamMessage", prefix="exchange",
              playback="exchangePlayback"),
    *_screens("platform §2", "Data exchange (gb32960)", "car inferiorPlatform superiorPlatform",
              car="gb32960Car",
              inferiorPlatform="gb32960InferiorPlatform",
              superiorPlatform="gb32960SuperiorPlatform"),
    Screen("platform §2", "Fence", "fence", "settingsFence"),
    Screen("platform §2", "gb32960 charging log", "chargingLog", "gb32960ChargingLog"),
    *_screens("platform §2", "Lists", "alarm car car/edit carModel carType device deviceProducer deviceType evidence "
              "inOutAlarm myAlarm safetyAlarm safetyAlarm/detail sim trafficControlAlarm", prefix="list",
              car_edit="listCarEdit", safetyAlarm_detail="listSafetyAlarmDetail"),
    *_screens("platform §2", "Logs", "downstreamMessage driverAttendance gps idling live live/detail online "
              "originalMessage park tpms upstreamMessage videoLog", prefix="log",
              live_detail="logLiveDetail"),
    Screen("platform §2", "Open API", "openPlatform", "settingsOpenPlatform",
           note="the spec asks for Open API as its own page too (apps, APIs and limits are tabs here)"),
    *_screens("platform §2", "Reports", "a1Alarm alarm alarmOverview alarmOverview/detail dailyMileage "
              "driverDailyMileage driverMileage driverMonthMileage drivingTrip dsm1 enterpriseDailyMileage "
              "enterpriseMileage enterpriseMonthMileage gpsMileage inOutAlarm mileage monthDataCount monthMileage "
              "online runtime safety track trafficControlAlarm", prefix="report",
              alarmOverview_detail="reportAlarmOverviewDetail"),
    *_screens("platform §2", "Settings", "alarmLevel db dictionary drivingGradeRule fence labelPoint license "
              "licenseApply licenseDetail licenseLog messageNotifyRule notify openPlatform param "
              "platformAlarmNotifyRule platformAlarmRule sourceCodeLog system terminalParams terminalParams/adas "
              "terminalParams/dsm", prefix="settings",
              messageNotifyRule="messageNotifyRule",
              terminalParams="terminalParams",
              terminalParams_adas="terminalParamsAdas",
              terminalParams_dsm="terminalParamsDsm"),
    *_screens("platform §2", "User", "driver driver/edit enterprise license login permission role user",
              prefix="user", driver_edit="userDriverEdit", license="license",  # the User menu's license is /user/license, applyForLicense (platform-spec §2 routes)
              login="login"),
)

CALLS: tuple[Call, ...] = (
    # console-spec §7
    Call("console §7", "GET", "/oauth2/token.json"),
    Call("console §7", "GET", "/api/device/{id}/terminal/params.json"),
    Call("console §7", "GET", "/api/common/deviceCar/{id}.json"),
    Call("console §7", "GET", "/api/device/{id}/bizState.json"),
    Call("console §7", "GET", "/api/device/{id}/state.json"),
    Call("console §7", "GET", "/api/common/device/{id}.json"),
    Call("console §7", "POST", "/api/common/query/device.json"),
    Call("console §7", "GET", "/api/video/{id}/{channel}.json"),
    Call("console §7", "POST", "/api/command/{deviceId}/9101.json",
         note="a device id when the body's deviceId names it; platform-spec's car id otherwise"),
    Call("console §7", "POST", "/api/command/{deviceId}/9102.json",
         note="a device id when the body's deviceId or streamId names it; platform-spec's car id otherwise"),
    Call("console §7", "PUT", "/api/video/heartbeat/{streamIds}.json"),
    Call("console §7", "POST", "/api/batch/command/8300.json"),
    Call("console §7", "POST", "/api/device/{id}/command/8103.json", note="the send-command service: 8103"),
    Call("console §7", "POST", "/api/device/{id}/command/8104.json", note="8104"),
    Call("console §7", "POST", "/api/device/{id}/command/8801.json", note="8801 capture"),
    Call("console §7", "POST", "/api/device/{id}/command/8300.json", note="8300 text"),
    Call("console §7", "POST", "/api/device/{id}/command/8500.json", note="vehicle control (lock / unlock)"),
    Call("console §7", "GET", "/api/notice/overView.json"),
    Call("console §7", "POST", "/api/query/notice.json"),
    Call("console §7", "PATCH", "/api/common/user/{id}.json"),
    Call("console §7", "POST", "/api/common/query/gps.json"),
    Call("console §7", "GET", "/api/gps/device/{id}/last.json"),
    Call("console §7", "GET", "/api/gps/car/{id}/last.json"),
    Call("console §7", "GET", "/api/gps/vin/{vin}/last.json"),
    Call("console §7", "POST", "/api/common/query/deviceUploadFile.json"),
    Call("console §7", "GET", "/api/media/download/{id}.json"),
    Call("console §7", "GET", "/api/media/obs/download/{id}.json"),
    Call("console §7", "GET", "/api/regeo/geocode.json"),
    Call("console §7", "GET", "/api/common/systemFile/{name}.json",
         note="logo, apiManual, userManual-<language>: the layout's logo and the footer's manuals"),
    Call("console §7", "POST", "/api/common/query/alarmLevelUserSettingRuleView.json"),
    Call("console §7", "POST", "/api/common/query/dictionary.json", note="dictionary query (car business notification rule)"),
    Call("console §7", "POST", "/api/common/query/alarm.json", note="the alarm query"),
    Call("console §7", "POST", "/api/common/count/alarm.json"),
    Call("console §7", "POST", "/api/common/alarm/{id}/confirm.json", note="alarm confirm save"),
    Call("console §7", "GET", "/api/system/mapConfig.json", note="the map-config call"),
    Call("console §7", "GET", "/wss/stomp", note="SockJS/STOMP at /wss/stomp (SockJS websocket transport and "
         "plain WebSocket; Basic in CONNECT under authorization protocol 1)"),
    # platform-spec §7
    Call("platform §7", "GET", "/api/common/carView/{id}.json"),
    Call("platform §7", "GET", "/api/car/{id}/bizState.json"),
    Call("platform §7", "GET", "/api/car/{id}/state.json"),
    Call("platform §7", "POST", "/api/common/query/carView.json"),
    Call("platform §7", "POST", "/api/common/query/carUserView.json", note="followed cars"),
    Call("platform §7", "POST", "/api/common/query/group.json"),
    Call("platform §7", "GET", "/api/aas/subsidiary.json"),
    Call("platform §7", "POST", "/api/car/enterprise.json"),
    Call("platform §7", "GET", "/api/common/enterprise/{id}.json"),
    Call("platform §7", "POST", "/api/common/count/carView.json"),
    Call("platform §7", "POST", "/api/common/query/accStateLog.json"),
    Call("platform §7", "POST", "/api/common/query/enterpriseTodayOnlineCarReport.json"),
    Call("platform §7", "POST", "/api/common/query/enterpriseCarBizstateReport.json"),
    Call("platform §7", "POST", "/api/common/query/enterpriseVideoCarBizstateReport.json"),
    Call("platform §7", "POST", "/api/common/query/carMonthReport.json"),
    Call("platform §7", "POST", "/api/common/query/carYearReport.json"),
    Call("platform §7", "POST", "/api/report/sum/car_year_report.json"),
    Call("platform §7", "GET", "/api/report/car/dayReport/query.json"),
    Call("platform §7", "POST", "/api/report/car/dayReport/sum.json"),
    Call("platform §7", "GET", "/api/report/car/dayReport/sum.json"),
    Call("platform §7", "POST", "/api/report/car/dayReport/page/sum.json"),
    Call("platform §7", "POST", "/api/report/addAndSum/car_month_report.json"),
    Call("platform §7", "GET", "/api/report/car/carModel/sum.json"),
    Call("platform §7", "POST", "/api/report/distinctCount/device_alarm.json"),
    Call("platform §7", "POST", "/api/report/count/device_day_report.json"),
    Call("platform §7", "POST", "/api/report/distinctCount/device_month_report.json"),
    Call("platform §7", "POST", "/api/report/distinctCount/device_year_report.json"),
    Call("platform §7", "POST", "/api/common/query/alarm.json"),
    Call("platform §7", "PATCH", "/api/common/alarm/{id}.json"),
    Call("platform §7", "POST", "/api/report/sum/device_alarm.json"),
    Call("platform §7", "POST", "/api/common/count/alarm.json"),
    Call("platform §7", "GET", "/api/common/driver/{id}.json"),
    Call("platform §7", "GET", "/api/device/driver/{id}.json"),
    Call("platform §7", "POST", "/api/system/dictionary/dictionary.json"),
    Call("platform §7", "POST", "/api/common/query/dictionary.json"),
    Call("platform §7", "GET", "/api/common/geoMapData/{id}.json"),
    Call("platform §7", "POST", "/api/command/{carId}/{command}.json", note="probed as 8300"),
    Call("platform §7", "GET", "/api/command/{id}/state.json"),
    Call("platform §7", "GET", "/api/video/command/{id}/state.json"),
)


def _route_names(entries: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    for entry in entries:
        yield str(entry["name"])
        yield from _route_names(entry["children"])


def screen_names() -> set[str]:
    """Route names of the server's route map and of the console's own routes (names, path constants and the
    element names of the routes it mounts outside the route map)."""
    names = set(_route_names(ROUTE_MAP))
    for path in CONSOLE_ROUTES:
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"name: '(\w+)'", text))
        names |= set(re.findall(r"export const (\w+)", text))
        names |= {m.lower() for m in re.findall(r'<Route path="(\w+)"', text)}
    return names


def call_served(call: Call) -> bool:
    from werkzeug.exceptions import HTTPException

    # The push endpoint (console-spec §7 "/wss/stomp") is a WebSocket route: it matches a ws request only.
    scheme = "ws" if call.path.startswith("/wss/") else "http"
    adapter = _url_map().bind("localhost", url_scheme=scheme)
    try:
        adapter.match(call.probe(), method=call.method)
    except HTTPException:
        return False
    return True


_APP_MAP: list[Map] = []


def _url_map() -> Map:
    if not _APP_MAP:
        from api.app import create_app
        from fleet.settings import ApiSettings

        app = create_app(ApiSettings(token_secret="spec-coverage"), "postgresql://nobody@127.0.0.1:9/none",
                         var_dir=Path(tempfile.mkdtemp(prefix="spec-coverage-")))
        _APP_MAP.append(app.url_map)
    return _APP_MAP[0]


def _status(missing: str, partial: str, routed: bool) -> str:
    if missing:
        return f"missing: {missing}" + (" (BUT ROUTED)" if routed else "")
    if not routed:
        return "NOT FOUND"
    return f"partial: {partial}" if partial else "served"


def render() -> str:
    names = screen_names()
    out = ["# What the specs ask for, and what serves it", "",
           "Generated by `python -m api.spec_coverage > docs/spec-coverage.md` from `api/spec_coverage.py`; "
           "tests/unit/api/test_spec_coverage.py checks every row against the route map, the console's "
           "routes and the API's URL map, so a row cannot claim a route that does not exist, nor stay "
           "missing once its route exists. Served means routed and built; a note says where a row is partial.",
           ""]
    served = sum(1 for s in SCREENS if not s.missing and not s.partial)
    out += [f"## Screens (console-spec §2, platform-spec §2): {served} of {len(SCREENS)} served in full", "",
            "| spec | family | screen | route | status |", "|---|---|---|---|---|"]
    for s in SCREENS:
        status = _status(s.missing, s.partial, s.route == NO_PAGE or s.route in names)
        if s.note:
            status += f" ({s.note})"
        out.append(f"| {s.spec} | {s.family} | {s.item} | `{s.route}` | {status} |")
    served = sum(1 for c in CALLS if not c.missing and not c.partial)
    out += ["", f"## Calls (console-spec §7, platform-spec §7): {served} of {len(CALLS)} served in full", "",
            "| spec | method | path | status |", "|---|---|---|---|"]
    for c in CALLS:
        status = _status(c.missing, c.partial, call_served(c))
        if c.note:
            status += f" ({c.note})"
        out.append(f"| {c.spec} | {c.method} | `{c.path}` | {status} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import logging

    logging.getLogger("psycopg.pool").setLevel(logging.CRITICAL)  # the app's pool never connects here
    sys.stdout.write(render())
