-- Driving-behaviour grading (platform-spec §2 Settings "drivingGradeRule").
--
-- driving_grade_rule: an enterprise's deduction for one alarm key (fleet/alarm_catalog.py): points per
-- occurrence, optionally points per minute of the alarm's duration, an optional cap of the key's points per
-- day, and a normalisation of the key's points (0 none, 1 per 100 km driven, 2 per hour of driving; a day
-- under 100 km / 1 h counts as 100 km / 1 h, so a short day is never punished more than a full one). The
-- newest live row of a key counts, for the enterprise and for its subsidiaries without a row of that key
-- (the nearest ancestor's, as alarm_level and platform_alarm_notify_rule do): pipelines/grading.py.
--
-- grade_score / grade / grade_deductions on car_day_report, driver_day_report and device_day_report: the
-- day's score (100 minus the normalised deductions, floored at 0), its grade (the bands of the system
-- dictionary entry driving_behavior_grade) and the deductions' breakdown ([{key, count, minutes, points}]).
-- A device row carries the score of its vehicle (the safety report lists terminals). Written by the daily
-- report build, which deletes and rewrites its day (orchestration/build.py): a rebuild never duplicates.
-- depends: 0030_reports 0019_platform_alarm_rules

CREATE TABLE driving_grade_rule (
    id              bigserial PRIMARY KEY,
    enterprise_id   bigint NOT NULL REFERENCES enterprise(id),
    name            text NOT NULL,
    alarm_key       text NOT NULL,
    per_occurrence  real NOT NULL DEFAULT 0 CHECK (per_occurrence BETWEEN 0 AND 100),
    per_minute      real NOT NULL DEFAULT 0 CHECK (per_minute BETWEEN 0 AND 100),
    cap             real CHECK (cap IS NULL OR cap BETWEEN 0 AND 100),
    normalisation   smallint NOT NULL DEFAULT 0 CHECK (normalisation IN (0, 1, 2)),
    remark          text,
    record_state    smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX driving_grade_rule_name_uniq ON driving_grade_rule (enterprise_id, name) WHERE record_state = 1;
CREATE INDEX driving_grade_rule_key ON driving_grade_rule (enterprise_id, alarm_key, updated_at DESC)
    WHERE record_state = 1;
COMMENT ON TABLE driving_grade_rule IS
    'An enterprise''s grading deduction per alarm key (the newest live row counts, for it and for subsidiaries'
    ' without their own row of the key); read by the daily report build (pipelines/grading.py)';

ALTER TABLE car_day_report ADD COLUMN grade_score real, ADD COLUMN grade text, ADD COLUMN grade_deductions jsonb;
ALTER TABLE driver_day_report ADD COLUMN grade_score real, ADD COLUMN grade text, ADD COLUMN grade_deductions jsonb;
ALTER TABLE device_day_report ADD COLUMN grade_score real, ADD COLUMN grade text, ADD COLUMN grade_deductions jsonb;
