// Serving the Swagger document and the Swagger UI (from the swagger-ui-dist package, never a CDN).
// `GET /swagger` gives the document to clients that do not prefer HTML (curl's `*/*`, API tools)
// and the UI to browsers; `/swagger/swagger.json` is always the document.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { currentBinaryName } from "../config/home.ts";

/** One file to send. */
export interface StaticAsset {
  contentType: string;
  body: Buffer | string;
}

// The UI's own files; nothing else under /swagger/ is served.
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
  "oauth2-redirect.html": "text/html; charset=utf-8",
};

const assetCache = new Map<string, Promise<Buffer>>();

function distDirectory(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve("swagger-ui-dist/package.json"));
}

/** A file of the Swagger UI by name (`swagger-ui.css`), or undefined when it is not one of them. */
export async function swaggerUiAsset(name: string): Promise<StaticAsset | undefined> {
  // Own keys only: `__proto__`, `constructor` or `toString` are names of Object's members, not files.
  if (!Object.hasOwn(ASSETS, name)) return undefined;
  const contentType = ASSETS[name];
  let body = assetCache.get(name);
  if (body === undefined) {
    body = readFile(join(distDirectory(), name));
    assetCache.set(name, body);
  }
  return { contentType, body: await body };
}

/**
 * The UI page, loading the document from `specUrl` and the UI files from `/swagger/`. `validatorUrl: null`
 * turns off the UI's validity badge, an image swagger-ui otherwise fetches from its makers' public validator
 * (with our document's URL) whenever the page is opened through a name other than localhost: the page must
 * reach no host but this node.
 */
export function swaggerUiPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${currentBinaryName()} REST gateway</title>
  <link rel="stylesheet" href="/swagger/swagger-ui.css">
  <link rel="icon" type="image/png" href="/swagger/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/swagger/swagger-ui-bundle.js"></script>
  <script src="/swagger/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: ${JSON.stringify(specUrl)},
      dom_id: "#swagger-ui",
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl],
      layout: "StandaloneLayout",
      validatorUrl: null
    });
  </script>
</body>
</html>
`;
}

/**
 * True when the Accept header ranks text/html above JSON: browsers send
 * `text/html,...,*\/*;q=0.8`; curl's `*\/*`, `application/json` and no header at all get JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(",")) {
    const [rawType, ...params] = part.trim().split(";");
    const type = rawType.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split("=");
      if (key?.trim() === "q") q = Number(value);
    }
    if (!Number.isFinite(q)) continue;
    if (type === "text/html" || type === "text/*") html = Math.max(html, q);
    if (type === "application/json" || type === "application/*" || type === "*/*") json = Math.max(json, q);
    // The wildcard serves HTML as well, but only an explicit HTML entry can win over JSON.
  }
  return html > json;
}
