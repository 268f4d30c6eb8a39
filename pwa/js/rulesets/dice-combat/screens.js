// Which dice-combat screen a token gets: the GM's console (and its QR invites) for the organizer,
// the phone screen for a player (their combatants) and for a spectator (the public part).
import { diceGmScreen } from "./gm.js";
import { dicePlayerScreen, diceNeedsAwake } from "./player.js";
import { invitesScreen } from "../../views/invites.js";

export { diceNeedsAwake as awake };

export function screen(app, game, page) {
  if (game.view.me?.role === "organizer") return page === "invites" ? invitesScreen(app, game) : diceGmScreen(app, game);
  return dicePlayerScreen(app, game);
}
