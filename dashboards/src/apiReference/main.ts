/**
 * The footer's open-platform API manual (console-spec §1, platform-spec: "an open-platform API manual"):
 * the API's own OpenAPI document (`GET /api/openapi.json`) rendered by Swagger UI from the pinned npm
 * package, bundled by Vite into this page's own chunks (no CDN: the console works offline), so the
 * console's bundle does not grow. The bar above it speaks the console's language (as last chosen).
 */
import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './apiReference.css';
import { prepareForDisplay, type OpenApiDocument } from './prepare';
import { pageTexts } from './texts';

// The console's stored language choice (LANGUAGE_STORAGE_KEY of src/i18n, not imported: it would start i18next here).
const texts = pageTexts(localStorage.getItem('fleetwatch.language'));
document.documentElement.lang = texts.lang;
document.title = `${texts.title} · FleetWatch`;
const back = document.querySelector<HTMLAnchorElement>('[data-testid="api-reference-back"]');
if (back) back.textContent = texts.back;
const title = document.querySelector<HTMLElement>('[data-testid="api-reference-title"]');
if (title) title.textContent = texts.title;

const DOCUMENT_URL = '/api/openapi.json';
const options = {
  dom_id: '#api-reference',
  deepLinking: true,
  docExpansion: 'none',
  defaultModelsExpandDepth: -1,
  // Read-only reference: "try it out" would need a token pasted in a page that keeps none.
  supportedSubmitMethods: [],
  validatorUrl: null,
};

// The document is read here and handed over prepared (./prepare.ts); if that fails, Swagger UI reads it itself
// and says what went wrong.
fetch(DOCUMENT_URL)
  .then((reply) => {
    if (!reply.ok) throw new Error(`${DOCUMENT_URL}: ${reply.status}`);
    return reply.json() as Promise<OpenApiDocument>;
  })
  .then((document) => SwaggerUIBundle({ ...options, spec: prepareForDisplay(document) }))
  .catch(() => SwaggerUIBundle({ ...options, url: DOCUMENT_URL }));
