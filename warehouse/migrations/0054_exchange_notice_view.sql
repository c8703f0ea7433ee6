-- The data-exchange notifyMessage screen (platform-spec §2): a superior platform's messages between platforms
-- (JT/T 809 0x9302, acknowledged with 0x1302) and warning tips (0x9402) as they were received, with the
-- platform's name, the vehicle a tip is about and when the acknowledgement went out. A row belongs to the
-- enterprise exchange_notice gave it (a tip about a vehicle of ours: that vehicle's enterprise; anything else:
-- the platform's owner), so a subsidiary sees the tips about its own vehicles.
-- depends: 0053_notices

CREATE VIEW exchange_notice_view AS
SELECT n.id, n.platform_id, p.name AS platform_name, n.enterprise_id, n.received_at, n.data_type, n.source_sn,
       n.info_id, n.object_type, n.object_id, n.car_id, n.plate, n.plate_colour, n.warn_src, n.warn_type,
       n.warn_time, n.content, n.answered_at
FROM exchange_notice n JOIN superior_platform p ON p.id = n.platform_id;
