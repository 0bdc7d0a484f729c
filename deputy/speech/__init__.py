"""Speech to text for voice notes, audio and videos' sound: local (Whisper base on CPU) or a hosted endpoint."""

from deputy.speech.transcriber import (
    HostedTranscriber, LocalTranscriber, SpeechError, SpeechLimits, Transcriber, Transcript, TooLong,
)
from deputy.speech.weights import WHISPER_BASE, ensure_speech_weights

__all__ = [
    "HostedTranscriber", "LocalTranscriber", "SpeechError", "SpeechLimits", "Transcriber", "Transcript", "TooLong",
    "WHISPER_BASE", "ensure_speech_weights",
]
