"""fleet.geo: offline reverse geocoding of WGS-84 points, the cache and the online provider's fallback."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pytest

from fleet.geo import (
    NO_ADDRESS,
    Address,
    Geocoder,
    InvalidCoordinates,
    amap_address,
    build_geocoder,
    district_tree,
    join_address,
    reverse_geocode,
    shared_offline,
)
from fleet.settings import GeoSettings


@pytest.mark.parametrize(
    ("lng", "lat", "address", "adcode"),
    [
        (116.3975, 39.9087, "北京市东城区", "110101"),      # Tiananmen
        (114.0579, 22.5431, "广东省深圳市福田区", "440304"),  # Shenzhen civic centre
        (121.4997, 31.2397, "上海市浦东新区", "310115"),      # Lujiazui
        (114.1747, 22.2783, "香港特别行政区湾仔区", "810002"),  # Hong Kong, Wan Chai
        (91.1172, 29.6578, "西藏自治区拉萨市城关区", "540102"),            # Potala Palace
    ],
)
def test_known_points_resolve_to_their_district(lng: float, lat: float, address: str, adcode: str) -> None:
    found = reverse_geocode(lng, lat)
    assert (found.address, found.adcode) == (address, adcode)
    assert found.province and found.city and found.district


def test_municipality_does_not_repeat_its_name_as_city() -> None:
    found = reverse_geocode(116.3975, 39.9087)
    assert (found.province, found.city, found.district) == ("北京市", "北京市", "东城区")
    assert join_address("北京市", "北京市", "东城区") == "北京市东城区"


@pytest.mark.parametrize(
    ("lng", "lat"),
    [(115.0, 20.0),        # South China Sea, off Guangdong
     (2.3522, 48.8566),    # Paris
     (0.0, 0.0),
     (-74.006, 40.7128)],  # New York
)
def test_points_outside_china_or_at_sea_have_an_empty_address_not_an_error(lng: float, lat: float) -> None:
    assert reverse_geocode(lng, lat) == NO_ADDRESS
    assert NO_ADDRESS.as_dict() == {"address": "", "province": "", "city": "", "district": "", "adcode": ""}


@pytest.mark.parametrize(
    ("lng", "lat", "field"),
    [(181.0, 30.0, "lng"), (-180.5, 30.0, "lng"), (116.0, 90.5, "lat"), (math.nan, 30.0, "lng"),
     (116.0, math.inf, "lat")],
)
def test_out_of_range_coordinates_are_refused_naming_the_field(lng: float, lat: float, field: str) -> None:
    with pytest.raises(InvalidCoordinates) as caught:
        reverse_geocode(lng, lat)
    assert caught.value.field == field
    assert field in str(caught.value)


def test_answers_are_cached_per_rounded_point() -> None:
    geocoder = Geocoder(shared_offline(), cache_size=16, cache_decimals=4)
    first = geocoder.reverse(116.39751, 39.90871)
    second = geocoder.reverse(116.397512, 39.908708)  # the same point to 4 decimals (~11 m)
    assert first is second
    assert (geocoder.cache_info().hits, geocoder.cache_info().misses) == (1, 1)


class FakeProvider:
    name = "fake"

    def __init__(self, answer: Address | None = None, error: Exception | None = None) -> None:
        self.answer, self.error, self.calls = answer, error, 0

    def reverse(self, lng: float, lat: float) -> Address | None:
        self.calls += 1
        if self.error:
            raise self.error
        return self.answer


def test_online_provider_refines_points_in_china_and_is_not_asked_outside() -> None:
    street = Address("北京市东城区东长安街", "北京市", "北京市", "东城区", "110101")
    provider = FakeProvider(street)
    geocoder = Geocoder(shared_offline(), provider)
    assert geocoder.reverse(116.3975, 39.9087) == street
    assert geocoder.reverse(2.3522, 48.8566) == NO_ADDRESS
    assert provider.calls == 1


def test_failing_or_empty_online_provider_falls_back_to_the_offline_answer() -> None:
    for provider in (FakeProvider(error=TimeoutError("slow")), FakeProvider(None)):
        geocoder = Geocoder(shared_offline(), provider)
        assert geocoder.reverse(114.0579, 22.5431).address == "广东省深圳市福田区"
        assert provider.calls == 1


def test_online_provider_is_built_only_with_a_key() -> None:
    assert build_geocoder(GeoSettings(provider="amap", amap_key="")).online is None
    assert build_geocoder(GeoSettings()).online is None
    online = build_geocoder(GeoSettings(provider="amap", amap_key="k")).online
    assert online is not None and online.name == "amap"


def test_amap_reply_becomes_an_address() -> None:
    regeocode = {"formatted_address": "北京市东城区东华门街道天安门",
                 "addressComponent": {"province": "北京市", "city": [], "district": "东城区", "adcode": "110101"}}
    assert amap_address(regeocode) == Address("北京市东城区东华门街道天安门", "北京市", "北京市", "东城区", "110101")
    assert amap_address({"formatted_address": [], "addressComponent": {}}) is None


def test_district_tree_has_every_region_once_with_a_municipality_s_districts_directly_under_it() -> None:
    tree = district_tree()
    codes: list[str] = []

    def walk(nodes: Iterable[dict[str, Any]], depth: int) -> None:
        for node in nodes:
            codes.append(str(node["adcode"]))
            assert depth <= 3 and set(node) <= {"adcode", "name", "children", "outline"}
            walk(node.get("children", []), depth + 1)

    walk(tree, 1)
    assert len(codes) == len(set(codes)) > 3000  # a municipality's city level (its own code) is folded away
    shanghai = next(p for p in tree if p["adcode"] == "310000")
    assert {"adcode": "310115", "name": "浦东新区"} in shanghai["children"]
    hainan = next(p for p in tree if p["adcode"] == "460000")
    assert all(len(str(c["adcode"])) == 6 for c in hainan["children"])


def test_a_city_without_districts_has_its_outline_and_a_city_with_districts_has_none() -> None:
    offline = shared_offline()
    dongguan = offline.district("441900")  # the data keeps its outline at the district level
    assert dongguan is not None and dongguan.name == "东莞市" and dongguan.parts
    assert offline.has_outline("441900") and offline.has_outline("440305") and offline.has_outline("440000")
    assert offline.district("440300") is None and not offline.has_outline("440300")  # no city layer
    guangdong = next(p for p in district_tree() if p["adcode"] == "440000")
    by_code = {c["adcode"]: c for c in guangdong["children"]}
    assert by_code["440300"]["outline"] is False  # Shenzhen: only a way to its districts
    assert "outline" not in by_code["441900"] and "outline" not in guangdong
