"""cvc_pin cases: card security codes, card PINs, phone/SIM PINs and PUKs, door and alarm codes, bank app PINs."""
import ids_dev5 as I
from values_dev4 import case, luhn_number


def _card(prefix="4", length=16, sep=" "):
    n = luhn_number(prefix, length)
    return n, sep.join(n[i:i + 4] for i in range(0, len(n), 4))


def cases():
    out = []

    def add(msgs, secret, keep, lang, source, checks=()):
        out.append(case("cvc_pin", msgs, secret, keep, lang, source, checks))

    c3 = I.pin(3)
    # ---- English
    add(f"the 3 numbers on the back are {c3}", [c3], ["numbers on the back"], "en", "CVC described casually")
    c = I.pin(4)
    add(f"amex CID {c} (the little one on the front)", [c], ["the little one on the front"], "en", "Amex CID")
    n, shown = _card()
    c = I.pin(3)
    add(f"{shown}\n11/29\n{c}\nJ. Whitfield — book the two nights with this pls", [shown, c], ["book the two nights"],
        "en", "card, expiry and CVV on separate lines", [("luhn", n)])
    c = I.pin(4)
    add(f"garage door code is {c}#, the courier can leave the box inside", [c], ["the courier can leave the box"],
        "en", "garage door code")
    c = I.pin(6)
    add(f"my banking app passcode: {c} — in case I'm in hospital and you need to pay the bills", [c],
        ["pay the bills"], "en", "bank app passcode")
    c = I.pin(4)
    add(f"sim pin {c}, puk is in the drawer", [c], ["puk is in the drawer"], "en", "SIM PIN, lowercase")
    c = I.pin(4)
    add(f"Alarm: disarm with {c} then press OFF. Don't give it to the cleaner.", [c], ["Don't give it to the cleaner"],
        "en", "alarm disarm code")
    c = I.pin(3)
    add(f"cvv2: {c}", [c], ["cvv2"], "en", "bare CVV2 label")
    c = I.pin(4)
    add(f"pin for the visa is {c} i think? or maybe thats the old one", [c], ["or maybe thats the old one"], "en",
        "card PIN with doubt")
    c = I.pin(3)
    add(f"securtiy code {c} (sorry typo, security code)", [c], ["sorry typo"], "en", "typo in the label")
    c = " ".join(I.pin(4))
    add(f"phone unlock pin (spaced so autocorrect leaves it): {c}", [c], ["autocorrect leaves it"], "en",
        "phone PIN with spaced digits")
    # ---- German
    c = I.pin(4)
    add(f"Die PIN für die Kreditkarte ist {c}. Bitte sofort löschen, wenn du sie eingegeben hast.", [c],
        ["sofort löschen"], "de", "credit card PIN")
    c = I.pin(3)
    add(f"Kartenprüfnummer (die 3 Ziffern hinten): {c}", [c], ["die 3 Ziffern hinten"], "de", "German term for CVC")
    c = I.pin(4)
    add(f"Haustür-Code: {c} – dann zweimal drücken, Briefkasten ist links", [c], ["Briefkasten ist links"], "de",
        "front door keypad code")
    n, shown = _card("5")
    c = I.pin(3)
    add(f"Karte: {shown} gültig bis 04/27 Sicherheitscode {c}", [shown, c], ["gültig bis 04/27"], "de",
        "card and security code inline", [("luhn", n)])
    c = I.digits(8)
    add(f"PUK fürs Handy meiner Mutter: {c}", [c], ["fürs Handy meiner Mutter"], "de", "PUK of a relative")
    c = I.pin(5)
    add(f"App-PIN der Volksbank: {c} (5-stellig)", [c], ["5-stellig"], "de", "bank app PIN")
    # ---- Spanish
    c = I.pin(3)
    add(f"el código de seguridad es {c}, el de atrás", [c], ["el de atrás"], "es", "CVC in Spanish")
    c = I.pin(4)
    add(f"pin de la tarjeta del súper: {c} 🛒", [c], ["tarjeta del súper"], "es", "store card PIN with emoji")
    c = I.pin(4)
    add(f"Código de la puerta del portal {c}*, la llave está en el buzón", [c], ["la llave está en el buzón"], "es",
        "building door code")
    n, shown = _card("4", sep="-")
    c = I.pin(3)
    add(f"tarjeta {shown} cad 12/26 cvc {c} a nombre de Sofía Marín", [shown, c], ["a nombre de"], "es",
        "card with CVC, dashed", [("luhn", n)])
    c = I.pin(4)
    add(f"El PIN del móvil nuevo es {c}, cámbialo cuando puedas", [c], ["cámbialo cuando puedas"], "es", "phone PIN")
    c = I.pin(4)
    add(f"clave de la alarma: {c} (la de casa de mis padres)", [c], ["casa de mis padres"], "es", "alarm code")
    # ---- French
    c = I.pin(3)
    add(f"les 3 chiffres au dos de la carte : {c}", [c], ["au dos de la carte"], "fr", "CVC in French")
    c = I.pin(4)
    add(f"digicode de l'immeuble : {c}B puis 2e étage gauche", [c], ["2e étage gauche"], "fr", "digicode")
    c = I.pin(4)
    add(f"code PIN de la CB : {c}. Tu peux retirer 200 € pour moi stp ?", [c], ["retirer 200 €"], "fr",
        "card PIN with a request")
    c = I.pin(4)
    add(f"code sim {c} – le téléphone de secours est dans le tiroir", [c], ["téléphone de secours"], "fr", "SIM PIN")
    n, shown = _card("4")
    c = I.pin(3)
    add(f"Visa {shown}, exp 08/29, crypto {c}", [shown, c], ["exp 08/29"], "fr", "'crypto' abbreviation",
        [("luhn", n)])
    c = I.pin(6)
    add(f"code secret de l'appli bancaire : {c} (à 6 chiffres)", [c], ["à 6 chiffres"], "fr", "bank app secret code")
    # ---- Italian
    c = I.pin(3)
    add(f"il CVV è {c}", [c], ["il CVV è"], "it", "short CVV")
    c = I.pin(5)
    add(f"PIN bancomat: {c}, prelevami 50€ se passi dal bancomat", [c], ["se passi dal bancomat"], "it", "ATM PIN")
    c = I.pin(4)
    add(f"Codice del cancello: {c} e poi il tasto verde 🔑", [c], ["il tasto verde"], "it", "gate code")
    c = I.pin(4)
    add(f"codice d'accesso all'allarme {c} – attenzione, hai 30 secondi", [c], ["hai 30 secondi"], "it", "alarm code")
    n, shown = _card("37", 15)
    c = I.pin(4)
    add(f"Amex {n[:4]} {n[4:10]} {n[10:]}, codice di sicurezza {c}", [f"{n[:4]} {n[4:10]} {n[10:]}", c],
        ["codice di sicurezza"], "it", "Amex with 4-digit CID", [("luhn", n)])
    c = I.digits(8)
    add(f"il PUK della sim di Marco: {c}", [c], ["sim di Marco"], "it", "PUK of a friend")
    # ---- Portuguese
    c = I.pin(3)
    add(f"cvv {c}, validade 05/28", [c], ["validade 05/28"], "pt", "CVV next to expiry only")
    c = I.pin(4)
    add(f"a senha do cartão (4 dígitos) é {c}", [c], ["4 dígitos"], "pt", "card PIN called 'senha'")
    c = I.pin(4)
    add(f"código do portão da garagem: {c}", [c], ["portão da garagem"], "pt", "garage gate code")
    c = I.pin(6)
    add(f"PIN da app do banco {c} — usa só se for urgente", [c], ["usa só se for urgente"], "pt", "bank app PIN")
    n, shown = _card("5")
    c = I.pin(3)
    add(f"Cartão: {shown.replace(' ', '')}\nCód. segurança: {c}", [shown.replace(' ', ''), c], ["Cód. segurança"],
        "pt", "card and abbreviated security code", [("luhn", n)])
    # ---- Dutch
    c = I.pin(3)
    add(f"cvc code: {c} (achterkant)", [c], ["achterkant"], "nl", "CVC in Dutch")
    c = I.pin(4)
    add(f"pincode van de simkaart is {c}", [c], ["van de simkaart"], "nl", "SIM PIN")
    c = I.pin(4)
    add(f"De code van de sleutelkluis bij de voordeur: {c}", [c], ["sleutelkluis"], "nl", "key safe code")
    n, shown = _card("4")
    c = I.pin(3)
    add(f"kaartnr {shown}, geldig t/m 10/27, verificatiecode {c}", [shown, c], ["geldig t/m 10/27"], "nl",
        "card with verification code", [("luhn", n)])
    c = I.pin(5)
    add(f"pincode van de Rabo app: {c}", [c], ["Rabo app"], "nl", "bank app PIN")
    return out
