/**
 * The defaults of `toolhost.json`'s numeric settings, in one place: the
 * modules that resolve each section use them, and a config file inside a
 * root that is not trusted may only lower them (`project_config.ts`).
 *
 * @module
 */

/** Tool workers, and a local call's time limit. */
export const HOST_DEFAULTS = Object.freeze({ workers: 2, callTimeoutMs: 60_000 });

/** The `shell` section's time limits (seconds) and `shell.limits`. */
export const SHELL_DEFAULTS = Object.freeze({
  timeoutS: 60,
  maxTimeoutS: 600,
  limits: Object.freeze({ memoryMb: 8192, fileMb: 1024, processes: 512, openFiles: 4096 }),
});

/** The `http` section. */
export const HTTP_DEFAULTS = Object.freeze({ idleTimeoutS: 1800, drainS: 10, maxSessions: 256 });

/** The `hooks` section's wait for an answer to `POST /api/ask`, in seconds. */
export const HOOK_ASK_TIMEOUT_S = 60;

/** The `net` section's limits. */
export const NET_DEFAULTS = Object.freeze({
  timeoutS: 30,
  maxBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
});
