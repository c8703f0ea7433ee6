-- Declared entities: the first catalogues written through the generic routes, and the
-- audit log of every create / update / delete, written in the same transaction as the change.
-- record_state: 1 normal, 0 deleted (soft delete: the row and its history stay; reads hide it).
-- A unique field is unique among the live rows of an enterprise: index <table>_<column>_uniq (the API
-- maps a clash on it back to the field, 409).
-- depends: 0004_login_throttle_and_session_epoch

CREATE TABLE car_model (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    code           text NOT NULL,
    remark         text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX car_model_code_uniq ON car_model (enterprise_id, code) WHERE record_state = 1;

CREATE TABLE car_type (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    code           text NOT NULL,
    remark         text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX car_type_code_uniq ON car_type (enterprise_id, code) WHERE record_state = 1;

CREATE TABLE device_producer (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    code           text NOT NULL,
    remark         text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX device_producer_code_uniq ON device_producer (enterprise_id, code) WHERE record_state = 1;

CREATE TABLE device_type (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    name           text NOT NULL,
    code           text NOT NULL,
    remark         text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX device_type_code_uniq ON device_type (enterprise_id, code) WHERE record_state = 1;

-- Who changed what: changes = {field: {before, after}} of declared fields only (never secrets).
CREATE TABLE audit_log (
    id             bigserial PRIMARY KEY,
    at             timestamptz NOT NULL DEFAULT now(),
    user_id        bigint,
    user_name      text,
    enterprise_id  bigint,
    entity         text NOT NULL,
    record_id      bigint NOT NULL,
    action         text NOT NULL CHECK (action IN ('create', 'update', 'delete')),
    changes        jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_record_idx ON audit_log (entity, record_id);
CREATE INDEX audit_log_enterprise_at_idx ON audit_log (enterprise_id, at);
