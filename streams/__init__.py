"""The Faust stream processors: positions, states and console events (see README.md)."""
