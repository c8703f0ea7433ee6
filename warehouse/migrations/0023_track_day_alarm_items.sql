-- Active-safety and video alarms on the track (warehouse/queries/track_alarms.py): a day
-- summary keeps every alarm fix, now also those with an active-safety item (0x64-0x67) or a non-zero
-- video alarm (0x14) and no alarm bit, and keeps their items so a long read names them as a read of gps
-- does. alarm_items: {"<epoch ms>": {the fix's extras items adas_alarm .. abnormal_driving}} for the kept
-- fixes that have any ('{}' when none). NULL: a summary made before this migration, which may lack such
-- fixes: it counts as missing (recomputed when read, and by `fleet summarise-days` without --force).
-- depends: 0021_alarm_queries

ALTER TABLE track_day ADD COLUMN alarm_items jsonb;
