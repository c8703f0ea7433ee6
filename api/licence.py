"""The installation's licence: what is in force, installing a vendor-signed one, the vehicle quota,
and licence applications from the sign-in-free page (``fleet/licence.py`` has the document).

Without any licence the platform runs unlimited as a community installation. With one, the newest
installed licence is in force: vehicles of the whole installation count against its
``maxVehicles``, and once it has expired no vehicle can be added (the rest keeps running).
A licence is verified when installed; the stored terms are what the checks read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from psycopg import Connection

from api.auth import Principal
from api.errors import ApiError, BadRequest, Conflict, Unavailable, with_detail
from api.query import validators
from fleet.licence import LicenceError, LicenceTerms, load_public_key, verify
from warehouse.queries import licence as queries
from warehouse.queries import records

MAX_APPLY_VEHICLES = 1_000_000


class TooManyApplications(ApiError):
    http_status = 429
    code = 429
    default_message = "申请过于频繁，请稍后再试 (too many licence applications from this address, try again later)"


def machine_code(conn: Connection[Any]) -> str:
    """A stable id of this installation (from its database), shown to the vendor in applications."""
    digest = hashlib.sha256(f"fleetwatch:{queries.installation_id(conn)}".encode()).hexdigest().upper()
    return "-".join(digest[i:i + 5] for i in range(0, 25, 5))


def status(conn: Connection[Any], today: date, enterprise_path: str | None = None,
           warning_days: int = 30) -> dict[str, Any]:
    """The detail screen: community (no licence) or the licence in force with its usage; ``expiring`` while it
    ends within ``warning_days`` (the platform parameter licenceWarningDays) and has not ended yet.

    ``enterprise_path``: the caller's enterprise when it is not the platform's own (root) one. The
    installation's vehicle count and who installed the licence are platform-wide figures: such a caller
    sees its own subtree's vehicles and no installer."""
    used = queries.live_vehicles(conn) if enterprise_path is None else queries.live_vehicles_under(conn, enterprise_path)
    row = queries.current(conn)
    base = {"machineCode": machine_code(conn), "vehiclesUsed": used, "warningDays": warning_days}
    if row is None:
        return {**base, "community": True, "licence": None, "vehiclesAllowed": None, "daysLeft": None,
                "expired": False, "expiring": False}
    return {
        **base, "community": False, "vehiclesAllowed": row["max_vehicles"],
        "daysLeft": max((row["valid_to"] - today).days, 0), "expired": today > row["valid_to"],
        "expiring": today <= row["valid_to"] and (row["valid_to"] - today).days <= warning_days,
        "licence": {
            "id": row["licence_id"], "licensee": row["licensee"], "enterprise": row["enterprise_name"],
            "maxVehicles": row["max_vehicles"], "validFrom": row["valid_from"].isoformat(),
            "validTo": row["valid_to"].isoformat(), "features": row["features"],
            "installedBy": row["installed_by"] if enterprise_path is None else None,
            "installedAt": row["created_at"],
        },
    }


def check_vehicle_quota(conn: Connection[Any], enterprise_id: int, adding: int = 1, today: date | None = None) -> None:
    """Raises Conflict (409) when ``adding`` more vehicles would pass the licence in force, or that
    licence has expired; nothing without a licence (community). ``enterprise_id`` is the enterprise
    adding them: a licence covers the whole installation, so it does not change the count today.
    Call it inside the transaction that inserts the vehicles."""
    del enterprise_id
    row = queries.current(conn)
    if row is None:
        return
    today = today or date.today()
    if today > row["valid_to"]:
        raise Conflict(f"许可证已过期，不能新增车辆 (licence expired on {row['valid_to'].isoformat()}: "
                       "no vehicle can be added)", data={"validTo": row["valid_to"].isoformat()})
    used = queries.live_vehicles(conn)
    if used + adding > row["max_vehicles"]:
        raise Conflict(f"车辆数已达许可证上限 {row['max_vehicles']} (the licence allows {row['max_vehicles']} "
                       f"vehicles; {used} exist)", data={"maxVehicles": row["max_vehicles"], "vehiclesUsed": used})


def install(conn: Connection[Any], who: Principal, text: Any, public_key_file: str, today: date,
            warning_days: int = 30) -> dict[str, Any]:
    """Verifies and installs a licence text; the new status. BadRequest with the reason for a
    damaged text, a bad signature, a licence for another installation, not yet valid or expired,
    or no vendor public key configured; Unavailable when the configured key file cannot be read."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("许可证不能为空 (field 'licence' is required: the signed licence text)",
                         data={"field": "licence"})
    if not public_key_file:  # a 400, not a 5xx: the installation cannot take licences, nothing failed
        raise BadRequest("未配置厂商公钥，无法安装许可证 (no licence vendor public key configured: "
                         "set FLEET_API_LICENSE_PUBLIC_KEY_FILE)")
    try:
        key = load_public_key(Path(public_key_file).read_bytes())
    except OSError as exc:
        raise Unavailable(f"厂商公钥无法读取 (vendor public key unreadable: {exc.strerror})") from None
    try:
        terms = verify(text, key)
        problem = terms.validity_problem(today, machine_code(conn))
    except LicenceError as exc:
        raise BadRequest(str(exc), data={"field": "licence"}) from None
    if problem:
        raise BadRequest(problem, data={"field": "licence"})
    with conn.transaction():
        record_id = _store(conn, who, terms, text.strip())
        records.audit(conn, user_id=who.user_id, user_name=who.user_name, enterprise_id=who.enterprise_id,
                      entity="licence", record_id=record_id, action="create",
                      changes={k: {"before": None, "after": v} for k, v in terms.to_json().items()})
    return status(conn, today, warning_days=warning_days)


def _store(conn: Connection[Any], who: Principal, terms: LicenceTerms, text: str) -> int:
    return queries.insert_licence(
        conn, enterprise_id=who.enterprise_id, licence_id=terms.id, licensee=terms.licensee,
        enterprise_name=terms.enterprise, max_vehicles=terms.max_vehicles, valid_from=terms.valid_from,
        valid_to=terms.valid_to, features=list(terms.features), document=text, installed_by=who.user_name)


def _field(body: dict[str, Any], name: str, check: Callable[[Any], str | None], max_length: int) -> str:
    """A required text checked by a console-spec §5 validator (api/query/validators.py)."""
    value = body.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise BadRequest(f"字段不能为空 (field '{name}' is required)", data={"field": name})
    if not isinstance(value, str) or len(value) > max_length:
        raise BadRequest(f"字段过长 (field '{name}' must be a text of at most {max_length} characters)",
                         data={"field": name})
    problem = check(value)
    if problem:
        raise BadRequest(with_detail(problem, f"field '{name}'"), data={"field": name})
    return value


def apply(conn: Connection[Any], body: Any, address: str, per_hour: int) -> dict[str, Any]:
    """Stores an application: ``{id, machineCode, createTime}``. 400 naming the first bad field,
    429 past ``per_hour`` applications from ``address`` in the last hour."""
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (request body must be a JSON object of fields)")
    unknown = sorted(set(body) - {"company", "contact", "phone", "email", "vehicles"})
    if unknown:
        raise BadRequest(f"未知字段 (unknown field(s): {', '.join(unknown)[:200]})")
    values = {
        "company": _field(body, "company", validators.person_name, 100),
        "contact": _field(body, "contact", validators.person_name, 50),
        "phone": _field(body, "phone", validators.phone, 20),
        "email": _field(body, "email", validators.email, 128),
    }
    vehicles = body.get("vehicles")
    if not isinstance(vehicles, int) or isinstance(vehicles, bool) or not 1 <= vehicles <= MAX_APPLY_VEHICLES:
        raise BadRequest(f"车辆数不合法 (field 'vehicles' must be an integer from 1 to {MAX_APPLY_VEHICLES})",
                         data={"field": "vehicles"})
    code = machine_code(conn)
    with conn.transaction():
        queries.lock_address(conn, address)
        if queries.applications_since(conn, address, 3600) >= per_hour:
            raise TooManyApplications(data={"perHour": per_hour})
        record_id = queries.insert_application(conn, **values, vehicles=vehicles, machine_code=code, address=address)
    return {"id": record_id, "machineCode": code, "createTime": datetime.now().astimezone()}
