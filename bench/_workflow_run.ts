/**
 * One pass of the seven-task workflow by one scripted agent on one copy of
 * the project, each task timed and metered, and each task's outcome checked
 * against the oracle (what the agent answered, and every file on disk), so
 * that a row cannot claim work that was not done. At the end the package
 * must still run.
 *
 * @module
 */

import { type CallCost, type MeteredClient, ToolMissing } from "./_workflow_meter.ts";
import {
  oracle,
  PACKAGE,
  smoke,
  type Snapshot,
  snapshot,
  snapshotDiff,
} from "./_workflow_project.ts";
import {
  type Definition,
  type FunctionText,
  type Site,
  type TaskName,
  WORKFLOW,
  type WorkflowAgent,
} from "./_workflow_tasks.ts";

/** One task's cost and outcome. */
export interface TaskRow {
  /** The task. */
  task: TaskName;
  /** The calls it made. */
  costs: CallCost[];
  /** Wall time of the task (the agent's calls and its own work, not the checks), ms. */
  ms: number;
  /** `ok`, `failed: …` or `not run: …`. */
  outcome: string;
}

/** A whole pass. */
export interface WorkflowResult {
  /** The seven tasks. */
  rows: TaskRow[];
  /** Whether the package still runs at the end (`ok: …` with what it printed, or `failed: …`). */
  runs: string;
}

interface OracleDef {
  name: string;
  path: string;
  line: number;
  start: number;
  end: number;
}

interface OracleSite {
  path: string;
  line: number;
  kinds: string[];
}

/** A check's findings: empty when the task did what it had to. */
type Problems = string[];

/** Compare two sets of `path:line` keys. */
function compareSites(label: string, want: Set<string>, got: Set<string>): Problems {
  const missing = [...want].filter((key) => !got.has(key));
  const extra = [...got].filter((key) => !want.has(key));
  return [
    ...(missing.length ? [`${label} missing ${missing.slice(0, 5).join(", ")}`] : []),
    ...(extra.length ? [`${label} wrong ${extra.slice(0, 5).join(", ")}`] : []),
  ];
}

/** The seven tasks by one agent, checked; see the module doc. */
export class WorkflowRun {
  #agent: WorkflowAgent;
  #client: MeteredClient;
  #dir: string;
  #expected: Snapshot;
  #definitions: Definition[] = [];
  #functions: FunctionText[] = [];
  #sites: Site[] = [];

  /**
   * @param agent The scripted agent.
   * @param client Its metered client (the same the agent calls through).
   * @param dir The project, as built.
   * @param built Its files as built.
   */
  constructor(agent: WorkflowAgent, client: MeteredClient, dir: string, built: Snapshot) {
    this.#agent = agent;
    this.#client = client;
    this.#dir = dir;
    this.#expected = new Map(built);
  }

  /**
   * Run the seven tasks in order, then the package.
   *
   * @returns Each task's cost and outcome, and whether the package runs.
   */
  async run(): Promise<WorkflowResult> {
    const rows = [
      await this.#layout(),
      await this.#findDefinitions(),
      await this.#readFunctions(),
      await this.#edit(),
      await this.#findUsages(),
      await this.#rename(),
      await this.#move(),
    ];
    let runs: string;
    try {
      runs = `ok: ${(await smoke(this.#dir)).trim().replaceAll("\n", " ")}`;
    } catch (error) {
      runs = `failed: ${(error as Error).message.slice(-600)}`;
    }
    return { rows, runs };
  }

  /** Time and meter one task, then check it. */
  async #step(task: TaskName, act: () => Promise<void>, check: () => Promise<Problems>) {
    this.#client.take();
    this.#agent.startTask?.();
    const began = performance.now();
    let outcome = "ok";
    try {
      await act();
    } catch (error) {
      outcome = error instanceof ToolMissing
        ? `not run: ${error.tool} is not served`
        : `failed: ${(error as Error).message}`;
    }
    const ms = performance.now() - began;
    const costs = this.#client.take();
    if (outcome === "ok") {
      const problems = await check();
      if (problems.length > 0) outcome = `failed: ${problems.join("; ")}`;
    } else this.#expected = await snapshot(this.#dir); // the next task starts from what is there
    return { task, costs, ms, outcome };
  }

  /** Check every file on disk against what the tasks so far must have left; start over from disk. */
  async #checkDisk(): Promise<Problems> {
    const actual = await snapshot(this.#dir);
    const problems = snapshotDiff(this.#expected, actual);
    this.#expected = actual;
    return problems;
  }

  #layout(): Promise<TaskRow> {
    let seen = "";
    return this.#step("layout", async () => {
      seen = await this.#agent.layout();
    }, async () => {
      const names = new Set([...this.#expected.keys()].flatMap((path) => path.split("/")));
      const missing = [...names].filter((name) => !seen.includes(name));
      return [
        ...(missing.length ? [`layout misses ${missing.join(", ")}`] : []),
        ...await this.#checkDisk(),
      ];
    });
  }

  async #findDefinitions(): Promise<TaskRow> {
    const names = WORKFLOW.definitions;
    const want = await oracle<OracleDef[]>("defs", this.#dir, [...names]);
    return this.#step("find definitions", async () => {
      this.#definitions = await this.#agent.definitions(names);
    }, async () => {
      const key = (d: { path: string; line: number }) => `${d.path}:${d.line}`;
      return [
        ...compareSites("definitions", new Set(want.map(key)), new Set(this.#definitions.map(key))),
        ...await this.#checkDisk(),
      ];
    });
  }

  async #readFunctions(): Promise<TaskRow> {
    const wanted = WORKFLOW.functions.map((name) => {
      const top = name.split(".")[0];
      return { name, path: this.#definitions.find((d) => d.name === top)?.path ?? "" };
    });
    const want = await oracle<OracleDef[]>("defs", this.#dir, [...WORKFLOW.functions]);
    return this.#step("read functions", async () => {
      if (wanted.some((w) => w.path === "")) throw new Error("task 2 did not find their files");
      this.#functions = await this.#agent.readFunctions(wanted);
    }, async () => {
      const problems = want.flatMap((def) => {
        const lines = this.#expected.get(def.path)!.split("\n").slice(def.start - 1, def.end);
        const got = this.#functions.find((fn) => fn.name === def.name)?.text ?? "";
        return got.includes(lines.join("\n")) ? [] : [`${def.name} not read whole`];
      });
      return [...problems, ...await this.#checkDisk()];
    });
  }

  async #edit(): Promise<TaskRow> {
    const change = WORKFLOW.change;
    const [def] = await oracle<OracleDef[]>("defs", this.#dir, [change.function]);
    const lines = this.#expected.get(def!.path)!.split("\n");
    const at = lines.findIndex((line, i) => i >= def!.start - 1 && line.includes(change.find));
    lines[at] = lines[at]!.replace(change.find, change.replace);
    this.#expected.set(def!.path, lines.join("\n"));
    return this.#step("edit", async () => {
      const fn = this.#functions.find((each) => each.name === change.function);
      if (!fn) throw new Error(`task 3 did not read ${change.function}`);
      await this.#agent.edit(fn, change);
    }, () => this.#checkDisk());
  }

  async #findUsages(): Promise<TaskRow> {
    const { path, name } = WORKFLOW.symbol;
    const all = await oracle<OracleSite[]>("sites", this.#dir, [name]);
    const key = (site: { path: string; line: number }) => `${site.path}:${site.line}`;
    const code = new Set(all.filter((s) => s.kinds.includes("name")).map(key));
    const either = new Set(all.map(key)); // an `__all__` entry may be listed or not
    return this.#step("find usages", async () => {
      this.#sites = await this.#agent.usages({ path, name });
    }, async () => {
      const got = new Set(this.#sites.map(key));
      const found = new Set([...got].filter((k) => either.has(k) && !code.has(k)));
      return [
        ...compareSites("usages", new Set([...code, ...found]), got),
        ...await this.#checkDisk(),
      ];
    });
  }

  async #rename(): Promise<TaskRow> {
    const { path, name } = WORKFLOW.symbol;
    const renamed = await oracle<Record<string, string>>("rename", this.#dir, [
      name,
      WORKFLOW.newName,
    ]);
    for (const [file, text] of Object.entries(renamed)) this.#expected.set(file, text);
    return this.#step("rename across 11 files", async () => {
      await this.#agent.rename({ path, name }, WORKFLOW.newName, this.#sites);
    }, async () => [
      ...(Object.keys(renamed).length === 11
        ? []
        : [`the oracle renames in ${Object.keys(renamed).length} files`]),
      ...await this.#checkDisk(),
    ]);
  }

  async #move(): Promise<TaskRow> {
    const spec = WORKFLOW.move;
    const moved = await oracle<Record<string, string>>("moved", this.#dir, [
      PACKAGE,
      spec.folder,
      ...spec.modules,
    ]);
    for (const module of spec.modules) this.#expected.delete(`${PACKAGE}/${module}.py`);
    for (const [file, text] of Object.entries(moved)) this.#expected.set(file, text);
    this.#expected.set(`${PACKAGE}/${spec.folder}/__init__.py`, "");
    return this.#step("move files", () => this.#agent.move(spec), () => this.#checkDisk());
  }
}
