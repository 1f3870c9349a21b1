/**
 * The doctor's probes of the inner boundary: through the full host, a
 * symlink to outside, `..`, an absolute path and a `file://` URL outside
 * must be `path_denied`. The same host then says whether each upstream
 * server answers.
 *
 * @module
 */

import type { ToolResult } from "../../tools/tool.ts";
import type { HostConfig } from "../config/mod.ts";
import { createHost, type Host } from "../host.ts";
import { DOCTOR_CLIENT, type ProbeResult, type ProbeTargets } from "./doctor_report.ts";

/**
 * Start a host on the configuration (no tools of its own configured, no
 * efferent copy) and try to read outside the roots through it.
 *
 * @param config The resolved configuration.
 * @param targets What to try to reach.
 * @returns The resolver probes, then one probe per upstream server.
 */
export async function innerProbes(
  config: HostConfig,
  targets: ProbeTargets,
): Promise<ProbeResult[]> {
  const host = await createHost({
    config: { ...config, tools: {} },
    // The probes report what counts; the host's own log lines would only clutter the report.
    logger: { log: () => {} },
    efferentCopy: false,
  });
  try {
    const results: ProbeResult[] = [];
    for (const [name, args] of resolverCases(config.policy.roots[0]!, targets)) {
      const result = await host.call("read_file", args, {
        session: DOCTOR_CLIENT,
        client: DOCTOR_CLIENT,
      });
      const text = textOf(result);
      const ok = result.isError === true && text.startsWith("path_denied:") &&
        !text.includes("outside content");
      results.push({ name, ok, detail: ok ? text : `not denied: ${text.slice(0, 200)}` });
    }
    return [...results, ...upstreamProbes(host)];
  } finally {
    await host.close();
  }
}

/** The `read_file` arguments that must be denied: name, arguments. */
function resolverCases(
  root: string,
  { secret, link }: ProbeTargets,
): Array<[string, Record<string, unknown>]> {
  const depth = root.split("/").length;
  return [
    ["resolver: symlink to a file outside", { path: link.slice(root.length + 1) }],
    ["resolver: `..` escape", { path: `${"../".repeat(depth)}${secret.slice(1)}` }],
    ["resolver: absolute path outside", { path: secret }],
    ["resolver: file:// URL outside", { path: `file://${secret}` }],
  ];
}

/**
 * Each upstream server: connected, or why not; then a line for each of its
 * tools listed under a name made to fit MCP's rule, with the server's own.
 */
function upstreamProbes(host: Host): ProbeResult[] {
  return host.status().upstreams.flatMap((upstream) => [
    {
      name: `upstream "${upstream.name}": answers`,
      ok: upstream.state === "connected",
      detail: upstream.state === "connected"
        ? `connected (${upstream.tools} tools)`
        : `not connected: ${upstream.error}`,
    },
    ...Object.entries(upstream.renamed ?? {}).map(([listed, own]) => ({
      name: `upstream "${upstream.name}": tool renamed`,
      ok: true,
      detail: `listed as "${listed}", which calls its tool ${
        JSON.stringify(own.length > 200 ? `${own.slice(0, 200)}…` : own)
      }`,
    })),
  ]);
}

/** A tool result's text blocks, joined. */
function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}
