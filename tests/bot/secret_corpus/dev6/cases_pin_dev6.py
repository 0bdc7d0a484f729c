"""cvc_pin cases of dev6: security codes and PINs on their own, in phrasings written freshly by hand."""
from ids_dev6 import case, pin


def P(message, secret, keep, language, source):
    return case("cvc_pin", message, secret, keep, language, source)


def cases():
    out = []
    a = pin(4)
    out.append(P(f"the garage remote code is {a}, the button on the left", [a], ["garage remote code"], "en",
                 "garage remote code"))
    a = pin(6)
    out.append(P(f"safe combination for the hotel room: {a}. remind me tonight", [a], ["safe combination"], "en",
                 "hotel safe combination"))
    a = pin(4)
    out.append(P(f"voicemail pin {a} — I always forget it", [a], ["voicemail pin"], "en", "voicemail PIN"))
    a = pin(5)
    out.append(P(f"Gate code for Nana's place is {a}#, the intercom is broken", [a], ["Gate code"], "en",
                 "gate code with #"))
    a = pin(4)
    out.append(P(f"parking barrier code {a} (staff car park, level -2)", [a], ["parking barrier code"], "en",
                 "parking barrier code"))
    a = pin(4)
    out.append(P(f"bike lock combo is {a[0]}-{a[1]}-{a[2]}-{a[3]}", [f"{a[0]}-{a[1]}-{a[2]}-{a[3]}"],
                 ["bike lock combo"], "en", "bike lock combination, dashed digits"))
    a = pin(4)
    out.append(P(f"the 4 digits for the box are {a} — it's next to the blue door", [a], ["the box"], "en",
                 "key box, casual '4 digits for the box'"))
    a = pin(4)
    out.append(P(f"locker 112 at the station, code {a}", [a], ["locker 112"], "en", "station locker code"))
    a = pin(6)
    out.append(P(f"my banking app passcode is {a}, if I'm in hospital you'll need it to pay the rent", [a],
                 ["banking app passcode"], "en", "bank app passcode"))
    a = pin(4)
    out.append(P(f"Dad's debit card PIN: {a}. He asked me to take out cash for him", [a], ["debit card PIN"], "en",
                 "a parent's debit card PIN"))
    a = pin(8)
    out.append(P(f"the PUK for the kids' SIM is {a}, it's locked again", [a], ["PUK"], "en", "SIM PUK (8 digits)"))
    a = pin(4)
    out.append(P(f"El PIN de la tarjeta nueva del Santander es {a}, apúntalo en algún sitio seguro", [a],
                 ["PIN de la tarjeta"], "es", "card PIN, Spanish"))
    a = pin(4)
    out.append(P(f"la clave del candado del trastero: {a}", [a], ["candado del trastero"], "es",
                 "storage room padlock, Spanish"))
    a = pin(6)
    out.append(P(f"Código de la alarma de la oficina {a}, y si salta llamas a Prosegur", [a], ["Código de la alarma"],
                 "es", "office alarm code, Spanish"))
    a = pin(3)
    out.append(P(f"los tres numeritos de atrás de la Visa: {a}", [a], ["tres numeritos de atrás"], "es",
                 "CVV described casually, Spanish"))
    a = pin(4)
    out.append(P(f"Le code de la boîte à clés du gîte c'est {a}, on arrive vers 22h", [a], ["boîte à clés"], "fr",
                 "key box code, French"))
    a = pin(4)
    out.append(P(f"mon code confidentiel CB : {a} — pour que tu fasses les courses", [a], ["code confidentiel CB"],
                 "fr", "French card PIN 'code confidentiel'"))
    a = pin(4)
    out.append(P(f"code du portail chez Mamie : {a} puis la touche clé", [a], ["code du portail"], "fr",
                 "gate code, French"))
    a = pin(4)
    out.append(P(f"le code de la messagerie vocale c'est {a}", [a], ["messagerie vocale"], "fr",
                 "voicemail code, French"))
    a = pin(6)
    out.append(P(f"combinaison du coffre-fort : {a[:2]} {a[2:4]} {a[4:]}", [f"{a[:2]} {a[2:4]} {a[4:]}"],
                 ["combinaison du coffre-fort"], "fr", "safe combination in pairs"))
    a = pin(4)
    out.append(P(f"Die PIN von der Girocard ist {a}, falls du tanken musst", [a], ["PIN von der Girocard"], "de",
                 "Girocard PIN, German"))
    a = pin(4)
    out.append(P(f"Zahlenschloss am Fahrradkeller: {a}", [a], ["Zahlenschloss"], "de", "combination lock, German"))
    a = pin(5)
    out.append(P(f"Schlüsseltresor Ferienwohnung Code {a} – bitte dem Gast weiterleiten", [a], ["Schlüsseltresor"],
                 "de", "holiday flat key safe, German"))
    a = pin(4)
    out.append(P(f"Il PIN del bancomat di mamma è {a}, prelevi tu domani?", [a], ["PIN del bancomat"], "it",
                 "bancomat PIN, Italian"))
    a = pin(4)
    out.append(P(f"codice del cancello carrabile {a}*", [a], ["cancello carrabile"], "it", "driveway gate code"))
    a = pin(4)
    out.append(P(f"la combinazione dell'armadietto in palestra: {a}", [a], ["armadietto"], "it",
                 "gym locker combination, Italian"))
    a = pin(6)
    out.append(P(f"Código do alarme da loja: {a}. Se disparar liga para o Sr. Tavares", [a], ["Código do alarme"],
                 "pt", "shop alarm code, Portuguese"))
    a = pin(4)
    out.append(P(f"o PIN do multibanco é {a}, trazes pão?", [a], ["PIN do multibanco"], "pt",
                 "Multibanco PIN, Portuguese"))
    a = pin(4)
    out.append(P(f"senha do cadeado da mala: {a}", [a], ["cadeado da mala"], "pt", "luggage lock code"))
    a = pin(4)
    out.append(P(f"De code van het sleutelkastje bij oma is {a}", [a], ["sleutelkastje"], "nl",
                 "key box, Dutch"))
    a = pin(5)
    out.append(P(f"pincode van de voordeur (elektronisch slot): {a}", [a], ["elektronisch slot"], "nl",
                 "electronic lock PIN, Dutch"))
    a = pin(3)
    out.append(P(f"CVC van de creditcard voor de boeking: {a}. Kaartnummer heb je al.", [a], ["CVC"], "nl",
                 "CVC alone, Dutch"))
    a = pin(4)
    out.append(P(f"mailbox key code is {a} — the parcel's inside", [a], ["mailbox key code"], "en",
                 "parcel mailbox code"))
    a = pin(4)
    out.append(P(f"Kid's phone screen time passcode: {a} (don't tell him)", [a], ["screen time passcode"], "en",
                 "screen time passcode"))
    a = pin(6)
    out.append(P(f"the code to turn off the smoke alarm panel at the shop is {a}", [a], ["alarm panel"], "en",
                 "alarm panel code"))
    a = pin(4)
    out.append(P(f"Tresorcode im Hotelzimmer 417 hab ich auf {a} gesetzt", [a], ["Tresorcode"], "de",
                 "hotel safe code set by the user, German"))
    return out
