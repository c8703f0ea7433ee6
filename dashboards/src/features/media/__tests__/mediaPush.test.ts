import { describe, expect, it } from 'vitest';
import { AUTO_CLOSE_S, countdownShown, mediaKind, mediaUpload, mediaUrl } from '../mediaPush';

describe('push 9: media uploaded', () => {
  it('reads the spec fields of the push', () => {
    const upload = mediaUpload({ type: 9, data: { _id: 42, plateNumber: '京A00001', deviceName: '终端1', mediaType: 0, objectKey: '/media/1/a.jpg', fileStoreType: 1, bizType: 0, deviceId: 3, carId: 4 } });
    expect(upload).toMatchObject({ id: '42', plateNumber: '京A00001', kind: 'photo', objectKey: '/media/1/a.jpg', fileStoreType: 1, bizType: 0, deviceId: 3 });
    expect(mediaUpload({ type: 9, data: { _id: 1 } })).toBeNull();
    expect(mediaUpload({ type: 11, data: { objectKey: '/x' } })).toBeNull();
  });

  it('maps media types 0 photo, 1 audio, 2 video', () => {
    expect([0, 1, 2].map(mediaKind)).toEqual(['photo', 'audio', 'video']);
  });

  it('reads files of store type 2 or lower from /file{objectKey}, others from the media download endpoint', () => {
    expect(mediaUrl({ id: '7', objectKey: '/media/1/a.jpg', fileStoreType: 1 })).toBe('/file/media/1/a.jpg');
    expect(mediaUrl({ id: '7', objectKey: 'media/1/a.jpg', fileStoreType: 2 })).toBe('/file/media/1/a.jpg');
    expect(mediaUrl({ id: '7', objectKey: '/media/1/a.jpg', fileStoreType: 3 })).toBe('/api/media/obs/download/7.json');
  });
});

describe('the media popup countdown (console-spec §4)', () => {
  it('closes after 15 s for a photo, 300 s for audio, 600 s for video', () => {
    expect(AUTO_CLOSE_S).toEqual({ photo: 15, audio: 300, video: 600 });
    expect(countdownShown('photo', 0)).toBe(15);
    expect(countdownShown('photo', 15)).toBe(0);
  });

  it('counts down in whole 15 s steps', () => {
    expect(countdownShown('audio', 0)).toBe(300);
    expect(countdownShown('audio', 14.9)).toBe(300);
    expect(countdownShown('audio', 15)).toBe(285);
    expect(countdownShown('video', 44)).toBe(570);
    expect(countdownShown('video', 600)).toBe(0);
    expect(countdownShown('video', 9999)).toBe(0);
  });
});
