/**
 * What a receiver holds, as far as the code says without running it: `this`
 * in a class's method, a name bound once to `new C()`, a TypeScript type
 * annotation, a module namespace, a class itself — and how two classes or
 * interfaces are related (one extends or implements the other).
 *
 * @module
 */

import type { Chain, Member, Root } from "./_resolve_facts.ts";
import type { Entity, JsProgram, Value } from "./_resolve_program.ts";

/** How far values are followed (`a = b`, `b = c`, …) before giving up. */
export const MAX_STEPS = 32;

const UNKNOWN: Value = { kind: "unknown" };
const OTHER: Value = { kind: "other" };

/** A container in a file. */
export interface ContainerRef {
  /** The file's real path. */
  file: string;
  /** The container's index in its facts. */
  container: number;
}

/**
 * What a chain holds.
 *
 * @param p The program.
 * @param file The file the chain is in.
 * @param chain The chain.
 * @param depth How many steps were taken to get here.
 * @returns The value.
 */
export function valueOf(p: JsProgram, file: string, chain: Chain, depth = 0): Value {
  if (depth > MAX_STEPS) return UNKNOWN;
  const global = chain.root.kind === "ref" ? globalName(p, file, chain.root.occ) : undefined;
  // CommonJS: `exports` and `module.exports` are the file's own exports.
  const own = global === "exports"
    ? 0
    : global === "module" && chain.path[0] === "exports"
    ? 1
    : -1;
  let value: Value = own >= 0 ? { kind: "module", file } : rootValue(p, file, chain.root, depth);
  for (const name of chain.path.slice(Math.max(own, 0))) {
    value = propertyValue(p, value, name, depth);
  }
  return value;
}

/** The name of a global an occurrence refers to (undefined when it is declared in the file). */
function globalName(p: JsProgram, file: string, occ: number): string | undefined {
  const found = p.facts(file)?.occs[occ];
  return found && found.decl < 0 && found.kind === "ref" ? found.name : undefined;
}

function rootValue(p: JsProgram, file: string, root: Root, depth: number): Value {
  switch (root.kind) {
    case "ref": {
      const occ = p.facts(file)?.occs[root.occ];
      if (!occ || occ.decl < 0) return UNKNOWN;
      return entityValue(p, p.origin(file, occ.decl), depth + 1);
    }
    case "this":
    case "super": {
      if (root.container < 0) return UNKNOWN;
      const facts = p.facts(file);
      const container = facts?.containers[root.container];
      if (!container) return UNKNOWN;
      if (container.kind === "object") return { kind: "object", file, container: root.container };
      const target = root.kind === "super"
        ? baseOf(p, { file, container: root.container }, depth)
        : { file, container: root.container };
      if (!target) return UNKNOWN;
      return { kind: root.static ? "class" : "instance", ...target };
    }
    case "module": {
      const module = p.resolveModule(file, root.spec);
      return module === undefined ? OTHER : { kind: "module", file: module };
    }
    case "new": {
      const made = valueOf(p, file, root.ctor, depth + 1);
      if (made.kind === "class") return { ...made, kind: "instance" };
      return made.kind === "other" || made.kind === "module" ? OTHER : UNKNOWN;
    }
    case "call":
      return callValue(p, file, root.callee, depth + 1);
    case "literal":
      return OTHER;
    default:
      return UNKNOWN;
  }
}

/** What a call returns, when its callee's return type is annotated (`f()`, `x.m()`). */
function callValue(p: JsProgram, file: string, callee: Chain, depth: number): Value {
  if (depth > MAX_STEPS) return UNKNOWN;
  const name = callee.path.at(-1);
  if (name === undefined) {
    if (callee.root.kind !== "ref") return UNKNOWN;
    const occ = p.facts(file)?.occs[callee.root.occ];
    const entity = occ && occ.decl >= 0 ? p.origin(file, occ.decl) : undefined;
    if (entity?.kind !== "decl") return UNKNOWN;
    const returns = p.facts(entity.file)?.decls[entity.decl]?.returns;
    return returns ? typeValue(p, entity.file, returns, depth + 1) : UNKNOWN;
  }
  const receiver = valueOf(p, file, { root: callee.root, path: callee.path.slice(0, -1) }, depth);
  if (receiver.kind === "module") {
    const entity = p.exportOf(receiver.file, name);
    if (entity?.kind !== "decl") return UNKNOWN;
    const returns = p.facts(entity.file)?.decls[entity.decl]?.returns;
    return returns ? typeValue(p, entity.file, returns, depth + 1) : UNKNOWN;
  }
  if (receiver.kind !== "instance" && receiver.kind !== "class") return UNKNOWN;
  const found = memberOf(p, receiver, name, receiver.kind === "class");
  return found?.member.returns
    ? typeValue(p, found.file, found.member.returns, depth + 1)
    : UNKNOWN;
}

/** A member of a class (or an interface), through its bases. */
function memberOf(
  p: JsProgram,
  ref: ContainerRef,
  name: string,
  isStatic: boolean,
): { file: string; member: Member } | undefined {
  let current: ContainerRef | undefined = ref;
  for (let step = 0; current && step < MAX_STEPS; step++) {
    const members = p.facts(current.file)?.containers[current.container]?.members.get(name);
    const member = members?.find((each) => each.static === isStatic);
    if (member) return { file: current.file, member };
    current = baseOf(p, current);
  }
  return undefined;
}

function propertyValue(p: JsProgram, value: Value, name: string, depth: number): Value {
  switch (value.kind) {
    case "module": {
      const entity = p.exportOf(value.file, name);
      if (entity) return entityValue(p, entity, depth + 1);
      return p.facts(value.file)?.dynamicExports ? UNKNOWN : OTHER;
    }
    case "class":
    case "instance": {
      if (value.kind === "class" && name === "prototype") return { ...value, kind: "instance" };
      const found = memberOf(p, value, name, value.kind === "class");
      return found?.member.type ? typeValue(p, found.file, found.member.type, depth + 1) : UNKNOWN;
    }
    case "object": {
      const facts = p.facts(value.file);
      const member = facts?.containers[value.container]?.members.get(name)?.[0];
      const occ = member === undefined ? undefined : facts!.occs[member.occ];
      if (occ?.kind !== "decl") return UNKNOWN;
      return entityValue(p, p.origin(value.file, occ.decl), depth + 1);
    }
    default:
      return UNKNOWN;
  }
}

/**
 * What an entity holds: a class, an object, a module, or what its
 * declaration was bound to (a `const`, or a name never assigned again) or
 * typed as.
 *
 * @param p The program.
 * @param entity The entity.
 * @param depth How many steps were taken to get here.
 * @returns The value.
 */
export function entityValue(p: JsProgram, entity: Entity, depth = 0): Value {
  if (depth > MAX_STEPS) return UNKNOWN;
  switch (entity.kind) {
    case "module":
      return { kind: "module", file: entity.file };
    case "external":
      return OTHER;
    case "decl": {
      const facts = p.facts(entity.file);
      const decl = facts?.decls[entity.decl];
      if (!facts || !decl) return UNKNOWN;
      if (decl.container >= 0) {
        const kind = facts.containers[decl.container]!.kind;
        const ref = { file: entity.file, container: decl.container };
        if (kind === "class") return { kind: "class", ...ref };
        return kind === "interface" ? UNKNOWN : { kind: "object", ...ref };
      }
      if (decl.type) return typeValue(p, entity.file, decl.type, depth + 1);
      if (decl.value && (decl.kind === "const" || !decl.reassigned)) {
        return valueOf(p, entity.file, decl.value, depth + 1);
      }
      return UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

/**
 * An instance of what a type annotation names (a class or an interface).
 *
 * @param p The program.
 * @param file The file.
 * @param chain The type's name.
 * @param depth How many steps were taken to get here.
 * @returns The value.
 */
export function typeValue(p: JsProgram, file: string, chain: Chain, depth = 0): Value {
  const entity = p.chainEntity(file, chain);
  if (entity.kind === "external") return OTHER;
  if (entity.kind !== "decl" || depth > MAX_STEPS) return UNKNOWN;
  const facts = p.facts(entity.file);
  const container = facts?.decls[entity.decl]?.container ?? -1;
  const kind = container >= 0 ? facts!.containers[container]!.kind : undefined;
  if (kind === "class" || kind === "interface") {
    return { kind: "instance", file: entity.file, container };
  }
  return UNKNOWN;
}

/**
 * The class a class extends, when the code says which.
 *
 * @param p The program.
 * @param ref The class.
 * @param depth How many steps were taken to get here.
 * @returns The base class, or undefined.
 */
export function baseOf(p: JsProgram, ref: ContainerRef, depth = 0): ContainerRef | undefined {
  const container = p.facts(ref.file)?.containers[ref.container];
  const base = container?.extends[0];
  if (!base || container.kind !== "class") return undefined;
  const value = valueOf(p, ref.file, base, depth + 1);
  return value.kind === "class" ? { file: value.file, container: value.container } : undefined;
}

/**
 * Every class and interface a container extends or implements, transitively.
 *
 * @param p The program.
 * @param ref The class or interface.
 * @returns Their keys (`file\0index`).
 */
export function supertypes(p: JsProgram, ref: ContainerRef): Set<string> {
  const seen = new Set<string>();
  const queue: ContainerRef[] = [ref];
  while (queue.length > 0 && seen.size < MAX_STEPS * 4) {
    const current = queue.shift()!;
    const container = p.facts(current.file)?.containers[current.container];
    if (!container) continue;
    const parents: ContainerRef[] = [];
    if (container.kind === "class") {
      const base = baseOf(p, current);
      if (base) parents.push(base);
    }
    const types = container.kind === "class" ? container.implements : container.extends;
    for (const chain of types) {
      const value = typeValue(p, current.file, chain);
      if (value.kind === "instance") parents.push(value);
    }
    for (const parent of parents) {
      const key = containerKey(parent);
      if (seen.has(key) || key === containerKey(ref)) continue;
      seen.add(key);
      queue.push(parent);
    }
  }
  return seen;
}

/**
 * A container's key.
 *
 * @param ref The container.
 * @returns `file\0index`.
 */
export function containerKey(ref: ContainerRef): string {
  return `${ref.file}\0${ref.container}`;
}
