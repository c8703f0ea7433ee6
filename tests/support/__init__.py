"""Helpers shared by the test suites (servers of the session, free ports)."""
