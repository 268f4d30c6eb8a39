// One event of the log in words (Czech or English), for the replay's event list. Names come from
// the index (members, fighters, the ruleset's own); before the index has them, the ids show.
// The ruleset's events are worded by its replay part (rulesets/<id>/replay.js `describe`).
import { getLang, hasWords, shownName, t } from "../i18n.js";

// One formatter per language (making one per call would cost more than the whole row).
const formats = new Map();
export function clock(ms, seconds = true) {
  if (!Number.isFinite(ms)) return "";
  const key = `${getLang()}:${seconds}`;
  if (!formats.has(key)) {
    formats.set(key, new Intl.DateTimeFormat(getLang(), { hour: "2-digit", minute: "2-digit", second: seconds ? "2-digit" : undefined }));
  }
  return formats.get(key).format(ms);
}

// "+1:02:03" since the game started (or since the log's first event).
export function sinceStart(ms, index) {
  const start = index?.startedAt ?? index?.firstAt;
  if (!Number.isFinite(ms) || !Number.isFinite(start)) return "";
  const total = Math.round((ms - start) / 1000);
  const sign = total < 0 ? "−" : "+";
  const s = Math.abs(total);
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${sign}${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${sign}${mm}:${ss}`;
}

// The jump kind of an event type in this game (duel, stun, death, raid …), or null.
export function kindOf(type, index) {
  return index?.kindOf?.[type] ?? null;
}

export function memberName(index, id) {
  if (id === null || id === undefined) return "–";
  const member = index?.members?.[id];
  return member ? shownName(member.name, member.role) : index?.fighters?.[id]?.name ?? id;
}

export function teamName(index, teamId) {
  return (index?.config?.teams || []).find((team) => team.team_id === teamId)?.name ?? teamId ?? "";
}

export function when(iso) {
  return clock(Date.parse(iso));
}

export function names(index, ids) {
  return (ids || []).map((id) => memberName(index, id)).join(", ");
}

// `part`: the ruleset's replay part (null while it loads: the generic words).
export function describe(event, index, part = null) {
  const d = event.data || {};
  const who = (id) => memberName(index, id);
  const common = commonEvent(event, index, d);
  if (common !== null) return common;
  return part?.describe?.(event, index, d, who) ?? generic(event, index);
}

function commonEvent(event, index, d) {
  switch (event.type) {
    case "game_created": {
      const ruleset = t(`ruleset.${d.ruleset}`);
      return t("replay.ev.game_created", { name: d.name, ruleset: ruleset === `ruleset.${d.ruleset}` ? d.ruleset : ruleset });
    }
    case "player_joined": return t("replay.ev.player_joined", {
      name: shownName(d.name, d.role), role: t(`role.${d.role}`), team: d.team ? ` · ${teamName(index, d.team)}` : "",
    });
    case "game_started": return t("replay.ev.game_started");
    case "game_ended": return t("replay.ev.game_ended");
    default: return null;
  }
}

// Any other event: its type in words (replay.type.<type>) and the names it mentions.
const NAMED = ["player_id", "combatant_id", "character_id", "attacker", "defender", "shooter", "target", "challenger", "attacker_id", "target_id"];

export function generic(event, index) {
  const d = event.data || {};
  const people = [...new Set(NAMED.map((key) => d[key]).filter((id) => typeof id === "string"))].map((id) => memberName(index, id));
  const key = `replay.type.${event.type}`;
  const type = hasWords(key) ? t(key) : event.type.replace(/_/g, " ");
  return people.length ? `${type}: ${people.join(", ")}` : type;
}
