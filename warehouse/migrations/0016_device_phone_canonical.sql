-- Terminal identity: one canonical phone per terminal, the digits without leading zeros
-- (fleet/phones.py canonical_phone). A 2011/2013 header carries a SIM number as 12 BCD digits, a 2019
-- header as 20, an administrator types 11: all name the same terminal, and the gateway now looks a
-- terminal up by the canonical form only. The API normalises device.phone and sim.msisdn on every write
-- (api/query/fleet_hooks.py); this rewrites what is stored.
--
-- An active row is rewritten only when no other active row has (or would get) the same canonical
-- phone: such a clash names one terminal twice and is left for an administrator (the row already
-- canonical keeps working). Deleted rows (record_state 0) are outside the unique index: always rewritten.
-- depends: 0012_open_platform

WITH canon AS (
    SELECT id, record_state, COALESCE(NULLIF(ltrim(phone, '0'), ''), '0') AS phone,
           count(*) FILTER (WHERE record_state = 1)
               OVER (PARTITION BY COALESCE(NULLIF(ltrim(phone, '0'), ''), '0')) AS active_same
    FROM device
    WHERE phone ~ '^[0-9]+$'
)
UPDATE device d SET phone = c.phone
FROM canon c
WHERE d.id = c.id AND d.phone <> c.phone AND (c.record_state <> 1 OR c.active_same = 1);

-- The seed (and operators) recorded the SIM's number in the header form too; same rule per enterprise,
-- as sim_msisdn_uniq is.
WITH canon AS (
    SELECT id, record_state, COALESCE(NULLIF(ltrim(msisdn, '0'), ''), '0') AS msisdn,
           count(*) FILTER (WHERE record_state = 1)
               OVER (PARTITION BY enterprise_id, COALESCE(NULLIF(ltrim(msisdn, '0'), ''), '0')) AS active_same
    FROM sim
    WHERE msisdn ~ '^[0-9]+$'
)
UPDATE sim s SET msisdn = c.msisdn
FROM canon c
WHERE s.id = c.id AND s.msisdn <> c.msisdn AND (c.record_state <> 1 OR c.active_same = 1);
