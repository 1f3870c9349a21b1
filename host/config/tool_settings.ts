/**
 * The `tools` section of `toolhost.json`: which tools and tool families are
 * on, and whether output schemas are listed; and what in it names nothing,
 * said in one line each (the host still serves).
 *
 * @module
 */

import type { RegistryOptions } from "../../tools/registry.ts";

/** Which tools are on, as `toolhost.json`'s `tools` says. */
export interface ToolSettings extends RegistryOptions {
  /**
   * Families by name: `true` lists them whatever the roots hold, `false`
   * switches them off (neither listed nor callable). Unnamed families are
   * listed when the roots hold their languages (families without a
   * language always are).
   */
  families?: Readonly<Record<string, boolean>>;
}

/** The names the `tools` section may use. */
export interface KnownTools {
  /** Every tool's name (host-side tools included). */
  readonly tools: readonly string[];
  /** Every tool family's name. */
  readonly families: readonly string[];
}

/**
 * What the `tools` section names that does not exist: one line each, with
 * the nearest name when one is close.
 *
 * @param settings The `tools` section.
 * @param known Every tool and family name.
 * @returns The lines (none when every name exists).
 * @example
 * ```ts
 * unknownToolNames({ disabled: ["todo_wirte"] }, { tools: ["todo_write"], families: [] });
 * // ['config tools.disabled names "todo_wirte", which is not a tool (did you mean "todo_write"?)']
 * ```
 */
export function unknownToolNames(settings: ToolSettings, known: KnownTools): string[] {
  const lines: string[] = [];
  const check = (key: string, names: readonly string[], among: readonly string[], kind: string) => {
    for (const name of names) {
      if (among.includes(name)) continue;
      const near = nearest(name, among);
      lines.push(
        `config tools.${key} names "${name}", which is not a ${kind}${
          near === undefined ? "" : ` (did you mean "${near}"?)`
        }`,
      );
    }
  };
  check("enabled", settings.enabled ?? [], known.tools, "tool");
  check("disabled", settings.disabled ?? [], known.tools, "tool");
  check("families", Object.keys(settings.families ?? {}), known.families, "tool family");
  return lines;
}

/** The name closest to `name` by edit distance, when it is close (a typo, not another word). */
function nearest(name: string, among: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const each of among) {
    const distance = editDistance(name, each);
    if (distance < bestDistance) [best, bestDistance] = [each, distance];
  }
  return best;
}

/** Levenshtein distance (insertions, deletions, substitutions; one row at a time). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length]!;
}
