/**
 * The symbol a model names in a TS/JS file: a module-level name (declared,
 * imported or exported there, CommonJS exports included), then members
 * (`Client.connect`, `api.get`, `N.f` in a namespace, `Color.Red`).
 *
 * @module
 */

import { ToolError } from "../../security/errors.ts";
import { position } from "../symbols/_source_index.ts";
import { type Entity, entityKey, type JsProgram } from "./_resolve_program.ts";
import type { ContainerRef } from "./_resolve_values.ts";

/** Where a target is defined: a file and lines. */
export interface Definition {
  /** The file's real path. */
  file: string;
  /** First and last line (1-based). */
  lines: [number, number];
}

/** A module-level symbol (a declaration, a CommonJS export, a default export). */
export interface BindingTarget {
  /** A module-level symbol. */
  kind: "binding";
  /** The name a site must have. */
  name: string;
  /** What it finally is. */
  entity: Entity;
  /** The entity's key. */
  key: string;
  /** Where it is defined. */
  definition: Definition;
}

/** A member of a class, interface, object, or enum. */
export interface MemberTarget {
  /** A member. */
  kind: "member";
  /** The member's name. */
  name: string;
  /** Its container. */
  ref: ContainerRef;
  /** A static member (always, for objects and enums). */
  static: boolean;
  /** Where it is defined. */
  definition: Definition;
}

/** What a model named. */
export type JsTarget = BindingTarget | MemberTarget;

/**
 * Find the symbol a dotted name names in a file.
 *
 * @param p The program (the file's facts made).
 * @param file The file's real path.
 * @param dotted The dotted name (`f`, `Client.connect`).
 * @returns The target.
 * @throws {ToolError} `not_found` when the file defines no such name.
 */
export function findTarget(p: JsProgram, file: string, dotted: string): JsTarget {
  const parts = dotted.split(".");
  const display = p.file(file)?.display ?? file;
  const missing = (upTo: number) =>
    new ToolError(
      "not_found",
      `Cannot find "${parts.slice(0, upTo + 1).join(".")}" in "${display}"${topNames(p, file)}`,
    );
  let entity = topLevel(p, file, parts[0]!);
  if (!entity) throw missing(0);
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (entity.kind === "module") {
      entity = p.exportOf(entity.file, part);
      if (!entity) throw missing(i);
      continue;
    }
    const member: Entity | MemberTarget | undefined = memberOf(p, entity, part);
    if (!member) throw missing(i);
    if ("ref" in member) {
      if (i < parts.length - 1) throw missing(i + 1);
      return member;
    }
    entity = member;
  }
  return bindingTarget(p, entity, parts.at(-1)!, display);
}

/** A module-level name of a file: a declaration (or import) there, else an export. */
function topLevel(p: JsProgram, file: string, name: string): Entity | undefined {
  const facts = p.facts(file);
  const decl = facts?.top.get(name);
  if (decl !== undefined) return p.origin(file, decl);
  return facts?.exports.has(name) ? p.exportOf(file, name) : undefined;
}

/** A member of what an entity is: a namespace's declaration, or a class's, object's, enum's member. */
function memberOf(p: JsProgram, entity: Entity, name: string): Entity | MemberTarget | undefined {
  if (entity.kind !== "decl") return undefined;
  const facts = p.facts(entity.file);
  const index = facts?.decls[entity.decl]?.container ?? -1;
  const container = index >= 0 ? facts!.containers[index]! : undefined;
  if (!facts || !container) return undefined;
  const ref = { file: entity.file, container: index };
  const member = container.members.get(name)?.[0];
  if (member) {
    const occ = facts.occs[member.occ]!;
    if (container.kind === "namespace" && occ.kind !== "member") {
      return occ.decl >= 0 ? p.origin(entity.file, occ.decl) : undefined;
    }
    const isStatic = member.static || container.kind !== "class" && container.kind !== "interface";
    return {
      kind: "member",
      name,
      ref,
      static: isStatic,
      definition: { file: ref.file, lines: member.lines },
    };
  }
  const assigned = container.assigned.get(name)?.[0];
  if (assigned === undefined) return undefined;
  const line = position(p.file(entity.file)!, facts.occs[assigned]!.start).line;
  return {
    kind: "member",
    name,
    ref,
    static: false,
    definition: { file: ref.file, lines: [line, line] },
  };
}

/** The target for a module-level entity, with where it is defined. */
function bindingTarget(p: JsProgram, entity: Entity, name: string, display: string): BindingTarget {
  const key = entityKey(entity);
  switch (entity.kind) {
    case "decl": {
      const decl = p.facts(entity.file)!.decls[entity.decl]!;
      const definition = { file: entity.file, lines: decl.lines };
      return { kind: "binding", name: decl.name, entity, key, definition };
    }
    case "cjs": {
      const entry = p.facts(entity.file)?.exports.get(entity.name)?.[0];
      const start = entry?.kind === "cjs" ? p.facts(entity.file)!.occs[entry.occ]!.start : 0;
      const line = position(p.file(entity.file)!, start).line;
      return {
        kind: "binding",
        name,
        entity,
        key,
        definition: { file: entity.file, lines: [line, line] },
      };
    }
    case "expr":
      throw new ToolError(
        "unsupported",
        `Cannot rename "${name}" in "${display}": it is an anonymous default export (no name to find)`,
      );
    case "external":
      throw new ToolError(
        "unsupported",
        `Cannot resolve "${name}" in "${display}": it comes from "${entity.spec}", outside the scope`,
      );
    default:
      throw new ToolError("not_found", `Cannot resolve "${name}" in "${display}" to a declaration`);
  }
}

/** `; top-level names: a, b, …` for a not-found message. */
function topNames(p: JsProgram, file: string): string {
  const names = [...(p.facts(file)?.top.keys() ?? [])];
  if (names.length === 0) return "";
  const shown = names.slice(0, 12).join(", ");
  return ` (top-level names: ${shown}${names.length > 12 ? ", …" : ""})`;
}
