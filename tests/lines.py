"""Lines for the store's own tests: the store writes any event's type, version and data, and
knows no rules."""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Line:
    type: str
    data: dict[str, Any]
    version: int = 1
