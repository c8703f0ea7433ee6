"""Pure protocol codecs (bytes in, typed messages out, and back). No sockets, no database, no Kafka."""
