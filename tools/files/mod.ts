/**
 * The file tools, in the order clients list them.
 *
 * @module
 */

import type { Tool } from "../tool.ts";
import { readFile } from "./read_file.ts";
import { readFiles } from "./read_files.ts";
import { listDirectory } from "./list_directory.ts";
import { getFileSlice } from "./get_file_slice.ts";
import { setFileSlice } from "./set_file_slice.ts";
import { editFile } from "./edit_file.ts";
import { writeFile } from "./write_file.ts";
import { getFileInfo } from "./get_file_info.ts";
import { moveFile } from "./move_file.ts";
import { createDirectory } from "./create_directory.ts";
import { searchFiles } from "./search_files.ts";
import { grep } from "./grep.ts";
import { getTree } from "./get_tree.ts";
import { detectLanguages } from "./detect_languages.ts";
import { sandboxGuard } from "./sandbox_guard.ts";

/** Every file tool. */
export const FILE_TOOLS: readonly Tool[] = Object.freeze([
  readFile,
  readFiles,
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
  detectLanguages,
  sandboxGuard,
]);
