-- Enterprises, users and roles written through the declared entities (api/query/org_entities.py).
--
-- Soft delete (record_state 1 normal, 0 deleted) and updated_at on enterprise, app_user and role;
-- enterprise contact fields; role code and description. Unique among live rows: a user name
-- platform-wide, an enterprise name among its siblings, a role code inside its enterprise.
-- Sign-in needs the user and every enterprise from the root down to the user's own enabled and
-- live (warehouse/queries/auth.py), so disabling an enterprise disables its whole subtree; the
-- session epoch triggers of 0004 now end the sessions of the whole subtree too.
-- depends: 0005_entity_catalogues_and_audit

ALTER TABLE enterprise
    ADD COLUMN contact       text,
    ADD COLUMN phone         text,
    ADD COLUMN address       text,
    ADD COLUMN record_state  smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at    timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX enterprise_name_uniq ON enterprise (parent_id, name) WHERE record_state = 1;

ALTER TABLE app_user
    ADD COLUMN record_state  smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at    timestamptz NOT NULL DEFAULT now();
ALTER TABLE app_user DROP CONSTRAINT app_user_user_name_key;
CREATE UNIQUE INDEX app_user_user_name_uniq ON app_user (user_name) WHERE record_state = 1;

ALTER TABLE role
    ADD COLUMN code          text,
    ADD COLUMN description   text,
    ADD COLUMN record_state  smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    ADD COLUMN updated_at    timestamptz NOT NULL DEFAULT now();
CREATE UNIQUE INDEX role_code_uniq ON role (enterprise_id, code) WHERE record_state = 1;
CREATE INDEX user_role_role_idx ON user_role (role_id);

-- A deleted user's sessions end like a disabled one's.
CREATE OR REPLACE FUNCTION app_user_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.password_hash IS DISTINCT FROM OLD.password_hash THEN
        NEW.session_epoch := OLD.session_epoch + 1;
        IF NEW.password_changed_at IS NOT DISTINCT FROM OLD.password_changed_at THEN
            NEW.password_changed_at := now();  -- refresh tokens issued before it are refused
        END IF;
    ELSIF NEW.state IS DISTINCT FROM OLD.state OR NEW.enterprise_id IS DISTINCT FROM OLD.enterprise_id
          OR NEW.user_name IS DISTINCT FROM OLD.user_name OR NEW.record_state IS DISTINCT FROM OLD.record_state THEN
        NEW.session_epoch := OLD.session_epoch + 1;
    END IF;
    RETURN NEW;
END $$;

-- A role disabled, deleted or moved ends the sessions holding its permissions.
CREATE OR REPLACE FUNCTION role_state_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IS DISTINCT FROM OLD.state OR NEW.enterprise_id IS DISTINCT FROM OLD.enterprise_id
       OR NEW.record_state IS DISTINCT FROM OLD.record_state THEN
        UPDATE app_user SET session_epoch = session_epoch + 1
        WHERE id IN (SELECT user_id FROM user_role WHERE role_id = NEW.id);
    END IF;
    RETURN NULL;
END $$;

-- An enterprise disabled, deleted or moved ends the sessions of every user of its subtree.
CREATE OR REPLACE FUNCTION enterprise_session_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state IS DISTINCT FROM OLD.state OR NEW.path IS DISTINCT FROM OLD.path
       OR NEW.parent_id IS DISTINCT FROM OLD.parent_id OR NEW.record_state IS DISTINCT FROM OLD.record_state THEN
        UPDATE app_user SET session_epoch = session_epoch + 1
        WHERE enterprise_id = NEW.id
           OR (OLD.path <> '' AND enterprise_id IN (SELECT id FROM enterprise WHERE starts_with(path, OLD.path)));
    END IF;
    RETURN NULL;
END $$;
