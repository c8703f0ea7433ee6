// A brotli (.br) and a gzip (.gz) twin of every text file of the build, written once here so that the API
// answers a browser with compressed bytes without compressing per request (api/static.py picks the twin
// by Accept-Encoding: br, then gzip, else the file itself). gzip at level 9; brotli at quality 10, not 11:
// on this build 11 took 2.8x 10's time (66 s against 24 s on the loaded 2-core machine) for 1.6 % fewer
// bytes (docs/performance.md, "The console's assets compressed").
//
// Node's own zlib has both codecs, so no npm plugin (vite-plugin-compression2 and the like wrap the same
// zlib calls) is needed for ~50 lines. A twin no smaller than its file is not written (the API then sends
// the file itself), nor for files the browser never fetches (Vite's .vite/manifest.json).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

/** What is worth compressing: text. Images other than SVG, fonts in woff2 and media are compressed already. */
const TEXT = /\.(?:js|mjs|css|html|svg|json|txt|map|wasm)$/;

export function twinsOf(bytes: Buffer): { br: Buffer; gz: Buffer } {
  return {
    br: brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 10,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      },
    }),
    gz: gzipSync(bytes, { level: 9 }),
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return []; // the build's own (.vite/manifest.json), never served
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** Writes the twins of dist/'s text files; returns how many files got twins. */
export function precompressDir(dir: string): number {
  let count = 0;
  for (const file of filesUnder(dir)) {
    if (!TEXT.test(file)) continue;
    const bytes = readFileSync(file);
    const { br, gz } = twinsOf(bytes);
    if (br.length < bytes.length) writeFileSync(`${file}.br`, br);
    if (gz.length < bytes.length) writeFileSync(`${file}.gz`, gz);
    if (br.length < bytes.length || gz.length < bytes.length) count += 1;
  }
  return count;
}

export default function precompress(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'fleet-precompress',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    // After every file (both HTML inputs, public/ copied) is on disk.
    closeBundle() {
      const outDir = resolve(config.root, config.build.outDir);
      const started = Date.now();
      const count = precompressDir(outDir);
      config.logger.info(`precompressed ${count} files of ${relative(config.root, outDir)}/ (br, gz) in ${Date.now() - started} ms`);
    },
  };
}
