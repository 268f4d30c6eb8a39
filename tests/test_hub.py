"""The hub's queues: a phone that stops reading is resynced or cut off, never held in memory
without bound, and never holds up the others."""

import asyncio

import orjson

from server.game.hub import BEHIND, MESSAGES, Hub, Screen
from server.game.patch import apply, bare
from server.rules.card_duel import RULESET
from server.rules.card_duel.cards import CardSpec
from server.rules.card_duel.commands import GrantCard
from tests.rules.drivers import CardDuelGame


def granted(hub: Hub, game: CardDuelGame, player_id: str, n: int) -> None:
    """The organizer grants a card, and the hub shows it."""
    card = CardSpec(title=f"Karta {n}", big=1, small=1, kind="stun", ranged=False)
    before = game.state
    events = game.run(game.organizer, GrantCard(player_id=player_id, card=card))
    touched = RULESET.parts.touched(before, events, game.state)
    hub.publish("g", RULESET, game.state, len(game.log), touched, game.now)


async def test_a_phone_that_falls_behind_gets_one_whole_view_later() -> None:
    game = CardDuelGame()
    anna = game.add("Anna")
    hub, sent = Hub(), []

    async def send(text: str) -> None:
        sent.append(orjson.loads(text))

    screen = Screen(anna, send)
    hub.join("g", RULESET, game.state, len(game.log), screen)
    screen.show(len(game.log), game.now)
    for n in range(BEHIND * 3):  # the phone reads nothing meanwhile
        granted(hub, game, anna.player_id, n)
        if n == 2:
            screen.post({"type": "ack", "command_id": "x", "seq": len(game.log)})
    assert len(screen.outbox) <= BEHIND + 2  # bounded: the view, the patches, the ack
    pump = asyncio.create_task(screen.pump())

    async def three() -> None:
        while len(sent) < 3:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(three(), 5)
    screen.closed = True
    screen.wake()
    await pump
    # The patches gave way to one whole view, where the first of them stood: before the ack
    # of a command they showed.
    assert [m["type"] for m in sent] == ["view", "view", "ack"]
    assert sent[1]["seq"] == len(game.log) and sent[1]["view"] == game.view(anna)


async def test_patches_that_are_read_in_time_add_up_and_a_reader_that_never_reads_is_cut_off() -> (
    None
):
    game = CardDuelGame()
    anna, bob = game.add("Anna"), game.add("Bob")
    hub = Hub()
    blocked = asyncio.Event()
    got: list[dict[str, object]] = []
    closed = asyncio.Event()

    async def stalled(text: str) -> None:
        await blocked.wait()  # a phone whose TCP window stays shut

    async def reading(text: str) -> None:
        got.append(orjson.loads(text))

    async def close() -> None:
        closed.set()

    slow, fast = Screen(anna, stalled, close), Screen(bob, reading)
    for screen in (slow, fast):
        hub.join("g", RULESET, game.state, len(game.log), screen)
        screen.show(len(game.log), game.now)
    pumps = [asyncio.create_task(s.pump()) for s in (slow, fast)]
    for n in range(40):
        for who in (anna, bob):
            granted(hub, game, who.player_id, n)
        await asyncio.sleep(0)

    async def all_read() -> None:
        while not got or got[-1]["seq"] != len(game.log):
            await asyncio.sleep(0.01)

    await asyncio.wait_for(all_read(), 5)
    # The reading phone got every change in time, as patches that add up to its view.
    held = got[0]["view"]
    for message in got[1:]:
        assert message["type"] == "patch"
        held = apply(held, message["patch"])

    assert bare(held) == bare(game.view(bob))
    # The stalled one holds a bounded queue, and is cut off once its answers pile up.
    assert len(slow.outbox) <= BEHIND + 1
    for n in range(MESSAGES + 1):
        slow.post({"type": "pong", "server_time": str(n)})
    blocked.set()
    await asyncio.wait_for(closed.wait(), 5)
    assert slow.cut_off
    for screen in (slow, fast):
        screen.closed = True
        screen.wake()
    await asyncio.gather(*pumps)


async def test_an_idle_screen_writes_at_once_and_a_full_socket_queues_in_order() -> None:
    game = CardDuelGame()
    anna = game.add("Anna")
    hub, got = Hub(), []
    takes = True  # the socket's transport takes more

    def write(texts: list[str]) -> bool:
        if takes:
            got.extend(("written", orjson.loads(text)) for text in texts)
        return takes

    async def send(text: str) -> None:
        got.append(("sent", orjson.loads(text)))

    screen = Screen(anna, send, write=write)
    hub.join("g", RULESET, game.state, len(game.log), screen)
    screen.show(len(game.log), game.now)  # before the pump runs: queued
    pump = asyncio.create_task(screen.pump())

    async def holding(n: int) -> None:
        while len(got) < n:
            await asyncio.sleep(0.01)

    await asyncio.wait_for(holding(1), 5)
    granted(hub, game, anna.player_id, 0)  # the pump waits, nothing queued: written at once
    assert [how for how, _ in got] == ["sent", "written"]
    takes = False  # the phone's TCP window is shut: what follows waits for the pump, in order
    granted(hub, game, anna.player_id, 1)
    screen.post({"type": "ack", "command_id": "x", "seq": len(game.log)})
    takes = True
    granted(hub, game, anna.player_id, 2)  # queued too: it may not pass what waits
    await asyncio.wait_for(holding(5), 5)
    assert [how for how, _ in got] == ["sent", "written", "sent", "sent", "sent"]
    held, seq = got[0][1]["view"], got[0][1]["seq"]
    for _, message in got[1:]:
        if message["type"] == "patch":
            assert message["base"] == seq  # each patch starts where the one before it ended
            held, seq = apply(held, message["patch"]), message["seq"]
    assert [m["type"] for _, m in got] == ["view", "patch", "patch", "ack", "patch"]
    assert bare(held) == bare(game.view(anna))
    screen.closed = True
    screen.wake()
    await pump


async def test_while_corked_a_screen_gets_its_patch_and_its_ack_in_one_write() -> None:
    game = CardDuelGame()
    anna = game.add("Anna")
    hub, writes, sent = Hub(), list[list[str]](), list[str]()
    takes = True

    def write(texts: list[str]) -> bool:
        if takes:
            writes.append(texts)
        return takes

    async def send(text: str) -> None:
        sent.append(text)

    screen = Screen(anna, send, write=write)
    hub.join("g", RULESET, game.state, len(game.log), screen)
    pump = asyncio.create_task(screen.pump())
    await asyncio.sleep(0)  # the pump waits: the next messages may be written at once
    with hub.corked():
        granted(hub, game, anna.player_id, 0)
        screen.post({"type": "ack", "command_id": "x", "seq": len(game.log)})
        assert writes == []  # held until the hub uncorks
    assert [[orjson.loads(t)["type"] for t in texts] for texts in writes] == [["patch", "ack"]]
    takes = False  # refused at the uncork: both go to the pump, in order
    with hub.corked():
        granted(hub, game, anna.player_id, 1)
        screen.post({"type": "ack", "command_id": "y", "seq": len(game.log)})
    for _ in range(100):
        if len(sent) == 2:
            break
        await asyncio.sleep(0.01)
    assert [orjson.loads(t)["type"] for t in sent] == ["patch", "ack"]
    assert len(writes) == 1
    screen.closed = True
    screen.wake()
    await pump
