/**
 * The command line: `toolhost <command>`, the launcher that starts the
 * scoped server, and `toolhost doctor`'s live probes of both boundaries.
 *
 * `launcher.ts` stays a program of its own (what `bin/toolhost start`, the
 * command `mcp-config` prints, runs); this module is what other folders use.
 *
 * @example
 * ```ts
 * import { main } from "./mod.ts";
 * const code = await main(["flags", "--root", "/srv/project"]);
 * ```
 *
 * @module
 */

export { cli, main, oneLine } from "./main.ts";
export { type Printer, terminalPrinter } from "./printer.ts";
export { type DoctorReport, type ProbeResult, runDoctor } from "./doctor.ts";
export { servedStatus } from "./doctor_served.ts";
export { type CommandLine, V8_FLAGS } from "./scoped_command.ts";
