-- History logs (api/query/entities_logs.py): the GPS, online and ACC state logs read
-- through the declared entities, each row with its vehicle's plate number.
--
-- gps_log_view: the fixes of the terminals fitted to a vehicle, recorded while fitted to it. A read
-- names the vehicle (EntitySpec.window), so the plan is car -> its devices (device_car_idx) -> the
-- gps primary key (device_id, fix_at) in the daily partitions of the range; gps is never scanned.
-- online_log_view / acc_state_log_view: transitions, far fewer rows; listed per vehicle or for the
-- whole enterprise, newest first, hence the (tenant, time) and (car, time) indexes.
-- depends: 0009_organisation

CREATE VIEW gps_log_view AS
SELECT g.device_id, g.fix_at, c.id AS car_id, g.enterprise_id, c.plate_number, d.phone AS device_phone,
       g.lng, g.lat, g.altitude_m, g.speed_kmh, g.direction_deg, g.mileage_km, g.fuel_l,
       g.alarm_flags, g.status_flags, g.received_at
FROM car c
JOIN device d ON d.car_id = c.id
JOIN gps g ON g.device_id = d.id AND g.car_id = c.id;

CREATE VIEW online_log_view AS
SELECT l.device_id, l.at, l.state, l.enterprise_id, l.reason, d.car_id, c.plate_number,
       d.phone AS device_phone
FROM device_online_log l
JOIN device d ON d.id = l.device_id
LEFT JOIN car c ON c.id = d.car_id;

CREATE VIEW acc_state_log_view AS
SELECT a.device_id, a.create_time, a.state, a.car_id, a.enterprise_id, a.lng, a.lat, c.plate_number,
       d.phone AS device_phone
FROM acc_state_log a
LEFT JOIN car c ON c.id = a.car_id
LEFT JOIN device d ON d.id = a.device_id;

CREATE INDEX device_online_log_enterprise_at_idx ON device_online_log (enterprise_id, at);
CREATE INDEX acc_state_log_enterprise_time_idx ON acc_state_log (enterprise_id, create_time);
CREATE INDEX acc_state_log_car_time_idx ON acc_state_log (car_id, create_time);
