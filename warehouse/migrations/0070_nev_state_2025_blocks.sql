-- What a GB/T 32960.3-2025 terminal adds to the latest state (nev_state, step "gb_state"), for the new-energy
-- detail page (console-spec §2 nevCarDetail):
-- - general_faults: the general fault list as sent, two bytes an entry, the general alarm's number (its bit in
--   the general alarm flags) then that alarm's own level (the edition's table 23 as rtm_con reads it;
--   streams/gb_frames.general_levels). Part of the "alarms" block: it moves with alarms_at; a 2016 frame has
--   none (NULL).
-- - the edition's new blocks, each its own block with its own collection time (as migration 0049's): 0x30
--   fuel-cell stacks (fuel_cell_stacks: per stack voltage, current, hydrogen and air inlet pressure, air inlet
--   temperature, coolant outlet temperatures), 0x31 supercapacitor (voltage, current, cell voltages, probe
--   temperatures) and 0x32 supercapacitor extremes, as the codec decodes them (protocols/gb32960).
-- The view is made again so that its n.* takes the new columns.
-- depends: 0069_gb32960_2025_alarms

ALTER TABLE nev_state
    ADD COLUMN general_faults           jsonb,
    ADD COLUMN stacks_at                timestamptz,
    ADD COLUMN fuel_cell_stacks         jsonb,
    ADD COLUMN supercap_at              timestamptz,
    ADD COLUMN supercapacitor           jsonb,
    ADD COLUMN supercap_extremes_at     timestamptz,
    ADD COLUMN supercapacitor_extremes  jsonb;

DROP VIEW nev_state_view;
CREATE VIEW nev_state_view AS
SELECT n.*, e.path AS enterprise_path, c.plate_number
FROM nev_state n
JOIN enterprise e ON e.id = n.enterprise_id
LEFT JOIN car c ON c.id = n.car_id;
