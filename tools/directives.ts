/**
 * Typed directives (seed 002): what a tool asks of the host beyond its
 * result. Local tools return them natively; at the MCP boundary they travel
 * in `_meta["toolhost/directives"]`, and upstream results are parsed back.
 *
 * Wire form: a JSON array of objects with a `kind` and the fields below, e.g.
 * `[{"kind": "ContextAnchor", "key": "todo_state", "content": "…"}]`.
 *
 * @module
 */

/** Stop processing the remaining tool calls of this turn. */
export interface StopProcessing {
  /** The directive's kind. */
  readonly kind: "StopProcessing";
}

/** Ask for a hand-off to another tier. */
export interface TierChange {
  /** The directive's kind. */
  readonly kind: "TierChange";
  /** The tier to hand off to. */
  readonly target_tier: string;
}

/** Push state to a persistent context anchor (the latest per key wins). */
export interface ContextAnchor {
  /** The directive's kind. */
  readonly kind: "ContextAnchor";
  /** The anchor's key, e.g. `todo_state`. */
  readonly key: string;
  /** The anchored content. */
  readonly content: string;
}

/** The todo list changed. */
export interface TodoStateChanged {
  /** The directive's kind. */
  readonly kind: "TodoStateChanged";
  /** The list as text. */
  readonly formatted_state: string;
}

/** Every directive. */
export type Directive = StopProcessing | TierChange | ContextAnchor | TodoStateChanged;

/** Where directives travel in a result's `_meta`. */
export const DIRECTIVES_META_KEY = "toolhost/directives";

/** The longest anchor key. */
export const MAX_ANCHOR_KEY = 128;

/**
 * Parse directives from a result's `_meta`: well-formed ones are kept,
 * unknown kinds and malformed entries are reported and ignored.
 *
 * @param meta A result's `_meta`.
 * @param warn Called once per ignored entry.
 * @returns The directives.
 */
export function parseDirectives(meta: unknown, warn: (message: string) => void): Directive[] {
  const raw = (meta as Record<string, unknown> | undefined)?.[DIRECTIVES_META_KEY];
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    warn(`Ignored "${DIRECTIVES_META_KEY}": not an array`);
    return [];
  }
  const out: Directive[] = [];
  for (const entry of raw) {
    const directive = parseOne(entry);
    if (directive) out.push(directive);
    else {warn(
        `Ignored a directive of unknown kind or shape: ${JSON.stringify(entry).slice(0, 200)}`,
      );}
  }
  return out;
}

function parseOne(entry: unknown): Directive | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  const e = entry as Record<string, unknown>;
  switch (e.kind) {
    case "StopProcessing":
      return { kind: "StopProcessing" };
    case "TierChange":
      return typeof e.target_tier === "string"
        ? { kind: "TierChange", target_tier: e.target_tier }
        : undefined;
    case "ContextAnchor":
      return typeof e.key === "string" && e.key.length > 0 && e.key.length <= MAX_ANCHOR_KEY &&
          typeof e.content === "string"
        ? { kind: "ContextAnchor", key: e.key, content: e.content }
        : undefined;
    case "TodoStateChanged":
      return typeof e.formatted_state === "string"
        ? { kind: "TodoStateChanged", formatted_state: e.formatted_state }
        : undefined;
    default:
      return undefined;
  }
}
