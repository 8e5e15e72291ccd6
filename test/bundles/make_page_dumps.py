"""Writes this bundle's page dumps the way an instrumented SGLang run does
(docs/evidence.md §4a): raw bytes with ndarray.tofile, numpy.save, and a
safetensors file (8-byte little-endian header length, JSON header, data).

Every page is an fp8 index-K page (docs/hicache-indexk.md §2.1): 64 rows of
128 fp8 e4m3fn bytes, then 64 fp32 scales, 8,448 bytes. Row r, column i of a
room's page holds FP8[(3*r + i + seed) % 6] with scale (seed + 1) / 64, so
every byte is known by hand. Run from test/bundles/: python3 make_page_dumps.py
"""
import json
import struct
import zlib

import os

import numpy as np

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "page-dumps"))

FP8 = [0x38, 0x30, 0xC0, 0x40, 0x3C, 0x00]  # 1.0, 0.5, -2.0, 2.0, 1.5, 0.0
OLD, NEW, STALE, HEALTHY = "8972542885242963296", "7301152698145511823", "6917529027641081857", "5764607523034234881"
T0 = 1781186760.0  # 2026-06-11T14:06:00Z


def page(seed, rows=range(64)):
    data = bytearray(64 * 128)
    scales = bytearray(64 * 4)
    for r in rows:
        data[r * 128:(r + 1) * 128] = bytes(FP8[(3 * r + i + seed) % 6] for i in range(128))
        scales[r * 4:(r + 1) * 4] = struct.pack("<f", (seed + 1) / 64)
    return bytes(data + scales)


def torn(new_seed, old_seed, at_row):
    """Rows [0, at_row) of the new room's page, the rest (data and scales) still the old room's."""
    new, old = page(new_seed), page(old_seed)
    data = new[: at_row * 128] + old[at_row * 128 : 8192]
    scales = new[8192 : 8192 + at_row * 4] + old[8192 + at_row * 4 :]
    return data + scales


def crc(b):
    return format(zlib.crc32(b), "08x")


def record(ts, host, role, side, room, page_no, pos, file, offset, **extra):
    return {"ts": ts, "host": host, "role": role, "tp": 0, "side": side, "room": room, "buffer": "index_k", "layer": 0,
            "page": page_no, "pos": pos, "dtype": "fp8", "file": file, "offset": offset, "length": 8448, **extra}


def write_jsonl(path, records):
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r).replace('"room": "', '"room": ').replace('", "buffer"', ', "buffer"') + "\n")


# Prefill: pages 3, 4 (OLD pos 0, 1), 7 (NEW), 8 (STALE), 9 (HEALTHY), one after the other in a .bin.
prefill = [(OLD, 3, 0, page(1)), (OLD, 4, 1, page(2)), (NEW, 7, 0, page(3)), (STALE, 8, 0, page(4)), (HEALTHY, 9, 0, page(5))]
np.frombuffer(b"".join(p for *_, p in prefill), dtype=np.uint8).tofile("p0/prefill-pages.bin")
write_jsonl("p0/prefill-pages.jsonl", [
    record(T0 + 1 + i * 0.01, "p0", "prefill", "prefill_store", room, no, pos, "prefill-pages.bin", i * 8448, algo="crc32", checksum=crc(p))
    for i, (room, no, pos, p) in enumerate(prefill)])

# Decode, .npy: OLD received pages 40 and 41; after OLD's release NEW was given page 40 and STALE page 41.
# NEW's page is torn at row 37; STALE's still holds OLD's pos-1 page. The array ends 1,000 bytes into a fifth page.
decode = [(OLD, 40, 0, "decode_recv", page(1)), (OLD, 41, 1, "decode_recv", page(2)),
          (NEW, 40, 0, "decode_read", torn(3, 1, 37)), (STALE, 41, 0, "decode_read", page(2))]
np.save("d0/decode-pages.npy", np.frombuffer(b"".join(p for *_, p in decode) + page(6)[:1000], dtype=np.uint8))
records = [record(T0 + 2 + i, "d0", "decode", side, room, no, pos, "decode-pages.npy", i * 8448) for i, (room, no, pos, side, _) in enumerate(decode)]
records.append(record(T0 + 4.5, "d0", "decode", "decode_read", HEALTHY, 43, 1, "decode-pages.npy", 4 * 8448))

# Decode, .safetensors: HEALTHY's page 42, equal to prefill's, dumped with a checksum that is not its own.
body = page(5)
header = json.dumps({"__metadata__": {"room": HEALTHY}, "index_k.layer0.page42": {"dtype": "U8", "shape": [8448], "data_offsets": [0, 8448]}}).encode()
header += b" " * (-len(header) % 8)
with open("d0/decode-late.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header + body)
records.append(record(T0 + 5, "d0", "decode", "decode_recv", HEALTHY, 42, 0, "decode-late.safetensors", 0,
                      tensor="index_k.layer0.page42", algo="crc32", checksum="0badc0de"))
write_jsonl("d0/decode-pages.jsonl", sorted(records, key=lambda r: r["ts"]))

# The checksum dumps people already make, for NEW's pos 0 on both sides.
with open("p0/checksums.jsonl", "w") as f:
    f.write(json.dumps({"ts": T0 + 1.02, "host": "p0", "role": "prefill", "tp": 0, "side": "prefill_store", "room": NEW, "buffer": "index_k", "layer": 0, "page": 7, "pos": 0, "algo": "crc32", "hash": crc(page(3))}).replace(f'"{NEW}"', NEW) + "\n")
with open("d0/checksums.jsonl", "w") as f:
    f.write(json.dumps({"ts": T0 + 4, "host": "d0", "role": "decode", "tp": 0, "side": "decode_read", "room": NEW, "buffer": "index_k", "layer": 0, "page": 40, "pos": 0, "algo": "crc32", "hash": crc(torn(3, 1, 37))}).replace(f'"{NEW}"', NEW) + "\n")
