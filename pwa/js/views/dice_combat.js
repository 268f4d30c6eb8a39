// Which dice-combat screen a token gets: the GM's console (and its QR invites) for the organizer,
// the phone screen for a player (their combatants) and for a spectator (the public part).
import { diceGmScreen } from "./dice_gm.js";
import { dicePlayerScreen, diceNeedsAwake } from "./dice_player.js";
import { invitesScreen } from "./invites.js";

export { diceNeedsAwake };

export function diceScreen(app, game, page) {
  if (game.view.me?.role === "organizer") return page === "invites" ? invitesScreen(app, game) : diceGmScreen(app, game);
  return dicePlayerScreen(app, game);
}
