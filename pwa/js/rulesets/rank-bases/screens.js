// rank-bases: which screen a member gets. The organizer's console, a leader's base, a player's
// phone; a spectator (and #/board on any phone) gets the scoreboard.
import { rows } from "../../keyed.js";
import { consoleScreen } from "../../rulesets.js";
import { boardScreen } from "./board.js";
import { rankLeaderScreen } from "./leader.js";
import { rankPlayerScreen } from "./player.js";

// Only an organizer downloads the console and the invite sheet.
const CONSOLE = () => import("./organizer.js");

export function screen(app, game, page) {
  const role = game.view.me?.role;
  if (page === "board" || !role || role === "spectator") return boardScreen(app, game);
  if (role === "organizer") return consoleScreen(app, game, page, CONSOLE, "rankOrganizerScreen");
  if (role === "leader" && game.view.team) return rankLeaderScreen(app, game);
  if (role === "player" && game.view.me.team_id) return rankPlayerScreen(app, game);
  return boardScreen(app, game);
}

// The screen stays on for the big scoreboard, an open duel, a raid waiting for defenders, and a
// base with a raid to answer.
export function awake(view, page) {
  const role = view.me?.role;
  if (page === "board" || !role || role === "spectator") return true;
  if (view.duel || view.raid?.state === "awaiting_defenders") return true;
  return role === "leader" && rows(view.incoming_raids, "raid_id").some((r) => r.state === "awaiting_defenders");
}

// A duel or raid sent minutes late from a dead spot would pull in players long gone: they
// expire in the outbox instead, with these banners.
export const expiring = { duel: "challenge_expired", raid: "raid_expired" };
