"""JT/T 808 TCP gateway: terminals in, Kafka uplinks and sessions out, downlinks back to terminals."""
