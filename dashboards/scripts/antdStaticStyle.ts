// antd's component styles for a list page's first render, written at build time into a stylesheet
// (dist/assets/antd-static-<hash>.css, linked first in index.html's head), so that the browser does not
// build them with antd's CSS-in-JS (token merging, stylis) before a report's first rows (performance target:
// a report's first rows <= 1 s, docs/performance.md "A report's first rows in the browser", sixth pass).
// It comes before the console's own stylesheets, as antd's runtime styles do (prepended to the head), so
// the console's rules still win over antd's at equal specificity.
//
// Why this keeps every theme of the settings drawer (light, dark, night, the 8 primary colours): antd 6
// writes its component styles against CSS variables, under a class (`css-<hash>`) and a cache path that
// depend on antd's version and class prefix only, not on the theme. The theme's values (the design token
// and each component's token) stay runtime CSS variables that antd still computes and injects for the
// theme in use, so a theme switch restyles as before. The stylesheet ends with antd's cache-path map
// (`.data-ant-cssinjs-cache-path{content:...}`, @ant-design/cssinjs `extractStyle`): a component whose
// style is in the file skips its style function at runtime; any component not rendered below (a drawer,
// a menu, the map's pages) is styled at runtime as before.
//
// Only a production build links it; the development server leaves antd to style everything at runtime (its
// class prefix differs outside production).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Plugin } from 'vite';


type Antd = typeof import('antd');
type Cssinjs = typeof import('@ant-design/cssinjs');
type ReactModule = typeof import('react');
type ReactDomServer = typeof import('react-dom/server');

/** What the basic layout, the list page (features/list/) and the report screens draw in their first render
 * (dialogs and drawers closed), found by tests/e2e/test_report_pages.py (no antd style built in the browser
 * before a report's first row). */
function firstPaintTree(React: ReactModule, antd: Antd): ReturnType<ReactModule['createElement']> {
  const h = React.createElement;
  const { App, Button, Card, Checkbox, Col, DatePicker, Drawer, Empty, Form, Input, InputNumber, Layout, Modal,
    Pagination, Progress, Result, Row, Select, Space, Spin, Statistic, Switch, Table, TreeSelect, Typography } = antd;
  const rows = [{ key: 1, plate: 'A', km: 1 }, { key: 2, plate: 'B', km: 2 }];
  const columns = [{ title: 'plate', dataIndex: 'plate', sorter: true }, { title: 'km', dataIndex: 'km' }];
  return h(App, null, h(Layout, null, h(Layout.Sider, null), h(Layout.Content, null,
    h(Drawer, { open: false }), h(Modal, { open: false }), h(Empty),
    h(Card, { size: 'small' },
      h(Form, { layout: 'inline' },
        h(Form.Item, { label: 'a', name: 'a' }, h(Input, { allowClear: true })),
        h(Form.Item, { label: 'b', name: 'b' }, h(InputNumber)),
        h(Form.Item, { label: 'c', name: 'c' }, h(Select, { allowClear: true, showSearch: true, options: [] })),
        h(Form.Item, { label: 'd', name: 'd' }, h(Select, { mode: 'multiple', options: [] })),
        h(Form.Item, { label: 'e', name: 'e' }, h(DatePicker.RangePicker)),
        h(Form.Item, { label: 'f', name: 'f' }, h(DatePicker, { showTime: true })),
        h(Form.Item, { label: 'g', name: 'g' }, h(TreeSelect, { treeData: [], treeCheckable: true })),
        h(Form.Item, { label: 'h', name: 'h' }, h(Checkbox)),
        h(Form.Item, { label: 'i', name: 'i' }, h(Switch)),
        h(Space, null, h(Button, { type: 'primary' }, 'q'), h(Button, null, 'r'), h(Button, { type: 'link' }, 's')),
      ),
    ),
    h(Space, null, h(Typography.Text, null, 't'), h(Progress, { percent: 10, size: 'small' })),
    h(Spin, { spinning: true }, h(Table, { dataSource: rows, columns, size: 'middle', rowSelection: {}, pagination: { total: 100, showSizeChanger: true, showQuickJumper: true } })),
    h(Pagination, { total: 100, size: 'small' }),
    h(Row, null, h(Col, { span: 6 }, h(Statistic, { title: 'k', value: 1 }))),
    h(Result, { status: 'warning', title: 'w' }),
  )));
}

/** The stylesheet: the component styles of firstPaintTree and antd's cache-path map, no theme values. */
export function extractFirstPaintStyle(root: string): string {
  // the class prefix is `css-` only in production (`css-dev-only-do-not-override-` otherwise), fixed when
  // @ant-design/cssinjs is first loaded: the build sets NODE_ENV before the config is loaded
  if (process.env.NODE_ENV !== 'production') {
    throw new Error('antd static style: NODE_ENV must be production when the console is built');
  }
  // antd's CommonJS build: Node loads it as it is (its ES build has no "type": "module")
  const require = createRequire(resolve(root, 'package.json'));
  const React = require('react') as ReactModule;
  const { renderToString } = require('react-dom/server') as ReactDomServer;
  const antd = require('antd') as Antd;
  const { createCache, extractStyle, StyleProvider } = require('@ant-design/cssinjs') as Cssinjs;
  const cache = createCache();
  renderToString(React.createElement(StyleProvider, { cache }, React.createElement(antd.ConfigProvider, null, firstPaintTree(React, antd))));
  // 'style' only: the design token and the components' tokens (the theme) stay runtime CSS variables
  return extractStyle(cache, { types: ['style'], plain: true });
}

/** The Vite plugin: in a production build, the stylesheet as an asset linked first in index.html's head. */
export default function antdStaticStyle(): Plugin {
  let build = false;
  let root = '';
  let base = '/';
  let fileName = '';
  return {
    name: 'fleet-antd-static-style',
    configResolved(config) {
      build = config.command === 'build' && config.isProduction;
      root = config.root;
      base = config.base;
    },
    buildStart() {
      if (!build) return;
      const source = extractFirstPaintStyle(root);
      fileName = `assets/antd-static-${createHash('sha256').update(source).digest('hex').slice(0, 10)}.css`;
      this.emitFile({ type: 'asset', fileName, source });
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        // the console's page only (the API reference draws no antd component)
        if (!fileName || !ctx.filename.endsWith('index.html')) return undefined;
        return [{ tag: 'link', attrs: { rel: 'stylesheet', crossorigin: true, href: `${base}${fileName}` }, injectTo: 'head-prepend' }];
      },
    },
  };
}
