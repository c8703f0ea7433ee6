"""Platform fences (business type 1, platform-spec §9): shapes, rules and the batch check, pure.

No database, no Kafka: the uplinks step "fences" (streams/README.md, "Adding a step") hands a batch's
valid fixes to ``FenceChecker.check`` with the vehicles' kept states and stores the events it returns.
fleet/README.md describes the projection and the spatial index.
"""

from fleet.geofence.checker import CheckResult, FenceChecker, Gap, VehicleState
from fleet.geofence.frame import InvalidGeometry, LocalFrame
from fleet.geofence.rules import Attr, Fence, FenceEvent, FenceState, FenceType, Position, TimeWindow
from fleet.geofence.shapes import Area, Circle, Rectangle, Route, RouteSegment, compile_shape, polygon

__all__ = [
    "Area", "Attr", "CheckResult", "Circle", "Fence", "FenceChecker", "FenceEvent", "FenceState", "FenceType",
    "Gap", "InvalidGeometry", "LocalFrame", "Position", "Rectangle", "Route", "RouteSegment", "TimeWindow",
    "VehicleState", "compile_shape", "polygon",
]
