"""Fast position reads: bulk last positions (contract A), a car's track with server-side
thinning and its stops (contract B), and the track's exports (CSV, GPX, KML).

The rows' JSON is built by PostgreSQL (warehouse.queries.positions) and passed through as text: no
per-row Python work in a reply. Stops come from fleet.stops, thinning from fleet.thinning. A point's
alarm fields and the car's alarm rows of the range (``alarms``, markers) come from
warehouse.queries.track_alarms, named in the caller's language (api.errors.request_language).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from flask import Blueprint, Response, current_app, request, stream_with_context

from api.db import get_db
from api.errors import BadRequest, NotFound, request_language
from api.http import json_body
from api.query.grammar import check_history_range
from api.query.values import INT_TEXT, NAIVE_TIME_ZONE, coerce
from api.security import request_scope, requires
from fleet.settings import ApiSettings, TrackDaySettings
from fleet.stops import Stop, StopThresholds, detect_stops
from fleet.thinning import thin_track
from warehouse import track_days
from warehouse.queries import positions, track_alarms
from warehouse.queries.positions import LAST_FIELDS, TRACK_FIELDS, TrackCar
from warehouse.queries.track_alarms import POINT_FIELDS

bp = Blueprint("tracks", __name__)

MAX_CAR_IDS = 10_000
DEFAULT_MAX_POINTS = 2000
MAX_MAX_POINTS = 1_000_000
TRACK_YEARS = (2000, 2099)
_THRESHOLDS_KEY = "fleet_stop_thresholds"
_RESOLUTION_KEY = "fleet_track_day_resolution_s"
_LAST_FIELDS_JSON = json.dumps(list(LAST_FIELDS))


def _settings() -> ApiSettings:
    settings: ApiSettings = current_app.config["FLEET_API_SETTINGS"]
    return settings


def _thresholds() -> StopThresholds:
    """Read from the environment once per app (StopSettings), then kept."""
    found = current_app.extensions.get(_THRESHOLDS_KEY)
    if found is None:
        found = current_app.extensions[_THRESHOLDS_KEY] = StopThresholds.from_settings()
    return found


def _raw_json(data_json: str) -> Response:
    """The success envelope around JSON text made elsewhere (PostgreSQL), without parsing it again."""
    return current_app.response_class('{"code":0,"message":"ok","data":' + data_json + "}",
                                      mimetype="application/json")


def _car_ids(body: Any) -> list[int] | None:
    if body is None:
        return None
    if not isinstance(body, dict):
        raise BadRequest("请求体必须是 JSON 对象 (request body must be a JSON object)")
    unknown = sorted(set(body) - {"carIds"})
    if unknown:
        raise BadRequest(f"参数不合法 (unknown field(s) in the body: {', '.join(map(repr, unknown))[:200]})")
    if "carIds" not in body:
        return None
    ids = body["carIds"]
    if not isinstance(ids, list) or len(ids) > MAX_CAR_IDS:
        raise BadRequest(f"参数不合法 (carIds must be a list of at most {MAX_CAR_IDS} vehicle ids)")
    out = []
    for value in ids:
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON has one number type: 2435.0 is the integer 2435 (JSON Schema says so too)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**63:
            raise BadRequest(f"参数不合法 (carIds must hold positive integer ids, got {str(value)[:40]!r})")
        out.append(value)
    return out


@bp.post("/api/gps/last.json")
@requires("gps", "get")
def last_positions() -> Response:
    """Contract A: the last position of every vehicle in scope (its subsidiaries' too unless ``isParent=false``),
    or of the ``carIds`` among them; ``online`` from the device's state, never from a position."""
    car_ids = _car_ids(json_body())
    scope = request_scope()
    with get_db().connection() as conn:
        rows = positions.last_positions_json(conn, scope, car_ids)
    return _raw_json(f'{{"fields":{_LAST_FIELDS_JSON},"rows":{rows},"serverTime":{int(time.time() * 1000)}}}')


def _car(car_id: int) -> TrackCar:
    with get_db().connection() as conn:
        car = positions.track_car(conn, request_scope(), car_id)
    if car is None:
        raise NotFound(f"car {car_id} 不存在 (does not exist)")
    return car


def _time_arg(name: str) -> datetime:
    raw = request.args.get(name)
    if raw is None or raw.strip() == "":
        raise BadRequest(f"参数不合法 (query parameter '{name}' is required: ISO 8601 or epoch milliseconds)")
    value: Any = int(raw) if INT_TEXT.fullmatch(raw) else raw
    try:
        parsed: datetime = coerce(name, "time", value)
    except BadRequest:
        raise BadRequest(f"参数不合法 (query parameter '{name}' must be ISO 8601 or epoch milliseconds, got {raw[:40]!r})") from None
    # Terminal times are BCD with a two-digit year (JT/T 808 §4.5): no point lies outside 2000-2099, and
    # days at the calendar's edge (year 9999) overflow the day arithmetic of the summaries.
    if not TRACK_YEARS[0] <= parsed.astimezone(UTC).year <= TRACK_YEARS[1]:
        raise BadRequest(f"参数不合法 (query parameter '{name}' must lie in the years {TRACK_YEARS[0]}-{TRACK_YEARS[1]}, "
                         f"the range of terminal times; got {raw[:40]!r})")
    return parsed


def _time_range() -> tuple[datetime, datetime]:
    """[start, end) from the query; 400 when missing, reversed or longer than history_max_days."""
    start, end = _time_arg("start"), _time_arg("end")
    if end <= start:
        raise BadRequest("参数不合法 (end must be after start)")
    check_history_range(start, end, _settings().history_max_days)
    return start, end


def _max_points() -> int:
    raw = request.args.get("maxPoints")
    if raw is None:
        return DEFAULT_MAX_POINTS
    if not raw.isascii() or not raw.isdigit() or len(raw) > 7 or int(raw) == 1 or int(raw) > MAX_MAX_POINTS:
        raise BadRequest(f"参数不合法 (query parameter 'maxPoints' must be 0 (every point) or 2 to {MAX_MAX_POINTS}, got {raw[:40]!r})")
    return int(raw)


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


@bp.get("/api/gps/car/<int:car_id>/track.json")
@requires("gps", "get")
def track(car_id: int) -> Response:
    """Contract B: the car's master device's points of [start, end) in time order, thinned to about
    ``maxPoints`` (0: every point) keeping every alarm point and the first and last point of every
    stop, with its parks and idles, and the alarm rows that start in the range (``alarms``). Fixes flagged
    implausible (gps.quality) are left out of every part; ``flagged`` says how many the range holds."""
    car = _car(car_id)
    start, end = _time_range()
    max_points = _max_points()
    lang = request_language()
    head: dict[str, Any] = {"carId": car.car_id, "deviceId": car.device_id, "plateNumber": car.plate_number,
                            "start": _ms(start), "end": _ms(end), "total": 0, "returned": 0, "thinned": False,
                            "fields": list(TRACK_FIELDS), "stops": [], "alarmsTruncated": False, "flagged": 0}
    rows, alarms = "[]", "[]"
    if car.device_id is not None:
        thresholds = _thresholds()
        with get_db().connection() as conn:
            found = track_alarms.track_alarms(conn, car.car_id, car.device_id, start, end, lang)
            alarms, head["alarmsTruncated"] = found.json, found.truncated
            head["flagged"] = positions.flagged_count(conn, car.device_id, start, end)
            if max_points and _coarse(start, end, max_points):
                summarised = _summarised(conn, car.device_id, start, end, max_points, thresholds, head, lang)
                if summarised is not None:
                    return _reply(head, alarms, summarised)
            points = positions.track_points(conn, car.device_id, start, end, thresholds.park_speed_kmh)
            stops = detect_stops(points.times_ms, points.speeds, points.acc, points.lngs, points.lats,
                                 thresholds=thresholds)
            head["total"], head["stops"] = points.total, [stop.to_json() for stop in stops]
            if max_points == 0 or points.total <= max_points:
                rows = positions.track_rows_json(conn, car.device_id, start, end, lang=lang)
                head["returned"] = points.total
            else:
                kept = thin_track(points.times_ms, points.lngs, points.lats, max_points, _forced(points, stops))
                rows = positions.track_rows_json(conn, car.device_id, start, end, [points.times_ms[i] for i in kept], lang)
                head["returned"], head["thinned"] = len(kept), True
    return _reply(head, alarms, rows)


def _reply(head: dict[str, Any], alarms_json: str, rows_json: str) -> Response:
    return _raw_json(json.dumps(head, ensure_ascii=False)[:-1] + ',"alarms":' + alarms_json + ',"rows":' + rows_json + "}")


def _coarse(start: datetime, end: datetime, max_points: int) -> bool:
    """Whether thinning to ``max_points`` over [start, end) keeps fewer points than the day summaries
    hold (buckets at least ``resolution_s`` wide): then the summaries serve the read."""
    buckets = max(1, (max_points - 2) // 2)
    return (_ms(end) - _ms(start)) / buckets >= _track_day_resolution_s() * 1000


def _track_day_resolution_s() -> int:
    found = current_app.extensions.get(_RESOLUTION_KEY)
    if found is None:
        found = current_app.extensions[_RESOLUTION_KEY] = TrackDaySettings().resolution_s
    return int(found)


_NO_ALARM = (None,) * len(POINT_FIELDS)


def _summarised(conn: Any, device_id: int, start: datetime, end: datetime, max_points: int,
                thresholds: StopThresholds, head: dict[str, Any], lang: str) -> str | None:
    """Rows JSON of a thinned read served by the day summaries (warehouse.track_days; stops exactly as
    over every fix), filling ``head``; None when the range has no more than ``max_points`` fixes (the
    caller answers every one). The chosen alarm points' alarm fields come from PostgreSQL in one
    statement (track_alarms.fields_of_kept), the same SQL as a read of gps."""
    positions.without_jit(conn)
    found = track_days.track_columns(conn, device_id, start, end, thresholds=thresholds,
                                     resolution_s=_track_day_resolution_s())
    if found.total <= max_points:
        return None
    kept = found.kept
    stops = detect_stops(kept.times, kept.speeds, kept.acc, kept.lngs, kept.lats, thresholds=thresholds)
    bounds = {stop.start_ms for stop in stops} | {stop.end_ms for stop in stops}
    alarm_points = kept.alarm_points
    forced = {i for i, (t, alarm) in enumerate(zip(kept.times, alarm_points, strict=True)) if alarm or t in bounds}
    chosen = thin_track(kept.times, kept.lngs, kept.lats, max_points, forced)
    head["total"], head["stops"] = found.total, [stop.to_json() for stop in stops]
    head["returned"], head["thinned"] = len(chosen), True
    alarming = [i for i in chosen if alarm_points[i]]
    fields = track_alarms.fields_of_kept(conn, lang, [kept.alarms[i] for i in alarming], [kept.items[i] for i in alarming])
    return kept.rows_json(chosen, dict(zip(alarming, fields, strict=True)), _NO_ALARM)


def _forced(points: positions.TrackPoints, stops: list[Stop]) -> set[int]:
    """Indices thinning must keep: every alarm point (bits, active-safety or video alarm), the first and
    last point of every stop."""
    bounds = {stop.start_ms for stop in stops} | {stop.end_ms for stop in stops}
    return {i for i, (t, alarm) in enumerate(zip(points.times_ms, points.alarm, strict=True)) if alarm or t in bounds}


# --- exports: every point, streamed ------------------------------------------------------------------

EXPORT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "gpx": "application/gpx+xml; charset=utf-8",
    "kml": "application/vnd.google-earth.kml+xml; charset=utf-8",
}
CSV_HEADER = "time,lng,lat,speed,direction,altitude,mileage,oilmass,acc,alarmType,status,alarmInfo\r\n"


def _num(value: Any) -> str:
    return "" if value is None else str(value)


def _csv_text(value: str | None) -> str:
    """A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break."""
    if value is None:
        return ""
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\r\n') else value


def _csv(car: TrackCar, rows: Iterator[tuple[Any, ...]]) -> Iterator[str]:
    yield "\ufeff" + CSV_HEADER  # the BOM makes Excel read the UTF-8 text right
    for at, lng, lat, speed, direction, altitude, mileage, fuel, alarm, status, info in rows:
        local = at.astimezone(NAIVE_TIME_ZONE).isoformat()
        yield (f"{local},{lng},{lat},{_num(speed)},{_num(direction)},{_num(altitude)},{_num(mileage)},{_num(fuel)},"
               f"{status & 1},{alarm},{status},{_csv_text(info)}\r\n")


def _utc(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _gpx(car: TrackCar, rows: Iterator[tuple[Any, ...]]) -> Iterator[str]:
    """One trkpt per point; an alarm point's alarm text is its desc."""
    name = escape(car.plate_number)
    yield ('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="fleetwatch"'
           ' xmlns="http://www.topografix.com/GPX/1/1">\n'
           f"<metadata><name>{name}</name></metadata>\n<trk><name>{name}</name><trkseg>\n")
    for at, lng, lat, _speed, _direction, altitude, *_, info in rows:
        ele = "" if altitude is None else f"<ele>{altitude}</ele>"
        desc = "" if info is None else f"<desc>{escape(info)}</desc>"
        yield f'<trkpt lat="{lat}" lon="{lng}">{ele}<time>{_utc(at)}</time>{desc}</trkpt>\n'
    yield "</trkseg></trk>\n</gpx>\n"


def _kml(car: TrackCar, rows: Iterator[tuple[Any, ...]]) -> Iterator[str]:
    """The gx:Track of every point, then a Placemark (name: the alarm text) where an alarm text starts
    or changes: kept while streaming, as KML puts them outside the track."""
    name = escape(car.plate_number)
    yield ('<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2"'
           ' xmlns:gx="http://www.google.com/kml/ext/2.2">\n'
           f"<Document><name>{name}</name><Placemark><name>{name}</name><gx:Track>\n")
    alarms: list[str] = []
    previous = None
    for at, lng, lat, _speed, _direction, altitude, *_, info in rows:
        alt = 0 if altitude is None else altitude
        yield f"<when>{_utc(at)}</when><gx:coord>{lng} {lat} {alt}</gx:coord>\n"
        if info is not None and info != previous:
            alarms.append(f"<Placemark><name>{escape(info)}</name><TimeStamp><when>{_utc(at)}</when></TimeStamp>"
                          f"<Point><coordinates>{lng},{lat},{alt}</coordinates></Point></Placemark>\n")
        previous = info
    yield "</gx:Track></Placemark>\n"
    yield from alarms
    yield "</Document>\n</kml>\n"


_WRITERS = {"csv": _csv, "gpx": _gpx, "kml": _kml}


def _export_view(fmt: str) -> Any:
    def view(car_id: int) -> Response:
        car = _car(car_id)
        start, end = _time_range()
        device_id = car.device_id

        lang = request_language()

        def body() -> Iterator[str]:
            if device_id is None:
                yield from _WRITERS[fmt](car, iter(()))
                return
            with get_db().connection() as conn:
                cursor = positions.track_rows(conn, device_id, start, end, lang)
                try:
                    yield from _WRITERS[fmt](car, iter(cursor))
                finally:
                    cursor.close()

        filename = f"track-{car.car_id}-{start.astimezone(NAIVE_TIME_ZONE):%Y%m%d%H%M}.{fmt}"
        return Response(stream_with_context(body()), content_type=EXPORT_TYPES[fmt],
                        headers={"Content-Disposition": f"attachment; filename={quoteattr(filename)}"})

    view.__name__ = f"track_export_{fmt}"
    view.__doc__ = f"Every point of [start, end) of the car's master device as {fmt.upper()} (an attachment)."
    return requires("gps", "get")(view)


for _fmt in EXPORT_TYPES:
    bp.add_url_rule(f"/api/gps/car/<int:car_id>/track.{_fmt}", view_func=_export_view(_fmt), methods=["GET"])


def semantic_paths() -> list[str]:
    """Documented paths where a schema-valid request may still be a 400: a range reversed or longer than
    history_max_days, maxPoints 1 (rules no OpenAPI schema can state; the contract fuzzer knows them)."""
    return [f"/api/gps/car/{{id}}/track.{ext}" for ext in ("json", *EXPORT_TYPES)]
