"""Ranged combat: shots and aimed shots (into melee too), the target's defence card, reloading,
and aids put on the field."""

from server.rules import roster
from server.rules.core import Member, RuleError
from server.rules.stamina_deck.cards import Card, aimed_pair, value
from server.rules.stamina_deck.character import Character
from server.rules.stamina_deck.commands import AimedShot, Defend, PutAid, Reload, Shoot, UseAid
from server.rules.stamina_deck.events import (
    AidPut,
    AidUsed,
    ReloadProgressed,
    ShotDefended,
    ShotFired,
)
from server.rules.stamina_deck.fight import MELEE_COVER, Aid, Shot, Source, damage
from server.rules.stamina_deck.guards import (
    actions,
    character,
    controlled,
    fighting,
    free,
    in_hand,
    on_turn,
)
from server.rules.stamina_deck.stamina import owe
from server.rules.stamina_deck.state import StaminaDeck
from server.rules.story import Story


def ready(state: StaminaDeck, actor: Member, character_id: str, cards: int) -> Character:
    """The shooter or reloader: their turn, in the fight, out of melee, with a ranged weapon."""
    roster.require_running(state.roster)
    me = controlled(state, actor, character_id)
    free(state)
    on_turn(state, me)
    fighting(me)
    if state.in_melee(me.character_id):
        raise RuleError("in_melee", f"{me.name} fights in melee: no shooting or reloading")
    if not me.can_shoot:
        raise RuleError("no_ranged_weapon", f"{me.name} has no weapon to shoot with")
    actions(me, cards)
    return me


def aiming(
    state: StaminaDeck, actor: Member, command: Shoot | AimedShot
) -> tuple[Character, Character, list[Card]]:
    """The guard of `shoot` and `aimed_shot`: a loaded shooter on turn, a target in the fight,
    hand cards (two of one suit in a row for an aimed shot). The shooter, the target, the cards."""
    aimed = isinstance(command, AimedShot)
    card_ids = command.card_ids if isinstance(command, AimedShot) else [command.card_id]
    me = ready(state, actor, command.character_id, len(card_ids))
    target = character(state, command.target_id)
    if target.character_id == me.character_id:
        raise RuleError("invalid", "a character cannot shoot itself")
    fighting(target)
    in_hand(me, card_ids)
    if not me.loaded:
        raise RuleError("not_loaded", f"{me.name}'s weapon is not loaded")
    cards = [state.cards[card_id] for card_id in card_ids]
    if aimed and not aimed_pair(*cards):
        raise RuleError("not_a_pair", "an aimed shot takes two cards of one suit in a row")
    return me, target, cards


def shoot(story: Story[StaminaDeck], command: Shoot | AimedShot) -> None:
    aimed = isinstance(command, AimedShot)
    state = story.state
    me, target, cards = aiming(state, story.ctx.actor, command)
    into_melee = state.in_melee(target.character_id)
    check, hit = None, target.character_id
    if into_melee and not aimed and me.deck:
        # A plain shot into melee: a random card of the shooter's deck (it stays there).
        # Clubs: it hits someone else in that melee, one of the target's opponents.
        check = state.cards[me.deck[story.ctx.chance.die(len(me.deck)) - 1]]
        if check.suit == "clubs":
            others = sorted({b.opponent(target.character_id) for b in state.bouts_of(hit)})
            hit = others[0] if len(others) == 1 else others[story.ctx.chance.die(len(others)) - 1]
    fired = ShotFired(
        shot_id=story.ctx.new_id("s"),
        shooter=me.character_id,
        target=hit,
        aimed_at=target.character_id,
        aimed=aimed,
        cards=[card.face() for card in cards],
        attack=me.attack_number + sum(card.value for card in cards),
        into_melee=into_melee,
        check=None if check is None else check.face(),
        deflected=hit != target.character_id,
        bonus=MELEE_COVER if aimed and into_melee else 0,
        actions=len(cards),
    )
    story.tell(fired)
    shot = story.state.shot
    assert shot is not None  # just fired
    defender = story.state.characters[hit]
    if not defender.hand:  # no choice: the deck top defends, or nothing
        defend_with(story, shot, defender, None)


def defending(state: StaminaDeck, actor: Member, command: Defend) -> tuple[Character, Shot]:
    """The guard of `defend`: the target of the shot waiting, with a hand card or the deck."""
    roster.require_running(state.roster)
    me = controlled(state, actor, command.character_id)
    shot = state.shot
    if shot is None:
        raise RuleError("nothing_to_defend", "no shot waits for a defence")
    if shot.target != me.character_id:
        raise RuleError(
            "not_the_target", f"the shot is aimed at {state.characters[shot.target].name}"
        )
    if command.card_id is not None:
        in_hand(me, [command.card_id])
    return me, shot


def defend(story: Story[StaminaDeck], command: Defend) -> None:
    me, shot = defending(story.state, story.ctx.actor, command)
    defend_with(story, shot, me, command.card_id)


def defend_with(story: Story[StaminaDeck], shot: Shot, me: Character, card_id: str | None) -> None:
    """Defence = KZ + agi + cover (+5 in melee against an aimed shot) + a hand card or the deck
    top. A hit costs the difference in stamina cards."""
    source: Source = "hand"
    if card_id is None:
        card_id, source = (me.deck[0], "deck") if me.deck else (None, "none")
    card = story.state.card(card_id)
    defence = me.defence_number + me.cover + shot.bonus + value(card)
    hurt = damage(shot.attack, defence)
    defended = ShotDefended(
        shot_id=shot.shot_id,
        shooter=shot.shooter,
        target=me.character_id,
        attack=shot.attack,
        card=None if card is None else card.face(),
        source=source,
        cover=me.cover,
        bonus=shot.bonus,
        defence=defence,
        hit=hurt > 0,
        damage=hurt,
    )
    story.tell(defended)
    owe(story, me.character_id, hurt, "discard")


def reloading(state: StaminaDeck, actor: Member, command: Reload) -> Character:
    """The guard of `reload`: a shooter on turn with an unloaded weapon and a hand card."""
    me = ready(state, actor, command.character_id, 1)
    in_hand(me, [command.card_id])
    if me.loaded:
        raise RuleError("already_loaded", f"{me.name}'s weapon is loaded")
    return me


def reload(story: Story[StaminaDeck], command: Reload) -> None:
    me = reloading(story.state, story.ctx.actor, command)
    progress = me.reload_progress + 1
    reloaded = ReloadProgressed(
        character_id=me.character_id,
        card_id=command.card_id,
        progress=progress,
        needed=me.reload_needed,
        loaded=progress >= me.reload_needed,
        actions=1,
    )
    story.tell(reloaded)


def acting_in_turn(state: StaminaDeck, actor: Member, character_id: str) -> Character:
    roster.require_running(state.roster)
    me = controlled(state, actor, character_id)
    free(state)
    on_turn(state, me)
    fighting(me)
    return me


def putting_aid(state: StaminaDeck, actor: Member, command: PutAid) -> Character:
    """The guard of `put_aid`: the character on turn, in the fight, an action and a hand card."""
    me = acting_in_turn(state, actor, command.character_id)
    actions(me, 1)
    in_hand(me, [command.card_id])
    return me


def put_aid(story: Story[StaminaDeck], command: PutAid) -> None:
    me = putting_aid(story.state, story.ctx.actor, command)
    aid = AidPut(
        aid_id=story.ctx.new_id("a"),
        character_id=me.character_id,
        card_id=command.card_id,
        name=command.name.strip(),
        x=me.x,
        y=me.y,
        actions=1,
    )
    story.tell(aid)


def using_aid(state: StaminaDeck, actor: Member, command: UseAid) -> tuple[Character, Aid]:
    """The guard of `use_aid`: the character on turn, in the fight, an aid on the field."""
    me = acting_in_turn(state, actor, command.character_id)
    aid = state.aids.get(command.aid_id)
    if aid is None:
        raise RuleError("not_found", f"no aid {command.aid_id} on the field")
    return me, aid


def use_aid(story: Story[StaminaDeck], command: UseAid) -> None:
    me, aid = using_aid(story.state, story.ctx.actor, command)
    story.tell(AidUsed(aid_id=aid.aid_id, character_id=me.character_id, card_id=aid.card_id))
