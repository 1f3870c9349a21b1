/**
 * The first tool worker started ahead of its host (`host/first_worker.ts`,
 * what the served process does so that the worker's tools load while the
 * host's modules do): a host made for the same configuration serves with
 * it; a host made for another configuration does not take it — a worker
 * started for other roots would refuse this host's files — and serves with
 * its own.
 */

import { assertEquals } from "../_assert.ts";
import { tempDir, textOf } from "../_helpers.ts";
import { loadConfig } from "../../host/config/mod.ts";
import { startFirstWorker } from "../../host/first_worker.ts";
import { createHost } from "../../host/host.ts";

const QUIET = { log: () => {} };

Deno.test("a worker started ahead serves the host made for its configuration, and no other", async (t) => {
  await using a = await tempDir();
  await using b = await tempDir();
  await Deno.writeTextFile(`${a.path}/a.txt`, "in a\n");
  await Deno.writeTextFile(`${b.path}/b.txt`, "in b\n");
  const configA = await loadConfig({ roots: [a.path], ripgrep: "off" });
  const configB = await loadConfig({ roots: [b.path], ripgrep: "off" });

  await t.step("the same configuration: the host serves with it", async () => {
    const first = await startFirstWorker(configA);
    await using host = await createHost({ config: configA, firstWorker: first, logger: QUIET });
    assertEquals(textOf(await host.call("read_file", { path: "a.txt" })), "in a\n");
  });

  await t.step(
    "another configuration: the host starts its own, confined to its roots",
    async () => {
      const first = await startFirstWorker(configA);
      await using host = await createHost({ config: configB, firstWorker: first, logger: QUIET });
      assertEquals(textOf(await host.call("read_file", { path: "b.txt" })), "in b\n");
    },
  );
});
