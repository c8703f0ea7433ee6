"""`python -m simulator.gb32960 [--vehicles N] [--interval S]`."""

from simulator.gb32960.cli import simulate_gb_command

if __name__ == "__main__":
    simulate_gb_command()
