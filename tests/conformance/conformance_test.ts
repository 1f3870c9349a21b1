/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * pinned) against the host over Streamable HTTP, started as users start it.
 * Runs under `CI=true` or `TOOLHOST_CONFORMANCE=1` (it fetches the suite from
 * npm the first time).
 *
 * - As shipped (token on, no fixtures): the scenarios a server without the
 *   suite's fixture tools can pass. The suite sends no token, so it reaches
 *   the host through a forwarder that adds it and changes nothing else.
 * - With `--conformance-fixtures`: every 2025-11-25 server scenario, judged
 *   against `expected_failures.yml`.
 */

import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_assert.ts";
import { tempDir } from "../_helpers.ts";
import { launchHttp, waitForStderr } from "../_mcp.ts";
import { forwardWithToken } from "./_forwarder.ts";
import { resumeReconnection } from "./_resume.ts";
import {
  describe,
  expectedFailures,
  failing,
  runServerSuite,
  serverScenarios,
  SPEC,
  SUITE,
  suite,
  type SuiteRun,
} from "./_suite.ts";

const ENABLED = Deno.env.get("CI") === "true" || Deno.env.get("TOOLHOST_CONFORMANCE") === "1";
const SKIPPED = " (skipped: set CI=true or TOOLHOST_CONFORMANCE=1 to run the suite)";
const EXPECTED = new URL("./expected_failures.yml", import.meta.url).pathname;

/**
 * The server scenarios that need none of the suite's fixtures. Every other
 * one calls a `test_*` tool (tools-call-*, elicitation-*, json-schema-2020-12,
 * server-sse-polling's test_reconnection), reads a `test://` resource or the
 * template (resources-read-*, resources-templates-read), or needs the prompts
 * and completions only the fixtures declare (prompts-*, completion-complete).
 */
const WITHOUT_FIXTURES = [
  "server-initialize",
  "logging-set-level",
  "ping",
  "tools-list",
  "resources-list",
  "resources-subscribe",
  "resources-unsubscribe",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

function tail(output: string, lines = 80): string {
  return output.trimEnd().split("\n").slice(-lines).join("\n");
}

function broken(run: SuiteRun, names: readonly string[]): string[] {
  return names.filter((name) =>
    failing(run.scenarios.get(name) ?? [{ id: name, status: "FAILURE" }]).length > 0
  );
}

Deno.test({
  name: `conformance: the scenarios that need no fixtures pass against the host as shipped${
    ENABLED ? "" : SKIPPED
  }`,
  ignore: !ENABLED,
}, async (t) => {
  await using root = await tempDir();
  await using host = await launchHttp([root.path]);
  assert(host.token !== undefined, "The host as shipped serves with a token");

  await t.step("the suite alone, without the token, is refused", async () => {
    const { code, output } = await suite([
      "server",
      `--url=${host.url}`,
      "--scenario=server-initialize",
    ]);
    assertEquals(code, 1, tail(output));
    assertMatch(output, /401|Unauthorized/);
  });

  await t.step("through a forwarder that adds the token, each of them passes", async () => {
    await using forwarder = forwardWithToken(host.url, host.token!);
    const run = await runServerSuite(forwarder.url);
    const failed = broken(run, WITHOUT_FIXTURES);
    assertEquals(
      failed,
      [],
      `Scenarios failed against the host as shipped:\n${describe(run, failed)}\n\n${
        tail(run.output)
      }\n\n${host.stderr()}`,
    );
  });
});

Deno.test({
  name: `conformance: every ${SPEC} server scenario passes with --conformance-fixtures${
    ENABLED ? "" : SKIPPED
  }`,
  ignore: !ENABLED,
}, async (t) => {
  await using root = await tempDir();
  await using host = await launchHttp([root.path], { conformanceFixtures: true });
  assertEquals(host.token, undefined, "The fixtures mode serves without a token");
  await waitForStderr(host, /WITHOUT a token/);

  await t.step(
    `the suite (${SUITE}) finds no failure outside ${EXPECTED.split("/").pop()}`,
    async () => {
      const [all, expected] = await Promise.all([serverScenarios(), expectedFailures(EXPECTED)]);
      const run = await runServerSuite(host.url, EXPECTED);
      const missing = all.filter((name) => !run.scenarios.has(name));
      const unexpected = broken(run, all.filter((name) => !expected.includes(name)));
      const stale = expected.filter((name) =>
        run.scenarios.has(name) && broken(run, [name]).length === 0
      );
      const report = [
        missing.length ? `Did not run: ${missing.join(", ")}` : "",
        unexpected.length
          ? `Failed (not in the expected failures):\n${describe(run, unexpected)}`
          : "",
        stale.length
          ? `Passed, but listed as expected failures (remove them): ${stale.join(", ")}`
          : "",
      ].filter(Boolean).join("\n");
      assertEquals(
        { missing, unexpected, stale },
        { missing: [], unexpected: [], stale: [] },
        `${report}\n\n${tail(run.output)}`,
      );
      assertEquals(run.code, 0, `The suite judged the run failed:\n${tail(run.output)}`);
    },
  );

  await t.step(
    "test_reconnection's answer reaches a 2025-11-25 client that resumes the closed stream",
    async () => {
      const { first, resumed, answer } = await resumeReconnection(host.url);
      const priming = first[0];
      assert(
        priming?.id !== undefined && priming.data.trim() === "",
        `No priming event first: ${JSON.stringify(first)}`,
      );
      assert(
        first.some((event) => event.retry !== undefined),
        `No retry field (SEP-1699 says SHOULD; the suite warns): ${JSON.stringify(first)}`,
      );
      assert(resumed.length > 0);
      assertStringIncludes(
        answer.result?.content?.[0]?.text ?? JSON.stringify(answer),
        "Reconnection test completed",
      );
    },
  );
});
