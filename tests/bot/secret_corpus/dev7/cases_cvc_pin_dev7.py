"""cvc_pin cases for dev7: PINs, card security codes, door/alarm/safe codes, PUK, passcodes. Hand-written."""
from ids_dev7 import RNG, case, digits, pin

K = "cvc_pin"


def cvv():
    return pin(3)


def cases():
    out = []
    a = pin()
    out.append(case(K, f"it's {a} btw, the garage one. dont change it pls", [a], ["the garage one"], "en",
                    "casual garage code"))
    a = cvv()
    out.append(case(K, f"ok the numbers on the back are {a}, expiry is on the front u can read it from the photo",
                    [a], ["the numbers on the back are", "expiry"], "en", "CVV described, no label word"))
    a = pin()
    out.append(case(K, f"> what's mum's card pin again??\nher PIN is {a} but DON'T tell her I gave it to you 😅",
                    [a], ["her PIN is", "DON'T tell her"], "en", "quoted reply, relative's PIN"))
    a = pin(8)
    out.append(case(K, f"Sim got locked after 3 tries, it wants the PUK now. PUK1 {a} (from the card holder it came in)",
                    [a], ["PUK1", "card holder"], "en", "PUK"))
    a = pin(6)
    out.append(case(K, f"screen time passcode for Leo's ipad → {a}. he keeps guessing so maybe change it after",
                    [a], ["screen time passcode", "Leo's ipad"], "en", "parental-control passcode, arrow"))
    a = pin()
    out.append(case(K, f"voicemail pin is {a}#  (the # matters lol)", [a], ["voicemail pin", "the # matters"], "en",
                    "voicemail PIN with #"))
    a = pin(5)
    out.append(case(K, f"Front door keypad: {a} then press the key symbol 🔑. Parking is free after 6pm.",
                    [a], ["Front door keypad", "Parking is free after 6pm"], "en", "Airbnb check-in"))
    a = pin()
    out.append(case(K, f"alarm code {a}, you have 30 seconds after opening the door before it goes off",
                    [a], ["alarm code", "30 seconds"], "en", "alarm panel"))
    a = pin()
    out.append(case(K, f"Can you pay the plumber? card's in the drawer, pin {a}, tell him to text me the receipt",
                    [a], ["card's in the drawer", "text me the receipt"], "en", "debit PIN given for errand"))
    a = cvv()
    out.append(case(K, f"sec code {a}\nname on card: J. Whitfield\nbilling zip same as home", [a],
                    ["sec code", "billing zip"], "en", "abbreviated security code, list"))
    a = pin(6)
    out.append(case(K, f"my phone unlock is {a} if u need to grab the boarding pass off it, its in wallet",
                    [a], ["my phone unlock is", "boarding pass"], "en", "phone unlock code"))
    a = pin()
    out.append(case(K, f"the safe in the wardrobe opens with {a} — press lock button first then the digits",
                    [a], ["the safe in the wardrobe", "press lock button first"], "en", "hotel safe"))
    a = pin()
    out.append(case(K, f"Bike lock combo = {a[0]}-{a[1]}-{a[2]}-{a[3]}", [f"{a[0]}-{a[1]}-{a[2]}-{a[3]}"],
                    ["Bike lock combo"], "en", "combination with dashes between digits"))
    a = pin()
    out.append(case(K, f"Die Geheimzahl von Omas EC-Karte ist {a}, sie hat sie mir auf nen Zettel geschrieben 🙄",
                    [a], ["Geheimzahl", "Omas EC-Karte"], "de", "Geheimzahl of a relative"))
    a = pin()
    out.append(case(K, f"Code fürs Hoftor: {a}, dann links bis zur Garage. Bin ab 18 Uhr da", [a],
                    ["Code fürs Hoftor", "Bin ab 18 Uhr da"], "de", "gate code"))
    a = cvv()
    out.append(case(K, f"Prüfnummer hinten auf der Karte: {a}. Ablauf 09/27.", [a], ["Prüfnummer", "Ablauf"], "de",
                    "card check number (Prüfnummer)"))
    a = pin(8)
    out.append(case(K, f"hab die SIM gesperrt 🙈 superpin/PUK laut Brief: {a}", [a], ["PUK laut Brief"], "de",
                    "PUK from letter"))
    a = pin()
    out.append(case(K, f"Alarmanlage scharf? Nee, Code ist {a} und dann Taste AUS", [a], ["Alarmanlage", "Taste AUS"],
                    "de", "alarm panel"))
    a = pin(6)
    out.append(case(K, f"Kannst du mein Handy entsperren? Entsperrcode {a}. Liegt auf dem Schreibtisch",
                    [a], ["Entsperrcode", "Liegt auf dem Schreibtisch"], "de", "phone unlock code"))
    a = pin()
    out.append(case(K, f"Mailbox-PIN hat sich geändert, neu: {a}", [a], ["Mailbox-PIN", "neu:"], "de",
                    "voicemail PIN"))
    a = pin()
    out.append(case(K, f"el pin de la tarjeta de mi padre es {a}, saca 200 para la compra porfa", [a],
                    ["pin de la tarjeta de mi padre", "saca 200"], "es", "relative's card PIN"))
    a = cvv()
    out.append(case(K, f"me piden el código de seguridad... es {a} no? el de los 3 numeritos", [a],
                    ["código de seguridad", "3 numeritos"], "es", "security code"))
    a = pin()
    out.append(case(K, f"Clave del portal {a} 🔑 el timbre no funciona", [a], ["Clave del portal", "el timbre"], "es",
                    "building door code (clave del portal)"))
    a = pin(6)
    out.append(case(K, f"contraseña del móvil de la abuela: {a} (la cambió ayer, la otra ya no va)", [a],
                    ["la cambió ayer"], "es", "phone unlock given as contraseña"))
    a = pin()
    out.append(case(K, f"caja fuerte del hotel → {a}. Los pasaportes están dentro", [a],
                    ["caja fuerte del hotel", "Los pasaportes"], "es", "hotel safe"))
    a = pin(8)
    out.append(case(K, f"PUK: {a}\nlo pone en la tarjetita de plástico donde venía la SIM", [a],
                    ["tarjetita de plástico"], "es", "PUK"))
    a = pin()
    out.append(case(K, f"Le code de la porte c'est {a}B, l'interphone marche pas", [f"{a}B"],
                    ["Le code de la porte", "l'interphone marche pas"], "fr", "digicode with letter"))
    a = pin()
    out.append(case(K, f"code CB de maman : {a} — tu retires 50€ max stp", [a], ["code CB de maman", "50€ max"], "fr",
                    "relative's card code"))
    a = cvv()
    out.append(case(K, f"cryptogramme {a}, date d'expi 11/26, je te laisse commander les billets", [a],
                    ["cryptogramme", "commander les billets"], "fr", "cryptogramme visuel"))
    a = pin(6)
    out.append(case(K, f"Mot de passe du contrôle parental sur la Switch : {a}. Ne le dis pas aux petits !", [a],
                    ["contrôle parental", "Switch"], "fr", "console parental code"))
    a = pin()
    out.append(case(K, f"alarme : désactiver avec {a} puis OFF. Le chat peut déclencher le détecteur du salon 🐈",
                    [a], ["désactiver avec", "détecteur du salon"], "fr", "alarm"))
    a = pin()
    out.append(case(K, f"Boîte à clés à côté de la boîte aux lettres, combinaison {a}", [a],
                    ["Boîte à clés", "combinaison"], "fr", "key box"))
    a = pin()
    out.append(case(K, f"il pin del bancomat è {a}, la carta è nel portafoglio marrone", [a],
                    ["il pin del bancomat", "portafoglio marrone"], "it", "bancomat PIN"))
    a = cvv()
    out.append(case(K, f"CVV {a} scad 03/28 intestata a mia sorella", [a], ["CVV", "mia sorella"], "it",
                    "CVV of sister's card"))
    a = pin(5)
    out.append(case(K, f"codice cancello: {a}* — se non apre suona al citofono Bianchi", [a],
                    ["codice cancello", "citofono Bianchi"], "it", "gate code with star"))
    a = pin(6)
    out.append(case(K, f"sblocca il tel con {a} e guardami il codice che mi arriva per sms", [a],
                    ["sblocca il tel", "sms"], "it", "unlock code, casual"))
    a = pin()
    out.append(case(K, f"Codice segreteria telefonica {a}. Ascolta i messaggi del medico per favore", [a],
                    ["segreteria telefonica", "messaggi del medico"], "it", "voicemail"))
    a = pin()
    out.append(case(K, f"o pin do multibanco é {a}, levanta 40 pra mim", [a], ["pin do multibanco", "levanta 40"],
                    "pt", "multibanco PIN"))
    a = cvv()
    out.append(case(K, f"os 3 dígitos atrás do cartão: {a}", [a], ["3 dígitos atrás do cartão"], "pt",
                    "CVV as 'three digits on the back'"))
    a = pin()
    out.append(case(K, f"senha do cartão da minha mãe {a} (ela pediu pra vc pagar a farmácia)", [a],
                    ["senha do cartão da minha mãe", "farmácia"], "pt", "card PIN called senha"))
    a = pin(6)
    out.append(case(K, f"código do cofre: {a}\nchave do carro tá lá dentro", [a], ["código do cofre", "chave do carro"],
                    "pt", "safe"))
    a = pin()
    out.append(case(K, f"portão da garagem abre com {a} no teclado ao lado", [a], ["portão da garagem", "teclado"],
                    "pt", "garage keypad"))
    a = pin()
    out.append(case(K, f"pincode van de bankpas: {a}. Pas ligt in de la bij de tv", [a],
                    ["pincode van de bankpas", "bij de tv"], "nl", "Dutch pincode"))
    a = cvv()
    out.append(case(K, f"beveiligingscode {a} staat achterop, vervaldatum 08/27", [a],
                    ["beveiligingscode", "vervaldatum"], "nl", "card security code"))
    a = pin()
    out.append(case(K, f"De code van het sleutelkastje is {a}, sleutels terug in het kastje aub", [a],
                    ["sleutelkastje", "sleutels terug"], "nl", "key safe"))
    a = pin(6)
    out.append(case(K, f"toegangscode ouderlijk toezicht Netflix {a}", [a], ["ouderlijk toezicht Netflix"], "nl",
                    "streaming parental PIN"))
    a = pin()
    out.append(case(K, f"alarm uitzetten met {a} + OFF, anders belt de meldkamer", [a], ["alarm uitzetten", "meldkamer"],
                    "nl", "alarm"))
    a = pin()
    b = pin(6)
    out.append(case(K, f"ok both codes for the flat:\n- building {a}\n- flat door {b}\nwifi is on the fridge",
                    [a, b], ["building", "flat door", "wifi is on the fridge"], "en", "two codes in a list"))
    a = pin()
    out.append(case(K, f"Locker at the gym: combination {a}, it's locker nr 112 on the left", [a],
                    ["combination", "locker nr 112"], "en", "locker combination next to a locker number"))
    a = pin(6)
    out.append(case(K, f"the app asks for a 6 digit passcode every time, mine is {a}. can u check my balance",
                    [a], ["6 digit passcode", "check my balance"], "en", "bank app passcode, count word nearby"))
    a = pin()
    out.append(case(K, f"Hey! pin la carte de Marc {a} stp ne le note nulle part", [a], ["la carte de Marc"], "fr",
                    "mixed-language, friend's card"))
    a = pin()
    out.append(case(K, f"[10:42] Sofia: el código del trastero?\n[10:43] Yo: {a}, el candado gris", [a],
                    ["el código del trastero", "el candado gris"], "es", "pasted chat log"))
    return out
