import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import antdStaticStyle from './scripts/antdStaticStyle';
import precompress from './scripts/precompress';

// The Flask API (make up) listens on 8080; the dev server forwards everything the console calls.
const API = 'http://127.0.0.1:8080';

export default defineConfig({
  // antdStaticStyle: antd's component styles of a list page's first render as a stylesheet built here, not
  // in the browser (a report's first rows <= 1 s; scripts/antdStaticStyle.ts says why the themes keep working)
  // precompress: a .br and a .gz twin of each text file of dist/, served by the API by Accept-Encoding (api/static.py)
  plugins: [react(), antdStaticStyle(), precompress()],
  server: {
    port: 5173,
    proxy: {
      '/api': { target: API, changeOrigin: true },
      '/oauth2': { target: API, changeOrigin: true },
      '/wss': { target: API, changeOrigin: true, ws: true },
    },
  },
  build: {
    // dist/.vite/manifest.json: the chunks of each page, so the API names the opening page's chunks in the
    // index.html it answers for that address (<link rel="modulepreload">, api/console_preload.py).
    manifest: true,
    chunkSizeWarningLimit: 1600, // the API reference's Swagger UI bundle is one 1.55 MB chunk, loaded by that page only
    // The console, and the footer's API reference as a page of its own (Swagger UI stays out of the console's chunks).
    rolldownOptions: {
      input: { main: 'index.html', apiReference: 'api-reference.html' },
      // Few, large chunks for what every signed-in page loads before it shows anything. Split by sharing alone
      // they were 56 scripts fetched six at a time (HTTP/1.1) before a report's first rows (performance target:
      // a report's first rows <= 1 s, docs/performance.md). Only what the entry loads at start ($initial) is
      // grouped: the lazy pages' antd components, ECharts, the map and the video player stay with their pages,
      // and the initial JavaScript within its budget (npm run bundle-size). Five groups, not one: the browser
      // parses each script on a thread of its own while they download, and one 1.2 MB shell was the last to be
      // parsed, ~90 ms after the others (Chromium's timeline: benchmarks/report_rows_bench.py --trace). Each
      // group only imports the ones above it (React; rc-component and the icons; antd; the other packages;
      // the app): two chunks that import each other evaluate in an order neither module asked for (an earlier
      // antd group broke the header's language menu after a drawer had closed, tests/e2e/test_list_pages.py);
      // npm run bundle-size fails on such a pair.
      // swagger-ui-dist is the API reference page's own (its entry, apiReference).
      output: {
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|react-is|scheduler|react-router|i18next|react-i18next|dayjs)[\\/]/, tags: ['$initial'], priority: 30 },
            { name: 'rc', test: /node_modules[\\/](@rc-component|@ant-design[\\/]icons)/, tags: ['$initial'], priority: 25 },
            { name: 'antd', test: /node_modules[\\/]antd[\\/]/, tags: ['$initial'], priority: 20 },
            { name: 'vendor', test: /node_modules[\\/](?!swagger-ui-dist[\\/])/, tags: ['$initial'], priority: 15 },
            { name: 'shell', test: /[\\/]src[\\/](api|auth|router|layouts|i18n|components|utils|live)[\\/]/, tags: ['$initial'], priority: 10 },
          ],
        },
      },
    },
  },
  test: {
    restoreMocks: true,
    isolate: false,
    setupFiles: ['src/test/setup.ts'],
    // Component tests render the whole shell in jsdom; on a busy CI machine that can take seconds.
    testTimeout: 20_000,
    // One module graph and one jsdom per worker, not per file (isolate false): a fresh environment and a
    // fresh import of antd for each of ~140 files was over half of the run (148 -> 65 s, 182 -> 69 s of CPU
    // beside the Python suites). src/test/setup.ts re-evaluates the console's own modules and empties
    // storage before each file, so a file still cannot see another's state.
    // Logic tests (.ts) run in Node: a jsdom per file was half of the suite's time. A .ts test that needs
    // a DOM (window, localStorage, elements) says so in its first line: `// @vitest-environment jsdom`.
    projects: [
      { extends: true, test: { name: 'logic', environment: 'node', include: ['src/**/*.test.ts', 'src/**/__tests__/**/*.ts'] } },
      { extends: true, test: { name: 'dom', environment: 'jsdom', include: ['src/**/*.test.tsx', 'src/**/__tests__/**/*.tsx'] } },
    ],
  },
});
