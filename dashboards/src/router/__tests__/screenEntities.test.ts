/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

// A screen that shows a list names the entity it lists (`export const ENTITY`): opened as the first
// page of a session, its meta then leaves with its chunk and the shell's own calls wait for its first rows
// (router/prefetch.ts, router/firstContent.ts; performance target: a report's first rows <= 1 s). A screen that
// names none opens the gate at once, and the notices, dictionaries and system files go before its rows.
const SCREENS = resolve(__dirname, '../../screens');
const LIST = /<(ListPage|AlarmEvents|AlarmTypeStats|FrameLogScreen|AlarmListScreen|ExchangeLogScreen)\b/;
const NAMED = /^export const ENTITY = '[A-Za-z][A-Za-z0-9]*';$/m;

describe('the list screens name the entity they list', () => {
  for (const area of ['report', 'log', 'list', 'settings', 'user', 'exchange', 'gb32960']) {
    test(`every ${area} screen with a list`, () => {
      const files = readdirSync(join(SCREENS, area)).filter((name) => name.endsWith('.tsx'));
      const lists = files.filter((name) => LIST.test(readFileSync(join(SCREENS, area, name), 'utf8')));
      expect(lists.length).toBeGreaterThan(3);
      expect(lists.filter((name) => !NAMED.test(readFileSync(join(SCREENS, area, name), 'utf8')))).toEqual([]);
    });
  }
});
