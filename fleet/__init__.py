"""fleetwatch shared core: settings, domain enums, topic names and payload schemas, the `fleet` CLI."""
