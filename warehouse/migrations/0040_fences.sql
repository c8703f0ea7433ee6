-- Fences, routes and label points (platform-spec §1, §2, §9; console-spec §3), their vehicle bindings, the
-- per-terminal sync state of terminal fences, and the platform fence step's per-vehicle state.
--
-- Geometry is WGS-84 (what terminals report and `gps` stores), degrees, [lng, lat] pairs; the console converts
-- to and from the map's drawing system (GCJ-02 on Chinese tile layers) once, where it draws. `geometry` by shape:
--   circle     {"center": [lng, lat], "radius": metres}
--   rectangle  {"topLeft": [lng, lat], "bottomRight": [lng, lat]}
--   polygon    {"rings": [[[lng, lat], ...], [hole...], ...]}          (first ring the shell)
--   route      {"segments": [{"points": [[lng, lat], ...], "width": m, "minTime": s, "maxTime": s,
--                             "speedLimit": km/h, "overspeedDuration": s}, ...]}
--   district   {"districtId": adcode}                                   (province / city / district)
-- fence_type (platform-spec §9): 1 stay-in-place, 2 fence alarm, 3 overspeed, 4 route fence.
-- business_type: 1 platform (checked by the streams' fence step), 2 terminal (sent as 0x8600/0x8602/0x8604/
-- 0x8606 through the command path, checked by the terminal, reported as 0x0200 items 0x11-0x13).
-- attributes: a bit set of the spec's attribute numbers (1 speed limit, 2 in-area to driver, 3 in-area to
-- platform, 4 out-of-area to driver, 5 out-of-area to platform, 8 no door opening, 14 close comms module,
-- 15 collect GNSS detail), i.e. bit n set = attribute n.
-- A terminal area's id on the wire is the fence's id (DWORD), so one id names it on both sides.
-- depends: 0039_refused_registration

CREATE TABLE fence (
    id                   bigserial PRIMARY KEY,
    enterprise_id        bigint NOT NULL REFERENCES enterprise(id),
    name                 text NOT NULL,
    fence_type           smallint NOT NULL CHECK (fence_type BETWEEN 1 AND 4),
    business_type        smallint NOT NULL CHECK (business_type IN (1, 2)),
    shape                text NOT NULL CHECK (shape IN ('circle', 'rectangle', 'polygon', 'route', 'district')),
    geometry             jsonb NOT NULL,
    attributes           integer NOT NULL DEFAULT 0,
    -- an absolute window (start_time / end_time) or a daily one (daily_start / daily_end, Beijing time, may
    -- wrap midnight); none: always watched
    start_time           timestamptz,
    end_time             timestamptz,
    daily_start          time,
    daily_end            time,
    speed_limit          real CHECK (speed_limit IS NULL OR speed_limit > 0),
    overspeed_duration   integer CHECK (overspeed_duration IS NULL OR overspeed_duration >= 0),
    night_speed_limit    real CHECK (night_speed_limit IS NULL OR night_speed_limit > 0),
    stay_limit           integer CHECK (stay_limit IS NULL OR stay_limit > 0),     -- seconds, fence type 1
    remark               text NOT NULL DEFAULT '',
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CHECK ((start_time IS NULL) = (end_time IS NULL) AND (daily_start IS NULL) = (daily_end IS NULL)),
    CHECK (shape <> 'route' OR fence_type = 4)
);
CREATE INDEX fence_tenant ON fence (enterprise_id, id);

-- Many to many: which vehicles a fence watches (platform) or is sent to (terminal).
CREATE TABLE fence_binding (
    fence_id       bigint NOT NULL REFERENCES fence(id) ON DELETE CASCADE,
    car_id         bigint NOT NULL REFERENCES car(id) ON DELETE CASCADE,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),   -- the car's, for tenant checks
    created_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (fence_id, car_id)
);
CREATE INDEX fence_binding_car ON fence_binding (car_id);

-- A terminal fence on one terminal: what the platform wants there (`wanted`: set or delete) and how far it
-- got. state: pending (to send; an offline terminal gets it when it next authenticates), sent (the command
-- went out), acknowledged (0x0001 result 0), failed (result 1-3 in `result`, or timed out: `error`).
-- The sync is a reconciliation: what fence_binding and fence say minus what these rows hold is what to send,
-- so a binding, an edit (fence.updated_at > version) or an unbinding needs no hook. A delete row goes once the
-- terminal acknowledged it.
CREATE TABLE fence_sync (
    fence_id     bigint NOT NULL,       -- no foreign key: a deleted fence keeps its delete rows until acknowledged
    device_id    bigint NOT NULL REFERENCES device(id) ON DELETE CASCADE,
    enterprise_id bigint NOT NULL REFERENCES enterprise(id),
    wanted       text NOT NULL CHECK (wanted IN ('set', 'delete')),
    state        text NOT NULL CHECK (state IN ('pending', 'sent', 'acknowledged', 'failed')),
    version      timestamptz NOT NULL,  -- the fence's updated_at this row wants on the terminal (a later edit: resend)
    command_id   bigint,                -- the command row that carried it (command.id)
    result       smallint,              -- the terminal's 0x0001 result
    error        text,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (fence_id, device_id)
);
CREATE INDEX fence_sync_device ON fence_sync (device_id) WHERE state IN ('pending', 'failed');

-- Label points (platform-spec §9): type 1 point, 2 circle, 3 rectangle, 4 polygon, 5 route, 6 province/city/
-- district; business type 1 parking lot, 2 waypoint, 3 station, 4 area vehicle search, 5 fence, 6 route.
-- geometry as for fences, plus point {"point": [lng, lat]}.
CREATE TABLE label_point (
    id              bigserial PRIMARY KEY,
    enterprise_id   bigint NOT NULL REFERENCES enterprise(id),
    name            text NOT NULL,
    point_type      smallint NOT NULL CHECK (point_type BETWEEN 1 AND 6),
    business_type   smallint NOT NULL CHECK (business_type BETWEEN 1 AND 6),
    geometry        jsonb NOT NULL,
    remark          text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX label_point_tenant ON label_point (enterprise_id, id);

-- The platform fence step's per-vehicle state (fleet.geofence.VehicleState as JSON): which fences the vehicle
-- is inside and the open episodes, so a worker restart neither re-raises nor forgets a crossing.
CREATE TABLE fence_vehicle_state (
    device_id    bigint PRIMARY KEY REFERENCES device(id) ON DELETE CASCADE,
    state        jsonb NOT NULL,
    fixed_at     timestamptz NOT NULL,   -- the newest fix the state has seen (a replay older than it is skipped)
    updated_at   timestamptz NOT NULL DEFAULT now()
);
