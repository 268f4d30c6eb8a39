"""Phones behind a bad network, on one server (SQLite) and on two servers on one PostgreSQL.

Simulated phones play a card duel over real WebSockets through a seeded fault layer that drops,
duplicates, reorders and delays messages both ways and cuts connections; they send a command
again (the same `command_id`) until it is answered, and reconnect with `after=<held seq>`, to
any server, whenever they cut off or their view lost step. Now and then a phone sends a copy of
its command over HTTP to a server of its choice, and the organizer sends commands as 2 to 5
copies at once. Afterwards: every command was written at most once and every acknowledged one
exactly once at the seq of its acks; every phone holds the latest view (what `GET /view`
answers at the log's last seq); no view or patch a phone was sent was older than the `after` it
connected with; no request and no socket handler ended in an uncaught exception.
"""

import asyncio
import contextlib
import json
import random
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from bench.live import Held
from server.game.patch import bare
from server.rules import RULESETS
from server.store import Recorded
from tests.chaos.harness import SCALE, Server, effects, read_log, rng, servers
from tests.client import Game
from tests.figures import report
from tests.proxy import until

PHONES = 6
COMMANDS = 30 * SCALE  # a phone's
BURSTS = 25 * SCALE  # the organizer's commands sent as several copies at once
ANSWER_S = 1.0  # how long a phone waits for an answer before it sends the command again
ATTEMPTS = 40
PLAY_S = 60 * SCALE  # the whole game at most: a phone that never finishes fails the test
RATES = {
    "drop": 0.05,  # a message lost, either way
    "duplicate": 0.04,  # a message that comes twice, either way
    "reorder": 0.04,  # a message to the phone overtaken by the next one
    "delay": 0.1,  # a command sent up to 50 ms late
    "cut": 0.06,  # the connection cut right after a command was sent
    "http": 0.1,  # a copy of the command over HTTP, to any server
}
# Nobody is stunned or immune for long, and a duellist may leave at once: the game flows.
CONFIG = {"stun_s": 0, "escape_immunity_s": 0, "leave_after_s": 0}


@dataclass
class Tally:
    """What happened to every phone of one run."""

    faults: Counter[str] = field(default_factory=Counter)
    commands: int = 0
    sent: int = 0  # copies of commands that left a phone
    answers: dict[str, list[tuple[str, int | None]]] = field(
        default_factory=lambda: defaultdict(list)
    )  # command id -> each (kind, seq) it was answered with: ack, error, http <status>
    unanswered: list[str] = field(default_factory=list)
    unavailable: Counter[str] = field(default_factory=Counter)  # 503s, each tried again
    reconnects: int = 0
    resumes: int = 0  # reconnects with after=N
    messages: int = 0  # views and patches received
    stale: list[str] = field(default_factory=list)  # views and patches older than after=
    died: int = 0  # sockets the server closed with 1011 (its handler raised)
    failed: list[str] = field(default_factory=list)  # 5xx answers
    resent: int = 0  # organizer's requests sent again after a transport error
    bursts: list[list[tuple[int, Any]]] = field(default_factory=list)  # each copy's answer


class Faults:
    def __init__(self, random: random.Random, tally: Tally) -> None:
        self.random = random
        self.tally = tally
        self.on = True

    def __call__(self, what: str) -> bool:
        if self.on and self.random.random() < RATES[what]:
            self.tally.faults[what] += 1
            return True
        return False


class FuzzPhone:
    """A player's phone: one WebSocket at a time, to a server of its choice, through the
    faults; the view it holds, applied from whole views and patches (bench/live.py's Held)."""

    def __init__(
        self,
        game: Game,
        member: dict[str, Any],
        codes: list[str],
        bases: list[str],
        http: httpx.AsyncClient,
        tally: Tally,
    ) -> None:
        self.game, self.member, self.codes, self.bases = game, member, codes, bases
        self.http, self.tally = http, tally
        self.random = rng(f"phone-{member['player_id']}")
        self.faults = Faults(self.random, tally)
        self.held = Held()
        self.base = bases[0]
        self.socket: ClientConnection | None = None
        self.reader: asyncio.Task[None] | None = None
        self.in_step = False  # the held view follows the socket's messages
        self.late: dict[str, Any] | None = None  # a message held back, to come after the next
        self.changed = asyncio.Event()
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.copies: set[asyncio.Task[None]] = set()

    @property
    def connected(self) -> bool:
        return self.reader is not None and not self.reader.done()

    async def connect(self) -> None:
        await self.hang_up()
        for _ in range(100):
            self.base = self.random.choice(self.bases)
            after = self.held.seq or None
            try:
                url = self.game.ws_url(self.base, self.member["token"], after)
                self.socket = await websockets.connect(url, open_timeout=5)
            except (OSError, TimeoutError, websockets.InvalidHandshake):
                await asyncio.sleep(0.05)
                continue
            self.tally.reconnects += 1
            self.tally.resumes += after is not None
            self.in_step, self.late = True, None
            self.reader = asyncio.create_task(self.read(self.socket, after or 0))
            return
        raise AssertionError(f"{self.member['name']} could not connect")

    async def hang_up(self) -> None:
        """A cut, not a goodbye: whatever was on its way is lost."""
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
        if self.socket is not None:
            self.socket.transport.abort()
        self.socket = self.reader = None

    async def read(self, socket: ClientConnection, after: int) -> None:
        try:
            async for text in socket:
                message = json.loads(text)
                self.record(message, after)
                if self.faults("drop"):
                    continue
                if self.late is None and self.faults("reorder"):
                    self.late = message
                    continue
                self.take(message)
                if self.faults("duplicate"):
                    self.take(message)
                if self.late is not None:
                    late, self.late = self.late, None
                    self.take(late)
        except websockets.ConnectionClosed:
            pass
        finally:
            closed = socket.protocol.close_rcvd
            self.tally.died += closed is not None and closed.code == 1011
            self.changed.set()

    def record(self, message: dict[str, Any], after: int) -> None:
        """What the server sent, before any fault."""
        kind = message["type"]
        if kind in ("view", "patch"):
            self.tally.messages += 1
            if message["seq"] < after or message.get("base", after) < after:
                self.tally.stale.append(f"after={after}: {kind} {message['seq']}")
        elif kind in ("ack", "error"):
            command_id = message["command_id"]
            if kind == "error" and message["code"] == "unavailable":  # the phone tries again
                self.tally.unavailable["a connect" if command_id is None else "a command"] += 1
            if command_id is not None:
                seq = message.get("seq") if kind == "ack" else None
                self.tally.answers[command_id].append((kind, seq))

    def take(self, message: dict[str, Any]) -> None:
        """What the phone got."""
        kind = message["type"]
        if kind == "view" or (kind == "patch" and self.in_step):
            self.in_step = self.held.take(message)  # a patch on another base: out of step
        elif kind in ("ack", "error"):
            future = self.waiting.get(message["command_id"])
            if future is not None and not future.done():
                future.set_result(message)
        self.changed.set()

    def next_command(self) -> dict[str, Any] | None:
        """What a player does, seeing the held view (None: waits for the opponent)."""
        view = self.held.view
        duel = view.get("duel")
        if duel is None:
            return {"type": "challenge", "target": self.random.choice(self.codes)}
        if duel.get("my_pick") is None:
            card = self.random.choice(view["me"]["cards"])
            return {"type": "pick", "duel_id": duel["duel_id"], "card_id": card["card_id"]}
        if not duel.get("opponent_picked") and self.random.random() < 0.3:
            return {"type": "leave_duel", "duel_id": duel["duel_id"]}
        return None

    async def play(self, commands: int) -> None:
        await self.connect()
        while commands:
            command = self.next_command()
            if command is None:
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 0.3)
            else:
                commands -= 1
                answer = await self.command(command)
                if answer is not None and answer["type"] == "error":
                    await self.connect()  # refused: the view may be stale, look again
            if not self.connected or not self.in_step:
                await self.connect()

    async def command(self, command: dict[str, Any]) -> dict[str, Any] | None:
        """Sends a command until it is answered (by anything but 503 `unavailable`)."""
        command_id = uuid.uuid4().hex
        self.tally.commands += 1
        for _ in range(ATTEMPTS):
            if not self.connected or not self.in_step:
                await self.connect()
            future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
            self.waiting[command_id] = future
            await self.send(command_id, command)
            if self.reader is not None:
                either: set[asyncio.Future[Any]] = {future, self.reader}
                await asyncio.wait(either, timeout=ANSWER_S, return_when=asyncio.FIRST_COMPLETED)
            self.waiting.pop(command_id, None)
            if not future.done():
                future.cancel()
                continue
            answer = future.result()
            if answer["type"] == "error" and answer["code"] == "unavailable":
                continue
            return answer
        self.tally.unanswered.append(command_id)
        return None

    async def send(self, command_id: str, command: dict[str, Any]) -> None:
        if self.faults("http"):
            copy = asyncio.create_task(self.http_copy(command_id, command))
            self.copies.add(copy)
            copy.add_done_callback(self.copies.discard)
        if self.faults("drop"):
            return
        if self.faults("delay"):
            await asyncio.sleep(self.random.uniform(0, 0.05))
        text = json.dumps({"type": "command", "command_id": command_id, "command": command})
        assert self.socket is not None
        try:
            for _ in range(2 if self.faults("duplicate") else 1):
                await self.socket.send(text)
                self.tally.sent += 1
        except websockets.ConnectionClosed:
            return
        if self.faults("cut"):
            await self.hang_up()

    async def http_copy(self, command_id: str, command: dict[str, Any]) -> None:
        base = self.random.choice(self.bases)
        self.tally.sent += 1
        try:
            response = await self.http.post(
                f"{base}/api/games/{self.game.game_id}/commands",
                json={"command_id": command_id, **command},
                headers=self.game.auth(self.member["token"]),
            )
        except httpx.TransportError:
            return
        seq = response.json()["seq"] if response.status_code == 200 else None
        self.tally.answers[command_id].append((f"http {response.status_code}", seq))
        if response.status_code >= 500:
            self.tally.failed.append(f"{response.status_code} {response.text[:200]}")

    async def settle(self) -> None:
        """Faults off, a clean reconnect: the phone must come to hold the latest view."""
        self.faults.on = False
        await asyncio.gather(*self.copies)
        await self.connect()


async def organizer_bursts(
    game: Game,
    players: list[dict[str, Any]],
    bases: list[str],
    tally: Tally,
    playing: asyncio.Future[Any],
) -> None:
    """The organizer's commands, each as 2 to 5 copies at once to servers chosen at random
    (a console that retried at a bad moment, twice over), at least BURSTS of them and on
    until the phones are done."""
    random = rng("organizer")
    async with httpx.AsyncClient(timeout=30) as http:

        async def copy(base: str, body: dict[str, Any]) -> tuple[int, Any]:
            for _ in range(10):
                try:
                    response = await http.post(
                        f"{base}/api/games/{game.game_id}/commands",
                        json=body,
                        headers=game.auth(game.organizer),
                    )
                except httpx.TransportError:
                    # A kept-alive connection the server closed as it was reused: the same
                    # command id again, as any client does.
                    tally.resent += 1
                    continue
                if response.status_code != 503:
                    break
                tally.unavailable["the organizer"] += 1  # too busy: try again
            else:
                raise AssertionError(f"{base} did not answer {body}")
            if response.status_code >= 500:
                tally.failed.append(f"{response.status_code} {response.text[:200]}")
            return response.status_code, response.json()

        n = 0
        while n < BURSTS or not playing.done():
            n += 1
            await asyncio.sleep(random.uniform(0, 0.1))  # spread over the phones' game
            player = random.choice(players)["player_id"]
            card = {"title": f"Burst {n}", "big": random.randint(0, 5), "small": 1, "kind": "stun"}
            body = {"command_id": uuid.uuid4().hex, "type": "grant_card", "player_id": player}
            body["card"] = card
            copies = [copy(random.choice(bases), body) for _ in range(random.randint(2, 5))]
            tally.bursts.append(await asyncio.gather(*copies))
            tally.sent += len(copies)


def impossible(log: list[Recorded]) -> list[str]:
    """Events the rules could not have decided on the state the log has before them: a duel
    started with a player who is in another one, a pick in a duel that is not open or a second
    pick in a round. Such an event was decided on another state than the one it follows."""
    ruleset = RULESETS["card-duel"]
    state = ruleset.initial_state(log[0].data["config"])
    found = []
    for recorded in log:
        data = recorded.data
        if recorded.type == "duel_started":
            busy = [p for p in (data["challenger"], data["target"]) if in_duel(state, p)]
            if busy:
                found.append(f"seq {recorded.seq}: a duel of {busy}, already in a duel")
        elif recorded.type == "card_picked":
            duel = state.duels.get(data["duel_id"])
            if duel is None or data["player_id"] in duel.picks or duel.round != data["round"]:
                found.append(f"seq {recorded.seq}: a pick in {data['duel_id']}, not open to it")
        state = ruleset.evolve(state, ruleset.read(recorded.type, recorded.data, recorded.version))
    return found


def in_duel(state: Any, player_id: str) -> bool:
    return state.fighters[player_id].duel_id in state.duels


def wrong_bursts(tally: Tally) -> list[str]:
    """Each burst: every copy 200 with the same seq, exactly one of them not a duplicate."""
    wrong = []
    for answers in tally.bursts:
        statuses = {status for status, _ in answers}
        seqs = {body.get("seq") for _, body in answers}
        firsts = [body for _, body in answers if body.get("duplicate") is False]
        if statuses != {200} or len(seqs) != 1 or len(firsts) != 1:
            wrong.append(repr(answers))
    return wrong


async def run(database: str, count: int, tmp_path: Path, mode: str) -> None:
    tally = Tally()
    async with (
        servers(database, count, tmp_path) as started,
        httpx.AsyncClient(base_url=started[0].base, timeout=30) as http,
    ):
        bases = [s.base for s in started]
        game = await Game.create(http, "card-duel", **CONFIG)
        players = [await game.add(f"P{n}") for n in range(PHONES)]
        await game.ok(game.organizer, "start_game")
        phones = [
            FuzzPhone(game, p, [q["code"] for q in players if q is not p], bases, http, tally)
            for p in players
        ]
        playing = asyncio.gather(*(phone.play(COMMANDS) for phone in phones))
        bursts = organizer_bursts(game, players, bases, tally, playing)
        await asyncio.wait_for(asyncio.gather(playing, bursts), PLAY_S)
        for phone in phones:
            await phone.settle()

        log = await read_log(database, game.game_id)
        head = log[-1].seq
        for server in started:  # every server has heard of everything

            async def caught_up(server: Server = server) -> bool:
                return await seq_at(http, server, game) == head

            await until(caught_up, f"{server.base} at {head}")
        converged, apart = 0, []
        for phone in phones:
            seen: dict[str, Any] = {}

            async def holds_it(phone: FuzzPhone = phone, seen: dict[str, Any] = seen) -> bool:
                response = await http.get(
                    f"{phone.base}/api/games/{game.game_id}/view",
                    headers=game.auth(phone.member["token"]),
                )
                seen.update(response.json())
                return phone.in_step and bare(phone.held.view) == bare(seen["view"])

            try:
                await until(holds_it, phone.member["name"])
                converged += 1
            except AssertionError:
                apart.append(f"{phone.member['name']} at {phone.held.seq}: {phone.held.view}")
                apart.append(f"the server at {seen.get('seq')}: {seen.get('view')}")
            await phone.hang_up()
        died = tally.died + sum(server.died() for server in started)

    written = effects(log)
    where = {r.command_id: r.seq for r in log if r.command_id is not None}
    twice = sorted(c for c, n in written.items() if n > 1)
    astray = []  # acknowledged, but not (or not there) in the log
    for command_id, answers in tally.answers.items():
        seqs = {seq for _, seq in answers if seq is not None}
        if seqs and seqs != {where.get(command_id)}:
            astray.append(f"{command_id}: answered {seqs}, in the log at {where.get(command_id)}")
    wrong = wrong_bursts(tally)
    unsound = impossible(log)
    faults = tally.faults
    report(
        f"Fuzzed phones, {mode}",
        f"{PHONES} phones, {tally.commands} commands, {tally.sent} copies sent; "
        f"{faults['drop']} dropped, {faults['duplicate']} duplicated, "
        f"{faults['reorder']} reordered, {faults['delay']} delayed, {faults['cut']} cuts, "
        f"{faults['http']} HTTP copies; 503 (tried again) to {tally.unavailable['a command']} "
        f"commands, {tally.unavailable['a connect']} connects",
        f"{len(twice)} duplicated, {len(astray)} acks not in the log, "
        f"{len(unsound)} decided on another state, "
        f"{len(tally.unanswered)} unanswered, {converged}/{PHONES} hold the latest view",
    )
    ids = f"{len(tally.bursts)} ids × 2–5 copies"  # noqa: RUF001
    fives = f"{len(tally.failed)} × 5xx"  # noqa: RUF001
    report(
        f"Retried commands, {mode}",
        f"{ids} ({sum(map(len, tally.bursts))} requests; sent again: {tally.resent} after a "
        f"transport error, {tally.unavailable['the organizer']} after a 503)",
        f"{len(wrong)} wrong answers, {fives}, {died} handlers died",
    )
    report(
        f"Reconnects with after=N, {mode}",
        f"{tally.resumes} of {tally.reconnects} connects; {tally.messages} views and patches",
        f"{len(tally.stale)} views older than after",
    )
    assert not twice and not astray and not tally.unanswered, (twice, astray, tally.unanswered)
    assert not unsound, unsound
    assert converged == PHONES, apart
    assert not wrong, wrong[:5]
    assert not tally.failed and died == 0, (tally.failed[:5], died)
    assert not tally.stale, tally.stale[:10]
    assert tally.resumes > 0 and sum(faults.values()) > 0  # the faults did happen


async def seq_at(http: httpx.AsyncClient, server: Server, game: Game) -> int:
    response = await http.get(
        f"{server.base}/api/games/{game.game_id}/view", headers=game.auth(game.organizer)
    )
    assert response.status_code == 200, f"{server.base}: {response.status_code} {response.text}"
    seq: int = response.json()["seq"]
    return seq


async def test_phones_behind_a_bad_network(database: str, tmp_path: Path) -> None:
    if database.startswith("sqlite"):
        await run(database, 1, tmp_path, "one server on SQLite")
    else:
        await run(database, 2, tmp_path, "two servers on one PostgreSQL")
