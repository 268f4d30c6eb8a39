"""The chaos suite's figures, as one table at the end of every run that ran any of it."""

import pytest

from tests.chaos.harness import FIGURES, SCALE, SEED, table


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not FIGURES:
        return
    terminalreporter.section(f"chaos figures (BIJSE_CHAOS_SCALE={SCALE}, BIJSE_CHAOS_SEED={SEED})")
    for line in table():
        terminalreporter.write_line(line)
