"""The report tables as read-only declared entities: the generic query, count, meta and export
routes serve them with the list grammar (paging, sorting, ``isParent``, XLSX/CSV export), permission
``report``. Tenant: the row's ``enterprise_id`` (the vehicle's enterprise when the row was computed).

Day tables carry ``date`` (integer yyyymmdd), month tables ``month`` (yyyymm), the year views ``year``
(platform-spec §3). The device tables have one counter per alarm key, named as the key (``a1``,
``adas_1``, ``p_overspeed``: the spec's dynamically named ``{alarmType}`` counters, §7).

The live enterprise counters of platform-spec §7 (``enterpriseTodayOnlineCarReport``,
``enterpriseCarBizstateReport``, ``enterpriseVideoCarBizstateReport``) are console routes
(api/routes/console.py): they read the vehicles' state now, not a report table.
"""

from __future__ import annotations

from api.query.grammar import EntitySpec, FieldSpec
from fleet.alarm_catalog import ALARMS, describe

F = FieldSpec
PERMISSION = "report"


def camel(column: str) -> str:
    head, *rest = column.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


# (column, type, zh-CN label); the API name is the camelCase of the column.
Col = tuple[str, str, str]
TENANT: tuple[Col, ...] = (("enterprise_id", "int", "企业"),)
CAR_KEYS: tuple[Col, ...] = (("car_id", "int", "车辆"), ("plate_number", "str", "车牌号"), ("group_id", "int", "车组"))
PROVENANCE: tuple[Col, ...] = (("computed_at", "time", "计算时间"), ("provisional", "bool", "临时数据"))
# The day's (or month's) driving-behaviour score of the vehicle or driver (pipelines/grading.py, platform-spec §2
# drivingGradeRule): 100 minus the deductions, its grade, and the deductions [{key, count, minutes, points}]; a
# month's are its days' averaged by driving time.
GRADE: tuple[Col, ...] = (("grade_score", "float", "驾驶评分"), ("grade", "str", "评分等级"),
                          ("grade_deductions", "json", "扣分明细"))


# Codes shown as their labels (the console's report:enums, zh-CN): docs/reports.md.
CHOICES: dict[str, tuple[tuple[int, str], ...]] = {
    "mileage_source": ((1, "仪表"), (2, "GPS")),
    "runtime_source": ((1, "状态日志"), (2, "定位数据")),
    "driver_source": ((1, "IC卡签到"), (2, "车辆绑定")),
    "status": ((1, "签到"), (2, "签退")),
    "ic_result": ((0, "读卡成功"), (1, "卡密码错误"), (2, "卡已锁定"), (3, "卡已拔出"), (4, "数据校验错误")),
}


def display_of(column: str, ftype: str) -> str:
    """How a report column is shown on screen and in its export (api/query/display.py): days and months as
    dates, seconds as h:mm:ss, kilometres / speeds / averages to 2 decimals, ratios as percentages."""
    if column == "date":
        return "day"
    if column == "month":
        return "month"
    if ftype == "bool":
        return "flag"
    if column.endswith("_rate"):
        return "percent"
    if column.endswith("_s") and ftype in ("int", "float"):
        return "duration"
    if ftype == "float" and not column.endswith(("_lng", "_lat")) and column not in ("lng", "lat"):
        return "decimal"
    return ""


def _fields(columns: tuple[Col, ...], *, key_ids: tuple[str, ...] = ()) -> dict[str, FieldSpec]:
    out: dict[str, FieldSpec] = {}
    for column, ftype, label in columns:
        # an alarm key's counter is named by the key itself (fleet/alarm_catalog.py), as the console names it
        name = column if column in ALARMS else camel(column)
        display = display_of(column, ftype)
        if display == "duration":  # shown as h:mm:ss, no longer in seconds
            label = label.replace("(秒)", "")
        out[name] = F(column, ftype, label=label, exportable=column not in key_ids,  # type: ignore[arg-type]
                      display=display, choices=CHOICES.get(column, ()))
    return out


def report(name: str, relation: str, label: str, columns: tuple[Col, ...], *, order: str, tiebreak: tuple[str, ...],
           desc: bool = True) -> EntitySpec:
    return EntitySpec(name=name, relation=relation, tenant_column="enterprise_id", permission=PERMISSION,
                      id_field=tiebreak[-1], tiebreak=tiebreak, default_order=order, default_desc=desc,
                      max_page_size=1000, label=label,
                      fields=_fields(columns, key_ids=("car_id", "device_id", "driver_id", "enterprise_id",
                                                       "group_id")))


CAR_DAY_COLUMNS: tuple[Col, ...] = (
    ("date", "int", "日期"), *CAR_KEYS, ("device_id", "int", "终端"), *TENANT, ("driver_id", "int", "驾驶员"),
    ("mileage_km", "float", "里程(km)"), ("mileage_source", "int", "里程来源"), ("odo_km", "float", "仪表里程(km)"),
    ("gps_km", "float", "GPS里程(km)"), ("odo_start_km", "float", "起始里程表(km)"),
    ("odo_end_km", "float", "结束里程表(km)"), ("incomplete_km", "float", "不完整里程(km)"),
    ("drift_points", "int", "漂移点数"), ("gap_count", "int", "断点数"), ("points", "int", "定位点数"),
    ("positioned_points", "int", "有效定位点数"), ("rejected_points", "int", "不合格点数"),
    ("first_fix_at", "time", "首次定位"), ("last_fix_at", "time", "末次定位"),
    ("max_speed_kmh", "float", "最高速度(km/h)"), ("avg_speed_kmh", "float", "平均速度(km/h)"),
    ("overspeed_count", "int", "超速次数"), ("overspeed_s", "int", "超速时长(秒)"), ("trips", "int", "行程数"),
    ("trip_s", "int", "行程时长(秒)"), ("parks", "int", "停车次数"), ("idlings", "int", "怠速次数"),
    ("acc_on_s", "int", "ACC开时长(秒)"), ("drive_s", "int", "行驶时长(秒)"), ("idle_s", "int", "怠速时长(秒)"),
    ("engine_off_s", "int", "熄火时长(秒)"), ("no_signal_s", "int", "无信号时长(秒)"),
    ("offline_s", "int", "离线时长(秒)"), ("online_s", "int", "在线时长(秒)"), ("online_sessions", "int", "上线次数"),
    ("first_online_at", "time", "首次上线"), ("last_offline_at", "time", "末次离线"),
    ("first_acc_on_at", "time", "首次点火"), ("last_acc_off_at", "time", "末次熄火"),
    ("runtime_source", "int", "运行数据来源"), ("active", "bool", "出车"), ("online", "bool", "上线"),
    ("max_received_at", "time", "最新接收时间"), *GRADE, *PROVENANCE)

CAR_MONTH_COLUMNS: tuple[Col, ...] = (
    ("month", "int", "月份"), *CAR_KEYS, *TENANT, ("days", "int", "有数据天数"), ("active_days", "int", "出车天数"),
    ("online_days", "int", "上线天数"), ("points", "int", "定位点数"), ("rejected_points", "int", "不合格点数"),
    ("mileage_km", "float", "里程(km)"), ("odo_km", "float", "仪表里程(km)"), ("gps_km", "float", "GPS里程(km)"),
    ("drive_s", "int", "行驶时长(秒)"), ("acc_on_s", "int", "ACC开时长(秒)"), ("idle_s", "int", "怠速时长(秒)"),
    ("online_s", "int", "在线时长(秒)"), ("offline_s", "int", "离线时长(秒)"), ("trips", "int", "行程数"),
    ("parks", "int", "停车次数"), ("overspeed_count", "int", "超速次数"), ("overspeed_s", "int", "超速时长(秒)"),
    ("max_speed_kmh", "float", "最高速度(km/h)"), ("avg_km_per_active_day", "float", "出车日均里程(km)"),
    *GRADE, ("computed_at", "time", "计算时间"))

CAR_YEAR_COLUMNS: tuple[Col, ...] = (
    ("year", "int", "年份"), ("car_id", "int", "车辆"), ("plate_number", "str", "车牌号"), *TENANT,
    ("days", "int", "有数据天数"), ("active_days", "int", "出车天数"), ("online_days", "int", "上线天数"),
    ("points", "int", "定位点数"), ("mileage_km", "float", "里程(km)"), ("drive_s", "int", "行驶时长(秒)"),
    ("acc_on_s", "int", "ACC开时长(秒)"), ("online_s", "int", "在线时长(秒)"), ("trips", "int", "行程数"),
    ("overspeed_count", "int", "超速次数"), ("max_speed_kmh", "float", "最高速度(km/h)"))

COUNTERS: tuple[Col, ...] = tuple((key, "int", describe(key)) for key in ALARMS)
DEVICE_TOTALS: tuple[Col, ...] = (
    ("alarm_total", "int", "报警总数"), ("alarm_s", "int", "报警时长(秒)"), ("active_safety", "int", "主动安全报警数"),
    ("handled", "int", "已处理"), ("unhandled", "int", "未处理"), ("points", "int", "定位点数"))
DEVICE_KEYS: tuple[Col, ...] = (("device_id", "int", "终端"), ("car_id", "int", "车辆"),
                                ("plate_number", "str", "车牌号"), *TENANT)

DRIVER_DAY_COLUMNS: tuple[Col, ...] = (
    ("date", "int", "日期"), ("driver_id", "int", "驾驶员"), ("driver_name", "str", "驾驶员姓名"), *TENANT,
    ("cars", "int", "车辆数"), ("plate_numbers", "str", "车牌号"), ("mileage_km", "float", "里程(km)"),
    ("drive_s", "int", "驾驶时长(秒)"), ("trips", "int", "行程数"), ("max_speed_kmh", "float", "最高速度(km/h)"),
    ("driver_source", "int", "驾驶员来源"), *GRADE, *PROVENANCE)
DRIVER_MONTH_COLUMNS: tuple[Col, ...] = (
    ("month", "int", "月份"), ("driver_id", "int", "驾驶员"), ("driver_name", "str", "驾驶员姓名"), *TENANT,
    ("days", "int", "出车天数"), ("mileage_km", "float", "里程(km)"), ("drive_s", "int", "驾驶时长(秒)"),
    ("trips", "int", "行程数"), *GRADE)
ENTERPRISE_DAY_COLUMNS: tuple[Col, ...] = (
    ("date", "int", "日期"), *TENANT, ("enterprise_name", "str", "企业名称"), ("vehicles", "int", "车辆数"),
    ("active_vehicles", "int", "出车车辆数"), ("online_vehicles", "int", "上线车辆数"), ("mileage_km", "float", "里程(km)"),
    ("drive_s", "int", "行驶时长(秒)"), ("trips", "int", "行程数"), ("avg_km_per_active", "float", "车均里程(km)"),
    ("alarms", "int", "报警数"), *PROVENANCE)
ENTERPRISE_MONTH_COLUMNS: tuple[Col, ...] = (
    ("month", "int", "月份"), *TENANT, ("enterprise_name", "str", "企业名称"), ("vehicles", "int", "车辆数"),
    ("active_vehicles", "int", "出车车辆数"), ("vehicle_days", "int", "车辆天数"),
    ("active_vehicle_days", "int", "出车车辆天数"), ("mileage_km", "float", "里程(km)"),
    ("drive_s", "int", "行驶时长(秒)"), ("trips", "int", "行程数"), ("alarms", "int", "报警数"))
TRIP_COLUMNS: tuple[Col, ...] = (
    ("start_at", "time", "开始时间"), ("end_at", "time", "结束时间"), ("date", "int", "日期"), ("car_id", "int", "车辆"),
    ("plate_number", "str", "车牌号"), ("device_id", "int", "终端"), *TENANT, ("driver_id", "int", "驾驶员"),
    ("driver_source", "int", "驾驶员来源"), ("start_lng", "float", "起点经度"), ("start_lat", "float", "起点纬度"),
    ("end_lng", "float", "终点经度"), ("end_lat", "float", "终点纬度"), ("start_odo_km", "float", "起始里程表(km)"),
    ("end_odo_km", "float", "结束里程表(km)"), ("distance_km", "float", "里程(km)"), ("duration_s", "int", "时长(秒)"),
    ("max_speed_kmh", "float", "最高速度(km/h)"), ("avg_speed_kmh", "float", "平均速度(km/h)"),
    ("truncated", "bool", "未结束"), ("provisional", "bool", "临时数据"))
PARK_COLUMNS: tuple[Col, ...] = (
    ("start_at", "time", "开始时间"), ("end_at", "time", "结束时间"), ("date", "int", "日期"), ("car_id", "int", "车辆"),
    ("plate_number", "str", "车牌号"), ("device_id", "int", "终端"), *TENANT, ("lng", "float", "经度"),
    ("lat", "float", "纬度"), ("duration_s", "int", "时长(秒)"), ("acc_on_s", "int", "ACC开时长(秒)"),
    ("idling", "bool", "怠速"), ("provisional", "bool", "临时数据"))
KPI_COUNTS: tuple[Col, ...] = (
    ("vehicles", "int", "应入网车辆数"), ("joined_vehicles", "int", "入网车辆数"), ("online_vehicles", "int", "上线车辆数"),
    ("drift_vehicles", "int", "漂移车辆数"), ("drift_points", "int", "漂移点数"), ("qualified_points", "int", "合格条数"),
    ("total_points", "int", "总条数"), ("total_km", "float", "总里程(km)"), ("complete_km", "float", "轨迹完整里程(km)"),
    ("online_s", "int", "在线时长(秒)"), ("offline_s", "int", "离线时长(秒)"), ("overspeed_alarms", "int", "超速次数"),
    ("fatigue_s", "int", "疲劳驾驶时长(秒)"), ("join_rate", "float", "入网率"), ("online_rate", "float", "上线率"),
    ("completeness_rate", "float", "轨迹完整率"), ("qualification_rate", "float", "数据合格率"),
    ("drift_rate", "float", "漂移车辆率"), ("connectivity_rate", "float", "平台连通率"),
    ("avg_overspeed", "float", "平均超速次数"), ("avg_fatigue_s", "float", "平均疲劳驾驶时长(秒)"),
    ("avg_offline_s", "float", "平均断线时长(秒)"))
KPI_VEHICLE_COLUMNS: tuple[Col, ...] = (
    ("date", "int", "日期"), ("car_id", "int", "车辆"), ("plate_number", "str", "车牌号"), *TENANT,
    ("qualified_points", "int", "合格条数"), ("rejected_points", "int", "不合格条数"), ("total_km", "float", "总里程(km)"),
    ("complete_km", "float", "轨迹完整里程(km)"), ("drift_points", "int", "漂移点数"), ("online_s", "int", "在线时长(秒)"),
    ("offline_s", "int", "离线时长(秒)"), ("online", "bool", "上线"), ("overspeed_alarms", "int", "超速次数"),
    ("fatigue_s", "int", "疲劳驾驶时长(秒)"), ("provisional", "bool", "临时数据"))

CAR_DAY_REPORT = report("carDayReport", "car_day_report", "车辆日报表", CAR_DAY_COLUMNS, order="date",
                        tiebreak=("date", "carId"))
CAR_MONTH_REPORT = report("carMonthReport", "car_month_report", "车辆月报表", CAR_MONTH_COLUMNS, order="month",
                          tiebreak=("month", "carId"))
CAR_YEAR_REPORT = report("carYearReport", "car_year_report", "车辆年报表", CAR_YEAR_COLUMNS, order="year",
                         tiebreak=("year", "carId"))
DEVICE_DAY_REPORT = report("deviceDayReport", "device_day_report", "终端报警日报表",
                           (("date", "int", "日期"), *DEVICE_KEYS, *COUNTERS, *DEVICE_TOTALS, *GRADE, *PROVENANCE),
                           order="date", tiebreak=("date", "deviceId"))
DEVICE_MONTH_REPORT = report("deviceMonthReport", "device_month_report", "终端报警月报表",
                             (("month", "int", "月份"), *DEVICE_KEYS, *COUNTERS, *DEVICE_TOTALS),
                             order="month", tiebreak=("month", "deviceId"))
DEVICE_YEAR_REPORT = report("deviceYearReport", "device_year_report", "终端报警年报表",
                            (("year", "int", "年份"), *DEVICE_KEYS, *COUNTERS, *DEVICE_TOTALS),
                            order="year", tiebreak=("year", "deviceId"))
DRIVER_DAY_REPORT = report("driverDayReport", "driver_day_report", "驾驶员日报表", DRIVER_DAY_COLUMNS, order="date",
                           tiebreak=("date", "driverId"))
DRIVER_MONTH_REPORT = report("driverMonthReport", "driver_month_report", "驾驶员月报表", DRIVER_MONTH_COLUMNS,
                             order="month", tiebreak=("month", "driverId"))
ENTERPRISE_DAY_REPORT = report("enterpriseDayReport", "enterprise_day_report", "企业日报表", ENTERPRISE_DAY_COLUMNS,
                               order="date", tiebreak=("date", "enterpriseId"))
ENTERPRISE_MONTH_REPORT = report("enterpriseMonthReport", "enterprise_month_report", "企业月报表",
                                 ENTERPRISE_MONTH_COLUMNS, order="month", tiebreak=("month", "enterpriseId"))
TRIP = report("trip", "trip", "行程报表", TRIP_COLUMNS, order="startAt", tiebreak=("startAt", "carId"))
PARK = report("park", "park", "停车报表", PARK_COLUMNS, order="startAt", tiebreak=("startAt", "carId"))
KPI_VEHICLE_DAY = report("kpiVehicleDay", "kpi_vehicle_day", "车辆考核指标日报", KPI_VEHICLE_COLUMNS, order="date",
                         tiebreak=("date", "carId"))
KPI_ENTERPRISE_DAY = report("kpiEnterpriseDay", "kpi_enterprise_day", "企业考核指标日报",
                            (("date", "int", "日期"), *TENANT, ("enterprise_name", "str", "企业名称"), *KPI_COUNTS,
                             ("provisional", "bool", "临时数据")), order="date", tiebreak=("date", "enterpriseId"))
KPI_ENTERPRISE_MONTH = report("kpiEnterpriseMonth", "kpi_enterprise_month", "企业考核指标月报",
                              (("month", "int", "月份"), *TENANT, ("enterprise_name", "str", "企业名称"), *KPI_COUNTS),
                              order="month", tiebreak=("month", "enterpriseId"))


DRIVER_ATTENDANCE = report("driverAttendance", "driver_event_view", "驾驶员考勤", (
    ("at", "time", "时间"), ("status", "int", "状态"), ("device_id", "int", "终端"), ("car_id", "int", "车辆"),
    ("plate_number", "str", "车牌号"), *TENANT, ("driver_id", "int", "驾驶员"), ("matched_driver_name", "str", "驾驶员"),
    ("ic_result", "int", "读卡结果"), ("driver_name", "str", "卡上姓名"), ("qualification_no", "str", "从业资格证号"),
    ("issuing_authority", "str", "发证机构"), ("valid_until", "str", "证件有效期"), ("id_card", "str", "身份证号")),
    order="at", tiebreak=("at", "deviceId"))

REPORT_TABLES = (CAR_DAY_REPORT, CAR_MONTH_REPORT, CAR_YEAR_REPORT, DEVICE_DAY_REPORT, DEVICE_MONTH_REPORT,
                 DEVICE_YEAR_REPORT, DRIVER_DAY_REPORT, DRIVER_MONTH_REPORT, ENTERPRISE_DAY_REPORT,
                 ENTERPRISE_MONTH_REPORT, TRIP, PARK, KPI_VEHICLE_DAY, KPI_ENTERPRISE_DAY, KPI_ENTERPRISE_MONTH,
                 DRIVER_ATTENDANCE)
REPORT_ENTITIES = REPORT_TABLES
