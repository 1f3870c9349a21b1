/**
 * The outer boundary: Deno permissions computed from the policy, for the tool
 * worker and for the host process, and the start-up audit of the latter.
 *
 * @module
 */

import { type Policy, writablePaths } from "./policy.ts";

/** The permissions a tool worker runs with (Deno's `WorkerOptions.deno.permissions`). */
export interface WorkerPermissions {
  /** Readable paths: the roots, the state directory and named extras. */
  read: string[];
  /** Writable paths: the roots and the state directory. */
  write: string[];
  /** Exact binaries the tools may run (ripgrep), or none. */
  run: string[] | false;
  /** Never. */
  net: false;
  /** Never. */
  env: false;
  /** libc only, to set up Landlock; the worker revokes it before any tool runs. */
  ffi: string[] | false;
  /** Never. */
  sys: false;
  /** Never: tool code loads no remote modules. */
  import: false;
}

/** What tool families need beyond the roots. */
export interface Needs {
  /** Exact binaries (absolute paths). */
  run?: readonly string[];
  /** Extra read-only files (grammar `.wasm` files and the like). */
  read?: readonly string[];
  /** libc, for Landlock set-up. */
  libc?: string | null;
}

/**
 * The tool worker's permissions: read and write on the roots and the state
 * directory, the exact binaries and extra files the tools need, nothing else.
 * A worker's permissions are set by the host, whatever flags the process has.
 *
 * @param policy The policy.
 * @param needs Extra binaries and files.
 * @returns The permissions descriptor.
 */
export function workerPermissions(policy: Policy, needs: Needs = {}): WorkerPermissions {
  const paths = writablePaths(policy);
  const run = needs.run && needs.run.length > 0 ? [...needs.run] : false;
  return {
    read: [...paths, ...(needs.read ?? [])],
    write: paths,
    run,
    net: false,
    env: false,
    ffi: needs.libc ? [needs.libc] : false,
    sys: false,
    import: false,
  };
}

/** Inputs to the host process's own flags. */
export interface ProcessNeeds extends Needs {
  /** Files the process reads at start-up (config, `.mcp.json`). */
  config?: readonly string[];
  /** Hosts the process connects to (upstream servers, sinks). */
  net?: readonly string[];
  /** Environment variables the process reads (to start upstream servers and sinks). */
  env?: readonly string[];
  /** Environment variables whose reads give `undefined` instead of failing (`--ignore-env`). */
  ignoreEnv?: readonly string[];
}

/**
 * The scoped `deno run` flags for the host process.
 *
 * @param policy The policy.
 * @param needs Binaries, files and hosts it needs.
 * @returns The flags, in a stable order.
 */
export function processFlags(policy: Policy, needs: ProcessNeeds = {}): string[] {
  const write = writablePaths(policy);
  const read = unique([...write, ...(needs.config ?? []), ...(needs.read ?? [])]);
  const flags = [
    `--allow-read=${read.join(",")}`,
    `--allow-write=${write.join(",")}`,
  ];
  if (needs.run && needs.run.length > 0) flags.push(`--allow-run=${unique(needs.run).join(",")}`);
  if (needs.net && needs.net.length > 0) flags.push(`--allow-net=${unique(needs.net).join(",")}`);
  if (needs.env && needs.env.length > 0) flags.push(`--allow-env=${unique(needs.env).join(",")}`);
  if (needs.ignoreEnv && needs.ignoreEnv.length > 0) {
    flags.push(`--ignore-env=${unique(needs.ignoreEnv).join(",")}`);
  }
  if (needs.libc) flags.push(`--allow-ffi=${needs.libc}`);
  flags.push("--unstable-worker-options", "--unstable-no-legacy-abort", "--no-prompt");
  return flags;
}

/** One finding of the start-up audit. */
export interface AuditFinding {
  /** The permission name. */
  permission: "read" | "write" | "run" | "net" | "env" | "ffi" | "sys";
  /** Why it is a problem. */
  detail: string;
  /** Whether it stops `serve` (unless broad permissions are allowed). */
  refuse: boolean;
}

/**
 * Audit the running process's own permissions against what it needs: read
 * or write granted beyond the roots and state directory is refused; other
 * blanket grants are reported.
 *
 * @param policy The policy.
 * @returns The findings; empty when the process is scoped.
 */
export function auditProcess(policy: Policy): AuditFinding[] {
  const findings: AuditFinding[] = [];
  const outside = probeOutside(policy);
  for (const name of ["read", "write"] as const) {
    if (Deno.permissions.querySync({ name }).state === "granted") {
      findings.push({ permission: name, detail: `${name} is granted everywhere`, refuse: true });
    } else if (outside && Deno.permissions.querySync({ name, path: outside }).state === "granted") {
      findings.push({
        permission: name,
        detail: `${name} is granted outside the roots (e.g. "${outside}")`,
        refuse: true,
      });
    }
  }
  for (const name of ["run", "net", "env", "ffi", "sys"] as const) {
    if (Deno.permissions.querySync({ name }).state === "granted") {
      findings.push({
        permission: name,
        detail: `${name} is granted without limits`,
        refuse: false,
      });
    }
  }
  return findings;
}

/** A path outside every root and the state directory, for probing grants. */
function probeOutside(policy: Policy): string | undefined {
  for (const candidate of ["/etc", "/usr", "/var", "/tmp", "/"]) {
    const inside = writablePaths(policy).some((p) =>
      candidate === p || candidate.startsWith(p.endsWith("/") ? p : `${p}/`)
    );
    if (!inside) return candidate;
  }
  return undefined;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
