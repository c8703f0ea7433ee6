"""`python -m exchange.link` (the same as `fleet exchange`): the JT/T 809 link service, supervised by `fleet up`."""

from exchange.link.command import main

if __name__ == "__main__":
    main()
