/**
 * The sites of a TS/JS symbol as the language service lists them: its
 * references (`findReferences`, from each of its declarations) for
 * `find_usages`, and its rename locations for `rename_symbol`, with the role
 * each plays and the text a rename writes around the new name.
 *
 * @module
 */

import type tsModule from "typescript";
import type { SiteRole, SymbolSite } from "../symbols/_resolver.ts";
import type { ScopeService } from "./_service_host.ts";

type TS = typeof tsModule;

/** The sites of the symbol declared at a name: `findReferences`'s, in the scope's files, definition first. */
export function referenceSites(
  scoped: ScopeService,
  program: tsModule.Program,
  declarations: readonly tsModule.Node[],
  name: string,
): SymbolSite[] {
  const { ts, service, files } = scoped;
  const own = name.split(".").at(-1)!;
  const declared = new Set(
    declarations.map((each) => `${each.getSourceFile().fileName}:${each.getStart()}`),
  );
  // Each declaration's references: the language service searches by the meaning at the
  // declaration (a type's uses from an interface, a value's from a const).
  const found = declarations.flatMap((each) =>
    service.findReferences(each.getSourceFile().fileName, each.getStart()) ?? []
  );
  const sites = new Map<string, SymbolSite>();
  for (const group of found) {
    for (const reference of group.references) {
      const source = files.get(reference.fileName);
      const file = program.getSourceFile(reference.fileName);
      if (!source || !file) continue;
      const start = reference.textSpan.start;
      const spelled = file.text.slice(start, start + reference.textSpan.length);
      const key = `${reference.fileName}:${start}`;
      if (sites.has(key)) continue;
      const role = roleOf(ts, file, reference, declared.has(key));
      const site = siteAt(file, source.display, reference.textSpan, role);
      sites.set(key, spelled === own ? site : { ...site, via: spelled });
    }
  }
  const first = `${declarations[0]!.getSourceFile().fileName}:${declarations[0]!.getStart()}`;
  return [...sites.entries()].sort(([a, x], [b, y]) =>
    (a === first ? -1 : b === first ? 1 : 0) || x.path.localeCompare(y.path) || x.start - y.start
  ).map(([, site]) => site);
}

/** What a reference is, from the syntax around it. */
function roleOf(
  ts: TS,
  file: tsModule.SourceFile,
  reference: tsModule.ReferencedSymbolEntry,
  isTarget: boolean,
): SiteRole {
  if (isTarget || reference.isDefinition) return "definition";
  if (reference.isInString) return "string";
  const node = tokenAt(ts, file, reference.textSpan.start);
  const parent = node?.parent;
  if (!parent) return "reference";
  if (
    ts.isImportSpecifier(parent) || ts.isImportClause(parent) || ts.isNamespaceImport(parent) ||
    ts.isImportEqualsDeclaration(parent)
  ) return "import";
  if (ts.isExportSpecifier(parent) || ts.isExportAssignment(parent)) return "export";
  if (reference.isWriteAccess) return "assignment";
  const callee = ts.isPropertyAccessExpression(parent) && parent.name === node ? parent : node;
  const call = callee?.parent;
  if (
    call && (ts.isCallExpression(call) || ts.isNewExpression(call)) && call.expression === callee
  ) {
    return "call";
  }
  return callee !== node ? "attribute" : "reference";
}

/** The innermost node that starts at a position. */
function tokenAt(ts: TS, file: tsModule.SourceFile, position: number): tsModule.Node | undefined {
  let found: tsModule.Node | undefined;
  const visit = (node: tsModule.Node): void => {
    if (node.getStart(file) <= position && position < node.getEnd()) {
      found = node;
      ts.forEachChild(node, visit);
    }
  };
  ts.forEachChild(file, visit);
  return found;
}

/** An exact site at a span of a file. */
function siteAt(
  file: tsModule.SourceFile,
  display: string,
  span: tsModule.TextSpan,
  role: SiteRole,
): SymbolSite {
  const at = file.getLineAndCharacterOfPosition(span.start);
  return {
    path: display,
    line: at.line + 1,
    column: at.character + 1,
    start: span.start,
    end: span.start + span.length,
    role,
    certainty: "exact",
    text: lineText(file, at.line),
  };
}

export function lineOf(file: tsModule.SourceFile, position: number): number {
  return file.getLineAndCharacterOfPosition(position).line + 1;
}

function lineText(file: tsModule.SourceFile, line: number): string {
  const starts = file.getLineStarts();
  return file.text.slice(starts[line], starts[line + 1] ?? file.text.length).trim();
}

/**
 * The sites a rename changes: the compiler's rename locations in the scope's
 * files, with what it writes around the new name (a shorthand property keeps
 * its key: `{ greet }` becomes `{ greet: hello }`; an export alias keeps the
 * name importers use).
 */
export function renameSites(
  scoped: ScopeService,
  program: tsModule.Program,
  declarations: readonly tsModule.Node[],
  listed: readonly SymbolSite[],
): SymbolSite[] {
  const byKey = new Map(listed.map((site) => [`${site.path}:${site.start}`, site]));
  const out = new Map<string, SymbolSite>();
  const preferences = { providePrefixAndSuffixTextForRename: true };
  for (const declaration of declarations) {
    const fileName = declaration.getSourceFile().fileName;
    const locations = scoped.service.findRenameLocations(
      fileName,
      declaration.getStart(),
      false,
      false,
      preferences,
    ) ?? [];
    for (const location of locations) {
      const source = scoped.files.get(location.fileName);
      const file = program.getSourceFile(location.fileName);
      if (!source || !file) continue;
      const key = `${source.display}:${location.textSpan.start}`;
      const site = byKey.get(key) ?? siteAt(file, source.display, location.textSpan, "reference");
      out.set(key, {
        ...site,
        ...(location.prefixText ? { prefix: location.prefixText } : {}),
        ...(location.suffixText ? { suffix: location.suffixText } : {}),
      });
    }
  }
  return [...out.values()].sort((a, b) => a.path.localeCompare(b.path) || a.start - b.start);
}
