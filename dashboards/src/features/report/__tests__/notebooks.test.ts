import { describe, expect, it } from 'vitest';
import { hasPage, pickNotebook, type NotebookEntry } from '../notebooks';

const entry = (name: string, renderedAt: string | null, error: string | null = null): NotebookEntry =>
  ({ name, title: name, renderedAt, error });

describe('which notebook page the screen opens', () => {
  const entries = [entry('never_rendered', null, 'CellExecutionError'), entry('fleet', '2026-12-01T02:15:00+00:00'),
    entry('kpis', '2026-12-01T02:15:00+00:00', 'failed last night')];

  it('opens the page asked for when it has one, else the first that has one', () => {
    expect(pickNotebook(entries, 'kpis')).toBe('kpis'); // a failed run keeps its previous page
    expect(pickNotebook(entries, 'never_rendered')).toBe('fleet');
    expect(pickNotebook(entries, null)).toBe('fleet');
    expect(pickNotebook([entry('x', null)], null)).toBeUndefined();
  });

  it('counts a notebook as readable once it has been rendered', () => {
    expect(entries.map(hasPage)).toEqual([false, true, true]);
  });
});
