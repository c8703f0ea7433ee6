"""The audit log as a read-only declared entity over ``audit_log`` (migration 0005):
who changed which record of which entity, when, and each field's before and after. Written only by
``api/query/records.py`` in the transaction of the change; listed, filtered and exported through the
generic routes like any other entity (permission code ``auditLog``)."""

from __future__ import annotations

from api.query.grammar import EntitySpec, FieldSpec

F = FieldSpec

AUDIT_LOG = EntitySpec(
    name="auditLog",
    relation="audit_log",
    tenant_column="enterprise_id",
    permission="auditLog",
    default_order="time",
    default_desc=True,
    tiebreak=("id",),
    label="操作日志",
    fields={
        "id": F("id", "int", label="编号"),
        "time": F("at", "time", label="时间", exportable=True),
        "userId": F("user_id", "int", label="用户编号"),
        "userName": F("user_name", label="用户", exportable=True),
        "enterpriseId": F("enterprise_id", "int", label="企业"),
        "entity": F("entity", label="对象", exportable=True),
        "recordId": F("record_id", "int", label="记录编号", exportable=True),
        "action": F("action", enum=("create", "update", "delete"), label="操作", exportable=True),
        # {field: {before, after}}: shown, exported as JSON text; not a filter or sort key.
        "changes": F("changes", filterable=False, sortable=False, label="变更内容", exportable=True),
    },
)
