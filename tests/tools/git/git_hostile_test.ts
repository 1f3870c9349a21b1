/**
 * The git tools in hostile repositories, with git run directly (no
 * sandbox): what keeps the repositories' programs from running here is
 * the overrides alone. The same world through the real sandbox is in
 * `git_blackbox_test.ts`.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "../../_assert.ts";
import { canRun, tempDir, textOf, toolContext } from "../../_helpers.ts";
import { GIT_TOOLS } from "../../../tools/git/mod.ts";
import { resolvePolicy } from "../../../security/policy.ts";
import {
  callTool,
  DirectSandbox,
  hostileCalls,
  makeHostileWorld,
  marks,
  PWNED,
  withSandbox,
} from "./_repos.ts";

const noGit = !canRun("git");

Deno.test({
  name: `git tools run nothing a hostile repository configures, even unconfined${
    noGit ? " (skipped: git is not installed)" : ""
  }`,
  ignore: noGit,
}, async (t) => {
  await using base = await tempDir();
  await using outside = await tempDir();
  const world = await makeHostileWorld(base.path, outside.path);
  // toolContext makes a policy over one root; these calls reach all three.
  const policy = await resolvePolicy({ roots: [...world.roots] });
  const ctx = withSandbox({ ...(await toolContext(world.repo)), policy }, new DirectSandbox());
  for (const [name, args, fails] of hostileCalls(world)) {
    await t.step(`${name} ${JSON.stringify(args)}`, async () => {
      const result = await callTool(GIT_TOOLS.find((tool) => tool.name === name)!, args, ctx);
      const text = textOf(result);
      assertEquals(result.isError === true, fails, text);
      // git 2.39.4 and later honor GIT_NO_LAZY_FETCH; older ones refuse the transport.
      if (fails) {
        assertMatch(text, /^git_error: .*(lazy fetching disabled|transport 'file' not allowed)/);
      }
      assertFalse(text.includes(PWNED), text);
      assertFalse(text.includes("\x1b["), "no color");
      assertEquals(await marks(world.dirs), []);
    });
  }
  await t.step(
    "the same settings do run programs when git runs plainly (the world is hostile)",
    async () => {
      const plain = (cwd: string, ...args: string[]) =>
        new Deno.Command("git", {
          args,
          cwd,
          env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
          stdout: "null",
          stderr: "null",
        }).output();
      await plain(world.repo, "diff", "HEAD");
      await plain(world.repo, "log", "-p", "-1");
      await plain(world.superproject, "status");
      await plain(`${world.clones}/pc`, "show", "HEAD~1:a.txt");
      const left = await marks(world.dirs);
      for (const what of ["fsmonitor", "textconv", "gpg", "submodule-clean", "uploadpack"]) {
        assert(left.includes(what), `${what} ran: ${left.join(", ")}`);
        assert(left.includes(`inside:${what}`), `${what} ran: ${left.join(", ")}`);
      }
      assert(
        left.includes("clean") || left.includes("process") || left.includes("included"),
        left.join(", "),
      );
    },
  );
});
