/** A window's current picture as a PNG download (the grid's snapshot button). */
export function snapshotName(plate: string, channelId: number, at: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${at.getFullYear()}${pad(at.getMonth() + 1)}${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return `${plate.replace(/[\\/:*?"<>|·\s]/g, '') || 'video'}-ch${channelId}-${stamp}.png`;
}

/** Draws the video's current frame and downloads it; false when there is no picture yet. */
export function downloadSnapshot(video: HTMLVideoElement, name: string): boolean {
  if (!video.videoWidth || !video.videoHeight) return false;
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  const context = canvas.getContext('2d');
  if (!context) return false;
  context.drawImage(video, 0, 0);
  const link = document.createElement('a');
  link.download = name;
  link.href = canvas.toDataURL('image/png');
  link.click();
  return true;
}
