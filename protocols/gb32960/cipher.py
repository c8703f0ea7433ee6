"""AES-128 data units of GB/T 32960.3 (the header's encryption byte 0x03, GB/T 32960.3-2016 table 2).

The standard names the algorithm and leaves its mode, padding and key to the two platforms of a link. This is
AES in CBC mode with PKCS#7 padding, with a 16-byte key and a 16-byte IV agreed per link and configured on both
sides: the layout of the one public implementation with an encrypted vector (SmallChi/GBNewEnergy's LOGIN-AES,
``../shared/reference/gbt32960-vectors.md``; its test key happens to be 32 bytes, the cipher is the same). The
BCC covers the data unit as sent, the ciphertext; the header's data length is the ciphertext's.

``encrypt_frame`` / ``decrypt_frame`` turn a whole frame into the other form, header otherwise unchanged, so the
rest of the product (decoders, the uplink records, the message logs) only ever sees clear frames.
"""

from __future__ import annotations

from dataclasses import dataclass

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from protocols.gb32960.errors import GB32960Error
from protocols.gb32960.framing import BCC_BYTES, HEADER_BYTES, bcc
from protocols.gb32960.header import Encryption, parse_header

BLOCK = 16
KEY_BYTES = 16  # AES-128
ENCRYPTION_AT = 21  # the header's encryption byte (start 2, command 1, response 1, VIN 17)


class CipherError(GB32960Error):
    """A data unit that does not decrypt with the link's key: not whole blocks, or padding that is not PKCS#7
    (a wrong key or IV shows as the latter, almost always)."""


@dataclass(frozen=True, slots=True)
class AesKey:
    key: bytes
    iv: bytes

    def __post_init__(self) -> None:
        if len(self.key) != KEY_BYTES or len(self.iv) != BLOCK:
            raise ValueError(f"an AES-128 key and IV are {KEY_BYTES} and {BLOCK} bytes, "
                             f"not {len(self.key)} and {len(self.iv)}")

    @classmethod
    def from_hex(cls, key_hex: str, iv_hex: str) -> AesKey:
        """From the 32 hex digits of each, as configured; ValueError names what is wrong."""
        try:
            return cls(bytes.fromhex(key_hex), bytes.fromhex(iv_hex))
        except ValueError as exc:
            raise ValueError(f"AES key / IV: {exc}") from None


def aes_cbc_encrypt(key: bytes, iv: bytes, data: bytes) -> bytes:
    padder = padding.PKCS7(BLOCK * 8).padder()
    clear = padder.update(data) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return encryptor.update(clear) + encryptor.finalize()


def aes_cbc_decrypt(key: bytes, iv: bytes, data: bytes) -> bytes:
    """Raises CipherError when ``data`` is not whole blocks or its padding is not PKCS#7."""
    if not data or len(data) % BLOCK:
        raise CipherError(f"an AES data unit is whole {BLOCK}-byte blocks, not {len(data)} bytes")
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    clear = decryptor.update(data) + decryptor.finalize()
    unpadder = padding.PKCS7(BLOCK * 8).unpadder()
    try:
        return unpadder.update(clear) + unpadder.finalize()
    except ValueError:
        raise CipherError("the AES data unit's padding is not PKCS#7: another key or IV than the link's") from None


def _reframe(frame: bytes, encryption: int, data: bytes) -> bytes:
    if len(data) > 0xFFFF:
        raise ValueError(f"data unit of {len(data)} bytes does not fit the 2-byte length")
    content = frame[:ENCRYPTION_AT] + bytes((encryption,)) + len(data).to_bytes(2, "big") + data
    return content + bytes((bcc(content[2:]),))


def encrypt_frame(frame: bytes, key: AesKey) -> bytes:
    """A clear frame (encryption byte 0x01) -> the same frame with its data unit AES-encrypted (0x03). A frame
    without a data unit (a heartbeat) has nothing to hide and stays as it is."""
    if frame[ENCRYPTION_AT] != Encryption.NONE:
        raise ValueError(f"encryption byte 0x{frame[ENCRYPTION_AT]:02X}: only a clear frame is encrypted")
    data = frame[HEADER_BYTES:-BCC_BYTES]
    if not data:
        return frame
    return _reframe(frame, Encryption.AES128, aes_cbc_encrypt(key.key, key.iv, data))


def decrypt_frame(frame: bytes, key: AesKey) -> bytes:
    """An AES frame (0x03) whose BCC and length were checked -> the clear frame (0x01). Raises CipherError (with
    the frame's header, so that a gateway can answer it 0x02)."""
    if frame[ENCRYPTION_AT] != Encryption.AES128:
        raise ValueError(f"encryption byte 0x{frame[ENCRYPTION_AT]:02X}: not an AES frame")
    try:
        clear = aes_cbc_decrypt(key.key, key.iv, frame[HEADER_BYTES:-BCC_BYTES])
    except CipherError as exc:
        exc.header = parse_header(frame)
        raise
    return _reframe(frame, Encryption.NONE, clear)


__all__ = ["AesKey", "CipherError", "aes_cbc_decrypt", "aes_cbc_encrypt", "decrypt_frame", "encrypt_frame"]
