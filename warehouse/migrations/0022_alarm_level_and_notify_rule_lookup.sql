-- Alarm levels and notification rules as they are applied. No new data, only the
-- meaning of what migrations 0018/0019 made, kept with the columns (psql \d+ shows it):
--
-- alarm.level: 1 (highest) to 3. ADAS/DSM (types 5, 6) carry the level their terminal reported (1 or 2,
-- the Jiangsu "一级/二级"); every other alarm (0x0200 bits, video bits, platform alarms, TPMS/BSD events)
-- gets, when it is written (streams/alarm_model.py), the level its enterprise gives the key in
-- alarm_level: the newest live row of the alarm's enterprise, else of its nearest ancestor that has one;
-- NULL when none does. A level changed later applies to new alarms only.
-- platform_alarm_notify_rule: the default notification rule of a key for the users of the enterprise and
-- of its subsidiaries (the nearest enterprise's newest live row); a user's alarm_user_setting row beats
-- it; without either, the built-in default (a window, no voice, all day): warehouse/queries/alarms.py
-- effective_rules.
-- depends: 0018_alarms 0019_platform_alarm_rules

COMMENT ON COLUMN alarm.level IS
    '1 (highest) to 3: the terminal''s own for ADAS/DSM, else the enterprise''s alarm_level of the key when written'
    ' (the alarm''s enterprise, else its nearest ancestor with one); NULL when none';
COMMENT ON TABLE alarm_level IS
    'The level an enterprise gives an alarm key (the newest live row counts, for it and for subsidiaries without'
    ' their own); applied to alarms without a terminal-reported level when they are written';
COMMENT ON TABLE platform_alarm_notify_rule IS
    'An enterprise''s default notification rule per alarm key (the newest live row counts, for its users and'
    ' those of subsidiaries without their own); a user''s alarm_user_setting overrides it';
