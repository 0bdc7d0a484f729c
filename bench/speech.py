"""What hearing a voice note costs, and how well the local speech model hears.

    python -m bench.speech [--threads 2]

Recordings are made here: espeak-ng says each sentence (a synthetic voice, clearer than a phone
in a street and less natural than a person: the error rate is a floor for real notes, not a
promise), ffmpeg encodes it as OGG/Opus as the apps send. Each is heard by
`deputy.speech.LocalTranscriber` (Whisper base, int8, CTranslate2 on the CPU); the model's
load time, the seconds per note and per minute of audio, and the word error rate (words
substituted, dropped or added, over the words said; case, punctuation and "3 pm"/"three pm"
spellings folded) are printed per language. A 10 s note is timed on its own.
"""

from __future__ import annotations

import argparse
import re
import time

from deputy.settings import Settings
from deputy.speech import LocalTranscriber
from deputy.testing.speech import spoken_note

SENTENCES = {
    "en-us": [
        "Put the dentist on my calendar for Thursday at three pm.",
        "Email Alice that I will be ten minutes late.",
        "Book a table for two at an Italian place on Friday evening.",
        "Remind me to buy milk and bread on the way home.",
        "Find a cheaper phone plan and tell me what you find.",
        "Cancel my gym class tomorrow morning.",
        "Send the invoice from last week to my accountant.",
        "Tell me when flights to Lisbon drop below four hundred dollars.",
    ],
    "fr": [
        "Ajoute le dentiste à mon agenda jeudi à quinze heures.",
        "Réserve une table pour deux vendredi soir.",
        "Rappelle-moi d'acheter du lait en rentrant.",
    ],
    "es": [
        "Añade el dentista a mi calendario el jueves.",
        "Reserva una mesa para dos el viernes por la noche.",
        "Recuérdame comprar leche de camino a casa.",
    ],
}
TEN_SECONDS = ("Please book a table for four at the Italian place near the station on Friday at seven, "
               "and put it on my calendar.")
_NUMBERS = {"3": "three", "10": "ten", "400": "four hundred", "15": "quinze", "2": "two"}


def words(text: str) -> list[str]:
    text = text.lower().replace("p.m.", "pm").replace("$", "")
    for digits, spelled in _NUMBERS.items():
        text = re.sub(rf"\b{digits}\b", spelled, text)
    return re.findall(r"[^\W_]+(?:'[^\W_]+)?", text)


def errors(said: list[str], heard: list[str]) -> int:
    """Word-level edit distance."""
    row = list(range(len(heard) + 1))
    for i, word in enumerate(said, 1):
        previous, row[0] = row[0], i
        for j, other in enumerate(heard, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (word != other))
    return row[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    settings = Settings(DEPUTY_SPEECH="local")
    transcriber = LocalTranscriber(settings.speech_model_path(), threads=args.threads, fetch=True)
    started = time.monotonic()
    transcriber._loaded()
    print(f"model load: {time.monotonic() - started:.1f} s ({args.threads} threads)")
    note = spoken_note(TEN_SECONDS, speed=115)
    for round_ in range(3):
        heard = transcriber.transcribe(note)
        print(f"10 s note, round {round_ + 1}: {heard.duration:.1f} s of audio heard in {heard.seconds:.2f} s")
    for voice, sentences in SENTENCES.items():
        said_total = wrong = 0
        audio = spent = 0.0
        for sentence in sentences:
            heard = transcriber.transcribe(spoken_note(sentence, voice=voice, speed=130))
            said = words(sentence)
            said_total += len(said)
            wrong += errors(said, words(heard.text))
            audio += heard.duration
            spent += heard.seconds
            print(f"  [{voice}/{heard.language}] {heard.text}")
        print(f"{voice}: {len(sentences)} notes, {audio:.0f} s of audio in {spent:.1f} s "
              f"({spent / audio * 60:.1f} s per minute of audio), word error rate {wrong / said_total:.0%}")


if __name__ == "__main__":
    main()
