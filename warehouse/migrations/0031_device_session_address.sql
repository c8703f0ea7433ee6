-- The source address of a terminal's current authenticated JT/T 808 session.
--
-- device.session_address: the IP (no port) the gateway saw on the connection that authenticated
-- (`peer` of the `online` record on device.sessions.v1), written by the streams states agent and
-- cleared when that session goes offline. The media server (7612) and the attachment server (7613)
-- accept a terminal's connection only from this address under the `address` policy
-- (warehouse/queries/terminal_session.py, docs/architecture.md "Terminal ports").
-- depends: 0030_reports

ALTER TABLE device ADD COLUMN session_address text;
