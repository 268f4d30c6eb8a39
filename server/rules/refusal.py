"""A guard's refusal, answered rather than raised: a guard asked for every view (what its viewer
may do, server/rules/offers.py) is refused more often than not, and raising costs many times
the check (more again in compiled code, which builds a traceback at every frame it leaves)."""

from typing import TypeVar

from server.rules.core import RuleError

T = TypeVar("T")


class Refusal:
    """What a RuleError would say: its wire code and its message."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message


def sure(found: T | Refusal) -> T:
    """What a guard found, or its refusal raised: decide's way to ask a guard."""
    if isinstance(found, Refusal):
        raise RuleError(found.code, found.message)
    return found
