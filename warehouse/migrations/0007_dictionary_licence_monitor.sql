-- Dictionaries, licences and the installation's identity.
--
-- dictionary: platform-spec §3 "dictionary entry" (type, code, content as JSON text). Every entry
-- belongs to an enterprise (the generic routes' tenant); system = 1 marks a system-wide entry, kept
-- by a root-enterprise administrator and read by every enterprise unless the enterprise has its own
-- entry with the same type and code (api/dictionary.py). Unique among live rows: (enterprise, type,
-- code), and (type, code) among the system entries.
-- licence: installed vendor-signed licences (api/licence.py); the newest live one is in force.
-- licence_application: applications sent from the sign-in-free page /user/license.
-- installation: one row, the stable identity of this installation (the licence's machine code).
-- depends: 0005_entity_catalogues_and_audit

CREATE TABLE dictionary (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),
    type           integer NOT NULL,
    code           text NOT NULL,
    name           text NOT NULL,
    content        text NOT NULL,
    system         smallint NOT NULL DEFAULT 0 CHECK (system IN (0, 1)),
    remark         text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX dictionary_code_uniq ON dictionary (enterprise_id, type, code) WHERE record_state = 1;
CREATE UNIQUE INDEX dictionary_system_uniq ON dictionary (type, code) WHERE record_state = 1 AND system = 1;
CREATE INDEX dictionary_type_code_idx ON dictionary (type, code) WHERE record_state = 1;

CREATE TABLE installation (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    id             uuid NOT NULL DEFAULT gen_random_uuid(),
    created_at     timestamptz NOT NULL DEFAULT now()
);
INSERT INTO installation DEFAULT VALUES;

CREATE TABLE licence (
    id              bigserial PRIMARY KEY,
    enterprise_id   bigint NOT NULL REFERENCES enterprise(id),  -- the installer's enterprise
    licence_id      text NOT NULL,
    licensee        text NOT NULL,
    enterprise_name text NOT NULL,
    max_vehicles    integer NOT NULL,
    valid_from      date NOT NULL,
    valid_to        date NOT NULL,
    features        jsonb NOT NULL DEFAULT '[]',
    document        text NOT NULL,
    installed_by    text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX licence_created_idx ON licence (created_at DESC);

CREATE TABLE licence_application (
    id              bigserial PRIMARY KEY,
    company         text NOT NULL,
    contact         text NOT NULL,
    phone           text NOT NULL,
    email           text NOT NULL,
    vehicles        integer NOT NULL,
    machine_code    text NOT NULL,
    address         text NOT NULL,  -- the applicant's network address (rate limit)
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX licence_application_address_idx ON licence_application (address, created_at);

-- The licence log screen: installs and applications in one list. Applications arrive without a
-- signed-in user; they belong to the root enterprises (the installation's operator).
CREATE VIEW licence_log AS
    SELECT 'L' || l.id AS id, 'install' AS kind, l.enterprise_id, l.created_at,
           l.licensee AS party, l.installed_by AS actor, l.max_vehicles AS vehicles,
           l.valid_from, l.valid_to
      FROM licence l
    UNION ALL
    SELECT 'A' || a.id, 'apply', e.id, a.created_at, a.company, a.contact, a.vehicles, NULL, NULL
      FROM licence_application a
      JOIN enterprise e ON e.parent_id IS NULL;
