// Which dice-combat screen a token gets: the GM's console (and its QR invites) for the organizer,
// the phone screen for a player (their combatants) and for a spectator (the public part).
import { dicePlayerScreen, diceNeedsAwake } from "./player.js";
import { consoleScreen } from "../../rulesets.js";

// Only an organizer downloads the console and the invite sheet.
const CONSOLE = () => import("./gm.js");

export { diceNeedsAwake as awake };

export function screen(app, game, page) {
  if (game.view.me?.role === "organizer") return consoleScreen(app, game, page, CONSOLE, "diceGmScreen");
  return dicePlayerScreen(app, game);
}
