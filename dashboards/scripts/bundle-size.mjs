#!/usr/bin/env node
// Sums the gzip size of the JavaScript the browser loads before any lazy route: the entry script of
// dist/index.html, its modulepreload links, and (transitively) every chunk they import statically.
// Dynamic import() chunks are not counted. Run after `npm run build`; exits 1 above the budget (gzip, so the
// budget keeps its meaning; what a browser accepting br receives, the build's .br twins, is printed beside it).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
const imports = new Map(); // file -> the files it imports statically
const visit = (file) => {
  if (seen.has(file)) return;
  const code = readFileSync(file);
  seen.set(file, code);
  imports.set(file, [...code.toString('utf8').matchAll(STATIC_IMPORT)].map((m) => resolve(dirname(file), m[1])));
  imports.get(file).forEach(visit);
};
roots.forEach(visit);

// The initial chunks import one another in one direction only (vite.config.ts's groups): two chunks that import
// each other evaluate in an order neither module asked for, which broke the console's header once.
const cycle = (() => {
  const state = new Map(); // file -> 'open' while on the path, 'done' after
  const path = [];
  const walk = (file) => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const next of imports.get(file) ?? []) {
      const found = walk(next);
      if (found) return found;
    }
    path.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of seen.keys()) {
    const found = walk(file);
    if (found) return found;
  }
  return null;
})();

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
const br = [...seen.keys()].reduce((sum, file) => sum + (existsSync(`${file}.br`) ? statSync(`${file}.br`).size : seen.get(file).length), 0);
console.log(`initial JavaScript: ${seen.size} files, ${kb(raw)} kB, gzip ${kb(gz)} kB (budget ${BUDGET_KB} kB), served as br ${kb(br)} kB`);
if (css.length) console.log(`initial CSS: gzip ${kb(cssGz)} kB (not counted)`);

// Every file of dist/ the build wrote twins of (scripts/precompress.ts): what the API sends by Accept-Encoding.
const twinned = readdirSync(dist, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.br'))
  .map((name) => join(dist, name.slice(0, -3)));
const size = (file) => statSync(file).size;
const sizeOr = (file, fallback) => (existsSync(file) ? size(file) : fallback);
const sum = (f) => twinned.reduce((total, file) => total + f(file), 0);
console.log(`all precompressed files: ${twinned.length}, ${kb(sum(size))} kB, gzip ${kb(sum((f) => sizeOr(`${f}.gz`, size(f))))} kB, br ${kb(sum((f) => size(`${f}.br`)))} kB`);
if (cycle) {
  console.error(`initial chunks import each other: ${cycle.map((file) => file.slice(dist.length + 1)).join(' -> ')}`);
  process.exit(1);
}
if (gz / 1024 > BUDGET_KB) {
  console.error(`over budget by ${kb(gz - BUDGET_KB * 1024)} kB`);
  process.exit(1);
}
