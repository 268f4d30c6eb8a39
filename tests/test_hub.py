"""The hub's queues: a phone that stops reading is resynced or cut off, never held in memory
without bound, and never holds up the others; a console's changes gathered, and shown at once
to the one who made them."""

import asyncio
from collections.abc import Iterable
from typing import Any

import orjson

from server.game.hub import BEHIND, MESSAGES, Hub, Screen
from server.game.patch import apply, bare
from server.rules.card_duel import RULESET
from server.rules.card_duel.cards import CardSpec
from server.rules.card_duel.commands import GrantCard
from server.rules.core import Member
from tests.rules.drivers import CardDuelGame


def granted(
    hub: Hub,
    game: CardDuelGame,
    player_id: str,
    n: int,
    actors: Iterable[str] = (),
    real_time: bool = False,
) -> None:
    """The organizer grants a card, and the hub shows it (as the command of `actors`; at the
    game's time, or the clock's as a server shows it)."""
    card = CardSpec(title=f"Karta {n}", big=1, small=1, kind="stun", ranged=False)
    before = game.state
    events = game.run(game.organizer, GrantCard(player_id=player_id, card=card))
    touched = RULESET.parts.touched(before, events, game.state)
    now = None if real_time else game.now
    hub.publish("g", RULESET, game.state, len(game.log), touched, now, actors)


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


def recorded(hub: Hub, game: CardDuelGame, member: Member, got: list[dict[str, Any]]) -> Screen:
    """A screen seated on the game and shown it, whose socket takes each message at once,
    into `got`."""

    def write(texts: list[str]) -> bool:
        got.extend(orjson.loads(text) for text in texts)
        return True

    async def send(text: str) -> None:
        got.append(orjson.loads(text))

    screen = Screen(member, send, write=write)
    hub.join("g", RULESET, game.state, len(game.log), screen)
    screen.show(len(game.log), game.now)
    return screen


async def test_a_console_is_sent_what_changes_within_a_gather_in_one_patch_after_it() -> None:
    """A part kept a row at a time (the organizer's console) is shown at most once every
    `gather_ms`: the changes that come meanwhile go out together when it ends, and add up to
    the console's view. A player's own part is never held."""
    game = CardDuelGame()
    anna, bob = game.add("Anna"), game.add("Bob")
    hub = Hub(gather_ms=200)
    got: dict[str, list[dict[str, Any]]] = {"console": [], "anna": []}
    console = recorded(hub, game, game.organizer, got["console"])
    phone = recorded(hub, game, anna, got["anna"])
    pumps = [asyncio.create_task(s.pump()) for s in (console, phone)]
    await asyncio.sleep(0.01)  # the views are sent; the pumps wait
    granted(hub, game, anna.player_id, 0, real_time=True)  # the first change: at once
    assert [m["type"] for m in got["console"]] == ["view", "patch"]
    granted(hub, game, bob.player_id, 1, real_time=True)
    granted(hub, game, anna.player_id, 2, real_time=True)
    assert len(got["console"]) == 2, "the changes within the gather wait"
    assert len(got["anna"]) == 3, "a player's own part is shown at every change"
    await asyncio.sleep(0.3)
    assert [m["type"] for m in got["console"]] == ["view", "patch", "patch"]
    last = got["console"][-1]
    assert last["base"] == got["console"][1]["seq"] and last["seq"] == len(game.log)
    shown = apply(got["console"][0]["view"], got["console"][1]["patch"])
    assert bare(apply(shown, last["patch"])) == bare(game.view(game.organizer))
    for made in (console, phone):
        made.closed = True
        made.wake()
    await asyncio.gather(*pumps)


async def test_a_change_of_the_consoles_own_viewer_is_shown_at_once_with_what_was_gathered() -> (
    None
):
    """The organizer's own command shows on the console before its ack: at once, with what
    the gather held; a console that closes meanwhile leaves nothing waiting."""
    game = CardDuelGame()
    anna, bob = game.add("Anna"), game.add("Bob")
    hub = Hub(gather_ms=10_000)  # longer than the test: only the organizer's change shows it
    got: list[dict[str, Any]] = []
    console = recorded(hub, game, game.organizer, got)
    pump = asyncio.create_task(console.pump())
    await asyncio.sleep(0.01)
    granted(hub, game, anna.player_id, 0, real_time=True)  # shown at once: the first
    granted(hub, game, bob.player_id, 1, real_time=True)  # a player's: gathered
    assert len(got) == 2
    organizer = [game.organizer.player_id]
    granted(hub, game, anna.player_id, 2, actors=organizer, real_time=True)
    assert len(got) == 3 and got[-1]["seq"] == len(game.log)
    held = got[0]["view"]
    for message in got[1:]:
        held = apply(held, message["patch"])
    assert bare(held) == bare(game.view(game.organizer)), "Bob's card came with it"
    granted(hub, game, bob.player_id, 3, real_time=True)  # gathered again, then the console goes
    audience = console.audience
    assert audience is not None and audience.timer is not None
    hub.leave("g", console)
    assert audience.timer is None and "g" not in hub.audiences
    await pump
