"""Pure rules behind the console endpoints: password strength, route map filtering, local midnight."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from api.routemap import EXCHANGE_PAGES, INFERIOR_PAGES, REPORT_PAGES, ROUTE_MAP, routes_for, title_keys
from api.routes.console import local_midnight, password_is_valid


@pytest.mark.parametrize("password", ["abc123", "ABCdef!", "123456!", "a1" * 8, "Fleet@2026", "!!!!aa"])
def test_accepts_passwords_with_two_kinds_of_characters(password: str) -> None:
    assert password_is_valid(password)


@pytest.mark.parametrize(
    "password",
    ["abcdefgh", "12345678", "!@#$%^&*", "ab1", "a1" * 8 + "x", "abc 123", "密码abc123", ""],
)
def test_rejects_short_long_single_kind_or_non_ascii_passwords(password: str) -> None:
    assert not password_is_valid(password)


def _paths(routes: list[dict[str, object]]) -> set[str]:
    out: set[str] = set()
    for entry in routes:
        out.add(str(entry["path"]))
        out |= _paths(entry["children"])  # type: ignore[arg-type]
    return out


def test_route_map_keeps_entries_by_any_listed_code() -> None:
    everything = _paths(routes_for({"dashboard": {"query"}, "monitor": {"query"}}))
    assert {"/dashboard/map", "/dashboard/index", "/cockpit/index", "/cockpit/nev1/index",
            "/account/center", "/account/settings"} <= everything
    monitor = routes_for({"monitor": {"query"}})
    assert "/dashboard/index" not in _paths(monitor) and "/dashboard/map" in _paths(monitor)


def test_route_map_ignores_codes_without_actions_and_drops_empty_containers() -> None:
    routes = routes_for({"dashboard": set(), "monitor": []})
    # the welcome and home pages, the account pages and the bell's notice list are every signed-in user's
    assert _paths(routes) == {"/welcome", "/home", "/account", "/account/center", "/account/settings", "/setting",
                              "/setting/notify/List"}


def test_container_redirect_points_at_a_kept_child() -> None:
    dashboard = next(r for r in routes_for({"dashboard": {"query"}}) if r["path"] == "/dashboard")
    assert dashboard["redirect"] == "/dashboard/index"


def test_track_replay_needs_only_the_gps_permission() -> None:
    routes = routes_for({"gps": {"get"}})
    dashboard = next(r for r in routes if r["path"] == "/dashboard")
    assert [c["path"] for c in dashboard["children"]] == ["/dashboard/trace"]
    assert dashboard["redirect"] == "/dashboard/trace"
    assert dashboard["children"][0]["name"] == "dashboardTrace"
    assert dashboard["children"][0]["component"] == "dashboard/trace"
    assert "/dashboard/trace" not in _paths(routes_for({"monitor": {"query"}}))


def test_video_screens_need_the_video_action_of_monitor() -> None:
    """console-spec §6's ``video`` action: the live map alone (monitor query/get) shows no video screen."""
    video = {"/dashboard/monitor", "/dashboard/videoMap", "/dashboard/playback"}
    assert not video & _paths(routes_for({"monitor": {"query", "get"}}))
    assert video <= _paths(routes_for({"monitor": {"query", "video"}}))
    assert not video & _paths(routes_for({"command": {"cmd"}, "video": {"query"}}))  # not another code's action


def test_filtering_never_mutates_the_map() -> None:
    before = repr(ROUTE_MAP)
    routes_for({"dashboard": {"query"}})[0]["meta"]["title"] = "changed"
    assert repr(ROUTE_MAP) == before


def test_every_title_is_a_menu_key() -> None:
    assert all(key.startswith("menu.") for key in title_keys())


@pytest.mark.parametrize(
    ("now", "midnight_utc"),
    [
        (datetime(2026, 3, 1, 15, 59, tzinfo=UTC), datetime(2026, 2, 28, 16, 0, tzinfo=UTC)),  # 23:59 local
        (datetime(2026, 3, 1, 16, 0, tzinfo=UTC), datetime(2026, 3, 1, 16, 0, tzinfo=UTC)),  # 00:00 local
        (datetime(2026, 3, 1, 2, 0, tzinfo=UTC), datetime(2026, 2, 28, 16, 0, tzinfo=UTC)),
    ],
)
def test_local_midnight_is_china_standard_time(now: datetime, midnight_utc: datetime) -> None:
    assert local_midnight(now) == midnight_utc



def test_title_keys_are_the_ones_the_console_translates() -> None:
    assert title_keys() == {"menu.welcome", "menu.home", "menu.dashboard.alarm", "menu.dashboard.ship",
                            "menu.dashboard", "menu.dashboard.map", "menu.dashboard.index", "menu.dashboard.trace", "menu.account",
                            "menu.account.center", "menu.account.settings", "menu.cockpit.index",
                            "menu.cockpit.nev1", "menu.list", "menu.list.carModel", "menu.list.carType", "menu.list.refusedRegistration",
                            "menu.list.deviceProducer", "menu.list.deviceType",
                            "menu.settings", "menu.settings.dictionary", "menu.settings.system", "menu.settings.param", "menu.settings.license",
                            "menu.settings.licenseDetail", "menu.settings.licenseLog", "menu.settings.licenseApply",
                            "menu.settings.announcement",
                            "menu.settings.auditLog", "menu.settings.db", "menu.settings.sourceCodeLog",
                            "menu.settings.openPlatform", "menu.user", "menu.user.enterprise", "menu.user.user",
                            "menu.user.role", "menu.user.role.detail", "menu.user.permission",
                            "menu.list.car", "menu.list.car.edit", "menu.list.carDetail", "menu.list.device", "menu.list.sim",
                            "menu.list.group", "menu.list.evidence", "menu.user.driver", "menu.user.driver.edit",
                            "menu.user.driver.detail",
                            "menu.log", "menu.log.gps", "menu.log.tpms", "menu.log.online", "menu.log.accState", "menu.log.park",
                            "menu.log.idling", "menu.log.downstreamMessage", "menu.log.upstreamMessage",
                            "menu.log.originalMessage",
                            "menu.settings.terminalParams",
                            # its ADAS and DSM variants (platform-spec §2, T/JSATL12 0xF364 / 0xF365)
                            "menu.settings.terminalParamsAdas", "menu.settings.terminalParamsDsm",
                            # the enterprise's terminal registration policy
                            "menu.settings.registrationPolicy",
                            # alarm lists and the notification rules (H7)
                            "menu.list.alarm", "menu.list.alarmDetail", "menu.list.myAlarm", "menu.list.safetyAlarm",
                            "menu.list.safetyAlarmDetail", "menu.settings.notify",
                            # alarm settings (H3)
                            "menu.settings.alarmLevel", "menu.settings.platformAlarmRule",
                            "menu.settings.platformAlarmNotifyRule", "menu.settings.drivingGradeRule",
                            # the bell's notice list (H6)
                            "menu.setting", "menu.setting.notify.list",
                            # the enterprise notification switches (platform-spec §2 messageNotifyRule)
                            "menu.setting.messageNotifyRule",
                            # live video, playback and the video log
                            "menu.dashboard.monitor", "menu.dashboard.videoMap", "menu.dashboard.playback",
                            "menu.log.videoLog",
                            # the live log and its detail (platform-spec §2 logs: live, with detail)
                            "menu.log.live", "menu.log.liveDetail",
                            # the traffic-control (night driving) alarm list (platform-spec §2 lists)
                            "menu.list.trafficControlAlarm",
                            # reports, the running charts and the drivers' attendance log
                            "menu.report", "menu.dashboard.analysis", "menu.log.driverAttendance",
                            "menu.report.alarmOverviewDetail", "menu.report.notebooks",
                            # the alarms behind a report's count cell (platform-spec §2 detail page report/alarm)
                            "menu.report.alarmDetail",
                            # fences, label points and the area vehicle search (platform-spec §2, §9)
                            "menu.settings.fence", "menu.settings.labelPoint", "menu.dashboard.areaSearch", "menu.list.inOutAlarm",
                            # data exchange (JT/T 809, platform-spec §2)
                            "menu.exchange", *(f"menu.exchange.{page}" for page, _ in (*EXCHANGE_PAGES, *INFERIOR_PAGES)),
                            # new-energy vehicles: the gb32960 charging log (platform-spec §2)
                            "menu.gb32960", "menu.gb32960.chargingLog",
                            "menu.gb32960.superiorPlatform", "menu.gb32960.car",
                            "menu.gb32960.inferiorPlatform",
                            *(f"menu.report.{page}" for page, _ in REPORT_PAGES)}


def test_the_exchange_screens_need_the_superior_action() -> None:
    """platform-spec §6: listing and editing superior platforms (query / add) opens no data-exchange screen;
    the ``superior`` action opens all of them."""
    exchange = {f"/exchange/{page}" for page, _ in EXCHANGE_PAGES}
    assert not exchange & _paths(routes_for({"superiorPlatform": {"query", "get", "add", "update", "export"}}))
    assert exchange <= _paths(routes_for({"superiorPlatform": {"superior"}}))


def test_the_charging_log_is_a_screen_of_whoever_sees_cars() -> None:
    """platform-spec §2 "gb32960 charging log": the rows are the caller's vehicles' sessions (gb32960ChargingLog,
    guarded by ``car``), so the screen follows the same code."""
    assert "/gb32960/chargingLog" in _paths(routes_for({"car": {"query"}}))
    assert "/gb32960/chargingLog" not in _paths(routes_for({"alarm": {"query"}}))


def test_the_gb32960_exchange_screens_need_the_superior_action() -> None:
    """platform-spec §2, the gb32960 exchange's superiorPlatform and car: the ``superior`` action, as the JT/T 809
    exchange screens."""
    pages = {"/gb32960/superiorPlatform", "/gb32960/car", "/gb32960/inferiorPlatform"}
    assert not pages & _paths(routes_for({"superiorPlatform": {"query", "get", "add", "update", "export"}}))
    assert not pages & _paths(routes_for({"car": {"query"}}))
    assert pages <= _paths(routes_for({"superiorPlatform": {"superior"}}))
