"""fleetwatch as an inferior platform: the JT/T 809 link service (``fleet exchange``), exchange/README.md."""
