"""Virtual JT/T 808 terminals for the demo, the tests and load runs (`python -m simulator`)."""
