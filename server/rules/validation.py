"""Turning pydantic's complaints into one clear `invalid` error."""

from pydantic import ValidationError

from server.rules.core import RuleError


def invalid(error: ValidationError, where: str = "") -> RuleError:
    problems = []
    for item in error.errors()[:5]:
        location = ".".join(str(part) for part in (where, *item["loc"]) if part != "")
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown field"
        problems.append(f"{location}: {message}" if location else message)
    return RuleError("invalid", "; ".join(problems))
