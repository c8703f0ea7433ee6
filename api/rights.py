"""Rights that compose: the read rights a screen's right brings with it, declared once.

A screen reads data guarded by other codes (the live map lists the enterprise tree, the groups, the
cars and their last positions). A role granting only the screen's code would get the screen and a
wall of 403s; granting those codes as well would add their screens to the menu. So each screen
code below names the read rights (``code``, ``action``) its screen needs to work, and a principal
holding any action of the screen code is allowed those reads by ``api.security.requires``.

What stays strict:
- the route map and the menu (``api.routemap.routes_for``) and the console's permission list use
  the granted rights only, so an implied read adds no menu entry;
- implied rights are reads (``query``, ``get``); never a write, a command or an export;
- granting (``api.query.org_entities.check_grants``: nobody grants what they do not hold) counts
  granted rights only, so an implied read cannot be handed on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

READ_ACTIONS = frozenset({"query", "get"})

# Screen code -> the reads its screens make (console calls in dashboards/src/features/*/api.ts).
IMPLIED_READS: Mapping[str, frozenset[tuple[str, str]]] = MappingProxyType({
    # The live map (menu.dashboard.map, dashboards/src/features/map/model/api.ts and the alarm
    # notices over it): the enterprise tree (GET /api/aas/subsidiary.json), the vehicle groups and
    # the car list (POST /api/common/query/{group,carView}.json), last positions and addresses
    # (/api/gps/last.json, /api/gps/device/{id}/last.json, /api/common/query/gps.json,
    # /api/regeo/geocode.json), the vehicle popup's latest photo (POST
    # /api/common/query/deviceUploadFile.json and its file, evidence:get) and the caller's alarm
    # notification settings, which decide which vehicle-state, command and alarm windows open over
    # the map (alarmLevelUserSettingRuleView, GET /api/alarm/notify/settings.json).
    "monitor": frozenset({
        ("enterprise", "query"),
        ("group", "query"),
        ("car", "query"),
        ("gps", "get"),
        ("gps", "query"),
        ("evidence", "query"),
        ("evidence", "get"),
        ("alarm", "query"),
    }),
})


def _check_reads_only(declared: Mapping[str, frozenset[tuple[str, str]]]) -> None:
    for screen, reads in declared.items():
        writes = sorted(f"{code}:{action}" for code, action in reads if action not in READ_ACTIONS)
        if writes:
            raise ValueError(f"{screen} may only imply reads, not {', '.join(writes)}")


_check_reads_only(IMPLIED_READS)


def implied_by(permissions: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """The read rights the held screen codes bring along ({code: {actions}}), granted ones included
    or not: a code counts as held with at least one action (the route map's rule)."""
    implied: dict[str, set[str]] = {}
    for screen, actions in permissions.items():
        if screen in IMPLIED_READS and any(True for _ in actions):
            for code, action in IMPLIED_READS[screen]:
                implied.setdefault(code, set()).add(action)
    return implied


def allows(permissions: Mapping[str, Iterable[str]], code: str, action: str) -> bool:
    """Whether ``action`` on ``code`` is granted, or implied by a held screen code."""
    if action in permissions.get(code, ()):
        return True
    return action in READ_ACTIONS and action in implied_by(permissions).get(code, set())


def catalogue_implications(code: str) -> list[dict[str, object]]:
    """[{code, actions}] the screen code ``code`` implies (empty for most codes), by code."""
    grouped: dict[str, set[str]] = {}
    for implied_code, action in IMPLIED_READS.get(code, frozenset()):
        grouped.setdefault(implied_code, set()).add(action)
    return [{"code": c, "actions": sorted(a)} for c, a in sorted(grouped.items())]
