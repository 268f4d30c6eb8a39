"""The HTTP API keeps its own OpenAPI document: schemathesis with every check, on a real uvicorn
over HTTP, on each database, as every role. Seeded and short; bench/schema_fuzz.py runs longer.
"""

import time

from tests.figures import report
from tests.fuzzing import Figures, fuzz, seats, served, table

SEED = 20261129


def test_the_api_keeps_its_openapi_contract_as_every_role(database_url: str) -> None:
    started, total = time.perf_counter(), Figures()
    with served(database_url) as (url, counted):
        for seat in seats(url, "rank-bases"):
            # The organizer reaches every route: the deterministic coverage phase (boundary
            # values, every field negated, wrong methods, missing headers) runs as the
            # organizer; every role gets the fuzzing phase.
            if seat.role == "organizer":
                total.add(fuzz(url, counted, seat, SEED, 10, ["coverage", "fuzzing", "stateful"]))
            else:
                total.add(fuzz(url, counted, seat, SEED, 8, ["fuzzing"]))
    total.seconds = time.perf_counter() - started
    database = "PostgreSQL" if database_url.startswith("postgresql") else "SQLite"
    print(table({database: total}))
    report(
        f"HTTP fuzzing (schemathesis, every check), {database}",
        f"{total.requests} requests as 7 roles (organizer, leader, player, spectator, "
        "another game's token, an unknown token, none)",
        f"{total.server_errors} 5xx, {len(total.violations)} contract violations",
    )
    assert total.requests > 1000
    assert total.server_errors == 0
    assert not total.violations, "\n\n".join(total.violations)
