import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The docs page (`{platform-root}/docs`): Swagger UI, served from the `swagger-ui-dist` package
 * installed with the gateway — no CDN, so it works on networks without internet — reading the
 * caller's `/openapi.json`. Each tool is an operation a person can read and call ("Try it out");
 * with a callers file, a bearer token typed once is sent with the document's fetch and every call.
 */

/** The files of swagger-ui-dist the page loads, and nothing else of the package. */
const VENDORED: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const OWN: Readonly<Record<string, { type: string; body: string }>> = {
  'docs.js': {
    type: 'text/javascript; charset=utf-8',
    body: `(() => {
  const root = document.documentElement.dataset.root;
  const KEY = 'sculptor-docs-token';
  const start = () => {
    window.ui = SwaggerUIBundle({
      url: root + '/openapi.json',
      dom_id: '#swagger-ui',
      deepLinking: true,
      filter: true,
      tryItOutEnabled: true,
      displayOperationId: true,
      defaultModelsExpandDepth: 0,
      requestInterceptor: (request) => {
        const token = sessionStorage.getItem(KEY);
        if (token && !request.headers.Authorization) request.headers.Authorization = 'Bearer ' + token;
        return request;
      },
    });
  };
  const form = document.getElementById('token-form');
  if (form) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const input = document.getElementById('token');
      if (input.value.trim()) sessionStorage.setItem(KEY, input.value.trim());
      else sessionStorage.removeItem(KEY);
      input.value = '';
      start();
    });
  }
  start();
})();
`,
  },
  'docs.css': {
    type: 'text/css; charset=utf-8',
    body: `.sculptor-bar { font-family: sans-serif; padding: 0.75rem 1.25rem; background: #1f2933; color: #f5f7fa; display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; }
.sculptor-bar form { margin-left: auto; display: flex; gap: 0.5rem; align-items: center; }
.sculptor-bar input { padding: 0.25rem 0.5rem; }
`,
  },
};

/** What the page's HTML answer carries besides its body: only this origin's scripts run. */
export const DOCS_CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function docsHtml(root: string, secured: boolean): string {
  const r = escapeHtml(root);
  const token = secured
    ? `<form id="token-form"><label>Bearer token <input id="token" type="password" autocomplete="off"></label><button type="submit">Use</button></form>`
    : '';
  return `<!doctype html>
<html lang="en" data-root="${r}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sculptor gateway: tools</title>
<link rel="icon" type="image/png" href="${r}/docs/favicon-32x32.png">
<link rel="stylesheet" href="${r}/docs/swagger-ui.css">
<link rel="stylesheet" href="${r}/docs/docs.css">
</head>
<body>
<header class="sculptor-bar"><strong>Sculptor</strong><span>Every tool this gateway serves you, as a typed HTTP operation: read it, try it.</span>${token}</header>
<main id="swagger-ui"></main>
<script src="${r}/docs/swagger-ui-bundle.js"></script>
<script src="${r}/docs/docs.js"></script>
</body>
</html>
`;
}

const DIST = path.dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
const loaded = new Map<string, Promise<Buffer>>();

/** A file of the page (`docs.js`, `swagger-ui-bundle.js`…): type and bytes, or undefined. */
export async function docsAsset(name: string): Promise<{ type: string; body: Buffer | string } | undefined> {
  const own = Object.hasOwn(OWN, name) ? OWN[name] : undefined;
  if (own) return own;
  const type = Object.hasOwn(VENDORED, name) ? VENDORED[name] : undefined;
  if (!type) return undefined;
  let body = loaded.get(name);
  if (!body) {
    body = readFile(path.join(DIST, name));
    loaded.set(name, body);
    body.catch(() => loaded.delete(name));
  }
  return { type, body: await body };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
