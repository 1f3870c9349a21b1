/**
 * What the TS/JS site collectors share: a verdict on one token (a site,
 * exact or unsure with a reason, or another symbol), and how a site is added.
 *
 * @module
 */

import type { SiteRole } from "../symbols/_resolver.ts";
import type { RawSite } from "../symbols/_source_sites.ts";
import { CALL, COMPUTED, IN_ERROR, type Occ } from "./_resolve_facts.ts";

/** A verdict on one token: a site (exact or unsure), or null when it is another symbol. */
export type Verdict = { certainty: "exact" } | { certainty: "unsure"; reason: string } | null;

/** A sure site. */
export const EXACT: Verdict = { certainty: "exact" };
/**
 * An unsure site.
 *
 * @param reason Why.
 * @returns The verdict.
 */
export const unsure = (reason: string): Verdict => ({ certainty: "unsure", reason });

/**
 * `call` for a called property, `string` for a string key, else `attribute`.
 *
 * @param occ The property's occurrence.
 * @returns The role.
 */
export function propertyRole(occ: Occ): SiteRole {
  return occ.flags & COMPUTED ? "string" : occ.flags & CALL ? "call" : "attribute";
}

/**
 * Add a site for a verdict (none for null); code that does not parse makes it unsure.
 *
 * @param out The sites so far.
 * @param file The file.
 * @param occ The token.
 * @param role Its role.
 * @param verdict The verdict.
 */
export function push(
  out: RawSite[],
  file: string,
  occ: Occ,
  role: SiteRole,
  verdict: Verdict,
): void {
  if (!verdict) return;
  const sure = verdict.certainty === "exact" && !(occ.flags & IN_ERROR);
  const reason = verdict.certainty === "unsure" ? verdict.reason : "in code that does not parse";
  out.push(
    sure
      ? { file, start: occ.start, role, certainty: "exact" }
      : { file, start: occ.start, role, certainty: "unsure", reason },
  );
}
