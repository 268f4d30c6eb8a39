"""The rulesets the server knows, by id: every subpackage that exports a RULESET."""

import importlib
import pkgutil
from typing import Any

from server.rules.core import Ruleset


def discover() -> dict[str, Ruleset[Any]]:
    found: dict[str, Ruleset[Any]] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.ispkg:
            ruleset = importlib.import_module(f"{__name__}.{module.name}").RULESET
            found[ruleset.id] = ruleset
    return found


RULESETS = discover()
