-- Alarm API reads (api/query/entities_alarms.py, api/routes/alarms.py, warehouse/queries/alarms.py).
-- safety_alarm_view: the active-safety alarms (types 5-8: ADAS, DSM, TPMS, BSD) for the safetyAlarm list,
-- with the enterprise name and path like alarm_view (built on the table, so alarm_view stays replaceable).
-- depends: 0018_alarms

CREATE VIEW safety_alarm_view AS
SELECT a.*, e.name AS enterprise_name, e.path AS enterprise_path
FROM alarm a
JOIN enterprise e ON e.id = a.enterprise_id
WHERE a.type BETWEEN 5 AND 8;

-- Dashboard counts (GET /api/dashboard/alarmCounts.json, today / week / month in UTC+8) read day rollups
-- instead of scanning up to a month of alarms: alarm_day_count (alarms and unhandled alarms per enterprise,
-- UTC+8 day and key) and alarm_device_latest (the UTC+8 day of each device's newest alarm per enterprise).
-- Kept by triggers on alarm, so every writer (the streams step, the API's confirm / ignore / PATCH) keeps
-- them true in its own transaction; alarm_device_latest only grows (a deleted alarm leaves the day).
CREATE TABLE alarm_day_count (
    enterprise_id  bigint NOT NULL,
    day            date NOT NULL,
    key            text NOT NULL,
    type           smallint NOT NULL,
    total          integer NOT NULL,
    unhandled      integer NOT NULL,
    PRIMARY KEY (enterprise_id, day, key)
);

CREATE TABLE alarm_device_latest (
    enterprise_id  bigint NOT NULL,
    device_id      bigint NOT NULL,
    last_day       date NOT NULL,
    PRIMARY KEY (enterprise_id, device_id)
);
CREATE INDEX alarm_device_latest_day ON alarm_device_latest (enterprise_id, last_day);

CREATE FUNCTION alarm_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE alarm_day_count SET total = total - 1, unhandled = unhandled - (OLD.state = 0)::int
        WHERE enterprise_id = OLD.enterprise_id AND key = OLD.key
          AND day = (OLD.start_time AT TIME ZONE INTERVAL '+08:00')::date;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO alarm_day_count AS c (enterprise_id, day, key, type, total, unhandled)
        VALUES (NEW.enterprise_id, (NEW.start_time AT TIME ZONE INTERVAL '+08:00')::date, NEW.key, NEW.type, 1,
                (NEW.state = 0)::int)
        ON CONFLICT (enterprise_id, day, key)
        DO UPDATE SET total = c.total + 1, unhandled = c.unhandled + EXCLUDED.unhandled;
        INSERT INTO alarm_device_latest AS l (enterprise_id, device_id, last_day)
        VALUES (NEW.enterprise_id, NEW.device_id, (NEW.start_time AT TIME ZONE INTERVAL '+08:00')::date)
        ON CONFLICT (enterprise_id, device_id)
        DO UPDATE SET last_day = EXCLUDED.last_day WHERE l.last_day < EXCLUDED.last_day;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER alarm_rollup_insert AFTER INSERT ON alarm FOR EACH ROW EXECUTE FUNCTION alarm_rollup();
CREATE TRIGGER alarm_rollup_update AFTER UPDATE OF state, enterprise_id, device_id, key, start_time ON alarm
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.enterprise_id IS DISTINCT FROM NEW.enterprise_id
                       OR OLD.device_id IS DISTINCT FROM NEW.device_id OR OLD.key IS DISTINCT FROM NEW.key
                       OR OLD.start_time IS DISTINCT FROM NEW.start_time)
    EXECUTE FUNCTION alarm_rollup();
CREATE TRIGGER alarm_rollup_delete AFTER DELETE ON alarm FOR EACH ROW EXECUTE FUNCTION alarm_rollup();

-- alarms stored before this migration
INSERT INTO alarm_day_count (enterprise_id, day, key, type, total, unhandled)
SELECT enterprise_id, (start_time AT TIME ZONE INTERVAL '+08:00')::date, key, min(type), count(*),
       count(*) FILTER (WHERE state = 0)
FROM alarm GROUP BY 1, 2, 3;
INSERT INTO alarm_device_latest (enterprise_id, device_id, last_day)
SELECT enterprise_id, device_id, max((start_time AT TIME ZONE INTERVAL '+08:00')::date) FROM alarm GROUP BY 1, 2;
