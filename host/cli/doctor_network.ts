/**
 * The doctor's probe of the web tools' network worker: started exactly as
 * the host starts it, it must refuse a loopback server the doctor runs
 * (unless the configuration unlocked loopback) and the doctor's file
 * outside the roots, by URL and through a redirect.
 *
 * @module
 */

import type { HostConfig } from "../config/mod.ts";
import { NetworkService, networkStatus } from "../network/mod.ts";
import { networkPhrase } from "../../tools/observe/status_phrases.ts";
import type { ProbeResult, ProbeTargets } from "./doctor_report.ts";

/**
 * Probe the network worker.
 *
 * @param config The configuration.
 * @param targets The doctor's file outside the roots.
 * @returns One probe.
 */
export async function networkProbe(
  config: HostConfig,
  targets: ProbeTargets,
): Promise<ProbeResult> {
  const name = "network: fetch_url reaches neither loopback nor files";
  const status = networkStatus(config.net);
  if (!config.net || !status.active) return { name, ok: true, detail: networkPhrase(status) };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) =>
      new URL(request.url).pathname === "/redirect"
        ? Response.redirect(`file://${targets.secret}`, 302)
        : new Response("toolhost doctor: loopback content"),
  );
  const network = new NetworkService(config.net);
  const signal = new AbortController().signal;
  const outcome = async (url: string) => {
    try {
      const page = await network.fetchPage({ url, format: "text", signal });
      return { code: "fetched", text: page.text };
    } catch (error) {
      return { code: (error as { code?: string }).code ?? "error", text: (error as Error).message };
    }
  };
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const loopback = await outcome(`${base}/`);
    const file = await outcome(`file://${targets.secret}`);
    const redirect = loopback.code === "fetched"
      ? await outcome(`${base}/redirect`)
      : { code: "not tried", text: "" };
    const unlocked = loopback.code === "fetched";
    const held = file.code === "invalid_argument" &&
      (unlocked ? redirect.code === "net_denied" : loopback.code === "net_denied");
    return {
      name,
      ok: held,
      detail: `loopback: ${unlocked ? "reachable, as net.allow unlocks it" : loopback.code}; ` +
        `file URL: ${file.code}; redirect to a file: ${unlocked ? redirect.code : "not tried"}; ` +
        networkPhrase(status),
    };
  } finally {
    network.close();
    await server.shutdown();
  }
}
