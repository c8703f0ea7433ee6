"""New-energy and heavy-diesel vehicles' data as read-only declared entities (migration 0049, written by
the streams' GB steps, streams/gb_uplinks.py):

- ``gb32960ChargingLog``: the gb32960 charging log (platform-spec §2 "gb32960 charging log"): one row per
  charging session (``charging_session_view``), start / end, charging state (1 parked, 2 driving; §4),
  SOC from / to, energy (kWh), where, duration; newest first. ``id`` is ``<deviceId>:<start epoch ms>``.
- ``nevState``: each vehicle's latest state (``nev_state_view``, one row per terminal) for the detail pages
  (nevCarDetail, g6CarDetail, hj1239CarDetail) and the nev1 cockpit: SOC, voltage, current, insulation,
  charging state, gear, motors, fuel cell / engine, extreme values with their subsystem and cell / probe, alarm
  level, flags and fault lists, the cells' voltages and temperatures; OBD and after-treatment readings.
- ``nevReading``: a terminal's chart readings (``nev_reading``, one row per collection time): SOC, total voltage
  and current; NOx upstream / downstream and reagent level for the diesel variants (g6CarDetail,
  hj1239CarDetail, db4403t363CarDetail chart today's). A history table: a read names one terminal and a
  bounded time range (``Window``, at most ``history_max_days``), oldest first.

Tenant: the enterprise of the vehicle when the frame came in; the generic routes scope every read to the
caller's enterprise (and its subsidiaries with ``isParent``). Guarded by the ``car`` permission code: they
are readings of the caller's vehicles, shown on the car's pages.
"""

from __future__ import annotations

from api.query.entities_logs import history_max_days
from api.query.grammar import EntitySpec, FieldSpec, Window

F = FieldSpec
CHARGING_STATES = (1, 2)  # platform-spec §4: 1 parked charging, 2 driving charging (3 / 4 end a session)

GB32960_CHARGING_LOG = EntitySpec(
    name="gb32960ChargingLog",
    relation="charging_session_view",
    tenant_column="enterprise_id",
    permission="car",
    id_field="id",
    tiebreak=("startTime", "deviceId"),
    default_order="startTime",
    default_desc=True,
    label="充电记录",
    fields={
        "id": F("id", label="编号"),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "deviceId": F("device_id", "int", label="终端"),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "plateNumber": F("plate_number", label="车牌号", exportable=True),
        "vin": F("vin", label="VIN", exportable=True),
        "chargingState": F("charging_state", "int", enum=CHARGING_STATES, label="充电状态", exportable=True),
        "startTime": F("start_at", "time", label="开始时间", exportable=True),
        "endTime": F("end_at", "time", label="结束时间", exportable=True),
        "durationS": F("duration_s", "int", label="时长(秒)", exportable=True, display="duration"),
        "socFrom": F("soc_from", "int", label="开始SOC(%)", exportable=True),
        "socTo": F("soc_to", "int", label="结束SOC(%)", exportable=True),
        "energyKwh": F("energy_kwh", "float", label="充电量(kWh)", exportable=True),
        "lat": F("lat", "float", label="纬度", exportable=True),
        "lng": F("lng", "float", label="经度", exportable=True),
    },
)

_NUMBERS = {
    "vehicleStatus": ("vehicle_status", "int", "车辆状态"), "chargingState": ("charging_state", "int", "充电状态"),
    "runMode": ("run_mode", "int", "运行模式"), "speedKmh": ("speed_kmh", "float", "车速(km/h)"),
    "mileageKm": ("mileage_km", "float", "累计里程(km)"), "totalVoltageV": ("total_voltage_v", "float", "总电压(V)"),
    "totalCurrentA": ("total_current_a", "float", "总电流(A)"), "socPct": ("soc_pct", "int", "SOC(%)"),
    "dcdcState": ("dcdc_state", "int", "DC-DC状态"), "gear": ("gear", "int", "挡位"),
    "insulationKohm": ("insulation_kohm", "int", "绝缘电阻(kΩ)"), "lat": ("lat", "float", "纬度"),
    "lng": ("lng", "float", "经度"),
    "maxCellVoltageV": ("max_cell_voltage_v", "float", "最高单体电压(V)"),
    "maxVoltageSubsystem": ("max_voltage_subsystem", "int", "最高电压子系统号"),
    "maxVoltageCell": ("max_voltage_cell", "int", "最高电压单体代号"),
    "minCellVoltageV": ("min_cell_voltage_v", "float", "最低单体电压(V)"),
    "minVoltageSubsystem": ("min_voltage_subsystem", "int", "最低电压子系统号"),
    "minVoltageCell": ("min_voltage_cell", "int", "最低电压单体代号"),
    "maxTempC": ("max_temp_c", "int", "最高温度(℃)"), "maxTempSubsystem": ("max_temp_subsystem", "int", "最高温度子系统号"),
    "maxTempProbe": ("max_temp_probe", "int", "最高温度探针序号"), "minTempC": ("min_temp_c", "int", "最低温度(℃)"),
    "minTempSubsystem": ("min_temp_subsystem", "int", "最低温度子系统号"),
    "minTempProbe": ("min_temp_probe", "int", "最低温度探针序号"),
    "alarmLevel": ("alarm_level", "int", "最高报警等级"), "alarmFlags": ("alarm_flags", "int", "通用报警标志"),
    "obdProtocol": ("obd_protocol", "int", "OBD诊断协议"), "mil": ("mil", "int", "MIL状态"),
    "diagnosisSupported": ("diagnosis_supported", "int", "诊断支持状态"),
    "diagnosisReady": ("diagnosis_ready", "int", "诊断就绪状态"),
    "engineSpeedRpm": ("engine_speed_rpm", "float", "发动机转速(rpm)"),
    "engineTorquePct": ("engine_torque_pct", "float", "发动机净输出扭矩(%)"),
    "frictionTorquePct": ("friction_torque_pct", "float", "摩擦扭矩(%)"),
    "fuelFlowLPerH": ("fuel_flow_l_per_h", "float", "发动机燃料流量(L/h)"),
    "noxUpstreamPpm": ("nox_upstream_ppm", "float", "SCR上游NOx(ppm)"),
    "noxDownstreamPpm": ("nox_downstream_ppm", "float", "SCR下游NOx(ppm)"),
    "reagentLevelPct": ("reagent_level_pct", "float", "反应剂余量(%)"),
    "intakeAirFlowKgPerH": ("intake_air_flow_kg_per_h", "float", "进气量(kg/h)"),
    "scrInletTempC": ("scr_inlet_temp_c", "float", "SCR入口温度(℃)"),
    "scrOutletTempC": ("scr_outlet_temp_c", "float", "SCR出口温度(℃)"),
    "dpfPressureDifferenceKpa": ("dpf_pressure_difference_kpa", "float", "DPF压差(kPa)"),
    "coolantTempC": ("coolant_temp_c", "float", "冷却液温度(℃)"), "tankLevelPct": ("tank_level_pct", "float", "油箱液位(%)"),
    "atmosphericPressureKpa": ("atmospheric_pressure_kpa", "float", "大气压力(kPa)"),
}
_JSON = {"motors": "驱动电机", "fuelCell": "燃料电池", "engine": "发动机", "storageFaults": "可充电储能装置故障码",
         "motorFaults": "驱动电机故障码", "engineFaults": "发动机故障码", "otherFaults": "其他故障码",
         "generalFaults": "通用报警等级列表", "fuelCellStacks": "燃料电池电堆", "supercapacitor": "超级电容器",
         "supercapacitorExtremes": "超级电容器极值",
         "cellVoltages": "单体电压", "probeTemperatures": "探针温度", "obdFaultCodes": "OBD故障码"}


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


NEV_STATE = EntitySpec(
    name="nevState",
    relation="nev_state_view",
    tenant_column="enterprise_id",
    permission="car",
    id_field="deviceId",
    default_order="deviceId",
    label="新能源车辆状态",
    fields={
        "deviceId": F("device_id", "int", label="终端"),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "plateNumber": F("plate_number", label="车牌号"),
        "vin": F("vin", label="VIN"),
        "protocol": F("protocol", label="协议"),
        "frameProtocol": F("frame_protocol", label="协议版本"),
        "collectedAt": F("collected_at", "time", label="采集时间"),
        "receivedAt": F("received_at", "time", label="接收时间"),
        **{name: F(column, ftype, label=label) for name, (column, ftype, label) in _NUMBERS.items()},  # type: ignore[arg-type]
        **{name: F(_snake(name), "json", label=label) for name, label in _JSON.items()},
        "calibrationId": F("calibration_id", label="软件标定识别号"),
        "cvn": F("cvn", label="标定验证码(CVN)"),
    },
)

NEV_READING = EntitySpec(
    name="nevReading",
    relation="nev_reading",
    tenant_column="enterprise_id",
    permission="car",
    id_field="collectedAt",
    tiebreak=("collectedAt", "deviceId"),
    default_order="collectedAt",
    # A day's chart in one read: terminals report every 1-30 s (GB/T 32960.3 7.2.3.1), 10 s by default.
    max_page_size=10_000,
    window=Window("deviceId", "collectedAt", history_max_days),
    label="新能源车辆读数",
    fields={
        "deviceId": F("device_id", "int", label="终端"),
        "carId": F("car_id", "int", ref="carView", label="车辆"),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "collectedAt": F("collected_at", "time", label="采集时间"),
        "socPct": F("soc_pct", "int", label="SOC(%)"),
        "totalVoltageV": F("total_voltage_v", "float", label="总电压(V)"),
        "totalCurrentA": F("total_current_a", "float", label="总电流(A)"),
        "noxUpstreamPpm": F("nox_upstream_ppm", "float", label="SCR上游NOx(ppm)"),
        "noxDownstreamPpm": F("nox_downstream_ppm", "float", label="SCR下游NOx(ppm)"),
        "reagentLevelPct": F("reagent_level_pct", "float", label="反应剂余量(%)"),
    },
)

GB32960_ENTITIES = (GB32960_CHARGING_LOG, NEV_STATE, NEV_READING)
