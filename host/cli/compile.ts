/**
 * `deno task compile`: one binary. The files tool code reads outside the
 * roots (the tree-sitter runtime and the grammars the tool families
 * declare), the tool worker's entry and the commands' modules (loaded by a
 * computed specifier) are included, computed rather than listed by hand. `deno compile` fetches Deno's
 * runtime from the internet; `--print` prints the command instead.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { IGNORED_ENV, TOOL_ASSETS } from "../../tools/assets.ts";
import { V8_FLAGS } from "./scoped_command.ts";
import { LOADED_LATER } from "./commands.ts";

/** The repository, which the includes are relative to. */
const REPO = new URL("../../", import.meta.url);

/** The tool worker's entry: workers are loaded by URL, so compile must be told. */
const WORKER_ENTRY = new URL("../workers/tool_worker.ts", import.meta.url);

/**
 * The arguments of `deno compile` for one binary.
 *
 * @param output The binary's name.
 * @returns The arguments after `deno`.
 */
export function compileArgs(output = "toolhost"): string[] {
  // The commands' modules are loaded by a computed specifier (`commands.ts`): compile cannot see them.
  const later = LOADED_LATER.map((path) => new URL(path, import.meta.url));
  const includes = [WORKER_ENTRY, ...later, ...TOOL_ASSETS].flatMap((url) => [
    "--include",
    relative(url),
  ]);
  return [
    "compile",
    V8_FLAGS,
    "--allow-read",
    "--allow-write",
    "--allow-run",
    "--allow-ffi",
    `--ignore-env=${IGNORED_ENV.join(",")}`,
    "--unstable-worker-options",
    "--unstable-no-legacy-abort",
    ...includes,
    "-o",
    output,
    "mod.ts",
  ];
}

function relative(url: URL): string {
  return fileURLToPath(url).slice(fileURLToPath(REPO).length);
}

if (import.meta.main) {
  const args = compileArgs();
  if (Deno.args.includes("--print")) {
    // deno-lint-ignore no-console -- a build script's one output
    console.log(["deno", ...args].join(" "));
  } else {
    const child = new Deno.Command(Deno.execPath(), {
      args,
      cwd: REPO,
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn();
    Deno.exit((await child.status).code);
  }
}
