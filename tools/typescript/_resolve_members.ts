/**
 * Which tokens of a member's name are that member: its definition (and
 * the constructor parameter it may be), and reads through receivers known
 * to hold its class; overrides, implementations, receivers of unknown type
 * and object keys of the same name are `unsure`; members of unrelated
 * classes are left out.
 *
 * @module
 */

import type { RawSite } from "../symbols/_source_sites.ts";
import { CALL, COMPUTED, type Occ } from "./_resolve_facts.ts";
import type { JsProgram } from "./_resolve_program.ts";
import type { MemberTarget } from "./_resolve_target.ts";
import { containerKey, type ContainerRef, supertypes, valueOf } from "./_resolve_values.ts";
import { EXACT, propertyRole, push, unsure, type Verdict } from "./_resolve_verdict.ts";

/**
 * The sites of a member in some files.
 *
 * @param p The program (facts made for the files).
 * @param t The target.
 * @param files The files that contain its name.
 * @returns The sites.
 */
export function memberSites(p: JsProgram, t: MemberTarget, files: readonly string[]): RawSite[] {
  const related = new Relations(p, t);
  const out: RawSite[] = [];
  for (const file of files) {
    const facts = p.facts(file);
    if (!facts) continue;
    const defined = new Map<number, Verdict>();
    const locals = new Set<number>();
    facts.containers.forEach((container, index) => {
      for (const member of container.members.get(t.name) ?? []) {
        const ref = { file, container: index };
        const verdict = container.kind === "object" && containerKey(ref) !== containerKey(t.ref)
          ? unsure("an object key of the same name")
          : related.definition(ref, member.static);
        defined.set(member.occ, verdict);
        if (verdict?.certainty === "exact" && member.param !== undefined) locals.add(member.param);
      }
    });
    for (const i of facts.byName.get(t.name) ?? []) {
      const occ = facts.occs[i]!;
      const verdict = defined.get(i);
      if (defined.has(i)) push(out, file, occ, "definition", verdict!);
      else if (occ.kind === "prop" || occ.kind === "decl" && occ.receiver) {
        const found = related.read(file, occ);
        if (found?.certainty === "exact" && occ.kind === "decl") locals.add(occ.decl);
        const role = occ.kind === "decl" ? "reference" : propertyRole(occ);
        push(out, file, occ, isOwnDefinition(p, t, file, occ) ? "definition" : role, found);
      } else if (occ.kind === "ref" && locals.has(occ.decl)) {
        push(out, file, occ, occ.flags & CALL ? "call" : "reference", EXACT);
      } else if (occ.kind === "key" || occ.kind === "shorthand" || occ.kind === "member") {
        push(out, file, occ, "attribute", unsure("an object key of the same name"));
      }
    }
  }
  return out;
}

/** A JavaScript field's first `this.name = …`: the definition when no member declares it. */
function isOwnDefinition(p: JsProgram, t: MemberTarget, file: string, occ: Occ): boolean {
  if (file !== t.ref.file) return false;
  const container = p.facts(file)?.containers[t.ref.container];
  if (!container || container.members.has(t.name)) return false;
  return p.facts(file)!.occs[container.assigned.get(t.name)?.[0] ?? -1] === occ;
}

/** How classes and interfaces relate to the target's container. */
class Relations {
  #p: JsProgram;
  #t: MemberTarget;
  #above: Set<string>;
  #key: string;

  constructor(p: JsProgram, t: MemberTarget) {
    this.#p = p;
    this.#t = t;
    this.#key = containerKey(t.ref);
    this.#above = supertypes(p, t.ref);
  }

  /** Whether a container is the target's, below it (extends/implements it), above it, or unrelated. */
  relation(ref: ContainerRef): "self" | "below" | "above" | "none" {
    const key = containerKey(ref);
    if (key === this.#key) return "self";
    if (this.#above.has(key)) return "above";
    return supertypes(this.#p, ref).has(this.#key) ? "below" : "none";
  }

  /** A member of the same name in some container. */
  definition(ref: ContainerRef, isStatic: boolean): Verdict {
    if (isStatic !== this.#t.static) return null;
    const own = `${this.#name(this.#t.ref)}.${this.#t.name}`;
    switch (this.relation(ref)) {
      case "self":
        return EXACT;
      case "below":
        return unsure(
          `${this.#kind(this.#t.ref) === "interface" ? "implements" : "overrides"} ${own}`,
        );
      case "above":
        return unsure(`${own} ${this.#kind(ref) === "interface" ? "implements" : "overrides"} it`);
      default:
        return null;
    }
  }

  /** A read of the name through a receiver. */
  read(file: string, occ: Occ): Verdict {
    const value = valueOf(this.#p, file, occ.receiver!);
    let verdict: Verdict;
    switch (value.kind) {
      case "instance":
      case "class": {
        // `super.name` runs the base's own member: the target only from below it.
        const viaSuper = occ.receiver!.root.kind === "super" && occ.receiver!.path.length === 0;
        const wrongSide = (value.kind === "class") !== this.#t.static;
        verdict = wrongSide || viaSuper && this.relation(value) === "above"
          ? null
          : this.#through(value);
        break;
      }
      case "object":
        verdict = containerKey(value) === this.#key ? EXACT : null;
        break;
      case "unknown":
        verdict = unsure("the receiver's type is not known");
        break;
      default:
        verdict = null;
    }
    return verdict && occ.flags & COMPUTED ? unsure("accessed by a string key") : verdict;
  }

  /** A read through a receiver that holds a class (or an instance of it). */
  #through(ref: ContainerRef): Verdict {
    switch (this.relation(ref)) {
      case "self":
        return EXACT;
      case "below": {
        const own = this.#p.facts(ref.file)?.containers[ref.container];
        return own?.members.has(this.#t.name)
          ? unsure(`${this.#name(ref)} has its own ${this.#t.name}`)
          : EXACT;
      }
      case "above":
        return unsure(
          `the receiver is a ${this.#name(ref)}, which may be a ${this.#name(this.#t.ref)}`,
        );
      default:
        return null;
    }
  }

  #name(ref: ContainerRef): string {
    return this.#p.facts(ref.file)?.containers[ref.container]?.name || "(anonymous)";
  }

  #kind(ref: ContainerRef): string | undefined {
    return this.#p.facts(ref.file)?.containers[ref.container]?.kind;
  }
}
