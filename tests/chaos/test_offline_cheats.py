"""Offline duels attacked as a hostile player would, over HTTP against a real server (the
phones are tests/rules/phones.py): what docs/rules/card-duel.md promises ("What is promised") holds,
and no record, however mutated and signed anew, gets a 5xx."""

import json
import random
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from server.clock import parse_iso
from server.rules.card_duel.offline import REVEAL_MS, digest
from tests.chaos.harness import SCALE
from tests.client import Game
from tests.rules.phones import Exchange, Phone

CHAIR, DAGGER = "Rána židlí", "Rána Ankh-Morporskou dýkou"


@pytest.fixture
async def http(live_server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_server, timeout=30) as client:
        yield client


class Table:
    """A running card-duel game whose players' phones have registered their keys."""

    def __init__(self, game: Game, members: list[dict[str, Any]], phones: list[Phone]) -> None:
        self.game, self.members, self.phones = game, members, phones

    @classmethod
    async def laid(cls, http: httpx.AsyncClient, names: list[str]) -> "Table":
        game = await Game.create(http, "card-duel")
        members = [await game.add(name) for name in names]
        await game.ok(game.organizer, "start_game")
        phones = [Phone(m["player_id"]) for m in members]
        for member, phone in zip(members, phones, strict=True):
            await game.ok(member["token"], "register_key", public_key=phone.public_key)
        return cls(game, members, phones)

    async def seen(self, n: int) -> tuple[dict[str, Any], int]:
        """What player n's phone last saw: its view and the server's time."""
        answer = await self.game.view(self.members[n]["token"])
        return answer["view"], parse_iso(answer["server_time"])

    async def card(self, n: int, title: str) -> str:
        view, _ = await self.seen(n)
        (found,) = [c["card_id"] for c in view["me"]["cards"] if c["title"] == title]
        return str(found)

    async def duel(self, a: int, b: int, mine: str, theirs: str, at: int) -> Exchange:
        """A round the phones play with no signal, from `at` (the server's time, as the phones
        keep it), the reveal 10 s later."""
        (va, _), (vb, _) = await self.seen(a), await self.seen(b)
        duel = Exchange(self.game.game_id, self.phones[a], self.phones[b])
        duel.challenge(await self.card(a, mine), va["me"]["revision"], at)
        duel.pick(await self.card(b, theirs), vb["me"]["revision"], at + 5_000)
        duel.reveal(at + 10_000)
        return duel

    async def bring(self, n: int, texts: list[str]) -> httpx.Response:
        return await self.game.command(self.members[n]["token"], "offline_duel", record=texts)

    async def events(self) -> list[dict[str, Any]]:
        answer = await self.game.http.get(
            f"/api/games/{self.game.game_id}/events", headers=self.game.auth(self.game.organizer)
        )
        events: list[dict[str, Any]] = answer.json()["events"]
        return events


def code(answer: httpx.Response) -> str:
    return str(answer.json()["error"]["code"])


async def test_a_duel_with_oneself_and_empty_names_are_refused_and_write_nothing(
    http: httpx.AsyncClient,
) -> None:
    table = await Table.laid(http, ["Rincewind", "Vimes"])
    _, now = await table.seen(0)
    before = await table.events()
    mirror = Exchange(table.game.game_id, table.phones[0], table.phones[0])
    mirror.challenge(await table.card(0, CHAIR), 0, now - 20_000)
    mirror.pick(await table.card(0, DAGGER), 0, now - 15_000)
    mirror.reveal(now - 10_000)
    answer = await table.bring(0, mirror.texts)
    assert answer.status_code == 422 and code(answer) == "invalid", answer.text
    for name in ("g", "d", "a", "K"):
        duel = await table.duel(0, 1, CHAIR, DAGGER, now - 20_000)
        body = json.loads(duel.texts[0].rpartition("~")[0]) | {name: ""}
        answer = await table.bring(0, [table.phones[0].sign(body), *duel.texts[1:]])
        assert answer.status_code in (409, 422) and code(answer) in ("invalid", "broken_record")
    assert await table.events() == before


async def test_the_loser_cannot_erase_a_lost_duel(http: httpx.AsyncClient) -> None:
    """Rincewind loses offline, reaches signal first, registers his key again (a new one) and
    duels Nobby online. Vimes's record still stands, and the organizer sees the dispute."""
    table = await Table.laid(http, ["Rincewind", "Vimes", "Nobby"])
    _, now = await table.seen(0)
    lost = await table.duel(0, 1, DAGGER, CHAIR, now - 60_000)  # the chair wins: Rincewind stunned
    rincewind, nobby = table.members[0], table.members[2]
    await table.game.ok(rincewind["token"], "register_key", public_key=Phone("x").public_key)
    await table.game.ok(rincewind["token"], "challenge", target=nobby["code"])
    view, _ = await table.seen(0)
    online = view["duel"]["duel_id"]
    busy = await table.bring(1, lost.texts)  # while that duel goes on: again after it
    assert busy.status_code == 409 and code(busy) == "busy"
    await table.game.ok(table.game.organizer, "cancel_duel", duel_id=online)
    answer = await table.bring(1, lost.texts)
    assert answer.status_code == 200, answer.text
    kinds = [e["type"] for e in await table.events()]
    assert "offline_duel_recorded" in kinds and kinds[-1] == "offline_duel_disputed"
    view, _ = await table.seen(0)
    assert view["me"]["stunned_until"] is not None and view["offline"]["dispute"]["duels"] == [
        online
    ]


async def test_a_target_that_hides_the_reveal_is_put_before_the_organizer(
    http: httpx.AsyncClient,
) -> None:
    table = await Table.laid(http, ["Rincewind", "Vimes"])
    _, now = await table.seen(0)
    won = await table.duel(0, 1, CHAIR, DAGGER, now - REVEAL_MS - 30_000)  # Rincewind won
    claim = await table.bring(1, won.texts[:2])  # Vimes read the reveal, and hides it
    assert claim.status_code == 200, claim.text
    events = await table.events()
    (recorded,) = [e for e in events if e["type"] == "offline_duel_recorded"]
    assert recorded["data"]["forfeit"] == table.members[0]["player_id"]
    whole = await table.bring(0, won.texts)
    assert whole.status_code == 200, whole.text
    console = (await table.game.view(table.game.organizer))["view"]
    dispute = console["offline"][recorded["data"]["duel_id"]]["dispute"]
    assert dispute["reason"] == "revealed" and dispute["record"] == won.texts


async def test_mutated_records_signed_anew_never_get_a_5xx(http: httpx.AsyncClient) -> None:
    """200 (times BIJSE_CHAOS_SCALE): each a valid record with one field of one text replaced by a
    hostile value, signed anew (and the chain after it) by the phone that signs that text."""
    table = await Table.laid(http, ["Rincewind", "Vimes"])
    _, now = await table.seen(0)
    base = await table.duel(0, 1, CHAIR, DAGGER, now - 20_000)
    bodies = [json.loads(text.rpartition("~")[0]) for text in base.texts]
    hostile: list[Any] = ["", " ", "p3", "p4", "x" * 700, 0, -1, 2**63, 1.5, None, True, [], {}]
    chance = random.Random(2912)
    statuses: dict[int, int] = {}
    for _ in range(200 * SCALE):
        at = chance.randrange(3)
        changed = [dict(b) for b in bodies]
        name = chance.choice([*changed[at], "x"])
        changed[at][name] = chance.choice(hostile)
        texts: list[str] = []
        for n, body in enumerate(changed):
            if n > at or (n == at and name != "p" and n > 0):
                body = body | {"p": digest(texts[-1])}
            texts.append(table.phones[1 if n % 3 == 1 else 0].sign(body))
        answer = await table.bring(chance.randrange(2), texts[: chance.choice([2, 3])])
        statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
        assert answer.status_code < 500, answer.text
        if answer.status_code >= 400:
            assert answer.json()["error"]["code"]
    assert set(statuses) <= {200, 403, 404, 409, 422, 429}, statuses
