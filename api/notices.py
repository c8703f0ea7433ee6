"""The bell's notices (console-spec §2, §7, §9 ``bizType``): one declared entity over ``notice_view``
(migration 0053) read by ``POST /api/query/notice.json`` (api/routes/alarms.py) and counted per bizType by
``GET /api/notice/overView.json`` (api/routes/console.py), so the list and the bell's numbers agree.

- 1 approvals pending: licence applications nobody decided yet (``license:query``: the installation's
  operator, the root enterprises).
- 2 / 3 vehicle insurance / annual inspection ending within ``notice_insurance_days`` /
  ``notice_inspection_days`` (or ended) (``car:query``); 4 a driver's licence within ``notice_licence_days``
  (``driver:query``). The windows are run-time platform parameters (``api/platform_params.py``: ``ApiSettings`` with
  an administrator's values), applied as conditions here.
- 5 announcements an administrator published to an enterprise subtree the caller is in (the overview counts
  the ones the caller has not read) and a superior platform's JT/T 809 messages and warning tips of the last
  7 days; every user reads them.
- 6 the unhandled alarms (``alarm:query``).

Every kind is scoped to the caller's enterprise tree; what the caller may not read is left out, not refused.
"""

from __future__ import annotations

from dataclasses import replace

from api.auth import Principal
from api.query.entities_alarms import desc_expression
from api.query.grammar import Condition, EntitySpec, FieldSpec, Query
from fleet.settings import ApiSettings
from fleet.zh_hk import to_hk

NOTICE_BIZ_TYPES = (1, 2, 3, 4, 5, 6)
NOTICE_BIZ_APPROVAL = 1  # licence applications pending
NOTICE_BIZ_INSURANCE = 2
NOTICE_BIZ_INSPECTION = 3
NOTICE_BIZ_LICENCE = 4  # a driver's driving licence
NOTICE_BIZ_ANNOUNCEMENT = 5  # announcements, and a superior platform's messages and warning tips (0x9302 / 0x9402)
NOTICE_BIZ_ALARM = 6  # the unhandled alarms in the caller's scope

# The read each kind needs (``Principal.may``); announcements (no entry) reach every user of their audience.
NOTICE_PERMISSION = {
    NOTICE_BIZ_APPROVAL: ("license", "query"),
    NOTICE_BIZ_INSURANCE: ("car", "query"),
    NOTICE_BIZ_INSPECTION: ("car", "query"),
    NOTICE_BIZ_LICENCE: ("driver", "query"),
    NOTICE_BIZ_ALARM: ("alarm", "query"),
}

# Titles of the kinds that are not alarms (an alarm's is its name), by ``notice_kind``; an announcement's is
# its own title.
_TITLES_ZH = {
    "message": "上级平台消息", "warning": "上级平台预警", "licenceApply": "许可证申请待审批",
    "insurance": "车辆保险到期", "inspection": "车辆年检到期", "licence": "驾驶证到期",
}
NOTICE_TITLES = {
    "zh-CN": _TITLES_ZH,
    "zh-HK": {kind: to_hk(title) for kind, title in _TITLES_ZH.items()},  # the generated table (fleet zh-hk)
    "en-US": {"message": "Message from the superior platform", "warning": "Warning from the superior platform",
              "licenceApply": "Licence application awaiting approval", "insurance": "Vehicle insurance expiring",
              "inspection": "Annual inspection due", "licence": "Driving licence expiring"},
}


def _sql_text(text: str) -> str:
    assert "'" not in text and "%" not in text and "{" not in text  # constants of this module only
    return f"'{text}'"


def _title(language: str) -> str:
    titles = NOTICE_TITLES.get(language, NOTICE_TITLES["zh-CN"])
    kinds = " ".join(f"WHEN {_sql_text(kind)} THEN {_sql_text(title)}" for kind, title in titles.items())
    return (f"CASE WHEN biz_type = {NOTICE_BIZ_ALARM} THEN ({desc_expression(language)})"
            f" WHEN notice_title IS NOT NULL THEN notice_title ELSE CASE notice_kind {kinds} END END")


def _content(language: str) -> str:
    return (f"CASE WHEN biz_type = {NOTICE_BIZ_ALARM} THEN coalesce(plate_number, phone) || ' ' || ("
            + desc_expression(language) + ") WHEN biz_type IN (2, 3) THEN plate_number ELSE notice_content END")


def _days_left_of(biz_type: int) -> str:
    # a row of another kind passes its window condition: -1 is inside every window (>= 0 days)
    return f"CASE WHEN biz_type = {biz_type} THEN days_left ELSE -1 END"


F = FieldSpec

NOTICE = EntitySpec(
    name="notice", relation="notice_view", tenant_column="enterprise_id", id_field="id",
    owner_column="user_id", shared_rows=True,
    default_order="createTime", default_desc=True, tiebreak=("createTime", "bizType", "id"), max_page_size=1000,
    fields={
        "id": F("id", "int"),
        "bizType": F("biz_type", "int"),
        "bizId": F("id", "int"),
        "title": F("title", expression=_title("zh-CN"), localised=_title),
        "content": F("content", expression=_content("zh-CN"), localised=_content, filterable=False, sortable=False),
        "kind": F("notice_kind"),
        "enterpriseId": F("enterprise_id", "int"),
        "carId": F("car_id", "int"),
        "deviceId": F("device_id", "int"),
        "plateNumber": F("plate_number"),
        "type": F("type", "int"),
        "level": F("level", "int"),
        "state": F("state", "int"),
        "read": F("read", "int"),  # an announcement: 1 once the caller opened it
        "daysLeft": F("days_left", "int"),  # an expiry (bizType 2-4): days to it in UTC+8, negative once past
        "createTime": F("create_time", "time"),  # an expiry: the day it ends
        # the windows (settings) the API applies; never a client's filter
        **{name: F(name, "int", expression=_days_left_of(biz_type), listable=False, filterable=False,
                   sortable=False)
           for name, biz_type in (("insuranceDaysLeft", NOTICE_BIZ_INSURANCE),
                                  ("inspectionDaysLeft", NOTICE_BIZ_INSPECTION),
                                  ("licenceDaysLeft", NOTICE_BIZ_LICENCE))},
    },
)


def visible_types(principal: Principal) -> list[int]:
    """The kinds the caller may read (NOTICE_PERMISSION)."""
    return [t for t in NOTICE_BIZ_TYPES if t not in NOTICE_PERMISSION or principal.may(*NOTICE_PERMISSION[t])]


def current_notices(query: Query, principal: Principal, settings: ApiSettings) -> Query:
    """``query`` limited to what the bell shows the caller: open notices (state 0) of the kinds it may read,
    expiries inside their windows."""
    return replace(query, conditions=(
        *query.conditions,
        Condition("state", "eq", 0),
        Condition("bizType", "in", visible_types(principal)),
        Condition("insuranceDaysLeft", "lte", settings.notice_insurance_days),
        Condition("inspectionDaysLeft", "lte", settings.notice_inspection_days),
        Condition("licenceDaysLeft", "lte", settings.notice_licence_days),
    ))


def overview_queries(principal: Principal, settings: ApiSettings) -> dict[int, Query]:
    """bizType -> the count query of its bell number: the current notices of that kind, announcements
    only while unread by the caller."""
    base = current_notices(Query(entity=NOTICE, select=("id",)), principal, settings)
    queries: dict[int, Query] = {}
    for biz_type in visible_types(principal):
        extra: tuple[Condition, ...] = (Condition("bizType", "eq", biz_type),)
        if biz_type == NOTICE_BIZ_ANNOUNCEMENT:
            extra += (Condition("read", "eq", 0),)
        queries[biz_type] = replace(base, conditions=(*base.conditions, *extra))
    return queries

