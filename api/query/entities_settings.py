"""Declarations of the settings area (platform-spec §2): dictionaries, the licence log and open platform apps.

A dictionary entry (platform-spec §3) is ``type`` (the ids of §9), ``code``, ``content`` (JSON text)
and its enterprise. ``system`` 1 marks a system-wide entry that every enterprise reads unless it
has its own entry with the same type and code (``api/dictionary.py``); only a user of a root
enterprise may set it, and since the entry then belongs to that root enterprise, nobody below it
can change it (the generic routes' scope).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from api.dictionary_names import name_expression
from api.errors import BadRequest, Forbidden
from api.open_platform import API_GROUPS, OpenAppHooks
from api.query.grammar import EntityHooks, EntitySpec, FieldSpec
from fleet.grade_bands import BANDS_CODE, ENTERPRISE_BANDS_TYPE, SYSTEM_BANDS_TYPE, bands_problem

F = FieldSpec

# platform-spec §9 "Dictionary ids".
DICTIONARY_TYPES = {
    50: "driving behaviour grade",
    51: "alarm notify rule",
    52: "car business notify rule",
    53: "enterprise security rule",
    90: "provider API",
    98: "system dictionary",
    99: "gateway",
}
# Read from the notification rules by the dictionary look-up (api/dictionary_rules.py), never kept as entries.
RULE_DICTIONARY_TYPES = frozenset({51, 52})
SYSTEM_TYPE = 98
GATEWAY_TYPE = 99
# The dictionary screen's gateway tabs: entries of type 99 whose code starts with the prefix.
GATEWAY_TABS = ("protocol.", "ftp.", "media.", "attachment.")
DICTIONARY_CODE = r"[A-Za-z0-9_.-]{1,64}"
MAX_CONTENT_CHARS = 100_000


def json_text_problem(value: Any) -> str | None:
    """None when ``value`` is JSON text, else the user's message."""
    try:
        json.loads(value)
    except (TypeError, ValueError) as exc:
        return f"内容必须是 JSON 文本 (content must be JSON text: {str(exc)[:80]})"
    return None


def is_root_path(path: str) -> bool:
    """A materialised path of a root enterprise: ``/<id>/``."""
    return path.count("/") == 2


def check_grade_bands(values: Mapping[str, Any], before: Mapping[str, Any] | None, system: Any) -> None:
    """An entry of grade bands (fleet/grade_bands.py: an enterprise's type 50, the system's type 98
    ``driving_behavior_grade``) is written only well formed, since the daily report build grades by it; a type 50
    entry has that code and belongs to one enterprise. BadRequest naming the field otherwise."""
    def now(field: str) -> Any:
        return values.get(field, before[field] if before else None)

    type_id, code = now("type"), now("code")
    if type_id == ENTERPRISE_BANDS_TYPE and code != BANDS_CODE:
        raise BadRequest(f"驾驶行为评分等级的编码必须是 {BANDS_CODE} (a type 50 entry's code must be {BANDS_CODE})",
                         data={"field": "code"})
    if type_id == ENTERPRISE_BANDS_TYPE and system == 1:
        raise BadRequest("驾驶行为评分等级属于一个企业，不能设为系统字典 (a type 50 entry holds one enterprise's grade bands;"
                         f" the platform's are the system entry {BANDS_CODE} of type {SYSTEM_BANDS_TYPE})",
                         data={"field": "system"})
    if type_id not in (ENTERPRISE_BANDS_TYPE, SYSTEM_BANDS_TYPE) or code != BANDS_CODE:
        return
    try:
        problem = bands_problem(json.loads(now("content")))
    except (TypeError, ValueError):
        problem = ("内容必须是 JSON 文本", "content must be JSON text")
    if problem:
        raise BadRequest(f"评分等级不合法：{problem[0]} (grade bands: {problem[1]})", data={"field": "content"})


class DictionaryHooks(EntityHooks):
    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        """A system entry (set now, or already one) needs a caller of a root enterprise writing
        into its own enterprise; anyone else gets a 403. Types 51 and 52 are a 400 (platform-spec §9: the
        notification rules answer them)."""
        if values.get("type", before["type"] if before else None) in RULE_DICTIONARY_TYPES:
            raise BadRequest("字典类型 51、52 由通知规则维护，不能作为字典条目保存 (types 51 and 52 are read from the"
                             " notification rules, platformAlarmNotifyRule and messageNotifyRule, not kept as"
                             " dictionary entries)", data={"field": "type"})
        if "system" in values and values["system"] is None:  # null: not system-wide
            values = {**values, "system": 0}
        system = values.get("system", before["system"] if before else 0)
        check_grade_bands(values, before, system)
        if system == 1:
            tenant = values.get("enterpriseId", before["enterprise_id"] if before else who.enterprise_id)
            if not is_root_path(who.enterprise_path) or tenant != who.enterprise_id:
                raise Forbidden("只有根企业管理员可以维护系统字典 "
                                "(only an administrator of the root enterprise may keep system dictionary entries)")
        return values


DICTIONARY = EntitySpec(
    name="dictionary",
    relation="dictionary",
    table="dictionary",
    tenant_column="enterprise_id",
    permission="dictionary",
    record_state_column="record_state",
    label="字典",
    hooks=DictionaryHooks(),
    fields={
        "id": F("id", "int"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        # example: a type whose entries take any code and JSON (type 50 takes only grade bands)
        "type": F("type", "int", required=True, enum=tuple(DICTIONARY_TYPES), create=True, update=True,
                  example=SYSTEM_TYPE, label="类型", importable=True, exportable=True),
        "code": F("code", required=True, pattern=DICTIONARY_CODE, unique=True, create=True, update=True,
                  label="编码", importable=True, exportable=True),
        "name": F("name", required=True, max_length=64, create=True, update=True, label="名称",
                  importable=True, exportable=True),
        # The name as the caller's language reads it (a seeded system entry's name translated), for
        # lists; ``name`` stays the stored text that forms edit.
        "localName": F("name", expression="name", localised=name_expression, filterable=False, label="名称"),
        "content": F("content", required=True, max_length=MAX_CONTENT_CHARS, check=json_text_problem,
                     create=True, update=True, filterable=False, sortable=False, label="内容",
                     importable=True, exportable=True),
        "system": F("system", "int", enum=(0, 1), create=True, update=True, label="系统字典",
                    exportable=True),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注", importable=True, exportable=True),
        "createTime": F("created_at", "time", label="创建时间"),
        "updateTime": F("updated_at", "time", label="更新时间"),
    },
)

# Licence installs and applications in one read-only list (view licence_log, migration 0007).
LICENCE_LOG = EntitySpec(
    name="licenceLog",
    relation="licence_log",
    tenant_column="enterprise_id",
    permission="license",
    default_order="createTime",
    default_desc=True,
    tiebreak=("id",),
    label="许可证日志",
    fields={
        "id": F("id", label="编号"),
        "kind": F("kind", enum=("install", "apply"), label="类型"),
        "enterpriseId": F("enterprise_id", "int"),
        "createTime": F("created_at", "time", label="时间"),
        "party": F("party", label="被许可方/申请单位"),
        "actor": F("actor", label="操作人/联系人"),
        "vehicles": F("vehicles", "int", label="车辆数"),
        "validFrom": F("valid_from", "time", sortable=False, label="生效日期"),
        "validTo": F("valid_to", "time", sortable=False, label="到期日期"),
    },
)

# Open platform apps (migration 0012, api/open_platform.py): the key and secret are made by the
# hooks on create (the secret answered once, kept hashed); ``apis`` is a comma list of route groups.
OPEN_APP = EntitySpec(
    name="openApp",
    relation="open_app",
    table="open_app",
    tenant_column="enterprise_id",
    permission="openPlatform",
    record_state_column="record_state",
    label="开放平台应用",
    hooks=OpenAppHooks(),
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="应用名称"),
        "appKey": F("app_key", label="AppKey"),
        "secretHash": F("secret_hash", secret=True),
        "appSecret": F("app_secret", virtual=True, secret=True, label="AppSecret"),
        "state": F("state", "int", enum=(1, 0), create=True, update=True, label="状态"),
        "apis": F("apis", enum=tuple(API_GROUPS), many=True, max_length=200, create=True, update=True,
                  filterable=False, sortable=False, label="开放接口"),
        "rateLimitPerMin": F("rate_limit_per_min", "int", minimum=1, maximum=100_000, create=True, update=True,
                             label="每分钟调用上限"),
        "remark": F("remark", max_length=255, create=True, update=True, filterable=False, sortable=False,
                    label="备注"),
        "lastTokenTime": F("last_token_at", "time", label="最近获取令牌"),
        "createTime": F("created_at", "time", label="创建时间"),
    },
)

# Announcements (console-spec §9 bizType 5, migration 0053): an administrator (``notify``) publishes a title
# and a text to an enterprise and its whole subtree (``enterpriseId``, inside the publisher's tree); every user
# of that subtree finds it in the bell's notices (api/notices.py), read or not per user.
ANNOUNCEMENT_TITLE_MAX = 100
ANNOUNCEMENT_CONTENT_MAX = 1000  # the contract states text bodies up to 1000 characters (MAX_TEXT_CHARS)


class AnnouncementHooks(EntityHooks):
    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        """The publisher is whoever created it (kept on later edits)."""
        return {**values, "publishedBy": who.user_name} if before is None else values


ANNOUNCEMENT = EntitySpec(
    name="announcement",
    relation="announcement",
    table="announcement",
    tenant_column="enterprise_id",
    permission="notify",
    record_state_column="record_state",
    default_order="createTime",
    default_desc=True,
    label="通知公告",
    hooks=AnnouncementHooks(),
    fields={
        "id": F("id", "int"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="发布范围"),
        "title": F("title", required=True, max_length=ANNOUNCEMENT_TITLE_MAX, unique=True, create=True, update=True,
                   label="标题"),
        "content": F("content", required=True, max_length=ANNOUNCEMENT_CONTENT_MAX, create=True, update=True,
                     filterable=False, sortable=False, label="内容"),
        "publishedBy": F("published_by", label="发布人"),
        "createTime": F("created_at", "time", label="发布时间"),
        "updateTime": F("updated_at", "time", label="更新时间"),
    },
)

# Licence applications (the licenseApply screen, platform-spec §2): what the sign-in-free page stored, for the
# installation's operator (root enterprises, licence_apply_view) to approve or reject
# (POST /api/license/apply/{id}/approve.json, license:update). state 0 pending, 1 approved, 2 rejected.
APPLICATION_STATES = (0, 1, 2)
LICENCE_APPLY = EntitySpec(
    name="licenceApply",
    relation="licence_apply_view",
    tenant_column="enterprise_id",
    permission="license",
    default_order="createTime",
    default_desc=True,
    label="许可证申请",
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int"),
        "company": F("company", label="申请单位"),
        "contact": F("contact", label="联系人"),
        "phone": F("phone", label="联系电话"),
        "email": F("email", label="邮箱"),
        "vehicles": F("vehicles", "int", label="车辆数"),
        "machineCode": F("machine_code", label="机器码"),
        "state": F("state", "int", enum=APPLICATION_STATES, label="状态"),
        "handledBy": F("handled_by", label="审批人"),
        "handleTime": F("handled_at", "time", label="审批时间"),
        "opinion": F("opinion", label="审批意见", filterable=False, sortable=False),
        "createTime": F("created_at", "time", label="申请时间"),
    },
)
