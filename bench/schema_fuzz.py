"""The schema fuzz for a release: schemathesis against the served OpenAPI document, longer than
the suite's (tests/test_schema_fuzz.py), with every check, every phase, as every role of a game
of each ruleset, on SQLite and on PostgreSQL. Prints requests, 5xx and contract violations per
database (and each violation below the table):

    .venv/bin/python -m bench.schema_fuzz [--max-examples 50] [--seed N] [--rulesets card-duel,...]

PostgreSQL: a fresh database on $BIJSE_TEST_POSTGRES_URL (or --postgres-url), dropped at the
end; without one, SQLite only.
"""

import argparse
import asyncio
import os
import secrets
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from server.rules import RULESETS
from tests.fuzzing import PHASES, Figures, fuzz, seats, served, table


def run(database_url: str, rulesets: list[str], seed: int, max_examples: int) -> Figures:
    started, total = time.perf_counter(), Figures()
    with served(database_url) as (url, counted):
        for ruleset in rulesets:
            for seat in seats(url, ruleset):
                figures = fuzz(url, counted, seat, seed, max_examples, list(PHASES))
                print(
                    f"  {ruleset:<13} {seat.role:<21} {figures.requests:>7} requests"
                    f" {figures.server_errors:>4} 5xx {len(figures.violations):>4} violations",
                    flush=True,
                )
                total.add(figures)
    total.seconds = time.perf_counter() - started
    return total


@contextmanager
def fresh_postgres(server_url: str) -> Iterator[str]:
    """A new database on that PostgreSQL server, dropped afterwards."""
    name = f"bijse_fuzz_{secrets.token_hex(4)}"
    server = make_url(server_url).set(drivername="postgresql")

    async def execute(sql: str) -> None:
        connection = await asyncpg.connect(server.render_as_string(hide_password=False))
        await connection.execute(sql)
        await connection.close()

    asyncio.run(execute(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(execute(f'DROP DATABASE "{name}" WITH (FORCE)'))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--rulesets", default=",".join(RULESETS))
    parser.add_argument("--postgres-url", default=os.environ.get("BIJSE_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    rulesets = args.rulesets.split(",")
    print(f"seed {args.seed}, {args.max_examples} examples an operation, rulesets {rulesets}")
    rows: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory() as tmp:
        print("sqlite")
        rows["sqlite"] = run(
            f"sqlite:///{Path(tmp) / 'fuzz.db'}", rulesets, args.seed, args.max_examples
        )
    if args.postgres_url:
        with fresh_postgres(args.postgres_url) as url:
            print("postgres")
            rows["postgres"] = run(url, rulesets, args.seed, args.max_examples)
    print(table(rows))
    for name, figures in rows.items():
        for violation in figures.violations:
            print(f"\n[{name}] {violation}")
    return 1 if any(f.server_errors or f.violations for f in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
