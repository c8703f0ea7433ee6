import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The Flask API (make up) listens on 8080; the dev server forwards everything the console calls.
const API = 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  server: {
    port: 5173,
    proxy: {
      '/api': { target: API, changeOrigin: true },
      '/oauth2': { target: API, changeOrigin: true },
      '/wss': { target: API, changeOrigin: true, ws: true },
    },
  },
  build: {
    chunkSizeWarningLimit: 1600, // the API reference's Swagger UI bundle is one 1.55 MB chunk, loaded by that page only
    // The console, and the footer's API reference as a page of its own (Swagger UI stays out of the console's chunks).
    rolldownOptions: {
      input: { main: 'index.html', apiReference: 'api-reference.html' },
    },
  },
  test: {
    restoreMocks: true,
    setupFiles: ['src/test/setup.ts'],
    // Component tests render the whole shell in jsdom; on a busy CI machine that can take seconds.
    testTimeout: 20_000,
    // Logic tests (.ts) run in Node: a jsdom per file was half of the suite's time. A .ts test that needs
    // a DOM (window, localStorage, elements) says so in its first line: `// @vitest-environment jsdom`.
    projects: [
      { extends: true, test: { name: 'logic', environment: 'node', include: ['src/**/*.test.ts', 'src/**/__tests__/**/*.ts'] } },
      { extends: true, test: { name: 'dom', environment: 'jsdom', include: ['src/**/*.test.tsx', 'src/**/__tests__/**/*.tsx'] } },
    ],
  },
});
