/**
 * Module resolution as Python's import system does it, inside the roots: a
 * dotted name is looked for under each import root — the directory above the
 * importing file's top package (the folders with `__init__.py` it sits in),
 * the scope, then each root — as a package (a folder with `__init__.py`), a
 * module (`name.py`, `name.pyi`) or a namespace package (a bare folder), in
 * that order. Relative imports count their dots up from the file's package.
 *
 * @module
 */

import * as posix from "node:path/posix";
import type { PyFile, PyWorld } from "./_resolve_world.ts";

/** A module or package of the project. */
export interface PyModule {
  /** Its identity: its file's path, or a namespace package's folder. */
  readonly key: string;
  /** Its source (`name.py`, or a package's `__init__.py`), when it has one that could be read. */
  readonly file?: PyFile;
  /** A package's folder (submodules are looked for there). */
  readonly dir?: string;
}

/**
 * The module an import names, as the importing file would find it.
 *
 * @param world The call's files.
 * @param from The importing file.
 * @param level Leading dots (0 for an absolute import).
 * @param dotted The dotted module name (`""` for `from . import x`).
 * @returns The module, or `undefined` when it is not in the roots (the standard library, a dependency).
 */
export function resolveModule(
  world: PyWorld,
  from: PyFile,
  level: number,
  dotted: string,
): PyModule | undefined {
  const parts = dotted === "" ? [] : dotted.split(".");
  if (level > 0) {
    let base = posix.dirname(from.path);
    for (let i = 1; i < level; i++) base = posix.dirname(base);
    if (world.rootOf(base) === undefined) return undefined;
    return parts.length === 0 ? packageAt(world, base) : lookUnder(world, base, parts);
  }
  if (parts.length === 0) return undefined;
  for (const root of importRoots(world, from)) {
    const found = lookUnder(world, root, parts);
    if (found) return found;
  }
  return undefined;
}

/**
 * A package's submodule.
 *
 * @param world The call's files.
 * @param module The package.
 * @param name The submodule's name.
 * @returns The submodule, or `undefined`.
 */
export function submodule(world: PyWorld, module: PyModule, name: string): PyModule | undefined {
  return module.dir === undefined ? undefined : lookUnder(world, module.dir, [name]);
}

/**
 * The module a file is (for `__all__` and attribute look-ups of its own names).
 *
 * @param file The file.
 * @returns The module.
 */
export function moduleOf(file: PyFile): PyModule {
  const init = posix.basename(file.path).startsWith("__init__.py");
  return init ? { key: file.path, file, dir: posix.dirname(file.path) } : { key: file.path, file };
}

/** Where absolute imports of a file are looked for, in order. */
function importRoots(world: PyWorld, from: PyFile): string[] {
  const roots = [topOfPackages(world, posix.dirname(from.path))];
  if (world.scope.info?.isDirectory) roots.push(world.scope.path);
  roots.push(...world.ctx.policy.roots);
  return [...new Set(roots)];
}

/** The folder above the outermost package that holds `dir` (`dir` itself when it is no package). */
function topOfPackages(world: PyWorld, dir: string): string {
  const root = world.rootOf(dir);
  let at = dir;
  while (at !== root && hasInit(world, at)) at = posix.dirname(at);
  return at;
}

function hasInit(world: PyWorld, dir: string): boolean {
  const entries = world.entries(dir);
  return entries?.get("__init__.py")?.kind === "file" ||
    entries?.get("__init__.pyi")?.kind === "file";
}

/** A dotted name under a folder: packages down to the last part, then a package or a module. */
function lookUnder(world: PyWorld, base: string, parts: readonly string[]): PyModule | undefined {
  let dir = base;
  for (const part of parts.slice(0, -1)) {
    if (world.entries(dir)?.get(part)?.kind !== "directory") return undefined;
    dir = `${dir}/${part}`;
  }
  const last = parts.at(-1)!;
  const entries = world.entries(dir);
  const sub = `${dir}/${last}`;
  if (entries?.get(last)?.kind === "directory" && hasInit(world, sub)) return packageAt(world, sub);
  for (const suffix of [".py", ".pyi"]) {
    if (entries?.get(last + suffix)?.kind !== "file") continue;
    const file = world.file(`${dir}/${last}${suffix}`);
    return file ? { key: file.path, file } : { key: `${dir}/${last}${suffix}` };
  }
  return entries?.get(last)?.kind === "directory" ? packageAt(world, sub) : undefined;
}

/** A package folder: its `__init__` when it has one, else a namespace package. */
function packageAt(world: PyWorld, dir: string): PyModule {
  const entries = world.entries(dir);
  for (const name of ["__init__.py", "__init__.pyi"]) {
    if (entries?.get(name)?.kind !== "file") continue;
    const file = world.file(`${dir}/${name}`);
    if (file) return { key: file.path, file, dir };
  }
  return { key: dir, dir };
}
