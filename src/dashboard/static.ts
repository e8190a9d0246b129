// The page's files, built by `make` (scripts/build-dashboard.ts) into dist/dashboard/ and carried
// with the package; read once at start and served from memory. Nothing is fetched at run time.

import { readFile, readdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `make` puts the built page. */
export const STATIC_DIR = fileURLToPath(new URL('../../dist/dashboard/', import.meta.url));

export interface StaticFile {
  type: string;
  body: Buffer;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

export const NOT_BUILT = (dir: string) =>
  `the dashboard's page is not built (no ${join(dir, 'index.html')}): run "make" (or "npm run build:dashboard") in Pacer's directory`;

/** Every file under `dir` by its URL path (`/index.html`, `/vendor/preact.mjs`); throws when there is no index.html. */
export async function loadStaticFiles(dir: string = STATIC_DIR): Promise<Map<string, StaticFile>> {
  const files = new Map<string, StaticFile>();
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch {
    throw new Error(NOT_BUILT(dir));
  }
  for (const entry of entries) {
    const type = TYPES[extname(entry)];
    if (type === undefined) continue;
    const body = await readFile(join(dir, entry));
    const path = `/${relative(dir, join(dir, entry)).split(sep).join('/')}`;
    files.set(path, { type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` });
  }
  if (!files.has('/index.html')) throw new Error(NOT_BUILT(dir));
  return files;
}
