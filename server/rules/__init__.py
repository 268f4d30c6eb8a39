"""The rulesets the server knows, by id: every subpackage that exports a RULESET, of this
package and of the packages named in `BIJSE_RULESETS` (comma-separated, e.g. `tests.rulesets`),
found the same way. A ruleset's phone side is `pwa/js/rulesets/<id>/`, or the folder its
`Ruleset.phone` names for one that lives outside this tree."""

import importlib
import os
import pkgutil
from typing import Any

from server.rules.core import Ruleset

PACKAGES_VARIABLE = "BIJSE_RULESETS"


def discover(packages: list[str]) -> dict[str, Ruleset[Any]]:
    found: dict[str, Ruleset[Any]] = {}
    for name in packages:
        package = importlib.import_module(name)
        for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if module.ispkg:
                ruleset = getattr(importlib.import_module(f"{name}.{module.name}"), "RULESET", None)
                if isinstance(ruleset, Ruleset):
                    if ruleset.id in found:
                        raise ValueError(f"two rulesets have the id {ruleset.id}")
                    found[ruleset.id] = ruleset
    return found


def packages() -> list[str]:
    extra = os.environ.get(PACKAGES_VARIABLE, "")
    return [__name__, *(name.strip() for name in extra.split(",") if name.strip())]


RULESETS = discover(packages())
