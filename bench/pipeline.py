"""What a socket's duel command costs in the whole server pipeline, in one process: no network,
no load generator, nothing but the server's own work.

Pairs of card-duel fighters (in games of two unless `--per-game`; in one game the organizer's
console is open) duel as bench/duels.py's phones do (challenge with the challenger's pick, the
target picks, both pick again until the duel ends; `--pick-apart`: the challenger picks after),
each command a socket's text frame handed to `answer_now` (server/web/answer.py) as the protocol
hands it;
the referee decides it, the scribe writes it to a real SQLite file (on /dev/shm unless
`--folder`: the disk's flush is not the server's CPU), the hub shows it to a screen per fighter
and to the organizer's console, and each screen's socket takes the messages at once. Every pair
has one command in flight at a time, as a phone waits for its ack. The process's garbage
collector is set as `bijse serve` sets it.

Prints the process's CPU (every thread: the event loop and the store's writer) per command and
per duel.
`--profile` prints cProfile's split of the event loop's thread instead. For a figure that does
not drift with the machine, count instructions, and take the difference of two lengths (which
leaves out the start):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python -m bench.pipeline \\
        --rounds 50   # and --rounds 200: (I200 - I50) / (commands200 - commands50)

(In one game of many commands a snapshot is taken by a forked child, which prints a count of
its own that includes its parent's until the fork: the process's own is the last printed.)

    .venv/bin/python -m bench.pipeline [--pairs 100] [--per-game 1] [--rounds 400] [--profile]
                                        [--folder DIR]
"""

import argparse
import asyncio
import cProfile
import gc
import pstats
import random
import tempfile
import time
from pathlib import Path

import orjson
import uvloop

from server.game.hub import GATHER_MS, Hub, Screen
from server.game.referee import Referee
from server.rules.core import Json, Member
from server.rules.roster import AddPlayer, AddPlayers, StartGame
from server.serve.cli import GC_YOUNG
from server.store import Store, migrate
from server.web.answer import Later, Limited, answer_now
from server.web.limits import Limits


class Socket:
    """A screen's socket that takes every message at once, counting them."""

    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0

    def write(self, messages: list[str]) -> bool:
        self.messages += len(messages)
        self.bytes += sum(map(len, messages))
        return True

    async def send(self, message: str) -> None:
        self.write([message])


class Bench:
    def __init__(self, referee: Referee, game_id: str, organizer: Member) -> None:
        self.referee = referee
        self.game_id = game_id
        self.organizer = organizer
        self.limited = Limited(Limits(False), "bench")
        self.sockets: list[Socket] = []
        self.commands = 0
        self.refused = 0
        self.duels = 0  # challenges sent
        self.pumps: list[asyncio.Task[None]] = []

    def seat(self, member: Member) -> None:
        """A screen on the game, as a socket's is seated."""
        table = self.referee.games.tables[self.game_id]
        socket = Socket()
        screen = Screen(member, socket.send, None, socket.write)
        self.pumps.append(asyncio.create_task(screen.pump()))
        hub = self.referee.hub
        hub.join(self.game_id, table.ruleset, table.committed_state, table.committed_seq, screen)
        self.sockets.append(socket)

    async def command(self, member: Member, command: Json) -> Json:
        """Send a command as a socket's text frame; its answer (ack or error)."""
        answered: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        body = {"type": "command", "command_id": f"c{self.commands}", "command": command}
        self.commands += 1

        def post(message: Json) -> None:
            if not answered.done():
                answered.set_result(message)

        def defer(later: Later) -> None:
            raise AssertionError(f"a command had to wait: {later}")

        text = orjson.dumps(body).decode()
        reply = answer_now(self.referee, self.limited, self.game_id, member, text, post, defer)
        if isinstance(reply, Later):
            raise AssertionError(f"a command had to wait: {reply}")
        if reply is not None:
            post(reply)
        answer = await answered
        if answer["type"] != "ack":
            self.refused += 1
        return answer

    async def duel(
        self, a: Member, b: Member, rounds: int, rng: random.Random, pick_apart: bool = False
    ) -> None:
        """`rounds` commands' worth of duels between a and b, as bench/duels.py plays them."""
        table = self.referee.games.tables[self.game_id]

        def card(p: Member) -> str:
            chosen: str = rng.choice(table.committed_state.fighters[p.player_id].cards).card_id
            return chosen

        sent = 0
        while sent < rounds:
            challenge = {"type": "challenge", "target": b.code}
            if not pick_apart:
                challenge["card_id"] = card(a)
            await self.command(a, challenge)
            sent += 1
            self.duels += 1
            duel_id = table.committed_state.fighters[a.player_id].duel_id
            while duel_id and sent < rounds and (duel := table.committed_state.duels.get(duel_id)):
                picks = [
                    self.command(p, {"type": "pick", "duel_id": duel_id, "card_id": card(p)})
                    for p in (a, b)
                    if p.player_id not in duel.picks
                ]
                await asyncio.gather(*picks)
                sent += len(picks)


async def game(referee: Referee, pairs: int, console: bool) -> tuple[Bench, list[Member]]:
    """A running game of `pairs` pairs, a screen on each fighter (and the console, if open)."""
    game_id, token = await referee.create_game(
        "card-duel", "bench", {"stun_s": 0, "escape_immunity_s": 0}
    )
    _, organizer = await referee.seat(game_id, token)
    names = [AddPlayer(name=f"P{n}") for n in range(2 * pairs)]
    await referee.execute(game_id, organizer, None, AddPlayers(players=names))
    await referee.execute(game_id, organizer, None, StartGame())
    bench = Bench(referee, game_id, organizer)
    state = referee.games.tables[game_id].committed_state
    players = [m for m in state.roster.members.values() if m.role == "player"]
    for member in [organizer, *players] if console else players:
        bench.seat(member)
    return bench, players


async def run(
    pairs: int, per_game: int, rounds: int, folder: Path, profile: bool, pick_apart: bool
) -> None:
    store = Store.open(f"sqlite:///{folder / 'pipeline.db'}")
    await asyncio.to_thread(migrate.upgrade, store.url)
    referee = Referee(store, Hub(GATHER_MS))  # as `bijse serve` has it
    await referee.start()
    one = per_game >= pairs  # one game: the organizer's console open, as bench.duels has it
    games = [
        await game(referee, min(per_game, pairs), one) for _ in range(max(1, pairs // per_game))
    ]
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 10, 10)
    rng = random.Random(1)
    pairs_duelling = [
        bench.duel(players[n], players[n + 1], rounds, rng, pick_apart)
        for bench, players in games
        for n in range(0, len(players), 2)
    ]
    profiler = cProfile.Profile() if profile else None
    started, spent = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    await asyncio.gather(*pairs_duelling)
    if profiler is not None:
        profiler.disable()
    spent, elapsed = time.process_time() - spent, time.perf_counter() - started
    for pump in (pump for bench, _ in games for pump in bench.pumps):
        pump.cancel()
    await referee.stop()
    await store.close()
    commands = sum(bench.commands for bench, _ in games)
    refused = sum(bench.refused for bench, _ in games)
    messages = sum(s.messages for bench, _ in games for s in bench.sockets)
    where = "one game, the console open" if one else f"games of {2 * per_game}"
    print(f"{pairs} pairs in {where}: {commands} commands ({refused} refused) in {elapsed:.1f} s")
    print(f"CPU a command   {spent / commands * 1e6:7.1f} µs   (every thread of the process)")
    duels = sum(bench.duels for bench, _ in games)
    print(
        f"CPU a duel      {spent / duels * 1e6:7.1f} µs   ({commands / duels:.2f} commands a duel)"
    )
    sent = sum(s.bytes for bench, _ in games for s in bench.sockets)
    print(f"messages        {messages / commands:7.2f} a command, {sent / commands:.0f} B")
    if profiler is not None:
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(35)
        stats.sort_stats("cumulative").print_stats(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--per-game", type=int, default=1, help="pairs a game (as many: one)")
    parser.add_argument("--rounds", type=int, default=400, help="commands of each pair")
    parser.add_argument("--profile", action="store_true", help="cProfile the event loop's thread")
    parser.add_argument("--folder", type=Path, help="where the SQLite file goes (/dev/shm)")
    parser.add_argument(
        "--pick-apart", action="store_true", help="the challenger picks after its challenge"
    )
    args = parser.parse_args()
    shm = Path("/dev/shm")
    base = args.folder or (shm if shm.is_dir() else None)
    with tempfile.TemporaryDirectory(dir=base) as folder:
        uvloop.run(
            run(
                args.pairs,
                args.per_game,
                args.rounds,
                Path(folder),
                args.profile,
                args.pick_apart,
            )
        )


if __name__ == "__main__":
    main()
