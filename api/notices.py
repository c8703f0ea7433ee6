"""Notice business types of the bell (console-spec §9 ``bizType``): 1 approvals, 2 insurance, 3 inspection,
4 licence, 5 notices, 6 alarms."""

NOTICE_BIZ_TYPES = (1, 2, 3, 4, 5, 6)
NOTICE_BIZ_ALARM = 6  # the unhandled alarms in the caller's scope
