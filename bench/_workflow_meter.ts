/**
 * What a scripted agent's calls cost, as a model would pay it: every call
 * through a real MCP client, with the characters of text content it got back
 * (what clients such as Claude Code put in the model's context), the
 * characters of `structuredContent` (JSON) the server sent beside it, the
 * characters of arguments sent, and the time.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/client";

/** One call as the meter saw it. */
export interface CallCost {
  /** The tool. */
  tool: string;
  /** Characters of the arguments (JSON). */
  sent: number;
  /** Characters of the text content returned. */
  text: number;
  /** Characters of `structuredContent` (JSON), 0 when the server sent none. */
  structured: number;
  /** Whether the result was an error (or the call failed). */
  isError: boolean;
}

/** A tool's reply, reduced to what an agent reads. */
export interface Reply {
  /** The text content, blocks joined with newlines. */
  text: string;
  /** `structuredContent`, when sent. */
  structured?: unknown;
  /** Whether the result was an error (or the call failed). */
  isError: boolean;
}

/** A tool the server does not list. */
export class ToolMissing extends Error {
  /**
   * @param tool The tool.
   */
  constructor(readonly tool: string) {
    super(`${tool} is not served`);
  }
}

/** A client that records what each call cost; tasks take the records made since the last take. */
export class MeteredClient {
  #client: Client;
  #tools: Set<string>;
  #costs: CallCost[] = [];

  /**
   * @param client A connected SDK client.
   * @param tools The tools the server listed.
   */
  constructor(client: Client, tools: readonly string[]) {
    this.#client = client;
    this.#tools = new Set(tools);
  }

  /**
   * Whether the server lists a tool.
   *
   * @param tool The tool's name.
   * @returns True when listed.
   */
  has(tool: string): boolean {
    return this.#tools.has(tool);
  }

  /**
   * Call a tool; an error result or a failed call comes back as a reply with
   * `isError`, and costs what it returned.
   *
   * @param tool The tool.
   * @param args Its arguments.
   * @returns The reply.
   * @throws {ToolMissing} When the server does not list the tool (nothing is sent).
   */
  async call(tool: string, args: Record<string, unknown>): Promise<Reply> {
    if (!this.#tools.has(tool)) throw new ToolMissing(tool);
    let reply: Reply;
    try {
      const result = await this.#client.callTool({ name: tool, arguments: args }, {
        timeout: 300_000,
      });
      const blocks = result.content as Array<{ type: string; text?: string }>;
      reply = {
        text: blocks.map((block) => block.text ?? "").join("\n"),
        isError: result.isError === true,
        ...(result.structuredContent === undefined ? {} : { structured: result.structuredContent }),
      };
    } catch (error) {
      reply = { text: (error as Error).message, isError: true }; // a protocol error: the model sees it
    }
    this.#costs.push({
      tool,
      sent: JSON.stringify(args).length,
      text: reply.text.length,
      structured: reply.structured === undefined ? 0 : JSON.stringify(reply.structured).length,
      isError: reply.isError,
    });
    return reply;
  }

  /**
   * Call a tool that must succeed.
   *
   * @param tool The tool.
   * @param args Its arguments.
   * @returns The reply.
   * @throws {Error} When the reply is an error.
   */
  async must(tool: string, args: Record<string, unknown>): Promise<Reply> {
    const reply = await this.call(tool, args);
    if (reply.isError) throw new Error(`${tool} failed: ${reply.text.slice(0, 400)}`);
    return reply;
  }

  /**
   * The calls made since the last take.
   *
   * @returns Their costs, in order.
   */
  take(): CallCost[] {
    return this.#costs.splice(0);
  }
}
