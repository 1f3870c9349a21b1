/**
 * Test helpers for the configuration's tests: environment variables and the
 * working directory set for one callback and put back after it.
 *
 * @module
 */

/**
 * Run a callback with environment variables set (`undefined`: unset), then
 * put each back as it was.
 *
 * @param vars The variables.
 * @param fn What to run.
 * @returns What it returns.
 */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  fn: () => T | Promise<T>,
): Promise<T> {
  const saved = Object.keys(vars).map((name) => [name, Deno.env.get(name)] as const);
  try {
    for (const [name, value] of Object.entries(vars)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
    return await fn();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

/**
 * Run a callback in a working directory, then go back.
 *
 * @param dir The directory.
 * @param fn What to run.
 * @returns What it returns.
 */
export async function inDirectory<T>(dir: string, fn: () => T | Promise<T>): Promise<T> {
  const saved = Deno.cwd();
  Deno.chdir(dir);
  try {
    return await fn();
  } finally {
    Deno.chdir(saved);
  }
}
