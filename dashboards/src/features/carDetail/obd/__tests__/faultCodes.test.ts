/**
 * Known answers built by hand from the layouts faultCodes.ts cites, bytes in the order annex Q sends them:
 * J1939 DM1 (SAE J1939-73): SPN 3226 = 0x00C9A -> byte 1 0x9A (bits 8-1), byte 2 0x0C (bits 16-9), byte 3
 * 0b000_00010 (SPN bits 19-17 = 0, FMI 2), byte 4 0x05 (CM 0, 5 occurrences) -> 0x9A0C0205.
 * ISO 15031-6 / SAE J2012: P20EE = 0b00 (P) + 0x20EE -> bytes 0x20 0xEE; U0100 = 0b11 (U) + 0x0100 -> 0xC1 0x00.
 */
import { describe, expect, it } from 'vitest';
import { decodeFaultCode, faultCodeLabel, faultCodeText, fmiKey } from '../faultCodes';

describe('a fault code as sent', () => {
  it('is 0x and 8 upper-case hex digits', () => {
    expect(faultCodeText(0x00a1b2c3)).toBe('0x00A1B2C3');
    expect(faultCodeText(0xffffffff)).toBe('0xFFFFFFFF');
  });
});

describe('SAE J1939 (OBD protocol 2): the DM1 DTC of SAE J1939-73', () => {
  it('reads SPN, FMI and the occurrence count with the SPN low byte first', () => {
    expect(decodeFaultCode(0x9a0c0205, 2)).toEqual({ kind: 'j1939', raw: '0x9A0C0205', spn: 3226, fmi: 2, occurrences: 5 });
    // SPN 100 (engine oil pressure) FMI 1, once
    expect(decodeFaultCode(0x64000101, 2)).toMatchObject({ spn: 100, fmi: 1, occurrences: 1 });
    expect(faultCodeLabel(decodeFaultCode(0x9a0c0205, 2))).toBe('SPN 3226 FMI 2');
  });

  it('takes SPN bits 19-17 from the top of byte 3', () => {
    // SPN 520192 = 0x7F000: byte 1 0x00, byte 2 0xF0, byte 3 0b111_00100 (bits 19-17 = 7, FMI 4), 3 occurrences
    expect(decodeFaultCode(0x00f0e403, 2)).toMatchObject({ spn: 520192, fmi: 4, occurrences: 3 });
    // the largest SPN, FMI 31, occurrence count 0x7F (not available)
    expect(decodeFaultCode(0xffffff7f, 2)).toMatchObject({ spn: 524287, fmi: 31, occurrences: null });
  });

  it('shows an SPN in an older layout (conversion method 1) as sent', () => {
    const fault = decodeFaultCode(0x00a1b2c3, 2);
    expect(fault).toEqual({ kind: 'raw', raw: '0x00A1B2C3', reason: 'conversionMethod' });
    expect(faultCodeLabel(fault)).toBe('0x00A1B2C3');
  });

  it('names FMI 0-21 and 31, and 22-30 as reserved', () => {
    expect([0, 2, 21, 31].map(fmiKey)).toEqual(['0', '2', '21', '31']);
    expect([22, 30].map(fmiKey)).toEqual(['reserved', 'reserved']);
  });
});

describe('ISO 15765 / ISO 27145 (OBD protocols 0 / 1): the ISO 15031-6 / SAE J2012 DTC', () => {
  it('reads the system letter and four hex digits from bytes 1-2', () => {
    expect(decodeFaultCode(0x20ee0000, 0)).toEqual({ kind: 'iso', raw: '0x20EE0000', dtc: 'P20EE', failureType: null });
    expect(faultCodeLabel(decodeFaultCode(0x20ee0000, 0))).toBe('P20EE');
    expect(faultCodeLabel(decodeFaultCode(0x04200000, 0))).toBe('P0420');
    expect(faultCodeLabel(decodeFaultCode(0x41230000, 1))).toBe('C0123');
    expect(faultCodeLabel(decodeFaultCode(0x92340000, 1))).toBe('B1234');
    expect(faultCodeLabel(decodeFaultCode(0xc1000000, 0))).toBe('U0100');
  });

  it('adds the failure type byte when there is one, and keeps the status byte in the raw value only', () => {
    const fault = decodeFaultCode(0x20ee1f08, 1);
    expect(fault).toEqual({ kind: 'iso', raw: '0x20EE1F08', dtc: 'P20EE', failureType: 0x1f });
    expect(faultCodeLabel(fault)).toBe('P20EE-1F');
    expect(faultCodeLabel(decodeFaultCode(0x20ee0008, 1))).toBe('P20EE');
  });
});

describe('an unknown or invalid OBD protocol', () => {
  it('shows the code as sent', () => {
    for (const protocol of [null, undefined, 3, 0xfe]) {
      const fault = decodeFaultCode(0x9a0c0205, protocol);
      expect(fault).toEqual({ kind: 'raw', raw: '0x9A0C0205', reason: 'protocol' });
      expect(faultCodeLabel(fault)).toBe('0x9A0C0205');
    }
  });
});
