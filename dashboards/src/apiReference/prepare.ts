/**
 * The OpenAPI document made ready for Swagger UI on the page.
 *
 * Before showing an OpenAPI 3.1 document Swagger UI 5 "normalises" it: it converts the whole document into ApiDOM
 * elements to derive operation ids, copy a path's shared parameters into its operations, copy the document's
 * security into operations without their own and move examples, then resolves an opened operation over the whole
 * document again. On the API's 617 operations that took half of the 5.5 s before the sections were listed and most
 * of the 3.2 s to open one (docs/performance.md "The API reference"). What the page shows needs only the shared
 * parameters copied (Swagger UI derives the ids, the padlocks of the document's security and the examples itself:
 * the rendered operations are the same), so that is done here and the document is marked as normalised
 * (`$$normalized`, Swagger UI's own mark for a document it already normalised).
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Parameter = { $ref?: string; name?: string; in?: string } & Record<string, unknown>;
type Operation = { parameters?: Parameter[] } & Record<string, unknown>;
type PathItem = { parameters?: Parameter[] } & Partial<Record<(typeof METHODS)[number], Operation>> & Record<string, unknown>;
export type OpenApiDocument = { paths?: Record<string, PathItem> } & Record<string, unknown>;

const key = (p: Parameter): string => p.$ref ?? `${p.in}:${p.name}`;

/** Copies each path's shared parameters into its operations (an operation's own of the same name and place wins,
 * OpenAPI 3.1 §4.8.9.1) and marks the document normalised for Swagger UI. Changes and returns `document`. */
export function prepareForDisplay(document: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(document.paths ?? {})) {
    const shared = item.parameters;
    if (!shared?.length) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const own = operation.parameters ?? [];
      const ownKeys = new Set(own.map(key));
      operation.parameters = [...own, ...shared.filter((p) => !ownKeys.has(key(p)))];
    }
  }
  document.$$normalized = true;
  return document;
}
