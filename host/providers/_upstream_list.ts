/**
 * An upstream server's tools as the host lists them: under names within
 * MCP's rule (`tools/tool_names.ts`), sorted by that name whatever order the
 * server replied in, each with the upstream icon, and the way back from a
 * listed name to the server's own.
 *
 * @module
 */

import type { Tool as McpTool } from "@modelcontextprotocol/client";
import { ICONS } from "../../tools/icons.ts";
import type { ToolDescriptor } from "../../tools/registry.ts";
import { UPSTREAM_SEPARATOR } from "../../tools/tool_names.ts";
import { upstreamToolName } from "../../tools/upstream_tool_name.ts";
import type { HostLogger } from "../logger.ts";

/** An upstream's tools as listed. */
export interface UpstreamListing {
  /** The descriptors, sorted by name. */
  readonly descriptors: readonly ToolDescriptor[];
  /** Each listed tool by its listed name. */
  readonly tools: ReadonlyMap<string, McpTool>;
  /** The server's own name of each tool listed under another, by listed name. */
  readonly renamed: Readonly<Record<string, string>>;
}

/**
 * List an upstream's tools.
 *
 * @param server The server's name.
 * @param tools Its tools, in the order it replied.
 * @param options Which of its tools are offered (by their own names); where a clash is said.
 * @returns The listing.
 * @throws {RangeError} When the server's name cannot form valid names (config rejects it first).
 */
export function listUpstream(
  server: string,
  tools: readonly McpTool[],
  options: { allowed: (name: string) => boolean; logger: HostLogger },
): UpstreamListing {
  const named = tools.filter((tool) => options.allowed(tool.name))
    .map((tool) => ({ listed: upstreamToolName(server, tool.name), tool }))
    .sort((a, b) => compare(a.listed, b.listed) || compare(a.tool.name, b.tool.name));
  const byName = new Map<string, McpTool>();
  const renamed: Record<string, string> = {};
  for (const { listed, tool } of named) {
    if (byName.has(listed)) {
      options.logger.log(
        "warn",
        `Upstream "${server}" has two tools listed as "${listed}"; "${tool.name}" is left out`,
      );
      continue;
    }
    byName.set(listed, tool);
    if (listed !== `${server}${UPSTREAM_SEPARATOR}${tool.name}`) renamed[listed] = tool.name;
  }
  return Object.freeze({
    descriptors: Object.freeze([...byName].map(([listed, tool]) => describe(listed, tool))),
    tools: byName,
    renamed: Object.freeze(renamed),
  });
}

/** Code-unit order: the same on every machine and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An upstream tool's descriptor: its description, schemas and annotations intact. */
function describe(listed: string, tool: McpTool): ToolDescriptor {
  const descriptor: ToolDescriptor = {
    name: listed,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema as Record<string, unknown>,
    annotations: { ...(tool.annotations ?? {}) } as ToolDescriptor["annotations"],
    icons: [ICONS.upstream],
  };
  if (tool.outputSchema) descriptor.outputSchema = tool.outputSchema as Record<string, unknown>;
  return descriptor;
}
