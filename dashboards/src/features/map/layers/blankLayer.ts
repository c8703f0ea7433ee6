/**
 * The offline base layer: a plain background with a light grid, drawn locally on canvas tiles.
 * It needs no network, so markers have a usable map on a machine without internet.
 */
import L from 'leaflet';

const BACKGROUND = '#f3f5f7';
const MINOR = '#e4e8ed';
const MAJOR = '#d3d9e0';

export function drawBlankTile(ctx: CanvasRenderingContext2D, size: number): void {
  ctx.fillStyle = BACKGROUND;
  ctx.fillRect(0, 0, size, size);
  ctx.lineWidth = 1;
  for (let i = 0; i <= size; i += size / 4) {
    ctx.strokeStyle = i === 0 ? MAJOR : MINOR;
    ctx.beginPath();
    ctx.moveTo(i + 0.5, 0);
    ctx.lineTo(i + 0.5, size);
    ctx.moveTo(0, i + 0.5);
    ctx.lineTo(size, i + 0.5);
    ctx.stroke();
  }
}

const BlankGridLayer = L.GridLayer.extend({
  createTile(this: L.GridLayer): HTMLElement {
    const size = this.getTileSize();
    const canvas = L.DomUtil.create('canvas', 'fw-blank-tile') as HTMLCanvasElement;
    canvas.width = size.x;
    canvas.height = size.y;
    const ctx = canvas.getContext('2d');
    if (ctx) drawBlankTile(ctx, size.x);
    return canvas;
  },
});

export function createBlankLayer(): L.GridLayer {
  return new (BlankGridLayer as unknown as new (options?: L.GridLayerOptions) => L.GridLayer)({
    maxZoom: 20,
    className: 'fw-blank-layer',
  });
}
