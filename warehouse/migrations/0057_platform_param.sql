-- Platform parameters an administrator changes at run time (platform-spec §2 settings "param",
-- api/platform_params.py declares them): one row per parameter a root enterprise's administrator set; a
-- parameter without a row has its configured value (ApiSettings, from the environment). The API reads the
-- rows on every request that a parameter governs, so a change takes effect in every process without a restart.
--
-- Changing one needs system:update: the catalogue gains the action, and the roles of root enterprises that
-- could already read the system monitor keep being the platform's administrators (as 0034 did for
-- sensitiveCommand); a subsidiary's role never changes platform-wide values (the route checks the root).
-- depends: 0009_organisation

CREATE TABLE platform_param (
    name        text PRIMARY KEY,
    value       jsonb NOT NULL,
    updated_by  text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

UPDATE permission SET actions = (SELECT array_agg(DISTINCT a ORDER BY a) FROM unnest(actions || ARRAY['update']) a)
WHERE code = 'system';

UPDATE role_permission rp
SET actions = (SELECT array_agg(DISTINCT a ORDER BY a) FROM unnest(rp.actions || ARRAY['update']) a)
FROM role r
JOIN enterprise e ON e.id = r.enterprise_id AND e.parent_id IS NULL
WHERE rp.role_id = r.id AND rp.permission_code = 'system' AND 'query' = ANY (rp.actions);
