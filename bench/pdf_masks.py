#!/usr/bin/env python3
"""Writes PowerPoint-like PDFs for bench/pdf_thumbnails_bench.sh: one slide (960 x 540 pt) whose
shape is a 2 x 2 solid-colour image stretched over the slide with a 1-bit /SMask stencil of
WIDTH x HEIGHT pixels (stripes and a disc), as PowerPoint exports lettering and shapes.
    pdf_masks.py OUT.pdf WIDTH HEIGHT"""
import sys
import zlib


def pdf(objects):
    out = b"%PDF-1.5\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out


def stream(entries, data):
    return b"<< %s /Length %d >>\nstream\n%s\nendstream" % (entries, len(data), data)


def stencil(width, height):
    """Rows of a 1-bit mask: horizontal bands, with a disc cut out of the middle."""
    row_bytes = (width + 7) // 8
    packer = zlib.compressobj(6)
    out = []
    cx, cy, r = width // 2, height // 2, min(width, height) // 3
    for y in range(height):
        band = b"\xff" * row_bytes if (y * 8 // height) % 2 == 0 else b"\x00" * row_bytes
        dy = y - cy
        if dy * dy < r * r:
            half = int((r * r - dy * dy) ** 0.5)
            row = bytearray(band)
            lo, hi = (cx - half) // 8, (cx + half) // 8
            row[lo:hi] = b"\x00" * (hi - lo) if band[0] else b"\xff" * (hi - lo)
            band = bytes(row)
        out.append(packer.compress(band))
    out.append(packer.flush())
    return b"".join(out)


def main():
    path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 960 540] /Resources << /XObject << /Im0 5 0 R >> >>"
        b" /Contents 4 0 R >>",
        stream(b"", b"q 960 0 0 540 0 0 cm /Im0 Do Q"),
        stream(b"/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8"
               b" /Interpolate true /SMask 6 0 R", b"\x1f\x4e\x79" * 4),
        stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 1"
               b" /Filter /FlateDecode" % (width, height), stencil(width, height)),
    ]
    with open(path, "wb") as f:
        f.write(pdf(objects))


if __name__ == "__main__":
    main()
