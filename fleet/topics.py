"""Kafka topic names. Payload schemas are documented in docs/topics.md (JSON, UTF-8)."""

JT808_UPLINK = "jt808.uplink.v1"          # key: terminal phone; every uplink from an authenticated terminal
JT808_DOWNLINK = "jt808.downlink.v1"      # key: terminal phone; frames for the gateway holding the terminal
JT808_SENT = "jt808.sent.v1"              # key: canonical terminal phone; every frame a gateway wrote (or failed to)
DEVICE_SESSIONS = "device.sessions.v1"    # key: terminal phone; online / offline events
CONSOLE_EVENTS = "console.events.v1"      # key: enterprise id; pushes and coalesced live positions
GB32960_UPLINK = "gb32960.uplink.v1"      # key: VIN; every frame of a GB/T 32960 / GB 17691 terminal (fleet/gb32960_records.py)
DEAD_LETTER = "fleet.deadletter.v1"       # key: original key; messages an agent could not process

ALL_TOPICS = (JT808_UPLINK, JT808_DOWNLINK, JT808_SENT, DEVICE_SESSIONS, CONSOLE_EVENTS, GB32960_UPLINK,
              DEAD_LETTER)
