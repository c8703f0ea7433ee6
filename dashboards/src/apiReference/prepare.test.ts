import { describe, expect, it } from 'vitest';
import { prepareForDisplay } from './prepare';

describe('prepareForDisplay', () => {
  it("copies a path's shared parameters into its operations, an operation's own of the same name and place first", () => {
    const document = prepareForDisplay({
      paths: {
        '/a/{id}': {
          parameters: [{ name: 'id', in: 'path', description: 'shared' }, { $ref: '#/components/parameters/isParent' }],
          get: { parameters: [{ name: 'id', in: 'path', description: 'own' }] },
          post: {},
        },
        '/b': { get: { parameters: [{ name: 'q', in: 'query' }] } },
      },
    });
    const a = document.paths!['/a/{id}'];
    expect(a.get!.parameters).toEqual([
      { name: 'id', in: 'path', description: 'own' },
      { $ref: '#/components/parameters/isParent' },
    ]);
    expect(a.post!.parameters).toEqual(a.parameters);
    expect(document.paths!['/b'].get!.parameters).toEqual([{ name: 'q', in: 'query' }]);
    expect(document.$$normalized).toBe(true);
  });
});
