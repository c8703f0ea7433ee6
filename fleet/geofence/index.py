"""Spatial indexes over the fences: which fences a move (the straight line from a vehicle's previous fix
to its new one) may touch, so the exact tests run only on those and the cost does not grow with the
number of fences. Both answer ``candidates(moves)`` for an (n, 4) array of lng_a, lat_a, lng_b, lat_b
(a == b for a first fix) as pairs (move numbers, fence ids), two int64 arrays; a superset is allowed, a
miss is not.

- ``StrTreeIndex`` (the one the fence step uses; docs/performance.md "Fence check" has the measurement):
  a shapely 2 STRtree over each fence's lng/lat geometry (a circle's bounding box, a route's corridors),
  queried for the whole batch in one vectorised call on the envelopes only: of the fences a move's
  envelope meets, only those bound to the vehicle get the exact test (on prepared geometries), so an
  ``intersects`` predicate in the query would test mostly other vehicles' fences.
- ``H3Index`` (for the comparison; needs the ``h3`` package, a dev dependency only): every fence's covering
  H3 cells at one resolution; a move's candidates are the fences of the cells along it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry


def move_lines(moves: np.ndarray) -> np.ndarray:
    """The (n, 4) moves as linestrings (a first fix: a line of one point twice, which GEOS handles as the point)."""
    return shapely.linestrings(moves.reshape(-1, 2, 2))


class StrTreeIndex:
    def __init__(self, geometries: Mapping[int, BaseGeometry]) -> None:
        self.ids = np.fromiter(geometries.keys(), dtype=np.int64, count=len(geometries))
        self.tree = shapely.STRtree(list(geometries.values()))

    def pairs(self, moves: np.ndarray, lines: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``lines``: the moves as linestrings, when the caller has them already."""
        if len(moves) == 0 or len(self.ids) == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        if lines is None:
            lines = move_lines(moves)
        query, hit = self.tree.query(lines)  # envelopes only: the exact test runs on the bound fences alone
        return query.astype(np.int64), self.ids[hit]


class H3Index:
    def __init__(self, geometries: Mapping[int, BaseGeometry], resolution: int = 8) -> None:
        import h3.api.basic_int as h3  # integer cell ids: no string conversions on the hot path

        self.h3, self.resolution = h3, resolution
        self.cells: dict[int, list[int]] = defaultdict(list)
        for fence_id, geometry in geometries.items():
            shape = h3.geo_to_h3shape(shapely.geometry.mapping(geometry))
            for cell in h3.h3shape_to_cells_experimental(shape, resolution, contain="overlap"):
                self.cells[cell].append(fence_id)

    def pairs(self, moves: np.ndarray, lines: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        h3, res, cells = self.h3, self.resolution, self.cells
        to_cell = h3.latlng_to_cell
        query: list[int] = []
        hit: list[int] = []
        for number, (lng_a, lat_a, lng_b, lat_b) in enumerate(moves.tolist()):
            b = to_cell(lat_b, lng_b, res)
            a = b if (lng_a, lat_a) == (lng_b, lat_b) else to_cell(lat_a, lng_a, res)
            ids: set[int] = set()
            for cell in ((a,) if a == b else self._path(a, b)):
                ids.update(cells.get(cell, ()))
            query.extend([number] * len(ids))
            hit.extend(ids)
        return np.array(query, dtype=np.int64), np.array(hit, dtype=np.int64)

    def _path(self, a: int, b: int) -> set[int]:
        """The cells between a and b and their neighbours (a grid path may step beside the straight line)."""
        h3 = self.h3
        try:
            line = h3.grid_path_cells(a, b)
        except Exception:  # cells too far apart for a grid path (a move of many kilometres): both ends only
            line = [a, b]
        return {c for cell in line for c in h3.grid_disk(cell, 1)}
