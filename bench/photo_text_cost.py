"""What reading a photo's text for secrets costs the chat front end.

    python -m bench.photo_text_cost [--rounds 5]

Every photo and picture a user sends is read by Tesseract (`deputy.bot.photo_text`) before the
bot keeps it. Three typical pictures are drawn here: a phone screenshot of a notes app
(1080x2400 PNG), a phone photo of a payment card on a table (1280x960 JPEG, rotated, noisy,
slightly blurred, as Telegram delivers a compressed photo) and a photo of a handwritten-style
note (1280x960 JPEG). Each is read `--rounds` times; the wall time of the whole reading (the
child process included) and what it read are printed, and whether the secret was found.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from io import BytesIO

from deputy.bot.photo_text import PhotoReader
from deputy.core.secret_scan.pictures import picture_secrets


def _font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def screenshot() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1080, 2400), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, 1080, 180], fill=(30, 120, 200))
    draw.text((40, 60), "Notes", font=_font(60), fill="white")
    lines = ["Home stuff", "", "Wi-Fi: HomeNet-5G", "password: Xk9#mm2Lq-77", "", "Bins go out on Tuesday",
             "Dentist Thu 3pm", "Call mum about the weekend"]
    for index, line in enumerate(lines):
        draw.text((60, 260 + 90 * index), line, font=_font(48), fill=(20, 20, 20))
    out = BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _photo(foreground, background: tuple[int, int, int], angle: float, seed: int) -> bytes:
    from PIL import Image, ImageFilter

    random.seed(seed)
    photo = Image.new("RGB", (1280, 960), background)
    rotated = foreground.rotate(angle, expand=True, fillcolor=background)
    photo.paste(rotated, ((1280 - rotated.width) // 2, (960 - rotated.height) // 2))
    pixels = photo.load()
    for _ in range(60_000):  # sensor noise
        x, y, shift = random.randrange(1280), random.randrange(960), random.randint(-30, 30)
        pixels[x, y] = tuple(max(0, min(255, c + shift)) for c in pixels[x, y])
    photo = photo.filter(ImageFilter.GaussianBlur(0.8))
    out = BytesIO()
    photo.save(out, format="JPEG", quality=80)
    return out.getvalue()


def card_photo() -> bytes:
    from PIL import Image, ImageDraw

    card = Image.new("RGB", (860, 540), (25, 60, 130))
    draw = ImageDraw.Draw(card)
    draw.text((50, 40), "BANK OF SOMEWHERE", font=_font(44), fill=(235, 235, 235))
    draw.text((50, 250), "4242 4242 4242 4242", font=_font(66), fill=(245, 245, 245))
    draw.text((50, 360), "VALID THRU 09/29", font=_font(36), fill=(235, 235, 235))
    draw.text((50, 430), "JANE Q CUSTOMER", font=_font(40), fill=(235, 235, 235))
    return _photo(card, (120, 110, 95), 3, 1)


def note_photo() -> bytes:
    from PIL import Image, ImageDraw

    note = Image.new("RGB", (700, 500), (250, 240, 140))
    draw = ImageDraw.Draw(note)
    for index, line in enumerate(["router admin", "user: admin", "pass: Tr0ub4dor&3"]):
        draw.text((40, 60 + 120 * index), line, font=_font(56), fill=(30, 30, 90))
    return _photo(note, (200, 190, 170), -5, 2)


async def run(rounds: int) -> None:
    reader = PhotoReader()
    if not reader.available:
        raise SystemExit("tesseract is not installed: apt-get install tesseract-ocr (or make system-deps)")
    for name, image in (("phone screenshot 1080x2400 PNG", screenshot()), ("card photo 1280x960 JPEG", card_photo()),
                        ("note photo 1280x960 JPEG", note_photo())):
        times, text = [], ""
        for _ in range(rounds):
            started = time.perf_counter()
            text = await reader.text(image) or ""
            times.append(time.perf_counter() - started)
        scan = picture_secrets(text)
        print(f"{name:32} {len(image) / 1024:6.0f} KB  median {statistics.median(times):.2f} s  "
              f"max {max(times):.2f} s  found: {scan.label or 'nothing'}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(run(parser.parse_args().rounds))


if __name__ == "__main__":
    main()
