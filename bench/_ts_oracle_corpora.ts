/**
 * The corpora the TypeScript oracle compares on: zod 3.25's `src/v4`
 * (TypeScript, its tests left out) and express 4's `lib/` (CommonJS
 * JavaScript), each copied into a folder of its own under `bench/.data/`.
 *
 * @module
 */

import ts from "typescript";
import { copyFiles, filesUnder, npmPackage } from "./_corpora.ts";
import type { OracleProject } from "./_ts_oracle.ts";

const DATA = new URL(".data/ts_oracle/", import.meta.url).pathname;

/** zod 3.25's `src/v4` without its tests. */
export async function zodProject(): Promise<OracleProject> {
  const unpacked = await npmPackage("zod@3.25.76");
  const files = await filesUnder(
    `${unpacked}/src`,
    (path) => path.startsWith("v4/") && path.endsWith(".ts") && !/(^|\/)tests?\//.test(path),
  );
  const root = `${DATA}zod`;
  await Deno.remove(root, { recursive: true }).catch(() => {});
  await copyFiles(`${unpacked}/src`, root, files);
  return {
    root,
    files,
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
  };
}

/** express 4's `lib/`: CommonJS JavaScript. */
export async function expressProject(): Promise<OracleProject> {
  const unpacked = await npmPackage("express@4.21.2");
  const files = await filesUnder(
    `${unpacked}`,
    (path) => path.startsWith("lib/") && path.endsWith(".js"),
  );
  const root = `${DATA}express`;
  await Deno.remove(root, { recursive: true }).catch(() => {});
  await copyFiles(unpacked, root, files);
  return {
    root,
    files,
    options: {
      allowJs: true,
      checkJs: false,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      noEmit: true,
    },
  };
}
