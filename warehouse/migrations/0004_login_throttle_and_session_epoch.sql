-- Logins throttled by address and account together, failed logins audited, and sessions that end
-- when the user is disabled, deleted, loses a role or changes the password.
-- depends: 0002_api_auth

-- Replaced by api_login_throttle: it locked a user name for everyone, and grew a row per name.
DROP TABLE api_login_failure;

-- One row per throttle key: 'addr:<address>', 'pair:<name hash>:<address>', 'acct:<name hash>'.
-- Names are hashed so unknown names cost no more than known ones and reveal nothing; rows whose
-- expires_at passed are swept, and an address's own key bounds how many rows it can create.
CREATE TABLE api_login_throttle (
    key            text PRIMARY KEY,
    failures       integer NOT NULL,
    window_start   timestamptz NOT NULL,
    blocked_until  timestamptz,
    refused        integer NOT NULL DEFAULT 0,  -- attempts refused while blocked (first one audited)
    expires_at     timestamptz NOT NULL
);
CREATE INDEX api_login_throttle_expires_idx ON api_login_throttle (expires_at);

-- Addresses an account signed in from: the right password from one of them passes even while the
-- account is under attack from elsewhere. Grows only with successful logins.
CREATE TABLE api_login_known_address (
    user_id        bigint NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
    address        text NOT NULL,
    last_login_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, address)
);

-- Failed or refused logins (time, name as typed, address, reason); kept for a retention period.
CREATE TABLE api_login_audit (
    id            bigserial PRIMARY KEY,
    attempted_at  timestamptz NOT NULL DEFAULT now(),
    user_name     text NOT NULL,
    address       text NOT NULL,
    reason        text NOT NULL  -- wrong_password, unknown_user, disabled, throttled
);
CREATE INDEX api_login_audit_time_idx ON api_login_audit (attempted_at);

-- Access tokens carry the user's session epoch; a token whose epoch is not the current one is
-- refused (api.auth). Triggers bump it on every change that must end sessions.
ALTER TABLE app_user ADD COLUMN session_epoch bigint NOT NULL DEFAULT 0;

CREATE FUNCTION app_user_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.password_hash IS DISTINCT FROM OLD.password_hash THEN
        NEW.session_epoch := OLD.session_epoch + 1;
        IF NEW.password_changed_at IS NOT DISTINCT FROM OLD.password_changed_at THEN
            NEW.password_changed_at := now();  -- refresh tokens issued before it are refused
        END IF;
    ELSIF NEW.state IS DISTINCT FROM OLD.state OR NEW.enterprise_id IS DISTINCT FROM OLD.enterprise_id
          OR NEW.user_name IS DISTINCT FROM OLD.user_name THEN
        NEW.session_epoch := OLD.session_epoch + 1;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER app_user_session_epoch BEFORE UPDATE ON app_user
    FOR EACH ROW EXECUTE FUNCTION app_user_session_epoch();

-- A role taken away (or changed) ends the sessions holding its permissions; a role granted does
-- not: the new permissions arrive with the next refresh.
CREATE FUNCTION user_role_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE app_user SET session_epoch = session_epoch + 1 WHERE id = OLD.user_id;
    RETURN NULL;
END $$;
CREATE TRIGGER user_role_session_epoch AFTER UPDATE OR DELETE ON user_role
    FOR EACH ROW EXECUTE FUNCTION user_role_session_epoch();

CREATE FUNCTION role_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE app_user SET session_epoch = session_epoch + 1
    WHERE id IN (SELECT user_id FROM user_role WHERE role_id = OLD.role_id);
    RETURN NULL;
END $$;
CREATE TRIGGER role_permission_session_epoch AFTER UPDATE OR DELETE ON role_permission
    FOR EACH ROW EXECUTE FUNCTION role_session_epoch();

CREATE FUNCTION role_state_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IS DISTINCT FROM OLD.state OR NEW.enterprise_id IS DISTINCT FROM OLD.enterprise_id THEN
        UPDATE app_user SET session_epoch = session_epoch + 1
        WHERE id IN (SELECT user_id FROM user_role WHERE role_id = NEW.id);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER role_session_epoch AFTER UPDATE ON role
    FOR EACH ROW EXECUTE FUNCTION role_state_session_epoch();

-- An enterprise disabled or moved (its path is in the token) ends its users' sessions.
CREATE FUNCTION enterprise_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IS DISTINCT FROM OLD.state OR NEW.path IS DISTINCT FROM OLD.path
       OR NEW.parent_id IS DISTINCT FROM OLD.parent_id THEN
        UPDATE app_user SET session_epoch = session_epoch + 1 WHERE enterprise_id = NEW.id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER enterprise_session_epoch AFTER UPDATE ON enterprise
    FOR EACH ROW EXECUTE FUNCTION enterprise_session_epoch();
