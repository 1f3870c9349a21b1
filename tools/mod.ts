/**
 * The list of local tools. A new tool is one file and one line here.
 *
 * @module
 */

import type { Tool } from "./tool.ts";
import { readFile } from "./files/read_file.ts";
import { listDirectory } from "./files/list_directory.ts";
import { getFileSlice } from "./files/get_file_slice.ts";
import { setFileSlice } from "./files/set_file_slice.ts";
import { editFile } from "./files/edit_file.ts";
import { writeFile } from "./files/write_file.ts";
import { getFileInfo } from "./files/get_file_info.ts";
import { moveFile } from "./files/move_file.ts";
import { createDirectory } from "./files/create_directory.ts";
import { searchFiles } from "./files/search_files.ts";
import { grep } from "./files/grep.ts";
import { getTree } from "./files/get_tree.ts";
import { CFAMILY_TOOLS } from "./cfamily/cfamily.ts";
import { TYPESCRIPT_TOOLS } from "./typescript/typescript.ts";
import { getFileSummary } from "./analysis/get_file_summary.ts";
import { deriveCodePath } from "./analysis/derive_code_path.ts";
import { pyGetSkeleton } from "./python/get_skeleton.ts";
import { pyGetCodeOutline } from "./python/get_code_outline.ts";
import { pyGetDefinition, pyUpdateDefinition } from "./python/definition.ts";
import { pyGetSignature, pySetSignature } from "./python/signature.ts";
import { pyGetClassSummary } from "./python/get_class_summary.ts";
import { pyGetVarDeclaration, pySetVarDeclaration } from "./python/var_declaration.ts";
import { pyFindUsages } from "./python/find_usages.ts";
import { pyGetImports } from "./python/get_imports.ts";
import { pyCheckSyntax } from "./python/check_syntax.ts";
import { pyGetHierarchy } from "./python/get_hierarchy.ts";
import { pyGetDocstring } from "./python/get_docstring.ts";
import { pyRemoveDef } from "./python/remove_def.ts";
import { pyAddDef } from "./python/add_def.ts";
import { pyMoveDef } from "./python/move_def.ts";
import { pyRegionWrap } from "./python/region_wrap.ts";

/** Every local tool, in the order clients list them. */
export const TOOLS: readonly Tool[] = Object.freeze([
  readFile,
  listDirectory,
  getFileSlice,
  setFileSlice,
  editFile,
  writeFile,
  getFileInfo,
  moveFile,
  createDirectory,
  searchFiles,
  grep,
  getTree,
  ...CFAMILY_TOOLS,
  ...TYPESCRIPT_TOOLS,
  getFileSummary,
  deriveCodePath,
  pyGetSkeleton,
  pyGetCodeOutline,
  pyGetDefinition,
  pyUpdateDefinition,
  pyGetSignature,
  pySetSignature,
  pyGetClassSummary,
  pyGetVarDeclaration,
  pySetVarDeclaration,
  pyFindUsages,
  pyGetImports,
  pyCheckSyntax,
  pyGetHierarchy,
  pyGetDocstring,
  pyRemoveDef,
  pyAddDef,
  pyMoveDef,
  pyRegionWrap,
]);
