/**
 * pyright as the oracle for `find_usages` on Python: its language server
 * (installed from npm once, into `bench/.data/oracles/`) over a folder,
 * spoken to over stdio. What it lists for a symbol (`textDocument/references`,
 * the declaration included) is compared with what toolhost lists; the
 * symbols are a seeded sample of what its document symbols name.
 *
 * @module
 */

const ORACLES = new URL(".data/oracles/", import.meta.url).pathname;
const PYRIGHT = "pyright@1.1.414";

/** A symbol to look up: its file, dotted name, and where its name is (0-based, as LSP counts). */
export interface PyPick {
  path: string;
  name: string;
  line: number;
  character: number;
  kind: number;
}

/** The language server's entry, installed on first use. */
async function langserver(): Promise<string> {
  const entry = `${ORACLES}node_modules/pyright/langserver.index.js`;
  if (await Deno.stat(entry).catch(() => undefined)) return entry;
  await Deno.mkdir(ORACLES, { recursive: true });
  const out = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      ORACLES,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      PYRIGHT,
    ],
    stdin: "null",
  }).output();
  if (!out.success) {
    throw new Error(`npm install ${PYRIGHT}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return entry;
}

/** The longest wait for pyright to list the folder's files (it takes seconds). */
const LISTING_MS = 120_000;

/** A running pyright language server over one folder. */
export class Pyright implements AsyncDisposable {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #next = 1;
  #waiting = new Map<number, (result: unknown) => void>();
  #root: string;
  #listed = Promise.withResolvers<void>();

  private constructor(root: string, child: Deno.ChildProcess) {
    this.#root = root;
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    void this.#read().finally(() => this.#listed.resolve());
  }

  /**
   * Start pyright over a folder and wait until it has answered `initialize`
   * and listed the folder's files (it logs "Found N source files"): until
   * then it answers for no file it was not sent.
   *
   * @param root The folder (its files are the workspace).
   * @returns The server.
   */
  static async start(root: string): Promise<Pyright> {
    const entry = await langserver();
    const child = new Deno.Command("node", {
      args: [entry, "--stdio"],
      cwd: root,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const server = new Pyright(root, child);
    const uri = `file://${root}`;
    await server.request("initialize", {
      processId: null,
      rootUri: uri,
      workspaceFolders: [{ uri, name: "root" }],
      capabilities: {
        textDocument: { documentSymbol: { hierarchicalDocumentSymbolSupport: true } },
      },
    });
    server.notify("initialized", {});
    // Bounded: a pyright that words the line otherwise would leave the caller waiting for ever.
    const listing = setTimeout(
      () =>
        server.#listed.reject(
          new Error(`pyright did not say "Found N source files" in ${LISTING_MS} ms`),
        ),
      LISTING_MS,
    );
    try {
      await server.#listed.promise;
    } finally {
      clearTimeout(listing);
    }
    return server;
  }

  /** Send a request and wait for its result. */
  request(method: string, params: unknown): Promise<unknown> {
    const id = this.#next++;
    const answered = new Promise((resolve) => this.#waiting.set(id, resolve));
    this.#send({ jsonrpc: "2.0", id, method, params });
    return answered;
  }

  /** Send a notification. */
  notify(method: string, params: unknown): void {
    this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Open a file (pyright then checks it in full, and answers for it from the text sent). */
  async open(path: string): Promise<void> {
    const text = await Deno.readTextFile(`${this.#root}/${path}`);
    this.notify("textDocument/didOpen", {
      textDocument: { uri: this.uri(path), languageId: "python", version: 1, text },
    });
  }

  /** A file's URI. */
  uri(path: string): string {
    return `file://${this.#root}/${path}`;
  }

  /**
   * The sites of the symbol whose name is at a position: `path:line:column`, 1-based.
   *
   * @param pick The symbol.
   * @returns The sites in the folder's files.
   */
  async references(pick: PyPick): Promise<Set<string>> {
    const found = await this.request("textDocument/references", {
      textDocument: { uri: this.uri(pick.path) },
      position: { line: pick.line, character: pick.character },
      context: { includeDeclaration: true },
    }) as Array<{ uri: string; range: { start: { line: number; character: number } } }> | null;
    const prefix = `file://${this.#root}/`;
    return new Set(
      (found ?? []).filter((each) => each.uri.startsWith(prefix)).map((each) =>
        `${decodeURIComponent(each.uri.slice(prefix.length))}:${each.range.start.line + 1}:${
          each.range.start.character + 1
        }`
      ),
    );
  }

  /**
   * The files as pyright's rename of a symbol leaves them (`textDocument/rename`).
   *
   * @param pick The symbol.
   * @param newName The new name.
   * @param texts The folder's files' texts, by relative path.
   * @returns The changed files' new texts; `undefined` when pyright will not rename it.
   */
  async rename(
    pick: PyPick,
    newName: string,
    texts: ReadonlyMap<string, string>,
  ): Promise<Map<string, string> | undefined> {
    type Edit = {
      range: {
        start: { line: number; character: number };
        end: { line: number; character: number };
      };
      newText: string;
    };
    const edit = await this.request("textDocument/rename", {
      textDocument: { uri: this.uri(pick.path) },
      position: { line: pick.line, character: pick.character },
      newName,
    }) as {
      changes?: Record<string, Edit[]>;
      documentChanges?: Array<{ textDocument: { uri: string }; edits: Edit[] }>;
    } | null;
    if (!edit) return undefined;
    const byUri = new Map<string, Edit[]>(Object.entries(edit.changes ?? {}));
    for (const change of edit.documentChanges ?? []) {
      byUri.set(change.textDocument.uri, change.edits);
    }
    const prefix = `file://${this.#root}/`;
    const out = new Map<string, string>();
    for (const [uri, edits] of byUri) {
      const path = decodeURIComponent(uri.slice(prefix.length));
      const text = texts.get(path);
      if (!uri.startsWith(prefix) || text === undefined) return undefined;
      const starts = [0];
      for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
      const offset = (at: { line: number; character: number }) => starts[at.line]! + at.character;
      let next = text;
      for (const each of [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start))) {
        next = next.slice(0, offset(each.range.start)) + each.newText +
          next.slice(offset(each.range.end));
      }
      out.set(path, next);
    }
    return out;
  }

  /**
   * The symbols a file defines at its top level and in its classes, with their dotted names.
   * The file is not opened: pyright answers for every file of the folder from disk, and an
   * open file is one it type-checks in full (diagnostics nobody reads, most of its CPU).
   * Nothing tells it of changes on disk (its server watches none of its own), so it answers
   * from each file as first read.
   *
   * @param path The file.
   * @returns The symbols.
   */
  async symbols(path: string): Promise<PyPick[]> {
    type Symbol = {
      name: string;
      kind: number;
      selectionRange: { start: { line: number; character: number } };
      children?: Symbol[];
    };
    const top = await this.request("textDocument/documentSymbol", {
      textDocument: { uri: this.uri(path) },
    }) as Symbol[] | null;
    const picks: PyPick[] = [];
    const add = (symbol: Symbol, name: string) => {
      const { line, character } = symbol.selectionRange.start;
      picks.push({ path, name, line, character, kind: symbol.kind });
    };
    for (const symbol of top ?? []) {
      add(symbol, symbol.name);
      // 5: a class; its methods (6) and fields (8) by dotted name.
      if (symbol.kind !== 5) continue;
      for (const member of symbol.children ?? []) {
        if (member.kind === 6 || member.kind === 8) add(member, `${symbol.name}.${member.name}`);
      }
    }
    return picks;
  }

  async #read(): Promise<void> {
    const reader = this.#child.stdout.getReader();
    let buffer = new Uint8Array(0);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
      for (;;) {
        const head = new TextDecoder().decode(buffer.subarray(0, Math.min(buffer.length, 200)));
        const split = head.indexOf("\r\n\r\n");
        const length = Number(/Content-Length: (\d+)/i.exec(head)?.[1] ?? NaN);
        if (split < 0 || Number.isNaN(length) || buffer.length < split + 4 + length) break;
        const body = buffer.subarray(split + 4, split + 4 + length);
        buffer = buffer.slice(split + 4 + length);
        this.#receive(JSON.parse(new TextDecoder().decode(body)));
      }
    }
  }

  #receive(message: { id?: number; method?: string; result?: unknown; params?: unknown }): void {
    if (message.method !== undefined && message.id !== undefined) {
      // A request of the server's own (configuration, progress, registrations): a plain answer.
      const items = (message.params as { items?: unknown[] } | undefined)?.items;
      const result = message.method === "workspace/configuration"
        ? (items ?? []).map(() => ({}))
        : null;
      this.#send({ jsonrpc: "2.0", id: message.id, result });
      return;
    }
    if (
      message.method === "window/logMessage" &&
      /^(Found \d+ source files?|No source files found\.)$/.test(
        (message.params as { message?: string }).message ?? "",
      )
    ) {
      this.#listed.resolve();
    }
    if (message.id !== undefined) {
      this.#waiting.get(message.id)?.(message.result);
      this.#waiting.delete(message.id);
    }
  }

  #send(message: unknown): void {
    const body = new TextEncoder().encode(JSON.stringify(message));
    const head = new TextEncoder().encode(`Content-Length: ${body.length}\r\n\r\n`);
    const framed = new Uint8Array(head.length + body.length);
    framed.set(head);
    framed.set(body, head.length);
    void this.#writer.write(framed);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      await Promise.race([this.request("shutdown", null), new Promise((r) => setTimeout(r, 2000))]);
      this.notify("exit", null);
      await this.#writer.close().catch(() => {});
    } finally {
      try {
        this.#child.kill();
      } catch {
        // It ended on "exit".
      }
      await this.#child.status;
    }
  }
}
