"""Recordings made on this machine: espeak-ng speaks, ffmpeg encodes as the apps send.

Used by tests and benchmarks, and by the sandbox's recipe videos.

Telegram and WhatsApp voice notes are OGG files with Opus audio (mono, 48 kHz); a video is MP4
(H.264 picture, AAC sound). Both tools are Debian packages (`make system-deps`).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path


def _speak(text: str, voice: str, speed: int, wav: Path) -> None:
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(wav), text], check=True,
                   capture_output=True)


def spoken_note(text: str, voice: str = "en-us", speed: int = 140) -> bytes:
    """`text` said by espeak-ng, as an OGG/Opus voice note."""
    with tempfile.TemporaryDirectory() as scratch:
        wav, ogg = Path(scratch) / "note.wav", Path(scratch) / "note.ogg"
        _speak(text, voice, speed, wav)
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(wav), "-c:a", "libopus", "-b:a", "24k",
                        "-ar", "48000", "-ac", "1", str(ogg)], check=True, capture_output=True)
        return ogg.read_bytes()


def spoken_video(text: str, voice: str = "en-us", speed: int = 140) -> bytes:
    """An MP4 video (a plain coloured picture) whose sound is `text` said by espeak-ng."""
    with tempfile.TemporaryDirectory() as scratch:
        wav, mp4 = Path(scratch) / "sound.wav", Path(scratch) / "clip.mp4"
        _speak(text, voice, speed, wav)
        subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=orange:s=160x120:r=5",
                        "-i", str(wav), "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                        "-c:a", "aac", "-b:a", "48k", str(mp4)], check=True, capture_output=True)
        return mp4.read_bytes()
