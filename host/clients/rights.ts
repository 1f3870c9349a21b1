/**
 * What one HTTP client may do: the rights `toolhost token add` gives a
 * token, and the one question they answer — may this client call (and see)
 * this tool. Roots are kept by the host's scopes (`scopes.ts`); the limits
 * by the client's access (`access.ts`).
 *
 * @module
 */

import { APPROVAL_CLASSES, type ApprovalClass } from "../config/mod.ts";
import { globMatcher } from "../approvals/mod.ts";

/** What a client may do. */
export interface ClientRights {
  /** Only tools that are read-only (no `write` class). */
  readonly readOnly: boolean;
  /** Tool names or globs it may call (empty: any), and those it may not. */
  readonly tools: { readonly allow: readonly string[]; readonly deny: readonly string[] };
  /** Classes of tools it may call (empty: any), and those it may not. */
  readonly classes: {
    readonly allow: readonly ApprovalClass[];
    readonly deny: readonly ApprovalClass[];
  };
  /** The roots it may reach (real paths, each a host root or inside one), or null for all. */
  readonly roots: readonly string[] | null;
  /** Most calls in any minute, or null for no limit. */
  readonly callsPerMinute: number | null;
  /** Most calls running at once, or null for no limit. */
  readonly concurrent: number | null;
}

/** The rights of the host's own token (`http-token`): everything. */
export const FULL_RIGHTS: ClientRights = Object.freeze({
  readOnly: false,
  tools: { allow: [], deny: [] },
  classes: { allow: [], deny: [] },
  roots: null,
  callsPerMinute: null,
  concurrent: null,
});

/**
 * The tool families a client limited to some roots never gets: they read
 * what the host keeps of every client's calls (the interaction log, the
 * statistics, the anchors), which name the other roots' files.
 */
export const HOST_WIDE_FAMILIES: readonly string[] = Object.freeze(["observe"]);

/** What the host tells of a tool, for the rights to judge it. */
export interface ToolFacts {
  /** Its classes: write, exec, net, upstream. */
  readonly classes: readonly ApprovalClass[];
  /** Its family, when it has one (an upstream server's tools have none). */
  readonly family?: string;
}

/**
 * Why a client may not call a tool, or null when it may.
 *
 * @param rights The client's rights.
 * @param tool The tool's name.
 * @param facts Its classes and family.
 * @returns The reason (for `not_permitted`), or null.
 */
export function refusalOf(rights: ClientRights, tool: string, facts: ToolFacts): string | null {
  const { classes } = facts;
  if (rights.readOnly && classes.includes("write")) return "it is read-only";
  const deniedClass = classes.find((each) => rights.classes.deny.includes(each));
  if (deniedClass) return `it may not call ${deniedClass} tools`;
  if (rights.classes.allow.length > 0) {
    const outside = classes.find((each) => !rights.classes.allow.includes(each));
    if (outside) return `it may call only ${rights.classes.allow.join(", ")} tools`;
  }
  if (rights.tools.deny.some((glob) => globMatcher(glob)(tool))) {
    return "its rights deny this tool";
  }
  if (
    rights.tools.allow.length > 0 && !rights.tools.allow.some((glob) => globMatcher(glob)(tool))
  ) {
    return "its rights do not list this tool";
  }
  if (rights.roots !== null) {
    // An upstream server reaches what it reaches, not this client's roots.
    if (classes.includes("upstream")) {
      return "it is limited to some roots, and upstream servers are not";
    }
    if (facts.family && HOST_WIDE_FAMILIES.includes(facts.family)) {
      return "it is limited to some roots, and this tool reads what the host keeps of every root";
    }
  }
  return null;
}

/**
 * A class name as given on the command line, checked.
 *
 * @param name The name.
 * @returns The class.
 * @throws {Error} When it is no class.
 */
export function parseClass(name: string): ApprovalClass {
  if ((APPROVAL_CLASSES as readonly string[]).includes(name)) return name as ApprovalClass;
  throw new Error(`"${name}" is no class of tools: ${APPROVAL_CLASSES.join(", ")}`);
}

/**
 * The rights in a few words, for `token list` and the start-up log.
 *
 * @param rights The rights.
 * @returns One line.
 */
export function describeRights(rights: ClientRights): string {
  const parts: string[] = [];
  if (rights.readOnly) parts.push("read-only");
  if (rights.tools.allow.length > 0) parts.push(`tools ${rights.tools.allow.join(" ")}`);
  if (rights.tools.deny.length > 0) parts.push(`not tools ${rights.tools.deny.join(" ")}`);
  if (rights.classes.allow.length > 0) parts.push(`classes ${rights.classes.allow.join(" ")}`);
  if (rights.classes.deny.length > 0) parts.push(`not ${rights.classes.deny.join(" ")}`);
  if (rights.roots !== null) parts.push(`roots ${rights.roots.join(" ")}`);
  if (rights.callsPerMinute !== null) parts.push(`${rights.callsPerMinute} calls/min`);
  if (rights.concurrent !== null) parts.push(`${rights.concurrent} at once`);
  return parts.length === 0 ? "full rights" : parts.join(", ");
}

/**
 * Whether a value read from the store is a client's rights.
 *
 * @param value What was read.
 * @returns True when every field has its type.
 */
export function isRights(value: unknown): value is ClientRights {
  const rights = value as Partial<ClientRights> | null;
  const strings = (list: unknown) =>
    Array.isArray(list) && list.every((s) => typeof s === "string");
  const limit = (n: unknown) => n === null || (Number.isInteger(n) && (n as number) > 0);
  return typeof rights?.readOnly === "boolean" &&
    strings(rights.tools?.allow) && strings(rights.tools?.deny) &&
    strings(rights.classes?.allow) && strings(rights.classes?.deny) &&
    (rights.roots === null || strings(rights.roots)) &&
    limit(rights.callsPerMinute) && limit(rights.concurrent);
}
