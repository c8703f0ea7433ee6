-- Open platform (platform-spec §2 settings "openPlatform"): third-party apps of an enterprise.
--
-- open_app: an integrator's app (api/query/entities_settings.py OPEN_APP, api/open_platform.py).
-- app_key is public and unique platform-wide (the OAuth client_id); only the sha256 of the secret
-- is kept (the secret is 32 random bytes, shown once). apis: comma list of the route groups the app
-- may call (read-only permission codes, api/open_platform.py API_GROUPS). session_epoch is bumped when the
-- app is disabled, deleted, its secret or apis change, so its tokens stop working (the
-- same session guard as users, api/auth.py).
-- open_app_rate: one row per app, the calls of the current minute (fixed window shared by every
-- API process).
-- depends: 0009_organisation

CREATE TABLE open_app (
    id                 bigserial PRIMARY KEY,
    enterprise_id      bigint NOT NULL REFERENCES enterprise(id),
    name               text NOT NULL,
    app_key            text NOT NULL,
    secret_hash        text NOT NULL,
    state              smallint NOT NULL DEFAULT 1 CHECK (state IN (0, 1)),
    apis               text NOT NULL DEFAULT '',
    rate_limit_per_min integer NOT NULL DEFAULT 60 CHECK (rate_limit_per_min > 0),
    remark             text,
    session_epoch      bigint NOT NULL DEFAULT 0,
    last_token_at      timestamptz,
    record_state       smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX open_app_app_key_uniq ON open_app (app_key);
CREATE UNIQUE INDEX open_app_name_uniq ON open_app (enterprise_id, name) WHERE record_state = 1;
CREATE INDEX open_app_enterprise_idx ON open_app (enterprise_id) WHERE record_state = 1;

CREATE FUNCTION open_app_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IS DISTINCT FROM OLD.state OR NEW.record_state IS DISTINCT FROM OLD.record_state
       OR NEW.secret_hash IS DISTINCT FROM OLD.secret_hash OR NEW.apis IS DISTINCT FROM OLD.apis
       OR NEW.enterprise_id IS DISTINCT FROM OLD.enterprise_id THEN
        NEW.session_epoch := OLD.session_epoch + 1;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER open_app_session_epoch BEFORE UPDATE ON open_app
    FOR EACH ROW EXECUTE FUNCTION open_app_session_epoch();

CREATE TABLE open_app_rate (
    app_id        bigint PRIMARY KEY REFERENCES open_app(id),
    window_start  timestamptz NOT NULL,
    calls         integer NOT NULL
);
