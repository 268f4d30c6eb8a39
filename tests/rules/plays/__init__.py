"""Every ruleset's random games, for the shared properties (tests/rules/properties.py), found as
the rulesets are: a module here named after a ruleset of server.rules (`card_duel.py` for
`card-duel`), or a `plays.py` beside a ruleset that lives in another package
(`tests/rulesets/coin_toss/plays.py`), each exporting its `SUPPLY`."""

import importlib
import importlib.util
import pkgutil
from typing import Any

from server import rules
from server.rules.core import Ruleset
from tests.rules.properties import Supply

# The rulesets that live under tests/: their random games run the shared properties too.
OUTSIDE = "tests.rulesets"
RULESETS: dict[str, Ruleset[Any]] = {**rules.RULESETS, **rules.discover([OUTSIDE])}


def supply_modules() -> dict[str, str]:
    """The module of each Supply, by the ruleset id its name gives."""
    found = {
        m.name.replace("_", "-"): f"{__name__}.{m.name}" for m in pkgutil.iter_modules(__path__)
    }
    for package in sorted({*rules.packages(), OUTSIDE} - {rules.__name__}):
        for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
            beside = f"{package}.{module.name}.plays"
            if module.ispkg and importlib.util.find_spec(beside) is not None:
                found[module.name.replace("_", "-")] = beside
    return found


SUPPLIES: dict[str, Supply[Any]] = {
    ruleset_id: importlib.import_module(module).SUPPLY
    for ruleset_id, module in supply_modules().items()
}
