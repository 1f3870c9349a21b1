/**
 * The MCP conformance suite's fixtures: the `test_*` tools, resources,
 * resource template, prompts and completions that the server scenarios of
 * `@modelcontextprotocol/conformance` call. Served only under
 * `--conformance-fixtures`, never in a production configuration; nothing
 * here touches the roots. The tools are in
 * `_conformance_tools.ts`, what the rest says in `_conformance_data.ts`.
 *
 * @module
 */

import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Server,
  UriTemplate,
} from "@modelcontextprotocol/server";
import type { GatewayExtras } from "./extras.ts";
import {
  COMPLETIONS,
  promptMessages,
  PROMPTS,
  RESOURCES,
  TEMPLATE,
  TEMPLATES,
} from "./_conformance_data.ts";
import { FIXTURE_TOOLS, type Run } from "./_conformance_tools.ts";

/** The longest id the resource template accepts. */
const ID_LIMIT = 200;

/**
 * The suite's fixtures as a gateway's extras.
 *
 * @returns The tools, resources and handlers; one value may serve every session.
 * @example
 * ```ts
 * const gateway = createGateway(host, { extras: conformanceFixtures() });
 * ```
 */
export function conformanceFixtures(): GatewayExtras {
  const runs = new Map<string, Run>(FIXTURE_TOOLS.map(([tool, run]) => [tool.name, run]));
  return {
    tools: FIXTURE_TOOLS.map(([tool]) => tool),
    call(name, args, ctx) {
      const run = runs.get(name);
      if (!run) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool "${name}"`);
      return run(args, ctx);
    },
    resources: RESOURCES.map(({ contents: _, ...resource }) => resource),
    read: readFixture,
    install: installFixtures,
  };
}

/**
 * Read one of the fixture resources, or one the template names.
 *
 * @param uri The resource.
 * @returns Its contents, or `undefined` when it is not a fixture's.
 */
function readFixture(uri: string): ReadResourceResult | undefined {
  const found = RESOURCES.find((resource) => resource.uri === uri);
  if (found) return { contents: [found.contents] };
  const id = new UriTemplate(TEMPLATE).match(uri)?.id;
  if (typeof id !== "string" || id.length === 0 || id.length > ID_LIMIT) return undefined;
  const data = { id, templateTest: true, data: `Data for ID: ${id}` };
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(data) }] };
}

/**
 * Register prompts, the resource template and completion on a server.
 *
 * @param server The SDK server, before it connects.
 */
function installFixtures(server: Server): void {
  server.registerCapabilities({ prompts: {}, completions: {} });
  server.setRequestHandler("prompts/list", () => ({ prompts: PROMPTS }));
  server.setRequestHandler("prompts/get", (request) => ({
    messages: promptMessages(request.params.name, request.params.arguments ?? {}),
  }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: TEMPLATES }));
  server.setRequestHandler("completion/complete", (request) => {
    const { ref, argument } = request.params;
    const key = ref.type === "ref/prompt" ? ref.name : ref.uri;
    const candidates = COMPLETIONS.get(key);
    if (!candidates) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Nothing to complete for "${key}"`);
    }
    const values = (candidates.get(argument.name) ?? []).filter((v) =>
      v.startsWith(argument.value)
    );
    return { completion: { values, total: values.length, hasMore: false } };
  });
}
