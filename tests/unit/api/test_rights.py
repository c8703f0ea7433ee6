"""Rights that compose (api/rights.py): a held screen code allows the reads its screen needs, and
nothing else; the route map's denied paths and the screens each code opens."""

from __future__ import annotations

import pytest

from api.auth import Principal
from api.rights import (
    IMPLIED_READS,
    READ_ACTIONS,
    _check_reads_only,
    allows,
    catalogue_implications,
    implied_by,
)
from api.routemap import denied_paths, routes_for, screens_opened_by

LIVE_MAP_ONLY = {"monitor": {"query"}}


def test_every_implied_right_is_a_read() -> None:
    for reads in IMPLIED_READS.values():
        assert {action for _, action in reads} <= READ_ACTIONS


def test_a_declaration_implying_a_write_is_refused() -> None:
    with pytest.raises(ValueError, match="car:update"):
        _check_reads_only({"monitor": frozenset({("car", "query"), ("car", "update")})})


@pytest.mark.parametrize(("code", "action"), [("car", "query"), ("group", "query"), ("enterprise", "query"),
                                              ("gps", "get"), ("gps", "query"), ("evidence", "query"),
                                              ("evidence", "get"), ("alarm", "query")])
def test_the_live_map_right_allows_the_reads_of_the_live_map(code: str, action: str) -> None:
    assert allows(LIVE_MAP_ONLY, code, action)


@pytest.mark.parametrize(("code", "action"), [("car", "update"), ("car", "get"), ("car", "export"),
                                              ("alarm", "update"), ("evidence", "delete"), ("device", "query"),
                                              ("driver", "query"),
                                              ("report", "query"), ("monitor", "video"), ("monitor", "cmd")])
def test_the_live_map_right_allows_no_write_and_no_other_screens_data(code: str, action: str) -> None:
    assert not allows(LIVE_MAP_ONLY, code, action)


def test_a_screen_code_without_actions_implies_nothing() -> None:
    assert implied_by({"monitor": set()}) == {}
    assert not allows({"monitor": set()}, "car", "query")


def test_an_open_platform_app_gets_exactly_its_groups_rights() -> None:
    app = Principal(0, "app", 1, "/1/", {"monitor": {"query"}}, app_id=7)
    user = Principal(5, "op", 1, "/1/", {"monitor": {"query"}})
    assert not app.may("car", "query")
    assert user.may("car", "query")
    assert not user.can("car", "query")  # granting counts granted rights only


def test_implied_reads_open_no_menu_entry() -> None:
    kept = routes_for(LIVE_MAP_ONLY)
    # welcome and home are every signed-in user's; the rest is what the live map right itself opens
    assert [entry["path"] for entry in kept if not entry["meta"]["invisible"]] == ["/welcome", "/home", "/dashboard"]
    dashboard = next(entry for entry in kept if entry["path"] == "/dashboard")
    assert [child["path"] for child in dashboard["children"]] == ["/dashboard/map"]


def test_denied_paths_are_the_other_screens_of_the_map() -> None:
    denied = denied_paths(LIVE_MAP_ONLY)
    assert "/dashboard/map" not in denied and "/account/center" not in denied
    assert {"/list/car", "/cockpit/index", "/dashboard/monitor", "/user/role/detail"} <= set(denied)
    assert denied_paths({"monitor": {"query", "video"}}).count("/dashboard/monitor") == 0


def test_screens_opened_by_a_code_follow_the_route_map() -> None:
    assert screens_opened_by("monitor")[0] == {"title": "menu.dashboard.map", "action": ""}
    assert {"title": "menu.dashboard.playback", "action": "video"} in screens_opened_by("monitor")
    assert screens_opened_by("sim") == [{"title": "menu.list.sim", "action": ""}]
    assert screens_opened_by("nothing") == []
    assert catalogue_implications("monitor")[0] == {"code": "alarm", "actions": ["query"]}
    assert catalogue_implications("car") == []
