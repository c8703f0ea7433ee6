import { describe, expect, it } from 'vitest';
import { formatBytes, liveDetailHref } from '../format';

describe('live log formatting', () => {
  it('shows bytes 1024-based with one decimal under 100', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(5_760_000)).toBe('5.5 MB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2.0 GB');
  });

  it('shows nothing for a value that is no byte count', () => {
    expect(formatBytes(null)).toBe('');
    expect(formatBytes(-1)).toBe('');
    expect(formatBytes('x')).toBe('');
  });

  it('links a session to its detail page', () => {
    expect(liveDetailHref(42)).toBe('/log/liveDetail?id=42');
  });
});
