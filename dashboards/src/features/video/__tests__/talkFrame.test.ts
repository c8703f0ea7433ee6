import { describe, expect, it } from 'vitest';
import { TALK_FRAME_SAMPLES } from '../constants';
import { encodeTalkPacket, Resampler, simDigits, TalkFramer, TALK_PACKET_BYTES, toInt16 } from '../talkFrame';

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

describe('encodeTalkPacket', () => {
  it('lays a frame out byte for byte as protocols/jt1078/talk.py talk_frame does', () => {
    // .venv/bin/python -c "from protocols.jt1078.talk import talk_frame;
    //   print(talk_frame([0,1,-1,32767,-32768]+[0]*315, 65535, 1234567890123, sim='013800000001', channel=2)[:32].hex())"
    const samples = new Int16Array(TALK_FRAME_SAMPLES);
    samples.set([0, 1, -1, 32767, -32768]);
    const packet = encodeTalkPacket(samples, 65535, 1234567890123, '013800000001', 2);
    expect(packet.length).toBe(666);
    expect(hex(packet.subarray(0, 32))).toBe('303163648190ffff01380000000102300000011f71fb04cb028000000001ffff');
    expect(hex(packet.subarray(32, 36))).toBe('7fff8000');
  });

  it('takes the serial modulo 65536 and the last 12 digits of a longer SIM', () => {
    const packet = encodeTalkPacket(new Int16Array(TALK_FRAME_SAMPLES), 65536 + 7, 0, '8613800000001', 1);
    expect(hex(packet.subarray(6, 8))).toBe('0007');
    expect(hex(packet.subarray(8, 14))).toBe('613800000001');
  });

  it('pads a short SIM with zeros', () => {
    expect(simDigits('13800000001')).toBe('013800000001');
    expect(simDigits('0138-0000-0001')).toBe('013800000001');
  });
});

describe('toInt16', () => {
  it('maps the float range to the full 16-bit range and clips', () => {
    expect(toInt16(0)).toBe(0);
    expect(toInt16(1)).toBe(32767);
    expect(toInt16(-1)).toBe(-32768);
    expect(toInt16(2)).toBe(32767);
    expect(toInt16(-3)).toBe(-32768);
    expect(toInt16(0.5)).toBe(16384);
  });
});

describe('Resampler', () => {
  it('turns 48 kHz into 8 kHz: one sample out per six in, across uneven blocks', () => {
    const resampler = new Resampler(48000);
    let produced = 0;
    for (const size of [128, 128, 1000, 7, 4537]) produced += resampler.push(new Float32Array(size).fill(0.25)).length;
    expect(produced).toBe(Math.floor((128 + 128 + 1000 + 7 + 4537) / 6) + 1);
  });

  it('keeps a 400 Hz tone at 48 kHz a 400 Hz tone at 8 kHz (same zero crossings, amplitude kept)', () => {
    const input = Float32Array.from({ length: 48000 }, (_, n) => 0.8 * Math.sin((2 * Math.PI * 400 * n) / 48000));
    const out = new Resampler(48000).push(input);
    let crossings = 0;
    for (let i = 1; i < out.length; i += 1) if (out[i - 1] < 0 !== out[i] < 0) crossings += 1;
    expect(out.length).toBe(8000);
    expect(crossings).toBeGreaterThanOrEqual(798);
    expect(crossings).toBeLessThanOrEqual(801);
    expect(Math.max(...out)).toBeGreaterThan(0.7);
  });

  it('suppresses a tone above the 4 kHz band (no alias at full strength)', () => {
    const input = Float32Array.from({ length: 48000 }, (_, n) => Math.sin((2 * Math.PI * 12000 * n) / 48000));
    const out = new Resampler(48000).push(input);
    expect(Math.max(...out.map(Math.abs))).toBeLessThan(0.2);
  });

  it('upsamples 4 kHz to 8 kHz by interpolation', () => {
    const out = new Resampler(4000).push(Float32Array.from([0, 1, 0, -1]));
    expect(Array.from(out)).toEqual([0, 0.5, 1, 0.5, 0, -0.5, -1]);
  });
});

describe('TalkFramer', () => {
  it('sends one 666-byte packet per 320 samples at 8 kHz with serials and 40 ms timestamps', () => {
    const framer = new TalkFramer(8000, '013800000001', 3, 10);
    const packets = framer.push(new Float32Array(1000).fill(0.5));
    expect(packets).toHaveLength(3);
    for (const [i, packet] of packets.entries()) {
      expect(packet.length).toBe(TALK_PACKET_BYTES);
      const view = new DataView(packet.buffer);
      expect(view.getUint16(6)).toBe(10 + i);
      expect(packet[14]).toBe(3);
      expect(Number(view.getBigUint64(16))).toBe(40 * i);
      expect(view.getUint16(24)).toBe(640);
      expect(view.getInt16(26)).toBe(16384);
    }
    expect(framer.push(new Float32Array(40))).toHaveLength(0); // 1000 + 40 = 1040 < 4 * 320 + ...
    expect(framer.push(new Float32Array(240))).toHaveLength(1); // the fourth frame completes at 1280
  });

  it('wraps the serial after 65535 to 0', () => {
    const framer = new TalkFramer(8000, '1', 1, 65534);
    const packets = framer.push(new Float32Array(3 * 320));
    expect(packets.map((p) => new DataView(p.buffer).getUint16(6))).toEqual([65534, 65535, 0]);
    expect(framer.seq).toBe(1);
  });

  it('frames a 48 kHz microphone into 8 kHz frames: 6 x 320 input samples make one frame', () => {
    const framer = new TalkFramer(48000, '1', 1);
    let count = 0;
    for (let i = 0; i < 15; i += 1) count += framer.push(new Float32Array(128)).length;
    expect(count).toBe(Math.floor((15 * 128) / 6 / 320));
  });
});
