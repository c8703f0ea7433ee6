"""Settings routes (platform-spec §2) beyond the generic ones: dictionary look-up, the system monitor, the
licence (detail, install, the sign-in-free application), the database's health (root enterprise
only) and the version log."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Blueprint, current_app, request

from api import dictionary_rules, licence, monitor, platform_info, platform_params
from api.db import get_db
from api.dictionary_names import localise_entry
from api.errors import BadRequest, Conflict, Forbidden, NotFound, request_language
from api.http import json_body, ok
from api.query.entities_settings import DICTIONARY_TYPES, LICENCE_APPLY, is_root_path
from api.query.runner import fetch_by_id
from api.security import authenticated, current_principal, report_scope, request_scope, requires
from api.throttle import address_key
from fleet.grade_bands import DEFAULT_BANDS, ancestors_of, bands_in_effect, own_bands, parse_bands
from fleet.settings import ApiSettings, DatabaseSettings
from warehouse.queries import dictionary, records
from warehouse.queries import notices as notice_queries
from warehouse.queries import platform_params as param_queries

bp = Blueprint("settings", __name__)

OPINION_MAX = 250  # a licence application's decision, as an alarm's handling opinion


def _settings() -> ApiSettings:
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    return settings


_TYPE_TEXTS = {str(t): t for t in DICTIONARY_TYPES}


def _lookup_type(value: Any) -> int:
    if isinstance(value, str):
        value = _TYPE_TEXTS.get(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or value not in DICTIONARY_TYPES:
        raise BadRequest(f"字典类型不合法 (type.eq must be one of {', '.join(map(str, DICTIONARY_TYPES))})",
                         data={"field": "type"})
    return int(value)


def _lookup_code(value: Any) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        raise BadRequest("字典编码不合法 (code.eq must be a text of 1 to 64 characters)", data={"field": "code"})
    return value


def parse_lookup(body: Any) -> tuple[int, str | None]:
    """(type, code or None) of a dictionary look-up body ``{"type.eq": 98, "code.eq": "..."}`` (bare
    ``type`` / ``code`` mean ``eq``, as in the generic query; every value sent is checked, ``.eq``
    wins); BadRequest naming the problem."""
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (request body must be a JSON object with type.eq and code.eq)")
    unknown = sorted(set(body) - {"type.eq", "type", "code.eq", "code"})
    if unknown:
        raise BadRequest(f"未知条件 (unknown condition(s): {', '.join(unknown)[:200]}; known: type.eq, code.eq)")
    types = [_lookup_type(body[key]) for key in ("type.eq", "type") if key in body]
    codes = [_lookup_code(body[key]) for key in ("code.eq", "code") if key in body]
    if not types:
        raise BadRequest("字典类型不能为空 (type.eq is required)", data={"field": "type"})
    return types[0], (codes[0] if codes else None)


@bp.post("/api/system/dictionary/dictionary.json")
@authenticated
def dictionary_lookup() -> dict[str, Any]:
    """The entries the caller's enterprise reads for type (and code): its own first, then the
    system-wide ones (platform-spec §7: the console reads the first one's content). Names, and the
    names inside a content list, in the caller's language (``api/dictionary_names.py``). Types 51 and 52
    (the notification rules, platform-spec §9) are read from the rules themselves (``api/dictionary_rules.py``)."""
    type_id, code = parse_lookup(json_body())
    language = request_language()
    enterprise_id = current_principal().enterprise_id
    with get_db().connection() as conn:
        if type_id in dictionary_rules.RULE_TYPES:
            return ok(dictionary_rules.lookup(conn, enterprise_id, type_id, code, language))
        rows = dictionary.lookup(conn, enterprise_id, type_id, code)
    return ok([localise_entry(row, language) for row in rows])


@bp.get("/api/system/monitor.json")
@requires("system", "query")
def system_monitor() -> dict[str, Any]:
    """Gateway sessions, Kafka lag per consumer group, database size, worker throughput; a section
    that cannot be read says so (``available`` false with the error). Platform-wide figures: only an
    administrator of a root enterprise reads them; anyone else gets every section closed."""
    if not is_root_path(current_principal().enterprise_path):
        return ok(monitor.restricted_snapshot())
    bootstrap = current_app.config.get("FLEET_KAFKA_BOOTSTRAP")
    if not bootstrap:
        from fleet.settings import kafka_bootstrap

        bootstrap = kafka_bootstrap()
    return ok(monitor.snapshot(get_db().connection, bootstrap, _settings().monitor_kafka_timeout_s))


@bp.get("/api/license/detail.json")
@requires("license", "get")
def licence_detail() -> dict[str, Any]:
    with get_db().connection() as conn:
        path = current_principal().enterprise_path
        warning_days = platform_params.effective(conn, _settings()).licence_warning_days  # run-time parameter
        return ok(licence.status(conn, date.today(), None if is_root_path(path) else path, warning_days))


@bp.post("/api/license/install.json")
@requires("license", "add")
def licence_install() -> dict[str, Any]:
    """Body ``{licence: "<signed text>"}``: verified against the vendor's public key and installed."""
    body = json_body()
    if not isinstance(body, dict) or set(body) - {"licence"}:
        raise BadRequest("请求体必须是 {licence} (request body must be a JSON object with only 'licence')")
    text = body.get("licence")
    with get_db().connection() as conn:
        warning_days = platform_params.effective(conn, _settings()).licence_warning_days  # run-time parameter
        return ok(licence.install(conn, current_principal(), text, _settings().license_public_key_file, date.today(),
                                  warning_days))


@bp.get("/api/license/machineCode.json")
def licence_machine_code() -> dict[str, Any]:
    """No sign-in: the application page shows this installation's machine code."""
    with get_db().connection() as conn:
        return ok({"machineCode": licence.machine_code(conn)})


@bp.post("/api/license/apply.json")
def licence_apply() -> dict[str, Any]:
    """No sign-in: a licence application (company, contact, phone, email, vehicles)."""
    body = json_body()
    with get_db().connection() as conn:
        return ok(licence.apply(conn, body, address_key(request.remote_addr or ""), _settings().license_apply_per_hour))


@bp.post("/api/license/apply/<int:application_id>/approve.json")
@requires("license", "update")
def licence_apply_decide(application_id: int) -> dict[str, Any]:
    """Body ``{state: 1 approve | 2 reject, opinion?}`` (opinion <= 250): decides a pending application (the
    licenseApply screen); the decided application. 404 for one outside the caller's scope (applications belong
    to the root enterprises) like a missing one; 409 for one decided before."""
    scope = request_scope()
    with get_db().connection() as conn:
        if fetch_by_id(conn, LICENCE_APPLY, application_id, scope) is None:
            raise NotFound(f"许可证申请 {application_id} 不存在 (licence application {application_id} not found)")
    body = json_body()
    if not isinstance(body, dict) or set(body) - {"state", "opinion"}:
        raise BadRequest("请求体必须是 {state, opinion} (request body must be a JSON object with 'state' and an "
                         "optional 'opinion')")
    state, opinion = body.get("state"), body.get("opinion")
    if state not in (1, 2) or isinstance(state, bool):
        raise BadRequest("state 只能是 1 (批准) 或 2 (驳回) (field 'state' must be 1 approve or 2 reject)",
                         data={"field": "state"})
    if opinion is not None and (not isinstance(opinion, str) or len(opinion) > OPINION_MAX):
        raise BadRequest(f"审批意见最多 {OPINION_MAX} 字 (field 'opinion' must be a text of at most {OPINION_MAX} "
                         "characters)", data={"field": "opinion"})
    who = current_principal()
    with get_db().connection() as conn:
        with conn.transaction():
            decided = notice_queries.decide_application(conn, application_id, state, who.user_name, opinion or None)
            if decided is None:
                raise Conflict(f"许可证申请 {application_id} 已审批 (licence application {application_id} was decided "
                               "before)")
            records.audit(conn, user_id=who.user_id, user_name=who.user_name, enterprise_id=who.enterprise_id,
                          entity=LICENCE_APPLY.name, record_id=application_id, action="update",
                          changes={"state": {"before": 0, "after": state}})
        return ok(fetch_by_id(conn, LICENCE_APPLY, application_id, scope))


@bp.get("/api/drivingGradeRule/bands.json")
@requires("drivingGradeRule", "query")
def grade_bands() -> dict[str, Any]:
    """The driving-behaviour grade bands in effect for ``enterpriseId`` (the caller's enterprise when absent;
    outside the caller's tree a 404), fleet/grade_bands.py: ``grades`` [{grade, minScore}] highest first;
    ``source`` own (the enterprise's type-50 entry, ``entryId``), inherited (an ancestor's,
    ``sourceEnterpriseId``), system (the type-98 entry) or default. An enterprise's own bands are written as a
    dictionary entry (type 50, code driving_behavior_grade) through the dictionary routes."""
    scope = report_scope()
    with get_db().connection() as conn:
        system, own = dictionary.grade_bands(conn, ancestors_of(scope.enterprise_path))
    system_bands = parse_bands(system)
    bands, source_id = bands_in_effect(scope.enterprise_path, own_bands(own), system_bands or DEFAULT_BANDS)
    source = ("default" if system_bands is None else "system") if source_id is None \
        else "own" if source_id == scope.enterprise_id else "inherited"
    return ok({"enterpriseId": scope.enterprise_id, "grades": [{"grade": g, "minScore": m} for g, m in bands],
               "source": source, "sourceEnterpriseId": source_id,
               "entryId": own[source_id][0] if source == "own" and source_id is not None else None})


@bp.get("/api/system/param.json")
@requires("system", "query")
def param_list() -> dict[str, Any]:
    """The platform parameters that take effect at run time (api/platform_params.py), each with its current
    value, its default (the configured value), type, unit, range or options, and who set it when."""
    with get_db().connection() as conn:
        return ok(platform_params.listing(conn, _settings()))


@bp.post("/api/system/param.json")
@requires("system", "update")
def param_update() -> dict[str, Any]:
    """Body ``{name, value}``: sets a platform parameter (``value`` null: back to its default), effective from the
    next request in every process; audited (entity ``platformParam``, the parameter's id). Platform-wide, so only
    an administrator of a root enterprise (403 otherwise); 400 naming the parameter for an unknown name, a wrong
    type or a value out of range. The parameter's row as ``GET`` lists it."""
    if not is_root_path(current_principal().enterprise_path):
        raise Forbidden("只有根企业管理员可以修改平台参数 "
                        "(only an administrator of the root enterprise may change platform parameters)")
    body = json_body()
    if not isinstance(body, dict) or set(body) != {"name", "value"}:
        raise BadRequest("请求体必须是 {name, value} (request body must be a JSON object with 'name' and 'value')")
    param = platform_params.BY_NAME.get(body["name"]) if isinstance(body["name"], str) else None
    if param is None:
        raise BadRequest(f"未知参数 (unknown parameter; known: {', '.join(platform_params.NAMES)})",
                         data={"field": "name"})
    value = None if body["value"] is None else platform_params.validate(param, body["value"])
    who = current_principal()
    with get_db().connection() as conn:
        with conn.transaction():
            param_queries.lock(conn, param.name)
            before = getattr(platform_params.effective(conn, _settings()), param.key)
            if value is None:
                param_queries.clear(conn, param.name)
            else:
                param_queries.set_value(conn, param.name, value, who.user_name)
            after = getattr(platform_params.effective(conn, _settings()), param.key)
            records.audit(conn, user_id=who.user_id, user_name=who.user_name, enterprise_id=who.enterprise_id,
                          entity="platformParam", record_id=param.record_id, action="update",
                          changes={param.name: {"before": before, "after": after}})
        rows = platform_params.listing(conn, _settings())
    return ok(next(row for row in rows if row["name"] == param.name))


def _root_only() -> None:
    if not is_root_path(current_principal().enterprise_path):
        raise Forbidden("只有根企业管理员可以查看数据库 "
                        "(only an administrator of the root enterprise may see and change the database)")


def _retention_days() -> int:
    db_settings: DatabaseSettings = current_app.config.get("FLEET_DATABASE_SETTINGS") or DatabaseSettings()
    return db_settings.gps_retention_days


@bp.get("/api/system/db.json")
@requires("db", "query")
def database_report() -> dict[str, Any]:
    """Version, partitioning, size, connections, biggest tables, gps partitions and the retention."""
    _root_only()
    with get_db().connection() as conn:
        return ok(platform_info.database_report(conn, _retention_days(), platform_info.utc_today()))


@bp.post("/api/system/db/partitions.json")
@requires("db", "add")
def database_create_partitions() -> dict[str, Any]:
    """Creates today's and tomorrow's gps partitions now (normally the streams worker does, ahead of
    midnight): ``{created: [names]}``, empty when they exist or gps is a hypertable."""
    _root_only()
    with get_db().connection() as conn:
        return ok({"created": platform_info.create_partitions_now(conn, platform_info.utc_today())})


@bp.get("/api/system/version.json")
@requires("sourceCodeLog", "query")
def version_log() -> dict[str, Any]:
    """The running version and commit, the migrations applied, the release notes."""
    with get_db().connection() as conn:
        return ok(platform_info.version_log(conn, _settings().build_commit))
