-- A superior platform's JT/T 1078 video requests open real streams (platform-spec §2 data exchange "playback";
-- exchange/link/video_requests.py): a 0x9801 / 0x9A01 registers the stream with the media server and sends
-- 0x9101 / 0x9201 to the terminal through the command path; a 0x9802 sends 0x9102 close, a 0x9A02 0x9202.
-- command_id: that terminal command, whose outcome (the streams correlate the terminal's 0x0001) is the
-- answer's RESULT (0 when the terminal answered 0, else 1), sent by the link service's poll; NULL when the
-- request was answered at once (vehicle not exchanged or offline, stream already fed, nothing to stop).
-- stream_id: the media server's stream (<deviceId>-<channel>-<live|listen|playback>).
-- depends: 0051_exchange_video_requests 0013_commands

ALTER TABLE exchange_video_request
    ADD COLUMN command_id bigint REFERENCES command(id) ON DELETE SET NULL,
    ADD COLUMN stream_id  text;
CREATE INDEX exchange_video_request_unanswered ON exchange_video_request (platform_id) WHERE answered_at IS NULL;
