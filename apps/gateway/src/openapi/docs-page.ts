import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** swagger-ui-dist's files the page loads, served by the gateway itself (no CDN). */
const ASSET_TYPES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Paths are relative so the page also works behind a proxy that adds a path prefix. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Mailroom API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/swagger-ui-bundle.js"></script>
  <script src="docs/swagger-ui-standalone-preset.js"></script>
  <script src="docs/init.js"></script>
</body>
</html>
`;

/**
 * A separate file rather than an inline script, so a strict Content-Security-Policy can allow 'self' only.
 * validatorUrl 'none': swagger-ui otherwise shows a badge loaded from validator.swagger.io, which sends the
 * document's URL to a third party and which the page's policy (img-src 'self') refuses anyway.
 */
const INIT_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    validatorUrl: 'none',
  });
};
`;

export interface DocsAsset {
  contentType: string;
  body: Buffer;
}

const cache = new Map<string, DocsAsset>();

/** One of the page's static files, or null for any other name (no path is ever built from input). */
export function docsAsset(name: string): DocsAsset | null {
  const cached = cache.get(name);
  if (cached) return cached;
  let asset: DocsAsset | null = null;
  if (name === 'init.js') asset = { contentType: 'application/javascript; charset=utf-8', body: Buffer.from(INIT_JS) };
  else if (Object.hasOwn(ASSET_TYPES, name)) {
    const root = dirname(require.resolve('swagger-ui-dist/package.json'));
    asset = { contentType: ASSET_TYPES[name], body: readFileSync(join(root, name)) };
  }
  if (asset) cache.set(name, asset);
  return asset;
}
