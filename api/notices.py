"""Notice business types of the bell (console-spec §9 ``bizType``): 1 approvals, 2 insurance, 3 inspection,
4 licence, 5 notices, 6 alarms."""

NOTICE_BIZ_TYPES = (1, 2, 3, 4, 5, 6)
NOTICE_BIZ_ANNOUNCEMENT = 5  # a superior platform's messages and warning tips (JT/T 809 0x9302 / 0x9402)
NOTICE_BIZ_ALARM = 6  # the unhandled alarms in the caller's scope
