"""Reverse geocoding: a terminal's WGS-84 point -> province / city / district of China.

Offline first: the district polygons of the ``geotool-cn`` package (pinned in pyproject.toml), already
converted by the package from the source's GCJ-02 to WGS-84, which is what JT/T 808 terminals report,
so no conversion happens here. The package ships the polygons with a precomputed grid index (about
three quarters of the points resolve from the grid alone, the rest by a ray test on about two
polygons); it is memory-mapped once per process. Licence: the package's code is MIT; its boundary
data comes from DataV.GeoAtlas (Amap) "for learning and exchange only" (the package's NOTICE): an
operator who needs more should configure the online provider or licensed data.

An online provider (``GeoSettings.provider`` with its key) refines the answer to street level; it is
asked only for points the offline data places inside China, and any failure falls back to the
offline answer. Answers are kept in an LRU cache keyed by the point rounded to
``GeoSettings.cache_decimals``.

Outside China (or at sea) the answer is the empty ``Address`` (every field ""), never an error;
coordinates that are not numbers in range raise ``InvalidCoordinates``.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
import threading
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from GeoToolCN import GeoTool, get_administrative_tree, wgs84_to_gcj02

from fleet.settings import GeoSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Address:
    """What the API's geocode route answers; every field "" when the point is outside China."""

    address: str
    province: str
    city: str
    district: str
    adcode: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


NO_ADDRESS = Address("", "", "", "", "")


class InvalidCoordinates(ValueError):
    """lng/lat not finite numbers within [-180, 180] / [-90, 90]; ``field`` names which."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def check_coordinates(lng: float, lat: float) -> None:
    if not (math.isfinite(lng) and -180.0 <= lng <= 180.0):
        raise InvalidCoordinates("lng", f"经度必须在 -180 到 180 之间 (lng must be between -180 and 180: {lng!r})")
    if not (math.isfinite(lat) and -90.0 <= lat <= 90.0):
        raise InvalidCoordinates("lat", f"纬度必须在 -90 到 90 之间 (lat must be between -90 and 90: {lat!r})")


def join_address(province: str, city: str, district: str) -> str:
    """北京市 + 北京市 + 东城区 -> 北京市东城区 (municipalities and SARs repeat the province as city)."""
    parts: list[str] = []
    for part in (province, city, district):
        if part and part not in parts:
            parts.append(part)
    return "".join(parts)


class OfflineGeocoder:
    """District polygons of geotool-cn (WGS-84) behind its grid index; built once per process."""

    def __init__(self, data_path: str | None = None) -> None:
        self._tool = GeoTool(data_path)
        # One Address per area (about 3,300), shared by every point in it: a cache entry costs a key.
        self._areas: dict[str, Address] = {}

    def reverse(self, lng: float, lat: float) -> Address:
        found = self._tool.reverse(lat, lng)
        if found.province is None:
            return NO_ADDRESS
        best = found.district or found.city or found.province
        known = self._areas.get(best.code)
        if known is not None:
            return known
        province = found.province.name
        city = found.city.name if found.city else ""
        district = found.district.name if found.district else ""
        area = Address(join_address(province, city, district), province, city, district, best.code)
        self._areas[best.code] = area
        return area


    def district(self, adcode: str) -> District | None:
        """The province, city or district of ``adcode`` with its outline; None for an unknown code."""
        region = self._tool.get_region(adcode) if _ADCODE.fullmatch(adcode or "") else None
        if region is None:
            return None
        data = self._tool._data  # the package offers regions' outlines only through its data (the .gtc)
        index = data.index_of(region.code, region.level)
        decoded = data.geometry(index) if index is not None else None
        if decoded is None and region.level == "city":
            # A city without districts (Dongguan 441900, Zhongshan, Hainan's and Xinjiang's directly governed
            # cities) has its outline at the district level under its own code.
            index = data.index_of(region.code, "district")
            decoded = data.geometry(index) if index is not None else None
        if decoded is None:
            return None
        scale = data.scale
        parts = tuple(
            tuple(tuple(zip([x / scale for x in xs], [y / scale for y in ys], strict=True)) for xs, ys in rings)
            for rings in decoded[1]
        )
        return District(region.code, region.name, region.level, region.longitude, region.latitude, parts)


    def has_outline(self, adcode: str) -> bool:
        """Whether ``district(adcode)`` has an outline, without decoding it: the data carries the outlines of
        provinces and districts only (no city layer), a city without districts under its own code at the
        district level."""
        data = self._tool._data
        return any(data.index_of(adcode, level) is not None for level in ("province", "district"))


_ADCODE = re.compile(r"[0-9]{6}")


@dataclass(frozen=True, slots=True)
class District:
    """A province, city or district of the offline data (WGS-84): ``parts`` = ((shell, hole, ...), ...)."""

    adcode: str
    name: str
    level: str  # province, city or district
    center_lng: float | None
    center_lat: float | None
    parts: tuple[tuple[tuple[tuple[float, float], ...], ...], ...]


def district_parts(adcode: str) -> tuple[tuple[tuple[tuple[float, float], ...], ...], ...] | None:
    """The outline of a province / city / district by adcode, for a fence of shape ``district``
    (``fleet.geofence.geometry.parse_shape``'s loader); None for an unknown code."""
    found = shared_offline().district(adcode)
    return found.parts if found is not None else None


@functools.cache
def district_tree() -> tuple[dict[str, Any], ...]:
    """Every province / city / district of the offline data as ``{adcode, name, children?}``, in adcode
    order, for the console's district picker: the same regions ``OfflineGeocoder.district`` outlines. A
    municipality or SAR, whose city level repeats the province's code in the data, lists its districts
    directly under it; a region with no children in the data (710000, Taiwan) has no ``children`` key. A
    region without an outline of its own (a city with districts: the data has no city layer) has
    ``outline: false``: a way to its districts, never an area. Built once per process; callers must not
    change what it answers."""
    offline = shared_offline()

    def node(region: dict[str, Any]) -> dict[str, Any]:
        kids = region.get("children") or []
        if len(kids) == 1 and kids[0]["value"] == region["value"]:
            kids = kids[0].get("children") or []
        out: dict[str, Any] = {"adcode": region["value"], "name": region["label"]}
        if not offline.has_outline(region["value"]):
            out["outline"] = False
        if kids:
            out["children"] = [node(k) for k in kids]
        return out

    return tuple(node(p) for p in get_administrative_tree())


class OnlineProvider(Protocol):
    """A map service's reverse geocoder. Takes WGS-84; answers None when it has no answer.

    May raise any exception (network, quota): the ``Geocoder`` then uses the offline answer."""

    name: str

    def reverse(self, lng: float, lat: float) -> Address | None: ...


class AmapProvider:
    """AMap (Gaode) web-service regeo; AMap works in GCJ-02, so the point is converted first."""

    name = "amap"
    url = "https://restapi.amap.com/v3/geocode/regeo"

    def __init__(self, key: str, timeout_s: float) -> None:
        self._key = key
        self._timeout_s = timeout_s

    def reverse(self, lng: float, lat: float) -> Address | None:
        gcj_lng, gcj_lat = wgs84_to_gcj02(lng, lat)
        query = urllib.parse.urlencode({"key": self._key, "location": f"{gcj_lng:.6f},{gcj_lat:.6f}", "output": "json"})
        with urllib.request.urlopen(f"{self.url}?{query}", timeout=self._timeout_s) as reply:
            body: dict[str, Any] = json.loads(reply.read())
        if body.get("status") != "1" or not isinstance(body.get("regeocode"), dict):
            return None
        return amap_address(body["regeocode"])


def amap_address(regeocode: dict[str, Any]) -> Address | None:
    """AMap's ``regeocode`` object -> Address (AMap sends [] for empty fields)."""
    def text(value: Any) -> str:
        return value if isinstance(value, str) else ""

    parts = regeocode.get("addressComponent") or {}
    formatted = text(regeocode.get("formatted_address"))
    if not formatted:
        return None
    province = text(parts.get("province"))
    return Address(formatted, province, text(parts.get("city")) or province, text(parts.get("district")),
                   text(parts.get("adcode")))


class Geocoder:
    """Offline answer, refined online when a provider is configured, cached per rounded point."""

    def __init__(self, offline: OfflineGeocoder, online: OnlineProvider | None = None, *,
                 cache_size: int = 100_000, cache_decimals: int = 4) -> None:
        self.offline = offline
        self.online = online
        self._decimals = cache_decimals
        self._cached = functools.lru_cache(maxsize=cache_size)(self._lookup)

    def reverse(self, lng: float, lat: float) -> Address:
        """Raises InvalidCoordinates; otherwise always answers (NO_ADDRESS outside China)."""
        check_coordinates(lng, lat)
        return self._cached(round(lng, self._decimals), round(lat, self._decimals))

    def cache_info(self) -> Any:
        return self._cached.cache_info()

    def _lookup(self, lng: float, lat: float) -> Address:
        offline = self.offline.reverse(lng, lat)
        if self.online is None or offline is NO_ADDRESS:
            return offline
        try:
            return self.online.reverse(lng, lat) or offline
        except Exception as exc:  # any provider failure: the offline answer is still right to district level
            log.warning("online reverse geocoder %s failed: %s", self.online.name, exc)
            return offline


def build_geocoder(settings: GeoSettings | None = None, offline: OfflineGeocoder | None = None) -> Geocoder:
    settings = settings or GeoSettings()
    online: OnlineProvider | None = None
    if settings.provider == "amap" and settings.amap_key:
        online = AmapProvider(settings.amap_key, settings.online_timeout_s)
    return Geocoder(offline or shared_offline(), online,
                    cache_size=settings.cache_size, cache_decimals=settings.cache_decimals)


_lock = threading.Lock()
_offline: OfflineGeocoder | None = None
_default: Geocoder | None = None


def shared_offline() -> OfflineGeocoder:
    """The process's one offline geocoder (the data is loaded on first use, not at import)."""
    global _offline
    with _lock:
        if _offline is None:
            _offline = OfflineGeocoder()
        return _offline


def default_geocoder() -> Geocoder:
    """The process's geocoder, configured from the environment (``GeoSettings``) on first use."""
    global _default
    if _default is None:
        geocoder = build_geocoder()
        with _lock:
            if _default is None:
                _default = geocoder
    return _default


def reverse_geocode(lng: float, lat: float) -> Address:
    """Address of a WGS-84 point for server code (API, logs, alarms, reports). See the module doc."""
    return default_geocoder().reverse(lng, lat)
