"""``fenceSync`` (read only): how far each terminal fence got on each vehicle's terminal (table fence_sync,
migrations 0040 / 0043, view ``fence_sync_view``; written by the streams' reconciler, streams/fence_sync.py).
The fence screen lists it with ``fenceId.eq``; a failed row is sent again by ``POST /api/fenceSync/resend.json``
(api/routes/fence_sync.py). Guarded by the ``fence`` permission, scoped by the terminal's enterprise."""

from __future__ import annotations

from api.query.grammar import EntitySpec, FieldSpec
from fleet.phones import phone_search_text

F = FieldSpec
WANTED = ("set", "delete")
STATES = ("pending", "sent", "acknowledged", "failed")

FENCE_SYNC = EntitySpec(
    name="fenceSync",
    relation="fence_sync_view",
    tenant_column="enterprise_id",
    permission="fence",
    id_field="fenceId",
    tiebreak=("fenceId", "deviceId"),
    default_order="fenceId",
    max_page_size=1000,
    label="围栏下发状态",
    fields={
        "fenceId": F("fence_id", "int", label="围栏"),
        "fenceName": F("fence_name", label="围栏名称"),
        "carId": F("car_id", "int", label="车辆"),
        "plateNumber": F("plate_number", label="车牌号"),
        "deviceId": F("device_id", "int", label="终端"),
        "phone": F("phone", label="终端手机号", normalize=phone_search_text),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "wanted": F("wanted", enum=WANTED, label="操作"),
        "state": F("state", enum=STATES, label="状态"),
        "result": F("result", "int", label="终端应答结果"),
        "error": F("error", label="错误"),
        "updatedAt": F("updated_at", "time", label="更新时间"),
    },
)
