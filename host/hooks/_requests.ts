/**
 * Reading the Hook API's request bodies: bounded JSON, and an approval's
 * answer checked field by field.
 *
 * @module
 */

import type { ApprovalAnswer } from "../approvals/mod.ts";
import { concatBytes } from "../../tools/_bytes.ts";

/** The largest request body taken. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request's JSON body, or the 400/413 response.
 *
 * @param request The request.
 * @returns The value, or the refusal.
 */
export async function readJson(
  request: Request,
): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return { ok: false, response: tooLarge() };
  const bytes = await boundedBody(request);
  if (bytes === undefined) return { ok: false, response: tooLarge() };
  try {
    return {
      ok: true,
      value: bytes.length === 0 ? {} : JSON.parse(new TextDecoder().decode(bytes)),
    };
  } catch {
    return {
      ok: false,
      response: Response.json({ error: "The body is not JSON" }, { status: 400 }),
    };
  }
}

/** The body, read until it is whole or over the bound (then undefined, and the rest is not read). */
async function boundedBody(request: Request): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return chunks.length === 0 ? new Uint8Array() : concatBytes(chunks);
}

function tooLarge(): Response {
  return Response.json({ error: `The body is over ${MAX_BODY_BYTES} bytes` }, { status: 413 });
}

/**
 * An approval's answer from a request body:
 * `{"decision": "approve" | "deny", "reason"?, "scope"?: "call" | "session", "by"?, "args_hash"?, "via"?}`.
 *
 * @param body The parsed body.
 * @returns The answer and the channel it claims, or what is wrong.
 */
export function approvalAnswer(body: unknown): { answer: ApprovalAnswer; via?: string } | string {
  const value = (body ?? {}) as Record<string, unknown>;
  const decision = value.decision;
  if (decision !== "approve" && decision !== "deny") {
    return `Send {"decision": "approve" | "deny", "reason"?, "scope"?: "call" | "session", "by"?, "args_hash"?}`;
  }
  for (const key of ["reason", "by", "args_hash", "via"]) {
    if (value[key] !== undefined && typeof value[key] !== "string") return `${key} is a string`;
  }
  if (value.scope !== undefined && value.scope !== "call" && value.scope !== "session") {
    return `scope is "call" or "session"`;
  }
  const answer: ApprovalAnswer = { approve: decision === "approve" };
  if (typeof value.reason === "string") answer.reason = value.reason;
  if (typeof value.by === "string") answer.by = value.by;
  if (typeof value.args_hash === "string") answer.args_hash = value.args_hash;
  if (value.scope === "call" || value.scope === "session") answer.scope = value.scope;
  return typeof value.via === "string" ? { answer, via: value.via } : { answer };
}
