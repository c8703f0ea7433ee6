"""``create_app``: the Flask application factory. Nothing is read from the environment at import."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import psycopg
from flask import Flask, Response, jsonify, request
from psycopg_pool import PoolTimeout
from werkzeug.exceptions import HTTPException

from api import auth, security, services, static
from api.addresses import TrustedProxyMiddleware, parse_networks
from api.body_deadline import BodyTimeout
from api.db import EXTENSION_KEY as DB_KEY
from api.db import Database
from api.errors import STATUS_TEXTS, ApiError, chinese_text, envelope
from api.http import FleetJSONProvider, reject_unstorable_text
from api.media import MEDIA_KEY, MediaClient
from api.push import register_push
from api.routes import (
    alarm_notify,
    analysis,
    car_detail,
    common,
    console,
    devices,
    driver_detail,
    exchange,
    fences,
    figures,
    fleet,
    live_log,
    meta,
    oauth,
    org,
    regeo,
    spreadsheets,
    tracks,
    vehicles,
)
from api.routes import alarms as alarm_routes
from api.routes import commands as command_routes
from api.routes import fence_sync as fence_sync_routes
from api.routes import media as media_routes
from api.routes import open_platform as open_platform_routes
from api.routes import reports as report_routes
from api.routes import settings as settings_routes
from api.routes import video as video_routes
from api.tokens import TokenService
from fleet.settings import (
    ApiSettings,
    DatabaseSettings,
    MediaServerSettings,
    ReportSettings,
    StackSettings,
    database_url,
)

log = logging.getLogger("fleet.api")


def create_app(
    settings: ApiSettings | None = None,
    db_url: str | None = None,
    *,
    var_dir: Path | None = None,
) -> Flask:
    """Builds the app: settings (environment when None), pool on ``db_url`` (the configured
    database when None), token secret from settings or ``var_dir`` (the stack's var/ when None).

    Raises OSError when the token secret file cannot be created or read.
    """
    settings = settings or ApiSettings()
    db_settings = DatabaseSettings()
    app = Flask("api", static_folder=None)
    app.json = FleetJSONProvider(app)
    app.config["FLEET_API_SETTINGS"] = settings
    app.config["FLEET_DATABASE_SETTINGS"] = db_settings
    app.config[services.REPORT_SETTINGS_KEY] = ReportSettings()  # the odometer rule of today's mileage

    codec = auth.TokenCodec(auth.token_secret(settings, var_dir), settings.access_token_ttl_s)
    db = Database(db_url or database_url(db_settings), max_size=db_settings.pool_max)
    db.open()
    app.extensions[auth.EXTENSION_KEY] = codec
    app.extensions[DB_KEY] = db
    app.extensions[services.SERVICE_KEY] = TokenService(db, codec, settings)
    # the media server's client: its secret from FLEET_MEDIA_SERVER_SECRET or var_dir, shared with it
    app.extensions[MEDIA_KEY] = MediaClient.from_settings(MediaServerSettings(), var_dir or StackSettings().var_dir)

    for module in (meta, oauth, common, spreadsheets, vehicles, devices, fleet, figures, console, org, settings_routes, regeo, fences, exchange, car_detail, driver_detail,
                   live_log,
                   open_platform_routes, tracks, command_routes, video_routes, media_routes, alarm_routes, alarm_notify,
                   report_routes, analysis, fence_sync_routes, static):
        app.register_blueprint(module.bp)
    # First of all: NUL bytes and invalid UTF-8 never reach a route (nor PostgreSQL).
    app.before_request_funcs.setdefault(None, []).insert(0, reject_unstorable_text)
    # Before that: an oversized body is refused unread (413); security headers on every reply.
    security.register_security(app, settings)
    _register_error_handlers(app)
    # STOMP push at /wss/stomp; its Kafka consumer starts on the first subscription, never here.
    register_push(app, None)
    # request.remote_addr is the client behind a trusted proxy, never a forged forwarded address.
    app.wsgi_app = TrustedProxyMiddleware(  # type: ignore[method-assign]
        app.wsgi_app, parse_networks(settings.trusted_proxies), settings.forwarded_header)
    return app


def _reply(status: int, code: int, message: str, data: Any = None) -> tuple[Response, int]:
    return jsonify(envelope(data, code=code, message=message)), status


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> tuple[Response, int]:
        return _reply(exc.http_status, exc.code, exc.message, exc.data)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Response, int]:
        status = exc.code or 500
        if status == 404:
            message = f"接口不存在 (no such endpoint: {request.method} {request.path})"
        elif status == 405:
            message = f"不支持该请求方法 (method {request.method} not allowed on {request.path})"
        else:  # werkzeug's English: the catalogue's Chinese for the status, else a generic one
            detail = exc.description or exc.name
            chinese = chinese_text(STATUS_TEXTS.get(status, "请求失败 (request failed)"))
            message = f"{chinese} ({detail})"
        response, status = _reply(status, status, message)
        allow = dict(exc.get_headers()).get("Allow")
        if allow:  # 405: RFC 9110 wants the methods the resource does support
            response.headers["Allow"] = allow
        return response, status

    @app.errorhandler(BodyTimeout)
    def body_too_slow(exc: BodyTimeout) -> tuple[Response, int]:
        log.warning("request body too slow from %s on %s %s: %s", request.remote_addr, request.method,
                    request.path, exc)
        # the worker closes the connection after this reply (the rest of the body is never read)
        return _reply(408, 408, f"请求体发送超时 ({exc})", {"timeoutS": exc.timeout_s, "minBytesPerS": exc.min_rate})

    @app.errorhandler(PoolTimeout)
    @app.errorhandler(psycopg.OperationalError)
    def database_down(exc: Exception) -> tuple[Response, int]:
        log.warning("database unavailable on %s %s: %s", request.method, request.path, exc)
        return _reply(503, 503, "数据库不可用，请稍后再试 (database unavailable, try again later)")

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> tuple[Response, int]:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return _reply(500, 500, "服务器内部错误 (internal server error)")
