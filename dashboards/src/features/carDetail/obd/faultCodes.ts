/**
 * GB 17691-2018 annex Q's OBD fault codes read as a mechanic reads them (pure). Annex Q sends each fault code
 * as 4 bytes and gives them no further layout; the codec keeps them as one unsigned integer, first byte sent
 * as the most significant (protocols/gb32960/messages/emission.py ObdInfo). They are read here, and only
 * here, as the DTC bytes of the OBD diagnostic protocol named in the same OBD information block:
 *
 * - 2 SAE J1939: the DTC of DM1 (SAE J1939-73 §5.7.1, active diagnostic trouble codes), bytes in the order sent:
 *   byte 1 SPN bits 8-1, byte 2 SPN bits 16-9, byte 3 SPN bits 19-17 (bits 8-6) and the FMI (bits 5-1),
 *   byte 4 the SPN conversion method (bit 8) and the occurrence count (bits 7-1, 0x7F not available).
 *   Conversion method 1 marks one of the older SPN layouts (J1939-73 versions 1-3), which the frame does not
 *   tell apart: such a code is shown as sent.
 * - 0 ISO 15765 / 1 ISO 27145: bytes 1-2 the two-byte DTC of ISO 15031-6 / SAE J2012, DTC format structure (bits 15-14 the
 *   system P / C / B / U, then four hex digits), byte 3 the failure type byte of the three-byte DTC
 *   (ISO 27145-3 and ISO 14229-1 DTC format, the values in SAE J2012-DA; 0x00 carries no failure type), byte 4 the DTC status
 *   byte (ISO 14229-1 annex D), kept in the raw value only. An ISO 15765 (SAE J1979) code has two bytes and
 *   leaves bytes 3-4 zero.
 *
 * Any other protocol byte (0xFE invalid arrives as null) shows the code as sent.
 */

/** A fault code as sent, 0x and 8 upper-case hex digits. */
export function faultCodeText(code: number): string {
  return `0x${(code >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;
}

export type FaultCode =
  /** SAE J1939-73 DM1: suspect parameter number, failure mode identifier 0-31, occurrences (null: 0x7F). */
  | { kind: 'j1939'; raw: string; spn: number; fmi: number; occurrences: number | null }
  /** ISO 15031-6 / SAE J2012 DTC ("P20EE"), with the failure type byte (null: 0x00, none). */
  | { kind: 'iso'; raw: string; dtc: string; failureType: number | null }
  /** Shown as sent: the protocol is not one of annex Q's three, or a J1939 SPN in an older layout. */
  | { kind: 'raw'; raw: string; reason: 'protocol' | 'conversionMethod' };

const ISO_SYSTEMS = ['P', 'C', 'B', 'U'] as const;
const OCCURRENCES_NOT_AVAILABLE = 0x7f;

/** The fault code `code` (4 bytes as sent) under annex Q's OBD protocol byte `obdProtocol`. */
export function decodeFaultCode(code: number, obdProtocol: number | null | undefined): FaultCode {
  const value = code >>> 0;
  const raw = faultCodeText(value);
  const [b1, b2, b3, b4] = [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
  if (obdProtocol === 2) {
    if (b4 & 0x80) return { kind: 'raw', raw, reason: 'conversionMethod' };
    const occurrences = b4 & 0x7f;
    return {
      kind: 'j1939', raw, spn: ((b3 >> 5) << 16) | (b2 << 8) | b1, fmi: b3 & 0x1f,
      occurrences: occurrences === OCCURRENCES_NOT_AVAILABLE ? null : occurrences,
    };
  }
  if (obdProtocol === 0 || obdProtocol === 1) {
    const digits = (((b1 & 0x3f) << 8) | b2).toString(16).toUpperCase().padStart(4, '0');
    return { kind: 'iso', raw, dtc: `${ISO_SYSTEMS[b1 >> 6]}${digits}`, failureType: b3 === 0 ? null : b3 };
  }
  return { kind: 'raw', raw, reason: 'protocol' };
}

/** The DTC as a mechanic writes it: "SPN 3226 FMI 2", "P20EE", "P20EE-1F" (with a failure type), or the raw hex. */
export function faultCodeLabel(fault: FaultCode): string {
  if (fault.kind === 'j1939') return `SPN ${fault.spn} FMI ${fault.fmi}`;
  if (fault.kind === 'iso') {
    return fault.failureType === null ? fault.dtc
      : `${fault.dtc}-${fault.failureType.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return fault.raw;
}

/** The key of an FMI's meaning (strings `obd:fmi.<key>`): SAE J1939-73's table assigns 0-21 and 31; 22-30 are
 * reserved for SAE assignment. */
export function fmiKey(fmi: number): string {
  return fmi >= 22 && fmi <= 30 ? 'reserved' : String(fmi);
}
