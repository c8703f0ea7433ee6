-- Alarm settings (contract F). Platform alarm rules per enterprise, named: the
-- enterprise's most recently updated live rule is the one in effect, overriding the defaults of
-- fleet/platform_alarm_rules.py (an enterprise without one is evaluated with those defaults; the API
-- fills a new row's omitted fields from there, so the columns carry no SQL defaults of their own).
-- alarm_level: the level an enterprise gives an alarm key (the newest live row of a key counts).
-- platform_alarm_notify_rule: the enterprise's default notification rule per alarm key (likewise the
-- newest live row of a key); a user's own
-- rule (alarm_user_setting, entity alarmLevelUserSettingRuleView) overrides it. enterprise_notify_setting:
-- the enterprise-wide notification switches of console-spec §3 (no row: all on).
-- depends: 0017_track_day

CREATE TABLE platform_alarm_rule (
    id                     bigserial PRIMARY KEY,
    enterprise_id          bigint NOT NULL REFERENCES enterprise(id),
    name                   text NOT NULL,
    overspeed_enabled      boolean NOT NULL,
    overspeed_limit_kmh    integer NOT NULL CHECK (overspeed_limit_kmh BETWEEN 1 AND 180),
    overspeed_duration_s   integer NOT NULL CHECK (overspeed_duration_s BETWEEN 1 AND 10000),
    fatigue_enabled        boolean NOT NULL,
    fatigue_driving_s      integer NOT NULL CHECK (fatigue_driving_s BETWEEN 1 AND 86400),
    fatigue_rest_s         integer NOT NULL CHECK (fatigue_rest_s BETWEEN 1 AND 10000),
    parking_enabled        boolean NOT NULL,
    parking_timeout_s      integer NOT NULL CHECK (parking_timeout_s BETWEEN 1 AND 100000),
    night_enabled          boolean NOT NULL,
    night_start_hour       smallint NOT NULL CHECK (night_start_hour BETWEEN 0 AND 23),
    night_end_hour         smallint NOT NULL CHECK (night_end_hour BETWEEN 1 AND 24),
    remark                 text,
    record_state           smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX platform_alarm_rule_name_uniq ON platform_alarm_rule (enterprise_id, name)
    WHERE record_state = 1;
CREATE INDEX platform_alarm_rule_live ON platform_alarm_rule (enterprise_id, updated_at DESC) WHERE record_state = 1;

CREATE TABLE alarm_level (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    alarm_key      text NOT NULL,
    level          smallint NOT NULL CHECK (level BETWEEN 1 AND 3),
    remark         text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX alarm_level_name_uniq ON alarm_level (enterprise_id, name) WHERE record_state = 1;
CREATE INDEX alarm_level_key ON alarm_level (enterprise_id, alarm_key, updated_at DESC) WHERE record_state = 1;

CREATE TABLE platform_alarm_notify_rule (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    alarm_key      text NOT NULL,
    window_enable  boolean NOT NULL DEFAULT true,
    voice_enable   boolean NOT NULL DEFAULT false,
    start_hour     smallint NOT NULL DEFAULT 0 CHECK (start_hour BETWEEN 0 AND 23),
    end_hour       smallint NOT NULL DEFAULT 24 CHECK (end_hour BETWEEN 1 AND 24),
    remark         text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX platform_alarm_notify_rule_name_uniq ON platform_alarm_notify_rule (enterprise_id, name)
    WHERE record_state = 1;
CREATE INDEX platform_alarm_notify_rule_key ON platform_alarm_notify_rule (enterprise_id, alarm_key, updated_at DESC)
    WHERE record_state = 1;

-- One user's rule per alarm key (console-spec §3 "Notification settings": alarmRule).
CREATE TABLE alarm_user_setting (
    id             bigserial PRIMARY KEY,
    user_id        bigint NOT NULL REFERENCES app_user(id),
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    alarm_key      text NOT NULL,
    disabled       boolean NOT NULL DEFAULT false,
    window_enable  boolean NOT NULL DEFAULT true,
    voice_enable   boolean NOT NULL DEFAULT false,
    voice          text,
    start_hour     smallint NOT NULL DEFAULT 0 CHECK (start_hour BETWEEN 0 AND 23),
    end_hour       smallint NOT NULL DEFAULT 24 CHECK (end_hour BETWEEN 1 AND 24),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, alarm_key)
);

CREATE TABLE enterprise_notify_setting (
    enterprise_id                   bigint PRIMARY KEY REFERENCES enterprise(id),
    car_state_change_window_enable  boolean NOT NULL DEFAULT true,
    car_resp_cmd_window_enable      boolean NOT NULL DEFAULT true,
    upload_file_window_enable       boolean NOT NULL DEFAULT true,
    updated_at                      timestamptz NOT NULL DEFAULT now()
);
