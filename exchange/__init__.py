"""Platform-to-platform exchange (JT/T 809): the links to superior platforms and from inferior ones, and the
regulator in a box (a superior platform for tests and the demo). Consumes Kafka and the warehouse; never on
the uplink worker's path (docs/architecture.md)."""
