-- The sensitiveCommand permission (api/routes/commands.py): commands that can take a terminal off the
-- platform or re-identify it (8103 server, port, APN, dial user / password, reset and monitor phones,
-- province, city, plate), track or record it without an end (8202, 8801), or delete its media after upload
-- (8803) need it, besides command:cmd, a confirmation in the request, and they leave an audit line.
--
-- An existing installation gets the catalogue entry, and the roles of root enterprises (the platform's own
-- administrators) that could already send commands and edit roles keep the capability, so they can grant it
-- further; a subsidiary's role has it only once one of them grants it (a role may grant only what its
-- holder has). The demo seed grants it to the demo administrator roles (warehouse/seed.py).
-- depends: 0009_organisation

INSERT INTO permission (code, name, actions) VALUES ('sensitiveCommand', '敏感指令', ARRAY['cmd'])
ON CONFLICT (code) DO NOTHING;

INSERT INTO role_permission (role_id, permission_code, actions)
SELECT r.id, 'sensitiveCommand', ARRAY['cmd']
FROM role r
JOIN enterprise e ON e.id = r.enterprise_id AND e.parent_id IS NULL
WHERE EXISTS (SELECT 1 FROM role_permission p WHERE p.role_id = r.id AND p.permission_code = 'command'
                AND 'cmd' = ANY (p.actions))
  AND EXISTS (SELECT 1 FROM role_permission p WHERE p.role_id = r.id AND p.permission_code = 'role'
                AND 'update' = ANY (p.actions))
ON CONFLICT (role_id, permission_code) DO NOTHING;
