-- A GB/T 32960.3-2025 terminal's general fault list kept with the latest state (nev_state, step "gb_state"):
-- two bytes an entry, the general alarm's number (its bit in the general alarm flags) then that alarm's own
-- level (the edition's table 23 as rtm_con reads it; streams/gb_frames.general_levels), as the terminal sent
-- it, so the new-energy detail page shows each current alarm with its level (console-spec §2 nevCarDetail:
-- alarms with their levels). Part of the "alarms" block: it moves with alarms_at; a 2016 frame has none (NULL).
-- The view is made again so that its n.* takes the new column.
-- depends: 0069_gb32960_2025_alarms

ALTER TABLE nev_state ADD COLUMN general_faults jsonb;

DROP VIEW nev_state_view;
CREATE VIEW nev_state_view AS
SELECT n.*, e.path AS enterprise_path, c.plate_number
FROM nev_state n
JOIN enterprise e ON e.id = n.enterprise_id
LEFT JOIN car c ON c.id = n.car_id;
