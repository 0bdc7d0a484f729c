"""Recordings made here for tests and benchmarks (espeak-ng and ffmpeg): `deputy.speech.synthesis`."""

from deputy.speech.synthesis import spoken_note, spoken_video

__all__ = ["spoken_note", "spoken_video"]
