/**
 * What `toolhost doctor` finds: one result per probe, and the report that
 * gathers them.
 *
 * @module
 */

/**
 * The client (and session) name of the doctor's probe calls: `toolhost log`
 * leaves them out unless `--all` is given. An MCP client's is always
 * `name/version`, never this.
 */
export const DOCTOR_CLIENT = "doctor";

/** One probe's outcome. */
export interface ProbeResult {
  /** What was tried. */
  name: string;
  /** Whether the boundary held. */
  ok: boolean;
  /** What happened. */
  detail: string;
}

/** The doctor's report. */
export interface DoctorReport {
  /** Every probe. */
  probes: ProbeResult[];
  /** The roots probed. */
  roots: readonly string[];
  /** True when every probe held. */
  ok: boolean;
}

/** What the boundary probes try to reach: made outside the roots for the doctor's run. */
export interface ProbeTargets {
  /** A fresh directory outside every root. */
  outsideDir: string;
  /** A file in it, whose content must never come back. */
  secret: string;
  /** A symlink in the first root that points at the secret. */
  link: string;
}
