/**
 * The Python tools, in the order clients list them, and Python for the
 * tools that read every language.
 *
 * @module
 */

import type { FamilyCode } from "../family.ts";
import type { Tool } from "../tool.ts";
import { PYTHON_LANGUAGE } from "./_language.ts";
import { pyGetSkeleton } from "./get_skeleton.ts";
import { pyGetCodeOutline } from "./get_code_outline.ts";
import { pyGetDefinition, pyUpdateDefinition } from "./definition.ts";
import { pyGetSignature, pySetSignature } from "./signature.ts";
import { pyGetClassSummary } from "./get_class_summary.ts";
import { pyGetVarDeclaration, pySetVarDeclaration } from "./var_declaration.ts";
import { pyGetImports } from "./get_imports.ts";
import { pyCheckSyntax } from "./check_syntax.ts";
import { pyGetHierarchy } from "./get_hierarchy.ts";
import { pyGetDocstring } from "./get_docstring.ts";
import { pyRemoveDef } from "./remove_def.ts";
import { pyAddDef } from "./add_def.ts";
import { pyMoveDef } from "./move_def.ts";
import { pyRegionWrap } from "./region_wrap.ts";

/** Every Python tool. */
export const PYTHON_TOOLS: readonly Tool[] = Object.freeze([
  pyGetSkeleton,
  pyGetCodeOutline,
  pyGetDefinition,
  pyUpdateDefinition,
  pyGetSignature,
  pySetSignature,
  pyGetClassSummary,
  pyGetVarDeclaration,
  pySetVarDeclaration,
  pyGetImports,
  pyCheckSyntax,
  pyGetHierarchy,
  pyGetDocstring,
  pyRemoveDef,
  pyAddDef,
  pyMoveDef,
  pyRegionWrap,
]);

/** The Python tools, and the language they read. */
export const PYTHON_CODE: FamilyCode = Object.freeze({
  tools: PYTHON_TOOLS,
  languages: [PYTHON_LANGUAGE],
});
