/**
 * What the served process reads on stdin, however the client's writes cut
 * it: stdin is read straight into one reused buffer (`_lines.ts`), so a
 * line read in pieces must be kept whole, and a line longer than the buffer
 * must come out the same. Through the launch users run (`mcp-config`'s
 * command, raw JSON-RPC lines).
 */

import { assertEquals, assertStringIncludes } from "../../_assert.ts";
import { tempDir } from "../../_helpers.ts";
import { initialize, type Message, startRaw, waitFor } from "./stdio_raw.ts";

const readFile = (id: number, path: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "read_file", arguments: { path } },
  });

/** The text of the answer to a request. */
function answerText(messages: Message[], id: number): string {
  const answer = messages.find((message) => message.id === id);
  const result = answer?.result as { content?: Array<{ text?: string }> } | undefined;
  return result?.content?.map((block) => block.text ?? "").join("") ??
    `no text: ${JSON.stringify(answer)}`;
}

Deno.test("stdio: lines written in pieces, several in one write, and longer than a read are read whole", async () => {
  await using root = await tempDir();
  await Deno.writeTextFile(`${root.path}/a.txt`, "alpha\n");
  await Deno.writeTextFile(`${root.path}/b.txt`, "beta\n");
  const server = await startRaw([root.path], "off");
  try {
    await initialize(server);
    // One line in three writes, a pause between them: the reads see its pieces apart.
    const line = `${readFile(2, "a.txt")}\n`;
    for (const piece of [line.slice(0, 9), line.slice(9, 40), line.slice(40)]) {
      await server.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await waitFor(server, "the answer to the line written in pieces", (m) => m.id === 2);
    assertEquals(answerText(server.messages, 2), "alpha\n");
    // Two lines and the start of a third in one write, its end in the next.
    const third = readFile(5, "a.txt");
    await server.write(`${readFile(3, "b.txt")}\n${readFile(4, "a.txt")}\n${third.slice(0, 20)}`);
    await server.write(`${third.slice(20)}\n`);
    // Calls run side by side on the workers: their answers come in any order.
    for (const id of [3, 4, 5]) await waitFor(server, `the answer to ${id}`, (m) => m.id === id);
    assertEquals([3, 4, 5].map((id) => answerText(server.messages, id)), [
      "beta\n",
      "alpha\n",
      "alpha\n",
    ]);
    // A line of 200 KB (more than three reads of the 64 KiB buffer), under the request bound.
    const content = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join("\n");
    const write = JSON.stringify({
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "write_file", arguments: { path: "big.txt", content } },
    });
    await server.write(`${write}\n${readFile(7, "b.txt")}\n`);
    for (const id of [6, 7]) await waitFor(server, `the answer to ${id}`, (m) => m.id === id);
    assertStringIncludes(answerText(server.messages, 6), "big.txt");
    assertEquals(await Deno.readTextFile(`${root.path}/big.txt`), content);
    assertEquals(answerText(server.messages, 7), "beta\n");
  } finally {
    server.child.kill();
    await server.child.status;
  }
});
