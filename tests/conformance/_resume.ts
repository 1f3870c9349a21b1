/**
 * SEP-1699 polling by hand, as a 2025-11-25 client does it: a tool call
 * whose SSE stream the server closes mid-call, resumed with `Last-Event-ID`.
 * The pinned suite's `server-sse-polling` scenario probes with the header
 * `mcp-protocol-version: 2025-03-26`, for which a server rightly offers no
 * resumption (see `expected_failures.yml`), so this is its stand-in.
 *
 * @module
 */

/** One server-sent event. */
export interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** What one resumed call saw. */
export interface Resumption {
  /** The events on the call's own stream, until the server closed it. */
  first: SseEvent[];
  /** The events replayed on the GET that resumed it, up to the call's answer. */
  resumed: SseEvent[];
  /** The call's answer. */
  answer: { result?: { content?: Array<{ text?: string }> }; error?: unknown };
}

const VERSION = "2025-11-25";
const WAIT_MS = 60_000;

/**
 * The events of an SSE body, as they arrive.
 *
 * @param response A `text/event-stream` response.
 * @yields Each event that has a field.
 */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replaceAll("\r\n", "\n");
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  } finally {
    await reader.cancel();
  }
}

function parseEvent(block: string): SseEvent | undefined {
  const event: SseEvent = { data: "" };
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split("\n")) {
    const match = /^([^:]+): ?(.*)$/.exec(line);
    if (!match) continue; // a comment (keep-alive)
    fields++;
    if (match[1] === "id") event.id = match[2]!;
    if (match[1] === "retry") event.retry = Number(match[2]);
    if (match[1] === "data") data.push(match[2]!);
  }
  event.data = data.join("\n");
  return fields > 0 ? event : undefined;
}

function post(url: string, body: unknown, session?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      ...(session ? { "mcp-session-id": session } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(WAIT_MS),
  });
}

/** The JSON-RPC message an event carries, or undefined (a priming event). */
function message(event: SseEvent): { id?: number; result?: unknown; error?: unknown } | undefined {
  return event.data.trim() === "" ? undefined : JSON.parse(event.data);
}

/**
 * Open a session, call `test_reconnection`, read its stream to the end the
 * server gives it, then resume with the last event id and read the answer.
 *
 * @param url The MCP endpoint (no token: the fixtures mode).
 * @returns What each stream carried.
 * @throws {Error} When a step is refused or the answer never comes.
 */
export async function resumeReconnection(url: string): Promise<Resumption> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: VERSION,
      capabilities: {},
      clientInfo: { name: "resume", version: "1" },
    },
  });
  const session = init.headers.get("mcp-session-id");
  if (!init.ok || session === null) throw new Error(`initialize: HTTP ${init.status}`);
  await init.body?.cancel();
  const initialized = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    session,
  );
  await initialized.body?.cancel();
  const call = await post(url, {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "test_reconnection", arguments: {} },
  }, session);
  if (!call.ok) throw new Error(`tools/call: HTTP ${call.status}`);
  const first = await Array.fromAsync(sseEvents(call));
  if (first.some((event) => message(event)?.id === 2)) {
    throw new Error(
      `The server answered before closing the call's stream: ${JSON.stringify(first)}`,
    );
  }
  const last = first.findLast((event) => event.id !== undefined)?.id;
  if (last === undefined) {
    throw new Error(`The call's stream carried no event id: ${JSON.stringify(first)}`);
  }
  try {
    return { first, ...(await resume(url, session, last)) };
  } finally {
    await fetch(url, { method: "DELETE", headers: { "mcp-session-id": session } })
      .then((response) => response.body?.cancel());
  }
}

async function resume(url: string, session: string, lastEventId: string) {
  const response = await fetch(url, {
    headers: {
      accept: "text/event-stream",
      "mcp-session-id": session,
      "mcp-protocol-version": VERSION,
      "last-event-id": lastEventId,
    },
    signal: AbortSignal.timeout(WAIT_MS),
  });
  if (!response.ok) throw new Error(`GET with Last-Event-ID: HTTP ${response.status}`);
  const resumed: SseEvent[] = [];
  for await (const event of sseEvents(response)) {
    resumed.push(event);
    const answer = message(event);
    if (answer?.id === 2) return { resumed, answer: answer as Resumption["answer"] };
  }
  throw new Error(`The resumed stream ended without the answer: ${JSON.stringify(resumed)}`);
}
