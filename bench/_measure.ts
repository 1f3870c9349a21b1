/**
 * What the benches measure with: a process tree's resident memory, and
 * quantiles of timings.
 *
 * @module
 */

/**
 * RSS in bytes of a process and all its descendants (Linux `/proc`).
 *
 * @param pid The process.
 * @returns The bytes.
 */
export function treeRss(pid: number): number {
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    try {
      const status = Deno.readTextFileSync(`/proc/${p}/status`);
      total += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
      for (const task of Deno.readDirSync(`/proc/${p}/task`)) {
        const kids = Deno.readTextFileSync(`/proc/${p}/task/${task.name}/children`).trim();
        if (kids) stack.push(...kids.split(/\s+/).map(Number));
      }
    } catch {
      // The process ended while it was being read: it holds no memory any more.
    }
  }
  return total;
}

/**
 * A quantile of some values (the value at rank ⌊q·n⌋ of the sorted values).
 *
 * @param values The values (not changed).
 * @param q The quantile, 0 to 1 (0.5 for the median).
 * @returns The value.
 */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}
