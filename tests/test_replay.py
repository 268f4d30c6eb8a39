"""Replaying a recorded game reproduces every view its viewers saw live, at every seq they saw."""

import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from server.game.patch import bare
from server.game.replay import EVERY, PUBLIC, Film
from server.rules import RULESETS
from server.rules.core import Member
from server.store import Recorded
from tests.client import Game, Phone
from tests.rules.drivers import CardDuelGame


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server) as client:
        yield client


class Recorder(Phone):
    """A phone that keeps every view it held: each whole view, and each view a patch made."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.seen: list[dict[str, Any]] = []

    async def receive(self, timeout: float = 5) -> dict[str, Any]:
        message = await super().receive(timeout)
        if message["type"] in ("view", "patch"):
            self.seen.append({**message, "view": bare(self.view)})
        return message

    async def drain(self) -> None:
        """Everything sent so far (a view is sent only when it changed, so wait for quiet)."""
        try:
            while True:
                await self.receive(timeout=0.5)
        except TimeoutError:
            pass


async def test_replay_shows_every_viewer_what_they_saw_live(
    live_server: str, http: httpx.AsyncClient
) -> None:
    game = await Game.create(http, stun_s=600, escape_immunity_s=600)
    people = [await game.add(name) for name in ("Anna", "Bob", "Cyril", "Dana")]
    spectator = await game.add("Board", "spectator")
    await game.ok(game.organizer, "start_game")
    viewers = {
        game.organizer: None,
        people[0]["token"]: None,
        spectator["token"]: None,
    }
    for token in viewers:
        viewers[token] = Recorder((await Phone.connect(game.ws_url(live_server, token))).socket)
    recorders: list[Recorder] = [r for r in viewers.values() if r is not None]
    rng = random.Random(5)
    for _ in range(12):
        a, b = rng.sample(people, 2)
        response = await game.command(a["token"], "challenge", target=b["code"])
        if response.status_code != 200:
            continue
        while True:
            view = (await game.view(a["token"]))["view"]
            duel = view["duel"]
            if duel is None:
                break
            for who in (a, b):
                cards = (await game.view(who["token"]))["view"]["me"]["cards"]
                answer = await game.command(
                    who["token"],
                    "pick",
                    duel_id=duel["duel_id"],
                    card_id=rng.choice(cards)["card_id"],
                )
                assert answer.status_code in (200, 409), answer.text
    card = {"title": "Kuše", "big": 4, "small": 1, "kind": "wound", "ranged": True}
    await game.ok(game.organizer, "grant_card", player_id=people[1]["player_id"], card=card)
    for recorder in recorders:
        await recorder.drain()
    await game.ok(game.organizer, "end_game")

    console, player, _ = recorders
    # A player is shown each change of their own; the console's changes come gathered (a tenth
    # of a second at most: server/game/hub.py), a few views of the game's many seqs.
    assert len(player.seen) > 10 and len(console.seen) > 1
    for recorder in recorders:
        for message in recorder.seen:
            me = message["view"].get("me")  # the spectator's view has no `me`: the public one
            viewer = me["player_id"] if me else "public"
            replayed = await http.get(
                f"/api/games/{game.game_id}/replay",
                params={"seq": message["seq"], "viewer": viewer},
                headers=game.auth(people[2]["token"]),
            )
            assert replayed.status_code == 200, replayed.text
            again = bare(replayed.json()["view"])
            differing = {
                k: (again.get(k), v) for k, v in message["view"].items() if again.get(k) != v
            }
            assert again == message["view"], (
                viewer,
                message["seq"],
                message["server_time"],
                differing,
            )
        await recorder.close()


async def test_the_replay_is_closed_until_the_end_and_checks_its_input(
    http: httpx.AsyncClient,
) -> None:
    game = await Game.create(http)
    anna = await game.add("Anna")
    url = f"/api/games/{game.game_id}/replay"
    assert (await http.get(url, headers=game.auth(anna["token"]))).status_code == 403
    organizer = game.auth(game.organizer)
    assert (await http.get(url, params={"seq": 1}, headers=organizer)).status_code == 200
    assert (await http.get(url, params={"seq": 0}, headers=organizer)).status_code == 422
    assert (
        await http.get(url, params={"seq": 99}, headers=organizer)
    ).status_code == 404  # past the log
    assert (await http.get(url, params={"viewer": "p99"}, headers=organizer)).status_code == 404
    early = (
        await http.get(url, params={"seq": 2, "viewer": anna["player_id"]}, headers=organizer)
    ).json()
    assert "me" in early["view"]  # at seq 2 Anna had not joined yet: no fighter, a member
    assert early["view"].get("duel") is None


def test_a_film_folds_from_its_nearest_snapshot() -> None:
    """Every seq of a long log gives the state a plain fold to that seq gives."""
    rules = RULESETS["card-duel"]
    table = CardDuelGame()
    players = [table.add(f"P{n}") for n in range(4)]
    table.start()
    rng = random.Random(3)
    titles = ["Rána židlí", "Rána Ankh-Morporskou dýkou", "Ztracení se v davu"]
    while len(table.log) < 3 * EVERY:
        a, b = rng.sample(players, 2)
        table.now += 700_000  # every stun and free leave has passed
        first, second = rng.sample(titles, 2)  # two different cards: the duel ends at once
        table.duel(a, b, first, second)
    log = [Recorded(n, e.type, e.data, n * 1000, None, None) for n, e in enumerate(table.log, 1)]
    film = Film.shoot(rules, log)
    assert film.seqs[:2] == [1, EVERY]
    state = rules.initial_state(log[0].data["config"])
    for recorded in log:
        state = rules.evolve(state, rules.read(recorded.type, recorded.data, recorded.version))
        assert film.state(recorded.seq) == state
    member: Member = state.roster.members[players[0].player_id]
    assert film.view(len(log), member) == rules.view(state, member, log[-1].at)
    assert set(film.view(len(log), PUBLIC)) == {"game"}  # the public view carries no roster
