"""Declarations of the user menu area (platform-spec §2 user): enterprises, users and roles.

- ``enterprise``: its tenant is its parent (``enterpriseId`` = parent_id), so an administrator
  creates subsidiaries under its own subtree only and sees its subsidiaries (``isParent``: the
  whole subtree below it), never its parent or siblings. A hook keeps the materialised path
  (``/1/3/``) that every ``isParent`` prefix match uses. ``state`` changes only through the
  enable / disable routes (api/routes/org.py); a disabled enterprise disables sign-in of its
  users and its whole subtree (warehouse/queries/auth.py).
- ``user``: ``password`` is write-only (argon2 hash, ``***`` in the audit); setting it (an
  administrator's reset) ends the user's sessions (0004 trigger). ``roles`` (virtual): ids of
  live roles of the user's enterprise or its ancestors inside the caller's subtree, none granting
  more than the caller holds.
- ``role``: ``permissions`` (virtual) ``[{code, actions}]``: known codes, actions the code offers,
  and only what the caller holds itself (else 403 naming it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api.errors import BadRequest, Conflict, Forbidden, with_detail
from api.query import validators
from api.query.grammar import EntityHooks, EntitySpec, FieldSpec
from warehouse.passwords import hash_password
from warehouse.queries import organisation as org

F = FieldSpec
CODE = r"[A-Za-z0-9_.-]{1,32}"
ENTERPRISE_TYPES = (1, 2, 3, 4)  # platform-spec §3: 3 is an enterprise; each type has its tree icon
MAX_ROLES = 100


def _bad(field: str, message: str) -> BadRequest:
    return BadRequest(with_detail(message, f"field '{field}'"), data={"field": field})


def id_list(value: Any) -> str | None:
    """A list of distinct positive integer ids."""
    if (not isinstance(value, list) or len(value) > MAX_ROLES
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v < 2**63 for v in value)):
        return f"必须是ID列表 (expects a list of at most {MAX_ROLES} positive integer ids)"
    if len(set(value)) != len(value):
        return "ID重复 (ids must be distinct)"
    return None


def grant_list(value: Any) -> str | None:
    """``[{code, actions}]`` with text codes and text actions, each code once."""
    shape = "必须是权限列表 (expects a list of {code, actions} objects, actions a list of text)"
    if not isinstance(value, list) or len(value) > 200:
        return shape
    for item in value:
        if (not isinstance(item, dict) or set(item) != {"code", "actions"} or not isinstance(item["code"], str)
                or not isinstance(item["actions"], list) or not all(isinstance(a, str) for a in item["actions"])
                or len(item["actions"]) > 50):
            return shape
    if len({item["code"] for item in value}) != len(value):
        return "权限重复 (each permission code at most once)"
    return None


def check_grants(conn: Any, who: Any, field: str, granted: Mapping[str, set[str] | list[str]]) -> None:
    """400 for an unknown code or an action the code does not offer; 403 naming the first
    code:action the caller does not hold itself."""
    catalogue = {p["code"]: set(p["actions"]) for p in org.permission_catalogue(conn)}
    for code, actions in sorted(granted.items()):
        if code not in catalogue:
            raise _bad(field, f"未知权限 (unknown permission code {code[:64]!r})")
        unknown = sorted(set(actions) - catalogue[code])
        if unknown:
            raise _bad(field, f"权限不支持该操作 (permission {code} offers no action {unknown[0][:32]!r})")
        for action in sorted(actions):
            if not who.can(code, action):
                raise Forbidden(f"不能授予自己没有的权限 (cannot grant {code}:{action}, which you do not hold)",
                                data={"field": field, "permission": f"{code}:{action}"})


# --- enterprise ---------------------------------------------------------------------------------


class EnterpriseHooks(EntityHooks):
    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        if "type" in values and values["type"] is None:
            if action != "create":
                raise _bad("type", "字段不能为空 (an enterprise always has a type)")
            values = {**values, "type": 3}
        elif action == "create" and "type" not in values:
            values = {**values, "type": 3}
        return values

    def after_write(self, conn: Any, who: Any, action: str, record_id: int, values: Mapping[str, Any]) -> None:
        if action == "create":
            org.set_enterprise_path(conn, record_id)

    def before_delete(self, conn: Any, who: Any, record_id: int, before: Mapping[str, Any]) -> None:
        children, users = org.enterprise_in_use(conn, record_id)
        if children or users:
            raise Conflict(f"企业仍有下级企业或用户，不能删除 (enterprise {record_id} still has {children} "
                           f"subsidiaries and {users} users)")


ENTERPRISE = EntitySpec(
    name="enterprise",
    relation="enterprise",
    table="enterprise",
    tenant_column="parent_id",
    permission="enterprise",
    record_state_column="record_state",
    label="企业",
    hooks=EnterpriseHooks(),
    self_readable=True,
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("parent_id", "int", create=True, label="上级企业"),
        "name": F("name", required=True, max_length=64, unique=True, create=True, update=True, label="企业名称",
                  exportable=True),
        "shortName": F("short_name", required=True, max_length=32, create=True, update=True, label="企业简称",
                       exportable=True),
        "type": F("type", "int", enum=ENTERPRISE_TYPES, create=True, update=True, label="类型", exportable=True),
        "contact": F("contact", max_length=32, check=validators.person_name, create=True, update=True,
                     label="联系人", exportable=True),
        "phone": F("phone", max_length=20, check=validators.phone, create=True, update=True, label="联系电话",
                   exportable=True),
        "address": F("address", max_length=200, create=True, update=True, sortable=False, label="地址",
                     exportable=True),
        "state": F("state", "int", enum=(0, 1), label="状态", exportable=True),
        "createTime": F("created_at", "time", label="创建时间"),
        "updateTime": F("updated_at", "time", label="更新时间"),
    },
)


# --- user ---------------------------------------------------------------------------------------


class UserHooks(EntityHooks):
    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        values = dict(values)
        if values.get("password") is not None:
            values["password"] = hash_password(values["password"])
        if values.get("roles") is not None:
            enterprise_id = values["enterpriseId"] if before is None else before["enterprise_id"]
            path = org.enterprise_path_of(conn, int(enterprise_id)) or ""
            wanted = list(values["roles"])
            allowed = org.assignable_roles(conn, wanted, path, who.enterprise_path)
            refused = [r for r in wanted if r not in allowed]
            if refused:
                raise _bad("roles", f"角色不存在或不能分配给该用户 (role {refused[0]} does not exist or is not "
                                    "assignable to a user of this enterprise)")
            check_grants(conn, who, "roles", org.roles_permissions(conn, wanted))
        return values

    def after_write(self, conn: Any, who: Any, action: str, record_id: int, values: Mapping[str, Any]) -> None:
        if "roles" in values:
            org.set_user_roles(conn, record_id, list(values["roles"] or []))

    def after_read(self, conn: Any, record: dict[str, Any]) -> dict[str, Any]:
        return {**record, "roles": org.user_roles(conn, record["id"])}

    def before_delete(self, conn: Any, who: Any, record_id: int, before: Mapping[str, Any]) -> None:
        if record_id == who.user_id:
            raise BadRequest("不能删除当前登录用户 (you cannot delete yourself)")


USER = EntitySpec(
    name="user",
    relation="app_user",
    table="app_user",
    tenant_column="enterprise_id",
    permission="user",
    record_state_column="record_state",
    label="用户",
    hooks=UserHooks(),
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="所属企业"),
        "userName": F("user_name", required=True, unique=True, check=validators.username,
                      create=True, update=True, label="用户名", exportable=True),
        "password": F("password_hash", required=True, check=validators.password, secret=True,
                      create=True, update=True, label="密码"),
        "name": F("name", max_length=32, check=validators.person_name, create=True, update=True, label="姓名",
                  exportable=True),
        "nickName": F("nick_name", max_length=32, create=True, update=True, label="昵称", exportable=True),
        "phone": F("phone", max_length=20, check=validators.phone, create=True, update=True, label="电话",
                   exportable=True),
        "email": F("email", max_length=128, check=validators.email, create=True, update=True, label="邮箱",
                   exportable=True),
        "roles": F("", "int", virtual=True, check=id_list, create=True, update=True, label="角色"),
        "state": F("state", "int", enum=(0, 1), label="状态", exportable=True),
        "createTime": F("created_at", "time", label="创建时间"),
        "updateTime": F("updated_at", "time", label="更新时间"),
    },
)


# --- role ---------------------------------------------------------------------------------------


class RoleHooks(EntityHooks):
    def before_write(self, conn: Any, who: Any, action: str, values: dict[str, Any],
                     before: Mapping[str, Any] | None) -> dict[str, Any]:
        if values.get("permissions") is not None:
            check_grants(conn, who, "permissions", {g["code"]: g["actions"] for g in values["permissions"]})
        return values

    def after_write(self, conn: Any, who: Any, action: str, record_id: int, values: Mapping[str, Any]) -> None:
        if "permissions" in values:
            granted = {g["code"]: sorted(set(g["actions"])) for g in values["permissions"] or [] if g["actions"]}
            org.set_role_permissions(conn, record_id, granted)

    def after_read(self, conn: Any, record: dict[str, Any]) -> dict[str, Any]:
        return {**record, "permissions": org.role_permissions(conn, record["id"])}


ROLE = EntitySpec(
    name="role",
    relation="role",
    table="role",
    tenant_column="enterprise_id",
    permission="role",
    record_state_column="record_state",
    label="角色",
    hooks=RoleHooks(),
    fields={
        "id": F("id", "int", label="编号"),
        "enterpriseId": F("enterprise_id", "int", create=True, label="所属企业"),
        "name": F("name", required=True, max_length=32, create=True, update=True, label="角色名称",
                  exportable=True),
        "code": F("code", pattern=CODE, unique=True, create=True, update=True, label="角色编码", exportable=True),
        "description": F("description", max_length=255, create=True, update=True, filterable=False,
                         sortable=False, label="描述", exportable=True),
        "permissions": F("", virtual=True, check=grant_list, create=True, update=True, label="权限"),
        "createTime": F("created_at", "time", label="创建时间"),
        "updateTime": F("updated_at", "time", label="更新时间"),
    },
)

ORG_ENTITIES = (ENTERPRISE, USER, ROLE)
