/**
 * The web tools: `fetch_url` and `web_search` (seed 001's), which reach the
 * web through the host's network service (`tools/network.ts`), never on
 * their own. Listed unless `net` is false.
 *
 * @module
 */

import { defineFamily, type ToolFamily } from "../family.ts";
import { ICONS } from "../icons.ts";

/** The web tools' declaration. */
export const WEB: ToolFamily = defineFamily({
  name: "web",
  runs: "host",
  icon: ICONS.web,
  reachesNetwork: true,
});
