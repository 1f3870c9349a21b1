/**
 * The scale bench's projects: real Python that a machine ships, at the sizes
 * issue 32 names. One copy is 2,000 files: python3's standard library (its
 * tests included, its `site-packages` apart) topped up from the packages
 * installed beside it (`site-packages`, in name order). The 20,000-file
 * project is ten such copies side by side (`copy0/` … `copy9/`), each its
 * own tree.
 *
 * @module
 */

/** A project built (or found built) under the bench's data folder. */
export interface ScaleProject {
  /** Its folder. */
  readonly root: string;
  /** Its Python files. */
  readonly files: number;
}

/** Python files in one copy. */
export const COPY_FILES = 2_000;

/** Folders never copied: installed packages (copied apart), caches. */
const SKIPPED = new Set(["site-packages", "dist-packages", "__pycache__"]);

/**
 * A project of `copies` copies, built once under `root` (kept between runs:
 * a `.complete` marker says it was built whole).
 *
 * @param root Where it lives.
 * @param copies How many copies (1: about 2,000 files).
 * @returns The project.
 */
export async function scaleProject(root: string, copies: number): Promise<ScaleProject> {
  const marker = `${root}/.complete`;
  const done = await Deno.readTextFile(marker).catch(() => undefined);
  if (done !== undefined) return { root, files: Number(done) };
  await Deno.remove(root, { recursive: true }).catch(() => {});
  const [stdlib, packages] = await pythonPaths();
  let files = 0;
  for (let i = 0; i < copies; i++) {
    const to = copies === 1 ? root : `${root}/copy${i}`;
    const lib = await copyPython(stdlib, `${to}/lib`, COPY_FILES);
    files += lib + await copyPython(packages, `${to}/site-packages`, COPY_FILES - lib);
  }
  await Deno.writeTextFile(marker, String(files));
  return { root, files };
}

/** The standard library's folder and the installed packages' (Debian's `dist-packages` first). */
async function pythonPaths(): Promise<[string, string]> {
  const out = await new Deno.Command("python3", {
    args: ["-c", "import sysconfig;print(sysconfig.get_paths()['stdlib'])"],
    stdout: "piped",
  }).output();
  const stdlib = new TextDecoder().decode(out.stdout).trim();
  if (!stdlib) throw new Error("python3 did not name its standard library's folder");
  const dist = "/usr/lib/python3/dist-packages";
  const packages = await Deno.stat(dist).then(() => dist, () => `${stdlib}/site-packages`);
  return [stdlib, packages];
}

/** Copy up to `budget` `.py` files of a tree, in name order; how many were copied. */
async function copyPython(from: string, to: string, budget: number): Promise<number> {
  let copied = 0;
  let made = false;
  const entries = await Array.fromAsync(Deno.readDir(from));
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of entries) {
    if (copied >= budget) break;
    if (SKIPPED.has(entry.name)) continue;
    if (entry.isDirectory) {
      copied += await copyPython(`${from}/${entry.name}`, `${to}/${entry.name}`, budget - copied);
    } else if (entry.isFile && entry.name.endsWith(".py")) {
      if (!made) await Deno.mkdir(to, { recursive: true });
      made = true;
      await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
      copied++;
    }
  }
  return copied;
}
