/**
 * The C/C++ files under a scope, resolved across as far as the preprocessor
 * allows without running it: every file a translation unit sees (through
 * its `#include`s; a header also sees what its includers included), what a
 * name there refers to — C++ namespaces, classes and `using` included — and
 * what type a receiver has.
 *
 * @module
 */

import type { SourceFile } from "../symbols/_source_index.ts";
import { type FactsOr, SourceProgram } from "../symbols/_source_sites.ts";
import { memoized } from "../symbols/_memo.ts";
import { IncludeGraph } from "./_resolve_includes.ts";
import type { CContext, CDecl, CFacts, COcc, Receiver, TypeRef } from "./_resolve_facts.ts";
import {
  type DeclRef,
  enclosing,
  fits,
  qualifiedLookup,
  type RecordRef,
  type Space,
} from "./_resolve_names.ts";

const MAX_STEPS = 16;

/** The C/C++ files of a scope. */
export class CProgram extends SourceProgram<CFacts> {
  #graph: IncludeGraph;
  #around = new Map<string, Set<string>>();

  /**
   * The program of some files.
   *
   * @param files The files, by real path.
   * @param root The scope's real path.
   */
  constructor(files: ReadonlyMap<string, SourceFile<FactsOr<CFacts>>>, root: string) {
    super(files);
    this.#graph = new IncludeGraph(files, root);
  }

  /**
   * A declaration.
   *
   * @param ref Where it is.
   * @returns It.
   */
  decl(ref: DeclRef): CDecl {
    return this.facts(ref.file)!.decls[ref.decl]!;
  }

  /**
   * Every file a file sees: itself and what it includes, transitively.
   *
   * @param file The file's real path.
   * @returns The files.
   */
  closure(file: string): Set<string> {
    return this.#graph.closure(file);
  }

  /**
   * What the translation units that include a header see besides it (a
   * header may use what its includers included before it): empty for a
   * file no other file includes.
   *
   * @param file The file's real path.
   * @returns The files.
   */
  around(file: string): Set<string> {
    return memoized(this.#around, file, () => {
      const out = new Set<string>();
      for (const includer of this.#graph.includers(file)) {
        for (const path of this.#graph.closure(includer)) out.add(path);
      }
      return out;
    });
  }

  /**
   * The declarations of a name a file sees (in it and in what it includes).
   *
   * @param file The file's real path.
   * @param name The name.
   * @param around Look in what its includers see instead.
   * @returns The declarations.
   */
  visible(file: string, name: string, around = false): DeclRef[] {
    const out: DeclRef[] = [];
    for (const path of around ? this.around(file) : this.closure(file)) {
      const facts = this.facts(path);
      for (const i of facts?.byName.get(name) ?? []) {
        const occ = facts!.occs[i]!;
        if (occ.kind === "decl") out.push({ file: path, decl: occ.decl });
      }
    }
    return out;
  }

  /**
   * What a name refers to at a place: the innermost declarations that match
   * (C++: the class, then the enclosing namespaces, `using` declarations
   * and directives; a qualified name from the namespaces around it).
   *
   * @param file The file.
   * @param name The name.
   * @param space What kind of token it is.
   * @param at Where it is, and its qualifier.
   * @returns The declarations (empty when none is visible).
   */
  lookup(
    file: string,
    name: string,
    space: Space,
    at: { context: CContext; qualifier?: string[] | undefined },
  ): DeclRef[] {
    const cpp = this.facts(file)?.cpp ?? false;
    let all = this.visible(file, name).filter((ref) => fits(this.decl(ref), space, cpp));
    if (all.length === 0) {
      all = this.visible(file, name, true).filter((ref) => fits(this.decl(ref), space, cpp));
    }
    const { context, qualifier } = at;
    const want = (parts: string[]) => {
      const qualified = parts.join("::");
      return all.filter((ref) => this.decl(ref).qualified === qualified);
    };
    if (qualifier) return qualifiedLookup(want, context, [...qualifier, name]);
    for (let k = context.cls?.length ?? 0; k >= 1; k--) {
      const found = want([...context.cls!.slice(0, k), name]);
      if (found.length) return found;
    }
    const inherited = context.cls ? this.#inherited(file, context, name) : [];
    if (inherited.length) return inherited;
    const alias = this.facts(file)?.usings.get(name);
    if (alias) {
      const found = want(alias.split("::"));
      if (found.length) return found;
    }
    for (let k = context.ns.length; k >= 0; k--) {
      const found = want([...context.ns.slice(0, k), name]);
      const through = k === 0 ? context.using.flatMap((parts) => want([...parts, name])) : [];
      if (found.length || through.length) return [...found, ...through];
    }
    return [];
  }

  /** A member the enclosing class inherits. */
  #inherited(file: string, context: CContext, name: string): DeclRef[] {
    const cls = context.cls!;
    const record = this.recordOf(file, {
      name: cls.at(-1)!,
      tag: false,
      qualifier: cls.slice(0, -1),
    }, {
      ns: [],
      using: [],
    });
    return record ? this.member(record, name, true) : [];
  }

  /**
   * A record's members of a name (and its bases', when it has none).
   *
   * @param record The record.
   * @param name The member's name.
   * @param basesOnly Look in the bases only.
   * @param depth How many bases were followed.
   * @returns The members' declarations.
   */
  member(record: RecordRef, name: string, basesOnly = false, depth = 0): DeclRef[] {
    const facts = this.facts(record.file);
    const target = facts?.records[record.record];
    if (!facts || !target || depth > MAX_STEPS) return [];
    const own = basesOnly
      ? []
      : (target.members.get(name) ?? []).map((decl) => ({ file: record.file, decl }));
    if (own.length) return own;
    for (const base of target.bases) {
      const found = this.recordOf(record.file, base, enclosing(target.qualified), depth + 1);
      const members = found ? this.member(found, name, false, depth + 1) : [];
      if (members.length) return members;
    }
    return [];
  }

  /**
   * The record a type names (through typedefs).
   *
   * @param file The file it is written in.
   * @param type The type.
   * @param context Where it is written.
   * @param depth How many typedefs were followed.
   * @returns The record, or undefined.
   */
  recordOf(file: string, type: TypeRef, context: CContext, depth = 0): RecordRef | undefined {
    if (type.record !== undefined) return { file, record: type.record };
    if (depth > MAX_STEPS || type.name === "") return undefined;
    const space: Space = type.tag ? "tag" : "type";
    const qualifier = type.qualifier.length ? type.qualifier : undefined;
    let found = this.lookup(file, type.name, space, { context, qualifier });
    if (found.length === 0 && context.cls) {
      const outside: CContext = { ns: context.ns, using: context.using };
      found = this.lookup(file, type.name, space, { context: outside, qualifier });
    }
    for (const ref of found) {
      const decl = this.decl(ref);
      if (decl.kind === "tag" && decl.record >= 0) return { file: ref.file, record: decl.record };
      if (decl.kind === "typedef" && decl.type) {
        const inner = this.recordOf(ref.file, decl.type, context, depth + 1);
        if (inner) return inner;
      }
    }
    return undefined;
  }

  /**
   * The record a member access reads from, when the code says.
   *
   * @param file The file.
   * @param occ The member token.
   * @param receiver What it is read from.
   * @param depth How many steps were taken.
   * @returns The record, or undefined when not known.
   */
  receiverRecord(file: string, occ: COcc, receiver: Receiver, depth = 0): RecordRef | undefined {
    const context = this.facts(file)!.contexts[occ.context]!;
    if (depth > MAX_STEPS) return undefined;
    switch (receiver.kind) {
      case "this": {
        const cls = receiver.cls;
        return this.recordOf(file, { name: cls.at(-1)!, tag: false, qualifier: cls.slice(0, -1) }, {
          ns: [],
          using: [],
        });
      }
      case "type":
        return this.recordOf(file, receiver.type, context);
      case "global": {
        const found = this.lookup(file, receiver.name, "ref", { context }).map((ref) => ({
          ref,
          decl: this.decl(ref),
        }));
        const typed = found.find((each) => each.decl.type && each.decl.kind !== "function");
        return typed ? this.recordOf(typed.ref.file, typed.decl.type!, context) : undefined;
      }
      case "member": {
        const base = this.receiverRecord(file, occ, receiver.base, depth + 1);
        const member = base
          ? this.member(base, receiver.member).find((ref) => this.decl(ref).type)
          : undefined;
        return member
          ? this.recordOf(member.file, this.decl(member).type!, context, depth + 1)
          : undefined;
      }
      default:
        return undefined;
    }
  }
}
