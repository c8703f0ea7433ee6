"""The regulator in a box: a JT/T 809 superior platform (``fleet exchange-sim``)."""

from exchange.regulator.accounts import Account, parse_account, parse_keys
from exchange.regulator.links import LinkDown, Timing
from exchange.regulator.reconcile import reconcile
from exchange.regulator.regulator import Regulator

__all__ = ["Account", "LinkDown", "Regulator", "Timing", "parse_account", "parse_keys", "reconcile"]
