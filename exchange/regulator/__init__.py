"""The regulator in a box: a JT/T 809 superior platform (``fleet exchange-sim``)."""

from exchange.regulator.reconcile import reconcile
from exchange.regulator.regulator import Regulator
from exchange.superior.accounts import Account, parse_account, parse_keys
from exchange.superior.links import LinkDown, Timing

__all__ = ["Account", "LinkDown", "Regulator", "Timing", "parse_account", "parse_keys", "reconcile"]
