"""The console's route map (console-spec §2, §6): the server decides which screens exist and which
permission each needs; the console builds its routes and menu from what ``routes_for`` returns.

Entry: ``{path, name, component, redirect?, meta: {title, icon, permission, invisible, link,
highlight, closable, cacheAble, target?}, children}``.

- ``title`` is a whole key of the console's ``menu`` namespace, dots included (``menu.dashboard.map``);
  the console looks it up without the key separator, so ``menu.dashboard`` and ``menu.dashboard.map``
  are two flat keys, not a text and its parent.
- ``icon`` is an antd icon component name.
- ``component`` is a key the console maps to a lazily loaded page (``dashboard/map``); ``RouteView``
  marks a pure container whose children render inside the layout.
- ``permission``: codes, any one of which keeps the entry (an empty list: open to every user); a code
  written ``code:action`` needs that action on the code (the video screens need ``monitor:video``, the
  action console-spec §6 names, so a role with the live map alone does not see them).
- ``invisible``: routable but not in the menu; ``link``: external URL; ``highlight``: menu path to
  highlight instead; ``closable`` false: its tab has no close icon; ``cacheAble`` false: its page is not
  kept alive; ``target`` ``_blank``: opened in a new browser tab (the cockpits).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


def _meta(
    title: str,
    icon: str = "",
    permission: Iterable[str] = (),
    *,
    invisible: bool = False,
    link: str = "",
    highlight: str = "",
    closable: bool = True,
    cache_able: bool = True,
    target: str = "",
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "title": title,
        "icon": icon,
        "permission": list(permission),
        "invisible": invisible,
        "link": link,
        "highlight": highlight,
        "closable": closable,
        "cacheAble": cache_able,
    }
    if target:
        meta["target"] = target
    return meta


def _route(path: str, name: str, component: str, meta: dict[str, Any], *children: dict[str, Any],
           redirect: str = "") -> dict[str, Any]:
    entry: dict[str, Any] = {"path": path, "name": name, "component": component, "meta": meta,
                             "children": list(children)}
    if redirect:
        entry["redirect"] = redirect
    return entry


# The report screens (page, icon) of the /report menu, in menu order.
REPORT_PAGES: tuple[tuple[str, str], ...] = (
    ("dailyMileage", "CalendarOutlined"), ("monthMileage", "CalendarOutlined"), ("mileage", "DashboardOutlined"),
    ("gpsMileage", "AimOutlined"), ("drivingTrip", "NodeIndexOutlined"), ("online", "WifiOutlined"),
    ("runtime", "FieldTimeOutlined"), ("monthDataCount", "DatabaseOutlined"), ("track", "EnvironmentOutlined"),
    ("driverDailyMileage", "IdcardOutlined"), ("driverMileage", "IdcardOutlined"), ("driverMonthMileage", "IdcardOutlined"),
    ("enterpriseDailyMileage", "ClusterOutlined"), ("enterpriseMileage", "ClusterOutlined"),
    ("enterpriseMonthMileage", "ClusterOutlined"), ("alarm", "AlertOutlined"), ("alarmOverview", "PieChartOutlined"),
    ("safety", "SafetyOutlined"), ("a1Alarm", "WarningOutlined"), ("dsm1", "EyeOutlined"),
    ("inOutAlarm", "BorderOuterOutlined"), ("trafficControlAlarm", "StopOutlined"), ("kpi", "FundOutlined"),
)

# The data-exchange screens (page, icon) of the /exchange menu, in menu order.
EXCHANGE_PERMISSION = "superiorPlatform:superior"
EXCHANGE_PAGES: tuple[tuple[str, str], ...] = (
    ("superiorPlatform", "CloudServerOutlined"), ("inspectMessage", "QuestionCircleOutlined"),
    ("alarmMessage", "AlertOutlined"), ("upstreamMessage", "CloudUploadOutlined"),
    ("downstreamMessage", "CloudDownloadOutlined"), ("playback", "PlaySquareOutlined"),
    ("notifyMessage", "NotificationOutlined"),
)

# The data-exchange screens (page, icon) of fleetwatch as the JT/T 809 superior platform, in the /exchange menu
# group (platform-spec §2 inferiorPlatform, car, gps, map); each needs the ``superior`` action on
# inferiorPlatform, as its routes do.
INFERIOR_PERMISSION = "inferiorPlatform:superior"
INFERIOR_PAGES: tuple[tuple[str, str], ...] = (
    ("inferiorPlatform", "ClusterOutlined"), ("car", "CarOutlined"), ("gps", "AimOutlined"),
    ("map", "EnvironmentOutlined"),
)

ROUTE_MAP: tuple[dict[str, Any], ...] = (
    # Console-spec §2 menu labels welcome and home, every signed-in user's: the user's landing page (welcome text,
    # enterprise, links to the screens the user may open, notices) and the product's home page (the footer's home
    # page link): dashboards/src/screens/home/{welcome,home}.tsx.
    _route("/welcome", "welcome", "home/welcome", _meta("menu.welcome", "SmileOutlined")),
    _route("/home", "home", "home/home", _meta("menu.home", "HomeOutlined")),
    _route(
        "/dashboard", "dashboard", "RouteView",
        _meta("menu.dashboard", "DashboardOutlined", ["dashboard", "monitor", "gps", "fence", "alarm"]),
        _route("/dashboard/map", "dashboardMap", "dashboard/map",
               _meta("menu.dashboard.map", "EnvironmentOutlined", ["monitor"], closable=False)),
        _route("/dashboard/index", "dashboardIndex", "dashboard/index",
               _meta("menu.dashboard.index", "DesktopOutlined", ["dashboard"])),
        # Track replay: dashboards/src/screens/dashboard/trace.tsx; ?carId=&start=&end=.
        _route("/dashboard/trace", "dashboardTrace", "dashboard/trace",
               _meta("menu.dashboard.trace", "NodeIndexOutlined", ["gps"])),
        # Live video: dashboards/src/screens/dashboard/{monitor,videoMap,playback}.tsx.
        _route("/dashboard/monitor", "dashboardMonitor", "dashboard/monitor",
               _meta("menu.dashboard.monitor", "VideoCameraOutlined", ["monitor:video"])),
        _route("/dashboard/videoMap", "dashboardVideoMap", "dashboard/videoMap",
               _meta("menu.dashboard.videoMap", "AppstoreOutlined", ["monitor:video"])),
        _route("/dashboard/playback", "dashboardPlayback", "dashboard/playback",
               _meta("menu.dashboard.playback", "PlaySquareOutlined", ["monitor:video"])),
        # The fleet's running charts (platform-spec §2 "monitor ... charts for speed, mileage,
        # overspeed, driving time and average speed"; the monitor route itself is the live video view):
        # dashboards/src/screens/dashboard/analysis.tsx.
        _route("/dashboard/analysis", "dashboardAnalysis", "dashboard/analysis",
               _meta("menu.dashboard.analysis", "LineChartOutlined", ["report"])),
        # Platform-spec §2 dashboards alarm and ship: the alarms of the range for a supervisor (needs alarm reads,
        # as its calls do) and the day's dispatch (出车: vehicles out, trips, mileage, running states);
        # dashboards/src/screens/dashboard/{alarm,ship}.tsx.
        _route("/dashboard/alarm", "dashboardAlarm", "dashboard/alarm",
               _meta("menu.dashboard.alarm", "AlertOutlined", ["alarm"])),
        _route("/dashboard/ship", "dashboardShip", "dashboard/ship",
               _meta("menu.dashboard.ship", "CarOutlined", ["dashboard"])),
        # Area vehicle search (label point business type 4, platform-spec §9): which vehicles were inside a
        # drawn area in a time window; dashboards/src/screens/dashboard/areaSearch.tsx.
        _route("/dashboard/areaSearch", "dashboardAreaSearch", "dashboard/areaSearch",
               _meta("menu.dashboard.areaSearch", "AimOutlined", ["fence"])),
        redirect="/dashboard/map",
    ),
    _route(
        "/list", "list", "RouteView",
        _meta("menu.list", "UnorderedListOutlined"),
        # Catalogue lists: each page is dashboards/src/screens/list/<name>.tsx.
        *(_route(f"/list/{code}", f"list{code[0].upper()}{code[1:]}", f"list/{code}",
                 _meta(f"menu.list.{code}", icon, [code]))
          for code, icon in (("car", "CarOutlined"), ("device", "HddOutlined"), ("sim", "CreditCardOutlined"),
                             ("group", "ClusterOutlined"),
                             ("carModel", "CarOutlined"), ("carType", "AppstoreOutlined"),
                             ("deviceProducer", "TeamOutlined"), ("deviceType", "DesktopOutlined"),
                             ("evidence", "VideoCameraOutlined"))),  # terminal media files
        # Terminals refused because no device has their phone (gateway/unknown_terminals.py): for whoever may add
        # devices; the rows only for a root enterprise's administrators (api/query/entities_refused.py).
        _route("/list/refusedRegistration", "listRefusedRegistration", "list/refusedRegistration",
               _meta("menu.list.refusedRegistration", "StopOutlined", ["device:add"])),
        # A car's edit page (?id=): its devices and master device.
        _route("/list/car/edit", "listCarEdit", "list/carEdit",
               _meta("menu.list.car.edit", "CarOutlined", ["car"], invisible=True, highlight="/list/car")),
        # A car's detail page (?carId=&deviceId=), one per device protocol (platform-spec §2 "car-detail");
        # every variant is dashboards/src/screens/list/carDetail.tsx (features/carDetail/routing.ts).
        *(_route(path, name, "list/carDetail",
                 _meta("menu.list.carDetail", "CarOutlined", ["car"], invisible=True, highlight="/list/car"))
          for path, name in (("/list/carDetail", "carDetail"), ("/list/carDetail/gb32960", "nevCarDetail"),
                             ("/list/carDetail/gb17691", "g6CarDetail"), ("/list/carDetail/hj1239", "hj1239CarDetail"),
                             ("/list/carDetail/db4403t363", "db4403t363CarDetail"))),
        # Alarms: dashboards/src/screens/list/<name>.tsx; the details take ?id=.
        *(_route(f"/list/{page}", f"list{page[0].upper()}{page[1:]}", f"list/{page}",
                 _meta(f"menu.list.{page}", icon, ["alarm"]))
          for page, icon in (("alarm", "AlertOutlined"), ("myAlarm", "UserOutlined"),
                             ("safetyAlarm", "AimOutlined"),
                             # area / route in-out alarms of terminals and platform fences, with the fence
                             ("inOutAlarm", "BorderOuterOutlined"),
                             # traffic control: the platform's time-restriction (night driving, p_night) alarms
                             ("trafficControlAlarm", "StopOutlined"))),
        *(_route(f"/list/{page}", f"list{page[0].upper()}{page[1:]}", f"list/{page}",
                 _meta(f"menu.list.{page}", "AlertOutlined", ["alarm"], invisible=True, highlight=f"/list/{parent}"))
          for page, parent in (("alarmDetail", "alarm"), ("safetyAlarmDetail", "safetyAlarm"))),
    ),
    _route(
        "/log", "log", "RouteView",
        _meta("menu.log", "HistoryOutlined", ["gpsLog", "tpmsLog", "onlineLog", "accStateLog", "parkLog", "idlingLog",
                                              "downstreamMessage", "upstreamMessage", "originalMessage", "videoLog",
                                              "report"]),
        # History logs: each page is dashboards/src/screens/log/<name>.tsx; ?carId= preselects.
        *(_route(f"/log/{page}", f"log{page[0].upper()}{page[1:]}", f"log/{page}",
                 _meta(f"menu.log.{page}", icon, [code]))
          for page, icon, code in (("gps", "AimOutlined", "gpsLog"), ("tpms", "DashboardOutlined", "tpmsLog"),
                                   ("online", "WifiOutlined", "onlineLog"),
                                   ("accState", "PoweroffOutlined", "accStateLog"),
                                   ("park", "PauseCircleOutlined", "parkLog"),
                                   ("idling", "FieldTimeOutlined", "idlingLog"))),
        # Message logs: commands sent, uplinks, every frame (raw and decoded).
        *(_route(f"/log/{page}", f"log{page[0].upper()}{page[1:]}", f"log/{page}",
                 _meta(f"menu.log.{page}", icon, [page]))
          for page, icon in (("downstreamMessage", "NodeIndexOutlined"),
                             ("upstreamMessage", "FileTextOutlined"),
                             ("originalMessage", "HddOutlined"))),
        # Who watched which stream when: dashboards/src/screens/log/videoLog.tsx.
        _route("/log/videoLog", "logVideoLog", "log/videoLog", _meta("menu.log.videoLog", "VideoCameraOutlined", ["videoLog"])),
        # The live log (platform-spec §2 logs: live, with detail): one row per live video / listen / talk session,
        # its detail (?id=) the session's timeline: dashboards/src/screens/log/{live,liveDetail}.tsx.
        _route("/log/live", "logLive", "log/live", _meta("menu.log.live", "PlayCircleOutlined", ["videoLog"])),
        _route("/log/liveDetail", "logLiveDetail", "log/liveDetail",
               _meta("menu.log.liveDetail", "PlayCircleOutlined", ["videoLog"], invisible=True,
                     highlight="/log/live")),
        # Drivers' IC-card sign-ins and sign-outs (platform-spec §2 logs: driverAttendance).
        _route("/log/driverAttendance", "logDriverAttendance", "log/driverAttendance",
               _meta("menu.log.driverAttendance", "IdcardOutlined", ["report"])),
        redirect="/log/gps",
    ),
    # Reports (platform-spec §2 reports): each page is dashboards/src/screens/report/<name>.tsx,
    # a declaration on the one list framework (features/list) with its charts (features/report).
    _route(
        "/report", "report", "RouteView",
        _meta("menu.report", "BarChartOutlined", ["report"]),
        *(_route(f"/report/{page}", f"report{page[0].upper()}{page[1:]}", f"report/{page}",
                 _meta(f"menu.report.{page}", icon, ["report"]))
          for page, icon in REPORT_PAGES),
        _route("/report/alarmOverviewDetail", "reportAlarmOverviewDetail", "report/alarmOverviewDetail",
               _meta("menu.report.alarmOverviewDetail", "AlertOutlined", ["report"], invisible=True,
                     highlight="/report/alarmOverview")),
        # Platform-spec §2 detail page report/alarm: the alarms behind a count cell of the alarm report (a terminal's
        # day) or the enterprise daily report (an enterprise's day); dashboards/src/features/report/alarmDrill.ts.
        _route("/report/alarmDetail", "reportAlarmDetail", "report/alarmDetail",
               _meta("menu.report.alarmDetail", "AlertOutlined", ["report"], invisible=True, highlight="/report/alarm")),
        # The analyst notebooks rendered on the lake (api/routes/analysis.py: their data needs a root
        # enterprise's user too; the page says so to anyone else): dashboards/src/screens/report/notebooks.tsx.
        _route("/report/notebooks", "reportNotebooks", "report/notebooks",
               _meta("menu.report.notebooks", "LineChartOutlined", ["report"])),
        redirect="/report/dailyMileage",
    ),
    _route(
        "/settings", "settings", "RouteView",
        _meta("menu.settings", "SettingOutlined", ["dictionary", "system", "license", "notify", "auditLog", "db",
                                                    "sourceCodeLog", "openPlatform", "terminalParams", "alarmLevel",
                                                    "platformAlarmRule", "platformAlarmNotifyRule", "alarm",
                                                    "enterprise", "fence", "drivingGradeRule"]),
        # Settings screens: each page is dashboards/src/screens/settings/<name>.tsx.
        *(_route(f"/settings/{page}", f"settings{page[0].upper()}{page[1:]}", f"settings/{page}",
                 _meta(f"menu.settings.{page}", icon, [code]))
          for page, icon, code in (("dictionary", "BookOutlined", "dictionary"),
                                   ("system", "DashboardOutlined", "system"),
                                   # the platform parameters changed at run time (api/platform_params.py)
                                   ("param", "ControlOutlined", "system"),
                                   # the licence overview: state, usage, expiry warning, links to the others
                                   ("license", "SafetyOutlined", "license"),
                                   ("licenseDetail", "SafetyCertificateOutlined", "license"),
                                   ("licenseLog", "FileTextOutlined", "license"),
                                   # licence applications to decide, and announcements to publish (the bell's
                                   # bizType 1 and 5, console-spec §9)
                                   ("licenseApply", "AuditOutlined", "license"),
                                   ("announcement", "FileTextOutlined", "notify"),
                                   ("auditLog", "AuditOutlined", "auditLog"),
                                   ("db", "DatabaseOutlined", "db"),
                                   ("sourceCodeLog", "HistoryOutlined", "sourceCodeLog"),
                                   ("openPlatform", "ApiOutlined", "openPlatform"),
                                   # Alarm settings.
                                   ("alarmLevel", "AlertOutlined", "alarmLevel"),
                                   ("platformAlarmRule", "ThunderboltOutlined", "platformAlarmRule"),
                                   ("platformAlarmNotifyRule", "FieldTimeOutlined", "platformAlarmNotifyRule"),
                                   # Driving-behaviour grading: deductions per alarm type (pipelines/grading.py).
                                   ("drivingGradeRule", "SafetyOutlined", "drivingGradeRule"),
                                   # Fences (with the two route wizards) and label points, platform-spec §2.
                                   ("fence", "BorderOuterOutlined", "fence"),
                                   ("labelPoint", "EnvironmentOutlined", "fence"))),
        # The user's alarm notification rules, own or inherited from the enterprise.
        _route("/settings/notify", "settingsNotify", "settings/notify",
               _meta("menu.settings.notify", "ControlOutlined", ["alarm"])),
        # Platform-spec §2 settings "messageNotifyRule": the enterprise-wide notification switches (read by
        # whoever sees alarms, changed with enterprise:update); dashboards/src/screens/setting/messageNotifyRule.tsx.
        _route("/setting/messageNotifyRule", "messageNotifyRule", "setting/messageNotifyRule",
               _meta("menu.setting.messageNotifyRule", "ControlOutlined", ["alarm"])),
        # Terminal parameters: read (8104) and write (8103) one terminal's parameters.
        _route("/settings/terminalParams", "terminalParams", "settings/terminalParams",
               _meta("menu.settings.terminalParams", "ControlOutlined", ["terminalParams"])),
        # Platform-spec §2 "terminalParams has adas and dsm variants": the T/JSATL12 active-safety blocks
        # 0xF364 / 0xF365, read with 8106 and written with 8103 (dashboards/src/features/command/ActiveSafetyParamsPanel.tsx).
        _route("/settings/terminalParams/adas", "terminalParamsAdas", "settings/terminalParamsAdas",
               _meta("menu.settings.terminalParamsAdas", "SafetyOutlined", ["terminalParams"])),
        _route("/settings/terminalParams/dsm", "terminalParamsDsm", "settings/terminalParamsDsm",
               _meta("menu.settings.terminalParamsDsm", "EyeOutlined", ["terminalParams"])),
        # The enterprise's terminal registration policy (IMEI required, approval of re-registrations),
        # read with enterprise:query, changed with enterprise:update; gateway/README.md.
        _route("/settings/registrationPolicy", "registrationPolicy", "settings/registrationPolicy",
               _meta("menu.settings.registrationPolicy", "ControlOutlined", ["enterprise"])),
        redirect="/settings/dictionary",
    ),
    # Data exchange (platform-spec §2, JT/T 809): every screen needs the ``superior`` action (platform-spec §6), as
    # its routes do: on superiorPlatform for fleetwatch as the inferior platform, on inferiorPlatform for fleetwatch
    # as the superior one. Each page is dashboards/src/screens/exchange/<name>.tsx.
    _route(
        "/exchange", "exchange", "RouteView",
        _meta("menu.exchange", "SwapOutlined", [EXCHANGE_PERMISSION, INFERIOR_PERMISSION]),
        *(_route(f"/exchange/{page}", f"exchange{page[0].upper()}{page[1:]}", f"exchange/{page}",
                 _meta(f"menu.exchange.{page}", icon, [EXCHANGE_PERMISSION]))
          for page, icon in EXCHANGE_PAGES),
        *(_route(f"/exchange/{page}", f"exchange{page[0].upper()}{page[1:]}", f"exchange/{page}",
                 _meta(f"menu.exchange.{page}", icon, [INFERIOR_PERMISSION]))
          for page, icon in INFERIOR_PAGES),
        redirect="/exchange/superiorPlatform",
    ),
    # New-energy vehicles (platform-spec §2 "gb32960 charging log"): each page is
    # dashboards/src/screens/gb32960/<name>.tsx; the rows are the caller's vehicles' readings, guarded by ``car``
    # as the entity is (api/query/entities_gb32960.py). The gb32960 data exchange's superiorPlatform and car
    # (platform-spec §2) need the ``superior`` action as the JT/T 809 exchange screens do
    # (api/query/entities_gb32960_exchange.py).
    _route(
        "/gb32960", "gb32960", "RouteView",
        _meta("menu.gb32960", "ThunderboltOutlined", ["car", EXCHANGE_PERMISSION]),
        _route("/gb32960/chargingLog", "gb32960ChargingLog", "gb32960/chargingLog",
               _meta("menu.gb32960.chargingLog", "ThunderboltOutlined", ["car"])),
        _route("/gb32960/superiorPlatform", "gb32960SuperiorPlatform", "gb32960/superiorPlatform",
               _meta("menu.gb32960.superiorPlatform", "CloudServerOutlined", [EXCHANGE_PERMISSION])),
        _route("/gb32960/car", "gb32960Car", "gb32960/car",
               _meta("menu.gb32960.car", "CarOutlined", [EXCHANGE_PERMISSION])),
        _route("/gb32960/inferiorPlatform", "gb32960InferiorPlatform", "gb32960/inferiorPlatform",
               _meta("menu.gb32960.inferiorPlatform", "ClusterOutlined", [EXCHANGE_PERMISSION])),
        redirect="/gb32960/chargingLog",
    ),
    _route(
        "/user", "user", "RouteView",
        _meta("menu.user", "TeamOutlined", ["enterprise", "user", "role", "driver"]),
        # User management: each page is dashboards/src/screens/user/<name>.tsx.
        _route("/user/enterprise", "userEnterprise", "user/enterprise",
               _meta("menu.user.enterprise", "ClusterOutlined", ["enterprise"])),
        _route("/user/user", "userUser", "user/user", _meta("menu.user.user", "UserOutlined", ["user"])),
        _route("/user/role", "userRole", "user/role", _meta("menu.user.role", "IdcardOutlined", ["role"])),
        _route("/user/role/detail", "userRoleDetail", "user/roleDetail",
               _meta("menu.user.role.detail", "IdcardOutlined", ["role"], invisible=True,
                     highlight="/user/role")),
        _route("/user/permission", "userPermission", "user/permission",
               _meta("menu.user.permission", "TableOutlined", ["role"])),
        _route("/user/driver", "userDriver", "user/driver", _meta("menu.user.driver", "IdcardOutlined", ["driver"])),
        # A driver's edit page (?id=, none: a new driver): the form with the photo upload.
        _route("/user/driver/edit", "userDriverEdit", "user/driverEdit",
               _meta("menu.user.driver.edit", "IdcardOutlined", ["driver"], invisible=True,
                     highlight="/user/driver")),
        # A driver's detail page (?id=, platform-spec §2 detail pages: driver): record, vehicles, alarms.
        _route("/user/driver/detail", "userDriverDetail", "user/driverDetail",
               _meta("menu.user.driver.detail", "IdcardOutlined", ["driver"], invisible=True,
                     highlight="/user/driver")),
        redirect="/user/enterprise",
    ),
    _route(
        "/account", "account", "RouteView",
        _meta("menu.account", "UserOutlined", invisible=True),
        _route("/account/center", "accountCenter", "account/center",
               _meta("menu.account.center", "UserOutlined", invisible=True)),
        _route("/account/settings", "accountSettings", "account/settings",
               _meta("menu.account.settings", "SettingOutlined", invisible=True, cache_able=False)),
        redirect="/account/center",
    ),
    # The notice list the bell's "view all" opens (console-spec §2): every signed-in user's (each notice kind
    # needs its own read, api/notices.py).
    _route(
        "/setting", "setting", "RouteView",
        _meta("menu.setting", "BellOutlined", invisible=True),
        _route("/setting/notify/List", "notifyList", "setting/notify/List",
               _meta("menu.setting.notify.list", "BellOutlined", invisible=True)),
        redirect="/setting/notify/List",
    ),
    _route("/cockpit/index", "cockpitIndex", "cockpit/index",
           _meta("menu.cockpit.index", "FundProjectionScreenOutlined", ["dashboard"], invisible=True,
                 target="_blank")),
    _route("/cockpit/nev1/index", "nev1CockpitIndex", "cockpit/nev1/index",
           _meta("menu.cockpit.nev1", "ThunderboltOutlined", ["dashboard"], invisible=True,
                 target="_blank")),
)


def title_keys(routes: Iterable[Mapping[str, Any]] = ROUTE_MAP) -> set[str]:
    """Every i18n title key used by the map (the console must have each in all locales)."""
    keys: set[str] = set()
    for entry in routes:
        keys.add(entry["meta"]["title"])
        keys |= title_keys(entry["children"])
    return keys


def routes_for(permissions: Mapping[str, Iterable[str]], routes: Iterable[Mapping[str, Any]] = ROUTE_MAP
               ) -> list[dict[str, Any]]:
    """The entries the user may open: an entry stays when it lists no permission code or the user
    holds at least one action on one of its codes; a container whose children all went goes too."""
    held = {code for code, actions in permissions.items() if list(actions)}
    held |= {f"{code}:{action}" for code, actions in permissions.items() for action in actions}
    kept: list[dict[str, Any]] = []
    for entry in routes:
        codes = entry["meta"]["permission"]
        if codes and not held.intersection(codes):
            continue
        children = routes_for(permissions, entry["children"])
        if entry["children"] and not children:
            continue
        copied = copy.deepcopy({k: v for k, v in entry.items() if k != "children"})
        copied["children"] = children
        if copied.get("redirect") and children and copied["redirect"] not in {c["path"] for c in children}:
            copied["redirect"] = children[0]["path"]
        kept.append(copied)
    return kept


def _leaves(routes: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    for entry in routes:
        if entry["children"]:
            yield from _leaves(entry["children"])
        else:
            yield entry


def denied_paths(permissions: Mapping[str, Iterable[str]], routes: Iterable[Mapping[str, Any]] = ROUTE_MAP
                 ) -> list[str]:
    """The screens of the map the user may not open, so the console answers their URLs with the
    exception page 403 (platform-spec §1 exception pages), not with 404 as for an unknown path."""
    routes = tuple(routes)
    allowed = {entry["path"] for entry in _leaves(routes_for(permissions, routes))}
    return sorted(entry["path"] for entry in _leaves(routes) if entry["path"] not in allowed)


def screens_opened_by(code: str, routes: Iterable[Mapping[str, Any]] = ROUTE_MAP) -> list[dict[str, str]]:
    """[{title, action}] of the screens a grant of ``code`` opens, in menu order (the role editor
    shows them): menu entries and the cockpits listing ``code`` (action "": any action of it) or
    ``code:action`` (that action); detail pages reached from those screens are left out."""
    opened: list[dict[str, str]] = []
    for entry in _leaves(routes):
        meta = entry["meta"]
        if meta["invisible"] and not meta.get("target"):
            continue
        for needed in meta["permission"]:
            needed_code, _, action = needed.partition(":")
            if needed_code == code:
                opened.append({"title": meta["title"], "action": action})
                break
    return opened
