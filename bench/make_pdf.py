#!/usr/bin/env python3
"""Writes a valid one-page PDF of about SIZE_MB megabytes (the bulk is an image XObject of
random pixels) to PATH, for upload benchmarks. Usage: make_pdf.py PATH SIZE_MB"""
import os
import sys

path, size_mb = sys.argv[1], float(sys.argv[2])
side = int((size_mb * 1024 * 1024 / 3) ** 0.5)
pixels = os.urandom(side * side * 3)
objects = [
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im 5 0 R >> >> /Contents 4 0 R >>",
]
content = b"q 500 0 0 500 47 171 cm /Im Do Q"
objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
objects.append(
    b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length %d >>\nstream\n"
    % (side, side, len(pixels)) + pixels + b"\nendstream"
)
out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
offsets = []
for i, body in enumerate(objects, 1):
    offsets.append(len(out))
    out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
for off in offsets:
    out += b"%010d 00000 n \n" % off
out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
with open(path, "wb") as f:
    f.write(out)
