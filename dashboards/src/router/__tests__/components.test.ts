import { describe, expect, test } from 'vitest';
import { pageComponents, screenPages, type PageLoader } from '../components';

describe('page registry', () => {
  test('a screen file is a page named after its path under screens/', () => {
    const loader: PageLoader = () => Promise.resolve({ default: () => null });
    expect(Object.keys(screenPages({ '../screens/list/carModel.tsx': loader, '../screens/user/role/detail.tsx': loader, '../other/x.tsx': loader })))
      .toEqual(['list/carModel', 'user/role/detail']);
  });

  test('the catalogue screens are registered without an edit to the registry', () => {
    for (const name of ['list/carModel', 'list/carType', 'list/deviceProducer', 'list/deviceType']) {
      expect(pageComponents[name], name).toBeTypeOf('function');
    }
  });
});
