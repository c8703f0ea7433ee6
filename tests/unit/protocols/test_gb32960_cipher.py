"""AES data units of GB/T 32960.3 (protocols/gb32960/cipher.py): the cipher against NIST's CBC example, the mode
and padding against the one public encrypted frame (LOGIN-AES), and whole frames turned into the other form and
back with their header, BCC and length right."""

from __future__ import annotations

import hashlib

import pytest

from protocols.gb32960 import Encryption, decode_frame, encode_frame
from protocols.gb32960.cipher import (
    AesKey,
    CipherError,
    aes_cbc_decrypt,
    aes_cbc_encrypt,
    decrypt_frame,
    encrypt_frame,
)
from protocols.gb32960.framing import HEADER_BYTES
from protocols.gb32960.messages import Heartbeat, RealtimeReport
from tests.unit.protocols.gb32960_vectors import VECTORS

# NIST SP 800-38A F.2.1, CBC-AES128.Encrypt
NIST_KEY = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
NIST_IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
NIST_PLAIN = bytes.fromhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                           "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
NIST_CIPHER = bytes.fromhex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                            "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7")
KEY = AesKey(NIST_KEY, NIST_IV)


def _frame(name: str) -> bytes:
    return bytes.fromhex(VECTORS[name])


def test_the_cipher_is_aes_cbc_as_nist_gives_it_with_one_pkcs7_block_after_whole_blocks() -> None:
    sent = aes_cbc_encrypt(NIST_KEY, NIST_IV, NIST_PLAIN)
    assert sent[:64] == NIST_CIPHER and len(sent) == 80  # 64 bytes are whole blocks: a full block of padding
    assert aes_cbc_decrypt(NIST_KEY, NIST_IV, sent) == NIST_PLAIN


def test_the_public_encrypted_login_decrypts_to_the_clear_logins_data_unit() -> None:
    # SmallChi's test derives its key and IV as .NET's Rfc2898DeriveBytes("test", salt) does (PBKDF2-HMAC-SHA1,
    # 1,000 rounds; 32 bytes of key, then 16 of IV); the same login in clear is the LOGIN vector.
    derived = hashlib.pbkdf2_hmac("sha1", b"test", bytes([13, 34, 27, 67, 189, 255, 104, 219, 122]), 1000, 48)
    encrypted, clear = _frame("LOGIN-AES"), _frame("LOGIN")
    assert aes_cbc_decrypt(derived[:32], derived[32:], encrypted[HEADER_BYTES:-1]) == clear[HEADER_BYTES:-1]


def test_a_frame_encrypted_and_decrypted_is_the_frame_again_and_decodes_with_its_bcc() -> None:
    clear = _frame("RT-2025-SAMPLE")
    sent = encrypt_frame(clear, KEY)
    message = decode_frame(sent)  # BCC and data length are the ciphertext's
    assert message.header.encryption == Encryption.AES128 and isinstance(message.body, bytes)
    assert sent[:21] == clear[:21] and len(message.body) % 16 == 0 and message.body != clear[HEADER_BYTES:-1]
    back = decrypt_frame(sent, KEY)
    assert back == clear and isinstance(decode_frame(back).body, RealtimeReport)


def test_a_frame_without_data_unit_stays_clear_and_only_clear_frames_are_encrypted() -> None:
    heartbeat = encode_frame(0x07, Heartbeat(), vin="")
    assert encrypt_frame(heartbeat, KEY) == heartbeat
    with pytest.raises(ValueError, match="only a clear frame"):
        encrypt_frame(_frame("LOGIN-AES"), KEY)
    with pytest.raises(ValueError, match="not an AES frame"):
        decrypt_frame(_frame("LOGIN"), KEY)


def test_another_key_or_a_cut_data_unit_is_a_cipher_error_not_garbage() -> None:
    sent = encrypt_frame(_frame("LOGIN"), KEY)
    with pytest.raises(CipherError, match="padding"):
        decrypt_frame(sent, AesKey(bytes(16), NIST_IV))
    with pytest.raises(CipherError, match="whole 16-byte blocks"):
        aes_cbc_decrypt(NIST_KEY, NIST_IV, sent[HEADER_BYTES:-2])
    with pytest.raises(CipherError):
        aes_cbc_decrypt(NIST_KEY, NIST_IV, b"")


def test_keys_are_sixteen_bytes_and_the_iv_one_block() -> None:
    assert AesKey.from_hex(NIST_KEY.hex(), NIST_IV.hex()) == KEY
    for key, iv in ((bytes(32), NIST_IV), (NIST_KEY, bytes(8))):
        with pytest.raises(ValueError, match="16 and 16 bytes"):
            AesKey(key, iv)
    with pytest.raises(ValueError, match="AES key / IV"):
        AesKey.from_hex("zz" * 16, NIST_IV.hex())
