-- API sessions: rotating refresh tokens and per-account login throttling.
-- depends: 0001_core_schema

-- Opaque refresh tokens, stored as sha256 hex only. Each use marks the row used and issues a new
-- token in the same family; presenting a used token again revokes the whole family (theft signal).
CREATE TABLE api_refresh_token (
    token_hash  text PRIMARY KEY,
    user_id     bigint NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
    family      text NOT NULL,
    expires_at  timestamptz NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    used_at     timestamptz,
    revoked_at  timestamptz
);
CREATE INDEX api_refresh_token_family_idx ON api_refresh_token (family);
CREATE INDEX api_refresh_token_expires_idx ON api_refresh_token (expires_at);

-- Failed logins per user name (known or not, so replies do not reveal which names exist).
CREATE TABLE api_login_failure (
    user_name        text PRIMARY KEY,
    failures         integer NOT NULL DEFAULT 0,
    first_failed_at  timestamptz NOT NULL,
    locked_until     timestamptz
);
