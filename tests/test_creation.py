"""Who may create games: anyone on a server only this machine reaches; on one that phones reach
from elsewhere, only the admin token, unless the operator opens it on purpose."""

from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port
from tests.proxy import serve, stop

GAME = {"ruleset": "card-duel", "name": "Les"}


@pytest.mark.parametrize(
    ("options", "anyone", "admin"),
    [
        ((), 201, None),  # loopback: a laptop's own browser
        (("--host", "0.0.0.0"), 401, None),  # the LAN: closed by default
        (("--public-url", "https://hra.example.cz"), 401, None),  # behind a public proxy
        (("--host", "0.0.0.0", "--open-creation"), 201, None),
        (("--host", "0.0.0.0", "--admin-token", "sekret-spravce"), 401, 201),
    ],
)
async def test_game_creation_is_closed_where_others_reach_the_server(
    tmp_path: Path, options: tuple[str, ...], anyone: int, admin: int | None
) -> None:
    port, log = free_port(), tmp_path / "server.log"
    process = await serve(port, f"sqlite:///{tmp_path / 'g.db'}", log, *options)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            answer = await http.post("/api/games", json=GAME)
            assert answer.status_code == anyone, answer.text
            if anyone == 401:
                assert answer.json()["error"]["code"] == "unauthorized"
            if admin is not None:
                auth = {"Authorization": "Bearer sekret-spravce"}
                assert (await http.post("/api/games", json=GAME, headers=auth)).status_code == admin
    finally:
        stop(process)
    closed = "Game creation is closed" in log.read_text()
    assert closed == (anyone == 401 and admin is None)
