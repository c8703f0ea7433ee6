"""`python -m simulator --terminals N --interval S`."""

from simulator.cli import simulate_command

if __name__ == "__main__":
    simulate_command()
