/**
 * `toolhost call` and `toolhost tools`: one tool call, or the tool list,
 * through a host made for the command and closed after it.
 *
 * @module
 */

import { printable, printableJson } from "../../security/printable.ts";
import type { HostConfig } from "../config/mod.ts";
import { createHost } from "../host.ts";
import type { OutputOptions } from "./printer.ts";

/**
 * `toolhost call TOOL [JSON]`: run one tool call through the same dispatcher
 * and print the result.
 *
 * @param config The resolved configuration.
 * @param rest The tool's name and its arguments as JSON (default `{}`).
 * @param options `json` for the whole result as JSON; `printer` where to print.
 * @returns 0 when the tool succeeded, 1 when it reported an error, 2 on a usage error.
 */
export async function callCommand(
  config: HostConfig,
  rest: readonly string[],
  options: OutputOptions,
): Promise<number> {
  const { json, printer } = options;
  const [tool, raw = "{}"] = rest;
  if (!tool) {
    printer.err(
      `toolhost: call needs a tool name: toolhost call read_file '{"path": "README.md"}'`,
    );
    return 2;
  }
  let args: unknown;
  try {
    args = JSON.parse(raw);
  } catch (error) {
    printer.err(`toolhost: cannot parse the arguments as JSON: ${(error as Error).message}`);
    return 2;
  }
  const host = await createHost({ config });
  try {
    const result = await host.call(tool, args, { session: "cli", client: "toolhost-cli" });
    if (json) printer.out(JSON.stringify(result, null, 2));
    else {
      for (const block of result.content) {
        printer.out(block.type === "text" ? block.text : JSON.stringify(block));
      }
    }
    return result.isError ? 1 : 0;
  } catch (error) {
    printer.err(`toolhost: ${(error as Error).message}`);
    return 2;
  } finally {
    await host.close();
  }
}

/**
 * `toolhost tools`: list the tools, one line each (name, kind, first
 * sentence), or their schemas as JSON.
 *
 * @param config The resolved configuration.
 * @param options `json` for the descriptors as JSON; `printer` where to print.
 * @returns 0.
 */
export async function toolsCommand(config: HostConfig, options: OutputOptions): Promise<number> {
  const { json, printer } = options;
  const host = await createHost({ config });
  try {
    const tools = host.list();
    // An upstream server's names and descriptions are its own: shown escaped.
    if (json) printer.out(printableJson(JSON.stringify(tools, null, 2)));
    else {
      const width = Math.max(...tools.map((tool) => tool.name.length));
      for (const tool of tools) {
        const kind = tool.annotations.readOnlyHint
          ? "read "
          : tool.annotations.destructiveHint
          ? "edit "
          : "write";
        printer.out(
          printable(
            `${tool.name.padEnd(width)}  ${kind}  ${tool.description.split(/(?<=\.)\s/)[0]}`,
          ),
        );
      }
    }
    return 0;
  } finally {
    await host.close();
  }
}
