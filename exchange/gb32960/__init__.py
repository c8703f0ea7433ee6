"""GB/T 32960 data exchange: fleetwatch forwarding its new-energy vehicles' data to superior platforms
(platform-spec §2 "Data exchange", the gb32960 exchange; GB/T 32960.3-2016 §7.2, §7.5), and the superior in a box."""
