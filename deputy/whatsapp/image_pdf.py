"""A JPEG or PNG picture as a one-page PDF, without an imaging library. Pure.

WhatsApp takes images of at most 5 MB but documents of up to 100 MB, and a PDF is a document
type it accepts (a PNG sent as a document is not). A PDF can carry a JPEG's bytes as they are
(``DCTDecode``) and the compressed rows of an 8-bit, non-interlaced grey or RGB PNG as they
are (``FlateDecode`` with PNG predictors): the picture is not decoded, so a 9 MB full-page
screenshot converts at the speed of a copy. Other PNGs (alpha, palette, interlaced, 16-bit)
would need decoding: they give None, and the caller says the picture cannot be sent.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_POINTS_PER_PIXEL = 0.75  # a 96 dpi screen pixel in PDF points
_MAX_PAGE_POINTS = 14_400  # the largest page side PDF readers accept


@dataclass(frozen=True)
class _Picture:
    width: int
    height: int
    colour_space: str
    image_dictionary: str  # the filter entries of the image XObject
    stream: bytes


def image_pdf(data: bytes) -> bytes | None:
    """The picture on a page of its own size, or None for a picture this cannot carry."""
    picture = _png(data) if data.startswith(_PNG_SIGNATURE) else _jpeg(data) if data[:2] == b"\xff\xd8" else None
    return _document(picture) if picture is not None else None


def _png(data: bytes) -> _Picture | None:
    offset, idat, header = len(_PNG_SIGNATURE), [], None
    while offset + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body[:13])
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        offset += 12 + length
    if header is None or not idat:
        return None
    width, height, depth, colour, _compression, _filter, interlace = header
    colours = {0: 1, 2: 3}.get(colour)
    if depth != 8 or colours is None or interlace != 0:
        return None
    space = "/DeviceGray" if colours == 1 else "/DeviceRGB"
    filters = (f"/Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors {colours} "
               f"/BitsPerComponent 8 /Columns {width} >>")
    return _Picture(width, height, space, filters, b"".join(idat))


def _jpeg(data: bytes) -> _Picture | None:
    offset = 2
    while offset + 4 <= len(data):
        if data[offset] != 0xFF:
            return None
        marker = data[offset + 1]
        if marker == 0xFF:  # fill byte
            offset += 1
            continue
        length = struct.unpack(">H", data[offset + 2:offset + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            height, width, components = struct.unpack(">HHB", data[offset + 5:offset + 10])
            space = {1: "/DeviceGray", 3: "/DeviceRGB", 4: "/DeviceCMYK"}.get(components)
            if space is None or not width or not height:
                return None
            return _Picture(width, height, space, "/Filter /DCTDecode", data)
        offset += 2 + length
    return None


def _document(picture: _Picture) -> bytes:
    scale = min(_POINTS_PER_PIXEL, _MAX_PAGE_POINTS / max(picture.width, picture.height))
    width, height = round(picture.width * scale, 2), round(picture.height * scale, 2)
    drawing = f"q {width} 0 0 {height} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] "
         f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        _stream(f"/Type /XObject /Subtype /Image /Width {picture.width} /Height {picture.height} "
                f"/ColorSpace {picture.colour_space} /BitsPerComponent 8 {picture.image_dictionary}", picture.stream),
        _stream("", drawing),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{at:010d} 00000 n \n".encode() for at in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def _stream(dictionary: str, data: bytes) -> bytes:
    return f"<< {dictionary} /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"
