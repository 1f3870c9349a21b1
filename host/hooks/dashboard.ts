/**
 * The dashboard: one page, its style and its script, all served by the Hook
 * API itself (no external asset, no inline script: the Content Security
 * Policy allows this origin only). The page holds no data; its script reads
 * the API with the token, taken from the URL's fragment
 * (`/#token=<token>`, which browsers never send to a server) or typed into
 * its login form, and kept in the tab's session storage.
 *
 * @module
 */

import { DASHBOARD_SCRIPT } from "./_dashboard_script.ts";

/** The static files: path, body and type. */
export const DASHBOARD_FILES: Readonly<Record<string, { body: string; type: string }>> = {
  "/": { body: page(), type: "text/html; charset=utf-8" },
  "/dashboard.js": { body: DASHBOARD_SCRIPT, type: "text/javascript; charset=utf-8" },
  "/dashboard.css": { body: style(), type: "text/css; charset=utf-8" },
};

/**
 * The headers every dashboard file is served with.
 *
 * @param type Its content type.
 * @returns The headers.
 */
export function pageHeaders(type: string): Headers {
  return new Headers({
    "Content-Type": type,
    "Content-Security-Policy":
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
  });
}

function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolhost dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard.css">
<script src="/dashboard.js" defer></script>
</head>
<body>
<header><h1>toolhost</h1><span id="state">connecting…</span><span id="roots"></span></header>
<form id="login" hidden>
  <label>Token <input id="token" type="password" autocomplete="off" size="48"></label>
  <button type="submit">Open</button>
  <p>The token is the Hook API's own, in the state directory's <code>hooks-token</code> (not <code>http-token</code>, the MCP clients' token); <code>toolhost dashboard</code> prints a URL with it.</p>
</form>
<main id="main" hidden>
<section id="approvals-section"><h2>Waiting for approval <span id="approval-count" class="count">0</span></h2>
  <p id="no-approvals" class="quiet">No call waits.</p><div id="approvals"></div></section>
<section><h2>Latency by tool</h2>
  <label>Tool <select id="plot-tool"></select></label>
  <svg id="plot" viewBox="0 0 640 200" role="img" aria-label="p50 and p95 latency over time"></svg>
  <p class="legend"><span class="p50">p50</span> <span class="p95">p95</span> per 10 s, last 10 minutes (ms)</p>
  <table id="tools"><thead><tr><th>tool</th><th>calls</th><th>errors</th><th>error rate</th><th>p50 ms</th><th>p95 ms</th><th>max ms</th></tr></thead><tbody></tbody></table>
</section>
<section><h2>Live calls</h2>
  <table id="calls"><thead><tr><th>time</th><th>tool</th><th>session</th><th>arguments</th><th>outcome</th><th>ms</th></tr></thead><tbody></tbody></table>
</section>
<section><h2>Sinks and upstream servers</h2><div id="health"></div></section>
<section><h2>Sessions</h2>
  <table id="sessions"><thead><tr><th>session</th><th>client</th><th>calls</th><th>last call</th><th>recent</th></tr></thead><tbody></tbody></table>
</section>
</main>
</body>
</html>
`;
}

function style(): string {
  return `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{display:flex;gap:1em;align-items:baseline;padding:.6em 1em;background:#1d232a;color:#fff}
header h1{font-size:1.2em;margin:0}#state{font-weight:600}#roots{opacity:.8;font-family:monospace}
main,form{padding:0 1em 2em}section{background:#fff;border:1px solid #dde1e6;border-radius:6px;margin:1em 0;padding:.2em 1em 1em}
h2{font-size:1.05em}.count{background:#c62828;color:#fff;border-radius:9px;padding:0 .5em}
.quiet{color:#6b7480}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.2em .5em;border-bottom:1px solid #eef0f3;vertical-align:top}
td.args{font-family:monospace;font-size:12px;max-width:40em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.approval{border:2px solid #f0a000;border-radius:6px;padding:.5em 1em;margin:.5em 0;background:#fffaf0}
.approval pre{background:#f3f4f6;padding:.5em;max-height:24em;overflow:auto;white-space:pre-wrap;word-break:break-all}
.approval button{margin-right:.5em;padding:.3em 1em;font-weight:600}
button.approve{background:#2e7d32;color:#fff;border:0;border-radius:4px}
button.deny{background:#c62828;color:#fff;border:0;border-radius:4px}
.hash{font-family:monospace;font-size:12px;color:#6b7480}
.ok{color:#2e7d32}.bad{color:#c62828}.running{color:#6b7480}
svg{display:block;margin:.5em 0;width:100%;max-width:960px;height:auto;background:#fbfcfd;border:1px solid #eef0f3}
svg .p50,.legend .p50{stroke:#1565c0;color:#1565c0}svg .p95,.legend .p95{stroke:#ef6c00;color:#ef6c00}
svg polyline{fill:none;stroke-width:2}svg circle.p50{fill:#1565c0}svg circle.p95{fill:#ef6c00}svg text{font-size:10px;fill:#6b7480}
`;
}
