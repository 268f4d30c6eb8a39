"""What one card-duel command costs in the pure rules and the views, in process: no server, no
store, no sockets.

A card-duel game of many pairs is played as bench/duels.py's `duel_pair` plays it (the first of
a pair challenges the second, both pick a random card, again until the duel ends, and again),
with its config (no stun, no free leave). Every command is timed in the parts the referee and
the hub run it in:
- `play`: decide and evolve (`ruleset.play` inside `one_command`, as the referee calls it);
- `touched`: the members whose private part the events may have changed;
- `private`: each touched member's private part, and its patch from the one it had before;
- `shared`: the players' shared part and its patch, as the hub builds it;
- `console`: the organizer's console, its touched rows renewed as the hub renews them.
Prints µs per command of each part and their total, the median of the repetitions. The time is
the thread's CPU time (a busy machine's other processes do not count), less what reading the
clock costs.

    .venv/bin/python -m bench.rules [--pairs 100] [--commands 6000] [--repeat 5] [--profile]
"""

import argparse
import cProfile
import pstats
import random
import statistics
import time
from typing import Any

from server.game.hub import Audience
from server.game.patch import diff
from server.rules import RULESETS
from server.rules.card_duel.commands import Challenge, Pick
from server.rules.card_duel.state import CardDuel
from server.rules.core import Command, Context, Event, Json, Member, RuleError, Ruleset
from server.rules.grown import one_command
from server.rules.roster import AddPlayer, StartGame, opening

SEED = b"b" * 32
T0 = 1_700_000_000_000
STEP = 7  # ms between two commands
PARTS = ("play", "touched", "private", "shared", "console")


def tick() -> int:
    """What reading the clock costs (ns): the least of many readings back to back."""
    clock = time.thread_time_ns
    return min(-clock() + clock() for _ in range(1000))


TICK = tick()


class Game:
    """One game played through the pure rules, its views held as the hub holds them."""

    def __init__(self, ruleset: Ruleset[CardDuel], pairs: int) -> None:
        self.ruleset = ruleset
        self.now = T0
        config = {"stun_s": 0, "escape_immunity_s": 0}
        settings = ruleset.config.model_validate(config).model_dump(mode="json")
        self.state, log = opening(ruleset, "g1", "Bench", settings, SEED, self.now)
        self.seq = len(log)
        self.organizer = self.state.roster.members[log[-1].data["player_id"]]
        for command in [*(AddPlayer(name=f"Fighter {n}") for n in range(2 * pairs)), StartGame()]:
            decided = self.decide(self.organizer, command)
            assert decided is not None
            self.state = decided[1]
        self.players = [m for m in self.state.roster.members.values() if m.role == "player"]
        sight = ruleset.parts
        self.privates: dict[str, Json] = {
            m.player_id: sight.private(self.state, m, self.now) for m in self.players
        }
        self.shared = sight.shared(self.state, "player", self.now)
        rows = sight.rows("organizer")
        assert rows is not None
        self.console = Audience("organizer", self.seq, rows)
        self.console.build(sight, self.state, self.now)
        self.spent = dict.fromkeys(PARTS, 0)
        self.commands = 0

    def decide(self, actor: Member, command: Command) -> tuple[list[Event], CardDuel] | None:
        """A command's events and the state after them, as the referee decides it (None:
        refused)."""
        self.now += STEP
        ctx = Context(now=self.now, actor=actor, seq=self.seq + 1, seed=SEED)
        try:
            with one_command():
                story = self.ruleset.play(self.state, command, ctx)
        except RuleError:
            return None
        self.seq += len(story.events)
        return story.events, story.state

    def run(self, actor: Member, command: Command) -> bool:
        """Decide a command and show it, each part timed; whether it was accepted."""
        clock, sight, before = time.thread_time_ns, self.ruleset.parts, self.state
        t0 = clock()
        decided = self.decide(actor, command)
        t1 = clock()
        if decided is None:
            return False
        events, state = decided
        touched = sight.touched(before, events, state)
        t2 = clock()
        self.state, now = state, self.now
        for member in self.players if touched is None else self.members(touched):
            private = sight.private(state, member, now)
            diff(self.privates[member.player_id], private)
            self.privates[member.player_id] = private
        t3 = clock()
        shared = sight.shared(state, "player", now)
        diff(self.shared, shared)
        self.shared = shared
        t4 = clock()
        if touched is None or self.console.rows is None:
            self.console.build(sight, state, now)
        else:
            self.console.renew(self.console.rows, state, touched, now)
        t5 = clock()
        for part, spent in zip(PARTS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
            self.spent[part] += spent - TICK
        self.commands += 1
        return True

    def members(self, touched: set[str]) -> list[Member]:
        members = self.state.roster.members
        return [members[p] for p in touched if members[p].role == "player"]


def duels(game: Game, commands: int, rng: random.Random) -> None:
    """The pairs take turns at one duel each, as `duel_pair` plays it, until `commands`."""
    pairs = [(game.players[n], game.players[n + 1]) for n in range(0, len(game.players), 2)]
    while game.commands < commands:
        for a, b in pairs:
            if not game.run(a, Challenge(target=b.code)):
                continue
            duel_id = game.state.fighters[a.player_id].duel_id
            while duel_id is not None and game.state.fighters[a.player_id].duel_id == duel_id:
                for p in (a, b):
                    card = rng.choice(game.state.fighters[p.player_id].cards)
                    game.run(p, Pick(duel_id=duel_id, card_id=card.card_id))


def measure(pairs: int, commands: int) -> dict[str, float]:
    """µs per command of each part, over one game."""
    game = Game(RULESETS["card-duel"], pairs)
    duels(game, commands, random.Random(1))
    return {part: spent / game.commands / 1000 for part, spent in game.spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--commands", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="cProfile one run, by own time")
    args = parser.parse_args()
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(measure, args.pairs, args.commands)
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(50)
        return
    runs = [measure(args.pairs, args.commands) for _ in range(args.repeat)]
    median: dict[str, Any] = {part: statistics.median(r[part] for r in runs) for part in PARTS}
    total = statistics.median(sum(r.values()) for r in runs)
    print(f"{args.pairs} pairs, {args.commands} commands, median of {args.repeat} (µs/command)")
    for part in PARTS:
        print(f"  {part:<8} {median[part]:7.1f}")
    print(f"  {'total':<8} {total:7.1f}")


if __name__ == "__main__":
    main()
