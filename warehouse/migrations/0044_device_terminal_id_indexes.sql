-- A registration that succeeds looks up the other live devices of its enterprise known by the terminal id
-- it reported, as serial (device_sn) or as registered terminal id (warehouse/queries/registration.py
-- _SAME_TERMINAL_ID). Neither column had an index usable for it (device_device_sn_uniq leaves out
-- unassigned devices), so every registration read the whole device table: 3-4 ms of PostgreSQL CPU per
-- login at 10,000 devices, against about 0.7 ms for the rest of a login. With these two the lookup is two
-- index probes. docs/performance.md "Registration cost" has the figures and the command.
-- depends: 0039_refused_registration

CREATE INDEX IF NOT EXISTS device_sn_live_idx ON device (enterprise_id, device_sn) WHERE record_state = 1;
CREATE INDEX IF NOT EXISTS device_registered_terminal_id_idx ON device (enterprise_id, registered_terminal_id)
    WHERE record_state = 1;
