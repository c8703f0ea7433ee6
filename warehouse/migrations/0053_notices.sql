-- The bell's six notice kinds from real data (console-spec §9 bizType 1-6; api/routes/alarms.py NOTICE, the
-- overview GET /api/notice/overView.json):
--
-- car.insurance_expire / car.inspection_expire: YYYY-MM-DD like driver.license_expire (the forms' dates), the
--   vehicle's insurance and annual inspection end; bizType 2 and 3 once they are inside the settings' windows.
-- licence_application.state: 0 pending (bizType 1, approvals waiting for an administrator of the
--   installation), 1 approved, 2 rejected; who decided, when and why (POST /api/license/apply/{id}/approve.json).
-- announcement: what an administrator publishes (bizType 5) to an enterprise and its whole subtree (the
--   audience); soft deleted. announcement_read: who has read which one (the bell counts the caller's unread).
-- permission notify: publishing announcements (the settings screen "notify", platform-spec §2); license gains
--   update (deciding applications). Root enterprises' roles that may edit roles get both, as 0034 did.
-- notice_view: the six kinds in one list. A row with a user_id is that user's own (an announcement, one row per
--   user of its audience, with the user's read flag); the others are everyone's in the tenant scope.
--   `days_left` (UTC+8 days to an expiry) lets the API apply the windows, which are settings.
-- depends: 0052_car_follow

ALTER TABLE car
    ADD COLUMN insurance_expire   text,  -- YYYY-MM-DD
    ADD COLUMN inspection_expire  text;  -- YYYY-MM-DD

ALTER TABLE licence_application
    ADD COLUMN state       smallint NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2)),
    ADD COLUMN handled_by  text,
    ADD COLUMN handled_at  timestamptz,
    ADD COLUMN opinion     text;
CREATE INDEX licence_application_pending ON licence_application (created_at) WHERE state = 0;

-- The licenseApply screen: applications belong to the root enterprises (the installation's operator), as in
-- licence_log.
CREATE VIEW licence_apply_view AS
SELECT a.id, e.id AS enterprise_id, a.company, a.contact, a.phone, a.email, a.vehicles, a.machine_code,
       a.state, a.handled_by, a.handled_at, a.opinion, a.created_at
FROM licence_application a
JOIN enterprise e ON e.parent_id IS NULL;

CREATE TABLE announcement (
    id             bigserial PRIMARY KEY,
    enterprise_id  bigint NOT NULL REFERENCES enterprise(id),  -- the audience: this enterprise and its subtree
    title          text NOT NULL,
    content        text NOT NULL,
    published_by   text,
    record_state   smallint NOT NULL DEFAULT 1 CHECK (record_state IN (0, 1)),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX announcement_enterprise ON announcement (enterprise_id, created_at) WHERE record_state = 1;
-- one live announcement of a title per audience (a second publish of the same is a 409, not a duplicate)
CREATE UNIQUE INDEX announcement_title_uniq ON announcement (enterprise_id, title) WHERE record_state = 1;

CREATE TABLE announcement_read (
    announcement_id  bigint NOT NULL REFERENCES announcement(id) ON DELETE CASCADE,
    user_id          bigint NOT NULL REFERENCES app_user(id) ON DELETE CASCADE,
    read_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, announcement_id)
);

INSERT INTO permission (code, name, actions) VALUES ('notify', '通知公告', ARRAY['add', 'delete', 'update', 'query', 'get'])
ON CONFLICT (code) DO NOTHING;
UPDATE permission SET actions = array_append(actions, 'update') WHERE code = 'license' AND NOT 'update' = ANY (actions);

INSERT INTO role_permission (role_id, permission_code, actions)
SELECT r.id, 'notify', ARRAY['add', 'delete', 'update', 'query', 'get']
FROM role r
JOIN enterprise e ON e.id = r.enterprise_id AND e.parent_id IS NULL
WHERE EXISTS (SELECT 1 FROM role_permission p WHERE p.role_id = r.id AND p.permission_code = 'role'
                AND 'update' = ANY (p.actions))
ON CONFLICT (role_id, permission_code) DO NOTHING;
UPDATE role_permission p SET actions = array_append(p.actions, 'update')
FROM role r JOIN enterprise e ON e.id = r.enterprise_id AND e.parent_id IS NULL
WHERE p.role_id = r.id AND p.permission_code = 'license' AND NOT 'update' = ANY (p.actions)
  AND EXISTS (SELECT 1 FROM role_permission q WHERE q.role_id = r.id AND q.permission_code = 'role'
                AND 'update' = ANY (q.actions));

-- A stored YYYY-MM-DD as a date; NULL for a text that is none (written before the forms checked it), so one
-- bad row never breaks the notice list.
CREATE FUNCTION notice_date(value text) RETURNS date LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN value::date;
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;

DROP VIEW notice_view;
CREATE VIEW notice_view AS
SELECT 6 AS biz_type, a.id, a.enterprise_id, a.car_id, a.device_id, a.plate_number, a.phone, a.type, a.key,
       a.level, a.details, a.state, a.start_time AS create_time, NULL::text AS notice_kind,
       NULL::text AS notice_content, NULL::bigint AS user_id, NULL::smallint AS read, NULL::integer AS days_left,
       NULL::text AS notice_title
FROM alarm a
UNION ALL
SELECT 5, n.id, n.enterprise_id, n.car_id, NULL, n.plate, NULL, NULL, NULL, NULL, NULL,
       CASE WHEN n.received_at > now() - interval '7 days' THEN 0 ELSE 1 END, n.received_at,
       CASE WHEN n.data_type = 37890 THEN 'warning' ELSE 'message' END,  -- 0x9402 / 0x9302
       COALESCE(n.plate || ' ', '') || n.content, NULL, 0, NULL, NULL
FROM exchange_notice n
UNION ALL
SELECT 5, an.id, u.enterprise_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, an.created_at,
       'announcement', an.content, u.id,
       CASE WHEN EXISTS (SELECT 1 FROM announcement_read r WHERE r.user_id = u.id AND r.announcement_id = an.id)
            THEN 1 ELSE 0 END, NULL, an.title
FROM announcement an
JOIN enterprise audience ON audience.id = an.enterprise_id
JOIN enterprise ue ON starts_with(ue.path, audience.path)
JOIN app_user u ON u.enterprise_id = ue.id AND u.record_state = 1
WHERE an.record_state = 1
UNION ALL
SELECT 1, la.id, la.enterprise_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, la.state, la.created_at,
       'licenceApply', la.company || ' ' || la.contact || ' ' || la.vehicles, NULL, NULL, NULL, NULL
FROM licence_apply_view la
UNION ALL
SELECT k.biz_type, c.id, c.enterprise_id, c.id, c.master_device_id, c.plate_number, NULL, NULL, NULL, NULL, NULL,
       0, k.due::timestamp AT TIME ZONE 'Asia/Shanghai', k.kind, NULL, NULL, NULL,
       k.due - (now() AT TIME ZONE 'Asia/Shanghai')::date, NULL
FROM car c
CROSS JOIN LATERAL (VALUES (2, 'insurance', notice_date(c.insurance_expire)),
                           (3, 'inspection', notice_date(c.inspection_expire))) AS k (biz_type, kind, due)
WHERE c.record_state = 1 AND k.due IS NOT NULL
UNION ALL
SELECT 4, d.id, d.enterprise_id, NULL, NULL, NULL, d.phone, NULL, NULL, NULL, NULL, 0,
       notice_date(d.license_expire)::timestamp AT TIME ZONE 'Asia/Shanghai', 'licence', d.name, NULL, NULL,
       notice_date(d.license_expire) - (now() AT TIME ZONE 'Asia/Shanghai')::date, NULL
FROM driver d
WHERE d.record_state = 1 AND notice_date(d.license_expire) IS NOT NULL;
