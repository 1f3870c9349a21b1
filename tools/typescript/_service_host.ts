/**
 * The TypeScript language service over a scope, as a tool worker runs it:
 * the compiler package loaded on first use, the scope's TS/JS files from the
 * worker's source index (read through the resolver, each with its version),
 * and every other file the compiler asks for (a `tsconfig.json`, a
 * `package.json`, a declaration file in `node_modules`) read through the
 * resolver too, so that the compiler sees nothing a file tool could not.
 * Only the compiler's own library files (`lib.*.d.ts`, shipped with the
 * host) are read from outside the roots.
 *
 * @module
 */

import type tsModule from "typescript";
import { ToolError } from "../../security/errors.ts";
import type { Skipped } from "../_skipped.ts";
import { decodeText } from "../_text.ts";
import type { ToolContext } from "../tool.ts";
import { type SourceFile, SourceIndex } from "../symbols/_source_index.ts";
import { TYPESCRIPT_LIB } from "./family.ts";

type TS = typeof tsModule;

/** A scope's language service and the files it reads. */
export interface ScopeService {
  /** The compiler package. */
  ts: TS;
  /** The service. */
  service: tsModule.LanguageService;
  /** The scope's sources, by real path. */
  files: ReadonlyMap<string, SourceFile<unknown>>;
  /** The scope's real path. */
  root: string;
  /**
   * Run something against the program with some files' texts replaced (a
   * rename's edits, not yet written). It runs on a second service, so that
   * {@linkcode ScopeService.service}'s program and checker stay as they were
   * (the real run after a dry run, and the calls after it, find them ready).
   *
   * @param texts New texts by real path.
   * @param run What to run, given the service that sees them.
   * @returns What it returned.
   */
  withTexts<T>(
    texts: ReadonlyMap<string, string>,
    run: (service: tsModule.LanguageService) => T,
  ): T;
}

/** The extensions the TS/JS symbol tools read, lower case with the dot. */
export const JS_EXTENSIONS: readonly string[] = Object.freeze([
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
]);

/** The source files the service takes as the program's roots. */
export const TS_SOURCE = /\.(?:[mc]?[jt]sx?)$/i;

/** Services kept per worker (one per scope asked about, the latest few). */
const KEPT_SCOPES = 2;

let loaded: Promise<TS> | undefined;

/** The compiler package, loaded once per worker (it is large: only when a TS/JS symbol is asked for). */
function typescript(): Promise<TS> {
  loaded ??= import("typescript").then((module) => module.default);
  return loaded;
}

/** What a worker keeps between calls: the index of texts, and the services by scope. */
interface Kept {
  index: SourceIndex<unknown>;
  scopes: Map<string, Scope>;
}

/** A scope's service, and the one that sees edits not yet written. */
interface Scope {
  service: tsModule.LanguageService;
  state: HostState;
  edited: tsModule.LanguageService;
  editedState: HostState;
}

/** What a service's host reads from: the scope's files now, and the call's context. */
interface HostState {
  ctx: ToolContext;
  files: ReadonlyMap<string, SourceFile<unknown>>;
  options: tsModule.CompilerOptions;
  /** Texts that stand in for some files' own for a while ({@linkcode ScopeService.withTexts}). */
  overrides: ReadonlyMap<string, string>;
}

/**
 * The language service for a scope, with its files read again where they changed.
 *
 * @param ctx The tool context.
 * @param scope The scope (a model path).
 * @param skipped Counts files that could not be walked or read.
 * @returns The service and the scope's files.
 */
export async function scopeService(
  ctx: ToolContext,
  scope: string,
  skipped: Skipped,
): Promise<ScopeService> {
  const ts = await typescript();
  const kept = ctx.shared<Kept>("typescript-service", () => ({
    index: new SourceIndex<unknown>(),
    scopes: new Map(),
  }));
  const scan = await kept.index.scan(ctx, scope, (name) => TS_SOURCE.test(name), skipped);
  const root = scan.files.has(scan.root) ? parentOf(scan.root) : scan.root;
  let entry = kept.scopes.get(scan.root);
  if (entry) {
    kept.scopes.delete(scan.root);
    Object.assign(entry.state, { ctx, files: scan.files });
    Object.assign(entry.editedState, { ctx, files: scan.files });
  } else {
    entry = newScope(ts, { ctx, files: scan.files, options: {}, overrides: new Map() }, root);
    if (kept.scopes.size >= KEPT_SCOPES) {
      const [oldest, old] = kept.scopes.entries().next().value!;
      old.service.dispose();
      old.edited.dispose();
      kept.scopes.delete(oldest);
    }
  }
  kept.scopes.set(scan.root, entry);
  const { edited, editedState } = entry;
  const withTexts = <T>(
    texts: ReadonlyMap<string, string>,
    run: (service: tsModule.LanguageService) => T,
  ): T => {
    editedState.overrides = texts;
    try {
      return run(edited);
    } finally {
      editedState.overrides = new Map();
      // The edited program's checker is of no use to the next edits: its memory goes now.
      edited.cleanupSemanticCache();
    }
  };
  return { ts, service: entry.service, files: scan.files, root, withTexts };
}

/**
 * A scope's two services (see {@linkcode ScopeService.withTexts}), each with
 * its own registry of parsed files: a registry keeps one version of each
 * file, and the two see the edited files' texts differently.
 */
function newScope(ts: TS, state: HostState, root: string): Scope {
  state.options = compilerOptions(ts, state, root);
  const editedState: HostState = { ...state, overrides: new Map() };
  return {
    service: ts.createLanguageService(serviceHost(ts, state), ts.createDocumentRegistry()),
    state,
    edited: ts.createLanguageService(serviceHost(ts, editedState), ts.createDocumentRegistry()),
    editedState,
  };
}

/**
 * The compiler options: the scope's `tsconfig.json` (or `jsconfig.json`)
 * where it has one, JavaScript always read, nothing emitted, no type package
 * taken in unasked.
 */
function compilerOptions(ts: TS, state: HostState, root: string): tsModule.CompilerOptions {
  // JavaScript is checked too: a rename's check compares the compiler's errors before and after.
  const fixed: tsModule.CompilerOptions = {
    allowJs: true,
    checkJs: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const defaults: tsModule.CompilerOptions = {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.Preserve,
    strict: true,
  };
  for (const name of ["tsconfig.json", "jsconfig.json"]) {
    const path = `${root}/${name}`;
    const text = readChecked(state, path);
    if (text === undefined) continue;
    const json = ts.parseConfigFileTextToJson(path, text);
    if (json.error) break;
    const parsed = ts.parseJsonConfigFileContent(json.config, parseHost(state), root);
    return { ...defaults, ...parsed.options, ...fixed };
  }
  return { ...defaults, ...fixed };
}

/** The host the service reads through. */
function serviceHost(ts: TS, state: HostState): tsModule.LanguageServiceHost {
  const libDir = TYPESCRIPT_LIB.pathname.replace(/\/$/, "");
  return {
    getCompilationSettings: () => state.options,
    getScriptFileNames: () => [...state.files.keys()],
    getScriptVersion: (name) => {
      const file = state.files.get(name);
      const edited = state.overrides.has(name) ? ":edited" : "";
      return file ? `${file.mtime}:${file.size}${edited}` : "0";
    },
    getScriptSnapshot: (name) => {
      const text = state.overrides.get(name) ?? state.files.get(name)?.text ??
        readAny(state, libDir, name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => "/",
    getDefaultLibFileName: (options) => `${libDir}/${ts.getDefaultLibFileName(options)}`,
    fileExists: (name) => state.files.has(name) || readAny(state, libDir, name) !== undefined,
    readFile: (name) => state.files.get(name)?.text ?? readAny(state, libDir, name),
    directoryExists: (name) => name.startsWith(libDir) || checked(state, name, "directory"),
    getDirectories: (name) => directories(state, name),
    realpath: (name) => realPath(state, name),
    getCancellationToken: () => ({ isCancellationRequested: () => state.ctx.signal.aborted }),
    useCaseSensitiveFileNames: () => true,
  };
}

/** What `tsconfig.json`'s `extends` and `include` read, through the resolver. */
function parseHost(state: HostState): tsModule.ParseConfigHost {
  return {
    useCaseSensitiveFileNames: true,
    readDirectory: () => [],
    fileExists: (name) => readChecked(state, name) !== undefined,
    readFile: (name) => readChecked(state, name),
  };
}

/** A compiler library file, or any other file through the resolver; `undefined` when it cannot be read. */
function readAny(state: HostState, libDir: string, name: string): string | undefined {
  if (name.startsWith(`${libDir}/`) && /^lib[\w.]*\.d\.ts$/.test(name.slice(libDir.length + 1))) {
    try {
      return Deno.readTextFileSync(name);
    } catch {
      return undefined;
    }
  }
  return readChecked(state, name);
}

/** A file in the roots, read through the resolver; `undefined` when it is refused or missing. */
function readChecked(state: HostState, name: string): string | undefined {
  const { ctx } = state;
  try {
    const resolved = ctx.resolver.resolveSync(name, { want: "file" });
    const bytes = ctx.fs.readResolved(resolved, ctx.policy.limits.maxSearchFileBytes);
    return decodeText(bytes, resolved.display).text;
  } catch (error) {
    if (error instanceof ToolError || error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Whether a path in the roots is a file or directory the resolver lets the tools see. */
function checked(state: HostState, name: string, want: "file" | "directory"): boolean {
  try {
    state.ctx.resolver.resolveSync(name, { want });
    return true;
  } catch (error) {
    if (error instanceof ToolError || error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The subdirectories of a directory in the roots (hidden ones left out). */
function directories(state: HostState, name: string): string[] {
  try {
    const resolved = state.ctx.resolver.resolveSync(name, { want: "directory" });
    return state.ctx.fs.list(resolved.path).filter((entry) => entry.kind === "directory")
      .map((entry) => entry.name);
  } catch (error) {
    if (error instanceof ToolError || error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/** A path's real path, when the resolver lets the tools see it; else the path as given. */
function realPath(state: HostState, name: string): string {
  try {
    return state.ctx.resolver.resolveSync(name).path;
  } catch {
    return name;
  }
}

function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}
