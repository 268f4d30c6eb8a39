"""Post-game replay: any viewer's view at any seq, as it was at that moment.

States are immutable and share structure, so keeping one every `EVERY` events costs little; a
view at seq N folds at most `EVERY - 1` events onto the snapshot before it. The view's clock is
the time of event N, so timers show what they showed then.
"""

import asyncio
import bisect
from dataclasses import dataclass, field
from typing import Any

from server.rules.core import Event, Json, Member, Ruleset
from server.store import Recorded, Store
from server.store.bulk import paused_gc

EVERY = 256
PUBLIC = Member("", "", "spectator", None, "")


@dataclass
class Film:
    """A game's log with snapshots of its state: the replay of one ended (or running) game."""

    ruleset: Ruleset[Any]
    log: list[Recorded]
    events: list[Event] = field(default_factory=list)  # the log's lines read once
    seqs: list[int] = field(default_factory=list)  # the seq each snapshot stands at
    states: list[Any] = field(default_factory=list)

    @classmethod
    def shoot(cls, ruleset: Ruleset[Any], log: list[Recorded]) -> "Film":
        film = cls(ruleset, log, [ruleset.read(r.type, r.data, r.version) for r in log])
        with paused_gc():
            state = ruleset.initial_state(log[0].data["config"])
            for recorded, event in zip(log, film.events, strict=True):
                state = ruleset.evolve(state, event)
                if recorded.seq % EVERY == 0 or recorded.seq == 1:
                    film.seqs.append(recorded.seq)
                    film.states.append(state)
        return film

    @property
    def last(self) -> int:
        return self.log[-1].seq

    def state(self, seq: int) -> Any:
        """The state right after event `seq` (1 ≤ seq ≤ last)."""
        index = bisect.bisect_right(self.seqs, seq) - 1
        state = self.states[index]
        for event in self.events[self.seqs[index] : seq]:  # seqs run 1..N, so index seq-1
            state = self.ruleset.evolve(state, event)
        return state

    def view(self, seq: int, viewer: Member) -> Json:
        at = self.log[seq - 1].at
        return self.ruleset.view(self.state(seq), viewer, at)


class Projector:
    """Films of the games being replayed, made once each and kept while the log does not grow."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.films: dict[str, Film] = {}
        self.lock = asyncio.Lock()

    async def film(self, game_id: str, ruleset: Ruleset[Any], last_seq: int) -> Film:
        async with self.lock:
            film = self.films.get(game_id)
            if film is None or film.last < last_seq:
                log = await self.store.events(game_id)
                film = await asyncio.to_thread(Film.shoot, ruleset, log)
                self.films[game_id] = film
            return film
