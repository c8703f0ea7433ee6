"""benchmarks/scaling_arithmetic.py (docs/scaling.md's arithmetic) loaded as a module for the unit tests."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from fleet.settings import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "scaling_arithmetic.py"


def load_arithmetic() -> ModuleType:
    """The script as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("scaling_arithmetic", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module
