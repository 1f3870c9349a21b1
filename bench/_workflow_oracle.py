"""The workflow bench's oracle: Python's own `ast` and `tokenize` over the
bench project, independent of both servers and of the scripted agents.

Usage (JSON on stdout, paths relative to ROOT, lines 1-based):
  python3 _workflow_oracle.py defs ROOT DOTTED...     where each is defined
  python3 _workflow_oracle.py sites ROOT NAME         lines naming NAME
  python3 _workflow_oracle.py rename ROOT OLD NEW     the files a rename changes
  python3 _workflow_oracle.py moved ROOT PKG DIR MOD...   import fixes of a move
"""

import ast
import io
import json
import os
import sys
import tokenize


def python_files(root):
    """Every .py file under root, relative, sorted."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        found += [os.path.relpath(os.path.join(folder, f), root) for f in files if f.endswith(".py")]
    return sorted(found)


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8", newline="") as f:
        return f.read()


def definitions(tree, prefix=""):
    """(dotted name, node) for every class and function, nested."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            dotted = prefix + node.name
            yield dotted, node
            yield from definitions(node, dotted + ".")


def defs(root, names):
    """Where each dotted name is defined: path, def line, first line (decorators), last line."""
    out = []
    for path in python_files(root):
        tree = ast.parse(read(root, path))
        for dotted, node in definitions(tree):
            if dotted in names:
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                out.append({"name": dotted, "path": path, "line": node.lineno,
                            "start": first, "end": node.end_lineno})
    return out


def all_strings(tree, name):
    """(line, column) of string constants equal to name inside `__all__ = ...`."""
    spots = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Constant) and sub.value == name:
                    spots.add(sub.lineno)
    return spots


def name_tokens(text, name, all_lines):
    """Tokens to rename: NAME tokens equal to name, and its `__all__` strings."""
    hits = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string == name:
            hits.append((tok.start, tok.end, "name"))
        elif tok.type == tokenize.STRING and tok.start[0] in all_lines:
            if tok.string[1:-1] == name and tok.string[0] in "'\"":
                hits.append((tok.start, tok.end, "string"))
    return hits


def sites(root, name):
    """Every line that names `name` as code (not comments, not other strings)."""
    out = []
    for path in python_files(root):
        text = read(root, path)
        hits = name_tokens(text, name, all_strings(ast.parse(text), name))
        for line in sorted({start[0] for start, _, _ in hits}):
            kinds = sorted({kind for start, _, kind in hits if start[0] == line})
            out.append({"path": path, "line": line, "kinds": kinds})
    return out


def replace_tokens(text, hits, old, new):
    """Text with each hit's `old` replaced by `new` (right to left, per line)."""
    lines = text.splitlines(keepends=True)
    for (row, col), _, _ in sorted(hits, reverse=True):
        line = lines[row - 1]
        at = line.index(old, col)
        lines[row - 1] = line[:at] + new + line[at + len(old):]
    return "".join(lines)


def rename(root, old, new):
    """{path: new text} for every file the rename changes."""
    out = {}
    for path in python_files(root):
        text = read(root, path)
        hits = name_tokens(text, old, all_strings(ast.parse(text), old))
        if hits:
            out[path] = replace_tokens(text, hits, old, new)
    return out


def moved(root, pkg, folder, modules):
    """{new path: new text} for modules moved from PKG into PKG/FOLDER, and their importers.

    A moved module's relative imports gain a level, except `from . import m`
    of a module moved with it; `from .m import x` elsewhere in PKG becomes
    `from .FOLDER.m import x`.
    """
    out = {}
    for path in python_files(root):
        if not path.startswith(pkg + "/"):
            continue
        text = read(root, path)
        stem = os.path.relpath(path, pkg)[:-3]
        lines = text.splitlines(keepends=True)
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ImportFrom) or node.level != 1:
                continue
            line = lines[node.lineno - 1]
            if stem in modules:
                siblings = node.module is None and all(a.name in modules for a in node.names)
                if not siblings:
                    line = line.replace("from .", "from ..", 1)
            elif node.module in modules and "/" not in stem:
                line = line.replace("from .", "from ." + folder + ".", 1)
            lines[node.lineno - 1] = line
        new_path = f"{pkg}/{folder}/{stem}.py" if stem in modules else path
        if "".join(lines) != text or new_path != path:
            out[new_path] = "".join(lines)
    return out


def main(argv):
    command, root, *rest = argv
    if command == "defs":
        result = defs(root, set(rest))
    elif command == "sites":
        result = sites(root, rest[0])
    elif command == "rename":
        result = rename(root, rest[0], rest[1])
    elif command == "moved":
        result = moved(root, rest[0], rest[1], set(rest[2:]))
    else:
        raise SystemExit(f"unknown command {command!r}")
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
