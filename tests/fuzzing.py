"""Schemathesis against a real server over HTTP: the machinery of tests/test_schema_fuzz.py
(short, seeded) and bench/schema_fuzz.py (long, for a release).

The server is a real uvicorn, in a thread with its own event loop (schemathesis's client blocks),
counting every answer it gives by status. The document is the one the server serves. Each role
is one run of schemathesis's engine, every check on, with that role's token on every request.
"""

import asyncio
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import schemathesis
import uvicorn
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events, from_schema
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.web.app import create_app
from server.web.socket_protocol import OPTIONS as SOCKET_OPTIONS
from tests.conftest import free_port

# Where validity depends on the game, not only on the body: a command of another ruleset (the
# document lists every ruleset's), a config whose fields contradict each other, a rank-bases
# player without a team. The server answers those 422 `invalid`, as docs/protocol.md says.
GAME_DEPENDENT = ("/api/games", "/api/games/{gid}/players", "/api/games/{gid}/commands")
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "422", "429"]


class Counted:
    """The app, counting the statuses of its answers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.statuses: Counter[int] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def counting(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.statuses[message["status"]] += 1
            await send(message)

        await self.app(scope, receive, counting if scope["type"] == "http" else send)


@contextmanager
def served(database_url: str) -> Iterator[tuple[str, Counted]]:
    """A real uvicorn on a loopback port, in a thread of its own, rate limits off (a fuzzer sends
    thousands of requests a minute from one address)."""
    app = Counted(create_app(database_url, rate_limits=False))
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="critical", **SOCKET_OPTIONS
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server did not start")
        threading.Event().wait(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join()


@dataclass(frozen=True)
class Seat:
    """Who sends the requests: a token (or none), and the game they are sent about."""

    role: str
    game_id: str
    token: str | None


CONFIGS = {
    "rank-bases": {
        "teams": [{"team_id": "red", "name": "Red"}, {"team_id": "blue", "name": "Blue"}]
    }
}


def seats(url: str, ruleset: str = "rank-bases") -> list[Seat]:
    """A game of `ruleset` with a member of every role it takes (rank-bases has leaders), plus
    a token of another game, an unknown token and none at all."""
    with httpx.Client(base_url=url) as http:
        config = CONFIGS.get(ruleset, {})
        body = {"ruleset": ruleset, "name": "Fuzz", "config": config}
        created = http.post("/api/games", json=body).json()
        game_id, organizer = created["game_id"], created["organizer_token"]
        found = [Seat("organizer", game_id, organizer)]
        team = "red" if ruleset == "rank-bases" else None
        for role in ("leader", "player", "spectator"):
            added = http.post(
                f"/api/games/{game_id}/players",
                json={
                    "name": role.title(),
                    "role": role,
                    "team": team if role != "spectator" else None,
                },
                headers={"Authorization": f"Bearer {organizer}"},
            )
            if added.status_code == 201:  # a ruleset without that role refuses it
                found.append(Seat(role, game_id, added.json()["token"]))
        other = http.post("/api/games", json={"ruleset": "card-duel", "name": "Other"}).json()
    return [
        *found,
        Seat("another game's token", game_id, other["organizer_token"]),
        Seat("unknown token", game_id, "x" * 32),
        Seat("no token", game_id, None),
    ]


@dataclass
class Figures:
    requests: int = 0
    server_errors: int = 0
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, other: "Figures") -> None:
        self.requests += other.requests
        self.server_errors += other.server_errors
        self.violations += other.violations
        self.seconds += other.seconds


def table(rows: dict[str, Figures]) -> str:
    """The figures, a line per database."""
    lines = [f"{'database':<12}{'requests':>10}{'5xx':>6}{'violations':>12}{'seconds':>9}"]
    for name, f in rows.items():
        lines.append(
            f"{name:<12}{f.requests:>10}{f.server_errors:>6}{len(f.violations):>12}{f.seconds:>9.1f}"
        )
    return "\n".join(lines)


def settings(seat: Seat, seed: int, max_examples: int, phases: list[str]) -> SchemathesisConfig:
    checks: dict[str, Any] = {"enabled": True}
    return SchemathesisConfig.from_dict(
        {
            "seed": seed,
            "workers": 1,
            "headers": {"Authorization": f"Bearer {seat.token}"} if seat.token else {},
            "parameters": {"path.gid": seat.game_id},
            "generation": {"max-examples": max_examples, "mode": "all", "database": "none"},
            "checks": checks,
            "phases": {name: {"enabled": name in phases} for name in PHASES},
            "operations": [
                {
                    "include-path": path,
                    "checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED}},
                }
                for path in GAME_DEPENDENT
            ],
        }
    )


PHASES = ("examples", "coverage", "fuzzing", "stateful")


def fuzz(
    url: str, counted: Counted, seat: Seat, seed: int, max_examples: int, phases: list[str]
) -> Figures:
    """One run of every check, as `seat`; what it found."""
    before = counted.statuses.copy()
    schema = schemathesis.openapi.from_url(
        f"{url}/api/openapi.json", config=settings(seat, seed, max_examples, phases)
    )
    figures = Figures()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished) and event.status == Status.FAILURE:
            for case_id, nodes in event.recorder.checks.items():
                for node in nodes:
                    if node.status == Status.FAILURE and node.failure_info is not None:
                        case = event.recorder.cases[case_id].value
                        failure = node.failure_info.failure
                        figures.violations.append(
                            f"{seat.role}: {case.method} {case.formatted_path}: {failure.title}:"
                            f" {failure.message[:600]}\n    {case.as_curl_command()[:600]}"
                        )
        elif isinstance(event, events.NonFatalError):
            figures.violations.append(f"{seat.role}: error {event.label}: {event.info.message}")
        elif isinstance(event, events.FatalError):
            figures.violations.append(f"{seat.role}: fatal: {event.exception}")
        elif isinstance(event, events.EngineFinished):
            figures.seconds = event.running_time
    answered = counted.statuses - before
    figures.requests = sum(answered.values())
    figures.server_errors = sum(n for status, n in answered.items() if status >= 500)
    return figures
