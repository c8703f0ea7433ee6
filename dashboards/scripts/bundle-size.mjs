#!/usr/bin/env node
// Sums the gzip size of the JavaScript the browser loads before any lazy route: the entry script of
// dist/index.html, its modulepreload links, and (transitively) every chunk they import statically.
// Dynamic import() chunks are not counted. Run after `npm run build`; exits 1 above the budget.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 500;
const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const html = readFileSync(join(dist, 'index.html'), 'utf8');

const roots = [
  ...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g),
  ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
].map((m) => join(dist, m[1]));
const css = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => join(dist, m[1]));

// Static imports only: `import"./a.js"`, `import{x}from"./b.js"`, `export{y}from"./c.js"`; not `import(`.
const STATIC_IMPORT = /(?:^|[;\s}])(?:import|export)\s*(?:[\w$*{}\s,]+?\s*from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;

const seen = new Map();
const visit = (file) => {
  if (seen.has(file)) return;
  const code = readFileSync(file);
  seen.set(file, code);
  for (const m of code.toString('utf8').matchAll(STATIC_IMPORT)) visit(resolve(dirname(file), m[1]));
};
roots.forEach(visit);

const kb = (bytes) => (bytes / 1024).toFixed(2);
let raw = 0;
let gz = 0;
for (const [file, code] of [...seen].sort((a, b) => b[1].length - a[1].length)) {
  const g = gzipSync(code).length;
  raw += code.length;
  gz += g;
  console.log(`${file.slice(dist.length + 1).padEnd(48)} ${kb(code.length).padStart(9)} kB  gzip ${kb(g).padStart(8)} kB`);
}
const cssGz = css.reduce((sum, file) => sum + gzipSync(readFileSync(file)).length, 0);
console.log(`initial JavaScript: ${seen.size} files, ${kb(raw)} kB, gzip ${kb(gz)} kB (budget ${BUDGET_KB} kB)`);
if (css.length) console.log(`initial CSS: gzip ${kb(cssGz)} kB (not counted)`);
if (gz / 1024 > BUDGET_KB) {
  console.error(`over budget by ${kb(gz - BUDGET_KB * 1024)} kB`);
  process.exit(1);
}
