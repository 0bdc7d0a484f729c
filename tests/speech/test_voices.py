"""A spoken reply is read in the voice of the language it is written in.

The guess is checked on replies of the kind Deputy writes, in the seven languages it reads times in,
and then by ear: a German reply made into a voice note by the same path the bot uses is heard as
German by the local speech model (it was heard as English, read by the English voice, before)."""

from __future__ import annotations

import asyncio

import pytest

from deputy.bot.spoken_replies import send_spoken
from deputy.settings import Settings
from deputy.speech.voices import DEFAULT_VOICE, voice_for


@pytest.mark.parametrize(("reply", "voice"), [
    ("I put the dentist on your calendar for Thursday at 3 pm. Tell me if you want a reminder.", "en-us"),
    ("Ich habe den Zahnarzt für Donnerstag um 15 Uhr in deinen Kalender eingetragen.", "de"),
    ("He añadido el dentista a tu calendario el jueves a las tres. ¿Quieres un recordatorio también?", "es"),
    ("J'ai ajouté le dentiste à votre agenda pour jeudi à 15 h. Voulez-vous un rappel ?", "fr-fr"),
    ("Ho aggiunto il dentista al tuo calendario per giovedì alle 15. Vuoi anche un promemoria?", "it"),
    ("Adicionei o dentista ao seu calendário para quinta-feira às 15h. Você quer um lembrete também?", "pt"),
    ("Ik heb de tandarts voor donderdag om 15 uur in je agenda gezet. Wil je ook een herinnering?", "nl"),
    ("Your table at Trattoria Roma is booked for Friday, 8 pm, for two.", "en-us"),
    ("Die E-Mail an Anna ist raus. Sie hat noch nicht geantwortet.", "de"),
])
def test_a_reply_is_read_in_its_own_languages_voice(reply: str, voice: str) -> None:
    assert voice_for(reply) == voice


@pytest.mark.parametrize("reply", ["Trattoria Roma", "42", "✅", "", "Anna Müller, 15:00"])
def test_words_that_do_not_tell_keep_the_default_voice(reply: str) -> None:
    assert voice_for(reply) == DEFAULT_VOICE


class _RecordingBot:
    def __init__(self) -> None:
        self.voices: list[bytes] = []

    async def send_voice(self, chat_id: int, voice: bytes) -> None:
        self.voices.append(voice)


def test_a_german_reply_sent_as_a_voice_note_is_heard_as_german() -> None:
    transcriber = Settings(_env_file=None).transcriber()
    bot = _RecordingBot()
    asyncio.run(send_spoken(bot, 7, "Ich habe den Zahnarzt für Donnerstag um drei Uhr in deinen Kalender "
                                    "eingetragen. Möchtest du auch eine Erinnerung?"))
    [note] = bot.voices
    heard = transcriber.transcribe(note)
    assert heard.language == "de", heard
    assert "möchtest du" in heard.text.lower(), heard.text
