/**
 * toolhost: a sandboxed MCP tool host. An agent connects over MCP and gets
 * fast, code-aware tools over the project's roots, and nothing outside them.
 *
 * Run as a program, this module is the `toolhost` command line:
 *
 * ```sh
 * deno run -A mod.ts start --root /srv/project
 * ```
 *
 * As a library it exports the host, its configuration and the tool contract:
 *
 * @example
 * ```ts
 * import { createHost } from "./mod.ts";
 * await using host = await createHost({ roots: ["/srv/project"] });
 * const result = await host.call("read_file", { path: "README.md" });
 * ```
 *
 * @module
 */

export { createHost, type Host, type HostOptions } from "./host/host.ts";
export {
  type ConfigOverrides,
  type HostConfig,
  type HostConfigInput,
  loadConfig,
} from "./host/config/config.ts";
export { createGateway, serve } from "./host/transports/server.ts";
export {
  type CallContext,
  type CallObserver,
  type CallOutcome,
  type CallRecord,
  Dispatcher,
  type ToolProvider,
} from "./host/providers/dispatcher.ts";
export { type DoctorReport, runDoctor } from "./host/cli/doctor.ts";
export { main } from "./host/cli/main.ts";
export { type Policy, type PolicyInput, resolvePolicy } from "./security/policy.ts";
export { type ResolvedPath, Resolver } from "./security/resolver.ts";
export {
  defineTool,
  structured,
  text,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "./tools/tool.ts";
export { Registry, type ToolDescriptor } from "./tools/registry.ts";
export { TOOLS } from "./tools/mod.ts";

if (import.meta.main) {
  const { main, oneLine } = await import("./host/cli/main.ts");
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    // A fatal error: one line saying why, and a status that says it failed.
    Deno.stderr.writeSync(new TextEncoder().encode(`toolhost: ${oneLine(error)}\n`));
    Deno.exit(1);
  }
}
