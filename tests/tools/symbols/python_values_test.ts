/**
 * Python receivers the resolver follows where the code says what they are:
 * an attribute the class's methods assign on `self` (`self.conn = Conn()`
 * in `__init__`, then `self.conn.send()`), a function's return annotation
 * or its `return Cls(…)`; and where it cannot (an attribute assigned two
 * different things, a function that returns either of two classes) the
 * site stays unsure, with the reason. Sites are marked in the source
 * (`⟦name⟧` exact, `⟪name⟫` unsure).
 */

import { assertEquals } from "../../_assert.ts";
import { tempDir, toolContext } from "../../_helpers.ts";
import { Skipped } from "../../../tools/_skipped.ts";
import { PYTHON_RESOLVER } from "../../../tools/python/_resolve.ts";
import { applyRename, asMarks, unmark, writeTree } from "./_fixtures.ts";

const PROJECT = unmark({
  "conn.py": `class Conn:
    def ⟦send⟧(self, data):
        return data


class Other:
    def send(self, data):
        return None


def open_conn() -> Conn:
    return make()


def make():
    return Conn()


def either(flag):
    if flag:
        return Conn()
    return Other()
`,
  "client.py": `from conn import Conn, Other, open_conn, make, either


class Client:
    def __init__(self):
        self.conn = Conn()
        self.spare = None

    def run(self):
        self.conn.⟦send⟧(1)
        open_conn().⟦send⟧(2)
        make().⟦send⟧(3)
        either(True).⟪send⟫(4)
        self.spare.⟪send⟫(5)

    def swap(self):
        self.spare = Other()


class Mixed:
    def __init__(self, flag):
        self.c = Conn() if flag else Other()

    def go(self):
        self.c.⟪send⟫(6)
`,
});

Deno.test("the Python resolver follows self attributes, return annotations and returned instances", async () => {
  await using root = await tempDir();
  await writeTree(root.path, PROJECT.files);
  const ctx = await toolContext(root.path);
  const found = await PYTHON_RESOLVER.findSites(
    ctx,
    { path: "conn.py", name: "Conn.send" },
    ".",
    new Skipped(),
  );
  assertEquals(asMarks(found.sites), PROJECT.marks("send"));
  const reasons = new Map(found.sites.map((site) => [`${site.path}:${site.line}`, site.reason]));
  assertEquals(
    reasons.get("client.py:13"),
    'receiver of unknown type (what "either" returns is not one class)',
  );
});

Deno.test("the Python resolver: an explicit re-export (import f as f) and a module imported from its package", async () => {
  await using root = await tempDir();
  const { files, marks } = unmark({
    "pkg/__init__.py": "",
    "pkg/mod.py": "def ⟦f⟧():\n    return 1\n",
    "pkg/use.py": `from .mod import ⟦f⟧ as ⟦f⟧
from . import mod


def run():
    return ⟦f⟧() + mod.⟦f⟧()
`,
  });
  await writeTree(root.path, files);
  const ctx = await toolContext(root.path);
  const found = await PYTHON_RESOLVER.findSites(
    ctx,
    { path: "pkg/mod.py", name: "f" },
    ".",
    new Skipped(),
  );
  assertEquals(asMarks(found.sites), marks("f"));
  const renamed = applyRename(files, found.sites, { from: "f", to: "g" });
  await writeTree(root.path, renamed);
  const run = await new Deno.Command("python3", {
    args: ["-c", "from pkg.use import run; assert run() == 2"],
    cwd: root.path,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
    stderr: "piped",
  }).output();
  assertEquals(new TextDecoder().decode(run.stderr), "");
});
