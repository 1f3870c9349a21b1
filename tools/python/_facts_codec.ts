/**
 * Python facts in sections of JSON, for the facts kept on disk
 * (`symbols/_facts_store.ts`): the maps written as lists of entries and made
 * again when read, each section when the resolver first asks for it. Read back
 * from JSON, facts take less memory than from `node:v8`'s serializer (a host
 * on 20,000 files held 337 MB after warm calls and dry runs, against 432
 * MB), and come back a little sooner (`test_email.py`: 13.5 ms against 17.8).
 *
 * The many small records (attributes, bindings, the expressions in them) are
 * written as arrays in a fixed order, not as objects that repeat their keys,
 * and the line starts are computed again from the text: the first call after
 * a restart reads back the facts of every file that spells the symbol (300
 * files, 72 MB as objects, on 20,000 files of the standard library), and
 * the time goes to reading and parsing them.
 *
 * @module
 */

import type { FactsCodec, StoredSections } from "../symbols/_facts_store.ts";
import { lineStartsOf } from "../symbols/_lines.ts";
import {
  type BindingKind,
  type PyAttr,
  type PyBinding,
  type PyExpr,
  type PyFacts,
  type PyImport,
  type PyScope,
  type PyString,
  USE_ROLES,
} from "./_resolve_facts.ts";

type Entries<K, V> = Array<[K, V]>;

/** An expression: `[0, name, start, scope]`, `[1, end]` (attribute), `[2, end]` (call), 3 (literal), 4 (other). */
type ExprJson = [0, string, number, number] | [1, number] | [2, number] | 3 | 4;

/** An attribute: name, start, scope, object, role (its place in USE_ROLES), and its value when it has one. */
type AttrJson = [string, number, number, ExprJson, number] | [
  string,
  number,
  number,
  ExprJson,
  number,
  ExprJson,
];

/** A binding: name, scope, start, kind (its place in BINDING_KINDS), then opens, import, value, annotation or null. */
type BindingJson = [string, number, number, number, ...Array<number | ExprJson | null>];

/** A scope as JSON holds it. */
type ScopeJson = Omit<PyScope, "bindings" | "declared"> & {
  bindings: Entries<string, number[]>;
  declared?: Entries<string, "global" | "nonlocal">;
};

/** Facts as the record's sections hold them (the text apart). */
interface FactsJson {
  allDynamic: boolean;
  imports: PyImport[];
  strings: PyString[];
  scopes: ScopeJson[];
  bindings: BindingJson[];
  refsByName: Entries<string, number[]>;
  attrs: AttrJson[];
  attrsByName: Entries<string, number[]>;
  attrByEnd: Entries<number, number>;
  calls: Entries<number, ExprJson>;
}

const BINDING_KINDS: readonly BindingKind[] = [
  "def",
  "class",
  "param",
  "assign",
  "import",
  "other",
];

/** Python facts to and from a record's sections. */
export const PY_FACTS_CODEC: FactsCodec<PyFacts> = Object.freeze({
  write(facts: PyFacts) {
    const sections: FactsJson = {
      allDynamic: facts.allDynamic,
      imports: facts.imports,
      strings: facts.strings,
      scopes: facts.scopes.map(({ bindings, declared, ...scope }) => ({
        ...scope,
        bindings: [...bindings],
        ...(declared ? { declared: [...declared] } : {}),
      })),
      bindings: facts.bindings.map(bindingJson),
      refsByName: [...facts.refsByName],
      attrs: facts.attrs.map(attrJson),
      attrsByName: [...facts.attrsByName],
      attrByEnd: [...facts.attrByEnd],
      calls: [...facts.calls].map(([end, expr]) => [end, exprJson(expr)]),
    };
    return { text: facts.text, sections: sections as unknown as Record<string, unknown> };
  },
  read(stored: StoredSections): PyFacts {
    return new StoredPyFacts(stored);
  },
});

/**
 * Decode now what looking a symbol up reads of facts read back (all but the
 * text and the calls, which wait for their first use): what the host does
 * in the background after a restart, so that a call does not.
 *
 * @param facts Facts, read back or made by the parser (then nothing is left to do).
 */
export function decodeForLookups(facts: PyFacts): void {
  if (!(facts instanceof StoredPyFacts)) return;
  void [facts.scopes, facts.bindings, facts.refsByName, facts.attrs, facts.attrsByName];
  void [facts.attrByEnd, facts.imports, facts.strings, facts.allDynamic];
}

/**
 * Facts read back from a record: each part is decoded at its first use and
 * kept. Looking up one symbol in a file reads its scopes, bindings, imports
 * and the uses of a few names; its text only when a site is reported.
 */
class StoredPyFacts implements PyFacts {
  #stored: StoredSections;
  #text: string | undefined;
  #lineStarts: number[] | undefined;
  #scopes: PyScope[] | undefined;
  #bindings: PyBinding[] | undefined;
  #refsByName: Map<string, number[]> | undefined;
  #attrs: PyAttr[] | undefined;
  #attrsByName: Map<string, number[]> | undefined;
  #attrByEnd: Map<number, number> | undefined;
  #calls: Map<number, PyExpr> | undefined;
  #imports: PyImport[] | undefined;
  #strings: PyString[] | undefined;
  #allDynamic: boolean | undefined;
  instanceAttrs?: Map<number, Map<string, number[]>>;

  constructor(stored: StoredSections) {
    this.#stored = stored;
  }

  get text(): string {
    return this.#text ??= this.#stored.text();
  }

  get lineStarts(): number[] {
    return this.#lineStarts ??= lineStartsOf(this.text);
  }

  get scopes(): PyScope[] {
    return this.#scopes ??= this.#section("scopes").map(({ bindings, declared, ...scope }) => ({
      ...scope,
      bindings: new Map(bindings),
      ...(declared ? { declared: new Map(declared) } : {}),
    }));
  }

  get bindings(): PyBinding[] {
    return this.#bindings ??= this.#section("bindings").map(bindingOf);
  }

  get refsByName(): Map<string, number[]> {
    return this.#refsByName ??= new Map(this.#section("refsByName"));
  }

  get attrs(): PyAttr[] {
    return this.#attrs ??= this.#section("attrs").map(attrOf);
  }

  get attrsByName(): Map<string, number[]> {
    return this.#attrsByName ??= new Map(this.#section("attrsByName"));
  }

  get attrByEnd(): Map<number, number> {
    return this.#attrByEnd ??= new Map(this.#section("attrByEnd"));
  }

  get calls(): Map<number, PyExpr> {
    return this.#calls ??= new Map(
      this.#section("calls").map(([end, expr]) => [end, exprOf(expr)]),
    );
  }

  get imports(): PyImport[] {
    return this.#imports ??= this.#section("imports");
  }

  get strings(): PyString[] {
    return this.#strings ??= this.#section("strings");
  }

  get allDynamic(): boolean {
    return this.#allDynamic ??= this.#section("allDynamic");
  }

  set allDynamic(value: boolean) {
    this.#allDynamic = value;
  }

  #section<K extends keyof FactsJson>(name: K): FactsJson[K] {
    return this.#stored.section(name) as FactsJson[K];
  }
}

function exprJson(expr: PyExpr): ExprJson {
  switch (expr.kind) {
    case "name":
      return [0, expr.name, expr.start, expr.scope];
    case "attr":
      return [1, expr.end];
    case "call":
      return [2, expr.end];
    case "literal":
      return 3;
    case "other":
      return 4;
  }
}

function exprOf(json: ExprJson): PyExpr {
  if (json === 3) return { kind: "literal" };
  if (json === 4) return { kind: "other" };
  if (json[0] === 0) return { kind: "name", name: json[1], start: json[2], scope: json[3] };
  return { kind: json[0] === 1 ? "attr" : "call", end: json[1] };
}

function attrJson(attr: PyAttr): AttrJson {
  const head = [
    attr.name,
    attr.start,
    attr.scope,
    exprJson(attr.object),
    USE_ROLES.indexOf(attr.role),
  ] as const;
  return attr.value === undefined ? [...head] : [...head, exprJson(attr.value)];
}

function attrOf(json: AttrJson): PyAttr {
  const [name, start, scope, object, role] = json;
  const attr = { name, start, scope, object: exprOf(object), role: USE_ROLES[role]! };
  return json.length === 6 ? { ...attr, value: exprOf(json[5]) } : attr;
}

function bindingJson(binding: PyBinding): BindingJson {
  const { name, scope, start, kind, opens, import: imported, value, annotation } = binding;
  const tail = [
    opens ?? null,
    imported ?? null,
    value === undefined ? null : exprJson(value),
    annotation === undefined ? null : exprJson(annotation),
  ];
  while (tail.length > 0 && tail.at(-1) === null) tail.pop();
  return [name, scope, start, BINDING_KINDS.indexOf(kind), ...tail];
}

function bindingOf(json: BindingJson): PyBinding {
  const [name, scope, start, kind, opens, imported, value, annotation] = json;
  const binding: PyBinding = { name, scope, start, kind: BINDING_KINDS[kind]! };
  if (typeof opens === "number") binding.opens = opens;
  if (typeof imported === "number") binding.import = imported;
  if (value !== null && value !== undefined) binding.value = exprOf(value as ExprJson);
  if (annotation !== null && annotation !== undefined) {
    binding.annotation = exprOf(annotation as ExprJson);
  }
  return binding;
}
