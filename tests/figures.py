"""The figures the reliability tests report (the chaos suite, the fuzzers): one table printed at
the end of every run that ran any of them (tests/conftest.py), asserted on by each test too."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    area: str
    done: str
    result: str


FIGURES: list[Figure] = []


def report(area: str, done: str, result: str) -> None:
    """A row of the table printed at the end of the run (assert on the figures too)."""
    FIGURES.append(Figure(area, done, result))


def table() -> list[str]:
    """The figures as a Markdown table."""
    rows = [("area", "what was done", "result"), *((f.area, f.done, f.result) for f in FIGURES)]
    return [f"| {a} | {d} | {r} |" for a, d, r in rows]
