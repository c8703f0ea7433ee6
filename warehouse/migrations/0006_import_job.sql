-- Spreadsheet imports of declared entities: one row per job, so any API worker process
-- answers its progress (GET /api/common/import/{entity}/{jobId}.json). The process running a job
-- (owner = host:pid) refreshes heartbeat_at; a running job whose heartbeat is stale, or whose owner
-- process on this host is gone, is reported failed. errors = [{row, field, message}] of refused rows.
-- depends: 0005_entity_catalogues_and_audit

CREATE TABLE import_job (
    id             uuid PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    user_id        bigint,
    entity         text NOT NULL,
    state          text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done', 'failed')),
    message        text,
    total          integer NOT NULL,
    processed      integer NOT NULL DEFAULT 0,
    created        integer NOT NULL DEFAULT 0,
    failed         integer NOT NULL DEFAULT 0,
    errors         jsonb NOT NULL DEFAULT '[]',
    owner          text NOT NULL,
    heartbeat_at   timestamptz NOT NULL DEFAULT now(),
    created_at     timestamptz NOT NULL DEFAULT now(),
    finished_at    timestamptz
);
CREATE INDEX import_job_enterprise_idx ON import_job (enterprise_id, created_at);
