// card-duel: which screen a member gets. The organizer's console (and its QR invites), a
// fighter's phone; a spectator, or a member who does not fight, watches.
import { playerNeedsAwake, playerScreen } from "./player.js";
import { spectatorScreen } from "../../views/spectator.js";
import { consoleScreen } from "../../rulesets.js";

// Only an organizer downloads the console and the invite sheet.
const CONSOLE = () => import("./organizer.js");

export function screen(app, game, page) {
  const me = game.view.me;
  if (me?.role === "organizer") return consoleScreen(app, game, page, CONSOLE, "organizerScreen");
  if (!Array.isArray(me?.cards)) return spectatorScreen(app, game);
  return playerScreen(app, game);
}

// The organizer's console does not keep the screen on; a fighter's phone does in a duel or a stun.
export function awake(view) {
  return view.me?.role !== "organizer" && playerNeedsAwake(view);
}

// A challenge sent minutes late from a dead spot would lock the sender in with an opponent long
// gone: it expires in the outbox instead, with this banner.
export const expiring = { challenge: "challenge_expired" };
