/**
 * The Python oracle's corpus and sampler: the standard library's `email`
 * and `http` packages copied as `mailkit` and `httpkit` (their imports
 * rewritten), and a seeded sample of pyright's document symbols.
 *
 * @module
 */

import { writeMailkit } from "../tests/tools/symbols/_fixtures.ts";
import type { PyPick } from "./_py_oracle.ts";
import { filesUnder } from "./_corpora.ts";
import { stratifiedSample } from "./_seeded.ts";

/** `email` as `mailkit`, and `http` as `httpkit` (its imports of `email` as `mailkit` too). */
export async function pyCorpus(root: string): Promise<string[]> {
  await Deno.remove(root, { recursive: true }).catch(() => {});
  await Deno.mkdir(root, { recursive: true });
  await writeMailkit(root);
  const out = await new Deno.Command("python3", {
    args: ["-c", "import http; print(http.__path__[0])"],
    stdout: "piped",
  }).output();
  const http = new TextDecoder().decode(out.stdout).trim();
  for (const path of await filesUnder(http, (name) => name.endsWith(".py"))) {
    const text = (await Deno.readTextFile(`${http}/${path}`))
      .replace(/^(\s*)(from|import)\s+http\b/gm, "$1$2 httpkit")
      .replace(
        /(?<![\w.])http\.(?=(client|server|cookies|cookiejar|HTTPStatus|HTTPMethod)\b)/g,
        "httpkit.",
      )
      .replace(/^(\s*)(from|import)\s+email\b/gm, "$1$2 mailkit")
      .replace(/(?<![\w.])email\.(?=[A-Za-z_])/g, "mailkit.");
    await Deno.mkdir(`${root}/httpkit`, { recursive: true });
    await Deno.writeTextFile(`${root}/httpkit/${path}`, text);
  }
  return await filesUnder(root, (name) => name.endsWith(".py"));
}

/** A seeded sample, a quarter from each kind of symbol. */
export function samplePy(all: readonly PyPick[], n: number, seed: number): PyPick[] {
  // LSP symbol kinds: 12 a function, 5 a class.
  return stratifiedSample(all, n, seed, [
    (pick) => pick.name.includes("."),
    (pick) => pick.kind === 12,
    (pick) => pick.kind === 5,
    () => true,
  ]);
}
