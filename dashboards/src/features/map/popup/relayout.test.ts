// @vitest-environment jsdom
import L from 'leaflet';
import { afterEach, describe, expect, it } from 'vitest';
import { relayout } from './relayout';

describe('relayout of the vehicle popup', () => {
  let host: HTMLDivElement | null = null;
  afterEach(() => host?.remove());

  it('lays the popup out again without taking its content out of the page (a click under way stays on its button)', () => {
    host = document.createElement('div');
    document.body.appendChild(host);
    const map = L.map(host, { center: [39.9, 116.4], zoom: 12 });
    const content = document.createElement('div');
    const button = document.createElement('button');
    content.appendChild(button);
    const popup = L.popup({ autoPan: false }).setContent(content).setLatLng([39.9, 116.4]);
    popup.openOn(map);
    expect(button.isConnected).toBe(true);

    const removed: Node[] = [];
    const watcher = new MutationObserver((records) => records.forEach((r) => removed.push(...Array.from(r.removedNodes))));
    watcher.observe(host, { childList: true, subtree: true });
    relayout(popup);
    popup.setLatLng([39.91, 116.41]); // a new report moves it
    relayout(popup);
    watcher.takeRecords().forEach((r) => removed.push(...Array.from(r.removedNodes)));
    watcher.disconnect();
    expect(removed).toEqual([]);
    expect(button.isConnected).toBe(true);

    // what Leaflet's update() does, which the popup used before: the content goes out and back in
    const again = new MutationObserver(() => undefined);
    again.observe(host, { childList: true, subtree: true });
    popup.update();
    expect(again.takeRecords().some((r) => Array.from(r.removedNodes).includes(content))).toBe(true);
    again.disconnect();
    map.remove();
  });
});
