/**
 * Run with the network worker's exact command line in place of its entry
 * (`worker_confinement_test.ts`): try every way a Deno program has to read,
 * write, run, look around, or connect to loopback, and print what each did,
 * as JSON.
 *
 * Arguments: a file in a root, a directory in it, a loopback port.
 *
 * @module
 */

const [file, dir, port] = Deno.args as [string, string, string];
const attempts: Record<string, () => unknown> = {
  "Deno.readTextFile": () => Deno.readTextFile(file),
  "Deno.readFileSync": () => Deno.readFileSync(file),
  "Deno.open": () => Deno.open(file),
  "Deno.stat": () => Deno.stat(file),
  "Deno.lstat": () => Deno.lstat(file),
  "Deno.realPath": () => Deno.realPath(file),
  "Deno.readDir": async () => await Array.fromAsync(Deno.readDir(dir)),
  "Deno.readLink": () => Deno.readLink(file),
  "Deno.writeTextFile": () => Deno.writeTextFile(`${dir}/written.txt`, "x"),
  "Deno.mkdir": () => Deno.mkdir(`${dir}/made`),
  "Deno.remove": () => Deno.remove(file),
  "fetch(file:)": async () => await (await fetch(`file://${file}`)).text(),
  "import(file:)": () => import(`file://${dir}/module.js`),
  "import(json)": () => import(`file://${dir}/data.json`, { with: { type: "json" } }),
  "new Worker": () =>
    new Promise((resolve, reject) => {
      const worker = new Worker(`file://${dir}/module.js`, { type: "module" });
      worker.onerror = (event) => (event.preventDefault(), reject(new Error(event.message)));
      worker.onmessage = (event) => resolve(event.data);
    }),
  "node:fs.readFileSync": async () => (await import("node:fs")).readFileSync(file, "utf8"),
  "node:fs/promises.readFile": async () =>
    await (await import("node:fs/promises")).readFile(file, "utf8"),
  "node:child_process": async () =>
    (await import("node:child_process")).execFileSync("cat", [file]).toString(),
  "Deno.Command": () => new Deno.Command("cat", { args: [file] }).output(),
  "Deno.env.get": () => Deno.env.get("HOME"),
  "Deno.dlopen": () => Deno.dlopen("libc.so.6", {}),
  "Deno.hostname": () => Deno.hostname(),
  "Deno.connect(loopback)": async () =>
    (await Deno.connect({ hostname: "127.0.0.1", port: Number(port) })).close(),
  "Deno.connect(localhost)": async () =>
    (await Deno.connect({ hostname: "localhost", port: Number(port) })).close(),
  "fetch(loopback)": async () => await (await fetch(`http://127.0.0.1:${port}/secret`)).text(),
  "Deno.listen": () => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close(),
};

const results: Record<string, string> = {};
for (const [name, attempt] of Object.entries(attempts)) {
  try {
    const value = await attempt();
    results[name] = `succeeded: ${JSON.stringify(value)?.slice(0, 200)}`;
  } catch (error) {
    results[name] = `failed: ${(error as Error).name}: ${(error as Error).message.slice(0, 200)}`;
  }
}
const granted = (descriptor: Deno.PermissionDescriptor) =>
  Deno.permissions.querySync(descriptor).state;
const permissions = {
  read: granted({ name: "read" }),
  write: granted({ name: "write" }),
  run: granted({ name: "run" }),
  env: granted({ name: "env" }),
  ffi: granted({ name: "ffi" }),
  sys: granted({ name: "sys" }),
  import: granted({ name: "import" }),
  "net 8.8.8.8:443": granted({ name: "net", host: "8.8.8.8:443" }),
  "net 127.0.0.1": granted({ name: "net", host: `127.0.0.1:${port}` }),
  "net 169.254.169.254:80": granted({ name: "net", host: "169.254.169.254:80" }),
  "net 10.0.0.1:80": granted({ name: "net", host: "10.0.0.1:80" }),
  "net example.com:443": granted({ name: "net", host: "example.com:443" }),
};
await Deno.stdout.write(new TextEncoder().encode(JSON.stringify({ results, permissions })));
