"""Make the old-log fixtures: one game of each ruleset, played against a real `bijse serve`,
exported with `bijse export`, and the replay views of every member at a few seqs.

Run it ONCE, from the root of a checkout of the code whose logs are to be kept (a git worktree
of that commit), with the interpreter of the project's venv:

    cd /tmp/fixbase && /work/main/.venv/bin/python tests/logs/make.py [ruleset ...]

The server and the exporter are `python -m server.cli` started in that root, so the checkout's
own `server` package plays and exports the games, whatever the venv's editable install points
at. The files it writes are frozen afterwards (see README.md): never run this over them again.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent  # the checkout whose code makes the logs
# `bijse`'s module, where this checkout keeps it (it moved from server/cli.py later).
CLI_MODULE = "server.serve.cli" if (ROOT / "server/serve/cli.py").exists() else "server.cli"
CLI = [sys.executable, "-m", CLI_MODULE]

Json = dict[str, Any]

# Every event kind each ruleset writes (its decide code, server/rules/roster.py and
# docs/protocol.md's event tables): the game played must show each at least once.
COMMON = {"game_created", "player_joined", "game_started", "game_ended"}
KINDS: dict[str, set[str]] = {
    "card-duel": COMMON
    | {
        "duel_started",
        "card_picked",
        "round_revealed",
        "player_escaped",
        "player_stunned",
        "player_wounded",
        "player_killed",
        "duel_ended",
        "duel_cancelled",
        "card_granted",
        "item_granted",
        "player_healed",
        "player_revived",
    },
    "rank-bases": COMMON
    | {
        "rank_assigned",
        "paper_issued",
        "duel_started",
        "duel_fought",
        "duel_cancelled",
        "raid_started",
        "raid_defended",
        "raid_won",
        "raid_lost",
        "part_taken",
        "raid_ended",
        "raid_cancelled",
        "delivered",
    },
    "stamina-deck": COMMON
    | {
        "character_added",
        "character_linked",
        "character_placed",
        "cover_set",
        "round_ended",
        "round_started",
        "initiative_drawn",
        "initiative_chosen",
        "initiative_ordered",
        "hand_drawn",
        "turn_ended",
        "character_moved",
        "leave_started",
        "leave_failed",
        "shot_fired",
        "shot_defended",
        "reload_progressed",
        "aid_put",
        "aid_used",
        "cards_owed",
        "cards_given",
        "character_wounded",
        "deck_renewed",
        "bout_started",
        "bout_ended",
        "card_played",
        "exchange_revealed",
    },
    "dice-combat": COMMON
    | {
        "combatant_added",
        "combatant_linked",
        "fight_started",
        "combatant_joined_fight",
        "round_started",
        "initiative_rolled",
        "turn_started",
        "action_taken",
        "sprint_started",
        "flight_rolled",
        "attack_declared",
        "attack_rolled",
        "defence_rolled",
        "attack_resolved",
        "attack_cancelled",
        "combatant_hurt",
        "wound_opened",
        "wound_bled",
        "combatant_fainted",
        "combatant_died",
        "first_aid_rolled",
        "bleeding_stopped",
        "combatant_rested",
        "chase_started",
        "chase_rolled",
        "chase_ended",
        "number_corrected",
        "fight_ended",
    },
}


class Refused(Exception):
    """A command the server did not take: the script's idea of the game was wrong."""


class Table:
    """One game on the server, seen by its organizer: members, commands, views."""

    def __init__(self, http: httpx.Client, ruleset: str, config: Json) -> None:
        self.http = http
        answer = http.post(
            "/api/games", json={"ruleset": ruleset, "name": f"Old log: {ruleset}", "config": config}
        )
        assert answer.status_code == 201, answer.text
        self.game_id: str = answer.json()["game_id"]
        self.organizer: str = answer.json()["organizer_token"]
        self.tokens: dict[str, str] = {}  # player_id -> token

    def auth(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def add(self, name: str, role: str = "player", team: str | None = None) -> str:
        answer = self.http.post(
            f"/api/games/{self.game_id}/players",
            json={"name": name, "role": role, "team": team},
            headers=self.auth(self.organizer),
        )
        assert answer.status_code == 201, answer.text
        player_id: str = answer.json()["player_id"]
        self.tokens[player_id] = answer.json()["token"]
        return player_id

    def send(self, who: str | None, type: str, **fields: Any) -> httpx.Response:
        """A command as member `who` (a player_id; None: the organizer)."""
        token = self.organizer if who is None else self.tokens[who]
        body = {"command_id": str(uuid.uuid4()), "type": type, **fields}
        return self.http.post(
            f"/api/games/{self.game_id}/commands", json=body, headers=self.auth(token)
        )

    def ok(self, who: str | None, type: str, **fields: Any) -> int:
        answer = self.send(who, type, **fields)
        if answer.status_code != 200:
            raise Refused(f"{type} {fields}: {answer.status_code} {answer.text}")
        seq: int = answer.json()["seq"]
        return seq

    def gm(self, type: str, **fields: Any) -> int:
        return self.ok(None, type, **fields)

    def view(self, who: str | None = None) -> Json:
        token = self.organizer if who is None else self.tokens[who]
        answer = self.http.get(f"/api/games/{self.game_id}/view", headers=self.auth(token))
        assert answer.status_code == 200, answer.text
        view: Json = answer.json()["view"]
        return view

    def events(self) -> list[Json]:
        answer = self.http.get(
            f"/api/games/{self.game_id}/events", headers=self.auth(self.organizer)
        )
        assert answer.status_code == 200, answer.text
        events: list[Json] = answer.json()["events"]
        return events

    def kinds(self) -> set[str]:
        return {event["type"] for event in self.events()}

    def replay(self, seq: int, viewer: str) -> Json:
        answer = self.http.get(
            f"/api/games/{self.game_id}/replay",
            params={"seq": seq, "viewer": viewer},
            headers=self.auth(self.organizer),
        )
        assert answer.status_code == 200, answer.text
        view: Json = answer.json()["view"]
        return view


# --- card-duel --------------------------------------------------------------------------------

CHAIR, DAGGER, CROWD = "Rána židlí", "Rána Ankh-Morporskou dýkou", "Ztracení se v davu"


def card_of(table: Table, player_id: str, title: str) -> str:
    """The id of the player's first card of that title (cards are seen by their owner)."""
    cards = table.view(player_id)["me"]["cards"]
    card_id: str = next(card["card_id"] for card in cards if card["title"] == title)
    return card_id


def duel_of(table: Table, player_id: str) -> str:
    duel_id: str = table.view(player_id)["duel"]["duel_id"]
    return duel_id


def fight_duel(table: Table, challenger: str, target: str, rounds: list[tuple[str, str]]) -> None:
    """A duel picked round by round: (the challenger's card, the target's card) by title."""
    table.ok(challenger, "challenge", target=target)
    duel_id = duel_of(table, challenger)
    for mine, theirs in rounds:
        table.ok(challenger, "pick", duel_id=duel_id, card_id=card_of(table, challenger, mine))
        table.ok(target, "pick", duel_id=duel_id, card_id=card_of(table, target, theirs))


def card_duel(http: httpx.Client) -> Table:
    # A pick timeout makes a `timeout` cancellation reachable; 3 s is plenty for a script's
    # picks. leave_after_s 0 lets a duellist leave at once.
    table = Table(http, "card-duel", {"pick_timeout_s": 3, "leave_after_s": 0, "stun_s": 300})
    ada, bert, cyril, dana, emil = (
        table.add(name, "player", team)
        for name, team in (
            ("Ada", "Hlídka"),
            ("Bert", "Hlídka"),
            ("Cyril", None),
            ("Dana", None),
            ("Emil", None),
        )
    )
    table.add("Kapitán", "leader", "Hlídka")
    table.add("Divák", "spectator")
    sword = {"title": "Meč", "big": 9, "small": 9, "kind": "death", "ranged": False}
    table.gm("grant_card", player_id=ada, card=sword)
    table.gm("grant_item", player_id=bert, item="crossbow")
    table.gm("start_game")
    # Ada's sword kills Bert, then the organizer brings him back (his crossbow is gone).
    fight_duel(table, ada, bert, [("Meč", CHAIR)])
    table.gm("revive", player_id=bert)
    table.gm("grant_item", player_id=bert, item="crossbow")
    # A drawn round (chair against chair), then Cyril's chair stuns Dana.
    fight_duel(table, cyril, dana, [(CHAIR, CHAIR), (CHAIR, DAGGER)])
    # Ada's dagger wounds Cyril; the organizer heals him.
    fight_duel(table, ada, cyril, [(DAGGER, CROWD)])
    table.gm("heal", player_id=cyril)
    # Emil melts into the crowd: both cards win, but a melee card loses to an escape.
    fight_duel(table, bert, emil, [(CHAIR, CROWD)])
    # An escape fails against a ranged card: Ada tries to flee from Bert's crossbow bolt.
    bolt = {"title": "Šipka", "big": 3, "small": 1, "kind": "wound", "ranged": True}
    table.gm("grant_card", player_id=bert, card=bolt)
    table.ok(bert, "challenge", target=ada, ranged=True)
    duel_id = duel_of(table, bert)
    table.ok(bert, "pick", duel_id=duel_id, card_id=card_of(table, bert, "Šipka"))
    table.ok(ada, "pick", duel_id=duel_id, card_id=card_of(table, ada, CROWD))
    # Cancelled duels, each reason once: the organizer, a duellist leaving, a timeout, the end.
    table.ok(cyril, "challenge", target=bert)
    table.gm("cancel_duel", duel_id=duel_of(table, cyril))
    table.ok(bert, "challenge", target=cyril)
    duel_id = duel_of(table, bert)
    table.ok(bert, "pick", duel_id=duel_id, card_id=card_of(table, bert, CHAIR))
    # Cyril has not picked, so Bert (who has) may leave.
    table.ok(bert, "leave_duel", duel_id=duel_id)
    table.ok(cyril, "challenge", target=bert)
    time.sleep(3.3)  # the duel's deadline passes unpicked
    table.ok(bert, "challenge", target=cyril)  # closes the timed-out duel first
    return table


# --- rank-bases -------------------------------------------------------------------------------


def rank_bases(http: httpx.Client) -> Table:
    teams = [{"team_id": "red", "name": "Rudí"}, {"team_id": "blue", "name": "Modří"}]
    table = Table(http, "rank-bases", {"teams": teams})
    leader = {team: table.add(f"Velitel {team}", "leader", team) for team in ("red", "blue")}
    # Each player's rank is their number: red3 holds rank 3.
    who = {
        f"{team}{rank}": table.add(f"{team} {rank}", "player", team)
        for team in ("red", "blue")
        for rank in range(1, 6)
    }
    table.add("Divák", "spectator")
    for name, player_id in who.items():
        # A leader may rank their own team before the start; the organizer anyone.
        sender = leader["blue"] if name.startswith("blue") else None
        table.ok(sender, "assign_rank", player_id=player_id, rank=int(name[-1]))
    table.gm("start_game")  # a paper for everybody
    table.gm("assign_rank", player_id=who["red3"], rank=3)  # a correction after the start
    # A duel in the field: red4 takes blue2's paper; blue's base issues blue2 a new one.
    table.ok(who["red4"], "duel", target=who["blue2"])
    table.ok(who["blue2"], "reveal", duel_id=table.view(who["blue2"])["duel"]["duel_id"])
    table.ok(leader["blue"], "issue_paper", player_id=who["blue2"])
    # Equal ranks swap papers.
    table.ok(who["red3"], "duel", target=who["blue3"])
    table.ok(who["blue3"], "reveal", duel_id=table.view(who["blue3"])["duel"]["duel_id"])
    table.ok(leader["red"], "issue_paper", player_id=who["red3"])
    table.ok(leader["blue"], "issue_paper", player_id=who["blue3"])
    # A duel the organizer calls off.
    table.ok(who["red1"], "duel", target=who["blue1"])
    table.gm("cancel_duel", duel_id=table.view(who["red1"])["duel"]["duel_id"])
    # A won raid: red5 beats blue3 at the gate, takes blue's 4 and brings it home.
    table.ok(who["red5"], "raid", team_id="blue")
    raid_id = table.view(who["red5"])["raid"]["raid_id"]
    table.ok(leader["blue"], "defend", raid_id=raid_id, order=[who["blue3"]])
    table.ok(who["red5"], "take_part", raid_id=raid_id, part_id="blue-4")
    table.ok(leader["red"], "deliver", player_id=who["red5"])
    # A lost raid: rank 1 takes rank 5's paper.
    table.ok(who["blue5"], "raid", team_id="red")
    raid_id = table.view(who["blue5"])["raid"]["raid_id"]
    table.ok(who["red2"], "defend", raid_id=raid_id, order=[who["red1"]])
    table.ok(leader["red"], "deliver", player_id=who["red1"])
    # A raid the organizer cancels.
    table.ok(who["blue4"], "raid", team_id="red")
    table.gm("cancel_raid", raid_id=table.view(who["blue4"])["raid"]["raid_id"])
    # A won raid its raider leaves for a duel (raid_ended, reason left).
    table.ok(who["red2"], "raid", team_id="blue")
    raid_id = table.view(who["red2"])["raid"]["raid_id"]
    table.ok(leader["blue"], "defend", raid_id=raid_id, order=[])
    table.ok(who["red2"], "duel", target=who["blue1"])
    table.ok(who["blue1"], "reveal", duel_id=table.view(who["blue1"])["duel"]["duel_id"])
    table.ok(leader["red"], "deliver", player_id=who["red2"])
    # Left open for the end: a duel, a raid waiting for defenders, a won raid.
    table.ok(who["red3"], "raid", team_id="blue")
    table.ok(leader["blue"], "defend", raid_id=table.view(who["red3"])["raid"]["raid_id"], order=[])
    table.ok(who["blue4"], "raid", team_id="red")
    table.ok(who["red1"], "duel", target=who["blue2"])
    return table


# --- dice-combat ------------------------------------------------------------------------------


class Tracker:
    """The GM's side of a dice-combat table: combatants by name, turns, dice."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.ids: dict[str, str] = {}

    def add(self, name: str, side: str, **sheet: Any) -> str:
        self.table.gm("add_combatant", name=name, side=side, **sheet)
        found = self.table.view()["combatants"]
        self.ids[name] = next(cid for cid, c in found.items() if c["name"] == name)
        return self.ids[name]

    def roll_all(self) -> None:
        """Every die an attack waits for, rolled by the phone linked to its combatant (the GM
        rolls for its own)."""
        view = self.table.view()
        for attack_id, attack in view["attacks"].items():
            for part in attack["awaiting"]:
                rolling = attack["attacker_id" if part == "attack" else "target_id"]
                player = view["combatants"][rolling]["player_id"]
                self.table.ok(player, "roll", attack_id=attack_id, part=part)

    def attack(self, attacker: str, target: str, **how: Any) -> None:
        self.table.gm("attack", attacker_id=self.ids[attacker], target_id=self.ids[target], **how)
        self.roll_all()

    def play_round(self, plans: dict[str, Callable[[], None]], stop: str | None = None) -> None:
        """The round in play, turn by turn: a combatant with a plan does it on its turn, then
        the GM passes the turn on; after the last turn the next round starts. With `stop`, the
        round is left at that combatant's turn, after its plan."""
        names = {cid: name for name, cid in self.ids.items()}
        round_no = self.table.view()["fight"]["round"]
        while True:
            fight = self.table.view()["fight"]
            if fight["round"] != round_no:
                break
            turn = names.get(fight["turn"])
            if turn in plans:
                plans.pop(turn)()
                if turn == stop and not plans:
                    return
            self.table.gm("next_turn")
        if plans:
            raise Refused(f"round {round_no}: no turn came for {sorted(plans)}")


def dice_combat(http: httpx.Client) -> Table:
    table = Table(http, "dice-combat", {})
    meredil = table.add("Meredil", "player", "Družina")
    bara = table.add("Bára", "player", "Družina")
    table.add("Kapitán", "leader", "Družina")
    table.add("Divák", "spectator")
    gm = Tracker(table)
    sword = {"name": "meč", "attack": 2, "damage": 2, "defence": 1}
    club = {"name": "obušek", "attack": 1, "damage": 1, "defence": 0, "flat_allowed": True}
    gm.add("Meredil", "Družina", player_id=meredil, str=2, agi=1, lives=40, armour=1, weapon=sword)
    # Bára heals: d6 + agi 10 + first aid 10 makes the 14 whatever the die.
    gm.add("Bára", "Družina", agi=10, first_aid=10, lives=20)
    gm.add("Strážný", "Družina", str=1, lives=20, weapon=club, endurance=1, movement=3)
    gm.add("Troll", "Nestvůry", lives=40, size="C")
    gm.add("Goblin", "Nestvůry", lives=5)
    gm.add("Vlk", "Nestvůry", lives=1, size="A")
    gm.add("Zloděj", "Nestvůry", agi=2, lives=10, stamina=1, movement=4, athletics=2)
    table.gm("link_player", combatant_id=gm.ids["Bára"], player_id=bara)
    table.gm("start_game")
    fighters = ["Meredil", "Bára", "Strážný", "Troll", "Goblin", "Vlk"]
    table.gm("begin_fight", combatants=[gm.ids[name] for name in fighters])
    table.gm("act", combatant_id=gm.ids["Bára"], action="speak", note="Pozor, vlk!")
    gm.play_round(
        {
            # A flat blow fells the one-life wolf without killing it: it faints.
            "Strážný": lambda: gm.attack("Strážný", "Vlk", flat=True, attack_bonus=20),
            # Meredil's phone rolls the blow that kills the goblin.
            "Meredil": lambda: gm.attack("Meredil", "Goblin", attack_bonus=30),
            # A helpless target in melee takes a wound that bleeds every round.
            "Troll": lambda: gm.attack("Troll", "Meredil", modifiers=["helpless"]),
        }
    )
    table.gm("join_fight", combatant_id=gm.ids["Zloděj"])  # rolls in at the next round

    def meredil_strikes() -> None:
        # Declared, taken back by the GM, declared again and rolled.
        table.gm(
            "attack",
            attacker_id=gm.ids["Meredil"],
            target_id=gm.ids["Troll"],
            modifiers=["helpless"],
        )
        waiting = next(iter(table.view()["attacks"]))
        table.gm("cancel_attack", attack_id=waiting)
        gm.attack("Meredil", "Troll", modifiers=["helpless"])

    gm.play_round(
        {
            "Bára": lambda: table.gm(
                "first_aid", healer_id=gm.ids["Bára"], patient_id=gm.ids["Meredil"]
            ),
            "Meredil": meredil_strikes,
            "Strážný": lambda: table.gm("act", combatant_id=gm.ids["Strážný"], action="short_move"),
        }
    )
    # Round 3: the troll's wound has bled once; a potion stops it.
    table.gm("stop_bleeding", combatant_id=gm.ids["Troll"], reason="léčivý lektvar")
    table.gm("correct", combatant_id=gm.ids["Troll"], field="lives", value=45, reason="trollí kůže")
    gm.play_round(
        {
            "Zloděj": lambda: table.gm(
                "flee", combatant_id=gm.ids["Zloděj"], opponents=[gm.ids["Strážný"]]
            )
        }
    )
    gm.play_round(
        {
            "Meredil": lambda: table.gm(
                "attack", attacker_id=gm.ids["Meredil"], target_id=gm.ids["Troll"]
            )
        },
        stop="Meredil",  # its dice are never rolled: the end of the game cancels the attack
    )
    table.gm("rest", combatant_id=gm.ids["Zloděj"])
    # A chase outside the turns: the guard runs after the thief.
    table.gm("start_chase", fleeing_id=gm.ids["Zloděj"], chaser_id=gm.ids["Strážný"], lead=3)
    (chase_id,) = table.view()["chases"]
    table.gm("chase_round", chase_id=chase_id)
    if chase_id in table.view()["chases"]:
        table.gm("end_chase", chase_id=chase_id)
    return table


# --- stamina-deck -----------------------------------------------------------------------------


class Mat:
    """The GM's side of a stamina-deck table: characters by name, and whatever the fight waits
    for (a defence, owed cards, attacks of opportunity) answered at once."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.ids: dict[str, str] = {}
        self.phones: dict[str, str | None] = {}  # character -> the player who plays it

    def add(self, name: str, side: str, player_id: str | None = None, **sheet: Any) -> None:
        self.table.gm("add_character", name=name, side=side, player_id=player_id, **sheet)
        found = self.table.view()["characters"]
        self.ids[name] = next(cid for cid, c in found.items() if c["name"] == name)
        self.phones[name] = player_id

    def me(self, name: str) -> Json:
        character: Json = self.table.view()["characters"][self.ids[name]]
        return character

    def do(self, who: str, type: str, /, **fields: Any) -> None:
        """A command of the character's own, from its phone (or the GM's), then the waiting."""
        self.table.ok(self.phones[who], type, character_id=self.ids[who], **fields)
        self.settle()

    def settle(self) -> None:
        for _ in range(20):
            view = self.table.view()
            waiting, characters = view["waiting"], view["characters"]
            if waiting["shot"] is not None:  # the target defends with its deck's top card
                self.table.gm("defend", character_id=waiting["shot"]["target"], card_id=None)
            elif waiting["debts"]:
                debt = waiting["debts"][0]
                me = characters[debt["character_id"]]
                hand = [card["card_id"] for card in me["hand"]]
                # Back to the deck: exactly the count; otherwise the deck first, then the hand.
                if debt["to"] == "deck":
                    given = hand[: debt["count"]]
                else:
                    given = hand[: max(0, debt["count"] - len(me["deck"]))]
                self.table.gm("give_cards", character_id=debt["character_id"], card_ids=given)
            elif waiting["leaving"] is not None:
                leaver = waiting["leaving"]["character_id"]
                for bout_id in waiting["leaving"]["bouts"]:
                    bout = view["bouts"][bout_id]
                    for fighter in (bout["attacker"], bout["defender"]):
                        if fighter in bout["plays"]:
                            continue
                        hand = sorted(characters[fighter]["hand"], key=lambda c: c["value"])
                        # The attacker of opportunity strikes with its best card, the leaver
                        # parries with its worst.
                        card = (hand[0] if fighter == leaver else hand[-1]) if hand else None
                        self.table.gm(
                            "play",
                            character_id=fighter,
                            bout_id=bout_id,
                            card_id=card and card["card_id"],
                        )
                        break
                    else:
                        continue
                    break
            else:
                return
        raise Refused("the fight still waits after 20 answers")

    def play_round(self, plans: dict[str, Callable[[], None]]) -> None:
        """A round: initiative (a phone with a choice keeps its best card), then every turn,
        a character with a plan doing it on its turn before it ends."""
        self.table.gm("start_round")
        self.settle()
        names = {cid: name for name, cid in self.ids.items()}
        for character_id, character in self.table.view()["characters"].items():
            if character.get("choice"):
                best = max(character["choice"], key=lambda c: c["value"])
                self.do(names[character_id], "choose_initiative", card_id=best["card_id"])
        while (turn := self.table.view()["turn"]) is not None:
            name = names[turn]
            if name in plans:
                plans.pop(name)()
            if self.table.view()["turn"] == turn:
                self.do(name, "end_turn")
        if plans:
            raise Refused(f"no turn came for {sorted(plans)}")


def stamina_deck(http: httpx.Client) -> Table:
    # Small decks run out soon (wounds, a renewed deck); wounds stay light unless no life is
    # left (the coward has one).
    config = {"stamina_deck_size": 4, "wound_light": 60, "wound_medium": 80, "mat_size": 20}
    table = Table(http, "stamina-deck", config)
    anna = table.add("Anna", "player", "Hrad")
    bohus = table.add("Bohuš", "player", "Hrad")
    table.add("Kastelán", "leader", "Hrad")
    table.add("Divák", "spectator")
    mat = Mat(table)
    crossbow = {"name": "kuše", "sz": 30, "reload_speed": 4, "ranged": True}
    sword = {"name": "meč", "melee": True, "ranged": False, "melee_cards": 1}
    axe = {"name": "sekera", "melee": True, "ranged": False, "melee_cards": 1}
    mat.add("Střelkyně", "Hrad", anna, lives=99, agi=1, shooting=3, weapon=crossbow, x=1, y=1)
    mat.add("Terč", "Les", lives=99, shooting=1, x=15, y=1)
    mat.add("Zbrojnoš", "Hrad", lives=99, melee=2, weapon=sword, x=5, y=5)
    mat.add("Zbabělec", "Les", lives=1, unarmed=1, x=15, y=15)
    mat.add("Panoš", "Hrad", lives=99, shooting=3, unarmed=1, x=10, y=10)
    mat.add("Lapka", "Les", lives=99, melee=2, shooting=1, weapon=axe, x=13, y=10)
    table.gm("link_character", character_id=mat.ids["Zbrojnoš"], player_id=bohus)
    mat.phones["Zbrojnoš"] = bohus
    table.gm("place_character", character_id=mat.ids["Zbabělec"], x=5, y=6)
    table.gm("set_cover", character_id=mat.ids["Terč"], cover=3)
    table.gm("start_game")
    table.gm("engage", attacker=mat.ids["Zbrojnoš"], defender=mat.ids["Zbabělec"])

    def archer() -> None:
        # A shot, a reload, and the last card put down as an aid for whoever finds it.
        mat.do(
            "Střelkyně",
            "shoot",
            target_id=mat.ids["Terč"],
            card_id=mat.me("Střelkyně")["hand"][0]["card_id"],
        )
        mat.do("Střelkyně", "reload", card_id=mat.me("Střelkyně")["hand"][0]["card_id"])
        mat.do(
            "Střelkyně", "put_aid", card_id=mat.me("Střelkyně")["hand"][0]["card_id"], name="Toulec"
        )

    def coward() -> None:
        # Out of contact without the bout's initiative: the brute strikes first.
        card = mat.me("Zbabělec")["hand"][0]["card_id"]
        mat.do("Zbabělec", "move", x=5, y=9, card_id=card)

    def robber() -> None:
        # Into contact with the squire, who holds more than a melee hand: extra cards go back.
        mat.do("Lapka", "move", x=11, y=10, card_id=mat.me("Lapka")["hand"][0]["card_id"])
        bout_id = next(iter(table.view()["bouts"].keys() - {first_bout}))
        for name in ("Lapka", "Panoš"):
            hand = mat.me(name)["hand"]
            mat.do(name, "play", bout_id=bout_id, card_id=hand[0]["card_id"] if hand else None)

    first_bout = next(iter(table.view()["bouts"]))
    mat.play_round({"Střelkyně": archer, "Zbabělec": coward, "Lapka": robber})

    def target() -> None:
        if not mat.me("Terč")["deck"]:
            mat.do("Terč", "renew_deck")
        aids = table.view()["mat"]["aids"]
        if aids:
            mat.do("Terč", "use_aid", aid_id=next(iter(aids)))

    mat.play_round({"Terč": target})
    for bout_id in list(table.view()["bouts"]):
        table.gm("disengage", bout_id=bout_id)
    return table


# --- the run ----------------------------------------------------------------------------------

GAMES: dict[str, Callable[[httpx.Client], Table]] = {
    "card-duel": card_duel,
    "rank-bases": rank_bases,
    "dice-combat": dice_combat,
    "stamina-deck": stamina_deck,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serving(database_url: str) -> Iterator[str]:
    """`bijse serve` of this checkout on a free loopback port, rate limits off."""
    port = free_port()
    env = {**os.environ, "BIJSE_RATE_LIMITS": "off"}
    server = subprocess.Popen(
        [*CLI, "serve", "--port", str(port), "--database-url", database_url],
        cwd=ROOT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(f"{url}/api/rulesets", timeout=1)
                break
            except httpx.TransportError:
                if server.poll() is not None:
                    raise RuntimeError("bijse serve did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        server.terminate()
        server.wait(10)


def views(table: Table, events: list[Json]) -> dict[str, dict[str, Json]]:
    """{seq: {player_id or "public": the replay view}}: at five seqs spread across the log and
    the last, every member who had joined by then; at the first event of each kind besides,
    the organizer (who sees everything)."""
    last = len(events)
    spread = {max(1, last * k // 6) for k in range(1, 6)} | {last}
    firsts: dict[str, int] = {}
    for event in events:
        firsts.setdefault(event["type"], event["seq"])
    joined = [(e["seq"], e["data"]["player_id"]) for e in events if e["type"] == "player_joined"]
    organizer = next(e["data"]["player_id"] for e in events if e["data"].get("role") == "organizer")
    recorded: dict[str, dict[str, Json]] = {}
    for seq in sorted(spread | set(firsts.values())):
        if seq in spread:
            viewers = [player_id for at, player_id in joined if at <= seq] + ["public"]
        else:
            viewers = [organizer]
        recorded[str(seq)] = {viewer: table.replay(seq, viewer) for viewer in viewers}
    return recorded


def play(http: httpx.Client, ruleset: str, attempts: int = 20) -> Table:
    """A game that shows every kind of event: the dice and the cards come from each game's
    own seed, so a game they did not favour (a refusal, a kind missing) is played again."""
    for attempt in range(1, attempts + 1):
        try:
            table = GAMES[ruleset](http)
        except Refused as refused:
            print(f"{ruleset}: attempt {attempt}: {refused}", flush=True)
            continue
        table.gm("end_game")
        seen = table.kinds()
        unknown = seen - KINDS[ruleset]
        if unknown:  # a kind this script does not know of: the list above is out of date
            raise SystemExit(f"{ruleset}: kinds not listed in KINDS: {sorted(unknown)}")
        if missing := KINDS[ruleset] - seen:
            print(f"{ruleset}: attempt {attempt}: no {sorted(missing)}", flush=True)
            continue
        return table
    raise SystemExit(f"{ruleset}: no game showed every kind in {attempts} attempts")


def make(ruleset: str, workdir: Path) -> None:
    database_url = f"sqlite:///{workdir / (ruleset + '.db')}"
    with serving(database_url) as url, httpx.Client(base_url=url, timeout=30) as http:
        table = play(http, ruleset)
        events = table.events()
        print(f"{ruleset}: {len(events)} events, {len(KINDS[ruleset])} kinds", flush=True)
        recorded = views(table, events)
    log = HERE / f"{ruleset}.ndjson"
    subprocess.run(
        [*CLI, "export", table.game_id, "--database-url", database_url, "-o", str(log)],
        cwd=ROOT,
        check=True,
    )
    (HERE / f"{ruleset}.views.json").write_text(dump_views(recorded), "utf-8")


def dump_views(recorded: dict[str, dict[str, Json]]) -> str:
    """JSON with one view a line (a seq, then its viewers), keys sorted: small, and a failing
    view easy to find."""

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    seqs = []
    for seq, seen in recorded.items():
        viewers = ",\n".join(f"  {line(viewer)}: {line(view)}" for viewer, view in seen.items())
        seqs.append(f" {line(seq)}: {{\n{viewers}\n }}")
    return "{\n" + ",\n".join(seqs) + "\n}\n"


def main(argv: list[str]) -> None:
    # The server and the exporter run as `python -m <CLI_MODULE>` in ROOT, where ROOT's own
    # `server` package comes first on sys.path: make sure it does (not the venv's install).
    where = subprocess.run(
        [sys.executable, "-c", "import server; print(server.__file__)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(where).is_relative_to(ROOT):
        raise SystemExit(f"the server package comes from {where}, not from {ROOT}")
    print(f"server package: {where}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        for ruleset in argv or list(GAMES):
            make(ruleset, Path(scratch))


if __name__ == "__main__":
    main(sys.argv[1:])
