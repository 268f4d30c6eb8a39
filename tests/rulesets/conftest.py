"""The browser fixtures of tests/browser, for the rulesets that live here."""

from tests.browser.conftest import browser, pw

__all__ = ["browser", "pw"]
