/**
 * What a TS/JS rename would break, as the compiler sees it: its errors in
 * the files the rename changes or that mention the old name (a string key
 * such as `Omit<T, "name">` is one the compiler's own rename leaves),
 * before and with the edits, compared by file and error code.
 *
 * @module
 */

import type tsModule from "typescript";
import type { ScopeService } from "./_service_host.ts";

/** The most new errors described (the rest are counted). */
const MAX_SHOWN = 8;

/**
 * The compiler's new errors if the edits were written, one line each.
 *
 * @param scoped The scope's service.
 * @param oldName The name being renamed.
 * @param edits Each changed file's real path and new text.
 * @returns `path:line: TS1234 message` for each (file, code) with more errors than before.
 */
export function renameBreaks(
  scoped: ScopeService,
  oldName: string,
  edits: ReadonlyArray<{ path: string; after: string }>,
): string[] {
  const texts = new Map(edits.map((edit) => [edit.path, edit.after]));
  const affected = [...scoped.files.values()]
    .filter((file) => texts.has(file.path) || file.text.includes(oldName))
    .map((file) => file.path);
  // The edits, and the version of every file checked: the same question on the same files.
  const versions = affected.map((path) => {
    const file = scoped.files.get(path)!;
    return `${path}:${file.mtime}:${file.size}`;
  });
  const key = JSON.stringify([[...texts], versions]);
  const verdict = lastVerdicts.get(scoped.service);
  if (verdict?.key === key) return verdict.breaks;
  const after = scoped.withTexts(texts, (edited) => errorsIn(scoped, edited, affected));
  // Only a file with errors after the edits can have new ones: the files' errors before are asked
  // of the compiler only then (most renames leave none, and each check costs about a second on
  // 75 files of zod, the types every file uses checked again).
  const before = errorsIn(
    scoped,
    scoped.service,
    [...after].filter(([, errors]) => errors.length > 0).map(([path]) => path),
  );
  const breaks = compare(scoped, before, after);
  // A dry run and the real run that follows it ask the same: the second is answered from here.
  lastVerdicts.set(scoped.service, { key, breaks });
  return breaks;
}

/** Each service's last answer, and what it was for: the edits and the files' versions (as JSON). */
const lastVerdicts = new WeakMap<tsModule.LanguageService, { key: string; breaks: string[] }>();

/** The (file, code) pairs with more errors after than before, one line each. */
function compare(
  scoped: ScopeService,
  before: Map<string, tsModule.Diagnostic[]>,
  after: Map<string, tsModule.Diagnostic[]>,
): string[] {
  const out: string[] = [];
  for (const [path, diagnostics] of after) {
    const had = countByCode(before.get(path) ?? []);
    for (const [code, now] of countByCode(diagnostics)) {
      if (now <= (had.get(code) ?? 0)) continue;
      const first = diagnostics.find((each) => each.code === code)!;
      out.push(describe(scoped, first));
    }
  }
  if (out.length <= MAX_SHOWN) return out;
  return [...out.slice(0, MAX_SHOWN), `${out.length - MAX_SHOWN} more files and codes`];
}

/** Each file's errors (syntax and types). */
function errorsIn(
  scoped: ScopeService,
  service: tsModule.LanguageService,
  paths: readonly string[],
): Map<string, tsModule.Diagnostic[]> {
  const { ts } = scoped;
  const out = new Map<string, tsModule.Diagnostic[]>();
  for (const path of paths) {
    const all = [...service.getSyntacticDiagnostics(path), ...service.getSemanticDiagnostics(path)];
    out.set(path, all.filter((each) => each.category === ts.DiagnosticCategory.Error));
  }
  return out;
}

function countByCode(diagnostics: readonly tsModule.Diagnostic[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const each of diagnostics) counts.set(each.code, (counts.get(each.code) ?? 0) + 1);
  return counts;
}

/** `path:line: TS1234 message` (the message's first line). */
function describe(scoped: ScopeService, diagnostic: tsModule.Diagnostic): string {
  const file = diagnostic.file;
  const shown = file ? scoped.files.get(file.fileName)?.display ?? file.fileName : "?";
  const line = file && diagnostic.start !== undefined
    ? file.getLineAndCharacterOfPosition(diagnostic.start).line + 1
    : 0;
  const message =
    scoped.ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n").split("\n")[0];
  return `${shown}:${line}: TS${diagnostic.code} ${message} (the compiler, with the rename)`;
}
